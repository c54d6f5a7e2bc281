/*
 * pcheck.h - minimal checks for the profiling unit tests.
 */
#ifndef PCHECK_H
#define PCHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "../check.h"

/* splitmix64: a uniform draw in (0, 1), the same on every platform. */
static inline double
punif(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

#endif /* PCHECK_H */
