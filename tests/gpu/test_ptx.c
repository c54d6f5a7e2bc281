/*
 * test_ptx.c - the PTX parser: the committed example kernels parse with
 * the expected parameters, registers, shared variables and instructions;
 * the kernel of [Reorder] section III-D parses; and every kind of input
 * outside the subset is refused with its line and the reason.
 */
#include "gcheck.h"

/* [Reorder] section III-D's example, with the header it leaves out. */
static const char paper_ptx[] =
    ".version 1.4\n"
    ".target sm_13\n"
    ".entry _example (\n"
    ".param .u64 __cudaparm_input_cuda\n"
    ")\n"
    "{\n"
    ".reg .u32 %r<29>;\n"
    ".reg .u64 %rd<33>;\n"
    ".reg .f32 %f<20>;\n"
    ".reg .pred %p<6>;\n"
    "$Lbegin :\n"
    "ld.param.u64 %rd5, [__cudaparm_input_cuda];\n"
    "cvt.s32.u32 %r3, %tid.x;\n"
    "mul.wide.s32 %rd3, %r3, 32;\n"
    "add.u64 %rd8, %rd5, %rd3;\n"
    "cvt.s32.u32 %r1, %ctaid.y;\n"
    "mov.s32 %r2, 0;\n"
    "setp.eq.s32 %p1, %r1, %r2;\n"
    "@!%p1 bra $L1;\n"
    "ld.global.f32 %f1, [%rd8+4];\n"
    "bra $L2;\n"
    "$L1 :\n"
    "st.global.f32 [%rd8+2048], %f2;\n"
    "$L2 :\n"
    "exit;\n"
    "$Lend :\n"
    "} // _example\n";

static void
test_examples(void)
{
	static const struct {
		const char	*name;
		unsigned int	 nparams, ninsns, nptr, shared;
	} ex[] = {
		{ "vecadd", 4, 22, 3, 0 },
		{ "transpose", 4, 27, 2, 0 },
		{ "stencil", 9, 72, 3, 0 },
		{ "pathfinder", 6, 126, 3, 1024 },
		{ "histogram", 3, 51, 2, 1024 },
	};
	struct ptx_module	*m = malloc(sizeof(*m));
	const struct ptx_kernel	*k;
	char			 rel[128], err[256], *buf;
	size_t			 len, i;
	unsigned int		 j, nptr;

	for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		snprintf(rel, sizeof(rel), "examples/kernels/%s.ptx",
		    ex[i].name);
		buf = gcheck_read(rel, &len);
		CHECK(ptx_parse(buf, len, m, err, sizeof(err)) == 0);
		free(buf);
		if (failures)
			continue;
		CHECK(m->nkernels == 1);
		CHECK(strcmp(m->target, "sm_75") == 0);
		k = ptx_kernel_find(m, ex[i].name);
		CHECK(k != NULL);
		if (k == NULL)
			continue;
		CHECK_EQ(k->nparams, ex[i].nparams);
		CHECK_EQ(k->ninsns, ex[i].ninsns);
		CHECK_EQ(k->shared_bytes, ex[i].shared);
		for (j = nptr = 0; j < k->nparams; j++)
			nptr += k->params[j].is_ptr;
		CHECK_EQ(nptr, ex[i].nptr);
		/* parameters by name and by index */
		CHECK(ptx_param_find(k, k->params[0].name) == 0);
		CHECK(ptx_param_find(k, "1") == 1);
		CHECK(ptx_param_find(k, "99") == -1);
		CHECK(ptx_param_find(k, "nonesuch") == -1);
		/* every branch has its target inside the kernel or at its end */
		for (j = 0; j < k->ninsns; j++)
			if (k->insns[j].op == PTX_BRA)
				CHECK(k->insns[j].target <= k->ninsns);
		ptx_free(m);
	}
	free(m);
}

static void
test_paper(void)
{
	struct ptx_module	*m = malloc(sizeof(*m));
	const struct ptx_kernel	*k;
	char			 err[256], name[32];

	CHECK(gcheck_parse(paper_ptx, m, err, sizeof(err)) == 0);
	if (failures) {
		fprintf(stderr, "%s\n", err);
		free(m);
		return;
	}
	k = &m->kernels[0];
	CHECK(strcmp(k->name, "_example") == 0);
	CHECK_EQ(k->nparams, 1);
	CHECK_EQ(k->params[0].is_ptr, 0);
	CHECK_EQ(k->ninsns, 12);
	CHECK_EQ(k->nlabels, 4);
	CHECK(strcmp(ptx_reg_name(k, k->insns[0].o[0].reg, name,
	    sizeof(name)), "%rd5") == 0);
	CHECK(k->insns[7].op == PTX_BRA && k->insns[7].guard_neg == 1);
	CHECK_EQ(k->insns[7].target, 10);
	CHECK_EQ(k->insns[8].o[1].imm, 4);
	ptx_free(m);
	free(m);
}

/* Wrap one body in a kernel. */
static void
refuse(const char *body, unsigned int line, const char *why)
{
	struct ptx_module	*m = malloc(sizeof(*m));
	char			 text[4096], err[256], want[32];

	snprintf(text, sizeof(text), ".version 9.0\n.target sm_75\n"
	    ".address_size 64\n.visible .entry k(\n.param .u64 k_p0,\n"
	    ".param .u32 k_p1\n)\n{\n.reg .pred %%p<3>;\n.reg .b32 "
	    "%%r<9>;\n.reg .b64 %%rd<9>;\n.reg .f32 %%f<4>;\n%s\nret;\n}\n",
	    body);
	err[0] = '\0';
	if (gcheck_parse(text, m, err, sizeof(err)) != -EINVAL) {
		fprintf(stderr, "FAIL: accepted: %s\n", body);
		failures++;
		ptx_free(m);
	}
	snprintf(want, sizeof(want), "line %u: ", line);
	if (strncmp(err, want, strlen(want)) != 0 || strstr(err, why) ==
	    NULL) {
		fprintf(stderr, "FAIL: '%s': got '%s', want '%s...%s'\n",
		    body, err, want, why);
		failures++;
	}
	free(m);
}

/* Input that is not a kernel the subset covers. */
static void
test_refused(void)
{
	struct ptx_module	*m = malloc(sizeof(*m));
	char			 err[256];

	/* the kernel body starts on line 13 */
	refuse("frob.u32 %r1, %r2;", 13, "unknown or unsupported instruction");
	refuse("ld.u32 %r1, [%rd1];", 13, "generic addressing");
	refuse("ld.local.u32 %r1, [%rd1];", 13, ".local memory");
	refuse("ld.const.u32 %r1, [%rd1];", 13, ".const memory");
	refuse("call foo;", 13, "device function calls");
	refuse("bra NOWHERE;", 13, "label 'NOWHERE' is not defined");
	refuse("add.s32 %r1, %q1, 1;", 13, "undeclared register");
	refuse("mov.u32 %r1, %clock;", 13, "special register '%clock'");
	refuse("mov.u32 %r1, %smid;", 13, "not known before");
	refuse("ld.global.v2.f32 {%f1, %f2}, [%rd1];", 13,
	    "vector accesses");
	refuse("bar.sync 0, 64;", 13, "thread count");
	refuse("bar.sync 1;", 13, "only barrier 0");
	refuse("add.s32 %r1, %r2;", 13, "takes 3 operands");
	refuse("add.s32 %p1, %r2, 1;", 13, "wrong register kind");
	refuse("setp.lt.s32 %r1, %r2, 1;", 13, "wrong register kind");
	refuse("add.s32 %r1, %r2, 0xzz;", 13, "bad number");
	refuse("add.cc.s32 %r1, %r2, 1;", 13, "carry arithmetic");
	refuse("add.sat.s32 %r1, %r2, 1;", 13, "saturating");
	refuse("mul.s32 %r1, %r2, 3;", 13, ".lo, .hi or .wide");
	refuse("setp.s32 %p1, %r2, 1;", 13, "comparison");
	refuse("setp.ltu.f32 %p1, %f1, %f2;", 13, "unknown or unsupported "
	    "modifier '.ltu'");
	refuse("ld.global.L1::no_allocate.u32 %r1, [%rd1];", 13,
	    "unsupported modifier '.L1::no_allocate'");
	refuse("mov.u64 %rd1, k_p0;", 13, "a parameter's address");
	refuse("ld.param.u32 %r1, [%rd1];", 13, "read by name");
	refuse("st.global.u32 [k_p0], %r1;", 13, "memory address");
	refuse("ld.global.u32 %r1, [%rd1+0x10000000000000];", 13,
	    "bad address offset");
	refuse("/* open", 13, "comment not closed");
	refuse("@%r1 bra L;", 13, "needs a predicate");
	refuse(".local .u32 x;", 13, ".local variables");
	refuse(".reg .b32 %r<3>;", 13, "declared twice");
	refuse("L: L: ret;", 13, "defined twice");
	refuse("vote.all.pred %p1, %p2;", 13, "warp votes");
	refuse("cvt.sat.s32.s64 %r1, %rd1;", 13, "saturating");
	refuse("cvta.global.u64 %rd1, %rd2;", 13, "generic addresses");
	refuse("\x01", 13, "unexpected byte 0x01");
	/* outside a kernel */
	CHECK(gcheck_parse("", m, err, sizeof(err)) == -EINVAL);
	CHECK(strcmp(err, "line 1: no .version: not PTX") == 0);
	CHECK(gcheck_parse(".target sm_75\n", m, err, sizeof(err)) ==
	    -EINVAL);
	CHECK(strstr(err, "must start with .version") != NULL);
	CHECK(gcheck_parse(".version 9.0\n.address_size 32\n", m, err,
	    sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "line 2: only .address_size 64") != NULL);
	CHECK(gcheck_parse(".version 9.0\n", m, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "no .entry kernel") != NULL);
	CHECK(gcheck_parse(".version 9.0\n.entry k(.param .align 8 .b8 "
	    "s[16])\n{\nret;\n}\n", m, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "by-value arrays") != NULL);
	CHECK(gcheck_parse(".version 9.0\n.entry k()\n{\nret;\n", m, err,
	    sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "not closed") != NULL);
	CHECK(ptx_parse("x\0y", 3, m, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "NUL byte") != NULL);
	/* accepted around a kernel: a .func body, module variables, .loc */
	CHECK(gcheck_parse(".version 9.0\n.target sm_75\n.global .align 4 "
	    ".b8 g[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n.func (.param .b32 r) "
	    "f(.param .b32 a)\n{\nret;\n}\n.file 1 \"k.cu\"\n.visible .entry "
	    "k()\n.maxntid 256, 1, 1\n{\n.loc 1 2 3\nret;\n}\n", m, err,
	    sizeof(err)) == 0);
	if (!failures)
		ptx_free(m);
	free(m);
}

int
main(void)
{
	test_examples();
	test_paper();
	test_refused();
	return gcheck_done("test_ptx");
}
