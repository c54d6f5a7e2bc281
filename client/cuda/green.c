/*
 * green.c - GPU spatial partitioning with CUDA green contexts (green.h,
 * doc/partition.md).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "green.h"
#include "sink.h"

typedef int CUres;

#define GREEN_MAX_GROUPS	256	/* groups of one split */
#define GREEN_MAX_STREAMS	128	/* application streams redirected */
#define GREEN_MAX_CTX		16	/* contexts kept: one per plan move */
#define CU_DEV_RESOURCE_TYPE_SM		1
#define CU_GREEN_CTX_DEFAULT_STREAM	0x1
#define CU_STREAM_NON_BLOCKING		0x1
#define CU_EVENT_DISABLE_TIMING		0x2
#define CU_STREAM_PER_THREAD		((void *)0x2)

/* The driver entry points, from its cuGetProcAddress. */
struct green_fns {
	CUres	(*ctx_get_device)(int *);
	CUres	(*device_get)(int *, int);
	CUres	(*get_resource)(int, struct bwcuda_dev_resource *, int);
	CUres	(*split)(struct bwcuda_dev_resource *, unsigned *,
		    const struct bwcuda_dev_resource *,
		    struct bwcuda_dev_resource *, unsigned, unsigned);
	CUres	(*gen_desc)(void **, struct bwcuda_dev_resource *, unsigned);
	CUres	(*ctx_create)(void **, void *, int, unsigned);
	CUres	(*stream_create)(void **, void *, unsigned, int);
	CUres	(*event_create)(void **, unsigned);
	CUres	(*event_record)(void *, void *);
	CUres	(*stream_wait)(void *, void *, unsigned);
	CUres	(*stream_destroy)(void *);
	CUres	(*event_destroy)(void *);
};

/* An application stream and the green stream its launches go to. */
struct green_map {
	uint64_t	key;		/* bwcuda_stream_key; 0: free */
	void		*green;
	void		*ev_in;		/* recorded on the application's */
	void		*ev_out;	/* recorded on the green stream */
	unsigned	ctx;		/* index in ctx[] */
};

static struct {
	/*
	 * Recursive: held across a launch, inside which the CUPTI callback
	 * asks bwcuda_green_key() which stream the launch belongs to.
	 */
	pthread_mutex_t		mu;
	int			state;		/* 0 untried, 1 ok, -1 off */
	struct green_fns	f;
	int			dev;
	/* the green context of the current range */
	void			*ctx[GREEN_MAX_CTX];
	unsigned		nctx;
	int			cur;		/* index, -1: none */
	uint32_t		first, sms;	/* its range */
	uint64_t		plan;		/* the plan it was made for */
	int			failed;		/* for this plan: unpartitioned */
	struct green_map	map[GREEN_MAX_STREAMS];
} G = { .mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .cur = -1 };

/* ---- entry points ---- */

typedef CUres (*gpa_fn)(const char *, void **, int, uint64_t, int *);

static void *
green_sym(gpa_fn gpa, const char *name, int ver)
{
	void	*p = NULL;
	int	 st = 0;

	if (gpa(name, &p, ver, 0, &st) != 0 || st != 0)
		return NULL;
	return p;
}

/* Resolve once; G.mu held.  0, or -1 with the reason reported once. */
static int
green_resolve(void)
{
	void	*h = bwcuda_driver_handle();
	gpa_fn	 gpa = h ? (gpa_fn)bwcuda_real_dlsym(h, "cuGetProcAddress_v2") :
		    NULL;

	if (G.state != 0)
		return G.state > 0 ? 0 : -1;
	G.state = -1;
	if (gpa == NULL) {
		bwcuda_warn("no CUDA driver with cuGetProcAddress_v2: GPU "
		    "work runs unpartitioned");
		return -1;
	}
#define SYM(field, name, ver) \
	(*(void **)&G.f.field = green_sym(gpa, name, ver)) != NULL
	if (!(SYM(ctx_get_device, "cuCtxGetDevice", 2000) &&
	    SYM(device_get, "cuDeviceGet", 2000) &&
	    SYM(event_create, "cuEventCreate", 2000) &&
	    SYM(event_record, "cuEventRecord", 2000) &&
	    SYM(stream_wait, "cuStreamWaitEvent", 3020) &&
	    SYM(stream_destroy, "cuStreamDestroy", 4000) &&
	    SYM(event_destroy, "cuEventDestroy", 4000))) {
		bwcuda_warn("the CUDA driver lacks basic entry points: GPU "
		    "work runs unpartitioned");
		return -1;
	}
	if (!(SYM(get_resource, "cuDeviceGetDevResource", 12040) &&
	    SYM(split, "cuDevSmResourceSplitByCount", 12040) &&
	    SYM(gen_desc, "cuDevResourceGenerateDesc", 12040) &&
	    SYM(ctx_create, "cuGreenCtxCreate", 12040) &&
	    SYM(stream_create, "cuGreenCtxStreamCreate", 12050))) {
		bwcuda_warn("the CUDA driver has no green contexts (CUDA 12.5 "
		    "or later needed): GPU work runs unpartitioned");
		return -1;
	}
#undef SYM
	G.state = 1;
	return 0;
}

/* The device of the current context, else device 0. */
static int
green_dev(int *dev)
{
	if (G.f.ctx_get_device(dev) == 0)
		return 0;
	return G.f.device_get(dev, 0);
}

/* ---- splitting the device ---- */

/*
 * Split the device's SMs into groups of at least min SMs: the number of
 * groups, or 0 after a report.
 */
static unsigned
green_split(unsigned min, struct bwcuda_dev_resource *groups,
    struct bwcuda_dev_resource *all)
{
	struct bwcuda_dev_resource	rest;
	unsigned			n = GREEN_MAX_GROUPS;
	CUres				r;

	memset(groups, 0, GREEN_MAX_GROUPS * sizeof(*groups));
	if ((r = G.f.get_resource(G.dev, all, CU_DEV_RESOURCE_TYPE_SM)) !=
	    0 || (r = G.f.split(groups, &n, all, &rest, 0, min)) != 0) {
		bwcuda_warn("splitting the device's SMs failed (CUDA error "
		    "%d): GPU work runs unpartitioned", r);
		return 0;
	}
	return n;
}

int
bwcuda_green_device(uint32_t *sms, uint32_t *granule)
{
	static struct bwcuda_dev_resource	groups[GREEN_MAX_GROUPS];
	struct bwcuda_dev_resource		all;
	unsigned				n;
	int					rc = -1;

	pthread_mutex_lock(&G.mu);
	if (green_resolve() == 0 && green_dev(&G.dev) == 0 &&
	    G.f.get_resource(G.dev, &all, CU_DEV_RESOURCE_TYPE_SM) == 0 &&
	    (n = green_split(all.u.sm.minSmPartitionSize, groups, &all)) > 0) {
		/* whole groups only: the remainder has no guarantees */
		*granule = groups[0].u.sm.smCount;
		*sms = n * *granule;
		rc = 0;
	}
	pthread_mutex_unlock(&G.mu);
	return rc;
}

/*
 * A green context on SMs [first, first + sms): the groups of a split at
 * the plan's granule that cover them.  Reports the SMs granted.  G.mu
 * held; 0 or -1 (reported).
 */
static int
green_make(const struct bwcuda_partition *p)
{
	static struct bwcuda_dev_resource	groups[GREEN_MAX_GROUPS];
	struct bwcuda_dev_resource		all;
	struct bwcuda_state			*st = bwcuda_global();
	void					*desc, *ctx;
	unsigned				n, g0, ng, i, granted = 0;
	CUres					r;

	if (G.nctx == GREEN_MAX_CTX) {
		bwcuda_warn("the plan moved this task %d times: GPU work "
		    "runs unpartitioned", GREEN_MAX_CTX);
		return -1;
	}
	if (green_dev(&G.dev) != 0 || p->granule == 0 ||
	    (n = green_split(p->granule, groups, &all)) == 0)
		return -1;
	g0 = p->sm_first / p->granule;
	ng = p->sms / p->granule;
	if (ng == 0 || g0 + ng > n) {
		bwcuda_warn("the plan's SMs %u-%u are beyond the %u groups of "
		    "%u this device splits into: GPU work runs unpartitioned",
		    p->sm_first, p->sm_first + p->sms - 1, n, p->granule);
		return -1;
	}
	for (i = g0; i < g0 + ng; i++)
		granted += groups[i].u.sm.smCount;
	if ((r = G.f.gen_desc(&desc, &groups[g0], ng)) != 0 ||
	    (r = G.f.ctx_create(&ctx, desc, G.dev,
	    CU_GREEN_CTX_DEFAULT_STREAM)) != 0) {
		bwcuda_warn("creating the green context failed (CUDA error "
		    "%d): GPU work runs unpartitioned", r);
		return -1;
	}
	G.ctx[G.nctx] = ctx;
	G.cur = (int)G.nctx++;
	G.first = p->sm_first;
	G.sms = p->sms;
	if (st->sink.ops->granted != NULL)
		st->sink.ops->granted(st->sink.ctx, granted);
	if (granted != p->sms)
		bwcuda_warn("the driver gave %u SMs for the %u planned; the "
		    "daemon checks the plan again", granted, p->sms);
	return 0;
}

/* The green context for the plan in force; 0, or -1: unpartitioned. */
static int
green_ctx(const struct bwcuda_partition *p)
{
	if (p->plan == G.plan && (G.cur >= 0 || G.failed))
		return G.failed ? -1 : 0;
	G.plan = p->plan;
	if (G.cur >= 0 && p->sm_first == G.first && p->sms == G.sms)
		return 0;		/* the plan changed, not our SMs */
	G.failed = green_make(p) != 0;
	return G.failed ? -1 : 0;
}

/* ---- streams ---- */

static struct green_map *
green_find(uint64_t key)
{
	unsigned	i;

	for (i = 0; i < GREEN_MAX_STREAMS; i++)
		if (G.map[i].key == key)
			return &G.map[i];
	return NULL;
}

/* The map of key on the current context, made if needed; or NULL. */
static struct green_map *
green_stream(uint64_t key)
{
	struct green_map	*m = green_find(key);
	static int		 warned;

	if (m != NULL && m->ctx == (unsigned)G.cur)
		return m;
	if (m == NULL && (m = green_find(0)) == NULL) {
		if (!warned++)
			bwcuda_warn("more than %d streams launch kernels: the "
			    "others run unpartitioned", GREEN_MAX_STREAMS);
		return NULL;
	}
	/* a stream of an older context keeps its work; a new one is made */
	memset(m, 0, sizeof(*m));
	if (G.f.stream_create(&m->green, G.ctx[G.cur],
	    CU_STREAM_NON_BLOCKING, 0) != 0 ||
	    G.f.event_create(&m->ev_in, CU_EVENT_DISABLE_TIMING) != 0 ||
	    G.f.event_create(&m->ev_out, CU_EVENT_DISABLE_TIMING) != 0) {
		bwcuda_warn("creating a green stream failed: this stream runs "
		    "unpartitioned");
		memset(m, 0, sizeof(*m));
		return NULL;
	}
	m->key = key;
	m->ctx = (unsigned)G.cur;
	return m;
}

/* The handle the driver takes for the application's stream. */
static void *
green_handle(void *stream, int ptds)
{
	return stream == NULL && ptds ? CU_STREAM_PER_THREAD : stream;
}

void *
bwcuda_green_begin(void *stream, int ptds)
{
	struct bwcuda_state	*st = bwcuda_global();
	struct bwcuda_partition	 p;
	struct green_map	*m;

	if (__atomic_load_n(&G.state, __ATOMIC_RELAXED) < 0 ||
	    st->sink.ops->partition == NULL ||
	    st->sink.ops->partition(st->sink.ctx, &p) != 0)
		return stream;
	pthread_mutex_lock(&G.mu);
	if (green_resolve() != 0 || green_ctx(&p) != 0 ||
	    (m = green_stream(bwcuda_stream_key((uintptr_t)stream,
	    ptds))) == NULL) {
		pthread_mutex_unlock(&G.mu);
		return stream;
	}
	/* the green stream waits for what the application queued before */
	G.f.event_record(m->ev_in, green_handle(stream, ptds));
	G.f.stream_wait(m->green, m->ev_in, 0);
	return m->green;	/* G.mu stays held until bwcuda_green_end */
}

void
bwcuda_green_end(void *stream, int ptds, void *used)
{
	struct green_map	*m;

	if (used == stream)
		return;
	/* what the application queues next waits for the launch */
	m = green_find(bwcuda_stream_key((uintptr_t)stream, ptds));
	if (m != NULL) {
		G.f.event_record(m->ev_out, m->green);
		G.f.stream_wait(green_handle(stream, ptds), m->ev_out, 0);
	}
	pthread_mutex_unlock(&G.mu);
}

uint64_t
bwcuda_green_key(uint64_t handle, int ptds)
{
	unsigned	i;
	uint64_t	key = 0;

	if (__atomic_load_n(&G.state, __ATOMIC_RELAXED) <= 0 || handle == 0)
		return bwcuda_stream_key(handle, ptds);
	pthread_mutex_lock(&G.mu);
	for (i = 0; i < GREEN_MAX_STREAMS && key == 0; i++)
		if (G.map[i].key != 0 &&
		    (uintptr_t)G.map[i].green == handle)
			key = G.map[i].key;
	pthread_mutex_unlock(&G.mu);
	return key != 0 ? key : bwcuda_stream_key(handle, ptds);
}

void
bwcuda_green_forget(void *stream, int ptds)
{
	struct green_map	*m;

	if (__atomic_load_n(&G.state, __ATOMIC_RELAXED) <= 0)
		return;
	pthread_mutex_lock(&G.mu);
	m = green_find(bwcuda_stream_key((uintptr_t)stream, ptds));
	if (m != NULL) {
		/* its work stays queued: the driver frees it when done */
		G.f.stream_destroy(m->green);
		G.f.event_destroy(m->ev_in);
		G.f.event_destroy(m->ev_out);
		memset(m, 0, sizeof(*m));
	}
	pthread_mutex_unlock(&G.mu);
}
