/*
 * bwprogress.cuh - kernel progress for bwsched, in one line per kernel.
 *
 * Device side: optionally begin the kernel with BWPROGRESS_START(bitmap)
 * (the launch's real start, see below), and end it with
 * BWPROGRESS_DONE(bitmap).  Every
 * thread of the block must reach it (it has a __syncthreads()); thread 0
 * then sets the block's bit in the launch's finished-block bitmap with a
 * system-scope atomic, so the daemon sees it in host memory while the
 * kernel runs.  A NULL bitmap (no bwsched) makes it a barrier only.
 * Needs compute capability 6.0 or newer (atomicOr_system).
 *
 * Host side: call bwprogress_init() once after the CUDA context exists,
 * then per launch
 *
 *	unsigned long long *bm = bwprogress_launch("vecadd", stream);
 *	vecadd<<<grid, block, 0, stream>>>(..., bm);
 *
 * "vecadd" names the profile given to bwrun (--profile vecadd.bwk).  The
 * helpers find the instrumentation (libbwcuda, preloaded by bwrun) with
 * dlsym, so the application links nothing extra and runs unchanged,
 * without progress, when it is absent.  The slot is released when the
 * stream is next synchronized.
 */
#ifndef BWSCHED_BWPROGRESS_CUH
#define BWSCHED_BWPROGRESS_CUH

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__

/* Linear id of the calling block within the grid. */
__device__ __forceinline__ unsigned long long
bwprogress_block_id(void)
{
	return (unsigned long long)blockIdx.x +
	    (unsigned long long)gridDim.x *
	    ((unsigned long long)blockIdx.y +
	    (unsigned long long)gridDim.y * blockIdx.z);
}

/* Set this block's bit; thread (0,0,0) does it after the barrier. */
__device__ __forceinline__ void
bwprogress_done(unsigned long long *bitmap)
{
	__syncthreads();
	if (bitmap != NULL && threadIdx.x == 0 && threadIdx.y == 0 &&
	    threadIdx.z == 0) {
		unsigned long long b = bwprogress_block_id();

		__threadfence_system();	/* the block's results first */
		atomicOr_system(&bitmap[b >> 6], 1ull << (b & 63));
	}
}

#define BWPROGRESS_DONE(bitmap)	bwprogress_done(bitmap)

/* The GPU's global nanosecond timer (the clock bwcuda calibrates). */
__device__ __forceinline__ unsigned long long
bwprogress_globaltimer(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/*
 * Optional, first thing in the kernel: record when the launch really
 * began, so a kernel queued behind another on its stream is not counted
 * from its CPU launch time (doc/engine.md).  Thread 0 of every block
 * looks; only while the word is 0 does it try the compare-and-swap, so
 * the first block that starts stores the time and the others pay one
 * read.  The word is the slot header's gpu_start, just before the bitmap.
 */
__device__ __forceinline__ void
bwprogress_start(unsigned long long *bitmap)
{
	if (bitmap != NULL && threadIdx.x == 0 && threadIdx.y == 0 &&
	    threadIdx.z == 0) {
		unsigned long long *w = bitmap - 1;	/* BWSHM_GPU_START_WORD */

		if (*(volatile unsigned long long *)w == 0)
			atomicCAS_system(w, 0ull, bwprogress_globaltimer());
	}
}

#define BWPROGRESS_START(bitmap)	bwprogress_start(bitmap)

#endif /* __CUDACC__ */

#if defined(__CUDACC__) || defined(BWPROGRESS_HOST)

#include <dlfcn.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

struct bwprogress_state {
	int		 ready;	/* 1: mapped, -1: unavailable */
	char		*host;	/* progress page in this process */
	char		*dev;	/* the same page as the GPU sees it */
	size_t		 size;
	int		(*launch)(const char *, uint64_t, int, uint64_t **);
};

static inline struct bwprogress_state *
bwprogress_state_(void)
{
	static struct bwprogress_state s;

	return &s;
}

/*
 * Map the progress page for the GPU: the instrumentation's page (a
 * sealed memfd libbwclient created and passed to the daemon) is
 * registered as mapped, pinned host memory.  Returns 0, or -1 when
 * progress is unavailable (kernels then get NULL bitmaps).
 */
static inline int
bwprogress_init(void)
{
	struct bwprogress_state *s = bwprogress_state_();
	void *(*page)(size_t *);
	int (*clock)(void);
	void *dev = NULL;
	cudaError_t e;

	if (s->ready != 0)
		return s->ready > 0 ? 0 : -1;
	s->ready = -1;
	page = (void *(*)(size_t *))dlsym(RTLD_DEFAULT,
	    "bwcuda_progress_page");
	s->launch = (int (*)(const char *, uint64_t, int, uint64_t **))
	    dlsym(RTLD_DEFAULT, "bwcuda_progress_launch");
	if (page == NULL || s->launch == NULL)
		return -1;	/* not run under bwrun */
	if ((s->host = (char *)page(&s->size)) == NULL || s->size == 0)
		return -1;	/* no daemon, or no profiles */
	e = cudaHostRegister(s->host, s->size, cudaHostRegisterMapped);
	if (e == cudaSuccess)
		e = cudaHostGetDevicePointer(&dev, s->host, 0);
	if (e != cudaSuccess) {
		fprintf(stderr, "bwprogress: cannot map the progress page: "
		    "%s\n", cudaGetErrorString(e));
		return -1;
	}
	s->dev = (char *)dev;
	s->ready = 1;
	/* the GPU clock's offset, for the kernels' BWPROGRESS_START; an
	 * older libbwcuda, or a failure, leaves the CPU launch time */
	clock = (int (*)(void))dlsym(RTLD_DEFAULT, "bwcuda_gpu_clock");
	if (clock != NULL)
		(void)clock();
	return 0;
}

/*
 * Claim a progress slot for one launch of the named kernel on stream.
 * Returns the device address of the launch's bitmap, or NULL (no
 * progress: the launch is still protected, with the static budget).
 */
static inline unsigned long long *
bwprogress_launch(const char *kernel, cudaStream_t stream)
{
	struct bwprogress_state *s = bwprogress_state_();
	uint64_t *bm = NULL;
	int ptds = 0;

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
	ptds = 1;
#endif
	if (s->ready <= 0 || s->launch(kernel,
	    (uint64_t)(uintptr_t)stream, ptds, &bm) < 0 || bm == NULL)
		return NULL;
	return (unsigned long long *)(s->dev + ((char *)bm - s->host));
}

/*
 * For applications that use libbwclient themselves (include
 * <bwsched/bwclient.h> first and link -lbwclient) instead of bwrun: map
 * the handle's progress page, then claim slots with bwc_launch.  The
 * application frees each slot with bwc_launch_done once the launch's
 * stream is synchronized.
 */
#ifdef BWSCHED_BWCLIENT_H
static inline int
bwprogress_init_bwc(bwc_t *c)
{
	struct bwprogress_state *s = bwprogress_state_();
	void *dev = NULL;

	if (s->ready > 0)
		return 0;
	s->ready = -1;
	if ((s->host = (char *)bwc_progress_page(c, &s->size)) == NULL)
		return -1;
	if (cudaHostRegister(s->host, s->size, cudaHostRegisterMapped) !=
	    cudaSuccess ||
	    cudaHostGetDevicePointer(&dev, s->host, 0) != cudaSuccess)
		return -1;
	s->dev = (char *)dev;
	s->ready = 1;
	return 0;
}

/* Device bitmap of a new launch of kernel (its bwc id); *slot for done. */
static inline unsigned long long *
bwprogress_launch_bwc(bwc_t *c, int kernel, cudaStream_t stream, int *slot)
{
	struct bwprogress_state *s = bwprogress_state_();
	uint64_t *bm = NULL;

	*slot = bwc_launch(c, kernel, (uint64_t)(uintptr_t)stream, &bm);
	if (s->ready <= 0 || *slot < 0 || bm == NULL)
		return NULL;
	return (unsigned long long *)(s->dev + ((char *)bm - s->host));
}
#endif /* BWSCHED_BWCLIENT_H */

#endif /* __CUDACC__ || BWPROGRESS_HOST */

#endif /* BWSCHED_BWPROGRESS_CUH */
