/*
 * reg_kmod.c - regulator backend on the bwreg kernel module (/dev/bwreg).
 *
 * open() configures the module (period, event, regulated CPUs, rho,
 * fail-safe budget, heartbeat timeout) and maps its shared page; from
 * then on the hot calls - apply(), set_static(), heartbeat(), clock() -
 * are plain loads and stores into that page, no system calls.  stats()
 * and set_rho() use ioctls.  close() stops regulation: a daemon that
 * exits on purpose leaves the best-effort cores unregulated, while one
 * that dies leaves them on the fail-safe budget after the heartbeat
 * timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

_Static_assert(sizeof(struct bwreg_page) == BWREG_MAP_SIZE,
    "bwreg page layout");
_Static_assert(sizeof(struct bwreg_config) == 96, "bwreg config layout");

struct regulator {
	int			 fd;
	struct bwreg_page	*pg;
	unsigned int		 ncores;
	int			 cores[REG_MAX_CORES];
	uint64_t		 period_ns;
	uint64_t		 plan_ids;	/* last plan id written */
};

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

		if (c.flags & BWREG_CFG_MODULE_EVENT)
			snprintf(err, errlen, "kmod: %s: configure CPUs "
			    "0x%llx with the module's event: %s%s", dev,
			    (unsigned long long)mask, strerror(e),
			    e == ENODEV || e == EOPNOTSUPP ? " (no such PMU "
			    "event here; see dmesg)" : "");
		else
			snprintf(err, errlen, "kmod: %s: configure CPUs "
			    "0x%llx with event %u:0x%llx: %s%s", dev,
			    (unsigned long long)mask, c.event_type,
			    (unsigned long long)c.event_config, strerror(e),
			    e == ENODEV || e == EOPNOTSUPP ? " (no such PMU "
			    "event here; see dmesg)" : "");
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

static void reg_kmod_close(struct regulator *r)
{
	if (r == NULL)
		return;
	if (r->fd >= 0)
		(void)ioctl(r->fd, BWREG_IOC_STOP);
	if (r->pg != NULL)
		munmap(r->pg, BWREG_MAP_SIZE);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
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
	r->ncores = cfg->ncores;
	memcpy(r->cores, cfg->cores, sizeof(r->cores));
	r->period_ns = cfg->period_ns;
	r->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "kmod: %s: %s%s", dev, strerror(errno),
		    errno == ENOENT ? " (is the bwreg module loaded?)" : "");
		free(r);
		return ret;
	}
	ret = reg_kmod_setup(r, cfg, mask, err, errlen);
	if (ret) {
		reg_kmod_close(r);
		return ret;
	}
	*rp = r;
	return 0;
}

static uint64_t load64(const __u64 *p)
{
	return atomic_load_explicit((const _Atomic __u64 *)p,
	    memory_order_acquire);
}

static void store64(__u64 *p, uint64_t v)
{
	atomic_store_explicit((_Atomic __u64 *)p, v, memory_order_release);
}

/*
 * The period number follows from the clock the same way the module
 * computes it (period n starts at base + n * T), so a period timer that
 * fires late in the kernel does not make the daemon write for a period
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

/* The buffer to rewrite: the one not holding the newest plan. */
static struct bwreg_plan *reg_kmod_older(struct bwreg_page *pg)
{
	return load64(&pg->plan[0].id) <= load64(&pg->plan[1].id) ?
	    &pg->plan[0] : &pg->plan[1];
}

/* Sequence word odd, fields, sequence even: see kmod/uapi/bwreg.h. */
static int reg_kmod_apply_plan(struct regulator *r, const struct reg_plan *p)
{
	struct bwreg_plan *b;
	uint64_t seq;
	unsigned int j, i;

	if (p->len < 1 || p->len > BWREG_PLAN_MAX)
		return -EINVAL;
	b = reg_kmod_older(r->pg);
	seq = load64(&b->seq);
	store64(&b->seq, seq | 1);
	atomic_thread_fence(memory_order_release);
	store64(&b->id, ++r->plan_ids);
	store64(&b->first, p->first);
	atomic_store_explicit((_Atomic __u32 *)&b->len, p->len,
	    memory_order_relaxed);
	store64(&b->lock_mask, p->lock_mask);
	for (i = 0; i < BWREG_MAX_LOCKS; i++)
		store64(&b->lock_launches[i], p->lock_launches[i]);
	for (j = 0; j < p->len; j++)
		for (i = 0; i < r->ncores; i++)
			store64(&b->events[j][r->cores[i]], p->events[j][i]);
	atomic_thread_fence(memory_order_release);
	store64(&b->seq, (seq | 1) + 1);
	return 0;
}

/* Empty both plan buffers (the holders changed). */
static void reg_kmod_withdraw(struct bwreg_page *pg)
{
	unsigned int i;
	uint64_t seq;

	for (i = 0; i < 2; i++) {
		seq = load64(&pg->plan[i].seq);
		store64(&pg->plan[i].seq, seq | 1);
		atomic_thread_fence(memory_order_release);
		store64(&pg->plan[i].id, 0);
		store64(&pg->plan[i].seq, (seq | 1) + 1);
	}
}

static int reg_kmod_set_static(struct regulator *r, const uint64_t *events,
    unsigned int ncores)
{
	unsigned int i;

	if (ncores != r->ncores)
		return -EINVAL;
	/* the plans were decided for the old holders */
	reg_kmod_withdraw(r->pg);
	for (i = 0; i < ncores; i++)
		store64(&r->pg->static_events[r->cores[i]], events[i]);
	return 0;
}

static int reg_kmod_lock_open(struct regulator *r, unsigned int slot,
    uint64_t events, struct reg_lock_files *lf, char *err, size_t errlen)
{
	struct bwreg_lock_fd a;

	if (slot >= BWREG_MAX_LOCKS)
		return -EINVAL;
	store64(&r->pg->lock_static[slot], events);
	memset(&a, 0, sizeof(a));
	a.slot = slot;
	if (ioctl(r->fd, BWREG_IOC_LOCK_FD, &a) != 0) {
		snprintf(err, errlen, "kmod: lock file for slot %u: %s", slot,
		    strerror(errno));
		return -errno;
	}
	lf->kind = REG_LOCK_KMOD;
	lf->nfds = 1;
	lf->fds[0] = a.fd;
	lf->fds[1] = -1;
	return 0;
}

static int reg_kmod_lock_static(struct regulator *r, unsigned int slot,
    uint64_t events)
{
	if (slot >= BWREG_MAX_LOCKS)
		return -EINVAL;
	store64(&r->pg->lock_static[slot], events);
	return 0;
}

static int reg_kmod_lock_close(struct regulator *r, unsigned int slot)
{
	uint32_t s = slot;

	if (slot >= BWREG_MAX_LOCKS)
		return -EINVAL;
	store64(&r->pg->lock_static[slot], BWREG_UNLIMITED);
	return ioctl(r->fd, BWREG_IOC_LOCK_REVOKE, &s) ? -errno : 0;
}

static int reg_kmod_locks(struct regulator *r, struct reg_locks *out)
{
	struct bwreg_locks l;

	if (ioctl(r->fd, BWREG_IOC_LOCKS, &l) != 0)
		return -errno;
	out->held = l.held;
	out->valid = l.valid;
	memcpy(out->launches, l.launches, sizeof(out->launches));
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
	for (i = 0; i < r->ncores; i++) {
		const struct bwreg_cpu_stats *c = &st->cpu[r->cores[i]];

		out->core[i].events = c->events;
		out->core[i].throttles = c->throttles;
		out->core[i].throttled_ns = c->throttled_ns;
		/* Periods without a plan entry: static or fail-safe. */
		out->core[i].fallbacks = c->fallbacks + c->failsafe;
		out->core[i].plan_first = c->plan_first;
		out->core[i].plan_ahead = c->plan_ahead;
		out->core[i].refused = c->refused;
		out->core[i].lock_limited = c->lock_limited;
		out->core[i].unregulated = c->unregulated;
	}
	free(st);
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
};
