/*
 * metrics.c - Prometheus text of the daemon's state (see metrics.h).
 *
 * One sample is taken (struct sample), then printed from tables: a new
 * counter or gauge is a field in struct sample, where take() fills it,
 * and one line in scalars[].  Names follow Prometheus conventions:
 * bwsched_ prefix, base units (seconds, events), _total on counters.
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "metrics.h"
#include "msg.h"

struct sample {
	/* scalars[] */
	double			uptime, clients, tasks, kernels, holders;
	double			q, q_static, periods, decided, applied, late;
	double			apply_errors, redecided, idle, dropped;
	double			launches, bad_slots, realtime;
	double			refused;
	double			lead, lookahead, plan_first, plan_ahead;
	double			fallbacks, plans_refused, unregulated;
	double			lock_limited, lock_errors, kicks;
	double			kick_lowered, kick_seconds, kick_max;
	/* the families below */
	double			lateness[3], cost[3];	/* p50, p99, max */
	struct reg_stats	reg;
	uint64_t		budget[REG_MAX_CORES];
	unsigned int		nbudget;
	uint64_t		errors[BWP_E_MAX];
};

enum kind { GAUGE, COUNTER };

struct scalar {
	const char	*name;
	enum kind	 kind;
	size_t		 off;
	const char	*help;
};

#define S(f)	offsetof(struct sample, f)

static const struct scalar scalars[] = {
	{ "bwsched_uptime_seconds", GAUGE, S(uptime),
	    "Time since the daemon started." },
	{ "bwsched_clients", GAUGE, S(clients), "Connected clients." },
	{ "bwsched_tasks", GAUGE, S(tasks), "Registered real-time tasks." },
	{ "bwsched_kernels", GAUGE, S(kernels), "Registered GPU kernels." },
	{ "bwsched_lock_holders", GAUGE, S(holders),
	    "Tasks holding the bandwidth lock." },
	{ "bwsched_q_ratio", GAUGE, S(q),
	    "Q in effect: the BE cores' share of the memory bandwidth; -1 "
	    "when unregulated." },
	{ "bwsched_q_static_ratio", GAUGE, S(q_static),
	    "Q-bar of the lock holders (the static budget); -1 when none." },
	{ "bwsched_realtime", GAUGE, S(realtime),
	    "1 when the period thread runs SCHED_FIFO." },
	{ "bwsched_periods_total", COUNTER, S(periods),
	    "Regulation periods the regulator has run." },
	{ "bwsched_periods_decided_total", COUNTER, S(decided),
	    "Periods the engine woke up for." },
	{ "bwsched_periods_applied_total", COUNTER, S(applied),
	    "Periods whose dynamic budget reached the regulator in time." },
	{ "bwsched_periods_late_total", COUNTER, S(late),
	    "Wake-ups too late for the period they were for: it ran on the "
	    "previous plan's look-ahead entry, or on the static budget." },
	{ "bwsched_lead_seconds", GAUGE, S(lead),
	    "How long before a period boundary the engine wakes now (it "
	    "adapts)." },
	{ "bwsched_lookahead_periods", GAUGE, S(lookahead),
	    "Periods each plan covers." },
	{ "bwsched_periods_plan_first_total", COUNTER, S(plan_first),
	    "Periods the regulator ran on a plan's first entry (fresh)." },
	{ "bwsched_periods_plan_ahead_total", COUNTER, S(plan_ahead),
	    "Periods the regulator ran on a later (look-ahead) plan entry." },
	{ "bwsched_periods_static_total", COUNTER, S(fallbacks),
	    "Periods with a lock holder the regulator ran on the static "
	    "budget (or the fail-safe one)." },
	{ "bwsched_periods_unregulated_total", COUNTER, S(unregulated),
	    "Periods with no limit at all." },
	{ "bwsched_plans_refused_total", COUNTER, S(plans_refused),
	    "Periods whose newest plan came too late to govern them." },
	{ "bwsched_periods_lock_limited_total", COUNTER, S(lock_limited),
	    "Periods a held lock slot the plan had not seen lowered." },
	{ "bwsched_lock_kicks_total", COUNTER, S(kicks),
	    "Lock-slot kicks (a task taking the lock) the regulator handled." },
	{ "bwsched_lock_kicks_lowered_total", COUNTER, S(kick_lowered),
	    "Kicks that lowered a budget at once." },
	{ "bwsched_lock_enforce_seconds_total", COUNTER, S(kick_seconds),
	    "Time from kicks to every core enforcing them, summed (divide by "
	    "bwsched_lock_kicks_total for the mean)." },
	{ "bwsched_lock_enforce_max_seconds", GAUGE, S(kick_max),
	    "Longest time from a kick to every core enforcing it." },
	{ "bwsched_lock_slot_errors_total", COUNTER, S(lock_errors),
	    "Times the engine could not read the lock slots." },
	{ "bwsched_periods_redecided_total", COUNTER, S(redecided),
	    "Decisions redone because the lock holders changed meanwhile." },
	{ "bwsched_periods_idle_total", COUNTER, S(idle),
	    "Heartbeat-only wake-ups with no task registered." },
	{ "bwsched_apply_errors_total", COUNTER, S(apply_errors),
	    "Budgets the regulator refused." },
	{ "bwsched_records_dropped_total", COUNTER, S(dropped),
	    "Period or launch records lost to a slow event loop." },
	{ "bwsched_launches_total", COUNTER, S(launches),
	    "Kernel launches seen to end (with a launch record)." },
	{ "bwsched_bad_slots_total", COUNTER, S(bad_slots),
	    "Progress-page slots rejected as invalid." },
	{ "bwsched_clients_refused_total", COUNTER, S(refused),
	    "Connections refused at max_clients." },
};

#define NSCALARS	(sizeof(scalars) / sizeof(scalars[0]))

unsigned int
metrics_budgets(struct bwsched *d, uint64_t *out, unsigned int max)
{
	const uint64_t	*b;
	unsigned int	 i, n = d->cfg.ncores < max ? d->cfg.ncores : max;
	unsigned int	 nb;

	if (d->reg_ops->budgets != NULL &&
	    d->reg_ops->budgets(d->reg, out, n) >= 0)
		return n;
	b = tasks_static_budget(d->tasks, &nb);
	for (i = 0; i < n; i++)
		out[i] = i < nb ? b[i] : REG_UNLIMITED;
	return n;
}

static void
take(struct bwsched *d, struct sample *s)
{
	struct period_stats	ps;

	memset(s, 0, sizeof(*s));
	memset(&ps, 0, sizeof(ps));
	if (d->engine != NULL)
		engine_stats(d->engine, &ps);
	if (d->reg_ops->stats(d->reg, &s->reg) < 0)
		memset(&s->reg, 0, sizeof(s->reg));
	s->uptime = (double)(bwsched_now() - d->start_ns) / 1e9;
	s->clients = d->npeers;
	s->tasks = tasks_count(d->tasks);
	s->kernels = tasks_kernel_count(d->tasks);
	s->holders = tasks_holders(d->tasks);
	s->q = d->engine != NULL ? engine_q(d->engine) :
	    tasks_q_static(d->tasks);
	s->q_static = tasks_q_static(d->tasks);
	s->realtime = ps.rt;
	s->periods = (double)s->reg.period;
	s->decided = (double)ps.periods;
	s->applied = (double)ps.applied;
	s->late = (double)ps.late;
	s->redecided = (double)ps.redecided;
	s->idle = (double)ps.idle;
	s->apply_errors = (double)ps.apply_errors;
	s->dropped = (double)ps.dropped;
	s->launches = (double)ps.launches;
	s->bad_slots = (double)ps.bad_slots;
	s->refused = (double)d->clients_refused;
	s->lead = (double)ps.lead_ns / 1e9;
	s->lookahead = ps.plan_len;
	s->lock_errors = (double)ps.lock_errors;
	/* one choice per period for all cores: core 0 counts */
	s->plan_first = (double)s->reg.core[0].plan_first;
	s->plan_ahead = (double)s->reg.core[0].plan_ahead;
	s->fallbacks = (double)s->reg.core[0].fallbacks;
	s->plans_refused = (double)s->reg.core[0].refused;
	s->unregulated = (double)s->reg.core[0].unregulated;
	s->lock_limited = (double)s->reg.core[0].lock_limited;
	s->kicks = (double)s->reg.lock.kicks;
	s->kick_lowered = (double)s->reg.lock.kick_lowered;
	s->kick_seconds = (double)s->reg.lock.kick_ns_sum / 1e9;
	s->kick_max = (double)s->reg.lock.kick_ns_max / 1e9;
	s->lateness[0] = (double)ps.lateness_p50_ns / 1e9;
	s->lateness[1] = (double)ps.lateness_p99_ns / 1e9;
	s->lateness[2] = (double)ps.lateness_max_ns / 1e9;
	s->cost[0] = (double)ps.cost_p50_ns / 1e9;
	s->cost[1] = (double)ps.cost_p99_ns / 1e9;
	s->cost[2] = (double)ps.cost_max_ns / 1e9;
	s->nbudget = metrics_budgets(d, s->budget, REG_MAX_CORES);
	memcpy(s->errors, d->errors, sizeof(s->errors));
}

static void
head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: the daemon's names are checked, but escape anyway. */
static void
label(FILE *f, const char *v)
{
	for (; *v != '\0'; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

static void
quantiles(FILE *f, const char *name, const char *help, const double *v,
    double count)
{
	static const char *const q[] = { "0.5", "0.99", "1" };
	int			  i;

	head(f, name, "summary", help);
	for (i = 0; i < 3; i++)
		fprintf(f, "%s{quantile=\"%s\"} %.9g\n", name, q[i], v[i]);
	fprintf(f, "%s_count %.17g\n", name, count);
}

static void
cores(FILE *f, struct bwsched *d, const struct sample *s)
{
	static const char *const names[] = {
		"bwsched_core_budget_events",
		"bwsched_core_events_total",
		"bwsched_core_throttles_total",
		"bwsched_core_throttled_seconds_total" };
	static const char *const helps[] = {
		"The BE core's budget in memory events per period now; +Inf "
		    "when unregulated.",
		"Memory events the BE core used.",
		"Periods in which the BE core was throttled.",
		"Time the BE core spent throttled." };
	const struct reg_core_stats	*c;
	unsigned int			 m, i;
	double				 v;

	for (m = 0; m < 4; m++) {
		head(f, names[m], m == 0 ? "gauge" : "counter", helps[m]);
		for (i = 0; i < d->cfg.ncores && i < REG_MAX_CORES; i++) {
			c = i < s->reg.ncores ? &s->reg.core[i] : NULL;
			if (m == 0)
				v = i >= s->nbudget || s->budget[i] ==
				    REG_UNLIMITED ? INFINITY :
				    (double)s->budget[i];
			else if (c == NULL)
				v = 0;
			else if (m == 1)
				v = (double)c->events;
			else if (m == 2)
				v = (double)c->throttles;
			else
				v = (double)c->throttled_ns / 1e9;
			fprintf(f, "%s{cpu=\"%d\"} ", names[m],
			    d->cfg.cores[i]);
			if (isinf(v))
				fputs("+Inf\n", f);
			else
				fprintf(f, "%.17g\n", v);
		}
	}
}

static void
kernels(FILE *f, struct bwsched *d)
{
	const struct task	*t;
	unsigned int		 i;

	head(f, "bwsched_kernel_launches_total", "counter",
	    "Launches of one registered kernel (socket and progress page).");
	for (t = tasks_first(d->tasks); t != NULL; t = t->next)
		for (i = 0; i < t->nkernels; i++) {
			fprintf(f, "bwsched_kernel_launches_total{task=\"");
			label(f, t->name);
			fprintf(f, "\",kernel=\"");
			label(f, t->kernels[i]->name);
			fprintf(f, "\"} %llu\n", (unsigned long long)
			    (t->kernels[i]->launches +
			    t->kernels[i]->page_launches));
		}
}

static void
errors(FILE *f, const struct sample *s)
{
	int	e;

	head(f, "bwsched_request_errors_total", "counter",
	    "Requests answered with an error, by status (bad input, "
	    "refusals, limits).");
	for (e = 1; e < BWP_E_MAX; e++)
		fprintf(f, "bwsched_request_errors_total{status=\"%s\"} "
		    "%llu\n", bwp_status_name(e),
		    (unsigned long long)s->errors[e]);
}

char *
metrics_text(struct bwsched *d, size_t *len)
{
	struct sample	 s;
	char		*buf = NULL;
	size_t		 i;
	FILE		*f;

	tasks_count_launches(d->tasks);
	take(d, &s);
	if ((f = open_memstream(&buf, len)) == NULL)
		return NULL;
	head(f, "bwsched_info", "gauge",
	    "Always 1; the labels say what runs.");
	fprintf(f, "bwsched_info{version=\"%s\",regulator=\"%s\","
	    "policy=\"%s\",be_regulated=\"%s\"} 1\n", PACKAGE_VERSION,
	    d->reg_ops->name, config_policy_name(d->cfg.policy),
	    d->reg_ops->simulated ? "false" : "true");
	for (i = 0; i < NSCALARS; i++) {
		head(f, scalars[i].name, scalars[i].kind == COUNTER ?
		    "counter" : "gauge", scalars[i].help);
		fprintf(f, "%s %.17g\n", scalars[i].name,
		    *(const double *)(const void *)((const char *)&s +
		    scalars[i].off));
	}
	quantiles(f, "bwsched_period_lateness_seconds", "How late the "
	    "period thread woke up (percentiles since start).", s.lateness,
	    s.decided);
	quantiles(f, "bwsched_period_cost_seconds", "CPU time the engine "
	    "spent per period (percentiles since start).", s.cost, s.decided);
	cores(f, d, &s);
	kernels(f, d);
	errors(f, &s);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int
metrics_write(struct bwsched *d, const char *dir, char *err, size_t errlen)
{
	char	path[CONFIG_MAX_PATH + 32], tmp[CONFIG_MAX_PATH + 48];
	char	*text;
	size_t	len;
	FILE	*f;
	int	bad;

	snprintf(path, sizeof(path), "%s/%s", dir, METRICS_FILE);
	/* node-exporter reads only *.prom: the temporary is not one */
	snprintf(tmp, sizeof(tmp), "%s/.%s.%d", dir, METRICS_FILE,
	    (int)getpid());
	if ((text = metrics_text(d, &len)) == NULL) {
		snprintf(err, errlen, "metrics: out of memory");
		return -1;
	}
	if ((f = fopen(tmp, "we")) == NULL) {
		snprintf(err, errlen, "metrics: %s: %s", tmp, strerror(errno));
		free(text);
		return -1;
	}
	bad = fwrite(text, 1, len, f) != len;
	bad |= fclose(f) != 0;
	free(text);
	if (bad || rename(tmp, path) < 0) {
		snprintf(err, errlen, "metrics: writing %s: %s", path,
		    strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
