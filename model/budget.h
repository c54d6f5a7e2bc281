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

/*
 * Look-ahead (doc/engine.md).  One snapshot - remaining blocks r and the
 * time t from the first period's start to the bound - decides a kernel's
 * budget for that period and the ones after it, assuming no progress
 * after the snapshot.  Entry j is the policy decided j periods later
 * with the memory time the applied budgets of entries 0..j-1 may have
 * used within the window (used) charged against tmem_max.  This keeps
 * the rule the backends rely on: every prefix of the sequence, followed
 * by Q-bar for the rest, leaves tmem(window) <= tmem_max, so the bound
 * of Algorithm 1 still fits in t.  Entry 0 equals the single-period
 * policies above.
 */
enum budget_policy {
	BUDGET_NOMINAL = 0,
	BUDGET_FAIR,
	BUDGET_GREEDY,
	BUDGET_SMOOTH,
};

struct budget_track {
	enum budget_policy policy;
	double		tm;		/* tmem_max; < 0: any Q is safe */
	double		t;		/* ns from entry 0's start to the bound */
	double		period;
	double		qnom;
	double		a;		/* SMOOTH weight */
	double		prev;		/* SMOOTH's last output */
	double		used;		/* memory time charged so far */
	unsigned int	j;		/* next entry */
};

void		budget_track_init(struct budget_track *,
		    const struct wcet_kernel *, const uint64_t *r, double t,
		    double qnom, enum budget_policy, double prev, double a);
/* This kernel's own Q for the next entry (also GREEDY's value in *g). */
double		budget_track_next(struct budget_track *, double *g);
/* The budget the entry really got (the smallest over all kernels):
 * charge its memory time and move to the next entry. */
void		budget_track_charge(struct budget_track *, double q_applied,
		    double q_own);
/* Memory time the window t may see after `used`, with Q-bar for the
 * rest from entry j on: the quantity the safety rule bounds. */
double		budget_track_window(const struct budget_track *);

#endif /* BUDGET_H */
