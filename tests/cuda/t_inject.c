/*
 * t_inject - the CUPTI injection without a driver: cuptiSubscribe and
 * friends are faked here, and the callback is called with fabricated
 * CUpti_CallbackData, the way the driver would around each API call.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../client/cuda/inject.h"
#include "../../client/cuda/interpose.h"
#include "../check.h"

/* ---- fake CUPTI ---------------------------------------------------------- */

static CUptiResult subscribe_result;
static CUpti_CallbackFunc subscribed;
static int domains;

CUptiResult CUPTIAPI
cuptiSubscribe(CUpti_SubscriberHandle *h, CUpti_CallbackFunc f, void *u)
{
	(void)u;
	*h = (CUpti_SubscriberHandle)&subscribed;
	if (subscribe_result == CUPTI_SUCCESS)
		subscribed = f;
	return subscribe_result;
}

CUptiResult CUPTIAPI
cuptiEnableDomain(uint32_t en, CUpti_SubscriberHandle h,
    CUpti_CallbackDomain d)
{
	(void)h;
	if (en)
		domains |= 1 << d;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiUnsubscribe(CUpti_SubscriberHandle h)
{
	(void)h;
	subscribed = NULL;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiGetResultString(CUptiResult r, const char **s)
{
	(void)r;
	*s = "fake error";
	return CUPTI_SUCCESS;
}

/* ---- driving the callback ------------------------------------------------ */

static char logpath[] = "/tmp/t_inject.XXXXXX";

static int
count(const char *line)
{
	char buf[256];
	FILE *f = fopen(logpath, "r");
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		n += strcmp(buf, line) == 0;
	}
	fclose(f);
	return n;
}

static int
held(void)
{
	return bwcuda_any_active(bwcuda_global());
}

/* One API call: ENTER, the nested calls, EXIT with the given result. */
static void
call(CUpti_CallbackDomain dom, CUpti_CallbackId id, void *params, int ret,
    void (*inner)(void))
{
	CUpti_CallbackData cb;
	uint64_t corr = 0;

	memset(&cb, 0, sizeof(cb));
	cb.functionParams = params;
	cb.correlationData = &corr;
	cb.callbackSite = CUPTI_API_ENTER;
	cb.functionReturnValue = NULL;
	bwcuda_cupti_callback(NULL, dom, id, &cb);
	if (inner != NULL)
		inner();
	cb.callbackSite = CUPTI_API_EXIT;
	cb.functionReturnValue = &ret;
	bwcuda_cupti_callback(NULL, dom, id, &cb);
}

#define DRV(name) \
	CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##name
#define RT(name) \
	CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##name
#define ST(x)		((CUstream)(uintptr_t)(x))

/* What the runtime does underneath: a driver call on another stream. */
static void
inner_launch(void)
{
	cuLaunchKernel_params p;

	memset(&p, 0, sizeof(p));
	p.hStream = ST(0x9000);
	call(DRV(cuLaunchKernel), &p, 0, NULL);
}

static void
inner_sync(void)
{
	cuStreamSynchronize_params p = { ST(0x9000) };

	call(DRV(cuStreamSynchronize), &p, 0, NULL);
}

static void
test_fallback(void)
{
	char errpath[] = "/tmp/t_inject_err.XXXXXX";
	char buf[512] = "";
	int fd = mkstemp(errpath), saved = dup(2);
	ssize_t n;

	subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	dup2(fd, 2);
	CHECK(bwcuda_inject_init() == -1);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unlink(errpath);
	CHECK(n > 0 && strstr(buf, "bwsched: another CUPTI client") != NULL);
	CHECK(strstr(buf, "interposer") != NULL);
	CHECK(__atomic_load_n(&bwcuda_interpose_on, __ATOMIC_SEQ_CST) == 1);
	CHECK(subscribed == NULL);
}

static void
test_subscribe(void)
{
	subscribe_result = CUPTI_SUCCESS;
	CHECK(InitializeInjection() == 1);
	CHECK(subscribed == bwcuda_cupti_callback);
	CHECK(domains == (1 << CUPTI_CB_DOMAIN_RUNTIME_API |
	    1 << CUPTI_CB_DOMAIN_DRIVER_API));
	CHECK(bwcuda_interpose_on == 0);
}

static void
test_driver(void)
{
	cuLaunchKernel_params l;
	cuStreamSynchronize_params s = { ST(0x1000) };
	cuStreamSynchronize_ptsz_params sp = { 0 };
	cuLaunchKernel_ptsz_params lp;
	cuLaunchKernelEx_params lx;
	CUlaunchConfig cfg;
	cuGraphLaunch_params g = { NULL, ST(0x3000) };
	cuEventRecord_params er = { (CUevent)0xe1, ST(0x3000) };
	cuEventSynchronize_params es = { (CUevent)0xe1 };
	cuStreamDestroy_v2_params sd = { ST(0x4000) };
	cuMemcpyDtoH_v2_params dh;

	memset(&l, 0, sizeof(l));
	l.hStream = ST(0x1000);
	call(DRV(cuLaunchKernel), &l, 0, NULL);
	CHECK(held() && count("active 0x1000") == 1);
	call(DRV(cuStreamSynchronize), &s, 1, NULL);	/* failed */
	CHECK(held());
	call(DRV(cuStreamSynchronize), &s, 0, NULL);
	CHECK(!held());

	memset(&lp, 0, sizeof(lp));
	call(DRV(cuLaunchKernel_ptsz), &lp, 0, NULL);
	CHECK(held() && count("active 0x1") == 0);
	call(DRV(cuStreamSynchronize_ptsz), &sp, 0, NULL);
	CHECK(!held());

	memset(&cfg, 0, sizeof(cfg));
	cfg.hStream = ST(0x2000);
	memset(&lx, 0, sizeof(lx));
	lx.config = &cfg;
	call(DRV(cuLaunchKernelEx), &lx, 0, NULL);
	CHECK(count("active 0x2000") == 1);
	call(DRV(cuGraphLaunch), &g, 0, NULL);
	call(DRV(cuEventRecord), &er, 0, NULL);
	call(DRV(cuEventSynchronize), &es, 0, NULL);
	CHECK(count("sync 0x3000") == 1 && held());
	call(DRV(cuCtxSynchronize), NULL, 1, NULL);	/* failed */
	CHECK(held());
	call(DRV(cuCtxSynchronize), NULL, 0, NULL);	/* no parameters */
	CHECK(!held() && count("device_sync") == 1);

	memset(&l, 0, sizeof(l));
	l.hStream = ST(0x4000);
	call(DRV(cuLaunchKernel), &l, 0, NULL);
	call(DRV(cuStreamDestroy_v2), &sd, 0, NULL);
	CHECK(count("forget 0x4000") == 1 && held());
	memset(&dh, 0, sizeof(dh));
	call(DRV(cuMemcpyDtoH_v2), &dh, 0, NULL);
	CHECK(count("memcpy_begin") == 1 && count("memcpy_end") == 1);
	CHECK(held());		/* the orphan needs a device sync */
	{
		int dummy = 0;

		call(DRV(cuCtxSynchronize), &dummy, 0, NULL);
	}
	CHECK(!held());
}

static void
test_runtime(void)
{
	cudaLaunchKernel_v7000_params l;
	cudaStreamSynchronize_v3020_params s = { ST(0x5000) };
	cudaMemcpy_v3020_params m;

	memset(&l, 0, sizeof(l));
	l.stream = ST(0x5000);
	call(RT(cudaLaunchKernel_v7000), &l, cudaSuccess, inner_launch);
	CHECK(held() && count("active 0x5000") == 1);
	CHECK(count("active 0x9000") == 0);	/* nested driver call */
	call(RT(cudaStreamSynchronize_v3020), &s, cudaSuccess, inner_sync);
	CHECK(!held());
	/* after the runtime call, direct driver calls count again */
	inner_launch();
	CHECK(count("active 0x9000") == 1);
	inner_sync();
	CHECK(!held());

	memset(&m, 0, sizeof(m));
	m.kind = cudaMemcpyHostToDevice;
	call(RT(cudaMemcpy_v3020), &m, cudaSuccess, NULL);
	CHECK(held() && count("active 0x1") == 1);
	m.kind = cudaMemcpyDeviceToHost;
	call(RT(cudaMemcpy_v3020), &m, cudaSuccess, NULL);
	CHECK(!held() && count("sync 0x1") == 1);
	CHECK(count("memcpy_begin") == 3 && count("memcpy_end") == 3);

	l.stream = ST(0x6000);
	call(RT(cudaLaunchKernel_v7000), &l, cudaSuccess, NULL);
	call(RT(cudaDeviceSynchronize_v3020), NULL, cudaErrorUnknown, NULL);
	CHECK(held());
	call(RT(cudaDeviceSynchronize_v3020), NULL, cudaSuccess, NULL);
	CHECK(!held());
}

int
main(void)
{
	int fd = mkstemp(logpath);
	char env[64];

	if (fd < 0)
		return 99;
	close(fd);
	snprintf(env, sizeof(env), "record:%s", logpath);
	setenv("BWSCHED_CUDA_SINK", env, 1);
	test_fallback();
	test_subscribe();
	test_driver();
	test_runtime();
	unlink(logpath);
	if (failures)
		fprintf(stderr, "t_inject: %d failures\n", failures);
	return failures ? 1 : 0;
}
