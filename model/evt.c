/*
 * evt.c - Gumbel block maxima and the EVT applicability tests (evt.h).
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

static const char *
evt_verdict(const struct evt_result *r, double alpha)
{
	if (!(r->runs.p >= alpha))
		return "runs test rejects independence (randomness) "
		    "of the samples";
	if (!(r->ljung_box.p >= alpha))
		return "Ljung-Box test finds autocorrelation: samples are "
		    "not independent";
	if (!(r->ks_halves.p >= alpha))
		return "two-sample K-S of the halves rejects identical "
		    "distribution (non-stationary)";
	if (!(r->theta >= EVT_THETA_MIN))
		return "extremal index below 0.5 (or undefined): extremes "
		    "come in clusters";
	if (!(r->gof.p >= alpha))
		return "K-S goodness of fit rejects the Gumbel model of the "
		    "block maxima";
	return NULL;
}

int
evt_analyze(const double *x, size_t n, size_t b, double alpha,
    struct evt_result *r)
{
	double	*s;
	int	err;

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->block = b;
	r->ok = 0;
	if (b < 1 || n / b < EVT_MIN_MAXIMA) {
		r->reason = "too few samples: need at least 20 block maxima "
		    "(20 x block size samples)";
		return -EINVAL;
	}
	s = malloc(n * sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	r->nmax = evt_block_maxima(x, n, b, s);
	err = evt_gumbel_fit(s, r->nmax, &r->fit);
	if (err < 0) {
		free(s);
		r->reason = "block maxima have no spread: no Gumbel fit";
		return err == -ENOMEM ? err : -EINVAL;
	}
	stats_sort(s, r->nmax);
	r->gof.stat = ks_d1(s, r->nmax, evt_gumbel_cdf, &r->fit);
	r->gof.p = ks_pvalue(r->gof.stat, r->nmax, 0);
	r->runs = evt_runs_test(x, n);
	r->lb_lags = n / 10 < 20 ? n / 10 : 20;
	r->ljung_box = evt_ljung_box(x, n, r->lb_lags);
	r->ks_halves = ks_halves(s, x, n);
	/* s holds the sorted halves; the threshold is a quantile of all */
	stats_sort(s, n);
	r->theta_u = stats_quantile_sorted(s, n, EVT_EI_QUANTILE);
	r->theta = evt_extremal_index(x, n, r->theta_u);
	free(s);
	r->reason = evt_verdict(r, alpha);
	r->ok = r->reason == NULL;
	return 0;
}
