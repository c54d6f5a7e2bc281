/*
 * fakecuda.c - a fake libcuda.so.1: the entry points the instrumentation
 * wraps, each appending "call NAME ARG" to $FAKECUDA_LOG (ARG: the
 * stream or event, 0 when none) and succeeding unless fakecuda_set_fail
 * named it.  cuGetProcAddress picks versions and per-thread variants
 * the way the real driver does, from addresses that other objects
 * cannot interpose (link with -Bsymbolic).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakecuda.h"

static char fail_name[64];

void
fakecuda_set_fail(const char *name)
{
	snprintf(fail_name, sizeof(fail_name), "%s", name ? name : "");
}

static int
logfd(void)
{
	static int fd = -2;
	const char *p;

	if (fd == -2) {
		p = getenv("FAKECUDA_LOG");
		fd = p ? open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		    0644) : -1;
	}
	return fd;
}

/* For fakegreen.c: a free-form line in the log. */
void
fakecuda_logf(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n, fd = logfd();

	if (fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(fd, buf, (size_t)n) < 0)
		return;
}

/* Whether fakecuda_set_fail named this function. */
int
fakecuda_failing(const char *name)
{
	return fail_name[0] != '\0' && strcmp(fail_name, name) == 0;
}

static CUresult
rec(const char *name, const void *arg)
{
	char buf[128];
	int n, fd = logfd();

	if (fd >= 0) {
		n = snprintf(buf, sizeof(buf), "call %s %#lx\n", name,
		    (unsigned long)(uintptr_t)arg);
		if (write(fd, buf, (size_t)n) < 0)
			return CUDA_ERROR_UNKNOWN;
	}
	if (fail_name[0] == '\0')
		return CUDA_SUCCESS;
	return strcmp(fail_name, name) == 0 ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}

CUresult
cuInit(unsigned flags)
{
	(void)flags;
	return rec("cuInit", NULL);
}

static void (*launch_hook)(CUstream);

/* Called inside every kernel launch, as a CUPTI callback would be. */
void
fakecuda_set_launch_hook(void (*hook)(CUstream))
{
	launch_hook = hook;
}

/*
 * Modules: any image loads; its one function, whatever its name, is
 * the timer kernel of client/cuda/gpuclock.c: it stores the fake
 * %globaltimer, CLOCK_MONOTONIC plus fakecuda_set_globaltimer's offset,
 * at its first parameter.  Host memory is its own device mapping.
 */
static int64_t	gt_offset;
static char	fake_module, fake_timer_fn;

void
fakecuda_set_globaltimer(int64_t offset)
{
	gt_offset = offset;
}

static void
timer_kernel(void **p)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	**(uint64_t **)p[0] = (uint64_t)((int64_t)ts.tv_sec * 1000000000ll +
	    ts.tv_nsec + gt_offset);
}

CUresult
cuModuleLoadData(void **m, const void *image)
{
	*m = image != NULL ? &fake_module : NULL;
	return rec("cuModuleLoadData", NULL);
}

CUresult
cuModuleUnload(void *m)
{
	return rec("cuModuleUnload", m);
}

CUresult
cuModuleGetFunction(CUfunction *f, void *m, const char *name)
{
	(void)name;
	*f = m == &fake_module ? &fake_timer_fn : NULL;
	return rec("cuModuleGetFunction", NULL);
}

CUresult
cuMemHostAlloc(void **pp, size_t n, unsigned flags)
{
	(void)flags;
	if (fakecuda_failing("cuMemHostAlloc"))
		return CUDA_ERROR_UNKNOWN;
	*pp = calloc(1, n);
	return *pp != NULL ? rec("cuMemHostAlloc", NULL) : 2;
}

CUresult
cuMemFreeHost(void *p)
{
	free(p);
	return rec("cuMemFreeHost", NULL);
}

CUresult
cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned flags)
{
	(void)flags;
	*d = (CUdeviceptr)(uintptr_t)p;
	return rec("cuMemHostGetDevicePointer_v2", NULL);
}

#define LAUNCH(name) \
CUresult name(CUfunction f, unsigned gx, unsigned gy, unsigned gz, \
    unsigned bx, unsigned by, unsigned bz, unsigned shm, CUstream s, \
    void **p, void **x) \
{ \
	(void)gx; (void)gy; (void)gz; (void)bx; (void)by; \
	(void)bz; (void)shm; (void)x; \
	if (launch_hook != NULL) \
		launch_hook(s); \
	if (f == &fake_timer_fn && !fakecuda_failing(#name)) \
		timer_kernel(p); \
	return rec(#name, s); \
}
LAUNCH(cuLaunchKernel)
LAUNCH(cuLaunchKernel_ptsz)

#define LAUNCHEX(name) \
CUresult name(const CUlaunchConfig *c, CUfunction f, void **p, void **x) \
{ \
	(void)f; (void)p; (void)x; \
	return rec(#name, c ? c->hStream : NULL); \
}
LAUNCHEX(cuLaunchKernelEx)
LAUNCHEX(cuLaunchKernelEx_ptsz)

#define STREAM2(name, T) \
CUresult name(T a, CUstream s) { (void)a; return rec(#name, s); }
STREAM2(cuGraphLaunch, CUgraphExec)
STREAM2(cuGraphLaunch_ptsz, CUgraphExec)

#define EVREC(name) \
CUresult name(CUevent e, CUstream s) { (void)e; return rec(#name, s); }
EVREC(cuEventRecord)
EVREC(cuEventRecord_ptsz)

CUresult
cuMemcpyHtoD(unsigned d, const void *s, unsigned n)
{
	(void)d; (void)s; (void)n;
	return rec("cuMemcpyHtoD", NULL);
}

#define COPY(name, D, S) \
CUresult name(D d, S s, size_t n) \
{ (void)d; (void)s; (void)n; return rec(#name, NULL); }
COPY(cuMemcpyHtoD_v2, CUdeviceptr, const void *)
COPY(cuMemcpyHtoD_v2_ptds, CUdeviceptr, const void *)
COPY(cuMemcpyDtoH_v2, void *, CUdeviceptr)
COPY(cuMemcpyDtoH_v2_ptds, void *, CUdeviceptr)
COPY(cuMemcpyDtoD_v2, CUdeviceptr, CUdeviceptr)
COPY(cuMemcpy, CUdeviceptr, CUdeviceptr)

#define ACOPY(name, D, S) \
CUresult name(D d, S s, size_t n, CUstream st) \
{ (void)d; (void)s; (void)n; return rec(#name, st); }
ACOPY(cuMemcpyHtoDAsync_v2, CUdeviceptr, const void *)
ACOPY(cuMemcpyHtoDAsync_v2_ptsz, CUdeviceptr, const void *)
ACOPY(cuMemcpyDtoHAsync_v2, void *, CUdeviceptr)
ACOPY(cuMemcpyAsync, CUdeviceptr, CUdeviceptr)

#define ONE(name, T) CUresult name(T a) { return rec(#name, a); }
ONE(cuStreamSynchronize, CUstream)
ONE(cuStreamSynchronize_ptsz, CUstream)
ONE(cuStreamQuery, CUstream)
ONE(cuEventSynchronize, CUevent)
ONE(cuEventQuery, CUevent)
ONE(cuEventDestroy_v2, CUevent)
ONE(cuStreamDestroy, CUstream)
ONE(cuStreamDestroy_v2, CUstream)

CUresult
cuCtxSynchronize(void)
{
	return rec("cuCtxSynchronize", NULL);
}

/*
 * name, first CUDA version providing it, legacy and per-thread variants.
 * Several rows per name: the last row whose version is <= the request
 * wins (cuMemcpyHtoD at 3020 became cuMemcpyHtoD_v2).
 */
static const struct {
	const char	*name;
	int		 since;
	void		*legacy;
	void		*ptds;
} procs[] = {
	{ "cuInit", 2000, (void *)cuInit, NULL },
	{ "cuGetProcAddress", 11030, (void *)cuGetProcAddress, NULL },
	{ "cuGetProcAddress", 12000, (void *)cuGetProcAddress_v2, NULL },
	{ "cuLaunchKernel", 4000, (void *)cuLaunchKernel,
	    (void *)cuLaunchKernel_ptsz },
	{ "cuLaunchKernelEx", 11060, (void *)cuLaunchKernelEx,
	    (void *)cuLaunchKernelEx_ptsz },
	{ "cuGraphLaunch", 10000, (void *)cuGraphLaunch,
	    (void *)cuGraphLaunch_ptsz },
	{ "cuMemcpyHtoD", 2000, (void *)cuMemcpyHtoD, NULL },
	{ "cuMemcpyHtoD", 3020, (void *)cuMemcpyHtoD_v2,
	    (void *)cuMemcpyHtoD_v2_ptds },
	{ "cuMemcpyDtoH", 3020, (void *)cuMemcpyDtoH_v2,
	    (void *)cuMemcpyDtoH_v2_ptds },
	{ "cuMemcpyDtoD", 3020, (void *)cuMemcpyDtoD_v2, NULL },
	{ "cuMemcpy", 4000, (void *)cuMemcpy, NULL },
	{ "cuMemcpyHtoDAsync", 3020, (void *)cuMemcpyHtoDAsync_v2,
	    (void *)cuMemcpyHtoDAsync_v2_ptsz },
	{ "cuMemcpyDtoHAsync", 3020, (void *)cuMemcpyDtoHAsync_v2, NULL },
	{ "cuMemcpyAsync", 4000, (void *)cuMemcpyAsync, NULL },
	{ "cuStreamSynchronize", 2000, (void *)cuStreamSynchronize,
	    (void *)cuStreamSynchronize_ptsz },
	{ "cuStreamQuery", 2000, (void *)cuStreamQuery, NULL },
	{ "cuCtxSynchronize", 2000, (void *)cuCtxSynchronize, NULL },
	{ "cuEventRecord", 2000, (void *)cuEventRecord,
	    (void *)cuEventRecord_ptsz },
	{ "cuEventSynchronize", 2000, (void *)cuEventSynchronize, NULL },
	{ "cuEventQuery", 2000, (void *)cuEventQuery, NULL },
	{ "cuEventDestroy", 4000, (void *)cuEventDestroy_v2, NULL },
	{ "cuStreamDestroy", 2000, (void *)cuStreamDestroy, NULL },
	{ "cuStreamDestroy", 4000, (void *)cuStreamDestroy_v2, NULL },
	/* green contexts and what green.c needs with them (fakegreen.c) */
	{ "cuCtxGetDevice", 2000, (void *)cuCtxGetDevice, NULL },
	{ "cuDeviceGet", 2000, (void *)cuDeviceGet, NULL },
	{ "cuEventCreate", 2000, (void *)cuEventCreate, NULL },
	{ "cuStreamWaitEvent", 3020, (void *)cuStreamWaitEvent, NULL },
	{ "cuDeviceGetDevResource", 12040, (void *)cuDeviceGetDevResource,
	    NULL },
	{ "cuDevSmResourceSplitByCount", 12040,
	    (void *)cuDevSmResourceSplitByCount, NULL },
	{ "cuDevResourceGenerateDesc", 12040,
	    (void *)cuDevResourceGenerateDesc, NULL },
	{ "cuGreenCtxCreate", 12040, (void *)cuGreenCtxCreate, NULL },
	{ "cuGreenCtxStreamCreate", 12050, (void *)cuGreenCtxStreamCreate,
	    NULL },
};

/* $FAKECUDA_NO_GREEN: a driver from before green contexts. */
static int
hidden(const char *sym)
{
	return getenv("FAKECUDA_NO_GREEN") != NULL &&
	    (strstr(sym, "Green") != NULL || strstr(sym, "Resource") != NULL);
}

static CUresult
gpa(const char *sym, void **pfn, int ver, uint64_t flags, int *status)
{
	void *found = NULL;
	int known = 0;
	size_t i;

	if (sym == NULL || pfn == NULL)
		return 1;	/* CUDA_ERROR_INVALID_VALUE */
	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		if (strcmp(procs[i].name, sym) != 0 || hidden(sym))
			continue;
		known = 1;
		if (procs[i].since > ver)
			continue;
		found = procs[i].legacy;
		if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) &&
		    procs[i].ptds != NULL)
			found = procs[i].ptds;
	}
	*pfn = found;
	if (logfd() >= 0) {
		char buf[160];
		int n = snprintf(buf, sizeof(buf), "gpa %.100s %d %#lx %s\n",
		    sym, ver, (unsigned long)flags, found ? "found" : "none");

		if (write(logfd(), buf, (size_t)n) < 0)
			return CUDA_ERROR_UNKNOWN;
	}
	if (status != NULL)
		*status = found ? 0 : known ? 2 : 1;
	return found ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult
cuGetProcAddress(const char *sym, void **pfn, int ver, uint64_t flags)
{
	return gpa(sym, pfn, ver, flags, NULL);
}

CUresult
cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags,
    int *status)
{
	return gpa(sym, pfn, ver, flags, status);
}
