/*
 * test_tfs_rta.c - TFS charge (BWLOCK++ Eq. 2, 3) and response-time
 * analysis (Eq. 4) against hand-worked task sets, and the taskset parser.
 */
#include <errno.h>
#include <string.h>

#include "rta.h"
#include "tfs.h"
#include "tcheck.h"

static void
test_tfs(void)
{
	double	d[3] = { 0.67, 0, 0.5 };

	/* the paper's example: 0.33 + 0.67 * 3 = 2.34 (ms) */
	CHECK_NEAR(tfs_charge(0.33, 0.67, 3), 2.34, 1e-12);
	CHECK_NEAR(tfs_charge(0.33, 0, 3), 0.33, 0);
	CHECK_NEAR(tfs_charge(1, 0.5, 1), 1.5, 1e-12);
	CHECK_U64(tfs_charge_ns(330000, 670000, 3), 2340000);
	CHECK_U64(tfs_charge_ns(10, 3, 0.5), 12);	/* 1.5 rounds up */
	CHECK_U64(tfs_charge_ns(UINT64_MAX - 1, 5, 1), UINT64_MAX);
	CHECK_U64(tfs_charge_ns(7, 1000, 0), 7);
	CHECK_NEAR(tfs_lost(d, 3, 3), 3.51, 1e-12);
	CHECK_NEAR(tfs_lost(d, 0, 3), 0, 0);
}

static const char set[] =
    "# priority order: highest first\n"
    "task t1 period=10 cpu=1 gpu_mem=1 gpu_exec=2\n"
    "task t2 period=20 cpu=2 gpu_exec=4\n"
    "\n"
    "task t3 period=50 cpu=5 gpu_exec=5   # lowest\n";

static void
test_rta(void)
{
	struct rta_taskset	ts;
	struct rta_result	res[RTA_MAX_TASKS];
	char			err[128];

	CHECK(rta_parse(set, sizeof(set) - 1, &ts, err, sizeof(err)) == 0);
	CHECK_U64(ts.ntasks, 3);
	CHECK_U64(rta_demand(&ts.task[0]), 4);
	CHECK_U64(ts.task[0].segment, 3);
	CHECK_U64(ts.task[2].deadline, 50);
	/*
	 * t1: 4 + B (5) = 9.  t2: 6 + 5 = 11, 11 + 2*4 = 19, fixpoint.
	 * t3: 10, 10+4+6 = 20, 10+8+6 = 24, 10+12+12 = 34, 10+16+12 = 38.
	 */
	CHECK(rta_all(&ts, res) == 1);
	CHECK_U64(res[0].response, 9);
	CHECK_U64(res[0].blocking, 5);
	CHECK_U64(res[1].response, 19);
	CHECK_U64(res[1].blocking, 5);
	CHECK_U64(res[2].response, 38);
	CHECK_U64(res[2].blocking, 0);
	/* a deadline of 35 stops at the first iterate beyond it */
	ts.task[2].deadline = 35;
	CHECK(rta_task(&ts, 2, &res[2]) == 0);
	CHECK_U64(res[2].response, 38);
	CHECK(rta_all(&ts, res) == 0);
	/* a long locked segment below t1 blocks it past its deadline */
	ts.task[2].deadline = 50;
	ts.task[2].gpu_exec = 8;
	ts.task[2].segment = 7;
	CHECK(rta_task(&ts, 0, &res[0]) == 0);
	CHECK_U64(res[0].response, 11);
	/* overload never loops: utilisation > 1 */
	CHECK(rta_parse("task a period=10 cpu=6\ntask b period=10 cpu=6\n",
	    46, &ts, err, sizeof(err)) == 0);
	CHECK(rta_task(&ts, 1, &res[1]) == 0);
	CHECK_U64(res[1].response, 12);
	/* huge periods do not overflow ceil(R/P) */
	CHECK(rta_parse("task a period=18446744073709551615 cpu=5\n"
	    "task b period=18446744073709551615 cpu=7\n", 82, &ts, err,
	    sizeof(err)) == 0);
	CHECK(rta_task(&ts, 1, &res[1]) == 1);
	CHECK_U64(res[1].response, 12);
}

static void
test_rta_bad(void)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "", "line 1: no task" },
		{ "# only\n", "line 1: no task" },
		{ "tusk a period=1 cpu=1\n", "line 1: unknown directive" },
		{ "task\n", "line 1: task without a name" },
		{ "\ntask a cpu=1\n", "line 2: missing period" },
		{ "task a period=0 cpu=1\n", "line 1: missing period" },
		{ "task a period=10\n", "line 1: no cpu=" },
		{ "task a period=10 cpu=x\n", "line 1: bad number for 'cpu'" },
		{ "task a period=10 cpu=1 cpu=2\n", "line 1: duplicate 'cpu'" },
		{ "task a period=10 cpu=1 foo=2\n", "line 1: unknown key" },
		{ "task a period=10 cpu\n", "line 1: expected KEY=NS" },
		{ "task a period=10 cpu=1 deadline=11\n", "line 1: deadline" },
		{ "task a period=10 gpu_exec=2 segment=3\n",
		  "line 1: segment" },
	};
	struct rta_taskset	ts;
	char			err[128];
	size_t			i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(rta_parse(bad[i].text, strlen(bad[i].text), &ts, err,
		    sizeof(err)) == -EINVAL);
		if (strncmp(err, bad[i].err, strlen(bad[i].err)) != 0) {
			fprintf(stderr, "case %zu: got \"%s\"\n", i, err);
			failures++;
		}
	}
}

int
main(void)
{
	test_tfs();
	test_rta();
	test_rta_bad();
	return tcheck_done("test_tfs_rta");
}
