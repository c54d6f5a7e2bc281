/*
 * test_evt.c - Gumbel fit, pWCET and the EVT tests on series with known
 * answers: Gumbel samples of known mu/beta, an AR(1) series, too few
 * samples, clustered extremes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evt.h"
#include "pcheck.h"

static uint64_t rs = 12345;

static double
unif(void)
{
	return punif(&rs);
}

static double
gumbel(double mu, double beta)
{
	return mu - beta * log(-log(unif()));
}

static double
normal(void)
{
	return sqrt(-2.0 * log(unif())) * cos(2.0 * M_PI * unif());
}

int
main(void)
{
	enum { N = 25000 };
	static double x[N], m[N];
	struct evt_gumbel g;
	struct evt_result r;
	struct evt_test t;
	double	want, v;
	size_t	i, k;

	/* direct MLE on Gumbel(10000, 50) */
	for (i = 0; i < 5000; i++)
		m[i] = gumbel(10000.0, 50.0);
	CHECK(evt_gumbel_fit(m, 5000, &g) == 0);
	CHECK_NEAR(g.mu, 10000.0, 3.0);
	CHECK_NEAR(g.beta, 50.0, 2.5);
	/* degenerate inputs */
	CHECK(evt_gumbel_fit(m, 1, &g) == -EDOM);
	for (i = 0; i < 10; i++)
		x[i] = 7.0;
	CHECK(evt_gumbel_fit(x, 10, &g) == -EDOM);

	/* block maxima */
	for (i = 0; i < 10; i++)
		x[i] = (double)(i % 4);
	CHECK(evt_block_maxima(x, 10, 4, m) == 2);
	CHECK(m[0] == 3.0 && m[1] == 3.0);

	/* per-run Gumbel(1000, 20): x_p is the per-run quantile exactly */
	for (i = 0; i < N; i++)
		x[i] = gumbel(1000.0, 20.0);
	CHECK(evt_analyze(x, N, 25, 0.05, &r) == 0);
	CHECK(r.nmax == 1000);
	CHECK(r.ok);
	CHECK(r.reason == NULL);
	CHECK_NEAR(r.fit.beta, 20.0, 2.0);
	CHECK_NEAR(r.fit.mu, 1000.0 + 20.0 * log(25.0), 3.0);
	want = 1000.0 - 20.0 * log(-log1p(-1e-9));
	CHECK_NEAR(evt_pwcet(&r.fit, 25, 1e-9), want, 40.0);
	v = evt_pwcet(&r.fit, 25, 1e-6);
	CHECK_NEAR(evt_exceedance(&r.fit, 25, v), 1e-6, 1e-12);
	CHECK(evt_pwcet(&r.fit, 25, 1e-12) > evt_pwcet(&r.fit, 25, 1e-9));
	CHECK(r.theta > 0.8);

	/* AR(1), phi = 0.7: refused, and the reason names dependence */
	v = 0.0;
	for (i = 0; i < 5000; i++) {
		v = 0.7 * v + normal();
		x[i] = 1000.0 + 10.0 * v;
	}
	CHECK(evt_analyze(x, 5000, 25, 0.05, &r) == 0);
	CHECK(!r.ok);
	CHECK(r.reason != NULL && (strstr(r.reason, "independ") != NULL));
	CHECK(r.ljung_box.p < 1e-6);

	/* a trend: the halves differ */
	for (i = 0; i < 5000; i++)
		x[i] = gumbel(1000.0 + (i < 2500 ? 0.0 : 100.0), 10.0);
	CHECK(evt_analyze(x, 5000, 25, 0.05, &r) == 0);
	CHECK(!r.ok);
	CHECK(r.ks_halves.p < 1e-6);

	/* too few samples */
	CHECK(evt_analyze(x, 499, 25, 0.05, &r) == -EINVAL);
	CHECK(!r.ok && strstr(r.reason, "too few") != NULL);

	/* runs test by hand: 1..10 gives two runs, z = -4 / sqrt(20/9) */
	for (i = 0; i < 10; i++)
		x[i] = (double)(i + 1);
	t = evt_runs_test(x, 10);
	CHECK_NEAR(t.stat, -4.0 / sqrt(20.0 / 9.0), 1e-12);
	CHECK_NEAR(t.p, erfc(4.0 / sqrt(20.0 / 9.0) / M_SQRT2), 1e-15);

	/* extremal index: every extreme doubled gives about 1/2 */
	for (i = 0; i < 20000; i += 2)
		x[i] = x[i + 1] = gumbel(0.0, 1.0);
	CHECK_NEAR(evt_extremal_index(x, 20000, 3.0), 0.5, 0.1);
	for (i = 0; i < 20000; i++)
		x[i] = gumbel(0.0, 1.0);
	CHECK_NEAR(evt_extremal_index(x, 20000, 3.0), 1.0, 0.1);
	k = 0;
	CHECK(isnan(evt_extremal_index(x, 20000, 1e9)) && k == 0);
	CHECK_DONE();
}
