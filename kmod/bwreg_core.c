// SPDX-License-Identifier: GPL-2.0
/*
 * bwreg_core.c - per-CPU regulation: the period timer, the budget counter,
 * the throttle thread and CPU hotplug (BWLOCK++ Algorithm 2 on the
 * MemGuard design).
 *
 * Contexts: the period timer is a pinned hard hrtimer and the throttle
 * irq_work is a hard irq_work, so both run in hard interrupt context on
 * their own CPU, also on PREEMPT_RT.  The counter's overflow handler may
 * run in NMI context (hardware PMUs), so it only queues the irq_work.
 * Everything a CPU's timer, irq_work and overflow handler touch is that
 * CPU's struct bwreg_cpu; the throttle thread only waits on it.
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
static atomic_t bwreg_failsafe_cpus;	/* CPUs on the fail-safe budget */
static atomic64_t bwreg_cur_period;
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

/* Publish period n in the page if no CPU has published a later one. */
static void bwreg_publish_clock(u64 n)
{
	s64 old = atomic64_read(&bwreg_cur_period);

	while ((u64)old < n) {
		if (atomic64_try_cmpxchg(&bwreg_cur_period, &old, n)) {
			WRITE_ONCE(bwreg_page->next_boundary_ns,
				   bwreg_boundary(n + 1));
			smp_wmb();
			WRITE_ONCE(bwreg_page->period, n);
			return;
		}
	}
}

static bool bwreg_event_local(struct perf_event *e)
{
	return e && e->state == PERF_EVENT_STATE_ACTIVE &&
	       e->oncpu == smp_processor_id();
}

/* Counter value; called with interrupts off on the counter's CPU. */
static u64 bwreg_read_count(struct bwreg_cpu *c)
{
	struct perf_event *e = c->event;

	if (!e)
		return 0;
	if (bwreg_event_local(e))
		e->pmu->read(e);
	return local64_read(&e->count);
}

/*
 * Software events other than the clock events count their period up from
 * -period to 0; hardware PMUs and the hrtimer-driven clock events keep the
 * events left until overflow.
 */
static bool bwreg_negative_period(void)
{
	return bwreg_conf.event_type == PERF_TYPE_SOFTWARE &&
	       bwreg_conf.event_config != PERF_COUNT_SW_CPU_CLOCK &&
	       bwreg_conf.event_config != PERF_COUNT_SW_TASK_CLOCK;
}

static u64 bwreg_sample_period(u64 budget)
{
	if (budget >= BWREG_MAX_BUDGET)
		return BWREG_MAX_BUDGET;
	return budget ? budget : 1;
}

/* Reload the counter so it overflows after `budget` events. */
static void bwreg_program(struct bwreg_cpu *c, u64 budget)
{
	struct perf_event *e = c->event;
	u64 p = bwreg_sample_period(budget);

	c->budget = budget;
	if (!bwreg_event_local(e))
		return;
	e->pmu->stop(e, PERF_EF_UPDATE);
	e->hw.sample_period = p;
	e->hw.last_period = p;
	if (bwreg_negative_period())
		local64_set(&e->hw.period_left, -(s64)p);
	else
		local64_set(&e->hw.period_left, p);
	e->pmu->start(e, PERF_EF_RELOAD);
}

/* Heartbeat watchdog; true while this CPU must use the fail-safe budget. */
static bool bwreg_check_heartbeat(struct bwreg_cpu *c, u64 now)
{
	u64 hb = READ_ONCE(bwreg_page->heartbeat);

	if (!bwreg_conf.hb_timeout_ns)
		return false;
	if (hb != c->last_hb) {
		c->last_hb = hb;
		c->last_hb_ns = now;
		if (c->failsafe) {
			c->failsafe = false;
			if (atomic_dec_and_test(&bwreg_failsafe_cpus)) {
				WRITE_ONCE(bwreg_page->failsafe, 0);
				bwreg_post(BWREG_MSG_RESUMED);
			}
		}
	} else if (!c->failsafe &&
		   now - c->last_hb_ns > bwreg_conf.hb_timeout_ns) {
		c->failsafe = true;
		if (atomic_inc_return(&bwreg_failsafe_cpus) == 1) {
			WRITE_ONCE(bwreg_page->failsafe, 1);
			bwreg_post(BWREG_MSG_FAILSAFE);
		}
	}
	return c->failsafe;
}

/*
 * Budget for period n: the daemon's word if it is tagged with exactly n
 * (read twice around the value, see uapi/bwreg.h), else the static one.
 */
static u64 bwreg_pick_budget(struct bwreg_cpu *c, u64 n, u64 now)
{
	struct bwreg_budget *b = &bwreg_page->budget[c->cpu];
	u64 tag, ev;

	if (bwreg_check_heartbeat(c, now)) {
		c->st.failsafe++;
		return bwreg_conf.failsafe_events;
	}
	tag = smp_load_acquire(&b->period);
	ev = READ_ONCE(b->events);
	smp_rmb();
	if (tag == n && READ_ONCE(b->period) == n)
		return ev;
	c->st.fallbacks++;
	return READ_ONCE(bwreg_page->static_events[c->cpu]);
}

static void bwreg_mirror_stats(struct bwreg_cpu *c)
{
	struct bwreg_cpu_stats *p = &bwreg_page->stats[c->cpu];

	WRITE_ONCE(p->events, c->st.events);
	WRITE_ONCE(p->throttles, c->st.throttles);
	WRITE_ONCE(p->throttled_ns, c->st.throttled_ns);
	WRITE_ONCE(p->fallbacks, c->st.fallbacks);
	WRITE_ONCE(p->failsafe, c->st.failsafe);
	WRITE_ONCE(p->tfs_charge_ns, c->st.tfs_charge_ns);
	WRITE_ONCE(p->periods, c->st.periods);
	WRITE_ONCE(p->last_pid, c->st.last_pid);
	WRITE_ONCE(p->flags, c->st.flags |
		   (min_t(u32, READ_ONCE(c->pen_steps), 0xff) <<
		    BWREG_CPU_NICE_SHIFT));
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

/* End the current period and start the one `now` is in. */
static void bwreg_new_period(struct bwreg_cpu *c, u64 now)
{
	u64 n = bwreg_period_of(now);
	u64 cnt = bwreg_read_count(c);

	c->st.events += cnt - c->count0;
	c->st.periods++;
	if (READ_ONCE(c->throttled)) {
		bwreg_unthrottle(c, now);
	} else if (READ_ONCE(c->penalized)) {
		/* A period without a throttle lifts the TFS penalty. */
		WRITE_ONCE(c->restore, 1);
		wake_up_process(c->thread);
	}
	c->period = n;
	bwreg_publish_clock(n);
	bwreg_program(c, bwreg_pick_budget(c, n, now));
	c->count0 = bwreg_read_count(c);
	bwreg_mirror_stats(c);
}

static enum hrtimer_restart bwreg_timer_fn(struct hrtimer *t)
{
	struct bwreg_cpu *c = container_of(t, struct bwreg_cpu, timer);
	u64 now = ktime_get_ns();

	if (!READ_ONCE(c->active))
		return HRTIMER_NORESTART;
	bwreg_new_period(c, now);
	hrtimer_set_expires(t, ns_to_ktime(bwreg_boundary(c->period + 1)));
	return HRTIMER_RESTART;
}

/* Overflow: the budget is used up.  May run in NMI context. */
static void bwreg_overflow(struct perf_event *e, struct perf_sample_data *d,
			   struct pt_regs *regs)
{
	struct bwreg_cpu *c = e->overflow_handler_context;

	if (!READ_ONCE(c->active) || c->budget >= BWREG_MAX_BUDGET ||
	    READ_ONCE(c->throttled))
		return;
	c->ov_period = c->period;
	irq_work_queue(&c->throttle_work);
}

/* Hard irq_work on the overflowing CPU: start throttling it. */
static void bwreg_throttle_fn(struct irq_work *w)
{
	struct bwreg_cpu *c = container_of(w, struct bwreg_cpu, throttle_work);
	struct task_struct *t = current;

	if (!READ_ONCE(c->active) || READ_ONCE(c->throttled) ||
	    c->ov_period != c->period || c->budget >= BWREG_MAX_BUDGET)
		return;
	/* Charge user tasks of the fair class only: not idle, not kthreads. */
	if (is_idle_task(t) || (t->flags & PF_KTHREAD) || rt_task(t))
		c->charged_pid = 0;
	else
		c->charged_pid = task_pid_nr(t);
	if (c->charged_pid) {
		c->st.last_pid = c->charged_pid;
		/* The thread takes this reference (bwreg_tfs_penalize). */
		if ((bwreg_conf.flags & BWREG_CFG_TFS_NICE) &&
		    !READ_ONCE(c->charged_task)) {
			get_task_struct(t);
			WRITE_ONCE(c->charged_task, t);
		}
	}
	c->throttle_start = ktime_get_ns();
	c->st.throttles++;
	c->st.flags |= BWREG_CPU_THROTTLED;
	WRITE_ONCE(c->throttled, 1);
	wake_up_process(c->thread);
}

/*
 * Hold the CPU until the period timer clears c->throttled.  On arm64
 * smp_cond_load_acquire() waits in WFE (woken by the store or the event
 * stream); elsewhere it spins with cpu_relax().  The deadline bounds the
 * hold if the timer is gone.
 */
static void bwreg_hold(struct bwreg_cpu *c)
{
	u64 deadline = ktime_get_ns() + 2 * bwreg_conf.period_ns;

	smp_cond_load_acquire(&c->throttled,
			      !VAL || ktime_get_ns() > deadline ||
			      !READ_ONCE(c->active) || kthread_should_stop());
}

/* After a hold, or when asked to lift a penalty: TFS in process context. */
static void bwreg_thread_tfs(struct bwreg_cpu *c)
{
	struct task_struct *t = xchg(&c->charged_task, NULL);

	if (t)
		bwreg_tfs_penalize(c, t, READ_ONCE(c->last_delta));
	if (xchg(&c->restore, 0) && !READ_ONCE(c->throttled))
		bwreg_tfs_restore(c);
}

static int bwreg_thread_fn(void *data)
{
	struct bwreg_cpu *c = data;
	struct task_struct *t;
	bool hold;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		/* Never hold for a regulator that is being torn down. */
		hold = READ_ONCE(c->throttled) && READ_ONCE(c->active);
		if (!hold && !READ_ONCE(c->restore)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		if (hold)
			bwreg_hold(c);
		bwreg_thread_tfs(c);
	}
	t = xchg(&c->charged_task, NULL);
	if (t)
		put_task_struct(t);
	bwreg_tfs_restore(c);
	return 0;
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

static struct perf_event *bwreg_create_event(struct bwreg_cpu *c, u64 budget)
{
	struct perf_event_attr attr = {
		.type		= bwreg_conf.event_type,
		.size		= sizeof(attr),
		.config		= bwreg_conf.event_config,
		.sample_period	= bwreg_sample_period(budget),
		.pinned		= 1,
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
	u64 now = ktime_get_ns();

	c->period = bwreg_period_of(now);
	c->last_hb = READ_ONCE(bwreg_page->heartbeat);
	c->last_hb_ns = now;
	bwreg_program(c, bwreg_pick_budget(c, c->period, now));
	c->count0 = bwreg_read_count(c);
	WRITE_ONCE(c->active, true);
	hrtimer_start(&c->timer, ns_to_ktime(bwreg_boundary(c->period + 1)),
		      HRTIMER_MODE_ABS_PINNED_HARD);
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
	c->cpu = cpu;
	c->st.flags = 0;
	WRITE_ONCE(c->throttled, 0);
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

	e = bwreg_create_event(c, bwreg_conf.failsafe_events);
	if (IS_ERR(e)) {
		int err = bwreg_event_error(c, PTR_ERR(e));

		kthread_stop(c->thread);
		c->thread = NULL;
		return bwreg_setting_up ? err : 0;
	}
	if (e->state != PERF_EVENT_STATE_ACTIVE)
		pr_warn("perf event on CPU %u is not active (state %d): CPU not regulated until it is scheduled\n",
			cpu, e->state);
	c->event = e;
	bwreg_timer_setup(c);
	local_irq_save(flags);
	bwreg_first_period(c);
	local_irq_restore(flags);
	c->st.flags |= BWREG_CPU_ACTIVE;
	return 0;
}

/* cpuhp offline callback (also used to stop regulation). */
static int bwreg_cpu_offline(unsigned int cpu)
{
	struct bwreg_cpu *c = per_cpu_ptr(&bwreg_cpus, cpu);
	unsigned long flags;

	if (!c->thread)
		return 0;
	WRITE_ONCE(c->active, false);
	hrtimer_cancel(&c->timer);
	if (c->event) {
		perf_event_release_kernel(c->event);
		c->event = NULL;
	}
	irq_work_sync(&c->throttle_work);
	local_irq_save(flags);
	bwreg_unthrottle(c, ktime_get_ns());
	if (c->failsafe) {
		c->failsafe = false;
		if (atomic_dec_and_test(&bwreg_failsafe_cpus))
			WRITE_ONCE(bwreg_page->failsafe, 0);
	}
	c->st.flags &= ~BWREG_CPU_ACTIVE;
	bwreg_mirror_stats(c);
	local_irq_restore(flags);
	kthread_stop(c->thread);
	c->thread = NULL;
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
		c->failsafe = false;
		c->cpu = cpu;
	}
	atomic_set(&bwreg_failsafe_cpus, 0);
	atomic64_set(&bwreg_cur_period, 0);
	bwreg_setting_up = true;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "bwreg:online",
				bwreg_cpu_online, bwreg_cpu_offline);
	bwreg_setting_up = false;
	if (ret < 0)
		return ret;
	bwreg_hp_state = ret;
	return 0;
}

void bwreg_core_stop(void)
{
	if (bwreg_hp_state <= 0)
		return;
	cpuhp_remove_state(bwreg_hp_state);
	bwreg_hp_state = 0;
}

void bwreg_core_stats(struct bwreg_stats *st)
{
	unsigned int cpu;

	st->period = READ_ONCE(bwreg_page->period);
	st->next_boundary_ns = READ_ONCE(bwreg_page->next_boundary_ns);
	st->failsafe = atomic_read(&bwreg_failsafe_cpus) > 0;
	st->cpumask = bwreg_hp_state > 0 ? bwreg_conf.cpumask : 0;
	for_each_possible_cpu(cpu) {
		struct bwreg_cpu *c = per_cpu_ptr(&bwreg_cpus, cpu);
		struct bwreg_cpu_stats *o;

		if (cpu >= BWREG_MAX_CPUS)
			break;
		o = &st->cpu[cpu];
		o->events = READ_ONCE(c->st.events);
		o->throttles = READ_ONCE(c->st.throttles);
		o->throttled_ns = READ_ONCE(c->st.throttled_ns);
		o->fallbacks = READ_ONCE(c->st.fallbacks);
		o->failsafe = READ_ONCE(c->st.failsafe);
		o->tfs_charge_ns = READ_ONCE(c->st.tfs_charge_ns);
		o->periods = READ_ONCE(c->st.periods);
		o->last_pid = READ_ONCE(c->st.last_pid);
		o->flags = READ_ONCE(c->st.flags);
	}
}

int bwreg_core_init(void)
{
	unsigned int cpu;

	init_irq_work(&bwreg_msg_work, bwreg_msg_fn);
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
	irq_work_sync(&bwreg_msg_work);
}
