/*
 * vmcheck.h - the result lines of the kmod test programs (bwtest,
 * regtest): "PASS name", "FAIL name: why" or "SKIP name: starved guest:
 * ...", which tests/kmod/run.sh reads from the guest's console.
 */
#ifndef VMCHECK_H
#define VMCHECK_H

#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *vm_prefix = "";	/* before every check's name */
static int nfail, nstarved;

/* CLOCK_MONOTONIC, the module's time base. */
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

static void vm_report(const char *tag, const char *name, const char *why,
    const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

static void vm_report(const char *tag, const char *name, const char *why,
    const char *fmt, va_list ap)
{
	printf("%s %s%s", tag, vm_prefix, name);
	if (why != NULL || fmt != NULL)
		printf(": ");
	if (why != NULL)
		printf("%s%s", why, fmt != NULL ? ": " : "");
	if (fmt != NULL)
		vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

static void check(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vm_report(ok ? "PASS" : "FAIL", name, NULL, fmt, ap);
	va_end(ap);
	if (!ok)
		nfail++;
}

/*
 * Host starvation.  A TCG guest's vCPUs are host threads; on a loaded
 * host (qemu at low priority can get a few percent of a core) a vCPU
 * stops for tens of milliseconds while the guest's clock goes on, so
 * counts and shares per period lose their meaning.  A SCHED_FIFO 60
 * task on the regulated CPU (above the throttle thread, never throttled)
 * sleeps 5 ms at a time; its lateness is time the vCPU did not run.
 */
static volatile uint64_t *vm_lost;	/* [0] ns late, [1] probe alive */
static pid_t vm_probe_pid;

static void vm_probe_start(int cpu, int keep_fd)
{
	struct sched_param sp = { .sched_priority = 60 };
	struct timespec ts = { 0, 5000000 }, a, b;
	cpu_set_t set;
	uint64_t late;

	vm_lost = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (vm_lost == MAP_FAILED) {
		vm_lost = NULL;
		return;
	}
	vm_probe_pid = fork();
	if (vm_probe_pid != 0)
		return;
	if (keep_fd >= 0)
		close(keep_fd);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	sched_setscheduler(0, SCHED_FIFO, &sp);
	vm_lost[1] = 1;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &b);
		late = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ULL +
		    (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
		/* beyond the sleep and a generous wake-up */
		if (late > 8000000)
			vm_lost[0] += late - 5000000;
	}
}

static void vm_probe_stop(void)
{
	if (vm_probe_pid > 0) {
		kill(vm_probe_pid, SIGKILL);
		waitpid(vm_probe_pid, NULL, 0);
		vm_probe_pid = 0;
	}
}

/* A measurement window: starved when the vCPU lost a quarter of it. */
struct vm_window {
	uint64_t	t0;
	uint64_t	lost0;
};

static void vm_window(struct vm_window *w)
{
	w->t0 = now_ns();
	w->lost0 = vm_lost != NULL ? vm_lost[0] : 0;
}

static int vm_starved(const struct vm_window *w)
{
	uint64_t lost = vm_lost != NULL ? vm_lost[0] - w->lost0 : 0;

	return lost * 4 > now_ns() - w->t0;
}

/*
 * Also starved: the regulated CPU ran fewer than half the periods the
 * clock says.
 */
static int starved(uint64_t periods, uint64_t ns, uint64_t period_ns)
{
	return periods * period_ns * 2 < ns;
}

/*
 * A check on counts or shares: PASS when it holds; when it does not,
 * SKIP if the guest was starved meanwhile (run.sh turns many of those
 * into a skipped run), else FAIL.
 */
static void judge(int starve, int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void judge(int starve, int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vm_report(ok ? "PASS" : starve ? "SKIP" : "FAIL", name,
	    !ok && starve ? "starved guest" : NULL, fmt, ap);
	va_end(ap);
	if (!ok && starve)
		nstarved++;
	else if (!ok)
		nfail++;
}

#endif /* VMCHECK_H */
