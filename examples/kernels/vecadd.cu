/*
 * vecadd.cu - c = a + b, one element per thread: every warp reads two
 * lines and writes one, with no reuse between warps (a streaming kernel,
 * the L1 cannot help it).
 */
extern "C" __global__ void
vecadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}
