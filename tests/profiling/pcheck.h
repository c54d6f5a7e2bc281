/*
 * pcheck.h - minimal checks for the profiling unit tests.
 */
#ifndef PCHECK_H
#define PCHECK_H

#include <math.h>
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

#define CHECK_DONE() do {						\
	if (failures)						\
		fprintf(stderr, "%d checks failed\n", failures);	\
	return failures ? 1 : 0;					\
} while (0)

#endif /* PCHECK_H */
