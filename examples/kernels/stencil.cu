/*
 * stencil.cu - one step of a hotspot-like thermal simulation: each cell
 * moves towards the mean of its four neighbours and the ambient
 * temperature, heated by its power.  Borders are clamped, so every
 * address follows from the thread and block ids; a warp's north and
 * south rows are the rows of the warps above and below it.
 */
extern "C" __global__ void
stencil(const float *temp, const float *power, float *out, int rows,
    int cols, float cap, float rx, float ry, float rz)
{
	const float amb = 80.0f;
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	int n, s, w, e, i;
	float t;

	if (r >= rows || c >= cols)
		return;
	n = r > 0 ? r - 1 : r;
	s = r < rows - 1 ? r + 1 : r;
	w = c > 0 ? c - 1 : c;
	e = c < cols - 1 ? c + 1 : c;
	i = r * cols + c;
	t = temp[i];
	out[i] = t + cap * (power[i] +
	    (temp[s * cols + c] + temp[n * cols + c] - 2.0f * t) * ry +
	    (temp[r * cols + e] + temp[r * cols + w] - 2.0f * t) * rx +
	    (amb - t) * rz);
}
