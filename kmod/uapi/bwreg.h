/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * bwreg.h - user API of the bwreg memory-bandwidth regulator (/dev/bwreg).
 *
 * Shared by the kernel module (kmod/) and the daemon's kmod backend
 * (daemon/reg_kmod.c).  Every structure has explicit-width fields and
 * explicit padding, so 32- and 64-bit user space see the same layout.
 *
 * Periods.  The module numbers regulation periods from the moment it is
 * configured: period n covers CLOCK_MONOTONIC [base_ns + n * period_ns,
 * base_ns + (n + 1) * period_ns).  The page header publishes the current
 * period and the next boundary.
 *
 * Plans (version 2).  The daemon hands over budgets for up to
 * BWREG_PLAN_MAX consecutive periods at once, as a plan: entry j holds
 * every regulated CPU's budget (events) for period first + j.  The page
 * has two plan buffers; the daemon always rewrites the one that does not
 * hold its newest plan, under that buffer's sequence word:
 *	plan.seq += 1;          (odd: being rewritten; store, write barrier)
 *	id, first, len, lock_mask, lock_launches[], events[][]
 *	plan.seq += 1;          (even again; store-release)
 * Plan ids grow with every plan the daemon publishes (0 = empty buffer).
 * Every entry of a plan is at least the static budget the daemon had set
 * when it computed the plan, on every CPU.
 *
 * The safety rule the daemon relies on (doc/engine.md): every prefix of a
 * plan, followed by the static budget, keeps the lock holders' kernels
 * within their bounds.  So at each period n the module, once for all
 * regulated CPUs together (the first CPU to reach n decides, the others
 * use the same choice), takes the entry for n from the newest plan that
 *   - covers n (first <= n < first + len), was read consistently (seq even
 *     and unchanged around the read), and
 *   - is admissible: no entry of another plan governed any period from
 *     this plan's first period up to n - 1.  Periods run on the static
 *     budget do not count, since every entry is at least the static budget.
 * With no such plan, period n runs on the static budget (a fallback).
 * A plan read inconsistently counts as absent for that period.
 * Plans never govern a period they were not computed for, and a plan
 * published after its first period began can still govern the later
 * periods it covers if the periods before ran on the static budget.
 * The module copies the chosen entry for every CPU when it decides, so
 * all CPUs use the same consistent entry.  A period run on the fail-safe
 * budget counts like another plan's entry (the fail-safe budget is not
 * bounded by the static one): a plan whose first period is at or before
 * it is not admissible.
 *
 * Withdrawal: when the lock holders change, the daemon rewrites the static
 * budgets and empties both plan buffers (id = 0, under the sequence word),
 * since those plans were computed for the old holders.
 *
 * Lock slots (version 2).  BWLOCK++'s guarantee, that the lock is enforced
 * before the holder's first kernel starts, must not wait for a daemon
 * wake-up.  The daemon gives each registered task a lock slot: it writes
 * the slot's static budget (lock_static[slot], events per regulated CPU
 * while the slot is held) and creates the slot's lock file with
 * BWREG_IOC_LOCK_FD, which it passes to the application.  The lock file
 * maps one page, struct bwreg_lock, which the application writes (held,
 * launches) and the module writes (dyn).  A new lock file for a slot
 * revokes the previous one: the module no longer reads the old page.
 * A configuration (BWREG_IOC_CONFIG, BWREG_IOC_STOP) revokes every slot
 * and resets lock_static[] to BWREG_UNLIMITED, so the daemon writes a
 * slot's lock_static before creating its file.  Revoking an empty slot
 * is not an error.
 *
 * Permission: BWREG_IOC_CONFIG, _STOP, _SET_RHO, _LOCK_FD and
 * _LOCK_REVOKE need /dev/bwreg open for writing (else -EPERM); no
 * capability is checked.  _VERSION, _STATS, _LOCKS and a read-only
 * mapping need only a descriptor.  The lock file itself is the right to
 * kick.
 *
 * The application sets held before its first kernel or copy and bumps
 * launches before every kernel launch or copy while it holds the lock.
 * On the idle -> held edge, and on a launch while dyn is set, it calls
 * BWREG_LOCK_IOC_KICK on the lock file: when that returns 0, every
 * regulated CPU's budget for the rest of the current period is already
 * at most the slot's static budget (less what the CPU has used in this
 * period), so the kernel it launches next starts protected.  Release
 * (held = 0) needs no call: it only loosens regulation, which may wait
 * for the next period.
 *
 * Ordering: the application stores launches, then issues a full memory
 * barrier (atomic_thread_fence(memory_order_seq_cst)), then reads dyn.
 * The module, deciding a period under a plan that accounted for the
 * slot, stores dyn = 1, issues a full barrier, then reads launches.  So
 * either the module sees the new launch count (the slot caps that
 * period) or the application sees dyn = 1 (and kicks); without the
 * barrier both could miss each other for one period.
 *
 * Lock edges: after each kick the module wakes pollers of /dev/bwreg.
 * A descriptor of the device is readable (poll) while kicks newer than
 * its last read() exist; read() of 8 bytes returns their number (__u64)
 * and catches up, or fails with EAGAIN (O_NONBLOCK) when there are none.
 * The daemon reads the task pages then, instead of at its next poll, so
 * the period after a lock can run on a plan.  A new descriptor starts
 * caught up.  A module without edges fails read() with EINVAL.
 *
 * Kick results: 0; -ESTALE when the file is no longer its slot's (revoked
 * or replaced); -ETIMEDOUT when some regulated CPU's throttle thread did
 * not run within max(50 ms, 10 periods), at most 1 s (the budget may then
 * not be lowered on that CPU); -EINTR on a fatal signal.  With nothing
 * regulated, or a slot budget >= BWREG_MAX_BUDGET, there is nothing to
 * lower and it returns 0 at once.  A lock file that nobody has open or
 * mapped any more is revoked (nobody can hold it).
 *
 * Effective budget of CPU c in period n:
 *	chosen = the admissible plan's entry, else static_events[c];
 *	chosen = min(chosen, lock_static[s]) for every held slot s that the
 *	         chosen plan did not account for (s not in lock_mask, or
 *	         launches != lock_launches[s]), or every held slot when the
 *	         static budget was chosen;
 *	while the heartbeat has stopped: min(failsafe, every held slot's
 *	         lock_static) instead.
 * dyn in a held slot's page is 1 while the current period's budget on some
 * CPU is above that slot's static budget, so the application knows when a
 * launch must kick.
 */
#ifndef _UAPI_BWREG_H
#define _UAPI_BWREG_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define BWREG_UAPI_VERSION	2
#define BWREG_MAGIC		0x42575247	/* "BWRG" at page offset 0 */
#define BWREG_IOC_MAGIC		'B'
#define BWREG_MAX_CPUS		64
#define BWREG_PLAN_MAX		16	/* periods per plan */
#define BWREG_MAX_LOCKS		64	/* lock slots */
#define BWREG_DEVICE		"/dev/bwreg"

/* Budget value meaning "not regulated". */
#define BWREG_UNLIMITED		(~(__u64)0)
/* Budgets at or above this are treated as unlimited. */
#define BWREG_MAX_BUDGET	((__u64)1 << 62)

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
	__u32	plan_max;	/* BWREG_PLAN_MAX */
	__u32	max_locks;	/* BWREG_MAX_LOCKS */
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

/*
 * Cumulative per-CPU statistics (also mirrored in the page).  Every
 * regulated period counts in exactly one of plan_first, plan_ahead,
 * fallbacks, failsafe and unregulated: a period on the static budget is
 * a fallback when that budget is limited (a lock holder exists), and
 * unregulated when it is BWREG_UNLIMITED and no lock slot is held.
 */
struct bwreg_cpu_stats {
	__u64	events;		/* events counted in ended periods */
	__u64	throttles;	/* periods in which the CPU was throttled */
	__u64	throttled_ns;	/* total throttled time (sum of delta) */
	__u64	fallbacks;	/* periods run on a limited static budget */
	__u64	failsafe;	/* periods run on the fail-safe budget */
	__u64	tfs_charge_ns;	/* sum of rho * delta charged (TFS Eq. 3) */
	__u64	periods;	/* periods this CPU regulated */
	__u32	last_pid;	/* task last charged with a throttle, 0 none */
	__u32	flags;		/* BWREG_CPU_* */
	__u64	plan_first;	/* periods run on entry 0 of a plan */
	__u64	plan_ahead;	/* periods run on a later entry of a plan */
	__u64	refused;	/* periods whose newest covering plan was not
				 * admissible (it came too late) */
	__u64	lock_limited;	/* periods a held slot lowered the budget */
	__u64	unregulated;	/* periods with no limit at all */
	__u64	reserved[3];
};

#define BWREG_CPU_ACTIVE	0x1	/* timer and counter running */
#define BWREG_CPU_THROTTLED	0x2	/* throttled right now */
#define BWREG_CPU_NO_EVENT	0x4	/* counter could not be created */
/* Bits 8-15: nice steps the TFS penalty currently adds to last_pid. */
#define BWREG_CPU_NICE_SHIFT	8
#define BWREG_CPU_NICE_MASK	0xff00

/* Module-wide lock statistics. */
struct bwreg_lock_stats {
	__u64	kicks;		/* BWREG_LOCK_IOC_KICK calls */
	__u64	kick_lowered;	/* kicks that lowered some CPU's budget */
	__u64	kick_ns_last;	/* ioctl entry to every CPU re-armed */
	__u64	kick_ns_max;
	__u64	kick_ns_sum;	/* for the mean: sum / kicks */
	__u64	held;		/* bit s: slot s held at the last period */
	__u64	reserved[2];
};

struct bwreg_stats {
	__u32	version;	/* BWREG_UAPI_VERSION */
	__u32	failsafe;	/* 1 while the fail-safe budget applies */
	__u64	period;		/* current period number */
	__u64	next_boundary_ns; /* CLOCK_MONOTONIC */
	__u64	cpumask;	/* regulated CPUs */
	__u64	plan_id;	/* plan that governs the current period, 0 none */
	struct bwreg_lock_stats lock;
	struct bwreg_cpu_stats cpu[BWREG_MAX_CPUS];
};

/* A plan: budgets for len consecutive periods from first. */
struct bwreg_plan {
	__u64	seq;		/* (d) odd while being rewritten */
	__u64	id;		/* (d) 0 empty; grows with every plan */
	__u64	first;		/* (d) period of entry 0 */
	__u32	len;		/* (d) entries, 1..BWREG_PLAN_MAX */
	__u32	pad;
	__u64	lock_mask;	/* (d) bit s: slot s was a holder the plan
				 * accounted for */
	__u64	reserved[3];
	__u64	lock_launches[BWREG_MAX_LOCKS]; /* (d) slot's launches then */
	__u64	events[BWREG_PLAN_MAX][BWREG_MAX_CPUS]; /* (d) */
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
	__u64	plan_id;	/* (k) plan governing the current period */
	__u64	lock_held;	/* (k) bit s: slot s held (last look) */
	__u64	pad0[5];
	__u64	static_events[BWREG_MAX_CPUS];	/* (d) per-CPU static budget */
	__u64	lock_static[BWREG_MAX_LOCKS];	/* (d) per slot, per CPU */
	__u8	pad1[4096 - 128 - 8 * BWREG_MAX_CPUS - 8 * BWREG_MAX_LOCKS];
	struct bwreg_cpu_stats stats[BWREG_MAX_CPUS];	/* (k) 8 KiB */
	struct bwreg_plan plan[2];			/* (d) */
};

#define BWREG_PLAN_SIZE		(64 + 8 * BWREG_MAX_LOCKS + \
				 8 * BWREG_PLAN_MAX * BWREG_MAX_CPUS)
#define BWREG_MAP_SIZE		(4096 + 128 * BWREG_MAX_CPUS + \
				 2 * BWREG_PLAN_SIZE)

/* The page of one lock file (one page, mapped shared, read-write). */
struct bwreg_lock {
	__u32	held;		/* (a) nonzero while the task holds the lock */
	__u32	dyn;		/* (k) 1: some CPU's budget is above this
				 * slot's static budget (kick on launch);
				 * written every period for every valid
				 * slot */
	__u64	launches;	/* (a) bumped before every launch or copy */
	__u64	kicks;		/* (k) this file's kicks, for the application */
	__u64	pad[5];
};

/* BWREG_IOC_LOCK_FD argument. */
struct bwreg_lock_fd {
	__u32	slot;		/* 0..BWREG_MAX_LOCKS-1 */
	__u32	flags;		/* must be zero */
	__s32	fd;		/* out: the new lock file (O_CLOEXEC) */
	__u32	pad;
};

/* BWREG_IOC_LOCKS argument: what every slot's page says now. */
struct bwreg_locks {
	__u64	held;		/* bit s: slot s held */
	__u64	valid;		/* bit s: slot s has a lock file */
	__u64	launches[BWREG_MAX_LOCKS];
};

#define BWREG_IOC_VERSION	_IOR(BWREG_IOC_MAGIC, 1, struct bwreg_version)
#define BWREG_IOC_CONFIG	_IOW(BWREG_IOC_MAGIC, 2, struct bwreg_config)
#define BWREG_IOC_STATS		_IOR(BWREG_IOC_MAGIC, 3, struct bwreg_stats)
#define BWREG_IOC_STOP		_IO(BWREG_IOC_MAGIC, 4)
/* Change rho (milli) without restarting the period clock. */
#define BWREG_IOC_SET_RHO	_IOW(BWREG_IOC_MAGIC, 5, __u32)
/* Create the lock file of a slot (revokes the slot's previous one). */
#define BWREG_IOC_LOCK_FD	_IOWR(BWREG_IOC_MAGIC, 6, struct bwreg_lock_fd)
/* Revoke a slot: its lock file stays open but is no longer read. */
#define BWREG_IOC_LOCK_REVOKE	_IOW(BWREG_IOC_MAGIC, 7, __u32)
/* Read every slot's held word and launch counter. */
#define BWREG_IOC_LOCKS		_IOR(BWREG_IOC_MAGIC, 8, struct bwreg_locks)

/* On a lock file: enforce its slot's static budget now (see above). */
#define BWREG_LOCK_IOC_KICK	_IO(BWREG_IOC_MAGIC, 32)

#endif /* _UAPI_BWREG_H */
