/*
 * tap.h - the sim tests' names for tests/check.h: OK is CHECK, NEAR is
 * CHECK_NEAR, TAP_DONE() the exit status.
 */
#ifndef SIM_TAP_H
#define SIM_TAP_H

#include "../check.h"

#define OK(cond)		CHECK(cond)
#define NEAR(a, b, eps)		CHECK_NEAR(a, b, eps)
#define TAP_DONE()	(failures ? (fprintf(stderr, "%d checks failed\n", \
	failures), 1) : 0)

#endif /* SIM_TAP_H */
