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
 * misses, evictions and hits on lines still being filled abound; on
 * runs with every delay at its largest; and on random programs (any
 * mix of classes, latencies, registers, barriers, early exits and
 * lines) under random model parameters.
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

/* ---- random traces: the bound against any program the model runs ---- */

static uint64_t	rs = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(uint32_t n)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)(rs % n);
}

#define RT_NS		48	/* static instructions */
#define RT_NREGS	6
#define RT_POOL		40	/* lines the accesses draw from */

/*
 * One program (classes, latencies, registers at random, barriers
 * included) run by every warp, each with its own lines, some warps
 * leaving early (exited warps count at barriers).
 */
static void
random_trace(struct gpu_trace *t, struct gpu_sinst *s)
{
	static const uint8_t	cls[] = {
		GPU_ALU, GPU_ALU, GPU_ALU, GPU_SFU, GPU_SHARED, GPU_PARAM,
		GPU_BRANCH, GPU_BAR, GPU_GLD, GPU_GLD, GPU_GLD, GPU_GST,
		GPU_GATOM
	};
	uint64_t	lines[8];
	uint32_t	i, j, w, n, nl;

	memset(t, 0, sizeof(*t));
	memset(s, 0, RT_NS * sizeof(*s));
	for (i = 0; i < RT_NS; i++) {
		s[i].cls = cls[rnd(sizeof(cls))];
		s[i].lat = rnd(4) == 0 ? 1 + rnd(60) : 0;
		s[i].nrd = (uint8_t)rnd(3);
		for (j = 0; j < s[i].nrd; j++)
			s[i].rd[j] = (uint16_t)rnd(RT_NREGS);
		if (s[i].cls != GPU_GST && s[i].cls != GPU_BAR &&
		    s[i].cls != GPU_BRANCH && rnd(5) != 0) {
			s[i].nwr = 1;
			s[i].wr[0] = (uint16_t)rnd(RT_NREGS);
		}
	}
	t->sinst = s;
	t->nsinst = RT_NS;
	t->nregs = RT_NREGS;
	t->nblocks = 1 + rnd(6);
	t->warps_per_block = 1 + rnd(4);
	t->nwarps = t->nblocks * t->warps_per_block;
	t->warps = calloc(t->nwarps, sizeof(*t->warps));
	for (w = 0; w < t->nwarps; w++) {
		t->warps[w].block = w / t->warps_per_block;
		t->warps[w].wib = w % t->warps_per_block;
		t->warps[w].d0 = t->nd;
		n = rnd(4) == 0 ? 1 + rnd(RT_NS) : RT_NS;
		for (i = 0; i < n; i++) {
			nl = GPU_IS_GLOBAL(s[i].cls) ? rnd(7) : 0;
			for (j = 0; j < nl; j++)
				lines[j] = 128 * (uint64_t)(rnd(RT_POOL) +
				    RT_POOL * j);
			CHECK(gpu_trace_add(t, i, 32, lines, nl) == 0);
		}
		t->warps[w].nd = n;
	}
}

/* Every policy, with and without the unit, two random runs and an
 * extreme one; returns how many went past the bounds. */
static int
random_runs(const struct gpu_trace *t, const struct gpu_cfg *cfg,
    const struct gpu_est *e, unsigned int n)
{
	struct sm_kernel	k;
	struct sm_opts		o;
	struct sm_result	r;
	char			err[256];
	unsigned int		run;
	int			pol, ro, bad = 0;

	memset(&k, 0, sizeof(k));
	k.t = t;
	k.prio = 1;
	k.warp_cap = cfg->max_warps;
	for (pol = 0; pol < GPU_NPOLICIES; pol++)
		for (ro = 0; ro < 2; ro++)
			for (run = 0; run < 3; run++) {
				memset(&o, 0, sizeof(o));
				o.policy = pol;
				o.reorder = ro;
				o.seed = n * 100 + run;
				o.shuffle = 1;
				o.extreme = run == 2;
				if (sm_run(cfg, &k, 1, &o, &r, err,
				    sizeof(err)) != 0) {
					fprintf(stderr, "trace %u: %s\n", n, err);
					bad++;
				} else if (r.cycles > e->wcet_no_mr ||
				    (ro && (r.cycles > e->wcet_mr ||
				    r.misses != e->l1_misses))) {
					fprintf(stderr, "trace %u, %s%s, run %u: "
					    "%llu cycles, bounds %llu / %llu\n",
					    n, gpu_policy_names[pol], ro ?
					    " reordered" : "", run,
					    (unsigned long long)r.cycles,
					    (unsigned long long)e->wcet_no_mr,
					    (unsigned long long)e->wcet_mr);
					bad++;
				}
			}
	return bad;
}

static void
check_random(unsigned int traces)
{
	struct gpu_sinst	s[RT_NS];
	struct gpu_trace	t;
	struct gpu_est		e;
	struct gpu_cfg		cfg;
	char			err[256];
	unsigned int		n;
	int			bad = 0;

	for (n = 0; n < traces && bad < 10; n++) {
		random_trace(&t, s);
		gpu_cfg_default(&cfg);
		cfg.l1.size = 1024;
		cfg.l1.assoc = 2;
		cfg.max_warps = 4 + rnd(8);
		cfg.max_blocks = 1 + rnd(3);
		cfg.skew = rnd(100);
		cfg.n_conflict = rnd(30);
		cfg.l1_hit = 1 + rnd(60);
		cfg.l_base = cfg.l1_hit + rnd(500);
		if (t.warps_per_block > cfg.max_warps)
			cfg.max_warps = t.warps_per_block;
		CHECK(gpu_estimate(&t, &cfg, &e, err, sizeof(err)) == 0);
		bad += random_runs(&t, &cfg, &e, n);
		free(t.warps);
		free(t.d);
		free(t.lines);
	}
	CHECK_EQ(bad, 0);
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
	/* GPU_RANDOM_TRACES=N for a longer hunt than make check's */
	check_random(getenv("GPU_RANDOM_TRACES") ?
	    (unsigned int)atoi(getenv("GPU_RANDOM_TRACES")) : 300);
	return gcheck_done("test_bound");
}
