/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwreg.h - internals shared by the bwreg module's files.
 */
#ifndef _BWREG_H
#define _BWREG_H

#include <linux/types.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/version.h>
#include <linux/wait.h>

#include "uapi/bwreg.h"

#if !defined(CONFIG_64BIT)
#error "bwreg needs a 64-bit kernel: the shared page uses 64-bit words"
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
#error "bwreg supports Linux 5.15 and later"
#endif

/*
 * The fair class TFS acts on (doc/kmod.md): EEVDF replaced CFS in 6.6.
 * Both are reweighted through set_user_nice(); only the effect differs.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define BWREG_FAIR_CLASS	"EEVDF"
#else
#define BWREG_FAIR_CLASS	"CFS"
#endif

/* "No period": nothing armed, nothing decided yet. */
#define BWREG_NO_PERIOD		(~(u64)0)

/* A running configuration; constant while the per-CPU parts run. */
struct bwreg_conf {
	u64	period_ns;
	u64	base_ns;
	u64	cpumask;
	u32	event_type;
	u32	rho_milli;
	u32	flags;		/* BWREG_CFG_* */
	u64	event_config;
	u64	failsafe_events;
	u64	hb_timeout_ns;
};

/* What governs a period (one choice for every regulated CPU). */
enum bwreg_kind {
	BWREG_GOV_STATIC,	/* static budget (fallback or unregulated) */
	BWREG_GOV_FIRST,	/* entry 0 of a plan */
	BWREG_GOV_AHEAD,	/* a later entry of a plan */
	BWREG_GOV_FAILSAFE,	/* heartbeat stopped */
};

/*
 * The choice for one period, made by the first CPU to reach it
 * (bwreg_plan.c) under bwreg_dec_lock.  The chosen entry is copied here,
 * so every CPU uses the same consistent budgets without reading the
 * daemon's page again.
 */
struct bwreg_decision {
	u64		period;		/* BWREG_NO_PERIOD before the first */
	u64		plan_id;	/* governing plan, 0 none */
	enum bwreg_kind	kind;
	bool		refused;	/* a covering plan was not admissible */
	u64		held;		/* slots held when decided */
	u64		cap;		/* lowest lock_static that applies */
	u64		events[BWREG_MAX_CPUS];	/* chosen, before the cap */
};

/*
 * A lock file (bwreg_lock.c).  References: one for the open file, one
 * while it is its slot's current file.  The page is the application's
 * struct bwreg_lock; it lives as long as the structure, and the mappings
 * keep the file (hence the structure) alive.
 */
struct bwreg_lockf {
	struct kref		ref;
	u32			slot;
	struct bwreg_lock	*pg;	/* vmalloc_user(PAGE_SIZE) */
};

struct bwreg_pen;

/* Per-CPU regulator state. */
struct bwreg_cpu {
	unsigned int		cpu;
	bool			active;		/* timer + counter set up */
	struct hrtimer		timer;		/* period boundary */
	struct perf_event	*event;		/* budget counter */
	struct irq_work		throttle_work;	/* overflow -> throttle */
	struct task_struct	*thread;	/* arms the counter, holds the
						 * CPU when throttled */
	/*
	 * Kept together in one cache line: the throttle thread waits on
	 * `throttled` with WFE on arm64, and a store to `kick_req` from
	 * another CPU must wake it too.
	 */
	u32			throttled;	/* 1: thread must hold the CPU */
	u32			rearm;		/* timer: new period to arm */
	u64			kick_req;	/* last kick posted to this CPU */
	u64			kick_cap;	/* lowest kick budget pending */
	u64			kick_done;	/* last kick this CPU applied */
	u64			kick_lowered;	/* last kick that lowered it */
	u64			kick_ack_ns;	/* when it last acknowledged */

	u64			period;		/* period this CPU is in */
	u64			budget;		/* its effective budget */
	u64			armed;		/* period the counter counts for,
						 * BWREG_NO_PERIOD: paused */
	u64			used;		/* events of this period before
						 * the current arming */
	u64			ov_period;	/* period of the last overflow */
	u64			ov_ns;		/* its time (fast mono clock) */
	u64			lat_ov;		/* ov_ns of the throttle begun */
	u64			throttle_start;	/* ns */
	pid_t			charged_pid;	/* task the throttle is charged to */
	/* TFS enforcement (BWREG_CFG_TFS_NICE), see bwreg_tfs.c */
	struct task_struct	*charged_task;	/* ref handed to the thread */
	u64			last_delta;	/* delta of the ended period */
	u32			tfs_due;	/* thread: a throttle ended */
	u32			restore;	/* thread: lift the penalty */
	struct bwreg_pen	*pen;		/* thread-owned: our demand */
	u32			pen_steps;	/* steps applied, for stats */
	struct bwreg_cpu_stats	st;
};

extern struct bwreg_conf bwreg_conf;
extern struct bwreg_page *bwreg_page;

/* bwreg_plan.c: the per-period choice, under bwreg_dec_lock. */
extern raw_spinlock_t bwreg_dec_lock;
extern struct bwreg_decision bwreg_dec;
extern struct bwreg_lockf *bwreg_slots[BWREG_MAX_LOCKS];
void bwreg_plan_reset(u64 now);
const struct bwreg_decision *bwreg_plan_decide(u64 now);
void bwreg_plan_stats(struct bwreg_stats *st);
void bwreg_plan_init(void);
void bwreg_plan_exit(void);

/* bwreg_lock.c */
extern struct bwreg_lock_stats bwreg_lock_st;	/* under bwreg_dec_lock */
long bwreg_lock_fd(void __user *arg);
long bwreg_lock_revoke(void __user *arg);
long bwreg_lock_list(void __user *arg);
void bwreg_lock_reset(void);
/* Kicks so far, and the queue woken after each (poll on /dev/bwreg). */
unsigned long bwreg_lock_edges(void);
extern wait_queue_head_t bwreg_edge_wq;

/* bwreg_tfs.c (throttle thread context) */
void bwreg_tfs_after_throttle(struct bwreg_cpu *c, struct task_struct *t,
			      u64 delta);
void bwreg_tfs_release(struct bwreg_cpu *c);
void bwreg_tfs_release_all(void);

/* bwreg_core.c */
extern wait_queue_head_t bwreg_kick_wq;
int bwreg_core_start(void);
void bwreg_core_stop(void);
bool bwreg_core_running(void);
u64 bwreg_period_of(u64 now);
void bwreg_core_stats(struct bwreg_stats *st);
int bwreg_core_init(void);
void bwreg_core_exit(void);
struct bwreg_cpu *bwreg_cpu_of(unsigned int cpu);
u64 bwreg_core_kick(u64 cap, u64 seq);
bool bwreg_core_kick_done(u64 seq, u64 mask, bool *lowered, u64 *ack_ns);
/* Throttle latency (overflow to CPU held) histogram, for debugfs. */
#define BWREG_LAT_BUCKETS	128
bool bwreg_core_lat(unsigned int cpu, u64 *count, u64 *sum, u64 *max,
		    u32 *bucket);
u64 bwreg_lat_floor(unsigned int b);

#endif /* _BWREG_H */
