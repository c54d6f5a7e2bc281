/*
 * exp.c - bwsim's experiments on the simulated platform (doc/sim.md).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "exp.h"

/* Same kernel as examples/histo.bwk (tests check they agree). */
const char exp_histo_bwk[] =
	"bwk 1\n"
	"kernel histo\n"
	"blocks 37627\n"
	"concurrency 8\n"
	"period_ns 1000000\n"
	"cluster 0 e0=1700 e1=3690\n"
	"cluster 1 e0=2500 e1=6520\n"
	"cluster 2 e0=3300 e1=8830\n"
	"interval 0 0\n" "interval 4000 1\n" "interval 6000 0\n"
	"interval 11000 2\n" "interval 12500 1\n" "interval 15000 0\n"
	"interval 19000 2\n" "interval 21000 1\n" "interval 24000 0\n"
	"interval 27000 2\n" "interval 28627 1\n" "interval 30627 0\n"
	"interval 34627 2\n" "interval 36127 1\n";

/* ---- TFS period shares ---- */

void
exp_tfs_default(struct exp_tfs_args *a)
{
	a->rho = 0;
	a->periods = 1000;
	/* BWLOCK++ Fig. 4: the memory task is throttled a third of the way
	 * into each period; that also gives the measured 75/25 under CFS */
	a->budget_frac = 1.0 / 3;
	a->seed = 1;
}

struct exp_tfs_rec {
	FILE		*csv;
	uint64_t	 throttled;	/* periods with throttling */
};

static void
exp_tfs_period(void *arg, const struct sim *s, uint64_t period)
{
	struct exp_tfs_rec *r = arg;
	const struct sim_core *c = &s->core[0];

	if (r->csv == NULL)
		return;
	/* periods counted so far include this one (counted at reset) */
	fprintf(r->csv, "%llu,%s,%.0f,%.0f,%.0f,%.0f,%llu,%llu\n",
	    (unsigned long long)period,
	    c->task[1].ran_ns > c->task[0].ran_ns ? "mem" : "cpu",
	    c->task[1].vruntime, c->task[0].vruntime, c->delta, c->used,
	    (unsigned long long)(c->task[1].periods +
	    (c->task[1].ran_ns > 0)),
	    (unsigned long long)(c->task[0].periods +
	    (c->task[0].ran_ns > 0)));
}

int
exp_tfs(const struct exp_tfs_args *a, FILE *csv, struct exp_tfs_result *o)
{
	struct sim_config cfg;
	struct sim	*s;
	struct exp_tfs_rec rec = { csv, 0 };
	uint64_t	 k[SIM_MAX_CORES];
	int		 rc;

	if (a->periods < 1 || !(a->budget_frac > 0 && a->budget_frac <= 1))
		return -EINVAL;
	sim_config_default(&cfg);
	cfg.ncores = 1;
	cfg.bwmax_events = 20000;	/* one TX2 core, [DynBW] section 4.5 */
	cfg.rho = a->rho;
	cfg.seed = a->seed;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return -ENOMEM;
	if ((rc = sim_init(s, &cfg)) != 0)
		goto out;
	/* cpu first: BWLOCK++ Fig. 4 starts with it */
	sim_add_task(s, 0, "cpu", 0.01 * 20);	/* 1 % of the core's max */
	sim_add_task(s, 0, "mem", SIM_MEM);
	k[0] = (uint64_t)floor(cfg.bwmax_events * a->budget_frac);
	sim_lock(s, k);		/* the RT task holds the lock throughout */
	s->on_period = exp_tfs_period;
	s->on_period_arg = &rec;
	if (csv != NULL)
		fprintf(csv, "period,task,mem_vruntime_ns,cpu_vruntime_ns,"
		    "throttled_ns,events,mem_runs,cpu_runs\n");
	sim_run_until(s, (double)a->periods * (double)cfg.period_ns);
	o->cpu_periods = s->core[0].task[0].periods;
	o->mem_periods = s->core[0].task[1].periods;
	o->throttled_ns = (uint64_t)llround(s->core[0].throttled_ns);
	o->mem_vruntime = s->core[0].task[1].vruntime;
	o->cpu_vruntime = s->core[0].task[0].vruntime;
	o->mem_events = s->core[0].task[1].events;
	o->cpu_runtime = s->core[0].task[0].runtime;
out:
	sim_free(s);
	free(s);
	return rc;
}

/* ---- shared: a profile on the model ---- */

struct exp_kernel {
	struct wcet_kernel	wk;
	struct progress_table	pt;
	struct budget_nominal	nom;
};

static int
exp_kernel_init(struct exp_kernel *k, const struct profile *p,
    double slowdown, double bwmax, double overhead)
{
	int	rc;

	if ((rc = profile_to_model(p, &k->wk, &k->pt)) != 0)
		return rc;
	return budget_nominal(&k->wk, k->pt.n, slowdown, bwmax, overhead,
	    &k->nom);
}

static int
exp_default_profile(struct profile *p)
{
	char	err[128];

	return profile_parse(exp_histo_bwk, strlen(exp_histo_bwk), p, err,
	    sizeof(err));
}

/* The kernel, platform and profile of one run: the given profile or the
 * built-in histo.  Returns 0 or an error; exp_release() frees. */
static int
exp_alloc(const struct profile *in, struct exp_kernel **k, struct sim **s,
    struct profile **p)
{
	if ((*k = calloc(1, sizeof(**k))) == NULL ||
	    (*s = calloc(1, sizeof(**s))) == NULL ||
	    (*p = calloc(1, sizeof(**p))) == NULL)
		return -ENOMEM;
	if (in != NULL) {
		**p = *in;
		return 0;
	}
	return exp_default_profile(*p);
}

static void
exp_release(struct exp_kernel *k, struct sim *s, struct profile *p)
{
	if (s != NULL)
		sim_free(s);
	free(s);
	free(k);
	free(p);
}

/* ---- throttle time ---- */

void
exp_throttle_default(struct exp_throttle_args *a)
{
	a->rho = 0;
	a->launches = 200;
	a->q = -1;
	a->seed = 1;
	a->ncores = 3;
	a->profile = NULL;
}

static void
exp_throttle_period(void *arg, const struct sim *s, uint64_t period)
{
	FILE		*csv = arg;
	double		 th = 0;
	unsigned int	 i;

	for (i = 0; i < s->cfg.ncores; i++)
		th += s->core[i].delta;
	fprintf(csv, "%llu,%d,%.0f\n", (unsigned long long)period, s->locked,
	    th);
}

int
exp_throttle(const struct exp_throttle_args *a, FILE *csv,
    struct exp_throttle_result *o)
{
	struct sim_config cfg;
	struct decide_config dc;
	struct profile	*p = NULL;
	struct exp_kernel *k = NULL;
	struct sim	*s = NULL;
	uint64_t	 ev[SIM_MAX_CORES], n;
	unsigned int	 i, j;
	double		 t0;
	int		 rc = -ENOMEM;

	if (a->launches < 1 || a->ncores < 1 || a->ncores > SIM_MAX_CORES ||
	    a->q > 1)
		return -EINVAL;
	if ((rc = exp_alloc(a->profile, &k, &s, &p)) != 0)
		goto out;
	sim_config_default(&cfg);
	cfg.ncores = a->ncores;
	cfg.bwmax_events = 20000.0 * a->ncores;
	cfg.rho = a->rho;
	cfg.seed = a->seed;
	if ((rc = exp_kernel_init(k, p, BUDGET_DEFAULT_SLOWDOWN,
	    cfg.bwmax_events, 0)) != 0 || (rc = sim_init(s, &cfg)) != 0 ||
	    (rc = sim_gpu_load(s, &k->wk, &k->pt)) != 0)
		goto out;
	for (i = 0; i < cfg.ncores; i++) {
		sim_add_task(s, i, "cpu", 0.2);
		sim_add_task(s, i, "mem", SIM_MEM);
	}
	dc.bwmax_events = cfg.bwmax_events;
	dc.overhead_events = 0;
	dc.ncores = cfg.ncores;
	dc.smooth_a = BUDGET_DEFAULT_SMOOTH_A;
	o->q = a->q >= 0 ? a->q : k->nom.q;
	for (i = 0; i < cfg.ncores; i++)
		ev[i] = decide_core_events(&dc, o->q);
	if (csv != NULL) {
		fprintf(csv, "period,locked,throttled_ns\n");
		s->on_period = exp_throttle_period;
		s->on_period_arg = csv;
	}
	o->locked_ns = 0;
	/* BWLOCK++ section 6.5: the GPU task runs its kernel back to back,
	 * at a random phase in the period, holding the lock while it runs */
	for (n = 0; n < a->launches; n++) {
		sim_run_until(s, s->now +
		    sim_random(s) * (double)cfg.period_ns);
		t0 = s->now;
		sim_gpu_launch(s, 1, ev);
		while (sim_run_until(s, s->now + 1e9) != SIM_RUN_KERNEL_DONE)
			;
		o->locked_ns += (uint64_t)llround(s->now - t0);
	}
	/* finish the period so its throttling is counted with it */
	sim_run_until(s, s->next_boundary);
	o->periods = s->stats.periods;
	o->throttled_ns = 0;
	o->mem_events = o->cpu_runtime = o->mem_runtime = 0;
	for (i = 0; i < cfg.ncores; i++) {
		o->throttled_ns += (uint64_t)llround(s->core[i].throttled_ns);
		for (j = 0; j < s->core[i].ntasks; j++) {
			if (j == 0)
				o->cpu_runtime += s->core[i].task[j].runtime;
			else {
				o->mem_events += s->core[i].task[j].events;
				o->mem_runtime += s->core[i].task[j].runtime;
			}
		}
	}
	rc = 0;
out:
	exp_release(k, s, p);
	return rc;
}

/* ---- dynamic budgets ---- */

void
exp_budgets_default(struct exp_budgets_args *a)
{
	memset(a, 0, sizeof(*a));
	a->policy = DECIDE_NOMINAL;
	a->launches = 1000;
	a->seed = 1;
	a->ncores = 3;
	a->bwmax_events = 60000;
	a->overhead_events = 0;
	a->slowdown = BUDGET_DEFAULT_SLOWDOWN;
	a->smooth_a = BUDGET_DEFAULT_SMOOTH_A;
	a->lead_ns = 50000;
	a->speed = SIM_SPEED_LINEAR;
	a->jitter = 0.1;
	a->step_ns = 10000;
	a->csv_launches = 0;
	a->mixed = 0;
	a->rho = 0;
	a->plan_len = 1;
	a->late_p = 0;
	a->late_ns = 0;
	a->queued = 1;
	a->gpu_start = 0;
}

/* Running sums for the Q statistics. */
struct exp_qstat {
	double		sum, sum2;
	uint64_t	n;
	uint64_t	dyn;	/* above Q-bar */
};

static void
exp_qstat_add(struct exp_qstat *q, double v, double qbar)
{
	q->sum += v;
	q->sum2 += v * v;
	q->n++;
	q->dyn += v > qbar + 1e-9;
}

struct exp_budgets_state {
	struct sim		*s;
	struct exp_kernel	*k;
	const struct exp_budgets_args *a;
	struct decide_config	 dc;
	struct progress_scan	 scan[2];
	struct decide_kernel	 dk[2];	/* [1]: the queued one */
	struct decide_holder	 h;
	uint64_t		*none;		/* a bitmap of no progress */
	unsigned int		 which;		/* kernel on the GPU */
	uint64_t		 static_ev[SIM_MAX_CORES];
	struct exp_qstat	*qs, qs2;
	FILE			*csv;		/* or NULL */
	uint64_t		 launch_no;
	uint64_t		 kinds[SIM_BUDGET_FAILSAFE + 1];
};

/* The daemon's period thread, woken at s->now: a plan for the first
 * period that begins after now. */
static int
exp_budgets_decide(struct exp_budgets_state *st)
{
	const struct exp_budgets_args *a = st->a;
	struct decide_input	in;
	struct decide_output	out;
	struct sim_plan		p;
	struct sim		*s = st->s;
	unsigned int		j, c;

	memset(&in, 0, sizeof(in));
	in.holders = &st->h;
	in.nholders = 1;
	in.policy = a->policy;
	in.period = s->period + 1;
	in.period_start_ns = (uint64_t)s->next_boundary;
	in.cfg = &st->dc;
	in.plan_len = a->plan_len;
	if (decide(&in, &out) != 0)
		return -1;
	if (a->policy == DECIDE_SMOOTH)
		for (j = 0; j < st->h.nkernels; j++)
			st->h.kernels[j].prev_q = st->h.kernels[j].out.q;
	memset(&p, 0, sizeof(p));
	p.first = in.period;
	p.len = out.plan_len;
	for (j = 0; j < p.len; j++) {
		p.q[j] = out.plan_q[j];
		for (c = 0; c < s->cfg.ncores; c++)
			p.events[j][c] = out.plan_events[j][c];
	}
	return sim_apply_plan(s, &p);
}

static void
exp_budgets_launch(struct exp_budgets_state *st)
{
	struct sim	*s = st->s;
	unsigned int	 i;

	for (i = 0; i < st->a->queued; i++) {
		progress_scan_reset(&st->scan[i]);
		st->dk[i].launch_ns = (uint64_t)s->now;
		st->dk[i].prev_q = -1;
		st->dk[i].bitmap = i == 0 ? s->gpu.bitmap : st->none;
	}
	st->h.kernels = st->dk;
	st->h.nkernels = st->a->queued;
	st->which = 0;
	sim_gpu_launch(s, 1, st->static_ev);
}

/*
 * The first kernel ended: the queued one starts on the GPU now.  Its
 * start as the daemon would take it: the CPU launch time, or the GPU
 * start through the same rule (the sim's GPU clock is its own, so the
 * calibration is exact).
 */
static void
exp_budgets_start_queued(struct exp_budgets_state *st)
{
	static const struct decide_gpuclock exact = { 0, 0 };
	struct sim	*s = st->s;
	struct decide_kernel *k = &st->dk[1];

	sim_gpu_launch(s, 1, st->static_ev);
	progress_scan_reset(&st->scan[1]);
	k->bitmap = s->gpu.bitmap;
	if (st->a->gpu_start)
		k->launch_ns = decide_start_ns(k->launch_ns,
		    (uint64_t)s->now, &exact, (uint64_t)s->now);
	st->h.kernels = k;
	st->h.nkernels = 1;
	st->which = 1;
}

/* At each boundary: the Q that governed the period that ended, for a
 * period the kernel ran in. */
static void
exp_budgets_period(void *arg, const struct sim *s, uint64_t period)
{
	struct exp_budgets_state *st = arg;
	double			q;

	if (!s->gpu.running)
		return;
	q = s->cur_q >= 0 ? s->cur_q : st->k->nom.q;
	exp_qstat_add(st->qs, q, st->k->nom.q);
	if (st->which == 1)
		exp_qstat_add(&st->qs2, q, st->k->nom.q);
	st->kinds[s->cur_kind]++;
	if (st->csv != NULL)
		fprintf(st->csv, "%llu,%llu,%.0f,%.6f\n",
		    (unsigned long long)st->launch_no,
		    (unsigned long long)period, s->now - s->gpu.launch, q);
}

/* When the next decision wakes: lead before the boundary after `after`,
 * sometimes late; never before now. */
static double
exp_budgets_wake(struct exp_budgets_state *st, double boundary)
{
	const struct exp_budgets_args *a = st->a;
	struct sim	*s = st->s;
	double		w = boundary - (double)a->lead_ns;

	if (a->late_p > 0 && sim_random(s) < a->late_p)
		w += sim_random(s) * (double)a->late_ns;
	return w > s->now ? w : s->now;
}

/* One launch: the response time of each kernel from its real start
 * (ns) into rt[0..queued-1]. */
static void
exp_budgets_one(struct exp_budgets_state *st, double *rt)
{
	struct sim	*s = st->s;
	double		 wake, next = s->next_boundary;

	exp_budgets_launch(st);
	for (;;) {
		wake = exp_budgets_wake(st, next);
		if (sim_run_until(s, wake) == SIM_RUN_KERNEL_DONE) {
			rt[st->which] = s->gpu.finish - s->gpu.launch;
			if (st->which + 1 >= st->a->queued)
				break;
			exp_budgets_start_queued(st);
			continue;
		}
		if (exp_budgets_decide(st) < 0)
			break;
		/* the next decision is for the period after this plan's
		 * first one */
		next = s->next_boundary + (double)s->cfg.period_ns;
		if (next - (double)st->a->lead_ns <= s->now)
			next = s->next_boundary;
	}
}

static double
exp_be_events(const struct sim *s)
{
	double		e = 0;
	unsigned int	i;

	for (i = 0; i < s->cfg.ncores; i++)
		e += s->core[i].events;
	return e;
}

/* CPU time of the BE tasks, all of them or those named name. */
static double
exp_be_runtime(const struct sim *s, const char *name)
{
	double		t = 0;
	unsigned int	i, j;

	for (i = 0; i < s->cfg.ncores; i++)
		for (j = 0; j < s->core[i].ntasks; j++)
			if (name == NULL ||
			    strcmp(s->core[i].task[j].name, name) == 0)
				t += s->core[i].task[j].runtime;
	return t;
}

/*
 * The BE work: a hog per core, a cpu and a mem task per core (mixed), or
 * one task per core at given fractions of the core's maximum.
 */
static void
exp_be_tasks(struct sim *s, const struct exp_budgets_args *a)
{
	unsigned int	i;
	double		f;

	for (i = 0; i < s->cfg.ncores; i++) {
		if (a->mixed) {
			/* the cores' traffic no longer starts and stops
			 * together, so u takes values between 0 and 1 */
			sim_add_task(s, i, "cpu", 0.01 * s->core_max * 1000);
			sim_add_task(s, i, "mem", SIM_MEM);
		} else if (a->be_nfrac > 0) {
			f = a->be_frac[i % a->be_nfrac];
			sim_add_task(s, i, f >= 1 ? "mem" : "be", f >= 1 ?
			    SIM_MEM : f * s->core_max * 1000);
		} else
			sim_add_task(s, i, "mem", SIM_MEM);
	}
}

int
exp_budgets(const struct exp_budgets_args *a, FILE *csv,
    struct exp_budgets_result *o)
{
	struct sim_config cfg;
	struct exp_budgets_state st;
	struct exp_qstat qs = { 0, 0, 0, 0 };
	struct exp_kernel *k = NULL;
	struct sim	*s = NULL;
	double		 rt[2], ratio, ev = 0, tsum = 0, rsum = 0, e0, r0, c0;
	double		 run = 0, cpu = 0, t2sum = 0;
	uint64_t	 n, nk;
	unsigned int	 i, j;
	int		 rc = -ENOMEM;

	if (a->profile == NULL || a->launches < 1 || a->ncores < 1 ||
	    a->ncores > SIM_MAX_CORES || a->lead_ns < 1 ||
	    a->plan_len < 1 || a->plan_len > SIM_PLAN_MAX ||
	    a->queued < 1 || a->queued > 2 ||
	    !(a->late_p >= 0 && a->late_p <= 1) ||
	    !(a->bwmax_events > 0) || !(a->overhead_events >= 0) ||
	    !(a->smooth_a > 0 && a->smooth_a <= 1) || !(a->rho >= 0) ||
	    a->be_nfrac > SIM_MAX_CORES)
		return -EINVAL;
	for (i = 0; i < a->be_nfrac; i++)
		if (!(a->be_frac[i] >= 0 && a->be_frac[i] <= 1))
			return -EINVAL;
	memset(o, 0, sizeof(*o));
	memset(&st, 0, sizeof(st));
	if ((k = calloc(1, sizeof(*k))) == NULL ||
	    (s = calloc(1, sizeof(*s))) == NULL)
		goto out;
	sim_config_default(&cfg);
	cfg.period_ns = a->profile->period_ns;
	cfg.tick_ns = cfg.period_ns;
	cfg.ncores = a->ncores;
	cfg.bwmax_events = a->bwmax_events;
	cfg.seed = a->seed;
	cfg.speed = a->speed;
	cfg.jitter = a->jitter;
	cfg.step_ns = a->step_ns;
	cfg.rho = a->rho;
	rc = -EINVAL;
	if (a->lead_ns >= cfg.period_ns ||
	    exp_kernel_init(k, a->profile, a->slowdown, a->bwmax_events,
	    a->overhead_events) != 0 || sim_init(s, &cfg) != 0)
		goto out;
	if ((rc = sim_gpu_load(s, &k->wk, &k->pt)) != 0)
		goto out;
	exp_be_tasks(s, a);
	st.s = s;
	st.k = k;
	st.a = a;
	st.qs = &qs;
	s->on_period = exp_budgets_period;
	s->on_period_arg = &st;
	st.dc.bwmax_events = a->bwmax_events;
	st.dc.overhead_events = a->overhead_events;
	st.dc.ncores = a->ncores;
	st.dc.smooth_a = a->smooth_a;
	for (i = 0; i < cfg.ncores; i++)
		st.static_ev[i] = decide_core_events(&st.dc, k->nom.q);
	rc = -ENOMEM;
	if ((st.none = calloc(s->gpu.nwords, sizeof(*st.none))) == NULL)
		goto out;
	for (j = 0; j < 2; j++) {
		st.dk[j].wk = &k->wk;
		st.dk[j].pt = &k->pt;
		st.dk[j].bitmap = s->gpu.bitmap;
		st.dk[j].nwords = s->gpu.nwords;
		st.dk[j].window = k->wk.m;
		st.dk[j].qnom = k->nom.q;
		st.dk[j].bound_ns = k->nom.wcet;
		st.dk[j].scan = &st.scan[j];
	}
	st.h.qbar = k->nom.q;
	st.h.has_progress = 1;
	st.h.nkernels = 1;
	st.h.kernels = st.dk;
	if (csv != NULL)
		fprintf(csv, "launch,period,since_launch_ns,q\n");
	o->max_ratio = 0;
	for (n = 0; n < a->launches; n++) {
		/* sync = 0: launch at a random phase of the period */
		sim_run_until(s, s->now + (0.5 + sim_random(s)) *
		    (double)cfg.period_ns);
		e0 = exp_be_events(s);
		r0 = exp_be_runtime(s, NULL);
		c0 = exp_be_runtime(s, "cpu");
		st.launch_no = n;
		st.csv = a->csv_launches == 0 || n < a->csv_launches ? csv :
		    NULL;
		exp_budgets_one(&st, rt);
		ev += exp_be_events(s) - e0;
		run += exp_be_runtime(s, NULL) - r0;
		cpu += exp_be_runtime(s, "cpu") - c0;
		for (j = 0; j < a->queued; j++) {
			ratio = rt[j] / (double)k->nom.wcet;
			if (rt[j] > (double)k->nom.wcet)
				o->over_bound++;
			if (ratio > o->max_ratio)
				o->max_ratio = ratio;
			tsum += rt[j];
			rsum += ratio;
		}
		if (a->queued == 2)
			t2sum += rt[1];
	}
	nk = a->launches * a->queued;
	o->launches = nk;
	o->be_events = ev / (double)a->launches;
	o->be_run_ns = run / (double)a->launches;
	o->cpu_run_ns = cpu / (double)a->launches;
	o->mean_ns = tsum / (double)nk;
	o->mean_ratio = rsum / (double)nk;
	o->dyn_periods = qs.dyn;
	o->periods2 = st.qs2.n;
	o->dyn_periods2 = st.qs2.dyn;
	o->q2_mean = st.qs2.n > 0 ? st.qs2.sum / (double)st.qs2.n : 0;
	o->mean2_ns = a->queued == 2 ? t2sum / (double)a->launches : 0;
	o->q_mean = qs.sum / (double)qs.n;
	o->q_std = sqrt(fmax(0, qs.sum2 / (double)qs.n -
	    o->q_mean * o->q_mean));
	o->qnom = k->nom.q;
	o->bound_ns = k->nom.wcet;
	o->wcet0_ns = k->nom.wcet0;
	o->periods = qs.n;
	o->fallbacks = s->stats.fallbacks;
	o->plan_first = st.kinds[SIM_BUDGET_PLAN_FIRST];
	o->plan_ahead = st.kinds[SIM_BUDGET_PLAN_AHEAD];
	o->static_periods = st.kinds[SIM_BUDGET_STATIC] +
	    st.kinds[SIM_BUDGET_FAILSAFE];
	rc = 0;
out:
	free(st.none);
	if (s != NULL)
		sim_free(s);
	free(s);
	free(k);
	return rc;
}

/* ---- protection: BWLOCK++ section 6.4, Fig. 9 ---- */

void
exp_protect_default(struct exp_protect_args *a)
{
	memset(a, 0, sizeof(*a));
	a->scenario = EXP_SOLO;
	a->q = -1;
	a->launches = 1000;
	a->seed = 1;
	a->ncores = 3;
	a->bwmax_events = 60000;
	a->jitter = 0.1;
}

/* The platform of exp_budgets, with hogs unless solo. */
static int
exp_protect_setup(const struct exp_protect_args *a, const struct profile *p,
    struct exp_kernel *k, struct sim *s)
{
	struct sim_config cfg;
	unsigned int	i;
	int		rc;

	sim_config_default(&cfg);
	cfg.period_ns = p->period_ns;
	cfg.tick_ns = cfg.period_ns;
	cfg.ncores = a->ncores;
	cfg.bwmax_events = a->bwmax_events;
	cfg.seed = a->seed;
	cfg.jitter = a->jitter;
	if ((rc = exp_kernel_init(k, p, BUDGET_DEFAULT_SLOWDOWN,
	    a->bwmax_events, 0)) != 0 || (rc = sim_init(s, &cfg)) != 0)
		return rc;
	if ((rc = sim_gpu_load(s, &k->wk, &k->pt)) != 0)
		return rc;
	if (a->scenario != EXP_SOLO)
		for (i = 0; i < cfg.ncores; i++)
			sim_add_task(s, i, "mem", SIM_MEM);
	return 0;
}

int
exp_protect(const struct exp_protect_args *a, struct exp_protect_result *o)
{
	struct decide_config dc;
	struct profile	*p = NULL;
	struct exp_kernel *k = NULL;
	struct sim	*s = NULL;
	uint64_t	 ev[SIM_MAX_CORES], n;
	unsigned int	 i;
	double		 rt, e0, ev_sum = 0, t_sum = 0;
	int		 rc = -ENOMEM;

	if (a->launches < 1 || a->ncores < 1 || a->ncores > SIM_MAX_CORES ||
	    !(a->bwmax_events > 0) || a->q > 1 || a->scenario > EXP_LOCKED)
		return -EINVAL;
	memset(o, 0, sizeof(*o));
	if ((rc = exp_alloc(a->profile, &k, &s, &p)) != 0 ||
	    (rc = exp_protect_setup(a, p, k, s)) != 0)
		goto out;
	o->qnom = k->nom.q;
	o->q = a->scenario == EXP_LOCKED ? (a->q >= 0 ? a->q : k->nom.q) :
	    a->scenario == EXP_CORUN ? 1.0 : 0.0;
	dc.bwmax_events = a->bwmax_events;
	dc.overhead_events = 0;
	dc.ncores = a->ncores;
	dc.smooth_a = BUDGET_DEFAULT_SMOOTH_A;
	for (i = 0; i < a->ncores; i++)
		ev[i] = decide_core_events(&dc, o->q);
	o->bound_ns = wcet_bound(&k->wk, k->pt.n, o->q, 0);
	o->wcet0_ns = k->nom.wcet0;
	for (n = 0; n < a->launches; n++) {
		/* a random phase, as in the budget experiments */
		sim_run_until(s, s->now + (0.5 + sim_random(s)) *
		    (double)p->period_ns);
		e0 = exp_be_events(s);
		sim_gpu_launch(s, a->scenario == EXP_LOCKED, ev);
		while (sim_run_until(s, s->now + 1e9) != SIM_RUN_KERNEL_DONE)
			;
		rt = s->gpu.finish - s->gpu.launch;
		ev_sum += exp_be_events(s) - e0;
		t_sum += rt;
		if (rt > o->max_ns)
			o->max_ns = rt;
		if (rt > (double)o->bound_ns)
			o->over_bound++;
	}
	o->launches = a->launches;
	o->mean_ns = t_sum / (double)a->launches;
	o->be_events = ev_sum / (double)a->launches;
	rc = 0;
out:
	exp_release(k, s, p);
	return rc;
}
