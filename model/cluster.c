/*
 * cluster.c - K-S clustering of thread blocks (see cluster.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "kstest.h"
#include "stats.h"

struct order {
	double		med;
	uint32_t	blk;
};

static int
cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->med != y->med)
		return x->med < y->med ? -1 : 1;
	return (x->blk > y->blk) - (x->blk < y->blk);
}

static double
median_u32(const struct cluster_sample *s)
{
	uint32_t n = s->len;

	return n % 2 ? (double)s->v[n / 2] :
	    ((double)s->v[n / 2 - 1] + (double)s->v[n / 2]) / 2.0;
}

/*
 * Walk the blocks by increasing median.  Each block is compared with the
 * latest member of every cluster so far: being the member with the
 * closest lower median, it carries no bias from the sort, so the test's
 * level holds.  The block joins the cluster with the smallest D among
 * those whose test does not reject (ties: lower cluster id), or starts
 * a new one.  Comparing with every cluster, not only the previous block,
 * separates clusters whose medians overlap but whose spreads differ.
 */
int
cluster_blocks(const struct cluster_sample *s, uint32_t n, double alpha,
    unsigned int maxc, uint16_t *id)
{
	struct order *o;
	const struct cluster_sample *a, *b;
	uint32_t *last, i;
	double	lvl, d, best;
	unsigned int c, nc = 0, pick;

	if (n == 0 || maxc == 0 || !(alpha > 0.0 && alpha < 1.0))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (s[i].len == 0 || s[i].v == NULL)
			return -EINVAL;
	o = malloc(n * sizeof(*o));
	last = malloc(maxc * sizeof(*last));
	if (o == NULL || last == NULL) {
		free(o);
		free(last);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		o[i].med = median_u32(&s[i]);
		o[i].blk = i;
	}
	qsort(o, n, sizeof(*o), cmp_order);
	/* family-wise alpha over the n - 1 joining decisions */
	lvl = n > 1 ? alpha / (double)(n - 1) : alpha;
	for (i = 0; i < n; i++) {
		b = &s[o[i].blk];
		pick = nc;
		best = 2.0;
		for (c = 0; c < nc; c++) {
			a = &s[last[c]];
			d = ks_d2_u32(a->v, a->len, b->v, b->len);
			if (d < best && ks_pvalue(d, a->len, b->len) >= lvl) {
				best = d;
				pick = c;
			}
		}
		if (pick == nc) {
			if (nc == maxc) {
				free(o);
				free(last);
				return -E2BIG;
			}
			nc++;
		}
		last[pick] = o[i].blk;
		id[o[i].blk] = (uint16_t)pick;
	}
	free(o);
	free(last);
	return (int)nc;
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
