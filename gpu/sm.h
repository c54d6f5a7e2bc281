/*
 * sm.h - a cycle-level issue model of one SM (doc/gpu-model.md): one
 * warp scheduler issuing one instruction a cycle by LRR, GTO or RT-PAWS
 * (wsched.h), a register scoreboard with per-class latencies, barriers,
 * one load/store unit that sends a memory instruction's coalesced lines
 * one a cycle, the L1 of l1.h with the optional warp-based reordering
 * unit of [Reorder] (order.h) in front of it, and a memory behind it
 * with the latency of [Reorder] Eq. 3.  Blocks run in waves of what
 * fits.  One or two kernels (the second for RT-PAWS, [PredGPU] 4.5).
 *
 * A run is deterministic for a seed, which draws each warp's start
 * skew, the delay other SMs add to each miss, and which runtime warp
 * ids each block gets.  Pure.
 */
#ifndef GPU_SM_H
#define GPU_SM_H

#include <stddef.h>
#include <stdint.h>

#include "gtrace.h"

#define SM_MAX_KERNELS	2

struct sm_kernel {
	const struct gpu_trace	*t;
	uint64_t		 launch;	/* cycle of its first wave */
	uint32_t		 prio;		/* RT-PAWS priority */
	uint32_t		 warp_cap;	/* warps of the SM it may use */
};

/* Called for every issued instruction (a test or a timeline). */
typedef void	sm_issue_fn(void *arg, uint64_t t, unsigned int kernel,
		    uint32_t warp, uint32_t dyn);

struct sm_opts {
	int		 policy;	/* enum gpu_policy */
	int		 reorder;	/* the reordering unit (one kernel) */
	uint64_t	 seed;
	int		 shuffle;	/* random runtime warp ids */
	int		 sticky;	/* W_greedy over idle cycles (wsched.h) */
	int		 extreme;	/* every skew and delay at its largest */
	sm_issue_fn	*on_issue;
	void		*arg;
};

struct sm_result {
	uint64_t	cycles;			/* the last kernel's end */
	uint64_t	finish[SM_MAX_KERNELS];	/* when each kernel ended */
	uint64_t	accesses, misses;	/* L1 loads and stores */
	uint64_t	issued, idle;		/* cycles */
	uint64_t	swaps;			/* RT-PAWS group swaps */
};

/* 0, or -EINVAL with the reason in err, -ENOMEM. */
int	sm_run(const struct gpu_cfg *, const struct sm_kernel *,
	    unsigned int nk, const struct sm_opts *, struct sm_result *,
	    char *err, size_t errlen);

#endif /* GPU_SM_H */
