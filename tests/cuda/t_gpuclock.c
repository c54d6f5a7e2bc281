/*
 * t_gpuclock - the GPU clock calibration (client/cuda/gpuclock.c): the
 * tightest bracket wins, failures publish nothing, and the driver path
 * against the fake driver, whose %globaltimer is CLOCK_MONOTONIC plus a
 * known offset.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../client/cuda/gpuclock.h"
#include "../../fakecuda/fakecuda.h"
#include "../check.h"

/* ---- a scripted clock and device ------------------------------------- */

static uint64_t	mono_t;
static const uint64_t *widths;	/* bracket of each round */
static unsigned int round_no, fail_round;

static uint64_t
s_mono(void)
{
	return mono_t;
}

/* The device reads 1e9 behind the host, a third into the bracket. */
static int
s_read(void *arg, uint64_t *g)
{
	uint64_t	w = widths[round_no++];

	(void)arg;
	if (round_no == fail_round)
		return -1;
	*g = mono_t + w / 3 - 1000000000ull;
	mono_t += w;
	return 0;
}

static void
test_tightest(void)
{
	static const uint64_t	w[] = { 90000, 12000, 4000, 30000, 4001 };
	struct gpuclock_result	r;

	mono_t = 5000000000ull;
	widths = w;
	round_no = 0;
	fail_round = 0;
	CHECK(gpuclock_calibrate(s_read, NULL, s_mono, 5, &r) == 0);
	CHECK(r.rounds == 5);
	CHECK(r.err_ns == 2000);
	/* true offset 1e9; the estimate within the uncertainty */
	CHECK(r.offset_ns >= 1000000000ll - 2000 &&
	    r.offset_ns <= 1000000000ll + 2000);
	/* a failing read is skipped, not used */
	mono_t = 5000000000ull;
	round_no = 0;
	fail_round = 3;
	CHECK(gpuclock_calibrate(s_read, NULL, s_mono, 5, &r) == 0);
	CHECK(r.rounds == 4 && r.err_ns == 2001);
}

static void
test_too_wide(void)
{
	static const uint64_t	w[] = { 2000000, 3000000 };
	struct gpuclock_result	r;

	widths = w;
	round_no = 0;
	fail_round = 0;
	CHECK(gpuclock_calibrate(s_read, NULL, s_mono, 2, &r) == -1);
	round_no = 0;
	fail_round = 1;
	CHECK(gpuclock_calibrate(s_read, NULL, s_mono, 1, &r) == -1);
}

static void
test_publish(void)
{
	struct bwshm_progress_hdr	h;
	struct gpuclock_result		r = { -7, 3, 1 };

	memset(&h, 0, sizeof(h));
	gpuclock_publish(&h, &r);
	CHECK(h.clock_seq == 2 && h.clock_offset_ns == -7 &&
	    h.clock_err_ns == 3);
	r.offset_ns = 11;
	gpuclock_publish(&h, &r);
	CHECK(h.clock_seq == 4 && h.clock_offset_ns == 11);
	h.clock_seq = UINT32_MAX - 1;
	gpuclock_publish(&h, &r);
	CHECK(h.clock_seq == 2);	/* never 0 (none) once published */
}

/* ---- the driver path on the fake driver ------------------------------ */

static void *
fake_sym(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

static void *
no_launch_sym(const char *name)
{
	return strcmp(name, "cuLaunchKernel") == 0 ? NULL : fake_sym(name);
}

static void
test_driver(void)
{
	struct gpuclock_result	r;
	const int64_t		off = 123456789012ll;	/* GPU ahead */

	fakecuda_set_globaltimer(off);
	CHECK(gpuclock_driver(fake_sym, GPUCLOCK_ROUNDS, &r) == 0);
	CHECK(r.rounds == GPUCLOCK_ROUNDS);
	CHECK(r.err_ns <= GPUCLOCK_MAX_ERR_NS);
	CHECK(r.offset_ns >= -off - (int64_t)r.err_ns &&
	    r.offset_ns <= -off + (int64_t)r.err_ns);
	/* every failure: -1, so nothing is published */
	CHECK(gpuclock_driver(no_launch_sym, GPUCLOCK_ROUNDS, &r) == -1);
	fakecuda_set_fail("cuModuleLoadData");
	CHECK(gpuclock_driver(fake_sym, GPUCLOCK_ROUNDS, &r) == -1);
	fakecuda_set_fail("cuMemHostAlloc");
	CHECK(gpuclock_driver(fake_sym, GPUCLOCK_ROUNDS, &r) == -1);
	fakecuda_set_fail("cuLaunchKernel");
	CHECK(gpuclock_driver(fake_sym, GPUCLOCK_ROUNDS, &r) == -1);
	fakecuda_set_fail("cuCtxSynchronize");
	CHECK(gpuclock_driver(fake_sym, GPUCLOCK_ROUNDS, &r) == -1);
	fakecuda_set_fail(NULL);
	/* a timer out of range (past INT64_MAX) is no calibration */
	fakecuda_set_globaltimer(INT64_MIN / 2);
	CHECK(gpuclock_driver(fake_sym, GPUCLOCK_ROUNDS, &r) == -1);
	fakecuda_set_globaltimer(0);
}

int
main(void)
{
	test_tightest();
	test_too_wide();
	test_publish();
	test_driver();
	if (failures)
		fprintf(stderr, "t_gpuclock: %d failures\n", failures);
	return failures ? 1 : 0;
}
