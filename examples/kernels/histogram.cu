/*
 * histogram.cu - a 256-bin byte histogram: each block counts into a
 * private histogram in shared memory over a grid-stride loop, then adds
 * it to the global bins.  The bin a byte falls in depends on the data,
 * but only the shared-memory atomics use it: every global address
 * follows from the ids and n.
 */
extern "C" __global__ void
histogram(const unsigned char *data, unsigned int *bins, int n)
{
	__shared__ unsigned int h[256];
	int i;

	for (i = threadIdx.x; i < 256; i += blockDim.x)
		h[i] = 0;
	__syncthreads();
	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	    i += blockDim.x * gridDim.x)
		atomicAdd(&h[data[i]], 1u);
	__syncthreads();
	for (i = threadIdx.x; i < 256; i += blockDim.x)
		atomicAdd(&bins[i], h[i]);
}
