/*
 * green.h - GPU spatial partitioning in the CUDA layer (doc/partition.md):
 * the task's kernels run on the SMs of its partition through a CUDA
 * green context, following the plan the daemon publishes.
 *
 * The device is split with cuDevSmResourceSplitByCount into groups of
 * the plan's granule; a partition of SMs [first, first + n) is the green
 * context made (cuDevResourceGenerateDesc, cuGreenCtxCreate) of groups
 * first/g .. (first + n)/g - 1.  Each application stream used for a
 * launch gets a stream of that green context (cuGreenCtxStreamCreate);
 * the launch goes there, between two events that keep the application
 * stream's order: the green stream waits for what the application
 * stream had queued, and the application stream waits for the launch.
 * When the plan moves the task, new launches go to a new green context.
 *
 * Entry points come from the driver's own cuGetProcAddress.  A driver
 * without green contexts (before CUDA 12.4) is reported once and the
 * work runs unpartitioned.  No CUDA headers: the few types are declared
 * here with their ABI layout (tests/cuda/t_greenabi.c checks it against
 * cuda.h).
 */
#ifndef BWCUDA_GREEN_H
#define BWCUDA_GREEN_H

#include <stdint.h>

/* CUdevResource (CUDA 12.4+, RESOURCE_ABI_VERSION 1). */
struct bwcuda_sm_resource {
	unsigned	smCount;
	unsigned	minSmPartitionSize;
	unsigned	smCoscheduledAlignment;
};
struct bwcuda_dev_resource {
	int		type;			/* 1: SM */
	unsigned char	internal[92];
	union {
		struct bwcuda_sm_resource	sm;
		unsigned char			oversize[48];
	} u;
};

/* A task's place in the plan, as the sink knows it. */
struct bwcuda_partition {
	uint32_t	sm_first;
	uint32_t	sms;
	uint32_t	granule;
	uint64_t	plan;
};

/*
 * The device of the calling thread's context (device 0 without one):
 * the SMs usable in partitions (whole groups) and the group size of a
 * split at the device's minimum partition size.  0, or -1 when green
 * contexts are unavailable (reported once).
 */
int		bwcuda_green_device(uint32_t *sms, uint32_t *granule);

/*
 * Around a launch on the application's stream (handle as the API got
 * it; ptds: per-thread default stream variant): begin returns the
 * stream to launch on, and end must follow the launch when begin
 * returned a different one (it keeps the lock it took).
 */
void		*bwcuda_green_begin(void *stream, int ptds);
void		 bwcuda_green_end(void *stream, int ptds, void *used);

/* The application stream's key for a handle the driver reports, which
 * may be one of our green streams (the CUPTI injection sees those). */
uint64_t	 bwcuda_green_key(uint64_t handle, int ptds);

/* The application destroyed a stream: drop its green stream. */
void		 bwcuda_green_forget(void *stream, int ptds);

#endif /* BWCUDA_GREEN_H */
