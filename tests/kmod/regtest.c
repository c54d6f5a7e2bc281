/*
 * regtest.c - checks of the daemon's kmod regulator backend
 * (daemon/reg_kmod.c).
 *
 * Without arguments (make check on the host): configuration validation,
 * the error for a missing device, and the page-writing half on plain
 * memory - plan layout and buffer alternation, withdrawal, and the plan
 * buffers' sequence words against a concurrent reader that reads the way
 * the module does.  With a device path (inside the qemu guest, module
 * loaded): the backend end to end - configure, plans each period as the
 * period thread publishes them, static budgets withdrawing plans, lock
 * slots, rho, stats, close.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwreg.h"
#include "regulator.h"
#include "reg_kmod.h"
#include "vmcheck.h"

static struct reg_config base(const char *dev)
{
	struct reg_config c;

	memset(&c, 0, sizeof(c));
	c.period_ns = 50000000;	/* long against a starved guest's stalls */
	c.ncores = 1;
	c.cores[0] = 1;
	c.rho = 1.0;
	c.failsafe_events = REG_UNLIMITED;
	c.heartbeat_timeout_ns = 1000000000;
	c.event_type = PERF_TYPE_SOFTWARE;
	c.event_config = PERF_COUNT_SW_CPU_CLOCK;
	c.device = dev;
	return c;
}

static int try_open(const struct reg_config *c, char *err, size_t len)
{
	struct regulator *r = NULL;
	int ret;

	err[0] = '\0';
	ret = reg_kmod_ops.open(&r, c, err, len);
	if (r != NULL)
		reg_kmod_ops.close(r);
	return ret;
}

static void test_validation(void)
{
	struct reg_config c;
	char err[256];

	check(!reg_kmod_ops.simulated && reg_kmod_ops.apply_plan != NULL &&
	    reg_kmod_ops.lock_open != NULL && reg_kmod_ops.locks != NULL,
	    "ops", NULL);
	c = base("/nonexistent/bwreg");
	c.ncores = 0;
	check(try_open(&c, err, sizeof(err)) == -EINVAL && err[0],
	    "no-cores", "%s", err);
	c = base("/nonexistent/bwreg");
	c.cores[0] = 64;
	check(try_open(&c, err, sizeof(err)) == -EINVAL, "core-range", "%s",
	    err);
	c = base("/nonexistent/bwreg");
	c.ncores = 2;
	c.cores[1] = 1;
	check(try_open(&c, err, sizeof(err)) == -EINVAL, "core-twice", "%s",
	    err);
	c = base("/nonexistent/bwreg");
	c.period_ns = 10;
	check(try_open(&c, err, sizeof(err)) == -EINVAL, "period", "%s", err);
	c = base("/nonexistent/bwreg");
	c.rho = NAN;
	check(try_open(&c, err, sizeof(err)) == -EINVAL, "rho-nan", "%s", err);
	c = base("/nonexistent/bwreg");
	c.rho = -1;
	check(try_open(&c, err, sizeof(err)) == -EINVAL, "rho-negative",
	    "%s", err);
	c = base("/nonexistent/bwreg");
	check(try_open(&c, err, sizeof(err)) == -ENOENT &&
	    strstr(err, "module loaded") != NULL, "no-device", "%s", err);
}

/* A plan whose every value is derived from v, for the checks below. */
static void fill_plan(struct reg_plan *p, uint64_t first, unsigned int len,
    unsigned int ncores, uint64_t v)
{
	unsigned int j, i;

	memset(p, 0, sizeof(*p));
	p->first = first;
	p->len = len;
	p->lock_mask = 0x5;
	p->lock_launches[0] = v;
	p->lock_launches[2] = v;
	for (j = 0; j < len; j++)
		for (i = 0; i < ncores; i++)
			p->events[j][i] = v * 1000 + j * 10 + i;
}

static void test_page_writes(void)
{
	static struct bwreg_page pg;
	static struct reg_plan p;
	struct reg_kmod_plans st;
	const int cores[2] = { 5, 2 };
	const uint64_t stat[2] = { 77, 88 };
	uint64_t id = 0, id2 = 0;
	int ok;

	memset(&pg, 0, sizeof(pg));
	reg_kmod_plans_init(&st);
	fill_plan(&p, 100, 3, 2, 1);
	ok = reg_kmod_write_plan(&pg, &st, &p, cores, 2, &id) == 0;
	check(ok && id == 1 && pg.plan[0].id == 1 && pg.plan[0].seq == 2 &&
	    pg.plan[0].first == 100 && pg.plan[0].len == 3 &&
	    pg.plan[0].lock_mask == 0x5 && pg.plan[0].lock_launches[2] == 1 &&
	    pg.plan[0].events[0][5] == 1000 && pg.plan[0].events[2][2] == 1021 &&
	    pg.plan[0].events[2][5] == 1020 && pg.plan[0].events[0][0] == 0 &&
	    pg.plan[1].seq == 0, "plan-layout", "id %llu seq %llu",
	    (unsigned long long)id, (unsigned long long)pg.plan[0].seq);
	fill_plan(&p, 101, 16, 2, 2);
	ok = reg_kmod_write_plan(&pg, &st, &p, cores, 2, &id2) == 0;
	check(ok && id2 == 2 && pg.plan[1].id == 2 && pg.plan[1].seq == 2 &&
	    pg.plan[0].id == 1 && pg.plan[1].events[15][2] == 2151,
	    "plan-other-buffer", NULL);
	fill_plan(&p, 102, 1, 2, 3);
	ok = reg_kmod_write_plan(&pg, &st, &p, cores, 2, &id) == 0;
	check(ok && id == 3 && pg.plan[0].id == 3 && pg.plan[0].seq == 4 &&
	    pg.plan[1].id == 2, "plan-alternates", NULL);
	p.len = 0;
	check(reg_kmod_write_plan(&pg, &st, &p, cores, 2, &id) == -EINVAL,
	    "plan-len-0", NULL);
	p.len = BWREG_PLAN_MAX + 1;
	check(reg_kmod_write_plan(&pg, &st, &p, cores, 2, &id) == -EINVAL &&
	    pg.plan[0].seq == 4 && pg.plan[1].seq == 2, "plan-len-max",
	    "nothing written");
	reg_kmod_withdraw(&pg, &st);
	check(pg.plan[0].id == 0 && pg.plan[1].id == 0 &&
	    pg.plan[0].seq == 6 && pg.plan[1].seq == 4, "withdraw", NULL);
	fill_plan(&p, 103, 2, 2, 4);
	ok = reg_kmod_write_plan(&pg, &st, &p, cores, 2, &id) == 0;
	check(ok && id == 4 && pg.plan[0].id == 4, "after-withdraw",
	    "ids keep growing");
	reg_kmod_write_static(&pg, cores, stat, 2);
	check(pg.static_events[5] == 77 && pg.static_events[2] == 88 &&
	    pg.static_events[0] == 0, "static", NULL);
}

/*
 * The sequence words against a concurrent reader that reads a buffer the
 * way the module does (bwreg_plan.c): seq even (acquire), fields, read
 * fence, seq unchanged.  Every plan the writer publishes is uniform in
 * its id, so an accepted read mixing two plans shows.
 */
struct seqtest {
	struct bwreg_page	*pg;
	atomic_int		 stop;
	unsigned long		 accepted;
	unsigned long		 torn;
};

static uint64_t rd(const __u64 *p)
{
	return atomic_load_explicit((const _Atomic __u64 *)p,
	    memory_order_relaxed);
}

static void *seq_reader(void *arg)
{
	struct seqtest *t = arg;
	unsigned int b = 0, j, c;

	while (!atomic_load(&t->stop)) {
		const struct bwreg_plan *pl = &t->pg->plan[b++ & 1];
		uint64_t s1, s2, id, bad = 0;

		s1 = atomic_load_explicit((const _Atomic __u64 *)&pl->seq,
		    memory_order_acquire);
		if (s1 & 1)
			continue;
		id = rd(&pl->id);
		if (rd(&pl->first) != id || rd(&pl->lock_launches[0]) != id)
			bad = 1;
		for (j = 0; j < BWREG_PLAN_MAX; j++)
			for (c = 0; c < 4; c++)
				if (rd(&pl->events[j][c]) != id)
					bad = 1;
		atomic_thread_fence(memory_order_acquire);
		s2 = rd(&pl->seq);
		if (s1 != s2 || id == 0)
			continue;
		t->accepted++;
		t->torn += bad;
	}
	return NULL;
}

static void test_seqlock(void)
{
	static struct bwreg_page pg;
	static struct reg_plan p;
	struct reg_kmod_plans st;
	struct seqtest t;
	pthread_t th;
	const int cores[4] = { 0, 1, 2, 3 };
	unsigned int i, j, c;
	uint64_t id;

	memset(&pg, 0, sizeof(pg));
	memset(&t, 0, sizeof(t));
	t.pg = &pg;
	reg_kmod_plans_init(&st);
	if (pthread_create(&th, NULL, seq_reader, &t) != 0) {
		check(0, "seqlock", "pthread_create");
		return;
	}
	memset(&p, 0, sizeof(p));
	p.len = BWREG_PLAN_MAX;
	p.lock_mask = 1;
	for (i = 1; i <= 400000; i++) {
		p.first = i;
		p.lock_launches[0] = i;
		for (j = 0; j < BWREG_PLAN_MAX; j++)
			for (c = 0; c < 4; c++)
				p.events[j][c] = i;
		reg_kmod_write_plan(&pg, &st, &p, cores, 4, &id);
		if (i % 50000 == 0)
			reg_kmod_withdraw(&pg, &st);
	}
	atomic_store(&t.stop, 1);
	pthread_join(th, NULL);
	check(t.torn == 0 && t.accepted > 0, "seqlock",
	    "%lu consistent reads accepted, %lu torn", t.accepted, t.torn);
}



static pid_t start_hog(int cpu)
{
	pid_t pid = fork();
	cpu_set_t set;
	volatile unsigned long n = 0;

	if (pid != 0)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (;;)
		n++;
}

/*
 * The period thread: wake 10 ms before each boundary and publish a plan
 * for the next `len` periods, every `every` periods.  Returns how many
 * plans reached the module after their first period had begun: a guest
 * whose thread oversleeps 10 ms cannot show entry 0 governing, however
 * right the module is.
 */
static unsigned int drive(struct regulator *r, unsigned int periods,
    uint64_t budget, unsigned int len, unsigned int every,
    unsigned int *plans)
{
	static struct reg_plan p;
	uint64_t pp, p0, next, now, b;
	unsigned int j, late = 0;

	memset(&p, 0, sizeof(p));
	p.len = len;
	for (j = 0; j < len; j++)
		p.events[j][0] = budget;
	reg_kmod_ops.clock(r, &p0, &next);
	do {
		reg_kmod_ops.clock(r, &pp, &next);
		sleep_until(next - 10000000);
		if ((pp - p0) % every == 0) {
			p.first = pp + 1;
			reg_kmod_ops.apply_plan(r, &p);
			reg_kmod_ops.clock(r, &now, &b);
			late += now >= p.first;
			(*plans)++;
		}
		reg_kmod_ops.heartbeat(r);
		sleep_until(next + 1000000);
	} while (pp - p0 < periods);
	return late;
}

#define D(f)	((unsigned long long)(s1.core[0].f - s0.core[0].f))
/* periods the core ran (a late timer skips some: not s1.period - s0.period) */
#define KINDS()	(D(plan_first) + D(plan_ahead) + D(fallbacks) + D(unregulated))
/* since t0, the core ran fewer than half the periods, or a quarter of the
 * plans came late: a starved guest */
#define STARVED() (starved(KINDS(), now_ns() - t0, 50000000) || \
	vm_starved(&w) || late * 4 > plans)

static void test_plans(struct regulator *r)
{
	struct reg_stats s0, s1;
	struct vm_window w;
	uint64_t small = 5000000, dp, t0;
	unsigned int late, plans;

	/* A plan every period: entry 0 governs. */
	reg_kmod_ops.stats(r, &s0);
	t0 = now_ns();
	vm_window(&w);
	plans = 0;
	late = drive(r, 30, small, 4, 1, &plans);
	reg_kmod_ops.stats(r, &s1);
	dp = KINDS();
	/* late wake-ups (a loaded host) fall back to the look-ahead */
	judge(STARVED(), s1.ncores == 1 && dp >= 10 && D(throttles) >= dp / 3 &&
	    D(plan_first) * 10 >= dp * 2 &&
	    (D(plan_first) + D(plan_ahead)) * 10 >= dp * 6,
	    "plan-first", "%llu periods: %llu entry 0, %llu ahead, %llu "
	    "fallbacks, %llu unregulated, %llu throttles",
	    (unsigned long long)dp, D(plan_first), D(plan_ahead),
	    D(fallbacks), D(unregulated), D(throttles));
	/* A plan every 4th period: the look-ahead entries govern the rest. */
	reg_kmod_ops.stats(r, &s0);
	t0 = now_ns();
	vm_window(&w);
	plans = 0;
	late = drive(r, 30, small, 4, 4, &plans);
	reg_kmod_ops.stats(r, &s1);
	dp = KINDS();
	judge(STARVED(), dp >= 10 && D(plan_ahead) * 10 >= dp * 5 &&
	    D(plan_first) * 10 >= dp * 1 && D(throttles) >= dp / 3,
	    "plan-ahead",
	    "%llu periods: %llu entry 0, %llu ahead, %llu fallbacks, "
	    "plan %llu", (unsigned long long)dp, D(plan_first),
	    D(plan_ahead), D(fallbacks), (unsigned long long)s1.plan_id);
}

static void test_static(struct regulator *r)
{
	struct reg_stats s0, s1;
	static struct reg_plan p;
	uint64_t small = 5000000, pp, next, dp, t0;
	unsigned int late = 0, plans = 0;	/* no plan driven here */
	struct vm_window w;
	int i;

	/* A long plan, then set_static: withdrawn, the static one governs. */
	memset(&p, 0, sizeof(p));
	reg_kmod_ops.clock(r, &pp, &next);
	p.first = pp + 1;
	p.len = BWREG_PLAN_MAX;
	for (i = 0; i < BWREG_PLAN_MAX; i++)
		p.events[i][0] = REG_UNLIMITED;
	reg_kmod_ops.apply_plan(r, &p);
	check(reg_kmod_ops.set_static(r, &small, 1, 0) == 0 &&
	    reg_kmod_ops.set_static(r, &small, 2, 0) == -EINVAL, "set-static",
	    NULL);
	reg_kmod_ops.stats(r, &s0);
	t0 = now_ns();
	vm_window(&w);
	for (i = 0; i < 60; i++) {
		reg_kmod_ops.heartbeat(r);
		usleep(10000);
	}
	reg_kmod_ops.stats(r, &s1);
	dp = KINDS();
	judge(STARVED(), dp >= 8 && D(plan_first) + D(plan_ahead) == 0 &&
	    D(fallbacks) * 10 >= dp * 8 && D(throttles) * 10 >= dp * 5,
	    "static-withdraws", "%llu periods: %llu fallbacks, %llu plan, "
	    "%llu throttles", (unsigned long long)dp, D(fallbacks),
	    D(plan_first) + D(plan_ahead), D(throttles));
	p.len = 0;
	check(reg_kmod_ops.set_rho(r, 3.0) == 0 &&
	    reg_kmod_ops.set_rho(r, -1) == -EINVAL &&
	    reg_kmod_ops.apply_plan(r, &p) == -EINVAL, "rho-and-args", NULL);
}

static void test_locks(struct regulator *r)
{
	struct reg_lock_files f;
	struct reg_locks l;
	struct reg_stats st;
	struct bwreg_lock *lk;
	uint64_t unl = REG_UNLIMITED;
	char err[256] = "";
	uint64_t s_period;
	int ret, kick;

	reg_kmod_ops.set_static(r, &unl, 1, 0);
	ret = reg_kmod_ops.lock_open(r, 64, 0, &f, err, sizeof(err));
	check(ret == -EINVAL && err[0], "lock-slot-range", "%s", err);
	err[0] = '\0';
	ret = reg_kmod_ops.lock_open(r, 7, 0, &f, err, sizeof(err));
	check(ret == 0 && f.kind == REG_LOCK_KMOD && f.nfds == 1 &&
	    f.fds[0] >= 0, "lock-open", "%s", err);
	if (ret != 0)
		return;
	lk = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
	    MAP_SHARED, f.fds[0], 0);
	if (lk == MAP_FAILED) {
		check(0, "lock-map", "%s", strerror(errno));
		close(f.fds[0]);
		return;
	}
	lk->launches = 3;
	lk->held = 1;
	reg_kmod_ops.stats(r, &st);
	s_period = st.period;
	reg_kmod_ops.locks(r, &l);
	check(l.valid == 1ULL << 7 && l.held == 1ULL << 7 &&
	    l.launches[7] == 3, "locks", "valid 0x%llx held 0x%llx",
	    (unsigned long long)l.valid, (unsigned long long)l.held);
	ret = ioctl(f.fds[0], BWREG_LOCK_IOC_KICK);
	reg_kmod_ops.stats(r, &st);
	/* lowered unless a boundary saw the slot held first */
	check(ret == 0 && st.lock.kicks == 1 && st.lock.kick_lowered <= 1 &&
	    st.lock.kick_ns_last > 0 && lk->kicks == 1, "kick",
	    "%s, %llu kicks (%llu lowered), %llu ns", ret ? strerror(errno) :
	    "ok", (unsigned long long)st.lock.kicks,
	    (unsigned long long)st.lock.kick_lowered,
	    (unsigned long long)st.lock.kick_ns_last);
	usleep(150000);
	reg_kmod_ops.stats(r, &st);
	judge(st.core[0].lock_limited == 0 && st.period < s_period + 2,
	    st.core[0].lock_limited > 0, "lock-limits", "%llu periods",
	    (unsigned long long)st.core[0].lock_limited);
	ret = reg_kmod_ops.lock_static(r, 7, 5) == 0 &&
	    reg_kmod_ops.lock_close(r, 7) == 0 ? 0 : -1;
	kick = ioctl(f.fds[0], BWREG_LOCK_IOC_KICK) ? errno : 0;
	check(ret == 0 && kick == ESTALE, "lock-close",
	    "kick after close: %s", strerror(kick));
	reg_kmod_ops.locks(r, &l);
	check(l.valid == 0, "locks-after-close", NULL);
	munmap(lk, (size_t)sysconf(_SC_PAGESIZE));
	close(f.fds[0]);
}

/* The period thread's locks() against the loop opening and closing. */
struct locker {
	struct regulator	*r;
	atomic_int		 stop;
	unsigned long		 reads;
	unsigned long		 seen;
};

static void *locker_fn(void *arg)
{
	struct locker *lk = arg;
	struct reg_locks l;

	while (!atomic_load(&lk->stop)) {
		if (reg_kmod_ops.locks(lk->r, &l) == 0) {
			lk->reads++;
			lk->seen += (l.valid >> 9) & 1;
		}
	}
	return NULL;
}

static void test_locks_concurrent(struct regulator *r)
{
	struct reg_lock_files f;
	struct locker lk;
	pthread_t th;
	char err[256];
	int i, opened = 0;

	memset(&lk, 0, sizeof(lk));
	lk.r = r;
	if (pthread_create(&th, NULL, locker_fn, &lk) != 0)
		return;
	for (i = 0; i < 500; i++) {
		if (reg_kmod_ops.lock_open(r, 9, 0, &f, err, sizeof(err)) == 0) {
			opened++;
			close(f.fds[0]);
		}
		reg_kmod_ops.lock_close(r, 9);
	}
	atomic_store(&lk.stop, 1);
	pthread_join(th, NULL);
	check(opened == 500 && lk.reads > 0, "locks-concurrent",
	    "%d slots opened and closed under %lu locks() reads (%lu saw it)",
	    opened, lk.reads, lk.seen);
}

static void test_device(const char *dev)
{
	struct reg_config c = base(dev);
	struct regulator *r = NULL;
	char err[256] = "";
	uint64_t p, next;
	struct bwreg_version v;
	pid_t hog;
	int fd, ret;

	/* Hardware cycles: missing under x86 TCG, present on arm64's PMU. */
	c.event_type = 0;
	c.event_config = 0;
	if (reg_kmod_ops.open(&r, &c, err, sizeof(err)) == 0 && r != NULL) {
		printf("SKIP regtest-missing-event: this guest has a PMU\n");
		reg_kmod_ops.close(r);
		r = NULL;
	} else {
		check(r == NULL && strstr(err, "PMU") != NULL,
		    "missing-event", "%s", err);
	}

	c = base(dev);
	if (reg_kmod_ops.open(&r, &c, err, sizeof(err)) != 0) {
		check(0, "open", "%s", err);
		return;
	}
	ret = reg_kmod_ops.clock(r, &p, &next);
	check(ret == 0 && next > now_ns() - 100000000,
	    "clock", "period %llu next %llu", (unsigned long long)p,
	    (unsigned long long)next);
	hog = start_hog(1);
	vm_probe_start(1, -1);
	test_plans(r);
	test_static(r);
	test_locks(r);
	test_locks_concurrent(r);
	reg_kmod_ops.close(r);
	vm_probe_stop();
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);

	fd = open(dev, O_RDONLY);
	memset(&v, 0, sizeof(v));
	check(fd >= 0 && ioctl(fd, BWREG_IOC_VERSION, &v) == 0 && !v.running,
	    "close-stops", NULL);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	vm_prefix = "regtest-";
	test_validation();
	if (argc > 1) {
		test_device(argv[1]);
	} else {
		test_page_writes();
		test_seqlock();
	}
	printf("regtest: %d failure(s), %d check(s) skipped (starved guest)\n",
	    nfail, nstarved);
	return nfail ? 1 : 0;
}
