/*
 * test_wcet.c - the WCET bound: hand-computed values of Eq. 4.3-4.13 and
 * Algorithm 1, safety of the relaxed bound against an exhaustive search
 * over integer allocations, monotonicity, exactness of the accelerated
 * iteration and termination on adversarial inputs.
 */
#include <errno.h>
#include <string.h>

#include "wcet.h"
#include "tcheck.h"
#include "exhaustive.h"

/* The worked example: c0 e0=10 e1=20, c1 e0=30 e1=40, M=2, T=100. */
static void
example(struct wcet_kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->nclusters = 2;
	k->m = 2;
	k->period = 100;
	k->c[0].e0 = 10;
	k->c[0].e1 = 20;
	k->c[1].e0 = 30;
	k->c[1].e1 = 40;
	CHECK(wcet_prepare(k) == 0);
}

static void
test_hand(void)
{
	struct wcet_kernel	k;
	uint64_t		n[2] = { 4, 2 }, none[2] = { 0, 0 };
	uint64_t		only1[2] = { 0, 2 };

	example(&k);
	CHECK(k.order[0] == 0 && k.order[1] == 1);
	/* Eq. 4.3: (40 + 60 - 30)/2 + 30 */
	CHECK_NEAR(wcet_isolation(&k, n), 65, 1e-12);
	CHECK_NEAR(wcet_isolation(&k, none), 0, 0);
	/* only c1 left: e0max = 30, (60 - 30)/2 + 30 */
	CHECK_NEAR(wcet_isolation(&k, only1), 45, 1e-12);
	/* Eq. 4.5-4.7, T = 100, Q = 0.2 (QT = 20) */
	CHECK_NEAR(wcet_tmem(10, 0.2, 0, 100), 10, 1e-12);
	CHECK_NEAR(wcet_tmem(50, 0.2, 0, 100), 40, 1e-12);
	CHECK_NEAR(wcet_tmem(130, 0.2, 0, 100), 50, 1e-12);
	CHECK_NEAR(wcet_tmem(130, 0.2, 1, 100), 40, 1e-12);
	CHECK_NEAR(wcet_tmem(110, 0.2, 1, 100), 30, 1e-12);
	CHECK_NEAR(wcet_tmem(-5, 0.2, 1, 100), 0, 0);
	CHECK_NEAR(wcet_tmem(0, 0.2, 0, 100), 0, 0);
	CHECK_NEAR(wcet_tmem(250, 1, 1, 100), 250, 1e-12);
	/* Eq. 4.8-4.13 */
	CHECK_NEAR(wcet_relaxed(&k, n, 0), 70, 1e-12);
	CHECK_NEAR(wcet_relaxed(&k, n, 10), 75, 1e-12);
	CHECK_NEAR(wcet_relaxed(&k, n, 65), 96.25, 1e-12);
	CHECK_NEAR(wcet_relaxed(&k, n, 100), 100, 1e-12);
	CHECK_NEAR(wcet_relaxed(&k, n, 1e9), 100, 1e-12);
	CHECK_NEAR(wcet_relaxed(&k, none, 50), 0, 0);
	/* Algorithm 1 */
	CHECK_U64(wcet_bound(&k, n, 0, 0), 65);
	CHECK_U64(wcet_bound(&k, n, 0.2, 1), 80);
	CHECK_U64(wcet_bound(&k, n, 0.2, 0), 90);
	CHECK_U64(wcet_bound(&k, n, 1, 0), 100);
	CHECK_U64(wcet_bound(&k, n, 0.01, 0), 71);
	CHECK_U64(wcet_bound(&k, none, 0.5, 0), 0);
}

static void
test_order(void)
{
	struct wcet_kernel	k;

	memset(&k, 0, sizeof(k));
	k.nclusters = 4;
	k.m = 1;
	k.period = 1000;
	k.c[0].e0 = 30; k.c[0].e1 = 40;		/* 0.75 */
	k.c[1].e0 = 10; k.c[1].e1 = 20;		/* 0.5 */
	k.c[2].e0 = 15; k.c[2].e1 = 20;		/* 0.75, ties with 0 */
	k.c[3].e0 = 5; k.c[3].e1 = 5;		/* 1 */
	CHECK(wcet_prepare(&k) == 0);
	CHECK(k.order[0] == 1 && k.order[1] == 0 && k.order[2] == 2 &&
	    k.order[3] == 3);
	k.c[3].e0 = 6;
	CHECK(wcet_prepare(&k) == -EINVAL);
	k.c[3].e0 = 0;
	CHECK(wcet_prepare(&k) == -EINVAL);
	k.c[3].e0 = 5;
	k.m = 0;
	CHECK(wcet_prepare(&k) == -EINVAL);
	k.m = 1;
	k.period = 0;
	CHECK(wcet_prepare(&k) == -EINVAL);
	k.period = 1;
	k.nclusters = 0;
	CHECK(wcet_prepare(&k) == -EINVAL);
}

static void
random_kernel(struct wcet_kernel *k, uint64_t *n, unsigned int maxc,
    uint64_t maxn, unsigned int maxm)
{
	unsigned int	i;

	memset(k, 0, sizeof(*k));
	k->nclusters = (unsigned int)trange(1, maxc);
	k->m = (unsigned int)trange(1, maxm);
	k->period = (double)trange(1, 200);
	for (i = 0; i < k->nclusters; i++) {
		k->c[i].e0 = (double)trange(1, 50);
		k->c[i].e1 = k->c[i].e0 + (double)trange(0, 60);
		n[i] = trange(0, maxn);
	}
	CHECK(wcet_prepare(k) == 0);
}

static void
test_safety(void)
{
	struct wcet_kernel	k;
	uint64_t		n[WCET_MAX_CLUSTERS];
	double			tmem, r, e;
	int			iter;

	for (iter = 0; iter < 3000; iter++) {
		random_kernel(&k, n, 3, 4, 3);
		tmem = (double)trange(0, 300) * tunit();
		r = wcet_relaxed(&k, n, tmem);
		e = exhaustive(&k, n, tmem);
		CHECK(r >= e - 1e-9);
		/* with no memory time the two agree exactly */
		CHECK_NEAR(wcet_relaxed(&k, n, 0), exhaustive(&k, n, 0), 1e-9);
	}
}

/* Algorithm 1 exactly as written, without the acceleration. */
static uint64_t
plain_bound(const struct wcet_kernel *k, const uint64_t *n, double q,
    int sync)
{
	double	t = ceil(wcet_isolation(k, n)), g;

	if (q <= 0 || t == 0)
		return (uint64_t)t;
	for (;;) {
		g = ceil(wcet_relaxed(k, n, wcet_tmem(t, q, sync, k->period)));
		if (g <= t)
			return (uint64_t)t;
		t = g;
	}
}

static void
test_monotone_exact(void)
{
	struct wcet_kernel	k;
	uint64_t		n[WCET_MAX_CLUSTERS], prev, g, g2;
	double			q;
	unsigned int		i;
	int			iter, sync;

	for (iter = 0; iter < 400; iter++) {
		random_kernel(&k, n, 6, 200, 16);
		sync = (int)trange(0, 1);
		prev = 0;
		for (q = 0; q <= 1.0 + 1e-12; q += 0.05) {
			g = wcet_bound(&k, n, q, sync);
			CHECK(g >= prev);
			CHECK_U64(g, plain_bound(&k, n, q, sync));
			prev = g;
		}
		/* Q = 1 never exceeds the bound with all memory time */
		CHECK(prev <= (uint64_t)ceil(wcet_relaxed(&k, n, INFINITY)));
		/* one more block never lowers the bound */
		q = tunit();
		g = wcet_bound(&k, n, q, sync);
		i = (unsigned int)trange(0, k.nclusters - 1);
		n[i]++;
		g2 = wcet_bound(&k, n, q, sync);
		CHECK(g2 >= g);
		/* sync 1 never above sync 0 */
		CHECK(wcet_bound(&k, n, q, 1) <= wcet_bound(&k, n, q, 0));
	}
}

/* Adversarial inputs must terminate with a bound between G(0) and G(1). */
static void
test_termination(void)
{
	static const double	qs[] = { 1e-12, 1e-4, 0.3, 0.5, 0.9999,
	    1 - 1e-12, 1 };
	static const double	periods[] = { 1, 3, 1000, 1e7 };
	static const double	e1s[] = { 1, 2, 1e3, 1e6, 1e9 };
	struct wcet_kernel	k;
	uint64_t		n[2] = { 3000, 7 }, g;
	unsigned int		a, b, c;
	int			sync;

	for (a = 0; a < sizeof(qs) / sizeof(qs[0]); a++)
	for (b = 0; b < sizeof(periods) / sizeof(periods[0]); b++)
	for (c = 0; c < sizeof(e1s) / sizeof(e1s[0]); c++)
	for (sync = 0; sync <= 1; sync++) {
		memset(&k, 0, sizeof(k));
		k.nclusters = 2;
		k.m = 1 + c;
		k.period = periods[b];
		k.c[0].e0 = 1;
		k.c[0].e1 = e1s[c];
		k.c[1].e0 = 7;
		k.c[1].e1 = 7 * e1s[c];
		CHECK(wcet_prepare(&k) == 0);
		g = wcet_bound(&k, n, qs[a], sync);
		CHECK(g >= (uint64_t)ceil(wcet_isolation(&k, n)));
		CHECK(g <= (uint64_t)ceil(wcet_relaxed(&k, n, INFINITY)));
	}
	/* a kernel spanning ~1e11 periods of 1 ns hits the step cap and
	 * gets the bound with unlimited memory time */
	memset(&k, 0, sizeof(k));
	k.nclusters = 1;
	k.m = 1;
	k.period = 1;
	k.c[0].e0 = 1e6;
	k.c[0].e1 = 3e6;
	n[0] = 100000;
	n[1] = 0;
	CHECK(wcet_prepare(&k) == 0);
	g = wcet_bound(&k, n, 0.5, 0);
	CHECK(g >= (uint64_t)ceil(wcet_isolation(&k, n)));
	CHECK(g <= (uint64_t)ceil(wcet_relaxed(&k, n, INFINITY)));
	/* huge values saturate instead of overflowing */
	k.c[0].e0 = 1e18;
	k.c[0].e1 = 1e19;
	k.period = 1e9;
	CHECK(wcet_prepare(&k) == 0);
	CHECK_U64(wcet_bound(&k, n, 1, 1), UINT64_MAX);
	CHECK_U64(wcet_bound(&k, n, 0, 1), UINT64_MAX);
}

int
main(void)
{
	test_hand();
	test_order();
	test_safety();
	test_monotone_exact();
	test_termination();
	return tcheck_done("test_wcet");
}
