/*
 * test_evt.c - Gumbel fit, pWCET and the EVT decision path on series
 * with known answers: Gumbel samples of known mu/beta, strongly and
 * weakly dependent AR(1) series, a level shift and a trend, clustered
 * extremes (a max-autoregressive process of known extremal index), AR
 * recurrences of known order, whole-ns Gaussian maxima, a Pareto tail, and the
 * examples of [EVT-CUDA]: its Table 1 verdicts and a Table 2 row.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evt.h"
#include "pcheck.h"

enum { N = 100000 };
static double x[N], m[N];
static uint64_t rs = 12345;

static double
unif(void)
{
	return punif(&rs);
}

static double
gumbel(double mu, double beta)
{
	return mu - beta * log(-log(unif()));
}

static double
normal(void)
{
	return sqrt(-2.0 * log(unif())) * cos(2.0 * M_PI * unif());
}

static int
analyze(size_t n, struct evt_result *r)
{
	struct evt_options o;

	evt_options_default(&o);
	return evt_analyze(x, n, &o, r);
}

static void
ar1(size_t n, double phi, double sd)
{
	double	v = 0.0;
	size_t	i;

	for (i = 0; i < n; i++) {
		v = phi * v + normal();
		x[i] = 1000.0 + sd * v;
	}
}

static void
check_fit(void)
{
	struct evt_gumbel g;
	size_t	i;

	/* direct MLE on Gumbel(10000, 50) */
	for (i = 0; i < 5000; i++)
		m[i] = gumbel(10000.0, 50.0);
	CHECK(evt_gumbel_fit(m, 5000, &g) == 0);
	CHECK_NEAR(g.mu, 10000.0, 3.0);
	CHECK_NEAR(g.beta, 50.0, 2.5);
	/* degenerate inputs */
	CHECK(evt_gumbel_fit(m, 1, &g) == -EDOM);
	for (i = 0; i < 10; i++)
		x[i] = 7.0;
	CHECK(evt_gumbel_fit(x, 10, &g) == -EDOM);
	/* block maxima */
	for (i = 0; i < 10; i++)
		x[i] = (double)(i % 4);
	CHECK(evt_block_maxima(x, 10, 4, m) == 2);
	CHECK(m[0] == 3.0 && m[1] == 3.0);
}

/* i.i.d. per-run Gumbel(1000, 20): accepted, x_p the per-run quantile */
static void
check_iid(void)
{
	struct evt_result r;
	double	want, v;
	size_t	i;

	for (i = 0; i < 25000; i++)
		x[i] = gumbel(1000.0, 20.0);
	CHECK(analyze(25000, &r) == 0);
	CHECK(r.nmax == 1000);
	CHECK(r.ok && r.rule == EVT_RULE_INDEPENDENT);
	CHECK(strstr(r.reason, "independent") != NULL);
	CHECK_NEAR(r.fit.beta, 20.0, 2.0);
	CHECK_NEAR(r.fit.mu, 1000.0 + 20.0 * log(25.0), 3.0);
	want = 1000.0 - 20.0 * log(-log1p(-1e-9));
	CHECK_NEAR(evt_result_pwcet(&r, 1e-9), want, 40.0);
	v = evt_pwcet(&r.fit, 25, 1e-6);
	CHECK_NEAR(evt_exceedance(&r.fit, 25, v), 1e-6, 1e-12);
	CHECK(evt_pwcet(&r.fit, 25, 1e-12) > evt_pwcet(&r.fit, 25, 1e-9));
	CHECK(r.theta_blocks > 0.9 && r.theta_intervals > 0.9);
	CHECK(r.ar_order == 0);
	CHECK(r.grid == 0.0);
}

/*
 * Dependence: a strong AR(1) is refused because its extremes cluster; a
 * weak one (Ljung-Box rejects at this n, as for the paper's host-timer
 * traces) is accepted by the stationarity rule.
 */
static void
check_dependent(void)
{
	struct evt_result r;
	struct evt_options o;

	ar1(25000, 0.5, 10.0);
	CHECK(analyze(25000, &r) == 0);
	CHECK(!r.ok && r.rule == EVT_RULE_CLUSTERED);
	CHECK(strstr(r.reason, "not independent") != NULL);
	CHECK(r.ljung_box.p < 1e-6 && r.theta < 0.85);
	CHECK(r.ar_order >= 1);
	ar1(25000, 0.08, 10.0);
	CHECK(analyze(25000, &r) == 0);
	CHECK(r.ljung_box.p < 1e-6);
	CHECK(r.ok && r.rule == EVT_RULE_STATIONARY);
	CHECK(r.theta >= EVT_DEFAULT_THETA_MIN);
	/* a stricter threshold refuses the same data, naming why */
	evt_options_default(&o);
	o.theta_min = 0.999;
	CHECK(evt_analyze(x, 25000, &o, &r) == 0);
	CHECK(!r.ok && r.rule == EVT_RULE_CLUSTERED);
	o.theta_method = EVT_THETA_INTERVALS;
	o.theta_min = 0.5;
	CHECK(evt_analyze(x, 25000, &o, &r) == 0);
	CHECK(r.ok && r.theta == r.theta_intervals);
	o.theta_min = 0.0;
	CHECK(evt_analyze(x, 25000, &o, &r) == -EINVAL);
}

static void
check_nonstationary(void)
{
	struct evt_result r;
	struct evt_test t;
	size_t	i;

	/* a level shift between the halves */
	for (i = 0; i < 5000; i++)
		x[i] = gumbel(1000.0 + (i < 2500 ? 0.0 : 100.0), 10.0);
	CHECK(analyze(5000, &r) == 0);
	CHECK(!r.ok && r.rule == EVT_RULE_NONSTATIONARY);
	CHECK(r.ks_halves.p < 1e-6);
	/* a slow trend: the batch means rise */
	for (i = 0; i < 5000; i++)
		x[i] = gumbel(1000.0 + 0.004 * (double)i, 10.0);
	t = evt_trend_test(x, 5000);
	CHECK(t.stat > 0 && t.p < 1e-6);
	/* the batch means of 20 increasing values: S = 190, var 950 */
	for (i = 0; i < 40; i++)
		x[i] = (double)i;
	t = evt_trend_test(x, 40);
	CHECK_NEAR(t.stat, 189.0 / sqrt(950.0), 1e-12);
	CHECK(isnan(evt_trend_test(x, 39).p));
	/* a period inside every batch is not a trend */
	for (i = 0; i < 5000; i++)
		x[i] = 1000.0 + 10.0 * sin(2.0 * M_PI * (double)i / 50.0);
	CHECK(evt_trend_test(x, 5000).p > 0.5);
}

/*
 * Max-autoregressive process X_t = max(a X_{t-1}, (1 - a) Z_t), Z unit
 * Frechet: extremal index 1 - a, extremogram a^h.
 */
static void
check_extremes(void)
{
	double	xg[EVT_XGRAM_LAGS], u, s;
	size_t	i;

	x[0] = -1.0 / log(unif());
	for (i = 1; i < N; i++)
		x[i] = fmax(0.5 * x[i - 1], 0.5 * -1.0 / log(unif()));
	/* the 99 % quantile of X: P(X <= u) = exp(-1/u) */
	u = -1.0 / log(0.99);
	CHECK_NEAR(evt_extremal_index(x, N, u), 0.5, 0.06);
	CHECK_NEAR(evt_extremal_index_blocks(x, N, u, 25), 0.5, 0.06);
	evt_extremogram(x, N, u, EVT_XGRAM_LAGS, xg);
	CHECK_NEAR(xg[0], 0.5, 0.06);
	CHECK_NEAR(xg[1], 0.25, 0.06);
	/* independent: theta 1, extremogram P(X > u) = 0.01 */
	for (i = 0; i < N; i++)
		x[i] = gumbel(0.0, 1.0);
	u = -log(-log(0.99));
	CHECK_NEAR(evt_extremal_index_blocks(x, N, u, 25), 1.0, 0.06);
	evt_extremogram(x, N, u, EVT_XGRAM_LAGS, xg);
	for (s = 0.0, i = 0; i < EVT_XGRAM_LAGS; i++) {
		CHECK_NEAR(xg[i], 0.01, 0.01);
		s += xg[i] / EVT_XGRAM_LAGS;
	}
	CHECK_NEAR(s, 0.01, 0.002);
	/* every extreme doubled: about 1/2 */
	for (i = 0; i < 20000; i += 2)
		x[i] = x[i + 1] = gumbel(0.0, 1.0);
	CHECK_NEAR(evt_extremal_index(x, 20000, 3.0), 0.5, 0.1);
	CHECK_NEAR(evt_extremal_index_blocks(x, 20000, 3.0, 25), 0.5, 0.1);
	CHECK(isnan(evt_extremal_index(x, 20000, 1e9)));
	CHECK(isnan(evt_extremal_index_blocks(x, 20000, 1e9, 25)));
	CHECK(isnan(evt_extremal_index_blocks(x, 20000, -1e9, 25)));
}

static void
check_ar_order(void)
{
	size_t	i;

	/* exact recurrences: alternating signs AR(1), a sinusoid AR(2) */
	for (i = 0; i < 3000; i++)
		x[i] = 1000.0 + (i % 2 ? 5.0 : -5.0);
	CHECK(evt_ar_order(x, 3000) == 1);
	for (i = 0; i < 3000; i++)
		x[i] = 1000.0 + 10.0 * sin(2.0 * M_PI * (double)i / 50.0);
	CHECK(evt_ar_order(x, 3000) == 2);
	/* AIC may overfit a noisy AR(2) by an order or two, never less */
	x[0] = x[1] = 0.0;
	for (i = 2; i < 5000; i++)
		x[i] = 0.5 * x[i - 1] - 0.3 * x[i - 2] + normal();
	CHECK(evt_ar_order(x, 5000) >= 2 && evt_ar_order(x, 5000) <= 6);
	CHECK(evt_ar_order(x, 1) == -1);
	for (i = 0; i < 10; i++)
		x[i] = 3.0;
	CHECK(evt_ar_order(x, 10) == -1);
}

/*
 * Whole-ns Gaussian samples: their block maxima are not Gumbel (the
 * fitted Gumbel's tail is heavier, the safe side) and rounding ties them:
 * the two-sided fit may reject, the tail check decides and accepts.  A
 * Pareto tail (index 3) is heavier than any Gumbel: refused.
 */
static void
check_tail(void)
{
	struct evt_result r;
	size_t	i;

	for (i = 0; i < 90000; i++)
		x[i] = round(1600.0 + 35.0 * normal());
	CHECK(analyze(90000, &r) == 0);
	CHECK(r.grid == 1.0);
	CHECK(r.gof_tail.p > 0.5);
	CHECK(r.ok);
	for (i = 0; i < 25000; i++)
		x[i] = 1000.0 + 100.0 * pow(unif(), -1.0 / 3.0);
	CHECK(analyze(25000, &r) == 0);
	CHECK(r.tail_max.p < 1e-4 && r.gof_tail.p < 1e-3);
	/* the same, stripped of the decision's other inputs */
	r.ks_halves.p = r.runs.p = r.ljung_box.p = 1.0;
	r.trend.p = NAN;
	evt_decide(&r);
	CHECK(!r.ok && r.rule == EVT_RULE_TAIL);
}

/*
 * [EVT-CUDA] Table 1 (p-values, AR order, theta; trend and tail tests
 * not reported there): T_DEV is independent, T_HOST stationary with
 * theta ~ 1, and the paper applies EVT to all eight traces.
 */
static void
check_paper_table1(void)
{
	static const struct {
		double	runs, ks, lb, theta;
		enum evt_rule want;
	} t1[] = {
		{ 0.3175, 0.9987, 0.7407, 1, EVT_RULE_INDEPENDENT },
		{ 0.7844, 0.9601, 0.1424, 0.992, EVT_RULE_INDEPENDENT },
		{ 0.664, 0.6104, 0.9205, 1, EVT_RULE_INDEPENDENT },
		{ 0.5288, 0.727811, 0.9715, 1, EVT_RULE_INDEPENDENT },
		{ 5.235e-13, 0.267, 2.2e-16, 1, EVT_RULE_STATIONARY },
		{ 2.2e-16, 0.532, 4.622e-07, 1, EVT_RULE_STATIONARY },
		{ 1.336e-07, 0.391, 2.2e-16, 1, EVT_RULE_STATIONARY },
		{ 0.6189, 0.5861, 6.988e-05, 0.994, EVT_RULE_STATIONARY },
	};
	struct evt_result r;
	size_t	i;

	for (i = 0; i < sizeof(t1) / sizeof(t1[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.alpha = 0.05;
		r.theta_min = EVT_DEFAULT_THETA_MIN;
		r.runs.p = t1[i].runs;
		r.ks_halves.p = t1[i].ks;
		r.ljung_box.p = t1[i].lb;
		r.theta = t1[i].theta;
		r.trend.p = r.gof_tail.p = NAN;
		evt_decide(&r);
		CHECK(r.ok && r.rule == t1[i].want);
		/* the same row with clustered extremes or a shift */
		r.theta = 0.5;
		evt_decide(&r);
		CHECK(r.ok == (t1[i].want == EVT_RULE_INDEPENDENT));
		r.theta = t1[i].theta;
		r.ks_halves.p = 0.01;
		evt_decide(&r);
		CHECK(!r.ok && r.rule == EVT_RULE_NONSTATIONARY);
	}
}

/*
 * [EVT-CUDA] Table 2, VOR-1 T_DEV: 12083, 12278, 12474 ns at 1e-6, 1e-9,
 * 1e-12 per block of 25, i.e. a Gumbel with beta = 195 / ln 1000 and mu
 * from the first value.  Runs drawn so their block maxima follow it
 * give the row back under --per block, and beta ln 25 less per run.
 */
static void
check_paper_table2(void)
{
	struct evt_options o;
	struct evt_result r;
	double	beta = (12278.0 - 12083.0) / log(1000.0), mu, run;
	size_t	i;

	mu = 12083.0 + beta * log(-log1p(-1e-6));
	for (i = 0; i < N; i++)
		x[i] = gumbel(mu - beta * log(25.0), beta);
	evt_options_default(&o);
	o.per = EVT_PER_BLOCK;
	CHECK(evt_analyze(x, N, &o, &r) == 0 && r.ok);
	CHECK_NEAR(evt_result_pwcet(&r, 1e-6), 12083.0, 15.0);
	CHECK_NEAR(evt_result_pwcet(&r, 1e-9), 12278.0, 25.0);
	CHECK_NEAR(evt_result_pwcet(&r, 1e-12), 12474.0, 35.0);
	run = evt_pwcet(&r.fit, 25, 1e-9);
	CHECK_NEAR(evt_result_pwcet(&r, 1e-9) - run, r.fit.beta * log(25.0),
	    1e-6);
}

int
main(void)
{
	struct evt_result r;
	struct evt_test t;
	size_t	i;

	check_fit();
	check_iid();
	check_dependent();
	check_nonstationary();
	check_extremes();
	check_ar_order();
	check_tail();
	check_paper_table1();
	check_paper_table2();

	/* too few samples */
	CHECK(analyze(499, &r) == -EINVAL);
	CHECK(!r.ok && strstr(r.reason, "too few") != NULL);
	/* runs test by hand: 1..10 gives two runs, z = -4 / sqrt(20/9) */
	for (i = 0; i < 10; i++)
		x[i] = (double)(i + 1);
	t = evt_runs_test(x, 10);
	CHECK_NEAR(t.stat, -4.0 / sqrt(20.0 / 9.0), 1e-12);
	CHECK_NEAR(t.p, erfc(4.0 / sqrt(20.0 / 9.0) / M_SQRT2), 1e-15);
	CHECK(strcmp(evt_rule_name(EVT_RULE_STATIONARY), "stationary") == 0);
	CHECK_DONE();
}
