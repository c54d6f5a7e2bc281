/*
 * ring.c - SPSC ring of fixed-size records (see ring.h).
 *
 * head is written only by the producer, tail only by the consumer.  The
 * producer's release store of head publishes the record it copied in;
 * the consumer's release store of tail hands the slot back.  Both are
 * free-running 32-bit counters: their difference is the fill level.
 */
#include <config.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

struct ring {
	uint32_t	cap;		/* power of two */
	uint32_t	head;		/* next slot to write (producer) */
	uint32_t	tail;		/* next slot to read (consumer) */
	uint64_t	dropped;
	size_t		elem;
	unsigned char	*buf;
};

struct ring *
ring_new(size_t elem_size, uint32_t cap)
{
	struct ring	*r;
	uint32_t	c = 1;

	if (elem_size == 0 || cap == 0 || cap > (1u << 24))
		return NULL;
	while (c < cap)
		c <<= 1;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	if ((r->buf = calloc(c, elem_size)) == NULL) {
		free(r);
		return NULL;
	}
	r->cap = c;
	r->elem = elem_size;
	return r;
}

void
ring_free(struct ring *r)
{
	if (r == NULL)
		return;
	free(r->buf);
	free(r);
}

int
ring_push(struct ring *r, const void *rec)
{
	uint32_t	h = r->head;	/* only we write it */
	uint32_t	t = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);

	if (h - t >= r->cap) {
		__atomic_fetch_add(&r->dropped, 1, __ATOMIC_RELAXED);
		return -1;
	}
	memcpy(r->buf + (size_t)(h & (r->cap - 1)) * r->elem, rec, r->elem);
	__atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
	return 0;
}

int
ring_pop(struct ring *r, void *rec)
{
	uint32_t	t = r->tail;	/* only we write it */
	uint32_t	h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	if (h == t)
		return 0;
	memcpy(rec, r->buf + (size_t)(t & (r->cap - 1)) * r->elem, r->elem);
	__atomic_store_n(&r->tail, t + 1, __ATOMIC_RELEASE);
	return 1;
}

uint64_t
ring_dropped(const struct ring *r)
{
	return __atomic_load_n(&r->dropped, __ATOMIC_RELAXED);
}

uint32_t
ring_capacity(const struct ring *r)
{
	return r->cap;
}
