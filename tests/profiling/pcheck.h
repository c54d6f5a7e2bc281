/*
 * pcheck.h - minimal checks for the profiling unit tests.
 */
#ifndef PCHECK_H
#define PCHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "../check.h"

/* |got - want| <= tol (absolute). */
#define CHECK_NEAR(got, want, tol) do {					\
	double g_ = (got), w_ = (want);					\
	if (!(fabs(g_ - w_) <= (tol))) {				\
		fprintf(stderr, "%s:%d: %s = %.17g, want %.17g +- %g\n",\
		    __FILE__, __LINE__, #got, g_, w_, (double)(tol));	\
		failures++;						\
	}								\
} while (0)

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

#define CHECK_DONE() do {						\
	if (failures)						\
		fprintf(stderr, "%d checks failed\n", failures);	\
	return failures ? 1 : 0;					\
} while (0)

#endif /* PCHECK_H */
