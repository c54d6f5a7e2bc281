/*
 * budget.c - nominal and on-line BE budgets ([DynBW] chapter 5,
 * Algorithm 3, Eq. 5.3, 5.4; doc/design.md section 4).
 */
#include <errno.h>
#include <math.h>

#include "budget.h"

#define BUDGET_STEPS	10000	/* 1 / BUDGET_Q_STEP */

static double
budget_clamp(double q, double qnom)
{
	if (!(q >= qnom))	/* also NaN */
		q = qnom;
	if (q > 1)
		q = 1;
	return q;
}

/* Slowdown test of the nominal search at q = k * 1e-4. */
static int
budget_fits(const struct wcet_kernel *k, const uint64_t *n, unsigned int s,
    double g0, double slowdown, uint64_t *g)
{
	*g = wcet_bound(k, n, (double)s / BUDGET_STEPS, 0);
	return ((double)*g - g0) / g0 <= slowdown;
}

/*
 * G(Q,{Ni},0) is nondecreasing in Q (tmem is, and G is in tmem), so the
 * grid points that meet the target form a prefix: bisect for its end.
 */
int
budget_nominal(const struct wcet_kernel *k, const uint64_t *n,
    double slowdown, double bwmax_events, double overhead_events,
    struct budget_nominal *out)
{
	unsigned int	lo, hi, mid;
	uint64_t	g, glo;
	double		g0;

	if (!(slowdown >= 0) || !isfinite(slowdown) ||
	    (bwmax_events > 0 && !(overhead_events >= 0)) ||
	    isnan(bwmax_events))
		return -EINVAL;
	out->wcet0 = wcet_bound(k, n, 0, 0);
	g0 = (double)out->wcet0;
	if (g0 == 0) {
		/* nothing to run: any budget is safe */
		lo = BUDGET_STEPS;
		glo = 0;
	} else if (budget_fits(k, n, BUDGET_STEPS, g0, slowdown, &g)) {
		lo = BUDGET_STEPS;
		glo = g;
	} else {
		lo = 0;			/* fits: G(0) = G(0) */
		glo = out->wcet0;
		hi = BUDGET_STEPS;	/* does not fit */
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (budget_fits(k, n, mid, g0, slowdown, &g)) {
				lo = mid;
				glo = g;
			} else
				hi = mid;
		}
	}
	out->q = (double)lo / BUDGET_STEPS;
	out->wcet = glo;
	out->q_adjusted = out->q;
	if (bwmax_events > 0) {
		out->q_adjusted = out->q - overhead_events / bwmax_events;
		if (out->q_adjusted < 0)
			out->q_adjusted = 0;
	}
	return 0;
}

/* Largest e1 over clusters with blocks left; 0 when none. */
static double
budget_e1max(const struct wcet_kernel *k, const uint64_t *r)
{
	double		 m = 0;
	unsigned int	 i;

	for (i = 0; i < k->nclusters; i++)
		if (r[i] > 0 && k->c[i].e1 > m)
			m = k->c[i].e1;
	return m;
}

/*
 * Algorithm 3: walk the clusters by increasing e0/e1, turning the whole
 * of each into memory blocks, until the bound reaches t; the cluster
 * where it does is split (xj blocks slowed) and the memory time of that
 * mix is the most the kernel can afford.
 */
double
budget_tmem_max(const struct wcet_kernel *k, const uint64_t *r, double t)
{
	double		 e1max = budget_e1max(k, r), m = k->m;
	double		 s1 = 0, s0 = 0, xj, rj;
	unsigned int	 j, i;

	if (e1max == 0)
		return -1;
	for (i = 0; i < k->nclusters; i++)
		s0 += (double)r[i] * k->c[i].e0;
	/* s1 = sum over i < j of Ri*e1_i, s0 = sum over i >= j of Ri*e0_i */
	for (j = 0; j < k->nclusters; j++) {
		i = k->order[j];
		rj = (double)r[i];
		if ((s1 + rj * k->c[i].e1 + (s0 - rj * k->c[i].e0) - e1max) /
		    m + e1max >= t) {
			if (k->c[i].e1 == k->c[i].e0)
				xj = 0;
			else
				xj = ((t - e1max) * m - s1 - s0 + e1max) /
				    (k->c[i].e1 - k->c[i].e0);
			/* the kernel may already be late (xj < 0) */
			if (!(xj > 0))
				xj = 0;
			if (xj > rj)
				xj = rj;
			return (s1 + xj * k->c[i].e1) / m;
		}
		s1 += rj * k->c[i].e1;
		s0 -= rj * k->c[i].e0;
	}
	return -1;
}

/*
 * Largest Q with tmem(t,Q,1) <= tmem_max (Eq. 4.5 inverted): with
 * P = floor(t/T) and r = t - P*T, tmem = (P+1)*Q*T while Q*T <= r, and
 * P*Q*T + r beyond.
 */
static double
budget_invert(double tmem_max, double t, double period)
{
	double	p, r, q;

	if (tmem_max < 0 || tmem_max >= t)
		return 1;
	p = floor(t / period);
	r = t - p * period;
	q = tmem_max / ((p + 1) * period);
	if (q * period <= r || p == 0)
		return q;
	return (tmem_max - r) / (p * period);
}

double
budget_fair(const struct wcet_kernel *k, const uint64_t *r, double t,
    double qnom)
{
	double	tm = budget_tmem_max(k, r, t);

	if (tm < 0)
		return 1;
	if (t <= 0)
		return budget_clamp(0, qnom);
	return budget_clamp(budget_invert(tm, t, k->period), qnom);
}

double
budget_greedy(const struct wcet_kernel *k, const uint64_t *r, double t,
    double qnom)
{
	double	tm = budget_tmem_max(k, r, t);
	double	later;

	if (tm < 0)
		return 1;
	later = wcet_tmem(t - k->period, qnom, 1, k->period);
	if (later < 0)
		later = 0;
	return budget_clamp((tm - later) / k->period, qnom);
}

double
budget_smooth(double greedy, double prev, double a, double qnom)
{
	double	y = a * greedy + (1 - a) * prev;

	if (greedy < y)
		y = greedy;
	return budget_clamp(y, qnom);
}
