/*
 * decide.c - the per-period budget decision (doc/design.md section 2;
 * [DynBW] chapter 5).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
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

/*
 * Both bounds are what makes a client's GPU timestamp safe to use: a
 * kernel cannot start before it was launched, nor after we saw the
 * timestamp, so a clock that is off (or a client that lies) can move the
 * start only inside that window, and only for its own launch.  A later
 * start gives that launch more time and so a higher budget: the harm is
 * to its own bound, which a lying client may forfeit.  A start out of the
 * window is not clamped to its edge but discarded: a value past now means
 * the clock or the page is wrong, and the CPU time is the safe choice.
 * The uncertainty is subtracted: an earlier start is the safe side.
 */
uint64_t
decide_start_ns(uint64_t launch_ns, uint64_t gpu_start,
    const struct decide_gpuclock *clk, uint64_t seen_ns)
{
	int64_t		s;

	if (gpu_start == 0 || clk == NULL || gpu_start > INT64_MAX ||
	    clk->err_ns > INT64_MAX)
		return launch_ns;
	/* the page is the client's: any value, overflow included */
	if (__builtin_add_overflow((int64_t)gpu_start, clk->offset_ns, &s) ||
	    __builtin_sub_overflow(s, (int64_t)clk->err_ns, &s) || s < 0 ||
	    (uint64_t)s < launch_ns || (uint64_t)s > seen_ns)
		return launch_ns;
	return (uint64_t)s;
}

/* Scan one kernel's progress and start its look-ahead track. */
static void
decide_kernel_init(struct decide_kernel *k, const struct decide_input *in)
{
	uint64_t	r[WCET_MAX_CLUSTERS];
	double		t;
	unsigned int	i;

	progress_scan(k->pt, k->scan, k->bitmap, k->nwords, k->window, r);
	k->out.remaining = 0;
	for (i = 0; i < k->pt->nclusters; i++)
		k->out.remaining += r[i];
	/* signed: a launch after the period start leaves more time */
	t = (double)k->bound_ns -
	    ((double)in->period_start_ns - (double)k->launch_ns);
	k->out.t_remaining = t;
	k->out.late = in->policy != DECIDE_NOMINAL && !(t > 0);
	budget_track_init(&k->track, k->wk, r, t, k->qnom,
	    (enum budget_policy)in->policy, k->prev_q, in->cfg->smooth_a);
}

/* A holder's Q for the track's next entry: the smallest of its
 * kernels', or its Q-bar without progress information. */
static double
decide_holder_next(const struct decide_holder *h, double *own, double *g)
{
	double		q = 1;
	unsigned int	i;

	if (!h->has_progress || h->nkernels == 0)
		return h->qbar;
	for (i = 0; i < h->nkernels; i++) {
		own[i] = budget_track_next(&h->kernels[i].track, &g[i]);
		if (own[i] < q)
			q = own[i];
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

static int
decide_check(const struct decide_input *in)
{
	const struct decide_config *cfg = in->cfg;
	unsigned int	i, j;

	if (cfg == NULL || cfg->ncores < 1 || cfg->ncores > DECIDE_MAX_CORES ||
	    !(cfg->bwmax_events > 0) || !(cfg->overhead_events >= 0) ||
	    (unsigned int)in->policy > DECIDE_SMOOTH ||
	    in->plan_len > DECIDE_MAX_PLAN)
		return -EINVAL;
	for (i = 0; i < in->nholders; i++)
		if (in->holders[i].nkernels > DECIDE_MAX_KERNELS)
			return -EINVAL;
	for (i = 0; i < in->nholders; i++)
		for (j = 0; j < in->holders[i].nkernels; j++)
			if (in->holders[i].kernels[j].wk == NULL ||
			    in->holders[i].kernels[j].pt == NULL ||
			    in->holders[i].kernels[j].scan == NULL)
				return -EINVAL;
	return 0;
}

/* Entry j: every holder's Q, the smallest applies, charged to every
 * kernel's track. */
static double
decide_entry(const struct decide_input *in, unsigned int j)
{
	double		own[DECIDE_MAX_KERNELS], g[DECIDE_MAX_KERNELS];
	double		q = 1, qh;
	unsigned int	i, k;
	const struct decide_holder *h;

	for (i = 0; i < in->nholders; i++) {
		h = &in->holders[i];
		qh = decide_holder_next(h, own, g);
		if (qh < q)
			q = qh;
		if (!h->has_progress)
			continue;
		for (k = 0; k < h->nkernels; k++) {
			if (j == 0) {
				h->kernels[k].out.q = own[k];
				h->kernels[k].out.greedy = g[k];
			}
			h->kernels[k].out.q_last = own[k];
		}
	}
	q = decide_clamp01(q);
	for (i = 0; i < in->nholders; i++) {
		h = &in->holders[i];
		for (k = 0; h->has_progress && k < h->nkernels; k++)
			budget_track_charge(&h->kernels[k].track, q,
			    h->kernels[k].out.q_last);
	}
	return q;
}

int
decide(const struct decide_input *in, struct decide_output *out)
{
	const struct decide_config *cfg = in->cfg;
	double		qs = 1, q;
	unsigned int	i, j, c, len = in->plan_len ? in->plan_len : 1;
	uint64_t	k, ks;

	if (decide_check(in) < 0)
		return -EINVAL;
	out->period = in->period;
	out->regulated = in->nholders > 0;
	out->plan_len = len;
	for (i = 0; i < in->nholders; i++) {
		if (in->holders[i].qbar < qs)
			qs = in->holders[i].qbar;
		for (j = 0; in->holders[i].has_progress &&
		    j < in->holders[i].nkernels; j++)
			decide_kernel_init(&in->holders[i].kernels[j], in);
	}
	out->q_static = decide_clamp01(qs);
	ks = out->regulated ? decide_core_events(cfg, out->q_static) :
	    DECIDE_UNLIMITED;
	for (j = 0; j < len; j++) {
		q = out->regulated ? decide_entry(in, j) : 1;
		/* never below the static budget (a holder's Q-bar is the
		 * smallest of its kernels'), even through rounding */
		if (q < out->q_static)
			q = out->q_static;
		out->plan_q[j] = q;
		k = out->regulated ? decide_core_events(cfg, q) :
		    DECIDE_UNLIMITED;
		if (k < ks)
			k = ks;
		for (c = 0; c < cfg->ncores; c++)
			out->plan_events[j][c] = k;
	}
	out->q = out->plan_q[0];
	for (c = 0; c < cfg->ncores; c++) {
		out->events[c] = out->plan_events[0][c];
		out->static_events[c] = ks;
	}
	return 0;
}
