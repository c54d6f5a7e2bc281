/*
 * trace.h - block execution-time traces (doc/profiling.md): one streaming
 * reader for the CSV form (header "run,block,exec_ns,cond") and the
 * binary form, a writer for the binary form, and the bounded-memory
 * per-block accumulator that bwanalyze cluster builds from a trace.
 *
 * Binary form, little-endian: a 16-byte header "BWTR", u16 version (1),
 * u16 record size (16), u64 zero; then 16-byte records: u32 run,
 * u32 block, exec_ns in 7 bytes, cond in the last byte.
 */
#ifndef TRACE_H
#define TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_MAGIC		"BWTR"
#define TRACE_VERSION		1
#define TRACE_REC_SIZE		16
#define TRACE_HDR_SIZE		16
#define TRACE_MAX_BLOCKS	(1u << 24)
#define TRACE_MAX_EXEC		((1ull << 56) - 1)
#define TRACE_CSV_HEADER	"run,block,exec_ns,cond"
#define TRACE_MAX_LINE		256
#define TRACE_BUF		(1u << 16)

struct trace_rec {
	uint32_t	run;
	uint32_t	block;
	uint64_t	exec_ns;	/* 1 .. TRACE_MAX_EXEC */
	unsigned int	cond;		/* 0 isolation, 1 interference */
};

struct trace_reader {
	FILE		*f;
	int		 binary;
	int		 eof;
	unsigned long	 line;		/* CSV line, or binary record + 1 */
	size_t		 pos, len;
	unsigned char	 buf[TRACE_BUF];
};

/* Detect the form and check the header; -EINVAL with err set. */
int	trace_open(struct trace_reader *, FILE *, char *err, size_t errlen);

/* Next record: 1, 0 at the end, -EINVAL (err "line N: ...") or -EIO. */
int	trace_next(struct trace_reader *, struct trace_rec *, char *err,
	    size_t errlen);

/* Binary writer. */
int	trace_write_header(FILE *);
int	trace_write_rec(FILE *, const struct trace_rec *);

/*
 * Per-block accumulator.  For each block and condition it keeps exact
 * count, maximum, mean and variance, and a reservoir of at most `res`
 * samples (Vitter's algorithm R with a fixed-seed generator, so a given
 * trace always gives the same reservoir).  While a block has no more than
 * `res` samples the reservoir is the exact sample in trace order.
 * Memory: blocks x 2 x (32 + 4 res) bytes.
 */
struct trace_stat {
	uint64_t	count;
	uint64_t	max;
	double		mean, m2;
};

struct trace_acc {
	uint32_t	 nblocks;	/* max block id + 1 seen */
	uint32_t	 cap;		/* allocated blocks */
	uint32_t	 limit;		/* refuse block ids >= limit */
	uint32_t	 res;		/* reservoir size */
	uint64_t	 rng;
	uint64_t	 nrec;
	struct trace_stat *st;		/* [block * 2 + cond] */
	uint32_t	*rv;		/* [(block * 2 + cond) * res + k] */
};

/* limit: max blocks (0: TRACE_MAX_BLOCKS); prealloc: expected blocks. */
int	trace_acc_init(struct trace_acc *, uint32_t res, uint32_t limit,
	    uint32_t prealloc);
void	trace_acc_free(struct trace_acc *);
/* Add one record; -EINVAL (block over limit, exec_ns >= 2^32), -ENOMEM. */
int	trace_acc_add(struct trace_acc *, const struct trace_rec *);
/* Reservoir of (block, cond) and its fill. */
uint32_t *trace_acc_sample(const struct trace_acc *, uint32_t block,
	    unsigned int cond, uint32_t *len);

/* Read a whole trace into acc; -EINVAL/-EIO/-ENOMEM with err set. */
int	trace_acc_read(struct trace_acc *, FILE *, char *err, size_t errlen);

#endif /* TRACE_H */
