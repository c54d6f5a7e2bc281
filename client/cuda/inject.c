/*
 * inject.c - CUPTI injection library: the CUDA driver loads it through
 * CUDA_INJECTION64_PATH and calls InitializeInjection() from cuInit.  It
 * subscribes to runtime and driver API callbacks and feeds the state
 * machine; the interposer (same process, LD_PRELOAD) then only forwards.
 *
 * Only one CUPTI subscriber may exist per process.  When a profiler or
 * debugger already holds it, say so and leave the interposer on.
 *
 * A runtime call we handle runs driver calls underneath; those are
 * skipped (per-thread depth) so nothing is counted twice, while driver
 * calls made directly by the application are handled.
 */
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cupti.h>

#include "green.h"
#include "inject.h"
#include "interpose.h"
#include "sink.h"

static __thread int rt_depth;

#define P(type)		((const type##_params *)cb->functionParams)
/* green.h: a launch the interposer moved is the application stream's */
#define KEY(h, ptds)	bwcuda_green_key((uint64_t)(uintptr_t)(h), ptds)

enum op { OP_NONE, OP_LAUNCH, OP_COPY_IN, OP_COPY_OUT, OP_STREAM_SYNC,
	OP_DEVICE_SYNC, OP_EV_RECORD, OP_EV_SYNC, OP_EV_DESTROY,
	OP_STREAM_DESTROY };

struct action {
	enum op		op;
	uint64_t	key;		/* stream key */
	uint64_t	event;
};

/* Apply an action at the ENTER or EXIT site; ok: the call succeeded. */
static void
apply(const struct action *a, const CUpti_CallbackData *cb, int ok)
{
	struct bwcuda_state *st = bwcuda_global();
	int enter = cb->callbackSite == CUPTI_API_ENTER;
	uint64_t dummy = 0, *snap = cb->correlationData;

	if (snap == NULL)
		snap = &dummy;
	switch (a->op) {
	case OP_LAUNCH:
		if (enter)
			bwcuda_launch_begin(st, a->key);
		else
			bwcuda_launch_end(st, a->key);
		break;
	case OP_COPY_IN:
		if (enter) {
			bwcuda_copy_begin(st);
			bwcuda_launch_begin(st, a->key);
		} else {
			bwcuda_launch_end(st, a->key);
			bwcuda_copy_end(st);
		}
		break;
	case OP_COPY_OUT:
		if (enter) {
			bwcuda_copy_begin(st);
			*snap = bwcuda_sync_begin(st);
		} else {
			if (ok)
				bwcuda_stream_synced(st, a->key, *snap);
			bwcuda_copy_end(st);
		}
		break;
	case OP_STREAM_SYNC:
		if (enter)
			*snap = bwcuda_sync_begin(st);
		else if (ok)
			bwcuda_stream_synced(st, a->key, *snap);
		break;
	case OP_DEVICE_SYNC:
		if (enter)
			*snap = bwcuda_sync_begin(st);
		else if (ok)
			bwcuda_device_synced(st, *snap);
		break;
	case OP_EV_RECORD:
		if (enter)
			bwcuda_event_record(st, a->event, a->key);
		break;
	case OP_EV_SYNC:
		if (!enter && ok)
			bwcuda_event_synced(st, a->event);
		break;
	case OP_EV_DESTROY:
		if (enter)
			bwcuda_event_forget(st, a->event);
		break;
	case OP_STREAM_DESTROY:
		if (enter)
			bwcuda_stream_destroyed(st, a->key);
		break;
	case OP_NONE:
		break;
	}
}

#define EV(e)	((uint64_t)(uintptr_t)(e))

static struct action
driver_action(CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
	struct action a = { OP_NONE, 0, 0 };

	switch (id) {
#define L(name, field, ptds) \
	case CUPTI_DRIVER_TRACE_CBID_##name: \
		a.op = OP_LAUNCH; a.key = KEY(P(name)->field, ptds); break;
	L(cuLaunchKernel, hStream, 0)
	L(cuLaunchKernel_ptsz, hStream, 1)
	L(cuLaunchCooperativeKernel, hStream, 0)
	L(cuLaunchCooperativeKernel_ptsz, hStream, 1)
	L(cuGraphLaunch, hStream, 0)
	L(cuGraphLaunch_ptsz, hStream, 1)
	L(cuMemcpyHtoDAsync_v2, hStream, 0)
	L(cuMemcpyHtoDAsync_v2_ptsz, hStream, 1)
	L(cuMemcpyDtoHAsync_v2, hStream, 0)
	L(cuMemcpyDtoHAsync_v2_ptsz, hStream, 1)
	L(cuMemcpyDtoDAsync_v2, hStream, 0)
	L(cuMemcpyDtoDAsync_v2_ptsz, hStream, 1)
	L(cuMemcpyAsync, hStream, 0)
	L(cuMemcpyAsync_ptsz, hStream, 1)
	L(cuMemcpy2DAsync_v2, hStream, 0)
	L(cuMemcpy2DAsync_v2_ptsz, hStream, 1)
	L(cuMemcpy3DAsync_v2, hStream, 0)
	L(cuMemcpy3DAsync_v2_ptsz, hStream, 1)
#undef L
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
		if (P(cuLaunchKernelEx)->config == NULL)
			break;
		a.op = OP_LAUNCH;
		a.key = KEY(P(cuLaunchKernelEx)->config->hStream,
		    id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2:
		a.op = OP_COPY_IN;
		a.key = KEY(0, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds:
		a.op = OP_COPY_IN;
		a.key = KEY(0, 1);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
		a.op = OP_COPY_OUT;
		a.key = KEY(0, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
		a.op = OP_COPY_OUT;
		a.key = KEY(0, 1);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery:
		a.op = OP_STREAM_SYNC;
		a.key = KEY(P(cuStreamSynchronize)->hStream, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz:
		a.op = OP_STREAM_SYNC;
		a.key = KEY(P(cuStreamSynchronize_ptsz)->hStream, 1);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
		a.op = OP_DEVICE_SYNC;
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
	case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
		a.op = OP_EV_RECORD;
		a.event = EV(P(cuEventRecord)->hEvent);
		a.key = KEY(P(cuEventRecord)->hStream, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
		a.op = OP_EV_RECORD;
		a.event = EV(P(cuEventRecord_ptsz)->hEvent);
		a.key = KEY(P(cuEventRecord_ptsz)->hStream, 1);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuEventQuery:
		a.op = OP_EV_SYNC;
		a.event = EV(P(cuEventSynchronize)->hEvent);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2:
		a.op = OP_EV_DESTROY;
		a.event = EV(P(cuEventDestroy_v2)->hEvent);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2:
		a.op = OP_STREAM_DESTROY;
		a.key = KEY(P(cuStreamDestroy_v2)->hStream, 0);
		break;
	default:
		break;
	}
	return a;
}

static struct action
runtime_action(CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
	struct action a = { OP_NONE, 0, 0 };

	switch (id) {
#define L(name, field, ptds) \
	case CUPTI_RUNTIME_TRACE_CBID_##name: \
		a.op = OP_LAUNCH; a.key = KEY(P(name)->field, ptds); break;
	L(cudaLaunchKernel_v7000, stream, 0)
	L(cudaLaunchKernel_ptsz_v7000, stream, 1)
	L(cudaLaunchCooperativeKernel_v9000, stream, 0)
	L(cudaLaunchCooperativeKernel_ptsz_v9000, stream, 1)
	L(cudaGraphLaunch_v10000, stream, 0)
	L(cudaGraphLaunch_ptsz_v10000, stream, 1)
	L(cudaMemcpyAsync_v3020, stream, 0)
	L(cudaMemcpyAsync_ptsz_v7000, stream, 1)
#undef L
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
		if (P(cudaLaunchKernelExC_v11060)->config == NULL)
			break;
		a.op = OP_LAUNCH;
		a.key = KEY(P(cudaLaunchKernelExC_v11060)->config->stream, id ==
		    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060);
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
	case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
		enum cudaMemcpyKind k = P(cudaMemcpy_v3020)->kind;
		int ptds = id == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000;

		if (k == cudaMemcpyHostToHost)
			break;
		a.op = k == cudaMemcpyDeviceToHost ? OP_COPY_OUT : OP_COPY_IN;
		a.key = KEY(0, ptds);
		break;
	}
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
		a.op = OP_STREAM_SYNC;
		a.key = KEY(P(cudaStreamSynchronize_v3020)->stream, 0);
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
		a.op = OP_STREAM_SYNC;
		a.key = KEY(P(cudaStreamSynchronize_ptsz_v7000)->stream, 1);
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
	case CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020:
		a.op = OP_DEVICE_SYNC;
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
		a.op = OP_EV_RECORD;
		a.event = EV(P(cudaEventRecord_v3020)->event);
		a.key = KEY(P(cudaEventRecord_v3020)->stream, 0);
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000:
		a.op = OP_EV_RECORD;
		a.event = EV(P(cudaEventRecord_ptsz_v7000)->event);
		a.key = KEY(P(cudaEventRecord_ptsz_v7000)->stream, 1);
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
		a.op = OP_EV_SYNC;
		a.event = EV(P(cudaEventSynchronize_v3020)->event);
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020:
		a.op = OP_EV_DESTROY;
		a.event = EV(P(cudaEventDestroy_v3020)->event);
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050:
		a.op = OP_STREAM_DESTROY;
		a.key = KEY(P(cudaStreamDestroy_v5050)->stream, 0);
		break;
	default:
		break;
	}
	return a;
}

/* Calls without parameters may come with no parameter block. */
static struct action
noparam_action(CUpti_CallbackDomain domain, CUpti_CallbackId id)
{
	struct action a = { OP_NONE, 0, 0 };

	if ((domain == CUPTI_CB_DOMAIN_DRIVER_API &&
	    id == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize) ||
	    (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
	    (id == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020 ||
	    id == CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020)))
		a.op = OP_DEVICE_SYNC;
	return a;
}

void CUPTIAPI
bwcuda_cupti_callback(void *user, CUpti_CallbackDomain domain,
    CUpti_CallbackId id, const void *data)
{
	const CUpti_CallbackData *cb = data;
	struct action a;
	int ok;

	(void)user;
	if (cb == NULL)
		return;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		a = cb->functionParams != NULL ? runtime_action(id, cb) :
		    noparam_action(domain, id);
		if (a.op == OP_NONE)
			return;
		if (cb->callbackSite == CUPTI_API_ENTER)
			rt_depth++;
		ok = cb->functionReturnValue == NULL || *(const cudaError_t *)
		    cb->functionReturnValue == cudaSuccess;
		apply(&a, cb, ok);
		if (cb->callbackSite == CUPTI_API_EXIT && rt_depth > 0)
			rt_depth--;
	} else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && rt_depth == 0) {
		a = cb->functionParams != NULL ? driver_action(id, cb) :
		    noparam_action(domain, id);
		if (a.op == OP_NONE)
			return;
		ok = cb->functionReturnValue == NULL ||
		    *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
		apply(&a, cb, ok);
	}
}

int
bwcuda_inject_init(void)
{
	CUpti_SubscriberHandle sub;
	CUptiResult r;
	const char *msg = NULL;

	r = cuptiSubscribe(&sub, bwcuda_cupti_callback, NULL);
	if (r != CUPTI_SUCCESS) {
		cuptiGetResultString(r, &msg);
		if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
			bwcuda_warn("another CUPTI client (profiler or "
			    "debugger) is attached; using the driver "
			    "interposer instead%s",
			    bwcuda_interpose_loaded() ? "" :
			    ", which is not loaded: CUDA work is unprotected");
		else
			bwcuda_warn("cuptiSubscribe failed (%s); using the "
			    "driver interposer instead", msg ? msg : "?");
		return -1;
	}
	if (cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API) !=
	    CUPTI_SUCCESS ||
	    cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API) !=
	    CUPTI_SUCCESS) {
		bwcuda_warn("cannot enable CUPTI callbacks; using the driver "
		    "interposer instead");
		cuptiUnsubscribe(sub);
		return -1;
	}
	bwcuda_global();	/* connect and register now, not on a launch */
	__atomic_store_n(&bwcuda_interpose_on, 0, __ATOMIC_SEQ_CST);
	return 0;
}

int
InitializeInjection(void)
{
	bwcuda_inject_init();
	return 1;	/* the driver goes on either way */
}
