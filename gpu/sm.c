/*
 * sm.c - the cycle-level SM model of sm.h.
 *
 * Each cycle the scheduler orders the warps that have started and not
 * exited (wsched.h) and the first one whose next instruction is ready
 * issues: its registers and its dest registers free on the scoreboard,
 * its last branch resolved, its barrier released and, for a global
 * access, the load/store unit free.  Times of the future (when a load's
 * data arrives) are computed when the instruction issues or, with the
 * reordering unit, when its lines are released; a cycle in which nothing
 * can issue is skipped up to the next one in which something can, once
 * the scheduler's state has settled.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l1.h"
#include "order.h"
#include "wsched.h"
#include "sm.h"

#define SM_INF		(INT64_MAX / 4)
#define SM_MAX_REGS	(16u << 20)	/* scoreboard entries */

enum { SM_OFF, SM_RUN, SM_BAR, SM_EXITED, SM_DONE };

struct sm_warp {
	uint32_t	 k, tw, id, pc, bpos;
	uint64_t	 age;
	int		 state;
	int64_t		 start, ctrl, bar_ready, done_t;
	uint32_t	 pending;	/* instructions waiting for the
					 * reordering unit */
	int64_t		*reg;		/* ready time per register */
};

struct sm_block {
	uint32_t	arrived, ndone, pos;
	int64_t		maxarr;		/* last arrival at the barrier */
	int64_t		maxexit;	/* last exit of one of its warps */
};

struct sm_kstate {
	const struct sm_kernel	*kd;
	uint32_t		 base;		/* first warp slot */
	uint32_t		 wave_blocks, nwaves, wave;
	uint32_t		 wave_warps, wave_done;
	int64_t			 wave_end;
	int			 finished;
	uint32_t		*slot_of;	/* trace warp -> slot */
	struct sm_block		*blk;
	int64_t			*regs;
};

struct sm {
	const struct gpu_cfg	*c;
	const struct sm_opts	*o;
	unsigned int		 nk;
	struct sm_kstate	 ks[SM_MAX_KERNELS];
	uint32_t		 nslots;
	struct sm_warp		*w;
	uint32_t		*byage, nbyage;
	uint64_t		 next_age;
	struct sched		 sched;
	struct l1		 l1;
	int64_t			 ldst_free;
	/* the reordering unit */
	struct gpu_order	 ord;
	int64_t			*pres, *data;
	uint32_t		 rm;
	int64_t			 prev_rel, rdelta;
	uint64_t		 rng;
};

static void	sm_exit(struct sm *, struct sm_warp *, int64_t);

static uint64_t
sm_rand(struct sm *m)
{
	uint64_t	z = (m->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in 0..n, or n in an extreme run. */
static uint32_t
sm_uniform(struct sm *m, uint32_t n)
{
	if (m->o->extreme)
		return n;
	return n == 0 ? 0 : (uint32_t)(sm_rand(m) % ((uint64_t)n + 1));
}

static int64_t
sm_max(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static const struct gpu_dinst *
sm_dinst(const struct sm *m, const struct sm_warp *w)
{
	const struct gpu_trace	*t = m->ks[w->k].kd->t;

	return &t->d[t->warps[w->tw].d0 + w->pc];
}

/* The resident warps, oldest first (insertion: only at dispatch). */
static void
sm_byage(struct sm *m)
{
	uint32_t	i, j;

	m->nbyage = 0;
	for (i = 0; i < m->nslots; i++) {
		if (m->w[i].state == SM_OFF || m->w[i].state == SM_DONE)
			continue;
		for (j = m->nbyage; j > 0 &&
		    m->w[m->byage[j - 1]].age > m->w[i].age; j--)
			m->byage[j] = m->byage[j - 1];
		m->byage[j] = i;
		m->nbyage++;
	}
}

static void
sm_dispatch(struct sm *m, unsigned int k, int64_t t0)
{
	struct sm_kstate	*ks = &m->ks[k];
	const struct gpu_trace	*t = ks->kd->t;
	uint32_t		 b0, nb, p, i, j, pos[1024], wpb, tmp;

	wpb = t->warps_per_block;
	b0 = ks->wave * ks->wave_blocks;
	nb = b0 + ks->wave_blocks < t->nblocks ? ks->wave_blocks :
	    t->nblocks - b0;
	for (p = 0; p < nb; p++)
		pos[p] = p;
	/* which runtime warp ids a block gets ([Reorder] Table 1) */
	for (p = nb; m->o->shuffle && p > 1; p--) {
		j = (uint32_t)(sm_rand(m) % p);
		tmp = pos[p - 1];
		pos[p - 1] = pos[j];
		pos[j] = tmp;
	}
	for (p = 0; p < nb; p++) {
		memset(&ks->blk[p], 0, sizeof(ks->blk[p]));
		ks->blk[p].pos = pos[p];
		for (i = 0; i < wpb; i++) {
			uint32_t	 s = ks->base + pos[p] * wpb + i;
			struct sm_warp	*w = &m->w[s];

			memset(w, 0, sizeof(*w));
			w->k = k;
			w->tw = (b0 + p) * wpb + i;
			w->id = s;
			w->bpos = p;
			w->age = m->next_age++;
			w->state = SM_RUN;
			w->start = t0 + sm_uniform(m, m->c->skew);
			w->done_t = w->start;
			w->reg = ks->regs + (size_t)(pos[p] * wpb + i) *
			    t->nregs;
			for (j = 0; j < t->nregs; j++)
				w->reg[j] = 0;
			ks->slot_of[w->tw] = s;
		}
	}
	ks->wave_warps = nb * wpb;
	ks->wave_done = 0;
	ks->wave_end = t0;
	sm_byage(m);
	/* a warp with nothing to run has left already */
	for (i = 0; i < nb * wpb; i++) {
		struct sm_warp	*w = &m->w[ks->base + i];

		if (w->state == SM_RUN && t->warps[w->tw].nd == 0)
			sm_exit(m, w, w->start);
	}
}

static void
sm_check_done(struct sm *m, struct sm_warp *w)
{
	struct sm_kstate	*ks = &m->ks[w->k];

	if (w->state != SM_EXITED || w->pending != 0)
		return;
	w->state = SM_DONE;
	ks->wave_end = sm_max(ks->wave_end, w->done_t);
	if (++ks->wave_done < ks->wave_warps)
		return;
	if (++ks->wave < ks->nwaves)
		sm_dispatch(m, w->k, ks->wave_end);
	else {
		ks->finished = 1;
		sm_byage(m);
	}
}

static void	sm_bar_check(struct sm *, unsigned int, uint32_t);

/*
 * A warp that has issued its last instruction at t: it counts as arrived
 * at its block's barriers from then on, so a barrier the others are
 * waiting at releases after t at the earliest.
 */
static void
sm_exit(struct sm *m, struct sm_warp *w, int64_t t)
{
	struct sm_kstate	*ks = &m->ks[w->k];

	w->state = SM_EXITED;
	ks->blk[w->bpos].ndone++;
	ks->blk[w->bpos].maxexit = sm_max(ks->blk[w->bpos].maxexit, t);
	sm_bar_check(m, w->k, w->bpos);
	sm_check_done(m, w);
}

/* Release a block's barrier once every warp has reached it or exited. */
static void
sm_bar_check(struct sm *m, unsigned int k, uint32_t bpos)
{
	struct sm_kstate	*ks = &m->ks[k];
	struct sm_block		*b = &ks->blk[bpos];
	const struct gpu_trace	*t = ks->kd->t;
	uint32_t		 wpb = t->warps_per_block, i;
	int64_t			 rel;

	if (b->arrived == 0 || b->arrived + b->ndone < wpb)
		return;
	rel = sm_max(b->maxarr, b->maxexit) + m->c->lat[GPU_BAR];
	b->arrived = 0;
	b->maxarr = 0;
	for (i = 0; i < wpb; i++) {
		struct sm_warp	*w = &m->w[ks->base + b->pos * wpb + i];

		if (w->state != SM_BAR)
			continue;
		w->state = SM_RUN;
		w->bar_ready = rel;
		/* a barrier that ends the warp's stream: it leaves now */
		if (w->pc == t->warps[w->tw].nd)
			sm_exit(m, w, rel);
	}
}

/* One L1 access at cycle a; returns when its data is there. */
static int64_t
sm_l1(struct sm *m, uint64_t line, int store, int64_t a, int64_t *delta)
{
	int64_t		stamp, x = sm_uniform(m, m->c->n_conflict);
	int64_t		miss = a + m->c->l_base + *delta + x;

	if (store) {
		(void)l1_access(&m->l1, line, 1, 0, &stamp);
		return a + 1;
	}
	if (l1_access(&m->l1, line, 0, miss, &stamp))
		return sm_max(a + m->c->l1_hit, stamp);
	*delta += x;
	return miss;
}

static void
sm_set_regs(struct sm_warp *w, const struct gpu_sinst *s, int64_t v)
{
	unsigned int	i;

	for (i = 0; i < s->nwr; i++)
		w->reg[s->wr[i]] = v;
}

/* The reordering unit: release what the static order allows. */
static void
sm_drain(struct sm *m)
{
	const struct gpu_trace	*t = m->ks[0].kd->t;
	const struct gpu_req	*r;
	const struct gpu_dinst	*d;
	struct sm_warp		*w;
	int64_t			 rel, last;
	uint32_t		 i;

	for (; m->rm < m->ord.n && m->pres[m->rm] != SM_INF; m->rm++) {
		r = &m->ord.r[m->rm];
		d = &t->d[r->dyn];
		rel = sm_max(m->pres[m->rm], m->prev_rel + 1);
		m->prev_rel = rel;
		if (r->line == 0)
			m->rdelta = 0;
		m->data[m->rm] = sm_l1(m, t->lines[d->line0 + r->line],
		    r->store, rel, &m->rdelta);
		if (r->line + 1u < d->nlines)
			continue;
		/* the instruction's last line */
		last = 0;
		for (i = 0; i < d->nlines; i++)
			last = sm_max(last, m->data[m->rm - i]);
		w = &m->w[m->ks[0].slot_of[r->warp]];
		if (!r->store)
			sm_set_regs(w, &t->sinst[d->sidx], last);
		w->done_t = sm_max(w->done_t, last);
		w->pending--;
		sm_check_done(m, w);
	}
}

static void
sm_mem(struct sm *m, struct sm_warp *w, const struct gpu_dinst *d,
    int64_t now)
{
	const struct gpu_trace	*t = m->ks[w->k].kd->t;
	const struct gpu_sinst	*s = &t->sinst[d->sidx];
	int64_t			 last = now + 1, delta = 0, a;
	uint32_t		 r, n = d->nlines, dyn;

	m->ldst_free = now + (n > 0 ? n : 1);
	if (n > 0 && s->cls != GPU_GATOM && m->o->reorder) {
		dyn = (uint32_t)(d - t->d);
		for (r = 0; r < n; r++)
			m->pres[m->ord.first[dyn] + r] = now + 1 + r;
		sm_set_regs(w, s, SM_INF);
		w->pending++;
		return;
	}
	for (r = 0; r < n; r++) {
		a = now + 1 + r;
		if (s->cls == GPU_GATOM) {
			/* beyond the L1: a red is not waited for */
			delta += sm_uniform(m, m->c->n_conflict);
			last = sm_max(last, s->nwr ? a + m->c->l_base + delta :
			    a + 1);
		} else
			last = sm_max(last, sm_l1(m, t->lines[d->line0 + r],
			    s->cls == GPU_GST, a, &delta));
	}
	if (s->cls != GPU_GST)
		sm_set_regs(w, s, last);
	w->done_t = sm_max(w->done_t, last);
}

static void
sm_issue(struct sm *m, struct sm_warp *w, int64_t now)
{
	struct sm_kstate	*ks = &m->ks[w->k];
	const struct gpu_trace	*t = ks->kd->t;
	const struct gpu_dinst	*d = sm_dinst(m, w);
	const struct gpu_sinst	*s = &t->sinst[d->sidx];
	int64_t			 lat = gpu_lat(m->c, s);

	if (m->o->on_issue != NULL)
		m->o->on_issue(m->o->arg, (uint64_t)now, w->k, w->tw,
		    w->pc);
	w->pc++;
	switch (s->cls) {
	case GPU_BRANCH:
		w->ctrl = now + lat;
		w->done_t = sm_max(w->done_t, now + 1);
		break;
	case GPU_BAR:
		w->state = SM_BAR;
		w->done_t = sm_max(w->done_t, now + 1);
		ks->blk[w->bpos].arrived++;
		ks->blk[w->bpos].maxarr = sm_max(ks->blk[w->bpos].maxarr, now);
		sm_bar_check(m, w->k, w->bpos);
		break;
	case GPU_EXIT:
		w->done_t = sm_max(w->done_t, now + lat);
		break;
	case GPU_GLD:
	case GPU_GST:
	case GPU_GATOM:
		sm_mem(m, w, d, now);
		if (m->o->reorder)
			sm_drain(m);
		break;
	default:
		sm_set_regs(w, s, now + lat);
		w->done_t = sm_max(w->done_t, now + lat);
	}
	if ((s->cls == GPU_EXIT || w->pc == t->warps[w->tw].nd) &&
	    w->state == SM_RUN)
		sm_exit(m, w, now);
}

/* The first cycle warp w's next instruction can issue, or SM_INF. */
static int64_t
sm_ready_at(const struct sm *m, const struct sm_warp *w)
{
	const struct gpu_trace	*t;
	const struct gpu_sinst	*s;
	int64_t			 r;
	unsigned int		 i;

	if (w->state != SM_RUN)
		return SM_INF;
	t = m->ks[w->k].kd->t;
	s = &t->sinst[sm_dinst(m, w)->sidx];
	r = sm_max(w->start, sm_max(w->ctrl, w->bar_ready));
	for (i = 0; i < s->nrd; i++)
		r = sm_max(r, w->reg[s->rd[i]]);
	for (i = 0; i < s->nwr; i++)
		r = sm_max(r, w->reg[s->wr[i]]);
	if (GPU_IS_GLOBAL(s->cls))
		r = sm_max(r, m->ldst_free);
	return r;
}

static int
sm_setup(struct sm *m, const struct sm_kernel *kd, unsigned int nk,
    char *err, size_t errlen)
{
	uint32_t	k, cap = 0, nr;

	for (k = 0; k < nk; k++) {
		struct sm_kstate	*ks = &m->ks[k];
		const struct gpu_trace	*t = kd[k].t;

		ks->kd = &kd[k];
		ks->base = cap;
		cap += kd[k].warp_cap;
		ks->wave_blocks = gpu_wave_blocks(m->c, t->warps_per_block,
		    kd[k].warp_cap);
		if (ks->wave_blocks == 0 || ks->wave_blocks > 1024) {
			snprintf(err, errlen, "kernel %u: a block of %u warps "
			    "does not fit in its %u warps of the SM", k + 1,
			    t->warps_per_block, kd[k].warp_cap);
			return -EINVAL;
		}
		ks->nwaves = (t->nblocks + ks->wave_blocks - 1) /
		    ks->wave_blocks;
		nr = ks->wave_blocks * t->warps_per_block;
		if ((uint64_t)nr * t->nregs > SM_MAX_REGS) {
			snprintf(err, errlen, "kernel %u: too many registers",
			    k + 1);
			return -EINVAL;
		}
		ks->slot_of = calloc(t->nwarps + 1, sizeof(*ks->slot_of));
		ks->blk = calloc(ks->wave_blocks, sizeof(*ks->blk));
		ks->regs = malloc((size_t)nr * t->nregs * sizeof(*ks->regs) +
		    1);
		if (!ks->slot_of || !ks->blk || !ks->regs)
			return -ENOMEM;
	}
	if (cap == 0 || cap > m->c->max_warps || cap > SCHED_MAX) {
		snprintf(err, errlen, "the kernels' warps (%u) exceed the SM's "
		    "%u", cap, m->c->max_warps);
		return -EINVAL;
	}
	m->nslots = cap;
	m->w = calloc(cap, sizeof(*m->w));
	m->byage = calloc(cap, sizeof(*m->byage));
	if (!m->w || !m->byage)
		return -ENOMEM;
	return 0;
}

static int
sm_setup_reorder(struct sm *m)
{
	uint32_t	i;
	int		rc;

	if ((rc = gpu_order_build(m->ks[0].kd->t, m->ks[0].wave_blocks,
	    &m->ord)) != 0)
		return rc;
	m->pres = malloc((size_t)m->ord.n * sizeof(*m->pres) + 1);
	m->data = malloc((size_t)m->ord.n * sizeof(*m->data) + 1);
	if (!m->pres || !m->data)
		return -ENOMEM;
	for (i = 0; i < m->ord.n; i++)
		m->pres[i] = SM_INF;
	m->prev_rel = INT64_MIN / 4;
	return 0;
}

static void
sm_cleanup(struct sm *m)
{
	unsigned int	k;

	for (k = 0; k < SM_MAX_KERNELS; k++) {
		free(m->ks[k].slot_of);
		free(m->ks[k].blk);
		free(m->ks[k].regs);
	}
	free(m->w);
	free(m->byage);
	free(m->pres);
	free(m->data);
	gpu_order_free(&m->ord);
	l1_free(&m->l1);
}

/* The warps the scheduler holds this cycle, oldest first. */
static uint32_t
sm_candidates(const struct sm *m, int64_t now, struct sched_warp *sw)
{
	uint32_t	i, n = 0;

	for (i = 0; i < m->nbyage; i++) {
		const struct sm_warp	*w = &m->w[m->byage[i]];

		if ((w->state == SM_RUN || w->state == SM_BAR) &&
		    w->start <= now) {
			sw[n].id = w->id;
			sw[n].prio = m->ks[w->k].kd->prio;
			n++;
		}
	}
	return n;
}

static int
sm_all_done(const struct sm *m)
{
	unsigned int	k;

	for (k = 0; k < m->nk; k++)
		if (!m->ks[k].finished)
			return 0;
	return 1;
}

static int64_t
sm_next_event(const struct sm *m)
{
	int64_t		next = SM_INF;
	uint32_t	i;

	for (i = 0; i < m->nbyage; i++) {
		int64_t	r = sm_ready_at(m, &m->w[m->byage[i]]);

		next = r < next ? r : next;
	}
	return next;
}

static int
sm_loop(struct sm *m, struct sm_result *res, char *err, size_t errlen)
{
	struct sched_warp	sw[SCHED_MAX];
	uint32_t		q[SCHED_MAX], prevq[SCHED_MAX], n, i, pick;
	uint32_t		prevn = 0;
	int64_t			now = 0, next, prevb[2] = { 0, 0 };
	int			prev_idle = 0;

	while (!sm_all_done(m)) {
		n = sm_candidates(m, now, sw);
		if (sched_sort(&m->sched, sw, n, q) != 0) {
			snprintf(err, errlen, "RT-PAWS takes at most two "
			    "priorities");
			return -EINVAL;
		}
		pick = SCHED_NONE;
		for (i = 0; i < n && pick == SCHED_NONE; i++)
			if (sm_ready_at(m, &m->w[q[i]]) <= now)
				pick = q[i];
		sched_issued(&m->sched, q, n, pick, pick == SCHED_NONE ? 0 :
		    m->ks[m->w[pick].k].kd->prio);
		if (pick != SCHED_NONE) {
			sm_issue(m, &m->w[pick], now);
			res->issued++;
			now++;
			prev_idle = 0;
			continue;
		}
		/* idle: skip ahead once the scheduler's queue is settled */
		next = now + 1;
		if (prev_idle && n == prevn && memcmp(q, prevq, n *
		    sizeof(*q)) == 0 && m->sched.budget[0] == prevb[0] &&
		    m->sched.budget[1] == prevb[1]) {
			next = sm_next_event(m);
			if (next >= SM_INF && !sm_all_done(m)) {
				snprintf(err, errlen, "internal error: no warp "
				    "can ever issue (deadlock)");
				return -EDEADLK;
			}
			if (next <= now)
				next = now + 1;
		}
		memcpy(prevq, q, n * sizeof(*q));
		prevn = n;
		prevb[0] = m->sched.budget[0];
		prevb[1] = m->sched.budget[1];
		res->idle += (uint64_t)(next - now);
		now = next;
		prev_idle = 1;
	}
	return 0;
}

int
sm_run(const struct gpu_cfg *c, const struct sm_kernel *kd, unsigned int nk,
    const struct sm_opts *o, struct sm_result *res, char *err, size_t errlen)
{
	struct sm	*m;
	unsigned int	 k;
	int		 rc;

	memset(res, 0, sizeof(*res));
	if (errlen > 0)
		err[0] = '\0';
	if ((rc = gpu_cfg_check(c, err, errlen)) != 0)
		return rc;
	if (nk == 0 || nk > SM_MAX_KERNELS || (o->reorder && nk != 1) ||
	    o->policy < 0 || o->policy >= GPU_NPOLICIES) {
		snprintf(err, errlen, "one or two kernels, the reordering "
		    "unit with one only");
		return -EINVAL;
	}
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return -ENOMEM;
	m->c = c;
	m->o = o;
	m->nk = nk;
	m->rng = o->seed;
	sched_init(&m->sched, o->policy, o->sticky);
	if ((rc = l1_init(&m->l1, &c->l1)) != 0 ||
	    (rc = sm_setup(m, kd, nk, err, errlen)) != 0 ||
	    (o->reorder && (rc = sm_setup_reorder(m)) != 0))
		goto out;
	for (k = 0; k < nk; k++)
		sm_dispatch(m, k, (int64_t)kd[k].launch);
	if ((rc = sm_loop(m, res, err, errlen)) != 0)
		goto out;
	for (k = 0; k < nk; k++) {
		res->finish[k] = (uint64_t)m->ks[k].wave_end;
		if (res->finish[k] > res->cycles)
			res->cycles = res->finish[k];
	}
	res->accesses = m->l1.accesses;
	res->misses = m->l1.misses;
	res->swaps = m->sched.swaps;
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	sm_cleanup(m);
	free(m);
	return rc;
}
