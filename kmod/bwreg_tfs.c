// SPDX-License-Identifier: GPL-2.0
/*
 * bwreg_tfs.c - TFS enforcement through the task's nice value.
 *
 * TFS ([BWLOCK++] Eq. 2) adds rho * delta to a throttled task's virtual
 * runtime at the end of the period.  A module cannot do that safely: the
 * task sits in its runqueue's tree keyed by that very value, and the
 * runqueue lock, update_curr() and the requeue are internal to
 * kernel/sched.  What a module can do safely is change the task's weight
 * with set_user_nice(), which takes the runqueue lock and reweights the
 * entity properly on CFS and on EEVDF.  A task's virtual time advances
 * by E * w0 / w for E ns of run time, so making it advance by
 * E + rho * delta over the next period needs w0 / w = 1 + rho * delta / E,
 * with E = T - delta the time it could run.  Nice steps scale the weight
 * by about 1.25 each; the penalty is the smallest number of steps that
 * reaches the factor, capped at nice 19.
 *
 * Penalties are kept per task, not per CPU: a task throttled on several
 * regulated CPUs (it migrates) has one record with its own nice value and
 * each CPU's demand; its nice is its own plus the largest demand, and it
 * goes back to its own when no CPU demands anything, at the latest when
 * regulation stops or the module is unloaded.  A CPU demands a penalty
 * for the task charged with its last throttle, and drops it after a
 * period without a throttle or a throttle charged to someone else.
 *
 * A task forked (or a thread created) by a penalized task inherits its
 * raised nice, and the module sees no fork.  So when a task gets its own
 * nice back, the tasks born from it since its penalty began that still
 * have a nice in the penalized range get the same value back: one walk
 * over the task list under RCU each time a penalized task gets its nice
 * back (tens of microseconds with a thousand tasks, in the BE CPU's
 * thread).
 *
 * All of this runs in the CPUs' throttle threads (process context) under
 * one mutex, never in the timer or irq_work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "bwreg.h"

#define BWREG_NICE_MAX	19

struct bwreg_pen {
	struct list_head	node;
	struct task_struct	*task;		/* reference held */
	int			orig;		/* its own nice */
	int			nice;		/* the nice we set */
	int			top;		/* the highest we set */
	u64			since_ns;	/* record created (monotonic) */
	u64			cpus;		/* CPUs demanding a penalty */
	u8			steps[BWREG_MAX_CPUS];
};

static LIST_HEAD(bwreg_pens);
static DEFINE_MUTEX(bwreg_pen_lock);

/* Nice steps whose weight ratio (1.25 per step) reaches 1 + rho*delta/E. */
static int bwreg_tfs_steps(u64 delta)
{
	u64 period = bwreg_conf.period_ns;
	u64 run = delta < period ? period - delta : 1;
	u64 want, w = 1000;
	int k = 0;

	want = 1000 + div64_u64(delta * READ_ONCE(bwreg_conf.rho_milli),
				max_t(u64, run, 1));
	while (w < want && k < 2 * BWREG_NICE_MAX + 1) {
		w = w * 5 / 4;
		k++;
	}
	return k;
}

static struct bwreg_pen *bwreg_pen_find(struct task_struct *t)
{
	struct bwreg_pen *p;

	list_for_each_entry(p, &bwreg_pens, node)
		if (p->task == t)
			return p;
	return NULL;
}

/* Our nice was changed by someone else: their value is the base. */
static void bwreg_pen_rebase(struct bwreg_pen *p)
{
	int now = task_nice(p->task);

	if (now != p->nice) {
		p->orig = now;
		p->nice = now;
	}
}

/*
 * t was born since p's penalty began, from p's task: a thread of its
 * process, or a process whose ancestors up to p's task were all born
 * since then.  Under rcu_read_lock().
 */
static bool bwreg_pen_descends(struct task_struct *t, const struct bwreg_pen *p)
{
	struct task_struct *a = t, *parent;

	while (a->start_time >= p->since_ns) {
		if (a != p->task && same_thread_group(a, p->task))
			return true;
		parent = rcu_dereference(a->real_parent);
		if (parent == p->task)
			return true;
		if (parent == a)
			break;
		a = parent;
	}
	return false;
}

/* A task with a record of its own is fixed through it (orig) instead. */
static bool bwreg_pen_inherited(struct task_struct *t, const struct bwreg_pen *p)
{
	int n = task_nice(t);

	return t != p->task && n > p->orig && n <= p->top &&
	       t->start_time >= p->since_ns && !bwreg_pen_find(t) &&
	       bwreg_pen_descends(t, p);
}

/*
 * p's task got its own nice back: so do the tasks that inherited a
 * penalized nice from it.  Collected in batches under RCU, changed
 * outside; a fixed task leaves the penalized range, so this ends.
 */
static void bwreg_pen_fix_children(struct bwreg_pen *p)
{
	struct task_struct *g, *t, *batch[16];
	struct bwreg_pen *q;
	unsigned int n, i;
	bool more;

	if (p->top <= p->orig)
		return;
	list_for_each_entry(q, &bwreg_pens, node) {
		rcu_read_lock();
		if (q != p && q->orig > p->orig && q->orig <= p->top &&
		    q->task->start_time >= p->since_ns &&
		    bwreg_pen_descends(q->task, p))
			q->orig = p->orig;
		rcu_read_unlock();
	}
	do {
		n = 0;
		more = false;
		rcu_read_lock();
		for_each_process_thread(g, t) {
			if (!bwreg_pen_inherited(t, p))
				continue;
			if (n == ARRAY_SIZE(batch)) {
				more = true;
				break;
			}
			get_task_struct(t);
			batch[n++] = t;
		}
		rcu_read_unlock();
		for (i = 0; i < n; i++) {
			set_user_nice(batch[i], p->orig);
			put_task_struct(batch[i]);
		}
	} while (more);
}

/* Set the task's nice to its own plus the largest demand; free when none. */
static void bwreg_pen_apply(struct bwreg_pen *p)
{
	int steps = 0, want;
	unsigned int cpu;

	bwreg_pen_rebase(p);
	for (cpu = 0; cpu < BWREG_MAX_CPUS; cpu++)
		if (p->cpus & BIT_ULL(cpu))
			steps = max_t(int, steps, p->steps[cpu]);
	want = min(p->orig + steps, BWREG_NICE_MAX);
	if (want != p->nice) {
		set_user_nice(p->task, want);
		p->nice = want;
		p->top = max(p->top, want);
	}
	if (p->cpus)
		return;
	list_del(&p->node);
	bwreg_pen_fix_children(p);
	put_task_struct(p->task);
	kfree(p);
}

/* Drop CPU c's demand; under bwreg_pen_lock. */
static void bwreg_pen_drop(struct bwreg_cpu *c)
{
	struct bwreg_pen *p = c->pen;

	if (!p)
		return;
	WRITE_ONCE(c->pen, NULL);
	WRITE_ONCE(c->pen_steps, 0);
	p->cpus &= ~BIT_ULL(c->cpu);
	p->steps[c->cpu] = 0;
	bwreg_pen_apply(p);
}

/* CPU c demands `steps` for t; consumes the reference on t. */
static void bwreg_pen_demand(struct bwreg_cpu *c, struct task_struct *t,
			     int steps)
{
	struct bwreg_pen *p = bwreg_pen_find(t);

	if (c->pen && c->pen != p)
		bwreg_pen_drop(c);
	if (!p) {
		if (t->policy != SCHED_NORMAL && t->policy != SCHED_BATCH) {
			put_task_struct(t);
			return;
		}
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (!p) {
			put_task_struct(t);
			return;
		}
		p->task = t;
		p->orig = task_nice(t);
		p->nice = p->orig;
		p->top = p->orig;
		p->since_ns = ktime_get_ns();
		list_add(&p->node, &bwreg_pens);
	} else {
		put_task_struct(t);
	}
	p->cpus |= BIT_ULL(c->cpu);
	p->steps[c->cpu] = (u8)steps;
	WRITE_ONCE(c->pen, p);
	bwreg_pen_apply(p);
	WRITE_ONCE(c->pen_steps, p->nice - p->orig);
}

/*
 * A throttle of CPU c ended after delta ns, charged to t (a reference
 * this consumes) or to nobody (t NULL): t's penalty from c follows delta,
 * and c no longer penalizes anyone else.
 */
void bwreg_tfs_after_throttle(struct bwreg_cpu *c, struct task_struct *t,
			      u64 delta)
{
	mutex_lock(&bwreg_pen_lock);
	if (t)
		bwreg_pen_demand(c, t, bwreg_tfs_steps(delta));
	else
		bwreg_pen_drop(c);
	mutex_unlock(&bwreg_pen_lock);
}

/* A period without a throttle (or the CPU stops): lift c's demand. */
void bwreg_tfs_release(struct bwreg_cpu *c)
{
	mutex_lock(&bwreg_pen_lock);
	bwreg_pen_drop(c);
	mutex_unlock(&bwreg_pen_lock);
}

/* Regulation stopped: every task gets its own nice back. */
void bwreg_tfs_release_all(void)
{
	struct bwreg_pen *p, *n;
	unsigned int cpu;

	mutex_lock(&bwreg_pen_lock);
	/* Called with every throttle thread stopped. */
	for_each_possible_cpu(cpu) {
		WRITE_ONCE(bwreg_cpu_of(cpu)->pen, NULL);
		WRITE_ONCE(bwreg_cpu_of(cpu)->pen_steps, 0);
	}
	list_for_each_entry_safe(p, n, &bwreg_pens, node) {
		p->cpus = 0;
		bwreg_pen_apply(p);
	}
	mutex_unlock(&bwreg_pen_lock);
}
