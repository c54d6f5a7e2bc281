/*
 * progress_kernel.cu - compiled by nvcc.sh: a kernel using
 * BWPROGRESS_START and BWPROGRESS_DONE in 1-D and 3-D grids, and a host check of
 * bwprogress_launch's translation from the page's host address to the
 * device address, with a fake instrumentation (no GPU needed).
 */
#include <cstdio>
#include <cstring>

#include <bwsched/bwprogress.cuh>

__global__ void
work(float *x, unsigned long long *progress)
{
	BWPROGRESS_START(progress);
	x[threadIdx.x] *= 2.0f;
	BWPROGRESS_DONE(progress);
}

static uint64_t page[4096 / 8];
static const char *seen_kernel;
static uint64_t seen_stream;

static int
fake_launch(const char *kernel, uint64_t stream, int ptds, uint64_t **bm)
{
	(void)ptds;
	seen_kernel = kernel;
	seen_stream = stream;
	if (strcmp(kernel, "work") != 0)
		return -2;
	*bm = &page[24];	/* slot 1's bitmap, say */
	return 1;
}

int
main(int argc, char **argv)
{
	struct bwprogress_state *s = bwprogress_state_();
	unsigned long long *d;
	int bad = 0;

	/* no instrumentation: no progress, NULL bitmaps */
	bad += bwprogress_init() != -1;
	bad += bwprogress_launch("work", 0) != NULL;
	/* as if bwprogress_init had mapped the page at 0x7000000000 */
	s->ready = 1;
	s->host = (char *)page;
	s->dev = (char *)0x7000000000ull;
	s->size = sizeof(page);
	s->launch = fake_launch;
	d = bwprogress_launch("work", (cudaStream_t)0x1234);
	bad += d != (unsigned long long *)(0x7000000000ull + 24 * 8);
	bad += seen_stream != 0x1234 || strcmp(seen_kernel, "work") != 0;
	bad += bwprogress_launch("other", 0) != NULL;
	if (argc > 1) {	/* with a GPU: really launch */
		float *x;

		cudaMalloc(&x, 32 * sizeof(float));
		work<<<dim3(2, 2, 2), 32>>>(x, NULL);
		cudaDeviceSynchronize();
	}
	printf("progress_kernel: %s\n", bad ? "FAIL" : "ok");
	return bad != 0;
}
