/*
 * bench_period.c - the period engine as it runs in the daemon: its own
 * thread on absolute timerfd deadlines (SCHED_FIFO when permitted),
 * 10 RT tasks holding the lock, each with a histo launch (37,627 blocks,
 * M = 8, [DynBW] Table 4.1) whose blocks a "GPU" thread keeps
 * finishing and relaunching, and 3 BE cores.  A backend stand-in keeps
 * the period clock on CLOCK_MONOTONIC and takes the budgets.
 *
 * Reports, over the run (default 5 s): CPU time of the engine's work per
 * period (thread CPU clock, p50/p99/max) and the period thread's
 * wake-up lateness against its deadline (p50/p99/max), late periods and
 * how many budgets reached the backend in time.
 * Usage: bench_period -o FILE [-d SECONDS] [-t TASKS] [-r PRIORITY]
 *        [-l LEAD_US]   (-r 0: no SCHED_FIFO; lead default 50 us)
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "fileio.h"
#include "monoclock.h"
#include "period.h"
#include "profile.h"

#ifndef HISTO_BWK
#define HISTO_BWK	"examples/histo.bwk"
#endif
#define T_NS		1000000ull
#define NCORES		3
#define MAX_TASKS	32

/* ---- backend stand-in ---------------------------------------------- */

struct regulator {
	uint64_t	epoch;
	uint64_t	applies;	/* atomic */
};

static int
b_clock(struct regulator *r, uint64_t *p, uint64_t *next)
{
	*p = (monoclock_ns() - r->epoch) / T_NS;
	*next = r->epoch + (*p + 1) * T_NS;
	return 0;
}

static int
b_apply(struct regulator *r, uint64_t period, const uint64_t *ev,
    unsigned int n)
{
	if (r->epoch + period * T_NS <= monoclock_ns())
		return -EINVAL;
	__atomic_fetch_add(&r->applies, 1, __ATOMIC_RELAXED);
	return 0;
}

static int
b_beat(struct regulator *r)
{
	return 0;
}

static const struct regulator_ops	bops = {
	.name = "bench", .clock = b_clock, .apply = b_apply,
	.heartbeat = b_beat,
};

/* ---- tasks and their "GPU" ------------------------------------------- */

static struct kernel		kern;
static struct kernel		*kernp = &kern;
static struct period_holder	holders[MAX_TASKS];
static unsigned int		ntasks = 10;
static uint64_t			lead_ns = 50000;
static int			gpu_stop;

static int
load_kernel(void)
{
	static struct profile	p;
	struct budget_nominal	bn;
	char			*buf, err[128];
	size_t			len;

	if (fileio_read(HISTO_BWK, PROFILE_MAX_SIZE, &buf, &len) < 0 ||
	    profile_parse(buf, len, &p, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_period: cannot read %s\n", HISTO_BWK);
		return -1;
	}
	free(buf);
	kern.pt = calloc(1, sizeof(*kern.pt));
	if (kern.pt == NULL || profile_to_model(&p, &kern.wk, kern.pt) < 0)
		return -1;
	kern.wk.period = (double)T_NS;
	if (wcet_prepare(&kern.wk) < 0 || budget_nominal(&kern.wk,
	    kern.pt->n, 0.1, 60000, 470, &bn) < 0)
		return -1;
	kern.id = 1;
	kern.blocks = p.blocks;
	kern.concurrency = p.concurrency;
	kern.q_nominal = bn.q;
	kern.wcet_ns = bn.wcet;
	return 0;
}

static struct bwshm_launch *
slot0(const struct period_holder *h)
{
	return (struct bwshm_launch *)(void *)((char *)(uintptr_t)h->pp +
	    BWSHM_PROGRESS_HDR_SIZE);
}

static void
relaunch(struct bwshm_launch *l)
{
	uint64_t	s = l->seq;
	uint32_t	w;

	__atomic_store_n(&l->seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (w = 0; w < (kern.blocks + 63) / 64; w++)
		__atomic_store_n(&l->bitmap[w], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->kernel, kern.id, __ATOMIC_RELAXED);
	__atomic_store_n(&l->nblocks, kern.blocks, __ATOMIC_RELAXED);
	__atomic_store_n(&l->stream, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&l->launch_ns, monoclock_ns(), __ATOMIC_RELAXED);
	__atomic_store_n(&l->state, BWSHM_SLOT_RUNNING, __ATOMIC_RELAXED);
	__atomic_store_n(&l->seq, s + 2, __ATOMIC_RELEASE);
}

/* Every 100 us each task's kernel finishes ~380 blocks in order (a
 * histo launch in about 10 ms), then starts again. */
static void *
gpu_main(void *arg)
{
	uint32_t	done[MAX_TASKS] = { 0 }, b, i;
	struct timespec	ts = { 0, 100000 };

	while (!__atomic_load_n(&gpu_stop, __ATOMIC_ACQUIRE)) {
		nanosleep(&ts, NULL);
		for (i = 0; i < ntasks; i++) {
			struct bwshm_launch	*l = slot0(&holders[i]);

			for (b = done[i]; b < done[i] + 380 &&
			    b < kern.blocks; b++)
				__atomic_fetch_or(&l->bitmap[b / 64],
				    1ull << (b % 64), __ATOMIC_RELEASE);
			done[i] = b;
			if (done[i] == kern.blocks) {
				relaunch(l);
				done[i] = 0;
			}
		}
	}
	return NULL;
}

static int
make_tasks(void)
{
	size_t		sz = BWSHM_PROGRESS_SIZE(1, kern.blocks);
	unsigned int	i;
	void		*pp;

	for (i = 0; i < ntasks; i++) {
		if ((pp = aligned_alloc(64, (sz + 63) & ~(size_t)63)) == NULL)
			return -1;
		memset(pp, 0, sz);
		holders[i].task = i + 1;
		holders[i].qbar = kern.q_nominal;
		holders[i].pp = pp;
		holders[i].pp_size = sz;
		holders[i].nslots = 1;
		holders[i].nkernels = 1;
		holders[i].kernels = &kernp;
		relaunch(slot0(&holders[i]));
	}
	return 0;
}

static unsigned int
snap(void *arg, struct period_holder *h, unsigned int max, uint64_t *gen)
{
	unsigned int	n = ntasks < max ? ntasks : max;

	*gen = 1;
	memcpy(h, holders, n * sizeof(*h));
	return n;
}

static void
rel(void *arg)
{
}

/* ---- run ----------------------------------------------------------- */

static void
drain(struct period *pe)
{
	struct ring_period	r;
	struct period_launch	l;

	while (ring_pop(period_records(pe), &r) == 1)
		;
	while (ring_pop(period_launches(pe), &l) == 1)
		;
}

static int
report(const char *out, const struct period_stats *s, double secs,
    const char *warn, uint64_t applies)
{
	char	buf[2048];
	int	n;
	FILE	*f;

	n = snprintf(buf, sizeof(buf),
	    "bench_period: %u RT tasks holding the lock with running histo "
	    "launches (N=%u, M=%u), %d BE cores, T=%llu us, lead=%llu us, "
	    "%.1f s%s%s\n"
	    "periods %llu  budgets in time %llu  late %llu (%.2f%%)  "
	    "backend took %llu  launches retired %llu\n"
	    "engine CPU per period: p50 %.1f us  p99 %.1f us  max %.1f us\n"
	    "wake-up lateness:      p50 %.1f us  p99 %.1f us  max %.1f us\n",
	    ntasks, kern.blocks, kern.concurrency, NCORES,
	    (unsigned long long)T_NS / 1000, (unsigned long long)lead_ns /
	    1000, secs, s->rt ? ", SCHED_FIFO" : ", not real-time",
	    s->rt || warn[0] == '\0' ? "" : warn,
	    (unsigned long long)s->periods,
	    (unsigned long long)s->applied, (unsigned long long)s->late,
	    s->periods ? 100.0 * (double)s->late / (double)s->periods : 0.0,
	    (unsigned long long)applies, (unsigned long long)s->launches,
	    (double)s->cost_p50_ns / 1e3, (double)s->cost_p99_ns / 1e3,
	    (double)s->cost_max_ns / 1e3, (double)s->lateness_p50_ns / 1e3,
	    (double)s->lateness_p99_ns / 1e3,
	    (double)s->lateness_max_ns / 1e3);
	fputs(buf, stdout);
	if (out == NULL)
		return 0;
	if ((f = fopen(out, "w")) == NULL || fwrite(buf, 1, (size_t)n, f) !=
	    (size_t)n || fclose(f) != 0) {
		fprintf(stderr, "bench_period: %s: %s\n", out, strerror(errno));
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct regulator	reg;
	struct period_params	p;
	struct period_stats	st;
	struct period		*pe;
	pthread_t		gpu;
	const char		*out = NULL;
	char			err[256], warn[256];
	double			secs = 5;
	uint64_t		end;
	int			c, prio = 90;

	while ((c = getopt(argc, argv, "o:d:t:r:l:")) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 'r' && (prio = atoi(optarg)) >= 0 && prio <= 99)
			continue;
		else if (c == 'l' && (lead_ns = strtoull(optarg, NULL, 10) *
		    1000) < T_NS)
			continue;
		else if (c == 'd')
			secs = atof(optarg);
		else if (c == 't' && (ntasks = (unsigned)atoi(optarg)) >= 1 &&
		    ntasks <= MAX_TASKS)
			continue;
		else {
			fprintf(stderr, "usage: bench_period -o FILE "
			    "[-d SECONDS] [-t TASKS] [-r PRIORITY] "
			    "[-l LEAD_US]\n");
			return 2;
		}
	}
	if (load_kernel() < 0 || make_tasks() < 0)
		return 1;
	reg.epoch = monoclock_ns() / T_NS * T_NS;
	memset(&p, 0, sizeof(p));
	p.ops = &bops;
	p.reg = &reg;
	p.src.snapshot = snap;
	p.src.release = rel;
	p.period_ns = T_NS;
	p.lead_ns = lead_ns;
	p.ncores = NCORES;
	p.bwmax_events = 60000;
	p.overhead_events = 470;
	p.smooth_a = 0.3;
	p.policy = DECIDE_SMOOTH;
	p.priority = prio;
	p.cpu = -1;
	if ((pe = period_new(&p, err, sizeof(err))) == NULL ||
	    pthread_create(&gpu, NULL, gpu_main, NULL) != 0 ||
	    period_start(pe, warn, sizeof(warn), err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_period: %s\n", err);
		return 1;
	}
	for (end = monoclock_ns() + (uint64_t)(secs * 1e9); monoclock_ns() < end;) {
		usleep(10000);
		drain(pe);
	}
	period_stop(pe);
	__atomic_store_n(&gpu_stop, 1, __ATOMIC_RELEASE);
	pthread_join(gpu, NULL);
	period_stats(pe, &st);
	period_free(pe);
	return report(out, &st, secs, warn, reg.applies) < 0 ? 1 : 0;
}
