/*
 * gtrace.h - what the warp-level model works on: every warp's dynamic
 * instruction stream with the cache lines of its global accesses (the
 * analyzer's output, [Reorder] Algorithms 1-3), and the machine
 * parameters the estimators and the SM simulator share
 * (doc/gpu-model.md).  Pure.
 */
#ifndef GPU_TRACE_H
#define GPU_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define GPU_WARP		32
#define GPU_MAX_RD		6
#define GPU_MAX_WR		2
#define GPU_MAX_DYN		(4u << 20)	/* dynamic instructions */
#define GPU_MAX_LINES		(8u << 20)	/* line requests */
#define GPU_MAX_WARPS		(1u << 16)

/* Instruction classes, each with its execution latency. */
enum gpu_cls {
	GPU_ALU,	/* integer and float arithmetic, moves, setp */
	GPU_SFU,	/* div, rem, sqrt, rcp, ex2, lg2, sin, cos */
	GPU_SHARED,	/* ld/st/atom/red .shared */
	GPU_PARAM,	/* ld.param (constant cache) */
	GPU_BRANCH,	/* bra: the warp's next fetch waits for it */
	GPU_BAR,	/* bar.sync: latency after the last arrival */
	GPU_EXIT,	/* ret, exit */
	GPU_GLD,	/* ld.global: the L1 and memory decide */
	GPU_GST,	/* st.global: write-through, no allocation */
	GPU_GATOM,	/* atom/red .global: performed beyond the L1 */
	GPU_NCLS
};

#define GPU_IS_GLOBAL(c)	((c) >= GPU_GLD)

/* A static instruction as the timing sees it (registers renumbered). */
struct gpu_sinst {
	uint8_t		cls;
	uint8_t		nrd, nwr;
	uint16_t	rd[GPU_MAX_RD];
	uint16_t	wr[GPU_MAX_WR];
	uint32_t	lat;		/* execution latency, 0: the class's */
	uint32_t	line;		/* in the PTX file */
};

/* One executed warp instruction. */
struct gpu_dinst {
	uint32_t	sidx;
	uint32_t	line0;		/* its first line in gpu_trace.lines */
	uint16_t	nlines;		/* coalesced line requests */
	uint16_t	active;		/* lanes that executed it */
};

struct gpu_warp {
	uint32_t	block;		/* linear block id */
	uint32_t	wib;		/* warp index in its block */
	uint32_t	d0, nd;		/* its instructions in gpu_trace.d */
};

struct gpu_trace {
	uint32_t		 nsinst;
	struct gpu_sinst	*sinst;
	uint32_t		 nregs;
	uint32_t		 nwarps, nblocks, warps_per_block;
	struct gpu_warp		*warps;
	uint32_t		 nd, d_cap;
	struct gpu_dinst	*d;
	uint32_t		 nlines, lines_cap;
	uint64_t		*lines;		/* line addresses */
};

struct gpu_l1 {
	uint32_t	size;		/* bytes */
	uint32_t	assoc;
	uint32_t	line;		/* bytes, a power of two */
};

struct gpu_cfg {
	struct gpu_l1	l1;
	uint32_t	lat[GPU_NCLS];	/* the global classes use the below */
	uint32_t	l1_hit;		/* L1 hit latency */
	uint32_t	l_base;		/* [Reorder] Eq. 3 L_base */
	uint32_t	n_conflict;	/* Eq. 3 N_ConflictSM */
	uint32_t	max_warps;	/* resident warps per SM */
	uint32_t	max_blocks;	/* resident blocks per SM */
	uint32_t	skew;		/* a warp starts up to this late */
};

extern const char *const gpu_cls_names[GPU_NCLS];

void	gpu_cfg_default(struct gpu_cfg *);
/* 0, or -EINVAL with the reason in err. */
int	gpu_cfg_check(const struct gpu_cfg *, char *err, size_t errlen);
/* Execution latency of a static instruction. */
uint32_t gpu_lat(const struct gpu_cfg *, const struct gpu_sinst *);
/*
 * Blocks that run together (a wave) when a kernel may use cap warps
 * of the SM; 0 when one block does not fit.
 */
uint32_t gpu_wave_blocks(const struct gpu_cfg *, uint32_t warps_per_block,
	    uint32_t cap);

/* Make room for need elements of *p (capacity *cap, doubling, at most
 * max); 0, -E2BIG past max, -ENOMEM. */
int	gpu_grow(void **p, uint32_t *cap, uint64_t need, size_t elem,
	    uint32_t max);
/* Append to a trace under construction; -ENOMEM or -E2BIG. */
int	gpu_trace_add(struct gpu_trace *, uint32_t sidx, uint16_t active,
	    const uint64_t *lines, unsigned int nlines);
void	gpu_trace_free(struct gpu_trace *);

/* Totals over the trace. */
uint64_t gpu_trace_requests(const struct gpu_trace *);

#endif /* GPU_TRACE_H */
