/*
 * an_profiling.c - bwanalyze cluster, evt and plot: measured block
 * execution times to .bwk profiles, EVT pWCETs and their plots
 * (doc/profiling.md).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwanalyze.h"
#include "cluster.h"
#include "evt.h"
#include "fileio.h"
#include "jsonw.h"
#include "kstest.h"
#include "profile.h"
#include "progress.h"
#include "stats.h"
#include "trace.h"
#include "wcet.h"

#define AP_DEFAULT_RES		128
#define AP_MIN_RUNS		10
#define AP_POOL_MAX		(1u << 20)	/* pooled samples per cluster */
#define AP_PLOT_POINTS		2000
#define AP_MAX_SAMPLES		(1u << 27)

static int ap_fail(const char *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static int
ap_fail(const char *cmd, const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "bwanalyze %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int
ap_double(const char *s, double lo, double hi, double *v)
{
	char	*end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(*v > lo && *v < hi))
		return -1;
	return 0;
}

static int
ap_uint(const char *s, unsigned long long max, unsigned long long *v)
{
	char	*end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || *v > max)
		return -1;
	return 0;
}

static FILE *
ap_open(const char *path)
{
	return strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
}

static void
ap_close(FILE *f)
{
	if (f != stdin)
		fclose(f);
}

/*
 * Read one sample per line (ns; '#' comments and blank lines skipped).
 * Returns 0 or 2 after printing why.
 */
static int
ap_read_samples(const char *cmd, const char *path, double **out, size_t *n)
{
	FILE	*f;
	char	*line = NULL, *p, *end;
	size_t	cap = 0, lcap = 0;
	unsigned long ln = 0;
	double	v, *x = NULL, *nx;
	int	rc = 0;

	*n = 0;
	if ((f = ap_open(path)) == NULL)
		return ap_fail(cmd, "%s: %s", path, strerror(errno));
	while (getline(&line, &lcap, f) != -1) {
		ln++;
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
			continue;
		errno = 0;
		v = strtod(p, &end);
		while (*end == ' ' || *end == '\t' || *end == '\r' ||
		    *end == '\n')
			end++;
		if (errno != 0 || end == p || *end != '\0' || !isfinite(v) ||
		    v < 0.0) {
			rc = ap_fail(cmd, "%s: line %lu: expected one "
			    "non-negative execution time in ns", path, ln);
			break;
		}
		if (*n == cap) {
			if (cap >= AP_MAX_SAMPLES) {
				rc = ap_fail(cmd, "%s: more than %u samples",
				    path, AP_MAX_SAMPLES);
				break;
			}
			cap = cap ? cap * 2 : 4096;
			if ((nx = realloc(x, cap * sizeof(*x))) == NULL) {
				rc = ap_fail(cmd, "out of memory");
				break;
			}
			x = nx;
		}
		x[(*n)++] = v;
	}
	if (rc == 0 && ferror(f))
		rc = ap_fail(cmd, "%s: read error", path);
	free(line);
	ap_close(f);
	if (rc != 0) {
		free(x);
		return rc;
	}
	*out = x;
	return 0;
}

/* ---------------------------------------------------------------- evt */

static void
ap_test_json(struct jsonw *j, const char *name, const char *stat,
    struct evt_test t, double alpha)
{
	jsonw_key(j, name);
	jsonw_obj_begin(j);
	jsonw_key(j, stat);
	jsonw_double(j, t.stat);
	jsonw_key(j, "p");
	jsonw_double(j, t.p);
	jsonw_key(j, "reject");
	jsonw_bool(j, t.p < alpha);
	jsonw_obj_end(j);
}

static const char *
ap_theta_method(enum evt_theta_method m)
{
	return m == EVT_THETA_BLOCKS ? "blocks" : "intervals";
}

/* Largest extremogram value and its lag (1-based). */
static double
ap_xgram_max(const struct evt_result *r, int *lag)
{
	double	m = 0.0;
	int	h;

	*lag = 0;
	for (h = 0; h < EVT_XGRAM_LAGS; h++)
		if (r->xgram[h] > m) {
			m = r->xgram[h];
			*lag = h + 1;
		}
	return m;
}

static void
ap_extremes_json(struct jsonw *j, const struct evt_result *r)
{
	double	m;
	int	h;

	jsonw_key(j, "extremal_index");
	jsonw_obj_begin(j);
	jsonw_key(j, "method");
	jsonw_str(j, ap_theta_method(r->theta_method));
	jsonw_key(j, "theta");
	jsonw_double(j, r->theta);
	jsonw_key(j, "threshold");
	jsonw_double(j, r->theta_u);
	jsonw_key(j, "theta_min");
	jsonw_double(j, r->theta_min);
	jsonw_key(j, "blocks");
	jsonw_double(j, r->theta_blocks);
	jsonw_key(j, "intervals");
	jsonw_double(j, r->theta_intervals);
	jsonw_key(j, "reject");
	jsonw_bool(j, !(r->theta >= r->theta_min));
	jsonw_obj_end(j);
	jsonw_key(j, "extremogram");
	jsonw_obj_begin(j);
	jsonw_key(j, "threshold");
	jsonw_double(j, r->xgram_u);
	jsonw_key(j, "independent_level");
	jsonw_double(j, r->xgram_base);
	m = ap_xgram_max(r, &h);
	jsonw_key(j, "max");
	jsonw_double(j, m);
	jsonw_key(j, "max_lag");
	jsonw_int(j, h);
	jsonw_key(j, "lags");
	jsonw_arr_begin(j);
	for (h = 0; h < EVT_XGRAM_LAGS; h++)
		jsonw_double(j, r->xgram[h]);
	jsonw_arr_end(j);
	jsonw_obj_end(j);
}

static void
ap_evt_json(const struct evt_result *r, const double *ps, int np)
{
	struct jsonw j;
	char	key[32];
	int	i;

	jsonw_init(&j, stdout);
	jsonw_obj_begin(&j);
	jsonw_key(&j, "n");
	jsonw_uint(&j, r->n);
	jsonw_key(&j, "block");
	jsonw_uint(&j, r->block);
	jsonw_key(&j, "maxima");
	jsonw_uint(&j, r->nmax);
	jsonw_key(&j, "per");
	jsonw_str(&j, r->per == EVT_PER_BLOCK ? "block" : "run");
	jsonw_key(&j, "mu");
	jsonw_double(&j, r->fit.mu);
	jsonw_key(&j, "beta");
	jsonw_double(&j, r->fit.beta);
	jsonw_key(&j, "pwcet_ns");
	jsonw_obj_begin(&j);
	for (i = 0; i < np; i++) {
		snprintf(key, sizeof(key), "%g", ps[i]);
		jsonw_key(&j, key);
		if (r->ok)
			jsonw_uint(&j, (uint64_t)ceil(evt_result_pwcet(r,
			    ps[i])));
		else
			jsonw_null(&j);
	}
	jsonw_obj_end(&j);
	jsonw_key(&j, "alpha");
	jsonw_double(&j, r->alpha);
	jsonw_key(&j, "tests");
	jsonw_obj_begin(&j);
	/* the stationarity tests share alpha */
	ap_test_json(&j, "ks_halves", "d", r->ks_halves, r->alpha / 2.0);
	ap_test_json(&j, "trend", "z", r->trend, r->alpha / 2.0);
	ap_test_json(&j, "runs", "z", r->runs, r->alpha);
	ap_test_json(&j, "ljung_box", "q", r->ljung_box, r->alpha);
	jsonw_key(&j, "ljung_box_lags");
	jsonw_uint(&j, r->lb_lags);
	jsonw_key(&j, "ar_order");
	jsonw_int(&j, r->ar_order);
	ap_extremes_json(&j, r);
	ap_test_json(&j, "gumbel_fit", "d", r->gof, r->alpha);
	jsonw_key(&j, "gumbel_tail");
	jsonw_obj_begin(&j);
	jsonw_key(&j, "ks_d");
	jsonw_double(&j, r->tail_ks.stat);
	jsonw_key(&j, "ks_p");
	jsonw_double(&j, r->tail_ks.p);
	jsonw_key(&j, "max_ns");
	jsonw_double(&j, r->tail_max.stat);
	jsonw_key(&j, "max_p");
	jsonw_double(&j, r->tail_max.p);
	jsonw_key(&j, "p");
	jsonw_double(&j, r->gof_tail.p);
	jsonw_key(&j, "reject");
	jsonw_bool(&j, r->gof_tail.p < r->alpha);
	jsonw_obj_end(&j);
	jsonw_key(&j, "grid_ns");
	jsonw_double(&j, r->grid);
	jsonw_obj_end(&j);
	jsonw_key(&j, "rule");
	jsonw_str(&j, evt_rule_name(r->rule));
	jsonw_key(&j, "ok");
	jsonw_bool(&j, r->ok);
	jsonw_key(&j, "reason");
	jsonw_str(&j, r->reason);
	jsonw_obj_end(&j);
	jsonw_end(&j);
}

/* The numbers behind the rule that decided. */
static void
ap_evt_why(const struct evt_result *r)
{
	switch (r->rule) {
	case EVT_RULE_NONSTATIONARY:
		printf("  (K-S halves p %.4g, trend p %.4g, each at alpha/2 "
		    "= %g)\n", r->ks_halves.p, r->trend.p, r->alpha / 2.0);
		break;
	case EVT_RULE_INDEPENDENT:
		printf("  (runs p %.4g, Ljung-Box p %.4g, alpha %g)\n",
		    r->runs.p, r->ljung_box.p, r->alpha);
		break;
	case EVT_RULE_STATIONARY:
	case EVT_RULE_CLUSTERED:
		printf("  (runs p %.4g, Ljung-Box p %.4g; extremal index "
		    "%.3f %s %.3f)\n", r->runs.p, r->ljung_box.p, r->theta,
		    r->theta >= r->theta_min ? ">=" : "<", r->theta_min);
		break;
	case EVT_RULE_TAIL:
		printf("  (tail p %.4g = 2 x min(%.4g, %.4g), alpha %g)\n",
		    r->gof_tail.p, r->tail_ks.p, r->tail_max.p, r->alpha);
		break;
	case EVT_RULE_NONE:
		break;
	}
}

static void
ap_evt_text(const struct evt_result *r, const double *ps, int np)
{
	double	m;
	int	i, h;

	printf("samples %zu, block %zu, maxima %zu, grid %g ns\n", r->n,
	    r->block, r->nmax, r->grid);
	printf("gumbel mu %.3f beta %.3f\n", r->fit.mu, r->fit.beta);
	printf("stationarity: K-S halves D %.4f p %.4g; trend (Mann-Kendall, "
	    "%d batch means) z %.3f p %.4g\n", r->ks_halves.stat,
	    r->ks_halves.p, EVT_TREND_BATCHES, r->trend.stat, r->trend.p);
	printf("independence: runs z %.3f p %.4g; Ljung-Box Q %.3f (%zu "
	    "lags) p %.4g; AR order %d (Yule-Walker, AIC)\n", r->runs.stat,
	    r->runs.p, r->ljung_box.stat, r->lb_lags, r->ljung_box.p,
	    r->ar_order);
	m = ap_xgram_max(r, &h);
	printf("extremes: extremal index %.3f (%s estimator, above %.1f; "
	    "%s %.3f); extremogram above %.1f: max %.3f at lag %d "
	    "(independent: %.3f)\n", r->theta, ap_theta_method(
	    r->theta_method), r->theta_u, ap_theta_method(
	    r->theta_method == EVT_THETA_BLOCKS ? EVT_THETA_INTERVALS :
	    EVT_THETA_BLOCKS), r->theta_method == EVT_THETA_BLOCKS ?
	    r->theta_intervals : r->theta_blocks, r->xgram_u, m, h,
	    r->xgram_base);
	printf("fit: K-S D %.4f p %.4g (two-sided); tail: K-S D %.4f p %.4g "
	    "(one-sided, top quarter), largest maximum %.1f p %.4g\n",
	    r->gof.stat, r->gof.p, r->tail_ks.stat, r->tail_ks.p,
	    r->tail_max.stat, r->tail_max.p);
	printf("%s by rule %s: %s\n", r->ok ? "accepted" : "refused",
	    evt_rule_name(r->rule), r->reason);
	ap_evt_why(r);
	if (!r->ok) {
		printf("no pWCET\n");
		return;
	}
	for (i = 0; i < np; i++)
		printf("pWCET at %g per %s: %.0f ns\n", ps[i],
		    r->per == EVT_PER_BLOCK ? "block" : "run",
		    ceil(evt_result_pwcet(r, ps[i])));
}

/*
 * Shared by evt and plot pwcet: options --block, --p, --alpha, --per,
 * --theta-min and --theta-method (AP_EVT_OPTS).
 */
static int
ap_evt_setup(const char *cmd, const struct an_opt *o, struct evt_options *eo,
    double *ps, int *np)
{
	const struct an_opt *p = an_opt_find(o, "p");
	const char *block = an_opt(o, "block"), *alpha = an_opt(o, "alpha");
	const char *per = an_opt(o, "per"), *tmin = an_opt(o, "theta-min");
	const char *tmethod = an_opt(o, "theta-method");
	unsigned long long v;
	int	i;

	evt_options_default(eo);
	if (block && (ap_uint(block, 1u << 20, &v) < 0 || v < 1))
		return ap_fail(cmd, "bad --block '%s'", block);
	if (block)
		eo->block = (size_t)v;
	if (alpha && ap_double(alpha, 0.0, 1.0, &eo->alpha) < 0)
		return ap_fail(cmd, "bad --alpha '%s'", alpha);
	if (per && strcmp(per, "block") == 0)
		eo->per = EVT_PER_BLOCK;
	else if (per && strcmp(per, "run") != 0)
		return ap_fail(cmd, "bad --per '%s' (block or run)", per);
	if (tmin && (ap_double(tmin, 0.0, 2.0, &eo->theta_min) < 0 ||
	    eo->theta_min > 1.0))
		return ap_fail(cmd, "bad --theta-min '%s' (0 < T <= 1)", tmin);
	if (tmethod && strcmp(tmethod, "intervals") == 0)
		eo->theta_method = EVT_THETA_INTERVALS;
	else if (tmethod && strcmp(tmethod, "blocks") != 0)
		return ap_fail(cmd, "bad --theta-method '%s' (blocks or "
		    "intervals)", tmethod);
	ps[0] = 1e-6;
	ps[1] = 1e-9;
	ps[2] = 1e-12;
	*np = 3;
	for (i = 0; i < p->nlist; i++) {
		if (ap_double(p->list[i], 0.0, 1.0, &ps[*np]) < 0)
			return ap_fail(cmd, "bad --p '%s' (0 < P < 1)",
			    p->list[i]);
		(*np)++;
	}
	return 0;
}

#define AP_EVT_OPTS	AN_OPT("block", AN_VALUE), AN_OPT("p", AN_LIST), \
	AN_OPT("alpha", AN_VALUE), AN_OPT("per", AN_VALUE), \
	AN_OPT("theta-min", AN_VALUE), AN_OPT("theta-method", AN_VALUE)

int
an_evt_main(int argc, char **argv)
{
	struct an_opt opts[] = { AP_EVT_OPTS, AN_OPT("json", AN_FLAG),
	    AN_OPT_END };
	const char *path;
	struct evt_options eo;
	struct evt_result r;
	double	*x, ps[3 + AN_MAX_LIST];
	size_t	n;
	int	rc, np;

	if ((rc = an_args(argc, argv, opts, "SAMPLES", &path)) != 0)
		return rc;
	if ((rc = ap_evt_setup(argv[0], opts, &eo, ps, &np)) != 0)
		return rc;
	if ((rc = ap_read_samples(argv[0], path, &x, &n)) != 0)
		return rc;
	rc = evt_analyze(x, n, &eo, &r);
	free(x);
	if (rc == -ENOMEM)
		return ap_fail(argv[0], "out of memory");
	if (rc < 0) {
		ap_fail(argv[0], "%s: %s (%zu samples, block %zu)", path,
		    r.reason, n, eo.block);
		return 2;
	}
	if (an_opt(opts, "json"))
		ap_evt_json(&r, ps, np);
	else
		ap_evt_text(&r, ps, np);
	return r.ok ? 0 : 1;
}

/* ------------------------------------------------------------ cluster */

struct ap_cstat {
	struct cluster_stats st[2];	/* exact, per condition */
	double		 e[2];		/* selected e0, e1 */
	double		 fit[2];	/* normal K-S D / critical */
	double		 pct[2];	/* normal percentile of e */
	double		 emp[2];	/* empirical percentile of e */
	uint32_t	 nblocks;
	int		 raised;	/* e1 raised to e0 */
};

struct ap_clustering {
	struct trace_acc acc;
	uint16_t	*id;
	unsigned int	 nclusters;
	int		 nintervals;
	uint32_t	 first[PROGRESS_MAX_INTERVALS];
	uint16_t	 cluster[PROGRESS_MAX_INTERVALS];
	struct ap_cstat	 c[WCET_MAX_CLUSTERS];
	struct cluster_select sel;
	double		 alpha;
	char		 sel_text[64];
};

/* Chan et al.: merge a block's moments into the cluster's. */
static void
ap_merge(struct cluster_stats *c, const struct trace_stat *s, double *m2)
{
	double	n = (double)c->count, k = (double)s->count, d;

	if (s->count == 0)
		return;
	d = s->mean - c->mean;
	c->mean += d * k / (n + k);
	*m2 += s->m2 + d * d * n * k / (n + k);
	c->count += s->count;
	if ((double)s->max > c->max)
		c->max = (double)s->max;
}

/*
 * Pool the reservoirs of cluster c in run-major order (sample j of every
 * block, then j + 1), at most AP_POOL_MAX values.
 */
static double *
ap_pool(const struct ap_clustering *cl, unsigned int c, unsigned int cond,
    size_t *n)
{
	const struct trace_acc *a = &cl->acc;
	double	*x;
	uint32_t b, j, len;
	uint32_t *v;
	size_t	k = 0, cap = (size_t)cl->c[c].nblocks * a->res;

	if (cap > AP_POOL_MAX)
		cap = AP_POOL_MAX;
	if ((x = malloc((cap ? cap : 1) * sizeof(*x))) == NULL)
		return NULL;
	for (j = 0; j < a->res && k < cap; j++)
		for (b = 0; b < a->nblocks && k < cap; b++) {
			if (cl->id[b] != c)
				continue;
			v = trace_acc_sample(a, b, cond, &len);
			if (j < len)
				x[k++] = v[j];
		}
	*n = k;
	return x;
}

static double
ap_norm_cdf(double x, const void *arg)
{
	const struct cluster_stats *s = arg;

	return s->sd > 0.0 ? stats_norm_cdf((x - s->mean) / s->sd) :
	    (x >= s->mean ? 1.0 : 0.0);
}

/* e0/e1 and the Table 4.1 columns of one cluster and condition. */
static int
ap_select(const char *cmd, struct ap_clustering *cl, unsigned int c,
    unsigned int cond)
{
	struct ap_cstat *cs = &cl->c[c];
	struct cluster_stats *st = &cs->st[cond];
	const char *why;
	double	*x, v;
	size_t	n, i;

	if ((x = ap_pool(cl, c, cond, &n)) == NULL)
		return ap_fail(cmd, "out of memory");
	if (cluster_select_value(&cl->sel, st, x, n, &v, &why) < 0) {
		free(x);
		return ap_fail(cmd, "cluster %u, %s: %s cannot select e%u: %s",
		    c, cond ? "interference" : "isolation", cl->sel_text, cond,
		    why);
	}
	cs->e[cond] = ceil(v) < 1.0 ? 1.0 : ceil(v);
	stats_sort(x, n);
	/* whole-ns samples: compare with the rounded normal */
	cs->fit[cond] = ks_d1_grid(x, n, ap_norm_cdf, st, ks_grid(x, n),
	    KS_TWO_SIDED, -INFINITY) / ks_critical(cl->alpha, n, 0);
	cs->pct[cond] = ap_norm_cdf(cs->e[cond], st);
	for (i = 0; i < n && x[i] <= cs->e[cond]; i++)
		;
	cs->emp[cond] = n ? (double)i / (double)n : NAN;
	free(x);
	return 0;
}

static int
ap_check_runs(const char *cmd, const struct trace_acc *a)
{
	uint32_t b;
	unsigned int cond;
	uint64_t c;

	if (a->nblocks == 0)
		return ap_fail(cmd, "the trace has no samples");
	for (b = 0; b < a->nblocks; b++)
		for (cond = 0; cond < 2; cond++) {
			c = a->st[(size_t)b * 2 + cond].count;
			if (c < AP_MIN_RUNS)
				return ap_fail(cmd, "too few samples: block %u "
				    "has %llu %s samples, need at least %d",
				    b, (unsigned long long)c, cond ?
				    "interference (cond 1)" :
				    "isolation (cond 0)", AP_MIN_RUNS);
		}
	return 0;
}

/* Read, cluster, select.  Returns 0 or an exit code after a message. */
static int
ap_cluster_run(const char *cmd, const char *path, double alpha,
    uint32_t res, uint32_t nblocks, struct ap_clustering *cl)
{
	struct cluster_sample *s;
	char	err[256];
	double	m2[WCET_MAX_CLUSTERS][2] = { { 0 } };
	uint32_t b, len;
	unsigned int c, cond;
	FILE	*f;
	int	rc;

	cl->alpha = alpha;
	if (trace_acc_init(&cl->acc, res, nblocks, nblocks) < 0)
		return ap_fail(cmd, "out of memory");
	if ((f = ap_open(path)) == NULL)
		return ap_fail(cmd, "%s: %s", path, strerror(errno));
	rc = trace_acc_read(&cl->acc, f, err, sizeof(err));
	ap_close(f);
	if (rc < 0)
		return ap_fail(cmd, "%s: %s", path, err);
	if (nblocks && cl->acc.nblocks != nblocks)
		return ap_fail(cmd, "%s: blocks 0..%u expected, last block "
		    "seen is %u", path, nblocks - 1, cl->acc.nblocks - 1);
	if ((rc = ap_check_runs(cmd, &cl->acc)) != 0)
		return rc;
	s = calloc(cl->acc.nblocks, sizeof(*s));
	cl->id = calloc(cl->acc.nblocks, sizeof(*cl->id));
	if (s == NULL || cl->id == NULL) {
		free(s);
		return ap_fail(cmd, "out of memory");
	}
	/* the reservoirs stay in trace order: the pools and the EVT rule
	 * take them run by run, and a sorted reservoir cut short by
	 * AP_POOL_MAX would keep only its low values */
	for (b = 0; b < cl->acc.nblocks; b++) {
		s[b].v = trace_acc_sample(&cl->acc, b, 0, &len);
		s[b].len = len;
	}
	rc = cluster_blocks(s, cl->acc.nblocks, alpha, WCET_MAX_CLUSTERS,
	    cl->id);
	if (rc < 0) {
		rc = ap_fail(cmd, rc == -E2BIG ? "more than %d clusters: the "
		    "blocks do not form few homogeneous groups" :
		    "clustering failed (%d)", rc == -E2BIG ?
		    WCET_MAX_CLUSTERS : rc);
		goto out;
	}
	cl->nclusters = (unsigned int)rc;
	cl->nintervals = cluster_intervals(cl->id, cl->acc.nblocks, cl->first,
	    cl->cluster, PROGRESS_MAX_INTERVALS);
	if (cl->nintervals < 0) {
		rc = ap_fail(cmd, "more than %d intervals in block-id order",
		    PROGRESS_MAX_INTERVALS);
		goto out;
	}
	for (b = 0; b < cl->acc.nblocks; b++) {
		c = cl->id[b];
		cl->c[c].nblocks++;
		for (cond = 0; cond < 2; cond++)
			ap_merge(&cl->c[c].st[cond],
			    &cl->acc.st[(size_t)b * 2 + cond], &m2[c][cond]);
	}
	/* EVT selection: the 2C analyses share alpha (Bonferroni), or some
	 * test of an i.i.d. cluster would reject by chance */
	cl->sel.alpha = alpha / (2.0 * cl->nclusters);
	rc = 0;
	for (c = 0; c < cl->nclusters && rc == 0; c++) {
		for (cond = 0; cond < 2; cond++) {
			struct cluster_stats *st = &cl->c[c].st[cond];

			st->sd = st->count > 1 ?
			    sqrt(m2[c][cond] / (double)(st->count - 1)) : 0.0;
		}
		if ((rc = ap_select(cmd, cl, c, 0)) == 0)
			rc = ap_select(cmd, cl, c, 1);
		if (cl->c[c].e[1] < cl->c[c].e[0]) {
			cl->c[c].e[1] = cl->c[c].e[0];
			cl->c[c].raised = 1;
		}
	}
out:
	free(s);
	return rc;
}

static void
ap_clustering_free(struct ap_clustering *cl)
{
	trace_acc_free(&cl->acc);
	free(cl->id);
}

/* Kernel name from the trace's base name: [A-Za-z0-9_.-], 63 chars. */
static void
ap_name(const char *path, char *name)
{
	const char *b = strrchr(path, '/');
	size_t	i;

	b = b ? b + 1 : path;
	if (strcmp(path, "-") == 0 || *b == '\0' || *b == '.')
		b = "kernel";
	for (i = 0; i < PROFILE_MAX_NAME && b[i] != '\0'; i++)
		name[i] = (b[i] == ' ' || b[i] == '\t' || b[i] == '#' ||
		    (unsigned char)b[i] < 0x21 ||
		    (unsigned char)b[i] > 0x7e) ? '_' : b[i];
	name[i] = '\0';
	/* drop the extension */
	if (strrchr(name, '.') != NULL && strrchr(name, '.') != name)
		*strrchr(name, '.') = '\0';
}

static void
ap_cond_json(struct jsonw *j, const char *key, const struct ap_cstat *cs,
    unsigned int cond)
{
	jsonw_key(j, key);
	jsonw_obj_begin(j);
	jsonw_key(j, "samples");
	jsonw_uint(j, cs->st[cond].count);
	jsonw_key(j, "mean_ns");
	jsonw_double(j, cs->st[cond].mean);
	jsonw_key(j, "sd_ns");
	jsonw_double(j, cs->st[cond].sd);
	jsonw_key(j, "max_ns");
	jsonw_double(j, cs->st[cond].max);
	jsonw_key(j, cond ? "e1_ns" : "e0_ns");
	jsonw_uint(j, (uint64_t)cs->e[cond]);
	jsonw_key(j, "percentile");
	jsonw_double(j, cs->pct[cond]);
	jsonw_key(j, "empirical_percentile");
	jsonw_double(j, cs->emp[cond]);
	jsonw_key(j, "fit_ratio");
	jsonw_double(j, cs->fit[cond]);
	jsonw_obj_end(j);
}

static void
ap_cluster_json(const struct ap_clustering *cl, const struct profile *p,
    const char *out)
{
	struct jsonw j;
	double	worst = 0.0;
	unsigned int c;
	int	k;

	jsonw_init(&j, stdout);
	jsonw_obj_begin(&j);
	jsonw_key(&j, "kernel");
	jsonw_str(&j, p->name);
	jsonw_key(&j, "output");
	jsonw_str(&j, out);
	jsonw_key(&j, "blocks");
	jsonw_uint(&j, p->blocks);
	jsonw_key(&j, "concurrency");
	jsonw_uint(&j, p->concurrency);
	jsonw_key(&j, "records");
	jsonw_uint(&j, cl->acc.nrec);
	jsonw_key(&j, "reservoir");
	jsonw_uint(&j, cl->acc.res);
	jsonw_key(&j, "alpha");
	jsonw_double(&j, cl->alpha);
	jsonw_key(&j, "select");
	jsonw_str(&j, cl->sel_text);
	jsonw_key(&j, "clusters");
	jsonw_arr_begin(&j);
	for (c = 0; c < cl->nclusters; c++) {
		const struct ap_cstat *cs = &cl->c[c];

		jsonw_obj_begin(&j);
		jsonw_key(&j, "id");
		jsonw_uint(&j, c);
		jsonw_key(&j, "blocks");
		jsonw_uint(&j, cs->nblocks);
		ap_cond_json(&j, "isolation", cs, 0);
		ap_cond_json(&j, "interference", cs, 1);
		jsonw_key(&j, "e1_raised_to_e0");
		jsonw_bool(&j, cs->raised);
		jsonw_obj_end(&j);
		if (cs->fit[0] > worst)
			worst = cs->fit[0];
		if (cs->fit[1] > worst)
			worst = cs->fit[1];
	}
	jsonw_arr_end(&j);
	jsonw_key(&j, "goodness_of_fit");
	jsonw_double(&j, worst);
	jsonw_key(&j, "intervals");
	jsonw_arr_begin(&j);
	for (k = 0; k < cl->nintervals; k++) {
		jsonw_arr_begin(&j);
		jsonw_uint(&j, cl->first[k]);
		jsonw_uint(&j, cl->cluster[k]);
		jsonw_arr_end(&j);
	}
	jsonw_arr_end(&j);
	jsonw_obj_end(&j);
	jsonw_end(&j);
}

/* Options shared by cluster and plot edf. */
static int
ap_cluster_opts(const char *cmd, const struct an_opt *o, double *alpha,
    uint32_t *res, uint32_t *nblocks, struct ap_clustering *cl)
{
	const char *a = an_opt(o, "alpha"), *sel = an_opt(o, "select");
	const char *r = an_opt(o, "reservoir"), *b = an_opt(o, "blocks");
	unsigned long long v;

	*alpha = 0.05;
	if (a && ap_double(a, 0.0, 1.0, alpha) < 0)
		return ap_fail(cmd, "bad --alpha '%s'", a);
	snprintf(cl->sel_text, sizeof(cl->sel_text), "%s", sel ? sel : "max");
	if (cluster_select_parse(cl->sel_text, &cl->sel) < 0)
		return ap_fail(cmd, "bad --select '%s' (max, normal:P or "
		    "evt:P with 0 < P < 1)", cl->sel_text);
	*res = AP_DEFAULT_RES;
	if (r && (ap_uint(r, 1u << 16, &v) < 0 || v < 8))
		return ap_fail(cmd, "bad --reservoir '%s' (8..65536)", r);
	if (r)
		*res = (uint32_t)v;
	*nblocks = 0;
	if (b && (ap_uint(b, TRACE_MAX_BLOCKS, &v) < 0 || v < 1))
		return ap_fail(cmd, "bad --blocks '%s'", b);
	if (b)
		*nblocks = (uint32_t)v;
	return 0;
}

#define AP_CLUSTER_OPTS	AN_OPT("alpha", AN_VALUE), \
	AN_OPT("select", AN_VALUE), AN_OPT("reservoir", AN_VALUE), \
	AN_OPT("blocks", AN_VALUE), AN_OPT("o", AN_VALUE)

static int
ap_write_profile(const char *cmd, struct ap_clustering *cl, struct profile *p,
    const char *out)
{
	char	*buf, err[128];
	struct profile chk;
	unsigned int c;
	int	k, len, rc;

	p->blocks = cl->acc.nblocks;
	p->nclusters = cl->nclusters;
	for (c = 0; c < cl->nclusters; c++) {
		p->e0[c] = (uint64_t)cl->c[c].e[0];
		p->e1[c] = (uint64_t)cl->c[c].e[1];
	}
	p->nintervals = (unsigned int)cl->nintervals;
	for (k = 0; k < cl->nintervals; k++) {
		p->first[k] = cl->first[k];
		p->cluster[k] = cl->cluster[k];
	}
	if ((buf = malloc(PROFILE_MAX_SIZE)) == NULL)
		return ap_fail(cmd, "out of memory");
	len = profile_format(p, buf, PROFILE_MAX_SIZE);
	/* what we write must be what the daemon's parser accepts */
	if (len < 0 || profile_parse(buf, (size_t)len, &chk, err,
	    sizeof(err)) < 0) {
		free(buf);
		return ap_fail(cmd, "internal error: profile rejected (%s)",
		    len < 0 ? "format" : err);
	}
	rc = fileio_write_atomic(out, buf, (size_t)len);
	free(buf);
	if (rc < 0)
		return ap_fail(cmd, "%s: %s", out, strerror(-rc));
	return 0;
}

int
an_cluster_main(int argc, char **argv)
{
	struct an_opt opts[] = { AP_CLUSTER_OPTS,
	    AN_OPT("concurrency", AN_VALUE), AN_OPT("name", AN_VALUE),
	    AN_OPT("period-ns", AN_VALUE), AN_OPT("json", AN_FLAG),
	    AN_OPT_END };
	static struct ap_clustering cl;
	static struct profile p;
	const char *path, *cmd = argv[0], *out, *conc, *name, *period;
	unsigned long long v;
	double	alpha;
	uint32_t res, nblocks;
	unsigned int c;
	int	rc;

	memset(&cl, 0, sizeof(cl));
	memset(&p, 0, sizeof(p));
	if ((rc = an_args(argc, argv, opts, "TRACE", &path)) != 0 ||
	    (rc = ap_cluster_opts(cmd, opts, &alpha, &res, &nblocks, &cl)))
		return rc;
	out = an_opt(opts, "o");
	conc = an_opt(opts, "concurrency");
	name = an_opt(opts, "name");
	period = an_opt(opts, "period-ns");
	if (out == NULL)
		return ap_fail(cmd, "-o OUT.bwk is required");
	if (conc == NULL)
		return ap_fail(cmd, "--concurrency M is required (thread "
		    "blocks resident on the GPU at once)");
	if (ap_uint(conc, UINT32_MAX, &v) < 0 || v < 1)
		return ap_fail(cmd, "bad --concurrency '%s'", conc);
	p.concurrency = (uint32_t)v;
	p.period_ns = PROFILE_DEFAULT_PERIOD;
	if (period && (ap_uint(period, UINT64_MAX, &v) < 0 ||
	    v < 1))
		return ap_fail(cmd, "bad --period-ns '%s'", period);
	if (period)
		p.period_ns = v;
	if (name) {
		if (strlen(name) > PROFILE_MAX_NAME ||
		    name[0] == '\0' ||
		    strpbrk(name, " \t#\r\n") != NULL)
			return ap_fail(cmd, "bad --name (1-63 characters, no "
			    "spaces or '#')");
		strcpy(p.name, name);
	} else
		ap_name(path, p.name);
	rc = ap_cluster_run(cmd, path, alpha, res, nblocks, &cl);
	if (rc == 0)
		rc = ap_write_profile(cmd, &cl, &p, out);
	if (rc == 0 && an_opt(opts, "json"))
		ap_cluster_json(&cl, &p, out);
	else if (rc == 0) {
		printf("%s: %u blocks, %u clusters, %d intervals -> %s\n",
		    p.name, p.blocks, cl.nclusters, cl.nintervals,
		    out);
		for (c = 0; c < cl.nclusters; c++)
			printf("cluster %u: %u blocks, e0 %.0f ns, e1 %.0f ns, "
			    "fit %.2f/%.2f\n", c, cl.c[c].nblocks, cl.c[c].e[0],
			    cl.c[c].e[1], cl.c[c].fit[0], cl.c[c].fit[1]);
	}
	ap_clustering_free(&cl);
	return rc;
}

/* --------------------------------------------------------------- plot */

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
		return ap_fail(cmd, "bad -o prefix");
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
		return ap_fail(cmd, "%s: cannot write: %s", prefix,
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
		return ap_fail(cmd, "%s: write error", pl->gp);
	if (gnuplot == NULL || *gnuplot == '\0')
		gnuplot = "gnuplot";
	fflush(NULL);
	if ((pid = fork()) < 0)
		return ap_fail(cmd, "fork: %s", strerror(errno));
	if (pid == 0) {
		execlp(gnuplot, gnuplot, pl->gp, (char *)NULL);
		fprintf(stderr, "bwanalyze %s: %s: %s\n", cmd, gnuplot,
		    strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return ap_fail(cmd, "%s failed on %s (data and script kept)",
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
		return ap_fail(cmd, "-o PREFIX is required");
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
				rc = ap_fail(cmd, "out of memory");
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
		return ap_fail(cmd, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		ln++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%lf %lf", &q, &w) != 2 || !(q >= 0.0 &&
		    q <= 1.0) || !(w >= 0.0) || !isfinite(w)) {
			fclose(f);
			return ap_fail(cmd, "%s: line %lu: expected 'Q "
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
		return ap_fail(cmd, "-o PREFIX is required");
	if (sy && strcmp(sy, "0") != 0 &&
	    strcmp(sy, "1") != 0)
		return ap_fail(cmd, "bad --sync '%s' (0 or 1)", sy);
	sync = sy && sy[0] == '1';
	if ((rc = fileio_read(path, PROFILE_MAX_SIZE, &buf, &len)) != 0)
		return ap_fail(cmd, "%s: %s", path, strerror(-rc));
	rc = profile_parse(buf, len, &p, err, sizeof(err));
	free(buf);
	if (rc < 0)
		return ap_fail(cmd, "%s: %s", path, err);
	if (profile_to_model(&p, &k, &t) < 0)
		return ap_fail(cmd, "%s: profile not usable by the model",
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
		return ap_fail(cmd, "-o PREFIX is required");
	if ((rc = ap_read_samples(cmd, path, &x, &n)) != 0)
		return rc;
	rc = evt_analyze(x, n, &eo, &r);
	if (rc < 0 || (rc = ap_plot_open(cmd, an_opt(opts, "o"), &pl)) != 0) {
		free(x);
		return rc < 0 ? ap_fail(cmd, "%s: %s", path, r.reason ?
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
		return ap_fail(cmd, "usage: plot edf TRACE -o PREFIX "
		    "[--alpha A] [--select S] | plot gq PROFILE -o PREFIX "
		    "[--measured FILE] [--sync 0|1] | plot pwcet SAMPLES "
		    "-o PREFIX [--block B] [--p P]... [--per block|run]");
	if (strcmp(argv[1], "edf") == 0)
		return ap_plot_edf("plot edf", argc - 1, argv + 1);
	if (strcmp(argv[1], "gq") == 0)
		return ap_plot_gq("plot gq", argc - 1, argv + 1);
	if (strcmp(argv[1], "pwcet") == 0)
		return ap_plot_pwcet("plot pwcet", argc - 1, argv + 1);
	return ap_fail(cmd, "unknown plot '%s' (edf, gq or pwcet)", argv[1]);
}
