/*
 * test_parts.c - the engine's small parts: the SPSC ring (order, full,
 * drops, wrap-around, a producer and a consumer thread), the lateness
 * histogram's percentiles, a finished launch's statistics, the sim
 * state's history lookup (bwsimstate.h) against a plain scan, and the
 * adaptive lead against a brute-force search of its expected age.
 */
#include <config.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bwsched/bwsimstate.h>

#include "lathist.h"
#include "leadctl.h"
#include "launchlog.h"
#include "ring.h"

#include "../check.h"

static void
test_ring(void)
{
	struct ring	*r = ring_new(sizeof(uint64_t), 3);
	uint64_t	v, i;

	CHECKM(r != NULL && ring_capacity(r) == 4, "capacity rounds up");
	for (i = 0; i < 4; i++)
		CHECKM(ring_push(r, &i) == 0, "push %llu", (unsigned long long)i);
	CHECKM(ring_push(r, &i) == -1 && ring_dropped(r) == 1, "full: drop");
	for (i = 0; i < 4; i++)
		CHECKM(ring_pop(r, &v) == 1 && v == i, "fifo order");
	CHECKM(ring_pop(r, &v) == 0, "empty");
	for (i = 0; i < 10; i++) {	/* wraps around */
		CHECKM(ring_push(r, &i) == 0, "push after wrap");
		CHECKM(ring_pop(r, &v) == 1 && v == i, "pop after wrap");
	}
	CHECKM(ring_new(0, 4) == NULL && ring_new(8, 0) == NULL, "bad sizes");
	ring_free(r);
}

#define NTHREAD	200000
static struct ring	*tr;

static void *
producer(void *arg)
{
	uint64_t	i;

	for (i = 1; i <= NTHREAD; i++)
		while (ring_push(tr, &i) < 0)
			;
	return NULL;
}

/* Every value arrives once and in order, with no lock. */
static void
test_ring_threads(void)
{
	pthread_t	t;
	uint64_t	v, want = 1;

	tr = ring_new(sizeof(uint64_t), 64);
	pthread_create(&t, NULL, producer, NULL);
	while (want <= NTHREAD)
		if (ring_pop(tr, &v) == 1) {
			if (v != want) {
				CHECKM(0, "got %llu, want %llu",
				    (unsigned long long)v,
				    (unsigned long long)want);
				break;
			}
			want++;
		}
	pthread_join(t, NULL);
	ring_free(tr);
}

static void
test_hist(void)
{
	struct lathist	h;
	uint64_t	i, p50, p99;

	lathist_reset(&h);
	CHECKM(lathist_pct(&h, 50) == 0, "empty");
	for (i = 1; i <= 1000; i++)
		lathist_add(&h, i * 1000);	/* 1 us .. 1 ms */
	p50 = lathist_pct(&h, 50);
	p99 = lathist_pct(&h, 99);
	/* upper bucket edges: never below, within ~3 % above */
	CHECKM(p50 >= 500000 && p50 <= 500000 * 1.04, "p50 %llu",
	    (unsigned long long)p50);
	CHECKM(p99 >= 990000 && p99 <= 990000 * 1.04, "p99 %llu",
	    (unsigned long long)p99);
	CHECKM(lathist_pct(&h, 100) == 1000000 && h.max == 1000000, "max");
	lathist_add(&h, 7);
	lathist_add(&h, UINT64_MAX);
	CHECKM(h.max == UINT64_MAX && lathist_pct(&h, 100) == UINT64_MAX,
	    "extremes");
}

static void
test_launch(void)
{
	struct period_launch	l;
	struct launchlog_rec	r;

	memset(&l, 0, sizeof(l));
	snprintf(l.kernel_name, sizeof(l.kernel_name), "histo");
	l.launch_ns = 1000000;
	l.prev_ns = 1000000 + 9000000;
	l.end_ns = 1000000 + 10000000;
	l.bound_ns = 11000000;
	l.periods = 4;
	l.q_sum = 0.1 + 0.2 + 0.3 + 0.4;
	l.q_sq = 0.01 + 0.04 + 0.09 + 0.16;
	l.q_min = 0.1;
	l.q_max = 0.4;
	launchlog_compute(&l, "greedy", &r);
	CHECKM(fabs(r.q_mean - 0.25) < 1e-12, "mean %g", r.q_mean);
	CHECKM(fabs(r.q_std - sqrt(0.0125)) < 1e-9, "std %g", r.q_std);
	CHECKM(r.actual_ns == 10000000 && r.actual_min_ns == 9000000 &&
	    r.slack_ns == 1000000 && strcmp(r.met, "yes") == 0, "met");
	CHECKM(strcmp(r.kernel_name, "histo") == 0, "name");
	l.bound_ns = 9500000;		/* inside the window: unknown */
	launchlog_compute(&l, "greedy", &r);
	CHECKM(strcmp(r.met, "unknown") == 0 && r.slack_ns == -500000,
	    "unknown, slack %lld", (long long)r.slack_ns);
	l.bound_ns = 8000000;
	launchlog_compute(&l, "greedy", &r);
	CHECKM(strcmp(r.met, "no") == 0, "missed");
	l.periods = 0;
	launchlog_compute(&l, "greedy", &r);
	CHECKM(r.q_mean == 0 && r.q_std == 0, "no periods");
	CHECKM(strcmp(r.end_by, "daemon") == 0 &&
	    strcmp(r.start_by, "cpu") == 0, "the engine's window");
	l.gpu_start = true;
	launchlog_compute(&l, "greedy", &r);
	CHECKM(strcmp(r.start_by, "gpu") == 0, "from the GPU start");
	l.gpu_start = false;
	/* the client's end (engine.c sets both bounds): a verdict */
	l.client_end = true;
	l.prev_ns = l.end_ns = 1000000 + 8500000;
	l.bound_ns = 9000000;
	launchlog_compute(&l, "greedy", &r);
	CHECKM(strcmp(r.met, "yes") == 0 && r.actual_ns == r.actual_min_ns &&
	    strcmp(r.end_by, "client") == 0, "client end: met");
	l.bound_ns = 8000000;
	launchlog_compute(&l, "greedy", &r);
	CHECKM(strcmp(r.met, "no") == 0, "client end: missed");
	/* a saturated bound: the slack saturates too, never negative */
	l.bound_ns = UINT64_MAX;
	launchlog_compute(&l, "greedy", &r);
	CHECKM(strcmp(r.met, "yes") == 0 && r.slack_ns == INT64_MAX,
	    "saturated bound: slack %lld", (long long)r.slack_ns);
	l.bound_ns = 0;
	l.launch_ns = 0;
	l.prev_ns = l.end_ns = UINT64_MAX;
	launchlog_compute(&l, "greedy", &r);
	CHECKM(strcmp(r.met, "no") == 0 && r.slack_ns == INT64_MIN,
	    "saturated lateness: slack %lld", (long long)r.slack_ns);
}

/* Sample i at t = 1000 i + 500 (i odd: uneven spacing), traffic 3 i. */
static void
hist_fill(struct bwsim_history *h, uint64_t count)
{
	uint64_t	i;

	for (i = 0; i < count; i++) {
		h->s[i % BWSIM_HISTORY].t_ns = 1000.0 * (double)i +
		    (i & 1 ? 500 : 0);
		h->s[i % BWSIM_HISTORY].traffic_ns = 3.0 * (double)i;
	}
	h->count = count;
}

/* The expected answer, by walking every usable pair. */
static int
hist_scan(const struct bwsim_history *h, double t, double *out)
{
	const struct bwsim_sample	*a, *b;
	uint64_t			 j, n = h->count;

	for (j = n - 1; j >= 1 && n - j <= BWSIM_HISTORY - 8; j--) {
		b = &h->s[j % BWSIM_HISTORY];
		a = &h->s[(j - 1) % BWSIM_HISTORY];
		if (a->t_ns <= t && t <= b->t_ns) {
			*out = b->t_ns > a->t_ns ? a->traffic_ns +
			    (b->traffic_ns - a->traffic_ns) * (t - a->t_ns) /
			    (b->t_ns - a->t_ns) : a->traffic_ns;
			return 0;
		}
	}
	return -1;
}

static void
test_history(void)
{
	static const uint64_t	counts[] = { 0, 1, 2, 3, 100,
	    BWSIM_HISTORY - 1, BWSIM_HISTORY, BWSIM_HISTORY + 7,
	    5 * BWSIM_HISTORY + 123 };
	char			*page = calloc(1, BWSIM_STATE_SIZE);
	struct bwsim_history	*h = (struct bwsim_history *)(void *)
	    (page + BWSIM_HISTORY_OFFSET);
	const struct bwsim_state *m = (const struct bwsim_state *)(void *)page;
	double			 t, got = 0, want = 0, hi;
	size_t			 c;
	int			 k, rg, rw, bad = 0;

	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		hist_fill(h, counts[c]);
		hi = 1000.0 * (double)counts[c] + 2000;
		for (k = 0; k < 4000; k++) {
			t = k < 3 ? (k == 0 ? -1 : k == 1 ? 0 : hi) :
			    hi * (double)rand() / RAND_MAX;
			if (k % 7 == 0)		/* exactly on a sample */
				t = 1000.0 * (double)(rand() %
				    (counts[c] + 1));
			rg = bwsim_history_at(m, t, &got);
			rw = counts[c] < 2 ? -1 : hist_scan(h, t, &want);
			if (rg != rw || (rg == 0 && fabs(got - want) > 1e-9))
				bad++;
		}
	}
	CHECKM(bad == 0, "history lookup disagrees with a scan %d times", bad);
	/* sample 3H-2 is even and the next one 1500 ns later: 1/6 of 3 */
	hist_fill(h, 3 * BWSIM_HISTORY);
	CHECKM(bwsim_history_at(m, 1000.0 * (3 * BWSIM_HISTORY - 2) + 250,
	    &got) == 0 && fabs(got - 3.0 * (3 * BWSIM_HISTORY - 2) - 0.5) <
	    1e-9, "interpolates between the newest samples");
	CHECKM(bwsim_history_at(m, 1000.0 * (2 * BWSIM_HISTORY), &got) < 0,
	    "an instant the ring has dropped is refused");
	free(page);
}

/* The expected age the lead minimises, computed directly. */
static double
lead_age(const uint64_t *v, unsigned int n, uint64_t lead, uint64_t margin,
    uint64_t period)
{
	unsigned int	i, miss = 0;

	for (i = 0; i < n; i++)
		miss += v[i] + margin >= lead;
	return (double)lead + (double)period * miss / n;
}

static void
test_lead(void)
{
	static uint64_t	v[LEADCTL_WINDOW];
	struct leadctl	l;
	uint64_t	best, x, lo = 20000, hi = 500000, m = 20000, T = 1000000;
	double		a, b;
	unsigned int	i, n, iter;

	/* not adaptive: the start stays */
	leadctl_init(&l, false, 50000, lo, hi, m, T);
	for (i = 0; i < 200; i++)
		CHECKM(leadctl_add(&l, 400000, 0) == 50000, "fixed lead moved");
	/* random windows: no lead in [lo, hi] is better than the chosen */
	srand(7);
	for (iter = 0; iter < 200; iter++) {
		leadctl_init(&l, true, 50000, lo, hi, m, T);
		n = 64 + (unsigned int)(rand() % (LEADCTL_WINDOW - 64));
		for (i = 0; i < n; i++) {
			v[i] = (uint64_t)(rand() % 100) < 5 ?
			    (uint64_t)(rand() % 2000000) :
			    (uint64_t)(rand() % 150000);
			leadctl_add(&l, v[i], 0);
		}
		best = leadctl_best(&l);
		CHECKM(best >= lo && best <= hi, "clamped: %llu",
		    (unsigned long long)best);
		a = lead_age(v, n, best, m, T);
		for (x = lo; x <= hi; x += 997) {
			b = lead_age(v, n, x, m, T);
			if (b < a - 1e-6) {
				CHECKM(0, "lead %llu ages %.0f, better %llu "
				    "ages %.0f", (unsigned long long)best, a,
				    (unsigned long long)x, b);
				break;
			}
		}
		CHECKM(fabs(leadctl_miss(&l, best) * n -
		    (lead_age(v, n, best, m, T) - (double)best) / T * n) <
		    1e-6, "miss share");
	}
}

int
main(void)
{
	test_ring();
	test_history();
	test_ring_threads();
	test_hist();
	test_launch();
	test_lead();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("test_parts: all passed\n");
	return 0;
}
