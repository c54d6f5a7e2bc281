/*
 * test_budget.c - nominal budget (and Table 5.1's adjustment), FAIR,
 * GREEDY and SMOOTH: hand-computed values, the Eq. 4.5 inversion, and
 * the [Q-bar, 1] and SMOOTH <= GREEDY properties on random inputs, and
 * the look-ahead rule: every prefix of a sequence, followed by Q-bar,
 * keeps the bound (checked by brute force).
 */
#include <errno.h>
#include <string.h>

#include "budget.h"
#include "tcheck.h"
#include "exhaustive.h"

#define BUDGET_TEST_LEN	16

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

/* Memory time the window t sees under applied budgets q[0..k-1] and
 * Q-bar after them: the quantity the look-ahead rule bounds. */
static double
window_tmem(const double *q, unsigned int k, double t, double period,
    double qnom)
{
	double		m = 0, left, rest;
	unsigned int	i;

	for (i = 0; i < k; i++) {
		left = t - (double)i * period;
		if (left > 0)
			m += q[i] * period < left ? q[i] * period : left;
	}
	rest = wcet_tmem(t - (double)k * period, qnom, 1, period);
	return m + (rest > 0 ? rest : 0);
}

/* A small random kernel the brute force can handle. */
static void
small_kernel(struct wcet_kernel *k, uint64_t *r)
{
	unsigned int	i;

	memset(k, 0, sizeof(*k));
	k->nclusters = (unsigned int)trange(1, 3);
	k->m = (unsigned int)trange(1, 3);
	k->period = (double)trange(2, 60);
	for (i = 0; i < k->nclusters; i++) {
		k->c[i].e0 = (double)trange(1, 40);
		k->c[i].e1 = k->c[i].e0 + (double)trange(0, 80);
		r[i] = trange(0, 4);
	}
	CHECK(wcet_prepare(k) == 0);
}

/*
 * The look-ahead rule on random kernels, states, policies and lengths:
 * other kernels or holders may lower any entry, and late periods run on
 * the static budget instead (lower still); whatever prefix governs
 * before the static budget takes over, the bound holds - by the relaxed
 * bound the algorithm uses and by brute force.
 */
static void
test_lookahead_rule(void)
{
	struct budget_track	b;
	struct wcet_kernel	k;
	uint64_t		r[WCET_MAX_CLUSTERS];
	double			q[BUDGET_TEST_LEN], t, qnom, own, g, m, lim;
	unsigned int		len, j, n;
	int			iter, checked = 0;
	enum budget_policy	pol;

	for (iter = 0; iter < 20000; iter++) {
		small_kernel(&k, r);
		qnom = trange(0, 3) ? 0.3 * tunit() : 0;
		t = (double)wcet_bound(&k, r, qnom, 1) * (0.9 + tunit());
		/* only states on track: Q-bar from now on meets the bound */
		if (wcet_relaxed(&k, r, window_tmem(q, 0, t, k.period,
		    qnom)) > t)
			continue;
		pol = (enum budget_policy)trange(BUDGET_NOMINAL,
		    BUDGET_SMOOTH);
		len = (unsigned int)trange(1, BUDGET_TEST_LEN);
		budget_track_init(&b, &k, r, t, qnom, pol,
		    trange(0, 1) ? -1 : tunit(), 0.05 + 0.95 * tunit());
		for (j = 0; j < len; j++) {
			own = budget_track_next(&b, &g);
			CHECK(own >= qnom && own <= 1);
			q[j] = own;
			if (trange(0, 3) == 0)	/* another kernel's smaller Q */
				q[j] = qnom + (own - qnom) * tunit();
			if (trange(0, 5) == 0)	/* a late period: static */
				q[j] = qnom * tunit();
			budget_track_charge(&b, q[j], own);
		}
		for (n = 0; n <= len; n++) {
			m = window_tmem(q, n, t, k.period, qnom);
			lim = t * (1 + 1e-9) + 1e-6;
			CHECK(wcet_relaxed(&k, r, m) <= lim);
			CHECK(exhaustive(&k, r, m) <= lim);
		}
		CHECK_NEAR(budget_track_window(&b),
		    window_tmem(q, len, t, k.period, qnom), 1e-9 * (1 + t));
		checked++;
	}
	/* the generator must reach enough states for this to mean much */
	CHECK(checked > 5000);
}

/* Entry 0 is the single-period policy; FAIR stays constant without
 * progress; GREEDY front-loads and then falls to Q-bar. */
static void
test_lookahead_entries(void)
{
	struct budget_track	b;
	struct wcet_kernel	k;
	uint64_t		r[2] = { 4, 2 };
	double			g, q0, q1, q2;

	example(&k, 30);
	budget_track_init(&b, &k, r, 80, 0.1, BUDGET_GREEDY, -1, 0.3);
	q0 = budget_track_next(&b, &g);
	CHECK_NEAR(q0, budget_greedy(&k, r, 80, 0.1), 1e-12);
	budget_track_charge(&b, q0, q0);
	q1 = budget_track_next(&b, &g);
	/* 20 of memory time: 14 in period 0, then 3 + 3 at Q-bar */
	CHECK_NEAR(q1, 0.1, 1e-12);
	budget_track_charge(&b, q1, q1);
	q2 = budget_track_next(&b, &g);
	CHECK_NEAR(q2, 0.1, 1e-12);
	budget_track_init(&b, &k, r, 80, 0.01, BUDGET_FAIR, -1, 0.3);
	q0 = budget_track_next(&b, &g);
	CHECK_NEAR(q0, 20.0 / 90, 1e-12);
	budget_track_charge(&b, q0, q0);
	q1 = budget_track_next(&b, &g);
	CHECK_NEAR(q1, q0, 1e-9);
	/* SMOOTH from prev 0.1: min(g, 0.3 g + 0.7 prev) */
	budget_track_init(&b, &k, r, 80, 0.1, BUDGET_SMOOTH, 0.1, 0.3);
	q0 = budget_track_next(&b, &g);
	CHECK_NEAR(q0, budget_smooth(14.0 / 30, 0.1, 0.3, 0.1), 1e-12);
	/* a lower applied Q leaves more for the next entry */
	budget_track_charge(&b, 0.1, q0);
	q1 = budget_track_next(&b, &g);
	CHECK(g > 0.1);
	CHECK(q1 >= 0.1 && q1 <= g);
	/* past the bound: Q-bar; NOMINAL: Q-bar */
	budget_track_init(&b, &k, r, -5, 0.2, BUDGET_GREEDY, -1, 0.3);
	CHECK_NEAR(budget_track_next(&b, &g), 0.2, 0);
	budget_track_init(&b, &k, r, 80, 0.2, BUDGET_NOMINAL, -1, 0.3);
	CHECK_NEAR(budget_track_next(&b, &g), 0.2, 0);
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
	test_lookahead_entries();
	test_lookahead_rule();
	return tcheck_done("test_budget");
}
