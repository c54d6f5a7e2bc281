/*
 * test_parts.c - the engine's small parts: the SPSC ring (order, full,
 * drops, wrap-around, a producer and a consumer thread), the lateness
 * histogram's percentiles, and a finished launch's statistics.
 */
#include <config.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "lathist.h"
#include "launchlog.h"
#include "ring.h"

static int	failures;

#define CHECK(c, ...) do { if (!(c)) { failures++;			\
	fprintf(stderr, "FAIL line %d: ", __LINE__);			\
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void
test_ring(void)
{
	struct ring	*r = ring_new(sizeof(uint64_t), 3);
	uint64_t	v, i;

	CHECK(r != NULL && ring_capacity(r) == 4, "capacity rounds up");
	for (i = 0; i < 4; i++)
		CHECK(ring_push(r, &i) == 0, "push %llu", (unsigned long long)i);
	CHECK(ring_push(r, &i) == -1 && ring_dropped(r) == 1, "full: drop");
	for (i = 0; i < 4; i++)
		CHECK(ring_pop(r, &v) == 1 && v == i, "fifo order");
	CHECK(ring_pop(r, &v) == 0, "empty");
	for (i = 0; i < 10; i++) {	/* wraps around */
		CHECK(ring_push(r, &i) == 0, "push after wrap");
		CHECK(ring_pop(r, &v) == 1 && v == i, "pop after wrap");
	}
	CHECK(ring_new(0, 4) == NULL && ring_new(8, 0) == NULL, "bad sizes");
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
				CHECK(0, "got %llu, want %llu",
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
	CHECK(lathist_pct(&h, 50) == 0, "empty");
	for (i = 1; i <= 1000; i++)
		lathist_add(&h, i * 1000);	/* 1 us .. 1 ms */
	p50 = lathist_pct(&h, 50);
	p99 = lathist_pct(&h, 99);
	/* upper bucket edges: never below, within ~3 % above */
	CHECK(p50 >= 500000 && p50 <= 500000 * 1.04, "p50 %llu",
	    (unsigned long long)p50);
	CHECK(p99 >= 990000 && p99 <= 990000 * 1.04, "p99 %llu",
	    (unsigned long long)p99);
	CHECK(lathist_pct(&h, 100) == 1000000 && h.max == 1000000, "max");
	lathist_add(&h, 7);
	lathist_add(&h, UINT64_MAX);
	CHECK(h.max == UINT64_MAX && lathist_pct(&h, 100) == UINT64_MAX,
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
	CHECK(fabs(r.q_mean - 0.25) < 1e-12, "mean %g", r.q_mean);
	CHECK(fabs(r.q_std - sqrt(0.0125)) < 1e-9, "std %g", r.q_std);
	CHECK(r.actual_ns == 10000000 && r.actual_min_ns == 9000000 &&
	    r.slack_ns == 1000000 && strcmp(r.met, "yes") == 0, "met");
	CHECK(strcmp(r.kernel_name, "histo") == 0, "name");
	l.bound_ns = 9500000;		/* inside the window: unknown */
	launchlog_compute(&l, "greedy", &r);
	CHECK(strcmp(r.met, "unknown") == 0 && r.slack_ns == -500000,
	    "unknown, slack %lld", (long long)r.slack_ns);
	l.bound_ns = 8000000;
	launchlog_compute(&l, "greedy", &r);
	CHECK(strcmp(r.met, "no") == 0, "missed");
	l.periods = 0;
	launchlog_compute(&l, "greedy", &r);
	CHECK(r.q_mean == 0 && r.q_std == 0, "no periods");
}

int
main(void)
{
	test_ring();
	test_ring_threads();
	test_hist();
	test_launch();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("test_parts: all passed\n");
	return 0;
}
