/*
 * state.c - the CUDA bandwidth-lock state machine (see state.h).
 *
 * One mutex guards the stream and event tables.  Its critical sections
 * are a hash probe and a few stores, plus the sink call when a stream
 * changes state (an atomic store into the task page for libbwclient);
 * calling the sink under the mutex keeps the daemon's view in the same
 * order as ours.  The real CUDA call is always made outside it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "state.h"

#define STREAM_MASK	(BWCUDA_MAX_STREAMS - 1)
#define EVENT_MASK	(BWCUDA_MAX_EVENTS - 1)

static __thread uint64_t ptds_key;

uint64_t
bwcuda_stream_key(uint64_t handle, int ptds)
{
	/*
	 * Real handles are pointers, 8-byte aligned: keys with low bits
	 * 01 (legacy), 11 (orphan) and 10 (per-thread) cannot collide.
	 */
	if (handle == 0 && !ptds)
		return BWCUDA_KEY_LEGACY;
	if (handle == 0 || handle == 0x2) {
		if (ptds_key == 0)
			ptds_key = ((uint64_t)syscall(SYS_gettid) << 2) | 0x2;
		return ptds_key;
	}
	return handle;
}

static unsigned
hash64(uint64_t k, unsigned mask)
{
	k *= 0x9e3779b97f4a7c15ull;
	return (unsigned)(k >> 40) & mask;
}

static struct bwcuda_stream *
stream_find(struct bwcuda_state *st, uint64_t key)
{
	unsigned i = hash64(key, STREAM_MASK);

	while (st->streams[i].key != 0) {
		if (st->streams[i].key == key)
			return &st->streams[i];
		i = (i + 1) & STREAM_MASK;
	}
	return NULL;
}

static struct bwcuda_stream *
stream_get(struct bwcuda_state *st, uint64_t key)
{
	struct bwcuda_stream *s;
	unsigned i;

	if ((s = stream_find(st, key)) != NULL)
		return s;
	/* Keep one free entry for probing and one for the orphan key. */
	if (st->nstreams >= BWCUDA_MAX_STREAMS - 2 && key != BWCUDA_KEY_ORPHAN)
		return stream_get(st, BWCUDA_KEY_ORPHAN);
	i = hash64(key, STREAM_MASK);
	while (st->streams[i].key != 0)
		i = (i + 1) & STREAM_MASK;
	s = &st->streams[i];
	memset(s, 0, sizeof(*s));
	s->key = key;
	st->nstreams++;
	return s;
}

/* Linear-probing deletion: shift later members of the run back. */
static void
stream_del(struct bwcuda_state *st, struct bwcuda_stream *s)
{
	unsigned i = (unsigned)(s - st->streams), j = i, h;

	for (;;) {
		st->streams[i].key = 0;
		for (;;) {
			j = (j + 1) & STREAM_MASK;
			if (st->streams[j].key == 0) {
				st->nstreams--;
				return;
			}
			h = hash64(st->streams[j].key, STREAM_MASK);
			/* may j move to i?  only if h is not in (i, j] */
			if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
				break;
		}
		st->streams[i] = st->streams[j];
		i = j;
	}
}

static struct bwcuda_event *
event_find(struct bwcuda_state *st, uint64_t ev)
{
	unsigned i = hash64(ev, EVENT_MASK);

	while (st->events[i].event != 0) {
		if (st->events[i].event == ev)
			return &st->events[i];
		i = (i + 1) & EVENT_MASK;
	}
	return NULL;
}

static void
event_del(struct bwcuda_state *st, struct bwcuda_event *e)
{
	unsigned i = (unsigned)(e - st->events), j = i, h;

	for (;;) {
		st->events[i].event = 0;
		for (;;) {
			j = (j + 1) & EVENT_MASK;
			if (st->events[j].event == 0) {
				st->nevents--;
				return;
			}
			h = hash64(st->events[j].event, EVENT_MASK);
			if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
				break;
		}
		st->events[i] = st->events[j];
		i = j;
	}
}

void
bwcuda_state_init(struct bwcuda_state *st, const struct bwcuda_sink *sink)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	st->sink = *sink;
}

void
bwcuda_state_fini(struct bwcuda_state *st)
{
	if (st->sink.ops != NULL && st->sink.ops->close != NULL)
		st->sink.ops->close(st->sink.ctx);
	pthread_mutex_destroy(&st->lock);
}

static void
mark_active(struct bwcuda_state *st, struct bwcuda_stream *s, uint64_t seq)
{
	if (seq > s->last_seq)
		s->last_seq = seq;
	if (s->active)
		return;
	s->active = 1;
	st->nactive++;
	st->sink.ops->stream_active(st->sink.ctx, s->key);
}

/* The stream's work is complete: free its slots, clear, forget it. */
static void
clear_stream(struct bwcuda_state *st, struct bwcuda_stream *s)
{
	int i;

	for (i = 0; i < s->nslots; i++)
		st->sink.ops->launch_done(st->sink.ctx, s->slots[i]);
	s->nslots = 0;
	if (s->active) {
		s->active = 0;
		st->nactive--;
		st->sink.ops->stream_sync(st->sink.ctx, s->key);
	}
}

void
bwcuda_launch_begin(struct bwcuda_state *st, uint64_t key)
{
	struct bwcuda_stream *s;

	pthread_mutex_lock(&st->lock);
	s = stream_get(st, key);
	s->inflight++;
	mark_active(st, s, 0);
	pthread_mutex_unlock(&st->lock);
}

void
bwcuda_launch_end(struct bwcuda_state *st, uint64_t key)
{
	struct bwcuda_stream *s;
	uint64_t seq;

	pthread_mutex_lock(&st->lock);
	/* the counter moves under the mutex: a snapshot orders with it */
	seq = __atomic_add_fetch(&st->seq, 1, __ATOMIC_SEQ_CST);
	/* overflowed or destroyed meanwhile: the orphan took its count */
	if ((s = stream_find(st, key)) == NULL || s->inflight == 0)
		s = stream_find(st, BWCUDA_KEY_ORPHAN);
	if (s != NULL && s->inflight > 0) {
		s->inflight--;
		if (seq > s->last_seq)
			s->last_seq = seq;
	}
	pthread_mutex_unlock(&st->lock);
}

void
bwcuda_launch(struct bwcuda_state *st, uint64_t key)
{
	bwcuda_launch_begin(st, key);
	bwcuda_launch_end(st, key);
}

/* Under the mutex too: the sink sees every change in one order. */
void
bwcuda_copy_begin(struct bwcuda_state *st)
{
	pthread_mutex_lock(&st->lock);
	st->sink.ops->memcpy_begin(st->sink.ctx);
	pthread_mutex_unlock(&st->lock);
}

void
bwcuda_copy_end(struct bwcuda_state *st)
{
	pthread_mutex_lock(&st->lock);
	st->sink.ops->memcpy_end(st->sink.ctx);
	pthread_mutex_unlock(&st->lock);
}

uint64_t
bwcuda_sync_begin(struct bwcuda_state *st)
{
	return __atomic_load_n(&st->seq, __ATOMIC_SEQ_CST);
}

void
bwcuda_stream_synced(struct bwcuda_state *st, uint64_t key, uint64_t snap)
{
	struct bwcuda_stream *s;

	pthread_mutex_lock(&st->lock);
	s = stream_find(st, key);
	if (s != NULL && s->last_seq <= snap && s->inflight == 0)
		clear_stream(st, s);
	pthread_mutex_unlock(&st->lock);
}

void
bwcuda_device_synced(struct bwcuda_state *st, uint64_t snap)
{
	unsigned i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; i < BWCUDA_MAX_STREAMS; i++) {
		struct bwcuda_stream *s = &st->streams[i];

		if (s->key != 0 && s->last_seq <= snap && s->inflight == 0)
			clear_stream(st, s);
	}
	if (st->nactive == 0)
		st->sink.ops->device_sync(st->sink.ctx);
	pthread_mutex_unlock(&st->lock);
}

void
bwcuda_event_record(struct bwcuda_state *st, uint64_t ev, uint64_t key)
{
	struct bwcuda_stream *s;
	struct bwcuda_event *e;
	unsigned i;

	if (ev == 0)
		return;
	pthread_mutex_lock(&st->lock);
	if ((e = event_find(st, ev)) == NULL) {
		/* A full table only makes event syncs clear nothing: safe. */
		if (st->nevents >= BWCUDA_MAX_EVENTS - 1)
			goto out;
		i = hash64(ev, EVENT_MASK);
		while (st->events[i].event != 0)
			i = (i + 1) & EVENT_MASK;
		e = &st->events[i];
		e->event = ev;
		st->nevents++;
	}
	s = stream_find(st, key);
	e->key = key;
	/* with a launch still being submitted, we cannot tell: never */
	e->seq = s != NULL && s->inflight == 0 ? s->last_seq : 0;
out:
	pthread_mutex_unlock(&st->lock);
}

void
bwcuda_event_synced(struct bwcuda_state *st, uint64_t ev)
{
	struct bwcuda_stream *s;
	struct bwcuda_event *e;

	pthread_mutex_lock(&st->lock);
	/* Complete only if the event was the stream's last pending work. */
	if ((e = event_find(st, ev)) != NULL && e->seq != 0 &&
	    (s = stream_find(st, e->key)) != NULL && s->last_seq <= e->seq &&
	    s->inflight == 0)
		clear_stream(st, s);
	pthread_mutex_unlock(&st->lock);
}

void
bwcuda_event_forget(struct bwcuda_state *st, uint64_t ev)
{
	struct bwcuda_event *e;

	pthread_mutex_lock(&st->lock);
	if ((e = event_find(st, ev)) != NULL)
		event_del(st, e);
	pthread_mutex_unlock(&st->lock);
}

void
bwcuda_stream_destroyed(struct bwcuda_state *st, uint64_t key)
{
	struct bwcuda_stream *s, *o;
	int i;

	if (key == BWCUDA_KEY_LEGACY || key == BWCUDA_KEY_ORPHAN ||
	    (key & 0x3) == 0x2)
		return;
	pthread_mutex_lock(&st->lock);
	if ((s = stream_find(st, key)) == NULL)
		goto out;
	/*
	 * cuStreamDestroy returns at once while queued work still runs:
	 * hand the work to the orphan stream, which only a device
	 * synchronization clears, so the handle can be reused at once.
	 */
	if (s->active || s->nslots > 0) {
		o = stream_get(st, BWCUDA_KEY_ORPHAN);
		s = stream_find(st, key);	/* the insert may move it */
		if (s->active)
			mark_active(st, o, s->last_seq);
		o->inflight += s->inflight;
		for (i = 0; i < s->nslots; i++) {
			if (o->nslots < BWCUDA_STREAM_SLOTS)
				o->slots[o->nslots++] = s->slots[i];
			else
				st->sink.ops->launch_done(st->sink.ctx,
				    s->slots[i]);
		}
		if (s->active)
			st->nactive--;
	}
	st->sink.ops->stream_forget(st->sink.ctx, key);
	stream_del(st, s);
out:
	pthread_mutex_unlock(&st->lock);
}

int
bwcuda_progress_launch_key(struct bwcuda_state *st, const char *name,
    uint64_t key, uint64_t **bitmap)
{
	struct bwcuda_stream *s;
	uint64_t seq;
	int kid, slot;

	*bitmap = NULL;
	kid = st->sink.ops->kernel_id(st->sink.ctx, name);
	seq = __atomic_add_fetch(&st->seq, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&st->lock);
	s = stream_get(st, key);
	if (kid < 0 || s->nslots == BWCUDA_STREAM_SLOTS) {
		mark_active(st, s, seq);
		slot = kid < 0 ? kid : -ENOSPC;
		goto out;
	}
	/* bwc_launch marks the stream active in the task page itself. */
	slot = st->sink.ops->launch(st->sink.ctx, kid, s->key, bitmap);
	if (seq > s->last_seq)
		s->last_seq = seq;
	if (!s->active) {
		s->active = 1;
		st->nactive++;
		if (slot < 0)
			st->sink.ops->stream_active(st->sink.ctx, s->key);
	}
	if (slot >= 0)
		s->slots[s->nslots++] = slot;
out:
	pthread_mutex_unlock(&st->lock);
	return slot;
}

int
bwcuda_any_active(struct bwcuda_state *st)
{
	int n;

	pthread_mutex_lock(&st->lock);
	n = st->nactive > 0;
	pthread_mutex_unlock(&st->lock);
	return n;
}
