/*
 * wexec.h - the kernel analyzer of [Reorder] (Algorithms 1-3): execute
 * every warp of a launch on the PTX, 32 lanes in lock-step with their
 * own register values, following the control-flow graph (divergent
 * branches reconverge at their immediate post-dominator), and record
 * each warp's instruction stream with the coalesced cache lines of its
 * global accesses.  Values the analyzer cannot know (data loaded from
 * memory, floating-point results) are tracked as unknown; a global
 * address or a branch that depends on one is refused.  Pure.
 */
#ifndef GPU_WEXEC_H
#define GPU_WEXEC_H

#include "ptx.h"
#include "gtrace.h"

struct gpu_launch {
	uint32_t	grid[3];
	uint32_t	block[3];
	uint64_t	param[PTX_MAX_PARAMS];	/* raw bits, little end first */
	uint8_t		have[PTX_MAX_PARAMS];
	uint32_t	max_insns;	/* per warp; 0: WEXEC_WARP_INSNS */
};

#define WEXEC_WARP_INSNS	(1u << 20)

/* Base of the first default pointer and the distance between them. */
#define WEXEC_PTR_BASE		0x100000000ull
#define WEXEC_PTR_STRIDE	0x10000000ull

void	wexec_launch_init(struct gpu_launch *);
/*
 * Give each pointer parameter without a value its own region (aligned
 * to WEXEC_PTR_STRIDE).  -EINVAL naming the first other parameter that
 * has no value.
 */
int	wexec_default_params(const struct ptx_kernel *, struct gpu_launch *,
	    char *err, size_t errlen);
/*
 * Analyze the launch into tr (zeroed first).  Returns 0, or -EINVAL with
 * "line N: reason (block B warp W)" in err, -E2BIG past the trace limits,
 * -ENOMEM; tr holds nothing to free after an error.
 */
int	wexec_run(const struct ptx_kernel *, const struct gpu_launch *,
	    uint32_t line_size, struct gpu_trace *tr, char *err,
	    size_t errlen);

#endif /* GPU_WEXEC_H */
