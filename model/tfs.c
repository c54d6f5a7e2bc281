/*
 * tfs.c - Throttle Fair Scheduling (BWLOCK++ Eq. 2, 3): a task throttled
 * for delta in a regulation period is charged rho*delta extra vruntime,
 * so CFS favours tasks that do not exhaust their bandwidth budget.
 */
#include <math.h>

#include "tfs.h"

double
tfs_charge(double vruntime, double throttled, double rho)
{
	if (!(throttled > 0) || !(rho > 0))
		return vruntime;
	return vruntime + throttled * rho;
}

uint64_t
tfs_charge_ns(uint64_t vruntime, uint64_t throttled, double rho)
{
	double	add;

	if (throttled == 0 || !(rho > 0))
		return vruntime;
	add = ceil((double)throttled * rho);
	if (add >= 18446744073709551616.0 ||
	    (uint64_t)add > UINT64_MAX - vruntime)
		return UINT64_MAX;
	return vruntime + (uint64_t)add;
}

double
tfs_lost(const double *delta, unsigned int n, double rho)
{
	double		 sum = 0;
	unsigned int	 j;

	if (!(rho > 0))
		return 0;
	for (j = 0; j < n; j++)
		if (delta[j] > 0)
			sum += delta[j] * rho;
	return sum;
}
