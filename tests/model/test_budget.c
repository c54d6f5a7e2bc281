/*
 * test_budget.c - nominal budget (and Table 5.1's adjustment), FAIR,
 * GREEDY and SMOOTH: hand-computed values, the Eq. 4.5 inversion, and
 * the [Q-bar, 1] and SMOOTH <= GREEDY properties on random inputs.
 */
#include <errno.h>
#include <string.h>

#include "budget.h"
#include "tcheck.h"

static void
example(struct wcet_kernel *k, double period)
{
	memset(k, 0, sizeof(*k));
	k->nclusters = 2;
	k->m = 2;
	k->period = period;
	k->c[0].e0 = 10;
	k->c[0].e1 = 20;
	k->c[1].e0 = 30;
	k->c[1].e1 = 40;
	CHECK(wcet_prepare(k) == 0);
}

static void
test_nominal(void)
{
	struct wcet_kernel	k;
	struct budget_nominal	nom;
	uint64_t		n[2] = { 4, 2 }, none[2] = { 0, 0 };

	example(&k, 100);
	/* G(q) = ceil(70 + 100q) for small q, G(0) = 65: 10 % allows 71 */
	CHECK(budget_nominal(&k, n, 0.10, 0, 0, &nom) == 0);
	CHECK_NEAR(nom.q, 0.01, 1e-12);
	CHECK_NEAR(nom.q_adjusted, 0.01, 1e-12);
	CHECK_U64(nom.wcet, 71);
	CHECK_U64(nom.wcet0, 65);
	/* 5 % allows 68: no Q > 0 does (G >= 70) */
	CHECK(budget_nominal(&k, n, 0.05, 0, 0, &nom) == 0);
	CHECK_NEAR(nom.q, 0, 0);
	CHECK_U64(nom.wcet, 65);
	/* 19/65 allows 84: Q = 0.14; Table 5.1: 14 % - 470/60000 */
	CHECK(budget_nominal(&k, n, 0.2924, 60000, 470, &nom) == 0);
	CHECK_NEAR(nom.q, 0.14, 1e-12);
	CHECK_U64(nom.wcet, 84);
	CHECK_NEAR(nom.q_adjusted, 0.14 - 470.0 / 60000, 1e-12);
	CHECK_NEAR(floor(nom.q_adjusted * 1000 + 0.5) / 10, 13.2, 1e-9);
	/* a huge slowdown allows everything; overhead beyond Q gives 0 */
	CHECK(budget_nominal(&k, n, 10, 100, 500, &nom) == 0);
	CHECK_NEAR(nom.q, 1, 0);
	CHECK_U64(nom.wcet, 100);
	CHECK_NEAR(nom.q_adjusted, 0, 0);
	CHECK(budget_nominal(&k, none, 0.1, 0, 0, &nom) == 0);
	CHECK_NEAR(nom.q, 1, 0);
	CHECK_U64(nom.wcet, 0);
	CHECK(budget_nominal(&k, n, -0.1, 0, 0, &nom) == -EINVAL);
	CHECK(budget_nominal(&k, n, NAN, 0, 0, &nom) == -EINVAL);
}

/* The nominal search against a linear scan of the 1e-4 grid. */
static void
test_nominal_grid(void)
{
	struct wcet_kernel	k;
	struct budget_nominal	nom;
	uint64_t		n[3];
	unsigned int		i, s, best;
	double			slow, g0;
	int			iter;

	for (iter = 0; iter < 8; iter++) {
		memset(&k, 0, sizeof(k));
		k.nclusters = 3;
		k.m = (unsigned int)trange(1, 8);
		k.period = (double)trange(5, 500);
		for (i = 0; i < 3; i++) {
			k.c[i].e0 = (double)trange(1, 40);
			k.c[i].e1 = k.c[i].e0 * (1 + 3 * tunit());
			n[i] = trange(1, 50);
		}
		CHECK(wcet_prepare(&k) == 0);
		slow = 0.4 * tunit();
		CHECK(budget_nominal(&k, n, slow, 0, 0, &nom) == 0);
		g0 = (double)wcet_bound(&k, n, 0, 0);
		best = 0;
		for (s = 0; s <= 10000; s++)
			if (((double)wcet_bound(&k, n, s / 10000.0, 0) - g0) /
			    g0 <= slow)
				best = s;
		CHECK_NEAR(nom.q, best / 10000.0, 1e-12);
	}
}

static void
test_online_hand(void)
{
	struct wcet_kernel	k;
	uint64_t		r[2] = { 4, 2 }, none[2] = { 0, 0 };
	uint64_t		one0[2] = { 0, 2 };

	example(&k, 100);
	/* j = c0: bound with all of c0 slowed is 90 >= 80; x0 = 2 */
	CHECK_NEAR(budget_tmem_max(&k, r, 80), 20, 1e-12);
	CHECK_NEAR(budget_fair(&k, r, 80, 0.1), 0.2, 1e-12);
	CHECK_NEAR(budget_fair(&k, r, 80, 0.3), 0.3, 1e-12);
	/* j = c1: 90 < 95 <= 100; x1 = ((95-40)*2 - 80 - 60 + 40)/10 = 1 */
	CHECK_NEAR(budget_tmem_max(&k, r, 95), 60, 1e-12);
	/* no cluster reaches 250: any Q */
	CHECK(budget_tmem_max(&k, r, 250) < 0);
	CHECK_NEAR(budget_fair(&k, r, 250, 0.1), 1, 0);
	CHECK_NEAR(budget_greedy(&k, r, 250, 0.1), 1, 0);
	CHECK(budget_tmem_max(&k, none, 10) < 0);
	CHECK_NEAR(budget_fair(&k, none, 10, 0.1), 1, 0);
	/* already late: Q-bar */
	CHECK_NEAR(budget_fair(&k, r, 0, 0.1), 0.1, 0);
	CHECK_NEAR(budget_fair(&k, r, -50, 0.1), 0.1, 0);
	CHECK_NEAR(budget_greedy(&k, r, 30, 0.1), 0.1, 0);
	/* only c1 left (e1max 40): all e0 gives (60 - 40)/2 + 40 = 50,
	 * so t = 50 affords no memory time; t = 55: all of c1 slowed gives
	 * 60 >= 55, x1 = ((55 - 40)*2 - 60 + 40)/10 = 1 */
	CHECK_NEAR(budget_tmem_max(&k, one0, 50), 0, 0);
	CHECK_NEAR(budget_tmem_max(&k, one0, 55), 20, 1e-12);
	/* GREEDY, T = 100: tmem(t - T) = 0, Q = 20/100 */
	CHECK_NEAR(budget_greedy(&k, r, 80, 0.1), 0.2, 1e-12);
	/* T = 30: FAIR inverts with P = 2, r = 20: 20/90; GREEDY takes
	 * off tmem(50, 0.1, 1) = 3 + min(20, 3) = 6: (20 - 6)/30 */
	example(&k, 30);
	CHECK_NEAR(budget_fair(&k, r, 80, 0.01), 20.0 / 90, 1e-12);
	CHECK_NEAR(budget_greedy(&k, r, 80, 0.1), 14.0 / 30, 1e-12);
	/* T = 30, t = 95: tmem_max 60, P = 3, r = 5: 60/120 = 0.5 gives
	 * QT = 15 > 5, so Q = (60 - 5)/90 */
	CHECK_NEAR(budget_fair(&k, r, 95, 0.01), 55.0 / 90, 1e-12);
	CHECK_NEAR(wcet_tmem(95, 55.0 / 90, 1, 30), 60, 1e-9);
	/* SMOOTH */
	CHECK_NEAR(budget_smooth(0.5, 0.1, 0.3, 0.05), 0.22, 1e-12);
	CHECK_NEAR(budget_smooth(0.1, 0.5, 0.3, 0.05), 0.1, 1e-12);
	CHECK_NEAR(budget_smooth(0.1, 0.5, 0.3, 0.2), 0.2, 1e-12);
	CHECK_NEAR(budget_smooth(2, 1, 0.3, 0.2), 1, 0);
}

static void
test_online_random(void)
{
	struct wcet_kernel	k;
	uint64_t		r[WCET_MAX_CLUSTERS];
	double			t, qnom, f, g, s, prev, tm, tm2;
	unsigned int		i;
	int			iter, step;

	for (iter = 0; iter < 3000; iter++) {
		memset(&k, 0, sizeof(k));
		k.nclusters = (unsigned int)trange(1, 8);
		k.m = (unsigned int)trange(1, 64);
		k.period = (double)trange(1, 10000);
		for (i = 0; i < k.nclusters; i++) {
			k.c[i].e0 = (double)trange(1, 1000);
			k.c[i].e1 = k.c[i].e0 * (trange(0, 3) ? 1 + 5 *
			    tunit() : 1);
			r[i] = trange(0, 3) ? trange(0, 2000) : 0;
		}
		CHECK(wcet_prepare(&k) == 0);
		qnom = tunit() * 0.5;
		prev = qnom;
		t = wcet_relaxed(&k, r, INFINITY) * 1.2 * tunit();
		for (step = 0; step < 4; step++) {
			f = budget_fair(&k, r, t, qnom);
			g = budget_greedy(&k, r, t, qnom);
			s = budget_smooth(g, prev, BUDGET_DEFAULT_SMOOTH_A,
			    qnom);
			CHECK(f >= qnom && f <= 1);
			CHECK(g >= qnom && g <= 1);
			CHECK(s >= qnom && s <= g);
			/* FAIR's Q spends no more memory time than allowed,
			 * and a slightly larger Q would */
			tm = budget_tmem_max(&k, r, t);
			if (tm >= 0 && t > 0 && f > qnom && f < 1) {
				CHECK(wcet_tmem(t, f, 1, k.period) <=
				    tm * (1 + 1e-9) + 1e-9);
				tm2 = wcet_tmem(t, f * (1 + 1e-6) + 1e-9, 1,
				    k.period);
				CHECK(tm2 > tm - 1e-9 * (1 + tm));
			}
			/* FAIR's memory time keeps the bound within t */
			if (tm >= 0 && t > 0)
				CHECK(wcet_relaxed(&k, r, tm) <=
				    t * (1 + 1e-9) + 1e-6 ||
				    tm == 0);
			/* one more remaining block never raises FAIR or
			 * the memory time it affords */
			i = (unsigned int)trange(0, k.nclusters - 1);
			r[i]++;
			CHECK(budget_fair(&k, r, t, qnom) <= f + 1e-12);
			if (tm >= 0 && budget_tmem_max(&k, r, t) >= 0)
				CHECK(budget_tmem_max(&k, r, t) <=
				    tm + 1e-9 * (1 + tm));
			r[i]--;
			prev = s;
			t -= k.period;
		}
	}
}

int
main(void)
{
	test_nominal();
	test_nominal_grid();
	test_online_hand();
	test_online_random();
	return tcheck_done("test_budget");
}
