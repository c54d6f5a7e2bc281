/*
 * test_bound.c - the estimators against the SM model, on every example
 * kernel: over randomised runs (warp start skew, delays from other SMs,
 * runtime warp ids) under LRR, GTO and RT-PAWS, with and without the
 * reordering unit,
 *
 * - no run takes longer than the WCET bound that assumes every request
 *   misses, and no run with the reordering unit longer than the bound
 *   with the misses the static order gives;
 * - with the reordering unit, every run's L1 accesses and misses are
 *   exactly the miss-rate estimator's;
 *
 * and the same on a small cache with large skew and conflicts, where
 * misses, evictions and hits on lines still being filled abound.
 */
#include "gcheck.h"
#include "est.h"
#include "sm.h"
#include "wsched.h"

#define RUNS	8

static void
check_kernel(const char *name, const struct gpu_cfg *cfg, uint32_t runs)
{
	struct ptx_module	*m = malloc(sizeof(*m));
	struct gpu_launch	 l;
	struct gpu_trace	 t;
	struct gpu_est		 e;
	struct sm_kernel	 k;
	struct sm_opts		 o;
	struct sm_result	 r;
	char			 err[256];
	uint64_t		 max[2] = { 0, 0 };
	uint32_t		 i;
	int			 pol, ro;

	gcheck_example(name, m, &l, cfg->l1.line, &t);
	CHECK(gpu_estimate(&t, cfg, &e, err, sizeof(err)) == 0);
	if (e.wcet_mr > e.wcet_no_mr) {
		fprintf(stderr, "FAIL %s: bound with misses %llu above the "
		    "one without %llu\n", name, (unsigned long long)e.wcet_mr,
		    (unsigned long long)e.wcet_no_mr);
		failures++;
	}
	memset(&k, 0, sizeof(k));
	k.t = &t;
	k.prio = 1;
	k.warp_cap = cfg->max_warps;
	for (pol = 0; pol < GPU_NPOLICIES; pol++)
		for (ro = 0; ro < 2; ro++)
			for (i = 0; i < runs; i++) {
				memset(&o, 0, sizeof(o));
				o.policy = pol;
				o.reorder = ro;
				o.seed = 1000 * (uint64_t)pol + 100 * ro + i;
				o.shuffle = 1;
				CHECK(sm_run(cfg, &k, 1, &o, &r, err,
				    sizeof(err)) == 0);
				if (r.cycles > max[ro])
					max[ro] = r.cycles;
				if (ro) {
					CHECK_EQ(r.accesses, e.l1_accesses);
					CHECK_EQ(r.misses, e.l1_misses);
				}
			}
	if (max[0] > e.wcet_no_mr || max[1] > e.wcet_no_mr ||
	    max[1] > e.wcet_mr) {
		fprintf(stderr, "FAIL %s: simulated %llu / %llu (reordered) "
		    "above the bound %llu / %llu\n", name,
		    (unsigned long long)max[0], (unsigned long long)max[1],
		    (unsigned long long)e.wcet_no_mr,
		    (unsigned long long)e.wcet_mr);
		failures++;
	}
	/* a bound, not a guess in the dark: within 3x of what runs do */
	CHECK(e.wcet_mr < 3 * max[1]);
	gpu_trace_free(&t);
	ptx_free(m);
	free(m);
}

/*
 * One warp of transpose, every delay at its largest: nothing else
 * competes, so the run is the chain the bound follows (one load of 32
 * lines, each with its conflicts) and the bound is above it by its issue
 * terms and little more.
 */
static void
check_extreme(void)
{
	struct ptx_module	*m = malloc(sizeof(*m));
	struct gpu_launch	 l;
	struct gpu_trace	 t;
	struct gpu_est		 e;
	struct gpu_cfg		 cfg;
	struct sm_kernel	 k;
	struct sm_opts		 o;
	struct sm_result	 r;
	char			 err[256];
	int			 ro;

	gcheck_example("transpose", m, &l, 128, &t);
	gpu_trace_free(&t);
	l.grid[0] = l.grid[1] = 1;
	l.block[1] = 1;
	CHECK(wexec_run(&m->kernels[0], &l, 128, &t, err, sizeof(err)) == 0);
	gpu_cfg_default(&cfg);
	CHECK(gpu_estimate(&t, &cfg, &e, err, sizeof(err)) == 0);
	memset(&k, 0, sizeof(k));
	k.t = &t;
	k.prio = 1;
	k.warp_cap = cfg.max_warps;
	for (ro = 0; ro < 2; ro++) {
		memset(&o, 0, sizeof(o));
		o.reorder = ro;
		o.extreme = 1;
		CHECK(sm_run(&cfg, &k, 1, &o, &r, err, sizeof(err)) == 0);
		CHECK(r.cycles <= e.wcet_mr);
		/* the issue terms, and a segment waiting for an ALU
		 * result its successor did not need */
		CHECK(r.cycles + t.nd + (e.coal_max - 1) + 16 >= e.wcet_mr);
	}
	gpu_trace_free(&t);
	ptx_free(m);
	free(m);
}

int
main(void)
{
	struct gpu_cfg	cfg;
	unsigned int	i;

	gpu_cfg_default(&cfg);
	for (i = 0; i < GCHECK_NKERNELS; i++)
		check_kernel(gcheck_kernels[i], &cfg, RUNS);
	/* a small cache, few warps, much skew and contention */
	cfg.l1.size = 2048;
	cfg.l1.assoc = 2;
	cfg.max_warps = 16;
	cfg.skew = 300;
	cfg.n_conflict = 40;
	cfg.l1_hit = 40;
	check_kernel("stencil", &cfg, RUNS / 2);
	check_kernel("histogram", &cfg, RUNS / 2);
	cfg.l1.line = 32;
	check_kernel("transpose", &cfg, RUNS / 2);
	check_extreme();
	return gcheck_done("test_bound");
}
