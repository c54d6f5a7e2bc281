/*
 * wcet.c - hybrid WCET bound of a GPU kernel ([DynBW] Eq. 4.3-4.13,
 * Algorithm 1; doc/design.md section 4).
 */
#include <errno.h>
#include <math.h>

#include "wcet.h"

/*
 * Clusters by increasing e0/e1, ties by lower id.  Compare e0_a*e1_b with
 * e0_b*e1_a so equal ratios compare equal whatever the rounding of a
 * division would be.
 */
static int
wcet_before(const struct wcet_kernel *k, unsigned int a, unsigned int b)
{
	double	ra = k->c[a].e0 * k->c[b].e1;
	double	rb = k->c[b].e0 * k->c[a].e1;

	if (ra != rb)
		return ra < rb;
	return a < b;
}

int
wcet_prepare(struct wcet_kernel *k)
{
	unsigned int	i, j, v;

	if (k->nclusters < 1 || k->nclusters > WCET_MAX_CLUSTERS ||
	    k->m < 1 || !(k->period > 0) || !isfinite(k->period))
		return -EINVAL;
	for (i = 0; i < k->nclusters; i++) {
		if (!(k->c[i].e0 > 0) || !(k->c[i].e0 <= k->c[i].e1) ||
		    !isfinite(k->c[i].e1))
			return -EINVAL;
	}
	/* insertion sort: C is small and this runs once per kernel */
	for (i = 0; i < k->nclusters; i++) {
		v = i;
		for (j = i; j > 0 && wcet_before(k, v, k->order[j - 1]); j--)
			k->order[j] = k->order[j - 1];
		k->order[j] = v;
	}
	return 0;
}

/* Which per-block time of a cluster: alone (e0) or under interference (e1). */
enum wcet_time {
	WCET_E0,
	WCET_E1
};

/* Largest e0 (or e1) over clusters with blocks left; 0 when none. */
static double
wcet_emax(const struct wcet_kernel *k, const uint64_t *n, enum wcet_time which)
{
	double		 m = 0;
	unsigned int	 i;

	for (i = 0; i < k->nclusters; i++) {
		double e = which == WCET_E1 ? k->c[i].e1 : k->c[i].e0;

		if (n[i] > 0 && e > m)
			m = e;
	}
	return m;
}

double
wcet_isolation(const struct wcet_kernel *k, const uint64_t *n)
{
	double		 sum = 0, e0max = wcet_emax(k, n, WCET_E0);
	unsigned int	 i;

	if (e0max == 0)
		return 0;
	for (i = 0; i < k->nclusters; i++)
		sum += (double)n[i] * k->c[i].e0;
	return (sum - e0max) / k->m + e0max;
}

double
wcet_tmem(double t, double q, int sync, double period)
{
	double	tinit, qt, p;

	if (t <= 0)
		return 0;
	if (q <= 0)
		return 0;
	if (q > 1)
		q = 1;
	qt = q * period;
	tinit = sync ? 0 : qt;
	if (t <= tinit)
		return t;
	p = floor((t - tinit) / period);
	return ((sync ? 0 : 1) + p) * qt + fmin(t - tinit - p * period, qt);
}

double
wcet_relaxed(const struct wcet_kernel *k, const uint64_t *n, double tmem)
{
	double		 e1max = wcet_emax(k, n, WCET_E1);
	double		 room, sum = 0;
	unsigned int	 j;

	if (e1max == 0)
		return 0;
	room = tmem > 0 ? (double)k->m * tmem : 0;
	for (j = 0; j < k->nclusters; j++) {
		unsigned int	 i = k->order[j];
		double		 full = (double)n[i] * k->c[i].e1;
		double		 y = full < room ? full : room;

		/* y = xi*e1_i: the blocks of cluster i that run slowed */
		room -= y;
		sum += y + ((double)n[i] - y / k->c[i].e1) * k->c[i].e0;
	}
	return (sum - e1max) / k->m + e1max;
}

/* A bound in whole ns, saturating where a double exceeds uint64_t. */
static uint64_t
wcet_ns(double t)
{
	if (!(t < 18446744073709551616.0))
		return UINT64_MAX;
	return (uint64_t)t;
}

/*
 * The affine piece of h(t) = G(tmem(t)) around t: slope and where it
 * ends.  tmem grows with slope 1 inside a memory window and 0 outside;
 * G grows with slope 1 - e0_j/e1_j while cluster j (in order) is being
 * filled.
 */
static void
wcet_piece(const struct wcet_kernel *k, const uint64_t *n, double q,
    int sync, double t, double *slope, double *end)
{
	double		 qt = q * k->period, tinit = sync ? 0 : qt;
	double		 off, p, m, room, cum = 0, sg = 0, mend = INFINITY;
	double		 st, tend;
	unsigned int	 j;

	if (q >= 1) {
		st = 1;
		tend = INFINITY;
	} else if (t < tinit) {
		st = 1;
		tend = tinit;
	} else {
		p = floor((t - tinit) / k->period);
		off = t - tinit - p * k->period;
		if (off < qt) {
			st = 1;
			tend = t + (qt - off);
		} else {
			st = 0;
			tend = tinit + (p + 1) * k->period;
		}
	}
	m = wcet_tmem(t, q, sync, k->period);
	room = (double)k->m * m;
	for (j = 0; j < k->nclusters; j++) {
		unsigned int	 i = k->order[j];

		cum += (double)n[i] * k->c[i].e1;
		if (n[i] > 0 && room < cum) {
			sg = 1 - k->c[i].e0 / k->c[i].e1;
			mend = cum / k->m;
			break;
		}
	}
	if (st > 0 && t + (mend - m) < tend)
		tend = t + (mend - m);
	*slope = st * sg;
	*end = tend;
}

/*
 * Algorithm 1.  f(t) = ceil(G(tmem(t))) is nondecreasing in t and
 * f(ceil G(0)) >= ceil G(0), so the iterates only grow until the least
 * fixed point, bounded by the bound with unlimited memory time.
 *
 * The plain iteration can take one step per ns when the slope of h is
 * close to 1 (e1 >> e0, Q near 1), so between steps we jump ahead within
 * the current affine piece of h: every integer fixed point of f lies at
 * or above the least real fixed point u* of h, and ceil(u*) is one, so
 * jumping to any integer below u* cannot skip the answer.  We jump to
 * one ns below the affine solution (or to the piece's end when the
 * solution lies beyond it) and let the plain step finish.
 */
uint64_t
wcet_bound(const struct wcet_kernel *k, const uint64_t *n, double q,
    int sync)
{
	double	t, g, h, slope, end, u, cand;
	long	steps;

	sync = sync ? 1 : 0;
	t = ceil(wcet_isolation(k, n));
	if (q <= 0 || t == 0)
		return wcet_ns(t);
	if (q > 1)
		q = 1;
	for (steps = 0; steps < WCET_MAX_STEPS; steps++) {
		g = ceil(wcet_relaxed(k, n, wcet_tmem(t, q, sync, k->period)));
		if (g <= t)
			return wcet_ns(t);
		t = g;
		h = wcet_relaxed(k, n, wcet_tmem(t, q, sync, k->period));
		if (h <= t)
			continue;
		wcet_piece(k, n, q, sync, t, &slope, &end);
		u = slope < 1 ? t + (h - t) / (1 - slope) : INFINITY;
		cand = u <= end ? floor(u) - 1 : floor(end);
		if (cand > t && isfinite(cand))
			t = cand;
	}
	return wcet_ns(ceil(wcet_relaxed(k, n, INFINITY)));
}
