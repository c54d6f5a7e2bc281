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

int
cluster_blocks(const struct cluster_sample *s, uint32_t n, double alpha,
    unsigned int maxc, uint16_t *id)
{
	struct order *o;
	const struct cluster_sample *a, *b;
	double	lvl, d;
	unsigned int c = 0;
	uint32_t i;

	if (n == 0 || maxc == 0 || !(alpha > 0.0 && alpha < 1.0))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (s[i].len == 0 || s[i].v == NULL)
			return -EINVAL;
	o = malloc(n * sizeof(*o));
	if (o == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		o[i].med = median_u32(&s[i]);
		o[i].blk = i;
	}
	qsort(o, n, sizeof(*o), cmp_order);
	/* family-wise alpha over the n - 1 neighbour tests */
	lvl = n > 1 ? alpha / (double)(n - 1) : alpha;
	id[o[0].blk] = 0;
	for (i = 1; i < n; i++) {
		a = &s[o[i - 1].blk];
		b = &s[o[i].blk];
		d = ks_d2_u32(a->v, a->len, b->v, b->len);
		if (ks_pvalue(d, a->len, b->len) < lvl) {
			if (++c >= maxc) {
				free(o);
				return -E2BIG;
			}
		}
		id[o[i].blk] = (uint16_t)c;
	}
	free(o);
	return (int)c + 1;
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
		err = evt_analyze(x, n, EVT_DEFAULT_BLOCK, sel->alpha, &r);
		if (err == -ENOMEM) {
			*why = "out of memory";
			return err;
		}
		if (err < 0 || !r.ok) {
			*why = r.reason;
			return -EINVAL;
		}
		*value = evt_pwcet(&r.fit, EVT_DEFAULT_BLOCK, sel->p);
		return 0;
	}
	*why = "unknown rule";
	return -EINVAL;
}
