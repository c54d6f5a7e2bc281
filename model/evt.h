/*
 * evt.h - measurement-based probabilistic WCET with extreme value theory
 * ([EVT-CUDA], doc/design.md section 4): Gumbel fit to block maxima by maximum
 * likelihood, pWCET at a per-run exceedance probability, and the tests
 * that must not reject before a pWCET is reported (independence,
 * identical distribution, extremal clustering, goodness of fit).
 * Pure: no I/O; evt_analyze allocates scratch space (2n doubles).
 */
#ifndef EVT_H
#define EVT_H

#include <stddef.h>

#define EVT_DEFAULT_BLOCK	25
#define EVT_MIN_MAXIMA		20	/* block maxima needed for a fit */
#define EVT_THETA_MIN		0.5	/* extremal index below: clustering */
#define EVT_EI_QUANTILE		0.95	/* intervals estimator threshold */

struct evt_gumbel {
	double		mu;		/* location */
	double		beta;		/* scale, > 0 */
};

/* Maxima of consecutive blocks of b samples (a partial last block is
 * dropped) into out; returns their number. */
size_t	evt_block_maxima(const double *x, size_t n, size_t b, double *out);

/* Maximum likelihood fit, started from the method of moments; -EDOM when
 * the sample is degenerate (k < 2 or no spread). */
int	evt_gumbel_fit(const double *m, size_t k, struct evt_gumbel *);

double	evt_gumbel_cdf(double x, const void *gumbel);

/* x_p = mu - beta * ln(-b * ln(1 - p)): exceeded by one run with
 * probability p, the block maxima being of b runs. */
double	evt_pwcet(const struct evt_gumbel *, size_t b, double p);

/* The inverse: per-run exceedance probability of x. */
double	evt_exceedance(const struct evt_gumbel *, size_t b, double x);

struct evt_test {
	double		stat;
	double		p;		/* NaN when undefined */
};

/* Wald-Wolfowitz runs above/below the median, normal approximation. */
struct evt_test	evt_runs_test(const double *x, size_t n);

/* Ljung-Box Q over lags 1..h, chi-square with h degrees of freedom. */
struct evt_test	evt_ljung_box(const double *x, size_t n, size_t h);

/* Extremal index, Ferro-Segers intervals estimator above threshold u. */
double	evt_extremal_index(const double *x, size_t n, double u);

struct evt_result {
	size_t		n, block, nmax;
	struct evt_gumbel fit;
	struct evt_test	runs, ljung_box, ks_halves, gof;
	size_t		lb_lags;
	double		theta, theta_u;
	int		ok;
	const char	*reason;	/* static text when !ok */
};

/*
 * Everything at once: fit on block maxima of b runs, all tests at level
 * alpha.  Returns 0 (see res->ok), -EINVAL for too few samples (reason
 * says so), -ENOMEM.
 */
int	evt_analyze(const double *x, size_t n, size_t b, double alpha,
	    struct evt_result *res);

#endif /* EVT_H */
