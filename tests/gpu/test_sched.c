/*
 * test_sched.c - the warp schedulers: LRR and GTO orders, the three cases
 * of [PredGPU] Algorithm 5 step by step, invariants of RT-PAWS under
 * random readiness (work conservation, the leading group first, a group
 * keeps the lead for exactly its priority's worth of stalled heads), and
 * the Fig. 4.1 example with the stated outcomes.
 */
#include "gcheck.h"
#include "fig41.h"
#include "wsched.h"
#include "sm.h"

/* One cycle: sort, compare with want (if any), then the issue of id. */
static void
step(struct sched *s, const struct sched_warp *w, uint32_t n,
    const uint32_t *want, uint32_t id)
{
	uint32_t	q[16], i, prio = 0;

	CHECK(sched_sort(s, w, n, q) == 0);
	for (i = 0; want != NULL && i < n; i++)
		if (q[i] != want[i]) {
			fprintf(stderr, "FAIL: position %u is warp %u, want %u\n",
			    i, q[i], want[i]);
			failures++;
		}
	for (i = 0; i < n; i++)
		if (w[i].id == id)
			prio = w[i].prio;
	sched_issued(s, q, n, id, prio);
}

static void
test_lrr_gto(void)
{
	static const struct sched_warp	w[4] = {
		{ 3, 1 }, { 0, 1 }, { 2, 1 }, { 1, 1 }	/* oldest first */
	};
	static const uint32_t	l0[] = { 0, 1, 2, 3 }, l1[] = { 2, 3, 0, 1 };
	static const uint32_t	g0[] = { 3, 0, 2, 1 }, g1[] = { 2, 3, 0, 1 };
	struct sched		s;

	sched_init(&s, GPU_LRR, 0);
	step(&s, w, 4, l0, 1);
	step(&s, w, 4, l1, SCHED_NONE);	/* after 1; idle keeps the pointer */
	step(&s, w, 4, l1, 3);
	sched_init(&s, GPU_GTO, 0);
	step(&s, w, 4, g0, 2);
	step(&s, w, 4, g1, SCHED_NONE);	/* greedy, then the oldest */
	step(&s, w, 4, g0, 0);		/* after an idle cycle: oldest */
	sched_init(&s, GPU_GTO, 1);
	step(&s, w, 4, g0, 2);
	step(&s, w, 4, g1, SCHED_NONE);
	step(&s, w, 4, g1, 0);		/* sticky: still greedy */
}

/* The cases of Algorithm 5 with K1 (warps 0, 1, priority 1) and K2
 * (warps 2, 3, priority 2). */
static void
test_rtpaws_steps(void)
{
	static const struct sched_warp	k1[2] = { { 0, 1 }, { 1, 1 } };
	static const struct sched_warp	w[4] = {
		{ 0, 1 }, { 1, 1 }, { 2, 2 }, { 3, 2 }
	};
	static const struct sched_warp	x[3] = { { 0, 1 }, { 1, 2 }, { 2, 3 } };
	static const uint32_t	gto1[] = { 0, 1 };
	static const uint32_t	a[] = { 0, 1, 2, 3 }, b[] = { 2, 3, 0, 1 };
	static const uint32_t	c[] = { 3, 2, 0, 1 };
	struct sched		s;
	uint32_t		q[3];

	sched_init(&s, GPU_RTPAWS, 0);
	step(&s, k1, 2, gto1, 0);	/* one group: GTO (lines 7-8) */
	step(&s, w, 4, a, 1);		/* line 16: K1 leads; head 0 stalls */
	step(&s, w, 4, b, 2);		/* K1's budget of 1 is spent: line 26
					 * puts K2 first */
	CHECK_EQ(s.swaps, 1);
	step(&s, w, 4, b, 3);		/* head 2 had issued: line 16 */
	step(&s, w, 4, c, 0);		/* head stalled, K2 issued: budget
					 * 2 -> 1, line 23 keeps 3 first */
	step(&s, w, 4, b, 2);		/* K1 issued: no decrement */
	step(&s, w, 4, b, 3);		/* head 2 issued */
	step(&s, w, 4, a, 0);		/* head stalled, K2 issued: 1 -> 0,
					 * K1 first again */
	CHECK_EQ(s.swaps, 2);
	CHECK(sched_sort(&s, x, 3, q) == -1);	/* line 10 */
}

static uint64_t	rng = 0x2545f4914f6cdd1dull;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/*
 * Random readiness, 8 warps, K1 (priority 1) and K2 (priority p).
 * Counts the decrements of Algorithm 5 from what the issue unit saw:
 * a group that leads must lose the lead after exactly its priority's
 * worth of cycles in which the head had stalled and one of its own
 * warps issued, and never issues a warp of the other group while one
 * of its own is ready.
 */
static void
test_rtpaws_invariants(void)
{
	struct sched_warp	w[8];
	struct sched		s;
	uint32_t		q[8], prevq[8] = { 0 }, p, i, cyc, pick, lead, plead;
	uint32_t		ready, events = 0, prevpick = SCHED_NONE;
	int			bad_lead = 0, bad_work = 0, bad_count = 0;

	for (p = 2; p <= 8; p += 3) {
		for (i = 0; i < 8; i++) {
			w[i].id = i;
			w[i].prio = i < 4 ? 1 : p;
		}
		sched_init(&s, GPU_RTPAWS, 0);
		plead = SCHED_NONE;
		events = 0;
		for (cyc = 0; cyc < 20000; cyc++) {
			CHECK(sched_sort(&s, w, 8, q) == 0);
			lead = w[q[0]].prio;
			/* Algorithm 5's decrement, seen from outside */
			if (cyc > 0 && plead == lead) {
				if (prevpick != SCHED_NONE &&
				    prevpick != prevq[0] &&
				    w[prevpick].prio == lead)
					events++;
			} else if (cyc > 0) {
				/* the lead changed: the old leader spent
				 * its whole budget (the triggering event
				 * happens in this cycle's sort) */
				if (prevpick != SCHED_NONE &&
				    prevpick != prevq[0] &&
				    w[prevpick].prio == plead)
					events++;
				if (events != plead)
					bad_count++;
				events = 0;
			}
			ready = rnd(256);
			pick = SCHED_NONE;
			for (i = 0; i < 8 && pick == SCHED_NONE; i++)
				if (ready >> q[i] & 1)
					pick = q[i];
			if (ready != 0 && pick == SCHED_NONE)
				bad_work++;
			/* a ready warp of the leading group always wins */
			for (i = 0; i < 8; i++)
				if ((ready >> i & 1) && w[i].prio == lead &&
				    pick != SCHED_NONE && w[pick].prio != lead)
					bad_lead++;
			sched_issued(&s, q, 8, pick, pick == SCHED_NONE ? 0 :
			    w[pick].prio);
			memcpy(prevq, q, sizeof(q));
			prevpick = pick;
			plead = lead;
		}
		CHECK(s.swaps > 100);
	}
	CHECK_EQ(bad_work, 0);
	CHECK_EQ(bad_lead, 0);
	CHECK_EQ(bad_count, 0);
}

static void
test_fig41(void)
{
	struct fig41_params	p;
	struct fig41_out	o[3];
	struct fig41_check	c;
	struct fig41_search	s;

	fig41_default(&p);
	CHECK(fig41_run(&p, o, NULL, NULL) == 0);
	fig41_check(&p, o, &c);
	CHECK(fig41_qualitative(&c));
	CHECK(c.lrr_long_together);
	CHECK(!c.exact);
	CHECK(o[GPU_LRR].average == 24.5);
	CHECK(o[GPU_GTO].average == 21.5);
	CHECK(o[GPU_RTPAWS].average == 22.5);
	CHECK_EQ(o[GPU_GTO].k1_finish, 16);
	CHECK_EQ(o[GPU_GTO].k2_finish, 28);
	CHECK_EQ(o[GPU_RTPAWS].k2_finish, 21);
	CHECK_EQ(o[GPU_RTPAWS].k1_finish, 25);
	/* a small search still finds it, and no exact assignment */
	CHECK(fig41_search(8, 2, &s) == 0);
	CHECK(s.qualitative >= 1);
	CHECK_EQ(s.exact_numbers, 0);
	CHECK(s.best_dist == 0.5);
}

/* RT-PAWS on the SM: K2, launched second, finishes first; not so
 * under GTO. */
static void
test_two_kernels(void)
{
	struct ptx_module	*m = malloc(sizeof(*m));
	struct gpu_launch	 l;
	struct gpu_trace	 t;
	struct gpu_cfg		 cfg;
	struct sm_kernel	 k[2];
	struct sm_opts		 o;
	struct sm_result	 r[2];
	char			 err[256];

	gcheck_example("stencil", m, &l, 128, &t);
	gpu_cfg_default(&cfg);
	memset(k, 0, sizeof(k));
	k[0].t = k[1].t = &t;
	k[0].warp_cap = k[1].warp_cap = 24;
	k[0].prio = 1;
	k[1].prio = 8;
	k[1].launch = 1;
	memset(&o, 0, sizeof(o));
	o.policy = GPU_GTO;
	CHECK(sm_run(&cfg, k, 2, &o, &r[0], err, sizeof(err)) == 0);
	o.policy = GPU_RTPAWS;
	CHECK(sm_run(&cfg, k, 2, &o, &r[1], err, sizeof(err)) == 0);
	CHECK(r[0].finish[1] > r[0].finish[0]);
	CHECK(r[1].finish[1] < r[1].finish[0]);
	CHECK(r[1].swaps > 0);
	gpu_trace_free(&t);
	ptx_free(m);
	free(m);
}

int
main(void)
{
	test_lrr_gto();
	test_rtpaws_steps();
	test_rtpaws_invariants();
	test_fig41();
	test_two_kernels();
	return gcheck_done("test_sched");
}
