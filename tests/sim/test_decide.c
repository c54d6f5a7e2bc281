/*
 * test_decide.c - the per-period decision (model/decide.c): holders,
 * policies, clamping, the per-core split and the remaining time.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "budget.h"
#include "decide.h"
#include "tap.h"

static struct wcet_kernel	wk;
static struct progress_table	pt;
static uint64_t			bitmap[2];

static void
kernel_setup(void)
{
	static const uint32_t	first[] = { 0, 50 };
	static const uint16_t	cl[] = { 0, 1 };

	memset(&wk, 0, sizeof(wk));
	wk.nclusters = 2;
	wk.m = 2;
	wk.period = 1e6;
	wk.c[0].e0 = 10000;
	wk.c[0].e1 = 30000;
	wk.c[1].e0 = 20000;
	wk.c[1].e1 = 25000;
	OK(wcet_prepare(&wk) == 0);
	OK(progress_table_init(&pt, 100, 2, 2, first, cl) == 0);
}

static const struct decide_config cfg = { 60000, 470, 3, 0.3 };

static void
run_plan(const struct decide_holder *h, unsigned int n, enum decide_policy p,
    uint64_t start, unsigned int len, struct decide_output *o)
{
	struct decide_input in = { h, n, p, 7, start, &cfg, len };

	OK(decide(&in, o) == 0);
	OK(o->period == 7);
	OK(o->plan_len == (len ? len : 1));
}

static void
run(const struct decide_holder *h, unsigned int n, enum decide_policy p,
    uint64_t start, struct decide_output *o)
{
	run_plan(h, n, p, start, 1, o);
}

static void
test_holders(void)
{
	struct decide_holder	h[3];
	struct decide_output	o;
	unsigned int		i;

	/* no holder: unregulated */
	run(NULL, 0, DECIDE_FAIR, 0, &o);
	OK(!o.regulated);
	for (i = 0; i < cfg.ncores; i++)
		OK(o.events[i] == DECIDE_UNLIMITED);
	/* holder without progress: its Q-bar; K = (60000*0.14-470)/3 */
	memset(h, 0, sizeof(h));
	h[0].qbar = 0.14;
	run(h, 1, DECIDE_GREEDY, 0, &o);
	OK(o.regulated);
	NEAR(o.q, 0.14, 1e-12);
	NEAR(o.q_static, 0.14, 1e-12);
	for (i = 0; i < cfg.ncores; i++) {
		OK(o.events[i] == 2643);
		OK(o.static_events[i] == 2643);
	}
	/* several holders: the smallest */
	h[1].qbar = 0.05;
	h[2].qbar = 0.3;
	run(h, 3, DECIDE_SMOOTH, 0, &o);
	NEAR(o.q, 0.05, 1e-12);
	NEAR(o.q_static, 0.05, 1e-12);
	OK(o.events[0] == (uint64_t)((60000 * 0.05 - 470) / 3));
	/* a budget below the overhead: zero, never negative */
	h[0].qbar = 0.001;
	run(h, 1, DECIDE_NOMINAL, 0, &o);
	OK(o.events[0] == 0 && o.events[2] == 0);
	/* out-of-range Q-bar is clamped */
	h[0].qbar = 1.5;
	run(h, 1, DECIDE_NOMINAL, 0, &o);
	NEAR(o.q, 1, 0);
	OK(o.events[0] == (60000 - 470) / 3);
}

static void
kernel_holder(struct decide_holder *h, struct decide_kernel *k,
    struct progress_scan *sc, double qnom, uint64_t launch)
{
	memset(h, 0, sizeof(*h));
	memset(k, 0, sizeof(*k));
	progress_scan_reset(sc);
	k->wk = &wk;
	k->pt = &pt;
	k->bitmap = bitmap;
	k->nwords = 2;
	k->window = 2;
	k->qnom = qnom;
	k->bound_ns = wcet_bound(&wk, pt.n, qnom, 0);
	k->launch_ns = launch;
	k->prev_q = -1;
	k->scan = sc;
	h->qbar = qnom;
	h->has_progress = 1;
	h->nkernels = 1;
	h->kernels = k;
}

static void
test_kernel(void)
{
	struct decide_holder	h, h2[2];
	struct decide_kernel	k, k2;
	struct progress_scan	sc, sc2;
	struct decide_output	o;
	uint64_t		r[2] = { 0, 50 }, launch = 5000000;
	uint64_t		start = launch + 200000;
	double			t, f, g, s;

	/* blocks 0..49 (all of cluster 0) finished */
	bitmap[0] = (1ull << 50) - 1;
	bitmap[1] = 0;
	kernel_holder(&h, &k, &sc, 0.1, launch);
	run(&h, 1, DECIDE_FAIR, start, &o);
	t = (double)k.bound_ns - 200000.0;
	OK(t > 100000);
	NEAR(k.out.t_remaining, t, 1e-6);
	OK(k.out.remaining == 50);
	f = budget_fair(&wk, r, t, 0.1);
	NEAR(o.q, f, 1e-12);
	OK(o.q >= 0.1 && o.q <= 1);
	OK(o.events[1] == (uint64_t)((60000 * f - 470) / 3));
	OK(o.static_events[1] == (uint64_t)((60000 * 0.1 - 470) / 3));

	OK(!k.out.late);
	OK(o.q > 0.1);		/* slack to give away at this point */
	/* GREEDY, then SMOOTH from the previous output */
	kernel_holder(&h, &k, &sc, 0.1, launch);
	run(&h, 1, DECIDE_GREEDY, start, &o);
	g = budget_greedy(&wk, r, t, 0.1);
	NEAR(o.q, g, 1e-12);
	kernel_holder(&h, &k, &sc, 0.1, launch);
	k.prev_q = 0.2;
	run(&h, 1, DECIDE_SMOOTH, start, &o);
	s = budget_smooth(g, 0.2, 0.3, 0.1);
	NEAR(o.q, s, 1e-12);
	NEAR(k.out.greedy, g, 1e-12);
	OK(o.q <= g + 1e-12);
	/* first SMOOTH period starts from Q-bar */
	kernel_holder(&h, &k, &sc, 0.1, launch);
	run(&h, 1, DECIDE_SMOOTH, start, &o);
	NEAR(o.q, budget_smooth(g, 0.1, 0.3, 0.1), 1e-12);

	/* NOMINAL ignores progress */
	kernel_holder(&h, &k, &sc, 0.1, launch);
	run(&h, 1, DECIDE_NOMINAL, start, &o);
	NEAR(o.q, 0.1, 0);

	/* the remaining time counts from the launch: later launch, more
	 * time, never a smaller budget */
	kernel_holder(&h, &k, &sc, 0.1, launch + 100000);
	run(&h, 1, DECIDE_FAIR, start, &o);
	NEAR(k.out.t_remaining, t + 100000, 1e-6);
	OK(!k.out.late);
	OK(o.q >= f - 1e-12);

	/* past the bound: Q-bar, flagged */
	kernel_holder(&h, &k, &sc, 0.1, launch);
	run(&h, 1, DECIDE_GREEDY, launch + k.bound_ns + 1, &o);
	OK(k.out.late);
	NEAR(o.q, 0.1, 0);

	/* one progress holder and one without: the smaller wins */
	kernel_holder(&h2[0], &k2, &sc2, 0.1, launch);
	memset(&h2[1], 0, sizeof(h2[1]));
	h2[1].qbar = 0.12;
	bitmap[0] = ~0ull;
	bitmap[1] = (1ull << 36) - 1;	/* all 100 finished */
	run(h2, 2, DECIDE_FAIR, start, &o);
	OK(k2.out.remaining == 0);
	NEAR(o.q, 0.12, 1e-12);
	NEAR(o.q_static, 0.1, 1e-12);
}

/*
 * Plans: entry 0 is the single-period decision; every entry is at least
 * the static budget; the smallest holder governs each entry; the
 * kernel's entries follow its look-ahead track (budget.h).
 */
static void
test_plan(void)
{
	struct decide_holder	h, h2[2];
	struct decide_kernel	k, k2;
	struct progress_scan	sc, sc2;
	struct decide_output	o, o1;
	struct budget_track	b;
	uint64_t		r[2] = { 0, 50 }, launch = 5000000;
	uint64_t		start = launch + 200000;
	double			t, own, g;
	unsigned int		j, c, pol;

	bitmap[0] = (1ull << 50) - 1;
	bitmap[1] = 0;
	for (pol = DECIDE_NOMINAL; pol <= DECIDE_SMOOTH; pol++) {
		kernel_holder(&h, &k, &sc, 0.1, launch);
		run(&h, 1, (enum decide_policy)pol, start, &o1);
		kernel_holder(&h, &k, &sc, 0.1, launch);
		run_plan(&h, 1, (enum decide_policy)pol, start, 12, &o);
		NEAR(o.q, o1.q, 0);
		NEAR(o.plan_q[0], o1.q, 0);
		OK(o.events[0] == o1.events[0]);
		t = (double)k.bound_ns - 200000.0;
		budget_track_init(&b, &wk, r, t, 0.1, (enum budget_policy)pol,
		    -1, 0.3);
		for (j = 0; j < 12; j++) {
			own = budget_track_next(&b, &g);
			budget_track_charge(&b, own, own);
			NEAR(o.plan_q[j], own, 1e-12);
			OK(o.plan_q[j] >= o.q_static);
			for (c = 0; c < cfg.ncores; c++)
				OK(o.plan_events[j][c] >= o.static_events[c]);
		}
	}
	/* GREEDY gives its slack to the first entry and then falls back */
	kernel_holder(&h, &k, &sc, 0.1, launch);
	run_plan(&h, 1, DECIDE_GREEDY, start, 4, &o);
	OK(o.plan_q[0] > 0.1);
	OK(o.plan_q[3] <= o.plan_q[0]);
	/* a holder without progress caps every entry */
	kernel_holder(&h2[0], &k2, &sc2, 0.1, launch);
	memset(&h2[1], 0, sizeof(h2[1]));
	h2[1].qbar = 0.12;
	run_plan(h2, 2, DECIDE_FAIR, start, 5, &o);
	NEAR(o.plan_q[0], 0.12, 1e-12);
	for (j = 0; j < 5; j++)
		OK(o.plan_q[j] <= 0.12 + 1e-12 && o.plan_q[j] >= 0.1);
	/* the kernel's window ends within the first period (its bound is
	 * about 1.1 ms, T = 1 ms): from entry 1 on it is past its bound */
	NEAR(o.plan_q[1], 0.1, 0);
	/* no holder: every entry unlimited */
	run_plan(NULL, 0, DECIDE_SMOOTH, start, 3, &o);
	for (j = 0; j < 3; j++)
		OK(o.plan_events[j][0] == DECIDE_UNLIMITED);
}

static void
test_errors(void)
{
	struct decide_config	bad = cfg;
	struct decide_input	in = { NULL, 0, DECIDE_FAIR, 0, 0, &bad, 1 };
	struct decide_output	o;

	in.plan_len = DECIDE_MAX_PLAN + 1;
	OK(decide(&in, &o) == -EINVAL);
	in.plan_len = 1;
	bad.ncores = 0;
	OK(decide(&in, &o) == -EINVAL);
	bad.ncores = DECIDE_MAX_CORES + 1;
	OK(decide(&in, &o) == -EINVAL);
	bad.ncores = 3;
	bad.bwmax_events = 0;
	OK(decide(&in, &o) == -EINVAL);
	bad.bwmax_events = 1;
	in.policy = (enum decide_policy)9;
	OK(decide(&in, &o) == -EINVAL);
	OK(decide_policy_parse("smooth") == DECIDE_SMOOTH);
	OK(decide_policy_parse("nominal") == DECIDE_NOMINAL);
	OK(decide_policy_parse("Fair") == -1);
	OK(strcmp(decide_policy_name(DECIDE_GREEDY), "greedy") == 0);
}

int
main(void)
{
	kernel_setup();
	test_holders();
	test_kernel();
	test_plan();
	test_errors();
	return TAP_DONE();
}
