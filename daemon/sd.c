/*
 * sd.c - systemd integration, or its stubs (see sd.h).
 */
#include <config.h>	/* autoconf: HAVE_SYSTEMD */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sd.h"

#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

int
sd_activation_socket(char *err, size_t errlen)
{
	int	n, i;

	n = sd_listen_fds(1);
	if (n <= 0)
		return -1;
	for (i = 0; i < n; i++)
		if (sd_is_socket_unix(SD_LISTEN_FDS_START + i, SOCK_SEQPACKET,
		    1, NULL, 0) > 0)
			return SD_LISTEN_FDS_START + i;
	snprintf(err, errlen, "%d activated descriptor(s), none a listening "
	    "SOCK_SEQPACKET Unix socket", n);
	return -2;
}

void
sd_notifyf_state(const char *fmt, ...)
{
	char	buf[256];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sd_notify(0, buf);
}

uint64_t
sd_watchdog_interval(void)
{
	uint64_t	usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0)
		return 0;
	return usec;
}

int
sd_journal_record(int priority, const char *msg, const char *const *fields,
    int nfields)
{
	struct iovec	iov[3 + 32];	/* the launch record has 19 fields */
	static const char	ident[] = "SYSLOG_IDENTIFIER=bwsched";
	char		prio[16], message[1100];
	int		i, n = 0;

	/* a record cut short would lose fields without a word */
	if (nfields > (int)(sizeof(iov) / sizeof(iov[0])) - 3)
		return -1;
	snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
	snprintf(message, sizeof(message), "MESSAGE=%s", msg);
	iov[n++] = (struct iovec){ prio, strlen(prio) };
	iov[n++] = (struct iovec){ message, strlen(message) };
	iov[n++] = (struct iovec){ (void *)(uintptr_t)ident, strlen(ident) };
	for (i = 0; i < nfields; i++)
		iov[n++] = (struct iovec){ (void *)(uintptr_t)fields[i],
		    strlen(fields[i]) };
	return sd_journal_sendv(iov, n) < 0 ? -1 : 0;
}

#else /* !HAVE_SYSTEMD */

int
sd_activation_socket(char *err, size_t errlen)
{
	return -1;
}

void
sd_notifyf_state(const char *fmt, ...)
{
}

uint64_t
sd_watchdog_interval(void)
{
	return 0;
}

int
sd_journal_record(int priority, const char *msg, const char *const *fields,
    int nfields)
{
	return -1;
}

#endif /* HAVE_SYSTEMD */

bool
sd_stderr_is_journal(void)
{
	const char		*e = getenv("JOURNAL_STREAM");
	unsigned long long	dev, ino;
	struct stat		st;

	if (e == NULL || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino;
}
