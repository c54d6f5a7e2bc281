/*
 * budget.h - nominal and on-line BE budgets ([DynBW] chapter 5;
 * doc/design.md section 4).  Pure: no I/O, no allocation.
 */
#ifndef BUDGET_H
#define BUDGET_H

#include <stdint.h>

#include "wcet.h"

#define BUDGET_DEFAULT_SLOWDOWN	0.10
#define BUDGET_DEFAULT_SMOOTH_A	0.3
#define BUDGET_Q_STEP		1e-4	/* resolution of the nominal search */

struct budget_nominal {
	double		q;		/* Q-bar */
	double		q_adjusted;	/* Q-bar - overhead/BWmax, >= 0 */
	uint64_t	wcet;		/* G(Q-bar,{Ni},0), ns */
	uint64_t	wcet0;		/* G(0,{Ni}), ns */
};

/*
 * Largest Q (to 1e-4) whose slowdown (G(Q)-G(0))/G(0) <= slowdown.
 * bwmax_events <= 0 means no adjustment (q_adjusted = q).  -EINVAL on
 * bad arguments.
 */
int		budget_nominal(const struct wcet_kernel *, const uint64_t *n,
		    double slowdown, double bwmax_events,
		    double overhead_events, struct budget_nominal *);

/*
 * Memory time the kernel can afford within remaining time t with
 * remaining blocks r[] (Algorithm 3's tmem_max); < 0 when no cluster
 * meets the test (any Q is safe).
 */
double		budget_tmem_max(const struct wcet_kernel *, const uint64_t *r,
		    double t);

/* Algorithm 3 (FAIR), clamped to [qnom, 1]. */
double		budget_fair(const struct wcet_kernel *, const uint64_t *r,
		    double t, double qnom);

/* Eq. 5.3 (GREEDY), clamped to [qnom, 1]. */
double		budget_greedy(const struct wcet_kernel *, const uint64_t *r,
		    double t, double qnom);

/* Eq. 5.4 (SMOOTH) from this period's GREEDY value and the previous
 * output (qnom for the first period), clamped to [qnom, 1]. */
double		budget_smooth(double greedy, double prev, double a,
		    double qnom);

#endif /* BUDGET_H */
