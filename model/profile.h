/*
 * profile.h - the .bwk kernel profile (doc/profile.md): parser and
 * writer working on memory buffers.  Pure: no I/O (lib/fileio.h reads
 * and writes files).
 */
#ifndef PROFILE_H
#define PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "wcet.h"
#include "progress.h"

#define PROFILE_MAX_NAME	63
#define PROFILE_MAX_SIZE	(1u << 20)	/* bytes of a .bwk file */
#define PROFILE_DEFAULT_PERIOD	1000000ull

/*
 * The optional GPU demand of a kernel for partitioning (doc/partition.md,
 * the `gpu` directive): C(m) = k(a/m + b), k in thousandths.
 */
struct profile_gpu {
	int		present;
	uint64_t	a_ns;
	int		mi;		/* 1 memory, 0 compute intensive */
	int		has_b;
	uint64_t	b_ns;
	uint32_t	k_milli;	/* 0: the class's default */
	uint64_t	deadline_ns;	/* 0: the period */
	uint64_t	period_ns;	/* 0: the task's */
};

struct profile {
	char		name[PROFILE_MAX_NAME + 1];
	uint32_t	blocks;
	uint32_t	concurrency;
	uint64_t	period_ns;
	unsigned int	nclusters;
	uint64_t	e0[WCET_MAX_CLUSTERS];
	uint64_t	e1[WCET_MAX_CLUSTERS];
	unsigned int	nintervals;
	uint32_t	first[PROGRESS_MAX_INTERVALS];
	uint16_t	cluster[PROGRESS_MAX_INTERVALS];
	struct profile_gpu gpu;
};

/*
 * Parse len bytes.  On error returns -EINVAL and writes
 * "line N: what is wrong" into err.
 */
int		profile_parse(const char *buf, size_t len, struct profile *,
		    char *err, size_t errlen);

/*
 * Format into buf; returns the length, or -ENOSPC if len is too small
 * (-EINVAL for a name or counts profile_parse would not accept).
 */
int		profile_format(const struct profile *, char *buf, size_t len);

/* Fill a wcet_kernel and progress_table from a parsed profile. */
int		profile_to_model(const struct profile *, struct wcet_kernel *,
		    struct progress_table *);

#endif /* PROFILE_H */
