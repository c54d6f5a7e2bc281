/*
 * kstest.h - Kolmogorov-Smirnov statistics: two-sample and one-sample D,
 * p-values from the Kolmogorov distribution with Stephens' small-sample
 * correction, and critical values at a level alpha (doc/profiling.md).
 * Pure: no I/O, no allocation.
 */
#ifndef KSTEST_H
#define KSTEST_H

#include <stddef.h>
#include <stdint.h>

/* Kolmogorov survival Q(l) = P(K > l) = 2 sum (-1)^(j-1) e^(-2 j^2 l^2). */
double	ks_q(double lambda);

/* Its inverse: the l with Q(l) = alpha, 0 < alpha < 1 (else NaN). */
double	ks_q_inv(double alpha);

/* sqrt(ne) + 0.12 + 0.11/sqrt(ne): l = this x D (Stephens). */
double	ks_scale(size_t n, size_t m);

/* Two-sample D = sup |F_a - F_b| of sorted samples (n, m >= 1). */
double	ks_d2(const double *a, size_t n, const double *b, size_t m);
double	ks_d2_u32(const uint32_t *a, size_t n, const uint32_t *b, size_t m);

/* One-sample D of a sorted sample against a continuous CDF. */
double	ks_d1(const double *x, size_t n, double (*cdf)(double, const void *),
	    const void *arg);

/*
 * Step of the grid a sorted sample was recorded on: when every value is
 * a whole number and some repeat (timers count whole ns, or coarser
 * ticks), the greatest common divisor of the gaps between distinct
 * values; else 0 (continuous).
 */
double	ks_grid(const double *x, size_t n);

enum ks_side {
	KS_TWO_SIDED,		/* sup |F_n - F| */
	KS_MODEL_ABOVE,		/* sup (F - F_n): data exceed the model */
};

/*
 * One-sample D of a sorted sample recorded on a grid of step h (0:
 * continuous) against a continuous CDF F: the model is the rounded
 * variable, P(X <= v) = F(v + h/2) and P(X < v) = F(v - h/2) at a grid
 * value v, so rounding alone does not count as misfit.  Only values
 * v >= from enter the supremum (-INFINITY: all).
 */
double	ks_d1_grid(const double *x, size_t n,
	    double (*cdf)(double, const void *), const void *arg, double h,
	    enum ks_side side, double from);

/*
 * Effective size: n for one sample (m == 0), n*m/(n+m) for two.  The
 * p-value is Q((sqrt(ne) + 0.12 + 0.11/sqrt(ne)) * D).
 */
double	ks_pvalue(double d, size_t n, size_t m);

/* One-sided p-value, exp(-2 l^2) with the same correction (Stephens). */
double	ks_pvalue_one_sided(double d, size_t n);

/* Smallest D rejected at level alpha (same correction); 0 < alpha < 1. */
double	ks_critical(double alpha, size_t n, size_t m);

#endif /* KSTEST_H */
