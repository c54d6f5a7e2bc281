/*
 * test_period.c - the period engine against a fake clock and a fake
 * regulator backend that follows the backends' plan rule
 * (regulator.h): plans carry the period they start at, a late wake-up
 * plans for the next period it can still reach and is counted, the
 * periods in between run on the previous plan's look-ahead entries, the
 * lead adapts to the lateness, no holder means no plan (unregulated), a
 * holder without progress gets its static Q-bar, several holders the
 * smallest Q, lock slots are accounted with their launch counts,
 * running launches are read from their progress pages (validated) and
 * every finished launch is reported once.
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "monoclock.h"
#include "period.h"

#include "../check.h"

#define T	1000000ull	/* period */
#define LEAD	50000ull
#define NCORES	3
#define BWMAX	60000.0
#define OVH	470.0

/* ---- fake clock and backend -------------------------------------- */

static uint64_t	fake_now;
static int64_t	next_late;	/* added to the next wake-up */
static uint64_t	kick_at;	/* a kick then wakes the next sleep */
static void	(*on_kick)(void);	/* what the loop did before it */

static uint64_t
fc_now(void *arg)
{
	return fake_now;
}

static int
fc_sleep(void *arg, uint64_t t)
{
	if (kick_at != 0 && kick_at < t) {
		if (kick_at > fake_now)
			fake_now = kick_at;
		kick_at = 0;
		if (on_kick != NULL)
			on_kick();
		return 1;
	}
	if (t > fake_now)
		fake_now = t;
	fake_now += (uint64_t)next_late;
	next_late = 0;
	return 0;
}

static const struct period_clock	fclock = { fc_now, fc_sleep, NULL };

#define FR_PERIODS	4096	/* periods the fake remembers */

enum fr_kind { FR_NONE, FR_STATIC, FR_FIRST, FR_AHEAD };

struct regulator {
	uint64_t	applies, last_period, heartbeats;
	unsigned int	last_len;
	uint64_t	events[REG_MAX_CORES];	/* last plan's entry 0 */
	struct reg_plan	plan[2];		/* the two newest */
	uint64_t	id[2];
	uint64_t	ids;
	uint64_t	gov_id, gov_period;
	uint64_t	decided;		/* periods decided so far */
	uint8_t		kind[FR_PERIODS];	/* what governed each */
	uint64_t	refused;
	struct reg_locks locks;
	uint64_t	lock_mask;		/* last plan's */
	uint64_t	static_gen;		/* set_static's generation */
	uint64_t	stale;			/* plans refused as stale */
};

static struct regulator	fr;

static bool	real_time;	/* the engine's own clock and thread */

static uint64_t
fr_now(void)
{
	return real_time ? monoclock_ns() : fake_now;
}

/* The backends' rule (regulator.h) for one period n. */
static void
fr_decide(struct regulator *r, uint64_t n)
{
	const struct reg_plan	*p;
	int			i, best = -1;
	uint64_t		newest = 0;
	bool			newest_refused = false;

	for (i = 0; i < 2; i++) {
		p = &r->plan[i];
		if (r->id[i] == 0 || n < p->first || n - p->first >= p->len)
			continue;
		if (r->id[i] > newest) {
			newest = r->id[i];
			newest_refused = false;
		}
		if (r->id[i] != r->gov_id && r->gov_id != 0 &&
		    r->gov_period >= p->first) {
			newest_refused |= r->id[i] == newest;
			continue;
		}
		if (best < 0 || r->id[i] > r->id[best])
			best = i;
	}
	r->refused += newest_refused;
	if (n >= FR_PERIODS)
		return;
	if (best < 0) {
		r->kind[n] = FR_STATIC;
		return;
	}
	r->kind[n] = n == r->plan[best].first ? FR_FIRST : FR_AHEAD;
	r->gov_id = r->id[best];
	r->gov_period = n;
}

/* Decide every period that has begun by now, with the plans so far. */
static void
fr_catch_up(struct regulator *r)
{
	uint64_t	cur = fr_now() / T;

	if (r->decided == 0)
		r->decided = cur;	/* nothing before the first look */
	while (r->decided <= cur)
		fr_decide(r, r->decided++);
}

static int
fr_clock(struct regulator *r, uint64_t *p, uint64_t *next)
{
	uint64_t	now = fr_now();

	*p = now / T;
	*next = (*p + 1) * T;
	return 0;
}

static int
fr_apply_plan(struct regulator *r, const struct reg_plan *p)
{
	int	i;

	if (p->len < 1 || p->len > REG_PLAN_MAX)
		return -22;
	if (p->gen < r->static_gen) {
		r->stale++;
		return -ESTALE;
	}
	if (!real_time)
		fr_catch_up(r);
	i = r->id[0] <= r->id[1] ? 0 : 1;
	r->plan[i] = *p;
	r->id[i] = ++r->ids;
	r->applies++;
	r->last_period = p->first;
	r->last_len = p->len;
	r->lock_mask = p->lock_mask;
	memcpy(r->events, p->events[0], sizeof(r->events));
	return 0;
}

static int
fr_heartbeat(struct regulator *r)
{
	r->heartbeats++;
	return 0;
}

static int
fr_locks(struct regulator *r, struct reg_locks *l)
{
	*l = r->locks;
	return 0;
}

static const struct regulator_ops	fops = {
	.name = "fake", .clock = fr_clock, .apply_plan = fr_apply_plan,
	.heartbeat = fr_heartbeat, .locks = fr_locks,
};

/* ---- fake holders -------------------------------------------------- */

static struct period_holder	holders[4];
static unsigned int		nholders, releases, snapshots;
static uint64_t			gen_now;
static int			change_after;	/* holders change mid-decision */

static void	set_holder(unsigned int, uint32_t, double, bool);

static unsigned int
src_snapshot(void *arg, struct period_holder *h, unsigned int max,
    uint64_t *gen)
{
	unsigned int	n = nholders < max ? nholders : max;

	snapshots++;
	memcpy(h, holders, n * sizeof(*h));
	*gen = gen_now;
	if (change_after) {
		/* another task takes the lock right after we looked; with
		 * 2 the loop also sets the new static budget at once */
		if (change_after == 2)
			fr.static_gen = gen_now + 1;
		change_after = 0;
		set_holder(nholders++, 9, 0.05, false);
		gen_now++;
	}
	return n;
}

static uint64_t
src_generation(void *arg)
{
	return gen_now;
}

static bool	no_task;

static bool
src_idle(void *arg)
{
	return __atomic_load_n(&no_task, __ATOMIC_ACQUIRE);
}

static void
src_release(void *arg)
{
	releases++;
}

/* A kernel of 4096 blocks, M = 4, two clusters: G(0) about 15 ms. */
#define NB	4096
static struct kernel		kern;
static struct progress_table	ktab;
static struct kernel		*kernp = &kern;

static void
make_kernel(void)
{
	static const uint32_t	first[] = { 0, 2048 };
	static const uint16_t	cl[] = { 0, 1 };
	struct budget_nominal	bn;

	kern.id = 7;
	kern.blocks = NB;
	kern.concurrency = 4;
	kern.nclusters = 2;
	kern.wk.nclusters = 2;
	kern.wk.m = 4;
	kern.wk.period = (double)T;
	kern.wk.c[0].e0 = 10000;
	kern.wk.c[0].e1 = 30000;
	kern.wk.c[1].e0 = 20000;
	kern.wk.c[1].e1 = 50000;
	CHECKM(wcet_prepare(&kern.wk) == 0, "wcet_prepare");
	CHECKM(progress_table_init(&ktab, NB, 2, 2, first, cl) == 0, "table");
	kern.pt = &ktab;
	CHECKM(budget_nominal(&kern.wk, ktab.n, 0.1, BWMAX, OVH, &bn) == 0,
	    "nominal");
	kern.q_nominal = bn.q;
	kern.wcet_ns = wcet_bound(&kern.wk, ktab.n, bn.q, 0);
}

/* A progress page with 2 slots of NB blocks. */
static size_t	pp_size;
static void	*pp;

static struct bwshm_launch *
slot(unsigned int i)
{
	return (struct bwshm_launch *)(void *)((char *)pp +
	    BWSHM_PROGRESS_HDR_SIZE + i * BWSHM_SLOT_SIZE(NB));
}

static void
make_page(void)
{
	struct bwshm_progress_hdr	*h;

	pp_size = BWSHM_PROGRESS_SIZE(2, NB);
	pp = aligned_alloc(64, pp_size);
	memset(pp, 0, pp_size);
	h = pp;
	h->magic = BWSHM_PROGRESS_MAGIC;
	h->version = BWSHM_LAYOUT_VERSION;
	h->nslots = 2;
	h->slot_size = BWSHM_SLOT_SIZE(NB);
	h->max_blocks = NB;
}

static void
launch(unsigned int i, uint32_t kernel, uint32_t nblocks, uint64_t at)
{
	struct bwshm_launch	*l = slot(i);

	l->seq++;
	l->kernel = kernel;
	l->stream = 1;
	l->launch_ns = at;
	l->nblocks = nblocks;
	memset(l->bitmap, 0, 8 * ((NB + 63) / 64));
	l->state = BWSHM_SLOT_RUNNING;
	l->seq++;
}

static void
finish(unsigned int i)
{
	slot(i)->seq++;
	slot(i)->state = BWSHM_SLOT_FREE;
	slot(i)->seq++;
}

static void
set_holder(unsigned int i, uint32_t task, double qbar, bool progress)
{
	memset(&holders[i], 0, sizeof(holders[i]));
	holders[i].task = task;
	holders[i].qbar = qbar;
	holders[i].lock_slot = -1;
	if (progress) {
		holders[i].pp = pp;
		holders[i].pp_size = pp_size;
		holders[i].nslots = 2;
		holders[i].nkernels = 1;
		holders[i].kernels = &kernp;
	}
}

/* ---- tests --------------------------------------------------------- */

/* The fakes, the fake clock, idle_ns of ten periods. */
static void
params(struct period_params *p, enum decide_policy pol)
{
	memset(p, 0, sizeof(*p));
	p->ops = &fops;
	p->reg = &fr;
	p->src.snapshot = src_snapshot;
	p->src.release = src_release;
	p->src.generation = src_generation;
	p->src.idle = src_idle;
	p->idle_ns = 10 * T;
	p->clock = &fclock;
	p->period_ns = T;
	p->lead_ns = LEAD;
	p->lead_min_ns = LEAD;
	p->lead_max_ns = T / 2;
	p->lead_adapt = false;
	p->plan_len = 4;
	p->ncores = NCORES;
	p->bwmax_events = BWMAX;
	p->overhead_events = OVH;
	p->smooth_a = 0.3;
	p->policy = pol;
	p->cpu = -1;
}

static struct period *
engine_notify(enum decide_policy pol, void (*notify)(void *))
{
	struct period_params	p;
	struct period		*pe;
	char			err[128];

	params(&p, pol);
	p.notify = notify;
	pe = period_new(&p, err, sizeof(err));
	CHECKM(pe != NULL, "period_new: %s", err);
	memset(&fr, 0, sizeof(fr));
	nholders = 0;
	return pe;
}

static struct period *
engine(enum decide_policy pol)
{
	return engine_notify(pol, NULL);
}

static uint64_t
events(double q)
{
	struct decide_config	c = { BWMAX, OVH, NCORES, 0.3 };

	return decide_core_events(&c, q);
}

static void
last_record(struct period *pe, struct ring_period *out)
{
	struct ring_period	r;
	int			n = 0;

	while (ring_pop(period_records(pe), &r) == 1) {
		*out = r;
		n++;
	}
	CHECKM(n > 0, "no period record");
}

static void
test_tagging(void)
{
	struct period		*pe = engine(DECIDE_GREEDY);
	struct period_stats	st;
	struct ring_period	r;

	fake_now = 10 * T + T / 3;
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	CHECKM(period_run_once(pe) == 0, "run");
	CHECKM(fr.applies == 1 && fr.last_period == 11 && fr.last_len == 4,
	    "first plan from period 11, got %llu",
	    (unsigned long long)fr.last_period);
	CHECKM(fake_now == 11 * T - LEAD, "woke lead before the boundary");
	/* still in period 10: the next plan starts at 12 */
	CHECKM(period_run_once(pe) == 0, "run");
	CHECKM(fr.last_period == 12 && fake_now == 12 * T - LEAD,
	    "second plan from period 12 at its lead");
	last_record(pe, &r);
	CHECKM(r.period == 12 && r.late == 0 && r.holders == 1 &&
	    r.plan_len == 4 && r.lead_ns == LEAD, "record: period %llu",
	    (unsigned long long)r.period);
	CHECKM(fr.heartbeats == 2 && snapshots == releases,
	    "heartbeat each period, every snapshot released");
	period_stats(pe, &st);
	CHECKM(st.periods == 2 && st.applied == 2 && st.late == 0 &&
	    st.plan_len == 4, "stats");
	/* no holder: no plan, the static budget (unlimited) stands */
	nholders = 0;
	CHECKM(period_run_once(pe) == 0 && fr.applies == 2, "no holder");
	last_record(pe, &r);
	CHECKM(r.q == -1 && r.holders == 0, "unregulated record");
	period_free(pe);
}

static void
test_late(void)
{
	struct period		*pe = engine(DECIDE_GREEDY);
	struct period_stats	st;
	struct ring_period	r;

	fake_now = 5 * T;
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	next_late = (int64_t)LEAD + 1000;	/* wakes after the boundary */
	CHECKM(period_run_once(pe) == 0, "run");
	CHECKM(fr.applies == 1 && fr.last_period == 7,
	    "late: plans from the next period it can reach, %llu",
	    (unsigned long long)fr.last_period);
	period_stats(pe, &st);
	CHECKM(st.late == 1 && st.applied == 1, "late counted");
	CHECKM(st.lateness_max_ns >= 1000 + LEAD, "lateness recorded: %llu",
	    (unsigned long long)st.lateness_max_ns);
	last_record(pe, &r);
	CHECKM(r.late == 1 && r.period == 7, "late record for period 7");
	/* now in period 6: the next plan is for 8, in time */
	CHECKM(period_run_once(pe) == 0, "run");
	CHECKM(fr.applies == 2 && fr.last_period == 8, "in time for 8");
	/* a wake-up just before the boundary, too close to decide in
	 * time: the plan skips to the period after */
	next_late = (int64_t)LEAD - 5000;
	CHECKM(period_run_once(pe) == 0, "run");
	CHECKM(fr.last_period == 10, "too close: skipped to 10, %llu",
	    (unsigned long long)fr.last_period);
	period_stats(pe, &st);
	CHECKM(st.late == 2, "second late counted");
	nholders = 0;
	period_free(pe);
}

/*
 * Late wake-ups in chosen patterns with look-ahead: once the first plan
 * is in, every period runs on some plan's entry, the backend never has
 * to refuse one (the engine never plans for a period it cannot reach),
 * and without look-ahead the same pattern leaves periods on static.
 */
static unsigned int
pattern_run(unsigned int plan_len, const int64_t *late, unsigned int n,
    unsigned int *statics)
{
	struct period_params	p;
	struct period		*pe;
	char			err[128];
	unsigned int		i, dyn = 0;
	uint64_t		from, to;

	params(&p, DECIDE_SMOOTH);
	p.plan_len = plan_len;
	pe = period_new(&p, err, sizeof(err));
	CHECKM(pe != NULL, "period_new: %s", err);
	memset(&fr, 0, sizeof(fr));
	fake_now = 300 * T + T / 2;
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	for (i = 0; i < n; i++) {
		next_late = late[i];
		period_run_once(pe);
	}
	fr_catch_up(&fr);
	from = 302;
	to = fr.decided;
	*statics = 0;
	for (i = (unsigned int)from; i < to; i++) {
		dyn += fr.kind[i] == FR_FIRST || fr.kind[i] == FR_AHEAD;
		*statics += fr.kind[i] == FR_STATIC;
	}
	CHECKM(fr.refused == 0, "a plan was refused (%llu)",
	    (unsigned long long)fr.refused);
	nholders = 0;
	period_free(pe);
	return dyn;
}

static void
test_lookahead_patterns(void)
{
	static const int64_t	every_other[] = { 0, 1500000, 0, 1500000,
		0, 1500000, 0, 1500000, 0, 1500000, 0, 1500000 };
	static const int64_t	bursts[] = { 0, 0, 2600000, 0, 2850000,
		0, 0, 0, 2900000, 100000, 0, 0 };
	unsigned int		dyn, st;

	dyn = pattern_run(4, every_other, 12, &st);
	CHECKM(st == 0 && dyn > 10, "every other late, L=4: %u static, %u "
	    "dynamic", st, dyn);
	dyn = pattern_run(1, every_other, 12, &st);
	CHECKM(st > 0, "every other late, L=1: %u static", st);
	dyn = pattern_run(4, bursts, 12, &st);
	CHECKM(st == 0 && dyn > 10, "bursts of 3 periods, L=4: %u static",
	    st);
	dyn = pattern_run(2, bursts, 12, &st);
	CHECKM(st > 0, "bursts of 3 periods, L=2: %u static", st);
}

/*
 * The lead follows the lateness: up when most wake-ups would miss, down
 * when they calm, and not up for a rare long one (look-ahead covers it
 * for less than a lead that long would cost every period).
 */
static void
test_lead(void)
{
	struct period_params	p;
	struct period		*pe;
	struct period_stats	st;
	char			err[128];
	uint64_t		raised;
	int			i;

	params(&p, DECIDE_GREEDY);
	p.lead_adapt = true;
	p.lead_min_ns = 20000;
	pe = period_new(&p, err, sizeof(err));
	CHECKM(pe != NULL, "period_new: %s", err);
	memset(&fr, 0, sizeof(fr));
	fake_now = 400 * T;
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	for (i = 0; i < 128; i++) {
		next_late = 120000;
		period_run_once(pe);
	}
	period_stats(pe, &st);
	raised = st.lead_ns;
	CHECKM(raised >= 120000 && raised < T / 2, "raised: %llu",
	    (unsigned long long)raised);
	/* the cost is this thread's real CPU time: only relative checks */
	for (i = 0; i < 600; i++) {
		next_late = i % 50 == 0 ? 800000 : 5000;
		period_run_once(pe);
	}
	period_stats(pe, &st);
	CHECKM(st.lead_ns < raised - 40000 && st.lead_ns >= 20000,
	    "lowered, 2 %% long wake-ups ignored: %llu from %llu",
	    (unsigned long long)st.lead_ns, (unsigned long long)raised);
	nholders = 0;
	period_free(pe);
}

/* Lock slots: a holder's slot goes into the plan with its launch count
 * read before the snapshot; slots of non-holders stay out. */
static void
test_locks(void)
{
	struct period	*pe = engine(DECIDE_GREEDY);

	fake_now = 500 * T;
	set_holder(0, 1, 0.3, false);
	holders[0].lock_slot = 5;
	set_holder(1, 2, 0.4, false);
	holders[1].lock_slot = 9;	/* no lock file: not valid */
	nholders = 2;
	memset(&fr.locks, 0, sizeof(fr.locks));
	fr.locks.valid = (1ull << 5) | (1ull << 7);
	fr.locks.held = 1ull << 5 | 1ull << 7;
	fr.locks.launches[5] = 42;
	fr.locks.launches[7] = 3;
	period_run_once(pe);
	CHECKM(fr.lock_mask == 1ull << 5, "mask %llx",
	    (unsigned long long)fr.lock_mask);
	CHECKM(fr.plan[0].lock_launches[5] == 42 ||
	    fr.plan[1].lock_launches[5] == 42, "launch count recorded");
	nholders = 0;
	period_free(pe);
}

static void
test_static_and_min(void)
{
	struct period		*pe = engine(DECIDE_GREEDY);
	struct ring_period	r;

	fake_now = 3 * T;
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	period_run_once(pe);
	CHECKM(fr.events[0] == events(0.3) && fr.events[1] == events(0.3),
	    "holder without progress gets Q-bar: %llu vs %llu",
	    (unsigned long long)fr.events[0],
	    (unsigned long long)events(0.3));
	set_holder(1, 2, 0.2, false);
	nholders = 2;
	period_run_once(pe);
	CHECKM(fr.events[0] == events(0.2), "several holders: the smallest");
	last_record(pe, &r);
	CHECKM(r.holders == 2 && r.q > 0.199 && r.q < 0.201, "record q %g",
	    r.q);
	nholders = 0;
	CHECKM(period_run_once(pe) == 0 && fr.applies == 2,
	    "released: no plan, the static budget stands");
	period_free(pe);
}

static unsigned int	notifies;

static void
count_notify(void *arg)
{
	notifies++;
}

/* The loop is woken each period with a holder, every 16th without. */
static void
test_notify(void)
{
	struct period	*pe = engine_notify(DECIDE_GREEDY, count_notify);
	int		i;

	if (pe == NULL)
		return;
	fake_now = 5 * T;
	notifies = 0;
	for (i = 0; i < 32; i++)
		period_run_once(pe);
	CHECKM(notifies == 2, "idle: %u wake-ups in 32 periods", notifies);
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	notifies = 0;
	for (i = 0; i < 3; i++)
		period_run_once(pe);
	CHECKM(notifies == 3, "held: %u wake-ups in 3 periods", notifies);
	nholders = 0;
	period_free(pe);
}

/*
 * With no task the engine only beats the heart, every idle_ns, decides
 * and applies nothing, and still lets the registry free what it buried
 * (a snapshot each time); then it picks up at the next period.
 */
static void
test_idle(void)
{
	struct period		*pe = engine(DECIDE_GREEDY);
	struct period_stats	st;

	fake_now = 20 * T + T / 2;
	no_task = true;
	CHECKM(period_run_once(pe) == 0 && period_run_once(pe) == 0, "idle");
	CHECKM(fr.applies == 0 && fr.heartbeats == 2, "idle: %llu applies, "
	    "%llu heartbeats", (unsigned long long)fr.applies,
	    (unsigned long long)fr.heartbeats);
	CHECKM(fake_now == 40 * T + T / 2, "slept idle_ns twice");
	CHECKM(snapshots == releases && snapshots >= 2, "snapshots taken");
	no_task = false;
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	CHECKM(period_run_once(pe) == 0 && fr.applies == 1 &&
	    fr.last_period == 41, "back: a plan for the next period, %llu",
	    (unsigned long long)fr.last_period);
	nholders = 0;
	period_stats(pe, &st);
	CHECKM(st.idle == 2 && st.periods == 1, "stats: idle %llu",
	    (unsigned long long)st.idle);
	period_free(pe);

	/*
	 * The last task leaves while it holds the lock: one more period is
	 * decided and recorded unregulated, the loop is told, then idle.
	 */
	pe = engine_notify(DECIDE_GREEDY, count_notify);
	fake_now = 5 * T;
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	CHECKM(period_run_once(pe) == 0 && fr.applies == 1, "held");
	nholders = 0;
	no_task = true;
	notifies = 0;
	CHECKM(period_run_once(pe) == 0 && fr.applies == 1,
	    "the period after: no plan (unregulated)");
	CHECKM(period_run_once(pe) == 0 && fr.applies == 1, "then idle");
	CHECKM(notifies == 1, "its record reached the loop (%u)", notifies);
	period_stats(pe, &st);
	CHECKM(st.idle == 1, "idle once: %llu", (unsigned long long)st.idle);
	no_task = false;
	period_free(pe);
}

/*
 * The thread, on the real clock: idle for a minute after one look, it
 * must be back deciding periods at once when kicked (a task came).
 */
static void
test_kick(void)
{
	struct period_params	p;
	struct period		*pe;
	struct period_stats	st;
	char			err[128], warn[128];
	int			i;

	params(&p, DECIDE_GREEDY);
	p.clock = NULL;
	p.idle_ns = 60000000000ull;
	real_time = true;
	no_task = true;
	nholders = 0;
	pe = period_new(&p, err, sizeof(err));
	CHECKM(pe != NULL && period_start(pe, warn, sizeof(warn), err,
	    sizeof(err)) == 0, "start: %s", err);
	for (i = 0, st.idle = 0; i < 2000 && st.idle == 0; i++) {
		usleep(1000);
		period_stats(pe, &st);
	}
	CHECKM(st.idle == 1 && st.periods == 0, "idle first");
	__atomic_store_n(&no_task, false, __ATOMIC_RELEASE);
	period_kick(pe);
	for (i = 0, st.periods = 0; i < 2000 && st.periods == 0; i++) {
		usleep(1000);
		period_stats(pe, &st);
	}
	CHECKM(st.periods > 0, "kicked: deciding again (%d ms)", i);
	period_free(pe);
	real_time = false;
}

/* The loop after a second task took the lock: the new holder, and the
 * new static budget, which withdraws every plan. */
static void
join_holder(void)
{
	set_holder(nholders++, 9, 0.05, false);
	gen_now++;
	fr.static_gen = gen_now;
	fr.id[0] = fr.id[1] = 0;
}

/*
 * A holder that joins after the engine decided the next period but
 * before it begins: the engine, kicked, decides that period again on
 * both holders, and the backend governs it with that plan, not static.
 * A kick with the holders unchanged, or too close to the boundary,
 * decides nothing more.
 */
static void
test_again(void)
{
	struct period		*pe = engine(DECIDE_GREEDY);
	struct period_stats	st;
	struct ring_period	r, prev;
	uint64_t		applies;
	int			n = 0;

	fake_now = 60 * T + T / 2;
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	CHECKM(period_run_once(pe) == 0 && fr.last_period == 61 &&
	    fake_now == 61 * T - LEAD, "decided 61");
	kick_at = 61 * T - LEAD + 5000;
	on_kick = join_holder;
	CHECKM(period_run_once(pe) == 0, "run");
	period_stats(pe, &st);
	CHECKM(st.again == 1 && fr.applies == 3 && fr.last_period == 62,
	    "61 decided again, then 62: %llu again, %llu applies",
	    (unsigned long long)st.again, (unsigned long long)fr.applies);
	CHECKM(fr.kind[61] == FR_FIRST, "61 ran on the new plan, not static");
	memset(&prev, 0, sizeof(prev));
	while (ring_pop(period_records(pe), &r) == 1) {
		if (r.period == 61 && r.again)
			CHECKM(prev.period == 61 && !prev.again &&
			    prev.holders == 1 && r.holders == 2 &&
			    r.budget[0] == events(0.05) && r.lateness_ns == 0,
			    "the record for 61 again, after the first");
		n += r.again != 0;
		prev = r;
	}
	CHECKM(n == 1 && prev.period == 62 && !prev.again, "records");
	/* a kick with the same holders: nothing more */
	applies = fr.applies;
	kick_at = fake_now + 5000;
	on_kick = NULL;
	CHECKM(period_run_once(pe) == 0 && fr.applies == applies + 1,
	    "no change, no second decision");
	/* the holders change too close to the boundary: 63 stays static */
	kick_at = 63 * T - 5000;
	on_kick = join_holder;
	CHECKM(period_run_once(pe) == 0, "run");
	period_stats(pe, &st);
	CHECKM(st.again == 1 && fr.last_period == 64 &&
	    fr.kind[63] == FR_STATIC, "too late to decide 63 again");
	on_kick = NULL;
	nholders = 0;
	period_free(pe);
}

/* A launch's record counts a period decided again once, with the Q of
 * the second decision in its sums. */
static void
test_again_launch(void)
{
	struct period		*pe = engine(DECIDE_GREEDY);
	struct period_launch	pl;
	struct ring_period	r;
	double			q1;

	make_page();
	fake_now = 200 * T + T / 2;
	launch(0, kern.id, NB, fake_now - T / 4);
	set_holder(0, 1, kern.q_nominal, true);
	nholders = 1;
	period_run_once(pe);
	last_record(pe, &r);
	q1 = r.q;
	kick_at = 201 * T - LEAD + 5000;
	on_kick = join_holder;
	period_run_once(pe);		/* 201 again, then 202 */
	on_kick = NULL;
	finish(0);
	period_run_once(pe);		/* 203 sees it ended */
	CHECKM(ring_pop(period_launches(pe), &pl) == 1 && pl.periods == 2,
	    "two periods, not three: %llu", (unsigned long long)pl.periods);
	CHECKM(q1 > 0.06 && fabs(pl.q_sum - 2 * 0.05) < 1e-6 &&
	    fabs(pl.q_sq - 2 * 0.05 * 0.05) < 1e-6 && pl.q_max == q1,
	    "sums from the second decision (%g, first %g)", pl.q_sum, q1);
	nholders = 0;
	period_free(pe);
	free(pp);
}

/* A holder arriving while the engine decides: the budget handed over
 * last must be the one for the new lock state. */
static void
test_moved(void)
{
	struct period		*pe = engine(DECIDE_GREEDY);
	struct period_stats	st;

	fake_now = 50 * T;
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	change_after = 1;
	period_run_once(pe);
	period_stats(pe, &st);
	CHECKM(st.redecided == 1, "decided again: %llu",
	    (unsigned long long)st.redecided);
	CHECKM(fr.applies == 2 && fr.last_period == 51 &&
	    fr.events[0] == events(0.05), "the last budget is the new "
	    "holder's: %llu", (unsigned long long)fr.events[0]);
	CHECKM(snapshots == releases, "every snapshot released");
	/* the loop set the new static budget before our plan went in: the
	 * backend refuses it as stale and the engine decides again */
	set_holder(0, 1, 0.3, false);
	nholders = 1;
	change_after = 2;
	period_run_once(pe);
	period_stats(pe, &st);
	CHECKM(fr.stale == 1 && fr.applies == 3 && st.redecided == 2 &&
	    fr.events[0] == events(0.05), "stale plan refused, decided again "
	    "(%llu stale, %llu applies)", (unsigned long long)fr.stale,
	    (unsigned long long)fr.applies);
	CHECKM(st.apply_errors == 0, "a stale plan is not an error");
	nholders = 0;
	period_free(pe);
}

static void
test_progress(void)
{
	struct period		*pe = engine(DECIDE_GREEDY);
	struct period_launch	pl;
	struct period_stats	st;
	struct ring_period	r;
	unsigned int		i;

	make_page();
	fake_now = 100 * T;
	launch(0, kern.id, NB, fake_now);
	set_holder(0, 1, kern.q_nominal, true);
	nholders = 1;
	period_run_once(pe);
	last_record(pe, &r);
	CHECKM(r.nkernels == 1 && r.k[0].remaining == NB,
	    "running launch seen, %llu remaining",
	    (unsigned long long)r.k[0].remaining);
	CHECKM(r.q >= kern.q_nominal - 1e-9, "Q %g below Q-bar %g", r.q,
	    kern.q_nominal);
	/* half the blocks done early: GREEDY gives more than Q-bar */
	for (i = 0; i < NB / 2 / 64; i++)
		slot(0)->bitmap[i] = ~0ull;
	period_run_once(pe);
	last_record(pe, &r);
	CHECKM(r.k[0].remaining == NB / 2, "progress read: %llu",
	    (unsigned long long)r.k[0].remaining);
	CHECKM(r.q > kern.q_nominal + 0.01, "GREEDY gives slack: %g vs %g",
	    r.q, kern.q_nominal);
	CHECKM(fr.events[0] == events(r.q), "events follow Q");
	/* a second holder on its static Q-bar caps it */
	set_holder(1, 2, 0.05, false);
	nholders = 2;
	period_run_once(pe);
	last_record(pe, &r);
	CHECKM(r.q > 0.0499 && r.q < 0.0501, "min over holders: %g", r.q);
	nholders = 1;
	/* the launch ends: one record with its periods and Q stats */
	finish(0);
	period_run_once(pe);
	CHECKM(ring_pop(period_launches(pe), &pl) == 1, "launch record");
	CHECKM(pl.task == 1 && pl.kernel == kern.id && pl.periods == 3 &&
	    pl.launch_ns == 100 * T && pl.bound_ns == kern.wcet_ns,
	    "launch record: %llu periods", (unsigned long long)pl.periods);
	CHECKM(pl.q_min > 0.0499 && pl.q_min < 0.0501 &&
	    pl.q_max > kern.q_nominal, "Q min %g max %g", pl.q_min, pl.q_max);
	CHECKM(ring_pop(period_launches(pe), &pl) == 0, "reported once");
	period_stats(pe, &st);
	CHECKM(st.launches == 1, "launch counted");
	period_free(pe);
}

/* The start one period's decision counted the launch in slot 0 from. */
static uint64_t
start_used(struct period *pe)
{
	struct ring_period	r;

	period_run_once(pe);
	last_record(pe, &r);
	CHECKM(r.nkernels == 1, "one kernel decided (%u)", r.nkernels);
	return r.boundary_ns + (uint64_t)r.k[0].t_remaining_ns -
	    kern.wcet_ns;
}

static void
set_clock(uint32_t seq, int64_t off, uint64_t err)
{
	struct bwshm_progress_hdr	*h = pp;

	h->clock_offset_ns = off;
	h->clock_err_ns = err;
	h->clock_seq = seq;
}

/*
 * A kernel queued behind another: launched (CPU) at L, really started
 * 4 periods later.  The GPU start counts when a calibration is
 * published and the converted start lies in [L, now]; else L.
 */
static void
test_gpu_start(void)
{
	struct period		*pe = engine(DECIDE_GREEDY);
	/* the GPU's clock 5 s ahead of CLOCK_MONOTONIC */
	const int64_t		OFF = -5000000000ll;
	const uint64_t		L = 300 * T;
	const uint64_t		G = L + 4 * T - OFF;	/* GPU clock */
	uint64_t		started;

	make_page();
	set_holder(0, 1, kern.q_nominal, true);
	nholders = 1;
	fake_now = L + 5 * T;

	/* no GPU start, no offset: the CPU time */
	launch(0, kern.id, NB, L);
	CHECKM(start_used(pe) == L, "no GPU start: CPU time");
	/* a GPU start without a calibration means nothing */
	slot(0)->gpu_start = G;
	CHECKM(start_used(pe) == L, "no offset: CPU time");
	/* a calibration being rewritten (odd) neither */
	set_clock(3, OFF, 20000);
	CHECKM(start_used(pe) == L, "odd clock_seq: CPU time");
	/* valid: the real start, less the uncertainty */
	set_clock(4, OFF, 20000);
	CHECKM(start_used(pe) == L + 4 * T - 20000, "GPU start used: %llu",
	    (unsigned long long)(start_used(pe) - L));
	/* kept: the device writes it once, a later value is not the GPU's */
	slot(0)->gpu_start = G + 2 * T;
	CHECKM(start_used(pe) == L + 4 * T - 20000, "GPU start kept");

	/* a new launch: the claim cleared it, the CPU time again */
	launch(0, kern.id, NB, L);
	slot(0)->gpu_start = 0;
	CHECKM(start_used(pe) == L, "cleared by the claim");
	/* before the CPU launch: discarded */
	launch(0, kern.id, NB, L);
	slot(0)->gpu_start = L - T - OFF;
	CHECKM(start_used(pe) == L, "before launch_ns: CPU time");
	/* in the future (a lying client, or a wrong offset): discarded */
	launch(0, kern.id, NB, L);
	slot(0)->gpu_start = fake_now + 10 * T - OFF;
	CHECKM(start_used(pe) == L, "in the future: CPU time");
	/* overflowing values: discarded */
	launch(0, kern.id, NB, L);
	slot(0)->gpu_start = UINT64_MAX;
	set_clock(6, INT64_MAX, 0);
	CHECKM(start_used(pe) == L, "overflow: CPU time");
	/* the queued case end to end: more time left, a higher budget */
	launch(0, kern.id, NB, L);
	set_clock(8, OFF, 0);
	slot(0)->gpu_start = 0;
	{
		struct ring_period	r;
		double			q_cpu, q_gpu;
		unsigned int		i;

		/* half done: on time from its real start, late from L */
		for (i = 0; i < NB / 2 / 64; i++)
			slot(0)->bitmap[i] = ~0ull;
		fake_now = L + kern.wcet_ns - 2 * T;
		period_run_once(pe);
		last_record(pe, &r);
		q_cpu = r.q;
		started = fake_now - 3 * T;
		slot(0)->gpu_start = started - OFF;
		period_run_once(pe);
		last_record(pe, &r);
		q_gpu = r.q;
		CHECKM(q_gpu > q_cpu + 0.01, "GPU start: Q %g > CPU %g",
		    q_gpu, q_cpu);
	}
	set_clock(0, 0, 0);
	finish(0);
	period_run_once(pe);
	/* its record measures from the start the decisions used */
	{
		struct period_launch	pl, last;
		unsigned int		n = 0;

		while (ring_pop(period_launches(pe), &pl) == 1) {
			last = pl;
			n++;
		}
		CHECKM(n > 0 && last.gpu_start &&
		    last.launch_ns == started, "record from the GPU "
		    "start: %llu", (unsigned long long)(n ? last.launch_ns : 0));
	}
	nholders = 0;
	period_free(pe);
	free(pp);
}

static void
test_validation(void)
{
	struct period		*pe = engine(DECIDE_GREEDY);
	struct bwshm_task_page	tp;
	struct period_stats	st;
	struct ring_period	r;
	unsigned int		i;

	fake_now = 200 * T;
	for (i = 0; i < NB / 64; i++)
		slot(0)->bitmap[i] = 0;
	set_holder(0, 1, kern.q_nominal, true);
	nholders = 1;
	/* wrong block count: the holder falls back to Q-bar */
	launch(0, kern.id, NB - 1, fake_now);
	period_run_once(pe);
	last_record(pe, &r);
	period_stats(pe, &st);
	CHECKM(st.bad_slots == 1 && r.nkernels == 0 &&
	    fr.events[0] == events(kern.q_nominal), "bad nblocks rejected");
	/* unknown kernel id */
	launch(0, 99, NB, fake_now);
	period_run_once(pe);
	period_stats(pe, &st);
	CHECKM(st.bad_slots == 2, "unknown kernel rejected");
	/* a slot being rewritten (odd seq) */
	launch(0, kern.id, NB, fake_now);
	for (i = 0; i < NB / 2 / 64; i++)
		slot(0)->bitmap[i] = ~0ull;
	slot(0)->seq++;
	period_run_once(pe);
	CHECKM(fr.events[0] == events(kern.q_nominal), "odd seq: Q-bar");
	slot(0)->seq++;
	period_run_once(pe);
	CHECKM(fr.events[0] > events(kern.q_nominal), "stable again: dynamic");
	/* an active stream without a slot: uninstrumented work */
	memset(&tp, 0, sizeof(tp));
	tp.active_streams = 3;
	tp.stream_handle[0] = 1;
	tp.stream_handle[1] = 42;
	holders[0].tp = &tp;
	period_run_once(pe);
	CHECKM(fr.events[0] == events(kern.q_nominal), "uncovered stream");
	tp.active_streams = 1;
	period_run_once(pe);
	CHECKM(fr.events[0] > events(kern.q_nominal), "covered stream");
	tp.memcpy_depth = 1;
	period_run_once(pe);
	CHECKM(fr.events[0] == events(kern.q_nominal), "copy in flight");
	/* a lying page size leaves no usable slot */
	holders[0].pp_size = BWSHM_PROGRESS_HDR_SIZE + 10;
	tp.memcpy_depth = 0;
	period_run_once(pe);
	CHECKM(fr.events[0] == events(kern.q_nominal), "bad page size");
	period_free(pe);
	free(pp);
}

int
main(void)
{
	make_kernel();
	test_tagging();
	test_late();
	test_lookahead_patterns();
	test_lead();
	test_locks();
	test_static_and_min();
	test_notify();
	test_idle();
	test_kick();
	test_moved();
	test_again();
	test_again_launch();
	test_progress();
	test_validation();
	test_gpu_start();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("test_period: all passed\n");
	return 0;
}
