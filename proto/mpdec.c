/*
 * mpdec.c - one-pass checked msgpack decoder into msgpack_object (see
 * mpdec.h).  Formats from the msgpack specification; the objects are
 * filled the way msgpack-c's own decoder fills them (signed encodings of
 * non-negative values are POSITIVE_INTEGER, float 32 is FLOAT32 widened
 * to double, str/bin/ext point into the buffer).
 */
#include <config.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mpdec.h"

struct dec {
	const uint8_t	*p;
	size_t		 len;
	size_t		 off;
	uint64_t	 owed;	/* items claimed by containers, not begun */
	msgpack_zone	*zone;
	char		*err;
	size_t		 errlen;
};

/* Not an error: the item is a container whose elements follow. */
#define OPENED		1

/*
 * A map's pairs are decoded as one run of 2n objects, key, value, key...
 * which is what an array of msgpack_object_kv is.
 */
_Static_assert(sizeof(msgpack_object_kv) == 2 * sizeof(msgpack_object) &&
    offsetof(msgpack_object_kv, val) == sizeof(msgpack_object),
    "msgpack_object_kv is not two msgpack_objects");

static int	fail(struct dec *, int, const char *, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct dec *d, int status, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(d->err, d->errlen, fmt, ap);
	va_end(ap);
	return status;
}

static int
truncated(struct dec *d, size_t at)
{
	return fail(d, MPDEC_MALFORMED, "truncated at byte %zu", at);
}

static uint64_t
be_read(const uint8_t *p, unsigned int n)
{
	uint64_t	v = 0;

	while (n-- > 0)
		v = (v << 8) | *p++;
	return v;
}

/* The next n bytes, or NULL when the buffer ends first. */
static const uint8_t *
take(struct dec *d, uint64_t n)
{
	const uint8_t	*q = d->p + d->off;

	if (n > d->len - d->off)
		return NULL;
	d->off += (size_t)n;
	return q;
}

/* A big-endian length or value of w bytes after the tag at at (0 if cut). */
static int
field(struct dec *d, size_t at, unsigned int w, uint64_t *v)
{
	const uint8_t	*q = take(d, w);

	*v = 0;
	if (q == NULL)
		return truncated(d, at);
	*v = be_read(q, w);
	return MPDEC_OK;
}

static int
bytes(struct dec *d, msgpack_object *o, size_t at, msgpack_object_type type,
    uint64_t n)
{
	const uint8_t	*q = take(d, n);

	if (q == NULL)
		return truncated(d, at);
	o->type = type;
	o->via.str.size = (uint32_t)n;	/* str and bin share the layout */
	o->via.str.ptr = (const char *)q;
	return MPDEC_OK;
}

/* ext: a type byte, then n bytes of data. */
static int
ext(struct dec *d, msgpack_object *o, size_t at, uint64_t n)
{
	const uint8_t	*q = take(d, n + 1);

	if (q == NULL)
		return truncated(d, at);
	o->type = MSGPACK_OBJECT_EXT;
	o->via.ext.type = (int8_t)q[0];
	o->via.ext.size = (uint32_t)n;
	o->via.ext.ptr = (const char *)q + 1;
	return MPDEC_OK;
}

static void
integer(msgpack_object *o, int64_t v)
{
	if (v >= 0) {
		o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
		o->via.u64 = (uint64_t)v;
	} else {
		o->type = MSGPACK_OBJECT_NEGATIVE_INTEGER;
		o->via.i64 = v;
	}
}

static int
real(struct dec *d, msgpack_object *o, size_t at, bool dbl)
{
	union { uint32_t u; float f; }	f32;
	union { uint64_t u; double f; }	f64;
	uint64_t			v;

	if (field(d, at, dbl ? 8 : 4, &v) < 0)
		return MPDEC_MALFORMED;
	if (dbl) {
		f64.u = v;
		o->type = MSGPACK_OBJECT_FLOAT64;
		o->via.f64 = f64.f;
	} else {
		f32.u = (uint32_t)v;
		o->type = MSGPACK_OBJECT_FLOAT32;
		o->via.f64 = f32.f;
	}
	return MPDEC_OK;
}

/* An array of n items or a map of n pairs; its elements come next. */
static int
opened(msgpack_object *o, uint64_t n, bool map)
{
	if (map) {
		o->type = MSGPACK_OBJECT_MAP;
		o->via.map.size = (uint32_t)n;
		o->via.map.ptr = NULL;
	} else {
		o->type = MSGPACK_OBJECT_ARRAY;
		o->via.array.size = (uint32_t)n;
		o->via.array.ptr = NULL;
	}
	return OPENED;
}

/* Tags 0x80..0x9f (fixmap, fixarray) and 0xc0..0xdf. */
static int
other(struct dec *d, msgpack_object *o, size_t at, uint8_t b)
{
	/* bytes of the length or value after the tag; 0: none or special */
	static const uint8_t	width[32] = {
		[0x04] = 1, 2, 4,		/* bin 8, 16, 32 */
		[0x07] = 1, 2, 4,		/* ext 8, 16, 32 */
		[0x0c] = 1, 2, 4, 8,		/* uint 8..64 */
		[0x10] = 1, 2, 4, 8,		/* int 8..64 */
		[0x19] = 1, 2, 4,		/* str 8, 16, 32 */
		[0x1c] = 2, 4, 2, 4,		/* array 16, 32, map 16, 32 */
	};
	uint64_t		v;

	if (b <= 0x9f)
		return opened(o, b & 0x0f, b <= 0x8f);
	switch (b) {
	case 0xc0:
		o->type = MSGPACK_OBJECT_NIL;
		return MPDEC_OK;
	case 0xc1:
		return fail(d, MPDEC_MALFORMED, "invalid byte 0xc1 at %zu", at);
	case 0xc2: case 0xc3:
		o->type = MSGPACK_OBJECT_BOOLEAN;
		o->via.boolean = b == 0xc3;
		return MPDEC_OK;
	case 0xca: case 0xcb:
		return real(d, o, at, b == 0xcb);
	case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
		return ext(d, o, at, 1u << (b - 0xd4));
	}
	if (field(d, at, width[b - 0xc0], &v) < 0)
		return MPDEC_MALFORMED;
	if (b <= 0xc6)
		return bytes(d, o, at, MSGPACK_OBJECT_BIN, v);
	if (b <= 0xc9)
		return ext(d, o, at, v);
	if (b <= 0xcf) {
		o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
		o->via.u64 = v;
		return MPDEC_OK;
	}
	if (b <= 0xd3) {
		integer(o, b == 0xd0 ? (int8_t)v : b == 0xd1 ? (int16_t)v :
		    b == 0xd2 ? (int32_t)v : (int64_t)v);
		return MPDEC_OK;
	}
	if (b <= 0xdb)
		return bytes(d, o, at, MSGPACK_OBJECT_STR, v);
	return opened(o, v, b >= 0xde);
}

/*
 * Room for the elements of the container o just opened at at: every
 * element still owed needs at least one byte, so a count the rest of the
 * buffer cannot hold is refused before anything is allocated for it.
 * Returns the first element, or NULL with the error in *r.
 */
static msgpack_object *
elements(struct dec *d, msgpack_object *o, size_t at, uint64_t items, int *r)
{
	msgpack_object	*e;

	if (items > d->len - d->off || d->owed + items > d->len - d->off) {
		*r = fail(d, MPDEC_OVERCLAIM,
		    "container at %zu claims more items than bytes", at);
		return NULL;
	}
	e = msgpack_zone_malloc(d->zone, (size_t)items * sizeof(*e));
	if (e == NULL) {
		*r = fail(d, MPDEC_NOMEM, "out of memory");
		return NULL;
	}
	if (o->type == MSGPACK_OBJECT_MAP)
		o->via.map.ptr = (msgpack_object_kv *)(void *)e;
	else
		o->via.array.ptr = e;
	d->owed += items;
	return e;
}

/*
 * Depth first without recursion: stack[] holds, per open container, the
 * next element to fill and the end of its elements.  Positive fixints
 * and fixstrs, most of every message, are decoded in the loop itself
 * with the position and the count owed in locals; d is brought up to
 * date around the calls that need it.
 */
static int
walk(struct dec *d, msgpack_object *o)
{
	struct frame {
		msgpack_object	*next, *end;
	}		 stack[MPDEC_MAX_DEPTH], *top = stack;	/* past the last */
	const uint8_t	*p = d->p;
	size_t		 len = d->len, off = 0, at, n;
	uint64_t	 owed = d->owed, items;
	int		 r;
	uint8_t		 b;

	for (;;) {
		at = off;
		if (off >= len)
			return truncated(d, at);
		b = p[off++];
		owed--;
		if (b <= 0x7f) {
			o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
			o->via.u64 = b;
		} else if ((b & 0xe0) == 0xa0) {
			if ((n = b & 0x1f) > len - off)
				return truncated(d, at);
			o->type = MSGPACK_OBJECT_STR;
			o->via.str.size = (uint32_t)n;
			o->via.str.ptr = (const char *)p + off;
			off += n;
		} else if (b >= 0xe0) {
			o->type = MSGPACK_OBJECT_NEGATIVE_INTEGER;
			o->via.i64 = (int8_t)b;
		} else {
			d->off = off;
			d->owed = owed;
			r = other(d, o, at, b);
			if (r == OPENED && top == stack + MPDEC_MAX_DEPTH)
				r = fail(d, MPDEC_MALFORMED, "containers nested "
				    "deeper than %d at byte %zu",
				    MPDEC_MAX_DEPTH, at);
			if (r == OPENED && o->via.array.size > 0) {
				/* map and array share the size's place */
				items = mpdec_items(o->via.array.size,
				    o->type == MSGPACK_OBJECT_MAP);
				if ((o = elements(d, o, at, items, &r)) == NULL)
					return r;
				/* elements() bounded items by len: fits */
				top->next = o;
				top->end = o + (size_t)items;
				top++;
				off = d->off;
				owed = d->owed;
				continue;
			}
			if (r < 0)
				return r;
			off = d->off;
		}
		/* o is complete: on to the next element still to fill */
		while (top > stack && ++top[-1].next == top[-1].end)
			top--;
		if (top == stack)
			break;
		o = top[-1].next;
	}
	d->off = off;
	return MPDEC_OK;
}

int
mpdec_decode(const void *buf, size_t len, size_t *used, msgpack_zone *zone,
    msgpack_object *obj, char *err, size_t errlen)
{
	struct dec	d = {
		.p = buf, .len = len, .owed = 1, .zone = zone,
		.err = err, .errlen = errlen,
	};
	int		r;

	r = walk(&d, obj);
	*used = d.off;
	return r;
}
