/*
 * mpdec.h - decode one msgpack item from an untrusted buffer into
 * msgpack-c's object tree (msgpack_object in a msgpack_zone), in one
 * pass with every length checked.
 *
 * Why not msgpack_unpack(): on a request of forty bytes msgpack-c's
 * template decoder spent about 1,300 instructions, half of the daemon's
 * work per request, and it trusts container counts enough to allocate
 * for an "array of 2^32 elements" before noticing the bytes are missing,
 * which needed a separate validating pass in front of it anyway.  This
 * decoder is that validating pass, filling in the objects as it goes.
 * It builds the tree msgpack_unpack() builds (strings, bin and ext point
 * into the buffer, so the buffer must outlive the objects; an empty
 * array or map has a NULL ptr); the unit test and the fuzz target
 * compare the two on every input.
 */
#ifndef MPDEC_H
#define MPDEC_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

/*
 * A container inside this many open ones is refused, even an empty one:
 * the limit msgpack-c's decoder has (MSGPACK_EMBED_STACK_SIZE).
 */
#define MPDEC_MAX_DEPTH	32

enum mpdec_status {
	MPDEC_OK = 0,
	MPDEC_MALFORMED = -1,	/* err says what and at which byte */
	MPDEC_NOMEM = -2,
	/*
	 * Malformed too: a container claims more elements than the bytes
	 * left could hold.  Told apart because msgpack-c would allocate for
	 * the claim before finding the bytes missing (see fuzz/mpdiff.c).
	 */
	MPDEC_OVERCLAIM = -3,
};

/*
 * Decode the item at the start of buf into *obj, allocating from zone;
 * on success *used is how many bytes it took (the caller decides whether
 * trailing bytes are an error).  Every container's claimed element count
 * must fit in the bytes left, counting the elements still owed by the
 * containers around it, so the objects allocated are never more than
 * len.
 */
/*
 * How many objects a container of `size` holds: a map's pairs are two
 * each.  In 64 bits whatever size_t is, so a map32 claiming 2^31 pairs or
 * more cannot wrap to a small count on a 32-bit system.
 */
static inline uint64_t
mpdec_items(uint32_t size, int map)
{
	return map ? 2 * (uint64_t)size : size;
}

int	mpdec_decode(const void *buf, size_t len, size_t *used,
	    msgpack_zone *zone, msgpack_object *obj, char *err, size_t errlen);

#endif /* MPDEC_H */
