/*
 * state.h - the CUDA bandwidth-lock state machine (BWLOCK++ Table 1 in
 * its modern form), shared by the CUPTI injection and the interposer.
 *
 * Streams are identified by a 64-bit key (bwcuda_stream_key): the
 * application's CUstream handle, BWCUDA_KEY_LEGACY for the legacy default
 * stream, or a per-thread key for the calling thread's per-thread default
 * stream.  The machine tracks which streams have pending work and tells a
 * sink (libbwclient, a recorder for tests, or nothing) when a stream
 * becomes active or is cleared.
 *
 * Work is marked active before the real call and gets a sequence number
 * when the call has returned (it is then in the driver's queue).  A
 * synchronization takes a snapshot of the counter before its real call
 * and clears only streams with no work submitted after the snapshot and
 * none still being submitted, so work another thread launches while a
 * synchronization is in progress is never lost.
 */
#ifndef BWCUDA_STATE_H
#define BWCUDA_STATE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define BWCUDA_KEY_LEGACY	0x1u	/* legacy default stream */
#define BWCUDA_KEY_ORPHAN	0x3u	/* destroyed, untracked streams */

#define BWCUDA_MAX_STREAMS	256	/* table size, a power of two */
#define BWCUDA_MAX_EVENTS	1024	/* a power of two */
#define BWCUDA_STREAM_SLOTS	8	/* progress slots per stream */

struct bwcuda_partition;

/* The daemon side, as the state machine sees it. */
struct bwcuda_sink_ops {
	const char	*name;
	int	(*stream_active)(void *, uint64_t key);
	int	(*stream_sync)(void *, uint64_t key);
	int	(*stream_forget)(void *, uint64_t key);
	int	(*device_sync)(void *);
	int	(*memcpy_begin)(void *);
	int	(*memcpy_end)(void *);
	/* claim a progress slot; returns the slot or a negative errno */
	int	(*launch)(void *, int kernel, uint64_t key, uint64_t **bm);
	int	(*launch_done)(void *, int slot);
	/* profile id of a kernel name, or a negative errno */
	int	(*kernel_id)(void *, const char *name);
	void	*(*progress_page)(void *, size_t *size);
	void	*(*client)(void *);
	void	(*close)(void *);
	/* GPU partitioning (green.h); NULL: none.  0 or a negative errno */
	int	(*partition)(void *, struct bwcuda_partition *);
	int	(*granted)(void *, uint32_t sms);
};

struct bwcuda_sink {
	const struct bwcuda_sink_ops	*ops;
	void				*ctx;
};

struct bwcuda_stream {
	uint64_t	key;		/* 0: empty */
	uint64_t	last_seq;	/* sequence of its newest work */
	int		inflight;	/* launch calls not yet returned */
	int		active;
	int		nslots;
	int		slots[BWCUDA_STREAM_SLOTS];
};

struct bwcuda_event {
	uint64_t	event;		/* 0: empty */
	uint64_t	key;		/* stream it was recorded on */
	uint64_t	seq;		/* its last_seq when recorded */
};

struct bwcuda_state {
	pthread_mutex_t		lock;
	struct bwcuda_sink	sink;
	uint64_t		seq;	/* launch counter (atomic reads) */
	unsigned		nstreams;
	unsigned		nactive;
	unsigned		nevents;
	struct bwcuda_stream	streams[BWCUDA_MAX_STREAMS];
	struct bwcuda_event	events[BWCUDA_MAX_EVENTS];
};

/* Stream handle (as the API received it) to key; ptds: per-thread API. */
uint64_t	bwcuda_stream_key(uint64_t handle, int ptds);

void	bwcuda_state_init(struct bwcuda_state *,
	    const struct bwcuda_sink *);
void	bwcuda_state_fini(struct bwcuda_state *);

/*
 * Kernel launch, graph launch or asynchronous copy on a stream: begin
 * before the real call, end after it (whatever it returned).
 * bwcuda_launch is both at once.
 */
void	bwcuda_launch_begin(struct bwcuda_state *, uint64_t key);
void	bwcuda_launch_end(struct bwcuda_state *, uint64_t key);
void	bwcuda_launch(struct bwcuda_state *, uint64_t key);
/* Synchronous copy: hold the lock around the real call. */
void	bwcuda_copy_begin(struct bwcuda_state *);
void	bwcuda_copy_end(struct bwcuda_state *);
/* Snapshot to take before a synchronizing call. */
uint64_t bwcuda_sync_begin(struct bwcuda_state *);
/* After a successful stream / device synchronization. */
void	bwcuda_stream_synced(struct bwcuda_state *, uint64_t key,
	    uint64_t snap);
void	bwcuda_device_synced(struct bwcuda_state *, uint64_t snap);
/* Events: record, completion observed, destruction. */
void	bwcuda_event_record(struct bwcuda_state *, uint64_t event,
	    uint64_t key);
void	bwcuda_event_synced(struct bwcuda_state *, uint64_t event);
void	bwcuda_event_forget(struct bwcuda_state *, uint64_t event);
/* The stream is destroyed; its pending work (if any) stays protected. */
void	bwcuda_stream_destroyed(struct bwcuda_state *, uint64_t key);
/*
 * A profiled launch of kernel name on a stream: claim a progress slot,
 * freed when the stream is synchronized.  Returns the slot (>= 0) with
 * *bitmap set, or a negative errno (the stream is still marked active).
 */
int	bwcuda_progress_launch_key(struct bwcuda_state *, const char *name,
	    uint64_t key, uint64_t **bitmap);
/* Whether any stream is active (for tests and the benchmark). */
int	bwcuda_any_active(struct bwcuda_state *);

/* The process-wide state, its sink chosen from the environment. */
struct bwcuda_state *bwcuda_global(void);

#endif /* BWCUDA_STATE_H */
