/*
 * t_interpose - drive the fake CUDA runtime and driver through the
 * preloaded interposer (libbwcuda.so) and check, from the log that the
 * recording sink and the fake driver share, that the lock is taken and
 * released as Table 1 says and every call reaches the right driver
 * function exactly once.  Run by interpose.sh: t_interpose SCENARIO LOG.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fakecuda/fakecuda.h"
#include "../check.h"

static const char *logpath;

#define S(x)	((CUstream)(uintptr_t)(x))
#define EVT(x)	((CUevent)(uintptr_t)(x))

static char **lines;
static int nlines;

static void
load(void)
{
	static char buf[1 << 20];
	FILE *f;
	size_t n;
	char *p, *save;

	free(lines);
	lines = NULL;
	nlines = 0;
	if ((f = fopen(logpath, "r")) == NULL)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (p = strtok_r(buf, "\n", &save); p != NULL;
	    p = strtok_r(NULL, "\n", &save)) {
		lines = realloc(lines, sizeof(*lines) * (size_t)(nlines + 1));
		lines[nlines++] = p;
	}
}

/* Whether the last lock transition in the log is LOCK. */
static int
held(void)
{
	int i;

	load();
	for (i = nlines - 1; i >= 0; i--) {
		if (strcmp(lines[i], "LOCK") == 0)
			return 1;
		if (strcmp(lines[i], "UNLOCK") == 0)
			return 0;
	}
	return 0;
}

static int
mark(void)
{
	load();
	return nlines;
}

/* Lines since mark starting with prefix ("...$": equal to it). */
static int
count(int from, const char *prefix)
{
	size_t len = strlen(prefix);
	int i, n = 0, exact = len > 0 && prefix[len - 1] == '$';

	load();
	for (i = from; i < nlines; i++) {
		if (exact)
			n += strlen(lines[i]) == len - 1 &&
			    strncmp(lines[i], prefix, len - 1) == 0;
		else
			n += strncmp(lines[i], prefix, len) == 0;
	}
	return n;
}

/* The prefixes appear in this order after mark (NULL-terminated). */
static int
in_order(int from, ...)
{
	const char *want;
	va_list ap;
	int i = from;

	load();
	va_start(ap, from);
	while ((want = va_arg(ap, const char *)) != NULL) {
		while (i < nlines && strncmp(lines[i], want, strlen(want)) != 0)
			i++;
		if (i == nlines) {
			fprintf(stderr, "missing in order: %s\n", want);
			va_end(ap);
			return 0;
		}
		i++;
	}
	va_end(ap);
	return 1;
}

static const dim3 one = { 1, 1, 1 };

static void
one_stream(void)
{
	int m = mark();
	char host[16];

	cudaMemcpy((void *)0x10, host, sizeof(host), cudaMemcpyHostToDevice);
	CHECK(in_order(m, "memcpy_begin", "call cuMemcpyHtoD_v2 ",
	    "memcpy_end", NULL));
	CHECK(held());		/* the staged copy may still be moving */
	CHECK(cudaLaunchKernel((void *)0x1, one, one, NULL, 0, 0) == 0);
	CHECK(count(m, "call cuLaunchKernel 0") == 1);
	CHECK(held());
	cudaMemcpy(host, (void *)0x10, sizeof(host), cudaMemcpyDeviceToHost);
	CHECK(in_order(m, "memcpy_begin", "call cuMemcpyDtoH_v2 ",
	    "sync 0x1", "memcpy_end", "UNLOCK", NULL));
	CHECK(!held());
}

static void
streams(void)
{
	int m = mark();

	cudaLaunchKernel((void *)0x1, one, one, NULL, 0, S(0x1000));
	cudaMemcpyAsync((void *)0x10, (void *)0x20, 8, cudaMemcpyHostToDevice,
	    S(0x2000));
	CHECK(count(m, "active 0x1000") == 1 && count(m, "active 0x2000") == 1);
	CHECK(count(m, "call cuMemcpyHtoDAsync_v2 0x2000") == 1);
	cudaStreamSynchronize(S(0x1000));
	CHECK(held());
	cudaStreamSynchronize(S(0x2000));
	CHECK(!held());
	cudaLaunchKernel((void *)0x1, one, one, NULL, 0, S(0x1000));
	cudaLaunchKernel((void *)0x1, one, one, NULL, 0, S(0x2000));
	cudaDeviceSynchronize();
	CHECK(!held() && count(m, "device_sync") == 1);
	CHECK(count(m, "call cuCtxSynchronize") == 1);
}

static void *
thread_body(void *arg)
{
	CUstream s = S(0x10000 * (1 + (uintptr_t)arg));
	int i;

	char host[8];

	for (i = 0; i < 200; i++) {
		cudaLaunchKernel((void *)0x1, one, one, NULL, 0, s);
		cudaMemcpyAsync((void *)0x10, (void *)0x20, 8,
		    cudaMemcpyDeviceToHost, s);
		cudaStreamSynchronize(s);
		cudaMemcpy(host, (void *)0x10, 8, cudaMemcpyDeviceToHost);
	}
	return NULL;
}

static void
threads(void)
{
	pthread_t t[4];
	uintptr_t i;
	int m = mark();

	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_body, (void *)i);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(!held());
	CHECK(count(m, "call cuLaunchKernel ") == 800);
	CHECK(count(m, "call cuMemcpyDtoHAsync_v2 ") == 800);
	CHECK(count(m, "call cuStreamSynchronize ") == 800);
	CHECK(count(m, "memcpy_begin") == 800 && count(m, "memcpy_end") == 800);
	/* each stream went active and was cleared the same number of times */
	CHECK(count(m, "active 0x10000") == count(m, "sync 0x10000"));
	CHECK(count(m, "active 0x40000") == count(m, "sync 0x40000"));
}

static void
graph(void)
{
	int m = mark();

	cudaGraphLaunch((void *)0x77, S(0x1000));
	CHECK(held() && count(m, "call cuGraphLaunch 0x1000") == 1);
	cudaStreamSynchronize(S(0x1000));
	CHECK(!held());
	cuGraphLaunch_ptsz((void *)0x77, 0);
	CHECK(held());
	cuStreamSynchronize(CU_STREAM_PER_THREAD);
	CHECK(!held());
}

static void
copies(void)
{
	char host[8];
	int m = mark();

	/* synchronous copies hold the lock for their duration */
	cuMemcpyDtoH_v2(host, 0x10, 8);
	CHECK(in_order(m, "memcpy_begin", "LOCK", "call cuMemcpyDtoH_v2",
	    "memcpy_end", "UNLOCK", NULL));
	CHECK(!held());
	m = mark();
	cuMemcpyHtoD_v2(0x10, host, 8);
	CHECK(in_order(m, "memcpy_begin", "call cuMemcpyHtoD_v2",
	    "memcpy_end", NULL));
	cuCtxSynchronize();
	CHECK(!held());
	/* asynchronous ones mark their stream */
	cuMemcpyHtoDAsync_v2(0x10, host, 8, S(0x3000));
	CHECK(held());
	cuStreamSynchronize(S(0x3000));
	CHECK(!held());
	/* a failing sync clears nothing */
	cuMemcpyAsync(0x10, 0x20, 8, S(0x3000));
	fakecuda_set_fail("cuStreamSynchronize");
	CHECK(cuStreamSynchronize(S(0x3000)) != 0);
	CHECK(held());
	fakecuda_set_fail(NULL);
	CHECK(cuStreamQuery(S(0x3000)) == 0);	/* idle: same as a sync */
	CHECK(!held());
}

static void
destroy(void)
{
	int m = mark();

	cudaLaunchKernel((void *)0x1, one, one, NULL, 0, S(0x1000));
	cudaStreamDestroy(S(0x1000));
	CHECK(count(m, "call cuStreamDestroy_v2 0x1000") == 1);
	CHECK(count(m, "forget 0x1000") == 1 && count(m, "active 0x3$") == 1);
	CHECK(held());		/* its queued work still runs */
	cudaDeviceSynchronize();
	CHECK(!held());
	/* an idle stream: nothing to hold */
	m = mark();
	cuStreamDestroy_v2(S(0x2000));
	CHECK(count(m, "LOCK") == 0 && !held());
}

static void
default_streams(void)
{
	CUlaunchConfig c;
	int m = mark();

	cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL);
	cuLaunchKernel_ptsz(NULL, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL);
	CHECK(count(m, "active 0x1$") == 1);
	CHECK(count(m, "active ") == 2);	/* legacy + this thread's */
	/* CU_STREAM_PER_THREAD is the same stream as _ptsz with 0 */
	cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, CU_STREAM_PER_THREAD,
	    NULL, NULL);
	CHECK(count(m, "active ") == 2);
	cuStreamSynchronize(CU_STREAM_LEGACY);
	CHECK(count(m, "sync 0x1$") == 1 && held());
	cuStreamSynchronize_ptsz(0);
	CHECK(!held());
	/* the runtime's per-thread entry points */
	cudaLaunchKernel_ptsz((void *)0x1, one, one, NULL, 0, 0);
	CHECK(count(m, "call cuLaunchKernel_ptsz 0") == 2 && held());
	cudaStreamSynchronize(0);	/* legacy: not ours */
	CHECK(held());
	cudaStreamSynchronize_ptsz(0);
	CHECK(!held());
	/* cuLaunchKernelEx takes the stream from its config */
	memset(&c, 0, sizeof(c));
	c.hStream = S(0x5000);
	cuLaunchKernelEx(&c, NULL, NULL, NULL);
	CHECK(count(m, "active 0x5000") == 1);
	cuStreamSynchronize(S(0x5000));
	CHECK(!held());
	{
		cudaLaunchConfig_t rc;

		memset(&rc, 0, sizeof(rc));
		rc.stream = S(0x6000);
		cudaLaunchKernelExC(&rc, (void *)0x1, NULL);
		CHECK(count(m, "call cuLaunchKernelEx 0x6000") == 1 && held());
		cudaStreamSynchronize(S(0x6000));
		CHECK(!held());
	}
}

static void
events(void)
{
	cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, S(0x1000), NULL, NULL);
	cuEventRecord(EVT(0xe1), S(0x1000));
	cuEventSynchronize(EVT(0xe1));
	CHECK(!held());
	cudaLaunchKernel((void *)0x1, one, one, NULL, 0, S(0x1000));
	cudaEventRecord(EVT(0xe1), S(0x1000));
	cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, S(0x1000), NULL, NULL);
	cudaEventSynchronize(EVT(0xe1));
	CHECK(held());		/* work queued after the event */
	cuEventRecord_ptsz(EVT(0xe2), S(0x1000));
	CHECK(cuEventQuery(EVT(0xe2)) == 0);
	CHECK(!held());
	cuEventDestroy_v2(EVT(0xe2));
}

typedef CUresult (*gpa_t)(const char *, void **, int, uint64_t);
typedef CUresult (*gpa2_t)(const char *, void **, int, uint64_t, int *);

static int
ours(const void *p)
{
	Dl_info i;

	return p != NULL && dladdr(p, &i) != 0 && i.dli_fname != NULL &&
	    strstr(i.dli_fname, "libbwcuda") != NULL;
}

static void
gpa(void)
{
	void *drv = dlopen("libcuda.so.1", RTLD_NOW);
	gpa2_t g2 = (gpa2_t)dlsym(drv, "cuGetProcAddress_v2");
	gpa_t g1 = (gpa_t)dlsym(drv, "cuGetProcAddress");
	void *p, *q;
	int st, m = mark();
	CUresult (*htod)(CUdeviceptr, const void *, size_t);
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned,
	    unsigned, unsigned, unsigned, unsigned, CUstream, void **,
	    void **);
	CUresult (*sync)(CUstream);

	CHECK(ours((void *)g1) && ours((void *)g2));
	/* pre-3020 cuMemcpyHtoD is the 32-bit v1: forwarded as such */
	CHECK(g2("cuMemcpyHtoD", (void **)&htod, 3000, 0, &st) == 0);
	CHECK(ours((void *)htod));
	htod(0x10, NULL, 8);
	CHECK(count(m, "call cuMemcpyHtoD 0") == 1);
	CHECK(g2("cuMemcpyHtoD", (void **)&htod, 3020, 0, &st) == 0);
	htod(0x10, NULL, 8);
	CHECK(count(m, "call cuMemcpyHtoD_v2 0") == 1);
	CHECK(g1("cuMemcpyHtoD", (void **)&htod, 11030,
	    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) == 0);
	htod(0x10, NULL, 8);
	CHECK(count(m, "call cuMemcpyHtoD_v2_ptds 0") == 1);
	CHECK(count(m, "memcpy_begin") == 3 && count(m, "memcpy_end") == 3);
	/* per-thread flag: the _ptsz variant, and 0 means this thread's */
	CHECK(g2("cuLaunchKernel", (void **)&launch, 12000,
	    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st) == 0 &&
	    st == 0);
	launch(NULL, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL);
	CHECK(count(m, "call cuLaunchKernel_ptsz 0") == 1);
	CHECK(g2("cuStreamSynchronize", (void **)&sync, 12000,
	    CU_GET_PROC_ADDRESS_LEGACY_STREAM, &st) == 0);
	sync(0);
	CHECK(held());	/* a legacy sync: not this thread's stream */
	CHECK(g2("cuStreamSynchronize", (void **)&sync, 12000,
	    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st) == 0);
	sync(0);
	CHECK(count(m, "call cuStreamSynchronize_ptsz 0") == 1);
	CHECK(!held());
	/* the same lookup twice gives the same wrapper */
	CHECK(g2("cuLaunchKernel", &p, 12000, 0, &st) == 0);
	CHECK(g2("cuLaunchKernel", &q, 12000, 0, &st) == 0);
	CHECK(p == q && ours(p));
	/* cuGetProcAddress through itself: v1 before 12000, v2 after */
	CHECK(g2("cuGetProcAddress", &p, 11030, 0, &st) == 0 && ours(p));
	CHECK(((gpa_t)p)("cuStreamQuery", &q, 11030, 0) == 0 && ours(q));
	CHECK(g2("cuGetProcAddress", &p, 12000, 0, &st) == 0 && ours(p));
	CHECK(((gpa2_t)p)("cuStreamQuery", &q, 12000, 0, &st) == 0 && ours(q));
	/* not instrumented: the driver's own pointer */
	CHECK(g2("cuInit", &p, 12000, 0, &st) == 0 && p != NULL && !ours(p));
	CHECK(p == dlsym(drv, "cuInit"));
	/* unknown symbol or version too low: the driver's answer */
	CHECK(g2("cuNoSuchThing", &p, 12000, 0, &st) != 0 && p == NULL &&
	    st == 1);
	CHECK(g2("cuLaunchKernelEx", &p, 11000, 0, &st) != 0 && st == 2);
	dlclose(drv);
}

static void
dlsym_paths(void)
{
	void *drv = dlopen("libcuda.so.1", RTLD_NOW);
	CUresult (*sync)(CUstream);
	void *(*m)(size_t);
	int from = mark();

	sync = (CUresult (*)(CUstream))dlsym(drv, "cuStreamSynchronize_ptsz");
	CHECK(ours((void *)sync));
	cuLaunchKernel_ptsz(NULL, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL);
	sync(0);
	CHECK(!held() && count(from, "call cuStreamSynchronize_ptsz") == 1);
	/* everything else is untouched, RTLD_NEXT included */
	m = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	CHECK(m != NULL && !ours((void *)m));
	CHECK(dlsym(RTLD_DEFAULT, "strlen") != NULL);
	CHECK(dlsym(drv, "no_such_symbol") == NULL);
	CHECK(dlsym(RTLD_NEXT, "cuInit") != NULL);
	/*
	 * RTLD_NEXT searches after the caller (this program), so it finds
	 * the preloaded library's own export, not the one after it.
	 */
	CHECK(dlsym(RTLD_NEXT, "cuLaunchKernel") ==
	    dlsym(RTLD_DEFAULT, "cuLaunchKernel"));
	CHECK(ours(dlsym(RTLD_NEXT, "cuLaunchKernel")));
	dlclose(drv);
}

static void
progress(void)
{
	int (*launch)(const char *, uint64_t, int, uint64_t **);
	uint64_t *bm = NULL;
	int m = mark();

	launch = (int (*)(const char *, uint64_t, int, uint64_t **))
	    dlsym(RTLD_DEFAULT, "bwcuda_progress_launch");
	CHECK(launch != NULL);
	if (launch == NULL)
		return;
	CHECK(launch("vecadd", 0x1000, 0, &bm) == 0 && bm != NULL);
	CHECK(count(m, "launch 0 0x1000 0") == 1 && held());
	cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, S(0x1000), NULL, NULL);
	CHECK(launch("other", 0x1000, 0, &bm) == -ENOENT && bm == NULL);
	cuStreamSynchronize(S(0x1000));
	CHECK(in_order(m, "launch 0", "call cuLaunchKernel", "launch_done 0",
	    "sync 0x1000", "UNLOCK", NULL));
	CHECK(!held());
}

/* bwctl's view of this task's "locked" field (live.sh). */
static int
daemon_locked(void)
{
	char cmd[1024], out[65536], *p, *end;
	const char *ctl = getenv("BWCTL"), *sock = getenv("BWSCHED_SOCKET");
	size_t n;
	FILE *f;

	if (ctl == NULL || sock == NULL)
		return -1;
	snprintf(cmd, sizeof(cmd), "'%s' -s '%s' --json tasks", ctl, sock);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, f);
	pclose(f);
	out[n] = '\0';
	if ((p = strstr(out, "\"name\":\"cudalive\"")) == NULL)
		return -1;
	while (p > out && *p != '{')
		p--;
	end = strchr(p, '}');
	p = strstr(p, "\"locked\":");
	if (p == NULL || end == NULL || p > end)
		return -1;
	return strncmp(p + 9, "true", 4) == 0;
}

/* Through libbwclient to a running daemon (live.sh). */
static void
live(void)
{
	char host[8];

	unsetenv("LD_PRELOAD");		/* not into bwctl */
	cudaLaunchKernel((void *)0x1, one, one, NULL, 0, S(0x1000));
	CHECK(daemon_locked() == 1);
	cudaLaunchKernel((void *)0x1, one, one, NULL, 0, S(0x2000));
	cudaStreamSynchronize(S(0x1000));
	CHECK(daemon_locked() == 1);
	cudaStreamSynchronize(S(0x2000));
	CHECK(daemon_locked() == 0);
	cudaMemcpy((void *)0x10, host, 8, cudaMemcpyHostToDevice);
	CHECK(daemon_locked() == 1);
	cudaMemcpy(host, (void *)0x10, 8, cudaMemcpyDeviceToHost);
	CHECK(daemon_locked() == 0);
	cudaGraphLaunch((void *)0x77, S(0x3000));
	cudaStreamDestroy(S(0x3000));
	CHECK(daemon_locked() == 1);
	cudaDeviceSynchronize();
	CHECK(daemon_locked() == 0);
}

/* No assertions: for absent.sh, which counts the warnings. */
static void
quiet(void)
{
	int i;

	for (i = 0; i < 3; i++) {
		cudaLaunchKernel((void *)0x1, one, one, NULL, 0, S(0x1000));
		cudaStreamSynchronize(S(0x1000));
	}
}

static const struct {
	const char	*name;
	void		(*fn)(void);
} scenarios[] = {
	{ "one_stream", one_stream }, { "streams", streams },
	{ "threads", threads }, { "graph", graph }, { "copies", copies },
	{ "destroy", destroy }, { "default_streams", default_streams },
	{ "events", events }, { "gpa", gpa }, { "dlsym", dlsym_paths },
	{ "progress", progress }, { "quiet", quiet }, { "live", live },
};

int
main(int argc, char **argv)
{
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: t_interpose SCENARIO LOG\n");
		return 2;
	}
	logpath = argv[2];
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		if (strcmp(scenarios[i].name, argv[1]) == 0 ||
		    strcmp("list", argv[1]) == 0) {
			if (strcmp("list", argv[1]) == 0) {
				/* the two that need their own setting */
				if (scenarios[i].fn != quiet &&
				    scenarios[i].fn != live)
					printf("%s\n", scenarios[i].name);
				continue;
			}
			scenarios[i].fn();
			if (failures)
				fprintf(stderr, "%s: %d failures\n", argv[1],
				    failures);
			return failures ? 1 : 0;
		}
	}
	if (strcmp("list", argv[1]) == 0)
		return 0;
	fprintf(stderr, "t_interpose: no scenario %s\n", argv[1]);
	return 2;
}
