/*
 * partition.c - spatial partitioning of a GPU's SMs ([PredGPU] chapter 3):
 * the C(m) model, the per-partition EDF test, Lemmas 1-3, Algorithms 1-3,
 * the 1G baseline, the task-set parser and the CI/MI classifier.
 * doc/partition.md names every choice the chapter leaves open.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition.h"
#include "sat.h"

/* Horizons and hyperperiods beyond this are not analysed (answer: no). */
#define PARTITION_HORIZON	(1ull << 62)

const char *
partition_class_name(enum partition_class c)
{
	return c == PARTITION_MI ? "mi" : "ci";
}

/* b = 0.02a or 0.1a, rounded up, in integers so the default is exact. */
uint64_t
partition_default_b(uint64_t a, enum partition_class c)
{
	if (c == PARTITION_MI)
		return a / 10 + (a % 10 != 0);
	return a / 50 + (a % 50 != 0);
}

double
partition_default_k(enum partition_class c)
{
	return c == PARTITION_MI ? PARTITION_K_MI : PARTITION_K_CI;
}

void
partition_task_defaults(struct partition_task *t)
{
	t->b = partition_default_b(t->a, t->cls);
	t->k = partition_default_k(t->cls);
}

uint64_t
partition_wcet(const struct partition_task *t, unsigned int m, int conflict)
{
	double	x;

	if (!conflict || t->k == 1.0)	/* exact: ceil(a/m) + b */
		return sat_add(t->a / m + (t->a % m != 0), t->b);
	x = ceil(t->k * ((double)t->a / (double)m + (double)t->b));
	return x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)x;
}

/* ---- EDF processor demand ---- */

uint64_t
partition_dbf(const struct partition_job *j, unsigned int n, uint64_t t)
{
	uint64_t	sum = 0;
	unsigned int	i;

	for (i = 0; i < n; i++)
		if (t >= j[i].d)
			sum = sat_add(sum, sat_mul((t - j[i].d) / j[i].t + 1,
			    j[i].c));
	return sum;
}

/* The latest absolute deadline strictly before x; 0 when none. */
static uint64_t
edf_deadline_before(const struct partition_job *j, unsigned int n,
    uint64_t x)
{
	uint64_t	best = 0, v;
	unsigned int	i;

	for (i = 0; i < n; i++) {
		if (j[i].d >= x)
			continue;
		v = j[i].d + (x - 1 - j[i].d) / j[i].t * j[i].t;
		if (v > best)
			best = v;
	}
	return best;
}

static uint64_t
gcd64(uint64_t a, uint64_t b)
{
	uint64_t	r;

	while (b != 0) {
		r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* The hyperperiod, or 0 when it exceeds PARTITION_HORIZON. */
static uint64_t
edf_hyperperiod(const struct partition_job *j, unsigned int n)
{
	uint64_t	h = 1, f;
	unsigned int	i;

	for (i = 0; i < n; i++) {
		f = j[i].t / gcd64(h, j[i].t);
		if (h > PARTITION_HORIZON / f)
			return 0;
		h *= f;
	}
	return h;
}

/*
 * The horizon L: every absolute deadline <= L must be checked.  With
 * U < 1 the bound of Baruah et al., max(D_max, sum (T-D)U / (1-U)); with
 * U near 1 the hyperperiod plus D_max, after an exact U <= 1 check.
 * Returns 0 when the set is infeasible or the horizon is out of reach.
 */
static uint64_t
edf_horizon(const struct partition_job *j, unsigned int n, long double u,
    uint64_t dmax)
{
	unsigned __int128	demand = 0;
	long double		la = 0;
	uint64_t		h;
	unsigned int		i;

	h = edf_hyperperiod(j, n);
	if (u < 1.0L - 1e-12L) {
		for (i = 0; i < n; i++)
			la += (long double)(j[i].t - j[i].d) * j[i].c / j[i].t;
		la /= 1.0L - u;
		if (la < (long double)PARTITION_HORIZON &&
		    (h == 0 || (uint64_t)la < h))
			return (uint64_t)la > dmax ? (uint64_t)la + 1 : dmax;
	}
	if (h == 0 || h > PARTITION_HORIZON - dmax)
		return 0;
	for (i = 0; i < n; i++)		/* c <= t, so each term <= h */
		demand += (unsigned __int128)j[i].c * (h / j[i].t);
	if (demand > h)
		return 0;
	return h + dmax;
}

int
partition_edf(const struct partition_job *j, unsigned int n)
{
	long double	u = 0, dens = 0;
	uint64_t	dmin = UINT64_MAX, dmax = 0, l, t, h;
	unsigned int	i;

	for (i = 0; i < n; i++) {
		if (j[i].c > j[i].d)
			return 0;
		u += (long double)j[i].c / j[i].t;
		dens += (long double)j[i].c / j[i].d;
		if (j[i].d < dmin)
			dmin = j[i].d;
		if (j[i].d > dmax)
			dmax = j[i].d;
	}
	/* density <= 1 suffices; the margin covers the sum's rounding */
	if (n == 0 || dens <= 1.0L - 1e-15L)
		return 1;
	if (u > 1.0L + 1e-12L || (l = edf_horizon(j, n, u, dmax)) == 0)
		return 0;
	/* QPA: walk down from the last deadline before the horizon */
	t = edf_deadline_before(j, n, l + 1);
	for (;;) {
		h = partition_dbf(j, n, t);
		if (h > t)
			return 0;
		if (h <= dmin)
			return 1;
		t = h < t ? h : edf_deadline_before(j, n, t);
	}
}

/* ---- partitions ---- */

int
partition_conflict(const struct partition_set *ts, const uint64_t *set,
    unsigned int i)
{
	unsigned int	j;

	for (j = 0; j < ts->n; j++)
		if (j != i && partition_bit_test(set, j) &&
		    ts->task[j].cls == ts->task[i].cls)
			return 1;
	return 0;
}

/* The first task of the set at or after i, or PARTITION_MAX_TASKS. */
static unsigned int
bits_next(const uint64_t *set, unsigned int i)
{
	uint64_t	w;

	while (i < PARTITION_MAX_TASKS) {
		if ((w = set[i / 64] >> (i % 64)) != 0)
			return i + (unsigned int)__builtin_ctzll(w);
		i = (i / 64 + 1) * 64;
	}
	return PARTITION_MAX_TASKS;
}

#define SET_FOREACH(i, set, n) \
	for ((i) = bits_next((set), 0); (i) < (n); \
	    (i) = bits_next((set), (i) + 1))

/* Per class: how many tasks of the set, to decide conflicts in O(1). */
static void
set_counts(const struct partition_set *ts, const uint64_t *set,
    unsigned int count[2])
{
	unsigned int	i;

	count[0] = count[1] = 0;
	SET_FOREACH(i, set, ts->n)
		count[ts->task[i].cls]++;
}

int
partition_fits(const struct partition_set *ts, const uint64_t *set,
    unsigned int m, struct partition_job *jobs)
{
	const struct partition_task	*t;
	unsigned int			 count[2], i, n = 0;

	if (m == 0)
		return 0;
	set_counts(ts, set, count);
	SET_FOREACH(i, set, ts->n) {
		t = &ts->task[i];
		jobs[n].c = partition_wcet(t, m, count[t->cls] >= 2);
		jobs[n].d = t->deadline;
		jobs[n].t = t->period;
		n++;
	}
	return partition_edf(jobs, n);
}

/* Utilisation of the set on m SMs with its conflicts (the > order). */
static double
set_util(const struct partition_set *ts, const uint64_t *set,
    unsigned int m)
{
	const struct partition_task	*t;
	unsigned int			 count[2], i;
	double				 u = 0;

	set_counts(ts, set, count);
	SET_FOREACH(i, set, ts->n) {
		t = &ts->task[i];
		u += (double)partition_wcet(t, m, count[t->cls] >= 2) /
		    (double)t->period;
	}
	return u;
}

/* ---- Lemmas 1 and 2 ---- */

double
partition_lemma1_load(const struct partition_set *ts)
{
	long double	sum = 0;
	unsigned int	i;

	for (i = 0; i < ts->n; i++)
		sum += (long double)partition_wcet(&ts->task[i], 1, 0) /
		    ts->task[i].period;
	return (double)sum;
}

int
partition_lemma1(const struct partition_set *ts, unsigned int sms)
{
	/* the relative margin keeps rounding from rejecting a set at M */
	return partition_lemma1_load(ts) <= (double)sms * (1 + 1e-12);
}

unsigned int
partition_min_sms(const struct partition_task *t, unsigned int sms,
    unsigned int granule)
{
	unsigned int	lo = 1, hi, mid;

	if (granule == 0)
		granule = 1;
	hi = sms / granule;	/* search k in [1, hi]: m = k * granule */
	if (hi == 0 || partition_wcet(t, hi * granule, 0) > t->deadline)
		return 0;
	while (lo < hi) {	/* C^n(m) does not grow with m */
		mid = lo + (hi - lo) / 2;
		if (partition_wcet(t, mid * granule, 0) <= t->deadline)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo * granule;
}

/* ---- Algorithms 1-3 ---- */

struct run {
	const struct partition_set	*ts;
	const struct partition_opts	*o;
	struct partition_work		*w;
	struct partition_plan		*p;
	unsigned int			 next_id;
};

static int
run_fits(struct run *r, const uint64_t *set, unsigned int m)
{
	r->p->stats.tests++;
	return partition_fits(r->ts, set, m, r->w->jobs);
}

static void
bits_or(uint64_t *out, const uint64_t *a, const uint64_t *b)
{
	unsigned int	i;

	for (i = 0; i < PARTITION_WORDS; i++)
		out[i] = a[i] | b[i];
}

/*
 * Algorithm 2: the smallest m from max(m1, m2) up, in steps of the
 * granule, below m1 + m2 (Definition 2) and at most M, on which the union
 * is schedulable; 0 when there is none.
 */
static unsigned int
run_merge(struct run *r, const struct partition_part *p1,
    const struct partition_part *p2)
{
	partition_bits	u;
	unsigned int	m;

	r->p->stats.merges++;
	bits_or(u, p1->tasks, p2->tasks);
	m = p1->sms > p2->sms ? p1->sms : p2->sms;
	for (; m < p1->sms + p2->sms && m <= r->o->sms; m += r->o->granule)
		if (run_fits(r, u, m))
			return m;
	return 0;
}

static int
fpair_test(const struct partition_work *w, unsigned int a, unsigned int b)
{
	return (w->fpair[a][b / 64] >> (b % 64)) & 1;
}

/* Is the pair of partitions i, j on the forbidden list? */
static int
run_forbidden(const struct run *r, unsigned int i, unsigned int j)
{
	const struct partition_part	*a = &r->p->part[i];
	const struct partition_part	*b = &r->p->part[j];
	unsigned int			 k;

	if (fpair_test(r->w, a->id, b->id))
		return 1;
	if (r->o->forbid != PARTITION_FORBID_ACT)
		return 0;
	/* ACT: no task of b may be a forbidden partner of a task of a */
	for (k = 0; k < PARTITION_WORDS; k++)
		if (r->w->fnb[a->id][k] & b->tasks[k])
			return 1;
	return 0;
}

static void
run_forbid(struct run *r, unsigned int i, unsigned int j)
{
	unsigned int	a = r->p->part[i].id, b = r->p->part[j].id;

	r->w->fpair[a][b / 64] |= 1ull << (b % 64);
	r->w->fpair[b][a / 64] |= 1ull << (a % 64);
	r->p->stats.forbidden++;
}

static void
run_clear_pairs(struct run *r)
{
	unsigned int	i, words = (r->next_id + 63) / 64;

	for (i = 0; i < r->next_id; i++)
		memset(r->w->fpair[i], 0, words * sizeof(uint64_t));
}

/* Insert at the list position of its load: decreasing, stable. */
static void
run_insert(struct run *r, const struct partition_part *np)
{
	struct partition_plan	*p = r->p;
	unsigned int		 i = 0;

	while (i < p->nparts && p->part[i].load >= np->load)
		i++;
	memmove(&p->part[i + 1], &p->part[i],
	    (p->nparts - i) * sizeof(p->part[0]));
	p->part[i] = *np;
	p->nparts++;
}

static void
run_remove(struct run *r, unsigned int i)
{
	struct partition_plan	*p = r->p;

	memmove(&p->part[i], &p->part[i + 1],
	    (p->nparts - i - 1) * sizeof(p->part[0]));
	p->nparts--;
}

/* Replace partitions i and j by their merge on m SMs. */
static void
run_apply(struct run *r, unsigned int i, unsigned int j, unsigned int m)
{
	struct partition_plan	*p = r->p;
	struct partition_part	 np;

	bits_or(np.tasks, p->part[i].tasks, p->part[j].tasks);
	np.sms = m;
	np.id = r->next_id++;
	np.load = p->part[i].load + p->part[j].load;
	p->sms_used -= p->part[i].sms + p->part[j].sms - m;
	bits_or(r->w->fnb[np.id], r->w->fnb[p->part[i].id],
	    r->w->fnb[p->part[j].id]);
	run_remove(r, i > j ? i : j);
	run_remove(r, i > j ? j : i);
	run_insert(r, &np);
	if (r->o->forbid == PARTITION_FORBID_NONE)
		run_clear_pairs(r);
}

/* Stable insertion sort of cand[0..n) by ckey, ascending. */
static void
run_sort(struct partition_work *w, unsigned int n)
{
	unsigned int	i, j, c, s;
	double		k;

	for (i = 1; i < n; i++) {
		c = w->cand[i];
		s = w->csms[i];
		k = w->ckey[i];
		for (j = i; j > 0 && w->ckey[j - 1] > k; j--) {
			w->cand[j] = w->cand[j - 1];
			w->csms[j] = w->csms[j - 1];
			w->ckey[j] = w->ckey[j - 1];
		}
		w->cand[j] = c;
		w->csms[j] = s;
		w->ckey[j] = k;
	}
}

/*
 * Algorithm 3 for the first partition i and Algorithm 1's inner loop:
 * the partitions not forbidden with i, in the order's sequence, merged
 * with i until one merge succeeds.  Failed pairs go on the list.
 * Returns 1 after a merge.
 */
static int
run_try(struct run *r, unsigned int i)
{
	struct partition_work	*w = r->w;
	struct partition_plan	*p = r->p;
	partition_bits		 u;
	unsigned int		 j, n = 0, k, m;

	for (j = 0; j < p->nparts; j++) {
		if (j == i || run_forbidden(r, i, j))
			continue;
		w->cand[n] = j;
		w->csms[n] = 0;
		if (r->o->order == PARTITION_ORDER_SMS) {
			/* >> needs the merges themselves: do them now */
			if ((m = run_merge(r, &p->part[i], &p->part[j])) == 0) {
				run_forbid(r, i, j);
				continue;
			}
			w->csms[n] = m;
			w->ckey[n] = m;
		} else {
			bits_or(u, p->part[i].tasks, p->part[j].tasks);
			m = p->part[i].sms > p->part[j].sms ? p->part[i].sms :
			    p->part[j].sms;
			w->ckey[n] = set_util(r->ts, u, m);
		}
		n++;
	}
	run_sort(w, n);
	for (k = 0; k < n; k++) {
		j = w->cand[k];
		m = w->csms[k] ? w->csms[k] :
		    run_merge(r, &p->part[i], &p->part[j]);
		if (m != 0) {
			run_apply(r, i, j, m);
			return 1;
		}
		run_forbid(r, i, j);
	}
	return 0;
}

/* The smallest allowed size, a multiple of the granule. */
static unsigned int
opts_floor(const struct partition_opts *o)
{
	unsigned int	g = o->granule, m = o->min_sms;

	return m <= g ? g : (m + g - 1) / g * g;
}

/* Bisection over the allowed sizes (the test is monotone in m). */
static unsigned int
min_size(const struct partition_set *ts, const uint64_t *set,
    const struct partition_opts *o, struct partition_job *jobs,
    uint64_t *tests)
{
	unsigned int	g = o->granule, lo, hi = o->sms / g, mid;

	if (g == 0)
		return 0;
	lo = opts_floor(o) / g;
	++*tests;
	if (lo > hi || !partition_fits(ts, set, hi * g, jobs))
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		++*tests;
		if (partition_fits(ts, set, mid * g, jobs))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo * g;
}

unsigned int
partition_min_size(const struct partition_set *ts, const uint64_t *set,
    const struct partition_opts *o, struct partition_job *jobs)
{
	uint64_t	tests = 0;

	return min_size(ts, set, o, jobs, &tests);
}

/* The initial partition of task i: alone, or with its group. */
static int
run_initial(struct run *r, unsigned int i, struct partition_part *np)
{
	const struct partition_set	*ts = r->ts;
	const uint16_t			*grp = r->o->group;
	unsigned int			 j, floor = opts_floor(r->o);

	memset(np, 0, sizeof(*np));
	for (j = 0; j < ts->n; j++)
		if (j == i || (grp != NULL && grp[j] == grp[i])) {
			partition_bit_set(np->tasks, j);
			np->load += (double)ts->task[j].a /
			    (double)ts->task[j].period;
		}
	if (grp == NULL) {
		np->sms = partition_min_sms(&ts->task[i], r->o->sms,
		    r->o->granule);
		if (np->sms != 0 && np->sms < floor)
			np->sms = floor <= r->o->sms ? floor : 0;
	} else
		np->sms = min_size(ts, np->tasks, r->o, r->w->jobs,
		    &r->p->stats.tests);
	return np->sms != 0;
}

/* INITPARTITIONS (Lemma 2), in decreasing load; 0 if a task is too big. */
static int
run_init(struct run *r)
{
	const struct partition_set	*ts = r->ts;
	const uint16_t			*grp = r->o->group;
	struct partition_part		 np;
	unsigned int			 i, j;

	for (i = 0; i < ts->n; i++) {
		for (j = 0; grp != NULL && j < i && grp[j] != grp[i]; j++)
			;
		if (grp != NULL && j < i)
			continue;	/* its group is placed already */
		if (!run_initial(r, i, &np)) {
			r->p->verdict = PARTITION_TOO_BIG;
			r->p->task = i;
			return 0;
		}
		np.id = r->next_id++;
		r->p->sms_used += np.sms;
		run_insert(r, &np);
	}
	return 1;
}

/* PREFILL (ACT): every pair of initial partitions that cannot merge. */
static void
run_prefill(struct run *r)
{
	struct partition_plan	*p = r->p;
	struct partition_work	*w = r->w;
	unsigned int		 i, j, k;

	for (i = 0; i < p->nparts; i++)
		for (j = i + 1; j < p->nparts; j++) {
			if (run_merge(r, &p->part[i], &p->part[j]) != 0)
				continue;
			for (k = 0; k < PARTITION_WORDS; k++) {
				w->fnb[p->part[i].id][k] |= p->part[j].tasks[k];
				w->fnb[p->part[j].id][k] |= p->part[i].tasks[k];
			}
			p->stats.forbidden++;
		}
	p->stats.prefill_tests = p->stats.tests;
}

static int
run_begin(struct run *r, const struct partition_set *ts,
    const struct partition_opts *o, struct partition_work *w,
    struct partition_plan *p)
{
	memset(p, 0, sizeof(*p) - sizeof(p->part));
	r->ts = ts;
	r->o = o;
	r->w = w;
	r->p = p;
	r->next_id = 0;
	p->sms_total = o->sms;
	p->load = partition_lemma1_load(ts);
	if (o->sms == 0 || o->sms > PARTITION_MAX_SMS || o->granule == 0 ||
	    o->min_sms > o->sms || ts->n > PARTITION_MAX_TASKS)
		return -1;
	return 0;
}

int
partition_plan(const struct partition_set *ts,
    const struct partition_opts *o, struct partition_work *w,
    struct partition_plan *p)
{
	struct run	r;
	unsigned int	i, words;

	if (run_begin(&r, ts, o, w, p) != 0)
		return -1;
	if (!partition_lemma1(ts, o->sms)) {
		p->verdict = PARTITION_LEMMA1;
		return 0;
	}
	words = (2 * ts->n + 63) / 64;
	for (i = 0; i < 2 * ts->n; i++)
		memset(w->fpair[i], 0, words * sizeof(uint64_t));
	if (!run_init(&r))
		return 0;
	memset(w->fnb, 0, 2 * ts->n * sizeof(w->fnb[0]));
	if (o->forbid == PARTITION_FORBID_ACT)
		run_prefill(&r);
	while (p->sms_used > o->sms) {
		for (i = 0; i < p->nparts; i++)	/* CHOOSEFROM, in order */
			if (run_try(&r, i))
				break;
		if (i == p->nparts) {
			p->verdict = PARTITION_NO_MERGE;
			return 0;
		}
	}
	p->verdict = PARTITION_OK;
	return 1;
}

int
partition_one_gpu(const struct partition_set *ts, unsigned int sms,
    struct partition_work *w, struct partition_plan *p)
{
	struct partition_opts	o = { sms, 1, PARTITION_ORDER_SMS,
	    PARTITION_FORBID_INA, 0, NULL };
	struct run		r;
	unsigned int		i;

	if (run_begin(&r, ts, &o, w, p) != 0)
		return -1;
	p->nparts = 1;
	memset(&p->part[0], 0, sizeof(p->part[0]));
	for (i = 0; i < ts->n; i++) {
		partition_bit_set(p->part[0].tasks, i);
		p->part[0].load += (double)ts->task[i].a /
		    (double)ts->task[i].period;
	}
	p->part[0].sms = p->sms_used = sms;
	if (!partition_lemma1(ts, sms))
		p->verdict = PARTITION_LEMMA1;
	else if (!run_fits(&r, p->part[0].tasks, sms))
		p->verdict = PARTITION_ONE_GPU;
	else
		p->verdict = PARTITION_OK;
	return p->verdict == PARTITION_OK;
}

int
partition_one_gpu_util(const struct partition_set *ts, unsigned int sms)
{
	partition_bits	all;
	unsigned int	count[2], i;
	long double	sum = 0;

	memset(all, 0, sizeof(all));
	for (i = 0; i < ts->n; i++)
		partition_bit_set(all, i);
	set_counts(ts, all, count);
	for (i = 0; i < ts->n; i++)
		sum += (long double)partition_wcet(&ts->task[i], 1,
		    count[ts->task[i].cls] >= 2) / ts->task[i].period;
	return sum <= (long double)sms * (1 + 1e-12L);
}

int
partition_check(const struct partition_set *ts, struct partition_plan *p,
    const unsigned int *sms, struct partition_job *jobs)
{
	unsigned int	j, sum = 0;

	for (j = 0; j < p->nparts; j++) {
		p->stats.tests++;
		if (!partition_fits(ts, p->part[j].tasks, sms[j], jobs)) {
			p->verdict = PARTITION_BAD_SIZE;
			p->task = j;
			p->granted = sms[j];
			return 0;
		}
		sum += sms[j];
	}
	if (sum > p->sms_total) {
		p->verdict = PARTITION_OVER;
		p->sms_used = sum;
		return 0;
	}
	for (j = 0; j < p->nparts; j++)
		p->part[j].sms = sms[j];
	p->sms_used = sum;
	p->verdict = PARTITION_OK;
	return 1;
}

void
partition_reason(const struct partition_set *ts,
    const struct partition_plan *p, char *buf, size_t len)
{
	switch (p->verdict) {
	case PARTITION_OK:
		snprintf(buf, len, "Lemma 3: Pi = %u <= M = %u", p->sms_used,
		    p->sms_total);
		break;
	case PARTITION_LEMMA1:
		snprintf(buf, len, "Lemma 1: sum of C^n(1)/T = %.4f > M = %u",
		    p->load, p->sms_total);
		break;
	case PARTITION_TOO_BIG:
		snprintf(buf, len, "task %s misses its deadline even alone on "
		    "all %u SMs (Lemma 2)", ts->task[p->task].name,
		    p->sms_total);
		break;
	case PARTITION_NO_MERGE:
		snprintf(buf, len, "Algorithm 1 failed: no merge lowers Pi = "
		    "%u to M = %u", p->sms_used, p->sms_total);
		break;
	case PARTITION_ONE_GPU:
		snprintf(buf, len, "1G: the EDF test fails with all %u tasks "
		    "on %u SMs", ts->n, p->sms_total);
		break;
	case PARTITION_BAD_SIZE:
		snprintf(buf, len, "partition %u fails its EDF test on the "
		    "%u SMs granted (planned %u)", p->task, p->granted,
		    p->part[p->task].sms);
		break;
	case PARTITION_OVER:
		snprintf(buf, len, "the granted sizes add up to %u > M = %u",
		    p->sms_used, p->sms_total);
		break;
	}
}

/* ---- the task-set file ---- */

int
partition_task_valid(const struct partition_task *t, const char **why)
{
	if (t->period == 0 || t->period > PARTITION_MAX_NS)
		*why = "period_ns must be in 1..3600000000000";
	else if (t->deadline == 0 || t->deadline > t->period)
		*why = "deadline_ns must be in 1..period_ns";
	else if (t->a == 0 || t->a > PARTITION_MAX_NS)
		*why = "a_ns must be in 1..3600000000000";
	else if (t->b > PARTITION_MAX_NS)
		*why = "b_ns must be at most 3600000000000";
	else if (!(t->k >= 1.0 && t->k <= PARTITION_MAX_K))
		*why = "k_conflict must be in 1..100";
	else if (t->cls != PARTITION_CI && t->cls != PARTITION_MI)
		*why = "class must be ci or mi";
	else
		return 1;
	return 0;
}

enum pcol { COL_NAME, COL_PERIOD, COL_DEADLINE, COL_A, COL_CLASS, COL_B,
    COL_K, COL_N };
static const char *const pcol_names[COL_N] = { "name", "period_ns",
    "deadline_ns", "a_ns", "class", "b_ns", "k_conflict" };
#define PCOL_REQUIRED	5	/* the first five columns */
#define PCOL_MAX	16	/* columns in a header */

struct pparse {
	int		col[PCOL_MAX];	/* enum pcol of each column */
	unsigned int	ncols;
	unsigned int	line;
	char		*err;
	size_t		errlen;
};

static int pp_error(struct pparse *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static int
pp_error(struct pparse *pp, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	if (pp->errlen == 0)
		return -EINVAL;
	n = snprintf(pp->err, pp->errlen, "line %u: ", pp->line);
	if (n >= 0 && (size_t)n < pp->errlen) {
		va_start(ap, fmt);
		vsnprintf(pp->err + n, pp->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Split a line at commas into trimmed fields; -1 past max fields. */
static int
pp_split(const char *s, size_t len, const char **f, size_t *fl,
    unsigned int max)
{
	unsigned int	n = 0;
	size_t		i = 0, st, e;

	for (;;) {
		st = i;
		while (i < len && s[i] != ',')
			i++;
		if (n == max)
			return -1;
		e = i;
		while (st < e && (s[st] == ' ' || s[st] == '\t'))
			st++;
		while (e > st && (s[e - 1] == ' ' || s[e - 1] == '\t' ||
		    s[e - 1] == '\r'))
			e--;
		f[n] = s + st;
		fl[n] = e - st;
		n++;
		if (i == len)
			return (int)n;
		i++;
	}
}

static int
pp_header(struct pparse *pp, const char **f, const size_t *fl,
    unsigned int n)
{
	unsigned int	i, c, seen = 0;

	for (i = 0; i < n; i++) {
		for (c = 0; c < COL_N; c++)
			if (strlen(pcol_names[c]) == fl[i] &&
			    memcmp(pcol_names[c], f[i], fl[i]) == 0)
				break;
		if (c == COL_N)
			return pp_error(pp, "unknown column '%.*s' (columns: "
			    "name,period_ns,deadline_ns,a_ns,class and "
			    "optional b_ns,k_conflict)",
			    (int)(fl[i] > 32 ? 32 : fl[i]), f[i]);
		if (seen & (1u << c))
			return pp_error(pp, "column '%s' twice",
			    pcol_names[c]);
		seen |= 1u << c;
		pp->col[i] = (int)c;
	}
	for (c = 0; c < PCOL_REQUIRED; c++)
		if (!(seen & (1u << c)))
			return pp_error(pp, "header lacks column '%s'",
			    pcol_names[c]);
	pp->ncols = n;
	return 0;
}

static int
pp_uint(const char *s, size_t len, uint64_t *v)
{
	uint64_t	x = 0;
	size_t		i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || x > (PARTITION_MAX_NS -
		    (uint64_t)(s[i] - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

/* A decimal like 2.3 or 1e0; strtod on a bounded, terminated copy. */
static int
pp_double(const char *s, size_t len, double *v)
{
	char	buf[32], *end;
	size_t	i;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	for (i = 0; i < len; i++)
		if (strchr("0123456789.eE+-", s[i]) == NULL)
			return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*v = strtod(buf, &end);
	return *end == '\0' && isfinite(*v) ? 0 : -1;
}

static int
pp_name(struct pparse *pp, const struct partition_set *ts, const char *s,
    size_t len, struct partition_task *t)
{
	unsigned int	i;

	if (len == 0 || len > PARTITION_MAX_NAME)
		return pp_error(pp, "name must have 1..%u characters",
		    PARTITION_MAX_NAME);
	for (i = 0; i < len; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_.:-", s[i]) == NULL || s[i] == '\0')
			return pp_error(pp, "name '%.*s': only letters, digits "
			    "and _ . : -", (int)len, s);
	memcpy(t->name, s, len);
	t->name[len] = '\0';
	for (i = 0; i < ts->n; i++)
		if (strcmp(ts->task[i].name, t->name) == 0)
			return pp_error(pp, "task '%s' twice", t->name);
	return 0;
}

static int
pp_field(struct pparse *pp, enum pcol c, const char *s, size_t len,
    struct partition_task *t, int *have_b, int *have_k)
{
	uint64_t	v = 0;

	if (len == 0 && (c == COL_B || c == COL_K))
		return 0;		/* optional: the default */
	switch (c) {
	case COL_CLASS:
		if (len == 2 && (s[0] == 'c' || s[0] == 'C') &&
		    (s[1] == 'i' || s[1] == 'I'))
			t->cls = PARTITION_CI;
		else if (len == 2 && (s[0] == 'm' || s[0] == 'M') &&
		    (s[1] == 'i' || s[1] == 'I'))
			t->cls = PARTITION_MI;
		else
			return pp_error(pp, "class must be ci or mi, not "
			    "'%.*s'", (int)(len > 16 ? 16 : len), s);
		return 0;
	case COL_K:
		if (pp_double(s, len, &t->k) != 0)
			return pp_error(pp, "bad number for k_conflict");
		*have_k = 1;
		return 0;
	default:
		break;
	}
	if (pp_uint(s, len, &v) != 0)
		return pp_error(pp, "bad number for %s (integer ns up to "
		    "3600000000000)", pcol_names[c]);
	if (c == COL_PERIOD)
		t->period = v;
	else if (c == COL_DEADLINE)
		t->deadline = v;
	else if (c == COL_A)
		t->a = v;
	else {
		t->b = v;
		*have_b = 1;
	}
	return 0;
}

static int
pp_task(struct pparse *pp, struct partition_set *ts, const char **f,
    const size_t *fl, unsigned int n)
{
	struct partition_task	*t;
	const char		*why;
	unsigned int		 i;
	int			 rc, have_b = 0, have_k = 0;

	if (n != pp->ncols)
		return pp_error(pp, "%u fields, the header has %u", n,
		    pp->ncols);
	if (ts->n == PARTITION_MAX_TASKS)
		return pp_error(pp, "more than %u tasks", PARTITION_MAX_TASKS);
	t = &ts->task[ts->n];
	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		if (pp->col[i] == COL_NAME)
			rc = pp_name(pp, ts, f[i], fl[i], t);
		else
			rc = pp_field(pp, (enum pcol)pp->col[i], f[i], fl[i],
			    t, &have_b, &have_k);
		if (rc != 0)
			return rc;
	}
	if (!have_b)
		t->b = partition_default_b(t->a, t->cls);
	if (!have_k)
		t->k = partition_default_k(t->cls);
	if (!partition_task_valid(t, &why))
		return pp_error(pp, "task '%s': %s", t->name, why);
	ts->n++;
	return 0;
}

int
partition_parse(const char *buf, size_t len, struct partition_set *ts,
    char *err, size_t errlen)
{
	struct pparse	 pp = { .err = err, .errlen = errlen };
	const char	*f[PCOL_MAX + 1], *s;
	size_t		 fl[PCOL_MAX + 1], pos = 0, eol, i, n;
	int		 nf, rc;

	memset(ts, 0, offsetof(struct partition_set, task));
	if (errlen)
		err[0] = '\0';
	while (pos < len) {
		pp.line++;
		for (eol = pos; eol < len && buf[eol] != '\n'; eol++)
			if ((unsigned char)buf[eol] < 0x20 &&
			    buf[eol] != '\t' && buf[eol] != '\r')
				return pp_error(&pp, "control character in "
				    "the text");
		s = buf + pos;
		n = eol - pos;
		pos = eol + 1;
		for (i = 0; i < n && (s[i] == ' ' || s[i] == '\t' ||
		    s[i] == '\r'); i++)
			;
		if (i == n || s[i] == '#')
			continue;	/* blank or comment */
		if (memchr(s, '"', n) != NULL)
			return pp_error(&pp, "quoted fields are not supported");
		if ((nf = pp_split(s, n, f, fl, PCOL_MAX)) < 0)
			return pp_error(&pp, "more than %d fields", PCOL_MAX);
		rc = pp.ncols == 0 ? pp_header(&pp, f, fl, (unsigned int)nf) :
		    pp_task(&pp, ts, f, fl, (unsigned int)nf);
		if (rc != 0)
			return rc;
	}
	if (pp.ncols == 0)
		return pp_error(&pp, "no header line");
	if (ts->n == 0)
		return pp_error(&pp, "no task");
	return 0;
}

/* ---- Definition 1 ---- */

int
partition_classify(const unsigned int *sms, const double *times,
    unsigned int n, double tol, double knee_frac,
    struct partition_curve_fit *fit)
{
	double		best, sx = 0, sy = 0, sxx = 0, sxy = 0, x, den;
	unsigned int	i;

	if (n < 2 || n > PARTITION_MAX_CURVE || !(tol >= 0 && tol < 10) ||
	    !(knee_frac > 0 && knee_frac <= 1))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (sms[i] == 0 || (i > 0 && sms[i] <= sms[i - 1]) ||
		    !(times[i] > 0) || !isfinite(times[i]))
			return -EINVAL;
	best = times[0];
	for (i = 1; i < n; i++)
		if (times[i] < best)
			best = times[i];
	for (i = 0; times[i] > best * (1 + tol); i++)
		;
	fit->knee = sms[i];
	fit->cls = sms[i] < sms[n - 1] &&
	    (double)sms[i] <= knee_frac * (double)sms[n - 1] ?
	    PARTITION_MI : PARTITION_CI;
	for (i = 0; i < n; i++) {	/* least squares on x = 1/m */
		x = 1.0 / sms[i];
		sx += x;
		sy += times[i];
		sxx += x * x;
		sxy += x * times[i];
	}
	den = n * sxx - sx * sx;
	fit->a = den != 0 ? (n * sxy - sx * sy) / den : 0;
	fit->b = (sy - fit->a * sx) / n;
	fit->speedup = times[0] / times[n - 1];
	return 0;
}
