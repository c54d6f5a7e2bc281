/*
 * fakecudart.c - a fake CUDA runtime that reaches the driver the way the
 * real one does since CUDA 11.3: dlopen("libcuda.so.1"), dlsym of
 * cuGetProcAddress_v2, then every entry point through it, once with the
 * legacy-stream flag and once with the per-thread flag (for the _ptsz
 * runtime entry points).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "fakecuda.h"

#define RT_VERSION	12000

struct drv {
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned,
	    unsigned, unsigned, unsigned, CUstream, void **, void **);
	CUresult (*launch_ex)(const CUlaunchConfig *, CUfunction, void **,
	    void **);
	CUresult (*graph)(CUgraphExec, CUstream);
	CUresult (*htod)(CUdeviceptr, const void *, size_t);
	CUresult (*dtoh)(void *, CUdeviceptr, size_t);
	CUresult (*dtod)(CUdeviceptr, CUdeviceptr, size_t);
	CUresult (*copy)(CUdeviceptr, CUdeviceptr, size_t);
	CUresult (*htod_async)(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*dtoh_async)(void *, CUdeviceptr, size_t, CUstream);
	CUresult (*copy_async)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
	CUresult (*stream_sync)(CUstream);
	CUresult (*ctx_sync)(void);
	CUresult (*ev_record)(CUevent, CUstream);
	CUresult (*ev_sync)(CUevent);
	CUresult (*stream_destroy)(CUstream);
};

static struct drv legacy, ptds;
static pthread_once_t once = PTHREAD_ONCE_INIT;

typedef CUresult (*gpa_fn)(const char *, void **, int, uint64_t, int *);

static void
get(gpa_fn gpa, const char *name, void *slot, uint64_t flags)
{
	int status;

	if (gpa(name, (void **)slot, RT_VERSION, flags, &status) != 0) {
		fprintf(stderr, "fakecudart: no %s\n", name);
		abort();
	}
}

static void
resolve(struct drv *d, gpa_fn gpa, uint64_t flags)
{
	get(gpa, "cuLaunchKernel", &d->launch, flags);
	get(gpa, "cuLaunchKernelEx", &d->launch_ex, flags);
	get(gpa, "cuGraphLaunch", &d->graph, flags);
	get(gpa, "cuMemcpyHtoD", &d->htod, flags);
	get(gpa, "cuMemcpyDtoH", &d->dtoh, flags);
	get(gpa, "cuMemcpyDtoD", &d->dtod, flags);
	get(gpa, "cuMemcpy", &d->copy, flags);
	get(gpa, "cuMemcpyHtoDAsync", &d->htod_async, flags);
	get(gpa, "cuMemcpyDtoHAsync", &d->dtoh_async, flags);
	get(gpa, "cuMemcpyAsync", &d->copy_async, flags);
	get(gpa, "cuStreamSynchronize", &d->stream_sync, flags);
	get(gpa, "cuCtxSynchronize", &d->ctx_sync, flags);
	get(gpa, "cuEventRecord", &d->ev_record, flags);
	get(gpa, "cuEventSynchronize", &d->ev_sync, flags);
	get(gpa, "cuStreamDestroy", &d->stream_destroy, flags);
}

static void
init(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	gpa_fn gpa, gpa2;

	if (h == NULL || (gpa = (gpa_fn)dlsym(h, "cuGetProcAddress_v2")) ==
	    NULL) {
		fprintf(stderr, "fakecudart: %s\n", dlerror());
		abort();
	}
	/* the runtime also looks cuGetProcAddress up through itself */
	get(gpa, "cuGetProcAddress", &gpa2, CU_GET_PROC_ADDRESS_LEGACY_STREAM);
	resolve(&legacy, gpa2, CU_GET_PROC_ADDRESS_LEGACY_STREAM);
	resolve(&ptds, gpa2, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
}

static const struct drv *
drv(int per_thread)
{
	pthread_once(&once, init);
	return per_thread ? &ptds : &legacy;
}

cudaError_t
cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t shm,
    cudaStream_t s)
{
	return drv(0)->launch((CUfunction)f, g.x, g.y, g.z, b.x, b.y, b.z,
	    (unsigned)shm, s, args, NULL);
}

cudaError_t
cudaLaunchKernel_ptsz(const void *f, dim3 g, dim3 b, void **args,
    size_t shm, cudaStream_t s)
{
	return drv(1)->launch((CUfunction)f, g.x, g.y, g.z, b.x, b.y, b.z,
	    (unsigned)shm, s, args, NULL);
}

cudaError_t
cudaLaunchKernelExC(const cudaLaunchConfig_t *c, const void *f, void **args)
{
	CUlaunchConfig d = {
		c->gridDim.x, c->gridDim.y, c->gridDim.z,
		c->blockDim.x, c->blockDim.y, c->blockDim.z,
		(unsigned)c->dynamicSmemBytes, c->stream, NULL, 0,
	};

	return drv(0)->launch_ex(&d, (CUfunction)f, args, NULL);
}

cudaError_t
cudaStreamSynchronize(cudaStream_t s)
{
	return drv(0)->stream_sync(s);
}

cudaError_t
cudaStreamSynchronize_ptsz(cudaStream_t s)
{
	return drv(1)->stream_sync(s);
}

cudaError_t
cudaDeviceSynchronize(void)
{
	return drv(0)->ctx_sync();
}

cudaError_t
cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind k)
{
	const struct drv *d = drv(0);

	switch (k) {
	case cudaMemcpyHostToDevice:
		return d->htod((CUdeviceptr)(uintptr_t)dst, src, n);
	case cudaMemcpyDeviceToHost:
		return d->dtoh(dst, (CUdeviceptr)(uintptr_t)src, n);
	case cudaMemcpyDeviceToDevice:
		return d->dtod((CUdeviceptr)(uintptr_t)dst,
		    (CUdeviceptr)(uintptr_t)src, n);
	default:
		return d->copy((CUdeviceptr)(uintptr_t)dst,
		    (CUdeviceptr)(uintptr_t)src, n);
	}
}

cudaError_t
cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind k,
    cudaStream_t s)
{
	const struct drv *d = drv(0);

	switch (k) {
	case cudaMemcpyHostToDevice:
		return d->htod_async((CUdeviceptr)(uintptr_t)dst, src, n, s);
	case cudaMemcpyDeviceToHost:
		return d->dtoh_async(dst, (CUdeviceptr)(uintptr_t)src, n, s);
	default:
		return d->copy_async((CUdeviceptr)(uintptr_t)dst,
		    (CUdeviceptr)(uintptr_t)src, n, s);
	}
}

cudaError_t
cudaGraphLaunch(cudaGraphExec_t g, cudaStream_t s)
{
	return drv(0)->graph(g, s);
}

cudaError_t
cudaStreamDestroy(cudaStream_t s)
{
	return drv(0)->stream_destroy(s);
}

cudaError_t
cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
	return drv(0)->ev_record(e, s);
}

cudaError_t
cudaEventSynchronize(cudaEvent_t e)
{
	return drv(0)->ev_sync(e);
}
