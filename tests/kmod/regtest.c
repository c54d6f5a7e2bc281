/*
 * regtest.c - checks of the daemon's kmod regulator backend
 * (daemon/reg_kmod.c).
 *
 * Without arguments (make check on the host): configuration validation
 * and the error for a missing device.  With a device path (inside the
 * qemu guest, module loaded): the backend end to end - configure, drive
 * the period clock with tagged budgets and heartbeats as the daemon's
 * period thread does, static budgets, rho, stats, close.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwreg.h"
#include "regulator.h"

static int nfail;

static void check(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s regtest-%s", ok ? "PASS" : "FAIL", name);
	if (fmt != NULL) {
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

static struct reg_config base(const char *dev)
{
	struct reg_config c;

	memset(&c, 0, sizeof(c));
	c.period_ns = 10000000;
	c.ncores = 1;
	c.cores[0] = 1;
	c.rho = 1.0;
	c.failsafe_events = REG_UNLIMITED;
	c.heartbeat_timeout_ns = 200000000;
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000ULL),
	    (long)(t % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	    EINTR)
		;
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

/* The daemon's period loop: wake 3 ms before each boundary, apply. */
static void drive(struct regulator *r, unsigned int periods, uint64_t budget)
{
	uint64_t p, p0, next;

	reg_kmod_ops.clock(r, &p0, &next);
	do {
		reg_kmod_ops.clock(r, &p, &next);
		sleep_until(next - 3000000);
		reg_kmod_ops.apply(r, p + 1, &budget, 1);
		reg_kmod_ops.heartbeat(r);
		sleep_until(next + 1000000);
	} while (p - p0 < periods);
}

static void test_device(const char *dev)
{
	struct reg_config c = base(dev);
	struct reg_stats s0, s1;
	struct regulator *r = NULL;
	char err[256] = "";
	uint64_t small = 1000000, p, next, dp;
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
	check(ret == 0 && next > now_ns() - 20000000,
	    "clock", "period %llu next %llu", (unsigned long long)p,
	    (unsigned long long)next);
	hog = start_hog(1);
	reg_kmod_ops.stats(r, &s0);
	drive(r, 60, small);
	reg_kmod_ops.stats(r, &s1);
	dp = s1.period - s0.period;
	check(s1.ncores == 1 && dp >= 20 &&
	    s1.core[0].throttles - s0.core[0].throttles >= dp / 3 &&
	    s1.core[0].fallbacks - s0.core[0].fallbacks < dp / 2,
	    "apply", "%llu periods: %llu throttles, %llu fallbacks",
	    (unsigned long long)dp,
	    (unsigned long long)(s1.core[0].throttles - s0.core[0].throttles),
	    (unsigned long long)(s1.core[0].fallbacks - s0.core[0].fallbacks));

	/* No fresh budgets: the static one applies, counted as fallbacks. */
	check(reg_kmod_ops.set_static(r, &small, 1) == 0 &&
	    reg_kmod_ops.set_static(r, &small, 2) == -EINVAL, "set-static",
	    NULL);
	s0 = s1;
	for (int i = 0; i < 30; i++) {
		reg_kmod_ops.heartbeat(r);
		usleep(10000);
	}
	reg_kmod_ops.stats(r, &s1);
	dp = s1.period - s0.period;
	check(dp >= 20 &&
	    (s1.core[0].fallbacks - s0.core[0].fallbacks) * 10 >= dp * 7 &&
	    (s1.core[0].throttles - s0.core[0].throttles) * 10 >= dp * 5,
	    "static-fallback", "%llu periods: %llu fallbacks, %llu throttles",
	    (unsigned long long)dp,
	    (unsigned long long)(s1.core[0].fallbacks - s0.core[0].fallbacks),
	    (unsigned long long)(s1.core[0].throttles - s0.core[0].throttles));
	check(reg_kmod_ops.set_rho(r, 3.0) == 0 &&
	    reg_kmod_ops.set_rho(r, -1) == -EINVAL &&
	    reg_kmod_ops.apply(r, 5, &small, 2) == -EINVAL, "rho-and-args",
	    NULL);
	reg_kmod_ops.close(r);
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
	test_validation();
	if (argc > 1)
		test_device(argv[1]);
	printf("regtest: %d failure(s)\n", nfail);
	return nfail ? 1 : 0;
}
