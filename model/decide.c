/*
 * decide.c - the per-period budget decision (doc/design.md section 2;
 * [DynBW] chapter 5).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "budget.h"
#include "decide.h"

static const char *const decide_names[] = {
	[DECIDE_NOMINAL] = "nominal",
	[DECIDE_FAIR] = "fair",
	[DECIDE_GREEDY] = "greedy",
	[DECIDE_SMOOTH] = "smooth",
};

int
decide_policy_parse(const char *s)
{
	unsigned int	i;

	for (i = 0; i < sizeof(decide_names) / sizeof(decide_names[0]); i++)
		if (strcmp(s, decide_names[i]) == 0)
			return (int)i;
	return -1;
}

const char *
decide_policy_name(enum decide_policy p)
{
	if ((unsigned int)p >= sizeof(decide_names) / sizeof(decide_names[0]))
		return "?";
	return decide_names[p];
}

uint64_t
decide_core_events(const struct decide_config *cfg, double q)
{
	double	k = cfg->bwmax_events * q - cfg->overhead_events;

	if (!(k > 0))
		return 0;
	k = floor(k / cfg->ncores);
	if (k >= 18446744073709551615.0)
		return DECIDE_UNLIMITED - 1;
	return (uint64_t)k;
}

/* One kernel's Q for the period: its remaining blocks and time, then the
 * policy, never below its Q-bar. */
static double
decide_kernel(struct decide_kernel *k, const struct decide_input *in)
{
	uint64_t	r[WCET_MAX_CLUSTERS];
	double		t, q, g, prev;
	unsigned int	i;

	progress_scan(k->pt, k->scan, k->bitmap, k->nwords, k->window, r);
	k->out.remaining = 0;
	for (i = 0; i < k->pt->nclusters; i++)
		k->out.remaining += r[i];
	/* signed: a launch after the period start leaves more time */
	t = (double)k->bound_ns -
	    ((double)in->period_start_ns - (double)k->launch_ns);
	k->out.t_remaining = t;
	k->out.late = 0;
	if (in->policy == DECIDE_NOMINAL) {
		q = k->qnom;
		g = q;
	} else if (!(t > 0)) {
		/* past its bound: nothing to give away */
		k->out.late = 1;
		q = g = k->qnom;
	} else if (in->policy == DECIDE_FAIR) {
		q = g = budget_fair(k->wk, r, t, k->qnom);
	} else {
		g = budget_greedy(k->wk, r, t, k->qnom);
		q = g;
		if (in->policy == DECIDE_SMOOTH) {
			prev = k->prev_q < 0 ? k->qnom : k->prev_q;
			q = budget_smooth(g, prev, in->cfg->smooth_a, k->qnom);
		}
	}
	k->out.q = q;
	k->out.greedy = g;
	return q;
}

static double
decide_holder(const struct decide_holder *h, const struct decide_input *in)
{
	double		q, qk;
	unsigned int	i;

	if (!h->has_progress || h->nkernels == 0)
		return h->qbar;
	q = 1;
	for (i = 0; i < h->nkernels; i++) {
		qk = decide_kernel(&h->kernels[i], in);
		if (qk < q)
			q = qk;
	}
	return q;
}

static double
decide_clamp01(double q)
{
	if (!(q > 0))
		return 0;
	return q > 1 ? 1 : q;
}

int
decide(const struct decide_input *in, struct decide_output *out)
{
	const struct decide_config *cfg = in->cfg;
	double		q = 1, qs = 1, qh;
	unsigned int	i, j;
	uint64_t	k, ks;

	if (cfg == NULL || cfg->ncores < 1 || cfg->ncores > DECIDE_MAX_CORES ||
	    !(cfg->bwmax_events > 0) || !(cfg->overhead_events >= 0) ||
	    (unsigned int)in->policy > DECIDE_SMOOTH)
		return -EINVAL;
	for (i = 0; i < in->nholders; i++)
		for (j = 0; j < in->holders[i].nkernels; j++)
			if (in->holders[i].kernels[j].wk == NULL ||
			    in->holders[i].kernels[j].pt == NULL ||
			    in->holders[i].kernels[j].scan == NULL)
				return -EINVAL;
	out->period = in->period;
	out->regulated = in->nholders > 0;
	for (i = 0; i < in->nholders; i++) {
		qh = decide_holder(&in->holders[i], in);
		if (qh < q)
			q = qh;
		if (in->holders[i].qbar < qs)
			qs = in->holders[i].qbar;
	}
	out->q = decide_clamp01(q);
	out->q_static = decide_clamp01(qs);
	k = ks = DECIDE_UNLIMITED;
	if (out->regulated) {
		k = decide_core_events(cfg, out->q);
		ks = decide_core_events(cfg, out->q_static);
	}
	for (i = 0; i < cfg->ncores; i++) {
		out->events[i] = k;
		out->static_events[i] = ks;
	}
	return 0;
}
