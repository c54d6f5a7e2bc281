/*
 * transpose.cu - out = in^T for a rows x cols matrix, the naive way that
 * reads a column: thread (x, y) writes out[y][x] = in[x][y], so a warp
 * (32 consecutive x) writes one line and reads 32 lines, each of which
 * the 31 warps of the next rows read again.  The L1 decides how much of
 * that reuse survives.
 */
extern "C" __global__ void
transpose(float *out, const float *in, int rows, int cols)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;	/* row of in */
	int y = blockIdx.y * blockDim.y + threadIdx.y;	/* column of in */

	if (x < rows && y < cols)
		out[y * rows + x] = in[x * cols + y];
}
