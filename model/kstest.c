/*
 * kstest.c - Kolmogorov-Smirnov statistics (see kstest.h).
 */
#include <math.h>

#include "kstest.h"

double
ks_q(double l)
{
	double	s = 0.0, t;
	int	j;

	if (!(l > 0.0))
		return 1.0;
	if (l < 1.18) {
		/* the alternating series converges slowly here: use the
		 * Jacobi theta form of the CDF instead */
		double	w = M_PI * M_PI / (8.0 * l * l);

		for (j = 1; j <= 50; j += 2) {
			t = exp(-(double)(j * j) * w);
			s += t;
			if (t < 1e-17 * s)
				break;
		}
		return 1.0 - sqrt(2.0 * M_PI) / l * s;
	}
	for (j = 1; j <= 100; j++) {
		t = exp(-2.0 * j * j * l * l);
		s += j % 2 ? t : -t;
		if (t < 1e-17)
			break;
	}
	s *= 2.0;
	return s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
}

/*
 * Walk both sorted samples together; D is only evaluated after all
 * copies of a tied value have been consumed on both sides, so ties are
 * handled as in the definition of the empirical CDF.
 */
#define KS_D2(name, T)							\
double									\
name(const T *a, size_t n, const T *b, size_t m)			\
{									\
	size_t	i = 0, j = 0;						\
	double	d = 0.0, f;						\
	T	v;							\
									\
	while (i < n && j < m) {					\
		v = a[i] < b[j] ? a[i] : b[j];				\
		while (i < n && a[i] == v)				\
			i++;						\
		while (j < m && b[j] == v)				\
			j++;						\
		f = fabs((double)i / (double)n - (double)j / (double)m); \
		if (f > d)						\
			d = f;						\
	}								\
	return d;							\
}

/* One walk for both sample types (the clustering keeps uint32 ns). */
KS_D2(ks_d2, double)
KS_D2(ks_d2_u32, uint32_t)

double
ks_d1(const double *x, size_t n, double (*cdf)(double, const void *),
    const void *arg)
{
	return ks_d1_grid(x, n, cdf, arg, 0.0, KS_TWO_SIDED, -INFINITY);
}

static uint64_t
gcd_u64(uint64_t a, uint64_t b)
{
	uint64_t t;

	while (b != 0) {
		t = a % b;
		a = b;
		b = t;
	}
	return a;
}

double
ks_grid(const double *x, size_t n)
{
	uint64_t g = 0;
	size_t	i;
	int	ties = 0;

	for (i = 0; i < n; i++)
		if (!(fabs(x[i]) < 9007199254740992.0) || x[i] != floor(x[i]))
			return 0.0;
	for (i = 1; i < n; i++) {
		if (x[i] == x[i - 1])
			ties = 1;
		else
			g = gcd_u64(g, (uint64_t)(x[i] - x[i - 1]));
	}
	return ties && g > 0 ? (double)g : 0.0;
}

/*
 * Walk the distinct values.  F - F_n is largest just below a value (the
 * EDF has not jumped yet), F_n - F just at it; on a grid the model's
 * rounded CDF jumps at the same points, by F(v + h/2) - F(v - h/2).
 */
double
ks_d1_grid(const double *x, size_t n, double (*cdf)(double, const void *),
    const void *arg, double h, enum ks_side side, double from)
{
	double	d = 0.0, lo, hi, v;
	size_t	i = 0, j;

	while (i < n) {
		v = x[i];
		for (j = i; j < n && x[j] == v; j++)
			;
		if (v >= from) {
			lo = cdf(v - h / 2.0, arg) - (double)i / (double)n;
			hi = (double)j / (double)n - cdf(v + h / 2.0, arg);
			if (lo > d)
				d = lo;
			if (side == KS_TWO_SIDED && hi > d)
				d = hi;
		}
		i = j;
	}
	return d;
}

static double
ks_sqrt_ne(size_t n, size_t m)
{
	if (m == 0)
		return sqrt((double)n);
	return sqrt((double)n * (double)m / ((double)n + (double)m));
}

double
ks_scale(size_t n, size_t m)
{
	double	en = ks_sqrt_ne(n, m);

	return en + 0.12 + 0.11 / en;
}

double
ks_pvalue(double d, size_t n, size_t m)
{
	if (n == 0)
		return NAN;
	return ks_q(ks_scale(n, m) * d);
}

double
ks_pvalue_one_sided(double d, size_t n)
{
	double	l;

	if (n == 0)
		return NAN;
	l = ks_scale(n, 0) * d;
	return l > 0.0 ? exp(-2.0 * l * l) : 1.0;
}

double
ks_q_inv(double alpha)
{
	double	lo = 0.0, hi = 10.0, mid;
	int	i;

	if (!(alpha > 0.0 && alpha < 1.0))
		return NAN;
	/* Q is decreasing: bisect Q(l) = alpha */
	for (i = 0; i < 200 && hi - lo > 1e-15; i++) {
		mid = (lo + hi) / 2.0;
		if (ks_q(mid) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

double
ks_critical(double alpha, size_t n, size_t m)
{
	if (!(alpha > 0.0 && alpha < 1.0) || n == 0)
		return NAN;
	return ks_q_inv(alpha) / ks_scale(n, m);
}
