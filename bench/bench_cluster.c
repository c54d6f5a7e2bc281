/*
 * bench_cluster - bwanalyze cluster at the size: 100,000 blocks x
 * 1,000 runs per condition (2e8 records), 5 clusters over 25 interleaved
 * intervals.  bwtracegen streams the binary trace through a pipe into
 * `bwanalyze cluster -`; the analyzer's wall time, CPU time and peak RSS
 * come from wait4(2).  Checks that the intervals are recovered exactly.
 *
 *	./bench/bench_cluster -o FILE [--blocks N] [--runs R]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "monoclock.h"

#define NCL	5
#define NINT	25

static double
now(void)
{
	return (double)monoclock_ns() / 1e9;
}

/* Run argv with stdin in / stdout out (-1: inherited); close the rest. */
static pid_t
spawn(const char *const argv[], int in, int out, int other)
{
	pid_t	pid = fork();

	if (pid != 0)
		return pid;
	/* the other end of the pipe must not stay open in the child, or
	 * the reader never sees the end of the trace */
	close(other);
	if (in >= 0 && dup2(in, 0) < 0)
		_exit(126);
	if (out >= 0 && dup2(out, 1) < 0)
		_exit(126);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	execv(argv[0], (char *const *)argv);
	fprintf(stderr, "bench_cluster: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Intervals the generator uses and the profile must contain. */
static void
make_intervals(unsigned long blocks, char *spec, size_t len, char *want,
    size_t wlen)
{
	static const int order[NINT] = { 0, 3, 1, 4, 2, 0, 2, 4, 1, 3, 0, 4,
	    3, 2, 1, 0, 1, 2, 3, 4, 0, 2, 1, 4, 3 };
	size_t	o = 0, w = 0;
	int	k;

	for (k = 0; k < NINT; k++) {
		/* uneven lengths: k-th interval starts at ~ (k / 25)^1.3 */
		unsigned long f = k == 0 ? 0 : (unsigned long)((double)blocks *
		    ((double)k / NINT) * (0.7 + 0.3 * k / NINT));

		o += (size_t)snprintf(spec + o, len - o, "%s%lu:%d",
		    k ? "," : "", f, order[k]);
		w += (size_t)snprintf(want + w, wlen - w, "interval %lu %d\n",
		    f, order[k]);
	}
}

int
main(int argc, char **argv)
{
	static char spec[4096], want[4096], got[8192], line[256];
	static char dir[4096], gen[4200], bw[4200], bwk[4300];
	const char *outp = NULL;
	unsigned long blocks = 100000, runs = 1000;
	char	sb[32], sr[32], *p;
	struct rusage ru;
	double	t0, t1;
	int	fd[2], st, i, exact, nul;
	pid_t	pg, pa;
	FILE	*f, *o;
	size_t	n = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			outp = argv[++i];
		else if (strcmp(argv[i], "--blocks") == 0 && i + 1 < argc)
			blocks = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: bench_cluster -o FILE "
			    "[--blocks N] [--runs R]\n");
			return 2;
		}
	}
	if (outp == NULL || blocks < 100 || runs < 10) {
		fprintf(stderr, "usage: bench_cluster -o FILE [--blocks N>=100]"
		    " [--runs R>=10]\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	p = strrchr(dir, '/');
	if (p != NULL)
		*p = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	snprintf(gen, sizeof(gen), "%s/../tools/bwtracegen", dir);
	snprintf(bw, sizeof(bw), "%s/../tools/bwanalyze", dir);
	snprintf(bwk, sizeof(bwk), "%s.bwk", outp);
	snprintf(sb, sizeof(sb), "%lu", blocks);
	snprintf(sr, sizeof(sr), "%lu", runs);
	make_intervals(blocks, spec, sizeof(spec), want, sizeof(want));
	{
		const char *ga[] = { gen, "trace", "--blocks", sb, "--runs", sr,
		    "--clusters", "20000:400,26000:500,33000:450,41000:600,"
		    "52000:700", "--intervals", spec, "--binary", "--seed",
		    "42", NULL };
		const char *aa[] = { bw, "cluster", "-", "-o", bwk,
		    "--concurrency", "64", "--blocks", sb, "--name", "bench", NULL };

		if (pipe(fd) < 0)
			return 1;
		t0 = now();
		pg = spawn(ga, -1, fd[1], fd[0]);
		if ((nul = open("/dev/null", O_WRONLY)) < 0)
			return 1;
		pa = spawn(aa, fd[0], nul, fd[1]);
		close(nul);
		close(fd[0]);
		close(fd[1]);
		if (wait4(pa, &st, 0, &ru) < 0)
			return 1;
		t1 = now();
		waitpid(pg, NULL, 0);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench_cluster: bwanalyze cluster failed\n");
		return 1;
	}
	if ((f = fopen(bwk, "r")) == NULL)
		return 1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "interval ", 9) == 0 &&
		    n + strlen(line) < sizeof(got)) {
			memcpy(got + n, line, strlen(line) + 1);
			n += strlen(line);
		}
	fclose(f);
	exact = strcmp(got, want) == 0;
	if ((o = fopen(outp, "w")) == NULL)
		return 1;
	for (f = stdout; f != NULL; f = f == stdout ? o : NULL) {
		fprintf(f, "bench_cluster: %lu blocks x %lu runs x 2 "
		    "conditions = %.3g records, %d clusters, %d intervals\n",
		    blocks, runs, 2.0 * blocks * runs, NCL, NINT);
		fprintf(f, "bwanalyze cluster (binary trace on a pipe): wall "
		    "%.2f s (includes waiting for the generator), user %.2f s,"
		    " sys %.2f s, peak RSS %.1f MiB\n", t1 - t0,
		    ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
		    ru.ru_maxrss / 1024.0);
		fprintf(f, "intervals recovered exactly: %s\n",
		    exact ? "yes" : "NO");
	}
	fclose(o);
	return exact ? 0 : 1;
}
