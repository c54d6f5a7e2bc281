/*
 * launchlog.h - one structured log record per finished kernel launch
 * and rate-limited budget-change lines (bwsched(8) "LOGGING").  Runs on
 * the event loop, fed from the period engine's rings.
 *
 * Journal fields of a launch record:
 *   BWSCHED_TASK, BWSCHED_PID        the task (id, process)
 *   BWSCHED_KERNEL, BWSCHED_KERNEL_ID the kernel (name, id)
 *   BWSCHED_LAUNCH                   the task's launch number (the one
 *                                    kernel.start returned, or the next
 *                                    one for a launch made on the page)
 *   BWSCHED_POLICY                   nominal|fair|greedy|smooth
 *   BWSCHED_PERIODS                  periods decided while it ran
 *   BWSCHED_LATE_PERIODS             of those, run on the static budget
 *   BWSCHED_Q_MEAN/_MIN/_MAX/_STD    the Q in effect over those periods
 *   BWSCHED_BOUND_NS                 G(Q-bar,{Ni},0), from the launch
 *   BWSCHED_ACTUAL_NS                launch to end (see below)
 *   BWSCHED_ACTUAL_MIN_NS            launch to the last wake-up that
 *                                    still saw it running
 *   BWSCHED_SLACK_NS                 bound - actual (negative: over)
 *   BWSCHED_BOUND_MET                yes | no | unknown
 *   BWSCHED_END_BY                   client (its record) | daemon
 *   BWSCHED_START_BY                 gpu (the first block's time, when
 *                                    the engine counted from it) | cpu
 * The daemon sees the pages once a period: the end lies between the
 * last wake-up that saw the launch running and the first that saw every
 * block finished or the slot released.  ACTUAL_NS is that upper end, so
 * it never understates (and SLACK_NS never overstates); BOUND_MET is
 * "unknown" when the bound falls inside that window.
 */
#ifndef LAUNCHLOG_H
#define LAUNCHLOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "period.h"
#include "ring.h"

struct launchlog_rec {
	uint32_t	task;
	pid_t		pid;
	uint32_t	kernel;
	char		task_name[64];
	char		kernel_name[64];
	uint64_t	launch;		/* the task's launch number */
	const char	*policy;
	uint64_t	periods;
	uint64_t	late;
	double		q_mean, q_min, q_max, q_std;
	uint64_t	bound_ns;
	uint64_t	actual_ns;
	uint64_t	actual_min_ns;
	int64_t		slack_ns;
	const char	*met;		/* "yes", "no", "unknown" */
	const char	*end_by;	/* "client" (exact), "daemon" */
	const char	*start_by;	/* "gpu" (first block), "cpu" */
	uint64_t	launch_ns;
	uint64_t	end_ns;
};

/* Pure: the statistics of one finished launch. */
void	launchlog_compute(const struct period_launch *, const char *policy,
	    struct launchlog_rec *);

struct launchlog;

struct launchlog_hooks {
	/* names for a task/kernel id; false when the task is gone */
	bool	(*names)(void *, struct launchlog_rec *);
	/* one "kernel" event to subscribers */
	void	(*event)(void *, const struct launchlog_rec *);
	void	*arg;
};

/* Records go through log.c: journald, or stderr in the foreground. */
struct launchlog *launchlog_new(const struct launchlog_hooks *);
void		 launchlog_free(struct launchlog *);

/* A launch ended: log it as number launch, and send its event. */
void		 launchlog_launch(struct launchlog *,
		    const struct period_launch *, uint64_t launch, bool event,
		    const char *policy);
/* A period record: log Q changes, at most one line per second. */
void		 launchlog_period(struct launchlog *,
		    const struct ring_period *, const char *policy);

/* Records logged so far (tests). */
uint64_t	 launchlog_count(const struct launchlog *);

#endif /* LAUNCHLOG_H */
