/*
 * thrlat.c - how late the bwreg throttle stops a best-effort task once
 * its CPU's budget is used up; run inside the qemu guest by init.sh while
 * the module regulates the CPU with a budget in a time-like event (cpu
 * cycles or cpu-clock).  A report, not a check: prints one "LATENCY ..."
 * line (timing numbers in TCG are no pass/fail criterion).
 *
 *	thrlat CPU BUDGET TYPE:CONFIG SECONDS
 *
 * The program pins itself to CPU and reads CLOCK_MONOTONIC in a loop; a
 * gap of at least half the unbudgeted part of a period is a throttle.
 * Period n starts at base_ns + n * period_ns (the page header), the
 * counter reaches BUDGET events after BUDGET / rate ns, the rate measured
 * on CPU 0 with perf_event_open for the same event.  The delay of a
 * throttle is its gap's start minus that moment: the period timer's own
 * lateness (the counter restarts in it) plus overflow interrupt, irq_work,
 * wake-up and context switch.  The module's statistics give a second
 * view: T - BUDGET / rate - mean throttled time per throttled period is
 * the mean delay from the overflow to the throttle's start in the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bwreg.h"

#define MAX_GAPS	4096

static uint64_t gap_start[MAX_GAPS];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Events of the budget's kind per ns of this thread's run time, on an
 * unregulated CPU; 0 when the event cannot be opened for a thread. */
static double event_rate(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	uint64_t n = 0, t0, t1;
	volatile uint64_t spin = 0;
	int f;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	f = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (f < 0)
		return 0;
	t0 = thread_ns();
	ioctl(f, PERF_EVENT_IOC_RESET, 0);
	ioctl(f, PERF_EVENT_IOC_ENABLE, 0);
	while (thread_ns() - t0 < 200000000ULL)
		spin++;
	ioctl(f, PERF_EVENT_IOC_DISABLE, 0);
	t1 = thread_ns();
	if (read(f, &n, sizeof(n)) != sizeof(n))
		n = 0;
	close(f);
	return (double)n / (double)(t1 - t0);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int stats(int fd, int cpu, uint64_t *thr, uint64_t *ns)
{
	static struct bwreg_stats st;

	if (ioctl(fd, BWREG_IOC_STATS, &st))
		return -1;
	*thr = st.cpu[cpu].throttles;
	*ns = st.cpu[cpu].throttled_ns;
	return 0;
}

int main(int argc, char **argv)
{
	volatile struct bwreg_page *pg;
	uint64_t budget, config, base, T, t, prev, end, thr0, ns0, thr1, ns1;
	uint64_t periods;
	int64_t *lat;
	double rate, budget_ns, kmean;
	unsigned int type, i, ngap = 0;
	int cpu, secs, fd;
	char *colon;

	if (argc != 5 || (colon = strchr(argv[3], ':')) == NULL) {
		fprintf(stderr, "usage: thrlat CPU BUDGET TYPE:CONFIG SECONDS\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	budget = strtoull(argv[2], NULL, 0);
	type = (unsigned int)strtoul(argv[3], NULL, 0);
	config = strtoull(colon + 1, NULL, 0);
	secs = atoi(argv[4]);
	if (cpu < 0 || cpu >= BWREG_MAX_CPUS || secs <= 0 || secs > 60) {
		fprintf(stderr, "thrlat: bad CPU or SECONDS\n");
		return 2;
	}
	fd = open(BWREG_DEVICE, O_RDWR);
	if (fd < 0) {
		perror(BWREG_DEVICE);
		return 1;
	}
	pg = mmap(NULL, BWREG_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		  fd, 0);
	if (pg == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	base = pg->base_ns;
	T = pg->period_ns;
	if (!(pg->cpumask & (1ULL << cpu)) || T == 0) {
		fprintf(stderr, "thrlat: CPU %d is not regulated\n", cpu);
		return 1;
	}
	pin(0);
	rate = event_rate(type, config);
	budget_ns = (double)budget / (rate > 0 ? rate : 1.0);
	if (pin(cpu)) {
		perror("sched_setaffinity");
		return 1;
	}
	if (stats(fd, cpu, &thr0, &ns0))
		return 1;
	prev = now_ns();
	end = prev + (uint64_t)secs * 1000000000ULL;
	periods = (end - prev) / T;
	while ((t = now_ns()) < end) {
		if ((double)(t - prev) >= ((double)T - budget_ns) / 2 &&
		    ngap < MAX_GAPS)
			gap_start[ngap++] = prev;
		prev = t;
	}
	pin(0);
	if (stats(fd, cpu, &thr1, &ns1))
		return 1;
	lat = calloc(ngap + 1, sizeof(*lat));
	if (lat == NULL)
		return 1;
	for (i = 0; i < ngap; i++)
		lat[i] = (int64_t)((gap_start[i] - base) % T) -
			 (int64_t)budget_ns;
	qsort(lat, ngap, sizeof(*lat), cmp_i64);
	kmean = thr1 > thr0 ? (double)T - budget_ns -
		(double)(ns1 - ns0) / (double)(thr1 - thr0) : 0;
	if (ngap == 0) {
		printf("LATENCY event %u:0x%llx: no throttle seen in %llu periods\n",
		       type, (unsigned long long)config,
		       (unsigned long long)periods);
		return 0;
	}
	printf("LATENCY event %u:0x%llx, T %llu us, budget %llu events = %.0f us (%.3f events/ns%s): the BE task stopped in %u of %llu periods, %.1f us after its budget ran out (median; p90 %.1f, p99 %.1f, max %.1f us; includes the period timer's lateness); kernel overflow-to-throttle mean %.1f us\n",
	       type, (unsigned long long)config, (unsigned long long)(T / 1000),
	       (unsigned long long)budget, budget_ns / 1000, rate,
	       rate > 0 ? "" : ", not measurable: 1 assumed", ngap,
	       (unsigned long long)periods, (double)lat[ngap / 2] / 1000,
	       (double)lat[ngap * 9 / 10] / 1000,
	       (double)lat[ngap * 99 / 100] / 1000,
	       (double)lat[ngap - 1] / 1000, kmean / 1000);
	return 0;
}
