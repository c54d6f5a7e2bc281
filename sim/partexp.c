/*
 * partexp.c - the partitioning experiment of [PredGPU] section 3.6: task
 * sets from UUniFast-Discard, analysed by the heuristics of
 * model/partition.c and the 1G baselines.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "partexp.h"
#include "splitmix.h"

#define PARTEXP_MAX_POINTS	1000
#define PARTEXP_MAX_REDRAWS	10000
#define PARTEXP_MAX_SETS	(1u << 20)	/* per point: 20 seed bits */
#define PARTEXP_UNIT_NS		1000000ull	/* one period unit: 1 ms */

/*
 * The period list, in units: 50 to 4000 as in [PredGPU] 3.6.1; chosen so
 * that every hyperperiod is 4000 units.
 */
static const uint64_t partexp_periods[] = { 50, 100, 200, 250, 500, 1000,
    2000, 4000 };
#define PARTEXP_NPERIODS	(sizeof(partexp_periods) / \
	sizeof(partexp_periods[0]))

static const char *const partexp_names[PARTEXP_NV] = { "sms_act",
    "sms_ina", "bf_act", "bf_ina", "1g", "1g_util" };

const char *
partexp_name(enum partexp_variant v)
{
	return v < PARTEXP_NV ? partexp_names[v] : "?";
}

void
partexp_default(struct partexp_args *a)
{
	a->tasks = 50;
	a->prm = 0.5;
	a->sets = 100;
	a->seed = 1;
	a->sms = 68;
	a->umin = 2;
	a->umax = 68;
	a->ustep = 2;
	a->variants = (1u << PARTEXP_NV) - 1;
}

int
partexp_npoints(const struct partexp_args *a)
{
	double	n;

	if (!(a->ustep > 0) || !(a->umin > 0) || !(a->umax >= a->umin))
		return -EINVAL;
	n = floor((a->umax - a->umin) / a->ustep + 1e-9) + 1;
	return n > PARTEXP_MAX_POINTS ? -EINVAL : (int)n;
}

/* Uniform in [0, 1): one stream per task set, so every set is
 * reproducible. */
static double
partexp_unit(uint64_t *s)
{
	return splitmix64_unit(s);
}

/* UUniFast (Bini and Buttazzo): n utilisations summing to u. */
static void
partexp_uunifast(uint64_t *s, unsigned int n, double u, double *out)
{
	double		rest = u, next;
	unsigned int	i;

	for (i = 0; i + 1 < n; i++) {
		next = rest * pow(partexp_unit(s), 1.0 / (double)(n - 1 - i));
		out[i] = rest - next;
		rest = next;
	}
	out[n - 1] = rest;
}

/*
 * A period from the list at random, raised along the list (up to 4000)
 * while the execution time u*T would be below one unit.
 */
static uint64_t
partexp_period(uint64_t *s, double u)
{
	size_t	i = (size_t)(partexp_unit(s) * PARTEXP_NPERIODS);

	while (i + 1 < PARTEXP_NPERIODS && u * (double)partexp_periods[i] < 1)
		i++;
	return partexp_periods[i] * PARTEXP_UNIT_NS;
}

/* One draw; 0 when a task cannot meet its deadline on all M SMs. */
static int
partexp_draw(const struct partexp_args *a, double u, uint64_t *s,
    struct partition_set *ts)
{
	struct partition_task	*t;
	double			 us[PARTITION_MAX_TASKS], x;
	unsigned int		 i;

	partexp_uunifast(s, a->tasks, u, us);
	for (i = 0; i < a->tasks; i++) {
		t = &ts->task[i];
		snprintf(t->name, sizeof(t->name), "t%u", i);
		t->cls = partexp_unit(s) > a->prm ? PARTITION_CI :
		    PARTITION_MI;
		t->period = partexp_period(s, us[i]);
		t->deadline = t->period / 4 * 3;
		x = round(us[i] * (double)t->period);
		t->a = x < 1 ? 1 : (uint64_t)x;
		partition_task_defaults(t);
		if (partition_min_sms(t, a->sms, 1) == 0)
			return 0;
	}
	ts->n = a->tasks;
	return 1;
}

int
partexp_generate(const struct partexp_args *a, double u, uint64_t seed,
    struct partition_set *ts, unsigned int *discarded)
{
	uint64_t	s = seed;
	unsigned int	tries;

	if (a->tasks == 0 || a->tasks > PARTITION_MAX_TASKS || !(u > 0))
		return -EINVAL;
	memset(ts, 0, offsetof(struct partition_set, task));
	for (tries = 0; tries < PARTEXP_MAX_REDRAWS; tries++) {
		if (partexp_draw(a, u, &s, ts))
			return 0;
		(*discarded)++;
	}
	return -EAGAIN;
}

static double
partexp_cpu_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One variant on one set: schedulable or not, its cost into the point. */
static int
partexp_variant(const struct partexp_args *a, enum partexp_variant v,
    const struct partition_set *ts, struct partition_work *w,
    struct partition_plan *p, struct partexp_point *pt)
{
	struct partition_opts	o = { a->sms, 1, v == PARTEXP_BF_ACT ||
	    v == PARTEXP_BF_INA ? PARTITION_ORDER_BF : PARTITION_ORDER_SMS,
	    v == PARTEXP_SMS_ACT || v == PARTEXP_BF_ACT ?
	    PARTITION_FORBID_ACT : PARTITION_FORBID_INA, 0, NULL };
	double			t0 = partexp_cpu_ms();
	int			ok;

	memset(&p->stats, 0, sizeof(p->stats));
	if (v == PARTEXP_1G)
		ok = partition_one_gpu(ts, a->sms, w, p);
	else if (v == PARTEXP_1G_UTIL)
		ok = partition_one_gpu_util(ts, a->sms);
	else
		ok = partition_plan(ts, &o, w, p);
	pt->ms[v] += partexp_cpu_ms() - t0;
	pt->tests[v] += (double)p->stats.tests;
	pt->prefill[v] += (double)p->stats.prefill_tests;
	pt->ok[v] += ok == 1;
	return ok == 1;
}

static void
partexp_point_mean(struct partexp_point *pt)
{
	unsigned int	v;

	for (v = 0; v < PARTEXP_NV && pt->sets > 0; v++) {
		pt->ms[v] /= pt->sets;
		pt->tests[v] /= pt->sets;
		pt->prefill[v] /= pt->sets;
	}
}

int
partexp_run(const struct partexp_args *a, struct partexp_point *pts,
    FILE *csv)
{
	struct partition_set	*ts = malloc(sizeof(*ts));
	struct partition_work	*w = malloc(sizeof(*w));
	struct partition_plan	*p = malloc(sizeof(*p));
	unsigned int		 i, k, v;
	int			 n, rc = 0, ok;

	if ((n = partexp_npoints(a)) < 0 || a->sms == 0 ||
	    a->sms > PARTITION_MAX_SMS || !(a->prm >= 0 && a->prm <= 1) ||
	    a->sets > PARTEXP_MAX_SETS)
		rc = -EINVAL;
	else if (ts == NULL || w == NULL || p == NULL)
		rc = -ENOMEM;
	if (csv != NULL && rc == 0)
		fprintf(csv, "utilization,set,variant,schedulable,tests\n");
	for (i = 0; rc == 0 && i < (unsigned int)n; i++) {
		memset(&pts[i], 0, sizeof(pts[i]));
		pts[i].utilization = a->umin + i * a->ustep;
		for (k = 0; rc == 0 && k < a->sets; k++) {
			rc = partexp_generate(a, pts[i].utilization,
			    (a->seed << 40) ^ ((uint64_t)i << 20) ^ k, ts,
			    &pts[i].discarded);
			for (v = 0; rc == 0 && v < PARTEXP_NV; v++) {
				if (!(a->variants & (1u << v)))
					continue;
				ok = partexp_variant(a, v, ts, w, p, &pts[i]);
				if (csv != NULL)
					fprintf(csv, "%g,%u,%s,%d,%llu\n",
					    pts[i].utilization, k,
					    partexp_name(v), ok,
					    (unsigned long long)p->stats.tests);
			}
			pts[i].sets += rc == 0;
		}
		partexp_point_mean(&pts[i]);
	}
	free(ts);
	free(w);
	free(p);
	return rc;
}
