/*
 * reg_kmod.h - the page-writing half of the kmod regulator backend
 * (reg_kmod.c): plans, their withdrawal and static budgets written into
 * the bwreg shared page (kmod/uapi/bwreg.h).  These functions touch only
 * the page they are given, so tests run them on plain memory; the backend
 * serializes them (the period thread and the event loop both write).
 */
#ifndef REG_KMOD_H
#define REG_KMOD_H

#include <stdint.h>

#include "bwreg.h"
#include "regulator.h"

/* The daemon's side of the two plan buffers. */
struct reg_kmod_plans {
	uint64_t	next_id;	/* id of the next plan, from 1 */
	int		newest;		/* buffer of the newest plan, -1 none */
};

void	reg_kmod_plans_init(struct reg_kmod_plans *);

/*
 * Publish p (per core index, cores[i] is the CPU) in the buffer that does
 * not hold the newest plan, under that buffer's sequence word; *id gets
 * the plan's id.  -EINVAL for a bad length or core.
 */
int	reg_kmod_write_plan(struct bwreg_page *, struct reg_kmod_plans *,
	    const struct reg_plan *p, const int *cores, unsigned int ncores,
	    uint64_t *id);

/* Empty both buffers (id 0), each under its sequence word. */
void	reg_kmod_withdraw(struct bwreg_page *, struct reg_kmod_plans *);

/* Static budget per core (cores[i] is the CPU). */
void	reg_kmod_write_static(struct bwreg_page *, const int *cores,
	    const uint64_t *events, unsigned int ncores);

#endif /* REG_KMOD_H */
