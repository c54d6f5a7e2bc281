/*
 * est.h - the estimators of [Reorder]: the L1 miss rate from the
 * analyzer's streams in the reordering unit's order (section III-F, no
 * cycle simulation), and the warp-segment WCET (section IV, Eq. 1-4)
 * without and with the miss information.  Two WCET forms:
 *
 * - the bound this project uses, sound for any work-conserving warp
 *   scheduler on the SM model of sm.h: the longest path through the
 *   segments (Eq. 2's own-warp term: a segment starts when the one
 *   before it has executed) with the reordering unit's release order
 *   and the barriers as cross-warp edges, plus every issue slot and
 *   load/store-unit cycle the other warps can take;
 * - the paper's recurrence read literally (Eq. 1-2 round-robin issue,
 *   Eq. 3 or Eq. 4 with the kernel's average miss rate), reported for
 *   comparison: it assumes a round-robin issue order and is not a bound.
 *
 * doc/gpu-model.md derives both.  Pure.
 */
#ifndef GPU_EST_H
#define GPU_EST_H

#include <stddef.h>
#include <stdint.h>

#include "gtrace.h"

struct gpu_est {
	uint32_t	warps, waves, wave_blocks;
	uint64_t	instructions;
	uint64_t	segments;
	uint64_t	global_requests;	/* line requests, atomics too */
	uint64_t	l1_accesses, l1_misses;	/* in the reordered order */
	double		miss_rate;
	uint32_t	coal_max;		/* Eq. 3 COAL_max */
	uint64_t	wcet_no_mr;		/* every request misses */
	uint64_t	wcet_mr;		/* each request as the order
						 * decides */
	uint64_t	eq2_no_mr;		/* Eq. 1-2 with Eq. 3 */
	uint64_t	eq2_mr;			/* Eq. 1-2 with Eq. 4 */
};

/* Segment starts of warp w (indexes into its stream); returns count.
 * starts has room for the warp's instruction count; scratch for
 * t->nregs entries. */
uint32_t gpu_segments(const struct gpu_trace *t, uint32_t w,
	    uint32_t *starts, uint32_t *scratch);

/* 0, or -EINVAL (reason in err), -ENOMEM. */
int	gpu_estimate(const struct gpu_trace *, const struct gpu_cfg *,
	    struct gpu_est *, char *err, size_t errlen);

#endif /* GPU_EST_H */
