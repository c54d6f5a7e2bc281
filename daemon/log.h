/*
 * log.h - the daemon's log: structured journald records (BWSCHED_TASK=,
 * BWSCHED_PID=, ...) or, in the foreground outside the journal, lines on
 * stderr.  A hook lets the server forward records to "log" subscribers.
 */
#ifndef LOG_H
#define LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"

void	log_init(bool foreground);
void	log_set_level(int level);	/* enum log_level */
void	log_set_hook(void (*)(void *, int level, const char *msg), void *);

void	log_msg(int level, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * With extra journald fields ("NAME=value" strings, e.g. a launch
 * record's BWSCHED_BOUND_MET=); on stderr they follow the message.
 * "log" subscribers get the message, as for every record.
 */
void	log_fields(int level, const char *const *fields, int nfields,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* With BWSCHED_TASK= and BWSCHED_PID= fields. */
void	log_task(int level, uint32_t task, pid_t pid, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));

#endif /* LOG_H */
