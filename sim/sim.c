/*
 * sim.c - the simulated platform (doc/design.md section 5, doc/sim.md).
 *
 * Between two cuts (a throttle, a block completion, a boundary, a tick or
 * the end of a step) every core's event rate is constant, so the traffic
 * u is too, and every running block advances at a constant speed: the
 * model integrates each piece exactly.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "splitmix.h"

/* gov_id of a period run on the fail-safe budget: no plan has it */
#define SIM_GOV_FAILSAFE	UINT64_MAX

void
sim_config_default(struct sim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->period_ns = 1000000;
	c->tick_ns = 1000000;
	c->step_ns = 10000;
	c->ncores = 3;
	c->bwmax_events = 60000;
	c->rho = 0;
	c->jitter = 0.1;
	c->speed = SIM_SPEED_LINEAR;
	c->seed = 1;
}

/* Small, good enough for jitter and launch phases. */
double
sim_random(struct sim *s)
{
	return splitmix64_unit(&s->rng);
}

int
sim_init(struct sim *s, const struct sim_config *cfg)
{
	unsigned int	i;

	if (cfg->period_ns < 1000 || cfg->tick_ns < 1000 ||
	    cfg->step_ns < 100 || cfg->ncores < 1 ||
	    cfg->ncores > SIM_MAX_CORES || !(cfg->bwmax_events > 0) ||
	    !(cfg->rho >= 0) || !isfinite(cfg->rho) ||
	    !(cfg->jitter >= 0 && cfg->jitter < 1) ||
	    (cfg->speed != SIM_SPEED_LINEAR &&
	    cfg->speed != SIM_SPEED_HARMONIC))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->rng = cfg->seed;
	s->next_boundary = (double)cfg->period_ns;
	s->next_tick = 0;	/* first pick at time 0 */
	s->core_max = cfg->bwmax_events / cfg->ncores /
	    (double)cfg->period_ns;
	for (i = 0; i < cfg->ncores; i++) {
		s->core[i].cur = -1;
		s->core[i].budget = SIM_UNLIMITED;
		s->core[i].delta_task = -1;
		s->static_events[i] = SIM_UNLIMITED;
	}
	return 0;
}

void
sim_free(struct sim *s)
{
	free(s->gpu.slot);
	free(s->gpu.bitmap);
	s->gpu.slot = NULL;
	s->gpu.bitmap = NULL;
	s->gpu.loaded = 0;
}

int
sim_add_task(struct sim *s, unsigned int c, const char *name,
    double intensity)
{
	struct sim_core	*core;
	struct sim_task	*t;
	double		 max = s->core_max * 1000;	/* events per us */

	if (c >= s->cfg.ncores || s->core[c].ntasks >= SIM_MAX_TASKS ||
	    (intensity != SIM_MEM && !(intensity >= 0)))
		return -EINVAL;
	core = &s->core[c];
	t = &core->task[core->ntasks];
	memset(t, 0, sizeof(*t));
	strncpy(t->name, name, SIM_MAX_NAME);
	t->intensity = intensity == SIM_MEM || intensity > max ? max :
	    intensity;
	return (int)core->ntasks++;
}

/* ---- regulator ---- */

static void
sim_throttle(struct sim_core *c)
{
	c->throttled = 1;
	c->throttles++;
	c->delta_task = c->cur;
}

/* Set this period's budget; a core already past it stops now. */
static void
sim_set_budget(struct sim *s, unsigned int i, uint64_t budget)
{
	struct sim_core	*c = &s->core[i];

	c->budget = budget;
	if (budget == SIM_UNLIMITED) {
		c->throttled = 0;
		return;
	}
	if (!c->throttled && c->used >= (double)budget)
		sim_throttle(c);
}

/*
 * The newest plan that covers period n and is admissible: no other
 * plan's entry governed a period from its first up to n - 1 (periods on
 * the static budget do not count: every entry is at least the static
 * budget).  *refused tells whether a covering plan was turned down.
 */
static const struct sim_plan *
sim_plan_for(const struct sim *s, uint64_t n, int *refused)
{
	const struct sim_plan	*p, *best = NULL;
	uint64_t		newest = 0;
	unsigned int		i;

	*refused = 0;
	for (i = 0; i < 2; i++) {
		p = &s->plan[i];
		if (p->id == 0 || n < p->first || n - p->first >= p->len)
			continue;
		if (p->id > newest) {
			newest = p->id;
			*refused = 0;
		}
		if (p->id != s->gov_id && s->gov_id != 0 &&
		    s->gov_period >= p->first) {
			/* counted when it is the newest: a plan that came
			 * too late, not one a newer plan replaced */
			*refused |= p->id == newest;
			continue;
		}
		if (best == NULL || p->id > best->id)
			best = p;
	}
	return best;
}

/* Did the current period's plan account for held slot i as it is now? */
static int
sim_lock_accounted(const struct sim *s, unsigned int i)
{
	return s->cur_plan != 0 && (s->cur_mask & (1ull << i)) &&
	    s->cur_launches[i] == s->lock[i].launches;
}

/* Lower the current period's budgets to what the held slots the plan
 * did not account for allow; 1 when a budget went down. */
static int
sim_lock_limit(struct sim *s)
{
	const struct sim_lockslot *l;
	unsigned int	i, c;
	int		lowered = 0;

	for (i = 0; i < SIM_MAX_LOCKS; i++) {
		l = &s->lock[i];
		if (!l->open || !l->held || sim_lock_accounted(s, i))
			continue;
		for (c = 0; c < s->cfg.ncores; c++)
			if (s->core[c].budget > l->static_events) {
				sim_set_budget(s, c, l->static_events);
				lowered = 1;
			}
	}
	return lowered;
}

static int
sim_all_unlimited(const struct sim *s)
{
	unsigned int	c;

	for (c = 0; c < s->cfg.ncores; c++)
		if (s->core[c].budget != SIM_UNLIMITED)
			return 0;
	return 1;
}

/* Choose what governs the current period and set every core's budget. */
static void
sim_period_budget(struct sim *s)
{
	const struct sim_plan	*p = NULL;
	uint64_t		n = s->period, b;
	unsigned int		c, j = 0;
	int			refused = 0;

	s->cur_plan = 0;
	s->cur_mask = 0;
	s->cur_q = -1;
	if (!s->failsafe)
		p = sim_plan_for(s, n, &refused);
	s->stats.refused += refused;
	if (p != NULL) {
		j = (unsigned int)(n - p->first);
		s->cur_kind = j == 0 ? SIM_BUDGET_PLAN_FIRST :
		    SIM_BUDGET_PLAN_AHEAD;
		s->cur_plan = p->id;
		s->cur_mask = p->lock_mask;
		s->cur_q = p->q[j];
		memcpy(s->cur_launches, p->lock_launches,
		    sizeof(s->cur_launches));
		s->gov_id = p->id;
		s->gov_period = n;
	} else if (s->failsafe) {
		s->cur_kind = SIM_BUDGET_FAILSAFE;
		/*
		 * The fail-safe budget is not bounded by the static one: it
		 * counts like another plan's entry, so no plan that began at
		 * or before this period may govern after it (as the module).
		 */
		s->gov_id = SIM_GOV_FAILSAFE;
		s->gov_period = n;
	}
	else
		s->cur_kind = s->locked ? SIM_BUDGET_STATIC :
		    SIM_BUDGET_UNREGULATED;
	for (c = 0; c < s->cfg.ncores; c++) {
		if (p != NULL)
			b = p->events[j][c];
		else if (s->failsafe)
			b = s->failsafe_events;
		else
			b = s->locked ? s->static_events[c] : SIM_UNLIMITED;
		s->core[c].budget = SIM_UNLIMITED;
		sim_set_budget(s, c, b);
	}
	if (sim_lock_limit(s)) {
		s->stats.lock_limited++;
		/* a slot the daemon has not seen yet: its static budget */
		if (s->cur_kind == SIM_BUDGET_UNREGULATED)
			s->cur_kind = SIM_BUDGET_STATIC;
	}
	if (s->cur_kind == SIM_BUDGET_UNREGULATED && !sim_all_unlimited(s))
		s->cur_kind = SIM_BUDGET_STATIC;
}

static void
sim_count_period(struct sim *s)
{
	switch (s->cur_kind) {
	case SIM_BUDGET_PLAN_FIRST:
		s->stats.plan_first++;
		break;
	case SIM_BUDGET_PLAN_AHEAD:
		s->stats.plan_ahead++;
		break;
	case SIM_BUDGET_STATIC:
	case SIM_BUDGET_FAILSAFE:
		s->stats.fallbacks++;
		break;
	default:
		s->stats.unregulated++;
	}
}

static void
sim_withdraw(struct sim *s)
{
	unsigned int	i;

	for (i = 0; i < 2; i++) {
		/* count the ones that still had a period to govern */
		if (s->plan[i].id != 0 &&
		    s->plan[i].first + s->plan[i].len > s->period + 1)
			s->stats.discarded++;
		s->plan[i].id = 0;
	}
}

void
sim_lock(struct sim *s, const uint64_t *static_events)
{
	unsigned int	i;

	s->locked = 1;
	sim_withdraw(s);
	for (i = 0; i < s->cfg.ncores; i++)
		s->static_events[i] = static_events[i];
	sim_period_budget(s);
}

void
sim_unlock(struct sim *s)
{
	unsigned int	i;

	s->locked = 0;
	sim_withdraw(s);
	for (i = 0; i < s->cfg.ncores; i++)
		s->static_events[i] = SIM_UNLIMITED;
	sim_period_budget(s);
}

int
sim_apply_plan(struct sim *s, struct sim_plan *p)
{
	struct sim_plan	*dst;

	if (p->len < 1 || p->len > SIM_PLAN_MAX)
		return -EINVAL;
	/* replace the older one: the newest stays usable meanwhile */
	dst = s->plan[0].id <= s->plan[1].id ? &s->plan[0] : &s->plan[1];
	p->id = ++s->plan_ids;
	*dst = *p;
	return 0;
}

int
sim_apply(struct sim *s, uint64_t period, const uint64_t *events)
{
	struct sim_plan	p;
	unsigned int	i;

	if (period <= s->period)
		return -EINVAL;	/* too late for that period */
	memset(&p, 0, sizeof(p));
	p.first = period;
	p.len = 1;
	p.q[0] = -1;
	for (i = 0; i < s->cfg.ncores; i++)
		p.events[0][i] = events[i];
	return sim_apply_plan(s, &p);
}

int
sim_lock_slot(struct sim *s, unsigned int slot, int open,
    uint64_t static_events)
{
	if (slot >= SIM_MAX_LOCKS)
		return -EINVAL;
	if (!open || !s->lock[slot].open)
		memset(&s->lock[slot], 0, sizeof(s->lock[slot]));
	s->lock[slot].open = open != 0;
	s->lock[slot].static_events = static_events;
	return 0;
}

void
sim_lock_words(struct sim *s, unsigned int slot, int held,
    uint64_t launches)
{
	if (slot >= SIM_MAX_LOCKS || !s->lock[slot].open)
		return;
	s->lock[slot].held = held != 0;
	s->lock[slot].launches = launches;
}

int
sim_lock_kick(struct sim *s)
{
	int	lowered = sim_lock_limit(s);

	s->stats.kicks++;
	s->stats.kick_lowered += lowered;
	if (lowered && s->cur_kind == SIM_BUDGET_UNREGULATED)
		s->cur_kind = SIM_BUDGET_STATIC;
	return lowered;
}

int
sim_lock_dyn(const struct sim *s, unsigned int slot)
{
	unsigned int	c;

	if (slot >= SIM_MAX_LOCKS || !s->lock[slot].open)
		return 0;
	for (c = 0; c < s->cfg.ncores; c++)
		if (s->core[c].budget > s->lock[slot].static_events)
			return 1;
	return 0;
}

void
sim_failsafe(struct sim *s, int on, uint64_t events)
{
	s->failsafe = on != 0;
	s->failsafe_events = events;
	sim_period_budget(s);
}

/* ---- scheduler ---- */

/* CFS: least vruntime; ties go to the least recently picked task. */
static void
sim_pick(struct sim *s, struct sim_core *c)
{
	unsigned int	i;
	int		best = -1;

	for (i = 0; i < c->ntasks; i++) {
		if (best < 0 || c->task[i].vruntime < c->task[best].vruntime ||
		    (c->task[i].vruntime == c->task[best].vruntime &&
		    c->task[i].last_pick < c->task[best].last_pick))
			best = (int)i;
	}
	if (best >= 0 && best != c->cur)
		c->task[best].last_pick = ++s->picks;
	c->cur = best;
}

static void
sim_boundary(struct sim *s)
{
	struct sim_core	*c;
	struct sim_task	*t;
	unsigned int	 i, j;

	if (s->on_period != NULL)
		s->on_period(s->on_period_arg, s, s->period);
	s->period++;
	s->stats.periods++;
	s->next_boundary += (double)s->cfg.period_ns;
	for (i = 0; i < s->cfg.ncores; i++) {
		c = &s->core[i];
		/* TFS, BWLOCK++ Eq. 2 */
		if (c->delta > 0 && c->delta_task >= 0) {
			t = &c->task[c->delta_task];
			t->throttled_ns += c->delta;
			t->vruntime += s->cfg.rho * c->delta;
			t->tfs_lost += s->cfg.rho * c->delta;
		}
		for (j = 0; j < c->ntasks; j++) {
			if (c->task[j].ran_ns > 0)
				c->task[j].periods++;
			c->task[j].ran_ns = 0;
		}
		c->delta = 0;
		c->delta_task = -1;
		c->throttled = 0;
		c->used = 0;
	}
	sim_period_budget(s);
	sim_count_period(s);
}

/* ---- GPU ---- */

int
sim_gpu_load(struct sim *s, const struct wcet_kernel *wk,
    const struct progress_table *pt)
{
	struct sim_gpu	*g = &s->gpu;

	if (wk->m < 1 || pt->nclusters != wk->nclusters || g->running)
		return -EINVAL;
	free(g->slot);
	free(g->bitmap);
	memset(g, 0, sizeof(*g));
	g->wk = *wk;
	g->pt = *pt;
	g->nwords = (pt->nblocks + 63) / 64;
	/* slots beyond N would never get a block */
	g->nslots = wk->m < pt->nblocks ? wk->m : pt->nblocks;
	g->slot = calloc(g->nslots, sizeof(*g->slot));
	g->bitmap = calloc(g->nwords, sizeof(*g->bitmap));
	if (g->slot == NULL || g->bitmap == NULL) {
		sim_free(s);
		return -ENOMEM;
	}
	g->loaded = 1;
	return 0;
}

/* Start the next block (id order, global FIFO) on slot sl, if any. */
static void
sim_gpu_start(struct sim *s, struct sim_slot *sl)
{
	struct sim_gpu	*g = &s->gpu;
	const struct wcet_cluster *cl;
	double		 f;

	if (g->next >= g->pt.nblocks) {
		sl->busy = 0;
		return;
	}
	while (g->iv + 1 < g->pt.nintervals &&
	    g->pt.first[g->iv + 1] <= g->next)
		g->iv++;
	cl = &g->wk.c[g->pt.cluster[g->iv]];
	/* jitter only ever shortens a block: e0/e1 stay worst cases */
	f = 1 - s->cfg.jitter * sim_random(s);
	sl->busy = 1;
	sl->block = g->next++;
	sl->work = 1;
	sl->e0 = cl->e0 * f;
	sl->e1 = cl->e1 * f;
}

int
sim_gpu_launch(struct sim *s, int take_lock, const uint64_t *static_events)
{
	struct sim_gpu	*g = &s->gpu;
	unsigned int	 i;

	if (!g->loaded || g->running)
		return -EINVAL;
	memset(g->bitmap, 0, g->nwords * sizeof(*g->bitmap));
	g->next = 0;
	g->iv = 0;
	g->finished = 0;
	g->running = 1;
	g->launch = s->now;
	g->launches++;
	for (i = 0; i < g->nslots; i++)
		sim_gpu_start(s, &g->slot[i]);
	g->holds_lock = take_lock;
	if (take_lock)
		sim_lock(s, static_events);
	return 0;
}

/* Work per ns of a block under traffic u. */
static double
sim_speed(const struct sim *s, const struct sim_slot *sl, double u)
{
	if (s->cfg.speed == SIM_SPEED_HARMONIC)
		return 1 / (sl->e0 + (sl->e1 - sl->e0) * u);
	return (1 - u) / sl->e0 + u / sl->e1;
}

/*
 * Run the GPU for up to dt ns at traffic u, blocks finishing in time
 * order so the FIFO hands out ids as a real block scheduler would.
 * u is constant here, so each slot's time to go is work/speed, and
 * advancing all slots is a subtraction.  Returns the time used: dt, or
 * less when the kernel finished.
 */
static double
sim_gpu_advance(struct sim *s, double dt, double u)
{
	struct sim_gpu	*g = &s->gpu;
	struct sim_slot	*sl;
	double		 el = 0, best;
	unsigned int	 i, bi, m = g->nslots;

	if (!g->running)
		return dt;
	for (i = 0; i < m; i++) {
		sl = &g->slot[i];
		if (sl->busy) {
			sl->rate = sim_speed(s, sl, u);
			sl->togo = sl->work / sl->rate;
		}
	}
	for (;;) {
		best = INFINITY;
		bi = 0;
		for (i = 0; i < m; i++) {
			sl = &g->slot[i];
			if (sl->busy && sl->togo < best) {
				best = sl->togo;
				bi = i;
			}
		}
		if (best == INFINITY || el + best > dt)
			break;
		for (i = 0; i < m; i++)
			g->slot[i].togo -= best;
		el += best;
		sl = &g->slot[bi];
		g->bitmap[sl->block / 64] |= 1ull << (sl->block % 64);
		g->finished++;
		sim_gpu_start(s, sl);
		if (g->finished == g->pt.nblocks) {
			g->running = 0;
			g->finish = s->now + el;
			return el;
		}
		if (sl->busy) {
			sl->rate = sim_speed(s, sl, u);
			sl->togo = 1 / sl->rate;
		}
	}
	for (i = 0; i < m; i++) {
		sl = &g->slot[i];
		if (sl->busy) {
			sl->togo -= dt - el;
			sl->work = sl->togo > 0 ? sl->togo * sl->rate : 0;
		}
	}
	return dt;
}

/* ---- time ---- */

static double
sim_core_rate(const struct sim *s, const struct sim_core *c)
{
	if (c->throttled || c->cur < 0)
		return 0;
	return c->task[c->cur].intensity / 1000;	/* per ns */
}

/*
 * One piece of at most dt with constant rates: cut at the first
 * throttle, and at the kernel's completion.  Returns 1 when the kernel
 * finished in it.
 */
static int
sim_piece(struct sim *s, double dt)
{
	struct sim_core	*c;
	struct sim_task	*t;
	double		 r, tot = 0, ex, d = dt, used;
	unsigned int	 i;
	int		 done = 0, was;

	for (i = 0; i < s->cfg.ncores; i++) {
		c = &s->core[i];
		r = sim_core_rate(s, c);
		tot += r;
		if (r > 0 && c->budget != SIM_UNLIMITED) {
			ex = ((double)c->budget - c->used) / r;
			if (ex < d)
				d = ex > 0 ? ex : 0;
		}
	}
	s->u = tot / s->core_max / s->cfg.ncores;
	if (s->u > 1)
		s->u = 1;
	was = s->gpu.running;
	used = sim_gpu_advance(s, d, s->u);
	if (was && !s->gpu.running) {
		done = 1;
		d = used;
	}
	for (i = 0; i < s->cfg.ncores; i++) {
		c = &s->core[i];
		if (c->throttled) {
			c->delta += d;
			c->throttled_ns += d;
			continue;
		}
		if (c->cur < 0)
			continue;
		t = &c->task[c->cur];
		r = sim_core_rate(s, c);
		t->runtime += d;
		t->ran_ns += d;
		t->vruntime += d;
		t->events += r * d;
		c->events += r * d;
		c->used += r * d;
		/* the core that set the cut, and any at the same instant */
		if (c->budget != SIM_UNLIMITED && r > 0 &&
		    c->used >= (double)c->budget * (1 - 1e-12)) {
			c->used = (double)c->budget;
			sim_throttle(c);
		}
	}
	s->now += d;
	if (done && s->gpu.holds_lock) {
		s->gpu.holds_lock = 0;
		sim_unlock(s);
	}
	return done;
}

int
sim_run_until(struct sim *s, double t)
{
	struct sim_core	*c;
	double		 next;
	unsigned int	 i;

	while (s->now < t) {
		if (s->now >= s->next_tick) {
			for (i = 0; i < s->cfg.ncores; i++) {
				c = &s->core[i];
				sim_pick(s, c);
			}
			s->next_tick += (double)s->cfg.tick_ns;
		}
		next = s->now + (double)s->cfg.step_ns;
		if (t < next)
			next = t;
		if (s->next_boundary < next)
			next = s->next_boundary;
		if (s->next_tick < next)
			next = s->next_tick;
		if (sim_piece(s, next - s->now)) {
			if (s->now >= s->next_boundary)
				sim_boundary(s);
			return SIM_RUN_KERNEL_DONE;
		}
		if (s->now >= next)
			s->now = next;	/* no drift from summed pieces */
		if (s->now >= s->next_boundary)
			sim_boundary(s);
	}
	return SIM_RUN_DONE;
}

void
sim_snapshot(const struct sim *s, struct sim_snapshot *o)
{
	unsigned int	i;

	memset(o, 0, sizeof(*o));
	o->now_ns = (uint64_t)s->now;
	o->period = s->period;
	o->next_boundary_ns = (uint64_t)s->next_boundary;
	o->u = s->u;
	o->locked = s->locked;
	o->ncores = s->cfg.ncores;
	for (i = 0; i < s->cfg.ncores; i++) {
		o->core[i].budget = s->core[i].budget;
		o->core[i].used = (uint64_t)s->core[i].used;
		o->core[i].throttled = s->core[i].throttled;
		o->core[i].task = s->core[i].cur;
	}
}
