/*
 * metrics.c - Prometheus text of the daemon's state (see metrics.h).
 *
 * One sample is taken (struct sample), then printed from tables.  A new
 * counter of the engine's (struct period_stats) is one line in
 * scalars[], one of the regulator's per core (struct reg_core_stats)
 * one line in core_counters[]; the daemon's own values are a field of
 * struct sample that take() fills and a line in scalars[].  Names
 * follow Prometheus conventions: bwsched_ prefix, base units (seconds,
 * events), _total on counters.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "metrics.h"
#include "msg.h"

struct sample {
	/* what the daemon itself knows, for the SELF rows of scalars[] */
	double			uptime, clients, tasks, kernels, holders;
	double			q, q_static, realtime, refused;
	double			lookahead, kicks, kick_lowered;
	double			kick_seconds, kick_max;
	struct period_stats	ps;		/* the engine's: PERIOD rows */
	struct reg_stats	reg;		/* the regulator's: cores[] */
	uint64_t		budget[REG_MAX_CORES];
	unsigned int		nbudget;
	uint64_t		errors[BWP_E_MAX];
};

enum kind { GAUGE, COUNTER };
/* where a scalar's value is: a double of struct sample, or a uint64_t
 * of the engine's struct period_stats (scaled: ns to seconds) */
enum src { SELF, PERIOD };

struct scalar {
	const char	*name;
	enum kind	 kind;
	enum src	 src;
	size_t		 off;
	double		 scale;
	const char	*help;
};

#define S(f)	SELF, offsetof(struct sample, f), 1
#define P(f)	PERIOD, offsetof(struct period_stats, f), 1
#define PNS(f)	PERIOD, offsetof(struct period_stats, f), 1e-9

/* A new counter of the engine's is one line here (and bwsched(8)). */
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
	{ "bwsched_clients_refused_total", COUNTER, S(refused),
	    "Connections refused at max_clients." },
	{ "bwsched_periods_decided_total", COUNTER, P(periods),
	    "Periods the engine woke up for." },
	{ "bwsched_periods_applied_total", COUNTER, P(applied),
	    "Periods whose dynamic budget reached the regulator in time." },
	{ "bwsched_periods_late_total", COUNTER, P(late),
	    "Wake-ups too late for the period they were for: it ran on the "
	    "previous plan's look-ahead entry, or on the static budget." },
	{ "bwsched_lead_seconds", GAUGE, PNS(lead_ns),
	    "How long before a period boundary the engine wakes now (it "
	    "adapts)." },
	{ "bwsched_lookahead_periods", GAUGE, S(lookahead),
	    "Periods each plan covers." },
	{ "bwsched_lock_slot_errors_total", COUNTER, P(lock_errors),
	    "Times the engine could not read the lock slots." },
	{ "bwsched_lock_kicks_total", COUNTER, S(kicks),
	    "Lock-slot kicks (a task taking the lock) the regulator handled." },
	{ "bwsched_lock_kicks_lowered_total", COUNTER, S(kick_lowered),
	    "Kicks that lowered a budget at once." },
	{ "bwsched_lock_enforce_seconds_total", COUNTER, S(kick_seconds),
	    "Time from kicks to every core enforcing them, summed (divide by "
	    "bwsched_lock_kicks_total for the mean)." },
	{ "bwsched_lock_enforce_max_seconds", GAUGE, S(kick_max),
	    "Longest time from a kick to every core enforcing it." },
	{ "bwsched_periods_redecided_total", COUNTER, P(redecided),
	    "Decisions redone because the lock holders changed meanwhile." },
	{ "bwsched_periods_idle_total", COUNTER, P(idle),
	    "Heartbeat-only wake-ups with no task registered." },
	{ "bwsched_apply_errors_total", COUNTER, P(apply_errors),
	    "Budgets the regulator refused." },
	{ "bwsched_records_dropped_total", COUNTER, P(dropped),
	    "Period or launch records lost to a slow event loop." },
	{ "bwsched_launches_total", COUNTER, P(launches),
	    "Kernel launches seen to end (with a launch record)." },
	{ "bwsched_bad_slots_total", COUNTER, P(bad_slots),
	    "Progress-page slots rejected as invalid." },
};

#define NSCALARS	(sizeof(scalars) / sizeof(scalars[0]))

/* Per-core counters of the regulator's (struct reg_core_stats). */
struct core_counter {
	const char	*name;
	size_t		 off;
	double		 scale;
	const char	*help;
};

#define C(f, scale)	offsetof(struct reg_core_stats, f), scale

/* A new per-core counter of the regulator's is one line here. */
static const struct core_counter core_counters[] = {
	{ "bwsched_core_events_total", C(events, 1),
	    "Memory events the BE core used." },
	{ "bwsched_core_throttles_total", C(throttles, 1),
	    "Periods in which the BE core was throttled." },
	{ "bwsched_core_throttled_seconds_total", C(throttled_ns, 1e-9),
	    "Time the BE core spent throttled." },
	{ "bwsched_core_fallback_periods_total", C(fallbacks, 1),
	    "Periods with a lock holder the BE core ran on the static (or "
	    "fail-safe) budget." },
	{ "bwsched_core_plan_first_periods_total", C(plan_first, 1),
	    "Periods the BE core ran on a plan's first (fresh) entry." },
	{ "bwsched_core_plan_ahead_periods_total", C(plan_ahead, 1),
	    "Periods the BE core ran on a later (look-ahead) plan entry." },
	{ "bwsched_core_unregulated_periods_total", C(unregulated, 1),
	    "Periods the BE core ran with no limit at all." },
	{ "bwsched_core_plans_refused_total", C(refused, 1),
	    "Periods whose newest plan came too late to govern them." },
	{ "bwsched_core_lock_limited_periods_total", C(lock_limited, 1),
	    "Periods a held lock slot the plan had not seen lowered." },
};

#define NCORE_COUNTERS	(sizeof(core_counters) / sizeof(core_counters[0]))

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
	memset(s, 0, sizeof(*s));
	if (d->engine != NULL)
		engine_stats(d->engine, &s->ps);
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
	s->realtime = s->ps.rt;
	s->refused = (double)d->clients_refused;
	s->lookahead = s->ps.plan_len;
	s->kicks = (double)s->reg.lock.kicks;
	s->kick_lowered = (double)s->reg.lock.kick_lowered;
	s->kick_seconds = (double)s->reg.lock.kick_ns_sum / 1e9;
	s->kick_max = (double)s->reg.lock.kick_ns_max / 1e9;
	s->nbudget = metrics_budgets(d, s->budget, REG_MAX_CORES);
	memcpy(s->errors, d->errors, sizeof(s->errors));
}

static double
scalar_value(const struct scalar *m, const struct sample *s)
{
	const char	*base = m->src == SELF ? (const char *)s :
			    (const char *)&s->ps;

	if (m->src == SELF)
		return *(const double *)(const void *)(base + m->off) *
		    m->scale;
	return (double)*(const uint64_t *)(const void *)(base + m->off) *
	    m->scale;
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

/* p50, p99 and the maximum in ns, as a summary in seconds */
static void
quantiles(FILE *f, const char *name, const char *help, uint64_t p50,
    uint64_t p99, uint64_t max, uint64_t count)
{
	head(f, name, "summary", help);
	fprintf(f, "%s{quantile=\"0.5\"} %.9g\n", name, (double)p50 / 1e9);
	fprintf(f, "%s{quantile=\"0.99\"} %.9g\n", name, (double)p99 / 1e9);
	fprintf(f, "%s{quantile=\"1\"} %.9g\n", name, (double)max / 1e9);
	fprintf(f, "%s_count %llu\n", name, (unsigned long long)count);
}

static void
cores(FILE *f, struct bwsched *d, const struct sample *s)
{
	const struct core_counter	*m;
	unsigned int			 i, n = d->cfg.ncores < REG_MAX_CORES ?
					     d->cfg.ncores : REG_MAX_CORES;
	double				 v;

	head(f, "bwsched_core_budget_events", "gauge", "The BE core's budget "
	    "in memory events per period now; +Inf when unregulated.");
	for (i = 0; i < n; i++) {
		fprintf(f, "bwsched_core_budget_events{cpu=\"%d\"} ",
		    d->cfg.cores[i]);
		if (i >= s->nbudget || s->budget[i] == REG_UNLIMITED)
			fputs("+Inf\n", f);
		else
			fprintf(f, "%llu\n", (unsigned long long)s->budget[i]);
	}
	for (m = core_counters; m < core_counters + NCORE_COUNTERS; m++) {
		head(f, m->name, "counter", m->help);
		for (i = 0; i < n; i++) {
			v = i >= s->reg.ncores ? 0 : (double)*(const uint64_t *)
			    (const void *)((const char *)&s->reg.core[i] +
			    m->off) * m->scale;
			fprintf(f, "%s{cpu=\"%d\"} %.17g\n", m->name,
			    d->cfg.cores[i], v);
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
		    scalar_value(&scalars[i], &s));
	}
	/* the regulator's period number: all cores share its clock */
	head(f, "bwsched_periods_total", "counter",
	    "Regulation periods the regulator has run.");
	fprintf(f, "bwsched_periods_total %llu\n",
	    (unsigned long long)s.reg.period);
	quantiles(f, "bwsched_period_lateness_seconds", "How late the "
	    "period thread woke up (percentiles since start).",
	    s.ps.lateness_p50_ns, s.ps.lateness_p99_ns, s.ps.lateness_max_ns,
	    s.ps.periods);
	quantiles(f, "bwsched_period_cost_seconds", "CPU time the engine "
	    "spent per period (percentiles since start).", s.ps.cost_p50_ns,
	    s.ps.cost_p99_ns, s.ps.cost_max_ns, s.ps.periods);
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
