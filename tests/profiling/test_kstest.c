/*
 * test_kstest.c - K-S statistics and the numerical helpers against
 * reference values tabulated from SciPy 1.10 (kstwobign.sf, kstwo.isf,
 * ks_2samp, ksone.sf, chi2.sf, norm.ppf), and the grid-aware one-sample
 * statistic on hand-computed cases.
 */
#include <stdint.h>

#include "kstest.h"
#include "pcheck.h"
#include "stats.h"

static const double qref[][2] = {
	{ 0.3, 0.99999069419866549 }, { 0.5, 0.96394524366487511 },
	{ 0.8, 0.54414241157419807 }, { 1.0, 0.26999967167735456 },
	{ 1.2, 0.11224966667072497 }, { 1.36, 0.049485876755377876 },
	{ 1.8, 0.0030676213475797059 }, { 2.5, 7.4533063441573419e-06 },
};

/* exact one-sample critical values: kstwo.isf(alpha, n) */
static const struct { double a; unsigned n; double d; } cref[] = {
	{ 0.05, 10, 0.40924608477750496 }, { 0.05, 50, 0.18840647917792769 },
	{ 0.05, 1000, 0.042776500461244996 },
	{ 0.01, 20, 0.35241089163889466 }, { 0.1, 100, 0.12066340877827504 },
};

static const double chiref[][3] = {
	{ 3.0, 2, 0.22313016014842982 }, { 15.5, 10, 0.11486811277078343 },
	{ 40.0, 20, 0.0049954123083075785 }, { 0.5, 1, 0.47950012218695337 },
};

static const double ppfref[][2] = {
	{ 1e-12, -7.0344838253011313 }, { 0.001, -3.0902323061678132 },
	{ 0.3, -0.52440051270804089 }, { 0.5, 0 },
	{ 0.975, 1.959963984540054 }, { 0.999999, 4.7534243088170873 },
};

/* exact one-sided tail: ksone.sf(d, n) */
static const struct { unsigned n; double d, p; } oref[] = {
	{ 100, 0.1, 0.1265906584562817 }, { 1000, 0.04, 0.03967222345491756 },
	{ 20, 0.25, 0.06882678136460359 },
};

static double
unif_cdf(double x, const void *arg)
{
	(void)arg;
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* U(-0.5, 1.5): rounded to whole numbers it is 0 or 1, half each */
static double
wide_cdf(double x, const void *arg)
{
	(void)arg;
	return x < -0.5 ? 0 : x > 1.5 ? 1 : (x + 0.5) / 2.0;
}

static void
check_grid(void)
{
	static const double g1[] = { 1, 2, 2, 5 }, g32[] = { 0, 32, 32, 96 };
	static const double half[] = { 1.5, 1.5 }, distinct[] = { 1, 2, 3 };
	static const double two[] = { 0, 0, 1, 1 };
	static const double u[] = { 0.1, 0.4, 0.7, 0.9 };
	size_t	i;

	CHECK(ks_grid(g1, 4) == 1.0);
	CHECK(ks_grid(g32, 4) == 32.0);
	CHECK(ks_grid(half, 2) == 0.0);
	CHECK(ks_grid(distinct, 3) == 0.0);
	/* rounding alone is not misfit: D 0 on the grid, 0.25 without */
	CHECK_NEAR(ks_d1_grid(two, 4, wide_cdf, NULL, 1.0, KS_TWO_SIDED,
	    -INFINITY), 0.0, 1e-15);
	CHECK_NEAR(ks_d1_grid(two, 4, wide_cdf, NULL, 0.0, KS_TWO_SIDED,
	    -INFINITY), 0.25, 1e-15);
	CHECK_NEAR(ks_d1(two, 4, wide_cdf, NULL), 0.25, 1e-15);
	/* model above the EDF: F(x_i) - i/n = .1, .15, .2, .15 */
	CHECK_NEAR(ks_d1_grid(u, 4, unif_cdf, NULL, 0.0, KS_MODEL_ABOVE,
	    -INFINITY), 0.2, 1e-15);
	CHECK_NEAR(ks_d1_grid(u, 4, unif_cdf, NULL, 0.0, KS_MODEL_ABOVE,
	    0.75), 0.15, 1e-15);
	for (i = 0; i < sizeof(oref) / sizeof(oref[0]); i++)
		CHECK_NEAR(ks_pvalue_one_sided(oref[i].d, oref[i].n),
		    oref[i].p, 0.02 * oref[i].p);
	CHECK(ks_pvalue_one_sided(0.0, 10) == 1.0);
}

int
main(void)
{
	double	a[3] = { 1, 2, 3 }, b[4] = { 2, 4, 6, 8 };
	double	x[30], y[40], u[4] = { 0.1, 0.4, 0.7, 0.9 };
	uint32_t ua[3] = { 1, 2, 3 }, ub[4] = { 2, 4, 6, 8 };
	size_t	i;

	for (i = 0; i < sizeof(qref) / sizeof(qref[0]); i++)
		CHECK_NEAR(ks_q(qref[i][0]), qref[i][1], 1e-12);
	CHECK(ks_q(0.0) == 1.0);
	/* Stephens' corrected asymptotics vs the exact distribution */
	for (i = 0; i < sizeof(cref) / sizeof(cref[0]); i++)
		CHECK_NEAR(ks_critical(cref[i].a, cref[i].n, 0), cref[i].d,
		    0.01 * cref[i].d);
	/* ks_2samp([1,2,3], [2,4,6,8]): D 0.75 (ties at 2) */
	CHECK_NEAR(ks_d2(a, 3, b, 4), 0.75, 1e-15);
	CHECK_NEAR(ks_d2_u32(ua, 3, ub, 4), 0.75, 1e-15);
	CHECK_NEAR(ks_d2(b, 4, a, 3), 0.75, 1e-15);
	/* x = 1..30, y = 0.7 k + 3: D 0.11666, exact p 0.95554 */
	for (i = 0; i < 30; i++)
		x[i] = (double)(i + 1);
	for (i = 0; i < 40; i++)
		y[i] = 0.7 * (double)(i + 1) + 3.0;
	CHECK_NEAR(ks_d2(x, 30, y, 40), 0.11666666666666667, 1e-12);
	CHECK_NEAR(ks_pvalue(ks_d2(x, 30, y, 40), 30, 40), 0.955539189395509,
	    0.02);
	CHECK(ks_d2(x, 30, x, 30) == 0.0);
	CHECK(ks_pvalue(0.0, 30, 30) == 1.0);
	/* one sample against U(0,1): max(0.1, 0.4 - 0.25, ...) */
	CHECK_NEAR(ks_d1(u, 4, unif_cdf, NULL), 0.2, 1e-15);
	for (i = 0; i < sizeof(chiref) / sizeof(chiref[0]); i++)
		CHECK_NEAR(stats_chi2_sf(chiref[i][0], chiref[i][1]),
		    chiref[i][2], 1e-12);
	for (i = 0; i < sizeof(ppfref) / sizeof(ppfref[0]); i++)
		CHECK_NEAR(stats_norm_ppf(ppfref[i][0]), ppfref[i][1], 1e-9);
	CHECK(isnan(stats_norm_ppf(0.0)) && isnan(stats_norm_ppf(1.0)));
	CHECK_NEAR(stats_quantile_sorted(x, 30, 0.5), 15.5, 1e-12);
	CHECK_NEAR(stats_median_sorted(x, 29), 15.0, 0.0);
	check_grid();
	CHECK_DONE();
}
