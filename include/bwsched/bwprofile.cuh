/*
 * bwprofile.cuh - device-side timing of thread blocks for bwanalyze
 * cluster (doc/profiling.md, [DynBW] section 4.4).
 *
 * Each block's first thread stamps %globaltimer (ns) when the block starts
 * and, after the block's last barrier, when it ends, into a record of a
 * buffer in mapped (zero-copy) host memory.  Unlike the thesis' Listing 1,
 * which derives a finished block's time from the start of the block that
 * replaces it, every block here measures its own start and end, so the
 * last M blocks are measured like the others.
 *
 *	__global__ void k(..., struct bwprofile_rec *prof)
 *	{
 *		BWPROFILE_BEGIN(prof);
 *		... kernel body ...
 *		BWPROFILE_END(prof);	(every thread must reach it)
 *	}
 *
 * Host: bwprofile_alloc(), launch, synchronize, bwprofile_write_csv()
 * for each run, bwprofile_free().  The CSV helper also builds without
 * nvcc (plain C or C++), for tools that post-process saved buffers.
 */
#ifndef BWSCHED_BWPROFILE_CUH
#define BWSCHED_BWPROFILE_CUH

#include <stdint.h>
#include <stdio.h>

/* One block: %globaltimer at start and end, ns; end 0 = not finished. */
struct bwprofile_rec {
	uint64_t	start;
	uint64_t	end;
};

/* Zero the buffer before a run (unfinished blocks keep end = 0). */
static inline void
bwprofile_clear(struct bwprofile_rec *buf, uint32_t nblocks)
{
	uint32_t b;

	for (b = 0; b < nblocks; b++) {
		buf[b].start = 0;
		buf[b].end = 0;
	}
}

/*
 * Append one run to a trace in CSV ("run,block,exec_ns,cond"; the header
 * first when header is non-zero).  cond: 0 isolation, 1 maximum
 * interference.  Blocks without a valid stamp pair are skipped; returns
 * their number, or -1 on a write error.
 */
static inline long
bwprofile_write_csv(FILE *f, const struct bwprofile_rec *buf,
    uint32_t nblocks, uint32_t run, unsigned int cond, int header)
{
	long	skipped = 0;
	uint32_t b;

	if (header && fprintf(f, "run,block,exec_ns,cond\n") < 0)
		return -1;
	for (b = 0; b < nblocks; b++) {
		if (buf[b].start == 0 || buf[b].end <= buf[b].start) {
			skipped++;
			continue;
		}
		if (fprintf(f, "%u,%u,%llu,%u\n", run, b,
		    (unsigned long long)(buf[b].end - buf[b].start),
		    cond) < 0)
			return -1;
	}
	return skipped;
}

#ifdef __CUDACC__

/* The global nanosecond timer (PTX special register). */
static __device__ __forceinline__ uint64_t
bwprofile_now(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Linear block id over a 3-D grid. */
static __device__ __forceinline__ uint32_t
bwprofile_block_id(void)
{
	return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

/*
 * volatile stores plus a system-scope fence: the host reads the buffer
 * through the mapping after the kernel, but a watchdog may poll it during
 * the run.
 */
static __device__ __forceinline__ void
bwprofile_begin(struct bwprofile_rec *buf)
{
	if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
		volatile struct bwprofile_rec *r = buf + bwprofile_block_id();

		r->start = bwprofile_now();
	}
}

static __device__ __forceinline__ void
bwprofile_end(struct bwprofile_rec *buf)
{
	/* the block ends when its slowest thread is done */
	__syncthreads();
	if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
		volatile struct bwprofile_rec *r = buf + bwprofile_block_id();

		r->end = bwprofile_now();
		__threadfence_system();
	}
}

#define BWPROFILE_BEGIN(buf)	bwprofile_begin(buf)
#define BWPROFILE_END(buf)	bwprofile_end(buf)

/*
 * Mapped host buffer for nblocks records: *host for the CPU, *dev for the
 * kernel.  Returns the CUDA error (cudaSuccess on success).
 */
static inline cudaError_t
bwprofile_alloc(uint32_t nblocks, struct bwprofile_rec **host,
    struct bwprofile_rec **dev)
{
	cudaError_t e;

	e = cudaHostAlloc((void **)host, (size_t)nblocks * sizeof(**host),
	    cudaHostAllocMapped);
	if (e != cudaSuccess)
		return e;
	bwprofile_clear(*host, nblocks);
	e = cudaHostGetDevicePointer((void **)dev, *host, 0);
	if (e != cudaSuccess)
		cudaFreeHost(*host);
	return e;
}

static inline void
bwprofile_free(struct bwprofile_rec *host)
{
	cudaFreeHost(host);
}

#endif /* __CUDACC__ */

#endif /* BWSCHED_BWPROFILE_CUH */
