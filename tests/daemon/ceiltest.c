/*
 * ceiltest.c - the priority ceiling, end to end: this process registers
 * two tasks (priority 10 and 50) through libbwclient, runs its main
 * thread SCHED_FIFO 10 and a helper thread SCHED_OTHER, takes the lock
 * through the task page and expects the daemon to raise the main thread
 * to 50 (and leave the other alone), then to put it back on unlock.
 * Exit 77 when SCHED_FIFO is not permitted here.  "capped": see capped().
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bwsched/bwclient.h>

static pid_t	other_tid;
static int	other_stop;

static void *
other_main(void *arg)
{
	other_tid = (pid_t)syscall(SYS_gettid);
	while (!__atomic_load_n(&other_stop, __ATOMIC_RELAXED))
		usleep(1000);
	return NULL;
}

static bwc_t *
task(const char *sock, const char *name, int prio)
{
	struct bwc_task_params	tp;
	bwc_t			*c;

	if ((c = bwc_open(sock, name, BWC_NO_RECONNECT)) == NULL) {
		fprintf(stderr, "connect: %s\n", strerror(errno));
		exit(1);
	}
	memset(&tp, 0, sizeof(tp));
	tp.name = name;
	tp.period_ns = 10000000;
	tp.priority = prio;
	if (bwc_task_register(c, &tp) < 0) {
		fprintf(stderr, "register %s: %s\n", name, bwc_strerror(c));
		exit(1);
	}
	return c;
}

/* Wait up to 2 s for tid to reach (policy, prio). */
static int
wait_for(pid_t tid, int policy, int prio)
{
	struct sched_param	sp;
	int			i, pol = -1;

	for (i = 0; i < 200; i++) {
		pol = sched_getscheduler(tid);
		if (pol == policy && sched_getparam(tid, &sp) == 0 &&
		    (policy != SCHED_FIFO || sp.sched_priority == prio))
			return 0;
		usleep(10000);
	}
	sched_getparam(tid, &sp);
	fprintf(stderr, "tid %d: policy %d prio %d, wanted %d/%d\n", (int)tid,
	    pol, sp.sched_priority, policy, prio);
	return -1;
}

/*
 * capped: run (by the test script) SCHED_FIFO 1 with a hard
 * RLIMIT_RTPRIO of 0 and no CAP_SYS_NICE, so it could not raise itself.
 * It declares 99 and takes the lock: the daemon must not raise it.  It
 * then stays registered a few seconds, for the script to check that its
 * declaration does not lift the ceiling of others.
 */
static int
capped(const char *sock)
{
	struct sched_param	sp;
	bwc_t			*c;

	if (sched_getscheduler(0) != SCHED_FIFO ||
	    sched_getparam(0, &sp) < 0 || sp.sched_priority != 1) {
		printf("SKIP: not started SCHED_FIFO 1\n");
		return 77;
	}
	c = task(sock, "capped-99", 99);
	bwc_lock(c);
	usleep(300000);
	if (sched_getparam(0, &sp) < 0 || sp.sched_priority != 1) {
		fprintf(stderr, "FAIL: raised to %d without the right to\n",
		    sp.sched_priority);
		return 1;
	}
	bwc_unlock(c);
	printf("registered\n");
	fflush(stdout);
	sleep(4);
	bwc_close(c);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sched_param	sp = { .sched_priority = 10 };
	pthread_t		th;
	bwc_t			*lo, *hi;
	int			rc = 1;

	if (argc == 3 && strcmp(argv[2], "capped") == 0)
		return capped(argv[1]);
	if (argc != 2) {
		fprintf(stderr, "usage: ceiltest SOCKET [capped]\n");
		return 2;
	}
	/* created first, so it stays SCHED_OTHER */
	pthread_create(&th, NULL, other_main, NULL);
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		printf("SKIP: SCHED_FIFO not permitted: %s\n", strerror(errno));
		__atomic_store_n(&other_stop, 1, __ATOMIC_RELAXED);
		pthread_join(th, NULL);
		return 77;
	}
	lo = task(argv[1], "ceil-lo", 10);
	hi = task(argv[1], "ceil-hi", 50);
	while (__atomic_load_n(&other_tid, __ATOMIC_RELAXED) == 0)
		usleep(1000);
	bwc_lock(lo);
	if (wait_for(0, SCHED_FIFO, 50) < 0) {
		fprintf(stderr, "FAIL: not raised to the ceiling\n");
		goto out;
	}
	if (wait_for(other_tid, SCHED_OTHER, 0) < 0) {
		fprintf(stderr, "FAIL: a normal thread was made real-time\n");
		goto out;
	}
	bwc_unlock(lo);
	if (wait_for(0, SCHED_FIFO, 10) < 0) {
		fprintf(stderr, "FAIL: priority not restored\n");
		goto out;
	}
	printf("ceiling: raised to 50 while locked, restored to 10\n");
	rc = 0;
out:
	__atomic_store_n(&other_stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	bwc_close(hi);
	bwc_close(lo);
	return rc;
}
