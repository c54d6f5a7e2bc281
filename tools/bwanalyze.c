/*
 * bwanalyze.c - the offline analysis tool: dispatch to subcommands, and
 * the one option parser they all use.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwanalyze.h"

static void an_vmsg(const char *, const char *, va_list)
    __attribute__((format(printf, 2, 0)));

static void
an_vmsg(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "bwanalyze %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int
an_fail(const char *cmd, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	an_vmsg(cmd, fmt, ap);
	va_end(ap);
	return 2;
}

int
an_usage(const char *cmd, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	an_vmsg(cmd, fmt, ap);
	va_end(ap);
	fprintf(stderr, "(see bwanalyze --help)\n");
	return 2;
}

static struct an_opt *
an_match(struct an_opt *opts, const char *name, size_t len)
{
	for (; opts->name != NULL; opts++)
		if (strlen(opts->name) == len &&
		    strncmp(opts->name, name, len) == 0)
			return opts;
	return NULL;
}

/*
 * Split argv into one positional argument and options ("--name value",
 * "--name=value" or a flag).  Returns 0 or 2 after printing why.
 */
int
an_args(int argc, char **argv, struct an_opt *opts, const char *posname,
    const char **pos)
{
	const char	*cmd = argv[0], *a, *eq, *val;
	struct an_opt	*o;
	size_t		 len;
	int		 i;

	*pos = NULL;
	for (i = 1; i < argc; i++) {
		a = argv[i];
		if (strcmp(a, "-o") == 0 && an_match(opts, "o", 1) != NULL)
			a = "--o";
		if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
			if (*pos != NULL)
				return an_usage(cmd, "unexpected argument '%s'",
				    a);
			*pos = a;
			continue;
		}
		a += 2;
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a) : strlen(a);
		if ((o = an_match(opts, a, len)) == NULL)
			return an_usage(cmd, "unknown option '%s'", argv[i]);
		if (o->value != NULL && o->arg != AN_LIST)
			return an_usage(cmd, "option '%s' given twice",
			    argv[i]);
		if (o->arg == AN_FLAG) {
			if (eq)
				return an_usage(cmd, "option '%s' takes no "
				    "value", argv[i]);
			o->value = "";
			continue;
		}
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return an_usage(cmd, "option '%s' needs a value",
			    argv[i]);
		if (o->arg == AN_LIST) {
			if (o->nlist == AN_MAX_LIST)
				return an_usage(cmd, "too many --%s", o->name);
			o->list[o->nlist++] = val;
		}
		o->value = val;
	}
	if (*pos == NULL)
		return an_usage(cmd, "missing %s", posname);
	return 0;
}

const struct an_opt *
an_opt_find(const struct an_opt *opts, const char *name)
{
	for (; opts->name; opts++)
		if (strcmp(opts->name, name) == 0)
			return opts;
	return NULL;
}

const char *
an_opt(const struct an_opt *opts, const char *name)
{
	const struct an_opt	*o = an_opt_find(opts, name);

	return o ? o->value : NULL;
}

/* A finite double in [lo, hi]. */
int
an_double(const char *cmd, const char *name, const char *s, double lo,
    double hi, double *v)
{
	char	*end;

	errno = 0;
	*v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !isfinite(*v) ||
	    *v < lo || *v > hi) {
		fprintf(stderr, "bwanalyze %s: bad value '%s' for --%s "
		    "(expected a number in [%g, %g])\n", cmd, s, name, lo, hi);
		return 2;
	}
	return 0;
}

static const struct {
	const char	*name;
	int		(*main)(int, char **);
	const char	*usage;
} bwanalyze_cmds[] = {
	{ "wcet", an_wcet_main, "wcet PROFILE --q Q [--sync 0|1] [--json]" },
	{ "nominal", an_nominal_main, "nominal PROFILE [--slowdown S] "
	    "[--bwmax-events B --overhead-events E] [--json]" },
	{ "budget", an_budget_main, "budget PROFILE --policy fair|greedy|smooth "
	    "--elapsed-ns E --remaining R0,R1,... [--q-nominal Q] [--prev-q Y] "
	    "[--json]" },
	{ "rta", an_rta_main, "rta TASKSET [--json]" },
	{ "show", an_show_main, "show PROFILE [--json]" },
	{ "cluster", an_cluster_main, "cluster TRACE -o OUT.bwk [--alpha A] "
	    "--concurrency M [--select max|normal:P|evt:P] [--name N] "
	    "[--period-ns T] [--reservoir R] [--blocks N] [--json]" },
	{ "evt", an_evt_main, "evt SAMPLES [--block B] [--p P]... [--alpha A] "
	    "[--json]" },
	{ "partition", an_partition_main, "partition TASKSET [--sms M] "
	    "[--order sms|bf] [--forbidden act|ina|none] [--granule G] "
	    "[--baseline 1g|1g-util] [--json]" },
	{ "classify", an_classify_main, "classify CURVE [--tol T] "
	    "[--knee F] [--json]" },
	{ "plot", an_plot_main, "plot edf TRACE|gq PROFILE|pwcet SAMPLES "
	    "-o PREFIX ... (see doc/profiling.md)" },
	{ "ptx", an_ptx_main, "ptx FILE.ptx [--kernel NAME] --grid X[,Y] "
	    "--block X[,Y] [--param NAME=VALUE]... [--l1 16K,4,128] [--json] "
	    "(more in doc/gpu-model.md)" },
};

#define BWANALYZE_NCMDS (sizeof(bwanalyze_cmds) / sizeof(bwanalyze_cmds[0]))

static int
bwanalyze_usage(FILE *f)
{
	size_t	i;

	fprintf(f, "usage: bwanalyze SUBCOMMAND ARGS...\n");
	for (i = 0; i < BWANALYZE_NCMDS; i++)
		fprintf(f, "       bwanalyze %s\n", bwanalyze_cmds[i].usage);
	return 2;
}

int
main(int argc, char **argv)
{
	size_t	i;

	if (argc < 2)
		return bwanalyze_usage(stderr);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		bwanalyze_usage(stdout);
		return 0;
	}
	for (i = 0; i < BWANALYZE_NCMDS; i++)
		if (strcmp(argv[1], bwanalyze_cmds[i].name) == 0)
			return bwanalyze_cmds[i].main(argc - 1, argv + 1);
	fprintf(stderr, "bwanalyze: unknown subcommand '%s'\n", argv[1]);
	return bwanalyze_usage(stderr);
}
