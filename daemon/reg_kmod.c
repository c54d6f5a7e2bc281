/*
 * reg_kmod.c - regulator backend on the bwreg kernel module (/dev/bwreg,
 * uapi version 2, kmod/uapi/bwreg.h).
 *
 * open() configures the module (period, event, regulated CPUs, rho,
 * fail-safe budget, heartbeat timeout) and maps its shared page; from
 * then on the hot calls - apply_plan(), set_static(), heartbeat(),
 * clock(), locks() - are plain loads and stores into shared memory, no
 * system calls.  stats(), set_rho() and the lock slots' creation and
 * revocation use ioctls.  close() stops regulation: a daemon that exits
 * on purpose leaves the best-effort cores unregulated, while one that
 * dies leaves them on the fail-safe budget after the heartbeat timeout.
 *
 * apply_plan() (period thread) and set_static() (event loop) both write
 * the plan buffers, and locks() (period thread) reads the lock pages that
 * lock_open() and lock_close() (event loop) map and unmap: a
 * priority-inheriting mutex keeps them apart.  The buffers' sequence
 * words do not protect against two writers; they guard the module's
 * reads only.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "monoclock.h"
#include "bwreg.h"
#include "regulator.h"
#include "reg_kmod.h"

_Static_assert(sizeof(struct bwreg_page) == BWREG_MAP_SIZE,
    "bwreg page layout");
_Static_assert(sizeof(struct bwreg_config) == 96, "bwreg config layout");
_Static_assert(sizeof(struct bwreg_lock) == 64, "bwreg lock layout");
_Static_assert(REG_PLAN_MAX == BWREG_PLAN_MAX &&
    REG_MAX_LOCKS == BWREG_MAX_LOCKS && REG_MAX_CORES == BWREG_MAX_CPUS,
    "regulator.h and bwreg.h limits");

struct regulator {
	int			 fd;
	int			 edge_fd;	/* read-only, non-blocking; -1 */
	struct bwreg_page	*pg;
	unsigned int		 ncores;
	int			 cores[REG_MAX_CORES];
	uint64_t		 period_ns;
	/* plan buffers, static budgets, the lock[] table */
	pthread_mutex_t		 mu;
	struct reg_kmod_plans	 plans;
	uint64_t		 static_gen;	/* plans older are stale */
	/* the daemon's read-only view of each slot's lock page */
	struct bwreg_lock	*lock[REG_MAX_LOCKS];
};

static uint64_t load64(const __u64 *p)
{
	return atomic_load_explicit((const _Atomic __u64 *)p,
	    memory_order_acquire);
}

static void store64(__u64 *p, uint64_t v)
{
	atomic_store_explicit((_Atomic __u64 *)p, v, memory_order_relaxed);
}

static void release64(__u64 *p, uint64_t v)
{
	atomic_store_explicit((_Atomic __u64 *)p, v, memory_order_release);
}

void reg_kmod_plans_init(struct reg_kmod_plans *st)
{
	st->next_id = 1;
	st->newest = -1;
}

/* seq odd, then (after a release fence) everything written in between. */
static void plan_begin(struct bwreg_plan *pl)
{
	store64(&pl->seq, load64(&pl->seq) | 1);
	atomic_thread_fence(memory_order_release);
}

/* seq even again, one more than before plan_begin(). */
static void plan_end(struct bwreg_plan *pl)
{
	release64(&pl->seq, load64(&pl->seq) + 1);
}

int reg_kmod_write_plan(struct bwreg_page *pg, struct reg_kmod_plans *st,
    const struct reg_plan *p, const int *cores, unsigned int ncores,
    uint64_t *id)
{
	struct bwreg_plan *pl;
	unsigned int i, j, s;
	int buf;

	if (p == NULL || p->len < 1 || p->len > BWREG_PLAN_MAX ||
	    ncores > BWREG_MAX_CPUS)
		return -EINVAL;
	for (i = 0; i < ncores; i++)
		if (cores[i] < 0 || cores[i] >= BWREG_MAX_CPUS)
			return -EINVAL;
	buf = st->newest == 0 ? 1 : 0;
	pl = &pg->plan[buf];
	plan_begin(pl);
	store64(&pl->id, st->next_id);
	store64(&pl->first, p->first);
	atomic_store_explicit((_Atomic __u32 *)&pl->len, p->len,
	    memory_order_relaxed);
	store64(&pl->lock_mask, p->lock_mask);
	for (s = 0; s < BWREG_MAX_LOCKS; s++)
		if (p->lock_mask & (1ULL << s))
			store64(&pl->lock_launches[s], p->lock_launches[s]);
	for (j = 0; j < p->len; j++)
		for (i = 0; i < ncores; i++)
			store64(&pl->events[j][cores[i]], p->events[j][i]);
	plan_end(pl);
	*id = st->next_id++;
	st->newest = buf;
	return 0;
}

void reg_kmod_withdraw(struct bwreg_page *pg, struct reg_kmod_plans *st)
{
	unsigned int b;

	for (b = 0; b < 2; b++) {
		plan_begin(&pg->plan[b]);
		store64(&pg->plan[b].id, 0);
		plan_end(&pg->plan[b]);
	}
	st->newest = -1;
}

void reg_kmod_write_static(struct bwreg_page *pg, const int *cores,
    const uint64_t *events, unsigned int ncores)
{
	unsigned int i;

	for (i = 0; i < ncores; i++)
		release64(&pg->static_events[cores[i]], events[i]);
}

static int reg_kmod_check(const struct reg_config *cfg, char *err,
    size_t errlen, uint64_t *mask)
{
	unsigned int i;

	*mask = 0;
	if (cfg->ncores == 0 || cfg->ncores > REG_MAX_CORES) {
		snprintf(err, errlen, "kmod: %u regulated cores (1..%d)",
		    cfg->ncores, REG_MAX_CORES);
		return -EINVAL;
	}
	for (i = 0; i < cfg->ncores; i++) {
		int c = cfg->cores[i];

		if (c < 0 || c >= BWREG_MAX_CPUS) {
			snprintf(err, errlen, "kmod: core %d out of range "
			    "(0..%d)", c, BWREG_MAX_CPUS - 1);
			return -EINVAL;
		}
		if (*mask & (1ULL << c)) {
			snprintf(err, errlen, "kmod: core %d listed twice", c);
			return -EINVAL;
		}
		*mask |= 1ULL << c;
	}
	if (cfg->period_ns < BWREG_MIN_PERIOD_NS ||
	    cfg->period_ns > BWREG_MAX_PERIOD_NS) {
		snprintf(err, errlen, "kmod: period %llu ns out of range "
		    "(%llu..%llu)", (unsigned long long)cfg->period_ns,
		    (unsigned long long)BWREG_MIN_PERIOD_NS,
		    (unsigned long long)BWREG_MAX_PERIOD_NS);
		return -EINVAL;
	}
	if (!(cfg->rho >= 0 && cfg->rho * 1000 <= BWREG_MAX_RHO_MILLI)) {
		snprintf(err, errlen, "kmod: rho %g out of range (0..%u)",
		    cfg->rho, BWREG_MAX_RHO_MILLI / 1000);
		return -EINVAL;
	}
	if (cfg->heartbeat_timeout_ns != 0 &&
	    cfg->heartbeat_timeout_ns < cfg->period_ns) {
		snprintf(err, errlen, "kmod: heartbeat timeout %llu ns is "
		    "shorter than the period",
		    (unsigned long long)cfg->heartbeat_timeout_ns);
		return -EINVAL;
	}
	return 0;
}

/*
 * Event type 0 with config 0 means "the module's event": the one set with
 * its event_type/event_config parameters (modprobe.d), by default the
 * architecture's (x86 LLC misses, arm64 L2D_CACHE_REFILL).
 */
static void reg_kmod_event(const struct reg_config *cfg,
    struct bwreg_config *c)
{
	c->event_type = cfg->event_type;
	c->event_config = cfg->event_config;
	if (c->event_type == 0 && c->event_config == 0)
		c->flags |= BWREG_CFG_MODULE_EVENT;
}

static void reg_kmod_config_error(const struct bwreg_config *c,
    const char *dev, uint64_t mask, int e, char *err, size_t errlen)
{
	char what[64];

	if (c->flags & BWREG_CFG_MODULE_EVENT)
		snprintf(what, sizeof(what), "the module's event");
	else
		snprintf(what, sizeof(what), "event %u:0x%llx", c->event_type,
		    (unsigned long long)c->event_config);
	snprintf(err, errlen, "kmod: %s: configure CPUs 0x%llx with %s: %s%s",
	    dev, (unsigned long long)mask, what, strerror(e),
	    e == ENODEV || e == EOPNOTSUPP ? " (no such PMU event here; see "
	    "dmesg)" : e == EPERM ? " (open the device for writing)" : "");
}

static int reg_kmod_setup(struct regulator *r, const struct reg_config *cfg,
    uint64_t mask, char *err, size_t errlen)
{
	struct bwreg_version v;
	struct bwreg_config c;
	const char *dev = cfg->device ? cfg->device : BWREG_DEVICE;
	void *p;

	memset(&v, 0, sizeof(v));
	if (ioctl(r->fd, BWREG_IOC_VERSION, &v) != 0) {
		snprintf(err, errlen, "kmod: %s: version: %s", dev,
		    strerror(errno));
		return -errno;
	}
	if (v.uapi != BWREG_UAPI_VERSION || v.map_size != BWREG_MAP_SIZE) {
		snprintf(err, errlen, "kmod: %s speaks uapi %u (map %u), "
		    "need %d", dev, v.uapi, v.map_size, BWREG_UAPI_VERSION);
		return -EPROTO;
	}
	memset(&c, 0, sizeof(c));
	c.version = BWREG_UAPI_VERSION;
	c.size = sizeof(c);
	c.period_ns = cfg->period_ns;
	c.cpumask = mask;
	reg_kmod_event(cfg, &c);
	c.rho_milli = (uint32_t)lround(cfg->rho * 1000);
	/* With rho = 0 the penalty is zero steps; set_rho() may raise it. */
	c.flags |= BWREG_CFG_TFS_NICE;
	c.static_events = BWREG_UNLIMITED;
	c.failsafe_events = cfg->failsafe_events;
	c.heartbeat_timeout_ns = cfg->heartbeat_timeout_ns;
	if (ioctl(r->fd, BWREG_IOC_CONFIG, &c) != 0) {
		int e = errno;

		reg_kmod_config_error(&c, dev, mask, e, err, errlen);
		return -e;
	}
	p = mmap(NULL, BWREG_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
	    r->fd, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "kmod: %s: mmap: %s", dev,
		    strerror(errno));
		return -errno;
	}
	r->pg = p;
	if (r->pg->magic != BWREG_MAGIC) {
		snprintf(err, errlen, "kmod: %s: bad page magic", dev);
		return -EPROTO;
	}
	return 0;
}

/* Make p slot's mapping (NULL: none); the old one is unmapped after. */
static void reg_kmod_set_lock(struct regulator *r, unsigned int slot,
    struct bwreg_lock *p)
{
	struct bwreg_lock *old;

	pthread_mutex_lock(&r->mu);
	old = r->lock[slot];
	r->lock[slot] = p;
	pthread_mutex_unlock(&r->mu);
	if (old != NULL)
		munmap(old, (size_t)sysconf(_SC_PAGESIZE));
}

static void reg_kmod_close(struct regulator *r)
{
	unsigned int s;

	if (r == NULL)
		return;
	/* stopping also revokes every lock slot */
	if (r->fd >= 0)
		(void)ioctl(r->fd, BWREG_IOC_STOP);
	for (s = 0; s < REG_MAX_LOCKS; s++)
		reg_kmod_set_lock(r, s, NULL);
	if (r->pg != NULL)
		munmap(r->pg, BWREG_MAP_SIZE);
	if (r->fd >= 0)
		close(r->fd);
	if (r->edge_fd >= 0)
		close(r->edge_fd);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

static void reg_kmod_mutex(pthread_mutex_t *mu)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	/* the period thread runs SCHED_FIFO; the event loop may not */
	(void)pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(mu, &a);
	pthread_mutexattr_destroy(&a);
}

/*
 * A descriptor for lock edges (uapi/bwreg.h): readable after a kick.
 * A module without them fails read() with EINVAL, and its poll would
 * always say readable, so it is not used then (nor a file that is not
 * the device); -1: the page poll alone.
 */
static int reg_kmod_edge_open(const char *dev)
{
	uint64_t n;
	int fd = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -1;
	/* new, so caught up: EAGAIN, unless a kick came in between */
	got = read(fd, &n, sizeof(n));
	if (!(got == (ssize_t)sizeof(n) || (got < 0 && errno == EAGAIN))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int reg_kmod_lock_edge_fd(struct regulator *r)
{
	return r->edge_fd;
}

static int reg_kmod_open(struct regulator **rp, const struct reg_config *cfg,
    char *err, size_t errlen)
{
	struct regulator *r;
	const char *dev = cfg->device ? cfg->device : BWREG_DEVICE;
	uint64_t mask;
	int ret;

	*rp = NULL;
	ret = reg_kmod_check(cfg, err, errlen, &mask);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		snprintf(err, errlen, "kmod: out of memory");
		return -ENOMEM;
	}
	reg_kmod_mutex(&r->mu);
	reg_kmod_plans_init(&r->plans);
	r->ncores = cfg->ncores;
	memcpy(r->cores, cfg->cores, sizeof(r->cores));
	r->period_ns = cfg->period_ns;
	r->edge_fd = -1;
	r->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "kmod: %s: %s%s", dev, strerror(errno),
		    errno == ENOENT ? " (is the bwreg module loaded?)" :
		    errno == EACCES ? " (the daemon needs it read-write; see "
		    "doc/kmod.md)" : "");
		reg_kmod_close(r);
		return ret;
	}
	ret = reg_kmod_setup(r, cfg, mask, err, errlen);
	if (ret) {
		reg_kmod_close(r);
		return ret;
	}
	r->edge_fd = reg_kmod_edge_open(dev);
	*rp = r;
	return 0;
}

/*
 * The period number follows from the clock the same way the module
 * computes it (period n starts at base + n * T), so a period timer that
 * fires late in the kernel does not make the daemon plan from a period
 * that has already begun.
 */
static int reg_kmod_clock(struct regulator *r, uint64_t *period,
    uint64_t *next_boundary_ns)
{
	uint64_t base = load64(&r->pg->base_ns);
	uint64_t t = load64(&r->pg->period_ns);
	uint64_t n = load64(&r->pg->period), now = monoclock_ns();

	if (t == 0)
		return -EIO;
	if (now >= base && (now - base) / t > n)
		n = (now - base) / t;
	*period = n;
	*next_boundary_ns = base + (n + 1) * t;
	return 0;
}

static int reg_kmod_apply_plan(struct regulator *r, const struct reg_plan *p)
{
	uint64_t id;
	int ret = -ESTALE;

	pthread_mutex_lock(&r->mu);
	/* decided on holders set_static() has since replaced */
	if (p->gen >= r->static_gen)
		ret = reg_kmod_write_plan(r->pg, &r->plans, p, r->cores,
		    r->ncores, &id);
	pthread_mutex_unlock(&r->mu);
	return ret;
}

/*
 * The lock holders changed: the plans were decided for the old ones.
 * Withdraw them first, then write the new static budget, so no period
 * runs an old plan with the new static budget underneath.
 */
static int reg_kmod_set_static(struct regulator *r, const uint64_t *events,
    unsigned int ncores, uint64_t gen)
{
	if (ncores != r->ncores)
		return -EINVAL;
	pthread_mutex_lock(&r->mu);
	if (gen > r->static_gen)
		r->static_gen = gen;
	reg_kmod_withdraw(r->pg, &r->plans);
	reg_kmod_write_static(r->pg, r->cores, events, ncores);
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static int reg_kmod_set_rho(struct regulator *r, double rho)
{
	uint32_t milli;

	if (!(rho >= 0 && rho * 1000 <= BWREG_MAX_RHO_MILLI))
		return -EINVAL;
	milli = (uint32_t)lround(rho * 1000);
	return ioctl(r->fd, BWREG_IOC_SET_RHO, &milli) ? -errno : 0;
}

static int reg_kmod_heartbeat(struct regulator *r)
{
	atomic_fetch_add_explicit((_Atomic __u64 *)&r->pg->heartbeat, 1,
	    memory_order_release);
	return 0;
}

static void reg_kmod_core_stats(struct reg_core_stats *o,
    const struct bwreg_cpu_stats *c)
{
	o->events = c->events;
	o->throttles = c->throttles;
	o->throttled_ns = c->throttled_ns;
	/* periods on a limited static budget or on the fail-safe one */
	o->fallbacks = c->fallbacks + c->failsafe;
	o->plan_first = c->plan_first;
	o->plan_ahead = c->plan_ahead;
	o->refused = c->refused;
	o->lock_limited = c->lock_limited;
	o->unregulated = c->unregulated;
}

static int reg_kmod_stats(struct regulator *r, struct reg_stats *out)
{
	struct bwreg_stats *st;
	unsigned int i;

	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	if (ioctl(r->fd, BWREG_IOC_STATS, st) != 0) {
		int e = errno;

		free(st);
		return -e;
	}
	memset(out, 0, sizeof(*out));
	out->period = st->period;
	out->ncores = r->ncores;
	out->plan_id = st->plan_id;
	out->lock.kicks = st->lock.kicks;
	out->lock.kick_lowered = st->lock.kick_lowered;
	out->lock.kick_ns_last = st->lock.kick_ns_last;
	out->lock.kick_ns_max = st->lock.kick_ns_max;
	out->lock.kick_ns_sum = st->lock.kick_ns_sum;
	for (i = 0; i < r->ncores; i++)
		reg_kmod_core_stats(&out->core[i], &st->cpu[r->cores[i]]);
	free(st);
	return 0;
}

/*
 * A lock slot: its static budget first (the module reads it from the
 * first decision on), then the file.  The daemon keeps a read-only
 * mapping of the page for locks(), so the period thread reads the
 * application's words without a system call.
 */
static int reg_kmod_lock_open(struct regulator *r, unsigned int slot,
    uint64_t events, struct reg_lock_files *files, char *err, size_t errlen)
{
	struct bwreg_lock_fd a;
	void *p;

	if (slot >= REG_MAX_LOCKS) {
		snprintf(err, errlen, "kmod: lock slot %u out of range "
		    "(0..%d)", slot, REG_MAX_LOCKS - 1);
		return -EINVAL;
	}
	release64(&r->pg->lock_static[slot], events);
	memset(&a, 0, sizeof(a));
	a.slot = slot;
	if (ioctl(r->fd, BWREG_IOC_LOCK_FD, &a) != 0) {
		int e = errno;

		snprintf(err, errlen, "kmod: lock slot %u: %s", slot,
		    strerror(e));
		return -e;
	}
	p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
	    a.fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;

		snprintf(err, errlen, "kmod: lock slot %u: mmap: %s", slot,
		    strerror(e));
		close(a.fd);
		(void)ioctl(r->fd, BWREG_IOC_LOCK_REVOKE, &slot);
		return -e;
	}
	reg_kmod_set_lock(r, slot, p);
	memset(files, 0, sizeof(*files));
	files->kind = REG_LOCK_KMOD;
	files->nfds = 1;
	files->fds[0] = a.fd;
	files->fds[1] = -1;
	return 0;
}

static int reg_kmod_lock_static(struct regulator *r, unsigned int slot,
    uint64_t events)
{
	if (slot >= REG_MAX_LOCKS)
		return -EINVAL;
	release64(&r->pg->lock_static[slot], events);
	return 0;
}

static int reg_kmod_lock_close(struct regulator *r, unsigned int slot)
{
	uint32_t s = slot;

	if (slot >= REG_MAX_LOCKS)
		return -EINVAL;
	reg_kmod_set_lock(r, slot, NULL);
	return ioctl(r->fd, BWREG_IOC_LOCK_REVOKE, &s) ? -errno : 0;
}

static int reg_kmod_locks(struct regulator *r, struct reg_locks *out)
{
	unsigned int s;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&r->mu);
	for (s = 0; s < REG_MAX_LOCKS; s++) {
		const struct bwreg_lock *l = r->lock[s];

		if (l == NULL)
			continue;
		out->valid |= 1ULL << s;
		if (atomic_load_explicit((const _Atomic __u32 *)&l->held,
		    memory_order_acquire))
			out->held |= 1ULL << s;
		out->launches[s] = load64(&l->launches);
	}
	pthread_mutex_unlock(&r->mu);
	return 0;
}

const struct regulator_ops reg_kmod_ops = {
	.name		= "kmod",
	.simulated	= false,
	.open		= reg_kmod_open,
	.clock		= reg_kmod_clock,
	.apply_plan	= reg_kmod_apply_plan,
	.set_static	= reg_kmod_set_static,
	.set_rho	= reg_kmod_set_rho,
	.heartbeat	= reg_kmod_heartbeat,
	.stats		= reg_kmod_stats,
	.close		= reg_kmod_close,
	.lock_open	= reg_kmod_lock_open,
	.lock_static	= reg_kmod_lock_static,
	.lock_close	= reg_kmod_lock_close,
	.locks		= reg_kmod_locks,
	.lock_edge_fd	= reg_kmod_lock_edge_fd,
};
