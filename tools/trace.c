/*
 * trace.c - trace reader, binary writer and accumulator (see trace.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* Make sure at least want bytes are buffered (fewer only at the end). */
static int
trace_fill(struct trace_reader *r, size_t want)
{
	size_t	got;

	if (r->len - r->pos >= want || r->eof)
		return 0;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->pos = 0;
	while (r->len < want && !r->eof) {
		got = fread(r->buf + r->len, 1, sizeof(r->buf) - r->len, r->f);
		r->len += got;
		if (got == 0) {
			if (ferror(r->f))
				return -EIO;
			r->eof = 1;
		}
	}
	return 0;
}

static uint64_t
le_get(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

static void
le_put(unsigned char *p, uint64_t v, int n)
{
	int	i;

	for (i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

/*
 * Take one line (without its newline) out of the buffer.  Returns its
 * length, -1 at the end of input, -E2BIG for an overlong line.
 */
static int
trace_line(struct trace_reader *r, char *out)
{
	unsigned char *nl;
	size_t	n;
	int	err;

	err = trace_fill(r, TRACE_MAX_LINE + 1);
	if (err < 0)
		return err;
	if (r->pos == r->len)
		return -1;
	nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
	n = nl ? (size_t)(nl - (r->buf + r->pos)) : r->len - r->pos;
	if (n > TRACE_MAX_LINE)
		return -E2BIG;
	memcpy(out, r->buf + r->pos, n);
	r->pos += n + (nl != NULL);
	if (n > 0 && out[n - 1] == '\r')
		n--;
	out[n] = '\0';
	r->line++;
	return (int)n;
}

int
trace_open(struct trace_reader *r, FILE *f, char *err, size_t errlen)
{
	char	line[TRACE_MAX_LINE + 1];
	int	n;

	memset(r, 0, sizeof(*r));
	r->f = f;
	if (trace_fill(r, TRACE_HDR_SIZE) < 0) {
		snprintf(err, errlen, "read error");
		return -EIO;
	}
	if (r->len >= 4 && memcmp(r->buf, TRACE_MAGIC, 4) == 0) {
		if (r->len < TRACE_HDR_SIZE) {
			snprintf(err, errlen, "binary header truncated");
			return -EINVAL;
		}
		if (le_get(r->buf + 4, 2) != TRACE_VERSION ||
		    le_get(r->buf + 6, 2) != TRACE_REC_SIZE) {
			snprintf(err, errlen, "binary trace version %u, record "
			    "size %u: expected %d and %d",
			    (unsigned)le_get(r->buf + 4, 2),
			    (unsigned)le_get(r->buf + 6, 2), TRACE_VERSION,
			    TRACE_REC_SIZE);
			return -EINVAL;
		}
		r->binary = 1;
		r->pos = TRACE_HDR_SIZE;
		r->line = 1;
		return 0;
	}
	n = trace_line(r, line);
	if (n < 0 || strcmp(line, TRACE_CSV_HEADER) != 0) {
		snprintf(err, errlen, "line 1: expected the header '%s' "
		    "or a binary trace", TRACE_CSV_HEADER);
		return n == -EIO ? -EIO : -EINVAL;
	}
	return 0;
}

/* Unsigned decimal field ending at sep; advances *p past sep. */
static int
trace_field(const char **p, char sep, uint64_t max, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	unsigned int d;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		d = (unsigned int)(*s - '0');
		if (d > max || x > (max - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (*s != sep)
		return -1;
	*p = s + (sep != '\0');
	*v = x;
	return 0;
}

static int
trace_csv(struct trace_reader *r, struct trace_rec *rec, char *err,
    size_t errlen)
{
	char	line[TRACE_MAX_LINE + 1];
	const char *p;
	uint64_t run, blk, ns, cond;
	int	n;

	do {
		n = trace_line(r, line);
		if (n == -1)
			return 0;
		if (n == -EIO) {
			snprintf(err, errlen, "read error");
			return -EIO;
		}
		if (n == -E2BIG) {
			snprintf(err, errlen, "line %lu: longer than %d "
			    "characters", r->line + 1, TRACE_MAX_LINE);
			return -EINVAL;
		}
	} while (n == 0 || line[0] == '#');
	p = line;
	if (trace_field(&p, ',', UINT32_MAX, &run) < 0 ||
	    trace_field(&p, ',', UINT32_MAX, &blk) < 0 ||
	    trace_field(&p, ',', TRACE_MAX_EXEC, &ns) < 0 ||
	    trace_field(&p, '\0', 1, &cond) < 0) {
		snprintf(err, errlen, "line %lu: expected run,block,exec_ns,"
		    "cond as unsigned integers (exec_ns < 2^56, cond 0 or 1)",
		    r->line);
		return -EINVAL;
	}
	if (ns == 0) {
		snprintf(err, errlen, "line %lu: exec_ns is 0", r->line);
		return -EINVAL;
	}
	rec->run = (uint32_t)run;
	rec->block = (uint32_t)blk;
	rec->exec_ns = ns;
	rec->cond = (unsigned int)cond;
	return 1;
}

static int
trace_bin(struct trace_reader *r, struct trace_rec *rec, char *err,
    size_t errlen)
{
	const unsigned char *p;

	if (trace_fill(r, TRACE_REC_SIZE) < 0) {
		snprintf(err, errlen, "read error");
		return -EIO;
	}
	if (r->pos == r->len)
		return 0;
	if (r->len - r->pos < TRACE_REC_SIZE) {
		snprintf(err, errlen, "record %lu: truncated", r->line);
		return -EINVAL;
	}
	p = r->buf + r->pos;
	rec->run = (uint32_t)le_get(p, 4);
	rec->block = (uint32_t)le_get(p + 4, 4);
	rec->exec_ns = le_get(p + 8, 7);
	rec->cond = p[15];
	if (rec->cond > 1 || rec->exec_ns == 0) {
		snprintf(err, errlen, "record %lu: %s", r->line,
		    rec->cond > 1 ? "cond not 0 or 1" : "exec_ns is 0");
		return -EINVAL;
	}
	r->pos += TRACE_REC_SIZE;
	r->line++;
	return 1;
}

int
trace_next(struct trace_reader *r, struct trace_rec *rec, char *err,
    size_t errlen)
{
	return r->binary ? trace_bin(r, rec, err, errlen) :
	    trace_csv(r, rec, err, errlen);
}

int
trace_write_header(FILE *f)
{
	unsigned char h[TRACE_HDR_SIZE] = { 0 };

	memcpy(h, TRACE_MAGIC, 4);
	le_put(h + 4, TRACE_VERSION, 2);
	le_put(h + 6, TRACE_REC_SIZE, 2);
	return fwrite(h, sizeof(h), 1, f) == 1 ? 0 : -EIO;
}

int
trace_write_rec(FILE *f, const struct trace_rec *rec)
{
	unsigned char p[TRACE_REC_SIZE];

	if (rec->exec_ns > TRACE_MAX_EXEC || rec->cond > 1)
		return -EINVAL;
	le_put(p, rec->run, 4);
	le_put(p + 4, rec->block, 4);
	le_put(p + 8, rec->exec_ns, 7);
	p[15] = (unsigned char)rec->cond;
	return fwrite(p, sizeof(p), 1, f) == 1 ? 0 : -EIO;
}

/* Accumulator. */

static uint64_t
acc_rand(struct trace_acc *a)
{
	/* xorshift64*: a fixed seed keeps the reservoirs reproducible */
	a->rng ^= a->rng >> 12;
	a->rng ^= a->rng << 25;
	a->rng ^= a->rng >> 27;
	return a->rng * 2685821657736338717ull;
}

static int
acc_grow(struct trace_acc *a, uint32_t want)
{
	uint64_t ncap = a->cap ? a->cap : 1024;
	struct trace_stat *st;
	uint32_t *rv;

	while (ncap < want)
		ncap *= 2;
	if (ncap > a->limit)
		ncap = a->limit;
	st = realloc(a->st, ncap * 2 * sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	a->st = st;
	rv = realloc(a->rv, ncap * 2 * a->res * sizeof(*rv));
	if (rv == NULL)
		return -ENOMEM;
	a->rv = rv;
	memset(a->st + (size_t)a->cap * 2, 0,
	    (ncap - a->cap) * 2 * sizeof(*st));
	a->cap = (uint32_t)ncap;
	return 0;
}

int
trace_acc_init(struct trace_acc *a, uint32_t res, uint32_t limit,
    uint32_t prealloc)
{
	memset(a, 0, sizeof(*a));
	if (res == 0)
		return -EINVAL;
	a->res = res;
	a->limit = limit && limit < TRACE_MAX_BLOCKS ? limit :
	    TRACE_MAX_BLOCKS;
	a->rng = 0x9e3779b97f4a7c15ull;
	if (prealloc > 0)
		return acc_grow(a, prealloc < a->limit ? prealloc : a->limit);
	return 0;
}

void
trace_acc_free(struct trace_acc *a)
{
	free(a->st);
	free(a->rv);
	memset(a, 0, sizeof(*a));
}

int
trace_acc_add(struct trace_acc *a, const struct trace_rec *r)
{
	struct trace_stat *s;
	uint32_t *rv;
	uint64_t k;
	double	x, d;
	int	err;

	if (r->block >= a->limit || r->exec_ns > UINT32_MAX || r->cond > 1)
		return -EINVAL;
	if (r->block >= a->cap && (err = acc_grow(a, r->block + 1)) < 0)
		return err;
	if (r->block >= a->nblocks)
		a->nblocks = r->block + 1;
	s = &a->st[(size_t)r->block * 2 + r->cond];
	rv = a->rv + ((size_t)r->block * 2 + r->cond) * a->res;
	x = (double)r->exec_ns;
	s->count++;
	if (r->exec_ns > s->max)
		s->max = r->exec_ns;
	d = x - s->mean;
	s->mean += d / (double)s->count;
	s->m2 += d * (x - s->mean);
	if (s->count <= a->res)
		rv[s->count - 1] = (uint32_t)r->exec_ns;
	else if ((k = acc_rand(a) % s->count) < a->res)
		rv[k] = (uint32_t)r->exec_ns;
	a->nrec++;
	return 0;
}

uint32_t *
trace_acc_sample(const struct trace_acc *a, uint32_t block,
    unsigned int cond, uint32_t *len)
{
	uint64_t c = a->st[(size_t)block * 2 + cond].count;

	*len = (uint32_t)(c < a->res ? c : a->res);
	return a->rv + ((size_t)block * 2 + cond) * a->res;
}

int
trace_acc_read(struct trace_acc *a, FILE *f, char *err, size_t errlen)
{
	struct trace_reader *r;
	struct trace_rec rec;
	int	n;

	r = malloc(sizeof(*r));
	if (r == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	n = trace_open(r, f, err, errlen);
	while (n >= 0 && (n = trace_next(r, &rec, err, errlen)) > 0) {
		n = trace_acc_add(a, &rec);
		if (n == -ENOMEM)
			snprintf(err, errlen, "out of memory at block %u",
			    rec.block);
		else if (n < 0)
			snprintf(err, errlen, "%s %lu: %s",
			    r->binary ? "record" : "line", r->line - r->binary,
			    rec.block >= a->limit ? "block id over the limit" :
			    "exec_ns above 4294967295 (clustering keeps 32-bit "
			    "samples)");
	}
	free(r);
	return n;
}
