/*
 * exhaustive.h - the bound by brute force, for the model tests: the
 * largest Eq. 4.13 value over every integer allocation of slowed blocks
 * that fits the memory time, against which the relaxed bound and the
 * budgets are checked.
 */
#ifndef EXHAUSTIVE_H
#define EXHAUSTIVE_H

#include "wcet.h"

/* Largest bound over integer xi with sum xi*e1_i <= M*tmem. */
static inline double
exhaustive(const struct wcet_kernel *k, const uint64_t *n, double tmem)
{
	uint64_t	x[WCET_MAX_CLUSTERS] = { 0 };
	double		best = 0, e1max = 0, used, sum;
	unsigned int	i;

	for (i = 0; i < k->nclusters; i++)
		if (n[i] > 0 && k->c[i].e1 > e1max)
			e1max = k->c[i].e1;
	if (e1max == 0)
		return 0;
	for (;;) {
		used = 0;
		sum = 0;
		for (i = 0; i < k->nclusters; i++) {
			used += (double)x[i] * k->c[i].e1;
			sum += (double)x[i] * k->c[i].e1 +
			    (double)(n[i] - x[i]) * k->c[i].e0;
		}
		if (used <= k->m * tmem && (sum - e1max) / k->m + e1max > best)
			best = (sum - e1max) / k->m + e1max;
		for (i = 0; i < k->nclusters; i++) {
			if (x[i] < n[i]) {
				x[i]++;
				break;
			}
			x[i] = 0;
		}
		if (i == k->nclusters)
			return best;
	}
}

#endif /* EXHAUSTIVE_H */
