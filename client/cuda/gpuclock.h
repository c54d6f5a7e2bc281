/*
 * gpuclock.h - the offset from the GPU's %globaltimer to CLOCK_MONOTONIC,
 * measured by the client and published in the progress page header
 * (bwshm.h), so the daemon can count a launch from its real start
 * (doc/engine.md, "The kernel's real start").
 */
#ifndef BWCUDA_GPUCLOCK_H
#define BWCUDA_GPUCLOCK_H

#include <stdint.h>

#include <bwsched/bwshm.h>

#define GPUCLOCK_ROUNDS		16
/* A tighter bracket than this or nothing: a wider one means the reads
 * were preempted or queued, and is not worth publishing. */
#define GPUCLOCK_MAX_ERR_NS	500000u

struct gpuclock_result {
	int64_t		offset_ns;	/* CLOCK_MONOTONIC - %globaltimer */
	uint64_t	err_ns;		/* half the tightest bracket */
	unsigned int	rounds;		/* reads that succeeded */
};

/* One read of the device's timer; 0, or -1 on failure. */
typedef int	(*gpuclock_read_fn)(void *arg, uint64_t *gpu_ns);
/* The host clock (CLOCK_MONOTONIC ns). */
typedef uint64_t (*gpuclock_mono_fn)(void);

/*
 * rounds reads of the device timer, each between two host reads; the
 * tightest bracket gives the offset (from its middle) and the
 * uncertainty (its half).  0, or -1 when no read succeeded or the best
 * bracket is wider than GPUCLOCK_MAX_ERR_NS.
 */
int	gpuclock_calibrate(gpuclock_read_fn, void *arg, gpuclock_mono_fn,
	    unsigned int rounds, struct gpuclock_result *);

/*
 * The same on the current CUDA context, with a one-thread kernel (PTX,
 * JIT-compiled by the driver) writing %globaltimer into mapped host
 * memory; sym looks up the driver's entry points (never interposed
 * ones).  0, or -1 when anything fails (no context, no driver, an old
 * driver): then nothing is published and the daemon keeps the CPU time.
 */
int	gpuclock_driver(void *(*sym)(const char *), unsigned int rounds,
	    struct gpuclock_result *);

/* Publish r in the page header under its seqlock (bwshm.h). */
void	gpuclock_publish(struct bwshm_progress_hdr *,
	    const struct gpuclock_result *);

#endif /* BWCUDA_GPUCLOCK_H */
