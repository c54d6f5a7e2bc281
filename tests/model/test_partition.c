/*
 * test_partition.c - model/partition.c: the C(m) model, the EDF test
 * against an exhaustive demand check, Lemmas 1-2, the worked example of
 * doc/partition.md for every order and forbidden-list variant, the
 * heuristics against an exhaustive search over all partitions of small
 * random task sets, the granted-size re-check, the classifier and the
 * task-set parser.
 */
#include <errno.h>
#include <string.h>

#include "partition.h"
#include "tcheck.h"

static struct partition_work	work;
static struct partition_plan	plan;

/* ---- C(m) and defaults ---- */

static void
test_wcet(void)
{
	struct partition_task	t = { .a = 1000, .cls = PARTITION_CI };

	partition_task_defaults(&t);
	CHECK_U64(t.b, 20);
	CHECK_NEAR(t.k, 1.2, 0);
	CHECK_U64(partition_wcet(&t, 1, 0), 1020);
	CHECK_U64(partition_wcet(&t, 3, 0), 354);	/* ceil(333.3) + 20 */
	CHECK_U64(partition_wcet(&t, 3, 1), 424);	/* 1.2 * 353.33 */
	CHECK_U64(partition_wcet(&t, 1000, 0), 21);
	CHECK_U64(partition_default_b(1001, PARTITION_CI), 21);
	CHECK_U64(partition_default_b(1001, PARTITION_MI), 101);
	CHECK_U64(partition_default_b(1000, PARTITION_MI), 100);
	CHECK_U64(partition_default_b(0, PARTITION_MI), 0);
	t.cls = PARTITION_MI;
	partition_task_defaults(&t);
	CHECK_U64(partition_wcet(&t, 4, 1), 805);	/* 2.3 * 350 */
	t.a = UINT64_MAX / 2;
	t.b = UINT64_MAX / 2 + 10;
	CHECK_U64(partition_wcet(&t, 1, 0), UINT64_MAX);
	CHECK_U64(partition_wcet(&t, 1, 1), UINT64_MAX);
}

/* ---- EDF ---- */

static void
test_edf_hand(void)
{
	struct partition_job	ok[] = { { 1, 1, 2 }, { 1, 2, 2 } };
	struct partition_job	tight[] = { { 2, 3, 4 }, { 2, 3, 4 } };
	struct partition_job	qpa[] = { { 1, 2, 4 }, { 1, 2, 4 },
	    { 1, 4, 4 } };
	struct partition_job	over[] = { { 1, 1, 2 }, { 2, 3, 3 } };
	struct partition_job	late[] = { { 3, 2, 5 } };

	CHECK(partition_edf(ok, 2) == 1);		/* U = 1 */
	CHECK(partition_edf(tight, 2) == 0);		/* dbf(3) = 4 */
	CHECK_U64(partition_dbf(tight, 2, 3), 4);
	CHECK(partition_edf(qpa, 3) == 1);		/* density 1.25 */
	CHECK_U64(partition_dbf(qpa, 3, 6), 5);
	CHECK(partition_edf(over, 2) == 0);		/* U = 7/6 */
	CHECK(partition_edf(late, 1) == 0);		/* c > d */
	CHECK(partition_edf(NULL, 0) == 1);
}

static uint64_t
gcd(uint64_t a, uint64_t b)
{
	return b == 0 ? a : gcd(b, a % b);
}

/* Every deadline up to H + Dmax, and U <= 1 in integers. */
static int
edf_brute(const struct partition_job *j, unsigned int n)
{
	uint64_t	h = 1, dmax = 0, t, demand = 0;
	unsigned int	i;

	for (i = 0; i < n; i++) {
		h = h / gcd(h, j[i].t) * j[i].t;
		if (j[i].d > dmax)
			dmax = j[i].d;
	}
	for (i = 0; i < n; i++)
		demand += j[i].c * (h / j[i].t);
	if (demand > h)
		return 0;
	for (t = 1; t <= h + dmax; t++)
		if (partition_dbf(j, n, t) > t)
			return 0;
	return 1;
}

static void
test_edf_random(void)
{
	struct partition_job	j[6];
	unsigned int		round, n, i, agree = 0, feasible = 0;

	for (round = 0; round < 20000; round++) {
		n = (unsigned int)trange(1, 5);
		for (i = 0; i < n; i++) {
			j[i].t = trange(1, 12);
			j[i].d = trange(1, j[i].t);
			j[i].c = trange(0, j[i].d);
		}
		if (partition_edf(j, n) == edf_brute(j, n))
			agree++;
		else
			fprintf(stderr, "edf disagrees in round %u\n", round);
		feasible += edf_brute(j, n);
	}
	CHECK_U64(agree, 20000);
	/* both answers occur often, or the comparison means little */
	CHECK(feasible > 2000 && feasible < 18000);
}

/* A horizon beyond 2^62 is refused, never guessed. */
static void
test_edf_horizon(void)
{
	struct partition_job	j[] = { { 400000, 999983, 999983 },
	    { 499990, 999979, 999983ull * 999979 } };
	struct partition_job	big[4];
	uint64_t		p[] = { 1000003, 1000033, 1000037, 1000039 };
	unsigned int		i;

	CHECK(partition_edf(j, 2) == 1);
	/* U exactly 1 (c = t/2 each, doubled) over four large primes */
	for (i = 0; i < 4; i++) {
		big[i].t = p[i] * 4;
		big[i].d = p[i] * 4 - 1;
		big[i].c = p[i];
	}
	CHECK(partition_edf(big, 4) == 0);
}

/* ---- Lemmas 1 and 2 ---- */

static void
test_lemmas(void)
{
	struct partition_set	ts;
	struct partition_task	t = { .a = 1000, .b = 20, .k = 1.2,
	    .period = 400, .deadline = 300, .cls = PARTITION_CI };

	/* ceil(1000/m) + 20 <= 300: m >= 1000/280 */
	CHECK(partition_min_sms(&t, 68, 1) == 4);
	CHECK(partition_min_sms(&t, 68, 2) == 4);
	CHECK(partition_min_sms(&t, 68, 3) == 6);
	CHECK(partition_min_sms(&t, 3, 1) == 0);
	CHECK(partition_min_sms(&t, 5, 3) == 0);
	CHECK(partition_min_sms(&t, 1, 0) == 0);
	t.deadline = 20;			/* C >= b + 1 always */
	CHECK(partition_min_sms(&t, 4096, 1) == 0);
	t.deadline = 1020;
	CHECK(partition_min_sms(&t, 68, 1) == 1);

	memset(&ts, 0, sizeof(ts));
	ts.n = 2;
	ts.task[0] = t;			/* 1020/1020 */
	ts.task[0].period = 1020;
	ts.task[1] = ts.task[0];
	ts.task[1].period = 2040;
	CHECK_NEAR(partition_lemma1_load(&ts), 1.5, 1e-12);
	CHECK(partition_lemma1(&ts, 2));
	CHECK(partition_lemma1(&ts, 1) == 0);
	/* exactly at the bound: three tasks that fill one SM each */
	ts.n = 3;
	ts.task[1].period = ts.task[1].deadline = 1020;
	ts.task[2] = ts.task[1];
	CHECK_NEAR(partition_lemma1_load(&ts), 3, 1e-12);
	CHECK(partition_lemma1(&ts, 3));
	CHECK(partition_plan(&ts, &(struct partition_opts){ 3, 1,
	    PARTITION_ORDER_SMS, PARTITION_FORBID_INA, 0, NULL }, &work,
	    &plan) == 1);
	CHECK(plan.nparts == 3 && plan.sms_used == 3);
}

/* ---- the worked example (doc/partition.md) ---- */

static void
example(struct partition_set *ts)
{
	static const struct {
		const char	*name;
		uint64_t	 a;
		int		 mi;
	} t[] = { { "A", 100, 0 }, { "B", 100, 1 }, { "C", 50, 0 },
	    { "D", 50, 1 } };
	unsigned int	i;

	memset(ts, 0, sizeof(*ts));
	for (i = 0; i < 4; i++) {
		snprintf(ts->task[i].name, sizeof(ts->task[i].name), "%s",
		    t[i].name);
		ts->task[i].period = ts->task[i].deadline = 100;
		ts->task[i].a = t[i].a;
		ts->task[i].cls = t[i].mi ? PARTITION_MI : PARTITION_CI;
		partition_task_defaults(&ts->task[i]);
	}
	ts->n = 4;
}

static unsigned int
bits_of(const char *names, const struct partition_set *ts,
    const struct partition_part *p)
{
	unsigned int	i, n = 0;

	for (i = 0; i < ts->n; i++)
		if (partition_bit_test(p->tasks, i) != (strchr(names,
		    ts->task[i].name[0]) != NULL))
			return 0;
		else if (partition_bit_test(p->tasks, i))
			n++;
	return n == strlen(names);
}

/* Partition j of the plan holds exactly the named tasks on sms SMs. */
static int
has_part(const struct partition_set *ts, const char *names,
    unsigned int sms)
{
	unsigned int	j;

	for (j = 0; j < plan.nparts; j++)
		if (bits_of(names, ts, &plan.part[j]) &&
		    plan.part[j].sms == sms)
			return 1;
	return 0;
}

static void
test_example(void)
{
	struct partition_set	ts;
	struct partition_opts	o = { 4, 1, PARTITION_ORDER_SMS,
	    PARTITION_FORBID_INA, 0, NULL };
	partition_bits		s = { 0 };
	char			why[160];
	int			f;

	example(&ts);
	CHECK_U64(ts.task[1].b, 10);
	CHECK_U64(ts.task[2].b, 1);
	CHECK_NEAR(partition_lemma1_load(&ts), 3.18, 1e-12);
	/* the merges the text works through */
	partition_bit_set(s, 0);
	partition_bit_set(s, 1);
	CHECK(!partition_fits(&ts, s, 2, work.jobs));	/* 52 + 60 */
	CHECK(partition_fits(&ts, s, 3, work.jobs));	/* 36 + 44 */
	partition_bit_set(s, 2);		/* A C conflict, B alone */
	CHECK(!partition_fits(&ts, s, 3, work.jobs));	/* 43 + 22 + 44 */
	CHECK(partition_conflict(&ts, s, 0) && !partition_conflict(&ts, s, 1));

	/* SMS takes A+C (2 SMs, before A+D by list order) and is stuck */
	for (f = PARTITION_FORBID_INA; f <= PARTITION_FORBID_NONE; f++) {
		o.order = PARTITION_ORDER_SMS;
		o.forbid = (enum partition_forbid)f;
		CHECK(partition_plan(&ts, &o, &work, &plan) == 0);
		CHECK(plan.verdict == PARTITION_NO_MERGE);
		CHECK(plan.sms_used == 5);
		CHECK(plan.nparts == 3 && has_part(&ts, "AC", 2));
		/* best fit takes A+D (U 0.82), then B+C */
		o.order = PARTITION_ORDER_BF;
		CHECK(partition_plan(&ts, &o, &work, &plan) == 1);
		CHECK(plan.verdict == PARTITION_OK && plan.sms_used == 4);
		CHECK(plan.nparts == 2 && has_part(&ts, "AD", 2) &&
		    has_part(&ts, "BC", 2));
	}
	partition_reason(&ts, &plan, why, sizeof(why));
	CHECK(strcmp(why, "Lemma 3: Pi = 4 <= M = 4") == 0);
	/* ACT: B+D and C+D fail as pairs; prefilled, they are never tried */
	o.forbid = PARTITION_FORBID_ACT;
	CHECK(partition_plan(&ts, &o, &work, &plan) == 1);
	CHECK_U64(plan.stats.prefill_tests, 7);	/* A+B two sizes */
	CHECK_U64(plan.stats.forbidden, 2);
	/* M = 6 fits the single-task partitions at once (Lemma 3) */
	o.sms = 6;
	CHECK(partition_plan(&ts, &o, &work, &plan) == 1);
	CHECK(plan.nparts == 4 && plan.sms_used == 6);
	CHECK_U64(plan.stats.merges, 6);	/* the prefill only */
	/* M = 3: Lemma 1 still passes (3.18 > 3 does not) */
	o.sms = 3;
	CHECK(partition_plan(&ts, &o, &work, &plan) == 0);
	CHECK(plan.verdict == PARTITION_LEMMA1);
	partition_reason(&ts, &plan, why, sizeof(why));
	CHECK(strcmp(why, "Lemma 1: sum of C^n(1)/T = 3.1800 > M = 3") == 0);
	/* 1G: 33 + 17 + 81 + 41 on 4 SMs */
	CHECK(partition_one_gpu(&ts, 4, &work, &plan) == 0);
	CHECK(plan.verdict == PARTITION_ONE_GPU);
	CHECK(partition_one_gpu(&ts, 40, &work, &plan) == 1);
	CHECK(partition_one_gpu_util(&ts, 5) == 0);	/* 5.65 */
	CHECK(partition_one_gpu_util(&ts, 6) == 1);
	/* a task that cannot meet D alone */
	ts.task[3].deadline = 5;
	o.sms = 100;
	CHECK(partition_plan(&ts, &o, &work, &plan) == 0);
	CHECK(plan.verdict == PARTITION_TOO_BIG && plan.task == 3);
	/* bad options */
	o.sms = 0;
	CHECK(partition_plan(&ts, &o, &work, &plan) == -1);
	o.sms = 4;
	o.granule = 0;
	CHECK(partition_plan(&ts, &o, &work, &plan) == -1);
}

/* Groups start together; min_sms raises the small partitions. */
static void
test_groups(void)
{
	static const uint16_t	grp[4] = { 0, 1, 2, 0 };	/* A with D */
	struct partition_set	ts;
	struct partition_opts	o = { 4, 1, PARTITION_ORDER_SMS,
	    PARTITION_FORBID_INA, 0, grp };

	example(&ts);
	/* AD on 2 (52 + 30), B 2, C 1: SMS merges B+C on 2 */
	CHECK(partition_plan(&ts, &o, &work, &plan) == 1);
	CHECK(plan.nparts == 2 && has_part(&ts, "AD", 2) &&
	    has_part(&ts, "BC", 2));
	/* C alone may not use 1 SM: 2 + 2 + 2 = 6 > 5; SMS takes AD
	 * first, AD+B fails, AD+C fits on 3 (43 + 22 + 22) */
	o.min_sms = 2;
	o.sms = 5;
	CHECK(partition_plan(&ts, &o, &work, &plan) == 1);
	CHECK(plan.sms_used == 5 && has_part(&ts, "ACD", 3) &&
	    has_part(&ts, "B", 2));
	o.sms = 8;	/* no merge needed: 2 + 2 + 2 */
	CHECK(partition_plan(&ts, &o, &work, &plan) == 1);
	CHECK(plan.nparts == 3 && plan.sms_used == 6 &&
	    has_part(&ts, "C", 2));
	o.min_sms = 9;
	CHECK(partition_plan(&ts, &o, &work, &plan) == -1);
	/* Lemma 2 for a set: ACD needs 3 SMs (2 fail: 63 + 32 + 30) */
	{
		partition_bits	s = { 0 };

		partition_bit_set(s, 0);
		partition_bit_set(s, 2);
		partition_bit_set(s, 3);
		o.min_sms = 0;
		o.sms = 4;
		CHECK(partition_min_size(&ts, s, &o, work.jobs) == 3);
		o.granule = 2;
		CHECK(partition_min_size(&ts, s, &o, work.jobs) == 4);
		o.sms = 3;
		CHECK(partition_min_size(&ts, s, &o, work.jobs) == 0);
		o.granule = 1;
		o.min_sms = 3;
		s[0] = 1u << 0 | 1u << 3;	/* AD: 2, raised to 3 */
		CHECK(partition_min_size(&ts, s, &o, work.jobs) == 3);
		o.granule = 1;
		o.sms = 8;
	}
	/* a group too big for the GPU names its first task */
	ts.task[3].deadline = 5;
	o.min_sms = 0;
	CHECK(partition_plan(&ts, &o, &work, &plan) == 0);
	CHECK(plan.verdict == PARTITION_TOO_BIG && plan.task == 0);
}

/* The plan of the example on granted sizes. */
static void
test_check(void)
{
	struct partition_set	ts;
	struct partition_opts	o = { 5, 1, PARTITION_ORDER_BF,
	    PARTITION_FORBID_INA, 0, NULL };
	unsigned int		g[PARTITION_MAX_TASKS], j;

	example(&ts);
	CHECK(partition_plan(&ts, &o, &work, &plan) == 1);
	CHECK(plan.sms_used == 5);
	for (j = 0; j < plan.nparts; j++)
		g[j] = plan.part[j].sms;
	CHECK(partition_check(&ts, &plan, g, work.jobs) == 1);
	g[0]++;		/* rounded up within M: still fine */
	CHECK(partition_check(&ts, &plan, g, work.jobs) == 0);
	CHECK(plan.verdict == PARTITION_OVER);
	o.sms = 12;	/* the single-task partitions: 2 + 2 + 1 + 1 */
	CHECK(partition_plan(&ts, &o, &work, &plan) == 1);
	CHECK(plan.nparts == 4);
	for (j = 0; j < plan.nparts; j++)
		g[j] = plan.part[j].sms + 1;
	CHECK(partition_check(&ts, &plan, g, work.jobs) == 1);
	CHECK(plan.sms_used == 10);
	for (j = 0; j < plan.nparts; j++)
		if (plan.part[j].sms >= 2)
			break;
	CHECK(j < plan.nparts);
	g[j] = 1;		/* below Lemma 2's minimum: fails */
	CHECK(partition_check(&ts, &plan, g, work.jobs) == 0);
	CHECK(plan.verdict == PARTITION_BAD_SIZE && plan.task == j &&
	    plan.granted == 1);
}

/* ---- against exhaustive search ---- */

struct brute {
	const struct partition_set	*ts;
	const uint16_t			*group;	/* or NULL */
	unsigned int			 sms;
	unsigned int			 granule;
	unsigned int			 block[8];	/* block of task i */
	unsigned int			 best;		/* min Pi */
};

/* The smallest size a set of tasks fits on, or 0 up to M. */
static unsigned int
brute_size(struct brute *b, const uint64_t *set)
{
	unsigned int	m;

	for (m = b->granule; m <= b->sms; m += b->granule)
		if (partition_fits(b->ts, set, m, work.jobs))
			return m;
	return 0;
}

/* Every set partition, as restricted growth strings. */
static void
brute_rec(struct brute *b, unsigned int i, unsigned int nblocks)
{
	partition_bits	set;
	unsigned int	k, t, m, sum = 0;

	if (i == b->ts->n) {
		for (t = 0; b->group != NULL && t < b->ts->n; t++)
			for (k = 0; k < t; k++)
				if (b->group[k] == b->group[t] &&
				    b->block[k] != b->block[t])
					return;	/* a group split apart */
		for (k = 0; k < nblocks; k++) {
			memset(set, 0, sizeof(set));
			for (t = 0; t < b->ts->n; t++)
				if (b->block[t] == k)
					partition_bit_set(set, t);
			if ((m = brute_size(b, set)) == 0)
				return;
			sum += m;
		}
		if (sum < b->best)
			b->best = sum;
		return;
	}
	for (k = 0; k <= nblocks; k++) {
		b->block[i] = k;
		brute_rec(b, i + 1, nblocks + (k == nblocks));
	}
}

/* The plan is a partition of all tasks, each part passes, sizes add up. */
static int
plan_valid(const struct partition_set *ts, const struct partition_opts *o)
{
	partition_bits	seen = { 0 };
	unsigned int	j, i, sum = 0;

	for (j = 0; j < plan.nparts; j++) {
		for (i = 0; i < PARTITION_WORDS; i++) {
			if (seen[i] & plan.part[j].tasks[i])
				return 0;
			seen[i] |= plan.part[j].tasks[i];
		}
		if (plan.part[j].sms % o->granule != 0 ||
		    !partition_fits(ts, plan.part[j].tasks, plan.part[j].sms,
		    work.jobs))
			return 0;
		sum += plan.part[j].sms;
	}
	for (i = 0; i < ts->n; i++)
		if (!partition_bit_test(seen, i))
			return 0;
	return sum == plan.sms_used && sum <= o->sms;
}

static void
random_set(struct partition_set *ts, unsigned int n)
{
	static const uint64_t	periods[] = { 40, 60, 80, 120 };
	struct partition_task	*t;
	unsigned int		 i;

	memset(ts, 0, sizeof(*ts));
	for (i = 0; i < n; i++) {
		t = &ts->task[i];
		snprintf(t->name, sizeof(t->name), "t%u", i);
		t->period = periods[trange(0, 3)];
		t->deadline = t->period * 3 / 4 + trange(0, t->period / 4);
		t->a = trange(5, 3 * t->period);
		t->cls = trange(0, 1) ? PARTITION_MI : PARTITION_CI;
		partition_task_defaults(t);
	}
	ts->n = n;
}

static void
test_brute(void)
{
	struct partition_set	ts;
	struct partition_opts	o;
	struct brute		b;
	struct partition_plan	ina[2];
	uint16_t		grp[8];
	unsigned int		round, v, i, found = 0, sched = 0,
				heur[6] = { 0 };
	int			rc;

	for (round = 0; round < 1500; round++) {
		random_set(&ts, (unsigned int)trange(2, 7));
		for (i = 0; i < 8; i++)	/* every third round: groups */
			grp[i] = (uint16_t)trange(0, 3);
		b.group = round % 3 == 1 ? grp : NULL;
		b.ts = &ts;
		b.sms = (unsigned int)trange(2, 10);
		b.granule = round % 5 == 0 ? 2 : 1;
		b.best = UINT32_MAX;
		brute_rec(&b, 0, 0);
		found = b.best <= b.sms;
		sched += found;
		if (!partition_lemma1(&ts, b.sms))
			CHECK(!found);		/* Lemma 1 is necessary */
		/* 1G takes all M SMs, a size the search has with g = 1 */
		if (b.granule == 1 && b.group == NULL &&
		    partition_one_gpu(&ts, b.sms, &work, &plan) == 1)
			CHECK(found);
		for (v = 0; v < 6; v++) {
			o.sms = b.sms;
			o.granule = b.granule;
			o.min_sms = 0;
			o.group = b.group;
			o.order = v & 1 ? PARTITION_ORDER_BF :
			    PARTITION_ORDER_SMS;
			o.forbid = (enum partition_forbid)(v / 2);
			rc = partition_plan(&ts, &o, &work, &plan);
			CHECK(rc == 0 || rc == 1);
			if (rc == 1) {
				heur[v]++;
				CHECK(found);
				CHECK(plan_valid(&ts, &o));
				CHECK(plan.sms_used >= b.best);
			}
			if (plan.verdict == PARTITION_TOO_BIG ||
			    plan.verdict == PARTITION_LEMMA1)
				CHECK(!found);
			/* NONE reaches the plan INA reaches, with more tests */
			if (o.forbid == PARTITION_FORBID_INA)
				ina[v & 1] = plan;
			if (o.forbid == PARTITION_FORBID_NONE) {
				CHECK(plan.verdict == ina[v & 1].verdict &&
				    plan.sms_used == ina[v & 1].sms_used &&
				    plan.nparts == ina[v & 1].nparts);
				CHECK(plan.stats.tests >= ina[v & 1].stats.tests);
			}
		}
	}
	printf("exhaustive search: %u of 1500 schedulable; SMS-INA %u, "
	    "BF-INA %u, SMS-ACT %u, BF-ACT %u\n", sched, heur[0], heur[1],
	    heur[2], heur[3]);
	/* the random sets must exercise both answers */
	CHECK(sched > 300 && sched < 1400);
	CHECK(heur[0] > 100 && heur[1] > 100);
}

/* ---- classification (Definition 1) ---- */

static void
test_classify(void)
{
	unsigned int			sms[68];
	double				t[68];
	struct partition_curve_fit	f;
	unsigned int			i;

	for (i = 0; i < 68; i++) {
		sms[i] = i + 1;
		t[i] = 1000.0 / sms[i] + 20;	/* the model's CI kernel */
	}
	CHECK(partition_classify(sms, t, 68, 0.10, 0.75, &f) == 0);
	CHECK(f.cls == PARTITION_CI && f.knee == 56);
	CHECK_NEAR(f.a, 1000, 1e-6);
	CHECK_NEAR(f.b, 20, 1e-6);
	for (i = 0; i < 68; i++)
		t[i] = 1000.0 / sms[i] + 100;	/* the model's MI kernel */
	CHECK(partition_classify(sms, t, 68, 0.10, 0.75, &f) == 0);
	CHECK(f.cls == PARTITION_MI && f.knee == 39);
	for (i = 0; i < 68; i++)	/* saturates at 40 SMs (Fig. 3.2) */
		t[i] = 1000.0 / (sms[i] < 40 ? sms[i] : 40);
	CHECK(partition_classify(sms, t, 68, 0.05, 0.75, &f) == 0);
	CHECK(f.cls == PARTITION_MI && f.knee == 39);
	CHECK_NEAR(f.speedup, 40, 1e-9);
	/* two points: the last is the best, nothing beyond it */
	CHECK(partition_classify(sms, t, 2, 0.10, 0.75, &f) == 0);
	CHECK(f.cls == PARTITION_CI);
	t[1] = 0;
	CHECK(partition_classify(sms, t, 2, 0.1, 0.75, &f) == -EINVAL);
	t[1] = 1;
	sms[1] = 1;
	CHECK(partition_classify(sms, t, 2, 0.1, 0.75, &f) == -EINVAL);
	CHECK(partition_classify(sms, t, 1, 0.1, 0.75, &f) == -EINVAL);
	sms[1] = 2;
	CHECK(partition_classify(sms, t, 2, 0.1, 0, &f) == -EINVAL);
}

/* ---- the task-set file ---- */

static void
parse_err(const char *text, const char *want)
{
	struct partition_set	ts;
	char			err[200];

	if (partition_parse(text, strlen(text), &ts, err, sizeof(err)) !=
	    -EINVAL || strstr(err, want) == NULL) {
		fprintf(stderr, "parse: '%s' -> '%s', want '%s'\n", text, err,
		    want);
		failures++;
	}
}

static void
test_parse(void)
{
	static const char	good[] =
	    "# two tasks\n"
	    "\n"
	    "class, name ,period_ns,deadline_ns,a_ns,b_ns,k_conflict\r\n"
	    "ci,conv1,1000,750,400,,\n"
	    "  # comment\n"
	    "MI,copy.2,2000,2000,100,7,1.5\n";
	struct partition_set	ts;
	char			err[200];

	CHECK(partition_parse(good, strlen(good), &ts, err, sizeof(err)) ==
	    0);
	CHECK(ts.n == 2);
	CHECK(strcmp(ts.task[0].name, "conv1") == 0);
	CHECK(ts.task[0].period == 1000 && ts.task[0].deadline == 750);
	CHECK(ts.task[0].a == 400 && ts.task[0].b == 8);
	CHECK(ts.task[0].k == 1.2 && ts.task[0].cls == PARTITION_CI);
	CHECK(ts.task[1].b == 7 && ts.task[1].k == 1.5);
	CHECK(ts.task[1].cls == PARTITION_MI);

	parse_err("", "line 0: no header");
	parse_err("name,period_ns,deadline_ns,a_ns\n", "line 1: header lacks "
	    "column 'class'");
	parse_err("name,period_ns,deadline_ns,a_ns,class,foo\n",
	    "unknown column 'foo'");
	parse_err("name,name,period_ns,deadline_ns,a_ns,class\n",
	    "column 'name' twice");
	parse_err("name,period_ns,deadline_ns,a_ns,class\n", "no task");
	parse_err("name,period_ns,deadline_ns,a_ns,class\nx,1,1,1\n",
	    "line 2: 4 fields, the header has 5");
	parse_err("name,period_ns,deadline_ns,a_ns,class\nx,1,1,1,xi\n",
	    "class must be ci or mi");
	parse_err("name,period_ns,deadline_ns,a_ns,class\nx,10,11,1,ci\n",
	    "deadline_ns must be in 1..period_ns");
	parse_err("name,period_ns,deadline_ns,a_ns,class\nx,10,10,0,ci\n",
	    "a_ns must be in 1");
	parse_err("name,period_ns,deadline_ns,a_ns,class\nx,1x,10,1,ci\n",
	    "bad number for period_ns");
	parse_err("name,period_ns,deadline_ns,a_ns,class\n"
	    "x,99999999999999999999,10,1,ci\n", "bad number for period_ns");
	parse_err("name,period_ns,deadline_ns,a_ns,class\n"
	    "x,3600000000001,10,1,ci\n", "bad number for period_ns");
	parse_err("name,period_ns,deadline_ns,a_ns,class,k_conflict\n"
	    "x,10,10,1,ci,0.5\n", "k_conflict must be in 1..100");
	parse_err("name,period_ns,deadline_ns,a_ns,class,k_conflict\n"
	    "x,10,10,1,ci,nan\n", "bad number for k_conflict");
	parse_err("name,period_ns,deadline_ns,a_ns,class,k_conflict\n"
	    "x,10,10,1,ci,1e999\n", "bad number for k_conflict");
	parse_err("name,period_ns,deadline_ns,a_ns,class\nx,10,10,1,ci\n"
	    "x,10,10,1,ci\n", "line 3: task 'x' twice");
	parse_err("name,period_ns,deadline_ns,a_ns,class\n\"x\",10,10,1,ci\n",
	    "quoted fields");
	parse_err("name,period_ns,deadline_ns,a_ns,class\na b,10,10,1,ci\n",
	    "only letters");
	parse_err("name,period_ns,deadline_ns,a_ns,class\n,10,10,1,ci\n",
	    "name must have");
	parse_err("name,period_ns,deadline_ns,a_ns,class\nx,10,10,1,ci\1\n",
	    "line 2: control character");
	parse_err("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q\n", "more than 16 fields");
}

static void
test_parse_limit(void)
{
	static char		buf[PARTITION_MAX_SIZE];
	struct partition_set	ts;
	char			err[200];
	size_t			n;
	unsigned int		i;

	n = (size_t)snprintf(buf, sizeof(buf),
	    "name,period_ns,deadline_ns,a_ns,class\n");
	for (i = 0; i <= PARTITION_MAX_TASKS; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
		    "t%u,100,100,10,ci\n", i);
	CHECK(partition_parse(buf, n, &ts, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "more than 256 tasks") != NULL);
	CHECK(partition_parse(buf, n - strlen("t256,100,100,10,ci\n"), &ts,
	    err, sizeof(err)) == 0 && ts.n == 256);
}

int
main(void)
{
	test_wcet();
	test_edf_hand();
	test_edf_random();
	test_edf_horizon();
	test_lemmas();
	test_example();
	test_groups();
	test_check();
	test_brute();
	test_classify();
	test_parse();
	test_parse_limit();
	return tcheck_done("test_partition");
}
