/*
 * evt.h - measurement-based probabilistic WCET with extreme value theory
 * ([EVT-CUDA] sections 4-5, doc/profiling.md): Gumbel fit to block maxima
 * by maximum likelihood, pWCET at an exceedance probability per run or
 * per block, and the paper's decision path: stationarity (K-S of the
 * halves, a trend test), independence (runs test, Ljung-Box, the order
 * of an autoregressive fit), extremal dependence (extremal index,
 * extremogram), then the rule that accepts independent data, accepts
 * stationary dependent data whose extremal index is near 1 (Theorem 3)
 * and refuses the rest, and a check that the Gumbel tail is not lighter
 * than the data's (a one-sided K-S over the top quarter, and the largest
 * block maximum against the fitted law of the largest of k).
 * Pure: no I/O; evt_analyze allocates scratch space (n doubles).
 */
#ifndef EVT_H
#define EVT_H

#include <stddef.h>

#define EVT_DEFAULT_BLOCK	25	/* [EVT-CUDA] section 5.2 */
#define EVT_MIN_MAXIMA		20	/* block maxima needed for a fit */
#define EVT_DEFAULT_THETA_MIN	0.9	/* "theta near 1", doc/profiling.md */
#define EVT_EI_QUANTILE		0.95	/* extremal index threshold */
#define EVT_XGRAM_QUANTILE	0.99	/* extremogram threshold */
#define EVT_XGRAM_LAGS		20	/* [EVT-CUDA] Figure 5 */
#define EVT_XGRAM_READING	0.05	/* the paper's reading of it */
#define EVT_TREND_BATCHES	20	/* batch means of the trend test */
#define EVT_AR_MAX		64	/* largest AR order tried */
#define EVT_TAIL_QUANTILE	0.75	/* tail check: the top quarter */

struct evt_gumbel {
	double		mu;		/* location */
	double		beta;		/* scale, > 0 */
};

/* What an exceedance probability is counted against. */
enum evt_per {
	EVT_PER_RUN,		/* one execution (the default) */
	EVT_PER_BLOCK,		/* one block of b executions ([EVT-CUDA]) */
};

enum evt_theta_method {
	EVT_THETA_BLOCKS,	/* blocks estimator, the paper's */
	EVT_THETA_INTERVALS,	/* Ferro-Segers intervals estimator */
};

/* Maxima of consecutive blocks of b samples (a partial last block is
 * dropped) into out; returns their number. */
size_t	evt_block_maxima(const double *x, size_t n, size_t b, double *out);

/* Maximum likelihood fit, started from the method of moments; -EDOM when
 * the sample is degenerate (k < 2 or no spread). */
int	evt_gumbel_fit(const double *m, size_t k, struct evt_gumbel *);

double	evt_gumbel_cdf(double x, const void *gumbel);

/* x_p = mu - beta * ln(-b * ln(1 - p)): exceeded by one run with
 * probability p, the block maxima being of b runs.  b = 1 gives the
 * per-block value mu - beta * ln(-ln(1 - p)). */
double	evt_pwcet(const struct evt_gumbel *, size_t b, double p);

/* The inverse: per-run exceedance probability of x (b = 1: per block). */
double	evt_exceedance(const struct evt_gumbel *, size_t b, double x);

struct evt_test {
	double		stat;
	double		p;		/* NaN when undefined */
};

/* Wald-Wolfowitz runs above/below the median, normal approximation. */
struct evt_test	evt_runs_test(const double *x, size_t n);

/* Ljung-Box Q over lags 1..h, chi-square with h degrees of freedom. */
struct evt_test	evt_ljung_box(const double *x, size_t n, size_t h);

/*
 * Mann-Kendall test on the means of EVT_TREND_BATCHES consecutive
 * batches (normal approximation, z): a monotone trend.  Batch means keep
 * the test's level under short-range dependence, which an observation-
 * level trend test would not.  NaN when n < 2 * batches.
 */
struct evt_test	evt_trend_test(const double *x, size_t n);

/* Extremal index, Ferro-Segers intervals estimator above threshold u. */
double	evt_extremal_index(const double *x, size_t n, double u);

/*
 * Extremal index, blocks estimator (Embrechts, Klueppelberg, Mikosch,
 * section 8.1): with k blocks of r samples, N exceedances of u and K
 * blocks holding one, theta = ln(1 - K/k) / (r ln(1 - N/(k r))), capped
 * at 1; NaN when undefined (no exceedance, or one in every block).
 */
double	evt_extremal_index_blocks(const double *x, size_t n, double u,
	    size_t r);

/*
 * Extremogram (Davis and Mikosch) at lags 1..h: the share of the
 * exceedances of u followed h samples later by another.  Independent
 * samples give about P(X > u) at every lag.  Writes out[0..h-1].
 */
void	evt_extremogram(const double *x, size_t n, double u, size_t h,
	    double *out);

/*
 * Order of an autoregressive model by Yule-Walker (Levinson-Durbin) and
 * Akaike's criterion, orders 0..min(n - 1, 10 log10 n, EVT_AR_MAX), as
 * R's ar() chooses it: 0 is white noise.  Returns -1 when n < 2 or the
 * sample has no spread.
 */
int	evt_ar_order(const double *x, size_t n);

/* Which rule decided. */
enum evt_rule {
	EVT_RULE_NONE,			/* not analysed (too few samples) */
	EVT_RULE_INDEPENDENT,		/* accepted: Theorem 1 */
	EVT_RULE_STATIONARY,		/* accepted: Theorem 3, theta ~ 1 */
	EVT_RULE_NONSTATIONARY,		/* refused */
	EVT_RULE_CLUSTERED,		/* refused: dependent, theta low */
	EVT_RULE_TAIL,			/* refused: Gumbel tail too light */
};

/* Short name of a rule ("independent", ...). */
const char *evt_rule_name(enum evt_rule);

struct evt_options {
	size_t		block;		/* b, default 25 */
	double		alpha;		/* level of every test, 0.05 */
	double		theta_min;	/* "theta near 1" from here */
	enum evt_theta_method theta_method;
	enum evt_per	per;		/* how pWCET probabilities count */
};

void	evt_options_default(struct evt_options *);

struct evt_result {
	size_t		n, block, nmax;
	enum evt_per	per;
	double		alpha;
	struct evt_gumbel fit;
	/* stationarity */
	struct evt_test	ks_halves, trend;
	/* independence */
	struct evt_test	runs, ljung_box;
	size_t		lb_lags;
	int		ar_order;
	/* extremal dependence */
	enum evt_theta_method theta_method;
	double		theta;		/* by theta_method */
	double		theta_blocks, theta_intervals;
	double		theta_u, theta_min;
	double		xgram[EVT_XGRAM_LAGS];
	double		xgram_u, xgram_base;	/* threshold, P(X > u) */
	/* goodness of fit of the block maxima (grid-aware K-S) */
	struct evt_test	gof;		/* two-sided, reported */
	/* the tail, which decides: the Gumbel must not lie below the data */
	struct evt_test	tail_ks;	/* one-sided K-S, top quarter */
	struct evt_test	tail_max;	/* largest maximum: x, P(max > x) */
	struct evt_test	gof_tail;	/* both, Bonferroni: p = 2 min p */
	double		grid;		/* step the samples are on, 0: none */
	enum evt_rule	rule;
	int		ok;
	const char	*reason;	/* static text: why accepted/refused */
};

/*
 * The decision path on results whose tests are filled in (pure, so the
 * paper's Table 1 can be fed to it): sets rule, ok and reason.
 */
void	evt_decide(struct evt_result *);

/*
 * Everything at once.  Returns 0 (see res->ok), -EINVAL for bad options
 * or too few samples (reason says so), -ENOMEM.
 */
int	evt_analyze(const double *x, size_t n, const struct evt_options *,
	    struct evt_result *res);

/* pWCET at exceedance p under the result's convention (per run/block). */
double	evt_result_pwcet(const struct evt_result *, double p);

#endif /* EVT_H */
