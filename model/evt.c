/*
 * evt.c - Gumbel block maxima, the EVT applicability tests and the
 * decision path of [EVT-CUDA] (evt.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evt.h"
#include "kstest.h"
#include "stats.h"

#define EULER_GAMMA	0.57721566490153286

size_t
evt_block_maxima(const double *x, size_t n, size_t b, double *out)
{
	size_t	k, i, nb;
	double	m;

	if (b == 0)
		return 0;
	nb = n / b;
	for (k = 0; k < nb; k++) {
		m = x[k * b];
		for (i = 1; i < b; i++)
			if (x[k * b + i] > m)
				m = x[k * b + i];
		out[k] = m;
	}
	return nb;
}

/*
 * The likelihood equation for beta, on centred data y = x - mean:
 * g(beta) = beta - mean(y) + sum(y w) / sum(w), w = exp(-y / beta).
 * Weights are scaled by exp(ymin / beta) so they never overflow.
 */
static double
gumbel_g(const double *y, size_t k, double ymin, double beta, double *dg)
{
	double	sw = 0.0, syw = 0.0, sy2w = 0.0, w, a, b2;
	size_t	i;

	for (i = 0; i < k; i++) {
		w = exp(-(y[i] - ymin) / beta);
		sw += w;
		syw += y[i] * w;
		sy2w += y[i] * y[i] * w;
	}
	a = syw / sw;
	b2 = beta * beta;
	/* d/dbeta of sum(yw)/sum(w) = (sum(y^2 w) / sw - a^2) / beta^2 */
	if (dg != NULL)
		*dg = 1.0 + (sy2w / sw - a * a) / b2;
	return beta + a;
}

static double
gumbel_mu(const double *y, size_t k, double ymin, double beta)
{
	double	s = 0.0;
	size_t	i;

	for (i = 0; i < k; i++)
		s += exp(-(y[i] - ymin) / beta);
	return ymin - beta * log(s / (double)k);
}

int
evt_gumbel_fit(const double *m, size_t k, struct evt_gumbel *g)
{
	double	mean, sd, beta, lo, hi, f, df, nb, ymin;
	double	*y;
	size_t	i;
	int	it;

	if (k < 2)
		return -EDOM;
	stats_mean_sd(m, k, &mean, &sd);
	if (!(sd > 0.0) || !isfinite(sd))
		return -EDOM;
	y = malloc(k * sizeof(*y));
	if (y == NULL)
		return -ENOMEM;
	ymin = INFINITY;
	for (i = 0; i < k; i++) {
		y[i] = m[i] - mean;
		if (y[i] < ymin)
			ymin = y[i];
	}
	/* g is increasing in beta (g' >= 1): bracket the root, then Newton
	 * from the moments estimate, falling back to bisection */
	beta = sd * sqrt(6.0) / M_PI;
	lo = beta;
	hi = beta;
	while (gumbel_g(y, k, ymin, lo, NULL) > 0.0 && lo > sd * 1e-12)
		lo /= 2.0;
	while (gumbel_g(y, k, ymin, hi, NULL) < 0.0 && hi < sd * 1e12)
		hi *= 2.0;
	for (it = 0; it < 200; it++) {
		f = gumbel_g(y, k, ymin, beta, &df);
		if (f > 0.0)
			hi = beta;
		else
			lo = beta;
		nb = beta - f / df;
		if (!(nb > lo && nb < hi))
			nb = (lo + hi) / 2.0;
		if (fabs(nb - beta) <= 1e-14 * beta) {
			beta = nb;
			break;
		}
		beta = nb;
	}
	g->beta = beta;
	g->mu = mean + gumbel_mu(y, k, ymin, beta);
	free(y);
	return 0;
}

double
evt_gumbel_cdf(double x, const void *arg)
{
	const struct evt_gumbel *g = arg;

	return exp(-exp(-(x - g->mu) / g->beta));
}

double
evt_pwcet(const struct evt_gumbel *g, size_t b, double p)
{
	/* -ln(1-p) via log1p: exact for p = 1e-12 */
	return g->mu - g->beta * log(-(double)b * log1p(-p));
}

double
evt_exceedance(const struct evt_gumbel *g, size_t b, double x)
{
	/* per-run CDF is G(x)^(1/b) */
	return -expm1(-exp(-(x - g->mu) / g->beta) / (double)b);
}

struct evt_test
evt_runs_test(const double *x, size_t n)
{
	struct evt_test t = { NAN, NAN };
	double	*s, med, n1 = 0, n2 = 0, runs = 0, mean, var, nn;
	int	prev = -1, cur;
	size_t	i;

	s = malloc((n ? n : 1) * sizeof(*s));
	if (s == NULL || n < 2) {
		free(s);
		return t;
	}
	memcpy(s, x, n * sizeof(*s));
	stats_sort(s, n);
	med = stats_median_sorted(s, n);
	free(s);
	/* values equal to the median are dropped */
	for (i = 0; i < n; i++) {
		if (x[i] == med)
			continue;
		cur = x[i] > med;
		if (cur)
			n1++;
		else
			n2++;
		if (cur != prev)
			runs++;
		prev = cur;
	}
	nn = n1 + n2;
	if (n1 == 0 || n2 == 0)
		return t;
	mean = 2.0 * n1 * n2 / nn + 1.0;
	var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - nn) / (nn * nn * (nn - 1.0));
	t.stat = (runs - mean) / sqrt(var);
	t.p = erfc(fabs(t.stat) / M_SQRT2);
	return t;
}

struct evt_test
evt_ljung_box(const double *x, size_t n, size_t h)
{
	struct evt_test t = { NAN, NAN };
	double	mean, sd, c0 = 0.0, ck, q = 0.0;
	size_t	i, k;

	if (h == 0 || n <= h + 1)
		return t;
	stats_mean_sd(x, n, &mean, &sd);
	for (i = 0; i < n; i++)
		c0 += (x[i] - mean) * (x[i] - mean);
	if (!(c0 > 0.0))
		return t;
	for (k = 1; k <= h; k++) {
		ck = 0.0;
		for (i = k; i < n; i++)
			ck += (x[i] - mean) * (x[i - k] - mean);
		q += (ck / c0) * (ck / c0) / (double)(n - k);
	}
	t.stat = (double)n * ((double)n + 2.0) * q;
	t.p = stats_chi2_sf(t.stat, (double)h);
	return t;
}

struct evt_test
evt_trend_test(const double *x, size_t n)
{
	struct evt_test t = { NAN, NAN };
	double	m[EVT_TREND_BATCHES], srt[EVT_TREND_BATCHES], sum, var, s = 0;
	size_t	i, j, lo, hi, k = EVT_TREND_BATCHES;

	if (n < 2 * k)
		return t;
	for (i = 0; i < k; i++) {
		lo = i * n / k;
		hi = (i + 1) * n / k;
		for (sum = 0.0, j = lo; j < hi; j++)
			sum += x[j] - x[0];	/* offset: ns timestamps */
		m[i] = srt[i] = sum / (double)(hi - lo);
	}
	for (i = 0; i < k; i++)
		for (j = i + 1; j < k; j++)
			s += (m[j] > m[i]) - (m[j] < m[i]);
	var = (double)k * (k - 1) * (2 * k + 5);
	/* tied means reduce the variance */
	stats_sort(srt, k);
	for (i = 0; i < k; i = j) {
		for (j = i; j < k && srt[j] == srt[i]; j++)
			;
		var -= (double)(j - i) * (j - i - 1) * (2 * (j - i) + 5);
	}
	var /= 18.0;
	if (!(var > 0.0))
		return t;
	t.stat = (s > 0 ? s - 1 : s < 0 ? s + 1 : 0) / sqrt(var);
	t.p = erfc(fabs(t.stat) / M_SQRT2);
	return t;
}

/*
 * Ferro and Segers (2003): from the gaps T between exceedances of u,
 * theta = 2 (sum T)^2 / ((N-1) sum T^2) when every gap is <= 2, else
 * 2 (sum (T-1))^2 / ((N-1) sum (T-1)(T-2)), capped at 1.
 */
double
evt_extremal_index(const double *x, size_t n, double u)
{
	double	s1 = 0, s2 = 0, r1 = 0, r2 = 0, t, th;
	size_t	i, last = 0, nex = 0, maxgap = 0;

	for (i = 0; i < n; i++) {
		if (!(x[i] > u))
			continue;
		if (nex > 0) {
			t = (double)(i - last);
			s1 += t;
			s2 += t * t;
			r1 += t - 1.0;
			r2 += (t - 1.0) * (t - 2.0);
			if (i - last > maxgap)
				maxgap = i - last;
		}
		last = i;
		nex++;
	}
	if (nex < 2)
		return NAN;
	if (maxgap <= 2)
		th = 2.0 * s1 * s1 / ((double)(nex - 1) * s2);
	else
		th = r2 > 0.0 ? 2.0 * r1 * r1 / ((double)(nex - 1) * r2) : 1.0;
	return th > 1.0 ? 1.0 : th;
}

double
evt_extremal_index_blocks(const double *x, size_t n, double u, size_t r)
{
	size_t	k, i, j, nex = 0, kex = 0, in;
	double	th;

	if (r == 0 || (k = n / r) == 0)
		return NAN;
	for (i = 0; i < k; i++) {
		for (in = 0, j = i * r; j < (i + 1) * r; j++)
			in += x[j] > u;
		nex += in;
		kex += in > 0;
	}
	if (nex == 0 || kex == k || nex == k * r)
		return NAN;
	th = log1p(-(double)kex / (double)k) /
	    ((double)r * log1p(-(double)nex / (double)(k * r)));
	return th > 1.0 ? 1.0 : th;
}

void
evt_extremogram(const double *x, size_t n, double u, size_t h, double *out)
{
	size_t	t, l, nex = 0;

	for (l = 0; l < h; l++)
		out[l] = 0.0;
	for (t = 0; t < n; t++) {
		if (!(x[t] > u))
			continue;
		nex++;
		for (l = 1; l <= h && t + l < n; l++)
			out[l - 1] += x[t + l] > u;
	}
	for (l = 0; l < h; l++)
		out[l] = nex ? out[l] / (double)nex : NAN;
}

/*
 * Yule-Walker by Levinson-Durbin: the innovation variance of order p is
 * v_p = v_{p-1} (1 - phi_pp^2); AIC(p) = n ln v_p + 2p, as R's ar.yw.
 */
int
evt_ar_order(const double *x, size_t n)
{
	double	g[EVT_AR_MAX + 1], phi[EVT_AR_MAX + 1], prev[EVT_AR_MAX + 1];
	double	mean, sd, v, acc, kp, aic, best;
	size_t	pmax, k, i, p, j;
	int	order = 0;

	if (n < 2)
		return -1;
	stats_mean_sd(x, n, &mean, &sd);
	if (!(sd > 0.0))
		return -1;
	pmax = (size_t)floor(10.0 * log10((double)n));
	if (pmax > n - 1)
		pmax = n - 1;
	if (pmax > EVT_AR_MAX)
		pmax = EVT_AR_MAX;
	for (k = 0; k <= pmax; k++) {
		for (acc = 0.0, i = k; i < n; i++)
			acc += (x[i] - mean) * (x[i - k] - mean);
		g[k] = acc / (double)n;
	}
	v = g[0];
	best = (double)n * log(v);
	for (p = 1; p <= pmax; p++) {
		for (acc = g[p], j = 1; j < p; j++)
			acc -= phi[j] * g[p - j];
		kp = acc / v;
		for (j = 1; j < p; j++)
			prev[j] = phi[j];
		for (j = 1; j < p; j++)
			phi[j] = prev[j] - kp * prev[p - j];
		phi[p] = kp;
		v *= 1.0 - kp * kp;
		if (!(v > 0.0)) {
			order = (int)p;	/* a perfect fit */
			break;
		}
		aic = (double)n * log(v) + 2.0 * (double)p;
		if (aic < best) {
			best = aic;
			order = (int)p;
		}
	}
	return order;
}

static struct evt_test
ks_halves(double *s, const double *x, size_t n)
{
	struct evt_test t;
	size_t	h = n / 2;

	memcpy(s, x, n * sizeof(*s));
	stats_sort(s, h);
	stats_sort(s + h, n - h);
	t.stat = ks_d2(s, h, s + h, n - h);
	t.p = ks_pvalue(t.stat, h, n - h);
	return t;
}

const char *
evt_rule_name(enum evt_rule r)
{
	switch (r) {
	case EVT_RULE_INDEPENDENT:
		return "independent";
	case EVT_RULE_STATIONARY:
		return "stationary";
	case EVT_RULE_NONSTATIONARY:
		return "non-stationary";
	case EVT_RULE_CLUSTERED:
		return "clustered-extremes";
	case EVT_RULE_TAIL:
		return "gumbel-tail";
	case EVT_RULE_NONE:
		break;
	}
	return "none";
}

void
evt_options_default(struct evt_options *o)
{
	o->block = EVT_DEFAULT_BLOCK;
	o->alpha = 0.05;
	o->theta_min = EVT_DEFAULT_THETA_MIN;
	o->theta_method = EVT_THETA_BLOCKS;
	o->per = EVT_PER_RUN;
}

static int
evt_rejects(struct evt_test t, double alpha)
{
	return t.p < alpha;	/* an undefined test (NaN) rejects nothing */
}

/*
 * [EVT-CUDA] section 4: identical distribution and stationarity are
 * required in every case; independent samples follow Theorem 1; for
 * dependent but stationary ones Theorem 3 gives the same EVT as for
 * independent data when the extremes do not cluster, theta ~ 1 (Table 1:
 * the host-timer traces, Ljung-Box p < 2.2e-16 and theta 0.994-1).
 */
void
evt_decide(struct evt_result *r)
{
	double	a = r->alpha;

	/* the two stationarity tests share alpha (Bonferroni) */
	r->ok = 0;
	if (evt_rejects(r->ks_halves, a / 2.0)) {
		r->rule = EVT_RULE_NONSTATIONARY;
		r->reason = "non-stationary: the two-sample K-S test rejects "
		    "that the two halves have one distribution";
		return;
	}
	if (evt_rejects(r->trend, a / 2.0)) {
		r->rule = EVT_RULE_NONSTATIONARY;
		r->reason = "non-stationary: the Mann-Kendall test on batch "
		    "means finds a trend";
		return;
	}
	if (!evt_rejects(r->runs, a) && !evt_rejects(r->ljung_box, a)) {
		r->rule = EVT_RULE_INDEPENDENT;
		r->reason = "independent and identically distributed: no "
		    "test rejects";
	} else if (r->theta >= r->theta_min) {
		r->rule = EVT_RULE_STATIONARY;
		r->reason = "stationary; not independent, but the extremes "
		    "do not cluster (extremal index near 1), so EVT applies "
		    "as to independent samples";
	} else {
		r->rule = EVT_RULE_CLUSTERED;
		r->reason = "samples are not independent and their extremes "
		    "cluster (extremal index below the threshold, or "
		    "undefined): EVT does not apply";
		return;
	}
	if (evt_rejects(r->gof_tail, a)) {
		r->rule = EVT_RULE_TAIL;
		r->reason = "the upper tail of the fitted Gumbel lies below "
		    "the block maxima (one-sided K-S over the top quarter, or "
		    "the largest maximum): the pWCET would be optimistic";
		return;
	}
	r->ok = 1;
}

/* Stationarity, the threshold quantiles and the sample's grid. */
static void
evt_sorted_tests(double *s, const double *x, size_t n, struct evt_result *r)
{
	r->ks_halves = ks_halves(s, x, n);
	/* s holds the sorted halves; thresholds are quantiles of all */
	stats_sort(s, n);
	r->theta_u = stats_quantile_sorted(s, n, EVT_EI_QUANTILE);
	r->xgram_u = stats_quantile_sorted(s, n, EVT_XGRAM_QUANTILE);
	r->grid = ks_grid(s, n);
}

static void
evt_dependence(const double *x, size_t n, struct evt_result *r)
{
	size_t	i, nex = 0;

	r->runs = evt_runs_test(x, n);
	r->lb_lags = n / 10 < 20 ? n / 10 : 20;
	r->ljung_box = evt_ljung_box(x, n, r->lb_lags);
	r->trend = evt_trend_test(x, n);
	r->ar_order = evt_ar_order(x, n);
	r->theta_blocks = evt_extremal_index_blocks(x, n, r->theta_u,
	    r->block);
	r->theta_intervals = evt_extremal_index(x, n, r->theta_u);
	r->theta = r->theta_method == EVT_THETA_BLOCKS ? r->theta_blocks :
	    r->theta_intervals;
	evt_extremogram(x, n, r->xgram_u, EVT_XGRAM_LAGS, r->xgram);
	for (i = 0; i < n; i++)
		nex += x[i] > r->xgram_u;
	r->xgram_base = (double)nex / (double)n;
}

/*
 * Goodness of fit of the sorted block maxima s.  The two-sided K-S is
 * reported; the tail decides, since a Gumbel heavier than the data (as
 * for Gaussian maxima, whose law is Gumbel only in the limit) errs on
 * the safe side: the K-S of the model above the EDF over the model's top
 * quarter, and P(largest of k > x_max) = 1 - G(x_max)^k, which catches
 * heavy (Frechet) tails the fit has stretched itself over.
 */
static void
evt_tail_tests(const double *s, struct evt_result *r)
{
	double	from, z, p;
	size_t	k = r->nmax;

	r->gof.stat = ks_d1_grid(s, k, evt_gumbel_cdf, &r->fit, r->grid,
	    KS_TWO_SIDED, -INFINITY);
	r->gof.p = ks_pvalue(r->gof.stat, k, 0);
	from = r->fit.mu - r->fit.beta * log(-log(EVT_TAIL_QUANTILE));
	r->tail_ks.stat = ks_d1_grid(s, k, evt_gumbel_cdf, &r->fit, r->grid,
	    KS_MODEL_ABOVE, from);
	r->tail_ks.p = ks_pvalue_one_sided(r->tail_ks.stat, k);
	r->tail_max.stat = s[k - 1];
	z = (s[k - 1] - r->fit.mu) / r->fit.beta;
	r->tail_max.p = -expm1(-(double)k * exp(-z));
	p = 2.0 * fmin(r->tail_ks.p, r->tail_max.p);
	r->gof_tail.stat = r->tail_ks.stat;
	r->gof_tail.p = p > 1.0 ? 1.0 : p;
}

int
evt_analyze(const double *x, size_t n, const struct evt_options *o,
    struct evt_result *r)
{
	double	*s;
	int	err;

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->block = o->block;
	r->per = o->per;
	r->alpha = o->alpha;
	r->theta_min = o->theta_min;
	r->theta_method = o->theta_method;
	r->rule = EVT_RULE_NONE;
	r->ar_order = -1;
	if (o->block < 1 || !(o->alpha > 0.0 && o->alpha < 1.0) ||
	    !(o->theta_min > 0.0 && o->theta_min <= 1.0)) {
		r->reason = "bad options";
		return -EINVAL;
	}
	if (n / o->block < EVT_MIN_MAXIMA) {
		r->reason = "too few samples: need at least 20 block maxima "
		    "(20 x block size samples)";
		return -EINVAL;
	}
	if ((s = malloc(n * sizeof(*s))) == NULL)
		return -ENOMEM;
	evt_sorted_tests(s, x, n, r);
	r->nmax = evt_block_maxima(x, n, o->block, s);
	err = evt_gumbel_fit(s, r->nmax, &r->fit);
	if (err < 0) {
		free(s);
		r->reason = "block maxima have no spread: no Gumbel fit";
		return err == -ENOMEM ? err : -EINVAL;
	}
	stats_sort(s, r->nmax);
	evt_tail_tests(s, r);
	free(s);
	evt_dependence(x, n, r);
	evt_decide(r);
	return 0;
}

double
evt_result_pwcet(const struct evt_result *r, double p)
{
	return evt_pwcet(&r->fit, r->per == EVT_PER_BLOCK ? 1 : r->block, p);
}
