// SPDX-License-Identifier: GPL-2.0
/*
 * bwreg_tfs.c - TFS enforcement through the task's nice value.
 *
 * TFS (seed 001, Eq. 2) adds rho * delta to a throttled task's virtual
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
 * reaches the factor, capped at nice 19.  It is recomputed after every
 * throttled period and lifted after the first period without a throttle.
 *
 * All of this runs in the CPU's throttle thread (process context), never
 * in the timer or irq_work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

#include "bwreg.h"

#define BWREG_NICE_MAX	19

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

void bwreg_tfs_restore(struct bwreg_cpu *c)
{
	struct task_struct *t = c->pen_task;

	WRITE_ONCE(c->penalized, 0);
	WRITE_ONCE(c->pen_steps, 0);
	if (!t)
		return;
	/* Leave the task alone if someone else changed its nice meanwhile. */
	if (task_nice(t) == c->pen_nice)
		set_user_nice(t, c->pen_orig);
	put_task_struct(t);
	c->pen_task = NULL;
}

/* Consumes the reference on t. */
void bwreg_tfs_penalize(struct bwreg_cpu *c, struct task_struct *t,
			u64 delta)
{
	int steps, nice;

	if (c->pen_task && c->pen_task != t)
		bwreg_tfs_restore(c);
	if (!c->pen_task) {
		if (t->policy != SCHED_NORMAL && t->policy != SCHED_BATCH) {
			put_task_struct(t);
			return;
		}
		c->pen_task = t;
		c->pen_orig = task_nice(t);
		c->pen_nice = c->pen_orig;
	} else {
		put_task_struct(t);
		if (task_nice(c->pen_task) != c->pen_nice) {
			/* Changed by someone else: their value is the base. */
			c->pen_orig = task_nice(c->pen_task);
			c->pen_nice = c->pen_orig;
		}
	}
	steps = bwreg_tfs_steps(delta);
	nice = min(c->pen_orig + steps, BWREG_NICE_MAX);
	if (nice != c->pen_nice) {
		set_user_nice(c->pen_task, nice);
		c->pen_nice = nice;
	}
	WRITE_ONCE(c->pen_steps, c->pen_nice - c->pen_orig);
	WRITE_ONCE(c->penalized, 1);
}
