/*
 * log.c - journald or stderr logging (see log.h).
 */
#include <config.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "log.h"
#include "sd.h"

static struct {
	bool	stderr_out;
	int	level;
	void	(*hook)(void *, int, const char *);
	void	*hook_arg;
	bool	in_hook;
} lg = { true, LOG_L_INFO, NULL, NULL, false };

void
log_init(bool foreground)
{
	/* under systemd stderr is the journal anyway: use structured records */
	lg.stderr_out = foreground && !sd_stderr_is_journal();
}

void
log_set_level(int level)
{
	lg.level = level;
}

void
log_set_hook(void (*hook)(void *, int, const char *), void *arg)
{
	lg.hook = hook;
	lg.hook_arg = arg;
}

static void
emit(int level, const char *msg, const char *const *fields, int nfields)
{
	static const char *const tag[] = { "emerg", "alert", "crit", "error",
		"warning", "notice", "info", "debug" };
	int	i;

	if (level > lg.level)
		return;
	if (lg.stderr_out || sd_journal_record(level, msg, fields,
	    nfields) < 0) {
		fprintf(stderr, "bwsched: %s: %s", tag[level & 7], msg);
		for (i = 0; i < nfields; i++)
			fprintf(stderr, " %s", fields[i]);
		fputc('\n', stderr);
	}
	/* a subscriber's failure may log: do not recurse */
	if (lg.hook != NULL && !lg.in_hook) {
		lg.in_hook = true;
		lg.hook(lg.hook_arg, level, msg);
		lg.in_hook = false;
	}
}

static void	vemit(int, const char *const *, int, const char *, va_list)
    __attribute__((format(printf, 4, 0)));

static void
vemit(int level, const char *const *fields, int nfields, const char *fmt,
    va_list ap)
{
	char	buf[1024];

	if (level > lg.level)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	emit(level, buf, fields, nfields);
}

void
log_msg(int level, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vemit(level, NULL, 0, fmt, ap);
	va_end(ap);
}

void
log_fields(int level, const char *const *fields, int nfields,
    const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vemit(level, fields, nfields, fmt, ap);
	va_end(ap);
}

void
log_task(int level, uint32_t task, pid_t pid, const char *fmt, ...)
{
	char		f1[32], f2[32];
	const char	*fields[2] = { f1, f2 };
	va_list		ap;

	snprintf(f1, sizeof(f1), "BWSCHED_TASK=%u", task);
	snprintf(f2, sizeof(f2), "BWSCHED_PID=%d", (int)pid);
	va_start(ap, fmt);
	vemit(level, fields, 2, fmt, ap);
	va_end(ap);
}
