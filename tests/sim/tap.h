/*
 * tap.h - minimal checks for the sim tests: count failures, print where.
 */
#ifndef SIM_TAP_H
#define SIM_TAP_H

#include <math.h>
#include <stdio.h>

static int tap_failed;

#define OK(cond) do {							\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: failed: %s\n", __FILE__,	\
		    __LINE__, #cond);					\
		tap_failed++;						\
	}								\
} while (0)

#define NEAR(a, b, eps) do {						\
	double	tap_a = (a), tap_b = (b);				\
	if (!(fabs(tap_a - tap_b) <= (eps))) {				\
		fprintf(stderr, "%s:%d: %s = %.12g, expected %.12g\n",	\
		    __FILE__, __LINE__, #a, tap_a, tap_b);		\
		tap_failed++;						\
	}								\
} while (0)

#define TAP_DONE() (tap_failed ? (fprintf(stderr, "%d failed\n",	\
	tap_failed), 1) : 0)

#endif /* SIM_TAP_H */
