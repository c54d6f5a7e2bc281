/*
 * test_cluster.c - K-S clustering recovers known clusters exactly,
 * including interleaved block ranges; intervals and selection rules.
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
