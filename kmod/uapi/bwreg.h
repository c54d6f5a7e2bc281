/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * bwreg.h - user API of the bwreg memory-bandwidth regulator (/dev/bwreg).
 *
 * Shared by the kernel module (kmod/) and the daemon's kmod backend
 * (daemon/reg_kmod.c).  Every structure has explicit-width fields and
 * explicit padding, so 32- and 64-bit user space see the same layout.
 *
 * Periods: the module numbers regulation periods from the moment it is
 * configured: period n covers CLOCK_MONOTONIC [base_ns + n * period_ns,
 * base_ns + (n + 1) * period_ns).  The page header publishes the current
 * period and the next boundary.
 *
 * Budgets: the daemon writes, for each regulated CPU, the budget (events)
 * for one period together with that period's number.  A budget word tagged
 * with any other period is ignored: the CPU then runs on its static budget
 * (the lock holders' Q-bar) and counts a fallback.  The daemon writes a
 * budget in three steps so the module never pairs a tag with a foreign
 * value:
 *	budget.period = BWREG_NO_PERIOD;  (store, then write barrier)
 *	budget.events = events;           (store, then write barrier)
 *	budget.period = n;                (store-release)
 * If the daemon stops bumping the heartbeat word for longer than the
 * configured timeout, every CPU runs on the fail-safe budget.
 */
#ifndef _UAPI_BWREG_H
#define _UAPI_BWREG_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define BWREG_UAPI_VERSION	1
#define BWREG_MAGIC		0x42575247	/* "BWRG" at page offset 0 */
#define BWREG_IOC_MAGIC		'B'
#define BWREG_MAX_CPUS		64
#define BWREG_DEVICE		"/dev/bwreg"

/* Budget value meaning "not regulated". */
#define BWREG_UNLIMITED		(~(__u64)0)
/* Budgets at or above this are treated as unlimited. */
#define BWREG_MAX_BUDGET	((__u64)1 << 62)
/* Tag of a budget word that is being rewritten. */
#define BWREG_NO_PERIOD		(~(__u64)0)

/* Limits the module enforces on a configuration. */
#define BWREG_MIN_PERIOD_NS	100000ULL		/* 100 us */
#define BWREG_MAX_PERIOD_NS	1000000000ULL		/* 1 s */
#define BWREG_MAX_RHO_MILLI	100000U			/* rho <= 100 */

struct bwreg_version {
	__u32	uapi;		/* BWREG_UAPI_VERSION */
	__u32	max_cpus;	/* BWREG_MAX_CPUS */
	__u32	map_size;	/* bytes to mmap (BWREG_MAP_SIZE) */
	__u32	nr_cpu_ids;	/* CPUs the kernel can have */
	__u32	running;	/* 1 while a configuration is active */
	__u32	pad;
};

struct bwreg_config {
	__u32	version;	/* BWREG_UAPI_VERSION */
	__u32	size;		/* sizeof(struct bwreg_config) */
	__u64	period_ns;	/* regulation period T */
	__u64	cpumask;	/* bit i: regulate CPU i; 0 stops regulation */
	__u32	event_type;	/* perf_event_attr.type */
	__u32	rho_milli;	/* TFS factor rho * 1000; 0 = plain CFS */
	__u64	event_config;	/* perf_event_attr.config */
	__u64	static_events;	/* initial static budget for every CPU */
	__u64	failsafe_events; /* per CPU when the heartbeat stops */
	__u64	heartbeat_timeout_ns; /* 0 = no watchdog */
	__u32	flags;		/* BWREG_CFG_* */
	__u32	pad;		/* must be zero */
	__u64	reserved[3];	/* must be zero */
};

/* Enforce TFS by a nice penalty on throttled tasks (doc/kmod.md). */
#define BWREG_CFG_TFS_NICE	0x1
/* Ignore event_type/event_config: use the module's event parameters. */
#define BWREG_CFG_MODULE_EVENT	0x2
#define BWREG_CFG_ALL		(BWREG_CFG_TFS_NICE | BWREG_CFG_MODULE_EVENT)

/* Cumulative per-CPU statistics (also mirrored in the page). */
struct bwreg_cpu_stats {
	__u64	events;		/* events counted in ended periods */
	__u64	throttles;	/* periods in which the CPU was throttled */
	__u64	throttled_ns;	/* total throttled time (sum of delta) */
	__u64	fallbacks;	/* periods run on the static budget */
	__u64	failsafe;	/* periods run on the fail-safe budget */
	__u64	tfs_charge_ns;	/* sum of rho * delta charged (TFS Eq. 3) */
	__u64	periods;	/* periods this CPU regulated */
	__u32	last_pid;	/* task last charged with a throttle, 0 none */
	__u32	flags;		/* BWREG_CPU_* */
};

#define BWREG_CPU_ACTIVE	0x1	/* timer and counter running */
#define BWREG_CPU_THROTTLED	0x2	/* throttled right now */
#define BWREG_CPU_NO_EVENT	0x4	/* counter could not be created */
/* Bits 8-15: nice steps the TFS penalty currently adds to last_pid. */
#define BWREG_CPU_NICE_SHIFT	8
#define BWREG_CPU_NICE_MASK	0xff00

struct bwreg_stats {
	__u32	version;	/* BWREG_UAPI_VERSION */
	__u32	failsafe;	/* 1 while the fail-safe budget applies */
	__u64	period;		/* current period number */
	__u64	next_boundary_ns; /* CLOCK_MONOTONIC */
	__u64	cpumask;	/* regulated CPUs */
	struct bwreg_cpu_stats cpu[BWREG_MAX_CPUS];
};

/* One per-CPU budget word pair. */
struct bwreg_budget {
	__u64	period;		/* the period these events are for */
	__u64	events;		/* budget for that period */
};

/*
 * The shared mapping: BWREG_MAP_SIZE bytes at offset 0 of /dev/bwreg.
 * Fields marked (k) are written by the module only; (d) by the daemon.
 * The module validates everything (d) before using it and never trusts
 * (k) fields back from the page.
 */
struct bwreg_page {
	__u32	magic;		/* (k) BWREG_MAGIC */
	__u32	version;	/* (k) BWREG_UAPI_VERSION */
	__u32	max_cpus;	/* (k) BWREG_MAX_CPUS */
	__u32	failsafe;	/* (k) 1 while the fail-safe budget applies */
	__u64	period_ns;	/* (k) regulation period T */
	__u64	base_ns;	/* (k) start of period 0, CLOCK_MONOTONIC */
	__u64	period;		/* (k) current period number */
	__u64	next_boundary_ns; /* (k) start of period + 1 */
	__u64	cpumask;	/* (k) regulated CPUs */
	__u64	config_gen;	/* (k) bumped on every configuration */
	__u64	heartbeat;	/* (d) bumped by the daemon every period */
	__u64	pad0[7];
	__u64	static_events[BWREG_MAX_CPUS];	/* (d) per-CPU static budget */
	struct bwreg_budget budget[BWREG_MAX_CPUS]; /* (d) dynamic budgets */
	__u8	pad1[4096 - 128 - 8 * BWREG_MAX_CPUS -
		     16 * BWREG_MAX_CPUS];
	struct bwreg_cpu_stats stats[BWREG_MAX_CPUS]; /* (k) */
};

#define BWREG_MAP_SIZE		8192

#define BWREG_IOC_VERSION	_IOR(BWREG_IOC_MAGIC, 1, struct bwreg_version)
#define BWREG_IOC_CONFIG	_IOW(BWREG_IOC_MAGIC, 2, struct bwreg_config)
#define BWREG_IOC_STATS		_IOR(BWREG_IOC_MAGIC, 3, struct bwreg_stats)
#define BWREG_IOC_STOP		_IO(BWREG_IOC_MAGIC, 4)
/* Change rho (milli) without restarting the period clock. */
#define BWREG_IOC_SET_RHO	_IOW(BWREG_IOC_MAGIC, 5, __u32)

#endif /* _UAPI_BWREG_H */
