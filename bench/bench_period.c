/*
 * bench_period.c - the period engine as it runs in the daemon: its own
 * thread on absolute timerfd deadlines (SCHED_FIFO when permitted),
 * 10 RT tasks holding the lock, each with a histo launch (37,627 blocks,
 * M = 8, Table 4.1 of [DynBW]) whose blocks a "GPU" thread keeps
 * finishing and relaunching, and 3 BE cores.  The backend is the
 * daemon's own sim regulator, so the plans meet the same rule they meet
 * in the daemon, and its counters say what governed each period.
 *
 * Reports, over the run (default 5 s): the dynamic share (periods whose
 * budget came from a plan, fresh or look-ahead, over periods with a
 * holder), CPU time of the engine's work per period (thread CPU clock,
 * p50/p99/max), the period thread's wake-up lateness against its
 * deadline (p50/p99/max), late wake-ups and the lead it settled on.
 * With --load N, N threads spin at normal priority for the whole run
 * (2 on this 2-CPU machine: both CPUs busy).
 * Usage: bench_period -o FILE [-d SECONDS] [-t TASKS] [-r PRIORITY]
 *        [-l LEAD_US] [-L LOOKAHEAD] [--load N]
 *        (-r 0: no SCHED_FIFO; -l fixes the lead, default adaptive)
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "conf.h"
#include "fileio.h"
#include "monoclock.h"
#include "period.h"
#include "profile.h"
#include "regulator.h"

#ifndef HISTO_BWK
#define HISTO_BWK	"examples/histo.bwk"
#endif
#define T_NS		1000000ull
#define NCORES		3
#define MAX_TASKS	32

/* ---- load --------------------------------------------------------- */

static int	hog_stop;

static void *
hog_main(void *arg)
{
	volatile uint64_t	x = 0;

	while (!__atomic_load_n(&hog_stop, __ATOMIC_RELAXED))
		x++;
	return NULL;
}

/* ---- tasks and their "GPU" ------------------------------------------- */

static struct kernel		kern;
static struct kernel		*kernp = &kern;
static struct period_holder	holders[MAX_TASKS];
static unsigned int		ntasks = 10;
static uint64_t			lead_ns;	/* 0: adaptive */
static unsigned int		lookahead = CONFIG_DEFAULT_LOOKAHEAD;
static unsigned int		nload;
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

/* What governed the periods: the backend's counters over the run. */
struct share {
	uint64_t	first, ahead, fallback;
};

static void
share_of(const struct regulator_ops *ops, struct regulator *reg,
    struct share *sh)
{
	struct reg_stats	rs;

	memset(sh, 0, sizeof(*sh));
	if (ops->stats(reg, &rs) == 0 && rs.ncores > 0) {
		sh->first = rs.core[0].plan_first;
		sh->ahead = rs.core[0].plan_ahead;
		sh->fallback = rs.core[0].fallbacks;
	}
}

static double
pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int
report(const char *out, const struct period_stats *s, double secs,
    const char *warn, const struct share *sh)
{
	uint64_t	reg = sh->first + sh->ahead + sh->fallback;
	char		buf[2048], lead[64];
	int		n;
	FILE		*f;

	if (lead_ns)
		snprintf(lead, sizeof(lead), "lead %llu us (fixed)",
		    (unsigned long long)lead_ns / 1000);
	else
		snprintf(lead, sizeof(lead), "lead adaptive, ended at %.1f us",
		    (double)s->lead_ns / 1e3);
	n = snprintf(buf, sizeof(buf),
	    "bench_period: %u RT tasks holding the lock with running histo "
	    "launches (N=%u, M=%u), %d BE cores, T=%llu us, %s, "
	    "look-ahead %u, %u CPU hogs, %.1f s%s%s\n"
	    "dynamic share: %.2f %%  (fresh plan %.2f %%, look-ahead "
	    "%.2f %%, static %.2f %% of %llu periods with a holder)\n"
	    "periods decided %llu  plans handed over %llu  late wake-ups "
	    "%llu (%.2f%%)  launches retired %llu\n"
	    "engine CPU per period: p50 %.1f us  p99 %.1f us  max %.1f us\n"
	    "wake-up lateness:      p50 %.1f us  p99 %.1f us  max %.1f us\n",
	    ntasks, kern.blocks, kern.concurrency, NCORES,
	    (unsigned long long)T_NS / 1000, lead, s->plan_len, nload, secs,
	    s->rt ? ", SCHED_FIFO" : ", not real-time",
	    s->rt || warn[0] == '\0' ? "" : warn,
	    pct(sh->first + sh->ahead, reg), pct(sh->first, reg),
	    pct(sh->ahead, reg), pct(sh->fallback, reg),
	    (unsigned long long)reg,
	    (unsigned long long)s->periods,
	    (unsigned long long)s->applied, (unsigned long long)s->late,
	    pct(s->late, s->periods), (unsigned long long)s->launches,
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

static int
usage(void)
{
	fprintf(stderr, "usage: bench_period -o FILE [-d SECONDS] "
	    "[-t TASKS] [-r PRIORITY] [-l LEAD_US] [-L LOOKAHEAD] "
	    "[--load N]\n");
	return 2;
}

static int
args(int argc, char **argv, const char **out, double *secs, int *prio)
{
	static const struct option lo[] = {
		{ "load", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 } };
	int	c;

	while ((c = getopt_long(argc, argv, "o:d:t:r:l:L:", lo, NULL)) != -1) {
		if (c == 'o')
			*out = optarg;
		else if (c == 'r' && (*prio = atoi(optarg)) >= 0 &&
		    *prio <= 99)
			continue;
		else if (c == 'l' && (lead_ns = strtoull(optarg, NULL, 10) *
		    1000) < T_NS)
			continue;
		else if (c == 'L' && (lookahead = (unsigned)atoi(optarg)) >=
		    1 && lookahead <= REG_PLAN_MAX)
			continue;
		else if (c == 'H' && (nload = (unsigned)atoi(optarg)) <= 64)
			continue;
		else if (c == 'd')
			*secs = atof(optarg);
		else if (c == 't' && (ntasks = (unsigned)atoi(optarg)) >= 1 &&
		    ntasks <= MAX_TASKS)
			continue;
		else
			return -1;
	}
	return optind == argc ? 0 : -1;
}

/* The daemon's sim regulator, holders' static budget set. */
static struct regulator *
backend(const struct regulator_ops *ops, double qbar)
{
	struct reg_config	rc;
	struct regulator	*reg;
	uint64_t		ev[NCORES];
	char			err[256];
	unsigned int		i;

	memset(&rc, 0, sizeof(rc));
	rc.period_ns = T_NS;
	rc.ncores = NCORES;
	for (i = 0; i < NCORES; i++) {
		rc.cores[i] = (int)i + 1;
		ev[i] = (uint64_t)((60000 * qbar - 470) / NCORES);
	}
	rc.bwmax_events = 60000;
	rc.failsafe_events = REG_UNLIMITED;
	if (ops->open(&reg, &rc, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_period: %s\n", err);
		return NULL;
	}
	ops->set_static(reg, ev, NCORES, 0);
	return reg;
}

int
main(int argc, char **argv)
{
	const struct regulator_ops *ops = &reg_sim_ops;
	struct regulator	*reg;
	struct period_params	p;
	struct period_stats	st;
	struct period		*pe;
	struct share		s0, s1;
	pthread_t		gpu, hog[64];
	const char		*out = NULL;
	char			err[256], warn[256];
	double			secs = 5;
	uint64_t		end;
	unsigned int		i;
	int			prio = 90;

	if (args(argc, argv, &out, &secs, &prio) < 0)
		return usage();
	if (load_kernel() < 0 || make_tasks() < 0 ||
	    (reg = backend(ops, kern.q_nominal)) == NULL)
		return 1;
	memset(&p, 0, sizeof(p));
	p.ops = ops;
	p.reg = reg;
	p.src.snapshot = snap;
	p.src.release = rel;
	p.period_ns = T_NS;
	/* the daemon's defaults, or a fixed lead */
	p.lead_ns = lead_ns ? lead_ns : 50000;
	p.lead_min_ns = lead_ns ? lead_ns : 20000;
	p.lead_max_ns = lead_ns ? lead_ns : T_NS / 2;
	p.lead_adapt = lead_ns == 0;
	p.plan_len = lookahead;
	p.ncores = NCORES;
	p.bwmax_events = 60000;
	p.overhead_events = 470;
	p.smooth_a = 0.3;
	p.policy = DECIDE_SMOOTH;
	p.priority = prio;
	p.cpu = -1;
	for (i = 0; i < nload; i++)
		if (pthread_create(&hog[i], NULL, hog_main, NULL) != 0)
			return 1;
	if ((pe = period_new(&p, err, sizeof(err))) == NULL ||
	    pthread_create(&gpu, NULL, gpu_main, NULL) != 0 ||
	    period_start(pe, warn, sizeof(warn), err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_period: %s\n", err);
		return 1;
	}
	/* the first second settles the lead; the share counts after it */
	usleep(1000000);
	share_of(ops, reg, &s0);
	for (end = monoclock_ns() + (uint64_t)(secs * 1e9); monoclock_ns() < end;) {
		usleep(10000);
		drain(pe);
	}
	share_of(ops, reg, &s1);
	period_stop(pe);
	__atomic_store_n(&gpu_stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&hog_stop, 1, __ATOMIC_RELEASE);
	pthread_join(gpu, NULL);
	for (i = 0; i < nload; i++)
		pthread_join(hog[i], NULL);
	period_stats(pe, &st);
	period_free(pe);
	ops->close(reg);
	s1.first -= s0.first;
	s1.ahead -= s0.ahead;
	s1.fallback -= s0.fallback;
	return report(out, &st, secs, warn, &s1) < 0 ? 1 : 0;
}
