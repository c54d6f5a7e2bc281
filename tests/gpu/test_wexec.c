/*
 * test_wexec.c - the kernel analyzer: the output [Reorder] section III-D
 * gives for its example, partial warps, 32-line accesses, divergent loops
 * that reconverge, what it refuses (addresses and branches that depend
 * on loaded data, loops without a bound, barriers in divergent code),
 * the segments of Eq. 1-2 and the reordering unit's order.
 */
#include "gcheck.h"
#include "est.h"
#include "order.h"

static const char paper_ptx[] =
    ".version 1.4\n.target sm_13\n"
    ".entry _example (\n.param .u64 __cudaparm_input_cuda\n)\n{\n"
    ".reg .u32 %r<29>;\n.reg .u64 %rd<33>;\n.reg .f32 %f<20>;\n"
    ".reg .pred %p<6>;\n"
    "ld.param.u64 %rd5, [__cudaparm_input_cuda];\n"
    "cvt.s32.u32 %r3, %tid.x;\nmul.wide.s32 %rd3, %r3, 32;\n"
    "add.u64 %rd8, %rd5, %rd3;\ncvt.s32.u32 %r1, %ctaid.y;\n"
    "mov.s32 %r2, 0;\nsetp.eq.s32 %p1, %r1, %r2;\n@!%p1 bra $L1;\n"
    "ld.global.f32 %f1, [%rd8+4];\nbra $L2;\n$L1 :\n"
    "st.global.f32 [%rd8+2048], %f2;\n$L2 :\nexit;\n}\n";

/* The global instructions of warp w: their lines, in order. */
static unsigned int
global_insns(const struct gpu_trace *t, uint32_t w, uint8_t cls,
    const struct gpu_dinst **out, unsigned int max)
{
	const struct gpu_warp	*gw = &t->warps[w];
	unsigned int		 i, n = 0;

	for (i = 0; i < gw->nd; i++) {
		const struct gpu_dinst	*d = &t->d[gw->d0 + i];

		if (t->sinst[d->sidx].cls == cls && n < max)
			out[n++] = d;
	}
	return n;
}

static void
analyze(const char *text, uint32_t gx, uint32_t gy, uint32_t bx,
    uint32_t by, const uint64_t *params, struct ptx_module *m,
    struct gpu_trace *t, int want, const char *why)
{
	struct gpu_launch	l;
	char			err[512];
	unsigned int		i;
	int			rc;

	if (gcheck_parse(text, m, err, sizeof(err)) != 0) {
		fprintf(stderr, "FAIL: parse: %s\n", err);
		failures++;
		return;
	}
	wexec_launch_init(&l);
	l.grid[0] = gx;
	l.grid[1] = gy;
	l.block[0] = bx;
	l.block[1] = by;
	l.max_insns = 10000;
	for (i = 0; i < m->kernels[0].nparams; i++) {
		l.param[i] = params[i];
		l.have[i] = 1;
	}
	rc = wexec_run(&m->kernels[0], &l, 128, t, err, sizeof(err));
	if (rc != want || (why != NULL && strstr(err, why) == NULL)) {
		fprintf(stderr, "FAIL: analysis returned %d '%s', want %d "
		    "'%s'\n", rc, err, want, why ? why : "");
		failures++;
	}
}

static void
test_paper(void)
{
	static const uint64_t	p0[1] = { 0 };
	static const uint64_t	ld[4] = { 0, 128, 256, 384 };
	static const uint64_t	st[4] = { 2048, 2176, 2304, 2432 };
	struct ptx_module	*m = malloc(sizeof(*m));
	const struct gpu_dinst	*d[4];
	struct gpu_trace	 t;
	struct gpu_order	 o;
	unsigned int		 w, i;

	analyze(paper_ptx, 1, 2, 16, 4, p0, m, &t, 0, NULL);
	if (failures)
		goto out;
	CHECK_EQ(t.nwarps, 4);
	CHECK_EQ(t.warps_per_block, 2);
	for (w = 0; w < 4; w++) {
		/* block 0 loads, block 1 stores, 4 lines each */
		CHECK_EQ(global_insns(&t, w, GPU_GLD, d, 4), w < 2);
		CHECK_EQ(global_insns(&t, w, GPU_GST, d + 1, 3), w >= 2);
		CHECK_EQ(d[w < 2 ? 0 : 1]->nlines, 4);
		for (i = 0; i < 4; i++)
			CHECK_EQ(t.lines[d[w < 2 ? 0 : 1]->line0 + i],
			    (w < 2 ? ld : st)[i]);
	}
	/* Fig. 7: B0W0, B0W1, then B1W0, B1W1 */
	CHECK(gpu_order_build(&t, 8, &o) == 0);
	CHECK_EQ(o.n, 16);
	for (i = 0; i < o.n; i++) {
		CHECK_EQ(o.r[i].warp, i / 4);
		CHECK_EQ(o.r[i].line, i % 4);
		CHECK_EQ(o.r[i].store, i >= 8);
	}
	gpu_order_free(&o);
	gpu_trace_free(&t);
	ptx_free(m);
out:
	free(m);
}

static void
test_examples(void)
{
	struct ptx_module	*m = malloc(sizeof(*m));
	const struct gpu_dinst	*d[64];
	struct gpu_launch	 l;
	struct gpu_trace	 t;
	char			 err[256];
	unsigned int		 i, n;

	/* vecadd, n = 100: the last warp has 4 lanes */
	gcheck_load("vecadd", m);
	wexec_launch_init(&l);
	l.grid[0] = 2;
	l.block[0] = 64;
	l.param[3] = 100;
	l.have[3] = 1;
	CHECK(wexec_default_params(&m->kernels[0], &l, err, sizeof(err)) == 0);
	CHECK_EQ(l.param[0], WEXEC_PTR_BASE);
	CHECK_EQ(l.param[2], WEXEC_PTR_BASE + 2 * WEXEC_PTR_STRIDE);
	CHECK(wexec_run(&m->kernels[0], &l, 128, &t, err, sizeof(err)) == 0);
	CHECK_EQ(t.nwarps, 4);
	n = global_insns(&t, 3, GPU_GLD, d, 4);
	CHECK_EQ(n, 2);
	for (i = 0; i < n; i++) {
		CHECK_EQ(d[i]->active, 4);
		CHECK_EQ(d[i]->nlines, 1);
	}
	CHECK_EQ(t.lines[d[1]->line0], WEXEC_PTR_BASE + 384);
	CHECK_EQ(global_insns(&t, 0, GPU_GLD, d, 4), 2);
	CHECK_EQ(d[0]->active, 32);
	gpu_trace_free(&t);
	ptx_free(m);

	/* transpose reads a column: 32 lines, one per row of in */
	gcheck_example("transpose", m, &l, 128, &t);
	CHECK_EQ(global_insns(&t, 0, GPU_GLD, d, 4), 1);
	CHECK_EQ(d[0]->nlines, 32);
	for (i = 0; i < 32; i++)
		CHECK_EQ(t.lines[d[0]->line0 + i], l.param[1] + i * 128 * 4);
	CHECK_EQ(global_insns(&t, 0, GPU_GST, d, 4), 1);
	CHECK_EQ(d[0]->nlines, 1);
	gpu_trace_free(&t);
	ptx_free(m);
	free(m);
}

/* The grid-stride loop of histogram leaves lanes at different times. */
static void
test_divergence(void)
{
	struct ptx_module	*m = malloc(sizeof(*m));
	const struct gpu_dinst	*d[64];
	struct gpu_launch	 l;
	struct gpu_trace	 t;
	char			 err[256];
	unsigned int		 n;

	gcheck_load("histogram", m);
	wexec_launch_init(&l);
	l.grid[0] = 2;
	l.block[0] = 64;
	l.param[2] = 1000;
	l.have[2] = 1;
	CHECK(wexec_default_params(&m->kernels[0], &l, err, sizeof(err)) == 0);
	CHECK(wexec_run(&m->kernels[0], &l, 128, &t, err, sizeof(err)) == 0);
	/* ids 0..31: i = id + 128 j < 1000 for j = 0..7, all lanes */
	n = global_insns(&t, 0, GPU_GLD, d, 64);
	CHECK_EQ(n, 8);
	CHECK_EQ(d[7]->active, 32);
	/* ids 96..127: the eighth pass has lanes 992..999 only */
	n = global_insns(&t, 3, GPU_GLD, d, 64);
	CHECK_EQ(n, 8);
	CHECK_EQ(d[7]->active, 8);
	/* and all lanes meet again: 4 passes of the bins loop, 32 lanes */
	n = global_insns(&t, 3, GPU_GATOM, d, 64);
	CHECK_EQ(n, 4);
	CHECK_EQ(d[3]->active, 32);
	gpu_trace_free(&t);
	ptx_free(m);
	free(m);
}

#define KHEAD ".version 9.0\n.target sm_75\n.address_size 64\n" \
	".visible .entry k(.param .u64 k_p0, .param .u32 k_p1)\n{\n" \
	".reg .pred %p<3>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<9>;\n" \
	"ld.param.u64 %rd1, [k_p0];\ncvta.to.global.u64 %rd2, %rd1;\n" \
	"mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\n" \
	"add.s64 %rd4, %rd2, %rd3;\n"

static void
test_refused(void)
{
	static const uint64_t	p[2] = { 0x10000, 3 };
	struct ptx_module	*m = malloc(sizeof(*m));
	struct gpu_trace	 t;

	/* a gather: the address comes from memory */
	analyze(KHEAD "ld.global.u32 %r2, [%rd4];\nmul.wide.u32 %rd5, %r2, 4;\n"
	    "add.s64 %rd6, %rd2, %rd5;\nld.global.u32 %r3, [%rd6];\nret;\n}\n",
	    1, 1, 32, 1, p, m, &t, -EINVAL,
	    "line 17: the global address depends on a value the analyzer "
	    "does not know");
	ptx_free(m);
	/* a branch on loaded data */
	analyze(KHEAD "ld.global.u32 %r2, [%rd4];\nsetp.eq.s32 %p1, %r2, 0;\n"
	    "@%p1 bra L;\nL:\nret;\n}\n", 1, 1, 32, 1, p, m, &t, -EINVAL,
	    "line 16: the branch depends on a value");
	ptx_free(m);
	/* a store guarded by loaded data */
	analyze(KHEAD "ld.global.u32 %r2, [%rd4];\nsetp.eq.s32 %p1, %r2, 0;\n"
	    "@%p1 st.global.u32 [%rd4], %r1;\nret;\n}\n", 1, 1, 32, 1, p, m,
	    &t, -EINVAL, "whether the global access happens");
	ptx_free(m);
	/* no bound */
	analyze(KHEAD "L:\nadd.s32 %r1, %r1, 1;\nbra L;\n}\n", 1, 1, 32, 1, p,
	    m, &t, -EINVAL, "is a loop's trip count unbounded");
	ptx_free(m);
	/* a barrier only some lanes reach */
	analyze(KHEAD "setp.lt.u32 %p1, %r1, 16;\n@%p1 bra L;\nbar.sync 0;\n"
	    "L:\nret;\n}\n", 1, 1, 32, 1, p, m, &t, -EINVAL,
	    "line 16: bar.sync in divergent code");
	ptx_free(m);
	/* misaligned */
	analyze(KHEAD "ld.global.u32 %r2, [%rd4+2];\nret;\n}\n", 1, 1, 32, 1,
	    p, m, &t, -EINVAL, "misaligned 4-byte global access");
	ptx_free(m);
	/* data-dependent shared addresses and guarded arithmetic are fine */
	analyze(KHEAD "ld.global.u32 %r2, [%rd4];\nsetp.eq.s32 %p1, %r2, 0;\n"
	    "@%p1 add.s32 %r3, %r3, 1;\nst.shared.u32 [%r2], %r3;\n"
	    "ld.global.u32 %r4, [%rd4+128];\nret;\n}\n", 1, 1, 32, 1, p, m, &t,
	    0, NULL);
	CHECK_EQ(t.nlines, 2);
	gpu_trace_free(&t);
	ptx_free(m);
	/* a loop bounded by the parameter: 3 passes */
	analyze(KHEAD "ld.param.u32 %r5, [k_p1];\nmov.u32 %r6, 0;\nL:\n"
	    "ld.global.u32 %r2, [%rd4];\nadd.s32 %r6, %r6, 1;\n"
	    "setp.lt.s32 %p1, %r6, %r5;\n@%p1 bra L;\nret;\n}\n", 1, 1, 32, 1,
	    p, m, &t, 0, NULL);
	CHECK_EQ(t.nlines, 3);
	gpu_trace_free(&t);
	ptx_free(m);
	free(m);
}

/* Segments: a new one at a register the current one writes, and after a
 * branch or a barrier. */
static void
test_segments(void)
{
	struct gpu_sinst	s[6];
	struct gpu_dinst	d[6];
	struct gpu_warp		w;
	struct gpu_trace	t;
	uint32_t		starts[6], scratch[4], n, i;

	memset(s, 0, sizeof(s));
	memset(d, 0, sizeof(d));
	/* 0: r0 = ..; 1: r1 = ..; 2: r2 = r0 (cut); 3: bra; 4: r3 = ..
	 * (cut: after a branch); 5: r0 = r3 (cut) */
	s[0].nwr = 1, s[0].wr[0] = 0;
	s[1].nwr = 1, s[1].wr[0] = 1;
	s[2].nwr = 1, s[2].wr[0] = 2, s[2].nrd = 1, s[2].rd[0] = 0;
	s[3].cls = GPU_BRANCH;
	s[4].nwr = 1, s[4].wr[0] = 3;
	s[5].nwr = 1, s[5].wr[0] = 0, s[5].nrd = 1, s[5].rd[0] = 3;
	for (i = 0; i < 6; i++)
		d[i].sidx = i;
	memset(&t, 0, sizeof(t));
	t.sinst = s;
	t.nsinst = 6;
	t.nregs = 4;
	t.d = d;
	t.nd = 6;
	t.warps = &w;
	t.nwarps = 1;
	w.d0 = 0;
	w.nd = 6;
	n = gpu_segments(&t, 0, starts, scratch);
	CHECK_EQ(n, 4);
	CHECK_EQ(starts[0], 0);
	CHECK_EQ(starts[1], 2);
	CHECK_EQ(starts[2], 4);
	CHECK_EQ(starts[3], 5);
}

/* The order keeps each warp's program order, barrier phases first. */
static void
test_order(void)
{
	struct ptx_module	*m = malloc(sizeof(*m));
	struct gpu_launch	 l;
	struct gpu_trace	 t;
	struct gpu_order	 o;
	uint32_t		*last, i;

	gcheck_example("pathfinder", m, &l, 128, &t);
	CHECK(gpu_order_build(&t, 2, &o) == 0);
	CHECK_EQ(o.nwaves, 2);
	CHECK_EQ(o.n, t.nlines);
	last = calloc(t.nwarps, sizeof(*last));
	for (i = 0; i < o.n; i++) {
		CHECK(o.r[i].dyn + 1 > last[o.r[i].warp]);
		last[o.r[i].warp] = o.r[i].dyn + 1;
		if (i > 0 && t.warps[o.r[i].warp].block / 2 ==
		    t.warps[o.r[i - 1].warp].block / 2)
			/* within a wave, warp 0 of each block leads a round */
			CHECK(o.r[i].warp >= o.r[i - 1].warp ||
			    t.warps[o.r[i].warp].wib == 0);
	}
	free(last);
	gpu_order_free(&o);
	gpu_trace_free(&t);
	ptx_free(m);
	free(m);
}

int
main(void)
{
	test_paper();
	test_examples();
	test_divergence();
	test_refused();
	test_segments();
	test_order();
	return gcheck_done("test_wexec");
}
