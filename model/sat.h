/*
 * sat.h - saturating unsigned arithmetic, for bounds that must not wrap
 * around to something small (a saturated bound is still safe).
 */
#ifndef SAT_H
#define SAT_H

#include <stdint.h>

static inline uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t
sat_mul(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

#endif /* SAT_H */
