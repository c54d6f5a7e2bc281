/*
 * mpdiff.c - compare mpdec_decode() with msgpack_unpack() (see mpdiff.h).
 */
#include <config.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <msgpack.h>

#include "mpdec.h"
#include "mpdiff.h"

/*
 * Deep equality, stricter than msgpack_object_equal(): floats compare by
 * bits (NaN equals itself) and str, bin and ext must point at the same
 * bytes of the buffer, not only hold equal ones.
 */
static bool
same(const msgpack_object *a, const msgpack_object *b)
{
	uint32_t	i;

	if (a->type != b->type)
		return false;
	switch (a->type) {
	case MSGPACK_OBJECT_NIL:
		return true;
	case MSGPACK_OBJECT_BOOLEAN:
		return a->via.boolean == b->via.boolean;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return a->via.u64 == b->via.u64;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		return memcmp(&a->via.f64, &b->via.f64, sizeof(double)) == 0;
	case MSGPACK_OBJECT_STR:
	case MSGPACK_OBJECT_BIN:
		return a->via.str.size == b->via.str.size &&
		    (a->via.str.size == 0 || a->via.str.ptr == b->via.str.ptr);
	case MSGPACK_OBJECT_EXT:
		return a->via.ext.type == b->via.ext.type &&
		    a->via.ext.size == b->via.ext.size &&
		    (a->via.ext.size == 0 || a->via.ext.ptr == b->via.ext.ptr);
	case MSGPACK_OBJECT_ARRAY:
		if (a->via.array.size != b->via.array.size)
			return false;
		for (i = 0; i < a->via.array.size; i++)
			if (!same(&a->via.array.ptr[i], &b->via.array.ptr[i]))
				return false;
		return true;
	case MSGPACK_OBJECT_MAP:
		if (a->via.map.size != b->via.map.size)
			return false;
		for (i = 0; i < a->via.map.size; i++)
			if (!same(&a->via.map.ptr[i].key,
			    &b->via.map.ptr[i].key) ||
			    !same(&a->via.map.ptr[i].val,
			    &b->via.map.ptr[i].val))
				return false;
		return true;
	}
	return false;
}

int
mpdiff_check(const uint8_t *buf, size_t len, char *why, size_t whylen)
{
	msgpack_zone	*za, *zb;
	msgpack_object	 a, b;
	char		 err[128];
	size_t		 used = 0, off = 0;
	int		 ra, rb, rc = -1;
	bool		 oka, okb;

	za = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
	zb = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
	if (za == NULL || zb == NULL) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	ra = mpdec_decode(buf, len, &used, za, &a, err, sizeof(err));
	/*
	 * A claim the bytes cannot hold: msgpack-c cannot succeed either,
	 * but it would first allocate for the claim (gigabytes for a 5-byte
	 * array 32), which sanitizers and libFuzzer report as a crash.
	 * Every container before it claimed no more than the bytes left,
	 * so msgpack-c's allocations stay bounded on all other inputs.
	 * test_mpdec checks msgpack-c's verdict on an affordable over-claim.
	 */
	if (ra == MPDEC_OVERCLAIM) {
		rc = 0;
		goto out;
	}
	rb = msgpack_unpack((const char *)buf, len, &off, zb, &b);
	oka = ra == MPDEC_OK;
	okb = rb == MSGPACK_UNPACK_SUCCESS || rb == MSGPACK_UNPACK_EXTRA_BYTES;
	if (oka != okb)
		snprintf(why, whylen, "mpdec %s (%s), msgpack-c %s (%d)",
		    oka ? "accepts" : "refuses", oka ? "-" : err,
		    okb ? "accepts" : "refuses", rb);
	else if (oka && used != off)
		snprintf(why, whylen, "mpdec took %zu bytes, msgpack-c %zu",
		    used, off);
	else if (oka && !same(&a, &b))
		snprintf(why, whylen, "the trees differ");
	else
		rc = 0;
out:
	if (za != NULL)
		msgpack_zone_free(za);
	if (zb != NULL)
		msgpack_zone_free(zb);
	return rc;
}
