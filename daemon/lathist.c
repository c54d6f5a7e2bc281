/*
 * lathist.c - log-linear histogram (see lathist.h).
 */
#include <config.h>
#include <string.h>

#include "lathist.h"

void
lathist_reset(struct lathist *h)
{
	memset(h, 0, sizeof(*h));
}

static unsigned int
bucket(uint64_t v)
{
	unsigned int	e;

	if (v < 64)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v);	/* 6..63 */
	return 64 + (e - 6) * LATHIST_SUB +
	    (unsigned int)((v >> (e - 5)) & (LATHIST_SUB - 1));
}

/* Largest value that falls into bucket i. */
static uint64_t
upper(unsigned int i)
{
	unsigned int	e, sub;
	uint64_t	lo;

	if (i < 64)
		return i;
	e = (i - 64) / LATHIST_SUB + 6;
	sub = (i - 64) % LATHIST_SUB;
	lo = (uint64_t)(LATHIST_SUB + sub) << (e - 5);
	return lo + ((uint64_t)1 << (e - 5)) - 1;
}

void
lathist_add(struct lathist *h, uint64_t v)
{
	h->count[bucket(v)]++;
	h->n++;
	if (v > h->max)
		h->max = v;
}

uint64_t
lathist_pct(const struct lathist *h, double p)
{
	uint64_t	want, seen = 0, u;
	unsigned int	i;

	if (h->n == 0)
		return 0;
	want = (uint64_t)((double)h->n * p / 100.0 + 0.999999);
	if (want < 1)
		want = 1;
	for (i = 0; i < LATHIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= want) {
			u = upper(i);
			/* the top bucket's edge can exceed what was seen */
			return u < h->max ? u : h->max;
		}
	}
	return h->max;
}
