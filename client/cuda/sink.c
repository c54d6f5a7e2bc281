/*
 * sink.c - the sinks behind the state machine and the process-wide state
 * (see sink.h).  Also the few functions bwprogress.cuh finds at run time
 * with dlsym, so applications need not link anything.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bwsched/bwclient.h>
#include <bwsched/bwshm.h>

#include "gpuclock.h"
#include "green.h"
#include "sink.h"

#define BWCUDA_EXPORT	__attribute__((visibility("default")))
#define MAX_PROFILES	64

void
bwcuda_warn(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "bwsched: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	/* one write: lines from several threads do not interleave */
	if (write(2, buf, (size_t)n) < 0)
		return;
}

/* Profile names: the basename of each KERNEL.bwk in $BWSCHED_PROFILES. */
struct profiles {
	int	 n;
	char	*name[MAX_PROFILES];
	char	*path[MAX_PROFILES];
	int	 id[MAX_PROFILES];
};

static void
profiles_parse(struct profiles *p)
{
	const char *env = getenv("BWSCHED_PROFILES");
	char *list, *tok, *save, *base, *dot;

	p->n = 0;
	if (env == NULL || (list = strdup(env)) == NULL)
		return;
	for (tok = strtok_r(list, ":", &save); tok != NULL;
	    tok = strtok_r(NULL, ":", &save)) {
		if (p->n == MAX_PROFILES) {
			bwcuda_warn("more than %d profiles, ignoring %s",
			    MAX_PROFILES, tok);
			continue;
		}
		base = strrchr(tok, '/');
		base = strdup(base != NULL ? base + 1 : tok);
		if (base == NULL)
			break;
		if ((dot = strrchr(base, '.')) != NULL && dot != base)
			*dot = '\0';
		p->path[p->n] = strdup(tok);
		p->name[p->n] = base;
		p->id[p->n] = p->n;
		p->n++;
	}
	free(list);
}

static int
profiles_find(const struct profiles *p, const char *name)
{
	int i;

	if (name == NULL)
		return -EINVAL;
	for (i = 0; i < p->n; i++) {
		if (p->id[i] >= 0 && strcmp(p->name[i], name) == 0)
			return p->id[i];
	}
	return -ENOENT;
}

/*
 * $BWSCHED_GPU: the task's GPU demand (doc/partition.md), as
 * "a_ns=N,class=ci|mi[,b_ns=N][,k=X][,deadline_ns=N]".  1 with *g set,
 * 0 when unset, -1 (reported) when malformed.
 */
static int
gpu_from_env(struct bwc_gpu_demand *g)
{
	const char *env = getenv("BWSCHED_GPU");
	char *list, *tok, *save, *end, *eq;
	int ok = 1, have_a = 0, have_c = 0;

	memset(g, 0, sizeof(*g));
	if (env == NULL || *env == '\0')
		return 0;
	if ((list = strdup(env)) == NULL)
		return -1;
	for (tok = strtok_r(list, ",", &save); tok != NULL && ok;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((eq = strchr(tok, '=')) == NULL) {
			ok = 0;
			break;
		}
		*eq++ = '\0';
		errno = 0;
		if (strcmp(tok, "class") == 0) {
			g->memory = strcmp(eq, "mi") == 0;
			ok = g->memory || strcmp(eq, "ci") == 0;
			have_c = 1;
		} else if (strcmp(tok, "k") == 0) {
			g->k = strtod(eq, &end);
			ok = *end == '\0' && end != eq;
		} else {
			uint64_t v = strtoull(eq, &end, 10);

			ok = *end == '\0' && end != eq && errno == 0 &&
			    *eq != '-';
			if (strcmp(tok, "a_ns") == 0)
				g->a_ns = v, have_a = 1;
			else if (strcmp(tok, "b_ns") == 0)
				g->b_ns = v, g->b_set = 1;
			else if (strcmp(tok, "deadline_ns") == 0)
				g->deadline_ns = v;
			else
				ok = 0;
		}
	}
	free(list);
	if (!ok || !have_a || !have_c) {
		bwcuda_warn("bad BWSCHED_GPU=%s (a_ns=N,class=ci|mi[,b_ns=N]"
		    "[,k=X][,deadline_ns=N]): no GPU demand", env);
		return -1;
	}
	return 1;
}

/* ---- none ---------------------------------------------------------- */

static int none_key(void *c, uint64_t k) { (void)c; (void)k; return 0; }
static int none_void(void *c) { (void)c; return 0; }
static int none_slot(void *c, int s) { (void)c; (void)s; return 0; }
static int none_launch(void *c, int k, uint64_t key, uint64_t **bm)
{
	(void)c; (void)k; (void)key;
	*bm = NULL;
	return -ENOTCONN;
}
static int none_kid(void *c, const char *n)
{ (void)c; (void)n; return -ENOTCONN; }
static void *none_page(void *c, size_t *sz) { (void)c; *sz = 0; return NULL; }
static void *none_client(void *c) { (void)c; return NULL; }

static const struct bwcuda_sink_ops none_ops = {
	"none", none_key, none_key, none_key, none_void, none_void, none_void,
	none_launch, none_slot, none_kid, none_page, none_client, NULL, NULL,
	NULL,
};

void
bwcuda_sink_none(struct bwcuda_sink *s)
{
	s->ops = &none_ops;
	s->ctx = NULL;
}

/* ---- record -------------------------------------------------------- */

#define REC_SLOTS	16
#define REC_BLOCKS	1024

#define REC_KEYS	512

struct rec {
	int		 fd;
	unsigned	 nactive;
	uint64_t	 keys[REC_KEYS];	/* the daemon's active set */
	unsigned	 depth;
	int		 locked;
	uint64_t	 slots_used;
	uint64_t	 events;
	struct profiles	 prof;
	uint64_t	 page[BWSHM_PROGRESS_SIZE(REC_SLOTS, REC_BLOCKS) / 8];
};

static void	rec_line(struct rec *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static void
rec_line(struct rec *r, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n, held;

	r->events++;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	buf[n++] = '\n';
	if (r->fd >= 0 && write(r->fd, buf, (size_t)n) < 0)
		return;
	held = r->nactive > 0 || r->depth > 0;
	if (held != r->locked) {
		r->locked = held;
		if (r->fd >= 0 && write(r->fd, held ? "LOCK\n" : "UNLOCK\n",
		    held ? 5 : 7) < 0)
			return;
	}
}

/* Add (on) or remove a key from the active set, as the task page does. */
static void
rec_key(struct rec *r, uint64_t k, int on)
{
	unsigned i;

	for (i = 0; i < r->nactive; i++) {
		if (r->keys[i] == k)
			break;
	}
	if (on && i == r->nactive && r->nactive < REC_KEYS)
		r->keys[r->nactive++] = k;
	else if (!on && i < r->nactive)
		r->keys[i] = r->keys[--r->nactive];
}

static int
rec_active(void *c, uint64_t k)
{
	rec_key(c, k, 1);
	rec_line(c, "active %#llx", (unsigned long long)k);
	return 0;
}

static int
rec_sync(void *c, uint64_t k)
{
	rec_key(c, k, 0);
	rec_line(c, "sync %#llx", (unsigned long long)k);
	return 0;
}

static int
rec_forget(void *c, uint64_t k)
{
	rec_key(c, k, 0);
	rec_line(c, "forget %#llx", (unsigned long long)k);
	return 0;
}

static int
rec_device(void *c)
{
	rec_line(c, "device_sync");
	return 0;
}

static int
rec_mbegin(void *c)
{
	struct rec *r = c;

	r->depth++;
	rec_line(r, "memcpy_begin");
	return 0;
}

static int
rec_mend(void *c)
{
	struct rec *r = c;

	r->depth--;
	rec_line(r, "memcpy_end");
	return 0;
}

static int
rec_launch(void *c, int kernel, uint64_t key, uint64_t **bm)
{
	struct rec *r = c;
	int slot;

	for (slot = 0; slot < REC_SLOTS; slot++) {
		if (!(r->slots_used & (1ull << slot)))
			break;
	}
	if (slot == REC_SLOTS) {
		*bm = NULL;
		return -ENOSPC;
	}
	r->slots_used |= 1ull << slot;
	*bm = (uint64_t *)(void *)((char *)r->page + BWSHM_PROGRESS_HDR_SIZE +
	    (size_t)slot * BWSHM_SLOT_SIZE(REC_BLOCKS) + BWSHM_LAUNCH_HDR_SIZE);
	/* like bwc_launch: the launch marks its stream active */
	rec_key(r, key, 1);
	rec_line(r, "launch %d %#llx %d", kernel, (unsigned long long)key,
	    slot);
	return slot;
}

static int
rec_done(void *c, int slot)
{
	struct rec *r = c;

	r->slots_used &= ~(1ull << slot);
	rec_line(r, "launch_done %d", slot);
	return 0;
}

static int
rec_kid(void *c, const char *name)
{
	return profiles_find(&((struct rec *)c)->prof, name);
}

static void *
rec_page(void *c, size_t *sz)
{
	*sz = sizeof(((struct rec *)c)->page);
	return ((struct rec *)c)->page;
}

/*
 * The partition from $BWSCHED_CUDA_PARTITION_FILE, "PLAN FIRST SMS
 * GRANULE", read at every call so a test can move the task.
 */
static int
rec_partition(void *c, struct bwcuda_partition *p)
{
	const char *path = getenv("BWSCHED_CUDA_PARTITION_FILE");
	unsigned long long plan;
	unsigned first, sms, granule;
	FILE *f;
	int n;

	(void)c;
	if (path == NULL || (f = fopen(path, "r")) == NULL)
		return -ENOENT;
	n = fscanf(f, "%llu %u %u %u", &plan, &first, &sms, &granule);
	fclose(f);
	if (n != 4)
		return -ENOENT;
	p->plan = plan;
	p->sm_first = first;
	p->sms = sms;
	p->granule = granule;
	return 0;
}

static int
rec_granted(void *c, uint32_t sms)
{
	rec_line(c, "gpu_granted %u", sms);
	return 1;
}

static const struct bwcuda_sink_ops rec_ops = {
	"record", rec_active, rec_sync, rec_forget, rec_device, rec_mbegin,
	rec_mend, rec_launch, rec_done, rec_kid, rec_page, none_client, NULL,
	rec_partition, rec_granted,
};

/* What the bwclient sink would tell the daemon, as lines. */
static void
rec_gpu(struct rec *r)
{
	struct bwc_gpu_demand g;
	uint32_t sms, granule;

	if (gpu_from_env(&g) == 1)
		rec_line(r, "gpu_demand a_ns=%llu class=%s",
		    (unsigned long long)g.a_ns, g.memory ? "mi" : "ci");
	if (getenv("BWSCHED_CUDA_PARTITION_FILE") != NULL &&
	    bwcuda_green_device(&sms, &granule) == 0)
		rec_line(r, "gpu_device %u %u", sms, granule);
}

void
bwcuda_sink_record(struct bwcuda_sink *s, int fd)
{
	struct rec *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		bwcuda_sink_none(s);
		return;
	}
	r->fd = fd;
	profiles_parse(&r->prof);
	s->ops = &rec_ops;
	s->ctx = r;
	rec_gpu(r);
}

/* ---- libbwclient ----------------------------------------------------- */

struct bwcl {
	bwc_t		*c;
	struct profiles	 prof;
	__typeof__(bwc_open)			*open;
	__typeof__(bwc_strerror)		*strerror;
	__typeof__(bwc_task_register)		*task_register;
	__typeof__(bwc_kernel_register_file)	*kernel_register_file;
	__typeof__(bwc_launch)			*launch;
	__typeof__(bwc_launch_done)		*launch_done;
	__typeof__(bwc_stream_active)		*stream_active;
	__typeof__(bwc_stream_sync)		*stream_sync;
	__typeof__(bwc_stream_forget)		*stream_forget;
	__typeof__(bwc_device_sync)		*device_sync;
	__typeof__(bwc_memcpy_begin)		*memcpy_begin;
	__typeof__(bwc_memcpy_end)		*memcpy_end;
	__typeof__(bwc_progress_page)		*progress_page;
	/* GPU partitioning: optional, older libraries lack them */
	__typeof__(bwc_task_register_gpu)	*task_register_gpu;
	__typeof__(bwc_partition)		*partition;
	__typeof__(bwc_gpu_device)		*gpu_device;
	__typeof__(bwc_gpu_granted)		*gpu_granted;
};

static int cl_active(void *c, uint64_t k)
{ struct bwcl *b = c; return b->stream_active(b->c, k); }
static int cl_sync(void *c, uint64_t k)
{ struct bwcl *b = c; return b->stream_sync(b->c, k); }
static int cl_forget(void *c, uint64_t k)
{ struct bwcl *b = c; return b->stream_forget(b->c, k); }
static int cl_device(void *c)
{ struct bwcl *b = c; return b->device_sync(b->c); }
static int cl_mbegin(void *c)
{ struct bwcl *b = c; return b->memcpy_begin(b->c); }
static int cl_mend(void *c)
{ struct bwcl *b = c; return b->memcpy_end(b->c); }
static int cl_launch(void *c, int k, uint64_t key, uint64_t **bm)
{ struct bwcl *b = c; return b->launch(b->c, k, key, bm); }
static int cl_done(void *c, int slot)
{ struct bwcl *b = c; return b->launch_done(b->c, slot); }
static int cl_kid(void *c, const char *n)
{ return profiles_find(&((struct bwcl *)c)->prof, n); }
static void *cl_page(void *c, size_t *sz)
{ struct bwcl *b = c; return b->progress_page(b->c, sz); }
static void *cl_client(void *c)
{ return ((struct bwcl *)c)->c; }

static int
cl_partition(void *c, struct bwcuda_partition *p)
{
	struct bwcl *b = c;
	struct bwc_partition bp;
	int rc;

	if (b->partition == NULL)
		return -ENOSYS;
	if ((rc = b->partition(b->c, &bp)) < 0)
		return rc;
	p->plan = bp.plan;
	p->sm_first = bp.sm_first;
	p->sms = bp.sms;
	p->granule = bp.granule;
	return 0;
}

static int
cl_granted(void *c, uint32_t sms)
{
	struct bwcl *b = c;
	int rc;

	if (b->gpu_granted == NULL)
		return -ENOSYS;
	if ((rc = b->gpu_granted(b->c, sms)) == 0)
		bwcuda_warn("with the %u SMs the driver granted the daemon's "
		    "plan no longer holds (see bwctl partitions)", sms);
	return rc;
}

static const struct bwcuda_sink_ops cl_ops = {
	"bwclient", cl_active, cl_sync, cl_forget, cl_device, cl_mbegin,
	cl_mend, cl_launch, cl_done, cl_kid, cl_page, cl_client, NULL,
	cl_partition, cl_granted,
};

static void *
cl_library(void)
{
	const char *env = getenv("BWSCHED_BWCLIENT_LIB");
	void *h;

	if (bwcuda_real_dlsym(RTLD_DEFAULT, "bwc_open") != NULL)
		return RTLD_DEFAULT;	/* the application links it */
	if (env != NULL && *env != '\0')
		return dlopen(env, RTLD_NOW | RTLD_GLOBAL);
	if ((h = dlopen("libbwclient.so.0", RTLD_NOW | RTLD_GLOBAL)) != NULL)
		return h;
#ifdef BWCUDA_LIBDIR
	return dlopen(BWCUDA_LIBDIR "/libbwclient.so.0",
	    RTLD_NOW | RTLD_GLOBAL);
#else
	return NULL;
#endif
}

#define CL_SYM(b, h, f) \
	((*(void **)&(b)->f = bwcuda_real_dlsym((h), "bwc_" #f)) != NULL)

static unsigned long
env_ulong(const char *name, unsigned long def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long x;

	if (v == NULL || *v == '\0')
		return def;
	errno = 0;
	x = strtoul(v, &end, 0);
	if (errno != 0 || *end != '\0') {
		bwcuda_warn("ignoring bad %s=%s", name, v);
		return def;
	}
	return x;
}

/*
 * Tell the daemon the device (it may have no SM count of its own) and
 * register the task with its GPU demand.  -ENOSPC: refused.
 */
static int
cl_register_gpu(struct bwcl *b, const struct bwc_task_params *tp,
    const struct bwc_gpu_demand *g)
{
	uint32_t sms, granule;
	int r;

	if (b->task_register_gpu == NULL || b->gpu_device == NULL) {
		bwcuda_warn("libbwclient has no GPU partitioning: "
		    "BWSCHED_GPU ignored");
		return b->task_register(b->c, tp);
	}
	if (bwcuda_green_device(&sms, &granule) == 0 &&
	    (r = b->gpu_device(b->c, sms, granule)) < 0)
		bwcuda_warn("reporting the device: %s", b->strerror(b->c));
	r = b->task_register_gpu(b->c, tp, g);
	if (r != -ENOSPC)
		return r;
	bwcuda_warn("GPU demand refused: %s", b->strerror(b->c));
	if (getenv("BWSCHED_GPU_REFUSED") != NULL &&
	    strcmp(getenv("BWSCHED_GPU_REFUSED"), "exit") == 0)
		_exit(75);	/* EX_TEMPFAIL: the operator asked for this */
	bwcuda_warn("running unpartitioned, where the admitted tasks' "
	    "kernels may be disturbed (BWSCHED_GPU_REFUSED=exit prevents "
	    "this)");
	return b->task_register(b->c, tp);
}

static void
cl_register(struct bwcl *b)
{
	struct bwc_task_params tp;
	struct bwc_gpu_demand g;
	int i, r;

	memset(&tp, 0, sizeof(tp));
	tp.name = getenv("BWSCHED_TASK_NAME");
	tp.priority = (int)env_ulong("BWSCHED_PRIORITY", 50);
	tp.period_ns = env_ulong("BWSCHED_PERIOD_NS", 0);
	tp.progress_slots = (uint32_t)env_ulong("BWSCHED_PROGRESS_SLOTS",
	    b->prof.n > 0 ? 16 : 0);
	tp.progress_max_blocks = (uint32_t)env_ulong("BWSCHED_PROGRESS_BLOCKS",
	    65536);
	if (gpu_from_env(&g) == 1)
		r = cl_register_gpu(b, &tp, &g);
	else
		r = b->task_register(b->c, &tp);
	if (r < 0)
		bwcuda_warn("task registration failed: %s", b->strerror(b->c));
	for (i = 0; i < b->prof.n; i++) {
		r = b->kernel_register_file(b->c, b->prof.path[i], NULL);
		if (r < 0)
			bwcuda_warn("profile %s: %s", b->prof.path[i],
			    b->strerror(b->c));
		b->prof.id[i] = r;
	}
}

int
bwcuda_sink_bwclient(struct bwcuda_sink *s)
{
	struct bwcl *b;
	const char *name;
	void *h;

	bwcuda_sink_none(s);
	if ((h = cl_library()) == NULL) {
		bwcuda_warn("libbwclient not found (%s): CUDA work runs "
		    "without bandwidth protection", dlerror());
		return -ENOENT;
	}
	if ((b = calloc(1, sizeof(*b))) == NULL)
		return -ENOMEM;
	if (!CL_SYM(b, h, open) || !CL_SYM(b, h, strerror) ||
	    !CL_SYM(b, h, task_register) ||
	    !CL_SYM(b, h, kernel_register_file) || !CL_SYM(b, h, launch) ||
	    !CL_SYM(b, h, launch_done) || !CL_SYM(b, h, stream_active) ||
	    !CL_SYM(b, h, stream_sync) || !CL_SYM(b, h, stream_forget) ||
	    !CL_SYM(b, h, device_sync) || !CL_SYM(b, h, memcpy_begin) ||
	    !CL_SYM(b, h, memcpy_end) || !CL_SYM(b, h, progress_page)) {
		bwcuda_warn("libbwclient lacks a function: CUDA work runs "
		    "without bandwidth protection");
		free(b);
		return -ENOSYS;
	}
	/* optional (GPU partitioning): NULL in an older library */
	(void)(CL_SYM(b, h, task_register_gpu) && CL_SYM(b, h, partition) &&
	    CL_SYM(b, h, gpu_device) && CL_SYM(b, h, gpu_granted));
	name = getenv("BWSCHED_TASK_NAME");
	if (name == NULL)
		name = program_invocation_short_name;
	if ((b->c = b->open(NULL, name, 0)) == NULL) {
		bwcuda_warn("cannot reach the daemon (%s): CUDA work runs "
		    "without bandwidth protection", strerror(errno));
		free(b);
		return -ENOTCONN;
	}
	profiles_parse(&b->prof);
	cl_register(b);
	s->ops = &cl_ops;
	s->ctx = b;
	return 0;
}

void
bwcuda_sink_from_env(struct bwcuda_sink *s)
{
	const char *env = getenv("BWSCHED_CUDA_SINK");
	int fd;

	if (env == NULL || *env == '\0' || strcmp(env, "bwclient") == 0) {
		bwcuda_sink_bwclient(s);
	} else if (strcmp(env, "none") == 0) {
		bwcuda_sink_none(s);
	} else if (strncmp(env, "record:", 7) == 0) {
		fd = open(env + 7, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		    0644);
		if (fd < 0)
			bwcuda_warn("%s: %s", env + 7, strerror(errno));
		bwcuda_sink_record(s, fd);
	} else {
		bwcuda_warn("unknown BWSCHED_CUDA_SINK=%s, using none", env);
		bwcuda_sink_none(s);
	}
}

/* ---- the process-wide state ------------------------------------------ */

static struct bwcuda_state global;
static pthread_once_t global_once = PTHREAD_ONCE_INIT;

static void
global_init(void)
{
	struct bwcuda_sink s;

	bwcuda_sink_from_env(&s);
	bwcuda_state_init(&global, &s);
}

struct bwcuda_state *
bwcuda_global(void)
{
	pthread_once(&global_once, global_init);
	return &global;
}

/* For bwprogress.cuh, found with dlsym(RTLD_DEFAULT, ...). */
BWCUDA_EXPORT void *bwcuda_client(void);
BWCUDA_EXPORT void *bwcuda_progress_page(size_t *size);
BWCUDA_EXPORT int bwcuda_progress_launch(const char *kernel, uint64_t stream,
    int ptds, uint64_t **bitmap);
BWCUDA_EXPORT int bwcuda_gpu_clock(void);

void *
bwcuda_client(void)
{
	struct bwcuda_state *st = bwcuda_global();

	return st->sink.ops->client(st->sink.ctx);
}

void *
bwcuda_progress_page(size_t *size)
{
	struct bwcuda_state *st = bwcuda_global();

	return st->sink.ops->progress_page(st->sink.ctx, size);
}

static void *
gpu_clock_sym(const char *name)
{
	void	*h = bwcuda_driver_handle();

	/* the driver's own entry points: the calibration is no launch of
	 * the application's, and the interposer must not see it */
	return h != NULL ? bwcuda_real_dlsym(h, name) : NULL;
}

/*
 * Calibrate the GPU clock on the calling thread's current context and
 * publish the offset in the progress page (gpuclock.h).  0, or -1 with
 * nothing published (no page, no driver, a failing read): the daemon then
 * counts launches from their CPU launch time, as without it.
 */
int
bwcuda_gpu_clock(void)
{
	struct gpuclock_result	r;
	size_t			sz = 0;
	void			*p = bwcuda_progress_page(&sz);

	if (p == NULL || sz < BWSHM_PROGRESS_HDR_SIZE ||
	    gpuclock_driver(gpu_clock_sym, GPUCLOCK_ROUNDS, &r) < 0)
		return -1;
	gpuclock_publish(p, &r);
	return 0;
}

int
bwcuda_progress_launch(const char *kernel, uint64_t stream, int ptds,
    uint64_t **bitmap)
{
	struct bwcuda_state *st = bwcuda_global();

	return bwcuda_progress_launch_key(st, kernel,
	    bwcuda_stream_key(stream, ptds), bitmap);
}
