/*
 * tfs.h - Throttle Fair Scheduling arithmetic ([BWLOCK++], Eq. 2
 * and 3; doc/design.md section 4).  Pure: no I/O, no allocation.
 */
#ifndef TFS_H
#define TFS_H

#include <stdint.h>

#define TFS_DEFAULT_RHO	3.0	/* the paper's TFS-3 punishment factor */

/* Eq. 2: vruntime after a period in which the task was throttled for
 * `throttled` (same unit as the vruntime); rho >= 0. */
double		tfs_charge(double vruntime, double throttled, double rho);

/* Eq. 2 in whole ns: the charge rounds up, saturating at UINT64_MAX. */
uint64_t	tfs_charge_ns(uint64_t vruntime, uint64_t throttled,
		    double rho);

/* Eq. 3: vruntime lost over n periods with throttle times delta[]. */
double		tfs_lost(const double *delta, unsigned int n, double rho);

#endif /* TFS_H */
