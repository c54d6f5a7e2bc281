/*
 * period.h - the period engine (doc/engine.md): a dedicated thread
 * that wakes `lead` before every regulation-period boundary, reads the
 * lock holders' task and progress pages, decides the next period's
 * budget with decide() (model/decide.h) and hands it to the regulator
 * backend tagged with the period it is for.
 *
 * Period numbering.  The backend owns the clock: clock() returns the
 * current period p and the CLOCK_MONOTONIC time B of the boundary where
 * p + 1 starts.  The engine wakes at B - lead and hands the backend a
 * plan: budgets for p + 1 (the "target") and the plan_len - 1 periods
 * after it, computed from one snapshot (model/budget.h, look-ahead).
 * A wake-up that comes too close to B or after it is late: the plan is
 * then for the first period that begins far enough ahead, and the
 * period it missed runs on the previous plan's look-ahead entry, or on
 * the static budget if the backend has none it may use (regulator.h).
 * The lead adapts to the lateness the machine shows (leadctl.h).
 *
 * Threads.  The engine thread only reads the pages, calls the backend
 * and writes two SPSC rings (ring.h): one ring_period per period and one
 * period_launch per finished kernel launch; after each period with a
 * holder or a finished launch, and every 16th period otherwise, it calls
 * notify() (an ev_async in the daemon) so the event loop drains them.
 * Everything the loop changes at run time (policy, overhead, SMOOTH's a)
 * goes through period_set_policy(), under the engine's mutex.  The
 * holders come from a snapshot callback; the engine calls release()
 * when it no longer uses anything the snapshot pointed to, which is
 * what lets the registry unmap a departed task's pages safely.
 */
#ifndef PERIOD_H
#define PERIOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <bwsched/bwshm.h>

#include "decide.h"
#include "regulator.h"
#include "ring.h"
#include "tasks.h"

#define PERIOD_MAX_HOLDERS	64	/* holders considered per period */
#define PERIOD_MAX_LAUNCHES	256	/* launches tracked at once */

/*
 * One lock holder as the engine sees it.  Everything pointed to stays
 * valid from the snapshot call until the matching release().
 */
struct period_holder {
	uint32_t			task;
	pid_t				pid;
	const char			*name;		/* task name */
	double				qbar;		/* static Q-bar */
	/* a socket-side copy or a launch without a progress slot */
	bool				uninstrumented;
	const struct bwshm_task_page	*tp;		/* or NULL */
	const void			*pp;		/* or NULL */
	size_t				pp_size;
	unsigned int			nslots;		/* as registered */
	unsigned int			nkernels;
	struct kernel *const		*kernels;	/* the task's kernels */
	int				lock_slot;	/* regulator slot, -1 */
};

/*
 * Where holders come from (the task registry in the daemon, fakes in
 * tests).  snapshot() fills up to max entries, returns how many, and
 * the generation of that state; the generation moves whenever the lock
 * holders change.
 */
struct period_source {
	unsigned int	(*snapshot)(void *arg, struct period_holder *,
			    unsigned int max, uint64_t *gen);
	void		(*release)(void *arg);
	/* the generation snapshot() would return now; NULL: never moves */
	uint64_t	(*generation)(void *arg);
	/* true while no task could take the lock (NULL: never); any thread */
	bool		(*idle)(void *arg);
	void		*arg;
};

/* Time, replaceable by a fake clock in tests. */
struct period_clock {
	uint64_t	(*now)(void *arg);		/* CLOCK_MONOTONIC ns */
	/* sleep until t (absolute); 0, 1 when period_kick() woke it
	 * before t, or -1 when told to stop */
	int		(*sleep_until)(void *arg, uint64_t t);
	void		*arg;
};

/* A kernel launch that ended, for the per-launch log (launchlog.h). */
struct period_launch {
	char		task_name[64];	/* copied: the task may be gone */
	char		kernel_name[64];
	pid_t		pid;
	uint32_t	task;
	uint32_t	kernel;		/* kernel id */
	uint32_t	slot;
	uint32_t	blocks;
	uint64_t	seq;		/* the slot's launch sequence */
	uint64_t	launch_ns;	/* its start: the GPU's first block
					 * when the decisions counted from
					 * it (gpu_start), else the CPU-side
					 * launch, not after the engine
					 * first saw it */
	uint64_t	slot_launch_ns;	/* the page's, as written */
	uint64_t	end_ns;		/* first wake-up that saw it ended */
	uint64_t	prev_ns;	/* last wake-up that saw it running */
	uint64_t	bound_ns;	/* G(Q-bar,{Ni},0) */
	double		qbar;
	uint64_t	periods;	/* periods decided while it ran */
	double		q_sum, q_sq, q_min, q_max;	/* Q in effect */
	uint64_t	late;		/* of those, late (static budget) */
	bool		finished;	/* all blocks seen finished */
	bool		client_end;	/* end_ns is the client's record */
	bool		gpu_start;	/* launch_ns is the GPU start */
};

struct period_params {
	const struct regulator_ops	*ops;
	struct regulator		*reg;
	struct period_source		src;
	const struct period_clock	*clock;	/* NULL: the real one */
	uint64_t			period_ns;
	uint64_t			lead_ns;	/* the starting lead */
	uint64_t			lead_min_ns;	/* adaptive range */
	uint64_t			lead_max_ns;
	bool				lead_adapt;
	unsigned int			plan_len;	/* 1..DECIDE_MAX_PLAN */
	unsigned int			ncores;
	double				bwmax_events;
	double				overhead_events;
	double				smooth_a;
	enum decide_policy		policy;
	int				priority;	/* FIFO, 0: none */
	int				cpu;		/* -1: not pinned */
	void				(*notify)(void *arg);
	void				*notify_arg;
	uint32_t			ring_records;	/* 0: 4096 */
	/*
	 * While src.idle() says so, the engine decides nothing and only
	 * sends the heartbeat, every idle_ns (0: never idles; keep it well
	 * under the regulator's heartbeat timeout).  period_kick() ends it.
	 */
	uint64_t			idle_ns;
};

/* Counters; lateness percentiles from a fixed log-linear histogram. */
struct period_stats {
	uint64_t	periods;	/* wake-ups handled */
	uint64_t	applied;	/* plans handed over in time */
	uint64_t	late;		/* wake-ups that missed their period */
	uint64_t	apply_errors;	/* backend refused a plan */
	uint64_t	lock_errors;	/* backend could not read lock slots */
	uint64_t	lead_ns;	/* current lead */
	unsigned int	plan_len;
	uint64_t	bad_slots;	/* slots rejected by validation */
	uint64_t	launches;	/* launches seen end */
	uint64_t	redecided;	/* lock state moved while deciding */
	uint64_t	again;		/* periods decided again: the
					 * holders changed before they began */
	uint64_t	idle;		/* wake-ups with no task (idle_ns) */
	uint64_t	dropped;	/* ring records lost to a slow loop */
	uint64_t	lateness_p50_ns;
	uint64_t	lateness_p99_ns;
	uint64_t	lateness_max_ns;
	uint64_t	cost_p50_ns;	/* CPU time per period (thread clock) */
	uint64_t	cost_p99_ns;
	uint64_t	cost_max_ns;
	double		q;		/* last decided Q, -1 unregulated */
	uint64_t	period;		/* last target period */
	bool		rt;		/* running SCHED_FIFO */
};

struct period;

/* Set up (no thread yet).  NULL with err on failure. */
struct period	*period_new(const struct period_params *, char *err,
		    size_t errlen);
/*
 * Start the thread.  A failure to get SCHED_FIFO or the CPU is not
 * fatal: warn (one line in *warn, empty when none) and run anyway.
 */
int		 period_start(struct period *, char *warn, size_t warnlen,
		    char *err, size_t errlen);
/* Stop and join the thread (safe if it never started). */
void		 period_stop(struct period *);
void		 period_free(struct period *);

/* Run one period synchronously on the calling thread (tests, bench). */
int		 period_run_once(struct period *);
/* A task appeared: leave the idle sleep now (any thread). */
void		 period_kick(struct period *);

/* Loop side. */
void		 period_set_policy(struct period *, enum decide_policy,
		    double overhead_events, double smooth_a);
void		 period_stats(struct period *, struct period_stats *);
struct ring	*period_records(struct period *);	/* of ring_period */
struct ring	*period_launches(struct period *);	/* of period_launch */

#endif /* PERIOD_H */
