/*
 * tasks.h - the registry of RT tasks and their kernels, and the bandwidth
 * lock of BWLOCK++ Table 1: a task holds the lock while its explicit lock
 * depth > 0, a synchronous copy is in flight or one of its streams is
 * active; the socket state and the task page's words are OR-ed.
 *
 * Runs on the event loop.  What a period thread will need (holders, their
 * Q-bar and their pages) is published as a snapshot under a mutex every
 * time it changes; tasks_snapshot() copies it out.  The reader may use the
 * page pointers of a snapshot until it takes its next one: an
 * unregistered task is kept (buried) until the reader has taken a
 * snapshot published without it, then unmapped and freed (RCU-like).
 * Without a reader, tasks are freed at once.
 */
#ifndef TASKS_H
#define TASKS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <bwsched/bwshm.h>

#include "bwproto.h"
#include "conf.h"
#include "progress.h"
#include "validate.h"
#include "wcet.h"

struct kernel {
	uint32_t		id;
	char			name[BWP_MAX_NAME + 1];
	uint32_t		blocks;
	uint32_t		concurrency;
	unsigned int		nclusters;
	uint64_t		e0[BWP_MAX_CLUSTERS];
	uint64_t		e1[BWP_MAX_CLUSTERS];
	struct wcet_kernel	wk;
	struct progress_table	*pt;
	double			q_nominal;	/* Q-bar */
	uint64_t		wcet_ns;	/* G(Q-bar,{Ni},0) */
	uint64_t		wcet0_ns;	/* G(0,{Ni}) */
	uint64_t		launches;	/* kernel.start (no page) */
	unsigned int		running;	/* starts not yet ended */
	uint64_t		page_launches;	/* seen on the progress
						 * page (tasks_count_launches) */
};

/*
 * A launch kernel.start announced with a progress slot, kept until its
 * one end event is sent (doc/protocol.md section 6): the engine's record
 * when the engine saw it run, else the client's kernel.end.
 */
struct announced {
	uint64_t		launch;		/* its number; 0: unused */
	uint64_t		seq;		/* the slot's at kernel.start;
						 * 0: not claimed yet */
	uint64_t		end_ns;		/* kernel.end waiting; 0: none */
	uint32_t		kernel;
	uint32_t		slot;
	bool			sent;		/* its end event went out */
};

#define TASKS_ANNOUNCED		128	/* two per slot, oldest replaced */

struct task {
	struct task		*next;
	uint32_t		id;
	pid_t			pid;
	char			name[BWP_MAX_NAME + 1];
	uint64_t		period_ns;
	unsigned int		priority;
	unsigned int		rt_cap;		/* highest it may set */
	unsigned int		pages;	/* 1 task, 2 progress page */
	struct bwshm_task_page	*tp;	/* read-only map or NULL */
	void			*pp;	/* progress page or NULL */
	size_t			pp_size;
	unsigned int		nslots;	/* progress page slots */
	uint64_t		streams[BWSHM_MAX_STREAMS]; /* active, socket */
	unsigned int		nstreams;
	unsigned int		memcpy_depth;
	unsigned int		lock_depth;
	bool			locked;		/* last computed */
	bool			lock_moved;	/* hooks.lock not called yet */
	struct kernel		**kernels;	/* kcap slots, never moved */
	unsigned int		nkernels;
	unsigned int		kcap;
	bool			slotted[BWSHM_MAX_STREAMS]; /* streams[i]
					 * started with a progress slot */
	uint64_t		next_launch;
	uint64_t		dead_gen;	/* buried: gen without it */
	uint64_t		slot_seen[BWSHM_MAX_SLOTS]; /* claims
					 * counted, per progress slot */
	struct announced	ann[TASKS_ANNOUNCED];
	unsigned int		ann_next;	/* the next one replaced */
	unsigned int		ends_waiting;	/* kernel.end for them */
	int			lock_slot;	/* regulator lock slot, -1 */
	uint64_t		lock_events;	/* its static budget told */
};

/* What a period thread reads: one entry per lock holder. */
struct tasks_holder {
	uint32_t			task;
	double				qbar;
	const struct bwshm_task_page	*tp;
	const void			*pp;
	size_t				pp_size;
	unsigned int			nslots;
	pid_t				pid;
	const char			*name;		/* the task's, as pp */
	bool				uninstrumented;	/* socket copy or
							 * unslotted launch */
	unsigned int			nkernels;
	struct kernel *const		*kernels;	/* valid as the pages */
	int				lock_slot;	/* -1: none */
};

struct tasks_snapshot {
	uint64_t		gen;		/* bumped per publish */
	unsigned int		nholders;
	unsigned int		total;		/* all holders, copied or not */
	double			q_static; /* min holder Q-bar; -1 */
	struct tasks_holder	holder[];	/* up to max_tasks */
};

struct tasks_hooks {
	void	*arg;
	void	(*lock)(void *, const struct task *, bool locked);
	/* the static budget for the holders of snapshot generation gen
	 * (they may have changed even when the budget did not) */
	void	(*budget)(void *, const uint64_t *events,
		    unsigned int ncores, uint64_t gen);
	void	(*kernel)(void *, const struct task *,
		    const struct kernel *, uint64_t launch, const char *what,
		    uint64_t ts_ns);
	/* a task's lock slot: its static budget (per core) changed, or
	 * the slot closes (the task is gone); NULL: no lock slots */
	void	(*slot)(void *, unsigned int slot, uint64_t events,
		    bool close);
};

struct tasks;

struct tasks	*tasks_new(const struct config *,
		    const struct tasks_hooks *);
void		 tasks_free(struct tasks *);
/* The config changed (reload/set): keep the pointer, recompute budgets. */
void		 tasks_config(struct tasks *, const struct config *);

/*
 * task.register: takes ownership of the descriptors in fds (closes them).
 * Returns a status; err explains failures.
 */
int	tasks_register(struct tasks *, pid_t,
	    const struct req_task_register *, const int *fds, int nfds,
	    struct task **, char *err, size_t);
void	tasks_unregister(struct tasks *, struct task *);

int	tasks_kernel_register(struct tasks *, struct task *,
	    const struct req_kernel_register *, struct kernel **, char *err,
	    size_t);
int	tasks_kernel_start(struct tasks *, struct task *,
	    const struct req_kernel_start *, uint64_t now, uint64_t *launch,
	    char *err, size_t);
int	tasks_kernel_end(struct tasks *, struct task *,
	    const struct req_kernel_end *, uint64_t now, char *err, size_t);
int	tasks_stream_sync(struct tasks *, struct task *,
	    const struct req_stream_sync *, char *err, size_t);
int	tasks_memcpy(struct tasks *, struct task *, bool begin, char *err,
	    size_t);
int	tasks_lock(struct tasks *, struct task *, bool lock, char *err,
	    size_t);

/*
 * Re-read every task page, recompute who holds the lock, and on a change
 * emit lock events, hand the static budget to the regulator hook and
 * publish a new snapshot.  Called after every message and on a tick.
 */
void	tasks_update(struct tasks *);

/* GPU partitioning: the admission state (admit.h). */
struct admit	*tasks_admit(struct tasks *);

/* Accessors for status/tasks/kernels. */
struct task	*tasks_first(struct tasks *);
struct task	*tasks_find(struct tasks *, uint32_t id);
unsigned int	 tasks_count(const struct tasks *);
/* No task registered; safe from any thread (the count is atomic). */
bool		 tasks_none(const struct tasks *);
/*
 * When the launch with launch_ns in slot of task's progress page ended,
 * as the client recorded on freeing the slot (bwshm.h): 0 with *end_ns,
 * or -1 (no such task, slot or record, or the slot is being rewritten).
 */
int		 tasks_slot_end(struct tasks *, uint32_t task, uint32_t slot,
		    uint64_t launch_ns, uint64_t *end_ns);
/*
 * The engine saw a launch end (period_launch): its number and whether
 * its end event is still to be sent.  A launch kernel.start announced
 * gets that number; one made on the page alone the task's next.
 * Returns false when the task is gone.
 */
bool		 tasks_launch_ended(struct tasks *, uint32_t task,
		    uint32_t slot, uint32_t kernel, uint64_t seq,
		    uint64_t *launch, bool *send);
/*
 * Send the end events of announced launches whose kernel.end waited
 * grace_ns for the engine's record in vain (the engine never saw them
 * run: too short, or the slot was never written).
 */
void		 tasks_flush_ends(struct tasks *, uint64_t now,
		    uint64_t grace_ns);
/*
 * Count the launches made on the progress pages since the last call
 * into their kernels' page_launches, from each slot's sequence word (it
 * counts claims and releases), so a poll the loop misses loses nothing.
 */
void		 tasks_count_launches(struct tasks *);
/* Progress-page slots of t running kernel now (read, not cached). */
unsigned int	 tasks_kernel_running(const struct task *, uint32_t kernel);
unsigned int	 tasks_kernel_count(const struct tasks *);
unsigned int	 tasks_holders(const struct tasks *);
double		 tasks_q_static(const struct tasks *);
const uint64_t	*tasks_static_budget(const struct tasks *,
		    unsigned int *n);
bool		 tasks_task_locked(const struct task *);
unsigned int	 tasks_active_streams(const struct task *);

/*
 * The task's lock slot, allocated on first use (the slots least
 * recently freed first), with its static budget per core in *events.
 * -1 when every slot is taken.
 */
int		 tasks_lock_slot(struct tasks *, struct task *,
		    uint64_t *events);

/*
 * Copy the current snapshot into out (room for max entries); any thread.
 * Taking one releases the pointers of the previous one.
 */
/* The generation of the current snapshot (moves with the holders);
 * any thread, and unlike tasks_snapshot() it releases nothing. */
uint64_t	tasks_generation(struct tasks *);
void	tasks_snapshot(struct tasks *, struct tasks_snapshot *out,
	    unsigned int max);
/* Unregistered tasks still kept for the reader (tests, status). */
unsigned int	tasks_buried(const struct tasks *);

#endif /* TASKS_H */
