/*
 * ptx.c - parse the PTX subset of ptx.h: a tokenizer over the buffer, the
 * module-level directives, kernel entries with their parameters,
 * register and shared declarations, labels and instructions.  Whatever
 * the subset does not cover is refused with the line and the reason.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtrace.h"
#include "ptx.h"

#define PTX_TOK_MAX	512		/* bytes of one token */

enum ptx_tk { TK_EOF, TK_WORD, TK_NUM, TK_PUNCT, TK_STR };

struct ptx_tok {
	int		 kind;
	const char	*s;
	size_t		 len;
	uint32_t	 line;
};

struct ptx_ps {
	const char		*buf, *end, *p;
	uint32_t		 line;
	struct ptx_tok		 tok;		/* current token */
	int			 have_tok;
	struct ptx_module	*m;
	struct ptx_kernel	*k;		/* the entry being parsed */
	char			*err;
	size_t			 errlen;
};

static int ptx_error(struct ptx_ps *, uint32_t, const char *, ...)
    __attribute__((format(printf, 3, 4)));

static int
ptx_error(struct ptx_ps *ps, uint32_t line, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	if (ps->errlen == 0)
		return -EINVAL;
	n = snprintf(ps->err, ps->errlen, "line %u: ", line);
	if (n >= 0 && (size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* ---- tokens ---- */

static int
ptx_word_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    c == '$' || c == '%' || c == '.';
}

static int
ptx_word_char(int c)
{
	return ptx_word_start(c) || (c >= '0' && c <= '9');
}

/* Skip blanks and comments; 0, or -EINVAL for an open comment. */
static int
ptx_skip(struct ptx_ps *ps)
{
	while (ps->p < ps->end) {
		if (*ps->p == '\n') {
			ps->line++;
			ps->p++;
		} else if (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' ||
		    *ps->p == '\f' || *ps->p == '\v') {
			ps->p++;
		} else if (ps->p + 1 < ps->end && ps->p[0] == '/' &&
		    ps->p[1] == '/') {
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
		} else if (ps->p + 1 < ps->end && ps->p[0] == '/' &&
		    ps->p[1] == '*') {
			uint32_t	start = ps->line;

			ps->p += 2;
			while (ps->p + 1 < ps->end &&
			    !(ps->p[0] == '*' && ps->p[1] == '/')) {
				if (*ps->p == '\n')
					ps->line++;
				ps->p++;
			}
			if (ps->p + 1 >= ps->end)
				return ptx_error(ps, start,
				    "comment not closed");
			ps->p += 2;
		} else
			break;
	}
	return 0;
}

static int
ptx_lex(struct ptx_ps *ps, struct ptx_tok *t)
{
	const char	*s;
	int		 rc;

	if ((rc = ptx_skip(ps)) != 0)
		return rc;
	t->line = ps->line;
	t->s = s = ps->p;
	if (s >= ps->end) {
		t->kind = TK_EOF;
		t->len = 0;
		return 0;
	}
	if (*s == '"') {
		ps->p++;
		while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\n')
			ps->p++;
		if (ps->p >= ps->end || *ps->p != '"')
			return ptx_error(ps, t->line, "string not closed");
		ps->p++;
		t->kind = TK_STR;
	} else if (ptx_word_start((unsigned char)*s)) {
		/* "::" belongs to words: .shared::cta, .L1::evict_last */
		while (ps->p < ps->end) {
			if (ptx_word_char((unsigned char)*ps->p))
				ps->p++;
			else if (ps->p + 2 < ps->end && ps->p[0] == ':' &&
			    ps->p[1] == ':' &&
			    ptx_word_char((unsigned char)ps->p[2]))
				ps->p += 2;
			else
				break;
		}
		t->kind = TK_WORD;
	} else if (*s >= '0' && *s <= '9') {
		while (ps->p < ps->end && ptx_word_char((unsigned char)*ps->p))
			ps->p++;
		t->kind = TK_NUM;
	} else if (strchr(",;:[](){}<>+-!@|=", *s) != NULL && *s != '\0') {
		ps->p++;
		t->kind = TK_PUNCT;
	} else {
		if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
			return ptx_error(ps, t->line, "unexpected '%c'", *s);
		return ptx_error(ps, t->line, "unexpected byte 0x%02x",
		    (unsigned char)*s);
	}
	t->len = (size_t)(ps->p - s);
	if (t->len > PTX_TOK_MAX)
		return ptx_error(ps, t->line, "token longer than %d bytes",
		    PTX_TOK_MAX);
	return 0;
}

static int
ptx_peek(struct ptx_ps *ps, struct ptx_tok **t)
{
	int	rc;

	if (!ps->have_tok) {
		if ((rc = ptx_lex(ps, &ps->tok)) != 0)
			return rc;
		ps->have_tok = 1;
	}
	*t = &ps->tok;
	return 0;
}

static int
ptx_next(struct ptx_ps *ps, struct ptx_tok *t)
{
	struct ptx_tok	*p;
	int		 rc;

	if ((rc = ptx_peek(ps, &p)) != 0)
		return rc;
	*t = *p;
	ps->have_tok = 0;
	return 0;
}

static int
ptx_is(const struct ptx_tok *t, const char *w)
{
	return t->kind != TK_EOF && t->len == strlen(w) &&
	    memcmp(t->s, w, t->len) == 0;
}

static int
ptx_eq(const char *s, size_t len, const char *w)
{
	return len == strlen(w) && memcmp(s, w, len) == 0;
}

/* Printable copy of a token for messages. */
static const char *
ptx_show(const struct ptx_tok *t, char *buf, size_t len)
{
	size_t	n, i;

	if (t->kind == TK_EOF)
		return "end of file";
	n = t->len < len - 1 ? t->len : len - 1;
	for (i = 0; i < n; i++)
		buf[i] = (t->s[i] >= 0x20 && t->s[i] < 0x7f) ? t->s[i] : '?';
	buf[n] = '\0';
	return buf;
}

static int
ptx_expect(struct ptx_ps *ps, const char *w)
{
	struct ptx_tok	t;
	char		b[64];
	int		rc;

	if ((rc = ptx_next(ps, &t)) != 0)
		return rc;
	if (!ptx_is(&t, w))
		return ptx_error(ps, t.line, "expected '%s', found '%s'", w,
		    ptx_show(&t, b, sizeof(b)));
	return 0;
}

/* Skip to the end of the statement (';'), or of a braced body. */
static int
ptx_skip_stmt(struct ptx_ps *ps, uint32_t line)
{
	struct ptx_tok	t, *pk;
	int		rc, depth = 0;

	for (;;) {
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
		if (t.kind == TK_EOF)
			return ptx_error(ps, line, "statement not finished");
		if (ptx_is(&t, "{"))
			depth++;
		else if (ptx_is(&t, "}")) {
			if (--depth > 0)
				continue;
			if (depth < 0)
				return ptx_error(ps, t.line, "unbalanced '}'");
			/* "= { 1, 2 };" ends with the ';' */
			if ((rc = ptx_peek(ps, &pk)) != 0)
				return rc;
			if (ptx_is(pk, ";"))
				(void)ptx_next(ps, &t);
			return 0;
		} else if (ptx_is(&t, ";") && depth == 0)
			return 0;
	}
}

/* Skip the rest of the line (.loc, .file take no ';'). */
static int
ptx_skip_line(struct ptx_ps *ps, uint32_t line)
{
	struct ptx_tok	*t;
	struct ptx_tok	 d;
	int		 rc;

	for (;;) {
		if ((rc = ptx_peek(ps, &t)) != 0)
			return rc;
		if (t->kind == TK_EOF || t->line != line)
			return 0;
		if ((rc = ptx_next(ps, &d)) != 0)
			return rc;
	}
}

static char *
ptx_strdup(const char *s, size_t len)
{
	char	*d;

	if ((d = malloc(len + 1)) == NULL)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

/* ---- numbers ---- */

static int
ptx_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * An integer literal (decimal, 0x hex, 0b binary, 0 octal, optional U)
 * or a float literal 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX, as 64 bits.
 * Returns 0, or -1 if it is not one.
 */
static int
ptx_number(const char *s, size_t len, uint64_t *v, int *is_float)
{
	uint64_t	x = 0;
	unsigned int	base = 10, i = 0, ndig = 0;
	int		d;

	*is_float = 0;
	if (len > 0 && (s[len - 1] == 'U' || s[len - 1] == 'u'))
		len--;
	if (len >= 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' ||
	    s[1] == 'd' || s[1] == 'D')) {
		if (len != ((s[1] == 'f' || s[1] == 'F') ? 10u : 18u))
			return -1;
		for (i = 2; i < len; i++) {
			if ((d = ptx_hexval((unsigned char)s[i])) < 0)
				return -1;
			x = x << 4 | (uint64_t)d;
		}
		*is_float = (s[1] == 'f' || s[1] == 'F') ? 4 : 8;
		*v = x;
		return 0;
	}
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (len >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		i = 2;
	} else if (len >= 2 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < len; i++, ndig++) {
		d = ptx_hexval((unsigned char)s[i]);
		if (d < 0 || (unsigned int)d >= base)
			return -1;
		if (x > (UINT64_MAX - (uint64_t)d) / base)
			return -1;
		x = x * base + (uint64_t)d;
	}
	if (ndig == 0 && base != 8)
		return -1;
	*v = x;
	return 0;
}

/* ---- types and modifiers ---- */

static int
ptx_type_of(const char *s, size_t len)
{
	static const struct {
		const char	*name;
		int		 type;
	} tt[] = {
		{ "b8", PTX_K_B | 1 }, { "b16", PTX_K_B | 2 },
		{ "b32", PTX_K_B | 4 }, { "b64", PTX_K_B | 8 },
		{ "u8", PTX_K_U | 1 }, { "u16", PTX_K_U | 2 },
		{ "u32", PTX_K_U | 4 }, { "u64", PTX_K_U | 8 },
		{ "s8", PTX_K_S | 1 }, { "s16", PTX_K_S | 2 },
		{ "s32", PTX_K_S | 4 }, { "s64", PTX_K_S | 8 },
		{ "f32", PTX_K_F | 4 }, { "f64", PTX_K_F | 8 },
		{ "pred", PTX_T_PRED },
	};
	size_t	i;

	for (i = 0; i < sizeof(tt) / sizeof(tt[0]); i++)
		if (ptx_eq(s, len, tt[i].name))
			return tt[i].type;
	return 0;
}

static const char *const ptx_opnames[PTX_NOPS] = {
	"add", "sub", "mul", "mad", "div", "rem", "min", "max", "abs", "neg",
	"and", "or", "xor", "not", "cnot", "shl", "shr", "selp", "setp",
	"mov", "cvt", "cvta", "fma", "sqrt", "rsqrt", "rcp", "ex2", "lg2",
	"sin", "cos", "popc", "clz", "ld", "st", "atom", "red", "bra", "bar",
	"membar", "ret", "exit"
};

const char *
ptx_op_name(unsigned int op)
{
	return op < PTX_NOPS ? ptx_opnames[op] : "?";
}

/* Opcodes refused with a reason rather than "unknown". */
static const struct {
	const char	*name;
	const char	*why;
} ptx_refused[] = {
	{ "call", "device function calls are not supported" },
	{ "tex", "texture fetches are not supported" },
	{ "tld4", "texture fetches are not supported" },
	{ "suld", "surface accesses are not supported" },
	{ "sust", "surface accesses are not supported" },
	{ "vote", "warp votes are not supported (their value depends on "
	    "data)" },
	{ "shfl", "warp shuffles are not supported" },
	{ "match", "warp match is not supported" },
	{ "activemask", "activemask is not supported" },
	{ "prmt", "prmt is not supported" },
	{ "bfe", "bit-field extract is not supported" },
	{ "bfi", "bit-field insert is not supported" },
	{ "brev", "bit reverse is not supported" },
	{ "mul24", "mul24 is not supported" },
	{ "mad24", "mad24 is not supported" },
	{ "addc", "carry arithmetic is not supported" },
	{ "subc", "carry arithmetic is not supported" },
	{ "madc", "carry arithmetic is not supported" },
	{ "slct", "slct is not supported" },
	{ "testp", "testp is not supported" },
	{ "copysign", "copysign is not supported" },
	{ "brx", "indirect branches are not supported" },
	{ "trap", "trap is not supported" },
	{ "prefetch", "prefetch is not supported" },
	{ "prefetchu", "prefetch is not supported" },
	{ "cp", "asynchronous copies are not supported" },
	{ "wmma", "tensor-core instructions are not supported" },
	{ "mma", "tensor-core instructions are not supported" },
	{ "ldmatrix", "tensor-core instructions are not supported" },
	{ "isspacep", "isspacep is not supported" },
	{ "nanosleep", "nanosleep is not supported" },
	{ "bar.arrive", "bar.arrive is not supported" },
};

/* What an instruction's modifiers said, before the per-op checks. */
struct ptx_mods {
	int	ntypes, types[2];
	int	space, has_space;
	int	cmp, has_cmp;
	int	boolop;
	int	aop, has_aop;
	int	width;
	int	uni, to, is_float_mod, sat;
	int	sync, arrive;
};

/* The index of s among names, or -1. */
static int
ptx_index(const char *const *names, size_t n, const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (ptx_eq(s, len, names[i]))
			return (int)i;
	return -1;
}

static int
ptx_cmp_of(const char *s, size_t len)
{
	static const char *const names[] = {
		"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"
	};

	return ptx_index(names, sizeof(names) / sizeof(names[0]), s, len);
}

static int
ptx_aop_of(const char *s, size_t len)
{
	static const char *const names[] = {
		"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch",
		"cas"
	};

	return ptx_index(names, sizeof(names) / sizeof(names[0]), s, len);
}

/* Modifiers with no effect on addresses, control flow or timing here. */
static int
ptx_ignored_mod(int op, const char *s, size_t len)
{
	static const char *const fl[] = {
		"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "ftz",
		"approx", "full"
	};
	static const char *const mem[] = {
		"ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile", "relaxed",
		"acquire", "release", "weak", "sys", "gpu", "cta", "nc"
	};
	static const char *const fence[] = {
		"cta", "gl", "sys", "sc", "acq_rel"
	};

	if (op == PTX_LD || op == PTX_ST || op == PTX_ATOM || op == PTX_RED)
		return ptx_index(mem, sizeof(mem) / sizeof(mem[0]), s,
		    len) >= 0;
	if (op == PTX_MEMBAR)
		return ptx_index(fence, sizeof(fence) / sizeof(fence[0]), s,
		    len) >= 0;
	if (op == PTX_BAR)
		return ptx_eq(s, len, "aligned");
	return ptx_index(fl, sizeof(fl) / sizeof(fl[0]), s, len) >= 0;
}

static int
ptx_space_of(const char *s, size_t len)
{
	if (ptx_eq(s, len, "global"))
		return PTX_SP_GLOBAL;
	if (ptx_eq(s, len, "shared") || ptx_eq(s, len, "shared::cta"))
		return PTX_SP_SHARED;
	if (ptx_eq(s, len, "param"))
		return PTX_SP_PARAM;
	return -1;
}

static int
ptx_parse_mods(struct ptx_ps *ps, uint32_t line, int op, const char *s,
    size_t len, struct ptx_mods *md, const char *opname)
{
	const char	*e = s + len, *q;
	int		 v;

	memset(md, 0, sizeof(*md));
	md->cmp = -1;
	md->aop = -1;
	while (s < e) {
		if (*s != '.')
			return ptx_error(ps, line, "bad modifiers in '%s'",
			    opname);
		s++;
		for (q = s; q < e && *q != '.'; q++)
			;
		/* "shared::cta" keeps its colons out of the tokenizer */
		len = (size_t)(q - s);
		if ((v = ptx_type_of(s, len)) != 0) {
			if (md->ntypes == 2)
				return ptx_error(ps, line, "'%s': too many "
				    "types", opname);
			md->types[md->ntypes++] = v;
		} else if ((op == PTX_LD || op == PTX_ST || op == PTX_ATOM ||
		    op == PTX_RED || op == PTX_CVTA) &&
		    (v = ptx_space_of(s, len)) >= 0) {
			md->space = v;
			md->has_space = 1;
		} else if ((op == PTX_LD || op == PTX_ST || op == PTX_ATOM ||
		    op == PTX_RED || op == PTX_CVTA) &&
		    (ptx_eq(s, len, "local") || ptx_eq(s, len, "const"))) {
			return ptx_error(ps, line, "'%s': .%.*s memory is not "
			    "supported", opname, (int)len, s);
		} else if (op == PTX_SETP && (v = ptx_cmp_of(s, len)) >= 0) {
			md->cmp = v;
			md->has_cmp = 1;
		} else if (op == PTX_SETP && ptx_eq(s, len, "and")) {
			md->boolop = PTX_BAND;
		} else if (op == PTX_SETP && ptx_eq(s, len, "or")) {
			md->boolop = PTX_BOR;
		} else if (op == PTX_SETP && ptx_eq(s, len, "xor")) {
			md->boolop = PTX_BXOR;
		} else if ((op == PTX_ATOM || op == PTX_RED) &&
		    (v = ptx_aop_of(s, len)) >= 0) {
			md->aop = v;
			md->has_aop = 1;
		} else if ((op == PTX_MUL || op == PTX_MAD) &&
		    (ptx_eq(s, len, "lo") || ptx_eq(s, len, "hi") ||
		    ptx_eq(s, len, "wide"))) {
			md->width = s[0] == 'l' ? PTX_W_LO :
			    s[0] == 'h' ? PTX_W_HI : PTX_W_WIDE;
		} else if (op == PTX_BRA && ptx_eq(s, len, "uni")) {
			md->uni = 1;
		} else if (op == PTX_CVTA && ptx_eq(s, len, "to")) {
			md->to = 1;
		} else if (op == PTX_BAR && ptx_eq(s, len, "sync")) {
			md->sync = 1;
		} else if (ptx_ignored_mod(op, s, len)) {
			md->is_float_mod = 1;
		} else if (ptx_eq(s, len, "sat")) {
			md->sat = 1;
		} else if (ptx_eq(s, len, "v2") || ptx_eq(s, len, "v4")) {
			return ptx_error(ps, line, "'%s': vector accesses are "
			    "not supported", opname);
		} else if (ptx_eq(s, len, "cc")) {
			return ptx_error(ps, line, "'%s': carry arithmetic is "
			    "not supported", opname);
		} else {
			return ptx_error(ps, line, "'%s': unknown or "
			    "unsupported modifier '.%.*s'", opname, (int)len,
			    s);
		}
		s = q;
	}
	return 0;
}

/* ---- registers, variables, labels ---- */

static int
ptx_reg_lookup(const struct ptx_kernel *k, const char *s, size_t len)
{
	const struct ptx_regdecl	*d;
	size_t				 plen = len;
	uint64_t			 n = 0;
	unsigned int			 i;

	for (i = 0; i < k->ndecls; i++) {
		d = &k->decls[i];
		if (d->count == 0 && ptx_eq(s, len, d->prefix))
			return (int)d->base;
	}
	while (plen > 0 && s[plen - 1] >= '0' && s[plen - 1] <= '9')
		plen--;
	if (plen == len || len - plen > 6)
		return -1;
	/* "%r01" is not "%r1" */
	if (len - plen > 1 && s[plen] == '0')
		return -1;
	for (i = plen; i < len; i++)
		n = n * 10 + (uint64_t)(s[i] - '0');
	for (i = 0; i < k->ndecls; i++) {
		d = &k->decls[i];
		if (d->count != 0 && n < d->count &&
		    ptx_eq(s, plen, d->prefix))
			return (int)(d->base + n);
	}
	return -1;
}

const char *
ptx_reg_name(const struct ptx_kernel *k, uint16_t reg, char *buf,
    size_t len)
{
	const struct ptx_regdecl	*d;
	unsigned int			 i;

	for (i = 0; i < k->ndecls; i++) {
		d = &k->decls[i];
		if (reg < d->base || reg >= d->base + (d->count ? d->count : 1))
			continue;
		if (d->count == 0)
			snprintf(buf, len, "%s", d->prefix);
		else
			snprintf(buf, len, "%s%u", d->prefix, reg - d->base);
		return buf;
	}
	snprintf(buf, len, "?%u", reg);
	return buf;
}

/* An entry of an array of structures that start with their name. */
static int
ptx_find(const void *base, unsigned int n, size_t stride, const char *s,
    size_t len)
{
	unsigned int	i;

	for (i = 0; i < n; i++)
		if (ptx_eq(s, len, *(char *const *)(const void *)
		    ((const char *)base + i * stride)))
			return (int)i;
	return -1;
}

static int
ptx_var_find(const struct ptx_kernel *k, const char *s, size_t len)
{
	return ptx_find(k->vars, k->nvars, sizeof(k->vars[0]), s, len);
}

static int
ptx_param_lookup(const struct ptx_kernel *k, const char *s, size_t len)
{
	return ptx_find(k->params, k->nparams, sizeof(k->params[0]), s, len);
}

static int
ptx_label_find(const struct ptx_kernel *k, const char *s, size_t len)
{
	return ptx_find(k->labels, k->nlabels, sizeof(k->labels[0]), s, len);
}

/* A name may be declared once: registers, variables, params, labels. */
static int
ptx_name_taken(const struct ptx_kernel *k, const char *s, size_t len)
{
	unsigned int	i;

	for (i = 0; i < k->ndecls; i++)
		if (ptx_eq(s, len, k->decls[i].prefix))
			return 1;
	return ptx_var_find(k, s, len) >= 0 ||
	    ptx_param_lookup(k, s, len) >= 0;
}

/* .reg .TYPE name, name<N>, ... ; */
static int
ptx_reg_decl(struct ptx_ps *ps, uint32_t line)
{
	struct ptx_kernel	*k = ps->k;
	struct ptx_regdecl	*d;
	struct ptx_tok		 t, *pk;
	uint64_t		 n;
	uint8_t			*rt;
	int			 type, isf, rc;
	char			 b[64];

	if ((rc = ptx_next(ps, &t)) != 0)
		return rc;
	if (t.kind != TK_WORD || t.s[0] != '.' ||
	    (type = ptx_type_of(t.s + 1, t.len - 1)) == 0)
		return ptx_error(ps, line, ".reg: unsupported type '%s'",
		    ptx_show(&t, b, sizeof(b)));
	for (;;) {
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
		if (t.kind != TK_WORD || t.s[0] == '.')
			return ptx_error(ps, line, ".reg: bad register name "
			    "'%s'", ptx_show(&t, b, sizeof(b)));
		if (ptx_name_taken(k, t.s, t.len))
			return ptx_error(ps, line, ".reg: '%s' declared twice",
			    ptx_show(&t, b, sizeof(b)));
		if ((rc = gpu_grow((void **)&k->decls, &k->decl_cap,
		    k->ndecls + 1, sizeof(*k->decls), 4096)) != 0)
			return rc == -ENOMEM ? rc :
			    ptx_error(ps, line, "too many .reg declarations");
		d = &k->decls[k->ndecls];
		memset(d, 0, sizeof(*d));
		d->type = (uint8_t)type;
		d->base = k->nregs;
		if ((d->prefix = ptx_strdup(t.s, t.len)) == NULL)
			return -ENOMEM;
		k->ndecls++;
		if ((rc = ptx_peek(ps, &pk)) != 0)
			return rc;
		if (ptx_is(pk, "<")) {
			if ((rc = ptx_next(ps, &t)) != 0 ||
			    (rc = ptx_next(ps, &t)) != 0)
				return rc;
			if (t.kind != TK_NUM || ptx_number(t.s, t.len, &n,
			    &isf) != 0 || isf || n == 0 || n > PTX_MAX_REGS)
				return ptx_error(ps, line, ".reg: bad count");
			d->count = (uint32_t)n;
			if ((rc = ptx_expect(ps, ">")) != 0)
				return rc;
		} else
			n = 1;
		if (k->nregs + n > PTX_MAX_REGS)
			return ptx_error(ps, line, "more than %u registers",
			    PTX_MAX_REGS);
		if ((rt = realloc(k->regtype, k->nregs + n)) == NULL)
			return -ENOMEM;
		k->regtype = rt;
		memset(k->regtype + k->nregs, type, n);
		k->nregs += (uint32_t)n;
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
		if (ptx_is(&t, ";"))
			return 0;
		if (!ptx_is(&t, ","))
			return ptx_error(ps, line, ".reg: expected ',' or ';'");
	}
}

/* Attributes before a variable: .align N and a type.  Returns the type. */
static int
ptx_var_attrs(struct ptx_ps *ps, uint32_t line, uint32_t *align, int *type,
    struct ptx_tok *name)
{
	struct ptx_tok	t;
	uint64_t	n;
	int		isf, rc, ty;
	char		b[64];

	*align = 0;
	*type = 0;
	for (;;) {
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
		if (ptx_is(&t, ".align")) {
			if ((rc = ptx_next(ps, &t)) != 0)
				return rc;
			if (t.kind != TK_NUM || ptx_number(t.s, t.len, &n,
			    &isf) != 0 || isf || n == 0 || n > 4096 ||
			    (n & (n - 1)) != 0)
				return ptx_error(ps, line, "bad .align");
			*align = (uint32_t)n;
		} else if (ptx_is(&t, ".ptr") || ptx_is(&t, ".global") ||
		    ptx_is(&t, ".const") || ptx_is(&t, ".local") ||
		    ptx_is(&t, ".shared")) {
			/* .param .u64 .ptr .global .align 4 name */
			continue;
		} else if (t.kind == TK_WORD && t.s[0] == '.' &&
		    (ty = ptx_type_of(t.s + 1, t.len - 1)) != 0) {
			if (ty == PTX_T_PRED)
				return ptx_error(ps, line, "a .pred variable");
			*type = ty;
		} else if (t.kind == TK_WORD && t.s[0] != '.') {
			*name = t;
			if (*type == 0)
				return ptx_error(ps, line, "'%s' has no type",
				    ptx_show(&t, b, sizeof(b)));
			return 0;
		} else
			return ptx_error(ps, line, "unexpected '%s' in a "
			    "declaration", ptx_show(&t, b, sizeof(b)));
	}
}

/* .shared .align A .TYPE name[N]; inside a kernel */
static int
ptx_shared_decl(struct ptx_ps *ps, uint32_t line)
{
	struct ptx_kernel	*k = ps->k;
	struct ptx_var		*v;
	struct ptx_tok		 name, t;
	uint32_t		 align;
	uint64_t		 n = 1, size, addr;
	int			 type, isf, rc;

	if ((rc = ptx_var_attrs(ps, line, &align, &type, &name)) != 0)
		return rc;
	if ((rc = ptx_next(ps, &t)) != 0)
		return rc;
	if (ptx_is(&t, "[")) {
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
		if (t.kind != TK_NUM || ptx_number(t.s, t.len, &n, &isf) != 0 ||
		    isf || n == 0 || n > (1u << 20))
			return ptx_error(ps, line, ".shared: bad array size");
		if ((rc = ptx_expect(ps, "]")) != 0 ||
		    (rc = ptx_next(ps, &t)) != 0)
			return rc;
	}
	if (!ptx_is(&t, ";"))
		return ptx_error(ps, line, ".shared: expected ';' (no "
		    "initializers)");
	if (k->nvars == PTX_MAX_VARS)
		return ptx_error(ps, line, "more than %d .shared variables",
		    PTX_MAX_VARS);
	if (ptx_name_taken(k, name.s, name.len))
		return ptx_error(ps, line, ".shared: name declared twice");
	if (align == 0)
		align = PTX_T_SIZE(type);
	size = n * PTX_T_SIZE(type);
	addr = (k->shared_bytes + align - 1) & ~(uint64_t)(align - 1);
	if (addr + size > (1u << 20))
		return ptx_error(ps, line, "more than 1 MiB of shared memory");
	v = &k->vars[k->nvars];
	if ((v->name = ptx_strdup(name.s, name.len)) == NULL)
		return -ENOMEM;
	v->size = (uint32_t)size;
	v->align = align;
	v->addr = (uint32_t)addr;
	k->shared_bytes = (uint32_t)(addr + size);
	k->nvars++;
	return 0;
}

/* ( .param .TYPE name, ... ) */
static int
ptx_params(struct ptx_ps *ps, uint32_t line)
{
	struct ptx_kernel	*k = ps->k;
	struct ptx_param	*p;
	struct ptx_tok		 t, name, *pk;
	uint32_t		 align;
	int			 type, rc;

	if ((rc = ptx_peek(ps, &pk)) != 0)
		return rc;
	if (!ptx_is(pk, "("))
		return 0;
	(void)ptx_next(ps, &t);
	if ((rc = ptx_peek(ps, &pk)) != 0)
		return rc;
	if (ptx_is(pk, ")")) {
		(void)ptx_next(ps, &t);
		return 0;
	}
	for (;;) {
		if ((rc = ptx_expect(ps, ".param")) != 0)
			return rc;
		if ((rc = ptx_var_attrs(ps, line, &align, &type, &name)) != 0)
			return rc;
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
		if (ptx_is(&t, "["))
			return ptx_error(ps, t.line, "parameter '%.*s': "
			    "by-value arrays and structures are not supported",
			    (int)name.len, name.s);
		if (k->nparams == PTX_MAX_PARAMS)
			return ptx_error(ps, t.line, "more than %d parameters",
			    PTX_MAX_PARAMS);
		if (ptx_name_taken(k, name.s, name.len))
			return ptx_error(ps, t.line, "parameter declared twice");
		if (align > 8)
			return ptx_error(ps, t.line, "parameter '%.*s': "
			    "alignment above 8 is not supported",
			    (int)name.len, name.s);
		p = &k->params[k->nparams];
		if ((p->name = ptx_strdup(name.s, name.len)) == NULL)
			return -ENOMEM;
		p->type = (uint8_t)type;
		p->size = PTX_T_SIZE(type);
		if (align < p->size)
			align = p->size;
		p->offset = (k->param_bytes + align - 1) & ~(align - 1);
		k->param_bytes = p->offset + p->size;
		k->nparams++;
		if (ptx_is(&t, ")"))
			return 0;
		if (!ptx_is(&t, ","))
			return ptx_error(ps, t.line, "expected ',' or ')' in "
			    "the parameters");
	}
}

/* ---- instructions ---- */

/* Special registers whose values only the running GPU knows. */
static const char *const ptx_sreg_refused[] = {
	"%clock", "%smid", "%nsmid", "%warpid", "%nwarpid", "%gridid",
	"%lanemask", "%pm", "%globaltimer", "%envreg", "%dynamic_smem_size",
	"%total_smem_size", "%aggr_smem_size", "%reserved_smem", "%cluster",
	"%is_explicit_cluster", "%nclusterid", "%ctarank", "%nctarank",
	"%current_graph_exec"
};

/* One operand, from the current token on. */
static int
ptx_operand(struct ptx_ps *ps, struct ptx_operand *o)
{
	struct ptx_kernel	*k = ps->k;
	struct ptx_tok		 t, *pk;
	uint64_t		 v;
	int			 isf, rc, r, neg = 0;
	char			 b[64];

	memset(o, 0, sizeof(*o));
	o->reg = o->reg2 = PTX_NO_REG;
	o->var = -1;
	if ((rc = ptx_next(ps, &t)) != 0)
		return rc;
	if (ptx_is(&t, "{"))
		return ptx_error(ps, t.line, "vector operands are not "
		    "supported");
	if (ptx_is(&t, "!")) {
		o->neg = 1;
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
	}
	if (ptx_is(&t, "-")) {
		neg = 1;
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
	}
	if (t.kind == TK_NUM) {
		if (ptx_number(t.s, t.len, &v, &isf) != 0 || (neg && isf) ||
		    o->neg)
			return ptx_error(ps, t.line, "bad number '%s'",
			    ptx_show(&t, b, sizeof(b)));
		o->kind = PTX_O_IMM;
		o->imm = neg ? -(int64_t)v : (int64_t)v;
		return 0;
	}
	if (neg)
		return ptx_error(ps, t.line, "'-' before '%s'",
		    ptx_show(&t, b, sizeof(b)));
	if (ptx_is(&t, "[")) {
		if (o->neg)
			return ptx_error(ps, t.line, "'!' before an address");
		o->kind = PTX_O_ADDR;
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
		if (t.kind == TK_NUM) {
			if (ptx_number(t.s, t.len, &v, &isf) != 0 || isf)
				return ptx_error(ps, t.line, "bad address");
			o->imm = (int64_t)v;
		} else if (t.kind == TK_WORD &&
		    (r = ptx_reg_lookup(k, t.s, t.len)) >= 0) {
			o->reg = (uint16_t)r;
		} else if (t.kind == TK_WORD &&
		    (r = ptx_param_lookup(k, t.s, t.len)) >= 0) {
			o->var = (int16_t)r;
			o->var_param = 1;
		} else if (t.kind == TK_WORD &&
		    (r = ptx_var_find(k, t.s, t.len)) >= 0) {
			o->var = (int16_t)r;
		} else
			return ptx_error(ps, t.line, "unknown name '%s' in an "
			    "address", ptx_show(&t, b, sizeof(b)));
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
		if (ptx_is(&t, "+") || ptx_is(&t, "-")) {
			neg = ptx_is(&t, "-");
			if ((rc = ptx_next(ps, &t)) != 0)
				return rc;
			if (!neg && ptx_is(&t, "-")) {
				neg = 1;
				if ((rc = ptx_next(ps, &t)) != 0)
					return rc;
			}
			if (t.kind != TK_NUM || ptx_number(t.s, t.len, &v,
			    &isf) != 0 || isf || v > (1ull << 40))
				return ptx_error(ps, t.line, "bad address "
				    "offset");
			o->imm += neg ? -(int64_t)v : (int64_t)v;
			if ((rc = ptx_next(ps, &t)) != 0)
				return rc;
		}
		if (!ptx_is(&t, "]"))
			return ptx_error(ps, t.line, "expected ']'");
		return 0;
	}
	if (t.kind != TK_WORD)
		return ptx_error(ps, t.line, "bad operand '%s'",
		    ptx_show(&t, b, sizeof(b)));
	if ((r = ptx_reg_lookup(k, t.s, t.len)) >= 0) {
		o->kind = PTX_O_REG;
		o->reg = (uint16_t)r;
		if ((rc = ptx_peek(ps, &pk)) != 0)
			return rc;
		if (ptx_is(pk, "|")) {
			(void)ptx_next(ps, &t);
			if ((rc = ptx_next(ps, &t)) != 0)
				return rc;
			if (t.kind != TK_WORD ||
			    (r = ptx_reg_lookup(k, t.s, t.len)) < 0)
				return ptx_error(ps, t.line, "bad register "
				    "after '|'");
			o->reg2 = (uint16_t)r;
		}
		return 0;
	}
	if (t.s[0] == '%') {
		static const char *const sr[] = {
			"%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y",
			"%ntid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
			"%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid",
			"WARP_SZ"
		};
		size_t	i;

		for (i = 0; i < sizeof(sr) / sizeof(sr[0]); i++)
			if (ptx_eq(t.s, t.len, sr[i])) {
				o->kind = PTX_O_SREG;
				o->sreg = (uint8_t)i;
				return 0;
			}
		for (i = 0; i < sizeof(ptx_sreg_refused) /
		    sizeof(ptx_sreg_refused[0]); i++)
			if (t.len >= strlen(ptx_sreg_refused[i]) &&
			    memcmp(t.s, ptx_sreg_refused[i],
			    strlen(ptx_sreg_refused[i])) == 0)
				return ptx_error(ps, t.line, "special register "
				    "'%s' is not supported (its value is not "
				    "known before the kernel runs)",
				    ptx_show(&t, b, sizeof(b)));
		return ptx_error(ps, t.line, "undeclared register or unknown "
		    "special register '%s'", ptx_show(&t, b, sizeof(b)));
	}
	if (ptx_param_lookup(k, t.s, t.len) >= 0)
		return ptx_error(ps, t.line, "'%s': a parameter's address is "
		    "not supported (read it with ld.param)",
		    ptx_show(&t, b, sizeof(b)));
	if (ptx_is(&t, "WARP_SZ")) {
		o->kind = PTX_O_SREG;
		o->sreg = PTX_SR_WARPSZ;
		return 0;
	}
	if ((r = ptx_var_find(k, t.s, t.len)) >= 0) {
		o->kind = PTX_O_VAR;
		o->var = (int16_t)r;
		return 0;
	}
	/* a label: resolved when the kernel ends */
	o->kind = PTX_O_LABEL;
	if ((r = ptx_label_find(k, t.s, t.len)) < 0) {
		if ((rc = gpu_grow((void **)&k->labels, &k->label_cap,
		    k->nlabels + 1, sizeof(*k->labels), PTX_MAX_INSNS)) != 0)
			return rc == -ENOMEM ? rc :
			    ptx_error(ps, t.line, "too many labels");
		r = (int)k->nlabels;
		k->labels[r].insn = UINT32_MAX;	/* not defined yet */
		k->labels[r].line = t.line;
		if ((k->labels[r].name = ptx_strdup(t.s, t.len)) == NULL)
			return -ENOMEM;
		k->nlabels++;
	}
	o->imm = r;
	return 0;
}

/* Operand layout per opcode: d = destination, s = source, a = address,
 * p = predicate source, l = label, i = immediate. */
static const char *const ptx_shape[PTX_NOPS] = {
	[PTX_ADD] = "dss", [PTX_SUB] = "dss", [PTX_MUL] = "dss",
	[PTX_MAD] = "dsss", [PTX_DIV] = "dss", [PTX_REM] = "dss",
	[PTX_MIN] = "dss", [PTX_MAX] = "dss", [PTX_ABS] = "ds",
	[PTX_NEG] = "ds", [PTX_AND] = "dss", [PTX_OR] = "dss",
	[PTX_XOR] = "dss", [PTX_NOT] = "ds", [PTX_CNOT] = "ds",
	[PTX_SHL] = "dss", [PTX_SHR] = "dss", [PTX_SELP] = "dssp",
	[PTX_SETP] = "dss", [PTX_MOV] = "ds", [PTX_CVT] = "ds",
	[PTX_CVTA] = "ds", [PTX_FMA] = "dsss", [PTX_SQRT] = "ds",
	[PTX_RSQRT] = "ds", [PTX_RCP] = "ds", [PTX_EX2] = "ds",
	[PTX_LG2] = "ds", [PTX_SIN] = "ds", [PTX_COS] = "ds",
	[PTX_POPC] = "ds", [PTX_CLZ] = "ds", [PTX_LD] = "da", [PTX_ST] = "as",
	[PTX_ATOM] = "das", [PTX_RED] = "as", [PTX_BRA] = "l", [PTX_BAR] = "i",
	[PTX_MEMBAR] = "", [PTX_RET] = "", [PTX_EXIT] = "",
};

static int
ptx_op_of(const char *s, size_t len)
{
	int	op = ptx_index(ptx_opnames, PTX_NOPS, s, len);

	if (op < 0 && ptx_eq(s, len, "barrier"))
		return PTX_BAR;
	if (op < 0 && ptx_eq(s, len, "fence"))
		return PTX_MEMBAR;
	return op;
}

static int
ptx_is_pred_reg(const struct ptx_kernel *k, uint16_t r)
{
	return r < k->nregs && k->regtype[r] == PTX_T_PRED;
}

/* The operand layout of this instruction, with the optional operands. */
static void
ptx_layout(const struct ptx_insn *in, char *shape, size_t len)
{
	snprintf(shape, len, "%s", ptx_shape[in->op]);
	if (in->op == PTX_SETP && in->boolop != PTX_BNONE)
		strncat(shape, "p", len - strlen(shape) - 1);
	if (in->op == PTX_ATOM && in->aop == PTX_A_CAS)
		strncat(shape, "s", len - strlen(shape) - 1);
}

/* The number of operands, by opcode and modifiers. */
static unsigned int
ptx_nops_expected(const struct ptx_insn *in)
{
	char	shape[8];

	ptx_layout(in, shape, sizeof(shape));
	return (unsigned int)strlen(shape);
}

/* Does operand i hold a predicate? */
static int
ptx_wants_pred(const struct ptx_insn *in, const char *shape, unsigned int i)
{
	if (shape[i] == 'p')
		return 1;
	if (in->op == PTX_SETP && i == 0)
		return 1;
	return in->type == PTX_T_PRED && (shape[i] == 'd' || shape[i] == 's');
}

static int
ptx_check_operand(struct ptx_ps *ps, const struct ptx_insn *in,
    const char *shape, unsigned int i, const char *name)
{
	const struct ptx_kernel		*k = ps->k;
	const struct ptx_operand	*o = &in->o[i];

	if (o->kind == PTX_O_REG) {
		if (ptx_is_pred_reg(k, o->reg) != ptx_wants_pred(in, shape, i))
			return ptx_error(ps, in->line, "'%s': operand %u has "
			    "the wrong register kind (predicate or not)", name,
			    i + 1);
		if (o->reg2 != PTX_NO_REG && !(in->op == PTX_SETP && i == 0 &&
		    ptx_is_pred_reg(k, o->reg2)))
			return ptx_error(ps, in->line, "'%s': '|' only joins "
			    "setp's two predicates", name);
		if (o->neg && shape[i] != 'p')
			return ptx_error(ps, in->line, "'%s': '!' only before "
			    "a predicate source", name);
	} else if (o->neg)
		return ptx_error(ps, in->line, "'%s': misplaced '!'", name);
	switch (shape[i]) {
	case 'd':
	case 'p':
		if (o->kind != PTX_O_REG)
			return ptx_error(ps, in->line, "'%s': operand %u must "
			    "be a register", name, i + 1);
		return 0;
	case 'a':
		if (o->kind != PTX_O_ADDR)
			return ptx_error(ps, in->line, "'%s': operand %u must "
			    "be an address [...]", name, i + 1);
		return 0;
	case 'l':
		if (o->kind != PTX_O_LABEL)
			return ptx_error(ps, in->line, "'%s': the operand "
			    "must be a label", name);
		return 0;
	case 'i':
		if (o->kind != PTX_O_IMM)
			return ptx_error(ps, in->line, "'%s': the operand "
			    "must be a number", name);
		return 0;
	default:	/* 's' */
		if (o->kind == PTX_O_ADDR || o->kind == PTX_O_LABEL)
			return ptx_error(ps, in->line, "'%s': operand %u must "
			    "be a register or a number", name, i + 1);
		if (o->kind == PTX_O_VAR && in->op != PTX_MOV &&
		    in->op != PTX_CVTA)
			return ptx_error(ps, in->line, "'%s': a variable's "
			    "address only in mov or cvta", name);
		return 0;
	}
}

/* The checks every instruction gets once its operands are known. */
static int
ptx_check_insn(struct ptx_ps *ps, struct ptx_insn *in, const char *name)
{
	char		shape[8];
	unsigned int	i;
	int		rc;

	ptx_layout(in, shape, sizeof(shape));
	for (i = 0; i < in->nops; i++)
		if ((rc = ptx_check_operand(ps, in, shape, i, name)) != 0)
			return rc;
	return 0;
}

/* Per-opcode rules on types, spaces and modifiers. */
static int
ptx_op_rules(struct ptx_ps *ps, struct ptx_insn *in, const char *name,
    const struct ptx_mods *md)
{
	int	t = md->ntypes ? md->types[0] : 0;

	in->type = (uint8_t)t;
	switch (in->op) {
	case PTX_BRA:
	case PTX_RET:
	case PTX_EXIT:
	case PTX_MEMBAR:
	case PTX_BAR:
		if (md->ntypes)
			return ptx_error(ps, in->line, "'%s' takes no type",
			    name);
		return 0;
	case PTX_CVT:
		if (md->ntypes != 2)
			return ptx_error(ps, in->line, "'%s' needs two types",
			    name);
		if (md->types[0] == PTX_T_PRED || md->types[1] == PTX_T_PRED)
			return ptx_error(ps, in->line, "'%s': .pred type not "
			    "allowed", name);
		if (md->sat && PTX_T_KIND(md->types[0]) != PTX_K_F &&
		    PTX_T_KIND(md->types[1]) != PTX_K_F)
			return ptx_error(ps, in->line, "'%s': saturating "
			    "integer conversion is not supported", name);
		in->type2 = (uint8_t)md->types[1];
		return 0;
	default:
		break;
	}
	if (md->ntypes != 1)
		return ptx_error(ps, in->line, "'%s' needs one type", name);
	if (md->sat && PTX_T_KIND(t) != PTX_K_F)
		return ptx_error(ps, in->line, "'%s': saturating integer "
		    "arithmetic is not supported", name);
	if (t == PTX_T_PRED && in->op != PTX_MOV && in->op != PTX_AND &&
	    in->op != PTX_OR && in->op != PTX_XOR && in->op != PTX_NOT)
		return ptx_error(ps, in->line, "'%s': .pred type not allowed",
		    name);
	switch (in->op) {
	case PTX_SETP:
		if (!md->has_cmp)
			return ptx_error(ps, in->line, "'%s': unsupported or "
			    "missing comparison", name);
		in->cmp = (uint8_t)md->cmp;
		in->boolop = (uint8_t)md->boolop;
		break;
	case PTX_MUL:
	case PTX_MAD:
		if (PTX_T_KIND(t) != PTX_K_F && md->width == PTX_W_NONE)
			return ptx_error(ps, in->line, "'%s' needs .lo, .hi or "
			    ".wide", name);
		if (md->width == PTX_W_WIDE && PTX_T_SIZE(t) == 8)
			return ptx_error(ps, in->line, "'%s': .wide of a 64-bit "
			    "type", name);
		in->width = (uint8_t)md->width;
		break;
	case PTX_LD:
	case PTX_ST:
	case PTX_ATOM:
	case PTX_RED:
		if (!md->has_space)
			return ptx_error(ps, in->line, "'%s': generic "
			    "addressing is not supported (the analyzer needs "
			    ".global, .shared or .param)", name);
		if ((in->op != PTX_LD && md->space == PTX_SP_PARAM))
			return ptx_error(ps, in->line, "'%s': only ld reads "
			    "parameters", name);
		in->space = (uint8_t)md->space;
		if ((in->op == PTX_ATOM || in->op == PTX_RED) &&
		    !md->has_aop)
			return ptx_error(ps, in->line, "'%s': unsupported or "
			    "missing atomic operation", name);
		in->aop = (uint8_t)(md->has_aop ? md->aop : 0);
		break;
	case PTX_CVTA:
		if (!md->has_space || md->space == PTX_SP_PARAM)
			return ptx_error(ps, in->line, "'%s': only .global and "
			    ".shared", name);
		if (!md->to)
			return ptx_error(ps, in->line, "'%s': conversion to "
			    "generic addresses is not supported", name);
		in->space = (uint8_t)md->space;
		break;
	default:
		break;
	}
	return 0;
}

static int
ptx_insn(struct ptx_ps *ps, struct ptx_tok *op, int guard, int guard_neg)
{
	struct ptx_kernel	*k = ps->k;
	struct ptx_insn		*in;
	struct ptx_mods		 md;
	struct ptx_tok		 t, *pk;
	const char		*dot;
	size_t			 blen, i;
	char			 name[96];
	int			 opc, rc;

	for (i = 0; i < sizeof(ptx_refused) / sizeof(ptx_refused[0]); i++) {
		blen = strlen(ptx_refused[i].name);
		if (op->len >= blen && memcmp(op->s, ptx_refused[i].name,
		    blen) == 0 && (op->len == blen || op->s[blen] == '.'))
			return ptx_error(ps, op->line, "'%s': %s",
			    ptx_show(op, name, sizeof(name)),
			    ptx_refused[i].why);
	}
	dot = memchr(op->s, '.', op->len);
	blen = dot ? (size_t)(dot - op->s) : op->len;
	ptx_show(op, name, sizeof(name));
	if ((opc = ptx_op_of(op->s, blen)) < 0)
		return ptx_error(ps, op->line, "unknown or unsupported "
		    "instruction '%s'", name);
	if ((rc = gpu_grow((void **)&k->insns, &k->insn_cap, k->ninsns + 1,
	    sizeof(*k->insns), PTX_MAX_INSNS)) != 0)
		return rc == -ENOMEM ? rc : ptx_error(ps, op->line,
		    "more than %u instructions", PTX_MAX_INSNS);
	in = &k->insns[k->ninsns];
	memset(in, 0, sizeof(*in));
	in->line = op->line;
	in->op = (uint8_t)opc;
	in->guard = guard < 0 ? PTX_NO_REG : (uint16_t)guard;
	in->guard_neg = (uint8_t)guard_neg;
	if ((rc = ptx_parse_mods(ps, op->line, opc, op->s + blen,
	    op->len - blen, &md, name)) != 0)
		return rc;
	if (opc == PTX_BAR && !md.sync)
		return ptx_error(ps, op->line, "'%s': only bar.sync and "
		    "barrier.sync", name);
	in->uni = (uint8_t)md.uni;
	if ((rc = ptx_op_rules(ps, in, name, &md)) != 0)
		return rc;
	if ((rc = ptx_peek(ps, &pk)) != 0)
		return rc;
	while (!ptx_is(pk, ";")) {
		if (in->nops == PTX_MAX_OPS)
			return ptx_error(ps, op->line, "'%s': too many "
			    "operands", name);
		if ((rc = ptx_operand(ps, &in->o[in->nops])) != 0)
			return rc;
		in->nops++;
		if ((rc = ptx_peek(ps, &pk)) != 0)
			return rc;
		if (ptx_is(pk, ","))
			(void)ptx_next(ps, &t);
		else if (!ptx_is(pk, ";"))
			return ptx_error(ps, op->line, "'%s': expected ',' or "
			    "';' after operand %u", name, in->nops);
	}
	(void)ptx_next(ps, &t);
	if (in->nops != ptx_nops_expected(in)) {
		if (opc == PTX_BAR && in->nops == 2)
			return ptx_error(ps, op->line, "'%s': a thread count "
			    "is not supported", name);
		return ptx_error(ps, op->line, "'%s' takes %u operands, not "
		    "%u", name, ptx_nops_expected(in), in->nops);
	}
	if ((rc = ptx_check_insn(ps, in, name)) != 0)
		return rc;
	if (opc == PTX_BAR && in->o[0].imm != 0)
		return ptx_error(ps, op->line, "'%s': only barrier 0", name);
	if (opc == PTX_LD && in->space == PTX_SP_PARAM &&
	    (in->o[1].reg != PTX_NO_REG || !in->o[1].var_param))
		return ptx_error(ps, op->line, "'%s': parameters are read by "
		    "name", name);
	if ((opc == PTX_LD || opc == PTX_ST || opc == PTX_ATOM ||
	    opc == PTX_RED) && in->space != PTX_SP_PARAM &&
	    in->o[opc == PTX_LD || opc == PTX_ATOM ? 1 : 0].var_param)
		return ptx_error(ps, op->line, "'%s': a parameter used as a "
		    "memory address", name);
	if ((opc == PTX_LD || opc == PTX_ST || opc == PTX_ATOM ||
	    opc == PTX_RED) && in->space == PTX_SP_GLOBAL &&
	    in->o[opc == PTX_LD || opc == PTX_ATOM ? 1 : 0].var >= 0)
		return ptx_error(ps, op->line, "'%s': a shared variable "
		    "addressed as global memory", name);
	k->ninsns++;
	return 0;
}

/* ---- kernels and the module ---- */

static int
ptx_label_def(struct ptx_ps *ps, const struct ptx_tok *t)
{
	struct ptx_kernel	*k = ps->k;
	int			 r, rc;
	char			 b[64];

	if ((r = ptx_label_find(k, t->s, t->len)) >= 0) {
		if (k->labels[r].insn != UINT32_MAX)
			return ptx_error(ps, t->line, "label '%s' defined "
			    "twice", ptx_show(t, b, sizeof(b)));
	} else {
		if ((rc = gpu_grow((void **)&k->labels, &k->label_cap,
		    k->nlabels + 1, sizeof(*k->labels), PTX_MAX_INSNS)) != 0)
			return rc == -ENOMEM ? rc :
			    ptx_error(ps, t->line, "too many labels");
		r = (int)k->nlabels;
		if ((k->labels[r].name = ptx_strdup(t->s, t->len)) == NULL)
			return -ENOMEM;
		k->nlabels++;
	}
	k->labels[r].insn = k->ninsns;
	k->labels[r].line = t->line;
	return 0;
}

/* Statements of a body until its closing brace. */
static int
ptx_body(struct ptx_ps *ps)
{
	struct ptx_kernel	*k = ps->k;
	struct ptx_tok		 t, colon, *pk;
	int			 rc, depth = 1, guard, neg, r;
	char			 b[64];

	for (;;) {
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
		if (t.kind == TK_EOF)
			return ptx_error(ps, k->line, "kernel '%s' not closed",
			    k->name);
		if (ptx_is(&t, "{")) {
			depth++;
			continue;
		}
		if (ptx_is(&t, "}")) {
			if (--depth == 0)
				return 0;
			continue;
		}
		if (ptx_is(&t, ".reg")) {
			if ((rc = ptx_reg_decl(ps, t.line)) != 0)
				return rc;
			continue;
		}
		if (ptx_is(&t, ".shared")) {
			if ((rc = ptx_shared_decl(ps, t.line)) != 0)
				return rc;
			continue;
		}
		if (ptx_is(&t, ".local"))
			return ptx_error(ps, t.line, ".local variables are not "
			    "supported (local memory)");
		if (ptx_is(&t, ".pragma")) {
			if ((rc = ptx_skip_stmt(ps, t.line)) != 0)
				return rc;
			continue;
		}
		if (ptx_is(&t, ".loc") || ptx_is(&t, ".file")) {
			if ((rc = ptx_skip_line(ps, t.line)) != 0)
				return rc;
			continue;
		}
		if (t.kind == TK_WORD && t.s[0] == '.')
			return ptx_error(ps, t.line, "unsupported directive "
			    "'%s' in a kernel", ptx_show(&t, b, sizeof(b)));
		guard = -1;
		neg = 0;
		if (ptx_is(&t, "@")) {
			if ((rc = ptx_next(ps, &t)) != 0)
				return rc;
			if (ptx_is(&t, "!")) {
				neg = 1;
				if ((rc = ptx_next(ps, &t)) != 0)
					return rc;
			}
			if (t.kind != TK_WORD ||
			    (r = ptx_reg_lookup(k, t.s, t.len)) < 0 ||
			    !ptx_is_pred_reg(k, (uint16_t)r))
				return ptx_error(ps, t.line, "'@' needs a "
				    "predicate register");
			guard = r;
			if ((rc = ptx_next(ps, &t)) != 0)
				return rc;
		}
		if (t.kind != TK_WORD)
			return ptx_error(ps, t.line, "unexpected '%s'",
			    ptx_show(&t, b, sizeof(b)));
		if (guard < 0) {
			if ((rc = ptx_peek(ps, &pk)) != 0)
				return rc;
			if (ptx_is(pk, ":")) {
				(void)ptx_next(ps, &colon);
				if ((rc = ptx_label_def(ps, &t)) != 0)
					return rc;
				continue;
			}
		}
		if ((rc = ptx_insn(ps, &t, guard, neg)) != 0)
			return rc;
	}
}

/* Branch targets and pointer parameters, once the body is read. */
static int
ptx_finish_kernel(struct ptx_ps *ps)
{
	struct ptx_kernel	*k = ps->k;
	struct ptx_insn		*in, *src;
	unsigned int		 i, j;
	uint32_t		 r;

	for (i = 0; i < k->nlabels; i++)
		if (k->labels[i].insn == UINT32_MAX)
			return ptx_error(ps, k->labels[i].line, "label '%s' is "
			    "not defined (or a name the analyzer does not "
			    "know)", k->labels[i].name);
	for (i = 0; i < k->ninsns; i++) {
		in = &k->insns[i];
		if (in->op == PTX_BRA)
			in->target = k->labels[in->o[0].imm].insn;
		if (in->op != PTX_CVTA || in->space != PTX_SP_GLOBAL ||
		    in->o[1].kind != PTX_O_REG)
			continue;
		/* cvta.to.global of a value loaded from a parameter */
		r = in->o[1].reg;
		for (j = 0; j < k->ninsns; j++) {
			src = &k->insns[j];
			if (src->op == PTX_LD && src->space == PTX_SP_PARAM &&
			    src->o[0].reg == r && src->o[1].var >= 0)
				k->params[src->o[1].var].is_ptr = 1;
		}
	}
	if (k->ninsns == 0)
		return ptx_error(ps, k->line, "kernel '%s' has no "
		    "instructions", k->name);
	return 0;
}

static void ptx_free_kernel(struct ptx_kernel *);

static int
ptx_entry(struct ptx_ps *ps, uint32_t line)
{
	struct ptx_module	*m = ps->m;
	struct ptx_kernel	*k;
	struct ptx_tok		 t, *pk;
	int			 rc;
	char			 b[64];

	if ((rc = ptx_next(ps, &t)) != 0)
		return rc;
	if (t.kind != TK_WORD || t.s[0] == '.' || t.s[0] == '%')
		return ptx_error(ps, line, ".entry: bad name '%s'",
		    ptx_show(&t, b, sizeof(b)));
	if (m->nkernels == PTX_MAX_KERNELS)
		return ptx_error(ps, line, "more than %d kernels",
		    PTX_MAX_KERNELS);
	k = &m->kernels[m->nkernels++];
	ps->k = k;
	k->line = line;
	if ((k->name = ptx_strdup(t.s, t.len)) == NULL)
		return -ENOMEM;
	if (ptx_kernel_find(m, k->name) != k)
		return ptx_error(ps, line, "kernel '%s' defined twice",
		    k->name);
	if ((rc = ptx_params(ps, line)) != 0)
		return rc;
	/* performance directives (.maxntid 256, 1, 1 ...) until the body */
	for (;;) {
		if ((rc = ptx_peek(ps, &pk)) != 0)
			return rc;
		if (ptx_is(pk, "{") || ptx_is(pk, ";") || pk->kind == TK_EOF)
			break;
		if (ptx_is(pk, ".maxntid") || ptx_is(pk, ".reqntid") ||
		    ptx_is(pk, ".minnctapersm") || ptx_is(pk, ".maxnreg") ||
		    ptx_is(pk, ".maxnctapersm") || pk->kind == TK_NUM ||
		    ptx_is(pk, ",") || ptx_is(pk, ".noreturn")) {
			(void)ptx_next(ps, &t);
			continue;
		}
		return ptx_error(ps, pk->line, "unsupported kernel directive "
		    "'%s'", ptx_show(pk, b, sizeof(b)));
	}
	if ((rc = ptx_next(ps, &t)) != 0)
		return rc;
	if (ptx_is(&t, ";")) {
		/* a declaration only */
		ptx_free_kernel(k);
		m->nkernels--;
		ps->k = NULL;
		return 0;
	}
	if (!ptx_is(&t, "{"))
		return ptx_error(ps, line, "kernel '%s' has no body", k->name);
	if ((rc = ptx_body(ps)) != 0)
		return rc;
	return ptx_finish_kernel(ps);
}

static int
ptx_top(struct ptx_ps *ps)
{
	struct ptx_module	*m = ps->m;
	struct ptx_tok		 t, v;
	uint64_t		 n;
	int			 rc, isf, have_version = 0;
	char			 b[64];

	for (;;) {
		if ((rc = ptx_next(ps, &t)) != 0)
			return rc;
		if (t.kind == TK_EOF)
			break;
		if (ptx_is(&t, ".version")) {
			if ((rc = ptx_next(ps, &v)) != 0)
				return rc;
			if (v.kind != TK_NUM || v.s[0] < '1' || v.s[0] > '9')
				return ptx_error(ps, t.line, "bad .version");
			have_version = 1;
			continue;
		}
		if (!have_version)
			return ptx_error(ps, t.line, "the file must start with "
			    ".version");
		if (ptx_is(&t, ".target")) {
			if ((rc = ptx_next(ps, &v)) != 0)
				return rc;
			if (v.kind != TK_WORD || v.len >= sizeof(m->target))
				return ptx_error(ps, t.line, "bad .target");
			memcpy(m->target, v.s, v.len);
			m->target[v.len] = '\0';
			if ((rc = ptx_skip_line(ps, t.line)) != 0)
				return rc;
		} else if (ptx_is(&t, ".address_size")) {
			if ((rc = ptx_next(ps, &v)) != 0)
				return rc;
			if (v.kind != TK_NUM || ptx_number(v.s, v.len, &n,
			    &isf) != 0 || isf || n != 64)
				return ptx_error(ps, t.line, "only "
				    ".address_size 64 is supported");
			m->address_size = 64;
		} else if (ptx_is(&t, ".visible") || ptx_is(&t, ".weak") ||
		    ptx_is(&t, ".extern")) {
			continue;
		} else if (ptx_is(&t, ".entry")) {
			if ((rc = ptx_entry(ps, t.line)) != 0)
				return rc;
		} else if (ptx_is(&t, ".func") || ptx_is(&t, ".global") ||
		    ptx_is(&t, ".const") || ptx_is(&t, ".shared") ||
		    ptx_is(&t, ".section")) {
			/* not used by the entries (calls and those spaces are
			 * refused where an instruction would use them) */
			if ((rc = ptx_skip_stmt(ps, t.line)) != 0)
				return rc;
		} else if (ptx_is(&t, ".file") || ptx_is(&t, ".loc")) {
			if ((rc = ptx_skip_line(ps, t.line)) != 0)
				return rc;
		} else
			return ptx_error(ps, t.line, "unexpected '%s' at the "
			    "top level", ptx_show(&t, b, sizeof(b)));
	}
	if (!have_version)
		return ptx_error(ps, ps->line, "no .version: not PTX");
	if (m->nkernels == 0)
		return ptx_error(ps, ps->line, "no .entry kernel");
	return 0;
}

static void
ptx_free_kernel(struct ptx_kernel *k)
{
	unsigned int	i;

	free(k->name);
	for (i = 0; i < k->nparams; i++)
		free(k->params[i].name);
	for (i = 0; i < k->nvars; i++)
		free(k->vars[i].name);
	for (i = 0; i < k->ndecls; i++)
		free(k->decls[i].prefix);
	free(k->decls);
	free(k->regtype);
	free(k->insns);
	for (i = 0; i < k->nlabels; i++)
		free(k->labels[i].name);
	free(k->labels);
	memset(k, 0, sizeof(*k));
}

void
ptx_free(struct ptx_module *m)
{
	unsigned int	i;

	for (i = 0; i < PTX_MAX_KERNELS; i++)
		ptx_free_kernel(&m->kernels[i]);
	m->nkernels = 0;
}

int
ptx_parse(const char *buf, size_t len, struct ptx_module *m, char *err,
    size_t errlen)
{
	struct ptx_ps	ps;
	int		rc;

	memset(m, 0, sizeof(*m));
	memset(&ps, 0, sizeof(ps));
	ps.buf = ps.p = buf;
	ps.end = buf + len;
	ps.line = 1;
	ps.m = m;
	ps.err = err;
	ps.errlen = errlen;
	if (errlen > 0)
		err[0] = '\0';
	if (len > PTX_MAX_SIZE)
		rc = ptx_error(&ps, 1, "larger than %u bytes", PTX_MAX_SIZE);
	else if (memchr(buf, '\0', len) != NULL)
		rc = ptx_error(&ps, 1, "a NUL byte: not a text file");
	else
		rc = ptx_top(&ps);
	if (rc == -ENOMEM && errlen > 0)
		snprintf(err, errlen, "out of memory");
	if (rc != 0)
		ptx_free(m);
	return rc;
}

const struct ptx_kernel *
ptx_kernel_find(const struct ptx_module *m, const char *name)
{
	unsigned int	i;

	for (i = 0; i < m->nkernels; i++)
		if (strcmp(m->kernels[i].name, name) == 0)
			return &m->kernels[i];
	return NULL;
}

int
ptx_param_find(const struct ptx_kernel *k, const char *name)
{
	char		*end;
	unsigned long	 n;
	unsigned int	 i;

	for (i = 0; i < k->nparams; i++)
		if (strcmp(k->params[i].name, name) == 0)
			return (int)i;
	if (name[0] < '0' || name[0] > '9')
		return -1;
	n = strtoul(name, &end, 10);
	if (*end != '\0' || n >= k->nparams)
		return -1;
	return (int)n;
}
