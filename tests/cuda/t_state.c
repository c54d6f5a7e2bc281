/*
 * t_state - unit tests of the CUDA lock state machine against a test
 * sink that keeps the daemon's view (active stream set, copy depth,
 * slots) and a log of calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../client/cuda/state.h"
#include "../check.h"

/* ---- the test sink: the daemon's view ---------------------------------- */

#define MAXK	512

struct view {
	pthread_mutex_t	m;
	uint64_t	active[MAXK];
	int		nactive;
	int		depth;
	int		device_syncs;
	int		forgets;
	uint64_t	slots;		/* bit per claimed slot */
	int		bad;		/* protocol errors seen */
};

static struct view v = { .m = PTHREAD_MUTEX_INITIALIZER };

static int
find(uint64_t k)
{
	int i;

	for (i = 0; i < v.nactive; i++)
		if (v.active[i] == k)
			return i;
	return -1;
}

static int
s_active(void *c, uint64_t k)
{
	(void)c;
	pthread_mutex_lock(&v.m);
	if (find(k) >= 0 || v.nactive == MAXK)
		v.bad++;	/* marked twice: the machine lost track */
	else
		v.active[v.nactive++] = k;
	pthread_mutex_unlock(&v.m);
	return 0;
}

static int
s_sync(void *c, uint64_t k)
{
	int i;

	(void)c;
	pthread_mutex_lock(&v.m);
	if ((i = find(k)) < 0)
		v.bad++;
	else
		v.active[i] = v.active[--v.nactive];
	pthread_mutex_unlock(&v.m);
	return 0;
}

static int
s_forget(void *c, uint64_t k)
{
	int i;

	(void)c;
	v.forgets++;
	if ((i = find(k)) >= 0)
		v.active[i] = v.active[--v.nactive];
	return 0;
}

static int s_device(void *c) { (void)c; v.device_syncs++; return 0; }
static int
s_mb(void *c)
{
	(void)c;
	__atomic_add_fetch(&v.depth, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static int
s_me(void *c)
{
	(void)c;
	__atomic_sub_fetch(&v.depth, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static uint64_t bitmaps[64][4];

static int
s_launch(void *c, int kernel, uint64_t k, uint64_t **bm)
{
	int slot;

	(void)c;
	(void)kernel;
	for (slot = 0; slot < 64 && (v.slots & (1ull << slot)); slot++)
		;
	if (slot == 64)
		return -ENOSPC;
	v.slots |= 1ull << slot;
	*bm = bitmaps[slot];
	if (find(k) < 0)
		v.active[v.nactive++] = k;	/* bwc_launch marks it */
	return slot;
}

static int
s_done(void *c, int slot)
{
	(void)c;
	if (!(v.slots & (1ull << slot)))
		v.bad++;
	v.slots &= ~(1ull << slot);
	return 0;
}

static int
s_kid(void *c, const char *name)
{
	(void)c;
	return strcmp(name, "k") == 0 ? 7 : -ENOENT;
}

static void *s_page(void *c, size_t *sz) { (void)c; *sz = 0; return NULL; }
static void *s_client(void *c) { (void)c; return NULL; }

static const struct bwcuda_sink_ops ops = {
	"test", s_active, s_sync, s_forget, s_device, s_mb, s_me, s_launch,
	s_done, s_kid, s_page, s_client, NULL, NULL, NULL,
};

static struct bwcuda_state st;

static void
reset(void)
{
	struct bwcuda_sink s = { &ops, NULL };

	bwcuda_state_init(&st, &s);
	memset(v.active, 0, sizeof(v.active));
	v.nactive = v.depth = v.device_syncs = v.forgets = v.bad = 0;
	v.slots = 0;
}

static int
held(void)
{
	return v.nactive > 0 || v.depth > 0;
}

/* ---- tests -------------------------------------------------------------- */

static void
test_one_stream(void)
{
	uint64_t snap;

	reset();
	bwcuda_launch(&st, 0x1000);
	bwcuda_launch(&st, 0x1000);
	CHECK(held() && v.nactive == 1);
	snap = bwcuda_sync_begin(&st);
	bwcuda_stream_synced(&st, 0x1000, snap);
	CHECK(!held());
	/* a sync of an unknown stream changes nothing */
	bwcuda_stream_synced(&st, 0x2000, bwcuda_sync_begin(&st));
	CHECK(!held() && v.bad == 0);
}

static void
test_launch_during_sync(void)
{
	uint64_t snap;

	reset();
	bwcuda_launch(&st, 0x1000);
	snap = bwcuda_sync_begin(&st);
	bwcuda_launch(&st, 0x1000);	/* another thread, during the sync */
	bwcuda_stream_synced(&st, 0x1000, snap);
	CHECK(held());
	bwcuda_stream_synced(&st, 0x1000, bwcuda_sync_begin(&st));
	CHECK(!held() && v.bad == 0);
}

/* A launch still inside the driver when a sync starts is not covered. */
static void
test_launch_in_flight(void)
{
	uint64_t snap;

	reset();
	bwcuda_launch_begin(&st, 0x1000);
	CHECK(held());
	snap = bwcuda_sync_begin(&st);
	bwcuda_stream_synced(&st, 0x1000, snap);	/* sync returned */
	CHECK(held());
	bwcuda_launch_end(&st, 0x1000);
	bwcuda_stream_synced(&st, 0x1000, snap);	/* still too old */
	CHECK(held());
	bwcuda_device_synced(&st, snap);
	CHECK(held());
	/* submitted before the snapshot: covered */
	bwcuda_stream_synced(&st, 0x1000, bwcuda_sync_begin(&st));
	CHECK(!held());
	/* an event recorded while a launch is in flight covers nothing */
	bwcuda_launch_begin(&st, 0x1000);
	bwcuda_event_record(&st, 0xe1, 0x1000);
	bwcuda_launch_end(&st, 0x1000);
	bwcuda_event_synced(&st, 0xe1);
	CHECK(held());
	/* destroyed mid-launch: the orphan waits for the launch too */
	bwcuda_launch_begin(&st, 0x2000);
	bwcuda_stream_destroyed(&st, 0x2000);
	bwcuda_device_synced(&st, bwcuda_sync_begin(&st));
	CHECK(held() && find(BWCUDA_KEY_ORPHAN) >= 0);
	bwcuda_launch_end(&st, 0x2000);
	bwcuda_device_synced(&st, bwcuda_sync_begin(&st));
	CHECK(!held() && v.bad == 0);
}

static void
test_streams_and_device(void)
{
	uint64_t snap;

	reset();
	bwcuda_launch(&st, 0x1000);
	bwcuda_launch(&st, 0x2000);
	bwcuda_stream_synced(&st, 0x1000, bwcuda_sync_begin(&st));
	CHECK(held() && v.nactive == 1);
	bwcuda_stream_synced(&st, 0x2000, bwcuda_sync_begin(&st));
	CHECK(!held());

	bwcuda_launch(&st, 0x1000);
	bwcuda_launch(&st, 0x2000);
	snap = bwcuda_sync_begin(&st);
	bwcuda_launch(&st, 0x3000);	/* after the snapshot: survives */
	bwcuda_device_synced(&st, snap);
	CHECK(v.nactive == 1 && v.active[0] == 0x3000 && v.device_syncs == 0);
	bwcuda_device_synced(&st, bwcuda_sync_begin(&st));
	CHECK(!held() && v.device_syncs == 1 && v.bad == 0);
}

static void
test_copies(void)
{
	reset();
	bwcuda_copy_begin(&st);
	bwcuda_copy_begin(&st);
	CHECK(held());
	bwcuda_copy_end(&st);
	CHECK(held());
	bwcuda_copy_end(&st);
	CHECK(!held());
}

static void
test_events(void)
{
	reset();
	bwcuda_launch(&st, 0x1000);
	bwcuda_event_record(&st, 0xe1, 0x1000);
	bwcuda_event_synced(&st, 0xe1);
	CHECK(!held());

	bwcuda_launch(&st, 0x1000);
	bwcuda_event_record(&st, 0xe1, 0x1000);	/* re-recorded */
	bwcuda_launch(&st, 0x1000);		/* work after the event */
	bwcuda_event_synced(&st, 0xe1);
	CHECK(held());
	bwcuda_event_synced(&st, 0xe2);		/* never recorded */
	CHECK(held());
	bwcuda_event_forget(&st, 0xe1);
	bwcuda_event_synced(&st, 0xe1);
	CHECK(held());
	bwcuda_stream_synced(&st, 0x1000, bwcuda_sync_begin(&st));
	CHECK(!held() && v.bad == 0);
}

static void
test_destroy(void)
{
	reset();
	bwcuda_launch(&st, 0x1000);
	bwcuda_stream_destroyed(&st, 0x1000);
	/* queued work still runs: the orphan keeps the lock */
	CHECK(held() && v.nactive == 1 && v.active[0] == BWCUDA_KEY_ORPHAN);
	/* the handle is reused by a new stream at once */
	bwcuda_launch(&st, 0x1000);
	bwcuda_stream_synced(&st, 0x1000, bwcuda_sync_begin(&st));
	CHECK(held());
	bwcuda_device_synced(&st, bwcuda_sync_begin(&st));
	CHECK(!held());
	/* an idle stream is just forgotten */
	bwcuda_stream_destroyed(&st, 0x1000);
	CHECK(!held() && v.forgets == 2 && v.bad == 0);
	/* default streams are never destroyed */
	bwcuda_launch(&st, BWCUDA_KEY_LEGACY);
	bwcuda_stream_destroyed(&st, BWCUDA_KEY_LEGACY);
	CHECK(held() && v.forgets == 2);
}

static void *
key_thread(void *arg)
{
	uint64_t *out = arg;

	out[0] = bwcuda_stream_key(0, 1);
	out[1] = bwcuda_stream_key(0x2, 0);
	return NULL;
}

static void
test_keys(void)
{
	uint64_t other[2];
	pthread_t t;

	CHECK(bwcuda_stream_key(0, 0) == BWCUDA_KEY_LEGACY);
	CHECK(bwcuda_stream_key(0x1, 0) == BWCUDA_KEY_LEGACY);
	CHECK(bwcuda_stream_key(0x1, 1) == BWCUDA_KEY_LEGACY);
	CHECK(bwcuda_stream_key(0, 1) == bwcuda_stream_key(0x2, 0));
	CHECK((bwcuda_stream_key(0, 1) & 3) == 2);
	CHECK(bwcuda_stream_key(0x7f0000001000, 1) == 0x7f0000001000);
	pthread_create(&t, NULL, key_thread, other);
	pthread_join(t, NULL);
	CHECK(other[0] == other[1] && other[0] != bwcuda_stream_key(0, 1));
}

/* Random launches, syncs and destructions against a plain model. */
static void
test_table_model(void)
{
	static int model[200];
	unsigned seed = 1;
	int i, n, k, op;

	reset();
	memset(model, 0, sizeof(model));
	for (i = 0; i < 100000; i++) {
		seed = seed * 1103515245 + 12345;
		k = (int)((seed >> 8) % 200);
		op = (int)((seed >> 20) % 3);
		if (op == 0) {
			bwcuda_launch(&st, 0x1000 + 0x100 * (uint64_t)k);
			model[k] = 1;
		} else if (op == 1) {
			bwcuda_stream_synced(&st, 0x1000 + 0x100 * (uint64_t)k,
			    bwcuda_sync_begin(&st));
			model[k] = 0;
		} else if (!model[k]) {
			bwcuda_stream_destroyed(&st,
			    0x1000 + 0x100 * (uint64_t)k);
		}
	}
	for (n = 0, k = 0; k < 200; k++)
		n += model[k];
	CHECK(v.nactive == n && v.bad == 0);
	for (k = 0; k < 200; k++) {
		if (model[k])
			CHECK(find(0x1000 + 0x100 * (uint64_t)k) >= 0);
	}
	/* more streams than the table holds: overflow, never lost */
	for (k = 0; k < 400; k++)
		bwcuda_launch(&st, 0x100000 + 0x100 * (uint64_t)k);
	CHECK(held() && find(BWCUDA_KEY_ORPHAN) >= 0);
	bwcuda_device_synced(&st, bwcuda_sync_begin(&st));
	CHECK(!held() && v.bad == 0);
}

static void
test_progress(void)
{
	uint64_t *bm;
	int slot;

	reset();
	slot = bwcuda_progress_launch_key(&st, "k", 0x1000, &bm);
	CHECK(slot == 0 && bm == bitmaps[0] && held());
	bwcuda_launch(&st, 0x1000);	/* the kernel launch itself */
	CHECK(v.nactive == 1 && v.bad == 0);
	CHECK(bwcuda_progress_launch_key(&st, "nope", 0x2000, &bm) ==
	    -ENOENT && bm == NULL);
	CHECK(v.nactive == 2);		/* still protected */
	bwcuda_stream_synced(&st, 0x1000, bwcuda_sync_begin(&st));
	CHECK(v.slots == 0 && v.nactive == 1);
	bwcuda_stream_synced(&st, 0x2000, bwcuda_sync_begin(&st));
	CHECK(!held() && v.bad == 0);
	/* slots of a destroyed stream wait for the device sync */
	slot = bwcuda_progress_launch_key(&st, "k", 0x3000, &bm);
	bwcuda_stream_destroyed(&st, 0x3000);
	CHECK(slot >= 0 && v.slots != 0 && held());
	bwcuda_device_synced(&st, bwcuda_sync_begin(&st));
	CHECK(v.slots == 0 && !held() && v.bad == 0);
}

#define NTHREADS	4
#define NITER		20000

static void *
worker(void *arg)
{
	uint64_t key = 0x10000 * (1 + (uint64_t)(uintptr_t)arg);
	int i;

	for (i = 0; i < NITER; i++) {
		bwcuda_launch(&st, key);
		bwcuda_launch(&st, BWCUDA_KEY_LEGACY);
		if (i % 3 == 0)
			bwcuda_copy_begin(&st);
		bwcuda_stream_synced(&st, key, bwcuda_sync_begin(&st));
		if (i % 3 == 0)
			bwcuda_copy_end(&st);
		if (i % 100 == 0)
			bwcuda_device_synced(&st, bwcuda_sync_begin(&st));
	}
	return NULL;
}

static void
test_threads(void)
{
	pthread_t t[NTHREADS];
	uintptr_t i;

	reset();
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	/* only the legacy stream can be left active */
	CHECK(v.bad == 0 && v.depth == 0);
	CHECK(v.nactive <= 1);
	bwcuda_device_synced(&st, bwcuda_sync_begin(&st));
	CHECK(!held() && !bwcuda_any_active(&st));
}

int
main(void)
{
	test_one_stream();
	test_launch_during_sync();
	test_launch_in_flight();
	test_streams_and_device();
	test_copies();
	test_events();
	test_destroy();
	test_keys();
	test_table_model();
	test_progress();
	test_threads();
	if (failures)
		fprintf(stderr, "t_state: %d failures\n", failures);
	return failures ? 1 : 0;
}
