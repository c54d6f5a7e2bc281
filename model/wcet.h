/*
 * wcet.h - hybrid WCET bound of a GPU kernel from its block clusters
 * ([DynBW] Eq. 4.3-4.13, Algorithm 1; doc/design.md section 4).  Pure: no I/O,
 * no allocation.  Times in nanoseconds, as doubles inside the model; a
 * bound becomes an integer only through ceil().
 */
#ifndef WCET_H
#define WCET_H

#include <stdint.h>

#define WCET_MAX_CLUSTERS	64

/*
 * Cap on Algorithm 1's steps.  A step covers at least one affine piece
 * of the bound (a few per regulation period), so this is only reached by
 * kernels spanning hundreds of thousands of periods; the result is then
 * the bound with unlimited memory time, which is safe (never below the
 * fixed point) and bounds the work of a registration.
 */
#define WCET_MAX_STEPS		1000000

struct wcet_cluster {
	double		e0;	/* per-block WCET alone (Q = 0), ns, > 0 */
	double		e1;	/* per-block WCET at Q = 1, ns, >= e0 */
};

struct wcet_kernel {
	unsigned int	nclusters;		/* C, 1..WCET_MAX_CLUSTERS */
	unsigned int	m;			/* blocks resident at once, >= 1 */
	double		period;			/* regulation period T, ns */
	struct wcet_cluster c[WCET_MAX_CLUSTERS];
	/* filled by wcet_prepare(): cluster ids by increasing e0/e1,
	 * ties broken by lower id */
	unsigned int	order[WCET_MAX_CLUSTERS];
};

/* Validate (0 < e0 <= e1, m >= 1, period > 0) and fill order[]; -EINVAL. */
int		wcet_prepare(struct wcet_kernel *);

/* Eq. 4.3: G(0,{Ni}); 0 when no block is left.  n[] has nclusters entries. */
double		wcet_isolation(const struct wcet_kernel *, const uint64_t *n);

/* Eq. 4.5-4.7: memory time within t at budget q, sync 0 or 1. */
double		wcet_tmem(double t, double q, int sync, double period);

/* Eq. 4.8-4.13: bound given the memory time tmem. */
double		wcet_relaxed(const struct wcet_kernel *, const uint64_t *n,
		    double tmem);

/* Algorithm 1: G(q,{Ni},sync) in whole ns (ceil); q == 0: isolation. */
uint64_t	wcet_bound(const struct wcet_kernel *, const uint64_t *n,
		    double q, int sync);

#endif /* WCET_H */
