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

/* Two-sample D = sup |F_a - F_b| of sorted samples (n, m >= 1). */
double	ks_d2(const double *a, size_t n, const double *b, size_t m);
double	ks_d2_u32(const uint32_t *a, size_t n, const uint32_t *b, size_t m);

/* One-sample D of a sorted sample against a continuous CDF. */
double	ks_d1(const double *x, size_t n, double (*cdf)(double, const void *),
	    const void *arg);

/*
 * Effective size: n for one sample (m == 0), n*m/(n+m) for two.  The
 * p-value is Q((sqrt(ne) + 0.12 + 0.11/sqrt(ne)) * D).
 */
double	ks_pvalue(double d, size_t n, size_t m);

/* Smallest D rejected at level alpha (same correction); 0 < alpha < 1. */
double	ks_critical(double alpha, size_t n, size_t m);

#endif /* KSTEST_H */
