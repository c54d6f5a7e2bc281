/*
 * profile.c - the .bwk kernel profile (doc/profile.md): parse and format
 * on memory buffers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "tok.h"

#define PROFILE_MAX_TOKENS	8

/* What the parser has seen, with the line of each definition. */
struct profile_parse {
	struct profile	*p;
	char		*err;
	size_t		 errlen;
	unsigned int	 line;
	int		 have_bwk, have_kernel, have_blocks, have_conc,
			 have_period;
	unsigned int	 cluster_line[WCET_MAX_CLUSTERS];
	unsigned int	 interval_line[PROGRESS_MAX_INTERVALS];
};

static int profile_error(struct profile_parse *, unsigned int, const char *,
    ...) __attribute__((format(printf, 3, 4)));

static int
profile_error(struct profile_parse *ps, unsigned int line, const char *fmt,
    ...)
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

/* "key=NUMBER" */
static int
profile_keyed(const struct tok *t, const char *key, uint64_t max,
    uint64_t *v)
{
	size_t	kl = strlen(key);

	if (t->len <= kl + 1 || memcmp(t->s, key, kl) != 0 || t->s[kl] != '=')
		return -1;
	return tok_u64(t->s + kl + 1, t->len - kl - 1, max, v);
}

static int
profile_scalar(struct profile_parse *ps, const struct tok *tok,
    int ntok, int *have, uint64_t min, uint64_t max, uint64_t *v)
{
	const char	*what = "";

	if (*have)
		return profile_error(ps, ps->line, "duplicate '%.*s'",
		    (int)tok[0].len, tok[0].s);
	if (ntok != 2)
		return profile_error(ps, ps->line, "'%.*s' takes one value",
		    (int)tok[0].len, tok[0].s);
	if (tok_u64(tok[1].s, tok[1].len, UINT64_MAX, v) != 0)
		what = "bad number";
	else if (*v < min || *v > max)
		what = "out of range";
	if (*what)
		return profile_error(ps, ps->line, "%s '%.*s' for '%.*s'",
		    what, (int)tok[1].len, tok[1].s, (int)tok[0].len,
		    tok[0].s);
	*have = 1;
	return 0;
}

static int
profile_cluster(struct profile_parse *ps, const struct tok *tok,
    int ntok)
{
	struct profile	*p = ps->p;
	uint64_t	 id, e0, e1;

	if (ntok != 4)
		return profile_error(ps, ps->line,
		    "expected 'cluster ID e0=NS e1=NS'");
	if (tok_u64(tok[1].s, tok[1].len, UINT64_MAX, &id) != 0)
		return profile_error(ps, ps->line, "bad cluster id '%.*s'",
		    (int)tok[1].len, tok[1].s);
	if (id >= WCET_MAX_CLUSTERS)
		return profile_error(ps, ps->line,
		    "cluster id %llu out of range (0..%u)",
		    (unsigned long long)id, WCET_MAX_CLUSTERS - 1);
	if (ps->cluster_line[id])
		return profile_error(ps, ps->line,
		    "duplicate cluster %llu (first on line %u)",
		    (unsigned long long)id, ps->cluster_line[id]);
	if (profile_keyed(&tok[2], "e0", UINT64_MAX, &e0) != 0)
		return profile_error(ps, ps->line, "bad e0 '%.*s'",
		    (int)tok[2].len, tok[2].s);
	if (profile_keyed(&tok[3], "e1", UINT64_MAX, &e1) != 0)
		return profile_error(ps, ps->line, "bad e1 '%.*s'",
		    (int)tok[3].len, tok[3].s);
	if (e0 == 0)
		return profile_error(ps, ps->line, "e0 must be > 0");
	if (e0 > e1)
		return profile_error(ps, ps->line, "e0 %llu > e1 %llu",
		    (unsigned long long)e0, (unsigned long long)e1);
	ps->cluster_line[id] = ps->line;
	p->e0[id] = e0;
	p->e1[id] = e1;
	if (id + 1 > p->nclusters)
		p->nclusters = (unsigned int)id + 1;
	return 0;
}

static int
profile_interval(struct profile_parse *ps, const struct tok *tok,
    int ntok)
{
	struct profile	*p = ps->p;
	uint64_t	 first, id;

	if (ntok != 3)
		return profile_error(ps, ps->line,
		    "expected 'interval FIRST_BLOCK ID'");
	if (tok_u64(tok[1].s, tok[1].len, UINT32_MAX, &first) != 0)
		return profile_error(ps, ps->line, "bad block number '%.*s'",
		    (int)tok[1].len, tok[1].s);
	if (tok_u64(tok[2].s, tok[2].len, UINT64_MAX, &id) != 0)
		return profile_error(ps, ps->line, "bad cluster id '%.*s'",
		    (int)tok[2].len, tok[2].s);
	if (p->nintervals == 0 && first != 0)
		return profile_error(ps, ps->line,
		    "the first interval must start at block 0");
	if (p->nintervals > 0 && first <= p->first[p->nintervals - 1])
		return profile_error(ps, ps->line,
		    "interval start %llu not above the previous one (%u)",
		    (unsigned long long)first, p->first[p->nintervals - 1]);
	if (p->nintervals == PROGRESS_MAX_INTERVALS)
		return profile_error(ps, ps->line, "more than %u intervals",
		    PROGRESS_MAX_INTERVALS);
	if (id >= WCET_MAX_CLUSTERS)
		return profile_error(ps, ps->line, "unknown cluster %llu",
		    (unsigned long long)id);
	ps->interval_line[p->nintervals] = ps->line;
	p->first[p->nintervals] = (uint32_t)first;
	p->cluster[p->nintervals] = (uint16_t)id;
	p->nintervals++;
	return 0;
}

/* "k=2.3": at most three decimals, read exactly as thousandths. */
static int
profile_milli(const struct tok *t, uint32_t *v)
{
	uint64_t	ip, fp = 0;
	size_t		i, dot, nf;

	if (t->len < 3 || memcmp(t->s, "k=", 2) != 0)
		return -1;
	for (dot = 2; dot < t->len && t->s[dot] != '.'; dot++)
		;
	if (tok_u64(t->s + 2, dot - 2, 100, &ip) != 0)
		return -1;
	nf = dot < t->len ? t->len - dot - 1 : 0;
	if (dot < t->len && (nf == 0 || nf > 3 ||
	    tok_u64(t->s + dot + 1, nf, 999, &fp) != 0))
		return -1;
	for (i = nf; i < 3; i++)
		fp *= 10;
	*v = (uint32_t)(ip * 1000 + fp);
	return *v >= 1000 && *v <= 100000 ? 0 : -1;
}

/* One key=value of a gpu line into g. */
static int
profile_gpu_field(struct profile_parse *ps, const struct tok *t,
    struct profile_gpu *g, unsigned int *seen)
{
	static const char *const keys[] = { "a_ns", "class", "b_ns", "k",
	    "deadline_ns", "period_ns" };
	const char	*eq = memchr(t->s, '=', t->len);
	unsigned int	 i;
	uint64_t	*num[] = { &g->a_ns, NULL, &g->b_ns, NULL,
	    &g->deadline_ns, &g->period_ns };
	int		 bad;

	for (i = 0; eq != NULL && i < 6; i++)
		if (strlen(keys[i]) == (size_t)(eq - t->s) &&
		    memcmp(keys[i], t->s, (size_t)(eq - t->s)) == 0)
			break;
	if (eq == NULL || i == 6)
		return profile_error(ps, ps->line, "unknown gpu field '%.*s' "
		    "(a_ns= class= b_ns= k= deadline_ns= period_ns=)",
		    (int)(t->len > 32 ? 32 : t->len), t->s);
	if (*seen & (1u << i))
		return profile_error(ps, ps->line, "duplicate gpu field '%s'",
		    keys[i]);
	*seen |= 1u << i;
	if (i == 1) {
		bad = !tok_is(t, "class=ci") && !tok_is(t, "class=mi");
		g->mi = tok_is(t, "class=mi");
	} else if (i == 3)
		bad = profile_milli(t, &g->k_milli) != 0;
	else
		bad = profile_keyed(t, keys[i], 3600000000000ull, num[i]) != 0 ||
		    (*num[i] == 0 && i != 2);
	if (bad)
		return profile_error(ps, ps->line, "bad gpu field '%.*s'",
		    (int)(t->len > 32 ? 32 : t->len), t->s);
	g->has_b |= i == 2;
	return 0;
}

/* gpu a_ns=N class=ci|mi [b_ns=N] [k=X] [deadline_ns=N] [period_ns=N] */
static int
profile_gpu(struct profile_parse *ps, const struct tok *tok,
    int ntok)
{
	struct profile_gpu	*g = &ps->p->gpu;
	unsigned int		 seen = 0;
	int			 i, rc;

	if (g->present)
		return profile_error(ps, ps->line, "duplicate 'gpu'");
	for (i = 1; i < ntok; i++)
		if ((rc = profile_gpu_field(ps, &tok[i], g, &seen)) != 0)
			return rc;
	if ((seen & 3) != 3)
		return profile_error(ps, ps->line, "'gpu' needs a_ns= and "
		    "class=");
	if (g->period_ns != 0 && g->deadline_ns > g->period_ns)
		return profile_error(ps, ps->line, "gpu deadline_ns above "
		    "period_ns");
	g->present = 1;
	return 0;
}

static int
profile_directive(struct profile_parse *ps, const struct tok *tok,
    int ntok)
{
	struct profile	*p = ps->p;
	uint64_t	 v;
	int		 rc;

	if (!ps->have_bwk && !tok_is(&tok[0], "bwk"))
		return profile_error(ps, ps->line,
		    "the first directive must be 'bwk 1'");
	if (tok_is(&tok[0], "bwk")) {
		if (ps->have_bwk)
			return profile_error(ps, ps->line, "duplicate 'bwk'");
		if ((rc = profile_scalar(ps, tok, ntok, &ps->have_bwk, 1, 1,
		    &v)) != 0)
			return profile_error(ps, ps->line,
			    "expected 'bwk 1' (format version 1)");
		return 0;
	}
	if (tok_is(&tok[0], "kernel")) {
		if (ps->have_kernel)
			return profile_error(ps, ps->line,
			    "duplicate 'kernel'");
		if (ntok != 2 || tok[1].len > PROFILE_MAX_NAME)
			return profile_error(ps, ps->line,
			    "expected 'kernel NAME' (at most %u characters)",
			    PROFILE_MAX_NAME);
		memcpy(p->name, tok[1].s, tok[1].len);
		p->name[tok[1].len] = '\0';
		ps->have_kernel = 1;
		return 0;
	}
	if (tok_is(&tok[0], "blocks")) {
		rc = profile_scalar(ps, tok, ntok, &ps->have_blocks, 1,
		    UINT32_MAX, &v);
		p->blocks = (uint32_t)v;
		return rc;
	}
	if (tok_is(&tok[0], "concurrency")) {
		rc = profile_scalar(ps, tok, ntok, &ps->have_conc, 1,
		    UINT32_MAX, &v);
		p->concurrency = (uint32_t)v;
		return rc;
	}
	if (tok_is(&tok[0], "period_ns")) {
		rc = profile_scalar(ps, tok, ntok, &ps->have_period, 1,
		    UINT64_MAX, &v);
		p->period_ns = v;
		return rc;
	}
	if (tok_is(&tok[0], "cluster"))
		return profile_cluster(ps, tok, ntok);
	if (tok_is(&tok[0], "interval"))
		return profile_interval(ps, tok, ntok);
	if (tok_is(&tok[0], "gpu"))
		return profile_gpu(ps, tok, ntok);
	return profile_error(ps, ps->line, "unknown directive '%.*s'",
	    (int)(tok[0].len > 32 ? 32 : tok[0].len), tok[0].s);
}

/* Whole-file checks, reported at the line they concern. */
static int
profile_finish(struct profile_parse *ps)
{
	struct profile	*p = ps->p;
	unsigned int	 i, used[WCET_MAX_CLUSTERS] = { 0 };
	static const char *const names[] = { "bwk", "kernel", "blocks",
	    "concurrency" };
	int		 have[4];

	have[0] = ps->have_bwk;
	have[1] = ps->have_kernel;
	have[2] = ps->have_blocks;
	have[3] = ps->have_conc;
	for (i = 0; i < 4; i++)
		if (!have[i])
			return profile_error(ps, ps->line, "missing '%s'",
			    names[i]);
	if (p->nclusters == 0)
		return profile_error(ps, ps->line, "missing 'cluster'");
	if (p->nintervals == 0)
		return profile_error(ps, ps->line, "missing 'interval'");
	for (i = 0; i < p->nclusters; i++)
		if (!ps->cluster_line[i])
			return profile_error(ps, ps->line,
			    "missing cluster %u (ids run 0..%u)", i,
			    p->nclusters - 1);
	for (i = 0; i < p->nintervals; i++) {
		if (p->first[i] >= p->blocks)
			return profile_error(ps, ps->interval_line[i],
			    "interval start %u beyond the %u blocks",
			    p->first[i], p->blocks);
		if (p->cluster[i] >= p->nclusters ||
		    !ps->cluster_line[p->cluster[i]])
			return profile_error(ps, ps->interval_line[i],
			    "unknown cluster %u", p->cluster[i]);
		used[p->cluster[i]] = 1;
	}
	for (i = 0; i < p->nclusters; i++)
		if (!used[i])
			return profile_error(ps, ps->cluster_line[i],
			    "cluster %u is used by no interval", i);
	return 0;
}

int
profile_parse(const char *buf, size_t len, struct profile *p, char *err,
    size_t errlen)
{
	struct profile_parse	 ps;
	struct tok		 tok[PROFILE_MAX_TOKENS];
	size_t			 pos = 0, eol, i;
	int			 n, rc;

	memset(p, 0, sizeof(*p));
	memset(&ps, 0, sizeof(ps));
	p->period_ns = PROFILE_DEFAULT_PERIOD;
	ps.p = p;
	ps.err = err;
	ps.errlen = errlen;
	if (errlen)
		err[0] = '\0';
	while (pos < len) {
		ps.line++;
		for (eol = pos; eol < len && buf[eol] != '\n'; eol++)
			;
		for (i = pos; i < eol; i++)
			if ((unsigned char)buf[i] < 0x20 && buf[i] != '\t' &&
			    buf[i] != '\r')
				return profile_error(&ps, ps.line,
				    "control character in the text");
		n = tok_split(buf + pos, eol - pos, tok, PROFILE_MAX_TOKENS);
		if (n < 0)
			return profile_error(&ps, ps.line,
			    "too many fields");
		if (n > 0 && (rc = profile_directive(&ps, tok, n)) != 0)
			return rc;
		pos = eol + 1;
	}
	if (ps.line == 0)
		ps.line = 1;
	return profile_finish(&ps);
}

int
profile_format(const struct profile *p, char *buf, size_t len)
{
	size_t		 off = 0;
	unsigned int	 i;
	int		 n;

#define PROFILE_PUT(...) do {						\
	n = snprintf(buf + off, off < len ? len - off : 0,		\
	    __VA_ARGS__);						\
	if (n < 0)							\
		return -EINVAL;						\
	off += (size_t)n;						\
} while (0)

	/* only what profile_parse accepts, so the output reads back */
	if (p->name[0] == '\0' || p->nclusters < 1 ||
	    p->nclusters > WCET_MAX_CLUSTERS || p->nintervals < 1 ||
	    p->nintervals > PROGRESS_MAX_INTERVALS)
		return -EINVAL;
	for (i = 0; i < sizeof(p->name) && p->name[i]; i++)
		if ((unsigned char)p->name[i] <= ' ' || p->name[i] == '#')
			return -EINVAL;
	if (i == sizeof(p->name))
		return -EINVAL;
	if (len == 0)
		buf = NULL;
	PROFILE_PUT("bwk 1\nkernel %s\nblocks %u\nconcurrency %u\n"
	    "period_ns %llu\n", p->name, p->blocks, p->concurrency,
	    (unsigned long long)p->period_ns);
	for (i = 0; i < p->nclusters; i++)
		PROFILE_PUT("cluster %u e0=%llu e1=%llu\n", i,
		    (unsigned long long)p->e0[i],
		    (unsigned long long)p->e1[i]);
	for (i = 0; i < p->nintervals; i++)
		PROFILE_PUT("interval %u %u\n", p->first[i], p->cluster[i]);
	if (p->gpu.present) {
		PROFILE_PUT("gpu a_ns=%llu class=%s",
		    (unsigned long long)p->gpu.a_ns, p->gpu.mi ? "mi" : "ci");
		if (p->gpu.has_b)
			PROFILE_PUT(" b_ns=%llu",
			    (unsigned long long)p->gpu.b_ns);
		if (p->gpu.k_milli != 0)
			PROFILE_PUT(" k=%u.%03u", p->gpu.k_milli / 1000,
			    p->gpu.k_milli % 1000);
		if (p->gpu.deadline_ns != 0)
			PROFILE_PUT(" deadline_ns=%llu",
			    (unsigned long long)p->gpu.deadline_ns);
		if (p->gpu.period_ns != 0)
			PROFILE_PUT(" period_ns=%llu",
			    (unsigned long long)p->gpu.period_ns);
		PROFILE_PUT("\n");
	}
#undef PROFILE_PUT
	if (off >= len || off > INT32_MAX)
		return -ENOSPC;
	return (int)off;
}

int
profile_to_model(const struct profile *p, struct wcet_kernel *k,
    struct progress_table *t)
{
	unsigned int	i;
	int		rc;

	memset(k, 0, sizeof(*k));
	k->nclusters = p->nclusters;
	k->m = p->concurrency;
	k->period = (double)p->period_ns;
	for (i = 0; i < p->nclusters && i < WCET_MAX_CLUSTERS; i++) {
		k->c[i].e0 = (double)p->e0[i];
		k->c[i].e1 = (double)p->e1[i];
	}
	if ((rc = wcet_prepare(k)) != 0)
		return rc;
	return progress_table_init(t, p->blocks, p->nclusters, p->nintervals,
	    p->first, p->cluster);
}
