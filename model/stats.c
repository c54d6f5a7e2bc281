/*
 * stats.c - numerical helpers (see stats.h).
 */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

double
stats_norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/*
 * Rational start (Acklam's coefficients, relative error 1e-9) refined
 * by one Halley step on erfc, which brings it to double precision.
 */
double
stats_norm_ppf(double p)
{
	static const double a[] = { -3.969683028665376e+01,
	    2.209460984245205e+02, -2.759285104469687e+02,
	    1.383577518672690e+02, -3.066479806614716e+01,
	    2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01,
	    1.615858368580409e+02, -1.556989798598866e+02,
	    6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03,
	    -3.223964580411365e-01, -2.400758277161838e+00,
	    -2.549732539343734e+00, 4.374664141464968e+00,
	    2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03,
	    3.224671290700398e-01, 2.445134137142996e+00,
	    3.754408661907416e+00 };
	double	q, r, x, e, u;

	if (!(p > 0.0 && p < 1.0))
		return NAN;
	if (p < 0.02425) {
		q = sqrt(-2.0 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
		    q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) *
		    q + 1.0);
	} else if (p > 1.0 - 0.02425) {
		q = sqrt(-2.0 * log1p(-p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
		    q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) *
		    q + 1.0);
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) *
		    r + a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r +
		    b[3]) * r + b[4]) * r + 1.0);
	}
	e = stats_norm_cdf(x) - p;
	u = e * sqrt(2.0 * M_PI) * exp(x * x / 2.0);
	return x - u / (1.0 + x * u / 2.0);
}

/* Series for P(a, x), used when x < a + 1. */
static double
gamma_p_series(double a, double x)
{
	double	sum = 1.0 / a, term = sum, ap = a;
	int	i;

	for (i = 0; i < 10000; i++) {
		ap += 1.0;
		term *= x / ap;
		sum += term;
		if (fabs(term) < fabs(sum) * 1e-16)
			break;
	}
	return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Continued fraction (modified Lentz) for Q(a, x), x >= a + 1. */
static double
gamma_q_cf(double a, double x)
{
	const double tiny = 1e-300;
	double	b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
	double	an, del;
	int	i;

	for (i = 1; i < 10000; i++) {
		an = -i * (i - a);
		b += 2.0;
		d = an * d + b;
		if (fabs(d) < tiny)
			d = tiny;
		c = b + an / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < 1e-16)
			break;
	}
	return exp(-x + a * log(x) - lgamma(a)) * h;
}

double
stats_gamma_q(double a, double x)
{
	if (!(a > 0.0) || isnan(x))
		return NAN;
	if (x <= 0.0)
		return 1.0;
	if (x < a + 1.0)
		return 1.0 - gamma_p_series(a, x);
	return gamma_q_cf(a, x);
}

double
stats_chi2_sf(double x, double k)
{
	return stats_gamma_q(k / 2.0, x / 2.0);
}

void
stats_mean_sd(const double *x, size_t n, double *mean, double *sd)
{
	double	m = 0.0, m2 = 0.0, d;
	size_t	i;

	/* Welford: stable for large offsets such as ns timestamps */
	for (i = 0; i < n; i++) {
		d = x[i] - m;
		m += d / (double)(i + 1);
		m2 += d * (x[i] - m);
	}
	*mean = m;
	*sd = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0.0;
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

void
stats_sort(double *x, size_t n)
{
	if (n > 1)
		qsort(x, n, sizeof(*x), cmp_double);
}

void
stats_sort_u32(uint32_t *x, size_t n)
{
	if (n > 1)
		qsort(x, n, sizeof(*x), cmp_u32);
}

double
stats_median_sorted(const double *x, size_t n)
{
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
}

double
stats_quantile_sorted(const double *x, size_t n, double q)
{
	double	h = q * (double)(n - 1);
	size_t	lo = (size_t)floor(h);

	if (q <= 0.0)
		return x[0];
	if (lo + 1 >= n)
		return x[n - 1];
	return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}
