/*
 * leadctl.h - the period engine's lead (doc/engine.md): how long before
 * a period boundary the engine wakes to decide, adapted to the wake-up
 * lateness and decision cost this machine shows.  Pure: no clock, no
 * I/O, no allocation; the engine feeds it one sample per wake-up.
 *
 * The trade-off: a plan decided lead before its period uses progress
 * that old, so every ns of lead is a ns of progress the budget cannot
 * count; a wake-up that misses (lateness + cost >= lead) leaves its
 * period to the previous plan's look-ahead entry, decided a period
 * earlier still.  So the lead minimises the expected age of the
 * progress a period's budget rests on,
 *	lead + period * P(lateness + cost + margin > lead),
 * over the samples of a sliding window, clamped to [lo, hi], recomputed
 * every LEADCTL_EVERY samples (every 8 while the window is young).  A fixed high quantile would instead pay
 * the rare long wake-up on every period.
 */
#ifndef LEADCTL_H
#define LEADCTL_H

#include <stdbool.h>
#include <stdint.h>

#define LEADCTL_WINDOW	512	/* samples in the sliding window */
#define LEADCTL_EVERY	64	/* samples between recomputations */

struct leadctl {
	bool		adapt;		/* false: lead stays at start */
	uint64_t	lo, hi;		/* clamp */
	uint64_t	margin;		/* kept free before the boundary */
	uint64_t	period;		/* what a miss costs */
	uint64_t	cur;		/* current lead */
	uint32_t	n;		/* samples in win[] */
	uint32_t	pos;		/* next write */
	uint32_t	since;		/* samples since the last recompute */
	uint64_t	win[LEADCTL_WINDOW];
};

/* start is clamped to [lo, hi]; lo <= hi. */
void		leadctl_init(struct leadctl *, bool adapt, uint64_t start,
		    uint64_t lo, uint64_t hi, uint64_t margin,
		    uint64_t period);
/*
 * One wake-up: how late it was after its deadline (0 when on time) and
 * how long the decision took.  Returns the lead for the next wake-up.
 */
uint64_t	leadctl_add(struct leadctl *, uint64_t lateness_ns,
		    uint64_t cost_ns);
/* The lead that minimises the expected age over the window (clamped). */
uint64_t	leadctl_best(const struct leadctl *);
/* The window's share of wake-ups a given lead would have missed. */
double		leadctl_miss(const struct leadctl *, uint64_t lead);

#endif /* LEADCTL_H */
