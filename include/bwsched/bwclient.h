/*
 * bwclient.h - libbwclient, the application side of bwsched.
 *
 * An application opens one handle, registers itself as a real-time task
 * and registers each GPU kernel once with its cluster table.  Afterwards
 * the hot-path calls (bwc_lock, bwc_unlock, bwc_stream_active,
 * bwc_stream_sync, bwc_device_sync, bwc_memcpy_begin/end, bwc_launch)
 * are atomic stores into a shared task page, and make one system call
 * only on the lock's idle -> held edge, or on a launch while the
 * regulator gives the best-effort cores more than the task's static
 * budget.
 *
 * What taking the lock guarantees.  When the daemon gave the task a lock
 * slot (it does at registration when its regulator has them: the kmod
 * module and the sim backend do), the call that takes the lock - bwc_lock,
 * bwc_memcpy_begin, bwc_stream_active or bwc_launch on an idle task -
 * returns only after the regulator itself enforces at most the task's
 * static budget Q-bar on every best-effort core, for the rest of the
 * current period too: a kernel launched after it starts protected.  A
 * launch while the lock is held gets the same guarantee for that launch.
 * Without a slot (an older daemon, or a regulator without slots), the
 * lock acts when the daemon next reads the task page (every 200 us while
 * tasks are registered).
 *
 * Every function returns 0 (or a non-negative value where documented) on
 * success and a negative errno value on failure; bwc_strerror() gives the
 * message of the last failure on that handle in the calling thread.
 * Handles are thread-safe.  When the daemon restarts, the library
 * reconnects and registers the task and its kernels again by itself; in
 * the meantime the hot-path calls keep working on the page and the slow
 * calls return -ENOTCONN.
 */
#ifndef BWSCHED_BWCLIENT_H
#define BWSCHED_BWCLIENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BWC_VERSION_MAJOR	0
#define BWC_VERSION_MINOR	2

typedef struct bwc bwc_t;

/* Options for bwc_open(). */
#define BWC_NO_RECONNECT	0x1	/* do not reconnect after a daemon restart */
#define BWC_NO_SHM		0x2	/* no task page: lock calls use the socket */

/*
 * Connect to the daemon at path (NULL: $BWSCHED_SOCKET, else
 * /run/bwsched/bwsched.sock) and say hello with the given client name.
 * Returns NULL with errno set when the daemon cannot be reached.
 */
bwc_t		*bwc_open(const char *path, const char *name, int flags);
/* The socket bwc_open(path, ...) tries, for error messages. */
const char	*bwc_socket_path(const char *path);
void		 bwc_close(bwc_t *);
const char	*bwc_strerror(bwc_t *);
int		 bwc_fd(bwc_t *);	/* control socket, for poll loops */

struct bwc_task_params {
	const char	*name;		/* NULL: the client name */
	uint64_t	 period_ns;	/* RT period, 0: 1000000000 */
	int		 priority;	/* 1..99, higher is more urgent */
	uint32_t	 progress_slots; /* launch slots in the progress page, 0: none */
	uint32_t	 progress_max_blocks; /* bitmap capacity per slot */
};
int		 bwc_task_register(bwc_t *, const struct bwc_task_params *);
int		 bwc_task_unregister(bwc_t *);

struct bwc_cluster {
	uint64_t	 e0_ns;		/* per-block WCET alone (Q = 0) */
	uint64_t	 e1_ns;		/* per-block WCET under full interference */
};
struct bwc_interval {
	uint32_t	 first_block;	/* first block id of the run */
	uint32_t	 cluster;	/* cluster id of blocks from here on */
};
struct bwc_kernel_desc {
	const char	*name;
	uint32_t	 blocks;	/* N */
	uint32_t	 concurrency;	/* M */
	uint32_t	 nclusters;
	const struct bwc_cluster *clusters;
	uint32_t	 nintervals;
	const struct bwc_interval *intervals;
	double		 slowdown;	/* 0: daemon default */
	double		 q_nominal;	/* < 0 or 0: computed by the daemon */
};
struct bwc_kernel_info {
	int		 kernel;	/* id to pass to the launch calls */
	double		 q_nominal;	/* Q-bar the daemon computed */
	uint64_t	 wcet_ns;	/* G(Q-bar, {Ni}, 0) */
	uint64_t	 wcet0_ns;	/* G(0, {Ni}) */
};
/* Returns the kernel id (>= 0). */
int		 bwc_kernel_register(bwc_t *, const struct bwc_kernel_desc *,
		    struct bwc_kernel_info *);
/* Same from a .bwk profile file (doc/profile.md). */
int		 bwc_kernel_register_file(bwc_t *, const char *path,
		    struct bwc_kernel_info *);

/*
 * A kernel launch on a stream: marks the stream active (takes the lock)
 * and, when the task has a progress page, claims a launch slot.  Returns
 * the slot index (>= 0) or -ENOSPC when all slots are busy (the launch is
 * then still protected, with the static budget).  *bitmap receives the
 * slot's finished-block bitmap for the device (may be NULL).
 */
int		 bwc_launch(bwc_t *, int kernel, uint64_t stream,
		    uint64_t **bitmap);
/*
 * The launch in this slot has completed; frees the slot.  The time of
 * the call is recorded as the launch's end for the daemon's launch record
 * (its BOUND_MET verdict); bwc_launch_end gives the end instead, e.g.
 * from a GPU timestamp (CLOCK_MONOTONIC ns, 0: unknown).
 */
int		 bwc_launch_done(bwc_t *, int slot);
int		 bwc_launch_end(bwc_t *, int slot, uint64_t end_ns);

/*
 * Hot path: no system call when the task page is in use, but on the
 * lock's edge (see the top).  A kick the regulator did not confirm
 * within 100 ms returns -ETIMEDOUT; the lock is taken all the same.
 */
int		 bwc_lock(bwc_t *);
int		 bwc_unlock(bwc_t *);
int		 bwc_stream_active(bwc_t *, uint64_t stream);
int		 bwc_stream_sync(bwc_t *, uint64_t stream);
int		 bwc_device_sync(bwc_t *);
int		 bwc_memcpy_begin(bwc_t *);
int		 bwc_memcpy_end(bwc_t *);
/* Forget a destroyed stream (clears its active mark). */
int		 bwc_stream_forget(bwc_t *, uint64_t stream);

/* How the lock is enforced (see the top of this file). */
enum bwc_lock_kind {
	BWC_LOCK_NONE = 0,	/* no slot: the daemon's next page poll */
	BWC_LOCK_KMOD = 1,	/* the bwreg module's lock file */
	BWC_LOCK_SIM = 2,	/* the daemon's simulated regulator */
};
struct bwc_lock_info {
	enum bwc_lock_kind kind;
	uint64_t	 kicks;		/* system calls on lock edges */
	uint64_t	 unconfirmed;	/* kicks the regulator did not confirm */
	int		 enforced;	/* held and enforced right now */
};
int		 bwc_lock_info(bwc_t *, struct bwc_lock_info *);

/* The progress page mapping, for cudaHostRegister (NULL if none). */
void		*bwc_progress_page(bwc_t *, size_t *size);

/*
 * GPU partitioning (doc/partition.md).  A demand describes one periodic
 * piece of GPU work of the task: its execution time on m SMs is
 * k*(a/m + b), k = 1 unless another demand of the same class shares its
 * partition.  The daemon admits the task only into a plan where every
 * deadline holds; otherwise the call fails with -ENOSPC and
 * bwc_strerror() gives the reason.
 */
struct bwc_gpu_demand {
	uint64_t	 a_ns;		/* the part that spreads over SMs, timed on one */
	uint64_t	 b_ns;		/* the serial part, used when b_set */
	int		 b_set;		/* 0: b = 0.02a (compute) or 0.1a (memory) */
	int		 memory;	/* 1: memory intensive, 0: compute */
	double		 k;		/* factor under conflict; 0: 1.2 or 2.3 */
	uint64_t	 deadline_ns;	/* 0: the period */
	uint64_t	 period_ns;	/* kernels only; 0: the task's period */
};
/* Register the task with a GPU demand (see bwc_task_register). */
int		 bwc_task_register_gpu(bwc_t *, const struct bwc_task_params *,
		    const struct bwc_gpu_demand *);
/* Register a kernel whose demand adds to its task's. */
int		 bwc_kernel_register_gpu(bwc_t *,
		    const struct bwc_kernel_desc *,
		    const struct bwc_gpu_demand *, struct bwc_kernel_info *);

/* The SMs the task's GPU work may use, as the daemon's plan has it now. */
struct bwc_partition {
	uint32_t	 partition;	/* index in the plan */
	uint32_t	 sm_first;	/* first SM of the range */
	uint32_t	 sms;		/* its size */
	uint32_t	 granted;	/* what the driver gave, 0: not reported */
	uint32_t	 sms_total;	/* SMs the daemon divides */
	uint32_t	 granule;	/* SMs per group of the device's split */
	uint64_t	 plan;		/* generation: changes with every plan change */
};
/* 0, or -ENOENT without a partition; no system call while nothing changed. */
int		 bwc_partition(bwc_t *, struct bwc_partition *);
/* Tell the daemon the device's SM count and split granule. */
int		 bwc_gpu_device(bwc_t *, uint32_t sms, uint32_t granule);
/* The driver gave the partition sms SMs: 1 the plan still holds, 0 not. */
int		 bwc_gpu_granted(bwc_t *, uint32_t sms);

/* Administration and status; values are strings as bwctl prints them. */
int		 bwc_get(bwc_t *, const char *key, char *buf, size_t len);
int		 bwc_set(bwc_t *, const char *key, const char *value);

#ifdef __cplusplus
}
#endif

#endif /* BWSCHED_BWCLIENT_H */
