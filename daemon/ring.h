/*
 * ring.h - a fixed-size, lock-free, single-producer single-consumer ring
 * of fixed-size records.  The period thread produces (period records,
 * finished launches); the event loop consumes.  The producer never
 * blocks and never allocates: when the ring is full the new record is
 * dropped and counted, because the period thread must not wait for a
 * slow loop.  Capacity is a power of two.
 */
#ifndef RING_H
#define RING_H

#include <stddef.h>
#include <stdint.h>

struct ring;

/* cap records of elem_size bytes each; cap is rounded up to a power of 2. */
struct ring	*ring_new(size_t elem_size, uint32_t cap);
void		 ring_free(struct ring *);

/* Producer: copy one record in; 0, or -1 when full (counted). */
int		 ring_push(struct ring *, const void *rec);
/* Consumer: copy the oldest record out; 1, or 0 when empty. */
int		 ring_pop(struct ring *, void *rec);

/* Records dropped because the ring was full (any thread). */
uint64_t	 ring_dropped(const struct ring *);
uint32_t	 ring_capacity(const struct ring *);

/*
 * What one period looked like, for `bwctl top`/`trace`.  Plain data:
 * the loop turns it into a "period" event.  Per-core budgets are all
 * equal in this version (the budget is split evenly), but each core's
 * is recorded so a later uneven split needs no format change.
 */
#define RING_MAX_CORES		16
#define RING_MAX_KERNELS	8

struct ring_kernel {
	uint32_t	task;
	uint32_t	kernel;
	uint32_t	slot;
	uint32_t	pad;
	uint64_t	seq;		/* the slot's launch sequence */
	uint64_t	blocks;		/* N of the launch */
	uint64_t	remaining;	/* blocks not yet finished */
	int64_t		t_remaining_ns;	/* time left until its bound */
	double		q;		/* this kernel's Q for the period */
};

struct ring_period {
	uint64_t	period;		/* the period the budget was for */
	uint64_t	t_ns;		/* CLOCK_MONOTONIC at the wake-up */
	uint64_t	boundary_ns;	/* start of `period` */
	int64_t		lateness_ns;	/* wake-up minus its deadline */
	double		q;		/* -1: unregulated */
	double		q_static;	/* holders' smallest Q-bar, -1 none */
	uint32_t	holders;
	uint32_t	late;		/* 1: woke too late for its period */
	uint32_t	ncores;
	uint32_t	nkernels;	/* entries in k[] (capped) */
	uint64_t	budget[RING_MAX_CORES];	/* events per core */
	uint64_t	cost_ns;	/* CPU time of the period's work */
	uint64_t	lead_ns;	/* the lead it was woken with */
	uint32_t	plan_len;	/* periods the plan covers */
	uint32_t	again;		/* 1: decided before, on other holders;
					 * this record replaces that one */
	double		q_last;		/* the plan's last entry, -1 none */
	struct ring_kernel k[RING_MAX_KERNELS];
};

#endif /* RING_H */
