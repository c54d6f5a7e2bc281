/*
 * pcheck.h - minimal checks for the profiling unit tests.
 */
#ifndef PCHECK_H
#define PCHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "../check.h"
#include "splitmix.h"

/* A uniform draw in (0, 1), the same on every platform. */
static inline double
punif(uint64_t *state)
{
	return ((double)(splitmix64(state) >> 11) + 0.5) /
	    9007199254740992.0;
}

#endif /* PCHECK_H */
