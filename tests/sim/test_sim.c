/*
 * test_sim.c - the simulated platform: the regulator, CFS/TFS against
 * BWLOCK++ Fig. 4, the GPU against hand-computed times, lock and budget
 * rules, safety of the bound, determinism.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "tap.h"

static struct sim *
one_core(double rho)
{
	struct sim_config	cfg;
	struct sim		*s = calloc(1, sizeof(*s));
	uint64_t		k[1];

	sim_config_default(&cfg);
	cfg.ncores = 1;
	cfg.bwmax_events = 30000;	/* 30 events per us */
	cfg.rho = rho;
	OK(s != NULL && sim_init(s, &cfg) == 0);
	OK(sim_add_task(s, 0, "cpu", 0) == 0);
	OK(sim_add_task(s, 0, "mem", SIM_MEM) == 1);
	k[0] = 10000;		/* spent in a third of a period */
	sim_lock(s, k);
	return s;
}

/* BWLOCK++ Fig. 4a and 4c. */
static void
test_fig4(void)
{
	struct sim	*s = one_core(0);
	struct sim_task	*cpu = &s->core[0].task[0], *mem = &s->core[0].task[1];

	/* CFS: cpu in [0,1), mem throttled at 1.33, mem again at 2 and 3 */
	sim_run_until(s, 1e6);
	NEAR(cpu->vruntime, 1e6, 1);
	sim_run_until(s, 2e6);
	NEAR(mem->vruntime, 1e6 / 3, 1);
	NEAR(mem->throttled_ns, 2e6 / 3, 1);
	sim_run_until(s, 4e6);
	OK(mem->periods == 3 && cpu->periods == 1);
	NEAR(mem->vruntime, 1e6, 2);
	NEAR(s->core[0].throttled_ns, 2e6, 2);	/* 66 % of [1,4) */
	sim_free(s);
	free(s);

	/* TFS-3: at 2 ms V_mem = 0.33 + 0.67 * 3 = 2.34 ms, then cpu runs
	 * until its vruntime passes it */
	s = one_core(3);
	cpu = &s->core[0].task[0];
	mem = &s->core[0].task[1];
	sim_run_until(s, 2e6);
	NEAR(mem->vruntime, 1e6 / 3 + 3 * 2e6 / 3, 2);
	NEAR(mem->tfs_lost, 2e6, 2);
	sim_run_until(s, 4e6);
	OK(cpu->periods == 3 && mem->periods == 1);
	sim_free(s);
	free(s);
}

/* The regulator never lets a core spend more than its budget. */
static void
test_budget(void)
{
	struct sim_config	cfg;
	struct sim		*s = calloc(1, sizeof(*s));
	uint64_t		k[3] = { 1000, 2000, 0 }, k2[3] = { 5, 5, 5 };
	double			before[3];
	unsigned int		i;

	sim_config_default(&cfg);
	OK(sim_init(s, &cfg) == 0);
	for (i = 0; i < 3; i++)
		sim_add_task(s, i, "mem", SIM_MEM);
	/* unregulated: full speed, 20000 events per core per period */
	sim_run_until(s, 1e6);
	NEAR(s->core[0].events, 20000, 1e-6);
	NEAR(s->u, 1, 1e-12);
	sim_lock(s, k);
	for (i = 0; i < 3; i++)
		before[i] = s->core[i].events;
	sim_run_until(s, 5e6);
	NEAR(s->core[0].events - before[0], 4000, 1e-6);
	NEAR(s->core[1].events - before[1], 8000, 1e-6);
	NEAR(s->core[2].events - before[2], 0, 1e-9);
	/* fresh budget for exactly period 6 only */
	OK(sim_apply(s, 6, k2) == 0);
	OK(sim_apply(s, 5, k2) != 0);	/* current period: too late */
	sim_run_until(s, 6e6);
	OK(s->stats.fallbacks == 4);	/* periods 2-5 ran on the static */
	before[0] = s->core[0].events;
	sim_run_until(s, 7e6);
	NEAR(s->core[0].events - before[0], 5, 1e-6);
	before[0] = s->core[0].events;
	sim_run_until(s, 8e6);		/* period 7: static again */
	NEAR(s->core[0].events - before[0], 1000, 1e-6);
	OK(s->stats.fallbacks == 6);	/* periods 7 and 8 */
	/* a lock change drops a pending budget */
	OK(sim_apply(s, 9, k2) == 0);
	sim_lock(s, k);
	OK(s->stats.discarded == 1 && s->plan[0].id == 0 &&
	    s->plan[1].id == 0);
	/* mid-period lock: a core past the new budget stops at once */
	sim_unlock(s);
	sim_run_until(s, 8.5e6 + 1e6);
	k[0] = 100;
	sim_lock(s, k);
	OK(s->core[0].throttled);
	sim_free(s);
	free(s);
}

/* A plan of len entries from first, entry j = base + j on every core. */
static void
plan(struct sim *s, uint64_t first, unsigned int len, uint64_t base)
{
	struct sim_plan	p;
	unsigned int	j, c;

	memset(&p, 0, sizeof(p));
	p.first = first;
	p.len = len;
	for (j = 0; j < len; j++) {
		p.q[j] = -1;
		for (c = 0; c < s->cfg.ncores; c++)
			p.events[j][c] = base + j;
	}
	OK(sim_apply_plan(s, &p) == 0);
}

static struct sim *
plan_sim(void)
{
	struct sim_config	cfg;
	struct sim		*s = calloc(1, sizeof(*s));
	uint64_t		k[3] = { 7, 7, 7 };
	unsigned int		i;

	sim_config_default(&cfg);
	OK(sim_init(s, &cfg) == 0);
	for (i = 0; i < 3; i++)
		sim_add_task(s, i, "mem", SIM_MEM);
	sim_lock(s, k);		/* a holder: static 7 */
	return s;
}

/*
 * The look-ahead rule (daemon/regulator.h): the newest admissible plan
 * covering the period governs, one that another plan already governed
 * into is refused, static periods do not count against a plan.
 */
static void
test_plans(void)
{
	struct sim	*s = plan_sim();

	plan(s, 2, 4, 100);		/* A: periods 2-5 */
	sim_run_until(s, 2.5e6);
	OK(s->cur_kind == SIM_BUDGET_PLAN_FIRST && s->core[0].budget == 100);
	sim_run_until(s, 3.5e6);
	OK(s->cur_kind == SIM_BUDGET_PLAN_AHEAD && s->core[0].budget == 101);
	/* B for period 3, published late (period 3 runs A's entry): B
	 * is not admissible for 4 or 5 while A goes on */
	plan(s, 3, 4, 200);
	sim_run_until(s, 4.5e6);
	OK(s->core[0].budget == 102 && s->stats.refused == 1);
	/* C on time for period 5: the newest admissible wins */
	plan(s, 5, 3, 300);
	sim_run_until(s, 5.5e6);
	OK(s->cur_kind == SIM_BUDGET_PLAN_FIRST && s->core[0].budget == 300);
	sim_run_until(s, 7.5e6);
	OK(s->core[0].budget == 302);
	/* C runs out: static */
	sim_run_until(s, 8.5e6);
	OK(s->cur_kind == SIM_BUDGET_STATIC && s->core[0].budget == 7);
	/* D for 9.., published late after static periods: admissible */
	plan(s, 8, 4, 400);
	sim_run_until(s, 9.5e6);
	OK(s->cur_kind == SIM_BUDGET_PLAN_AHEAD && s->core[0].budget == 401);
	/* the holders change: plans withdrawn, static at once */
	{
		uint64_t	k[3] = { 9, 9, 9 };

		sim_lock(s, k);
	}
	OK(s->core[0].budget == 9);
	sim_run_until(s, 10.5e6);
	OK(s->cur_kind == SIM_BUDGET_STATIC && s->core[0].budget == 9);
	OK(s->stats.plan_first == 2 && s->stats.plan_ahead == 5);
	/* bad plans */
	{
		struct sim_plan	p;

		memset(&p, 0, sizeof(p));
		OK(sim_apply_plan(s, &p) == -EINVAL);
		p.len = SIM_PLAN_MAX + 1;
		OK(sim_apply_plan(s, &p) == -EINVAL);
	}
	sim_free(s);
	free(s);
}

/* Lock slots: a held slot caps every period the plan did not account
 * for it in, a kick caps the current one at once, dyn says when a
 * launch must kick. */
static void
test_lock_slots(void)
{
	struct sim	*s = plan_sim();
	struct sim_plan	p;
	unsigned int	c;

	sim_unlock(s);
	OK(sim_lock_slot(s, 3, 1, 50) == 0);
	OK(sim_lock_slot(s, SIM_MAX_LOCKS, 1, 50) == -EINVAL);
	sim_run_until(s, 1.5e6);
	OK(s->cur_kind == SIM_BUDGET_UNREGULATED);
	OK(s->core[0].budget == SIM_UNLIMITED && sim_lock_dyn(s, 3));
	/* held, no daemon yet: the kick caps the running period */
	sim_lock_words(s, 3, 1, 1);
	OK(sim_lock_kick(s) == 1);
	for (c = 0; c < 3; c++)
		OK(s->core[c].budget == 50 && s->core[c].throttled);
	OK(!sim_lock_dyn(s, 3) && sim_lock_kick(s) == 0);
	OK(s->cur_kind == SIM_BUDGET_STATIC);
	sim_run_until(s, 2.5e6);
	OK(s->core[0].budget == 50 && s->stats.lock_limited == 1);
	/* a plan that accounted for the slot with its launch count governs;
	 * a new launch (count 2) brings the slot's cap back */
	memset(&p, 0, sizeof(p));
	p.first = 3;
	p.len = 3;
	p.lock_mask = 1ull << 3;
	p.lock_launches[3] = 1;
	for (c = 0; c < 3; c++)
		p.events[0][c] = p.events[1][c] = p.events[2][c] = 500;
	OK(sim_apply_plan(s, &p) == 0);
	sim_run_until(s, 3.5e6);
	OK(s->core[0].budget == 500 && sim_lock_dyn(s, 3));
	sim_lock_words(s, 3, 1, 2);
	OK(sim_lock_kick(s) == 1 && s->core[1].budget == 50);
	sim_run_until(s, 4.5e6);
	OK(s->cur_kind == SIM_BUDGET_PLAN_AHEAD && s->core[0].budget == 50);
	/* released: the plan's entry again; closed: no cap */
	sim_lock_words(s, 3, 0, 2);
	sim_run_until(s, 5.5e6);
	OK(s->core[0].budget == 500);
	sim_lock_words(s, 3, 1, 2);
	OK(sim_lock_slot(s, 3, 0, 0) == 0);
	OK(sim_lock_kick(s) == 0);
	/* fail-safe: its budget, capped by held slots */
	OK(sim_lock_slot(s, 4, 1, 20) == 0);
	sim_lock_words(s, 4, 1, 1);
	sim_failsafe(s, 1, 30);
	OK(s->cur_kind == SIM_BUDGET_FAILSAFE && s->core[2].budget == 20);
	/* a fail-safe period counts like another plan's entry: a plan that
	 * began before it does not govern after it */
	sim_lock_slot(s, 4, 0, 0);
	memset(&p, 0, sizeof(p));
	p.first = s->period + 1;
	p.len = 4;
	for (c = 0; c < 3; c++)
		p.events[0][c] = p.events[1][c] = p.events[2][c] =
		    p.events[3][c] = 700;
	OK(sim_apply_plan(s, &p) == 0);
	sim_run_until(s, s->next_boundary + 1);
	OK(s->cur_kind == SIM_BUDGET_FAILSAFE);
	sim_failsafe(s, 0, 0);
	sim_run_until(s, s->next_boundary + 1);
	OK(s->cur_kind != SIM_BUDGET_PLAN_AHEAD && s->core[0].budget != 700);
	sim_free(s);
	free(s);
}

static struct sim *
gpu_sim(double jitter, int hogs, uint64_t seed, struct wcet_kernel *wk,
    struct progress_table *pt)
{
	static const uint32_t	first[] = { 0, 8 };
	static const uint16_t	cl[] = { 0, 1 };
	struct sim_config	cfg;
	struct sim		*s = calloc(1, sizeof(*s));
	unsigned int		i;

	memset(wk, 0, sizeof(*wk));
	wk->nclusters = 2;
	wk->m = 4;
	wk->period = 1e6;
	wk->c[0].e0 = 10000;
	wk->c[0].e1 = 30000;
	wk->c[1].e0 = 20000;
	wk->c[1].e1 = 25000;
	OK(wcet_prepare(wk) == 0);
	OK(progress_table_init(pt, 16, 2, 2, first, cl) == 0);
	sim_config_default(&cfg);
	cfg.jitter = jitter;
	cfg.seed = seed;
	OK(sim_init(s, &cfg) == 0);
	for (i = 0; i < 3 && hogs; i++)
		sim_add_task(s, i, "mem", SIM_MEM);
	OK(sim_gpu_load(s, wk, pt) == 0);
	return s;
}

static void
test_gpu(void)
{
	struct wcet_kernel	wk;
	struct progress_table	*pt = calloc(1, sizeof(*pt));
	struct sim		*s;
	unsigned int		i;

	/* alone: 8 blocks of 10 us then 8 of 20 us on 4 slots = 60 us */
	s = gpu_sim(0, 0, 1, &wk, pt);
	OK(sim_gpu_launch(s, 0, NULL) == 0);
	OK(sim_run_until(s, 1e6) == SIM_RUN_KERNEL_DONE);
	NEAR(s->gpu.finish - s->gpu.launch, 60000, 1e-6);
	OK(s->gpu.bitmap[0] == 0xffff);
	sim_free(s);
	free(s);
	/* unregulated hogs (u = 1): 2*30 + 2*25 = 110 us */
	s = gpu_sim(0, 1, 1, &wk, pt);
	sim_run_until(s, 0.5e6);
	OK(sim_gpu_launch(s, 0, NULL) == 0);
	OK(sim_run_until(s, 2e6) == SIM_RUN_KERNEL_DONE);
	NEAR(s->gpu.finish - s->gpu.launch, 110000, 1e-6);
	sim_free(s);
	free(s);
	/* jitter only shortens; the lock goes with the kernel */
	for (i = 0; i < 20; i++) {
		uint64_t k[3] = { 0, 0, 0 };

		s = gpu_sim(0.3, 1, i + 1, &wk, pt);
		sim_run_until(s, 0.25e6 * i);
		OK(sim_gpu_launch(s, 1, k) == 0);
		OK(s->locked);
		OK(sim_run_until(s, 2e6 + 0.25e6 * i) == SIM_RUN_KERNEL_DONE);
		OK(s->gpu.finish - s->gpu.launch <= 60000 + 1e-6);
		OK(s->gpu.finish - s->gpu.launch >= 0.7 * 60000 - 1e-6);
		OK(!s->locked);
		sim_free(s);
		free(s);
	}
	free(pt);
}

/*
 * Bound safety with uneven traffic: one core's hog under a static
 * budget Q while the others idle, random launch phases: the kernel
 * never runs past G(Q,{Ni},0).
 */
static void
test_bound(void)
{
	struct wcet_kernel	wk;
	struct progress_table	*pt = calloc(1, sizeof(*pt));
	struct sim_config	cfg;
	struct sim		*s = calloc(1, sizeof(*s));
	static const uint32_t	first[] = { 0, 500, 900 };
	static const uint16_t	cl[] = { 0, 1, 0 };
	uint64_t		k[3], g;
	double			q;
	unsigned int		n, i;

	memset(&wk, 0, sizeof(wk));
	wk.nclusters = 2;
	wk.m = 8;
	wk.period = 1e6;
	wk.c[0].e0 = 17000;
	wk.c[0].e1 = 36900;
	wk.c[1].e0 = 33000;
	wk.c[1].e1 = 88300;
	OK(wcet_prepare(&wk) == 0);
	OK(progress_table_init(pt, 1200, 2, 3, first, cl) == 0);
	for (n = 0; n < 12; n++) {
		q = 0.05 + 0.08 * n;
		g = wcet_bound(&wk, pt->n, q, 0);
		sim_config_default(&cfg);
		cfg.seed = n + 7;
		cfg.jitter = 0.02;
		OK(sim_init(s, &cfg) == 0);
		sim_add_task(s, 0, "mem", SIM_MEM);
		sim_add_task(s, 1, "half", 10);
		sim_add_task(s, 1, "mem", SIM_MEM);
		OK(sim_gpu_load(s, &wk, pt) == 0);
		for (i = 0; i < 3; i++)
			k[i] = (uint64_t)(60000 * q / 3);
		sim_run_until(s, sim_random(s) * 3e6);
		OK(sim_gpu_launch(s, 1, k) == 0);
		while (sim_run_until(s, s->now + 1e7) != SIM_RUN_KERNEL_DONE)
			;
		OK(s->gpu.finish - s->gpu.launch <= (double)g);
		sim_free(s);
	}
	free(s);
	free(pt);
}

static void
test_determinism(void)
{
	struct wcet_kernel	wk;
	struct progress_table	*pt = calloc(1, sizeof(*pt));
	struct sim		*a, *b;
	uint64_t		k[3] = { 500, 500, 500 };

	a = gpu_sim(0.2, 1, 42, &wk, pt);
	b = gpu_sim(0.2, 1, 42, &wk, pt);
	sim_run_until(a, 0.3e6);
	sim_run_until(b, 0.3e6);
	sim_gpu_launch(a, 1, k);
	sim_gpu_launch(b, 1, k);
	sim_run_until(a, 5e6);
	sim_run_until(b, 5e6);
	OK(a->gpu.finish == b->gpu.finish);
	OK(a->core[2].events == b->core[2].events);
	sim_free(a);
	sim_free(b);
	free(a);
	free(b);
	free(pt);
}

/*
 * The step only bounds how long the model runs without a cut: the same
 * run with another step, or advanced in irregular chunks as a wall-clock
 * backend would, gives the same kernel time and the same BE events.
 */
static double
chunked(uint64_t step, double chunk, double *events)
{
	static const uint32_t	first[] = { 0, 300 };
	static const uint16_t	cl[] = { 0, 1 };
	struct wcet_kernel	wk;
	struct progress_table	*pt = calloc(1, sizeof(*pt));
	struct sim_config	cfg;
	struct sim		*s = calloc(1, sizeof(*s));
	struct sim_snapshot	snap;
	uint64_t		k[3] = { 3000, 3000, 3000 };
	double			t, f;
	unsigned int		i;

	memset(&wk, 0, sizeof(wk));
	wk.nclusters = 2;
	wk.m = 6;
	wk.period = 1e6;
	wk.c[0].e0 = 17000;
	wk.c[0].e1 = 36900;
	wk.c[1].e0 = 33000;
	wk.c[1].e1 = 88300;
	OK(wcet_prepare(&wk) == 0);
	OK(progress_table_init(pt, 600, 2, 2, first, cl) == 0);
	sim_config_default(&cfg);
	cfg.step_ns = step;
	cfg.rho = 1;
	OK(sim_init(s, &cfg) == 0);
	for (i = 0; i < 3; i++) {
		sim_add_task(s, i, "cpu", 0.5);
		sim_add_task(s, i, "mem", SIM_MEM);
	}
	OK(sim_gpu_load(s, &wk, pt) == 0);
	sim_run_until(s, 0.37e6);
	OK(sim_gpu_launch(s, 1, k) == 0);
	for (t = s->now + chunk; sim_run_until(s, t) != SIM_RUN_KERNEL_DONE;
	    t += chunk)
		;
	f = s->gpu.finish - s->gpu.launch;
	sim_snapshot(s, &snap);
	OK(snap.ncores == 3 && !snap.locked);
	OK(snap.next_boundary_ns > snap.now_ns);
	*events = s->core[0].events + s->core[1].events + s->core[2].events;
	sim_free(s);
	free(s);
	free(pt);
	return f;
}

static void
test_step(void)
{
	double	e1, e2, e3, f1, f2, f3;

	f1 = chunked(10000, 1e9, &e1);
	f2 = chunked(1000, 1e9, &e2);
	f3 = chunked(10000, 61234.5, &e3);
	OK(f1 > 0);
	NEAR(f2, f1, 1e-3);
	NEAR(f3, f1, 1e-3);
	NEAR(e2, e1, 1e-3);
	NEAR(e3, e1, 1e-3);
}

static void
test_errors(void)
{
	struct sim_config	cfg;
	struct sim		*s = calloc(1, sizeof(*s));

	sim_config_default(&cfg);
	cfg.ncores = 0;
	OK(sim_init(s, &cfg) != 0);
	sim_config_default(&cfg);
	cfg.jitter = 1;
	OK(sim_init(s, &cfg) != 0);
	sim_config_default(&cfg);
	OK(sim_init(s, &cfg) == 0);
	OK(sim_add_task(s, 5, "x", 1) < 0);
	OK(sim_add_task(s, 0, "x", -3) < 0);
	OK(sim_gpu_launch(s, 0, NULL) < 0);	/* nothing loaded */
	free(s);
}

int
main(void)
{
	test_fig4();
	test_budget();
	test_plans();
	test_lock_slots();
	test_gpu();
	test_bound();
	test_determinism();
	test_step();
	test_errors();
	return TAP_DONE();
}
