/*
 * t_greenabi - the types and constants client/cuda/green.c declares for
 * itself (it builds without CUDA headers) against the toolkit's cuda.h:
 * CUdevResource's layout and the flag values.  The checks are static; a
 * mismatch stops the build of this test.  CU_STREAM_PER_THREAD is a
 * pointer, no integer constant expression (clang refuses it in a static
 * assertion): main() checks that one.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda.h>

#include "../../client/cuda/green.h"

#define SAME(a, b)	_Static_assert((a) == (b), #a " != " #b)

SAME(sizeof(struct bwcuda_dev_resource), sizeof(CUdevResource));
SAME(offsetof(struct bwcuda_dev_resource, type),
    offsetof(CUdevResource, type));
SAME(offsetof(struct bwcuda_dev_resource, u.sm.smCount),
    offsetof(CUdevResource, sm.smCount));
SAME(offsetof(struct bwcuda_dev_resource, u.sm.minSmPartitionSize),
    offsetof(CUdevResource, sm.minSmPartitionSize));
SAME(offsetof(struct bwcuda_dev_resource, u.sm.smCoscheduledAlignment),
    offsetof(CUdevResource, sm.smCoscheduledAlignment));
SAME(sizeof(CUdevice), sizeof(int));
SAME(CU_DEV_RESOURCE_TYPE_SM, 1);
SAME(CU_GREEN_CTX_DEFAULT_STREAM, 1);
SAME(CU_STREAM_NON_BLOCKING, 1);
SAME(CU_EVENT_DISABLE_TIMING, 2);

int
main(void)
{
	if ((uintptr_t)CU_STREAM_PER_THREAD != 2) {
		printf("t_greenabi: CU_STREAM_PER_THREAD is %p, green.c "
		    "has 0x2\n", (void *)CU_STREAM_PER_THREAD);
		return 1;
	}
	printf("t_greenabi: green.c's declarations match cuda.h %d.%d\n",
	    CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
	return 0;
}
