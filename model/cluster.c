/*
 * cluster.c - K-S clustering of thread blocks against pooled samples
 * (see cluster.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "kstest.h"
#include "stats.h"

/*
 * Values map to bins: v - vmin when the values span at most
 * CLUSTER_MAX_BINS, else the index of the first quantile edge >= v.
 * A pool is a Fenwick tree of counts per bin, so adding a block and
 * reading the pool's EDF at a value cost O(log bins).
 */
struct cl_ctx {
	const struct cluster_sample *s;
	uint32_t	 n, maxlen;
	uint32_t	 vmin, nbins;
	uint32_t	*edges;		/* NULL: dense bins */
	uint64_t	**tree;		/* per cluster, nbins + 1 */
	uint64_t	*total;		/* samples per pool */
	uint32_t	*members;	/* blocks per cluster */
	uint16_t	*map;		/* old id -> new id, renumbering */
	unsigned int	 nc, maxc;
	double		 lcrit;		/* K-S lambda at the test's level */
	/* one block, prepared: distinct bins and cumulative counts */
	uint32_t	*val, *db, *cb, k;
};

struct cl_order {
	double		med;
	uint32_t	blk;
};

static int
cl_cmp_order(const void *a, const void *b)
{
	const struct cl_order *x = a, *y = b;

	if (x->med != y->med)
		return x->med < y->med ? -1 : 1;
	return (x->blk > y->blk) - (x->blk < y->blk);
}

static int
cl_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void
fw_add(uint64_t *t, uint32_t nb, uint32_t i, uint64_t v, int sub)
{
	for (i++; i <= nb; i += i & -i)
		t[i] = sub ? t[i] - v : t[i] + v;
}

/* Count in bins 0..i. */
static uint64_t
fw_sum(const uint64_t *t, uint32_t i)
{
	uint64_t s = 0;

	for (i++; i > 0; i -= i & -i)
		s += t[i];
	return s;
}

static uint32_t
cl_bin(const struct cl_ctx *x, uint32_t v)
{
	uint32_t lo = 0, hi = x->nbins - 1, mid;

	if (x->edges == NULL)
		return v - x->vmin;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x->edges[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Quantile edges from an evenly spaced subsample of at most
 * CLUSTER_EDGE_SAMPLE values, thinned to CLUSTER_MAX_BINS - 1, plus the
 * largest value so every value has a bin.
 */
static int
cl_edges(struct cl_ctx *x, uint64_t total, uint32_t vmax)
{
	uint64_t stride = total / CLUSTER_EDGE_SAMPLE + 1, pos = 0;
	uint32_t *e, b, j, k = 0, d = 0, step;

	e = malloc((size_t)(total / stride + 2) * sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	for (b = 0; b < x->n; b++)
		for (j = 0; j < x->s[b].len; j++, pos++)
			if (pos % stride == 0)
				e[k++] = x->s[b].v[j];
	qsort(e, k, sizeof(*e), cl_cmp_u32);
	for (j = 0; j < k; j++)
		if (d == 0 || e[j] != e[d - 1])
			e[d++] = e[j];
	step = d / (CLUSTER_MAX_BINS - 1) + 1;
	for (k = 0, j = 0; j < d; j += step)
		e[k++] = e[j];
	if (e[k - 1] != vmax)
		e[k++] = vmax;
	x->edges = e;
	x->nbins = k;
	return 0;
}

/* Medians in o[], value range, bins, level; allocations. */
static int
cl_prepare(struct cl_ctx *x, struct cl_order *o, double alpha)
{
	uint32_t b, len, vmin = UINT32_MAX, vmax = 0;
	uint64_t total = 0;

	for (b = 0; b < x->n; b++)
		if (x->s[b].len > x->maxlen)
			x->maxlen = x->s[b].len;
	x->val = malloc(x->maxlen * sizeof(*x->val));
	x->db = malloc(x->maxlen * sizeof(*x->db));
	x->cb = malloc(x->maxlen * sizeof(*x->cb));
	x->tree = calloc(x->maxc, sizeof(*x->tree));
	x->total = calloc(x->maxc, sizeof(*x->total));
	x->members = calloc(x->maxc, sizeof(*x->members));
	x->map = malloc(x->maxc * sizeof(*x->map));
	if (!x->val || !x->db || !x->cb || !x->tree || !x->total ||
	    !x->members || !x->map)
		return -ENOMEM;
	for (b = 0; b < x->n; b++) {
		len = x->s[b].len;
		memcpy(x->val, x->s[b].v, len * sizeof(*x->val));
		qsort(x->val, len, sizeof(*x->val), cl_cmp_u32);
		o[b].med = len % 2 ? (double)x->val[len / 2] :
		    ((double)x->val[len / 2 - 1] + (double)x->val[len / 2]) /
		    2.0;
		o[b].blk = b;
		if (x->val[0] < vmin)
			vmin = x->val[0];
		if (x->val[len - 1] > vmax)
			vmax = x->val[len - 1];
		total += len;
	}
	qsort(o, x->n, sizeof(*o), cl_cmp_order);
	/* family-wise alpha over the n - 1 joining decisions */
	x->lcrit = ks_q_inv(x->n > 1 ? alpha / (double)(x->n - 1) : alpha);
	x->vmin = vmin;
	if ((uint64_t)vmax - vmin < CLUSTER_MAX_BINS) {
		x->nbins = vmax - vmin + 1;
		return 0;
	}
	return cl_edges(x, total, vmax);
}

/* Block b's distinct bins db[0..k) and counts at or below them cb[]. */
static void
cl_block(struct cl_ctx *x, uint32_t b)
{
	uint32_t len = x->s[b].len, j, bin;

	for (j = 0; j < len; j++)
		x->val[j] = cl_bin(x, x->s[b].v[j]);
	qsort(x->val, len, sizeof(*x->val), cl_cmp_u32);
	x->k = 0;
	for (j = 0; j < len; j++) {
		bin = x->val[j];
		if (x->k == 0 || x->db[x->k - 1] != bin)
			x->db[x->k++] = bin;
		x->cb[x->k - 1] = j + 1;
	}
}

/* Add the prepared block to pool c, or take it out. */
static void
cl_pool(struct cl_ctx *x, unsigned int c, int sub)
{
	uint32_t i, below;

	for (i = 0; i < x->k; i++) {
		below = i ? x->cb[i - 1] : 0;
		fw_add(x->tree[c], x->nbins, x->db[i], x->cb[i] - below, sub);
	}
	x->total[c] = sub ? x->total[c] - x->cb[x->k - 1] :
	    x->total[c] + x->cb[x->k - 1];
	x->members[c] = sub ? x->members[c] - 1 : x->members[c] + 1;
}

/* |F_block - F_pool| just below and at the block's i-th distinct bin. */
static double
cl_point(const struct cl_ctx *x, unsigned int c, uint32_t i, int own,
    double n, double m)
{
	uint32_t below = i ? x->cb[i - 1] : 0, bin = x->db[i];
	double	le, lt, d1, d2;

	le = (double)fw_sum(x->tree[c], bin);
	lt = bin ? (double)fw_sum(x->tree[c], bin - 1) : 0.0;
	if (own) {
		le -= x->cb[i];
		lt -= below;
	}
	d1 = fabs(x->cb[i] / n - le / m);
	d2 = fabs(below / n - lt / m);
	return d1 > d2 ? d1 : d2;
}

/*
 * K-S lambda = (sqrt(ne) + 0.12 + 0.11/sqrt(ne)) D of the prepared block
 * against pool c (without the block when own).  Between the block's
 * values its EDF is flat, so D is reached at them.  Stops as soon as
 * lambda exceeds stop: the median point first, which settles most
 * comparisons with a pool far away.
 */
static double
cl_lambda(const struct cl_ctx *x, unsigned int c, int own, double stop)
{
	uint32_t i, med = 0, len = x->cb[x->k - 1];
	double	n = len, m, f, d, dstop;

	m = (double)x->total[c] - (own ? n : 0.0);
	if (!(m > 0.0))
		return INFINITY;
	f = ks_scale(len, (size_t)m);
	dstop = stop / f;
	while (x->cb[med] < (len + 1) / 2)
		med++;
	if ((d = cl_point(x, c, med, own, n, m)) > dstop)
		return d * f;
	for (i = 0; i < x->k; i++) {
		double	p = cl_point(x, c, i, own, n, m);

		if (p > d && (d = p) > dstop)
			break;
	}
	return d * f;
}

/* The best pool for the prepared block; own = its cluster or -1. */
static int
cl_best(const struct cl_ctx *x, int own)
{
	double	best = INFINITY, l;
	unsigned int c;
	int	pick = -1;

	/* staying wins a tie with another pool: no churn */
	if (own >= 0 && (l = cl_lambda(x, (unsigned)own, 1, x->lcrit)) <=
	    x->lcrit) {
		best = l;
		pick = own;
	}
	for (c = 0; c < x->nc; c++) {
		if ((int)c == own || x->members[c] == 0)
			continue;
		l = cl_lambda(x, c, 0, best < x->lcrit ? best : x->lcrit);
		if (l <= x->lcrit && l < best) {
			best = l;
			pick = (int)c;
		}
	}
	return pick;
}

static int
cl_walk(struct cl_ctx *x, const struct cl_order *o, uint16_t *id)
{
	uint32_t i;
	int	c;

	for (i = 0; i < x->n; i++) {
		cl_block(x, o[i].blk);
		if ((c = cl_best(x, -1)) < 0) {
			if (x->nc == x->maxc)
				return -E2BIG;
			x->tree[x->nc] = calloc(x->nbins + 1, sizeof(uint64_t));
			if (x->tree[x->nc] == NULL)
				return -ENOMEM;
			c = (int)x->nc++;
		}
		cl_pool(x, (unsigned)c, 0);
		id[o[i].blk] = (uint16_t)c;
	}
	return 0;
}

/* Move blocks to their best pool; returns how many moved. */
static uint32_t
cl_refine(struct cl_ctx *x, const struct cl_order *o, uint16_t *id)
{
	uint32_t i, moved = 0, b;
	int	c;

	for (i = 0; i < x->n; i++) {
		b = o[i].blk;
		cl_block(x, b);
		c = cl_best(x, id[b]);
		if (c < 0 || c == id[b])
			continue;
		cl_pool(x, id[b], 1);
		cl_pool(x, (unsigned)c, 0);
		id[b] = (uint16_t)c;
		moved++;
	}
	return moved;
}

/* Drop emptied clusters; ids in walk order (0 = lowest median). */
static unsigned int
cl_renumber(const struct cl_ctx *x, const struct cl_order *o, uint16_t *id)
{
	uint16_t *map = x->map;
	unsigned int c, k = 0;
	uint32_t i;

	for (c = 0; c < x->nc; c++)
		map[c] = UINT16_MAX;
	for (i = 0; i < x->n; i++)
		if (map[id[o[i].blk]] == UINT16_MAX)
			map[id[o[i].blk]] = (uint16_t)k++;
	for (i = 0; i < x->n; i++)
		id[i] = map[id[i]];
	return k;
}

static void
cl_free(struct cl_ctx *x)
{
	unsigned int c;

	if (x->tree != NULL)
		for (c = 0; c < x->maxc; c++)
			free(x->tree[c]);
	free(x->tree);
	free(x->total);
	free(x->members);
	free(x->map);
	free(x->edges);
	free(x->val);
	free(x->db);
	free(x->cb);
}

int
cluster_blocks(const struct cluster_sample *s, uint32_t n, double alpha,
    unsigned int maxc, uint16_t *id)
{
	struct cl_ctx x;
	struct cl_order *o;
	uint32_t i;
	int	rc, pass;

	if (n == 0 || maxc == 0 || maxc > UINT16_MAX ||
	    !(alpha > 0.0 && alpha < 1.0))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (s[i].len == 0 || s[i].v == NULL)
			return -EINVAL;
	memset(&x, 0, sizeof(x));
	x.s = s;
	x.n = n;
	x.maxc = maxc;
	if ((o = malloc(n * sizeof(*o))) == NULL)
		return -ENOMEM;
	if ((rc = cl_prepare(&x, o, alpha)) == 0 &&
	    (rc = cl_walk(&x, o, id)) == 0) {
		for (pass = 0; pass < CLUSTER_MAX_PASSES; pass++)
			if (cl_refine(&x, o, id) == 0)
				break;
		rc = (int)cl_renumber(&x, o, id);
	}
	free(o);
	cl_free(&x);
	return rc;
}

int
cluster_intervals(const uint16_t *id, uint32_t n, uint32_t *first,
    uint16_t *cluster, unsigned int maxi)
{
	unsigned int k = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (i > 0 && id[i] == id[i - 1])
			continue;
		if (k >= maxi)
			return -E2BIG;
		first[k] = i;
		cluster[k] = id[i];
		k++;
	}
	return (int)k;
}

int
cluster_select_parse(const char *s, struct cluster_select *sel)
{
	const char *arg;
	char	*end;

	if (strcmp(s, "max") == 0) {
		sel->rule = CLUSTER_SEL_MAX;
		sel->p = 0.0;
		sel->alpha = 0.05;
		return 0;
	}
	if (strncmp(s, "normal:", 7) == 0) {
		sel->rule = CLUSTER_SEL_NORMAL;
		arg = s + 7;
	} else if (strncmp(s, "evt:", 4) == 0) {
		sel->rule = CLUSTER_SEL_EVT;
		arg = s + 4;
	} else
		return -EINVAL;
	sel->alpha = 0.05;
	errno = 0;
	sel->p = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' ||
	    !(sel->p > 0.0 && sel->p < 1.0))
		return -EINVAL;
	return 0;
}

int
cluster_select_value(const struct cluster_select *sel,
    const struct cluster_stats *st, const double *x, size_t n,
    double *value, const char **why)
{
	struct evt_options o;
	struct evt_result r;
	int	err;

	*why = NULL;
	if (st->count == 0) {
		*why = "no samples";
		return -EINVAL;
	}
	switch (sel->rule) {
	case CLUSTER_SEL_MAX:
		*value = st->max;
		return 0;
	case CLUSTER_SEL_NORMAL:
		*value = st->mean + stats_norm_ppf(sel->p) * st->sd;
		return 0;
	case CLUSTER_SEL_EVT:
		evt_options_default(&o);
		o.alpha = sel->alpha;
		err = evt_analyze(x, n, &o, &r);
		if (err == -ENOMEM) {
			*why = "out of memory";
			return err;
		}
		if (err < 0 || !r.ok) {
			*why = r.reason;
			return -EINVAL;
		}
		*value = evt_result_pwcet(&r, sel->p);
		return 0;
	}
	*why = "unknown rule";
	return -EINVAL;
}
