/*
 * wexec.c - the kernel analyzer: the control-flow graph and its
 * post-dominators (where divergent lanes meet again), the static
 * instruction table the timing uses, and the per-warp executor of
 * [Reorder] Algorithm 2 with the address generation and coalescing of
 * Algorithm 3.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wexec.h"

#define WX_EXIT		UINT32_MAX	/* the pc after the kernel */
#define WX_UNDEF	UINT32_MAX
#define WX_MAX_DEPTH	256		/* nested divergence */

/* ---- control flow ---- */

struct wx_cfg {
	uint32_t	 nb;
	uint32_t	*bstart;	/* first instruction of each block */
	uint32_t	*bof;		/* block of each instruction */
	uint32_t	*succ;		/* two per block, WX_UNDEF if none */
	uint32_t	*rpc;		/* reconvergence pc per block */
};

static void
wx_cfg_free(struct wx_cfg *c)
{
	free(c->bstart);
	free(c->bof);
	free(c->succ);
	free(c->rpc);
	memset(c, 0, sizeof(*c));
}

static int
wx_ends_block(const struct ptx_insn *in)
{
	return in->op == PTX_BRA || in->op == PTX_RET || in->op == PTX_EXIT;
}

/* Basic blocks and their successors; node nb is the exit. */
static int
wx_blocks(const struct ptx_kernel *k, struct wx_cfg *c)
{
	const struct ptx_insn	*in;
	uint8_t			*leader;
	uint32_t		 i, b, n = k->ninsns;

	if ((leader = calloc(n + 1, 1)) == NULL)
		return -ENOMEM;
	leader[0] = 1;
	for (i = 0; i < n; i++) {
		in = &k->insns[i];
		if (in->op == PTX_BRA)
			leader[in->target] = 1;
		if (wx_ends_block(in))
			leader[i + 1] = 1;
	}
	c->nb = 0;
	for (i = 0; i < n; i++)
		c->nb += leader[i];
	c->bstart = malloc(c->nb * sizeof(*c->bstart));
	c->bof = malloc(n * sizeof(*c->bof));
	c->succ = malloc(2 * (size_t)c->nb * sizeof(*c->succ));
	c->rpc = malloc(c->nb * sizeof(*c->rpc));
	if (!c->bstart || !c->bof || !c->succ || !c->rpc) {
		free(leader);
		return -ENOMEM;
	}
	for (i = 0, b = 0; i < n; i++) {
		if (leader[i])
			c->bstart[b++] = i;
		c->bof[i] = b - 1;
	}
	free(leader);
	for (b = 0; b < c->nb; b++) {
		uint32_t	last = (b + 1 < c->nb ? c->bstart[b + 1] : n) - 1;
		uint32_t	fall = b + 1 < c->nb ? b + 1 : c->nb;

		in = &k->insns[last];
		c->succ[2 * b] = fall;
		c->succ[2 * b + 1] = WX_UNDEF;
		if (in->op == PTX_BRA) {
			c->succ[2 * b] = in->target < n ? c->bof[in->target] :
			    c->nb;
			if (in->guard != PTX_NO_REG)
				c->succ[2 * b + 1] = fall;
		} else if (in->op == PTX_RET || in->op == PTX_EXIT) {
			c->succ[2 * b] = c->nb;
			if (in->guard != PTX_NO_REG)
				c->succ[2 * b + 1] = fall;
		}
	}
	return 0;
}

static uint32_t
wx_intersect(const uint32_t *idom, const uint32_t *po, uint32_t a,
    uint32_t b)
{
	while (a != b) {
		while (po[a] < po[b])
			a = idom[a];
		while (po[b] < po[a])
			b = idom[b];
	}
	return a;
}

/*
 * Immediate post-dominators by the iterative dominator algorithm of
 * Cooper, Harvey and Kennedy on the reversed graph, from the exit.  A
 * block that cannot reach the exit reconverges only there.
 */
static int
wx_postdom(struct wx_cfg *c)
{
	uint32_t	 nn = c->nb + 1, *npred, *pred, *po, *rpo, *idom;
	uint32_t	*stk, *it, sp, i, j, v, s, cnt = 0, nf;
	uint8_t		*seen;
	int		 changed, rc = -ENOMEM;

	npred = calloc(nn + 1, sizeof(*npred));
	pred = malloc(2 * (size_t)c->nb * sizeof(*pred) + 1);
	po = malloc(nn * sizeof(*po));
	rpo = malloc(nn * sizeof(*rpo));
	idom = malloc(nn * sizeof(*idom));
	stk = malloc(nn * sizeof(*stk));
	it = malloc(nn * sizeof(*it));
	seen = calloc(nn, 1);
	if (!npred || !pred || !po || !rpo || !idom || !stk || !it || !seen)
		goto out;
	/* CFG predecessors in CSR form: the reversed graph's edges */
	for (v = 0; v < c->nb; v++)
		for (j = 0; j < 2; j++)
			if ((s = c->succ[2 * v + j]) != WX_UNDEF)
				npred[s + 1]++;
	for (v = 0; v < nn; v++)
		npred[v + 1] += npred[v];
	memcpy(it, npred, nn * sizeof(*it));
	for (v = 0; v < c->nb; v++)
		for (j = 0; j < 2; j++)
			if ((s = c->succ[2 * v + j]) != WX_UNDEF)
				pred[it[s]++] = v;
	/* postorder of a depth-first walk from the exit */
	for (v = 0; v < nn; v++)
		po[v] = WX_UNDEF;
	sp = 0;
	stk[sp] = c->nb;
	it[sp++] = npred[c->nb];
	seen[c->nb] = 1;
	while (sp > 0) {
		v = stk[sp - 1];
		if (it[sp - 1] < npred[v + 1]) {
			s = pred[it[sp - 1]++];
			if (!seen[s]) {
				seen[s] = 1;
				stk[sp] = s;
				it[sp++] = npred[s];
			}
			continue;
		}
		po[v] = cnt;
		rpo[cnt++] = v;
		sp--;
	}
	nf = cnt;
	for (v = 0; v < nn; v++)
		idom[v] = WX_UNDEF;
	idom[c->nb] = c->nb;
	do {
		changed = 0;
		for (i = nf; i-- > 0;) {
			uint32_t	nd = WX_UNDEF;

			v = rpo[i];
			if (v == c->nb)
				continue;
			for (j = 0; j < 2; j++) {
				s = c->succ[2 * v + j];
				if (s == WX_UNDEF || idom[s] == WX_UNDEF)
					continue;
				nd = nd == WX_UNDEF ? s :
				    wx_intersect(idom, po, s, nd);
			}
			if (nd != idom[v]) {
				idom[v] = nd;
				changed = 1;
			}
		}
	} while (changed);
	for (v = 0; v < c->nb; v++)
		c->rpc[v] = (idom[v] == WX_UNDEF || idom[v] == c->nb) ?
		    WX_EXIT : c->bstart[idom[v]];
	rc = 0;
out:
	free(npred);
	free(pred);
	free(po);
	free(rpo);
	free(idom);
	free(stk);
	free(it);
	free(seen);
	return rc;
}

/* ---- the static table ---- */

static uint8_t
wx_class(const struct ptx_insn *in)
{
	switch (in->op) {
	case PTX_LD:
		if (in->space == PTX_SP_PARAM)
			return GPU_PARAM;
		return in->space == PTX_SP_SHARED ? GPU_SHARED : GPU_GLD;
	case PTX_ST:
		return in->space == PTX_SP_SHARED ? GPU_SHARED : GPU_GST;
	case PTX_ATOM:
	case PTX_RED:
		return in->space == PTX_SP_SHARED ? GPU_SHARED : GPU_GATOM;
	case PTX_BRA:
		return GPU_BRANCH;
	case PTX_BAR:
		return GPU_BAR;
	case PTX_RET:
	case PTX_EXIT:
		return GPU_EXIT;
	case PTX_DIV:
	case PTX_REM:
	case PTX_SQRT:
	case PTX_RSQRT:
	case PTX_RCP:
	case PTX_EX2:
	case PTX_LG2:
	case PTX_SIN:
	case PTX_COS:
		return GPU_SFU;
	default:
		return GPU_ALU;
	}
}

static int
wx_is_dest(const struct ptx_insn *in, unsigned int i)
{
	if (i != 0)
		return 0;
	return in->op != PTX_ST && in->op != PTX_RED && in->op != PTX_BRA &&
	    in->op != PTX_BAR;
}

static void
wx_add_reg(uint16_t *list, uint8_t *n, unsigned int max, uint16_t r)
{
	unsigned int	i;

	for (i = 0; i < *n; i++)
		if (list[i] == r)
			return;
	if (*n < max)
		list[(*n)++] = r;
}

/* Register ids renumbered densely, so the simulator's scoreboards stay
 * small whatever the kernel declares. */
static int
wx_sinst(const struct ptx_kernel *k, struct gpu_trace *tr)
{
	const struct ptx_insn	*in;
	struct gpu_sinst	*s;
	uint16_t		*map, r;
	unsigned int		 i, j;

	if ((tr->sinst = calloc(k->ninsns, sizeof(*tr->sinst))) == NULL)
		return -ENOMEM;
	if ((map = malloc(k->nregs * sizeof(*map) + 1)) == NULL)
		return -ENOMEM;
	memset(map, 0xff, k->nregs * sizeof(*map));
	tr->nsinst = k->ninsns;
	tr->nregs = 0;
	for (i = 0; i < k->ninsns; i++) {
		in = &k->insns[i];
		s = &tr->sinst[i];
		s->cls = wx_class(in);
		s->line = in->line;
		for (j = 0; j < in->nops + 1u; j++) {
			const struct ptx_operand	*o;
			uint16_t			 regs[2];
			unsigned int			 n = 0, q;

			if (j == in->nops) {
				if (in->guard == PTX_NO_REG)
					break;
				regs[n++] = in->guard;
				o = NULL;
			} else {
				o = &in->o[j];
				if (o->reg != PTX_NO_REG)
					regs[n++] = o->reg;
				if (o->reg2 != PTX_NO_REG)
					regs[n++] = o->reg2;
			}
			for (q = 0; q < n; q++) {
				if (map[regs[q]] == 0xffff)
					map[regs[q]] = (uint16_t)tr->nregs++;
				r = map[regs[q]];
				if (o != NULL && o->kind == PTX_O_REG &&
				    wx_is_dest(in, j))
					wx_add_reg(s->wr, &s->nwr, GPU_MAX_WR, r);
				else
					wx_add_reg(s->rd, &s->nrd, GPU_MAX_RD, r);
			}
		}
	}
	free(map);
	return 0;
}

/* ---- values ---- */

struct wx {
	const struct ptx_kernel		*k;
	const struct gpu_launch		*l;
	struct gpu_trace		*tr;
	const struct wx_cfg		*cfg;
	uint64_t			*v;	/* nregs x 32 */
	uint32_t			*kn;	/* known lanes per register */
	uint8_t				 pbuf[8 * PTX_MAX_PARAMS + 8];
	uint32_t			 tid[GPU_WARP][3];
	uint32_t			 ctaid[3];
	uint32_t			 block, wib, alive;
	uint32_t			 line_size;
	uint32_t			 max_insns;
	char				*err;
	size_t				 errlen;
};

static int wx_error(struct wx *, const struct ptx_insn *, const char *, ...)
    __attribute__((format(printf, 3, 4)));

static int
wx_error(struct wx *w, const struct ptx_insn *in, const char *fmt, ...)
{
	va_list	ap;
	size_t	n;

	if (w->errlen == 0)
		return -EINVAL;
	snprintf(w->err, w->errlen, "line %u: ", in->line);
	n = strlen(w->err);
	va_start(ap, fmt);
	vsnprintf(w->err + n, w->errlen - n, fmt, ap);
	va_end(ap);
	n = strlen(w->err);
	snprintf(w->err + n, w->errlen - n, " (block %u, warp %u)", w->block,
	    w->wib);
	return -EINVAL;
}

static uint64_t
wx_mask(unsigned int size)
{
	return size >= 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;
}

/* Bits as a value of the type: truncated, then sign-extended for .s */
static uint64_t
wx_ext(uint64_t x, int type)
{
	unsigned int	size = PTX_T_SIZE(type);
	uint64_t	m = wx_mask(size);

	x &= m;
	if (PTX_T_KIND(type) == PTX_K_S && size < 8 &&
	    (x & (1ull << (8 * size - 1))))
		x |= ~m;
	return x;
}

static uint32_t
wx_sreg(const struct wx *w, unsigned int sr, unsigned int lane)
{
	if (sr < PTX_SR_NTID)
		return w->tid[lane][sr - PTX_SR_TID];
	if (sr < PTX_SR_CTAID)
		return w->l->block[sr - PTX_SR_NTID];
	if (sr < PTX_SR_NCTAID)
		return w->ctaid[sr - PTX_SR_CTAID];
	if (sr < PTX_SR_LANEID)
		return w->l->grid[sr - PTX_SR_NCTAID];
	if (sr == PTX_SR_LANEID)
		return lane;
	return GPU_WARP;
}

/* A source operand of a lane as the type; 1 if its value is known. */
static int
wx_src(const struct wx *w, const struct ptx_operand *o, int type,
    unsigned int lane, uint64_t *x)
{
	switch (o->kind) {
	case PTX_O_REG:
		*x = wx_ext(w->v[(size_t)o->reg * GPU_WARP + lane], type);
		if (o->neg)
			*x = !*x;
		return (w->kn[o->reg] >> lane) & 1;
	case PTX_O_IMM:
		*x = wx_ext((uint64_t)o->imm, type);
		return 1;
	case PTX_O_SREG:
		*x = wx_ext(wx_sreg(w, o->sreg, lane), type);
		return 1;
	case PTX_O_VAR:
		*x = wx_ext(w->k->vars[o->var].addr, type);
		return 1;
	default:
		*x = 0;
		return 0;
	}
}

static void
wx_dst(struct wx *w, uint16_t reg, unsigned int lane, uint64_t x, int known,
    int type)
{
	w->v[(size_t)reg * GPU_WARP + lane] = x & wx_mask(PTX_T_SIZE(type));
	if (known)
		w->kn[reg] |= 1u << lane;
	else
		w->kn[reg] &= ~(1u << lane);
}

static int
wx_fcmp(unsigned int cmp, uint64_t a, uint64_t b, int type)
{
	double	x, y;

	if (PTX_T_SIZE(type) == 4) {
		float	fa, fb;
		uint32_t ua = (uint32_t)a, ub = (uint32_t)b;

		memcpy(&fa, &ua, 4);
		memcpy(&fb, &ub, 4);
		x = fa;
		y = fb;
	} else {
		memcpy(&x, &a, 8);
		memcpy(&y, &b, 8);
	}
	if (x != x || y != y)
		return 0;	/* ordered comparisons fail on NaN */
	switch (cmp) {
	case PTX_EQ:
		return x == y;
	case PTX_NE:
		return x != y;
	case PTX_LT:
	case PTX_LO:
		return x < y;
	case PTX_LE:
	case PTX_LS:
		return x <= y;
	case PTX_GT:
	case PTX_HI:
		return x > y;
	default:
		return x >= y;
	}
}

static int
wx_icmp(unsigned int cmp, uint64_t a, uint64_t b, int type)
{
	int	sgn = PTX_T_KIND(type) == PTX_K_S;

	switch (cmp) {
	case PTX_EQ:
		return a == b;
	case PTX_NE:
		return a != b;
	case PTX_LT:
		return sgn ? (int64_t)a < (int64_t)b : a < b;
	case PTX_LE:
		return sgn ? (int64_t)a <= (int64_t)b : a <= b;
	case PTX_GT:
		return sgn ? (int64_t)a > (int64_t)b : a > b;
	case PTX_GE:
		return sgn ? (int64_t)a >= (int64_t)b : a >= b;
	case PTX_LO:
		return a < b;
	case PTX_LS:
		return a <= b;
	case PTX_HI:
		return a > b;
	default:
		return a >= b;
	}
}

static uint64_t
wx_mulhi(uint64_t a, uint64_t b, int type)
{
	unsigned int	bits = 8 * PTX_T_SIZE(type);

	if (bits < 64) {
		if (PTX_T_KIND(type) == PTX_K_S)
			return (uint64_t)(((int64_t)a * (int64_t)b) >> bits);
		return (a * b) >> bits;
	}
	if (PTX_T_KIND(type) == PTX_K_S)
		return (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

/* Integer a / b and a % b; 0 when the result is not defined. */
static int
wx_divrem(int op, uint64_t a, uint64_t b, int type, uint64_t *r)
{
	if (b == 0)
		return 0;
	if (PTX_T_KIND(type) == PTX_K_S) {
		int64_t	x = (int64_t)a, y = (int64_t)b;

		if (y == -1) {
			*r = op == PTX_DIV ? 0 - a : 0;
			return 1;
		}
		*r = (uint64_t)(op == PTX_DIV ? x / y : x % y);
		return 1;
	}
	a &= wx_mask(PTX_T_SIZE(type));
	b &= wx_mask(PTX_T_SIZE(type));
	*r = op == PTX_DIV ? a / b : a % b;
	return 1;
}

static uint64_t
wx_shift(int op, uint64_t a, uint64_t b, int type)
{
	unsigned int	bits = 8 * PTX_T_SIZE(type);

	b &= 0xffffffffu;	/* the shift amount is a .u32 */
	if (op == PTX_SHL)
		return b >= bits ? 0 : a << b;
	if (PTX_T_KIND(type) == PTX_K_S) {
		if (b >= bits)
			b = bits - 1;
		return (uint64_t)((int64_t)a >> b);
	}
	a &= wx_mask(PTX_T_SIZE(type));
	return b >= bits ? 0 : a >> b;
}

static unsigned int
wx_popc(uint64_t x)
{
	unsigned int	n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

/*
 * One lane of an arithmetic instruction.  Returns 1 with *r when the
 * result is known; floating-point arithmetic is never computed (data).
 */
static int
wx_alu(const struct wx *w, const struct ptx_insn *in, unsigned int lane,
    uint64_t *r)
{
	uint64_t	a = 0, b = 0, c = 0;
	int		t = in->type, ka, kb = 1, kc = 1, isf;
	unsigned int	bits = 8 * PTX_T_SIZE(t);

	isf = PTX_T_KIND(t) == PTX_K_F;
	if (in->op == PTX_CVT) {
		ka = wx_src(w, &in->o[1], in->type2, lane, &a);
		if (isf || PTX_T_KIND(in->type2) == PTX_K_F)
			return 0;
		*r = a;
		return ka;
	}
	if (in->op == PTX_SELP) {
		ka = wx_src(w, &in->o[3], PTX_T_PRED, lane, &c);
		if (!ka)
			return 0;
		return wx_src(w, &in->o[c ? 1 : 2], t, lane, r);
	}
	ka = wx_src(w, &in->o[1], t, lane, &a);
	if (in->nops > 2)
		kb = wx_src(w, &in->o[2], t, lane, &b);
	if (in->nops > 3)
		kc = wx_src(w, &in->o[3], in->width == PTX_W_WIDE ?
		    (PTX_T_KIND(t) | (2 * PTX_T_SIZE(t))) : t, lane, &c);
	if (!ka || !kb || !kc)
		return 0;
	if (t == PTX_T_PRED) {
		switch (in->op) {
		case PTX_MOV:
			*r = a != 0;
			return 1;
		case PTX_NOT:
			*r = a == 0;
			return 1;
		case PTX_AND:
			*r = (a && b);
			return 1;
		case PTX_OR:
			*r = (a || b);
			return 1;
		case PTX_XOR:
			*r = (!a != !b);
			return 1;
		default:
			return 0;
		}
	}
	if (in->op == PTX_MOV || in->op == PTX_CVTA) {
		*r = a;
		return 1;
	}
	if (isf)
		return 0;
	switch (in->op) {
	case PTX_ADD:
		*r = a + b;
		return 1;
	case PTX_SUB:
		*r = a - b;
		return 1;
	case PTX_MUL:
	case PTX_MAD:
		if (in->width == PTX_W_HI)
			*r = wx_mulhi(a, b, t);
		else
			*r = a * b;	/* .lo, and .wide of extended values */
		if (in->op == PTX_MAD)
			*r += c;
		return 1;
	case PTX_DIV:
	case PTX_REM:
		return wx_divrem(in->op, a, b, t, r);
	case PTX_MIN:
	case PTX_MAX:
		if (PTX_T_KIND(t) == PTX_K_S)
			*r = ((int64_t)a < (int64_t)b) == (in->op == PTX_MIN) ?
			    a : b;
		else
			*r = (a < b) == (in->op == PTX_MIN) ? a : b;
		return 1;
	case PTX_ABS:
		*r = (int64_t)a < 0 ? 0 - a : a;
		return 1;
	case PTX_NEG:
		*r = 0 - a;
		return 1;
	case PTX_AND:
		*r = a & b;
		return 1;
	case PTX_OR:
		*r = a | b;
		return 1;
	case PTX_XOR:
		*r = a ^ b;
		return 1;
	case PTX_NOT:
		*r = ~a;
		return 1;
	case PTX_CNOT:
		*r = (a & wx_mask(PTX_T_SIZE(t))) == 0;
		return 1;
	case PTX_SHL:
	case PTX_SHR:
		*r = wx_shift(in->op, a, b, t);
		return 1;
	case PTX_POPC:
		*r = wx_popc(a & wx_mask(PTX_T_SIZE(t)));
		return 1;
	case PTX_CLZ:
		a &= wx_mask(PTX_T_SIZE(t));
		*r = 0;
		while (*r < bits && !(a & (1ull << (bits - 1 - *r))))
			(*r)++;
		return 1;
	default:
		return 0;
	}
}

/* The type a result is written as. */
static int
wx_dtype(const struct ptx_insn *in)
{
	if ((in->op == PTX_MUL || in->op == PTX_MAD) &&
	    in->width == PTX_W_WIDE)
		return PTX_T_KIND(in->type) | (2 * PTX_T_SIZE(in->type));
	if (in->op == PTX_SETP)
		return PTX_T_PRED;
	if (in->op == PTX_POPC || in->op == PTX_CLZ)
		return PTX_K_U | 4;
	return in->type;
}

static void
wx_setp(struct wx *w, const struct ptx_insn *in, unsigned int lane,
    int guard_known)
{
	uint64_t	a, b, c = 0;
	int		known, res, t = in->type;

	known = wx_src(w, &in->o[1], t, lane, &a);
	known &= wx_src(w, &in->o[2], t, lane, &b);
	if (in->boolop != PTX_BNONE)
		known &= wx_src(w, &in->o[3], PTX_T_PRED, lane, &c);
	known &= guard_known;
	res = PTX_T_KIND(t) == PTX_K_F ? wx_fcmp(in->cmp, a, b, t) :
	    wx_icmp(in->cmp, a, b, t);
	/* p = cmp BOOL c, q = !cmp BOOL c */
	switch (in->boolop) {
	case PTX_BAND:
		wx_dst(w, in->o[0].reg, lane, res && c, known, PTX_T_PRED);
		res = !res && c;
		break;
	case PTX_BOR:
		wx_dst(w, in->o[0].reg, lane, res || c, known, PTX_T_PRED);
		res = !res || c;
		break;
	case PTX_BXOR:
		wx_dst(w, in->o[0].reg, lane, !res != !c, known, PTX_T_PRED);
		res = !!res == !!c;
		break;
	default:
		wx_dst(w, in->o[0].reg, lane, res, known, PTX_T_PRED);
		res = !res;
	}
	if (in->o[0].reg2 != PTX_NO_REG)
		wx_dst(w, in->o[0].reg2, lane, res, known, PTX_T_PRED);
}

/* ld.param: the launch's parameter buffer. */
static int
wx_ldparam(struct wx *w, const struct ptx_insn *in, uint32_t exec,
    uint32_t unk)
{
	const struct ptx_param	*p = &w->k->params[in->o[1].var];
	unsigned int		 size = PTX_T_SIZE(in->type), lane, i;
	int64_t			 off = (int64_t)p->offset + in->o[1].imm;
	uint64_t		 x = 0;

	if (off < 0 || off + size > w->k->param_bytes ||
	    in->o[1].imm < 0 || (uint64_t)in->o[1].imm + size > p->size)
		return wx_error(w, in, "ld.param outside parameter '%s'",
		    p->name);
	for (i = 0; i < size; i++)
		x |= (uint64_t)w->pbuf[off + i] << (8 * i);
	for (lane = 0; lane < GPU_WARP; lane++)
		if ((exec | unk) >> lane & 1)
			wx_dst(w, in->o[0].reg, lane, x, exec >> lane & 1,
			    in->type);
	return 0;
}

/*
 * The coalesced line requests of a global access ([Reorder] Algorithm
 * 3): each executing lane's line, appended unless a lane before it used
 * the same line.
 */
static int
wx_lines(struct wx *w, const struct ptx_insn *in, uint32_t exec,
    uint64_t *lines, unsigned int *n)
{
	const struct ptx_operand	*a;
	unsigned int			 lane, size, i, j;
	uint64_t			 base, addr, ln[2];

	a = &in->o[in->op == PTX_LD || in->op == PTX_ATOM ? 1 : 0];
	size = PTX_T_SIZE(in->type);
	*n = 0;
	for (lane = 0; lane < GPU_WARP; lane++) {
		if (!(exec >> lane & 1))
			continue;
		base = 0;
		if (a->reg != PTX_NO_REG) {
			base = w->v[(size_t)a->reg * GPU_WARP + lane];
			if (!(w->kn[a->reg] >> lane & 1))
				return wx_error(w, in, "the global address "
				    "depends on a value the analyzer does not "
				    "know (loaded from memory or computed in "
				    "floating point), lane %u", lane);
		}
		addr = base + (uint64_t)a->imm;
		if (addr % size != 0)
			return wx_error(w, in, "misaligned %u-byte global "
			    "access at 0x%llx, lane %u", size,
			    (unsigned long long)addr, lane);
		ln[0] = addr & ~(uint64_t)(w->line_size - 1);
		ln[1] = (addr + size - 1) & ~(uint64_t)(w->line_size - 1);
		for (j = 0; j < (ln[1] != ln[0] ? 2u : 1u); j++) {
			for (i = 0; i < *n && lines[i] != ln[j]; i++)
				;
			if (i == *n)
				lines[(*n)++] = ln[j];
		}
	}
	return 0;
}

/* Lanes whose guard holds, and those whose guard is unknown. */
static void
wx_guard(const struct wx *w, const struct ptx_insn *in, uint32_t mask,
    uint32_t *exec, uint32_t *unk)
{
	uint32_t	kn, lane, t = 0;

	if (in->guard == PTX_NO_REG) {
		*exec = mask;
		*unk = 0;
		return;
	}
	kn = w->kn[in->guard];
	for (lane = 0; lane < GPU_WARP; lane++)
		if ((w->v[(size_t)in->guard * GPU_WARP + lane] != 0) !=
		    in->guard_neg)
			t |= 1u << lane;
	*exec = mask & kn & t;
	*unk = mask & ~kn;
}

/* One instruction's effect on the registers; lines for global ones. */
static int
wx_effect(struct wx *w, const struct ptx_insn *in, uint32_t exec,
    uint32_t unk, uint64_t *lines, unsigned int *nlines)
{
	unsigned int	lane;
	uint64_t	r;
	int		known, dt = wx_dtype(in), rc;

	*nlines = 0;
	switch (in->op) {
	case PTX_BRA:
	case PTX_BAR:
	case PTX_MEMBAR:
	case PTX_RET:
	case PTX_EXIT:
		return 0;
	case PTX_SETP:
		for (lane = 0; lane < GPU_WARP; lane++)
			if ((exec | unk) >> lane & 1)
				wx_setp(w, in, lane, exec >> lane & 1);
		return 0;
	case PTX_LD:
		if (in->space == PTX_SP_PARAM)
			return wx_ldparam(w, in, exec, unk);
		break;
	default:
		break;
	}
	if ((in->op == PTX_LD || in->op == PTX_ST || in->op == PTX_ATOM ||
	    in->op == PTX_RED) && in->space == PTX_SP_GLOBAL) {
		if (unk != 0)
			return wx_error(w, in, "whether the global access "
			    "happens depends on a value the analyzer does not "
			    "know");
		if ((rc = wx_lines(w, in, exec, lines, nlines)) != 0)
			return rc;
	}
	if (in->op == PTX_ST || in->op == PTX_RED)
		return 0;
	for (lane = 0; lane < GPU_WARP; lane++) {
		if (!((exec | unk) >> lane & 1))
			continue;
		if (in->op == PTX_LD || in->op == PTX_ATOM)
			known = 0;	/* data from memory */
		else
			known = wx_alu(w, in, lane, &r);
		if (!(exec >> lane & 1))
			known = 0;
		wx_dst(w, in->o[0].reg, lane, known ? r : 0, known, dt);
	}
	return 0;
}

/* ---- warps ---- */

struct wx_ent {
	uint32_t	pc, rpc, mask;
};

static int
wx_branch(struct wx *w, const struct ptx_insn *in, struct wx_ent *st,
    unsigned int *sp, uint32_t exec, uint32_t unk)
{
	struct wx_ent	*e = &st[*sp - 1];
	uint32_t	 taken = exec, nt = e->mask & ~exec, pc = e->pc, r;

	if (unk != 0)
		return wx_error(w, in, "the branch depends on a value the "
		    "analyzer does not know");
	if (nt == 0) {
		e->pc = in->target;
		return 0;
	}
	if (taken == 0) {
		e->pc = pc + 1;
		return 0;
	}
	if (*sp + 2 > WX_MAX_DEPTH)
		return wx_error(w, in, "divergence nested deeper than %d",
		    WX_MAX_DEPTH);
	/* both sides run, the fall-through first, and meet at r */
	r = w->cfg->rpc[w->cfg->bof[pc]];
	e->pc = r;
	st[*sp].pc = in->target;
	st[*sp].rpc = r;
	st[*sp].mask = taken;
	st[*sp + 1].pc = pc + 1;
	st[*sp + 1].rpc = r;
	st[*sp + 1].mask = nt;
	*sp += 2;
	return 0;
}

/* Execute one instruction at the top of the SIMT stack. */
static int
wx_step(struct wx *w, struct wx_ent *st, unsigned int *sp)
{
	const struct ptx_insn	*in;
	struct wx_ent		*e = &st[*sp - 1];
	uint64_t		 lines[2 * GPU_WARP];
	unsigned int		 nlines;
	uint32_t		 exec, unk;
	int			 rc;

	in = &w->k->insns[e->pc];
	wx_guard(w, in, e->mask, &exec, &unk);
	if ((rc = wx_effect(w, in, exec, unk, lines, &nlines)) != 0)
		return rc;
	rc = gpu_trace_add(w->tr, e->pc, (uint16_t)wx_popc(exec), lines,
	    nlines);
	if (rc != 0)
		return rc;
	switch (in->op) {
	case PTX_BRA:
		return wx_branch(w, in, st, sp, exec, unk);
	case PTX_RET:
	case PTX_EXIT:
		if (unk != 0)
			return wx_error(w, in, "whether the lanes exit depends "
			    "on a value the analyzer does not know");
		w->alive &= ~exec;
		break;
	case PTX_BAR:
		if (unk != 0 || exec != w->alive)
			return wx_error(w, in, "bar.sync in divergent code");
		break;
	default:
		break;
	}
	e->pc++;
	return 0;
}

static int
wx_warp(struct wx *w)
{
	struct wx_ent	 st[WX_MAX_DEPTH];
	struct wx_ent	*e;
	unsigned int	 sp = 1;
	uint32_t	 d0 = w->tr->nd;
	int		 rc;

	st[0].pc = 0;
	st[0].rpc = WX_EXIT;
	st[0].mask = w->alive;
	while (sp > 0) {
		e = &st[sp - 1];
		e->mask &= w->alive;
		if (e->mask == 0 || e->pc == e->rpc) {
			sp--;
			continue;
		}
		if (e->pc >= w->k->ninsns) {
			/* falling off the end of the kernel ends the lanes */
			w->alive &= ~e->mask;
			sp--;
			continue;
		}
		if (w->tr->nd - d0 >= w->max_insns)
			return wx_error(w, &w->k->insns[e->pc], "more than %u "
			    "instructions in one warp: is a loop's trip count "
			    "unbounded?", w->max_insns);
		if ((rc = wx_step(w, st, &sp)) != 0)
			return rc;
	}
	return 0;
}

/* Lanes of warp wib of a block, and their thread ids. */
static void
wx_lanes(struct wx *w, uint32_t b)
{
	const uint32_t	*bd = w->l->block, *gd = w->l->grid;
	uint32_t	 nthr = bd[0] * bd[1] * bd[2], lane, t;

	w->ctaid[0] = b % gd[0];
	w->ctaid[1] = (b / gd[0]) % gd[1];
	w->ctaid[2] = b / (gd[0] * gd[1]);
	w->alive = 0;
	for (lane = 0; lane < GPU_WARP; lane++) {
		t = w->wib * GPU_WARP + lane;
		w->tid[lane][0] = t % bd[0];
		w->tid[lane][1] = (t / bd[0]) % bd[1];
		w->tid[lane][2] = t / (bd[0] * bd[1]);
		if (t < nthr)
			w->alive |= 1u << lane;
	}
}

static int
wx_check_launch(const struct ptx_kernel *k, const struct gpu_launch *l,
    char *err, size_t errlen)
{
	uint64_t	nthr, nb;
	unsigned int	i;

	for (i = 0; i < 3; i++)
		if (l->grid[i] == 0 || l->block[i] == 0 ||
		    l->grid[i] > 65535 || l->block[i] > 1024) {
			snprintf(err, errlen, "grid dimensions must be 1..65535 "
			    "and block dimensions 1..1024");
			return -EINVAL;
		}
	nthr = (uint64_t)l->block[0] * l->block[1] * l->block[2];
	nb = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
	if (nthr > 1024) {
		snprintf(err, errlen, "more than 1024 threads in a block");
		return -EINVAL;
	}
	if (nb * ((nthr + GPU_WARP - 1) / GPU_WARP) > GPU_MAX_WARPS) {
		snprintf(err, errlen, "more than %u warps in the grid",
		    GPU_MAX_WARPS);
		return -EINVAL;
	}
	for (i = 0; i < k->nparams; i++)
		if (!l->have[i]) {
			snprintf(err, errlen, "parameter %u (%s) has no value",
			    i, k->params[i].name);
			return -EINVAL;
		}
	return 0;
}

void
wexec_launch_init(struct gpu_launch *l)
{
	memset(l, 0, sizeof(*l));
	l->grid[0] = l->grid[1] = l->grid[2] = 1;
	l->block[0] = l->block[1] = l->block[2] = 1;
}

int
wexec_default_params(const struct ptx_kernel *k, struct gpu_launch *l,
    char *err, size_t errlen)
{
	unsigned int	i, nptr = 0;

	for (i = 0; i < k->nparams; i++) {
		if (k->params[i].is_ptr && !l->have[i]) {
			l->param[i] = WEXEC_PTR_BASE + nptr * WEXEC_PTR_STRIDE;
			l->have[i] = 1;
		}
		if (k->params[i].is_ptr)
			nptr++;
	}
	for (i = 0; i < k->nparams; i++)
		if (!l->have[i]) {
			snprintf(err, errlen, "parameter %u (%s) needs a value "
			    "(--param %s=VALUE)", i, k->params[i].name,
			    k->params[i].name);
			return -EINVAL;
		}
	return 0;
}

static int
wx_run_warps(struct wx *w)
{
	const struct gpu_launch	*l = w->l;
	struct gpu_trace	*tr = w->tr;
	uint32_t		 b, i;
	int			 rc;

	for (b = 0; b < tr->nblocks; b++) {
		for (i = 0; i < tr->warps_per_block; i++) {
			struct gpu_warp	*gw = &tr->warps[b *
			    tr->warps_per_block + i];

			w->block = b;
			w->wib = i;
			memset(w->kn, 0, w->k->nregs * sizeof(*w->kn));
			wx_lanes(w, b);
			gw->block = b;
			gw->wib = i;
			gw->d0 = tr->nd;
			if ((rc = wx_warp(w)) != 0)
				return rc;
			gw->nd = tr->nd - gw->d0;
		}
	}
	(void)l;
	return 0;
}

int
wexec_run(const struct ptx_kernel *k, const struct gpu_launch *l,
    uint32_t line_size, struct gpu_trace *tr, char *err, size_t errlen)
{
	struct wx_cfg	cfg;
	struct wx	w;
	unsigned int	i, j;
	uint64_t	nthr;
	int		rc;

	memset(tr, 0, sizeof(*tr));
	memset(&cfg, 0, sizeof(cfg));
	memset(&w, 0, sizeof(w));
	if (errlen > 0)
		err[0] = '\0';
	if ((rc = wx_check_launch(k, l, err, errlen)) != 0)
		return rc;
	if (line_size == 0 || (line_size & (line_size - 1)) != 0) {
		snprintf(err, errlen, "line size must be a power of two");
		return -EINVAL;
	}
	w.k = k;
	w.l = l;
	w.tr = tr;
	w.cfg = &cfg;
	w.line_size = line_size;
	w.max_insns = l->max_insns ? l->max_insns : WEXEC_WARP_INSNS;
	w.err = err;
	w.errlen = errlen;
	for (i = 0; i < k->nparams; i++)
		for (j = 0; j < k->params[i].size && j < 8; j++)
			w.pbuf[k->params[i].offset + j] =
			    (uint8_t)(l->param[i] >> (8 * j));
	nthr = (uint64_t)l->block[0] * l->block[1] * l->block[2];
	tr->warps_per_block = (uint32_t)((nthr + GPU_WARP - 1) / GPU_WARP);
	tr->nblocks = l->grid[0] * l->grid[1] * l->grid[2];
	tr->nwarps = tr->nblocks * tr->warps_per_block;
	rc = -ENOMEM;
	tr->warps = calloc(tr->nwarps, sizeof(*tr->warps));
	w.v = malloc((size_t)k->nregs * GPU_WARP * sizeof(*w.v) + 8);
	w.kn = malloc((size_t)k->nregs * sizeof(*w.kn) + 4);
	if (tr->warps == NULL || w.v == NULL || w.kn == NULL)
		goto out;
	if ((rc = wx_blocks(k, &cfg)) != 0 || (rc = wx_postdom(&cfg)) != 0 ||
	    (rc = wx_sinst(k, tr)) != 0)
		goto out;
	memset(w.v, 0, (size_t)k->nregs * GPU_WARP * sizeof(*w.v));
	rc = wx_run_warps(&w);
	if (rc == -E2BIG)
		snprintf(err, errlen, "the trace is larger than %u "
		    "instructions or %u line requests", GPU_MAX_DYN,
		    GPU_MAX_LINES);
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	wx_cfg_free(&cfg);
	free(w.v);
	free(w.kn);
	if (rc != 0)
		gpu_trace_free(tr);
	return rc;
}
