/*
 * lathist.h - a fixed log-linear histogram of nanosecond values (wake-up
 * lateness, CPU cost): exact below 64 ns, then 32 sub-buckets per power
 * of two (about 3 % resolution).  No allocation, O(1) insert, so the
 * period thread can record every period; percentiles report a bucket's
 * upper edge, so they never understate.
 */
#ifndef LATHIST_H
#define LATHIST_H

#include <stdint.h>

#define LATHIST_SUB		32
#define LATHIST_BUCKETS		(64 + 58 * LATHIST_SUB)

struct lathist {
	uint64_t	n;
	uint64_t	max;
	uint64_t	count[LATHIST_BUCKETS];
};

void		lathist_reset(struct lathist *);
void		lathist_add(struct lathist *, uint64_t v);
/* The p-th percentile (0 < p <= 100), 0 when empty. */
uint64_t	lathist_pct(const struct lathist *, double p);

#endif /* LATHIST_H */
