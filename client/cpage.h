/*
 * cpage.h - the application side of the shared pages (bwshm.h): create
 * and seal the memfds, and the lock-free operations the hot path does on
 * them.  No socket, no daemon: libbwclient builds on this and the unit
 * tests drive it directly.
 *
 * Every operation here is a handful of atomic operations on the mapping
 * and never a system call.
 */
#ifndef CPAGE_H
#define CPAGE_H

#include <stddef.h>
#include <stdint.h>

#include "bwsched/bwshm.h"

/*
 * Stream handle 0 (CUDA's NULL stream) cannot be stored as is, because 0
 * marks a free stream slot in the page; it is stored as this value.
 */
#define CPAGE_NULL_STREAM	UINT64_MAX

struct cpage_task {
	int			 fd;
	struct bwshm_task_page	*page;
};

struct cpage_progress {
	int			 fd;
	void			*map;
	size_t			 size;
	uint32_t		 nslots;
	uint32_t		 max_blocks;
	uint32_t		 slot_size;
	uint64_t		 used;	/* bit i: slot i claimed (atomic) */
};

/* Create, map, fill and seal a task page.  Returns 0 or -errno. */
int	cpage_task_create(struct cpage_task *);
void	cpage_task_destroy(struct cpage_task *);

/* Explicit lock nesting.  unlock without lock: -ENOLCK. */
void	cpage_lock(struct cpage_task *);
int	cpage_unlock(struct cpage_task *);
void	cpage_memcpy_begin(struct cpage_task *);
int	cpage_memcpy_end(struct cpage_task *);

/*
 * Mark stream active (claiming a stream slot on first use).  Returns the
 * slot, or -EMFILE when all BWSHM_MAX_STREAMS slots name other streams.
 */
int	cpage_stream_active(struct cpage_task *, uint64_t stream);
/* Clear the stream's active mark (0 also when the stream is unknown). */
void	cpage_stream_sync(struct cpage_task *, uint64_t stream);
/* Clear every stream's mark. */
void	cpage_device_sync(struct cpage_task *);
/* Clear the mark and free the stream's slot. */
void	cpage_stream_forget(struct cpage_task *, uint64_t stream);
/* Whether the page says the task holds the lock (Table 1 rules). */
int	cpage_locked(const struct cpage_task *);
void	cpage_heartbeat(struct cpage_task *);

/*
 * Progress page with nslots slots (1..BWSHM_MAX_SLOTS) of max_blocks
 * blocks each.  Returns 0 or -errno (-EINVAL for sizes out of range).
 */
int	cpage_progress_create(struct cpage_progress *, uint32_t nslots,
	    uint32_t max_blocks);
void	cpage_progress_destroy(struct cpage_progress *);

/*
 * Claim a free slot for a launch of kernel (its nblocks blocks) on
 * stream, with the seqlock protocol of bwshm.h.  Returns the slot index
 * with *bitmap pointing at its cleared bitmap, -ENOSPC when every slot is
 * busy, -E2BIG when nblocks exceeds the page's max_blocks.
 */
int	cpage_slot_claim(struct cpage_progress *, uint32_t kernel,
	    uint64_t stream, uint32_t nblocks, uint64_t launch_ns,
	    uint64_t **bitmap);
/*
 * Release a claimed slot (state FREE), recording that its launch ended
 * at end_ns (CLOCK_MONOTONIC; 0: not known, nothing recorded).  -EINVAL
 * if not claimed.
 */
int	cpage_slot_release(struct cpage_progress *, int slot, uint64_t end_ns);
/* The slot's header (for tests and the daemon-side readers). */
struct bwshm_launch *cpage_slot(const struct cpage_progress *, int slot);

#endif /* CPAGE_H */
