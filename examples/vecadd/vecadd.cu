/*
 * vecadd - a small CUDA application protected by bwsched.
 *
 * Adds two vectors on one stream, ITER times, reporting its progress to
 * the daemon through bwprogress.cuh.  Nothing else in it knows about
 * bwsched: run it under bwrun and the instrumentation takes the
 * bandwidth lock around the copies and kernels by itself.
 *
 *	bwrun --profile vecadd.bwk --priority 80 -- ./vecadd [N] [ITER]
 */
#include <cstdio>
#include <cstdlib>

#include <bwsched/bwprogress.cuh>

__global__ void
vecadd(const float *a, const float *b, float *c, int n,
    unsigned long long *progress)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
	BWPROGRESS_DONE(progress);	/* every thread reaches this line */
}

static int
check(cudaError_t e, const char *what)
{
	if (e == cudaSuccess)
		return 0;
	fprintf(stderr, "vecadd: %s: %s\n", what, cudaGetErrorString(e));
	return -1;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
	int iter = argc > 2 ? atoi(argv[2]) : 10;
	size_t bytes = (size_t)n * sizeof(float);
	float *ha, *hb, *hc, *da, *db, *dc;
	cudaStream_t s;
	int i, bad = 0;

	if (n <= 0 || iter <= 0) {
		fprintf(stderr, "usage: vecadd [N > 0] [ITER > 0]\n");
		return 2;
	}
	ha = (float *)malloc(bytes);
	hb = (float *)malloc(bytes);
	hc = (float *)malloc(bytes);
	if (ha == NULL || hb == NULL || hc == NULL)
		return 1;
	for (i = 0; i < n; i++) {
		ha[i] = (float)i;
		hb[i] = 2.0f * (float)i;
	}
	if (check(cudaStreamCreate(&s), "stream") ||
	    check(cudaMalloc(&da, bytes), "malloc") ||
	    check(cudaMalloc(&db, bytes), "malloc") ||
	    check(cudaMalloc(&dc, bytes), "malloc"))
		return 1;
	bwprogress_init();	/* no bwsched: kernels get NULL bitmaps */
	for (int it = 0; it < iter; it++) {
		int threads = 256, blocks = (n + threads - 1) / threads;
		unsigned long long *bm = bwprogress_launch("vecadd", s);

		cudaMemcpyAsync(da, ha, bytes, cudaMemcpyHostToDevice, s);
		cudaMemcpyAsync(db, hb, bytes, cudaMemcpyHostToDevice, s);
		vecadd<<<blocks, threads, 0, s>>>(da, db, dc, n, bm);
		cudaMemcpyAsync(hc, dc, bytes, cudaMemcpyDeviceToHost, s);
		if (check(cudaStreamSynchronize(s), "sync"))
			return 1;
	}
	for (i = 0; i < n; i++)
		bad += hc[i] != 3.0f * (float)i;
	printf("vecadd: %d elements, %d iterations, %d wrong\n", n, iter, bad);
	cudaFree(da);
	cudaFree(db);
	cudaFree(dc);
	cudaStreamDestroy(s);
	free(ha);
	free(hb);
	free(hc);
	return bad != 0;
}
