/*
 * test_l1.c - the L1 model against sequences worked by hand: LRU within a
 * set, loads allocate, stores write through without allocating but
 * count as a use on a hit, stamps follow the line, bad geometry.
 */
#include "gcheck.h"
#include "l1.h"

struct step {
	uint64_t	line;
	int		store;
	int		hit;		/* expected */
	int64_t		stamp;		/* expected on a hit */
};

static void
test_sequence(void)
{
	/* 512 B, 2-way, 128 B lines: 2 sets; A, B, C in set 0, D in 1 */
	enum { A = 0, B = 256, C = 512, D = 128 };
	static const struct step seq[] = {
		{ A, 0, 0, 0 },		/* 1: A */
		{ B, 0, 0, 0 },		/* 2: A B */
		{ A, 0, 1, 1 },		/* 3: A most recent */
		{ C, 0, 0, 0 },		/* 4: evicts B */
		{ B, 0, 0, 0 },		/* 5: evicts A */
		{ C, 0, 1, 4 },		/* 6 */
		{ A, 0, 0, 0 },		/* 7: evicts B */
		{ D, 0, 0, 0 },		/* 8: the other set */
		{ D, 0, 1, 8 },		/* 9 */
		{ B, 1, 0, 0 },		/* 10: store miss, nothing allocated */
		{ B, 0, 0, 0 },		/* 11: so a miss; evicts C */
		{ A, 1, 1, 7 },		/* 12: store hit, A most recent */
		{ C, 0, 0, 0 },		/* 13: evicts B, not A */
		{ A, 0, 1, 7 },		/* 14 */
	};
	struct gpu_l1	g = { 512, 2, 128 };
	struct l1	c;
	int64_t		stamp;
	size_t		i;
	int		hit;

	CHECK(l1_init(&c, &g) == 0);
	CHECK_EQ(c.nsets, 2);
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		stamp = -1;
		hit = l1_access(&c, seq[i].line, seq[i].store, (int64_t)i + 1,
		    &stamp);
		if (hit != seq[i].hit || (hit && stamp != seq[i].stamp)) {
			fprintf(stderr, "FAIL step %zu: hit %d stamp %lld\n",
			    i + 1, hit, (long long)stamp);
			failures++;
		}
	}
	CHECK_EQ(c.accesses, 14);
	CHECK_EQ(c.misses, 9);
	l1_reset(&c);
	CHECK_EQ(c.accesses, 0);
	CHECK(l1_access(&c, A, 0, 1, &stamp) == 0);
	l1_free(&c);
}

/* A working set one line larger than a set thrashes under LRU. */
static void
test_thrash(void)
{
	struct gpu_l1	g = { 16 * 1024, 4, 128 };
	struct l1	c;
	int64_t		stamp;
	int		i, j, hits = 0;

	CHECK(l1_init(&c, &g) == 0);
	CHECK_EQ(c.nsets, 32);
	/* five lines 4 KiB apart share set 0 */
	for (j = 0; j < 10; j++)
		for (i = 0; i < 5; i++)
			hits += l1_access(&c, (uint64_t)i * 4096, 0, 0, &stamp);
	CHECK_EQ(hits, 0);
	/* four fit */
	for (j = 0; j < 10; j++)
		for (i = 0; i < 4; i++)
			hits += l1_access(&c, (uint64_t)i * 4096 + 128, 0, 0,
			    &stamp);
	CHECK_EQ(hits, 36);
	l1_free(&c);
}

static void
test_geometry(void)
{
	struct gpu_l1	bad[] = {
		{ 16384, 4, 100 }, { 16384, 0, 128 }, { 1000, 4, 128 },
		{ 0, 4, 128 }
	};
	struct l1	c;
	size_t		i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(l1_init(&c, &bad[i]) == -EINVAL);
}

int
main(void)
{
	test_sequence();
	test_thrash();
	test_geometry();
	return gcheck_done("test_l1");
}
