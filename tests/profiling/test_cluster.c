/*
 * test_cluster.c - K-S clustering recovers known clusters exactly,
 * including interleaved block ranges; recovery on synthetic kernels of
 * known truth (same mean and different spread, close means, heavy tails,
 * small samples, a drift, values spanning more than the exact bins);
 * intervals and selection rules.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "pcheck.h"
#include "stats.h"

#define NB	600
#define NS	128

static uint64_t rs = 777;

static double
unif(void)
{
	return punif(&rs);
}

static double
normal(void)
{
	return sqrt(-2.0 * log(unif())) * cos(2.0 * M_PI * unif());
}

/* true cluster of block b: interleaved ranges */
static int
truth(uint32_t b)
{
	if (b < 100)
		return 1;
	if (b < 130)
		return 0;
	if (b < 400)
		return 2;
	if (b < 401)
		return 0;	/* a one-block interval */
	if (b < 500)
		return 1;
	return 0;
}

/* Synthetic kernels of known truth. */
enum { RB = 600, RS = 128, DIST_NORMAL = 0, DIST_T3 = 1 };

struct rcase {
	double		mean[2], sd[2];
	int		dist;
	uint32_t	runs;
	uint32_t	run_len;	/* truth: cluster (b / run_len) % 2 */
};

struct rstat {
	int		clusters, intervals;
	uint32_t	misassigned;	/* not in their cluster's majority */
};

static double
draw(int dist)
{
	double	c = 0.0, w;
	int	i;

	if (dist == DIST_NORMAL)
		return normal();
	for (i = 0; i < 3; i++) {
		w = normal();
		c += w * w;
	}
	return normal() / sqrt(c / 3.0) / sqrt(3.0);
}

static void
recover(const struct rcase *rc, struct rstat *st)
{
	static uint32_t v[RB][RS], first[RB];
	static struct cluster_sample s[RB];
	static uint16_t id[RB], cl[RB];
	uint32_t b, k, cnt[64][2] = { { 0 } };
	int	t, c;

	for (b = 0; b < RB; b++) {
		t = (int)((b / rc->run_len) % 2);
		for (k = 0; k < rc->runs; k++)
			v[b][k] = (uint32_t)fmax(1.0, round(rc->mean[t] +
			    rc->sd[t] * draw(rc->dist)));
		stats_sort_u32(v[b], rc->runs);	/* as the old API wanted */
		s[b].v = v[b];
		s[b].len = rc->runs;
	}
	st->clusters = cluster_blocks(s, RB, 0.05, 64, id);
	st->intervals = cluster_intervals(id, RB, first, cl, RB);
	st->misassigned = 0;
	if (st->clusters < 0)
		return;
	for (b = 0; b < RB; b++)
		cnt[id[b]][(b / rc->run_len) % 2]++;
	for (c = 0; c < st->clusters; c++)
		st->misassigned += cnt[c][0] < cnt[c][1] ? cnt[c][0] :
		    cnt[c][1];
}

static void
check_recovery(void)
{
	static const struct {
		const char	*what;
		struct rcase	 rc;
		int		 clusters, intervals;
	} cases[] = {
		/* the case: two contiguous halves */
		{ "same mean, sd 35 vs 140", { { 1600, 1600 }, { 35, 140 },
		    DIST_NORMAL, 128, 300 }, 2, 2 },
		{ "same mean, sd 35 vs 140, interleaved", { { 1600, 1600 },
		    { 35, 140 }, DIST_NORMAL, 128, 50 }, 2, 12 },
		{ "means 30 ns apart", { { 2000, 2030 }, { 40, 40 },
		    DIST_NORMAL, 128, 50 }, 2, 12 },
		{ "heavy tails (t3)", { { 2000, 2100 }, { 40, 60 }, DIST_T3,
		    128, 50 }, 2, 12 },
		{ "10 runs", { { 2000, 3000 }, { 40, 40 }, DIST_NORMAL, 10,
		    50 }, 2, 12 },
		{ "beyond the exact bins", { { 20000, 2000000 },
		    { 400, 40000 }, DIST_NORMAL, 128, 50 }, 2, 12 },
	};
	struct rcase rc;
	struct rstat st;
	size_t	i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		recover(&cases[i].rc, &st);
		if (st.clusters != cases[i].clusters ||
		    st.intervals != cases[i].intervals || st.misassigned) {
			fprintf(stderr, "FAIL recovery, %s: %d clusters, %d "
			    "intervals, %u misassigned\n", cases[i].what,
			    st.clusters, st.intervals, st.misassigned);
			failures++;
		}
	}
	/* 20 runs barely tell sd 35 from 140 at this level: a few blocks
	 * land in the other cluster (safe: e0 is the maximum of what a
	 * cluster holds), never a third cluster */
	rc = cases[0].rc;
	rc.runs = 20;
	recover(&rc, &st);
	CHECK(st.clusters <= 2 && st.misassigned <= RB / 20);
}

int
main(void)
{
	static uint32_t v[NB][NS];
	static struct cluster_sample s[NB];
	static uint16_t id[NB], id2[NB], cl[NB];
	static uint32_t first[NB];
	static const double mean[3] = { 2000, 2600, 3300 };
	static const double sd[3] = { 40, 60, 45 };
	struct cluster_select sel;
	struct cluster_stats st;
	const char *why;
	double	val;
	uint32_t b, k;
	int	n, t;

	for (b = 0; b < NB; b++) {
		t = truth(b);
		for (k = 0; k < NS; k++)
			v[b][k] = (uint32_t)(mean[t] + sd[t] * normal());
		stats_sort_u32(v[b], NS);
		s[b].v = v[b];
		s[b].len = NS;
	}
	n = cluster_blocks(s, NB, 0.05, 64, id);
	CHECK(n == 3);
	/* the same samples give the same answer */
	CHECK(cluster_blocks(s, NB, 0.05, 64, id2) == 3);
	CHECK(memcmp(id, id2, sizeof(id)) == 0);
	for (b = 0; b < NB; b++)
		if (id[b] != truth(b)) {
			fprintf(stderr, "block %u: cluster %u, want %d\n", b,
			    id[b], truth(b));
			failures++;
			break;
		}
	n = cluster_intervals(id, NB, first, cl, 64);
	CHECK(n == 6);
	CHECK(first[0] == 0 && cl[0] == 1);
	CHECK(first[1] == 100 && cl[1] == 0);
	CHECK(first[2] == 130 && cl[2] == 2);
	CHECK(first[3] == 400 && cl[3] == 0);
	CHECK(first[4] == 401 && cl[4] == 1);
	CHECK(first[5] == 500 && cl[5] == 0);
	CHECK(cluster_intervals(id, NB, first, cl, 5) == -E2BIG);
	CHECK(cluster_blocks(s, NB, 0.05, 2, id) == -E2BIG);
	CHECK(cluster_blocks(s, 0, 0.05, 64, id) == -EINVAL);
	CHECK(cluster_blocks(s, NB, 1.5, 64, id) == -EINVAL);
	CHECK(cluster_blocks(s, 1, 0.05, 64, id) == 1 && id[0] == 0);

	/* same median, different spread, interleaved: still two clusters */
	for (b = 0; b < NB; b++) {
		t = (b / 50) % 2;
		for (k = 0; k < NS; k++)
			v[b][k] = (uint32_t)(5000 + (t ? 300 : 20) * normal());
		stats_sort_u32(v[b], NS);
	}
	n = cluster_blocks(s, NB, 0.05, 64, id);
	CHECK(n == 2);
	for (b = 0; b < NB; b++)
		if (b > 0 && (id[b] == id[b - 1]) != ((b / 50) == (b - 1) / 50)) {
			fprintf(stderr, "spread: block %u in cluster %u\n", b,
			    id[b]);
			failures++;
			break;
		}
	CHECK(cluster_intervals(id, NB, first, cl, 64) == NB / 50);

	/* one homogeneous kernel of many blocks stays one cluster */
	for (b = 0; b < NB; b++) {
		for (k = 0; k < NS; k++)
			v[b][k] = (uint32_t)(7000 + 70 * normal());
		stats_sort_u32(v[b], NS);
	}
	CHECK(cluster_blocks(s, NB, 0.05, 64, id) == 1);
	check_recovery();

	CHECK(cluster_select_parse("max", &sel) == 0 &&
	    sel.rule == CLUSTER_SEL_MAX);
	CHECK(cluster_select_parse("normal:0.999", &sel) == 0 &&
	    sel.rule == CLUSTER_SEL_NORMAL && sel.p == 0.999);
	CHECK(cluster_select_parse("evt:1e-9", &sel) == 0 &&
	    sel.rule == CLUSTER_SEL_EVT && sel.p == 1e-9);
	CHECK(cluster_select_parse("normal:1", &sel) == -EINVAL);
	CHECK(cluster_select_parse("normal:", &sel) == -EINVAL);
	CHECK(cluster_select_parse("evt:0.1x", &sel) == -EINVAL);
	CHECK(cluster_select_parse("mean", &sel) == -EINVAL);

	st.count = 100;
	st.max = 1234;
	st.mean = 1000;
	st.sd = 10;
	cluster_select_parse("max", &sel);
	CHECK(cluster_select_value(&sel, &st, NULL, 0, &val, &why) == 0 &&
	    val == 1234);
	cluster_select_parse("normal:0.975", &sel);
	CHECK(cluster_select_value(&sel, &st, NULL, 0, &val, &why) == 0);
	CHECK_NEAR(val, 1000 + 19.59963984540054, 1e-9);
	cluster_select_parse("evt:1e-9", &sel);
	CHECK(cluster_select_value(&sel, &st, NULL, 0, &val, &why) ==
	    -EINVAL && why != NULL && strstr(why, "too few") != NULL);
	st.count = 0;
	CHECK(cluster_select_value(&sel, &st, NULL, 0, &val, &why) == -EINVAL);
	CHECK_DONE();
}
