/*
 * nvcc_test.cu - bwprofile.cuh under nvcc: a kernel instrumented with
 * BWPROFILE_BEGIN/END compiles (its PTX reads %globaltimer), and the host
 * helper writes the trace CSV from a filled buffer.  No GPU is needed:
 * main() never launches the kernel.
 */
#include <stdio.h>
#include <string.h>

#include <bwsched/bwprofile.cuh>

__global__ void
scale(float *x, int n, struct bwprofile_rec *prof)
{
	int	i = blockIdx.x * blockDim.x + threadIdx.x;

	BWPROFILE_BEGIN(prof);
	if (i < n)
		x[i] *= 2.0f;
	BWPROFILE_END(prof);
}

/* Reference the launch path so it is compiled, without running it. */
void
launch(float *x, int n, struct bwprofile_rec *prof)
{
	scale<<<(n + 255) / 256, 256>>>(x, n, prof);
}

int
main(void)
{
	struct bwprofile_rec r[4];
	char	buf[512];
	FILE	*f;
	long	skipped;

	bwprofile_clear(r, 4);
	r[0].start = 1000; r[0].end = 3500;
	r[1].start = 1200; r[1].end = 1200;	/* not finished: skipped */
	r[2].start = 5000; r[2].end = 9000;
	r[3].start = 0; r[3].end = 0;		/* never started */
	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	skipped = bwprofile_write_csv(f, r, 4, 7, 1, 1);
	fclose(f);
	if (skipped != 2 || strcmp(buf, "run,block,exec_ns,cond\n"
	    "7,0,2500,1\n7,2,4000,1\n") != 0) {
		fprintf(stderr, "bad CSV (%ld skipped):\n%s", skipped, buf);
		return 1;
	}
	return 0;
}
