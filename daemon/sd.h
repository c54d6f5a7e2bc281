/*
 * sd.h - the daemon's few systemd touch points: socket activation,
 * sd_notify, the watchdog interval and journald.  Everything libsystemd
 * is in sd.c behind HAVE_SYSTEMD, so --without-systemd builds get the
 * stubs from that one file.
 */
#ifndef SD_H
#define SD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The activated listening socket (a SOCK_SEQPACKET Unix socket) or -1
 * when none was passed.  -2 when descriptors were passed but none fits
 * (with the reason in err).
 */
int	sd_activation_socket(char *err, size_t errlen);

/* sd_notify(3) with a formatted state; no-op without NOTIFY_SOCKET. */
void	sd_notifyf_state(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));

/* Watchdog interval in µs if the service manager wants pings, else 0. */
uint64_t sd_watchdog_interval(void);

/* True when stderr is connected to the journal (JOURNAL_STREAM). */
bool	sd_stderr_is_journal(void);

/*
 * One structured journal record: priority, message, then nfields
 * "KEY=value" strings.  Returns 0, or -1 when the journal is unavailable.
 */
int	sd_journal_record(int priority, const char *msg,
	    const char *const *fields, int nfields);

#endif /* SD_H */
