/*
 * reg_sim.h - PLACEHOLDER "sim" regulator backend: records what it is
 * given, regulates nothing.  A later issue replaces it with the simulated
 * platform (DESIGN.md section 5).
 */
#ifndef REG_SIM_H
#define REG_SIM_H

#include <stdint.h>

#include "regulator.h"

/* The static budget last recorded per core and how many calls set it. */
int	reg_sim_recorded(struct regulator *, uint64_t *events,
	    unsigned int ncores, uint64_t *nsets);

#endif /* REG_SIM_H */
