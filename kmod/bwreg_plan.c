// SPDX-License-Identifier: GPL-2.0
/*
 * bwreg_plan.c - the budget of each period (kmod/uapi/bwreg.h): the
 * daemon's plans and their admissibility, the static budget, the lock
 * slots' caps and the heartbeat watchdog.
 *
 * The first regulated CPU whose timer reaches period n decides for every
 * CPU, under bwreg_dec_lock, a raw spinlock (hard interrupt context, also
 * on PREEMPT_RT).  It copies the chosen entry into bwreg_dec, so the other
 * CPUs take exactly the same budgets without reading the daemon's page
 * again: no CPU can see a torn or rewritten entry.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/irq_work.h>
#include <linux/math64.h>

#include "bwreg.h"

DEFINE_RAW_SPINLOCK(bwreg_dec_lock);
struct bwreg_decision bwreg_dec;
struct bwreg_lockf *bwreg_slots[BWREG_MAX_LOCKS];

/*
 * Admissibility needs only the last period an entry governed and its
 * plan: a plan that governed period g was admissible then, so no other
 * plan governed between its first period and g (doc/kmod.md).
 */
static u64 bwreg_gov_period;
static u64 bwreg_gov_id;		/* 0: no plan governed yet */
/* The last fail-safe period breaks admissibility like another plan. */
static u64 bwreg_fs_period = BWREG_NO_PERIOD;

static u64 bwreg_hb_last;		/* heartbeat value last seen */
static u64 bwreg_hb_last_ns;		/* when it last changed */
static bool bwreg_failsafe;

/* Scratch of the decider, under bwreg_dec_lock. */
static u64 bwreg_lock_static[BWREG_MAX_LOCKS];
static u64 bwreg_plan_launches[BWREG_MAX_LOCKS];

static unsigned long bwreg_msg;		/* messages for bwreg_msg_work */
static struct irq_work bwreg_msg_work;

#define BWREG_MSG_FAILSAFE	0
#define BWREG_MSG_RESUMED	1

/* Messages are printed from a normal irq_work, not from the hard timer. */
static void bwreg_msg_fn(struct irq_work *w)
{
	if (test_and_clear_bit(BWREG_MSG_FAILSAFE, &bwreg_msg))
		pr_warn("daemon heartbeat stopped for more than %llu ms: fail-safe budget of %llu events per period applies\n",
			div_u64(bwreg_conf.hb_timeout_ns, NSEC_PER_MSEC),
			bwreg_conf.failsafe_events);
	if (test_and_clear_bit(BWREG_MSG_RESUMED, &bwreg_msg))
		pr_info("daemon heartbeat resumed: daemon budgets apply again\n");
}

static void bwreg_post(int msg)
{
	set_bit(msg, &bwreg_msg);
	irq_work_queue(&bwreg_msg_work);
}

/* Heartbeat watchdog; true while the fail-safe budget applies. */
static bool bwreg_heartbeat_stopped(u64 now)
{
	u64 hb = READ_ONCE(bwreg_page->heartbeat);

	if (!bwreg_conf.hb_timeout_ns)
		return false;
	if (hb != bwreg_hb_last) {
		bwreg_hb_last = hb;
		bwreg_hb_last_ns = now;
		if (bwreg_failsafe) {
			bwreg_failsafe = false;
			WRITE_ONCE(bwreg_page->failsafe, 0);
			bwreg_post(BWREG_MSG_RESUMED);
		}
	} else if (!bwreg_failsafe &&
		   now - bwreg_hb_last_ns > bwreg_conf.hb_timeout_ns) {
		bwreg_failsafe = true;
		WRITE_ONCE(bwreg_page->failsafe, 1);
		bwreg_post(BWREG_MSG_FAILSAFE);
	}
	return bwreg_failsafe;
}

/* Held slots, and every valid slot's static budget into the scratch. */
static u64 bwreg_held_slots(void)
{
	u64 held = 0;
	unsigned int s;

	for (s = 0; s < BWREG_MAX_LOCKS; s++) {
		struct bwreg_lockf *lf = bwreg_slots[s];

		if (!lf)
			continue;
		bwreg_lock_static[s] = READ_ONCE(bwreg_page->lock_static[s]);
		if (READ_ONCE(lf->pg->held))
			held |= BIT_ULL(s);
	}
	return held;
}

/* The lowest static budget of the held slots in mask. */
static u64 bwreg_cap_of(u64 mask)
{
	u64 cap = BWREG_UNLIMITED;
	unsigned int s;

	for (s = 0; s < BWREG_MAX_LOCKS; s++)
		if ((mask & BIT_ULL(s)) && bwreg_lock_static[s] < cap)
			cap = bwreg_lock_static[s];
	return cap;
}

/* One plan buffer as read at the start of a consistent read. */
struct bwreg_plan_view {
	const struct bwreg_plan	*pl;
	u64			seq;
	u64			id;
	u64			first;
	u64			mask;
	u32			len;
};

/* Read a buffer's header; false if it is being written, empty or bad. */
static bool bwreg_plan_head(const struct bwreg_plan *pl,
			    struct bwreg_plan_view *v)
{
	v->pl = pl;
	v->seq = smp_load_acquire(&pl->seq);
	if (v->seq & 1)
		return false;
	v->id = READ_ONCE(pl->id);
	v->first = READ_ONCE(pl->first);
	v->len = READ_ONCE(pl->len);
	v->mask = READ_ONCE(pl->lock_mask);
	return v->id && v->len >= 1 && v->len <= BWREG_PLAN_MAX;
}

static bool bwreg_plan_covers(const struct bwreg_plan_view *v, u64 n)
{
	return n >= v->first && n - v->first < v->len;
}

/* No other plan, and no fail-safe period, since this plan's first. */
static bool bwreg_plan_admissible(const struct bwreg_plan_view *v)
{
	if (bwreg_fs_period != BWREG_NO_PERIOD &&
	    bwreg_fs_period >= v->first)
		return false;
	return !bwreg_gov_id || bwreg_gov_id == v->id ||
	       bwreg_gov_period < v->first;
}

/*
 * Copy the entry for n and the launch counts of the held slots the plan
 * accounted for; false if the buffer changed meanwhile (then the copy is
 * garbage and unused).
 */
static bool bwreg_plan_copy(const struct bwreg_plan_view *v, u64 n,
			    u64 held, struct bwreg_decision *d)
{
	const struct bwreg_plan *pl = v->pl;
	u64 j = n - v->first, acc = held & v->mask;
	unsigned int cpu, s;

	for (cpu = 0; cpu < BWREG_MAX_CPUS; cpu++)
		if (bwreg_conf.cpumask & BIT_ULL(cpu))
			d->events[cpu] = READ_ONCE(pl->events[j][cpu]);
	for (s = 0; s < BWREG_MAX_LOCKS; s++)
		if (acc & BIT_ULL(s))
			bwreg_plan_launches[s] = READ_ONCE(pl->lock_launches[s]);
	smp_rmb();
	return READ_ONCE(pl->seq) == v->seq;
}

/*
 * The held slots the plan did not account for: not in its mask, or
 * launched since.  dyn is raised before the launch counts are read, so an
 * application that bumps launches and then reads dyn (with a full barrier
 * between, uapi/bwreg.h) either sees dyn = 1 and kicks, or its launch
 * count is seen here and the slot caps the budget.
 */
static u64 bwreg_unaccounted(u64 held, u64 mask)
{
	u64 acc = held & mask, out = held & ~mask;
	unsigned int s;

	for (s = 0; s < BWREG_MAX_LOCKS; s++)
		if (acc & BIT_ULL(s))
			WRITE_ONCE(bwreg_slots[s]->pg->dyn, 1);
	smp_mb();
	for (s = 0; s < BWREG_MAX_LOCKS; s++)
		if ((acc & BIT_ULL(s)) &&
		    READ_ONCE(bwreg_slots[s]->pg->launches) !=
		    bwreg_plan_launches[s])
			out |= BIT_ULL(s);
	return out;
}

/* The newest consistent, covering, admissible plan governs n. */
static bool bwreg_pick_plan(u64 n, struct bwreg_decision *d)
{
	struct bwreg_plan_view v[2], *order[2];
	bool ok[2];
	unsigned int i;

	ok[0] = bwreg_plan_head(&bwreg_page->plan[0], &v[0]);
	ok[1] = bwreg_plan_head(&bwreg_page->plan[1], &v[1]);
	order[0] = &v[0];
	order[1] = &v[1];
	if (ok[1] && (!ok[0] || v[1].id > v[0].id)) {
		swap(order[0], order[1]);
		swap(ok[0], ok[1]);
	}
	for (i = 0; i < 2; i++) {
		if (!ok[i] || !bwreg_plan_covers(order[i], n))
			continue;
		if (!bwreg_plan_admissible(order[i])) {
			d->refused = true;
			continue;
		}
		if (!bwreg_plan_copy(order[i], n, d->held, d))
			continue;
		d->kind = n == order[i]->first ? BWREG_GOV_FIRST :
			  BWREG_GOV_AHEAD;
		d->plan_id = order[i]->id;
		d->cap = bwreg_cap_of(bwreg_unaccounted(d->held,
							order[i]->mask));
		bwreg_gov_period = n;
		bwreg_gov_id = d->plan_id;
		return true;
	}
	return false;
}

/* dyn of every valid slot: some CPU's budget is above its static one. */
static void bwreg_update_dyn(const struct bwreg_decision *d)
{
	u64 top = 0;
	unsigned int cpu, s;

	for (cpu = 0; cpu < BWREG_MAX_CPUS; cpu++)
		if (bwreg_conf.cpumask & BIT_ULL(cpu))
			top = max(top, min(d->events[cpu], d->cap));
	for (s = 0; s < BWREG_MAX_LOCKS; s++)
		if (bwreg_slots[s])
			WRITE_ONCE(bwreg_slots[s]->pg->dyn,
				   top > bwreg_lock_static[s]);
}

static void bwreg_publish(const struct bwreg_decision *d)
{
	struct bwreg_page *pg = bwreg_page;

	WRITE_ONCE(pg->next_boundary_ns,
		   bwreg_conf.base_ns + (d->period + 1) * bwreg_conf.period_ns);
	WRITE_ONCE(pg->plan_id, d->plan_id);
	WRITE_ONCE(pg->lock_held, d->held);
	smp_wmb();
	WRITE_ONCE(pg->period, d->period);
}

static void bwreg_decide(u64 n, u64 now)
{
	struct bwreg_decision *d = &bwreg_dec;
	unsigned int cpu;

	d->period = n;
	d->plan_id = 0;
	d->refused = false;
	d->held = bwreg_held_slots();
	if (bwreg_heartbeat_stopped(now)) {
		d->kind = BWREG_GOV_FAILSAFE;
		for (cpu = 0; cpu < BWREG_MAX_CPUS; cpu++)
			d->events[cpu] = bwreg_conf.failsafe_events;
		d->cap = bwreg_cap_of(d->held);
		bwreg_fs_period = n;
	} else if (!bwreg_pick_plan(n, d)) {
		d->kind = BWREG_GOV_STATIC;
		for (cpu = 0; cpu < BWREG_MAX_CPUS; cpu++)
			if (bwreg_conf.cpumask & BIT_ULL(cpu))
				d->events[cpu] =
					READ_ONCE(bwreg_page->static_events[cpu]);
		d->cap = bwreg_cap_of(d->held);
	}
	bwreg_update_dyn(d);
	bwreg_publish(d);
}

/*
 * Under bwreg_dec_lock: the decision for the period `now` lies in.  A
 * CPU whose timer ran late may find a later period already decided; it
 * takes that one (periods only move forward).
 */
const struct bwreg_decision *bwreg_plan_decide(u64 now)
{
	u64 n = bwreg_period_of(now);

	if (bwreg_dec.period == BWREG_NO_PERIOD || n > bwreg_dec.period)
		bwreg_decide(n, now);
	return &bwreg_dec;
}

/* A new configuration: nothing decided, no plan governed, heartbeat now. */
void bwreg_plan_reset(u64 now)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&bwreg_dec_lock, flags);
	bwreg_dec.period = BWREG_NO_PERIOD;
	bwreg_dec.plan_id = 0;
	bwreg_dec.held = 0;
	bwreg_gov_id = 0;
	bwreg_gov_period = 0;
	bwreg_fs_period = BWREG_NO_PERIOD;
	bwreg_hb_last = READ_ONCE(bwreg_page->heartbeat);
	bwreg_hb_last_ns = now;
	bwreg_failsafe = false;
	WRITE_ONCE(bwreg_page->failsafe, 0);
	raw_spin_unlock_irqrestore(&bwreg_dec_lock, flags);
}

void bwreg_plan_stats(struct bwreg_stats *st)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&bwreg_dec_lock, flags);
	st->failsafe = bwreg_core_running() && bwreg_failsafe;
	st->plan_id = bwreg_core_running() ? bwreg_dec.plan_id : 0;
	st->lock = bwreg_lock_st;
	st->lock.held = bwreg_dec.held;
	raw_spin_unlock_irqrestore(&bwreg_dec_lock, flags);
}

void bwreg_plan_init(void)
{
	init_irq_work(&bwreg_msg_work, bwreg_msg_fn);
	bwreg_dec.period = BWREG_NO_PERIOD;
}

void bwreg_plan_exit(void)
{
	irq_work_sync(&bwreg_msg_work);
}
