/*
 * bench_ceiling.c - what one client's lock flips cost another client.
 * A task with many idle threads (4000 by default) runs SCHED_FIFO when
 * permitted, declares priority 50 and flips its lock every few hundred
 * microseconds; each lock change makes the daemon apply the priority
 * ceiling, which scans the task's threads.  Meanwhile a second client
 * measures bwc_get round trips: the rate and p99 with the flipper, next
 * to the same without it.  The ceiling's scan runs on its own thread
 * (daemon/ceiling.h), so the ratio should stay near 1.
 *
 * usage: bench_ceiling [-o FILE] [-t SECONDS] [-n THREADS] [BWSCHED]
 */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwsched/bwclient.h"
#include "bdaemon.h"

#define MAX_SAMPLES	2000000

static void *
idle_main(void *arg)
{
	pause();
	return NULL;
}

/* The flipping task, in a child process of its own (its own pid). */
static void
flipper(const char *sock, int nthreads, int ready_fd)
{
	struct bwc_task_params	p = { "flipper", 1000000, 50, 0, 0 };
	struct sched_param	sp = { .sched_priority = 10 };
	pthread_attr_t		a;
	pthread_t		th;
	bwc_t			*h;
	int			i;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th, &a, idle_main, NULL) != 0)
			break;
	(void)sched_setscheduler(0, SCHED_FIFO, &sp);	/* best effort */
	h = bwc_open(sock, "flipper", BWC_NO_RECONNECT);
	if (h == NULL || bwc_task_register(h, &p) < 0)
		_exit(1);
	(void)!write(ready_fd, &i, sizeof(i));
	for (;;) {
		bwc_lock(h);
		usleep(300);
		bwc_unlock(h);
		usleep(300);
	}
}

static int
cmp_d(const void *x, const void *y)
{
	double	a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* bwc_get round trips for secs: the rate, and the p99 in *p99 (s). */
static double
measure(const char *sock, double secs, double *v, double *p99)
{
	char	buf[64];
	bwc_t	*h = bwc_open(sock, "measure", BWC_NO_RECONNECT);
	double	t0, t, end;
	long	n = 0;

	*p99 = 0;
	if (h == NULL)
		return -1;
	t0 = bd_now();
	end = t0 + secs;
	for (t = t0; t < end && n < MAX_SAMPLES; n++) {
		if (bwc_get(h, "policy", buf, sizeof(buf)) < 0)
			break;
		v[n] = bd_now() - t;
		t += v[n];
	}
	bwc_close(h);
	if (n == 0)
		return -1;
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	*p99 = v[(size_t)((double)(n - 1) * 0.99)];
	return (double)n / (t - t0);
}

int
main(int argc, char **argv)
{
	struct bdaemon	 d;
	const char	*outpath = NULL;
	double		 secs = 3, alone, loaded, p_alone, p_loaded, *v;
	int		 nthreads = 4000, o, pfd[2], made = 0;
	pid_t		 child;
	FILE		*out = NULL;

	while ((o = getopt(argc, argv, "o:t:n:")) != -1) {
		switch (o) {
		case 'o':
			outpath = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'n':
			nthreads = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: bench_ceiling [-o FILE] "
			    "[-t SECONDS] [-n THREADS] [BWSCHED]\n");
			return 2;
		}
	}
	if (secs < 0.5)
		secs = 0.5;
	if ((v = calloc(MAX_SAMPLES, sizeof(*v))) == NULL || pipe(pfd) < 0)
		return 1;
	if (bd_setup(&d, "bench_ceiling", outpath, optind < argc ? argv[optind] :
	    NULL, &out) < 0)
		return 1;
	alone = measure(d.sock, secs, v, &p_alone);
	if ((child = fork()) == 0) {
		close(pfd[0]);
		flipper(d.sock, nthreads, pfd[1]);
	}
	close(pfd[1]);
	if (child < 0 || read(pfd[0], &made, sizeof(made)) !=
	    (ssize_t)sizeof(made)) {
		fprintf(stderr, "bench_ceiling: the flipping task failed\n");
		bd_stop(&d);
		return 1;
	}
	loaded = measure(d.sock, secs, v, &p_loaded);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	bd_stop(&d);
	if (alone <= 0 || loaded <= 0) {
		fprintf(stderr, "bench_ceiling: the measuring client failed\n");
		return 1;
	}
	bd_out(out, "other client alone: %.0f ops/s, p99 %.0f us\n", alone,
	    p_alone * 1e6);
	bd_out(out, "with a %d-thread task flipping its lock: %.0f ops/s, "
	    "p99 %.0f us\n", made, loaded, p_loaded * 1e6);
	bd_out(out, "ceiling cost: rate ratio %.2f, p99 ratio %.2f\n",
	    loaded / alone, p_loaded / p_alone);
	if (out != NULL)
		fclose(out);
	free(v);
	return 0;
}
