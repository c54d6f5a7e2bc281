/*
 * exp.h - the experiments bwsim runs on the simulated platform (doc/sim.md):
 * BWLOCK++'s TFS period shares (section 4.3.4, Fig. 5-6), throttle time
 * (section 6.5, Fig. 10) and protection of a GPU kernel (section 6.4,
 * Fig. 9), and [DynBW]'s dynamic budgets (section 5.4, Tables 5.2-5.3,
 * Fig. 5.1).  Each writes its raw series as CSV when given a stream.
 */
#ifndef EXP_H
#define EXP_H

#include <stdint.h>
#include <stdio.h>

#include "decide.h"
#include "profile.h"
#include "sim.h"

/* ---- TFS period shares: one core, a mem and a cpu task ---- */
struct exp_tfs_args {
	double		rho;
	uint64_t	periods;	/* default 1000 */
	double		budget_frac;	/* of the core's max; 1/3 */
	uint64_t	seed;
};
struct exp_tfs_result {
	uint64_t	mem_periods;
	uint64_t	cpu_periods;
	uint64_t	throttled_ns;
	double		mem_vruntime;	/* ns, end of run */
	double		cpu_vruntime;
	double		mem_events;
	double		cpu_runtime;	/* ns */
};
void	exp_tfs_default(struct exp_tfs_args *);
int	exp_tfs(const struct exp_tfs_args *, FILE *csv,
	    struct exp_tfs_result *);

/* ---- throttle time: mem + cpu task on each BE core, kernel holds lock ---- */
struct exp_throttle_args {
	double		rho;
	uint64_t	launches;	/* default 200 */
	double		q;		/* static budget; < 0: Q-bar */
	uint64_t	seed;
	unsigned int	ncores;
	const struct profile *profile;
};
struct exp_throttle_result {
	uint64_t	throttled_ns;	/* all cores, whole run */
	uint64_t	locked_ns;	/* time the lock was held */
	uint64_t	periods;
	double		q;
	double		mem_events;
	double		cpu_runtime;	/* ns, all cpu tasks */
	double		mem_runtime;
};
void	exp_throttle_default(struct exp_throttle_args *);
int	exp_throttle(const struct exp_throttle_args *, FILE *csv,
	    struct exp_throttle_result *);

/* ---- dynamic budgets: memory hogs on the BE cores ---- */
struct exp_budgets_args {
	const struct profile *profile;
	enum decide_policy policy;
	uint64_t	launches;
	uint64_t	seed;
	unsigned int	ncores;
	double		bwmax_events;
	double		overhead_events;
	double		slowdown;	/* nominal target, 0.10 */
	double		smooth_a;
	uint64_t	lead_ns;	/* decision lead, 50 us */
	enum sim_speed	speed;
	double		jitter;
	uint64_t	step_ns;
	uint64_t	csv_launches;	/* launches written to csv (0: all) */
	int		mixed;		/* BE cores: 0 hogs, 1 a cpu + a mem task */
	/* unless mixed, with be_nfrac > 0: one task on core i issuing
	 * be_frac[i % be_nfrac] of the core's maximum (1: a hog) */
	double		be_frac[SIM_MAX_CORES];
	unsigned int	be_nfrac;
	double		rho;		/* TFS factor on the BE cores */
	/*
	 * The daemon's timing: each decision hands over a plan of plan_len
	 * periods (1..SIM_PLAN_MAX) for the first period that begins after
	 * it wakes; with probability late_p a wake-up comes late by up to
	 * late_ns (uniform), as on a loaded machine.
	 */
	unsigned int	plan_len;
	double		late_p;
	uint64_t	late_ns;
	/*
	 * Kernels per launch queued on one stream (1 or 2): with 2 the
	 * second is launched from the CPU with the first and starts when
	 * it ends; the daemon sees both slots all along.  gpu_start: count
	 * the second from its real start once it has begun (the progress
	 * page's GPU start), else from the CPU launch time.
	 */
	unsigned int	queued;
	int		gpu_start;
};
struct exp_budgets_result {
	uint64_t	launches;	/* kernels: launches * queued */
	uint64_t	over_bound;	/* from each kernel's real start */
	double		max_ratio;	/* actual / bound */
	double		mean_ratio;
	double		be_events;	/* per launch, while the kernel runs */
	double		be_run_ns;	/* BE tasks' CPU time, same */
	double		cpu_run_ns;	/* of the "cpu" tasks (mixed), same */
	double		q_mean;		/* over the kernel's periods */
	double		q_std;
	double		qnom;
	uint64_t	bound_ns;
	uint64_t	wcet0_ns;
	double		mean_ns;	/* mean response time */
	uint64_t	periods;
	uint64_t	fallbacks;
	/* of the kernel's periods: on a plan's entry 0, a later entry,
	 * and the static budget */
	uint64_t	plan_first;
	uint64_t	plan_ahead;
	uint64_t	static_periods;
	/* periods with Q above Q-bar (a dynamic budget), all kernels */
	uint64_t	dyn_periods;
	/* queued == 2: the second kernel's periods, once it runs */
	uint64_t	periods2;
	uint64_t	dyn_periods2;
	double		q2_mean;
	double		mean2_ns;	/* its response time from its start */
};
void	exp_budgets_default(struct exp_budgets_args *);
/* -EINVAL on a bad profile/arguments, -ENOMEM. */
int	exp_budgets(const struct exp_budgets_args *, FILE *csv,
	    struct exp_budgets_result *);

/* ---- protection (BWLOCK++ Fig. 9): solo, co-run, locked ---- */
enum exp_protect_case {
	EXP_SOLO,		/* BE cores idle */
	EXP_CORUN,		/* memory hogs, no regulation */
	EXP_LOCKED,		/* memory hogs, bandwidth lock at budget q */
};
struct exp_protect_args {
	const struct profile *profile;	/* NULL: the histo kernel */
	enum exp_protect_case scenario;
	double		q;		/* locked: budget ratio; < 0: Q-bar */
	uint64_t	launches;
	uint64_t	seed;
	unsigned int	ncores;
	double		bwmax_events;
	double		jitter;
};
struct exp_protect_result {
	uint64_t	launches;
	double		mean_ns, max_ns;	/* response times */
	double		q;		/* the budget the cores ran at */
	double		qnom;
	uint64_t	bound_ns;	/* G(q,{Ni},0) */
	uint64_t	wcet0_ns;	/* G(0,{Ni}) */
	uint64_t	over_bound;
	double		be_events;	/* per launch */
};
void	exp_protect_default(struct exp_protect_args *);
int	exp_protect(const struct exp_protect_args *,
	    struct exp_protect_result *);

/* The histo kernel of [DynBW] Table 4.1 (also examples/histo.bwk). */
extern const char exp_histo_bwk[];

#endif /* EXP_H */
