/*
 * engine.c - loop side of the period engine (see engine.h).
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "launchlog.h"
#include "log.h"
#include "peer.h"
#include "server.h"
#include "validate.h"

#define ENGINE_IDLE_NS	10000000ull	/* heartbeat-only wake-ups, no task */
#define ENGINE_END_GRACE 32ull		/* periods a kernel.end waits for
					 * the engine's record of it */
#define SHARE_SLOTS	11		/* 10 s of one-second samples */
#define SHARE_STATUS_S	10		/* status: the last 10 s */
#define SHARE_WARN_S	5		/* the warning: the last 5 s */
#define SHARE_WARN_MIN	500		/* regulated periods to judge */
#define SHARE_WARN_EVERY 60.0		/* s between two warnings */

/* What governed the periods so far: the regulator's and the engine's
 * counters, sampled every second. */
struct share_sample {
	uint64_t	first;		/* on a plan's first entry */
	uint64_t	ahead;		/* on a look-ahead entry */
	uint64_t	fallback;	/* on the static budget */
	uint64_t	refused;	/* a plan was not admissible */
	uint64_t	late;		/* engine: wake-ups too late */
	uint64_t	apply_errors;
	uint64_t	lock_errors;
};

struct engine {
	struct bwsched		*d;
	struct period		*pe;
	struct launchlog	*ll;
	ev_async		async;
	struct tasks_snapshot	*snap;		/* period thread only */
	struct ring_period	last;		/* latest record */
	bool			have_last;
	ev_timer		share_timer;
	struct share_sample	hist[SHARE_SLOTS];
	unsigned int		hpos, hn;	/* next slot, samples */
	struct reg_lock_stats	lk;		/* the regulator's, last */
	ev_tstamp		warned;		/* last warning, 0: never */
};

/* ---- the registry as the engine's holder source ------------------- */

static unsigned int
src_snapshot(void *arg, struct period_holder *h, unsigned int max,
    uint64_t *gen)
{
	struct engine		*e = arg;
	struct tasks_snapshot	*s = e->snap;
	unsigned int		i;

	tasks_snapshot(e->d->tasks, s, PERIOD_MAX_HOLDERS);
	*gen = s->gen;
	for (i = 0; i < s->nholders && i < max; i++) {
		const struct tasks_holder	*t = &s->holder[i];

		memset(&h[i], 0, sizeof(h[i]));
		h[i].task = t->task;
		h[i].pid = t->pid;
		h[i].name = t->name;
		h[i].qbar = t->qbar;
		h[i].uninstrumented = t->uninstrumented;
		h[i].tp = t->tp;
		h[i].pp = t->pp;
		h[i].pp_size = t->pp_size;
		h[i].nslots = t->nslots;
		h[i].nkernels = t->nkernels;
		h[i].kernels = t->kernels;
		h[i].lock_slot = t->lock_slot;
	}
	/* more holders than we read: the last entry stands for all the
	 * others with the smallest Q-bar of every holder, which is safe */
	if (s->total > i && i > 0) {
		memset(&h[i - 1], 0, sizeof(h[i - 1]));
		h[i - 1].qbar = s->q_static;
		h[i - 1].lock_slot = -1;
	}
	return i;
}

static bool
src_idle(void *arg)
{
	struct engine	*e = arg;

	return tasks_none(e->d->tasks);
}

static uint64_t
src_generation(void *arg)
{
	struct engine	*e = arg;

	return tasks_generation(e->d->tasks);
}

/* Nothing to do: the registry keeps a departed task's pages until the
 * engine has taken a snapshot published without it (tasks.h). */
static void
src_release(void *arg)
{
}

static void
notify(void *arg)
{
	struct engine	*e = arg;

	ev_async_send(e->d->loop, &e->async);
}

/* ---- events ------------------------------------------------------- */


static void
period_kernels(struct bwp_writer *w, const struct ring_period *r)
{
	const struct ring_kernel	*k;
	unsigned int			i;

	bwp_w_key(w, "kernels");
	bwp_w_array(w, r->nkernels);
	for (i = 0; i < r->nkernels; i++) {
		k = &r->k[i];
		bwp_w_map(w, 7);
		bwp_w_str(w, "task");
		bwp_w_uint(w, k->task);
		bwp_w_str(w, "kernel");
		bwp_w_uint(w, k->kernel);
		bwp_w_str(w, "slot");
		bwp_w_uint(w, k->slot);
		bwp_w_str(w, "blocks");
		bwp_w_uint(w, k->blocks);
		bwp_w_str(w, "remaining");
		bwp_w_uint(w, k->remaining);
		bwp_w_str(w, "t_remaining_ns");
		bwp_w_int(w, k->t_remaining_ns);
		bwp_w_str(w, "q");
		bwp_w_double(w, k->q);
	}
}

static void
period_event(struct engine *e, const struct ring_period *r)
{
	struct bwp_writer	w;
	unsigned int		i;

	bwp_w_init(&w);
	bwp_w_kstr(&w, BWP_K_EVENT, "period");
	bwp_w_kuint(&w, "period", r->period);
	bwp_w_kuint(&w, "ts_ns", r->t_ns);
	bwp_w_kdouble(&w, "q", r->q);
	bwp_w_kdouble(&w, "q_static", r->q_static);
	bwp_w_kuint(&w, "holders", r->holders);
	bwp_w_kbool(&w, "late", r->late != 0);
	bwp_w_kbool(&w, "again", r->again != 0);
	bwp_w_kint(&w, "late_ns", r->lateness_ns);
	bwp_w_kuint(&w, "cost_ns", r->cost_ns);
	bwp_w_key(&w, "budgets");
	bwp_w_array(&w, r->ncores);
	for (i = 0; i < r->ncores; i++)
		bwp_w_uint(&w, i < RING_MAX_CORES ? r->budget[i] : 0);
	period_kernels(&w, r);
	server_broadcast(e->d, TOPIC_PERIOD, &w);
	bwp_w_free(&w);
}

static void
launch_event(void *arg, const struct launchlog_rec *r)
{
	struct engine		*e = arg;
	struct bwp_writer	w;

	if (!server_anyone(e->d, TOPIC_KERNEL))
		return;
	bwp_w_init(&w);
	bwp_w_kstr(&w, BWP_K_EVENT, "kernel");
	bwp_w_kuint(&w, "task", r->task);
	bwp_w_kuint(&w, "kernel", r->kernel);
	bwp_w_kuint(&w, "launch", r->launch);
	bwp_w_kstr(&w, "what", "end");
	bwp_w_kuint(&w, "ts_ns", r->end_ns);
	bwp_w_kstr(&w, "name", r->kernel_name);
	bwp_w_kstr(&w, "policy", r->policy);
	bwp_w_kuint(&w, "launch_ns", r->launch_ns);
	bwp_w_kuint(&w, "periods", r->periods);
	bwp_w_kuint(&w, "late_periods", r->late);
	bwp_w_kdouble(&w, "q_mean", r->q_mean);
	bwp_w_kdouble(&w, "q_min", r->q_min);
	bwp_w_kdouble(&w, "q_max", r->q_max);
	bwp_w_kdouble(&w, "q_std", r->q_std);
	bwp_w_kuint(&w, "bound_ns", r->bound_ns);
	bwp_w_kuint(&w, "actual_ns", r->actual_ns);
	bwp_w_kuint(&w, "actual_min_ns", r->actual_min_ns);
	bwp_w_kint(&w, "slack_ns", r->slack_ns);
	bwp_w_kstr(&w, "bound_met", r->met);
	bwp_w_kstr(&w, "end_by", r->end_by);
	bwp_w_kstr(&w, "start_by", r->start_by);
	server_broadcast(e->d, TOPIC_KERNEL, &w);
	bwp_w_free(&w);
}

static bool
launch_names(void *arg, struct launchlog_rec *r)
{
	struct engine	*e = arg;
	struct task	*t = tasks_find(e->d->tasks, r->task);
	unsigned int	i;

	if (t == NULL)
		return false;
	r->pid = t->pid;
	snprintf(r->task_name, sizeof(r->task_name), "%s", t->name);
	snprintf(r->kernel_name, sizeof(r->kernel_name), "%u", r->kernel);
	for (i = 0; i < t->nkernels; i++)
		if (t->kernels[i]->id == r->kernel)
			snprintf(r->kernel_name, sizeof(r->kernel_name), "%s",
			    t->kernels[i]->name);
	return true;
}

/*
 * The engine knows a launch ended only within a period: it lies in
 * (prev_ns, end_ns].  The client records the end when it frees the slot
 * (bwshm.h); when that record belongs to this launch and lies inside
 * (launch_ns, end_ns], it is the end.  It may be earlier than prev_ns: a
 * progress bitmap can lag the blocks (an emulated GPU fills it after the
 * fact), and the client's clock is the one that saw the end.  A client
 * can only mislead its own launch records this way.
 */
static void
client_end(struct engine *e, struct period_launch *l)
{
	uint64_t	end;

	if (tasks_slot_end(e->d->tasks, l->task, l->slot, l->slot_launch_ns,
	    &end) < 0 || end <= l->slot_launch_ns || end > l->end_ns)
		return;
	/* both times the client's (the engine may have clamped the start;
	 * a GPU start is the client's clock already) */
	if (!l->gpu_start)
		l->launch_ns = l->slot_launch_ns;
	l->end_ns = end;
	l->prev_ns = end;
	l->client_end = true;
}

/* The period thread finished a period: drain, publish, reap. */
static void
async_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct engine		*e = w->data;
	struct ring_period	r;
	struct period_launch	l;
	const char		*pol = config_policy_name(e->d->cfg.policy);
	bool			subs = server_anyone(e->d, TOPIC_PERIOD);
	uint64_t		launch;
	bool			send;

	while (ring_pop(period_records(e->pe), &r) == 1) {
		e->last = r;
		e->have_last = true;
		launchlog_period(e->ll, &r, pol);
		if (subs)
			period_event(e, &r);
	}
	while (ring_pop(period_launches(e->pe), &l) == 1) {
		client_end(e, &l);
		(void)tasks_launch_ended(e->d->tasks, l.task, l.slot, l.kernel,
		    l.seq, &launch, &send);
		launchlog_launch(e->ll, &l, launch, send, pol);
	}
	tasks_flush_ends(e->d->tasks, bwsched_now(),
	    ENGINE_END_GRACE * e->d->cfg.period_ns);
	/* lock changes through the pages show up here within a period;
	 * it also frees tasks the period thread can no longer see */
	tasks_update(e->d->tasks);
}


/* ---- where budgets came from ---------------------------------------- */

static void
share_take(struct engine *e, struct share_sample *x)
{
	struct period_stats	ps;
	struct reg_stats	rs;

	memset(x, 0, sizeof(*x));
	memset(&rs, 0, sizeof(rs));
	if (e->d->reg_ops->stats(e->d->reg, &rs) == 0 && rs.ncores > 0) {
		/* one choice per period for all cores: core 0 tells */
		x->first = rs.core[0].plan_first;
		x->ahead = rs.core[0].plan_ahead;
		x->fallback = rs.core[0].fallbacks;
		x->refused = rs.core[0].refused;
		e->lk = rs.lock;
	}
	period_stats(e->pe, &ps);
	x->late = ps.late;
	x->apply_errors = ps.apply_errors;
	x->lock_errors = ps.lock_errors;
}

/* The change over the last `secs` samples (fewer at start-up). */
static unsigned int
share_delta(const struct engine *e, unsigned int secs,
    struct share_sample *d)
{
	const struct share_sample *a, *b;
	unsigned int	back = secs < e->hn - 1 ? secs : e->hn - 1;

	memset(d, 0, sizeof(*d));
	if (e->hn < 2)
		return 0;
	b = &e->hist[(e->hpos + SHARE_SLOTS - 1) % SHARE_SLOTS];
	a = &e->hist[(e->hpos + SHARE_SLOTS - 1 - back) % SHARE_SLOTS];
	d->first = b->first - a->first;
	d->ahead = b->ahead - a->ahead;
	d->fallback = b->fallback - a->fallback;
	d->refused = b->refused - a->refused;
	d->late = b->late - a->late;
	d->apply_errors = b->apply_errors - a->apply_errors;
	d->lock_errors = b->lock_errors - a->lock_errors;
	return back;
}

/* One rate-limited warning when few periods ran on a plan, and why. */
static void
share_warn(struct engine *e, ev_tstamp now)
{
	struct share_sample	d;
	uint64_t		reg, dyn;
	unsigned int		secs = share_delta(e, SHARE_WARN_S, &d);

	reg = d.first + d.ahead + d.fallback;
	dyn = d.first + d.ahead;
	if (secs == 0 || reg < SHARE_WARN_MIN ||
	    (double)dyn >= e->d->cfg.dynamic_share_warn * (double)reg)
		return;
	if (e->warned != 0 && now - e->warned < SHARE_WARN_EVERY)
		return;
	e->warned = now;
	log_msg(LOG_L_WARNING, "only %.1f %% of the last %llu regulated "
	    "periods ran on a dynamic budget (%u s): %llu wake-ups too "
	    "late for their period, %llu plans refused by the regulator, "
	    "%llu apply errors, %llu lock-slot read errors; the rest ran on "
	    "the static Q-bar", 100.0 * (double)dyn / (double)reg,
	    (unsigned long long)reg, secs, (unsigned long long)d.late,
	    (unsigned long long)d.refused,
	    (unsigned long long)d.apply_errors,
	    (unsigned long long)d.lock_errors);
}

static void
share_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct engine	*e = w->data;

	share_take(e, &e->hist[e->hpos]);
	e->hpos = (e->hpos + 1) % SHARE_SLOTS;
	if (e->hn < SHARE_SLOTS)
		e->hn++;
	share_warn(e, ev_now(loop));
}

static double
share_of(uint64_t part, uint64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0;
}

/* status: the shares of the last SHARE_STATUS_S seconds, the lead and
 * the lock-enforcement latency. */
static void
share_status(struct engine *e, struct bwp_writer *w,
    const struct period_stats *s)
{
	struct share_sample	d;
	unsigned int		secs = share_delta(e, SHARE_STATUS_S, &d);
	uint64_t		reg = d.first + d.ahead + d.fallback;
	const struct reg_lock_stats *lk = &e->lk;

	bwp_w_kuint(w, "lead_current_ns", s->lead_ns);
	bwp_w_kuint(w, "lookahead", s->plan_len);
	bwp_w_kuint(w, "share_window_ns", (uint64_t)secs * 1000000000ull);
	bwp_w_kuint(w, "periods_regulated", reg);
	bwp_w_kdouble(w, "share_dynamic", share_of(d.first, reg));
	bwp_w_kdouble(w, "share_lookahead", share_of(d.ahead, reg));
	bwp_w_kdouble(w, "share_static", share_of(d.fallback, reg));
	bwp_w_kuint(w, "plans_refused", d.refused);
	bwp_w_kuint(w, "lock_kicks", lk->kicks);
	bwp_w_kuint(w, "lock_enforce_last_ns", lk->kick_ns_last);
	bwp_w_kuint(w, "lock_enforce_max_ns", lk->kick_ns_max);
	bwp_w_kuint(w, "lock_enforce_mean_ns", lk->kicks > 0 ?
	    lk->kick_ns_sum / lk->kicks : 0);
	bwp_w_kuint(w, "lock_edges_seen", e->d->lock_edges_seen);
}

/* ---- set-up ------------------------------------------------------- */

static enum decide_policy
policy_of(int p)
{
	switch (p) {
	case POLICY_FAIR:
		return DECIDE_FAIR;
	case POLICY_GREEDY:
		return DECIDE_GREEDY;
	case POLICY_SMOOTH:
		return DECIDE_SMOOTH;
	default:
		return DECIDE_NOMINAL;
	}
}

static void
params(struct engine *e, struct period_params *p)
{
	const struct config	*c = &e->d->cfg;

	memset(p, 0, sizeof(*p));
	p->ops = e->d->reg_ops;
	p->reg = e->d->reg;
	p->src.snapshot = src_snapshot;
	p->src.release = src_release;
	p->src.generation = src_generation;
	p->src.idle = src_idle;
	p->src.arg = e;
	p->period_ns = c->period_ns;
	p->lead_ns = c->lead_ns;
	p->lead_min_ns = c->lead_min_ns;
	p->lead_max_ns = c->lead_max_ns != 0 ? c->lead_max_ns :
	    c->period_ns / 2;
	/* a fixed lead when the range is one point */
	p->lead_adapt = p->lead_min_ns < p->lead_max_ns;
	p->plan_len = (unsigned int)c->lookahead;
	p->ncores = c->ncores;
	p->bwmax_events = (double)c->bwmax_events;
	p->overhead_events = (double)c->overhead_events;
	p->smooth_a = c->smooth_a;
	p->policy = policy_of(c->policy);
	p->priority = (int)c->period_thread_priority;
	p->cpu = (int)c->period_thread_cpu;
	p->notify = notify;
	p->notify_arg = e;
	/*
	 * With no task at all the engine only keeps the heartbeat, often
	 * enough for the regulator's watchdog: a daemon waiting for work
	 * should not wake 1,000 times a second (2 % of a CPU here).
	 */
	p->idle_ns = c->heartbeat_timeout_ns / 4 < ENGINE_IDLE_NS ?
	    c->heartbeat_timeout_ns / 4 : ENGINE_IDLE_NS;
	if (p->idle_ns < 2 * c->period_ns)
		p->idle_ns = 0;
}

void
engine_kick(struct engine *e)
{
	if (e != NULL)
		period_kick(e->pe);
}

static void
engine_free(struct engine *e)
{
	if (e == NULL)
		return;
	period_free(e->pe);
	launchlog_free(e->ll);
	free(e->snap);
	free(e);
}

struct engine *
engine_start(struct bwsched *d, char *err, size_t errlen)
{
	struct launchlog_hooks	lh;
	struct period_params	p;
	struct engine		*e = calloc(1, sizeof(*e));
	char			warn[256];

	if (e == NULL || (e->snap = calloc(1, sizeof(*e->snap) +
	    PERIOD_MAX_HOLDERS * sizeof(struct tasks_holder))) == NULL) {
		snprintf(err, errlen, "engine: out of memory");
		engine_free(e);
		return NULL;
	}
	e->d = d;
	lh.names = launch_names;
	lh.event = launch_event;
	lh.arg = e;
	params(e, &p);
	if ((e->ll = launchlog_new(&lh)) == NULL ||
	    (e->pe = period_new(&p, err, errlen)) == NULL) {
		if (e->ll == NULL)
			snprintf(err, errlen, "engine: out of memory");
		engine_free(e);
		return NULL;
	}
	ev_async_init(&e->async, async_cb);
	e->async.data = e;
	ev_async_start(d->loop, &e->async);
	ev_timer_init(&e->share_timer, share_cb, 0, 1.0);
	e->share_timer.data = e;
	ev_timer_start(d->loop, &e->share_timer);
	if (period_start(e->pe, warn, sizeof(warn), err, errlen) < 0) {
		ev_async_stop(d->loop, &e->async);
		ev_timer_stop(d->loop, &e->share_timer);
		engine_free(e);
		return NULL;
	}
	if (warn[0] != '\0')
		log_msg(LOG_L_WARNING, "%s", warn);
	return e;
}

void
engine_stop(struct engine *e)
{
	if (e == NULL)
		return;
	period_stop(e->pe);
	ev_async_stop(e->d->loop, &e->async);
	ev_timer_stop(e->d->loop, &e->share_timer);
	engine_free(e);
}

void
engine_config_changed(struct engine *e, const struct config *c)
{
	if (e == NULL)
		return;
	period_set_policy(e->pe, policy_of(c->policy),
	    (double)c->overhead_events, c->smooth_a);
}

void
engine_stats(struct engine *e, struct period_stats *s)
{
	period_stats(e->pe, s);
}

double
engine_q(struct engine *e)
{
	return e->have_last ? e->last.q : -1;
}

void
engine_status(struct engine *e, struct bwp_writer *w)
{
	struct period_stats	s;

	period_stats(e->pe, &s);
	bwp_w_kdouble(w, "q", engine_q(e));
	bwp_w_kuint(w, "late", s.late);
	bwp_w_kuint(w, "decided", s.periods);
	bwp_w_kuint(w, "applied", s.applied);
	bwp_w_kuint(w, "lateness_p50_ns", s.lateness_p50_ns);
	bwp_w_kuint(w, "lateness_p99_ns", s.lateness_p99_ns);
	bwp_w_kuint(w, "lateness_max_ns", s.lateness_max_ns);
	bwp_w_kuint(w, "cost_p50_ns", s.cost_p50_ns);
	bwp_w_kuint(w, "cost_p99_ns", s.cost_p99_ns);
	bwp_w_kuint(w, "launches_logged", s.launches);
	bwp_w_kuint(w, "bad_slots", s.bad_slots);
	bwp_w_kuint(w, "redecided", s.redecided);
	bwp_w_kuint(w, "decided_again", s.again);
	bwp_w_kuint(w, "records_dropped", s.dropped);
	bwp_w_kuint(w, "idle_wakeups", s.idle);
	bwp_w_kbool(w, "realtime", s.rt);
	share_status(e, w, &s);
}
