/*
 * decide.h - the daemon's per-period budget decision (doc/design.md section 2
 * steps 2-4) as a pure function: a snapshot of the lock holders and their
 * running kernels in, next period's Q and per-core event budgets out.
 * No I/O, no allocation; the only state written besides the output is
 * each kernel's progress scan state and its per-kernel details.
 * The daemon's period engine, bwsim and the tests all call it.
 */
#ifndef DECIDE_H
#define DECIDE_H

#include <stdint.h>

#include "budget.h"
#include "wcet.h"
#include "progress.h"

#define DECIDE_MAX_CORES	64
#define DECIDE_MAX_PLAN		16	/* periods decided at once */
#define DECIDE_MAX_KERNELS	64	/* running launches per holder */
#define DECIDE_UNLIMITED	UINT64_MAX	/* = REG_UNLIMITED */

enum decide_policy {
	DECIDE_NOMINAL = BUDGET_NOMINAL,
	DECIDE_FAIR = BUDGET_FAIR,
	DECIDE_GREEDY = BUDGET_GREEDY,
	DECIDE_SMOOTH = BUDGET_SMOOTH,
};

struct decide_config {
	double		bwmax_events;	/* BE events per period, Q = 1 */
	double		overhead_events; /* daemon's own traffic per period */
	unsigned int	ncores;		/* regulated BE cores */
	double		smooth_a;	/* SMOOTH filter weight, (0,1] */
};

/* Per-kernel details of one decision, for logging and traces. */
struct decide_kernel_out {
	double		q;		/* this kernel's Q for the period */
	double		greedy;		/* GREEDY value (x_n), else q */
	double		t_remaining;	/* ns to its bound */
	uint64_t	remaining;	/* blocks left, all clusters */
	int		late;		/* past its bound: Q-bar */
	double		q_last;		/* its own Q for the plan's last entry */
};

/* One running instrumented kernel launch. */
struct decide_kernel {
	const struct wcet_kernel	*wk;	/* prepared (wcet_prepare) */
	const struct progress_table	*pt;
	const uint64_t	*bitmap;	/* finished-block bitmap */
	uint32_t	 nwords;
	uint32_t	 window;	/* scan window above `low`, e.g. M */
	double		 qnom;		/* its Q-bar */
	uint64_t	 bound_ns;	/* G(Q-bar,{Ni},0) */
	uint64_t	 launch_ns;	/* its start: decide_start_ns() */
	double		 prev_q;	/* last SMOOTH output; < 0: none yet */
	struct progress_scan	*scan;	/* in/out: incremental scan state */
	struct decide_kernel_out out;	/* written by decide() */
	struct budget_track	track;	/* decide()'s scratch */
};

/* One lock holder (a task holding the bandwidth lock). */
struct decide_holder {
	double		 qbar;		/* the task's static budget Q-bar */
	int		 has_progress;	/* 0: memcpy or uninstrumented work */
	unsigned int	 nkernels;
	struct decide_kernel	*kernels;
};

struct decide_input {
	const struct decide_holder	*holders;
	unsigned int	 nholders;
	enum decide_policy policy;
	uint64_t	 period;	/* number of the first period decided */
	uint64_t	 period_start_ns; /* its start */
	const struct decide_config *cfg;
	/* periods to decide from that one on, 1..DECIDE_MAX_PLAN (0: 1) */
	unsigned int	 plan_len;
};

/*
 * The decision: entry j of the plan is for period + j.  Entry 0 is also
 * in q/events.  Every entry is at least q_static (its events at least
 * static_events), and every prefix of the plan followed by the static
 * budget keeps each kernel within its bound assuming no progress after
 * the snapshot (budget.h, look-ahead).
 */
struct decide_output {
	uint64_t	period;		/* copied from the input */
	int		regulated;	/* 0: no holder, events are unlimited */
	double		q;		/* budget ratio (1 when unregulated) */
	double		q_static;	/* smallest Q-bar of the holders */
	uint64_t	events[DECIDE_MAX_CORES];	/* per core, for q */
	uint64_t	static_events[DECIDE_MAX_CORES]; /* q_static */
	unsigned int	plan_len;
	double		plan_q[DECIDE_MAX_PLAN];
	uint64_t	plan_events[DECIDE_MAX_PLAN][DECIDE_MAX_CORES];
};

/*
 * A GPU clock calibration the client published (bwshm.h): a CLOCK_MONOTONIC
 * time is gpu + offset_ns, within err_ns.
 */
struct decide_gpuclock {
	int64_t		offset_ns;
	uint64_t	err_ns;
};

/*
 * The start a launch's remaining time counts from (the decide_kernel's
 * launch_ns): the kernel's GPU start gpu_start (0: not known) converted
 * with clk (NULL: no calibration) and moved earlier by its uncertainty,
 * when that lies in [launch_ns, seen_ns]; otherwise launch_ns, the CPU-side
 * launch time.  seen_ns is when the caller read gpu_start.
 */
uint64_t	decide_start_ns(uint64_t launch_ns, uint64_t gpu_start,
		    const struct decide_gpuclock *clk, uint64_t seen_ns);

/* Parse "nominal", "fair", "greedy", "smooth"; -1 if unknown. */
int		decide_policy_parse(const char *);
const char	*decide_policy_name(enum decide_policy);

/* K = BWmax*q - overhead, split evenly (floor), never negative. */
uint64_t	decide_core_events(const struct decide_config *, double q);

/*
 * The decision for in->plan_len periods from in->period.  Returns 0, or
 * -EINVAL on a bad configuration (ncores or plan_len out of range,
 * bwmax_events <= 0, a kernel with no model).
 */
int		decide(const struct decide_input *, struct decide_output *);

#endif /* DECIDE_H */
