// SPDX-License-Identifier: GPL-2.0
/*
 * bwreg_core.c - per-CPU regulation: the period timer, the budget counter,
 * the throttle thread, kicks and CPU hotplug (BWLOCK++ Algorithm 2 on the
 * MemGuard design).
 *
 * Contexts.  The period timer is a pinned hard hrtimer and the throttle
 * irq_work a hard irq_work: both run in hard interrupt context on their
 * own CPU, also on PREEMPT_RT.  The counter's overflow handler may run in
 * NMI context (hardware PMUs), so it only queues the irq_work.  The
 * counter is driven only through the perf API (perf_event_pause(),
 * perf_event_period(), perf_event_enable()), which takes the event
 * context's mutex, so every counter operation happens in the CPU's
 * throttle thread: a SCHED_FIFO kthread bound to the CPU that also holds
 * the CPU while it is throttled.
 *
 * A period boundary therefore has two steps: the timer switches to the
 * new period (decision, stats, release of a throttle) and wakes the
 * thread; the thread re-arms the counter with the new budget.  The thread
 * preempts every fair-class task at once, so best-effort work does not
 * run in between.  The counter remembers the period it was armed for
 * (`armed`); an overflow of a counter armed for another period than the
 * current one is stale and ignored (it can only come from the gap
 * between the two steps).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/sched/rt.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>

#include "bwreg.h"

static DEFINE_PER_CPU(struct bwreg_cpu, bwreg_cpus);

static int bwreg_hp_state;		/* dynamic cpuhp state, 0: stopped */
static bool bwreg_setting_up;		/* online errors fail the config */
DECLARE_WAIT_QUEUE_HEAD(bwreg_kick_wq);

struct bwreg_cpu *bwreg_cpu_of(unsigned int cpu)
{
	return per_cpu_ptr(&bwreg_cpus, cpu);
}

u64 bwreg_period_of(u64 now)
{
	if (now < bwreg_conf.base_ns)
		return 0;
	return div64_u64(now - bwreg_conf.base_ns, bwreg_conf.period_ns);
}

static u64 bwreg_boundary(u64 n)
{
	return bwreg_conf.base_ns + n * bwreg_conf.period_ns;
}

/* Copy a CPU's statistics word by word (the page is read concurrently). */
static void bwreg_copy_stats(struct bwreg_cpu_stats *dst,
			     const struct bwreg_cpu *c)
{
	const u64 *s = (const u64 *)&c->st;
	u64 *d = (u64 *)dst;
	unsigned int i;

	BUILD_BUG_ON(sizeof(c->st) % sizeof(u64));
	for (i = 0; i < sizeof(c->st) / sizeof(u64); i++)
		WRITE_ONCE(d[i], READ_ONCE(s[i]));
	WRITE_ONCE(dst->flags, READ_ONCE(c->st.flags) |
		   (min_t(u32, READ_ONCE(c->pen_steps), 0xff) <<
		    BWREG_CPU_NICE_SHIFT));
}

/* Take the period `now` lies in; interrupts off. */
static void bwreg_adopt(struct bwreg_cpu *c, u64 now)
{
	const struct bwreg_decision *d;
	u64 ev;

	raw_spin_lock(&bwreg_dec_lock);
	d = bwreg_plan_decide(now);
	ev = d->events[c->cpu];
	c->period = d->period;
	c->budget = min(ev, d->cap);
	c->st.periods++;
	switch (d->kind) {
	case BWREG_GOV_FIRST:
		c->st.plan_first++;
		break;
	case BWREG_GOV_AHEAD:
		c->st.plan_ahead++;
		break;
	case BWREG_GOV_FAILSAFE:
		c->st.failsafe++;
		break;
	case BWREG_GOV_STATIC:
		if (ev >= BWREG_MAX_BUDGET && !d->held)
			c->st.unregulated++;
		else
			c->st.fallbacks++;
		break;
	}
	if (d->refused)
		c->st.refused++;
	if (d->cap < ev)
		c->st.lock_limited++;
	raw_spin_unlock(&bwreg_dec_lock);
}

/* Release a throttled CPU and charge delta (TFS Eq. 2: V += rho * delta). */
static void bwreg_unthrottle(struct bwreg_cpu *c, u64 now)
{
	u32 rho = READ_ONCE(bwreg_conf.rho_milli);
	u64 delta;

	if (!READ_ONCE(c->throttled))
		return;
	delta = now > c->throttle_start ? now - c->throttle_start : 0;
	c->st.throttled_ns += delta;
	if (c->charged_pid)
		c->st.tfs_charge_ns += div_u64(delta * rho, 1000);
	c->last_delta = delta;
	c->st.flags &= ~BWREG_CPU_THROTTLED;
	smp_store_release(&c->throttled, 0);
}

/* End the current period and start the one `now` is in (hard irq). */
static void bwreg_new_period(struct bwreg_cpu *c, u64 now)
{
	if (READ_ONCE(c->throttled))
		bwreg_unthrottle(c, now);
	else if (READ_ONCE(c->pen))
		WRITE_ONCE(c->restore, 1);	/* no throttle: lift TFS */
	bwreg_adopt(c, now);
	WRITE_ONCE(c->rearm, 1);
	bwreg_copy_stats(&bwreg_page->stats[c->cpu], c);
	wake_up_process(c->thread);
}

static enum hrtimer_restart bwreg_timer_fn(struct hrtimer *t)
{
	struct bwreg_cpu *c = container_of(t, struct bwreg_cpu, timer);

	if (!READ_ONCE(c->active))
		return HRTIMER_NORESTART;
	bwreg_new_period(c, ktime_get_ns());
	hrtimer_set_expires(t, ns_to_ktime(bwreg_boundary(c->period + 1)));
	return HRTIMER_RESTART;
}

/*
 * Overflow: the budget is used up.  May run in NMI context.  A counter
 * armed for an earlier period is stale (the timer has switched, the
 * thread has not re-armed yet) and must not throttle the new period.
 */
static void bwreg_overflow(struct perf_event *e, struct perf_sample_data *d,
			   struct pt_regs *regs)
{
	struct bwreg_cpu *c = e->overflow_handler_context;
	u64 armed = READ_ONCE(c->armed);

	if (!READ_ONCE(c->active) || READ_ONCE(c->throttled) ||
	    armed != READ_ONCE(c->period) ||
	    READ_ONCE(c->budget) >= BWREG_MAX_BUDGET)
		return;
	c->ov_period = armed;
	c->ov_ns = ktime_get_mono_fast_ns();
	irq_work_queue(&c->throttle_work);
}

/* Mark the CPU throttled; its thread holds it.  Interrupts off. */
static void bwreg_start_throttle(struct bwreg_cpu *c)
{
	c->throttle_start = ktime_get_ns();
	c->st.throttles++;
	c->st.flags |= BWREG_CPU_THROTTLED;
	WRITE_ONCE(c->throttled, 1);
}

/* Hard irq_work on the overflowing CPU: start throttling it. */
static void bwreg_throttle_fn(struct irq_work *w)
{
	struct bwreg_cpu *c = container_of(w, struct bwreg_cpu, throttle_work);
	struct task_struct *t = current;

	if (!READ_ONCE(c->active) || READ_ONCE(c->throttled) ||
	    c->ov_period != c->period || c->armed != c->period ||
	    c->budget >= BWREG_MAX_BUDGET)
		return;
	/* Charge user tasks of the fair class only: not idle, not kthreads. */
	if (is_idle_task(t) || (t->flags & PF_KTHREAD) || rt_task(t))
		c->charged_pid = 0;
	else
		c->charged_pid = task_pid_nr(t);
	if (c->charged_pid) {
		c->st.last_pid = c->charged_pid;
		/* The thread takes this reference (bwreg_tfs_after_throttle). */
		if ((bwreg_conf.flags & BWREG_CFG_TFS_NICE) &&
		    !READ_ONCE(c->charged_task)) {
			get_task_struct(t);
			WRITE_ONCE(c->charged_task, t);
		}
	}
	WRITE_ONCE(c->lat_ov, c->ov_ns);
	bwreg_start_throttle(c);
	wake_up_process(c->thread);
}

static bool bwreg_kick_pending(struct bwreg_cpu *c)
{
	return READ_ONCE(c->kick_req) != READ_ONCE(c->kick_done);
}

/* Tell the kicker this CPU has applied kick `req`. */
static void bwreg_kick_ack(struct bwreg_cpu *c, u64 req, bool lowered)
{
	if (lowered)
		WRITE_ONCE(c->kick_lowered, req);
	WRITE_ONCE(c->kick_ack_ns, ktime_get_ns());
	smp_store_release(&c->kick_done, req);
	wake_up_all(&bwreg_kick_wq);
}

/*
 * Arm the counter for the rest of the current period (thread context, on
 * the CPU): at a boundary with the new budget, after a kick with the
 * lowered one less what the CPU used in this period.  A kick that leaves
 * nothing throttles at once.
 */
static void bwreg_arm(struct bwreg_cpu *c)
{
	struct perf_event *e = c->event;
	u64 req = smp_load_acquire(&c->kick_req);
	u64 kcap = xchg(&c->kick_cap, BWREG_UNLIMITED);
	u64 cnt, used, b, left = 0;
	bool lowered = false;
	unsigned long flags;

	cnt = perf_event_pause(e, true);
	local_irq_save(flags);
	WRITE_ONCE(c->st.events, c->st.events + cnt);
	used = c->armed == c->period ? c->used + cnt : 0;
	if (kcap < c->budget) {
		c->budget = kcap;
		lowered = true;
	}
	b = c->budget;
	c->used = used;
	WRITE_ONCE(c->rearm, 0);
	WRITE_ONCE(c->armed, BWREG_NO_PERIOD);
	if (READ_ONCE(c->throttled)) {
		/* throttled meanwhile: stay paused while held */
	} else if (b < BWREG_MAX_BUDGET && used && used >= b) {
		c->charged_pid = 0;	/* the task preempted is unknown */
		bwreg_start_throttle(c);
	} else {
		left = b >= BWREG_MAX_BUDGET ? BWREG_MAX_BUDGET :
		       max_t(u64, b - used, 1);
		WRITE_ONCE(c->armed, c->period);
	}
	local_irq_restore(flags);
	if (left) {
		if (perf_event_period(e, left))
			pr_warn_once("perf_event_period(%llu) failed on CPU %u\n",
				     left, c->cpu);
		perf_event_enable(e);
	}
	if (req != READ_ONCE(c->kick_done))
		bwreg_kick_ack(c, req, lowered);
}

/*
 * Throttle latency, overflow to the CPU held: log-linear buckets (four
 * per power of two) read through debugfs.
 */
struct bwreg_lat {
	u64	count;
	u64	sum_ns;
	u64	max_ns;
	u32	bucket[BWREG_LAT_BUCKETS];
};
static DEFINE_PER_CPU(struct bwreg_lat, bwreg_lats);

static unsigned int bwreg_lat_bucket(u64 ns)
{
	unsigned int lg, b;

	if (ns < 4)
		return (unsigned int)ns;
	lg = fls64(ns) - 1;
	b = lg * 4 + (unsigned int)((ns >> (lg - 2)) & 3);
	return min_t(unsigned int, b, BWREG_LAT_BUCKETS - 1);
}

/* Lower bound of bucket b in ns (for the reader); 4-7 are never used. */
u64 bwreg_lat_floor(unsigned int b)
{
	if (b < 8)
		return min(b, 4U);
	return (4ULL | (b & 3)) << (b / 4 - 2);
}

static void bwreg_lat_note(struct bwreg_cpu *c)
{
	struct bwreg_lat *l = per_cpu_ptr(&bwreg_lats, c->cpu);
	u64 ov = xchg(&c->lat_ov, 0), ns;

	if (!ov)
		return;
	ns = ktime_get_mono_fast_ns() - ov;
	l->count++;
	l->sum_ns += ns;
	l->max_ns = max(l->max_ns, ns);
	l->bucket[bwreg_lat_bucket(ns)]++;
}

/* Histogram of one CPU; false when it is not regulated. */
bool bwreg_core_lat(unsigned int cpu, u64 *count, u64 *sum, u64 *max,
		    u32 *bucket)
{
	struct bwreg_lat *l = per_cpu_ptr(&bwreg_lats, cpu);

	*count = READ_ONCE(l->count);
	*sum = READ_ONCE(l->sum_ns);
	*max = READ_ONCE(l->max_ns);
	memcpy(bucket, l->bucket, sizeof(l->bucket));
	return cpu < BWREG_MAX_CPUS && (bwreg_conf.cpumask & BIT_ULL(cpu));
}

/* The CPU is held: stop the counter (no overflow interrupts meanwhile). */
static void bwreg_hold_start(struct bwreg_cpu *c)
{
	unsigned long flags;
	u64 cnt;

	bwreg_lat_note(c);
	if (READ_ONCE(c->armed) == BWREG_NO_PERIOD)
		return;
	cnt = perf_event_pause(c->event, true);
	local_irq_save(flags);
	WRITE_ONCE(c->st.events, c->st.events + cnt);
	if (c->armed == c->period)
		c->used += cnt;
	WRITE_ONCE(c->armed, BWREG_NO_PERIOD);
	local_irq_restore(flags);
}

/*
 * Hold the CPU until the period timer clears c->throttled.  On arm64
 * smp_cond_load_acquire() waits in WFE (woken by a store to the line, or
 * the event stream); elsewhere it spins with cpu_relax().  The deadline
 * bounds the hold if the timer is gone.  Kicks are acknowledged while
 * held: nothing runs, so there is nothing to lower.
 */
static void bwreg_hold(struct bwreg_cpu *c)
{
	u64 deadline = ktime_get_ns() + 2 * bwreg_conf.period_ns;
	u64 req;

	bwreg_hold_start(c);
	for (;;) {
		smp_cond_load_acquire(&c->throttled,
				      !VAL || ktime_get_ns() > deadline ||
				      !READ_ONCE(c->active) ||
				      kthread_should_stop() ||
				      bwreg_kick_pending(c));
		if (!READ_ONCE(c->throttled) || !bwreg_kick_pending(c) ||
		    ktime_get_ns() > deadline)
			break;
		req = smp_load_acquire(&c->kick_req);
		c->budget = min(c->budget, xchg(&c->kick_cap,
						BWREG_UNLIMITED));
		bwreg_kick_ack(c, req, false);
	}
}

static bool bwreg_thread_has_work(struct bwreg_cpu *c)
{
	if (READ_ONCE(c->restore))
		return true;
	if (!READ_ONCE(c->active))
		return false;
	return READ_ONCE(c->rearm) || bwreg_kick_pending(c) ||
	       READ_ONCE(c->throttled);
}

static void bwreg_thread_work(struct bwreg_cpu *c)
{
	if (READ_ONCE(c->active) &&
	    (READ_ONCE(c->rearm) || bwreg_kick_pending(c)))
		bwreg_arm(c);
	if (READ_ONCE(c->throttled) && READ_ONCE(c->active)) {
		bwreg_hold(c);
		if (READ_ONCE(c->throttled))
			return;
		/* Released by the boundary: arm first, then TFS. */
		if (READ_ONCE(c->active) && READ_ONCE(c->rearm))
			bwreg_arm(c);
		bwreg_tfs_after_throttle(c, xchg(&c->charged_task, NULL),
					 READ_ONCE(c->last_delta));
	}
	if (xchg(&c->restore, 0) && !READ_ONCE(c->throttled))
		bwreg_tfs_release(c);
}

static int bwreg_thread_fn(void *data)
{
	struct bwreg_cpu *c = data;
	struct task_struct *t;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		if (!bwreg_thread_has_work(c)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		bwreg_thread_work(c);
	}
	t = xchg(&c->charged_task, NULL);
	if (t)
		put_task_struct(t);
	bwreg_tfs_release(c);
	return 0;
}

/*
 * Post a kick to every regulated CPU: lower its budget for the rest of
 * the current period to at most cap.  Called under bwreg_dec_lock, so a
 * CPU is either active (its thread exists and will acknowledge) or skipped.
 * Returns the CPUs posted to.
 */
u64 bwreg_core_kick(u64 cap, u64 seq)
{
	u64 mask = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < BWREG_MAX_CPUS; cpu++) {
		struct bwreg_cpu *c;
		u64 old;

		if (!(bwreg_conf.cpumask & BIT_ULL(cpu)))
			continue;
		c = per_cpu_ptr(&bwreg_cpus, cpu);
		if (!READ_ONCE(c->active))
			continue;
		/* The thread takes the cap with xchg(): lower it atomically. */
		old = READ_ONCE(c->kick_cap);
		while (cap < old) {
			u64 prev = cmpxchg(&c->kick_cap, old, cap);

			if (prev == old)
				break;
			old = prev;
		}
		smp_store_release(&c->kick_req, seq);
		wake_up_process(c->thread);
		mask |= BIT_ULL(cpu);
	}
	return mask;
}

/*
 * Every CPU in mask applied kick seq (or stopped regulating); *ack_ns:
 * the latest acknowledgement among them.
 */
bool bwreg_core_kick_done(u64 seq, u64 mask, bool *lowered, u64 *ack_ns)
{
	unsigned int cpu;

	for (cpu = 0; cpu < BWREG_MAX_CPUS; cpu++) {
		struct bwreg_cpu *c;

		if (!(mask & BIT_ULL(cpu)))
			continue;
		c = per_cpu_ptr(&bwreg_cpus, cpu);
		if (READ_ONCE(c->active) &&
		    smp_load_acquire(&c->kick_done) < seq)
			return false;
		if (READ_ONCE(c->kick_lowered) >= seq)
			*lowered = true;
		*ack_ns = max(*ack_ns, READ_ONCE(c->kick_ack_ns));
	}
	return true;
}

static int bwreg_event_error(struct bwreg_cpu *c, long err)
{
	pr_err("cannot create perf event type %u config 0x%llx on CPU %u (error %ld): the PMU or event is missing; configure another event\n",
	       bwreg_conf.event_type, bwreg_conf.event_config, c->cpu, err);
	c->st.flags |= BWREG_CPU_NO_EVENT;
	if (err == -ENOENT || err == -ENODEV)
		return -ENODEV;
	if (err == -EOPNOTSUPP || err == -EINVAL)
		return -EOPNOTSUPP;
	return (int)err;
}

/* Created disabled: the thread arms it for the first period. */
static struct perf_event *bwreg_create_event(struct bwreg_cpu *c)
{
	struct perf_event_attr attr = {
		.type		= bwreg_conf.event_type,
		.size		= sizeof(attr),
		.config		= bwreg_conf.event_config,
		.sample_period	= BWREG_MAX_BUDGET,
		.pinned		= 1,
		.disabled	= 1,
	};

	return perf_event_create_kernel_counter(&attr, c->cpu, NULL,
						bwreg_overflow, c);
}

static void bwreg_timer_setup(struct bwreg_cpu *c)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(&c->timer, bwreg_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_PINNED_HARD);
#else
	hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	c->timer.function = bwreg_timer_fn;
#endif
}

/* First period on this CPU; runs on the CPU with interrupts off. */
static void bwreg_first_period(struct bwreg_cpu *c)
{
	bwreg_adopt(c, ktime_get_ns());
	raw_spin_lock(&bwreg_dec_lock);
	WRITE_ONCE(c->active, true);
	raw_spin_unlock(&bwreg_dec_lock);
	WRITE_ONCE(c->rearm, 1);
	hrtimer_start(&c->timer, ns_to_ktime(bwreg_boundary(c->period + 1)),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

static void bwreg_cpu_reset(struct bwreg_cpu *c, unsigned int cpu)
{
	c->cpu = cpu;
	c->st.flags = 0;
	WRITE_ONCE(c->throttled, 0);
	WRITE_ONCE(c->rearm, 0);
	WRITE_ONCE(c->restore, 0);
	WRITE_ONCE(c->armed, BWREG_NO_PERIOD);
	WRITE_ONCE(c->kick_cap, BWREG_UNLIMITED);
	WRITE_ONCE(c->kick_done, READ_ONCE(c->kick_req));
	c->used = 0;
	c->lat_ov = 0;
}

/* cpuhp online callback: runs on `cpu` in its hotplug thread. */
static int bwreg_cpu_online(unsigned int cpu)
{
	struct bwreg_cpu *c = per_cpu_ptr(&bwreg_cpus, cpu);
	struct perf_event *e;
	unsigned long flags;

	if (cpu >= BWREG_MAX_CPUS || !(bwreg_conf.cpumask & BIT_ULL(cpu)))
		return 0;
	/* AP-state callbacks run on their CPU; the pinned timer relies on it. */
	if (raw_smp_processor_id() != cpu) {
		pr_err("online callback for CPU %u ran on CPU %u\n", cpu,
		       raw_smp_processor_id());
		return bwreg_setting_up ? -EINVAL : 0;
	}
	bwreg_cpu_reset(c, cpu);
	c->thread = kthread_create_on_cpu(bwreg_thread_fn, c, cpu, "bwreg/%u");
	if (IS_ERR(c->thread)) {
		long err = PTR_ERR(c->thread);

		c->thread = NULL;
		pr_err("cannot create the throttle thread of CPU %u: %ld\n",
		       cpu, err);
		return bwreg_setting_up ? (int)err : 0;
	}
	sched_set_fifo(c->thread);
	wake_up_process(c->thread);

	e = bwreg_create_event(c);
	if (IS_ERR(e)) {
		int err = bwreg_event_error(c, PTR_ERR(e));

		kthread_stop(c->thread);
		c->thread = NULL;
		return bwreg_setting_up ? err : 0;
	}
	c->event = e;
	bwreg_timer_setup(c);
	local_irq_save(flags);
	bwreg_first_period(c);
	local_irq_restore(flags);
	c->st.flags |= BWREG_CPU_ACTIVE;
	wake_up_process(c->thread);
	return 0;
}

/* cpuhp offline callback (also used to stop regulation). */
static int bwreg_cpu_offline(unsigned int cpu)
{
	struct bwreg_cpu *c = per_cpu_ptr(&bwreg_cpus, cpu);
	unsigned long flags;

	if (!c->thread)
		return 0;
	/* Under the lock: a kicker either posted to this CPU or skips it. */
	raw_spin_lock_irqsave(&bwreg_dec_lock, flags);
	WRITE_ONCE(c->active, false);
	raw_spin_unlock_irqrestore(&bwreg_dec_lock, flags);
	wake_up_all(&bwreg_kick_wq);
	hrtimer_cancel(&c->timer);
	irq_work_sync(&c->throttle_work);
	local_irq_save(flags);
	bwreg_unthrottle(c, ktime_get_ns());
	c->st.flags &= ~BWREG_CPU_ACTIVE;
	bwreg_copy_stats(&bwreg_page->stats[c->cpu], c);
	local_irq_restore(flags);
	/* The thread is the counter's only user: stop it first. */
	kthread_stop(c->thread);
	c->thread = NULL;
	if (c->event) {
		perf_event_release_kernel(c->event);
		c->event = NULL;
	}
	irq_work_sync(&c->throttle_work);
	return 0;
}

bool bwreg_core_running(void)
{
	return bwreg_hp_state > 0;
}

/* Start regulating bwreg_conf.cpumask; caller holds the config mutex. */
int bwreg_core_start(void)
{
	unsigned int cpu;
	int ret;

	for_each_possible_cpu(cpu) {
		struct bwreg_cpu *c = per_cpu_ptr(&bwreg_cpus, cpu);

		memset(&c->st, 0, sizeof(c->st));
		memset(per_cpu_ptr(&bwreg_lats, cpu), 0,
		       sizeof(struct bwreg_lat));
		c->cpu = cpu;
	}
	bwreg_plan_reset(ktime_get_ns());
	bwreg_setting_up = true;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "bwreg:online",
				bwreg_cpu_online, bwreg_cpu_offline);
	bwreg_setting_up = false;
	if (ret < 0) {
		bwreg_tfs_release_all();
		return ret;
	}
	bwreg_hp_state = ret;
	return 0;
}

void bwreg_core_stop(void)
{
	if (bwreg_hp_state <= 0)
		return;
	cpuhp_remove_state(bwreg_hp_state);
	bwreg_hp_state = 0;
	/* Every thread released its penalties; anything left goes back. */
	bwreg_tfs_release_all();
}

void bwreg_core_stats(struct bwreg_stats *st)
{
	unsigned int cpu;

	st->period = READ_ONCE(bwreg_page->period);
	st->next_boundary_ns = READ_ONCE(bwreg_page->next_boundary_ns);
	st->cpumask = bwreg_hp_state > 0 ? bwreg_conf.cpumask : 0;
	bwreg_plan_stats(st);
	for_each_possible_cpu(cpu) {
		if (cpu >= BWREG_MAX_CPUS)
			break;
		bwreg_copy_stats(&st->cpu[cpu], per_cpu_ptr(&bwreg_cpus, cpu));
	}
}

int bwreg_core_init(void)
{
	unsigned int cpu;

	bwreg_plan_init();
	for_each_possible_cpu(cpu) {
		struct bwreg_cpu *c = per_cpu_ptr(&bwreg_cpus, cpu);

		c->cpu = cpu;
		c->throttle_work = IRQ_WORK_INIT_HARD(bwreg_throttle_fn);
	}
	return 0;
}

void bwreg_core_exit(void)
{
	bwreg_core_stop();
	bwreg_plan_exit();
}
