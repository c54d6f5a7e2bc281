/*
 * fuzz_ptx.c - the PTX parser and the kernel analyzer on arbitrary bytes:
 * never crash; refusals name a line; what parses is consistent (register
 * ids declared, branch targets inside the kernel); what a small launch
 * of it analyzes into has an estimate, and the SM model never runs it
 * longer than that estimate's bound.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "est.h"
#include "ptx.h"
#include "sm.h"
#include "wexec.h"
#include "wsched.h"

static void
fuzz_consistent(const struct ptx_kernel *k)
{
	const struct ptx_insn	*in;
	unsigned int		 i, j;

	for (i = 0; i < k->ninsns; i++) {
		in = &k->insns[i];
		if (in->op >= PTX_NOPS || in->nops > PTX_MAX_OPS)
			abort();
		if (in->op == PTX_BRA && in->target > k->ninsns)
			abort();
		if (in->guard != PTX_NO_REG && in->guard >= k->nregs)
			abort();
		for (j = 0; j < in->nops; j++) {
			if (in->o[j].reg != PTX_NO_REG &&
			    in->o[j].reg >= k->nregs)
				abort();
			if (in->o[j].kind == PTX_O_VAR &&
			    in->o[j].var >= (int)k->nvars)
				abort();
		}
	}
}

/* A small launch: pointers get their regions, numbers 3 (or 1.0). */
static void
fuzz_launch(const struct ptx_kernel *k, struct gpu_launch *l)
{
	unsigned int	i;
	char		err[128];

	wexec_launch_init(l);
	l->grid[0] = 2;
	l->block[0] = 64;
	l->max_insns = 4000;
	for (i = 0; i < k->nparams; i++) {
		l->param[i] = PTX_T_KIND(k->params[i].type) == PTX_K_F ?
		    (PTX_T_SIZE(k->params[i].type) == 4 ? 0x3f800000u :
		    0x3ff0000000000000ull) : 3;
		l->have[i] = !k->params[i].is_ptr;
	}
	(void)wexec_default_params(k, l, err, sizeof(err));
}

static void
fuzz_model(const struct gpu_trace *t)
{
	struct gpu_cfg		c;
	struct gpu_est		e;
	struct sm_kernel	k;
	struct sm_opts		o;
	struct sm_result	r;
	char			err[256];

	gpu_cfg_default(&c);
	c.max_warps = 8;
	if (gpu_estimate(t, &c, &e, err, sizeof(err)) != 0)
		abort();
	if (e.wcet_mr > e.wcet_no_mr || t->nd > 3000)
		return;
	memset(&k, 0, sizeof(k));
	memset(&o, 0, sizeof(o));
	k.t = t;
	k.prio = 1;
	k.warp_cap = c.max_warps;
	o.policy = (int)(t->nd % GPU_NPOLICIES);
	o.reorder = (int)(t->nlines % 2);
	o.seed = t->nd;
	o.shuffle = 1;
	if (sm_run(&c, &k, 1, &o, &r, err, sizeof(err)) != 0)
		abort();
	if (r.cycles > e.wcet_no_mr || (o.reorder && (r.cycles > e.wcet_mr ||
	    r.misses != e.l1_misses)))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ptx_module	m;
	struct gpu_launch		l;
	struct gpu_trace		t;
	char				err[512];
	unsigned int			i;
	int				rc;

	if (size > (1u << 16))
		return 0;
	rc = ptx_parse((const char *)data, size, &m, err, sizeof(err));
	if (rc != 0) {
		if (rc != -EINVAL || strncmp(err, "line ", 5) != 0)
			abort();
		return 0;
	}
	for (i = 0; i < m.nkernels; i++)
		fuzz_consistent(&m.kernels[i]);
	fuzz_launch(&m.kernels[0], &l);
	rc = wexec_run(&m.kernels[0], &l, 128, &t, err, sizeof(err));
	if (rc == 0) {
		fuzz_model(&t);
		gpu_trace_free(&t);
	} else if (rc == -EINVAL && strncmp(err, "line ", 5) != 0 &&
	    strncmp(err, "parameter ", 10) != 0)
		abort();
	else if (rc != -EINVAL && rc != -E2BIG)
		abort();
	ptx_free(&m);
	return 0;
}
