/*
 * ptx.h - a parser for the subset of PTX that `nvcc -ptx` produces for
 * simple kernels (doc/gpu-model.md lists it): the kernel analyzer of
 * [Reorder] (Algorithm 1) reads its instructions, register declarations,
 * parameters and shared variables from here.  Pure: works on a memory
 * buffer; anything outside the subset is refused with its line and the
 * reason, never guessed.
 */
#ifndef PTX_H
#define PTX_H

#include <stddef.h>
#include <stdint.h>

#define PTX_MAX_SIZE		(4u << 20)	/* bytes of a PTX file */
#define PTX_MAX_KERNELS		64
#define PTX_MAX_PARAMS		64
#define PTX_MAX_INSNS		65536		/* per kernel */
#define PTX_MAX_REGS		65536		/* register ids per kernel */
#define PTX_MAX_VARS		64		/* .shared variables */
#define PTX_MAX_OPS		5
#define PTX_NO_REG		0xffff

enum ptx_op {
	PTX_ADD, PTX_SUB, PTX_MUL, PTX_MAD, PTX_DIV, PTX_REM, PTX_MIN,
	PTX_MAX, PTX_ABS, PTX_NEG, PTX_AND, PTX_OR, PTX_XOR, PTX_NOT,
	PTX_CNOT, PTX_SHL, PTX_SHR, PTX_SELP, PTX_SETP, PTX_MOV, PTX_CVT,
	PTX_CVTA, PTX_FMA, PTX_SQRT, PTX_RSQRT, PTX_RCP, PTX_EX2, PTX_LG2,
	PTX_SIN, PTX_COS, PTX_POPC, PTX_CLZ, PTX_LD, PTX_ST, PTX_ATOM,
	PTX_RED, PTX_BRA, PTX_BAR, PTX_MEMBAR, PTX_RET, PTX_EXIT,
	PTX_NOPS
};

/* Types: the low bits are the size in bytes, the high ones the kind. */
#define PTX_T_SIZE(t)	((t) & 0x0f)
#define PTX_T_KIND(t)	((t) & 0xf0)
enum ptx_kind {
	PTX_K_B = 0x10, PTX_K_U = 0x20, PTX_K_S = 0x30, PTX_K_F = 0x40,
	PTX_K_PRED = 0x50
};
#define PTX_T_PRED	(PTX_K_PRED | 1)

enum ptx_space {
	PTX_SP_NONE, PTX_SP_PARAM, PTX_SP_GLOBAL, PTX_SP_SHARED
};

/* setp comparisons (integer and ordered float; unordered refused) */
enum ptx_cmp {
	PTX_EQ, PTX_NE, PTX_LT, PTX_LE, PTX_GT, PTX_GE, PTX_LO, PTX_LS,
	PTX_HI, PTX_HS
};

/* setp's optional combination with a third predicate */
enum ptx_bool { PTX_BNONE, PTX_BAND, PTX_BOR, PTX_BXOR };

enum ptx_atom {
	PTX_A_ADD, PTX_A_MIN, PTX_A_MAX, PTX_A_INC, PTX_A_DEC, PTX_A_AND,
	PTX_A_OR, PTX_A_XOR, PTX_A_EXCH, PTX_A_CAS
};

/* mul/mad width */
enum ptx_width { PTX_W_NONE, PTX_W_LO, PTX_W_HI, PTX_W_WIDE };

/* special registers: PTX_SR_TID + 0..2 is %tid.x..z, and so on */
enum ptx_sreg {
	PTX_SR_TID = 0, PTX_SR_NTID = 3, PTX_SR_CTAID = 6, PTX_SR_NCTAID = 9,
	PTX_SR_LANEID = 12, PTX_SR_WARPSZ = 13
};

enum ptx_okind {
	PTX_O_NONE, PTX_O_REG, PTX_O_IMM, PTX_O_SREG, PTX_O_ADDR,
	PTX_O_VAR, PTX_O_LABEL
};

/*
 * An operand.  REG: reg (and reg2 for setp's "p|q"); IMM: imm (float
 * immediates keep their bits); SREG: sreg; ADDR: [reg+imm] or [var+imm]
 * (reg PTX_NO_REG and var >= 0 for a variable: param or shared); VAR: a
 * shared variable's address as a value; LABEL: index of the label.
 */
struct ptx_operand {
	uint8_t		kind;
	uint8_t		neg;		/* !%p as a predicate operand */
	uint16_t	reg;
	uint16_t	reg2;
	int16_t		var;		/* ADDR/VAR: ptx_var index, or -1 */
	uint8_t		var_param;	/* var indexes params, not shared */
	uint8_t		sreg;
	int64_t		imm;
};

struct ptx_insn {
	uint32_t		line;
	uint8_t			op;		/* enum ptx_op */
	uint8_t			type;		/* the instruction's type */
	uint8_t			type2;		/* cvt's source type */
	uint8_t			space;		/* ld/st/atom/red/cvta */
	uint8_t			cmp;		/* setp */
	uint8_t			boolop;		/* setp */
	uint8_t			aop;		/* atom/red */
	uint8_t			width;		/* mul/mad */
	uint8_t			uni;		/* bra.uni */
	uint8_t			nops;
	uint8_t			guard_neg;
	uint16_t		guard;		/* predicate or PTX_NO_REG */
	uint32_t		target;		/* bra: instruction index */
	struct ptx_operand	o[PTX_MAX_OPS];
};

struct ptx_param {
	char		*name;
	uint8_t		 type;
	uint32_t	 size;		/* bytes */
	uint32_t	 offset;	/* in the parameter buffer */
	int		 is_ptr;	/* converted with cvta.to.global */
};

struct ptx_var {
	char		*name;
	uint32_t	 size;
	uint32_t	 align;
	uint32_t	 addr;		/* in the block's shared window */
};

/* Declared registers: a name prefix and count, e.g. "%rd" x 11. */
struct ptx_regdecl {
	char		*prefix;
	uint32_t	 count;		/* 0: a single register named prefix */
	uint32_t	 base;		/* first id */
	uint8_t		 type;
};

struct ptx_label {
	char		*name;
	uint32_t	 insn;		/* index of the next instruction */
	uint32_t	 line;
};

struct ptx_kernel {
	char			*name;
	uint32_t		 line;
	unsigned int		 nparams;
	struct ptx_param	 params[PTX_MAX_PARAMS];
	uint32_t		 param_bytes;
	unsigned int		 nvars;
	struct ptx_var		 vars[PTX_MAX_VARS];
	uint32_t		 shared_bytes;
	unsigned int		 ndecls;
	uint32_t		 decl_cap;
	struct ptx_regdecl	*decls;
	uint32_t		 nregs;
	uint8_t			*regtype;	/* nregs entries */
	unsigned int		 ninsns;
	uint32_t		 insn_cap;
	struct ptx_insn		*insns;
	unsigned int		 nlabels;
	uint32_t		 label_cap;
	struct ptx_label	*labels;
};

struct ptx_module {
	unsigned int		 nkernels;
	struct ptx_kernel	 kernels[PTX_MAX_KERNELS];
	unsigned int		 address_size;
	char			 target[32];
};

/*
 * Parse len bytes of PTX into m (zeroed first).  Returns 0, or -EINVAL
 * with "line N: reason" in err (then m holds nothing to free), -ENOMEM.
 */
int	ptx_parse(const char *buf, size_t len, struct ptx_module *m,
	    char *err, size_t errlen);
void	ptx_free(struct ptx_module *m);

const struct ptx_kernel *ptx_kernel_find(const struct ptx_module *,
	    const char *name);
/* A parameter by name or by its index written in decimal; -1 if none. */
int	ptx_param_find(const struct ptx_kernel *, const char *name);
/* "%rd4" for a register id, in buf. */
const char *ptx_reg_name(const struct ptx_kernel *, uint16_t reg, char *buf,
	    size_t len);
const char *ptx_op_name(unsigned int op);

#endif /* PTX_H */
