/*
 * fakecuda.h - types shared by the fake CUDA driver and runtime (test
 * doubles: no GPU, every call succeeds unless told to fail, and each call
 * appends "call NAME ARG" to $FAKECUDA_LOG).
 */
#ifndef FAKECUDA_H
#define FAKECUDA_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef void *CUstream;
typedef void *CUevent;
typedef void *CUfunction;
typedef void *CUgraphExec;
typedef uint64_t CUdeviceptr;

#define CUDA_SUCCESS		0
#define CUDA_ERROR_UNKNOWN	999
#define CUDA_ERROR_NOT_FOUND	500
#define CU_STREAM_LEGACY	((CUstream)0x1)
#define CU_STREAM_PER_THREAD	((CUstream)0x2)
#define CU_GET_PROC_ADDRESS_LEGACY_STREAM	1
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM	2

typedef struct {
	unsigned	gridDimX, gridDimY, gridDimZ;
	unsigned	blockDimX, blockDimY, blockDimZ;
	unsigned	sharedMemBytes;
	CUstream	hStream;
	void		*attrs;
	unsigned	numAttrs;
} CUlaunchConfig;

/* Make the next calls of the named fake function fail (NULL: none). */
void	fakecuda_set_fail(const char *name);

/* runtime */
typedef int cudaError_t;
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
typedef void *cudaGraphExec_t;
typedef struct { unsigned x, y, z; } dim3;
typedef struct {
	dim3		gridDim;
	dim3		blockDim;
	size_t		dynamicSmemBytes;
	cudaStream_t	stream;
	void		*attrs;
	unsigned	numAttrs;
} cudaLaunchConfig_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice,
	cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };

cudaError_t	cudaLaunchKernel(const void *, dim3, dim3, void **, size_t,
		    cudaStream_t);
cudaError_t	cudaLaunchKernel_ptsz(const void *, dim3, dim3, void **,
		    size_t, cudaStream_t);
cudaError_t	cudaLaunchKernelExC(const cudaLaunchConfig_t *, const void *,
		    void **);
cudaError_t	cudaStreamSynchronize(cudaStream_t);
cudaError_t	cudaStreamSynchronize_ptsz(cudaStream_t);
cudaError_t	cudaDeviceSynchronize(void);
cudaError_t	cudaMemcpy(void *, const void *, size_t,
		    enum cudaMemcpyKind);
cudaError_t	cudaMemcpyAsync(void *, const void *, size_t,
		    enum cudaMemcpyKind, cudaStream_t);
cudaError_t	cudaGraphLaunch(cudaGraphExec_t, cudaStream_t);
cudaError_t	cudaStreamDestroy(cudaStream_t);
cudaError_t	cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t	cudaEventSynchronize(cudaEvent_t);



/* driver entry points the fake implements (names as exported) */
CUresult cuInit(unsigned);
CUresult cuGetProcAddress(const char *, void **, int, uint64_t);
CUresult cuGetProcAddress_v2(const char *, void **, int, uint64_t, int *);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned,
	    unsigned, unsigned, unsigned, CUstream, void **, void **);
CUresult cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned,
	    unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
CUresult cuLaunchKernelEx(const CUlaunchConfig *, CUfunction, void **,
	    void **);
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *, CUfunction, void **,
	    void **);
CUresult cuGraphLaunch(CUgraphExec, CUstream);
CUresult cuGraphLaunch_ptsz(CUgraphExec, CUstream);
CUresult cuMemcpyHtoD(unsigned, const void *, unsigned);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemcpyDtoH_v2_ptds(void *, CUdeviceptr, size_t);
CUresult cuMemcpyDtoD_v2(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemcpy(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr, const void *, size_t, CUstream);
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr, const void *, size_t,
	    CUstream);
CUresult cuMemcpyDtoHAsync_v2(void *, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpyAsync(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuStreamSynchronize(CUstream);
CUresult cuStreamSynchronize_ptsz(CUstream);
CUresult cuStreamQuery(CUstream);
CUresult cuCtxSynchronize(void);
CUresult cuEventRecord(CUevent, CUstream);
CUresult cuEventRecord_ptsz(CUevent, CUstream);
CUresult cuEventSynchronize(CUevent);
CUresult cuEventQuery(CUevent);
CUresult cuEventDestroy_v2(CUevent);
CUresult cuStreamDestroy(CUstream);
CUresult cuStreamDestroy_v2(CUstream);

/* green contexts (fakegreen.c); CUdevResource's ABI layout */
typedef struct {
	int		type;
	unsigned char	internal[92];
	union {
		struct {
			unsigned smCount, minSmPartitionSize,
			    smCoscheduledAlignment;
		} sm;
		unsigned char oversize[48];
	} u;
} fake_resource;

CUresult cuCtxGetDevice(int *);
CUresult cuDeviceGet(int *, int);
CUresult cuEventCreate(CUevent *, unsigned);
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned);
CUresult cuDeviceGetDevResource(int, fake_resource *, int);
CUresult cuDevSmResourceSplitByCount(fake_resource *, unsigned *,
	    const fake_resource *, fake_resource *, unsigned, unsigned);
CUresult cuDevResourceGenerateDesc(void **, fake_resource *, unsigned);
CUresult cuGreenCtxCreate(void **, void *, int, unsigned);
CUresult cuGreenCtxStreamCreate(CUstream *, void *, unsigned, int);

/* modules and mapped host memory, for client/cuda/gpuclock.c */
CUresult cuModuleLoadData(void **, const void *);
CUresult cuModuleUnload(void *);
CUresult cuModuleGetFunction(CUfunction *, void *, const char *);
CUresult cuMemHostAlloc(void **, size_t, unsigned);
CUresult cuMemFreeHost(void *);
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *, void *, unsigned);
/* the fake %globaltimer: CLOCK_MONOTONIC + offset ns */
void	fakecuda_set_globaltimer(int64_t offset);

/* fakecuda.c: a function every kernel launch calls, as CUPTI would */
void	fakecuda_set_launch_hook(void (*)(CUstream));

/* fakecuda.c, for fakegreen.c */
void	fakecuda_logf(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));
int	fakecuda_failing(const char *name);
#endif /* FAKECUDA_H */
