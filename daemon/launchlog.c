/*
 * launchlog.c - per-launch journal records and budget-change lines
 * (see launchlog.h).
 */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "launchlog.h"
#include "log.h"

#define BUDGET_LOG_INTERVAL_NS	1000000000ull	/* one line a second */
#define NFIELDS			19
#define FIELD_MAX		96

struct launchlog {
	struct launchlog_hooks	h;
	uint64_t		count;
	double			last_q;		/* last Q logged */
	uint64_t		last_t;		/* when */
	uint64_t		changes;	/* since then, not logged */
};

/*
 * bound - actual as a signed number, saturated: a bound of 2^64-1 (a
 * saturated WCET) would wrap to a negative slack beside "met: yes".
 */
static int64_t
slack(uint64_t bound, uint64_t actual)
{
	uint64_t	d;

	if (bound >= actual) {
		d = bound - actual;
		return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
	}
	d = actual - bound;
	return d > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)d;
}

void
launchlog_compute(const struct period_launch *l, const char *policy,
    struct launchlog_rec *r)
{
	double	n = (double)l->periods, var;

	memset(r, 0, sizeof(*r));
	r->task = l->task;
	r->pid = l->pid;
	snprintf(r->task_name, sizeof(r->task_name), "%s", l->task_name);
	snprintf(r->kernel_name, sizeof(r->kernel_name), "%s",
	    l->kernel_name);
	r->kernel = l->kernel;
	r->launch = l->seq;	/* until launchlog_launch numbers it */
	r->policy = policy;
	r->periods = l->periods;
	r->late = l->late;
	if (l->periods > 0) {
		r->q_mean = l->q_sum / n;
		var = l->q_sq / n - r->q_mean * r->q_mean;
		r->q_std = var > 0 ? sqrt(var) : 0;
		r->q_min = l->q_min;
		r->q_max = l->q_max;
	}
	r->bound_ns = l->bound_ns;
	r->launch_ns = l->launch_ns;
	r->end_ns = l->end_ns;
	r->actual_ns = l->end_ns > l->launch_ns ? l->end_ns - l->launch_ns : 0;
	r->actual_min_ns = l->prev_ns > l->launch_ns ?
	    l->prev_ns - l->launch_ns : 0;
	r->slack_ns = slack(r->bound_ns, r->actual_ns);
	/* the end lies in (actual_min, actual]: a verdict only when that
	 * interval is on one side of the bound */
	r->met = r->actual_ns <= r->bound_ns ? "yes" :
	    r->actual_min_ns >= r->bound_ns ? "no" : "unknown";
	r->end_by = l->client_end ? "client" : "daemon";
	r->start_by = l->gpu_start ? "gpu" : "cpu";
}

struct launchlog *
launchlog_new(const struct launchlog_hooks *h)
{
	struct launchlog	*ll = calloc(1, sizeof(*ll));

	if (ll == NULL)
		return NULL;
	ll->h = *h;
	ll->last_q = -2;
	return ll;
}

void
launchlog_free(struct launchlog *ll)
{
	free(ll);
}

uint64_t
launchlog_count(const struct launchlog *ll)
{
	return ll->count;
}

/* The journal fields; f[] has NFIELDS strings of FIELD_MAX bytes. */
static int
fields(const struct launchlog_rec *r, char f[][FIELD_MAX])
{
	int	n = 0;

#define F(...)	snprintf(f[n++], FIELD_MAX, __VA_ARGS__)
	F("BWSCHED_TASK=%u", r->task);
	F("BWSCHED_PID=%d", (int)r->pid);
	F("BWSCHED_KERNEL=%s", r->kernel_name);
	F("BWSCHED_KERNEL_ID=%u", r->kernel);
	F("BWSCHED_LAUNCH=%llu", (unsigned long long)r->launch);
	F("BWSCHED_POLICY=%s", r->policy);
	F("BWSCHED_PERIODS=%llu", (unsigned long long)r->periods);
	F("BWSCHED_LATE_PERIODS=%llu", (unsigned long long)r->late);
	F("BWSCHED_Q_MEAN=%.4f", r->q_mean);
	F("BWSCHED_Q_MIN=%.4f", r->q_min);
	F("BWSCHED_Q_MAX=%.4f", r->q_max);
	F("BWSCHED_Q_STD=%.4f", r->q_std);
	F("BWSCHED_BOUND_NS=%llu", (unsigned long long)r->bound_ns);
	F("BWSCHED_ACTUAL_NS=%llu", (unsigned long long)r->actual_ns);
	F("BWSCHED_ACTUAL_MIN_NS=%llu", (unsigned long long)r->actual_min_ns);
	F("BWSCHED_SLACK_NS=%lld", (long long)r->slack_ns);
	F("BWSCHED_BOUND_MET=%s", r->met);
	F("BWSCHED_END_BY=%s", r->end_by);
	F("BWSCHED_START_BY=%s", r->start_by);
#undef F
	return n;
}

static void
emit(const struct launchlog_rec *r)
{
	char		f[NFIELDS][FIELD_MAX];
	const char	*fp[NFIELDS];
	int		n, i;

	n = fields(r, f);
	for (i = 0; i < n; i++)
		fp[i] = f[i];
	log_fields(LOG_L_INFO, fp, n, "kernel %s of task %s: %llu periods, Q "
	    "%.3f..%.3f (mean %.3f), ended %.3f..%.3f ms after launch, "
	    "bound %.3f ms met: %s", r->kernel_name, r->task_name,
	    (unsigned long long)r->periods, r->q_min, r->q_max, r->q_mean,
	    (double)r->actual_min_ns / 1e6, (double)r->actual_ns / 1e6,
	    (double)r->bound_ns / 1e6, r->met);
}

void
launchlog_launch(struct launchlog *ll, const struct period_launch *l,
    uint64_t launch, bool event, const char *policy)
{
	struct launchlog_rec	r;

	launchlog_compute(l, policy, &r);
	r.launch = launch;
	/* names come with the record; ask only when it had none */
	if (r.task_name[0] == '\0' && (ll->h.names == NULL ||
	    !ll->h.names(ll->h.arg, &r)))
		snprintf(r.task_name, sizeof(r.task_name), "%u", r.task);
	ll->count++;
	emit(&r);
	if (event && ll->h.event != NULL)
		ll->h.event(ll->h.arg, &r);
}

void
launchlog_period(struct launchlog *ll, const struct ring_period *p,
    const char *policy)
{
	if (fabs(p->q - ll->last_q) < 1e-4)
		return;
	if (p->t_ns - ll->last_t < BUDGET_LOG_INTERVAL_NS &&
	    ll->last_q > -2) {
		ll->changes++;
		return;
	}
	if (p->q < 0)
		log_msg(LOG_L_INFO, "budget: period %llu unregulated (%s)%s",
		    (unsigned long long)p->period, policy,
		    ll->changes ? ", after more changes" : "");
	else
		log_msg(LOG_L_INFO, "budget: period %llu Q %.4f, %llu "
		    "events per core, %u holder(s) (%s; %llu changes not "
		    "logged)", (unsigned long long)p->period, p->q,
		    (unsigned long long)p->budget[0], p->holders, policy,
		    (unsigned long long)ll->changes);
	ll->last_q = p->q;
	ll->last_t = p->t_ns;
	ll->changes = 0;
}
