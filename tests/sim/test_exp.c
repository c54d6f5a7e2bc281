/*
 * test_exp.c - the bwsim experiments at modest sizes: direction and
 * safety, not timings.  BWLOCK++ Fig. 6, 9 and 10, [DynBW] Tables
 * 5.2-5.3 with hogs, mixed and SPEC-like BE work.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exp.h"
#include "fileio.h"
#include "tap.h"

static double
mem_share(double rho)
{
	struct exp_tfs_args	a;
	struct exp_tfs_result	r;

	exp_tfs_default(&a);
	a.rho = rho;
	a.periods = 300;
	OK(exp_tfs(&a, NULL, &r) == 0);
	OK(r.mem_periods + r.cpu_periods == 300);
	return (double)r.mem_periods / 300;
}

static void
test_tfs(void)
{
	double	cfs = mem_share(0), t1 = mem_share(1), t3 = mem_share(3);

	OK(cfs > t1);
	OK(t1 > t3);
	OK(t3 < 0.5);			/* TFS-3 favours the cpu task */
	OK(cfs > 0.7 && cfs < 0.8);	/* about 75/25 */
	OK(t1 > 0.45 && t1 < 0.55);	/* about even */
}

static uint64_t
throttled(double rho)
{
	struct exp_throttle_args a;
	struct exp_throttle_result r;

	exp_throttle_default(&a);
	a.rho = rho;
	a.launches = 15;
	OK(exp_throttle(&a, NULL, &r) == 0);
	OK(r.locked_ns > 0 && r.throttled_ns > 0);
	return r.throttled_ns;
}

static void
test_throttle(void)
{
	uint64_t	cfs = throttled(0), t1 = throttled(1);
	uint64_t	t3 = throttled(3);

	OK(cfs > t1);
	OK(t1 > t3);
}

static void
budgets(const struct profile *p, enum decide_policy pol,
    struct exp_budgets_result *r)
{
	struct exp_budgets_args	a;

	exp_budgets_default(&a);
	a.profile = p;
	a.policy = pol;
	a.launches = 25;
	a.seed = 3;
	OK(exp_budgets(&a, NULL, r) == 0);
	OK(r->launches == 25);
	OK(r->over_bound == 0);
	OK(r->max_ratio > 0 && r->max_ratio <= 1);
	OK(r->q_mean >= r->qnom - 1e-12);
}

static void
test_budgets(const struct profile *p)
{
	struct exp_budgets_result	r[4], again;
	int				i;

	for (i = DECIDE_NOMINAL; i <= DECIDE_SMOOTH; i++)
		budgets(p, (enum decide_policy)i, &r[i]);
	NEAR(r[DECIDE_NOMINAL].q_std, 0, 1e-9);
	for (i = DECIDE_FAIR; i <= DECIDE_SMOOTH; i++)
		OK(r[i].be_events > 1.2 * r[DECIDE_NOMINAL].be_events);
	OK(r[DECIDE_SMOOTH].q_std <= r[DECIDE_GREEDY].q_std);
	/* same seed, same numbers */
	budgets(p, DECIDE_SMOOTH, &again);
	OK(memcmp(&again, &r[DECIDE_SMOOTH], sizeof(again)) == 0);
}

/* The BE work kinds: a task below Q-bar never gains; the CPU time of
 * the cpu-bound tasks is counted. */
static void
test_be_kinds(const struct profile *p)
{
	struct exp_budgets_args	a;
	struct exp_budgets_result nom, dyn;

	exp_budgets_default(&a);
	a.profile = p;
	a.launches = 10;
	a.be_nfrac = 1;
	a.be_frac[0] = 0.05;	/* below Q-bar (0.127): never throttled */
	OK(exp_budgets(&a, NULL, &nom) == 0);
	a.policy = DECIDE_SMOOTH;
	OK(exp_budgets(&a, NULL, &dyn) == 0);
	NEAR(dyn.be_events / nom.be_events, 1.0, 0.01);
	a.be_frac[0] = 0.25;		/* above it: throttled under NOMINAL */
	OK(exp_budgets(&a, NULL, &dyn) == 0 && dyn.over_bound == 0);
	a.policy = DECIDE_NOMINAL;
	OK(exp_budgets(&a, NULL, &nom) == 0);
	OK(dyn.be_events > 1.3 * nom.be_events);
	/* a task's events are its CPU time times its intensity */
	NEAR(nom.be_events / (nom.be_run_ns / 1000.0), 0.25 * 20, 0.05);
	OK(nom.cpu_run_ns == 0);
	a.be_nfrac = 0;
	a.mixed = 1;
	OK(exp_budgets(&a, NULL, &nom) == 0);
	OK(nom.cpu_run_ns > 0 && nom.cpu_run_ns < nom.be_run_ns);
	a.be_nfrac = 1;
	a.mixed = 0;
	a.be_frac[0] = 1.5;
	OK(exp_budgets(&a, NULL, &nom) == -EINVAL);
}

/* BWLOCK++ Fig. 9: hogs slow the kernel by up to e1/e0; the lock keeps
 * it within G(Q); a smaller Q keeps it closer to solo. */
static void
test_protect(void)
{
	struct exp_protect_args a;
	struct exp_protect_result solo, corun, nom, low;

	exp_protect_default(&a);
	a.launches = 5;
	OK(exp_protect(&a, &solo) == 0);
	a.scenario = EXP_CORUN;
	OK(exp_protect(&a, &corun) == 0);
	a.scenario = EXP_LOCKED;
	OK(exp_protect(&a, &nom) == 0);
	a.q = 0.05;
	OK(exp_protect(&a, &low) == 0);
	OK(solo.be_events == 0 && solo.max_ns <= (double)solo.wcet0_ns);
	/* histo's e1/e0 lie between 2.17 and 2.68 */
	OK(corun.mean_ns > 2.0 * solo.mean_ns);
	OK(corun.mean_ns < 2.7 * solo.mean_ns);
	OK(nom.q == nom.qnom && nom.over_bound == 0 && low.over_bound == 0);
	OK(nom.mean_ns < 1.1 * solo.mean_ns);
	OK(low.mean_ns < nom.mean_ns && low.mean_ns > solo.mean_ns);
	OK(low.be_events < nom.be_events && nom.be_events < corun.be_events);
	a.q = 2;
	OK(exp_protect(&a, &low) == -EINVAL);
}

/* examples/histo.bwk and the built-in copy describe the same kernel. */
static void
test_histo(struct profile *p)
{
	struct profile	*f = calloc(1, sizeof(*f));
	const char	*top = getenv("top_srcdir");
	char		 path[4096], err[128], *buf;
	size_t		 len;

	memset(p, 0, sizeof(*p));
	OK(profile_parse(exp_histo_bwk, strlen(exp_histo_bwk), p, err,
	    sizeof(err)) == 0);
	OK(p->blocks == 37627 && p->nclusters == 3 && p->nintervals == 14);
	snprintf(path, sizeof(path), "%s/examples/histo.bwk",
	    top != NULL ? top : ".");
	if (fileio_read(path, PROFILE_MAX_SIZE, &buf, &len) == 0) {
		OK(profile_parse(buf, len, f, err, sizeof(err)) == 0);
		OK(memcmp(f, p, sizeof(*f)) == 0);
		free(buf);
	} else {
		fprintf(stderr, "%s: cannot read\n", path);
		failures++;
	}
	free(f);
}

/*
 * Two kernels queued on one stream: counted from its real start the
 * second gets dynamic budgets, from its CPU launch it looks late by the
 * first's run; neither mode lets a kernel exceed its bound.
 */
static void
test_queued(const struct profile *p)
{
	struct exp_budgets_args	a;
	struct exp_budgets_result cpu, gpu;

	exp_budgets_default(&a);
	a.profile = p;
	a.policy = DECIDE_GREEDY;
	a.launches = 20;
	a.seed = 5;
	a.queued = 2;
	OK(exp_budgets(&a, NULL, &cpu) == 0);
	a.gpu_start = 1;
	OK(exp_budgets(&a, NULL, &gpu) == 0);
	OK(cpu.launches == 40 && gpu.launches == 40);
	OK(cpu.over_bound == 0 && gpu.over_bound == 0);
	OK(gpu.max_ratio <= 1);
	OK(cpu.periods2 > 0 && gpu.periods2 > 0);
	OK((double)gpu.dyn_periods2 / (double)gpu.periods2 >=
	    (double)cpu.dyn_periods2 / (double)cpu.periods2);
	/* and by a margin: the second kernel is no longer "late" */
	OK((double)gpu.dyn_periods2 / (double)gpu.periods2 > 0.5);
	OK(gpu.q2_mean > cpu.q2_mean + 0.02);
	OK(gpu.be_events > cpu.be_events);
	a.queued = 3;
	OK(exp_budgets(&a, NULL, &gpu) == -EINVAL);
}

int
main(void)
{
	struct profile	*p = calloc(1, sizeof(*p));

	test_histo(p);
	test_tfs();
	test_throttle();
	test_budgets(p);
	test_be_kinds(p);
	test_queued(p);
	test_protect();
	free(p);
	return TAP_DONE();
}
