/*
 * bwrun - run a CUDA application under bwsched's automatic
 * instrumentation.
 *
 *	bwrun [--profile KERNEL.bwk]... [--priority P] [--period-ns T]
 *	      [--gpu DEMAND] [--gpu-refused run|exit]
 *	      [--socket PATH] [--name NAME] [--no-inject] -- APP ARGS...
 *
 * The bandwidth lock belongs to the process that holds it, so the
 * application itself registers as the real-time task: bwrun only puts
 * the settings in the environment (read by libbwcuda at the first CUDA
 * call), preloads the interposer, points the driver at the CUPTI
 * injection library, and execs the application.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PROFILES	64

static void
usage(FILE *f)
{
	fprintf(f, "usage: bwrun [--profile KERNEL.bwk]... [--priority P] "
	    "[--period-ns T]\n"
	    "             [--gpu a_ns=N,class=ci|mi[,b_ns=N][,k=X]"
	    "[,deadline_ns=N]]\n"
	    "             [--gpu-refused run|exit]\n"
	    "             [--socket PATH] [--name NAME] [--no-inject] "
	    "-- APP [ARGS...]\n");
}

/* Append value to the colon-separated list in variable name. */
static int
env_append(const char *name, const char *value, const char *sep)
{
	const char *old = getenv(name);
	char *buf;
	int r;

	if (old == NULL || *old == '\0')
		return setenv(name, value, 1);
	if (asprintf(&buf, "%s%s%s", value, sep, old) < 0)
		return -1;
	r = setenv(name, buf, 1);
	free(buf);
	return r;
}

static int
parse_num(const char *opt, const char *s, unsigned long long min,
    unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || *s == '\0' || v < min || v > max) {
		fprintf(stderr, "bwrun: %s: bad value '%s' (%llu..%llu)\n",
		    opt, s, min, max);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'k' },
		{ "priority", required_argument, NULL, 'p' },
		{ "period-ns", required_argument, NULL, 'T' },
		{ "socket", required_argument, NULL, 's' },
		{ "name", required_argument, NULL, 'n' },
		{ "no-inject", no_argument, NULL, 'I' },
		{ "gpu", required_argument, NULL, 'G' },
		{ "gpu-refused", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char profiles[PATH_MAX * 4] = "", path[PATH_MAX], *abs;
	const char *libdir;
	int c, inject = 1, nprof = 0;
	size_t len = 0;

	while ((c = getopt_long(argc, argv, "+k:p:T:s:n:h", opts,
	    NULL)) != -1) {
		switch (c) {
		case 'k':
			if ((abs = realpath(optarg, NULL)) == NULL) {
				fprintf(stderr, "bwrun: %s: %s\n", optarg,
				    strerror(errno));
				return 2;
			}
			if (strchr(abs, ':') != NULL || nprof == MAX_PROFILES ||
			    len + strlen(abs) + 2 > sizeof(profiles)) {
				fprintf(stderr, "bwrun: %s: too many profiles "
				    "or ':' in the path\n", abs);
				return 2;
			}
			len += (size_t)snprintf(profiles + len,
			    sizeof(profiles) - len, "%s%s",
			    len ? ":" : "", abs);
			free(abs);
			nprof++;
			break;
		case 'p':
			if (parse_num("--priority", optarg, 1, 99) < 0)
				return 2;
			setenv("BWSCHED_PRIORITY", optarg, 1);
			break;
		case 'T':
			if (parse_num("--period-ns", optarg, 1,
			    1000000000000ull) < 0)
				return 2;
			setenv("BWSCHED_PERIOD_NS", optarg, 1);
			break;
		case 's':
			setenv("BWSCHED_SOCKET", optarg, 1);
			break;
		case 'n':
			setenv("BWSCHED_TASK_NAME", optarg, 1);
			break;
		case 'I':
			inject = 0;
			break;
		case 'G':	/* checked where it is read: libbwcuda */
			setenv("BWSCHED_GPU", optarg, 1);
			break;
		case 'R':
			if (strcmp(optarg, "run") != 0 &&
			    strcmp(optarg, "exit") != 0) {
				fprintf(stderr, "bwrun: --gpu-refused: run or "
				    "exit, not '%s'\n", optarg);
				return 2;
			}
			setenv("BWSCHED_GPU_REFUSED", optarg, 1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (nprof > 0)
		setenv("BWSCHED_PROFILES", profiles, 1);
	/* BWRUN_LIBDIR: run from a build tree */
	if ((libdir = getenv("BWRUN_LIBDIR")) == NULL)
		libdir = PKGLIBDIR;
	snprintf(path, sizeof(path), "%s/libbwcuda.so", libdir);
	if (access(path, R_OK) != 0) {
		fprintf(stderr, "bwrun: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (env_append("LD_PRELOAD", path, " ") < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/bwcuda_inject.so", libdir);
	if (inject && access(path, R_OK) == 0) {
		if (getenv("CUDA_INJECTION64_PATH") != NULL)
			fprintf(stderr, "bwrun: CUDA_INJECTION64_PATH is "
			    "already set; keeping it (the interposer "
			    "protects the application)\n");
		else
			setenv("CUDA_INJECTION64_PATH", path, 1);
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "bwrun: %s: %s\n", argv[optind], strerror(errno));
	return 127;
}
