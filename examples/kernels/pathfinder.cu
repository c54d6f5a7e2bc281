/*
 * pathfinder.cu - a pathfinder-like dynamic-programming sweep: each
 * block owns a strip of columns, keeps the current row of costs in
 * shared memory and advances it `steps` rows, each cell taking the
 * cheapest of its three upper neighbours (clamped at the strip's edges)
 * plus the wall's cost.  The loop's trip count is a parameter.
 */
#define PF_BLOCK	256

extern "C" __global__ void
pathfinder(const int *wall, const int *src, int *dst, int cols,
    int start_row, int steps)
{
	__shared__ int prev[PF_BLOCK];
	int tx = threadIdx.x;
	int c = blockIdx.x * blockDim.x + tx;
	int left = tx > 0 ? tx - 1 : tx;
	int right = tx < blockDim.x - 1 ? tx + 1 : tx;
	int r, v;

	prev[tx] = src[c];
	__syncthreads();
	for (r = 0; r < steps; r++) {
		v = min(min(prev[left], prev[tx]), prev[right]) +
		    wall[(start_row + r) * cols + c];
		__syncthreads();
		prev[tx] = v;
		__syncthreads();
	}
	dst[c] = prev[tx];
}
