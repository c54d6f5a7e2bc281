/*
 * fig41.c - the Fig. 4.1 example on the SM model: two kernels of two
 * one-warp blocks each, six ALU-class instructions per warp with the
 * latencies of the parameters, no memory.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fig41.h"
#include "wsched.h"

void
fig41_default(struct fig41_params *p)
{
	memset(p, 0, sizeof(*p));
	/* the closest fig41_search finds (doc/gpu-model.md) */
	p->long_pos = 3;
	p->long_lat = 6;
	p->short_lat = 2;
	p->chain = 1;
	p->p = 4;
	p->from_launch = 1;
	p->finish_issue = 1;
	p->sticky = 0;
}

/* The static instructions: register i is written by instruction i. */
static void
fig41_sinst(const struct fig41_params *p, struct gpu_sinst *s)
{
	uint32_t	i;

	memset(s, 0, FIG41_NINSNS * sizeof(*s));
	for (i = 0; i < FIG41_NINSNS; i++) {
		s[i].cls = GPU_ALU;
		s[i].lat = i == p->long_pos ? p->long_lat : p->short_lat;
		s[i].line = i + 1;
		s[i].nwr = 1;
		s[i].wr[0] = (uint16_t)i;
		if (i > 0 && (p->chain || i == p->long_pos + 1)) {
			s[i].nrd = 1;
			s[i].rd[0] = (uint16_t)(i - 1);
		}
	}
}

/* A kernel of two blocks of one warp, each running the six. */
static void
fig41_trace(struct gpu_trace *t, struct gpu_sinst *s, struct gpu_warp *w,
    struct gpu_dinst *d)
{
	uint32_t	i, j;

	memset(t, 0, sizeof(*t));
	t->nsinst = FIG41_NINSNS;
	t->sinst = s;
	t->nregs = FIG41_NINSNS;
	t->nwarps = t->nblocks = 2;
	t->warps_per_block = 1;
	t->warps = w;
	t->d = d;
	t->nd = 2 * FIG41_NINSNS;
	for (i = 0; i < 2; i++) {
		w[i].block = i;
		w[i].wib = 0;
		w[i].d0 = i * FIG41_NINSNS;
		w[i].nd = FIG41_NINSNS;
		for (j = 0; j < FIG41_NINSNS; j++) {
			memset(&d[w[i].d0 + j], 0, sizeof(*d));
			d[w[i].d0 + j].sidx = j;
			d[w[i].d0 + j].active = GPU_WARP;
		}
	}
}

/* The last issue of each kernel, and the caller's timeline. */
struct fig41_tap {
	uint64_t	 last[2];
	uint64_t	(*issue)[2][FIG41_NINSNS];
	sm_issue_fn	*fn;
	void		*arg;
};

static void
fig41_tap(void *arg, uint64_t t, unsigned int k, uint32_t w, uint32_t d)
{
	struct fig41_tap	*tap = arg;

	if (k < 2 && t + 1 > tap->last[k])
		tap->last[k] = t + 1;
	if (k < 2 && w < 2 && d < FIG41_NINSNS)
		tap->issue[k][w][d] = t;
	if (tap->fn != NULL)
		tap->fn(tap->arg, t, k, w, d);
}

int
fig41_run(const struct fig41_params *p, struct fig41_out out[3],
    sm_issue_fn *on_issue, void *arg)
{
	struct fig41_tap	tap;
	struct gpu_sinst	s[FIG41_NINSNS];
	struct gpu_warp		w[2];
	struct gpu_dinst	d[2 * FIG41_NINSNS];
	struct gpu_trace	t;
	struct gpu_cfg		c;
	struct sm_kernel	k[2];
	struct sm_opts		o;
	struct sm_result	r;
	char			err[128];
	int			pol, rc;

	if (p->long_pos >= FIG41_NINSNS || p->long_lat == 0 ||
	    p->short_lat == 0 || p->long_lat > 100000 ||
	    p->short_lat > 100000)
		return -EINVAL;
	fig41_sinst(p, s);
	fig41_trace(&t, s, w, d);
	gpu_cfg_default(&c);
	c.skew = 0;
	c.n_conflict = 0;
	c.max_warps = 4;
	k[0].t = k[1].t = &t;
	k[0].launch = 0;
	k[1].launch = 1;
	k[0].prio = 1;
	k[1].prio = p->p;
	k[0].warp_cap = k[1].warp_cap = 2;
	for (pol = 0; pol < GPU_NPOLICIES; pol++) {
		memset(&o, 0, sizeof(o));
		memset(&tap, 0, sizeof(tap));
		tap.fn = on_issue;
		tap.arg = arg;
		tap.issue = out[pol].issue;
		o.policy = pol;
		o.sticky = p->sticky;
		o.on_issue = fig41_tap;
		o.arg = &tap;
		if ((rc = sm_run(&c, k, 2, &o, &r, err, sizeof(err))) != 0)
			return rc;
		out[pol].k1_finish = p->finish_issue ? tap.last[0] :
		    r.finish[0];
		out[pol].k2_finish = p->finish_issue ? tap.last[1] :
		    r.finish[1];
		out[pol].k1_time = (double)out[pol].k1_finish;
		out[pol].k2_time = (double)out[pol].k2_finish -
		    (p->from_launch ? 1 : 0);
		out[pol].average = (out[pol].k1_time + out[pol].k2_time) / 2;
	}
	return 0;
}

static uint64_t
fig41_max(const struct fig41_out *o)
{
	return o->k1_finish > o->k2_finish ? o->k1_finish : o->k2_finish;
}

/* Cycles between the first and the last warp's issue of instruction
 * pos. */
static uint64_t
fig41_long_span(const struct fig41_out *o, uint32_t pos)
{
	uint64_t	lo = UINT64_MAX, hi = 0;
	int		k, w;

	for (k = 0; k < 2; k++)
		for (w = 0; w < 2; w++) {
			uint64_t	t = o->issue[k][w][pos];

			lo = t < lo ? t : lo;
			hi = t > hi ? t : hi;
		}
	return hi - lo;
}

void
fig41_check(const struct fig41_params *p, const struct fig41_out out[3],
    struct fig41_check *c)
{
	const struct fig41_out	*l = &out[GPU_LRR], *g = &out[GPU_GTO];
	const struct fig41_out	*r = &out[GPU_RTPAWS];

	c->lrr_highest = l->average > g->average && l->average > r->average;
	c->rt_one_above_gto = r->average == g->average + 1;
	c->gto_k2_last = g->k2_finish > g->k1_finish;
	c->rt_k2_first = r->k2_finish < r->k1_finish;
	c->rt_max_least = fig41_max(r) < fig41_max(g) &&
	    fig41_max(r) < fig41_max(l);
	c->rt_k2_after_gto_k1 = r->k2_finish > g->k1_finish;
	c->rt_w0_greedy = r->issue[0][0][0] == 0 && r->issue[0][0][1] == 1;
	c->lrr_long_together = fig41_long_span(l, p->long_pos) < 4;
	c->exact = l->average == 25 && g->average == 21.5 &&
	    r->average == 22.5;
}

int
fig41_qualitative(const struct fig41_check *c)
{
	return c->lrr_highest && c->rt_one_above_gto && c->gto_k2_last &&
	    c->rt_k2_first && c->rt_max_least && c->rt_k2_after_gto_k1;
}

static double
fig41_dist(const struct fig41_out out[3])
{
	return fabs(out[GPU_LRR].average - 25) +
	    fabs(out[GPU_GTO].average - 21.5) +
	    fabs(out[GPU_RTPAWS].average - 22.5);
}

static void
fig41_consider(struct fig41_search *s, const struct fig41_params *p,
    const struct fig41_out out[3])
{
	struct fig41_check	c;
	double			dist = fig41_dist(out);
	int			extras, better;

	fig41_check(p, out, &c);
	s->tried++;
	s->exact_numbers += c.exact;
	if (!fig41_qualitative(&c))
		return;
	s->qualitative++;
	s->exact += c.exact;
	extras = c.rt_w0_greedy + c.lrr_long_together;
	s->with_extras += extras == 2;
	better = s->qualitative == 1 || dist < s->best_dist ||
	    (dist == s->best_dist && extras > s->best_extras);
	if (better) {
		s->best_extras = extras;
		s->best = *p;
		memcpy(s->best_out, out, sizeof(s->best_out));
		s->best_dist = dist;
	}
}

int
fig41_search(uint32_t max_long, uint32_t max_short, struct fig41_search *s)
{
	struct fig41_params	p;
	struct fig41_out	out[3];
	int			rc;

	memset(s, 0, sizeof(*s));
	memset(&p, 0, sizeof(p));
	for (p.long_pos = 0; p.long_pos < FIG41_NINSNS; p.long_pos++)
	for (p.long_lat = 2; p.long_lat <= max_long; p.long_lat++)
	for (p.short_lat = 1; p.short_lat <= max_short &&
	    p.short_lat < p.long_lat; p.short_lat++)
	for (p.chain = 0; p.chain < 2; p.chain++)
	for (p.p = 2; p.p <= 8; p.p++)
	for (p.from_launch = 0; p.from_launch < 2; p.from_launch++)
	for (p.finish_issue = 0; p.finish_issue < 2; p.finish_issue++)
	for (p.sticky = 0; p.sticky < 2; p.sticky++) {
		if ((rc = fig41_run(&p, out, NULL, NULL)) != 0)
			return rc;
		fig41_consider(s, &p, out);
	}
	return 0;
}
