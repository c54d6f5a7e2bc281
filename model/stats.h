/*
 * stats.h - numerical helpers for the profiling statistics (K-S, EVT,
 * clustering): normal and chi-square distributions, moments, sorting.
 * Pure: no I/O.
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

/* Standard normal CDF and its inverse (0 < p < 1; else NaN). */
double	stats_norm_cdf(double z);
double	stats_norm_ppf(double p);

/* Regularized upper incomplete gamma Q(a, x), a > 0, x >= 0. */
double	stats_gamma_q(double a, double x);

/* Chi-square survival function with k degrees of freedom. */
double	stats_chi2_sf(double x, double k);

/* Mean and (n - 1) standard deviation; sd is 0 when n < 2. */
void	stats_mean_sd(const double *x, size_t n, double *mean, double *sd);

/* Sort ascending (NaN-free input). */
void	stats_sort(double *x, size_t n);
void	stats_sort_u32(uint32_t *x, size_t n);

/* Median of a sorted array (n >= 1). */
double	stats_median_sorted(const double *x, size_t n);

/*
 * Empirical quantile of sorted x (n >= 1) at level q in [0, 1], with
 * linear interpolation between order statistics (R type 7).
 */
double	stats_quantile_sorted(const double *x, size_t n, double q);

#endif /* STATS_H */
