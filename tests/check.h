/*
 * check.h - the unit tests' CHECK: report a condition that does not
 * hold, count it in failures and go on, so one run shows every failure.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <math.h>
#include <stdio.h>

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__,	\
		    #cond);						\
		failures++;						\
	}								\
} while (0)

/*
 * CHECKM(cond, fmt, ...): the same, with a message of the test's own
 * where the condition alone would not say which case failed (tables,
 * loops, several checks on one line).
 */
#define CHECKM(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);	\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		failures++;						\
	}								\
} while (0)

/* CHECK_NEAR(got, want, tol): |got - want| <= tol (absolute). */
#define CHECK_NEAR(got, want, tol) do {					\
	double	cn_g = (got), cn_w = (want);				\
	if (!(fabs(cn_g - cn_w) <= (tol))) {				\
		fprintf(stderr, "FAIL %s:%d: %s = %.17g, want %.17g "	\
		    "+- %g\n", __FILE__, __LINE__, #got, cn_g, cn_w,	\
		    (double)(tol));					\
		failures++;						\
	}								\
} while (0)

/* The end of main(): how many failed, and the exit status. */
#define CHECK_DONE() do {						\
	if (failures)							\
		fprintf(stderr, "%d checks failed\n", failures);	\
	return failures ? 1 : 0;					\
} while (0)

#endif /* TESTS_CHECK_H */
