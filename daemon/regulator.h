/*
 * regulator.h - the interface between the daemon's period engine and a
 * bandwidth-regulator backend (kmod: /dev/bwreg; sim: the simulated
 * platform; doc/design.md, doc/engine.md).
 *
 * The backend owns the period clock.  The engine asks it for the running
 * period and the next boundary, and hands it plans: budgets for up to
 * REG_PLAN_MAX consecutive periods, computed from one snapshot of the
 * lock holders' progress.  Every backend follows the same rules (the
 * module's are written out in kmod/uapi/bwreg.h):
 *
 *  - At each period n the backend uses the entry for n of the newest plan
 *    that covers n and is admissible - no entry of another plan governed
 *    a period from this plan's first period up to n - 1 - else the
 *    static budget (a fallback).  One choice per period for all cores.
 *    A plan whose first period has begun is accepted; the rule decides
 *    what it may still govern.
 *  - set_static() is called when the lock holders change: it sets the new
 *    static budget and withdraws every plan (they were decided for the
 *    old holders).
 *  - Lock slots: a task's lock slot has a static budget; while the slot
 *    is held, periods run at most at that budget unless the governing
 *    plan accounted for the slot (lock_mask) with the slot's current
 *    launch count.  The application's kick on the idle -> held edge (or
 *    on a launch while the page says dyn) lowers the current period's
 *    budget at once, with no engine or event-loop wake-up in the path.
 */
#ifndef REGULATOR_H
#define REGULATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REG_MAX_CORES		64
#define REG_PLAN_MAX		16	/* periods per plan */
#define REG_MAX_LOCKS		64	/* lock slots */
#define REG_UNLIMITED		UINT64_MAX	/* events: not regulated */

struct reg_config {
	uint64_t	period_ns;	/* regulation period T */
	unsigned int	ncores;		/* BE cores regulated */
	int		cores[REG_MAX_CORES];	/* their CPU numbers */
	double		rho;		/* TFS factor, 0 = plain CFS */
	uint64_t	bwmax_events;	/* all BE cores' events per period at Q = 1 */
	uint64_t	failsafe_events; /* per core, when the daemon stops */
	uint64_t	heartbeat_timeout_ns;
	/* backend-specific: kmod event type/config, sim model parameters */
	uint32_t	event_type;
	uint64_t	event_config;
	const char	*device;	/* kmod: /dev/bwreg */
	/* where a simulated backend publishes its state (bwsimstate.h) for
	 * demo clients; NULL: nowhere.  Real backends ignore it. */
	const char	*state_path;
};

struct reg_core_stats {
	uint64_t	events;		/* memory events used, total */
	uint64_t	throttles;	/* periods in which the core was throttled */
	uint64_t	throttled_ns;	/* total throttled time */
	uint64_t	fallbacks;	/* periods run on a limited static
					 * budget (or the fail-safe one) */
	uint64_t	plan_first;	/* periods run on entry 0 of a plan */
	uint64_t	plan_ahead;	/* periods run on a later plan entry */
	uint64_t	refused;	/* its newest covering plan was not
					 * admissible (came too late) */
	uint64_t	lock_limited;	/* a held lock slot lowered the budget */
	uint64_t	unregulated;	/* no limit: no holder, no plan */
};

struct reg_lock_stats {
	uint64_t	kicks;		/* kicks seen */
	uint64_t	kick_lowered;	/* kicks that lowered a budget */
	uint64_t	kick_ns_last;	/* kick to every core enforced */
	uint64_t	kick_ns_max;
	uint64_t	kick_ns_sum;
};

struct reg_stats {
	uint64_t	period;		/* current period number */
	unsigned int	ncores;
	uint64_t	plan_id;	/* plan governing the current period */
	struct reg_lock_stats lock;
	struct reg_core_stats core[REG_MAX_CORES];
};

/* Budgets for len consecutive periods from first, per regulated core
 * (index into reg_config.cores, not CPU number). */
struct reg_plan {
	uint64_t	gen;		/* holders' generation it was decided on */
	uint64_t	first;
	unsigned int	len;		/* 1..REG_PLAN_MAX */
	uint64_t	lock_mask;	/* slots accounted for */
	uint64_t	lock_launches[REG_MAX_LOCKS];	/* their counts then */
	uint64_t	events[REG_PLAN_MAX][REG_MAX_CORES];
};

/* Every slot's lock state now (what the application wrote). */
struct reg_locks {
	uint64_t	held;		/* bit s: slot s held */
	uint64_t	valid;		/* bit s: slot s is open */
	uint64_t	launches[REG_MAX_LOCKS];
};

/*
 * How an application reaches its lock slot: the files lock_open() made,
 * passed to it over the control socket (doc/protocol.md, lock.files).
 *  REG_LOCK_KMOD: fds[0] is the module's lock file: mmap one page
 *	(struct bwreg_lock), kick = ioctl(BWREG_LOCK_IOC_KICK).  Both kinds:
 *	store launches, full barrier, then read dyn (kmod/uapi/bwreg.h).
 *  REG_LOCK_SIM: fds[0] is a memfd page with the same layout, fds[1] a
 *	SOCK_SEQPACKET socket: kick = send one byte, then receive one byte
 *	once the simulated cores enforce the slot.
 */
enum reg_lock_kind {
	REG_LOCK_NONE = 0,		/* backend has no lock slots */
	REG_LOCK_KMOD = 1,
	REG_LOCK_SIM = 2,
};

struct reg_lock_files {
	enum reg_lock_kind kind;
	unsigned int	nfds;		/* 1 or 2 */
	int		fds[2];		/* the caller passes and closes them */
};

struct regulator;

struct regulator_ops {
	const char	*name;
	/* true when the backend does not really regulate CPUs (sim) */
	bool		simulated;
	/* Open and configure; on failure write a reason into err. */
	int	(*open)(struct regulator **, const struct reg_config *,
		    char *err, size_t errlen);
	/* Current period number and CLOCK_MONOTONIC ns of the next boundary. */
	int	(*clock)(struct regulator *, uint64_t *period,
		    uint64_t *next_boundary_ns);
	/*
	 * Publish a plan (called from the period thread).  It replaces the
	 * older of the two plans the backend keeps; the newest stays usable
	 * while this one is written.  A plan decided on holders older than
	 * the latest set_static() (plan->gen below its gen) is refused with
	 * -ESTALE: it was computed for holders that are gone, and the
	 * backend must not let it govern after the withdrawal.  Otherwise
	 * < 0 only for bad arguments or a backend failure, never for timing.
	 */
	int	(*apply_plan)(struct regulator *, const struct reg_plan *);
	/*
	 * Per-core static budgets for periods without an admissible plan
	 * entry.  The lock holders changed (to generation gen), so every
	 * plan is withdrawn and plans of older generations are refused from
	 * now on.  Called from the event loop, concurrently with
	 * apply_plan(); the two are serialised by the backend.
	 */
	int	(*set_static)(struct regulator *, const uint64_t *events,
		    unsigned int ncores, uint64_t gen);
	int	(*set_rho)(struct regulator *, double rho);
	/* Tell the backend the daemon is alive (fail-safe watchdog). */
	int	(*heartbeat)(struct regulator *);
	int	(*stats)(struct regulator *, struct reg_stats *);
	/* The budget each core runs on in the current period (events);
	 * NULL when the backend cannot tell (status then shows the static
	 * budget).  Returns the cores filled, or < 0. */
	int	(*budgets)(struct regulator *, uint64_t *events,
		    unsigned int ncores);
	void	(*close)(struct regulator *);

	/*
	 * Lock slots (NULL when the backend has none).  lock_open() makes
	 * slot's files with static budget `events` per core, revoking the
	 * slot's previous files; lock_static() changes the budget (the
	 * task's Q-bar moved); lock_close() revokes the slot; locks() reads
	 * every slot's held word and launch count.  Loop side, except
	 * locks(), which the period thread calls.
	 */
	int	(*lock_open)(struct regulator *, unsigned int slot,
		    uint64_t events, struct reg_lock_files *,
		    char *err, size_t errlen);
	int	(*lock_static)(struct regulator *, unsigned int slot,
		    uint64_t events);
	int	(*lock_close)(struct regulator *, unsigned int slot);
	int	(*locks)(struct regulator *, struct reg_locks *);
	/*
	 * A non-blocking descriptor that turns readable when an application
	 * kicks a lock slot (takes the lock idle -> held), so the event loop
	 * reads the task pages at once instead of at its next page poll: the
	 * engine then learns of the new holder in time to decide the next
	 * period on it.  As an eventfd: read() of 8 bytes returns the kicks
	 * since the last read, or fails with EAGAIN.  NULL, or < 0: none
	 * (the poll alone).  The backend owns it.  Loop side.
	 */
	int	(*lock_edge_fd)(struct regulator *);
};

/*
 * Backends; regulator_find() looks one up by name ("sim", "kmod"),
 * regulator_auto() picks the one regulator = auto means: the kernel
 * module's when its device (reg_config.device) is there, else the sim.
 * Nothing else names a backend: what differs between them is in the ops.
 */
extern const struct regulator_ops reg_sim_ops;
extern const struct regulator_ops reg_kmod_ops;
const struct regulator_ops *regulator_find(const char *name);
const struct regulator_ops *regulator_auto(const char *device);

#endif /* REGULATOR_H */
