/*
 * gpuclock.c - calibration of the GPU's %globaltimer against
 * CLOCK_MONOTONIC (gpuclock.h); sink.c's bwcuda_gpu_clock() runs it for
 * bwprogress_init().
 *
 * Each round brackets one device read by two host reads; the device read
 * lies somewhere in the bracket, so its middle is within half the
 * bracket of the truth.  A launch and a synchronization make the bracket
 * some microseconds wide; the tightest of several rounds is used (the
 * first, with the module's JIT, is a warm-up and not counted).  A
 * mapped-memory ping-pong with a resident kernel would be tighter; the
 * daemon subtracts the uncertainty, so a wider bracket only costs budget.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gpuclock.h"

int
gpuclock_calibrate(gpuclock_read_fn rd, void *arg, gpuclock_mono_fn mono,
    unsigned int rounds, struct gpuclock_result *r)
{
	uint64_t	t0, t1, g, best = UINT64_MAX;
	unsigned int	i;

	r->rounds = 0;
	for (i = 0; i < rounds; i++) {
		t0 = mono();
		if (rd(arg, &g) < 0 || g == 0 || g > INT64_MAX)
			continue;
		t1 = mono();
		if (t1 < t0 || t1 > INT64_MAX)
			continue;
		r->rounds++;
		if (t1 - t0 >= best)
			continue;
		best = t1 - t0;
		/* the middle, rounded up: err below covers the half ns */
		r->offset_ns = (int64_t)(t0 + (t1 - t0 + 1) / 2) - (int64_t)g;
		r->err_ns = (t1 - t0 + 1) / 2;
	}
	if (r->rounds == 0 || best / 2 > GPUCLOCK_MAX_ERR_NS)
		return -1;
	return 0;
}

void
gpuclock_publish(struct bwshm_progress_hdr *h, const struct gpuclock_result *r)
{
	uint32_t	s = __atomic_load_n(&h->clock_seq, __ATOMIC_RELAXED);

	/* odd while rewritten; even, non-zero and 2 more once valid */
	__atomic_store_n(&h->clock_seq, s | 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&h->clock_offset_ns, r->offset_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&h->clock_err_ns, r->err_ns, __ATOMIC_RELAXED);
	s = (s | 1) + 1;
	if (s == 0)
		s = 2;	/* wrapped: 0 would mean none */
	__atomic_store_n(&h->clock_seq, s, __ATOMIC_RELEASE);
}

/* ---- the driver path ---------------------------------------------- */

typedef int CUres;
typedef void *CUmod;
typedef void *CUfn;
typedef uint64_t CUdptr;

#define GC_DEVICEMAP	0x02	/* CU_MEMHOSTALLOC_DEVICEMAP */

/* One thread stores %globaltimer; volatile: it goes to host memory. */
static const char gpuclock_ptx[] =
	".version 6.0\n"
	".target sm_50\n"
	".address_size 64\n"
	".visible .entry bwgpuclock_read(.param .u64 out)\n"
	"{\n"
	"	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	cvta.to.global.u64 %rd2, %rd1;\n"
	"	mov.u64 %rd3, %globaltimer;\n"
	"	st.volatile.global.u64 [%rd2], %rd3;\n"
	"	ret;\n"
	"}\n";

struct gc_drv {
	CUres	(*load)(CUmod *, const void *);
	CUres	(*unload)(CUmod);
	CUres	(*getfn)(CUfn *, CUmod, const char *);
	CUres	(*halloc)(void **, size_t, unsigned int);
	CUres	(*hfree)(void *);
	CUres	(*hdev)(CUdptr *, void *, unsigned int);
	CUres	(*launch)(CUfn, unsigned int, unsigned int, unsigned int,
		    unsigned int, unsigned int, unsigned int, unsigned int,
		    void *, void **, void **);
	CUres	(*sync)(void);
	CUfn	fn;
	CUdptr	dev;
	volatile uint64_t *host;
};

static int
gc_read(void *arg, uint64_t *g)
{
	struct gc_drv	*d = arg;
	void		*params[1] = { &d->dev };

	*d->host = 0;
	if (d->launch(d->fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL) != 0 ||
	    d->sync() != 0)
		return -1;
	*g = *d->host;
	return 0;
}

static uint64_t
gc_mono(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define GC_SYM(d, f, name) \
	((*(void **)&(d)->f = sym(name)) != NULL)

int
gpuclock_driver(void *(*sym)(const char *), unsigned int rounds,
    struct gpuclock_result *r)
{
	struct gc_drv	d = { 0 };
	CUmod		mod = NULL;
	void		*host = NULL;
	uint64_t	g;
	int		rc = -1;

	if (!GC_SYM(&d, load, "cuModuleLoadData") ||
	    !GC_SYM(&d, unload, "cuModuleUnload") ||
	    !GC_SYM(&d, getfn, "cuModuleGetFunction") ||
	    !GC_SYM(&d, halloc, "cuMemHostAlloc") ||
	    !GC_SYM(&d, hfree, "cuMemFreeHost") ||
	    !GC_SYM(&d, hdev, "cuMemHostGetDevicePointer_v2") ||
	    !GC_SYM(&d, launch, "cuLaunchKernel") ||
	    !GC_SYM(&d, sync, "cuCtxSynchronize"))
		return -1;
	if (d.load(&mod, gpuclock_ptx) != 0)
		return -1;
	if (d.getfn(&d.fn, mod, "bwgpuclock_read") != 0 ||
	    d.halloc(&host, sizeof(uint64_t), GC_DEVICEMAP) != 0)
		goto out;
	d.host = host;
	if (d.hdev(&d.dev, host, 0) != 0 || gc_read(&d, &g) < 0)
		goto out;	/* the warm-up read failed: so would the rest */
	rc = gpuclock_calibrate(gc_read, &d, gc_mono, rounds, r);
out:
	if (host != NULL)
		d.hfree(host);
	d.unload(mod);
	return rc;
}
