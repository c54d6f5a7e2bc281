/*
 * ceiling.h - the priority ceiling of the bandwidth lock ([BWLOCK++]
 * section 5.1).  While a task holds the lock, its real-time threads
 * run at the ceiling priority so that no other RT task preempts a GPU
 * segment; the daemon does this with sched_setattr(2) and puts every
 * thread back exactly as it found it when the lock is released.  Why the
 * daemon and not the module: see doc/kmod.md ("Priority ceiling").
 */
#ifndef CEILING_H
#define CEILING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CEILING_MAX_THREADS	256	/* threads boosted per process */

/*
 * Raise every SCHED_FIFO/SCHED_RR thread of pid whose priority is below
 * prio to SCHED_FIFO at prio, remembering what each had.  Threads of
 * other policies are left alone: the daemon never turns a normal thread
 * into a real-time one.  Returns the number of threads raised, or a
 * negative errno (err says why); raising the same pid twice first
 * restores it.
 */
int	ceiling_raise(pid_t pid, int prio, char *err, size_t errlen);

/*
 * The highest SCHED_FIFO priority pid could set itself: 99 with
 * CAP_SYS_NICE, else its hard RLIMIT_RTPRIO (it may raise its soft limit
 * to that), at most 99; 0 when it cannot say.  Read from /proc at
 * registration, while the process is connected to the daemon.
 */
int	ceiling_rt_cap(pid_t pid);

/* Put back the threads of pid that ceiling_raise changed; no-op if none. */
void	ceiling_restore(pid_t pid);

/* Restore everything (daemon shutdown). */
void	ceiling_restore_all(void);

/*
 * The worker.  Raising scans /proc/PID/task and calls sched_setattr per
 * thread: a client with thousands of threads would stall the event loop
 * on every lock change, so the loop only posts requests (constant time
 * in the client's threads) and one worker thread carries them out.
 * Requests for the same pid coalesce: a lock flipped faster than the
 * worker can scan costs one scan, and the last request wins.  Without a
 * started worker, requests run at once on the caller's thread.
 */
#define CEILING_ERR_MAX		160
struct ceiling_result {
	pid_t		pid;
	uint32_t	task;
	int		prio;	/* -1: a restore that could not be queued */
	int		r;	/* threads raised, or a negative errno */
	char		err[CEILING_ERR_MAX];
};

/* wake(arg) runs on the worker after it queued a result. */
int	ceiling_start(void (*wake)(void *), void *arg, char *err,
	    size_t errlen);
/* prio > 0: raise pid's threads to prio; 0: restore them. */
void	ceiling_request(pid_t pid, uint32_t task, int prio);
/* Pop one result (1) or none (0); the loop logs them. */
int	ceiling_result(struct ceiling_result *);
/* Join the worker (pending requests are dropped), then restore all. */
void	ceiling_stop(void);

#endif /* CEILING_H */
