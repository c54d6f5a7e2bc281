/*
 * tcheck.h - tiny assertion helpers for the model tests.
 */
#ifndef TCHECK_H
#define TCHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"

#define CHECK_U64(a, b) do {						\
	unsigned long long tc_a = (a), tc_b = (b);			\
	if (tc_a != tc_b) {						\
		fprintf(stderr, "%s:%d: %s = %llu, expected %llu\n",	\
		    __FILE__, __LINE__, #a, tc_a, tc_b);		\
		failures++;						\
	}								\
} while (0)

/* xorshift64*: deterministic across runs and platforms */
static uint64_t tcheck_seed = 0x9e3779b97f4a7c15ull;

static inline uint64_t
trand(void)
{
	tcheck_seed ^= tcheck_seed >> 12;
	tcheck_seed ^= tcheck_seed << 25;
	tcheck_seed ^= tcheck_seed >> 27;
	return tcheck_seed * 0x2545f4914f6cdd1dull;
}

/* uniform in [lo, hi] */
static inline uint64_t
trange(uint64_t lo, uint64_t hi)
{
	return lo + trand() % (hi - lo + 1);
}

static inline double
tunit(void)
{
	return (double)(trand() >> 11) / 9007199254740992.0;
}

static inline int
tcheck_done(const char *name)
{
	if (failures) {
		fprintf(stderr, "%s: %d checks failed\n", name, failures);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}

#endif /* TCHECK_H */
