/*
 * regulator.h - the interface between the daemon's period engine and a
 * bandwidth-regulator backend (kmod: /dev/bwreg; sim: the simulated
 * platform; DESIGN.md section 2).
 *
 * The backend owns the period clock.  Every period the engine asks it for
 * the next boundary, wakes `lead` before it, and hands it the budgets for
 * that period, tagged with the period number.  A backend that reaches a
 * period without a budget for exactly that period applies the static
 * budget (the lock holders' Q-bar, set whenever the lock state changes)
 * and counts a fallback; it never reuses an older dynamic budget.
 */
#ifndef REGULATOR_H
#define REGULATOR_H

#include <stddef.h>
#include <stdint.h>

#define REG_MAX_CORES		64
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
};

struct reg_core_stats {
	uint64_t	events;		/* memory events used, total */
	uint64_t	throttles;	/* periods in which the core was throttled */
	uint64_t	throttled_ns;	/* total throttled time */
	uint64_t	fallbacks;	/* periods run on the static budget */
};

struct reg_stats {
	uint64_t	period;		/* current period number */
	unsigned int	ncores;
	struct reg_core_stats core[REG_MAX_CORES];
};

struct regulator;

struct regulator_ops {
	const char	*name;
	/* Open and configure; on failure write a reason into err. */
	int	(*open)(struct regulator **, const struct reg_config *,
		    char *err, size_t errlen);
	/* Current period number and CLOCK_MONOTONIC ns of the next boundary. */
	int	(*clock)(struct regulator *, uint64_t *period,
		    uint64_t *next_boundary_ns);
	/*
	 * Per-core budgets (events) for exactly that period; refused (< 0) when
	 * that period has already begun (the backend then runs it on the
	 * static budget).  Called from the period thread.
	 */
	int	(*apply)(struct regulator *, uint64_t period,
		    const uint64_t *events, unsigned int ncores);
	/*
	 * Per-core static budgets for periods without a fresh budget.  The
	 * lock holders changed, so a dynamic budget already handed over for
	 * a coming period is withdrawn: it was decided for the old holders.
	 * Called from the event loop, concurrently with apply().
	 */
	int	(*set_static)(struct regulator *, const uint64_t *events,
		    unsigned int ncores);
	int	(*set_rho)(struct regulator *, double rho);
	/* Tell the backend the daemon is alive (fail-safe watchdog). */
	int	(*heartbeat)(struct regulator *);
	int	(*stats)(struct regulator *, struct reg_stats *);
	void	(*close)(struct regulator *);
};

/* Backends; regulator_find() looks one up by name ("sim", "kmod"). */
extern const struct regulator_ops reg_sim_ops;
extern const struct regulator_ops reg_kmod_ops;
const struct regulator_ops *regulator_find(const char *name);

#endif /* REGULATOR_H */
