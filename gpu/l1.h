/*
 * l1.h - the L1 data cache of one SM: set-associative, LRU, loads
 * allocate, stores write through without allocating ([Reorder] Table 2
 * gives the geometry).  Each line keeps a caller-defined stamp: the
 * simulator stores when the line's data arrives (a hit on a line still
 * being filled waits for it), the estimator which request filled it.
 * Pure.
 */
#ifndef GPU_L1_H
#define GPU_L1_H

#include <stdint.h>

#include "gtrace.h"

struct l1_way {
	uint64_t	line;
	uint64_t	used;		/* LRU clock of the last access */
	int64_t		stamp;
	int		valid;
};

struct l1 {
	struct gpu_l1	 g;
	uint32_t	 nsets;
	uint64_t	 clock;
	uint64_t	 accesses, misses;
	struct l1_way	*ways;		/* nsets x assoc */
};

/* 0, -EINVAL for a bad geometry, -ENOMEM. */
int	l1_init(struct l1 *, const struct gpu_l1 *);
void	l1_free(struct l1 *);
/* Empty, statistics cleared. */
void	l1_reset(struct l1 *);
/*
 * Access a line.  A hit refreshes its LRU position and returns 1 with
 * the line's stamp in *stamp.  A load miss evicts the set's least
 * recently used line for this one, stamped miss_stamp; a store miss
 * changes nothing.  Returns 0 for a miss.
 */
int	l1_access(struct l1 *, uint64_t line, int store, int64_t miss_stamp,
	    int64_t *stamp);

#endif /* GPU_L1_H */
