/*
 * est.c - the miss-rate and WCET estimators of est.h.
 *
 * The bound is Graham's argument for a work-conserving list schedule
 * applied to the SM model: follow backwards the chain of events that
 * made the last warp finish; every cycle on it is either a latency on
 * the chain (a segment executing, a request waiting for its turn in the
 * reordering unit or for its data, a barrier) or a cycle in which the
 * chain's next instruction was ready and could not issue, because
 * another instruction issued or the load/store unit was busy.  So
 *
 *	WCET <= L_crit + B + LDST
 *
 * per wave, with L_crit the longest such chain when every latency takes
 * its largest value (computed below, segment by segment and request by
 * request, in an order that respects every edge), B the instructions of
 * the wave and LDST the extra cycles its memory instructions hold the
 * load/store unit.  Nothing in it depends on which warp the scheduler
 * picks, which is what makes it hold for LRR, GTO and RT-PAWS alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "est.h"
#include "l1.h"
#include "order.h"

#define EST_UNKNOWN	(-1)

struct est_warp {
	uint32_t	 seg, nseg;
	const uint32_t	*starts;
	int64_t		 S;		/* start of segment seg, or UNKNOWN */
	int64_t		 C;		/* completion of the segments before */
	uint32_t	 nbar;		/* barriers it has reached */
	int		 presented, done;
};

/* The barrier a block is gathering. */
struct est_block {
	uint32_t	cur;		/* its number */
	uint32_t	arrived, ndone;
	int64_t		maxarr;		/* last arrival */
	int64_t		maxexit;	/* last exit of one of its warps */
	int64_t		release;	/* of barrier cur - 1 */
};

struct est_ctx {
	const struct gpu_trace	*t;
	const struct gpu_cfg	*c;
	struct gpu_order	 o;
	uint8_t			*hit;		/* per request */
	uint32_t		*filler;	/* request that filled the line */
	int64_t			*pres, *rel, *data;
	uint32_t		*segs;		/* segment starts, all warps */
	uint32_t		*segoff;	/* per warp, into segs */
	struct est_warp		*w;
	struct est_block	*b;
	uint32_t		 coal_max;
	uint32_t		 wave_first;	/* first request of the wave */
	int			 mr;		/* use the per-request outcome */
};

static int64_t
est_max(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

uint32_t
gpu_segments(const struct gpu_trace *t, uint32_t wi, uint32_t *starts,
    uint32_t *scratch)
{
	const struct gpu_warp	*w = &t->warps[wi];
	const struct gpu_sinst	*s, *prev = NULL;
	uint32_t		 i, j, n = 0, epoch = 0;
	int			 cut;

	/* scratch[r] == epoch: r was written in the current segment */
	memset(scratch, 0xff, t->nregs * sizeof(*scratch));
	for (i = 0; i < w->nd; i++) {
		s = &t->sinst[t->d[w->d0 + i].sidx];
		cut = i == 0 || prev->cls == GPU_BRANCH ||
		    prev->cls == GPU_BAR;
		for (j = 0; j < s->nrd && !cut; j++)
			cut = scratch[s->rd[j]] == epoch;
		for (j = 0; j < s->nwr && !cut; j++)
			cut = scratch[s->wr[j]] == epoch;
		if (cut) {
			starts[n++] = i;
			epoch = n;
		}
		for (j = 0; j < s->nwr; j++)
			scratch[s->wr[j]] = epoch;
		prev = s;
	}
	return n;
}

/* ---- the miss rate: the reordered stream through the cache ---- */

static int
est_replay(struct est_ctx *x, struct gpu_est *e)
{
	const struct gpu_trace	*t = x->t;
	struct l1		 c;
	uint32_t		 m;
	int64_t			 stamp;
	int			 rc;

	if ((rc = l1_init(&c, &x->c->l1)) != 0)
		return rc;
	for (m = 0; m < x->o.n; m++) {
		const struct gpu_req	*r = &x->o.r[m];
		const struct gpu_dinst	*d = &t->d[r->dyn];

		x->hit[m] = (uint8_t)l1_access(&c, t->lines[d->line0 + r->line],
		    r->store, (int64_t)m, &stamp);
		x->filler[m] = x->hit[m] ? (uint32_t)stamp : m;
	}
	e->l1_accesses = c.accesses;
	e->l1_misses = c.misses;
	e->miss_rate = c.accesses ? (double)c.misses / c.accesses : 0;
	l1_free(&c);
	return 0;
}

/* ---- the bound ---- */

/* Largest extra delay other SMs can add to line r of an instruction. */
static int64_t
est_conflict(const struct est_ctx *x, uint32_t dyn, uint32_t r)
{
	const struct gpu_dinst	*d = &x->t->d[dyn];
	uint32_t		 i, n = 0, m0;

	if (!x->mr)
		return (int64_t)x->c->n_conflict * x->coal_max;
	if (x->t->sinst[d->sidx].cls == GPU_GATOM)
		return (int64_t)x->c->n_conflict * (r + 1);
	m0 = x->o.first[dyn];
	for (i = 0; i <= r; i++)
		n += !x->hit[m0 + i];
	return (int64_t)x->c->n_conflict * n;
}

/* A request's data time once it is released at rel. */
static int64_t
est_data(const struct est_ctx *x, uint32_t m, int64_t rel)
{
	const struct gpu_req	*r = &x->o.r[m];

	if (r->store)
		return rel + 1;
	/* a hit waits for the line's fill, unless an earlier wave (long
	 * finished) filled it */
	if (x->mr && x->hit[m])
		return x->filler[m] < x->wave_first ? rel + x->c->l1_hit :
		    est_max(rel + x->c->l1_hit, x->data[x->filler[m]]);
	return rel + x->c->l_base + est_conflict(x, r->dyn, r->line);
}

static void
est_try_release(struct est_ctx *x, struct est_block *b)
{
	if (b->arrived > 0 && b->arrived + b->ndone == x->t->warps_per_block) {
		/* a warp that exits while the others wait holds them up
		 * until it does (the others' arrivals are later than the
		 * exits before them) */
		b->release = est_max(b->maxarr, b->maxexit) +
		    x->c->lat[GPU_BAR];
		b->cur++;
		b->arrived = 0;
		b->maxarr = 0;
	}
}

/* A warp that has issued its last instruction at t counts as arrived at
 * its block's barriers from then on. */
static void
est_done(struct est_ctx *x, struct est_warp *w, struct est_block *b,
    int64_t t)
{
	w->done = 1;
	b->ndone++;
	b->maxexit = est_max(b->maxexit, t);
	est_try_release(x, b);
}

/* Issue times of segment seg are S + q; present its L1 lines. */
static void
est_present(struct est_ctx *x, uint32_t wi, struct est_warp *w)
{
	const struct gpu_warp	*gw = &x->t->warps[wi];
	uint32_t		 q, r, i0, i1, dyn;

	i0 = w->starts[w->seg];
	i1 = w->seg + 1 < w->nseg ? w->starts[w->seg + 1] : gw->nd;
	for (q = 0; q < i1 - i0; q++) {
		const struct gpu_dinst	*d;

		dyn = gw->d0 + i0 + q;
		d = &x->t->d[dyn];
		if (x->o.first[dyn] != ORDER_NONE)
			for (r = 0; r < d->nlines; r++)
				x->pres[x->o.first[dyn] + r] =
				    w->S + q + 1 + r;
		if (x->t->sinst[d->sidx].cls == GPU_BAR) {
			struct est_block	*b = &x->b[gw->block];

			b->arrived++;
			b->maxarr = est_max(b->maxarr, w->S + q);
			w->nbar++;
			est_try_release(x, b);
		}
	}
	w->presented = 1;
}

/* Completion of one instruction issued at is; UNKNOWN until its
 * requests have their times. */
static int64_t
est_insn_done(const struct est_ctx *x, uint32_t dyn, int64_t is)
{
	const struct gpu_dinst	*d = &x->t->d[dyn];
	const struct gpu_sinst	*s = &x->t->sinst[d->sidx];
	int64_t			 c = is + 1, v;
	uint32_t		 r, m;

	if (!GPU_IS_GLOBAL(s->cls))
		return is + gpu_lat(x->c, s);
	for (r = 0; r < d->nlines; r++) {
		if (s->cls == GPU_GATOM) {
			/* no L1: straight to memory; red is not waited for */
			v = s->nwr ? is + 1 + r + x->c->l_base +
			    est_conflict(x, dyn, r) : is + 2 + r;
		} else {
			m = x->o.first[dyn] + r;
			if ((v = s->cls == GPU_GST ? x->rel[m] : x->data[m]) ==
			    EST_UNKNOWN)
				return EST_UNKNOWN;
			if (s->cls == GPU_GST)
				v++;
		}
		c = est_max(c, v);
	}
	return c;
}

/* Compute what warp wi can; 1 if it got further. */
static int
est_advance(struct est_ctx *x, uint32_t wi)
{
	struct est_warp		*w = &x->w[wi];
	const struct gpu_warp	*gw = &x->t->warps[wi];
	struct est_block	*b = &x->b[gw->block];
	uint32_t		 q, i0, i1;
	int64_t			 c, v, last;
	int			 prog = 0;

	while (!w->done) {
		if (w->S == EST_UNKNOWN) {
			/* after a barrier: wait for its release */
			if (b->cur < w->nbar)
				return prog;
			if (w->seg == w->nseg) {
				/* the barrier ended the warp's stream */
				est_done(x, w, b, b->release);
				return 1;
			}
			w->S = est_max(w->C, b->release);
		}
		if (!w->presented) {
			est_present(x, wi, w);
			prog = 1;
		}
		i0 = w->starts[w->seg];
		i1 = w->seg + 1 < w->nseg ? w->starts[w->seg + 1] : gw->nd;
		c = w->S + 1;
		for (q = 0; q < i1 - i0; q++) {
			if ((v = est_insn_done(x, gw->d0 + i0 + q, w->S + q)) ==
			    EST_UNKNOWN)
				return prog;
			c = est_max(c, v);
		}
		w->C = c;
		w->presented = 0;
		last = w->S + (int64_t)(i1 - i0) - 1;	/* its last issue */
		w->S = x->t->sinst[x->t->d[gw->d0 + i1 - 1].sidx].cls ==
		    GPU_BAR ? EST_UNKNOWN : c;
		if (++w->seg == w->nseg && w->S != EST_UNKNOWN)
			est_done(x, w, b, last);
		prog = 1;
	}
	return prog;
}

/* The chain length of one wave, from its start. */
static int
est_wave(struct est_ctx *x, uint32_t wv, int64_t *lcrit)
{
	const struct gpu_trace	*t = x->t;
	uint32_t		 b0, b1, w0, w1, i, m, mend, ndone;
	int64_t			 prev = INT64_MIN / 4, rel;
	int			 prog;

	b0 = wv * x->o.wave_blocks;
	b1 = b0 + x->o.wave_blocks < t->nblocks ? b0 + x->o.wave_blocks :
	    t->nblocks;
	w0 = b0 * t->warps_per_block;
	w1 = b1 * t->warps_per_block;
	for (i = w0; i < w1; i++) {
		memset(&x->w[i], 0, sizeof(x->w[i]));
		x->w[i].starts = x->segs + x->segoff[i];
		x->w[i].nseg = x->segoff[i + 1] - x->segoff[i];
		x->w[i].S = x->w[i].C = x->c->skew;
		if (x->w[i].nseg == 0)
			est_done(x, &x->w[i], &x->b[t->warps[i].block],
			    x->c->skew);
	}
	m = x->wave_first = x->o.wave_req[wv];
	mend = x->o.wave_req[wv + 1];
	for (i = m; i < mend; i++)
		x->pres[i] = x->rel[i] = x->data[i] = EST_UNKNOWN;
	for (;;) {
		prog = 0;
		for (i = w0, ndone = 0; i < w1; i++) {
			prog |= est_advance(x, i);
			ndone += x->w[i].done;
		}
		/* the reordering unit: one request a cycle, in order */
		for (; m < mend && x->pres[m] != EST_UNKNOWN; m++) {
			rel = est_max(x->pres[m], prev + 1);
			x->rel[m] = rel;
			x->data[m] = est_data(x, m, rel);
			prev = rel;
			prog = 1;
		}
		if (ndone == w1 - w0)
			break;
		if (!prog)
			return -EDEADLK;
	}
	*lcrit = 0;
	for (i = w0; i < w1; i++)
		*lcrit = est_max(*lcrit, x->w[i].C);
	return 0;
}

/* Instructions and extra load/store-unit cycles of a wave. */
static int64_t
est_busy(const struct est_ctx *x, uint32_t wv)
{
	const struct gpu_trace	*t = x->t;
	uint32_t		 b0, b1, i;
	int64_t			 n = 0;

	b0 = wv * x->o.wave_blocks;
	b1 = b0 + x->o.wave_blocks < t->nblocks ? b0 + x->o.wave_blocks :
	    t->nblocks;
	for (i = t->warps[b0 * t->warps_per_block].d0;
	    i < t->warps[b1 * t->warps_per_block - 1].d0 +
	    t->warps[b1 * t->warps_per_block - 1].nd; i++) {
		n++;
		if (GPU_IS_GLOBAL(t->sinst[t->d[i].sidx].cls) &&
		    t->d[i].nlines > 1)
			n += t->d[i].nlines - 1;
	}
	return n;
}

static int
est_bound(struct est_ctx *x, int mr, uint64_t *cycles)
{
	int64_t		lcrit, total = 0;
	uint32_t	wv;
	int		rc;

	x->mr = mr;
	memset(x->b, 0, x->t->nblocks * sizeof(*x->b));
	for (wv = 0; wv < x->o.nwaves; wv++) {
		if ((rc = est_wave(x, wv, &lcrit)) != 0)
			return rc;
		total += lcrit + est_busy(x, wv);
	}
	*cycles = (uint64_t)total;
	return 0;
}

/* ---- the paper's recurrence, literally ---- */

/* Eq. 3 (mr < 0) or Eq. 4 with the miss rate mr. */
static double
est_eq34(const struct est_ctx *x, double mr)
{
	double	full;

	full = x->c->l_base + (double)x->coal_max * x->c->n_conflict;

	return x->coal_max + (mr < 0 ? full : mr * full);
}

static uint64_t
est_eq2(const struct est_ctx *x, double mr)
{
	const struct gpu_trace	*t = x->t;
	double			 lmem = est_eq34(x, mr), total = 0;
	double			*T, *LI, *LE, end, fin, li, le, a, b;
	uint32_t		 wv, b0, b1, i, j, q, maxseg, i0, i1;

	T = calloc(3 * (size_t)t->nwarps + 1, sizeof(*T));
	if (T == NULL)
		return 0;
	LI = T + t->nwarps;
	LE = LI + t->nwarps;
	for (wv = 0; wv < x->o.nwaves; wv++) {
		b0 = wv * x->o.wave_blocks;
		b1 = b0 + x->o.wave_blocks < t->nblocks ?
		    b0 + x->o.wave_blocks : t->nblocks;
		maxseg = 0;
		for (i = b0 * t->warps_per_block;
		    i < b1 * t->warps_per_block; i++)
			if (x->segoff[i + 1] - x->segoff[i] > maxseg)
				maxseg = x->segoff[i + 1] - x->segoff[i];
		/* Eq. 1: T00, then one warp after another */
		end = x->c->skew;
		fin = 0;
		for (j = 0; j < maxseg; j++) {
			for (i = b0 * t->warps_per_block;
			    i < b1 * t->warps_per_block; i++) {
				const struct gpu_warp	*gw = &t->warps[i];
				uint32_t		 ns = x->segoff[i + 1] -
				    x->segoff[i];

				if (j >= ns)
					continue;
				i0 = x->segs[x->segoff[i] + j];
				i1 = j + 1 < ns ? x->segs[x->segoff[i] + j + 1] :
				    gw->nd;
				li = i1 - i0;
				le = 0;
				for (q = i0; q < i1; q++) {
					const struct gpu_sinst	*s = &t->sinst[
					    t->d[gw->d0 + q].sidx];
					double l = GPU_IS_GLOBAL(s->cls) ?
					    lmem : gpu_lat(x->c, s);

					le = l > le ? l : le;
				}
				/* Eq. 2: after the previous warp's issue and
				 * this warp's previous segment */
				a = end;
				b = j == 0 ? x->c->skew : T[i] + LI[i] + LE[i];
				T[i] = a > b ? a : b;
				LI[i] = li;
				LE[i] = le;
				end = T[i] + li;
				if (T[i] + li + le > fin)
					fin = T[i] + li + le;
			}
		}
		total += fin;
	}
	free(T);
	return (uint64_t)(total + 0.5);
}

/* ---- the whole estimate ---- */

static int
est_alloc(struct est_ctx *x)
{
	const struct gpu_trace	*t = x->t;
	uint32_t		 n = x->o.n, i, *scratch;

	x->hit = malloc(n + 1);
	x->filler = malloc((size_t)n * sizeof(*x->filler) + 1);
	x->pres = malloc((size_t)n * sizeof(*x->pres) + 1);
	x->rel = malloc((size_t)n * sizeof(*x->rel) + 1);
	x->data = malloc((size_t)n * sizeof(*x->data) + 1);
	x->segs = malloc((size_t)t->nd * sizeof(*x->segs) + 1);
	x->segoff = malloc(((size_t)t->nwarps + 1) * sizeof(*x->segoff));
	x->w = malloc((size_t)t->nwarps * sizeof(*x->w) + 1);
	x->b = malloc((size_t)t->nblocks * sizeof(*x->b) + 1);
	scratch = malloc((size_t)t->nregs * sizeof(*scratch) + 1);
	if (!x->hit || !x->filler || !x->pres || !x->rel || !x->data ||
	    !x->segs || !x->segoff || !x->w || !x->b || !scratch) {
		free(scratch);
		return -ENOMEM;
	}
	x->segoff[0] = 0;
	for (i = 0; i < t->nwarps; i++)
		x->segoff[i + 1] = x->segoff[i] + gpu_segments(t, i,
		    x->segs + x->segoff[i], scratch);
	free(scratch);
	return 0;
}

static void
est_free(struct est_ctx *x)
{
	free(x->hit);
	free(x->filler);
	free(x->pres);
	free(x->rel);
	free(x->data);
	free(x->segs);
	free(x->segoff);
	free(x->w);
	free(x->b);
	gpu_order_free(&x->o);
}

int
gpu_estimate(const struct gpu_trace *t, const struct gpu_cfg *c,
    struct gpu_est *e, char *err, size_t errlen)
{
	struct est_ctx	x;
	uint32_t	i, wb;
	int		rc;

	memset(e, 0, sizeof(*e));
	memset(&x, 0, sizeof(x));
	if ((rc = gpu_cfg_check(c, err, errlen)) != 0)
		return rc;
	if ((wb = gpu_wave_blocks(c, t->warps_per_block, c->max_warps)) == 0) {
		snprintf(err, errlen, "a block of %u warps does not fit in an "
		    "SM of %u warps", t->warps_per_block, c->max_warps);
		return -EINVAL;
	}
	x.t = t;
	x.c = c;
	if ((rc = gpu_order_build(t, wb, &x.o)) != 0 ||
	    (rc = est_alloc(&x)) != 0 || (rc = est_replay(&x, e)) != 0)
		goto out;
	e->warps = t->nwarps;
	e->waves = x.o.nwaves;
	e->wave_blocks = wb;
	e->instructions = t->nd;
	e->segments = x.segoff[t->nwarps];
	e->global_requests = gpu_trace_requests(t);
	for (i = 0; i < t->nd; i++)
		if (GPU_IS_GLOBAL(t->sinst[t->d[i].sidx].cls) &&
		    t->d[i].nlines > x.coal_max)
			x.coal_max = t->d[i].nlines;
	e->coal_max = x.coal_max;
	if ((rc = est_bound(&x, 0, &e->wcet_no_mr)) != 0 ||
	    (rc = est_bound(&x, 1, &e->wcet_mr)) != 0)
		goto out;
	e->eq2_no_mr = est_eq2(&x, -1);
	e->eq2_mr = est_eq2(&x, e->miss_rate);
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (rc == -EDEADLK)
		snprintf(err, errlen, "internal error: the bound's events "
		    "depend on each other in a cycle");
	est_free(&x);
	return rc;
}
