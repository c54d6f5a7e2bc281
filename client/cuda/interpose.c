/*
 * interpose.c - LD_PRELOAD interposer of the CUDA driver API.
 *
 * Applications reach the driver in three ways, and each is covered:
 *  - linked with -lcuda: the exported wrappers below (cuLaunchKernel,
 *    cuLaunchKernel_ptsz, ...) come first in the global scope;
 *  - dlopen("libcuda.so.1") + dlsym: our dlsym hands back wrappers;
 *  - cuGetProcAddress (the CUDA runtime since 11.3, any version flag):
 *    our cuGetProcAddress(_v2) calls the real one and wraps the result.
 *
 * C has no closures, so a wrapper for a pointer learnt at run time is
 * one of a fixed set of "slot" functions per signature ("kind"), each
 * bound to one real pointer and to whether it is a per-thread-default-
 * stream variant.  A wrapper only forwards its arguments unchanged, so
 * it also serves older ABI versions of a function (32-bit CUdeviceptr in
 * cuMemcpyHtoD before 3020, no context in cuCtxSynchronize): integer
 * arguments pass through in the same registers.
 *
 * When the CUPTI injection is active it sets the interposer passive and
 * the wrappers only forward.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "green.h"
#include "interpose.h"
#include "sink.h"

#define EXPORT		__attribute__((visibility("default")))
#define NSLOTS		16
#define CU_ERROR_NOT_FOUND	500
/* CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM */
#define GPA_PER_THREAD	0x2

typedef int CUres;
typedef void *CUst;		/* CUstream */
typedef void *CUev;		/* CUevent */
typedef uint64_t CUdptr;	/* CUdeviceptr (and host pointers) */

/* CUlaunchConfig: copied to move its launch to a green stream. */
struct launch_config {
	unsigned	grid[3];
	unsigned	block[3];
	unsigned	shmem;
	CUst		stream;
	void		*attrs;
	unsigned	nattrs;
};

int bwcuda_interpose_on = 1;

enum kind {
	K_LAUNCH, K_COOP, K_LAUNCH_EX, K_GRAPH, K_ASYNC4, K_ASYNC2,
	K_COPY_IN, K_COPY_OUT, K_COPY_1, K_STREAM_SYNC, K_STREAM_QUERY,
	K_CTX_SYNC, K_EV_RECORD, K_EV_RECORD_F, K_EV_SYNC, K_EV_QUERY,
	K_EV_DESTROY, K_STREAM_DESTROY, K_GPA, K_GPA2, K_NKINDS
};

struct entry {
	const char	*name;		/* direct exports only */
	int		 ptds;
	void		*real;		/* atomic */
};

/* Parameter lists of each kind, and the same as arguments. */
#define PAR_LAUNCH	void *f, unsigned gx, unsigned gy, unsigned gz, \
	unsigned bx, unsigned by, unsigned bz, unsigned shm, CUst s, \
	void **p, void **x
#define ARG_LAUNCH	, f, gx, gy, gz, bx, by, bz, shm, s, p, x
#define PAR_COOP	void *f, unsigned gx, unsigned gy, unsigned gz, \
	unsigned bx, unsigned by, unsigned bz, unsigned shm, CUst s, void **p
#define ARG_COOP	, f, gx, gy, gz, bx, by, bz, shm, s, p
#define PAR_LAUNCH_EX	const struct launch_config *c, void *f, void **p, \
	void **x
#define ARG_LAUNCH_EX	, c, f, p, x
#define PAR_GRAPH	void *g, CUst s
#define ARG_GRAPH	, g, s
#define PAR_ASYNC4	CUdptr d, CUdptr src, size_t n, CUst s
#define ARG_ASYNC4	, d, src, n, s
#define PAR_ASYNC2	const void *d, CUst s
#define ARG_ASYNC2	, d, s
#define PAR_COPY_IN	CUdptr d, CUdptr src, size_t n
#define ARG_COPY_IN	, d, src, n
#define PAR_COPY_OUT	PAR_COPY_IN
#define ARG_COPY_OUT	ARG_COPY_IN
#define PAR_COPY_1	const void *d
#define ARG_COPY_1	, d
#define PAR_STREAM_SYNC	CUst s
#define ARG_STREAM_SYNC	, s
#define PAR_STREAM_QUERY	CUst s
#define ARG_STREAM_QUERY	, s
#define PAR_CTX_SYNC	void *ctx
#define ARG_CTX_SYNC	, ctx
#define PAR_EV_RECORD	CUev ev, CUst s
#define ARG_EV_RECORD	, ev, s
#define PAR_EV_RECORD_F	CUev ev, CUst s, unsigned fl
#define ARG_EV_RECORD_F	, ev, s, fl
#define PAR_EV_SYNC	CUev ev
#define ARG_EV_SYNC	, ev
#define PAR_EV_QUERY	CUev ev
#define ARG_EV_QUERY	, ev
#define PAR_EV_DESTROY	CUev ev
#define ARG_EV_DESTROY	, ev
#define PAR_STREAM_DESTROY	CUst s
#define ARG_STREAM_DESTROY	, s
#define PAR_GPA		const char *sym, void **pfn, int ver, uint64_t fl
#define ARG_GPA		, sym, pfn, ver, fl
#define PAR_GPA2	const char *sym, void **pfn, int ver, uint64_t fl, \
	int *status
#define ARG_GPA2	, sym, pfn, ver, fl, status

/* ---- finding real functions ------------------------------------------ */

static int
is_ours(const void *p)
{
	static void *base;
	Dl_info info;

	if (base == NULL && dladdr((void *)is_ours, &info) != 0)
		base = info.dli_fbase;
	return dladdr(p, &info) != 0 && info.dli_fbase == base;
}

/* The real function of a direct export (the next definition of it). */
static void *
resolve(struct entry *e)
{
	void *p = __atomic_load_n(&e->real, __ATOMIC_ACQUIRE);
	void *h;

	if (p != NULL || e->name == NULL)
		return p;	/* slots are bound before being handed out */
	p = bwcuda_real_dlsym(RTLD_NEXT, e->name);
	if ((p == NULL || is_ours(p)) && (h = bwcuda_driver_handle()) != NULL)
		p = bwcuda_real_dlsym(h, e->name);
	if (p == NULL || is_ours(p))
		return NULL;
	__atomic_store_n(&e->real, p, __ATOMIC_RELEASE);
	return p;
}

static inline int
on(void)
{
	return __atomic_load_n(&bwcuda_interpose_on, __ATOMIC_RELAXED);
}

static inline uint64_t
key(const struct entry *e, const void *stream)
{
	return bwcuda_stream_key((uintptr_t)stream, e->ptds);
}

/* ---- the behaviour of each kind -------------------------------------- */

/* Work submitted to stream k by the real call. */
#define AROUND(k, call) do { \
	struct bwcuda_state *st_; \
	uint64_t k_; \
	CUres r_; \
	if (!on()) \
		return call; \
	st_ = bwcuda_global(); \
	k_ = (k); \
	bwcuda_launch_begin(st_, k_); \
	r_ = call; \
	bwcuda_launch_end(st_, k_); \
	return r_; \
} while (0)

/*
 * Kernel work on stream s, sent to the green stream of the task's GPU
 * partition when it has one (green.h): call launches on stream gs.
 */
#define LAUNCHED(s, gs, call) do { \
	struct bwcuda_state *st_ = NULL; \
	uint64_t k_ = key(e, (s)); \
	CUst gs; \
	CUres r_; \
	if (on()) { \
		st_ = bwcuda_global(); \
		bwcuda_launch_begin(st_, k_); \
	} \
	gs = bwcuda_green_begin((s), e->ptds); \
	r_ = call; \
	bwcuda_green_end((s), e->ptds, gs); \
	if (st_ != NULL) \
		bwcuda_launch_end(st_, k_); \
	return r_; \
} while (0)

/*
 * A blocking call that, when it returns 0, has seen everything queued
 * before it on stream k finish, or on the whole device (dev); the
 * snapshot keeps launches queued meanwhile active.
 */
#define SYNCED(dev, k, call) do { \
	struct bwcuda_state *st_; \
	uint64_t snap_; \
	CUres r_; \
	if (!on()) \
		return call; \
	st_ = bwcuda_global(); \
	snap_ = bwcuda_sync_begin(st_); \
	if ((r_ = call) == 0 && (dev)) \
		bwcuda_device_synced(st_, snap_); \
	else if (r_ == 0) \
		bwcuda_stream_synced(st_, (k), snap_); \
	return r_; \
} while (0)

/*
 * A copy that may return before the data has moved: the lock is held
 * for the call and the default stream left active until a sync.
 */
#define COPYING(e, call) do { \
	struct bwcuda_state *st_; \
	CUres r_; \
	if (!on()) \
		return call; \
	st_ = bwcuda_global(); \
	bwcuda_copy_begin(st_); \
	bwcuda_launch_begin(st_, key(e, NULL)); \
	r_ = call; \
	bwcuda_launch_end(st_, key(e, NULL)); \
	bwcuda_copy_end(st_); \
	return r_; \
} while (0)

#define REAL(K, e) \
	typedef CUres (*fn_t)(PAR_##K); \
	fn_t real = (fn_t)resolve(e); \
	if (real == NULL) \
		return CU_ERROR_NOT_FOUND

static CUres
w_LAUNCH(struct entry *e, PAR_LAUNCH)
{
	REAL(LAUNCH, e);
	LAUNCHED(s, gs, real(f, gx, gy, gz, bx, by, bz, shm, gs, p, x));
}

static CUres
w_COOP(struct entry *e, PAR_COOP)
{
	REAL(COOP, e);
	LAUNCHED(s, gs, real(f, gx, gy, gz, bx, by, bz, shm, gs, p));
}

/* The configuration's copy with the stream the launch goes to. */
static const struct launch_config *
config_on(const struct launch_config *c, CUst stream,
    struct launch_config *copy)
{
	if (stream == c->stream)
		return c;
	*copy = *c;
	copy->stream = stream;
	return copy;
}

static CUres
w_LAUNCH_EX(struct entry *e, PAR_LAUNCH_EX)
{
	struct launch_config cc;

	REAL(LAUNCH_EX, e);
	if (c == NULL)
		return real(c, f, p, x);
	LAUNCHED(c->stream, gs, real(config_on(c, gs, &cc), f, p, x));
}

static CUres
w_GRAPH(struct entry *e, PAR_GRAPH)
{
	REAL(GRAPH, e);
	LAUNCHED(s, gs, real(g, gs));
}

static CUres
w_ASYNC4(struct entry *e, PAR_ASYNC4)
{
	REAL(ASYNC4, e);
	AROUND(key(e, s), real(d, src, n, s));
}

static CUres
w_ASYNC2(struct entry *e, PAR_ASYNC2)
{
	REAL(ASYNC2, e);
	AROUND(key(e, s), real(d, s));
}

/*
 * Copies that may return before the data has moved (host-to-device from
 * pageable memory is staged; device-to-device is asynchronous): hold
 * the lock for the call and leave the stream active until a sync.
 */
static CUres
w_COPY_IN(struct entry *e, PAR_COPY_IN)
{
	REAL(COPY_IN, e);
	COPYING(e, real(d, src, n));
}

static CUres
w_COPY_1(struct entry *e, PAR_COPY_1)
{
	REAL(COPY_1, e);
	COPYING(e, real(d));
}

/*
 * Device-to-host copies return when the data is on the host, so the
 * default stream they ran on has finished everything queued before.
 */
static CUres
w_COPY_OUT(struct entry *e, PAR_COPY_OUT)
{
	struct bwcuda_state *st;
	uint64_t snap;
	CUres r;
	REAL(COPY_OUT, e);

	if (!on())
		return real(d, src, n);
	st = bwcuda_global();
	bwcuda_copy_begin(st);
	snap = bwcuda_sync_begin(st);
	r = real(d, src, n);
	if (r == 0)
		bwcuda_stream_synced(st, key(e, NULL), snap);
	bwcuda_copy_end(st);
	return r;
}

static CUres
w_STREAM_SYNC(struct entry *e, PAR_STREAM_SYNC)
{
	REAL(STREAM_SYNC, e);
	SYNCED(0, key(e, s), real(s));
}

/* A successful query means the stream is idle: same as a sync. */
static CUres
w_STREAM_QUERY(struct entry *e, PAR_STREAM_QUERY)
{
	REAL(STREAM_QUERY, e);
	SYNCED(0, key(e, s), real(s));
}

static CUres
w_CTX_SYNC(struct entry *e, PAR_CTX_SYNC)
{
	REAL(CTX_SYNC, e);
	SYNCED(1, 0, real(ctx));
}

static CUres
w_EV_RECORD(struct entry *e, PAR_EV_RECORD)
{
	REAL(EV_RECORD, e);
	if (on())
		bwcuda_event_record(bwcuda_global(), (uintptr_t)ev, key(e, s));
	return real(ev, s);
}

static CUres
w_EV_RECORD_F(struct entry *e, PAR_EV_RECORD_F)
{
	REAL(EV_RECORD_F, e);
	if (on())
		bwcuda_event_record(bwcuda_global(), (uintptr_t)ev, key(e, s));
	return real(ev, s, fl);
}

/* The event's work is done (a sync, or a query that says so). */
static CUres
ev_done(CUev ev, CUres r)
{
	if (r == 0 && on())
		bwcuda_event_synced(bwcuda_global(), (uintptr_t)ev);
	return r;
}

static CUres
w_EV_SYNC(struct entry *e, PAR_EV_SYNC)
{
	REAL(EV_SYNC, e);
	return ev_done(ev, real(ev));
}

static CUres
w_EV_QUERY(struct entry *e, PAR_EV_QUERY)
{
	REAL(EV_QUERY, e);
	return ev_done(ev, real(ev));
}

static CUres
w_EV_DESTROY(struct entry *e, PAR_EV_DESTROY)
{
	REAL(EV_DESTROY, e);
	if (on())
		bwcuda_event_forget(bwcuda_global(), (uintptr_t)ev);
	return real(ev);
}

static CUres
w_STREAM_DESTROY(struct entry *e, PAR_STREAM_DESTROY)
{
	REAL(STREAM_DESTROY, e);
	/* forget first: the handle may be reused as soon as it is freed */
	if (on())
		bwcuda_stream_destroyed(bwcuda_global(), key(e, s));
	bwcuda_green_forget(s, e->ptds);
	return real(s);
}

static int debug(void);
static CUres gpa_common(void *real, int v2, const char *sym, void **pfn,
    int ver, uint64_t fl, int *status);

static CUres
w_GPA(struct entry *e, PAR_GPA)
{
	void *real = resolve(e);

	if (real == NULL)
		return CU_ERROR_NOT_FOUND;
	return gpa_common(real, 0, sym, pfn, ver, fl, NULL);
}

static CUres
w_GPA2(struct entry *e, PAR_GPA2)
{
	void *real = resolve(e);

	if (real == NULL)
		return CU_ERROR_NOT_FOUND;
	return gpa_common(real, 1, sym, pfn, ver, fl, status);
}

/* ---- direct exports ---------------------------------------------------- */

#define DIRECT(name, K, ptds) \
	static struct entry E_##name = { #name, ptds, NULL }; \
	EXPORT CUres name(PAR_##K); \
	CUres name(PAR_##K) { return w_##K(&E_##name ARG_##K); }

#define DIRECT_LIST(X) \
	X(cuLaunchKernel, LAUNCH, 0) \
	X(cuLaunchKernel_ptsz, LAUNCH, 1) \
	X(cuLaunchCooperativeKernel, COOP, 0) \
	X(cuLaunchCooperativeKernel_ptsz, COOP, 1) \
	X(cuLaunchKernelEx, LAUNCH_EX, 0) \
	X(cuLaunchKernelEx_ptsz, LAUNCH_EX, 1) \
	X(cuGraphLaunch, GRAPH, 0) \
	X(cuGraphLaunch_ptsz, GRAPH, 1) \
	X(cuMemcpyHtoDAsync, ASYNC4, 0) \
	X(cuMemcpyHtoDAsync_v2, ASYNC4, 0) \
	X(cuMemcpyHtoDAsync_v2_ptsz, ASYNC4, 1) \
	X(cuMemcpyDtoHAsync, ASYNC4, 0) \
	X(cuMemcpyDtoHAsync_v2, ASYNC4, 0) \
	X(cuMemcpyDtoHAsync_v2_ptsz, ASYNC4, 1) \
	X(cuMemcpyDtoDAsync, ASYNC4, 0) \
	X(cuMemcpyDtoDAsync_v2, ASYNC4, 0) \
	X(cuMemcpyDtoDAsync_v2_ptsz, ASYNC4, 1) \
	X(cuMemcpyAsync, ASYNC4, 0) \
	X(cuMemcpyAsync_ptsz, ASYNC4, 1) \
	X(cuMemcpy2DAsync, ASYNC2, 0) \
	X(cuMemcpy2DAsync_v2, ASYNC2, 0) \
	X(cuMemcpy2DAsync_v2_ptsz, ASYNC2, 1) \
	X(cuMemcpy3DAsync, ASYNC2, 0) \
	X(cuMemcpy3DAsync_v2, ASYNC2, 0) \
	X(cuMemcpy3DAsync_v2_ptsz, ASYNC2, 1) \
	X(cuMemcpyHtoD, COPY_IN, 0) \
	X(cuMemcpyHtoD_v2, COPY_IN, 0) \
	X(cuMemcpyHtoD_v2_ptds, COPY_IN, 1) \
	X(cuMemcpyDtoD, COPY_IN, 0) \
	X(cuMemcpyDtoD_v2, COPY_IN, 0) \
	X(cuMemcpyDtoD_v2_ptds, COPY_IN, 1) \
	X(cuMemcpy, COPY_IN, 0) \
	X(cuMemcpy_ptds, COPY_IN, 1) \
	X(cuMemcpyDtoH, COPY_OUT, 0) \
	X(cuMemcpyDtoH_v2, COPY_OUT, 0) \
	X(cuMemcpyDtoH_v2_ptds, COPY_OUT, 1) \
	X(cuMemcpy2D, COPY_1, 0) \
	X(cuMemcpy2D_v2, COPY_1, 0) \
	X(cuMemcpy2D_v2_ptds, COPY_1, 1) \
	X(cuMemcpy3D, COPY_1, 0) \
	X(cuMemcpy3D_v2, COPY_1, 0) \
	X(cuMemcpy3D_v2_ptds, COPY_1, 1) \
	X(cuStreamSynchronize, STREAM_SYNC, 0) \
	X(cuStreamSynchronize_ptsz, STREAM_SYNC, 1) \
	X(cuStreamQuery, STREAM_QUERY, 0) \
	X(cuStreamQuery_ptsz, STREAM_QUERY, 1) \
	X(cuCtxSynchronize, CTX_SYNC, 0) \
	X(cuCtxSynchronize_v2, CTX_SYNC, 0) \
	X(cuEventRecord, EV_RECORD, 0) \
	X(cuEventRecord_ptsz, EV_RECORD, 1) \
	X(cuEventRecordWithFlags, EV_RECORD_F, 0) \
	X(cuEventRecordWithFlags_ptsz, EV_RECORD_F, 1) \
	X(cuEventSynchronize, EV_SYNC, 0) \
	X(cuEventQuery, EV_QUERY, 0) \
	X(cuEventDestroy, EV_DESTROY, 0) \
	X(cuEventDestroy_v2, EV_DESTROY, 0) \
	X(cuStreamDestroy, STREAM_DESTROY, 0) \
	X(cuStreamDestroy_v2, STREAM_DESTROY, 0) \
	X(cuGetProcAddress, GPA, 0) \
	X(cuGetProcAddress_v2, GPA2, 0)

DIRECT_LIST(DIRECT)

/* ---- slots for pointers learnt at run time ---------------------------- */

typedef void (*anyfn)(void);

static struct entry slots[K_NKINDS][NSLOTS];

#define SLOT(K, i) \
	static CUres slot_##K##_##i(PAR_##K) \
	{ return w_##K(&slots[K_##K][i] ARG_##K); }
#define SLOTS(K) \
	SLOT(K, 0) SLOT(K, 1) SLOT(K, 2) SLOT(K, 3) SLOT(K, 4) SLOT(K, 5) \
	SLOT(K, 6) SLOT(K, 7) SLOT(K, 8) SLOT(K, 9) SLOT(K, 10) \
	SLOT(K, 11) SLOT(K, 12) SLOT(K, 13) SLOT(K, 14) SLOT(K, 15)
#define SLOTFN(K) { \
	(anyfn)slot_##K##_0, (anyfn)slot_##K##_1, (anyfn)slot_##K##_2, \
	(anyfn)slot_##K##_3, (anyfn)slot_##K##_4, (anyfn)slot_##K##_5, \
	(anyfn)slot_##K##_6, (anyfn)slot_##K##_7, (anyfn)slot_##K##_8, \
	(anyfn)slot_##K##_9, (anyfn)slot_##K##_10, (anyfn)slot_##K##_11, \
	(anyfn)slot_##K##_12, (anyfn)slot_##K##_13, (anyfn)slot_##K##_14, \
	(anyfn)slot_##K##_15 }

#define KINDS(X) X(LAUNCH) X(COOP) X(LAUNCH_EX) X(GRAPH) X(ASYNC4) \
	X(ASYNC2) X(COPY_IN) X(COPY_OUT) X(COPY_1) X(STREAM_SYNC) \
	X(STREAM_QUERY) X(CTX_SYNC) X(EV_RECORD) X(EV_RECORD_F) X(EV_SYNC) \
	X(EV_QUERY) X(EV_DESTROY) X(STREAM_DESTROY) X(GPA) X(GPA2)

KINDS(SLOTS)

#define SLOTFN_ROW(K) [K_##K] = SLOTFN(K),
static const anyfn slotfn[K_NKINDS][NSLOTS] = { KINDS(SLOTFN_ROW) };

static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

/* The wrapper bound to (real, ptds), binding a free slot if needed. */
static void *
slot_wrap(int kind, void *real, int ptds)
{
	struct entry *s = slots[kind];
	void *w = NULL;
	int i;

	pthread_mutex_lock(&slot_lock);
	for (i = 0; i < NSLOTS && s[i].real != NULL; i++) {
		if (s[i].real == real && s[i].ptds == ptds)
			break;
	}
	if (i < NSLOTS) {
		if (s[i].real == NULL) {
			s[i].ptds = ptds;
			__atomic_store_n(&s[i].real, real, __ATOMIC_RELEASE);
		}
		w = (void *)slotfn[kind][i];
	}
	pthread_mutex_unlock(&slot_lock);
	if (w == NULL) {
		static int warned;

		if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
			bwcuda_warn("out of interposer slots: some CUDA calls "
			    "are not instrumented");
		return real;
	}
	return w;
}

/* Base names (as cuGetProcAddress takes them) and their kinds. */
static const struct {
	const char	*name;
	int		 kind;
} bases[] = {
	{ "cuLaunchKernel", K_LAUNCH },
	{ "cuLaunchCooperativeKernel", K_COOP },
	{ "cuLaunchKernelEx", K_LAUNCH_EX },
	{ "cuGraphLaunch", K_GRAPH },
	{ "cuMemcpyHtoDAsync", K_ASYNC4 },
	{ "cuMemcpyDtoHAsync", K_ASYNC4 },
	{ "cuMemcpyDtoDAsync", K_ASYNC4 },
	{ "cuMemcpyAsync", K_ASYNC4 },
	{ "cuMemcpy2DAsync", K_ASYNC2 },
	{ "cuMemcpy3DAsync", K_ASYNC2 },
	{ "cuMemcpyHtoD", K_COPY_IN },
	{ "cuMemcpyDtoD", K_COPY_IN },
	{ "cuMemcpy", K_COPY_IN },
	{ "cuMemcpyDtoH", K_COPY_OUT },
	{ "cuMemcpy2D", K_COPY_1 },
	{ "cuMemcpy2DUnaligned", K_COPY_1 },
	{ "cuMemcpy3D", K_COPY_1 },
	{ "cuStreamSynchronize", K_STREAM_SYNC },
	{ "cuStreamQuery", K_STREAM_QUERY },
	{ "cuCtxSynchronize", K_CTX_SYNC },
	{ "cuEventRecord", K_EV_RECORD },
	{ "cuEventRecordWithFlags", K_EV_RECORD_F },
	{ "cuEventSynchronize", K_EV_SYNC },
	{ "cuEventQuery", K_EV_QUERY },
	{ "cuEventDestroy", K_EV_DESTROY },
	{ "cuStreamDestroy", K_STREAM_DESTROY },
};

/*
 * Kind of a symbol name, with or without a _v2/_v3 and _ptsz/_ptds
 * suffix; *ptds is set when the suffix names the per-thread variant.
 * Returns -1 for names we do not instrument.
 */
static int
name_kind(const char *sym, int *ptds)
{
	char base[64];
	size_t n, i;

	if (sym == NULL || strncmp(sym, "cu", 2) != 0 ||
	    (n = strlen(sym)) >= sizeof(base))
		return -1;
	memcpy(base, sym, n + 1);
	if (n > 5 && (strcmp(base + n - 5, "_ptsz") == 0 ||
	    strcmp(base + n - 5, "_ptds") == 0)) {
		*ptds = 1;
		base[n -= 5] = '\0';
	}
	if (n > 3 && base[n - 3] == '_' && base[n - 2] == 'v' &&
	    base[n - 1] >= '2' && base[n - 1] <= '9')
		base[n -= 3] = '\0';
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if (strcmp(bases[i].name, base) == 0)
			return bases[i].kind;
	}
	return -1;
}

/* Wrap a pointer found for sym (by dlsym); sym is the exact name. */
static void *
wrap_symbol(const char *sym, void *p)
{
	int ptds = 0, kind;

	if (p == NULL || is_ours(p))
		return p;
	if (strcmp(sym, "cuGetProcAddress") == 0 ||
	    strcmp(sym, "cuGetProcAddress_v2") == 0) {
		if (debug())
			bwcuda_warn("dlsym(%s): wrapped", sym);
		return slot_wrap(sym[16] == '\0' ? K_GPA : K_GPA2, p, 0);
	}
	if ((kind = name_kind(sym, &ptds)) < 0)
		return p;
	if (debug())
		bwcuda_warn("dlsym(%s): wrapped", sym);
	return slot_wrap(kind, p, ptds);
}

/* $BWSCHED_CUDA_DEBUG: report every pointer handed back wrapped. */
static int
debug(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("BWSCHED_CUDA_DEBUG") != NULL;
	return on;
}

static CUres
gpa_common(void *real, int v2, const char *sym, void **pfn, int ver,
    uint64_t fl, int *status)
{
	int ptds = 0, kind;
	CUres r;

	if (v2)
		r = ((CUres (*)(PAR_GPA2))real)(sym, pfn, ver, fl, status);
	else
		r = ((CUres (*)(PAR_GPA))real)(sym, pfn, ver, fl);
	if (r != 0 || pfn == NULL || *pfn == NULL || is_ours(*pfn))
		return r;
	if (sym != NULL && strcmp(sym, "cuGetProcAddress") == 0) {
		/* the _v2 signature (with status) from CUDA 12.0 on */
		*pfn = slot_wrap(ver >= 12000 ? K_GPA2 : K_GPA, *pfn, 0);
	} else if ((kind = name_kind(sym, &ptds)) >= 0) {
		if (fl & GPA_PER_THREAD)
			ptds = 1;
		*pfn = slot_wrap(kind, *pfn, ptds);
	} else {
		return r;
	}
	if (debug())
		bwcuda_warn("cuGetProcAddress%s(%s, %d, %#llx): wrapped",
		    v2 ? "_v2" : "", sym, ver, (unsigned long long)fl);
	return r;
}

/* ---- dlsym ------------------------------------------------------------ */

/*
 * dlsym(RTLD_NEXT, ...) searches after the object that called dlsym,
 * found from the return address.  So for RTLD_NEXT our dlsym must jump
 * to libc's with the caller's return address in place: a few
 * instructions of assembly on x86-64 and aarch64.  Sanitizer runtimes
 * depend on this (they look up the functions they intercept that way,
 * before their shadow memory exists).  Elsewhere RTLD_NEXT is looked up
 * after this library, which is right for callers loaded before it.
 * RTLD_NEXT results are never wrapped.
 */
BWCUDA_HIDDEN BWCUDA_NO_SANITIZE void *bwcuda_dlsym_c(void *, const char *);
BWCUDA_HIDDEN BWCUDA_NO_SANITIZE void *bwcuda_dlsym_next(void);

void *
bwcuda_dlsym_next(void)
{
	return bwcuda_real_dlsym_fn();
}

void *
bwcuda_dlsym_c(void *handle, const char *name)
{
	void *p = bwcuda_real_dlsym(handle, name);

	if (handle == RTLD_NEXT || p == NULL || name[0] != 'c' ||
	    name[1] != 'u')
		return p;
	return wrap_symbol(name, p);
}

#if defined(__x86_64__)
__asm__(
	"	.text\n"
	"	.globl	dlsym\n"
	"	.type	dlsym, @function\n"
	"dlsym:\n"
	"	.cfi_startproc\n"
	"	endbr64\n"
	"	cmpq	$-1, %rdi\n"
	"	jne	bwcuda_dlsym_c\n"
	"	pushq	%rdi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq	%rsi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	subq	$8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	call	bwcuda_dlsym_next\n"
	"	addq	$8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq	%rsi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq	%rdi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	jmp	*%rax\n"
	"	.cfi_endproc\n"
	"	.size	dlsym, .-dlsym\n");
#elif defined(__aarch64__)
__asm__(
	"	.text\n"
	"	.globl	dlsym\n"
	"	.type	dlsym, %function\n"
	"dlsym:\n"
	"	.cfi_startproc\n"
	"	cmn	x0, #1\n"
	"	b.ne	bwcuda_dlsym_c\n"
	"	stp	x29, x30, [sp, #-32]!\n"
	"	.cfi_def_cfa_offset 32\n"
	"	.cfi_offset 29, -32\n"
	"	.cfi_offset 30, -24\n"
	"	mov	x29, sp\n"
	"	stp	x0, x1, [sp, #16]\n"
	"	bl	bwcuda_dlsym_next\n"
	"	mov	x16, x0\n"
	"	ldp	x0, x1, [sp, #16]\n"
	"	ldp	x29, x30, [sp], #32\n"
	"	.cfi_def_cfa_offset 0\n"
	"	br	x16\n"
	"	.cfi_endproc\n"
	"	.size	dlsym, .-dlsym\n");
#else
EXPORT void *dlsym(void *handle, const char *name);

BWCUDA_NO_SANITIZE void *
dlsym(void *handle, const char *name)
{
	return bwcuda_dlsym_c(handle, name);
}
#endif

/* Whether this library is in the global scope ahead of libc (preloaded). */
int
bwcuda_interpose_loaded(void)
{
	void *p = bwcuda_real_dlsym(RTLD_DEFAULT, "dlsym");

	return p != NULL && is_ours(p);
}
