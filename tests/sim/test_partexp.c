/*
 * test_partexp.c - the task sets of bwsim partition (sim/partexp.c)
 * follow [PredGPU] 3.6.1 as doc/partition.md reads it: utilisations that
 * add up to U, periods from the list raised until a*T >= 1 unit, D =
 * 0.75 T, classes by prm, defaults for b and k, no task that misses its
 * deadline alone on all M SMs; same seed, same set.
 */
#include <errno.h>
#include <string.h>

#include "partexp.h"
#include "tap.h"

static struct partition_set	ts, ts2;

static int
in_list(uint64_t t)
{
	static const uint64_t	l[] = { 50, 100, 200, 250, 500, 1000, 2000,
	    4000 };
	unsigned int		i;

	for (i = 0; i < 8; i++)
		if (t == l[i] * 1000000ull)
			return 1;
	return 0;
}

static void
test_sets(void)
{
	struct partexp_args	a;
	unsigned int		i, k, mi = 0, d = 0, n = 0;
	double			u;

	partexp_default(&a);
	for (k = 0; k < 200; k++) {
		OK(partexp_generate(&a, 34, k, &ts, &d) == 0);
		OK(ts.n == 50);
		u = 0;
		for (i = 0; i < ts.n; i++) {
			const struct partition_task *t = &ts.task[i];

			u += (double)t->a / (double)t->period;
			OK(in_list(t->period));
			OK(t->deadline * 4 == t->period * 3);
			OK(t->b == partition_default_b(t->a, t->cls));
			OK(t->k == partition_default_k(t->cls));
			OK(partition_min_sms(t, 68, 1) > 0);
			/* a below one unit only on the longest period */
			OK(t->a >= 1000000 || t->period == 4000000000ull);
			mi += t->cls == PARTITION_MI;
			n++;
		}
		NEAR(u, 34, 1e-6);
	}
	NEAR((double)mi / n, 0.5, 0.02);	/* prm 0.5 */
	OK(partexp_generate(&a, 34, 7, &ts, &d) == 0);
	OK(partexp_generate(&a, 34, 7, &ts2, &d) == 0);
	OK(memcmp(&ts, &ts2, sizeof(ts)) == 0);
	OK(partexp_generate(&a, 34, 8, &ts2, &d) == 0);
	OK(memcmp(&ts, &ts2, sizeof(ts)) != 0);
	a.prm = 0;
	OK(partexp_generate(&a, 20, 1, &ts, &d) == 0);
	for (i = 0; i < ts.n; i++)
		OK(ts.task[i].cls == PARTITION_CI);
	a.prm = 1;
	OK(partexp_generate(&a, 20, 1, &ts, &d) == 0);
	for (i = 0; i < ts.n; i++)
		OK(ts.task[i].cls == PARTITION_MI);
}

/* Big tasks get redrawn; an impossible total is refused. */
static void
test_discard(void)
{
	struct partexp_args	a;
	unsigned int		d = 0;

	partexp_default(&a);
	a.tasks = 10;		/* mean u 6: MI tasks above 6.5 are common */
	OK(partexp_generate(&a, 60, 1, &ts, &d) == 0);
	OK(d > 0);
	a.tasks = 2;
	OK(partexp_generate(&a, 60, 1, &ts, &d) == -EAGAIN);
	a.tasks = 0;
	OK(partexp_generate(&a, 10, 1, &ts, &d) == -EINVAL);
}

static void
test_points(void)
{
	struct partexp_args	a;
	struct partexp_point	pts[3];

	partexp_default(&a);
	OK(partexp_npoints(&a) == 34);
	a.umax = 1;
	OK(partexp_npoints(&a) == -EINVAL);
	a.umin = 1;
	a.umax = 2001;
	OK(partexp_npoints(&a) == -EINVAL);
	a.umax = 1999;
	OK(partexp_npoints(&a) == 1000);
	/* a run: low U all schedulable, 1G EDF fails first */
	partexp_default(&a);
	a.tasks = 16;
	a.sets = 10;
	a.umin = 2;
	a.umax = 42;
	a.ustep = 20;
	OK(partexp_run(&a, pts, NULL) == 0);
	OK(pts[0].sets == 10 && pts[0].ok[PARTEXP_SMS_INA] == 10);
	OK(pts[1].ok[PARTEXP_1G] <= pts[1].ok[PARTEXP_BF_INA]);
	OK(pts[2].ok[PARTEXP_1G] == 0);
	OK(pts[2].tests[PARTEXP_SMS_ACT] > pts[2].prefill[PARTEXP_SMS_ACT]);
	OK(pts[2].prefill[PARTEXP_SMS_INA] == 0);
	a.prm = 2;
	OK(partexp_run(&a, pts, NULL) == -EINVAL);
}

int
main(void)
{
	test_sets();
	test_discard();
	test_points();
	if (TAP_DONE())
		return 1;
	printf("test_partexp: all checks passed\n");
	return 0;
}
