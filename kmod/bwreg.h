/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwreg.h - internals shared by the bwreg module's files.
 */
#ifndef _BWREG_H
#define _BWREG_H

#include <linux/types.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/version.h>

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

/* Per-CPU regulator state. */
struct bwreg_cpu {
	unsigned int		cpu;
	bool			active;		/* timer + counter set up */
	struct hrtimer		timer;		/* period boundary */
	struct perf_event	*event;		/* budget counter */
	struct irq_work		throttle_work;	/* overflow -> throttle */
	struct task_struct	*thread;	/* holds the CPU when throttled */
	u32			throttled;	/* 1: thread must hold the CPU */
	u64			budget;		/* budget of the current period */
	u64			count0;		/* counter at period start */
	u64			period;		/* period this CPU is in */
	u64			ov_period;	/* period of the last overflow */
	u64			throttle_start;	/* ns */
	pid_t			charged_pid;	/* task the throttle is charged to */
	/* TFS enforcement (BWREG_CFG_TFS_NICE), see bwreg_tfs.c */
	struct task_struct	*charged_task;	/* ref handed to the thread */
	u64			last_delta;	/* delta of the ended period */
	u32			restore;	/* thread: lift the penalty */
	u32			penalized;	/* a penalty is applied */
	struct task_struct	*pen_task;	/* thread-owned, holds a ref */
	int			pen_orig;	/* its nice before */
	int			pen_nice;	/* the nice we set */
	u32			pen_steps;	/* pen_nice - pen_orig, for stats */
	u64			last_hb;	/* heartbeat value last seen */
	u64			last_hb_ns;	/* when it last changed */
	bool			failsafe;	/* this CPU is on the fail-safe */
	struct bwreg_cpu_stats	st;
};

extern struct bwreg_conf bwreg_conf;
extern struct bwreg_page *bwreg_page;

/* bwreg_tfs.c (throttle thread context) */
void bwreg_tfs_penalize(struct bwreg_cpu *c, struct task_struct *t,
			u64 delta);
void bwreg_tfs_restore(struct bwreg_cpu *c);

/* bwreg_core.c */
int bwreg_core_start(void);
void bwreg_core_stop(void);
bool bwreg_core_running(void);
u64 bwreg_period_of(u64 now);
void bwreg_core_stats(struct bwreg_stats *st);
int bwreg_core_init(void);
void bwreg_core_exit(void);

#endif /* _BWREG_H */
