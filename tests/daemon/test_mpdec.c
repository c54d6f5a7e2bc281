/*
 * test_mpdec.c - the protocol's msgpack decoder (proto/mpdec.c) against
 * msgpack-c's: random trees of every type packed by msgpack-c, every
 * prefix of them, random byte mutations and hand-made edge cases must be
 * accepted or refused alike and decode to the same tree; plus the
 * decoder's own guarantees (nesting limit, counts the bytes cannot hold
 * refused before allocation, error texts).
 */
#include <config.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <msgpack.h>

#include "../check.h"
#include "mpdec.h"
#include "mpdiff.h"

static uint64_t	rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
draw(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n == 0 ? rng : rng % n;
}

static void
pack_bytes(msgpack_packer *pk, int kind, size_t n)
{
	char	b[300];
	size_t	i;

	for (i = 0; i < n; i++)
		b[i] = (char)draw(256);
	if (kind == 0) {
		msgpack_pack_str(pk, n);
		msgpack_pack_str_body(pk, b, n);
	} else if (kind == 1) {
		msgpack_pack_bin(pk, n);
		msgpack_pack_bin_body(pk, b, n);
	} else {
		msgpack_pack_ext(pk, n, (int8_t)draw(256));
		msgpack_pack_ext_body(pk, b, n);
	}
}

static size_t
pick_len(void)
{
	static const size_t	fixed[] = { 0, 1, 2, 4, 8, 16, 31, 32, 255,
				    256, 300 };

	return draw(2) ? draw(12) : fixed[draw(sizeof(fixed) /
	    sizeof(fixed[0]))];
}

static void
pack_any(msgpack_packer *pk, int depth)
{
	static const uint64_t	edges[] = { 0, 0x7f, 0x80, 0xff, 0x100,
				    0xffff, 0x10000, 0xffffffffULL,
				    0x100000000ULL, UINT64_MAX };
	uint32_t		i, n;

	switch (draw(depth > 4 ? 9 : 11)) {
	case 0: msgpack_pack_nil(pk); break;
	case 1: draw(2) ? msgpack_pack_true(pk) : msgpack_pack_false(pk); break;
	case 2:
		msgpack_pack_uint64(pk, draw(2) ? edges[draw(10)] :
		    draw(0) >> draw(64));
		break;
	case 3:
		msgpack_pack_int64(pk, -(int64_t)(draw(0) >> (1 + draw(63))));
		break;
	case 4: msgpack_pack_float(pk, draw(8) ? (float)draw(1000) / 7 :
		    NAN); break;
	case 5: msgpack_pack_double(pk, draw(8) ? (double)draw(0) / 3 :
		    -INFINITY); break;
	case 6: case 7: case 8:
		pack_bytes(pk, (int)draw(3), pick_len());
		break;
	case 9:
		n = (uint32_t)draw(draw(8) ? 5 : 20);
		msgpack_pack_array(pk, n);
		for (i = 0; i < n; i++)
			pack_any(pk, depth + 1);
		break;
	default:
		n = (uint32_t)draw(draw(8) ? 5 : 20);
		msgpack_pack_map(pk, n);
		for (i = 0; i < 2 * n; i++)
			pack_any(pk, depth + 1);
		break;
	}
}

static int
agree(const uint8_t *b, size_t len)
{
	char	why[200];

	if (mpdiff_check(b, len, why, sizeof(why)) == 0)
		return 1;
	fprintf(stderr, "disagree on %zu bytes:", len);
	for (size_t i = 0; i < len && i < 24; i++)
		fprintf(stderr, " %02x", b[i]);
	fprintf(stderr, ": %s\n", why);
	return 0;
}

/* Generated trees, each prefix of them and mutated copies. */
static void
test_random(void)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;
	uint8_t		copy[1 << 16];
	size_t		cut, k, bad = 0;
	int		round;

	for (round = 0; round < 3000 && bad < 5; round++) {
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		pack_any(&pk, 0);
		if (sb.size > sizeof(copy)) {
			msgpack_sbuffer_destroy(&sb);
			continue;
		}
		bad += !agree((uint8_t *)sb.data, sb.size);
		for (cut = 0; cut < sb.size && cut < 64; cut++)
			bad += !agree((uint8_t *)sb.data, cut);
		for (k = 0; k < 20; k++) {
			memcpy(copy, sb.data, sb.size);
			copy[draw(sb.size)] = (uint8_t)draw(256);
			if (draw(2))
				copy[draw(sb.size)] ^= (uint8_t)(1u << draw(8));
			bad += !agree(copy, sb.size);
		}
		msgpack_sbuffer_destroy(&sb);
	}
	CHECK(bad == 0);
	CHECK(round == 3000);
}

/* The signed, float, ext and reserved encodings msgpack-c never writes. */
static void
test_edges(void)
{
	static const struct { uint8_t b[12]; size_t n; } cases[] = {
		{ { 0xd0, 0x05 }, 2 },			/* int 8, positive */
		{ { 0xd0, 0x80 }, 2 },			/* int 8, -128 */
		{ { 0xd1, 0x7f, 0xff }, 3 },
		{ { 0xd2, 0xff, 0xff, 0xff, 0xfe }, 5 },
		{ { 0xd3, 0, 0, 0, 0, 0, 0, 0, 9 }, 9 },
		{ { 0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0 }, 9 },
		{ { 0xca, 0x7f, 0xc0, 0, 1 }, 5 },	/* float NaN */
		{ { 0xcb, 0x80, 0, 0, 0, 0, 0, 0, 0 }, 9 },	/* -0.0 */
		{ { 0xc1 }, 1 },			/* never used */
		{ { 0xd4, 0x01, 0x02 }, 3 },		/* fixext 1 */
		{ { 0xd8, 0x01 }, 2 },			/* fixext 16, short */
		{ { 0xc7, 0x00, 0x05 }, 3 },		/* ext 8, empty */
		{ { 0xc9, 0, 0, 0, 1, 0x07, 0xaa }, 7 },
		{ { 0xc6, 0xff, 0xff, 0xff, 0xff }, 5 },	/* bin 32, no body */
		{ { 0xdb, 0, 0, 0, 2, 'o', 'k' }, 7 },	/* str 32 */
		{ { 0xdd, 0xff, 0xff, 0xff, 0xff }, 5 },	/* huge array */
		{ { 0xdf, 0, 0, 0, 1, 0xa1, 'k', 0xc0 }, 8 },
		{ { 0xde, 0, 0 }, 3 },			/* map 16, empty */
		{ { 0x81, 0x90, 0x80 }, 3 },		/* {[]: {}} */
		{ { 0x92, 0x01 }, 2 },			/* array short */
		{ { 0x91, 0x01, 0x02 }, 3 },		/* a trailing byte */
		{ { 0 }, 0 },				/* nothing */
	};
	size_t	i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(agree(cases[i].b, cases[i].n));
}

/* depth arrays of one element around a 1 or an empty array. */
static size_t
nest(uint8_t *b, int depth, bool empty_inside)
{
	size_t	n = 0;
	int	i;

	for (i = 0; i < depth; i++)
		b[n++] = 0x91;
	b[n++] = empty_inside ? 0x90 : 0x01;
	return n;
}

static void
test_depth(void)
{
	msgpack_zone	*z = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
	msgpack_object	 o;
	uint8_t		 b[64];
	char		 err[128];
	size_t		 n, used;

	n = nest(b, MPDEC_MAX_DEPTH, false);
	CHECK(mpdec_decode(b, n, &used, z, &o, err, sizeof(err)) == MPDEC_OK);
	CHECK(used == n && o.type == MSGPACK_OBJECT_ARRAY);
	CHECK(agree(b, n));
	n = nest(b, MPDEC_MAX_DEPTH + 1, false);
	CHECK(mpdec_decode(b, n, &used, z, &o, err, sizeof(err)) ==
	    MPDEC_MALFORMED && strstr(err, "nested deeper") != NULL);
	CHECK(agree(b, n));
	/* an empty container counts too, as in msgpack-c */
	n = nest(b, MPDEC_MAX_DEPTH - 1, true);
	CHECK(mpdec_decode(b, n, &used, z, &o, err, sizeof(err)) == MPDEC_OK);
	CHECK(agree(b, n));
	n = nest(b, MPDEC_MAX_DEPTH, true);
	CHECK(mpdec_decode(b, n, &used, z, &o, err, sizeof(err)) ==
	    MPDEC_MALFORMED);
	CHECK(agree(b, n));
	msgpack_zone_free(z);
}

/*
 * Counts: an array16 of 20,000 whose first element claims another 20,000
 * fits the bytes left on its own but not with the 19,999 still owed, so
 * it is refused at the second header, before a second allocation.
 * msgpack-c refuses it too, as truncated, once it has allocated both.
 */
static void
test_counts(void)
{
	static uint8_t	b[30000];
	msgpack_zone	*z = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
	msgpack_object	 o;
	char		 err[128];
	size_t		 used, off = 0;

	memset(b, 0, sizeof(b));
	b[0] = 0xdc; b[1] = 0x4e; b[2] = 0x20;
	b[3] = 0xdc; b[4] = 0x4e; b[5] = 0x20;
	CHECK(mpdec_decode(b, sizeof(b), &used, z, &o, err, sizeof(err)) ==
	    MPDEC_OVERCLAIM);
	CHECK(strstr(err, "container at 3 claims more items") != NULL);
	/* mpdiff skips over-claims; this one msgpack-c can afford (960 KB) */
	CHECK(msgpack_unpack((const char *)b, sizeof(b), &off, z, &o) ==
	    MSGPACK_UNPACK_CONTINUE);
	b[0] = 0xdd; b[1] = b[2] = b[3] = b[4] = 0xff;
	CHECK(mpdec_decode(b, 5, &used, z, &o, err, sizeof(err)) ==
	    MPDEC_OVERCLAIM && strstr(err, "container at 0") != NULL);
	/* a map32 of 2^31 + 1 pairs, one given: 2^32 + 2 objects, which a
	 * 32-bit size_t would have wrapped to 2 (the arithmetic is 64-bit
	 * on every word size) */
	CHECK(mpdec_items(0x80000001u, 1) == 0x100000002ull &&
	    mpdec_items(0xffffffffu, 1) == 0x1fffffffeull &&
	    mpdec_items(0xffffffffu, 0) == 0xffffffffull);
	memcpy(b, "\xdf\x80\x00\x00\x01\xa1k\x01", 8);
	CHECK(mpdec_decode(b, 8, &used, z, &o, err, sizeof(err)) ==
	    MPDEC_OVERCLAIM && strstr(err, "container at 0") != NULL);
	b[0] = 0xa5;
	CHECK(mpdec_decode(b, 3, &used, z, &o, err, sizeof(err)) ==
	    MPDEC_MALFORMED && strcmp(err, "truncated at byte 0") == 0);
	b[0] = 0xc1;
	CHECK(mpdec_decode(b, 1, &used, z, &o, err, sizeof(err)) ==
	    MPDEC_MALFORMED && strstr(err, "0xc1 at 0") != NULL);
	/* trailing bytes are the caller's business */
	b[0] = 0x01;
	CHECK(mpdec_decode(b, 3, &used, z, &o, err, sizeof(err)) ==
	    MPDEC_OK && used == 1 && o.via.u64 == 1);
	msgpack_zone_free(z);
}

int
main(void)
{
	test_edges();
	test_depth();
	test_counts();
	test_random();
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
