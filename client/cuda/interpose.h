/*
 * interpose.h - the driver-API interposer's switch.  On (1) by default;
 * the CUPTI injection turns it off when its own subscription works, so
 * that exactly one of the two feeds the state machine.
 */
#ifndef BWCUDA_INTERPOSE_H
#define BWCUDA_INTERPOSE_H

#include "state.h"

extern int bwcuda_interpose_on;

/* Whether the interposer is preloaded (ahead of libc in the global scope). */
int	bwcuda_interpose_loaded(void);

#endif /* BWCUDA_INTERPOSE_H */
