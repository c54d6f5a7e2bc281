/*
 * bench_intercept - added cost of the CUDA interposer per intercepted
 * driver call, against the fake driver (whose calls cost a few ns):
 *
 *   direct   no interposer
 *   absent   interposer preloaded, no daemon (no-op sink)
 *   up       interposer + libbwclient + a running daemon (sim regulator):
 *            every state change is an atomic store into the task page
 *
 * Two loops: launches on a stream that is already active (the common
 * case: no state change), and launch + synchronize pairs (two state
 * changes, each reaching the task page).  Best of several rounds.
 * Run from the top build directory: ./bench/bench_intercept -o FILE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../fakecuda/fakecuda.h"
#include "monoclock.h"

#define ITER	200000
#define ROUNDS	7

static double
now(void)
{
	return (double)monoclock_ns();
}

/* The child: measure, print "steady_ns pair_ns". */
static int
measure(void)
{
	double t, best_steady = 1e30, best_pair = 1e30;
	CUstream s = (CUstream)0x1000, s2 = (CUstream)0x2000;
	int r, i;

	cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
	for (r = 0; r < ROUNDS; r++) {
		t = now();
		for (i = 0; i < ITER; i++)
			cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, s, NULL,
			    NULL);
		t = (now() - t) / ITER;
		if (t < best_steady)
			best_steady = t;
		t = now();
		for (i = 0; i < ITER; i++) {
			cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, s2, NULL,
			    NULL);
			cuStreamSynchronize(s2);
		}
		t = (now() - t) / (2.0 * ITER);
		if (t < best_pair)
			best_pair = t;
	}
	cuCtxSynchronize();
	printf("%.1f %.1f\n", best_steady, best_pair);
	return 0;
}

/* Run ourselves in mode with extra environment; read the two numbers. */
static int
run(const char *self, const char *preload, char *const env[], double *st,
    double *pair)
{
	int fd[2], status, i;
	FILE *f;
	pid_t pid;

	if (pipe(fd) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		for (i = 0; env[i] != NULL; i++)
			putenv(env[i]);
		if (preload != NULL)
			setenv("LD_PRELOAD", preload, 1);
		setenv("BENCH_INTERCEPT_CHILD", "1", 1);
		execl(self, self, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	i = f != NULL && fscanf(f, "%lf %lf", st, pair) == 2;
	if (f != NULL)
		fclose(f);
	waitpid(pid, &status, 0);
	return i && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static pid_t
start_daemon(const char *dir, const char *sock)
{
	char conf[512], cmd[1024];
	pid_t pid;
	FILE *f;
	int i;

	snprintf(conf, sizeof(conf), "%s/conf", dir);
	if ((f = fopen(conf, "w")) == NULL)
		return -1;
	fputs("group =\n", f);
	fclose(f);
	if ((pid = fork()) == 0) {
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(127);
		execl("./daemon/bwsched", "bwsched", "-f", "--regulator=sim",
		    "-c", conf, "-s", sock, (char *)NULL);
		_exit(127);
	}
	snprintf(cmd, sizeof(cmd), "./client/bwctl -s '%s' status "
	    ">/dev/null 2>&1", sock);
	for (i = 0; i < 200; i++) {
		if (system(cmd) == 0)
			return pid;
		usleep(50000);
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	return -1;
}

int
main(int argc, char **argv)
{
	const char *out = NULL, *preload = "./client/cuda/.libs/libbwcuda.so";
	char dir[] = "/tmp/bench_intercept.XXXXXX", sock[256], lib[64];
	char sockenv[300], self[4096];
	char *none[] = { NULL };
	char *absent[] = { sockenv, lib, (char *)"ASAN_OPTIONS="
	    "verify_asan_link_order=0:detect_leaks=0", NULL };
	char *up[] = { sockenv, lib, (char *)"BWSCHED_TASK_NAME=bench",
	    (char *)"ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0",
	    NULL };
	double d[2], a[2], u[2];
	int opt, have_up = 0;
	ssize_t n;
	pid_t dpid;
	FILE *f;

	if (getenv("BENCH_INTERCEPT_CHILD") != NULL)
		return measure();
	while ((opt = getopt(argc, argv, "o:")) != -1) {
		if (opt != 'o') {
			fprintf(stderr, "usage: bench_intercept -o FILE\n");
			return 2;
		}
		out = optarg;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		return 1;
	self[n] = '\0';
	if (access(preload, R_OK) != 0 || mkdtemp(dir) == NULL) {
		fprintf(stderr, "bench_intercept: run from the build "
		    "directory (%s)\n", preload);
		return 1;
	}
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	snprintf(sockenv, sizeof(sockenv), "BWSCHED_SOCKET=%s", sock);
	snprintf(lib, sizeof(lib),
	    "BWSCHED_BWCLIENT_LIB=./client/.libs/libbwclient.so.0");
	if (run(self, NULL, none, &d[0], &d[1]) < 0 ||
	    run(self, preload, absent, &a[0], &a[1]) < 0) {
		fprintf(stderr, "bench_intercept: a run failed\n");
		return 1;
	}
	if ((dpid = start_daemon(dir, sock)) > 0) {
		have_up = run(self, preload, up, &u[0], &u[1]) == 0;
		kill(dpid, SIGTERM);
		waitpid(dpid, NULL, 0);
	}
	unlink(sock);
	{
		char conf[512];

		snprintf(conf, sizeof(conf), "%s/conf", dir);
		unlink(conf);
	}
	rmdir(dir);
	f = out != NULL ? fopen(out, "w") : NULL;
	for (int pass = 0; pass < 2; pass++) {
		FILE *o = pass == 0 ? stdout : f;

		if (o == NULL)
			continue;
		fprintf(o, "# ns per driver call (best of %d x %d)\n"
		    "# mode     steady  change  added-steady added-change\n",
		    ROUNDS, ITER);
		fprintf(o, "direct   %7.1f %7.1f\n", d[0], d[1]);
		fprintf(o, "absent   %7.1f %7.1f  %7.1f %7.1f\n", a[0], a[1],
		    a[0] - d[0], a[1] - d[1]);
		if (have_up)
			fprintf(o, "up       %7.1f %7.1f  %7.1f %7.1f\n", u[0],
			    u[1], u[0] - d[0], u[1] - d[1]);
		else
			fprintf(o, "up       (daemon did not start)\n");
	}
	if (f != NULL)
		fclose(f);
	return have_up ? 0 : 1;
}
