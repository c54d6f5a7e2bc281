/*
 * sim.h - the simulated platform (doc/design.md section 5; doc/sim.md): BE
 * cores running memory- and CPU-bound tasks under a per-core bandwidth
 * regulator with CFS or TFS ([BWLOCK++]), and a GPU kernel whose
 * blocks run on M slots and slow down with the BE cores' current memory
 * traffic ([DynBW] chapter 4).
 *
 * Time is virtual: sim_run_until() advances the model, in steps of at
 * most step_ns, cut exactly at every throttle, block completion, period
 * boundary and scheduler tick, so results do not depend on the step.
 * The same calls drive it from a wall clock (the daemon's sim backend):
 * call sim_run_until(now) and read sim_snapshot().  Deterministic for a
 * given seed.  Not thread-safe: one owner.
 */
#ifndef SIM_H
#define SIM_H

#include <stdint.h>

#include "wcet.h"
#include "progress.h"

#define SIM_MAX_CORES		16
#define SIM_MAX_TASKS		8
#define SIM_PLAN_MAX		16	/* periods per plan (REG_PLAN_MAX) */
#define SIM_MAX_LOCKS		64	/* lock slots (REG_MAX_LOCKS) */
#define SIM_MAX_NAME		15
#define SIM_UNLIMITED		UINT64_MAX	/* events: not regulated */

/* How a block's speed depends on the memory traffic u in [0,1]. */
enum sim_speed {
	SIM_SPEED_LINEAR = 0,	/* work rate (1-u)/e0 + u/e1 (default) */
	SIM_SPEED_HARMONIC,	/* 1/(e0 + (e1-e0)*u) */
};

struct sim_config {
	uint64_t	period_ns;	/* regulation period T */
	uint64_t	tick_ns;	/* scheduler tick */
	uint64_t	step_ns;	/* largest advance without a cut */
	unsigned int	ncores;		/* BE cores */
	double		bwmax_events;	/* BE events per period, full speed */
	double		rho;		/* TFS factor, 0 = CFS */
	double		jitter;		/* block time e*(1 - jitter*U) */
	enum sim_speed	speed;
	uint64_t	seed;
};

/* Defaults: T = tick = 1 ms, step 10 us, 3 cores, 60000 events ([DynBW]
 *  section 4.5: 3.9 GB/s on the TX2), CFS, jitter 0.1, linear. */
void	sim_config_default(struct sim_config *);

struct sim_task {
	char		name[SIM_MAX_NAME + 1];
	double		intensity;	/* events per us of CPU time */
	double		vruntime;	/* ns, TFS charges included */
	double		runtime;	/* CPU time, ns */
	double		events;		/* memory events issued */
	double		throttled_ns;	/* throttled time charged to it */
	double		tfs_lost;	/* Eq. 3: vruntime added by TFS */
	uint64_t	periods;	/* periods in which it ran */
	double		ran_ns;		/* CPU time in the current period */
	uint64_t	last_pick;	/* tie break: least recently picked */
};

struct sim_core {
	unsigned int	ntasks;
	struct sim_task	task[SIM_MAX_TASKS];
	int		cur;		/* running task, -1 when none */
	uint64_t	budget;		/* events this period */
	double		used;		/* events this period */
	int		throttled;
	double		delta;		/* throttled time this period */
	int		delta_task;	/* task charged for delta */
	/* totals */
	double		events;
	double		throttled_ns;
	uint64_t	throttles;
};

struct sim_slot {
	int		busy;
	uint32_t	block;
	double		work;		/* left, of 1 */
	double		e0, e1;		/* this block's times, jitter applied */
	double		rate;		/* work per ns in the current piece */
	double		togo;		/* ns to finish at that rate */
};

struct sim_gpu {
	int		loaded;
	struct wcet_kernel wk;
	struct progress_table pt;
	struct sim_slot	*slot;		/* min(M, N) */
	unsigned int	nslots;
	uint64_t	*bitmap;	/* finished blocks, bit b = block b */
	uint32_t	nwords;
	int		running;
	int		holds_lock;	/* release the lock on completion */
	uint32_t	next;		/* next block id to start */
	unsigned int	iv;		/* interval of `next` */
	uint32_t	finished;
	double		launch;		/* ns */
	double		finish;		/* ns, valid when done */
	uint64_t	launches;
};

struct sim_stats {
	uint64_t	periods;	/* boundaries crossed */
	uint64_t	fallbacks;	/* on a limited static budget */
	uint64_t	discarded;	/* plans withdrawn by a lock change */
	uint64_t	plan_first;	/* on entry 0 of a plan */
	uint64_t	plan_ahead;	/* on a later entry of a plan */
	uint64_t	refused;	/* a plan covered it, not admissible */
	uint64_t	unregulated;	/* no limit at all */
	uint64_t	lock_limited;	/* a held lock slot lowered it */
	uint64_t	kicks;		/* sim_lock_kick() calls */
	uint64_t	kick_lowered;	/* of those, lowered a budget */
};

/*
 * Budgets for len periods from first, computed from one snapshot of the
 * holders' progress: the regulator side of the look-ahead rule (the
 * backends' contract, daemon/regulator.h).  q[] is informative (what
 * the decision called the entries), used by experiments.
 */
struct sim_plan {
	uint64_t	id;		/* set by sim_apply_plan(); 0 empty */
	uint64_t	first;
	unsigned int	len;
	uint64_t	lock_mask;	/* slots the plan accounted for */
	uint64_t	lock_launches[SIM_MAX_LOCKS];
	uint64_t	events[SIM_PLAN_MAX][SIM_MAX_CORES];
	double		q[SIM_PLAN_MAX];
};

/* A task's lock slot as the regulator sees it. */
struct sim_lockslot {
	int		open;
	int		held;		/* the application's word */
	uint64_t	launches;	/* the application's counter */
	uint64_t	static_events;	/* per core while held */
};

/* What governs the current period. */
enum sim_budget_kind {
	SIM_BUDGET_UNREGULATED = 0,
	SIM_BUDGET_STATIC,		/* a fallback */
	SIM_BUDGET_PLAN_FIRST,
	SIM_BUDGET_PLAN_AHEAD,
	SIM_BUDGET_FAILSAFE,
};

struct sim;
typedef void	(*sim_period_fn)(void *arg, const struct sim *,
		    uint64_t period);

struct sim {
	struct sim_config cfg;
	double		now;		/* ns */
	uint64_t	period;		/* current period number */
	double		next_boundary;
	double		next_tick;
	double		core_max;	/* events/ns of a core, full speed */
	double		u;		/* current traffic / BWmax */
	struct sim_core	core[SIM_MAX_CORES];
	int		locked;		/* a holder: static is limited */
	uint64_t	static_events[SIM_MAX_CORES];
	/* plans: the two newest; ids grow */
	struct sim_plan	plan[2];
	uint64_t	plan_ids;
	uint64_t	gov_id;		/* plan that governed last, 0 none */
	uint64_t	gov_period;	/* ... in this period */
	/* the current period */
	enum sim_budget_kind cur_kind;
	uint64_t	cur_plan;	/* its plan id, 0 none */
	double		cur_q;		/* plan's q, -1 when not a plan's */
	uint64_t	cur_mask;	/* slots it accounted for */
	uint64_t	cur_launches[SIM_MAX_LOCKS];
	struct sim_lockslot lock[SIM_MAX_LOCKS];
	int		failsafe;	/* budgets replaced by failsafe_events */
	uint64_t	failsafe_events;
	struct sim_gpu	gpu;
	uint64_t	rng;
	uint64_t	picks;
	struct sim_stats stats;
	sim_period_fn	on_period;	/* at each boundary, before reset */
	void		*on_period_arg;
};

/* Validate cfg and set up an empty platform at time 0; -EINVAL. */
int	sim_init(struct sim *, const struct sim_config *);
void	sim_free(struct sim *);

/* Add a task to core c; intensity is capped at the core's maximum.
 * SIM_MEM gives the maximum.  Returns the task index or -EINVAL. */
#define SIM_MEM		(-1.0)
int	sim_add_task(struct sim *, unsigned int c, const char *name,
	    double intensity);

/* Load a kernel (copied; a prepared wcet_kernel and its interval table).
 * -EINVAL, -ENOMEM. */
int	sim_gpu_load(struct sim *, const struct wcet_kernel *,
	    const struct progress_table *);
/* Launch it now; with take_lock, the lock is taken with the given
 * per-core static budget and released when the last block finishes. */
int	sim_gpu_launch(struct sim *, int take_lock,
	    const uint64_t *static_events);

/* The daemon's static budget: setting it (a holder exists, or the
 * holders changed) applies it to the current period at once and
 * withdraws every plan computed before; sim_unlock() (no holder)
 * unthrottles the cores. */
void	sim_lock(struct sim *, const uint64_t *static_events);
void	sim_unlock(struct sim *);

/*
 * Publish a plan; it replaces the older of the two kept.  At each
 * boundary n the newest plan that covers n and is admissible (no other
 * plan's entry governed a period from its first up to n - 1) governs,
 * else the static budget.  -EINVAL for a bad plan.  The id is returned
 * in plan->id.
 */
int	sim_apply_plan(struct sim *, struct sim_plan *);
/* A plan of one entry for exactly that period; -EINVAL when it has
 * begun. */
int	sim_apply(struct sim *, uint64_t period, const uint64_t *events);

/* Lock slots: open (with its static budget) or close a slot, and the
 * application's words; sim_lock_kick() enforces what the held slots
 * ask for at once, within the current period.  Returns 1 when it
 * lowered a budget. */
int	sim_lock_slot(struct sim *, unsigned int slot, int open,
	    uint64_t static_events);
void	sim_lock_words(struct sim *, unsigned int slot, int held,
	    uint64_t launches);
int	sim_lock_kick(struct sim *);
/* 1 when some core's budget in this period is above slot's static. */
int	sim_lock_dyn(const struct sim *, unsigned int slot);

/* The module's watchdog: with on, every core runs on `events` (and on
 * no more than what held slots allow) from now until it is turned off. */
void	sim_failsafe(struct sim *, int on, uint64_t events);

#define SIM_RUN_DONE		0	/* reached the target time */
#define SIM_RUN_KERNEL_DONE	1	/* stopped when the kernel finished */
/* Advance to t (ns); stops early, with now = finish, when the kernel
 * finishes. */
int	sim_run_until(struct sim *, double t);

/* Uniform double in [0,1) from the model's seeded generator. */
double	sim_random(struct sim *);

/* State a live backend publishes. */
struct sim_core_state {
	uint64_t	budget;
	uint64_t	used;
	int		throttled;
	int		task;
};
struct sim_snapshot {
	uint64_t	now_ns;
	uint64_t	period;
	uint64_t	next_boundary_ns;
	double		u;
	int		locked;
	unsigned int	ncores;
	struct sim_core_state core[SIM_MAX_CORES];
};
void	sim_snapshot(const struct sim *, struct sim_snapshot *);

#endif /* SIM_H */
