/*
 * fakegreen.c - the green-context entry points of the fake driver: a
 * device of $FAKECUDA_SMS SMs (68) whose minimum partition is
 * $FAKECUDA_SM_MIN (2), split into groups of the count asked for (at
 * least the minimum, even), or of $FAKECUDA_SM_GROUP when that is larger
 * (a driver that rounds up).  Every call is logged with what it was
 * asked and what it returned, so tests check the requested splits and
 * the streams launches went to.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fakecuda.h"

#define GROUP_TAG	0x52474b46u	/* "FKGR": a group of our split */
#define CUDA_ERROR_INVALID_VALUE	1

struct fake_desc {
	unsigned	first;		/* first group */
	unsigned	n;
	unsigned	sms;
};

static unsigned
env_uint(const char *name, unsigned def)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? (unsigned)strtoul(v, NULL, 10) : def;
}

static CUresult
result(const char *name)
{
	return fakecuda_failing(name) ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}

CUresult
cuCtxGetDevice(int *dev)
{
	*dev = 0;
	return result("cuCtxGetDevice");
}

CUresult
cuDeviceGet(int *dev, int ordinal)
{
	*dev = ordinal;
	return result("cuDeviceGet");
}

CUresult
cuEventCreate(CUevent *e, unsigned flags)
{
	static uintptr_t next = 0x8000;

	*e = (CUevent)(next += 0x10);
	fakecuda_logf("call cuEventCreate %#lx flags=%u", (unsigned long)next,
	    flags);
	return result("cuEventCreate");
}

CUresult
cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags)
{
	fakecuda_logf("call cuStreamWaitEvent %#lx event=%#lx flags=%u",
	    (unsigned long)(uintptr_t)s, (unsigned long)(uintptr_t)e, flags);
	return result("cuStreamWaitEvent");
}

CUresult
cuDeviceGetDevResource(int dev, fake_resource *r, int type)
{
	if (r == NULL || type != 1)
		return CUDA_ERROR_INVALID_VALUE;
	memset(r, 0, sizeof(*r));
	r->type = 1;
	r->u.sm.smCount = env_uint("FAKECUDA_SMS", 68);
	r->u.sm.minSmPartitionSize = env_uint("FAKECUDA_SM_MIN", 2);
	r->u.sm.smCoscheduledAlignment = 2;
	fakecuda_logf("call cuDeviceGetDevResource dev=%d sms=%u min=%u", dev,
	    r->u.sm.smCount, r->u.sm.minSmPartitionSize);
	return result("cuDeviceGetDevResource");
}

CUresult
cuDevSmResourceSplitByCount(fake_resource *res, unsigned *nb,
    const fake_resource *in, fake_resource *rest, unsigned flags,
    unsigned min_count)
{
	unsigned	group, n, i;

	if (nb == NULL || in == NULL || in->type != 1 ||
	    min_count > in->u.sm.smCount)
		return CUDA_ERROR_INVALID_VALUE;
	group = min_count < in->u.sm.minSmPartitionSize ?
	    in->u.sm.minSmPartitionSize : min_count;
	group = (group + 1) / 2 * 2;
	if (env_uint("FAKECUDA_SM_GROUP", 0) > group)
		group = env_uint("FAKECUDA_SM_GROUP", 0);
	n = in->u.sm.smCount / group;
	if (res != NULL && *nb < n)
		n = *nb;
	for (i = 0; res != NULL && i < n; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		res[i].type = 1;
		memcpy(res[i].internal, &(unsigned){ GROUP_TAG }, 4);
		memcpy(res[i].internal + 4, &i, 4);
		res[i].u.sm.smCount = group;
	}
	if (rest != NULL) {
		memset(rest, 0, sizeof(*rest));
		rest->type = 1;
		rest->u.sm.smCount = in->u.sm.smCount - n * group;
	}
	*nb = n;
	fakecuda_logf("call cuDevSmResourceSplitByCount min=%u group=%u "
	    "groups=%u flags=%u", min_count, group, n, flags);
	return result("cuDevSmResourceSplitByCount");
}

CUresult
cuDevResourceGenerateDesc(void **desc, fake_resource *res, unsigned n)
{
	/* the driver owns descriptors (there is no call to free one) */
	static struct fake_desc	 pool[64];
	static unsigned		 used;
	struct fake_desc	*d;
	unsigned		 i, tag, idx, first = 0;

	if (desc == NULL || res == NULL || n == 0 || used == 64)
		return CUDA_ERROR_INVALID_VALUE;
	d = &pool[used];
	memset(d, 0, sizeof(*d));
	for (i = 0; i < n; i++) {
		memcpy(&tag, res[i].internal, 4);
		memcpy(&idx, res[i].internal + 4, 4);
		/* groups of one split, in a row (what green.c asks) */
		if (tag != GROUP_TAG || (i > 0 && idx != first + i))
			return CUDA_ERROR_INVALID_VALUE;
		if (i == 0)
			first = idx;
		d->sms += res[i].u.sm.smCount;
	}
	d->first = first;
	d->n = n;
	used++;
	*desc = d;
	fakecuda_logf("call cuDevResourceGenerateDesc first=%u groups=%u "
	    "sms=%u", d->first, d->n, d->sms);
	return result("cuDevResourceGenerateDesc");
}

CUresult
cuGreenCtxCreate(void **ctx, void *desc, int dev, unsigned flags)
{
	static uintptr_t	 next = 0x6000;
	struct fake_desc	*d = desc;

	if (ctx == NULL || d == NULL || !(flags & 1))
		return CUDA_ERROR_INVALID_VALUE;
	*ctx = (void *)(next += 0x10);
	fakecuda_logf("call cuGreenCtxCreate %#lx dev=%d first=%u sms=%u",
	    (unsigned long)next, dev, d->first, d->sms);
	return result("cuGreenCtxCreate");
}

CUresult
cuGreenCtxStreamCreate(CUstream *s, void *ctx, unsigned flags, int prio)
{
	static uintptr_t next = 0x7000;

	if (s == NULL || ctx == NULL)
		return CUDA_ERROR_INVALID_VALUE;
	*s = (CUstream)(next += 0x10);
	fakecuda_logf("call cuGreenCtxStreamCreate %#lx ctx=%#lx flags=%u "
	    "prio=%d", (unsigned long)next, (unsigned long)(uintptr_t)ctx,
	    flags, prio);
	return result("cuGreenCtxStreamCreate");
}
