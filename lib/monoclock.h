/*
 * monoclock.h - CLOCK_MONOTONIC in nanoseconds: the one time base of the
 * daemon, the regulator backends, the client library and the pages they
 * share (launch_ns, period boundaries).
 */
#ifndef MONOCLOCK_H
#define MONOCLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
monoclock_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* MONOCLOCK_H */
