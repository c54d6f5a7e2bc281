/*
 * leadctl.c - the adaptive lead of the period engine (see leadctl.h).
 */
#include <stdlib.h>
#include <string.h>

#include "leadctl.h"

static uint64_t
leadctl_clamp(const struct leadctl *l, uint64_t v)
{
	if (v < l->lo)
		return l->lo;
	return v > l->hi ? l->hi : v;
}

void
leadctl_init(struct leadctl *l, bool adapt, uint64_t start, uint64_t lo,
    uint64_t hi, uint64_t margin)
{
	memset(l, 0, sizeof(*l));
	l->adapt = adapt;
	l->lo = lo;
	l->hi = hi < lo ? lo : hi;
	l->margin = margin;
	l->cur = leadctl_clamp(l, start);
}

static int
leadctl_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t
leadctl_quantile(const struct leadctl *l, double pct)
{
	uint64_t	s[LEADCTL_WINDOW];
	uint32_t	k;

	if (l->n == 0)
		return 0;
	memcpy(s, l->win, l->n * sizeof(s[0]));
	qsort(s, l->n, sizeof(s[0]), leadctl_cmp);
	/* the smallest value with at least pct % of the samples at or
	 * below it: never understates */
	k = (uint32_t)((double)l->n * pct / 100.0 + 0.999999);
	if (k < 1)
		k = 1;
	if (k > l->n)
		k = l->n;
	return s[k - 1];
}

uint64_t
leadctl_add(struct leadctl *l, uint64_t lateness_ns, uint64_t cost_ns)
{
	uint64_t	need = lateness_ns + cost_ns;

	l->win[l->pos] = need;
	l->pos = (l->pos + 1) % LEADCTL_WINDOW;
	if (l->n < LEADCTL_WINDOW)
		l->n++;
	if (!l->adapt)
		return l->cur;
	/* a wake-up that would have missed: react now */
	if (need + l->margin > l->cur)
		l->cur = leadctl_clamp(l, need + l->margin);
	if (++l->since >= LEADCTL_EVERY) {
		l->since = 0;
		l->cur = leadctl_clamp(l, leadctl_quantile(l, LEADCTL_PCT) +
		    l->margin);
	}
	return l->cur;
}
