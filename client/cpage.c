/*
 * cpage.c - shared pages, application side (see cpage.h).
 *
 * The daemon reads these pages from another process at any moment, so
 * every field that changes after the page was sent is written with
 * __atomic builtins, and seq is bumped after the change so a reader that
 * saw the old seq knows to look again.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpage.h"

#define SEALS	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

_Static_assert(sizeof(struct bwshm_launch) == BWSHM_LAUNCH_HDR_SIZE,
    "launch slot header layout");

/* A memfd of size bytes, mapped shared; sealed by the caller when filled. */
static int
memfd_map(const char *name, size_t size, int *fdp, void **mapp)
{
	void	*map;
	int	 fd, err;

	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0)
		goto fail;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto fail;
	*fdp = fd;
	*mapp = map;
	return 0;
fail:
	err = -errno;
	close(fd);
	return err;
}

static int
memfd_seal(int fd)
{
	return fcntl(fd, F_ADD_SEALS, SEALS) < 0 ? -errno : 0;
}

/* ---- task page ---------------------------------------------------- */

int
cpage_task_create(struct cpage_task *t)
{
	void	*map;
	int	 fd, rc;

	t->fd = -1;
	t->page = NULL;
	rc = memfd_map("bwsched-task", BWSHM_TASK_PAGE_SIZE, &fd, &map);
	if (rc < 0)
		return rc;
	t->page = map;
	t->fd = fd;
	/* ftruncate gave zeroes: only the identification is left to fill */
	t->page->magic = BWSHM_TASK_MAGIC;
	t->page->version = BWSHM_LAYOUT_VERSION;
	rc = memfd_seal(fd);
	if (rc < 0)
		cpage_task_destroy(t);
	return rc;
}

void
cpage_task_destroy(struct cpage_task *t)
{
	if (t->page != NULL)
		munmap(t->page, BWSHM_TASK_PAGE_SIZE);
	if (t->fd >= 0)
		close(t->fd);
	t->page = NULL;
	t->fd = -1;
}

static inline void
bump(struct cpage_task *t)
{
	__atomic_fetch_add(&t->page->seq, 1, __ATOMIC_RELEASE);
}

void
cpage_lock(struct cpage_task *t)
{
	__atomic_fetch_add(&t->page->lock_depth, 1, __ATOMIC_ACQ_REL);
	bump(t);
}

/* Decrement *p unless it is 0 (an unbalanced release must not wrap). */
static int
dec_nonzero(uint32_t *p)
{
	uint32_t	v = __atomic_load_n(p, __ATOMIC_RELAXED);

	do {
		if (v == 0)
			return -ENOLCK;
	} while (!__atomic_compare_exchange_n(p, &v, v - 1, 1,
	    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return 0;
}

int
cpage_unlock(struct cpage_task *t)
{
	int	rc = dec_nonzero(&t->page->lock_depth);

	if (rc == 0)
		bump(t);
	return rc;
}

void
cpage_memcpy_begin(struct cpage_task *t)
{
	__atomic_fetch_add(&t->page->memcpy_depth, 1, __ATOMIC_ACQ_REL);
	bump(t);
}

int
cpage_memcpy_end(struct cpage_task *t)
{
	int	rc = dec_nonzero(&t->page->memcpy_depth);

	if (rc == 0)
		bump(t);
	return rc;
}

static inline uint64_t
handle_of(uint64_t stream)
{
	return stream == 0 ? CPAGE_NULL_STREAM : stream;
}

/* Bits of every slot naming handle h. */
static uint64_t
slots_of(const struct cpage_task *t, uint64_t h)
{
	uint64_t	m = 0;
	int		i;

	for (i = 0; i < BWSHM_MAX_STREAMS; i++)
		if (__atomic_load_n(&t->page->stream_handle[i],
		    __ATOMIC_ACQUIRE) == h)
			m |= 1ull << i;
	return m;
}

int
cpage_stream_active(struct cpage_task *t, uint64_t stream)
{
	uint64_t	h = handle_of(stream), zero;
	int		i;

	for (i = 0; i < BWSHM_MAX_STREAMS; i++)
		if (__atomic_load_n(&t->page->stream_handle[i],
		    __ATOMIC_ACQUIRE) == h)
			goto found;
	/*
	 * First use: claim a free slot.  Two threads racing on the same new
	 * stream may claim two slots; sync and forget clear every slot of a
	 * handle, so a duplicate costs a slot, never a lost release.
	 */
	for (i = 0; i < BWSHM_MAX_STREAMS; i++) {
		zero = 0;
		if (__atomic_compare_exchange_n(&t->page->stream_handle[i],
		    &zero, h, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			goto found;
		if (zero == h)
			goto found;
	}
	return -EMFILE;
found:
	__atomic_fetch_or(&t->page->active_streams, 1ull << i,
	    __ATOMIC_ACQ_REL);
	bump(t);
	return i;
}

void
cpage_stream_sync(struct cpage_task *t, uint64_t stream)
{
	uint64_t	m = slots_of(t, handle_of(stream));

	if (m == 0)
		return;
	__atomic_fetch_and(&t->page->active_streams, ~m, __ATOMIC_ACQ_REL);
	bump(t);
}

void
cpage_device_sync(struct cpage_task *t)
{
	__atomic_store_n(&t->page->active_streams, 0, __ATOMIC_RELEASE);
	bump(t);
}

void
cpage_stream_forget(struct cpage_task *t, uint64_t stream)
{
	uint64_t	h = handle_of(stream), m = slots_of(t, h);
	int		i;

	if (m == 0)
		return;
	__atomic_fetch_and(&t->page->active_streams, ~m, __ATOMIC_ACQ_REL);
	for (i = 0; i < BWSHM_MAX_STREAMS; i++)
		if (m & (1ull << i))
			__atomic_store_n(&t->page->stream_handle[i], 0,
			    __ATOMIC_RELEASE);
	bump(t);
}

int
cpage_locked(const struct cpage_task *t)
{
	const struct bwshm_task_page *p = t->page;

	return __atomic_load_n(&p->lock_depth, __ATOMIC_ACQUIRE) > 0 ||
	    __atomic_load_n(&p->memcpy_depth, __ATOMIC_ACQUIRE) > 0 ||
	    __atomic_load_n(&p->active_streams, __ATOMIC_ACQUIRE) != 0;
}

void
cpage_heartbeat(struct cpage_task *t)
{
	__atomic_fetch_add(&t->page->heartbeat, 1, __ATOMIC_RELAXED);
}

/* ---- progress page ------------------------------------------------ */

int
cpage_progress_create(struct cpage_progress *p, uint32_t nslots,
    uint32_t max_blocks)
{
	struct bwshm_progress_hdr *hdr;
	uint64_t	size;
	void		*map;
	int		 fd, rc;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	if (nslots < 1 || nslots > BWSHM_MAX_SLOTS || max_blocks < 1 ||
	    max_blocks > (1u << 24))
		return -EINVAL;
	size = BWSHM_PROGRESS_SIZE(nslots, max_blocks);
	if (size > BWSHM_MAX_PROGRESS_SIZE)
		return -EINVAL;
	rc = memfd_map("bwsched-progress", (size_t)size, &fd, &map);
	if (rc < 0)
		return rc;
	p->fd = fd;
	p->map = map;
	p->size = (size_t)size;
	p->nslots = nslots;
	p->max_blocks = max_blocks;
	p->slot_size = BWSHM_SLOT_SIZE(max_blocks);
	hdr = map;
	hdr->magic = BWSHM_PROGRESS_MAGIC;
	hdr->version = BWSHM_LAYOUT_VERSION;
	hdr->nslots = nslots;
	hdr->slot_size = p->slot_size;
	hdr->max_blocks = max_blocks;
	rc = memfd_seal(fd);
	if (rc < 0)
		cpage_progress_destroy(p);
	return rc;
}

void
cpage_progress_destroy(struct cpage_progress *p)
{
	if (p->map != NULL)
		munmap(p->map, p->size);
	if (p->fd >= 0)
		close(p->fd);
	p->map = NULL;
	p->fd = -1;
}

struct bwshm_launch *
cpage_slot(const struct cpage_progress *p, int slot)
{
	return (struct bwshm_launch *)(void *)((char *)p->map +
	    BWSHM_PROGRESS_HDR_SIZE + (size_t)slot * p->slot_size);
}

/* Seqlock writer: make seq odd; the caller rewrites; seq_close evens it. */
static uint64_t
seq_open(struct bwshm_launch *l)
{
	uint64_t	s = __atomic_load_n(&l->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&l->seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return s + 1;
}

static void
seq_close(struct bwshm_launch *l, uint64_t s)
{
	__atomic_store_n(&l->seq, s + 1, __ATOMIC_RELEASE);
}

int
cpage_slot_claim(struct cpage_progress *p, uint32_t kernel, uint64_t stream,
    uint32_t nblocks, uint64_t launch_ns, uint64_t **bitmap)
{
	struct bwshm_launch *l;
	uint64_t	used, s, w, nwords;
	int		i;

	if (nblocks > p->max_blocks)
		return -E2BIG;
	used = __atomic_load_n(&p->used, __ATOMIC_RELAXED);
	do {
		for (i = 0; i < (int)p->nslots; i++)
			if (!(used & (1ull << i)))
				break;
		if (i == (int)p->nslots)
			return -ENOSPC;
	} while (!__atomic_compare_exchange_n(&p->used, &used,
	    used | (1ull << i), 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));

	l = cpage_slot(p, i);
	s = seq_open(l);
	__atomic_store_n(&l->kernel, kernel, __ATOMIC_RELAXED);
	__atomic_store_n(&l->stream, stream, __ATOMIC_RELAXED);
	__atomic_store_n(&l->launch_ns, launch_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&l->nblocks, nblocks, __ATOMIC_RELAXED);
	/* the previous launch's start must not pass for this one's */
	__atomic_store_n(&l->gpu_start, 0, __ATOMIC_RELAXED);
	nwords = (p->max_blocks + 63u) / 64u;
	for (w = 0; w < nwords; w++)
		__atomic_store_n(&l->bitmap[w], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->state, BWSHM_SLOT_RUNNING, __ATOMIC_RELAXED);
	seq_close(l, s);
	if (bitmap != NULL)
		*bitmap = l->bitmap;
	return i;
}

int
cpage_slot_release(struct cpage_progress *p, int slot, uint64_t end_ns)
{
	struct bwshm_launch *l;
	uint64_t	s;

	if (slot < 0 || slot >= (int)p->nslots ||
	    !(__atomic_load_n(&p->used, __ATOMIC_ACQUIRE) & (1ull << slot)))
		return -EINVAL;
	l = cpage_slot(p, slot);
	s = seq_open(l);
	if (end_ns != 0) {
		__atomic_store_n(&l->end_ns, end_ns, __ATOMIC_RELAXED);
		__atomic_store_n(&l->ended_launch_ns, __atomic_load_n(
		    &l->launch_ns, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	}
	__atomic_store_n(&l->state, BWSHM_SLOT_FREE, __ATOMIC_RELAXED);
	seq_close(l, s);
	__atomic_fetch_and(&p->used, ~(1ull << slot), __ATOMIC_ACQ_REL);
	return 0;
}
