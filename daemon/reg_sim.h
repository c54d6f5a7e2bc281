/*
 * reg_sim.h - the "sim" regulator backend: the simulated platform of
 * doc/sim.md run in wall-clock time (reg_sim.c), publishing its
 * state for demo clients (bwsched/bwsimstate.h).
 */
#ifndef REG_SIM_H
#define REG_SIM_H

#include <stdint.h>

#include "regulator.h"

/* The static budget last set per core and how many calls set it. */
int	reg_sim_recorded(struct regulator *, uint64_t *events,
	    unsigned int ncores, uint64_t *nsets);

#endif /* REG_SIM_H */
