/*
 * cluster.h - thread-block clustering by the two-sample K-S test ([DynBW]
 * section 4.2, doc/profiling.md), the interval table in block-id order,
 * and the e0/e1 selection rules.
 * Pure: no I/O; cluster_blocks allocates O(N + C x bins) scratch space.
 */
#ifndef CLUSTER_H
#define CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "evt.h"

#define CLUSTER_MAX_BINS	65536	/* value classes the pools keep */
#define CLUSTER_EDGE_SAMPLE	(1u << 18) /* samples that place them */
#define CLUSTER_MAX_PASSES	4	/* reassignment passes */

/* One block's isolation sample, in any order (not modified), len >= 1. */
struct cluster_sample {
	const uint32_t	*v;
	uint32_t	 len;
};

/*
 * Cluster N blocks.  Each cluster is represented by its pooled sample,
 * the union of its members' samples, which does not drift the way a
 * single member does.  Walk the blocks by (median, block id): each joins
 * the cluster whose pool it fits best (smallest K-S statistic scaled to
 * the two sizes) among those the two-sample K-S test does not reject at
 * the Bonferroni level alpha / (N - 1), ties to the lower id, or starts
 * a new cluster.  Then up to CLUSTER_MAX_PASSES passes move each block,
 * compared with its own pool without itself and with every other pool,
 * to the best fit, until none moves.  Ids follow the walk (0 = lowest
 * median).  Samples are compared exactly when their values span at most
 * CLUSTER_MAX_BINS ns, else in that many quantile classes.  Writes
 * id[N]; returns the number of clusters, -E2BIG when more than maxc,
 * -EINVAL, -ENOMEM.
 */
int	cluster_blocks(const struct cluster_sample *s, uint32_t n,
	    double alpha, unsigned int maxc, uint16_t *id);

/*
 * Runs of equal ids in block-id order: first[k], cluster[k].  Returns the
 * number of intervals, -E2BIG when more than maxi.
 */
int	cluster_intervals(const uint16_t *id, uint32_t n, uint32_t *first,
	    uint16_t *cluster, unsigned int maxi);

enum cluster_rule {
	CLUSTER_SEL_MAX,	/* maximum observed */
	CLUSTER_SEL_NORMAL,	/* mean + z_P sd of a normal fit */
	CLUSTER_SEL_EVT,	/* Gumbel pWCET at per-run exceedance P */
};

struct cluster_select {
	enum cluster_rule rule;
	double		p;	/* normal: percentile; evt: exceedance */
	double		alpha;	/* evt: level of each EVT test (parse: 0.05) */
};

/* "max", "normal:P" (0 < P < 1), "evt:P" (0 < P < 1); -EINVAL. */
int	cluster_select_parse(const char *, struct cluster_select *);

/* Exact moments of a cluster in one condition. */
struct cluster_stats {
	uint64_t	count;
	double		max, mean, sd;
};

/*
 * The selected WCET of a cluster: from st for max and normal, from the
 * samples x[n] (time order) for evt.  Returns 0, or -EINVAL with *why set
 * (e.g. the EVT assumption that failed).
 */
int	cluster_select_value(const struct cluster_select *,
	    const struct cluster_stats *st, const double *x, size_t n,
	    double *value, const char **why);

#endif /* CLUSTER_H */
