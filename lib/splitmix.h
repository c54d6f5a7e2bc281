/*
 * splitmix.h - splitmix64: the project's one small generator for
 * reproducible draws (the sim's jitter and launch phases, generated task
 * sets and traces, the demo's block times).  Not for anything secret.
 */
#ifndef SPLITMIX_H
#define SPLITMIX_H

#include <stdint.h>

/* Advance *state and return the next 64 random bits. */
static inline uint64_t
splitmix64(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A draw in [0, 1) from the top 53 bits. */
static inline double
splitmix64_unit(uint64_t *state)
{
	return (double)(splitmix64(state) >> 11) / 9007199254740992.0;
}

#endif /* SPLITMIX_H */
