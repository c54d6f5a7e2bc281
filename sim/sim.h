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
	uint64_t	fallbacks;	/* locked, no fresh budget */
	uint64_t	discarded;	/* budgets dropped by a lock change */
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
	int		locked;
	uint64_t	static_events[SIM_MAX_CORES];
	int		pending_valid;
	uint64_t	pending_period;
	uint64_t	pending_events[SIM_MAX_CORES];
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

/* The bandwidth lock: taking it or changing the static budget applies
 * the static budget to the current period at once and drops a pending
 * budget computed before; releasing it unthrottles the cores. */
void	sim_lock(struct sim *, const uint64_t *static_events);
void	sim_unlock(struct sim *);

/* Per-core budgets for exactly that period (the regulator's apply). */
int	sim_apply(struct sim *, uint64_t period, const uint64_t *events);

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
