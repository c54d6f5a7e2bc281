/*
 * bwsim_plot.c - `bwsim plot`: run an experiment and draw the matching
 * paper figure with gnuplot, as PNG and SVG.
 *   q         Q over time, one launch per policy ([DynBW] Fig. 5.1)
 *   vruntime  vruntime of the two tasks, CFS/TFS-1/TFS-3 (BWLOCK++ Fig. 5)
 *   shares    periods run by each task (BWLOCK++ Fig. 6)
 *   throttle  normalized total throttle time (BWLOCK++ Fig. 10)
 *   partition schedulability and analysis time ([PredGPU] Fig. 3.4-3.6,
 *             in tools/bwsim_part.c)
 * The data stay next to the images as PREFIX-*.csv.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bwsim.h"
#include "exp.h"

#define PLOT_PATH	1024

struct plot_opts {
	const char	*prefix;
	struct profile	*profile;
	uint64_t	 seed;
	uint64_t	 periods;
	uint64_t	 launches;
};

static const double plot_rhos[] = { 0, 1, 3 };
static const char *const plot_rho_names[] = { "CFS", "TFS-1", "TFS-3" };

static FILE *
plot_open(const struct plot_opts *o, const char *name, char *path)
{
	FILE	*f;

	snprintf(path, PLOT_PATH, "%s-%s.csv", o->prefix, name);
	if ((f = fopen(path, "w")) == NULL)
		fprintf(stderr, "bwsim plot: %s: %s\n", path, strerror(errno));
	return f;
}

/* Feed the script to gnuplot twice: once per terminal. */
int
bwsim_plot_run(const char *out, const char *script)
{
	static const char *const term[2][2] = {
		{ "pngcairo size 1000,600", "png" },
		{ "svg size 1000,600", "svg" },
	};
	const char	*gp = getenv("GNUPLOT");
	FILE		*f;
	int		 i, st;

	if (gp == NULL || gp[0] == '\0')
		gp = "gnuplot";
	for (i = 0; i < 2; i++) {
		if ((f = popen(gp, "w")) == NULL) {
			fprintf(stderr, "bwsim plot: cannot run %s\n", gp);
			return -1;
		}
		fprintf(f, "set terminal %s\nset output '%s.%s'\n"
		    "set datafile separator ','\nset key outside\n%s",
		    term[i][0], out, term[i][1], script);
		st = pclose(f);
		if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "bwsim plot: %s failed\n", gp);
			return -1;
		}
		printf("wrote %s.%s\n", out, term[i][1]);
	}
	return 0;
}

static int
plot_run(const struct plot_opts *o, const char *script)
{
	return bwsim_plot_run(o->prefix, script);
}

static int
plot_q(const struct plot_opts *o)
{
	struct exp_budgets_args	 a;
	struct exp_budgets_result r;
	char			 path[4][PLOT_PATH], script[8192];
	FILE			*f;
	int			 p, rc;

	for (p = DECIDE_NOMINAL; p <= DECIDE_SMOOTH; p++) {
		exp_budgets_default(&a);
		a.profile = o->profile;
		a.policy = (enum decide_policy)p;
		a.launches = 1;
		a.seed = o->seed;
		if ((f = plot_open(o, decide_policy_name(a.policy),
		    path[p])) == NULL)
			return -1;
		rc = exp_budgets(&a, f, &r);
		if (fclose(f) != 0 || rc != 0)
			return -1;
	}
	snprintf(script, sizeof(script),
	    "set title 'Budget ratio Q per regulation period, one launch of "
	    "%s'\nset xlabel 'time since launch (ms)'\nset ylabel 'Q'\n"
	    "set yrange [0:1.05]\n"
	    "plot '%s' skip 1 using ($3/1e6):4 with steps lw 2 title "
	    "'NOMINAL', '%s' skip 1 using ($3/1e6):4 with steps lw 2 title "
	    "'FAIR', '%s' skip 1 using ($3/1e6):4 with steps lw 2 title "
	    "'GREEDY', '%s' skip 1 using ($3/1e6):4 with steps lw 2 title "
	    "'SMOOTH'\n", o->profile->name, path[0], path[1], path[2],
	    path[3]);
	return plot_run(o, script);
}

static int
plot_vruntime(const struct plot_opts *o)
{
	struct exp_tfs_args	a;
	struct exp_tfs_result	r;
	char			path[3][PLOT_PATH], script[16384];
	FILE			*f;
	int			i, rc, n = 0;

	for (i = 0; i < 3; i++) {
		exp_tfs_default(&a);
		a.rho = plot_rhos[i];
		a.periods = o->periods;
		a.seed = o->seed;
		if ((f = plot_open(o, plot_rho_names[i], path[i])) == NULL)
			return -1;
		rc = exp_tfs(&a, f, &r);
		if (fclose(f) != 0 || rc != 0)
			return -1;
	}
	n += snprintf(script + n, sizeof(script) - (size_t)n,
	    "set multiplot layout 1,3 title 'Virtual runtime against the "
	    "periods each task was scheduled'\nset key inside top left\n"
	    "set xlabel 'periods scheduled'\nset ylabel 'vruntime (ms)'\n");
	for (i = 0; i < 3; i++)
		n += snprintf(script + n, sizeof(script) - (size_t)n,
		    "set title '%s'\nplot '%s' skip 1 using 7:($3/1e6) with "
		    "lines lw 2 title 'mem', '%s' skip 1 using 8:($4/1e6) with "
		    "lines lw 2 title 'cpu'\n", plot_rho_names[i], path[i],
		    path[i]);
	snprintf(script + n, sizeof(script) - (size_t)n, "unset multiplot\n");
	return plot_run(o, script);
}

static int
plot_shares(const struct plot_opts *o)
{
	struct exp_tfs_args	a;
	struct exp_tfs_result	r;
	char			path[PLOT_PATH], script[4096];
	FILE			*f;
	int			i;

	if ((f = plot_open(o, "shares", path)) == NULL)
		return -1;
	fprintf(f, "scheduler,mem_periods,cpu_periods\n");
	for (i = 0; i < 3; i++) {
		exp_tfs_default(&a);
		a.rho = plot_rhos[i];
		a.periods = o->periods;
		a.seed = o->seed;
		if (exp_tfs(&a, NULL, &r) != 0) {
			fclose(f);
			return -1;
		}
		fprintf(f, "%s,%llu,%llu\n", plot_rho_names[i],
		    (unsigned long long)r.mem_periods,
		    (unsigned long long)r.cpu_periods);
	}
	if (fclose(f) != 0)
		return -1;
	snprintf(script, sizeof(script),
	    "set title 'Periods run by each task (of %llu)'\n"
	    "set style data histograms\nset style fill solid 0.8\n"
	    "set ylabel 'periods'\nset yrange [0:*]\n"
	    "plot '%s' skip 1 using 2:xtic(1) title 'mem (intense)', "
	    "'' skip 1 using 3 title 'cpu (mild)'\n",
	    (unsigned long long)o->periods, path);
	return plot_run(o, script);
}

static int
plot_throttle(const struct plot_opts *o)
{
	struct exp_throttle_args a;
	struct exp_throttle_result r;
	char			path[PLOT_PATH], script[4096];
	double			base = 0;
	FILE			*f;
	int			i;

	if ((f = plot_open(o, "throttle", path)) == NULL)
		return -1;
	fprintf(f, "scheduler,throttled_ns,normalized\n");
	for (i = 0; i < 3; i++) {
		exp_throttle_default(&a);
		a.rho = plot_rhos[i];
		a.launches = o->launches;
		a.seed = o->seed;
		a.profile = o->profile;
		if (exp_throttle(&a, NULL, &r) != 0) {
			fclose(f);
			return -1;
		}
		if (i == 0)
			base = (double)r.throttled_ns;
		fprintf(f, "%s,%llu,%.4f\n", plot_rho_names[i],
		    (unsigned long long)r.throttled_ns,
		    base > 0 ? (double)r.throttled_ns / base : 0);
	}
	if (fclose(f) != 0)
		return -1;
	snprintf(script, sizeof(script),
	    "set title 'Total throttle time of the BE cores, normalized to "
	    "CFS'\nset style data histograms\nset style fill solid 0.8\n"
	    "set ylabel 'normalized throttle time'\nset yrange [0:1.1]\n"
	    "plot '%s' skip 1 using 3:xtic(1) title '%s'\n", path,
	    o->profile->name);
	return plot_run(o, script);
}

/* -o PREFIX, then the experiment's own options. */
static int
plot_partition(int argc, char **argv)
{
	const char	*prefix = "bwsim";

	if (argc >= 2 && strcmp(argv[0], "-o") == 0) {
		prefix = argv[1];
		argc -= 2;
		argv += 2;
	}
	if (strchr(prefix, '\'') != NULL || strlen(prefix) > 900) {
		fprintf(stderr, "bwsim plot: -o: no quotes, at most 900 "
		    "characters\n");
		return 2;
	}
	return bwsim_plot_partition(prefix, argc, argv);
}

int
bwsim_plot_main(int argc, char **argv)
{
	struct plot_opts	o = { "bwsim", NULL, 1, 1000, 200 };
	struct profile		*p;
	const char		*kind;
	char			 err[128];
	int			 i, rc = 2;

	if (argc < 2) {
		fprintf(stderr, "bwsim plot: q|vruntime|shares|throttle|"
		    "partition\n");
		return 2;
	}
	kind = argv[1];
	if (strcmp(kind, "partition") == 0)
		return plot_partition(argc - 2, argv + 2);
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return 1;
	o.profile = p;
	if (profile_parse(exp_histo_bwk, strlen(exp_histo_bwk), p, err,
	    sizeof(err)) != 0)
		goto out;
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			o.prefix = argv[++i];
			if (strchr(o.prefix, '\'') != NULL ||
			    strlen(o.prefix) > 900) {
				fprintf(stderr, "bwsim plot: -o: no quotes, "
				    "at most 900 characters\n");
				goto out;
			}
		} else if (strcmp(argv[i], "--profile") == 0) {
			if (bwsim_load_profile(argv[++i], p))
				goto out;
		} else if (strcmp(argv[i], "--seed") == 0) {
			if (bwsim_u64("--seed", argv[++i], 0, UINT64_MAX,
			    &o.seed))
				goto out;
		} else if (strcmp(argv[i], "--periods") == 0) {
			if (bwsim_u64("--periods", argv[++i], 1, 10000000,
			    &o.periods))
				goto out;
		} else if (strcmp(argv[i], "--launches") == 0) {
			if (bwsim_u64("--launches", argv[++i], 1, 10000000,
			    &o.launches))
				goto out;
		} else {
			fprintf(stderr, "bwsim plot: unknown argument '%s'\n",
			    argv[i]);
			goto out;
		}
	}
	rc = 1;
	if (strcmp(kind, "q") == 0)
		rc = plot_q(&o) ? 1 : 0;
	else if (strcmp(kind, "vruntime") == 0)
		rc = plot_vruntime(&o) ? 1 : 0;
	else if (strcmp(kind, "shares") == 0)
		rc = plot_shares(&o) ? 1 : 0;
	else if (strcmp(kind, "throttle") == 0)
		rc = plot_throttle(&o) ? 1 : 0;
	else {
		fprintf(stderr, "bwsim plot: unknown plot '%s' "
		    "(q|vruntime|shares|throttle|partition)\n", kind);
		rc = 2;
	}
out:
	free(p);
	return rc;
}
