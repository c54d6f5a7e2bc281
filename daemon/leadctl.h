/*
 * leadctl.h - the period engine's lead (doc/engine.md): how long before
 * a period boundary the engine wakes to decide, adapted to the wake-up
 * lateness and decision cost this machine shows.  Pure: no clock, no
 * I/O, no allocation; the engine feeds it one sample per wake-up.
 *
 * A plan is in time when lateness + cost < lead, so the lead follows a
 * high quantile of (lateness + cost) over a sliding window, plus a
 * margin, clamped to [lo, hi].  It rises at once when a wake-up would
 * have missed (one late period is enough to react) and falls only when
 * the window's quantile says so, recomputed every LEADCTL_EVERY samples.
 */
#ifndef LEADCTL_H
#define LEADCTL_H

#include <stdbool.h>
#include <stdint.h>

#define LEADCTL_WINDOW	512	/* samples in the sliding window */
#define LEADCTL_EVERY	64	/* samples between recomputations */
#define LEADCTL_PCT	99.0	/* quantile of the window */

struct leadctl {
	bool		adapt;		/* false: lead stays at start */
	uint64_t	lo, hi;		/* clamp */
	uint64_t	margin;		/* added to the quantile */
	uint64_t	cur;		/* current lead */
	uint32_t	n;		/* samples in win[] */
	uint32_t	pos;		/* next write */
	uint32_t	since;		/* samples since the last recompute */
	uint64_t	win[LEADCTL_WINDOW];
};

/* start is clamped to [lo, hi]; lo <= hi. */
void		leadctl_init(struct leadctl *, bool adapt, uint64_t start,
		    uint64_t lo, uint64_t hi, uint64_t margin);
/*
 * One wake-up: how late it was after its deadline (0 when on time) and
 * how long the decision took.  Returns the lead for the next wake-up.
 */
uint64_t	leadctl_add(struct leadctl *, uint64_t lateness_ns,
		    uint64_t cost_ns);
/* The window's quantile of lateness + cost (0 when empty). */
uint64_t	leadctl_quantile(const struct leadctl *, double pct);

#endif /* LEADCTL_H */
