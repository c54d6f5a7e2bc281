/*
 * test_progress.c - the interval table and the incremental bitmap scan:
 * equal to a full recount over random finishing orders when the window
 * covers everything, and never below it (safe) with a small window.
 */
#include <errno.h>
#include <string.h>

#include "progress.h"
#include "tcheck.h"

#define NMAX	5000

static uint64_t	bitmap[(NMAX + 63) / 64 + 2];

static void
test_table(void)
{
	struct progress_table	t;
	uint32_t		first[3] = { 0, 10, 25 };
	uint16_t		cl[3] = { 1, 0, 1 };
	uint64_t		r[2];
	struct progress_scan	s;

	CHECK(progress_table_init(&t, 40, 2, 3, first, cl) == 0);
	CHECK_U64(t.n[0], 15);
	CHECK_U64(t.n[1], 25);
	CHECK(progress_table_init(&t, 25, 2, 3, first, cl) == -EINVAL);
	first[0] = 1;
	CHECK(progress_table_init(&t, 40, 2, 3, first, cl) == -EINVAL);
	first[0] = 0;
	first[2] = 10;
	CHECK(progress_table_init(&t, 40, 2, 3, first, cl) == -EINVAL);
	first[2] = 25;
	cl[1] = 2;
	CHECK(progress_table_init(&t, 40, 2, 3, first, cl) == -EINVAL);
	cl[1] = 0;
	CHECK(progress_table_init(&t, 40, 2, 3, first, cl) == 0);

	/* hand case: blocks 0-11 and 30 finished */
	memset(bitmap, 0, sizeof(bitmap));
	bitmap[0] = 0xfffull | (1ull << 30);
	progress_scan_reset(&s);
	progress_scan(&t, &s, bitmap, 1, 64, r);
	CHECK_U64(s.low, 12);
	CHECK_U64(r[0], 13);	/* 15 - blocks 10, 11 */
	CHECK_U64(r[1], 14);	/* 25 - blocks 0..9 and 30 */
	/* a window of 10 does not reach block 30: counted as remaining */
	progress_scan_reset(&s);
	progress_scan(&t, &s, bitmap, 1, 10, r);
	CHECK_U64(r[1], 15);
	progress_count(&t, bitmap, 1, r);
	CHECK_U64(r[0], 13);
	CHECK_U64(r[1], 14);
	/* everything */
	bitmap[0] = (1ull << 40) - 1;
	progress_scan(&t, &s, bitmap, 1, 64, r);
	CHECK_U64(r[0], 0);
	CHECK_U64(r[1], 0);
	CHECK_U64(s.low, 40);
}

static void
shuffle(uint32_t *a, uint32_t n)
{
	uint32_t	i, j, x;

	for (i = n - 1; i > 0; i--) {
		j = (uint32_t)trange(0, i);
		x = a[i];
		a[i] = a[j];
		a[j] = x;
	}
}

static void
test_random(void)
{
	static uint32_t		order[NMAX], first[PROGRESS_MAX_INTERVALS];
	static uint16_t		cl[PROGRESS_MAX_INTERVALS];
	struct progress_table	t;
	struct progress_scan	full, win;
	uint64_t		r[WCET_MAX_CLUSTERS], ref[WCET_MAX_CLUSTERS];
	uint64_t		rw[WCET_MAX_CLUSTERS];
	uint32_t		n, nw, i, done, step, window, b, local;
	unsigned int		c, ni, j;
	int			iter;

	for (iter = 0; iter < 60; iter++) {
		n = (uint32_t)trange(1, NMAX);
		c = (unsigned int)trange(1, 8);
		ni = (unsigned int)trange(1, n < 64 ? n : 64);
		/* distinct sorted starts with first[0] = 0 */
		first[0] = 0;
		for (j = 1; j < ni; j++)
			first[j] = first[j - 1] + 1 + (uint32_t)trange(0,
			    (n - first[j - 1] - 1) / (ni - j + 1) * 2);
		for (j = 1; j < ni; j++)
			if (first[j] >= n || first[j] <= first[j - 1]) {
				ni = j;
				break;
			}
		for (j = 0; j < ni; j++)
			cl[j] = (uint16_t)trange(0, c - 1);
		if (progress_table_init(&t, n, c, ni, first, cl) != 0) {
			CHECK(0);
			continue;
		}
		/* nearly in order, like blocks issued M at a time */
		for (i = 0; i < n; i++)
			order[i] = i;
		local = (uint32_t)trange(1, 200);
		for (i = 0; i + 1 < n; i++) {
			b = i + (uint32_t)trange(0, local);
			if (b >= n)
				b = n - 1;
			j = order[i];
			order[i] = order[b];
			order[b] = j;
		}
		if (trange(0, 4) == 0)
			shuffle(order, n);
		nw = (n + 63) / 64;
		memset(bitmap, 0, sizeof(bitmap));
		progress_scan_reset(&full);
		progress_scan_reset(&win);
		window = (uint32_t)trange(0, 128);
		for (done = 0; done <= n; done += step) {
			progress_scan(&t, &full, bitmap, nw, n, r);
			progress_count(&t, bitmap, nw, ref);
			progress_scan(&t, &win, bitmap, nw, window, rw);
			for (j = 0; j < c; j++) {
				CHECK_U64(r[j], ref[j]);
				CHECK(rw[j] >= ref[j] && rw[j] <= t.n[j]);
			}
			step = (uint32_t)trange(1, 300);
			for (i = done; i < done + step && i < n; i++)
				bitmap[order[i] / 64] |=
				    1ull << (order[i] % 64);
		}
		progress_scan(&t, &full, bitmap, nw, n, r);
		for (j = 0; j < c; j++)
			CHECK_U64(r[j], 0);
		CHECK_U64(full.low, n);
	}
}

int
main(void)
{
	test_table();
	test_random();
	return tcheck_done("test_progress");
}
