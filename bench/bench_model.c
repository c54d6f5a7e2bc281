/*
 * bench_model.c - cost of the analysis core where it matters:
 *  - the per-period decision of the daemon (progress scan, then FAIR,
 *    GREEDY and SMOOTH) for C = 8 clusters, 64 intervals, N = 100000
 *    blocks, M = 64, with the kernel's progress advancing each period;
 *  - registration (wcet_prepare, Algorithm 1 and the nominal search).
 * Usage: bench_model -o FILE (results printed and written to FILE).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "progress.h"
#include "monoclock.h"

#define B_C		8
#define B_INTERVALS	64
#define B_N		100000
#define B_M		64
#define B_PERIOD	1000000.0
#define B_DECISIONS	200000
#define B_REGS		200
#define B_WORDS		((B_N + 63) / 64)

static uint64_t	b_seed = 88172645463325252ull;
static uint64_t	b_bitmap[B_WORDS];
static uint32_t	b_order[B_N];
static double	b_dec[B_DECISIONS];
static double	b_reg[B_REGS];
static double	b_reg2[B_REGS];

static uint64_t
b_rand(void)
{
	b_seed ^= b_seed << 13;
	b_seed ^= b_seed >> 7;
	b_seed ^= b_seed << 17;
	return b_seed;
}

static double
b_now(void)
{
	return (double)monoclock_ns();
}

static int
b_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
b_pct(double *v, size_t n, double p)
{
	size_t	i = (size_t)ceil(p * (double)n) - 1;

	return v[i < n ? i : n - 1];
}

/* e0 of 5-50 us, e1 1.2-3 times e0; 64 intervals of random length. */
static void
b_kernel(struct wcet_kernel *k, struct progress_table *t)
{
	uint32_t	first[B_INTERVALS];
	uint16_t	cl[B_INTERVALS];
	unsigned int	i;

	memset(k, 0, sizeof(*k));
	k->nclusters = B_C;
	k->m = B_M;
	k->period = B_PERIOD;
	for (i = 0; i < B_C; i++) {
		k->c[i].e0 = 5000 + (double)(b_rand() % 45000);
		k->c[i].e1 = k->c[i].e0 * (1.2 + (double)(b_rand() % 1800) /
		    1000);
	}
	/* 64 starts: even spacing with random jitter of +-40 % */
	for (i = 0; i < B_INTERVALS; i++)
		first[i] = i * (B_N / B_INTERVALS) + (i ? (uint32_t)(b_rand() %
		    (B_N / B_INTERVALS * 4 / 5)) - B_N / B_INTERVALS * 2 / 5 :
		    0);
	for (i = 0; i < B_INTERVALS; i++)
		cl[i] = (uint16_t)(i < B_C ? i : b_rand() % B_C);
	if (wcet_prepare(k) != 0 || progress_table_init(t, B_N, B_C,
	    B_INTERVALS, first, cl) != 0) {
		fprintf(stderr, "bench_model: bad kernel\n");
		exit(1);
	}
}

/* Finishing order: block order, shuffled within a sliding window of M. */
static void
b_finish_order(void)
{
	uint32_t	i, j, x;

	for (i = 0; i < B_N; i++)
		b_order[i] = i;
	for (i = 0; i + 1 < B_N; i++) {
		j = i + (uint32_t)(b_rand() % B_M);
		if (j >= B_N)
			j = B_N - 1;
		x = b_order[i];
		b_order[i] = b_order[j];
		b_order[j] = x;
	}
}

int
main(int argc, char **argv)
{
	struct wcet_kernel	k;
	struct progress_table	t;
	struct progress_scan	s;
	struct budget_nominal	nom;
	uint64_t		r[WCET_MAX_CLUSTERS];
	double			t0, el, tleft, fair, greedy, smooth = 0;
	double			sink = 0, gnom;
	uint32_t		done, step, i;
	FILE			*out;
	size_t			d, j;
	char			res[1024];

	if (argc != 3 || strcmp(argv[1], "-o") != 0) {
		fprintf(stderr, "usage: bench_model -o FILE\n");
		return 2;
	}
	b_kernel(&k, &t);

	/* registration: what the daemon does when a kernel registers */
	for (j = 0; j < B_REGS; j++) {
		t0 = b_now();
		if (wcet_prepare(&k) != 0 || budget_nominal(&k, t.n,
		    BUDGET_DEFAULT_SLOWDOWN, 60000, 470, &nom) != 0)
			return 1;
		b_reg[j] = b_now() - t0;
	}
	qsort(b_reg, B_REGS, sizeof(b_reg[0]), b_cmp);
	gnom = (double)nom.wcet;
	/* the blocks one period advances at the nominal pace */
	step = (uint32_t)ceil(B_N * B_PERIOD / gnom);

	/* per-period decisions over repeated launches */
	d = 0;
	while (d < B_DECISIONS) {
		b_finish_order();
		memset(b_bitmap, 0, sizeof(b_bitmap));
		progress_scan_reset(&s);
		el = 0;
		for (done = 0; done < B_N && d < B_DECISIONS; done += step) {
			for (i = done; i < done + step && i < B_N; i++)
				b_bitmap[b_order[i] / 64] |=
				    1ull << (b_order[i] % 64);
			el += B_PERIOD;
			t0 = b_now();
			progress_scan(&t, &s, b_bitmap, B_WORDS, B_M, r);
			tleft = gnom - el;
			fair = budget_fair(&k, r, tleft, nom.q);
			greedy = budget_greedy(&k, r, tleft, nom.q);
			smooth = budget_smooth(greedy, done ? smooth : nom.q,
			    BUDGET_DEFAULT_SMOOTH_A, nom.q);
			b_dec[d++] = b_now() - t0;
			sink += fair + smooth;
		}
	}
	qsort(b_dec, B_DECISIONS, sizeof(b_dec[0]), b_cmp);
	/* what two back-to-back clock reads cost (included above) */
	for (j = 0; j < B_REGS; j++) {
		t0 = b_now();
		b_reg2[j] = b_now() - t0;
	}
	qsort(b_reg2, B_REGS, sizeof(b_reg2[0]), b_cmp);
	snprintf(res, sizeof(res),
	    "bench_model: C=%d intervals=%d N=%d M=%d T=%.0f ns "
	    "(Q-bar %.4f, G(Q-bar) %llu ns, %u blocks/period)\n"
	    "decision_samples %d\n"
	    "decision_median_ns %.0f\n"
	    "decision_p99_ns %.0f\n"
	    "decision_max_ns %.0f\n"
	    "clock_read_median_ns %.0f\n"
	    "registration_samples %d\n"
	    "registration_median_us %.1f\n"
	    "registration_max_us %.1f\n",
	    B_C, B_INTERVALS, B_N, B_M, B_PERIOD, nom.q,
	    (unsigned long long)nom.wcet, step, B_DECISIONS,
	    b_pct(b_dec, B_DECISIONS, 0.5), b_pct(b_dec, B_DECISIONS, 0.99),
	    b_dec[B_DECISIONS - 1], b_pct(b_reg2, B_REGS, 0.5), B_REGS,
	    b_pct(b_reg, B_REGS, 0.5) / 1e3,
	    b_reg[B_REGS - 1] / 1e3);
	fputs(res, stdout);
	if ((out = fopen(argv[2], "w")) == NULL || fputs(res, out) < 0 ||
	    fclose(out) != 0) {
		fprintf(stderr, "bench_model: cannot write %s\n", argv[2]);
		return 1;
	}
	return sink < 0;
}
