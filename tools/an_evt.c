/*
 * an_evt.c - bwanalyze evt: the EVT pWCET of measured execution times
 * (doc/profiling.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_profiling.h"
#include "jsonw.h"

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
int
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
		return an_fail(cmd, "bad --block '%s'", block);
	if (block)
		eo->block = (size_t)v;
	if (alpha && ap_double(alpha, 0.0, 1.0, &eo->alpha) < 0)
		return an_fail(cmd, "bad --alpha '%s'", alpha);
	if (per && strcmp(per, "block") == 0)
		eo->per = EVT_PER_BLOCK;
	else if (per && strcmp(per, "run") != 0)
		return an_fail(cmd, "bad --per '%s' (block or run)", per);
	if (tmin && (ap_double(tmin, 0.0, 2.0, &eo->theta_min) < 0 ||
	    eo->theta_min > 1.0))
		return an_fail(cmd, "bad --theta-min '%s' (0 < T <= 1)", tmin);
	if (tmethod && strcmp(tmethod, "intervals") == 0)
		eo->theta_method = EVT_THETA_INTERVALS;
	else if (tmethod && strcmp(tmethod, "blocks") != 0)
		return an_fail(cmd, "bad --theta-method '%s' (blocks or "
		    "intervals)", tmethod);
	ps[0] = 1e-6;
	ps[1] = 1e-9;
	ps[2] = 1e-12;
	*np = 3;
	for (i = 0; i < p->nlist; i++) {
		if (ap_double(p->list[i], 0.0, 1.0, &ps[*np]) < 0)
			return an_fail(cmd, "bad --p '%s' (0 < P < 1)",
			    p->list[i]);
		(*np)++;
	}
	return 0;
}


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
		return an_fail(argv[0], "out of memory");
	if (rc < 0) {
		an_fail(argv[0], "%s: %s (%zu samples, block %zu)", path,
		    r.reason, n, eo.block);
		return 2;
	}
	if (an_opt(opts, "json"))
		ap_evt_json(&r, ps, np);
	else
		ap_evt_text(&r, ps, np);
	return r.ok ? 0 : 1;
}
