/*
 * order.h - the order in which the warp-based load/store reordering unit
 * of [Reorder] (section III-E) releases L1 requests: wave by wave (the
 * blocks resident together), then by barrier phase, then by the index of
 * the access in its warp's stream, then by block and warp, then by line.
 * Without loops, divergence or barriers that is the paper's rule ("the
 * smallest warp and block that still has the access with the lowest
 * instruction address"); doc/gpu-model.md says why the generalisation.
 * Pure.
 */
#ifndef GPU_ORDER_H
#define GPU_ORDER_H

#include <stdint.h>

#include "gtrace.h"

#define ORDER_NONE	UINT32_MAX

/* One line request to the L1 (loads and stores; atomics bypass it). */
struct gpu_req {
	uint32_t	warp;		/* in gpu_trace.warps */
	uint32_t	dyn;		/* in gpu_trace.d */
	uint16_t	line;		/* among the instruction's lines */
	uint8_t		store;
};

struct gpu_order {
	uint32_t	 n;
	struct gpu_req	*r;		/* in release order */
	uint32_t	*first;		/* per dyn: its first request, or
					 * ORDER_NONE */
	uint32_t	 nwaves;
	uint32_t	*wave_req;	/* nwaves + 1: request ranges */
	uint32_t	 wave_blocks;	/* blocks per wave */
};

/* 0, -EINVAL when a block does not fit (wave_blocks 0), -ENOMEM. */
int	gpu_order_build(const struct gpu_trace *, uint32_t wave_blocks,
	    struct gpu_order *);
void	gpu_order_free(struct gpu_order *);

#endif /* GPU_ORDER_H */
