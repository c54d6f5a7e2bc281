/*
 * progress.c - remaining blocks per cluster from the finished-block
 * bitmap the GPU writes (doc/design.md section 4).
 */
#include <errno.h>
#include <string.h>

#include "progress.h"

int
progress_table_init(struct progress_table *t, uint32_t nblocks,
    unsigned int nclusters, unsigned int nintervals, const uint32_t *first,
    const uint16_t *cluster)
{
	unsigned int	i;
	uint32_t	end;

	if (nblocks < 1 || nclusters < 1 || nclusters > WCET_MAX_CLUSTERS ||
	    nintervals < 1 || nintervals > PROGRESS_MAX_INTERVALS ||
	    first[0] != 0)
		return -EINVAL;
	memset(t->n, 0, sizeof(t->n));
	for (i = 0; i < nintervals; i++) {
		if (cluster[i] >= nclusters || first[i] >= nblocks ||
		    (i > 0 && first[i] <= first[i - 1]))
			return -EINVAL;
		end = i + 1 < nintervals ? first[i + 1] : nblocks;
		t->n[cluster[i]] += end - first[i];
		t->first[i] = first[i];
		t->cluster[i] = cluster[i];
	}
	t->nblocks = nblocks;
	t->nclusters = nclusters;
	t->nintervals = nintervals;
	return 0;
}

void
progress_scan_reset(struct progress_scan *s)
{
	memset(s, 0, sizeof(*s));
}

static inline uint64_t
progress_word(const uint64_t *bitmap, uint32_t nwords, uint32_t w)
{
	/* the GPU sets bits concurrently: a relaxed load sees each word
	 * whole, and a bit once seen set stays set */
	return w < nwords ? __atomic_load_n(&bitmap[w], __ATOMIC_RELAXED) : 0;
}

static inline uint32_t
progress_end(const struct progress_table *t, unsigned int iv)
{
	return iv + 1 < t->nintervals ? t->first[iv + 1] : t->nblocks;
}

/* Set bits of the bitmap in [a, b). */
static uint64_t
progress_popcount(const uint64_t *bitmap, uint32_t nwords, uint32_t a,
    uint32_t b)
{
	uint64_t	n = 0, w;
	uint32_t	wi;

	while (a < b) {
		wi = a / 64;
		w = progress_word(bitmap, nwords, wi) >> (a % 64);
		if (b - a < 64 - a % 64)
			w &= (UINT64_C(1) << (b - a)) - 1;
		n += (uint64_t)__builtin_popcountll(w);
		a = (wi + 1) * 64;
	}
	return n;
}

/* First unfinished block at or above a (nblocks when all are). */
static uint32_t
progress_first_clear(const uint64_t *bitmap, uint32_t nwords, uint32_t a,
    uint32_t nblocks)
{
	uint64_t	w;

	while (a < nblocks) {
		w = ~progress_word(bitmap, nwords, a / 64) >> (a % 64);
		if (w != 0) {
			a += (uint32_t)__builtin_ctzll(w);
			break;
		}
		a = (a / 64 + 1) * 64;
	}
	return a < nblocks ? a : nblocks;
}

void
progress_scan(const struct progress_table *t, struct progress_scan *s,
    const uint64_t *bitmap, uint32_t nwords, uint32_t window, uint64_t *r)
{
	uint32_t	low, a, b, top;
	unsigned int	iv, i;

	/* credit the newly finished prefix [s->low, low) interval by
	 * interval */
	low = progress_first_clear(bitmap, nwords, s->low, t->nblocks);
	while (s->low < low) {
		b = progress_end(t, s->interval);
		if (b > low)
			b = low;
		s->done_low[t->cluster[s->interval]] += b - s->low;
		s->low = b;
		if (b == progress_end(t, s->interval) &&
		    s->interval + 1 < t->nintervals)
			s->interval++;
	}
	for (i = 0; i < t->nclusters; i++)
		r[i] = t->n[i] - s->done_low[i];
	/* blocks finished out of order within the window above low */
	top = t->nblocks - low < window ? t->nblocks : low + window;
	for (a = low, iv = s->interval; a < top; iv++) {
		b = progress_end(t, iv);
		if (b > top)
			b = top;
		r[t->cluster[iv]] -= progress_popcount(bitmap, nwords, a, b);
		a = b;
	}
}

void
progress_count(const struct progress_table *t, const uint64_t *bitmap,
    uint32_t nwords, uint64_t *r)
{
	unsigned int	i;

	for (i = 0; i < t->nclusters; i++)
		r[i] = t->n[i];
	for (i = 0; i < t->nintervals; i++)
		r[t->cluster[i]] -= progress_popcount(bitmap, nwords,
		    t->first[i], progress_end(t, i));
}
