/*
 * bwanalyze.c - the offline analysis tool: dispatch to subcommands.
 */
#include <stdio.h>
#include <string.h>

#include "bwanalyze.h"

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
