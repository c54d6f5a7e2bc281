/*
 * bwtest.c - checks of the bwreg module, run inside the qemu guest
 * (tests/kmod/run.sh).  Statically linked; prints one "PASS name" or
 * "FAIL name: why" line per check and exits with the number of failures.
 *
 * A hog pinned to the regulated CPU counts loop iterations into shared
 * memory; its rate under a budget vs. unlimited shows the throttle.  The
 * event is the software cpu-clock, so a budget is in nanoseconds of
 * counted time per period, unless BWTEST_EVENT=TYPE:CONFIG names another
 * time-like event (run.sh: the arm64 PMU's cycle counter, which QEMU runs
 * at 1 GHz, so the budgets below mean the same time).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwreg.h"

#define HOG_CPU		1
#define PERIOD_NS	10000000ULL	/* 10 ms: cheap under TCG */
#define SMALL_BUDGET	1000000ULL	/* 1 ms of cpu-clock per period */

static int nfail;
static int fd = -1;
static volatile struct bwreg_page *pg;
static volatile uint64_t *hog_count;
static pid_t hog_pid;

static void check(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s", ok ? "PASS" : "FAIL", name);
	if (fmt) {
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	fflush(stdout);
	if (!ok)
		nfail++;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void pin_pid(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(pid, sizeof(set), &set))
		perror("sched_setaffinity");
}

static void pin(int cpu)
{
	pin_pid(0, cpu);
}

static struct bwreg_config base_config(void)
{
	struct bwreg_config c;
	const char *ev;

	memset(&c, 0, sizeof(c));
	c.version = BWREG_UAPI_VERSION;
	c.size = sizeof(c);
	c.period_ns = PERIOD_NS;
	c.cpumask = 1ULL << HOG_CPU;
	c.event_type = PERF_TYPE_SOFTWARE;
	c.event_config = PERF_COUNT_SW_CPU_CLOCK;
	ev = getenv("BWTEST_EVENT");
	if (ev && strchr(ev, ':')) {
		c.event_type = (uint32_t)strtoul(ev, NULL, 0);
		c.event_config = strtoull(strchr(ev, ':') + 1, NULL, 0);
	}
	c.rho_milli = 2000;
	c.flags = BWREG_CFG_TFS_NICE;
	c.static_events = BWREG_UNLIMITED;
	c.failsafe_events = BWREG_UNLIMITED;
	return c;
}

static int configure(struct bwreg_config *c)
{
	return ioctl(fd, BWREG_IOC_CONFIG, c) ? -errno : 0;
}

static struct bwreg_cpu_stats cpu_stats(void)
{
	struct bwreg_stats st;

	memset(&st, 0, sizeof(st));
	if (ioctl(fd, BWREG_IOC_STATS, &st))
		perror("BWREG_IOC_STATS");
	return st.cpu[HOG_CPU];
}

static void start_hog(void)
{
	hog_count = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (hog_count == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	hog_pid = fork();
	if (hog_pid == 0) {
		pin(HOG_CPU);
		for (;;)
			(*hog_count)++;
	}
	pin(0);
	sleep_ms(200);
}

static void write_budget(unsigned int cpu, uint64_t period, uint64_t events)
{
	volatile struct bwreg_budget *b = &pg->budget[cpu];

	b->period = BWREG_NO_PERIOD;
	atomic_thread_fence(memory_order_release);
	b->events = events;
	atomic_thread_fence(memory_order_release);
	b->period = period;
}

static void test_version_and_validation(void)
{
	struct bwreg_version v;
	struct bwreg_config c;

	int r;

	memset(&v, 0, sizeof(v));
	r = ioctl(fd, BWREG_IOC_VERSION, &v);
	check(r == 0 &&
	      v.uapi == BWREG_UAPI_VERSION && v.map_size == BWREG_MAP_SIZE &&
	      v.max_cpus == BWREG_MAX_CPUS, "version",
	      "uapi %u map %u cpus %u", v.uapi, v.map_size, v.nr_cpu_ids);
	c = base_config();
	c.version = 99;
	check(configure(&c) == -EPROTO, "reject-version", NULL);
	c = base_config();
	c.period_ns = 10;
	check(configure(&c) == -EINVAL, "reject-period", NULL);
	c = base_config();
	c.cpumask = 1ULL << 63;
	check(configure(&c) == -EINVAL, "reject-cpumask", NULL);
	c = base_config();
	c.reserved[2] = 1;
	check(configure(&c) == -EINVAL, "reject-reserved", NULL);
	c = base_config();
	c.rho_milli = BWREG_MAX_RHO_MILLI + 1;
	check(configure(&c) == -EINVAL, "reject-rho", NULL);
	check(ioctl(fd, 0x1234, 0) == -1 && errno == ENOTTY, "reject-ioctl",
	      NULL);
}

/* There is no hardware PMU under TCG: the default event must fail cleanly. */
static void test_missing_event(void)
{
	struct bwreg_config c = base_config();
	int r;

	c.event_type = PERF_TYPE_HARDWARE;
	c.event_config = PERF_COUNT_HW_CACHE_MISSES;
	r = configure(&c);
	if (r == 0) {
		printf("SKIP missing-event: this guest has a PMU\n");
		return;
	}
	check(r == -ENODEV || r == -EOPNOTSUPP, "missing-event",
	      "config failed with %s", strerror(-r));
}

static void test_map(void)
{
	void *p = mmap(NULL, BWREG_MAP_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);
	void *big = mmap(NULL, 4 * BWREG_MAP_SIZE, PROT_READ, MAP_SHARED,
			 fd, 0);

	void *priv = mmap(NULL, BWREG_MAP_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE, fd, 0);

	check(big == MAP_FAILED, "mmap-too-big", NULL);
	check(priv == MAP_FAILED, "mmap-private-refused", NULL);
	if (p == MAP_FAILED) {
		check(0, "mmap", "%s", strerror(errno));
		exit(1);
	}
	pg = p;
	check(pg->magic == BWREG_MAGIC && pg->version == BWREG_UAPI_VERSION,
	      "mmap", "magic 0x%x", pg->magic);
}

/* The hog's run time (ns) from /proc/PID/schedstat. */
static uint64_t hog_runtime(void)
{
	char path[64];
	unsigned long long run = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)hog_pid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &run) != 1)
		run = 0;
	fclose(f);
	return run;
}

/* Share of the regulated CPU the hog got, and its loop rate, over ms. */
static double hog_share(unsigned int ms, double *rate)
{
	uint64_t r0 = hog_runtime(), c0 = *hog_count, t0 = now_ns();
	uint64_t r1, c1, t1;

	sleep_ms(ms);
	r1 = hog_runtime();
	c1 = *hog_count;
	t1 = now_ns();
	*rate = (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
	return (double)(r1 - r0) / (double)(t1 - t0);
}

/* Highest nice the hog shows over a few samples (the penalty comes and
 * goes with throttled periods). */
static int hog_max_nice(unsigned int *steps)
{
	int i, n, best = -100;
	unsigned int st;

	*steps = 0;
	for (i = 0; i < 20; i++) {
		errno = 0;
		n = getpriority(PRIO_PROCESS, (id_t)hog_pid);
		if (errno == 0 && n > best)
			best = n;
		st = (pg->stats[HOG_CPU].flags & BWREG_CPU_NICE_MASK) >>
		     BWREG_CPU_NICE_SHIFT;
		if (st > *steps)
			*steps = st;
		sleep_ms(10);
	}
	return best;
}

static void test_throttle(void)
{
	struct bwreg_config c = base_config();
	struct bwreg_cpu_stats s0, s1, s2;
	double free_share, thr_share, free2, rate0, rate1, rate2;
	uint64_t dp, dthr, dns, dtfs;
	unsigned int steps;
	int r = configure(&c), nice;

	check(r == 0, "config-swevent", "%s", r ? strerror(-r) : "ok");
	if (r)
		return;
	check(pg->cpumask == c.cpumask && pg->period_ns == PERIOD_NS,
	      "page-header", NULL);
	sleep_ms(100);
	free_share = hog_share(1000, &rate0);

	pg->static_events[HOG_CPU] = SMALL_BUDGET;
	sleep_ms(100);
	s0 = cpu_stats();
	thr_share = hog_share(1000, &rate1);
	s1 = cpu_stats();
	dp = s1.periods - s0.periods;
	dthr = s1.throttles - s0.throttles;
	dns = s1.throttled_ns - s0.throttled_ns;
	dtfs = s1.tfs_charge_ns - s0.tfs_charge_ns;
	check(thr_share < 0.5 && free_share > 0.8, "throttle-progress",
	      "hog got %.0f%% of its CPU under 1 ms of 10 ms, %.0f%% free (loop rate %.3g vs %.3g/s)",
	      100 * thr_share, 100 * free_share, rate1, rate0);
	check(dp >= 20 && dthr * 10 >= dp * 6, "throttle-count",
	      "%llu throttles in %llu periods", (unsigned long long)dthr,
	      (unsigned long long)dp);
	check(dns * 10 >= dp * PERIOD_NS * 4, "throttle-time",
	      "throttled %llu ns in %llu periods", (unsigned long long)dns,
	      (unsigned long long)dp);
	/* Throttles that hit while no user task ran are not charged. */
	check(dtfs * 10 >= 2 * dns * 8 && dtfs <= 2 * dns &&
	      s1.last_pid == (uint32_t)hog_pid, "tfs-charge",
	      "rho 2: charged %llu ns for %llu ns throttled, task %u (hog %d)",
	      (unsigned long long)dtfs, (unsigned long long)dns,
	      s1.last_pid, (int)hog_pid);
	/* The page is mirrored at each boundary: at most a period behind. */
	s2 = cpu_stats();
	check(pg->stats[HOG_CPU].throttles >= s1.throttles - 2 &&
	      pg->stats[HOG_CPU].throttles <= s2.throttles &&
	      pg->stats[HOG_CPU].periods >= s1.periods, "page-stats",
	      "page %llu throttles, ioctl %llu",
	      (unsigned long long)pg->stats[HOG_CPU].throttles,
	      (unsigned long long)s2.throttles);
	nice = hog_max_nice(&steps);
	check(nice >= 5 && steps >= 1, "tfs-nice-penalty",
	      "hog nice up to %d, page up to %u steps", nice, steps);

	pg->static_events[HOG_CPU] = BWREG_UNLIMITED;
	sleep_ms(100);
	s1 = cpu_stats();
	free2 = hog_share(1000, &rate2);
	s2 = cpu_stats();
	check(free2 > 0.8 && s2.throttles == s1.throttles,
	      "unlimited-runs-free", "hog got %.0f%%, %llu throttles",
	      100 * free2, (unsigned long long)(s2.throttles - s1.throttles));
	nice = getpriority(PRIO_PROCESS, (id_t)hog_pid);
	check(nice == 0, "tfs-nice-lifted", "hog nice %d", nice);
}

static void test_tagged_budgets(void)
{
	struct bwreg_cpu_stats s0, s1;
	uint64_t p, end, last = 0, written = 0;

	/* A budget tagged with a past period is ignored (static applies). */
	write_budget(HOG_CPU, pg->period - 3, SMALL_BUDGET);
	s0 = cpu_stats();
	sleep_ms(300);
	s1 = cpu_stats();
	check(s1.throttles == s0.throttles &&
	      s1.fallbacks - s0.fallbacks + 1 >= s1.periods - s0.periods,
	      "stale-budget-ignored", "%llu throttles, %llu fallbacks",
	      (unsigned long long)(s1.throttles - s0.throttles),
	      (unsigned long long)(s1.fallbacks - s0.fallbacks));

	/* Budgets written for the next period each period are used. */
	s0 = cpu_stats();
	end = now_ns() + 500000000ULL;
	while (now_ns() < end) {
		p = pg->period;
		if (p != last) {
			write_budget(HOG_CPU, p + 1, SMALL_BUDGET);
			last = p;
			written++;
		}
		sleep_ms(1);
	}
	s1 = cpu_stats();
	/* The static budget is unlimited: every throttle used a dynamic one. */
	check(s1.throttles - s0.throttles >= 5 &&
	      s1.throttles - s0.throttles <= s1.periods - s0.periods -
	      (s1.fallbacks - s0.fallbacks) + 1,
	      "dynamic-budget", "%llu periods, %llu throttles, %llu fallbacks, %llu written",
	      (unsigned long long)(s1.periods - s0.periods),
	      (unsigned long long)(s1.throttles - s0.throttles),
	      (unsigned long long)(s1.fallbacks - s0.fallbacks),
	      (unsigned long long)written);
	sleep_ms(30);	/* let the last dynamic budget expire */
}

static void beat_for(unsigned int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ULL;

	while (now_ns() < end) {
		pg->heartbeat++;
		sleep_ms(5);
	}
}

static void test_heartbeat(void)
{
	struct bwreg_config c = base_config();
	struct bwreg_cpu_stats s0, s1;
	int r;

	c.heartbeat_timeout_ns = 100000000ULL;
	c.failsafe_events = SMALL_BUDGET;
	r = configure(&c);
	check(r == 0, "config-heartbeat", "%s", r ? strerror(-r) : "ok");
	if (r)
		return;
	s0 = cpu_stats();
	beat_for(400);
	s1 = cpu_stats();
	check(s1.failsafe == s0.failsafe && !pg->failsafe &&
	      s1.throttles - s0.throttles <= 1, "heartbeat-alive",
	      "%llu fail-safe periods, %llu throttles",
	      (unsigned long long)(s1.failsafe - s0.failsafe),
	      (unsigned long long)(s1.throttles - s0.throttles));
	s0 = s1;
	sleep_ms(500);
	s1 = cpu_stats();
	check(pg->failsafe && s1.failsafe - s0.failsafe >= 10 &&
	      (s1.throttles - s0.throttles) * 10 >=
	      (s1.failsafe - s0.failsafe) * 6, "heartbeat-failsafe",
	      "%llu fail-safe periods, %llu throttles",
	      (unsigned long long)(s1.failsafe - s0.failsafe),
	      (unsigned long long)(s1.throttles - s0.throttles));
	beat_for(200);
	check(!pg->failsafe, "heartbeat-resumed", NULL);
}

/* A task that page-faults all the time: the "memory-intensive" task. */
static void fault_loop(volatile uint64_t *count)
{
	size_t len = 64 * 4096, i;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	for (;;) {
		for (i = 0; i < len; i += 4096) {
			p[i] = 1;
			(*count)++;
		}
		madvise(p, len, MADV_DONTNEED);
	}
}

static pid_t spawn(int faulting, volatile uint64_t *count)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	pin(HOG_CPU);
	if (faulting)
		fault_loop(count);
	for (;;)
		(*count)++;
}

/*
 * TFS ([BWLOCK++] Fig. 4): a faulting task and a CPU task share the
 * regulated CPU; the budget counts page faults.  Under plain CFS the
 * faulting task is favoured and the core spends most periods throttled;
 * with the TFS penalty the CPU task runs more and the core is throttled
 * less.
 */
static double tfs_round(uint32_t rho_milli, uint32_t flags, double *cpu_rate)
{
	struct bwreg_config c = base_config();
	volatile uint64_t *cnt = hog_count + 8;
	struct bwreg_cpu_stats s0, s1;
	pid_t mem, cpu;
	uint64_t c0, t0;

	c.event_type = PERF_TYPE_SOFTWARE;
	c.event_config = PERF_COUNT_SW_PAGE_FAULTS;
	c.rho_milli = rho_milli;
	c.flags = flags;
	c.static_events = 20;
	if (configure(&c))
		return -1;
	cnt[0] = cnt[1] = 0;
	mem = spawn(1, &cnt[0]);
	cpu = spawn(0, &cnt[1]);
	sleep_ms(300);
	s0 = cpu_stats();
	c0 = cnt[1];
	t0 = now_ns();
	sleep_ms(1500);
	s1 = cpu_stats();
	*cpu_rate = (double)(cnt[1] - c0) * 1e9 / (double)(now_ns() - t0);
	kill(mem, SIGKILL);
	kill(cpu, SIGKILL);
	waitpid(mem, NULL, 0);
	waitpid(cpu, NULL, 0);
	printf("tfs round rho %u: %llu events %llu throttles %llu periods, mem %llu cpu %llu\n",
	       rho_milli, (unsigned long long)(s1.events - s0.events),
	       (unsigned long long)(s1.throttles - s0.throttles),
	       (unsigned long long)(s1.periods - s0.periods),
	       (unsigned long long)cnt[0], (unsigned long long)cnt[1]);
	if (s1.periods == s0.periods)
		return -1;
	return (double)(s1.throttled_ns - s0.throttled_ns) /
	       (double)((s1.periods - s0.periods) * PERIOD_NS);
}

static void test_tfs_fairness(void)
{
	double cfs_cpu, tfs_cpu, cfs_thr, tfs_thr;

	kill(hog_pid, SIGSTOP);
	cfs_thr = tfs_round(0, 0, &cfs_cpu);
	tfs_thr = tfs_round(3000, BWREG_CFG_TFS_NICE, &tfs_cpu);
	kill(hog_pid, SIGCONT);
	check(cfs_thr > 0.2 && tfs_thr >= 0 && tfs_thr < 0.8 * cfs_thr &&
	      tfs_cpu > 1.2 * cfs_cpu, "tfs-fairness",
	      "throttled %.0f%% -> %.0f%% of the time, CPU task %.3g -> %.3g/s",
	      100 * cfs_thr, 100 * tfs_thr, cfs_cpu, tfs_cpu);
}

static int set_online(int cpu, int on)
{
	char path[64];
	int f, ok;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	f = open(path, O_WRONLY);
	if (f < 0)
		return -1;
	ok = write(f, on ? "1" : "0", 1) == 1;
	close(f);
	return ok ? 0 : -1;
}

/* CPU hotplug: the regulator goes away with the CPU and comes back. */
static void test_hotplug(void)
{
	struct bwreg_config c = base_config();
	struct bwreg_cpu_stats s0, s1;

	c.static_events = SMALL_BUDGET;
	if (configure(&c))
		return;
	if (set_online(HOG_CPU, 0)) {
		printf("SKIP hotplug: cannot offline CPU %d\n", HOG_CPU);
		return;
	}
	s0 = cpu_stats();
	check(!(s0.flags & BWREG_CPU_ACTIVE), "hotplug-offline",
	      "flags 0x%x", s0.flags);
	sleep_ms(100);
	check(set_online(HOG_CPU, 1) == 0, "hotplug-online", NULL);
	pin_pid(hog_pid, HOG_CPU);	/* the hog lost its CPU: put it back */
	s0 = cpu_stats();
	sleep_ms(300);
	s1 = cpu_stats();
	check((s1.flags & BWREG_CPU_ACTIVE) &&
	      s1.throttles - s0.throttles >= 15, "hotplug-regulated",
	      "flags 0x%x, %llu throttles in %llu periods", s1.flags,
	      (unsigned long long)(s1.throttles - s0.throttles),
	      (unsigned long long)(s1.periods - s0.periods));
}

static void test_stop(void)
{
	struct bwreg_version v;
	struct bwreg_stats st;

	check(ioctl(fd, BWREG_IOC_STOP) == 0, "stop", NULL);
	memset(&st, 0, sizeof(st));
	memset(&v, 0, sizeof(v));
	check(ioctl(fd, BWREG_IOC_STATS, &st) == 0 && st.cpumask == 0 &&
	      ioctl(fd, BWREG_IOC_VERSION, &v) == 0 && !v.running &&
	      !(st.cpu[HOG_CPU].flags & BWREG_CPU_THROTTLED),
	      "stopped-state", NULL);
}

/* bwtest --throttles CPU: print that CPU's throttle count (for init.sh). */
static int print_throttles(const char *cpu)
{
	struct bwreg_stats st;
	int c = atoi(cpu);

	memset(&st, 0, sizeof(st));
	if (c < 0 || c >= BWREG_MAX_CPUS || ioctl(fd, BWREG_IOC_STATS, &st))
		return 1;
	printf("%llu\n", (unsigned long long)st.cpu[c].throttles);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(BWREG_DEVICE, O_RDWR);
	if (fd >= 0 && argc == 3 && strcmp(argv[1], "--throttles") == 0)
		return print_throttles(argv[2]);
	if (fd < 0) {
		check(0, "open", "%s: %s", BWREG_DEVICE, strerror(errno));
		return 1;
	}
	test_version_and_validation();
	test_missing_event();
	test_map();
	start_hog();
	test_throttle();
	test_tagged_budgets();
	test_heartbeat();
	test_tfs_fairness();
	test_hotplug();
	test_stop();
	kill(hog_pid, SIGKILL);
	waitpid(hog_pid, NULL, 0);
	munmap((void *)pg, BWREG_MAP_SIZE);
	close(fd);
	printf("bwtest: %d failure(s)\n", nfail);
	return nfail ? 1 : 0;
}
