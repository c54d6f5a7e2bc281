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
    uint64_t hi, uint64_t margin, uint64_t period)
{
	memset(l, 0, sizeof(*l));
	l->adapt = adapt;
	l->lo = lo;
	l->hi = hi < lo ? lo : hi;
	l->margin = margin;
	l->period = period;
	l->cur = leadctl_clamp(l, start);
}

static int
leadctl_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double
leadctl_miss(const struct leadctl *l, uint64_t lead)
{
	uint32_t	i, m = 0;

	for (i = 0; i < l->n; i++)
		m += l->win[i] + l->margin >= lead;
	return l->n > 0 ? (double)m / l->n : 0;
}

/*
 * Candidates are the clamp's ends and each sample plus the margin (the
 * smallest lead that catches it); the expected age only changes there.
 */
uint64_t
leadctl_best(const struct leadctl *l)
{
	uint64_t	s[LEADCTL_WINDOW], cand, best = l->cur;
	double		age, best_age = -1;
	uint32_t	i;

	if (l->n == 0)
		return l->cur;
	memcpy(s, l->win, l->n * sizeof(s[0]));
	qsort(s, l->n, sizeof(s[0]), leadctl_cmp);
	for (i = 0; i <= l->n + 1; i++) {
		if (i == l->n)
			cand = l->lo;
		else if (i == l->n + 1)
			cand = l->hi;
		else
			cand = leadctl_clamp(l, s[i] + l->margin + 1);
		/* samples at or above cand - margin miss: those after i */
		age = (double)cand + (double)l->period *
		    leadctl_miss(l, cand);
		if (best_age < 0 || age < best_age ||
		    (age == best_age && cand < best)) {
			best_age = age;
			best = cand;
		}
	}
	return best;
}

uint64_t
leadctl_add(struct leadctl *l, uint64_t lateness_ns, uint64_t cost_ns)
{
	l->win[l->pos] = lateness_ns + cost_ns;
	l->pos = (l->pos + 1) % LEADCTL_WINDOW;
	if (l->n < LEADCTL_WINDOW)
		l->n++;
	if (!l->adapt)
		return l->cur;
	/* a young window is recomputed sooner: the start is only a guess */
	if (++l->since >= LEADCTL_EVERY ||
	    (l->n < LEADCTL_WINDOW / 4 && l->since >= 8)) {
		l->since = 0;
		l->cur = leadctl_best(l);
	}
	return l->cur;
}
