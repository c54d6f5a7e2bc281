/*
 * progress.h - remaining blocks per cluster from a finished-block bitmap
 * and the interval table (doc/design.md section 4).  The scan is incremental:
 * blocks below the lowest unfinished one are counted once, so a period
 * costs O(new words) plus a bounded window above it.  Pure: no I/O, no
 * allocation; the caller owns the state.
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdint.h>

#include "wcet.h"

#define PROGRESS_MAX_INTERVALS	4096

struct progress_table {
	uint32_t	nblocks;			/* N */
	unsigned int	nclusters;
	unsigned int	nintervals;
	uint32_t	first[PROGRESS_MAX_INTERVALS];	/* strictly increasing, first[0] = 0 */
	uint16_t	cluster[PROGRESS_MAX_INTERVALS];
	uint64_t	n[WCET_MAX_CLUSTERS];		/* Ni, from the table */
};

/* Validate an interval table and compute n[]; -EINVAL. */
int		progress_table_init(struct progress_table *, uint32_t nblocks,
		    unsigned int nclusters, unsigned int nintervals,
		    const uint32_t *first, const uint16_t *cluster);

/* Per-launch scan state. */
struct progress_scan {
	uint32_t	low;		/* every block below low has finished */
	unsigned int	interval;	/* interval containing low */
	uint64_t	done_low[WCET_MAX_CLUSTERS]; /* finished blocks below low */
};

void		progress_scan_reset(struct progress_scan *);

/*
 * Advance over bitmap (nwords 64-bit words, read with relaxed atomic
 * loads because the GPU writes it concurrently) and write Ri into r[].
 * Finished blocks above low are counted within a window of `window`
 * blocks (e.g. the kernel's M); finished blocks beyond it count as
 * remaining, which is safe.
 */
void		progress_scan(const struct progress_table *,
		    struct progress_scan *, const uint64_t *bitmap,
		    uint32_t nwords, uint32_t window, uint64_t *r);

/* Reference: full recount (tests and the first scan of a slot). */
void		progress_count(const struct progress_table *,
		    const uint64_t *bitmap, uint32_t nwords, uint64_t *r);

#endif /* PROGRESS_H */
