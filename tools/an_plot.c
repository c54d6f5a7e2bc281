/*
 * an_plot.c - bwanalyze plot edf, gq and pwcet: gnuplot figures of a
 * trace's clusters, a profile's G(Q) and an EVT pWCET
 * (doc/profiling.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "an_profiling.h"
#include "fileio.h"
#include "profile.h"
#include "stats.h"

#define AP_PLOT_POINTS		2000

/*
 * Every plot writes PREFIX.dat (data) and PREFIX.gp (a gnuplot script
 * that draws PREFIX.png and PREFIX.svg), then runs $GNUPLOT or gnuplot.
 */
struct ap_plot {
	char	dat[4096], gp[4096], png[4096], svg[4096];
	FILE	*fd, *fg;
};

static int
ap_plot_open(const char *cmd, const char *prefix, struct ap_plot *pl)
{
	if (strchr(prefix, '\'') != NULL || strchr(prefix, '\n') != NULL ||
	    strlen(prefix) > 4000)
		return an_fail(cmd, "bad -o prefix");
	snprintf(pl->dat, sizeof(pl->dat), "%s.dat", prefix);
	snprintf(pl->gp, sizeof(pl->gp), "%s.gp", prefix);
	snprintf(pl->png, sizeof(pl->png), "%s.png", prefix);
	snprintf(pl->svg, sizeof(pl->svg), "%s.svg", prefix);
	pl->fd = fopen(pl->dat, "w");
	pl->fg = fopen(pl->gp, "w");
	if (pl->fd == NULL || pl->fg == NULL) {
		if (pl->fd)
			fclose(pl->fd);
		if (pl->fg)
			fclose(pl->fg);
		return an_fail(cmd, "%s: cannot write: %s", prefix,
		    strerror(errno));
	}
	fprintf(pl->fg, "# written by bwanalyze %s\n"
	    "set terminal pngcairo size 960,640 noenhanced\n"
	    "set output '%s'\nset grid\nset key outside right\n", cmd,
	    pl->png);
	return 0;
}

/* Finish the script with the same plot as SVG and run gnuplot. */
static int
ap_plot_run(const char *cmd, struct ap_plot *pl)
{
	const char *gnuplot = getenv("GNUPLOT");
	int	st, bad;
	pid_t	pid;

	fprintf(pl->fg, "set terminal svg size 960,640 noenhanced\n"
	    "set output '%s'\nreplot\nunset output\n", pl->svg);
	bad = ferror(pl->fd) | ferror(pl->fg);
	bad |= fclose(pl->fd) | fclose(pl->fg);
	if (bad)
		return an_fail(cmd, "%s: write error", pl->gp);
	if (gnuplot == NULL || *gnuplot == '\0')
		gnuplot = "gnuplot";
	fflush(NULL);
	if ((pid = fork()) < 0)
		return an_fail(cmd, "fork: %s", strerror(errno));
	if (pid == 0) {
		execlp(gnuplot, gnuplot, pl->gp, (char *)NULL);
		fprintf(stderr, "bwanalyze %s: %s: %s\n", cmd, gnuplot,
		    strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return an_fail(cmd, "%s failed on %s (data and script kept)",
		    gnuplot, pl->gp);
	printf("%s\n%s\n", pl->png, pl->svg);
	return 0;
}

/* Sorted x as an EDF, thinned to about AP_PLOT_POINTS steps. */
static void
ap_edf(FILE *f, const double *x, size_t n)
{
	size_t	i, step = n / AP_PLOT_POINTS + 1;

	for (i = 0; i < n; i += step)
		fprintf(f, "%.0f %.6f\n", x[i], (double)(i + 1) / (double)n);
	fprintf(f, "%.0f 1\n\n\n", x[n - 1]);
}

static int
ap_plot_edf(const char *cmd, int argc, char **argv)
{
	struct an_opt opts[] = { AP_CLUSTER_OPTS, AN_OPT_END };
	static const char *cname[] = { "isolation", "interference" };
	static struct ap_clustering cl;
	struct ap_plot pl;
	const char *path;
	double	alpha, *x;
	uint32_t res, nb;
	unsigned int c, cond, idx = 0;
	size_t	n;
	int	rc;

	memset(&cl, 0, sizeof(cl));
	if ((rc = an_args(argc, argv, opts, "TRACE", &path)) != 0 ||
	    (rc = ap_cluster_opts(cmd, opts, &alpha, &res, &nb, &cl)) != 0)
		return rc;
	if (an_opt(opts, "o") == NULL)
		return an_fail(cmd, "-o PREFIX is required");
	if ((rc = ap_cluster_run(cmd, path, alpha, res, nb, &cl)) != 0 ||
	    (rc = ap_plot_open(cmd, an_opt(opts, "o"), &pl)) != 0) {
		ap_clustering_free(&cl);
		return rc;
	}
	fprintf(pl.fg, "set title 'Block execution time EDF per cluster "
	    "(select %s)'\nset xlabel 'execution time (ns)'\n"
	    "set ylabel 'EDF'\nset yrange [0:1.05]\n", cl.sel_text);
	for (c = 0; c < cl.nclusters; c++)
		for (cond = 0; cond < 2; cond++)
			fprintf(pl.fg, "set arrow from %.0f,0 to %.0f,1.05 "
			    "nohead dt 2 lc %u\n", cl.c[c].e[cond],
			    cl.c[c].e[cond], c + 1);
	fprintf(pl.fg, "plot ");
	for (c = 0; c < cl.nclusters && rc == 0; c++)
		for (cond = 0; cond < 2; cond++) {
			if ((x = ap_pool(&cl, c, cond, &n)) == NULL) {
				rc = an_fail(cmd, "out of memory");
				break;
			}
			stats_sort(x, n);
			ap_edf(pl.fd, x, n);
			free(x);
			fprintf(pl.fg, "%s'%s' index %u with steps lc %u dt %u "
			    "title 'cluster %u %s (e%u = %.0f)'",
			    idx ? ", \\\n     " : "", pl.dat, idx, c + 1,
			    cond + 1, c, cname[cond], cond, cl.c[c].e[cond]);
			idx++;
		}
	fprintf(pl.fg, "\n");
	ap_clustering_free(&cl);
	if (rc != 0) {
		fclose(pl.fd);
		fclose(pl.fg);
		return rc;
	}
	return ap_plot_run(cmd, &pl);
}

/* Measured points: "Q WCET_NS" per line. */
static int
ap_measured(const char *cmd, const char *path, FILE *out, int *npts)
{
	FILE	*f;
	char	line[256];
	double	q, w;
	unsigned long ln = 0;

	*npts = 0;
	if ((f = fopen(path, "r")) == NULL)
		return an_fail(cmd, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		ln++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%lf %lf", &q, &w) != 2 || !(q >= 0.0 &&
		    q <= 1.0) || !(w >= 0.0) || !isfinite(w)) {
			fclose(f);
			return an_fail(cmd, "%s: line %lu: expected 'Q "
			    "WCET_NS' with 0 <= Q <= 1", path, ln);
		}
		fprintf(out, "%.4f %.0f\n", q * 100.0, w);
		(*npts)++;
	}
	fclose(f);
	fprintf(out, "\n\n");
	return 0;
}

static int
ap_plot_gq(const char *cmd, int argc, char **argv)
{
	struct an_opt opts[] = { AN_OPT("o", AN_VALUE),
	    AN_OPT("measured", AN_VALUE), AN_OPT("sync", AN_VALUE),
	    AN_OPT_END };
	static struct profile p;
	static struct wcet_kernel k;
	static struct progress_table t;
	struct ap_plot pl;
	const char *path, *out, *measured, *sy;
	char	*buf, err[160];
	size_t	len;
	int	rc, sync = 0, i, npts = 0;

	if ((rc = an_args(argc, argv, opts, "PROFILE", &path)) != 0)
		return rc;
	out = an_opt(opts, "o");
	measured = an_opt(opts, "measured");
	sy = an_opt(opts, "sync");
	if (out == NULL)
		return an_fail(cmd, "-o PREFIX is required");
	if (sy && strcmp(sy, "0") != 0 &&
	    strcmp(sy, "1") != 0)
		return an_fail(cmd, "bad --sync '%s' (0 or 1)", sy);
	sync = sy && sy[0] == '1';
	if ((rc = fileio_read(path, PROFILE_MAX_SIZE, &buf, &len)) != 0)
		return an_fail(cmd, "%s: %s", path, strerror(-rc));
	rc = profile_parse(buf, len, &p, err, sizeof(err));
	free(buf);
	if (rc < 0)
		return an_fail(cmd, "%s: %s", path, err);
	if (profile_to_model(&p, &k, &t) < 0)
		return an_fail(cmd, "%s: profile not usable by the model",
		    path);
	if ((rc = ap_plot_open(cmd, out, &pl)) != 0)
		return rc;
	for (i = 0; i <= 100; i++)
		fprintf(pl.fd, "%d %llu\n", i, (unsigned long long)
		    wcet_bound(&k, t.n, i / 100.0, sync));
	fprintf(pl.fd, "\n\n");
	if (measured && (rc = ap_measured(cmd, measured, pl.fd,
	    &npts)) != 0) {
		fclose(pl.fd);
		fclose(pl.fg);
		return rc;
	}
	fprintf(pl.fg, "set title 'Analytical WCET G(Q) of %s (sync %d)'\n"
	    "set xlabel 'BE budget Q (%%)'\nset ylabel 'WCET (ns)'\n"
	    "set xrange [0:100]\n"
	    "plot '%s' index 0 with lines lw 2 title 'G(Q) analytical'",
	    p.name, sync, pl.dat);
	if (npts > 0)
		fprintf(pl.fg, ", \\\n     '%s' index 1 with points pt 7 "
		    "title 'measured'", pl.dat);
	fprintf(pl.fg, "\n");
	return ap_plot_run(cmd, &pl);
}

static int
ap_plot_pwcet(const char *cmd, int argc, char **argv)
{
	struct an_opt opts[] = { AP_EVT_OPTS, AN_OPT("o", AN_VALUE),
	    AN_OPT_END };
	struct evt_options eo;
	struct evt_result r;
	struct ap_plot pl;
	const char *path, *per;
	double	*x, ps[3 + AN_MAX_LIST], lo, hi, v, e;
	size_t	n, b, i, step;
	int	rc, np;

	if ((rc = an_args(argc, argv, opts, "SAMPLES", &path)) != 0 ||
	    (rc = ap_evt_setup(cmd, opts, &eo, ps, &np)) != 0)
		return rc;
	if (an_opt(opts, "o") == NULL)
		return an_fail(cmd, "-o PREFIX is required");
	if ((rc = ap_read_samples(cmd, path, &x, &n)) != 0)
		return rc;
	rc = evt_analyze(x, n, &eo, &r);
	if (rc < 0 || (rc = ap_plot_open(cmd, an_opt(opts, "o"), &pl)) != 0) {
		free(x);
		return rc < 0 ? an_fail(cmd, "%s: %s", path, r.reason ?
		    r.reason : "out of memory") : rc;
	}
	/* per block: the measured curve is that of the block maxima */
	b = eo.per == EVT_PER_BLOCK ? 1 : eo.block;
	per = eo.per == EVT_PER_BLOCK ? "block" : "run";
	if (eo.per == EVT_PER_BLOCK)
		n = evt_block_maxima(x, n, eo.block, x);
	stats_sort(x, n);
	/* empirical exceedance 1 - EDF, down to 1/n */
	step = n / AP_PLOT_POINTS + 1;
	for (i = 0; i < n - 1; i += step)
		fprintf(pl.fd, "%.0f %.6e\n", x[i], 1.0 - (double)(i + 1) /
		    (double)n);
	fprintf(pl.fd, "\n\n");
	lo = x[0];
	hi = evt_pwcet(&r.fit, b, 1e-13);
	for (i = 0; i <= 400; i++) {
		v = lo + (hi - lo) * (double)i / 400.0;
		e = evt_exceedance(&r.fit, b, v);
		fprintf(pl.fd, "%.1f %.6e\n", v, e);
	}
	fprintf(pl.fd, "\n\n");
	for (i = 0; i < (size_t)np; i++)
		fprintf(pl.fd, "%.0f %g\n", evt_pwcet(&r.fit, b, ps[i]), ps[i]);
	free(x);
	fprintf(pl.fg, "set title 'pWCET exceedance (Gumbel mu %.0f beta "
	    "%.1f, block %zu, rule %s)%s%s'\nset logscale y\n"
	    "set format y '%%.0e'\nset yrange [1e-13:1]\n"
	    "set xlabel 'execution time (ns)'\n"
	    "set ylabel 'P(exceed) per %s'\n"
	    "plot '%s' index 0 with steps lw 2 title 'measured 1-EDF', \\\n"
	    "     '%s' index 1 with lines title 'EVT (Gumbel) pWCET', \\\n"
	    "     '%s' index 2 with points pt 7 title 'pWCET levels'\n",
	    r.fit.mu, r.fit.beta, eo.block, evt_rule_name(r.rule),
	    r.ok ? "" : ": NOT VALID, ", r.ok ? "" : r.reason, per, pl.dat,
	    pl.dat, pl.dat);
	return ap_plot_run(cmd, &pl);
}

int
an_plot_main(int argc, char **argv)
{
	const char *cmd = "plot";

	if (argc < 2)
		return an_fail(cmd, "usage: plot edf TRACE -o PREFIX "
		    "[--alpha A] [--select S] | plot gq PROFILE -o PREFIX "
		    "[--measured FILE] [--sync 0|1] | plot pwcet SAMPLES "
		    "-o PREFIX [--block B] [--p P]... [--per block|run]");
	if (strcmp(argv[1], "edf") == 0)
		return ap_plot_edf("plot edf", argc - 1, argv + 1);
	if (strcmp(argv[1], "gq") == 0)
		return ap_plot_gq("plot gq", argc - 1, argv + 1);
	if (strcmp(argv[1], "pwcet") == 0)
		return ap_plot_pwcet("plot pwcet", argc - 1, argv + 1);
	return an_fail(cmd, "unknown plot '%s' (edf, gq or pwcet)", argv[1]);
}
