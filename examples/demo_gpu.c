/*
 * demo_gpu.c - a GPU client without a GPU, for the live demo and the
 * integration test.  It registers a real-time task and a kernel profile
 * (examples/histo.bwk by default) with bwsched through libbwclient, with
 * a progress page, then launches the kernel periodically.  Each launch's
 * thread blocks are emulated on M slots in block-id order against the
 * simulated platform the daemon's sim regulator publishes
 * (bwsimstate.h): a block of times e0/e1 progresses at
 * (1-u)/e0 + u/e1 where u is the BE cores' memory traffic, so more BE
 * budget really makes the kernel slower.  Finished blocks set their bit
 * in the slot's bitmap, as bwprogress.cuh does on a GPU.  Each launch
 * goes straight to bwc_launch(), as the CUDA instrumentation does: it
 * takes the lock, and returns when the regulator enforces it (the lock
 * slot's kick, bwclient.h), so the emulated kernel starts protected,
 * then, and stores that start in the slot as BWPROGRESS_START does, with
 * its "GPU clock" (CLOCK_MONOTONIC) calibrated as libbwcuda calibrates a
 * GPU's.  Launches come at a random phase of the regulation period.
 *
 * For every launch it records the emulated time from that start to the
 * finish against the bound the daemon returned at registration,
 * G(Q-bar,{Ni},0), and prints
 * a summary (and a CSV with -o).  Exit status 0; 3 when a launch went
 * over its bound; 1 on errors.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bwsched/bwclient.h>
#include <bwsched/bwshm.h>
#include <bwsched/bwsimstate.h>

#include "fileio.h"
#include "gpuclock.h"
#include "profile.h"
#include "splitmix.h"

/*
 * Emulation step on the wall clock.  A GPU sets a block's bit when the
 * block ends; the emulation can only do so at its next step, and the
 * daemon counts a late bit as a block still running: every microsecond
 * of lag is slack the budget cannot see (100 us cost a third of SMOOTH's
 * gain on the development VM).  20 us keeps the lag near a real GPU's
 * for a few percent of a CPU.
 */
#define POLL_NS		20000ull
#define JITTER		0.1		/* block time e*(1 - JITTER*U[0,1)) */
#define STREAM		1

struct opts {
	const char	*sock;
	const char	*profile;
	const char	*csv;
	double		seconds;
	unsigned long	launches;	/* 0: run for `seconds` */
	uint64_t	interval_ns;
	uint64_t	seed;
	bool		quiet;
};

/* One emulated block slot of the GPU. */
struct gslot {
	bool		busy;
	uint32_t	block;
	double		work;		/* left, of 1 */
	double		e0, e1;
};

struct demo {
	struct opts	o;
	struct profile	*p;
	bwc_t		*h;
	int		kernel;
	struct bwc_kernel_info info;
	const struct bwsim_state *sm;	/* the daemon's state page */
	struct bwsim_state st;		/* last copy */
	struct gslot	*gs;		/* the committed run's slots */
	struct gslot	*spec;		/* scratch for the speculative run */
	int64_t		clock_offset;	/* published: mono - "GPU" clock */
	bool		clock_ok;
	FILE		*csv;
	/* results */
	unsigned long	n, over, nospace;
	unsigned long	abandoned;	/* fell behind the sim: not judged */
	double		max_ratio, sum_actual, sum_be;
};

static volatile sig_atomic_t	stop;

static void
on_signal(int sig)
{
	stop = 1;
}

static uint64_t
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
sleep_until(uint64_t t)
{
	struct timespec	ts = { (time_t)(t / 1000000000u),
			       (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	    EINTR && !stop)
		;
}

/*
 * A block's jitter draw in [0,1): a hash of the seed, the launch and the
 * block, not a running sequence, so the speculative run below draws the
 * same times as the committed one whatever order the blocks start in.
 */
static double
block_rnd(const struct demo *d, uint64_t launch, uint32_t block)
{
	uint64_t	z = d->o.seed ^ (launch << 32) ^ block;

	return splitmix64_unit(&z);
}

/* The daemon's state, waiting out a preempted writer (up to 1 s). */
static int
read_state(struct demo *d)
{
	uint64_t	give_up = now_ns() + 1000000000;
	int		rc;

	while ((rc = bwsim_state_read(d->sm, &d->st)) == -1 &&
	    now_ns() < give_up)
		sleep_until(now_ns() + POLL_NS / 4);
	if (rc < 0)
		fprintf(stderr, "demo_gpu: %s\n", rc == -1 ? "the sim state "
		    "stays busy" : "not a sim state page");
	return rc;
}

/* ---- set-up ------------------------------------------------------- */

static int
load_profile(struct demo *d)
{
	char	*buf, err[160];
	size_t	len;
	int	rc;

	if ((rc = fileio_read(d->o.profile, PROFILE_MAX_SIZE, &buf,
	    &len)) < 0) {
		fprintf(stderr, "demo_gpu: %s: %s\n", d->o.profile,
		    strerror(-rc));
		return -1;
	}
	d->p = calloc(1, sizeof(*d->p));
	rc = d->p == NULL ? -1 : profile_parse(buf, len, d->p, err,
	    sizeof(err));
	free(buf);
	if (rc < 0) {
		fprintf(stderr, "demo_gpu: %s: %s\n", d->o.profile,
		    d->p ? err : "out of memory");
		return -1;
	}
	d->gs = calloc(d->p->concurrency, sizeof(*d->gs));
	d->spec = calloc(d->p->concurrency, sizeof(*d->spec));
	return d->gs != NULL && d->spec != NULL ? 0 : -1;
}

static int
map_state(struct demo *d, const char *sock)
{
	char	path[4200];
	void	*m;
	int	fd;

	snprintf(path, sizeof(path), "%s%s", sock, BWSIM_STATE_SUFFIX);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "demo_gpu: %s: %s (is bwsched running with "
		    "--regulator=sim?)\n", path, strerror(errno));
		return -1;
	}
	m = mmap(NULL, BWSIM_STATE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fprintf(stderr, "demo_gpu: %s: %s\n", path, strerror(errno));
		return -1;
	}
	d->sm = m;
	return read_state(d);
}

/*
 * The emulated GPU's %globaltimer is CLOCK_MONOTONIC itself.  It is
 * calibrated and published as libbwcuda does for a real GPU's
 * (gpuclock.h), and each launch stores its first block's start in its
 * slot as BWPROGRESS_START does: the daemon then counts the launch from
 * there, not from the slot's launch_ns, which bwc_launch() takes before
 * it waits for the lock to be enforced.
 */
static int
gpu_timer(void *arg, uint64_t *ns)
{
	*ns = now_ns();
	return 0;
}

static void
publish_clock(struct demo *d)
{
	struct gpuclock_result	r;
	void			*pg = bwc_progress_page(d->h, NULL);

	if (pg == NULL || gpuclock_calibrate(gpu_timer, NULL, now_ns,
	    GPUCLOCK_ROUNDS, &r) < 0)
		return;
	gpuclock_publish(pg, &r);
	d->clock_offset = r.offset_ns;
	d->clock_ok = true;
}

static void
gpu_start(struct demo *d, uint64_t *bitmap, uint64_t S)
{
	uint64_t	zero = 0;

	if (d->clock_ok)
		__atomic_compare_exchange_n(&bitmap[BWSHM_GPU_START_WORD],
		    &zero, (uint64_t)((int64_t)S - d->clock_offset), false,
		    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static int
connect_daemon(struct demo *d)
{
	struct bwc_task_params	tp;

	d->h = bwc_open(d->o.sock, "demo_gpu", BWC_NO_RECONNECT);
	if (d->h == NULL) {
		fprintf(stderr, "demo_gpu: cannot reach bwsched at %s: %s\n",
		    bwc_socket_path(d->o.sock), strerror(errno));
		return -1;
	}
	memset(&tp, 0, sizeof(tp));
	tp.name = "demo_gpu";
	tp.period_ns = d->o.interval_ns;
	tp.priority = 50;
	tp.progress_slots = 2;
	tp.progress_max_blocks = d->p->blocks;
	if (bwc_task_register(d->h, &tp) < 0 ||
	    (d->kernel = bwc_kernel_register_file(d->h, d->o.profile,
	    &d->info)) < 0) {
		fprintf(stderr, "demo_gpu: %s\n", bwc_strerror(d->h));
		return -1;
	}
	publish_clock(d);
	if (!d->o.quiet)
		printf("demo_gpu: kernel %s: %u blocks, M = %u, Q-bar %.4f, "
		    "bound %.3f ms (alone %.3f ms)\n", d->p->name,
		    d->p->blocks, d->p->concurrency, d->info.q_nominal,
		    (double)d->info.wcet_ns / 1e6,
		    (double)d->info.wcet0_ns / 1e6);
	return 0;
}

/* Launches made so far, whatever became of them. */
static uint64_t
launches(const struct demo *d)
{
	return d->n + d->nospace + d->abandoned;
}

/* ---- emulated kernel ---------------------------------------------- */

struct run {
	struct gslot	*gs;		/* its block slots */
	uint64_t	*bitmap;
	uint64_t	launch;		/* number, for the jitter draws */
	uint32_t	next;		/* next block to start */
	unsigned int	iv;		/* interval of `next` */
	uint32_t	done;
	double		t;		/* model time reached, ns */
	double		U;		/* traffic integral at t */
	double		U0;		/* at the launch */
	double		finish;
	double		finish_U;	/* at the finish */
};

static void
start_block(struct demo *d, struct run *r, struct gslot *g)
{
	const struct profile	*p = d->p;
	double			f = 1 - JITTER * block_rnd(d, r->launch,
				    r->next);
	unsigned int		c;

	if (r->next >= p->blocks) {
		g->busy = false;
		return;
	}
	while (r->iv + 1 < p->nintervals && p->first[r->iv + 1] <= r->next)
		r->iv++;
	c = p->cluster[r->iv];
	g->busy = true;
	g->block = r->next++;
	g->work = 1;
	g->e0 = (double)p->e0[c] * f;
	g->e1 = (double)p->e1[c] * f;
}

static void
finish_block(struct demo *d, struct run *r, struct gslot *g)
{
	uint64_t	*w = &r->bitmap[g->block / 64], bit = 1ull <<
			    (g->block % 64);

	/* set already by the speculative run: no write to the shared line */
	if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit))
		__atomic_fetch_or(w, bit, __ATOMIC_RELEASE);
	r->done++;
	r->finish = r->t;
	r->finish_U = r->U;
	start_block(d, r, g);
}

/*
 * Advance the blocks to model time s with traffic integral us: u is
 * constant at its average over the step, which is exact for the linear
 * speed model whatever u did inside the step.
 */
static void
advance(struct demo *d, struct run *r, double s, double us)
{
	struct gslot	*gs = r->gs;
	double		u = (us - r->U) / (s - r->t), tau, rate, best;
	unsigned int	i, bi;

	u = u < 0 ? 0 : u > 1 ? 1 : u;
	while (r->t < s && r->done < d->p->blocks) {
		best = s - r->t;
		bi = d->p->concurrency;
		for (i = 0; i < d->p->concurrency; i++) {
			if (!gs[i].busy)
				continue;
			rate = (1 - u) / gs[i].e0 + u / gs[i].e1;
			tau = gs[i].work / rate;
			if (tau <= best) {
				best = tau;
				bi = i;
			}
		}
		for (i = 0; i < d->p->concurrency; i++)
			if (gs[i].busy)
				gs[i].work -= best * ((1 - u) / gs[i].e0 +
				    u / gs[i].e1);
		r->U += u * best;
		r->t += best;
		if (bi < d->p->concurrency)
			finish_block(d, r, &gs[bi]);
	}
	r->t = s;
	r->U = us;
}

/*
 * Advance the committed run to the state's time through the history,
 * one sample interval at a time: a single step over the whole publish
 * interval would average the traffic of a period's start (cores
 * running) over its throttled rest, and misplace the blocks' ends.
 */
static void
catch_up(struct demo *d, struct run *r)
{
	double	to = (double)d->st.now_ns, s, us;

	while (r->t < to && r->done < d->p->blocks) {
		s = r->t + BWSIM_HISTORY_STEP_NS;
		if (s >= to || bwsim_history_at(d->sm, s, &us) < 0) {
			s = to;
			us = d->st.traffic_ns;
		}
		advance(d, r, s, us);
	}
}

/*
 * The speculative run: the blocks that have certainly ended by wall
 * time t set their bits now, as a GPU's blocks do, instead of at the
 * next state the daemon publishes (every 200 us: that lag is slack the
 * budget cannot see, and it cost a sixth of SMOOTH's gain).  From the
 * state's time to t the BE traffic is bounded at every instant: while
 * our lock slot is held (it is, from bwc_launch() to the launch's end)
 * a throttled core stays throttled to the period's end (bwsimstate.h)
 * and any other core adds at most its share 1/n of u;
 * past the boundary every core may run.  A block's speed falls as u
 * rises, so under this pointwise bound every block is at most as far as
 * in the model, and a block done here is done there.  The committed run
 * sets the same bits again when it catches up.  The run starts afresh
 * from the committed one at each new state and goes on from where it
 * was until then (the bound does not change in between).
 */
struct spec {
	struct run	s;
	double		base;		/* the state's now_ns it started at */
	double		share;		/* u bound until the boundary */
	bool		valid;
};

static void
speculate(struct demo *d, const struct run *r, struct spec *sp, double t)
{
	const struct bwsim_state *st = &d->st;
	double		b = (double)st->next_boundary_ns, to;
	unsigned int	i, n = st->ncores;

	if (r->t < (double)st->now_ns || r->done >= d->p->blocks)
		return;
	if (!sp->valid || sp->base != (double)st->now_ns) {
		sp->s = *r;
		memcpy(d->spec, r->gs, d->p->concurrency * sizeof(*d->spec));
		sp->s.gs = d->spec;
		sp->base = (double)st->now_ns;
		sp->share = 0;
		for (i = 0; i < n && i < BWSIM_STATE_MAX_CORES; i++)
			if (!st->core[i].throttled)
				sp->share += 1.0 / n;
		sp->valid = true;
	}
	if (t <= sp->s.t)
		return;
	if (b > sp->s.t) {
		to = t < b ? t : b;
		advance(d, &sp->s, to, sp->s.U + sp->share * (to - sp->s.t));
	}
	if (t > sp->s.t)
		advance(d, &sp->s, t, sp->s.U + (t - sp->s.t));
}

/*
 * Emulate one launch, launched at L (its progress slot's time, which the
 * daemon counts from) and starting on the "GPU" at S, when bwc_launch()
 * returned with the lock enforced (a CUDA kernel is launched after it);
 * returns its finish time and the BE memory events issued while it ran
 * ([DynBW] section 5.4's measure).
 */
static int
emulate(struct demo *d, uint64_t *bitmap, uint64_t L, uint64_t S,
    double *finish, double *be)
{
	struct run	r;
	struct spec	sp;
	unsigned int	i;
	uint64_t	give_up = L + 20 * d->info.wcet_ns + 1000000000;
	bool		u0;

	memset(&r, 0, sizeof(r));
	memset(&sp, 0, sizeof(sp));
	r.gs = d->gs;
	r.bitmap = bitmap;
	r.launch = launches(d);
	r.t = (double)S;
	for (i = 0; i < d->p->concurrency; i++)
		start_block(d, &r, &d->gs[i]);
	/*
	 * The committed run needs the traffic integral at S, which the
	 * history has only once the model got there (up to a publish
	 * interval later); the speculative run does not (it counts
	 * traffic from S), so the first blocks' bits need not wait.
	 */
	for (u0 = false; r.done < d->p->blocks;) {
		if (stop || now_ns() > give_up)
			return -1;
		sleep_until(now_ns() + (u0 ? POLL_NS : POLL_NS / 4));
		if (read_state(d) < 0)
			return -1;
		if (!u0 && bwsim_history_at(d->sm, r.t, &r.U) == 0) {
			u0 = true;
			r.U0 = r.U;
			sp.valid = false;	/* it counted from U = 0 */
		}
		if (u0 && (double)d->st.now_ns > r.t)
			catch_up(d, &r);
		speculate(d, &r, &sp, (double)now_ns());
	}
	*finish = r.finish;
	/* the integral counts BWmax per period at u = 1 */
	*be = (r.finish_U - r.U0) * d->st.bwmax_events /
	    (double)d->st.period_ns;
	return 0;
}

static uint64_t *
slot_of(struct demo *d, int slot, uint64_t *launch_ns)
{
	const struct bwshm_progress_hdr	*h;
	struct bwshm_launch		*l;
	char				*pg = bwc_progress_page(d->h, NULL);

	h = (const void *)pg;
	l = (void *)(pg + BWSHM_PROGRESS_HDR_SIZE +
	    (size_t)slot * h->slot_size);
	*launch_ns = __atomic_load_n(&l->launch_ns, __ATOMIC_ACQUIRE);
	return l->bitmap;
}

static void
record(struct demo *d, uint64_t L, double finish, double be)
{
	double	actual = finish - (double)L;
	double	ratio = actual / (double)d->info.wcet_ns;

	d->n++;
	d->sum_actual += actual;
	d->sum_be += be;
	if (ratio > d->max_ratio)
		d->max_ratio = ratio;
	if (actual > (double)d->info.wcet_ns)
		d->over++;
	if (d->csv != NULL)
		fprintf(d->csv, "%lu,%llu,%.0f,%llu,%.5f,%.0f\n", d->n,
		    (unsigned long long)L, ceil(actual),
		    (unsigned long long)d->info.wcet_ns, ratio, be);
}

static int
one_launch(struct demo *d)
{
	uint64_t	*bitmap, L, S;
	double		finish, be;
	int		slot;

	slot = bwc_launch(d->h, d->kernel, STREAM, &bitmap);
	S = now_ns();		/* where a GPU kernel launched now starts */
	if (slot < 0) {
		/* protected with the static budget, but not emulated */
		d->nospace++;
		bwc_stream_sync(d->h, STREAM);
		if (slot == -ENOSPC)
			return 0;
		fprintf(stderr, "demo_gpu: launch: %s\n", bwc_strerror(d->h));
		return -1;
	}
	bitmap = slot_of(d, slot, &L);
	S = S > L ? S : L;
	gpu_start(d, bitmap, S);
	if (emulate(d, bitmap, L, S, &finish, &be) < 0) {
		/*
		 * This client was starved past its give-up time (seen on a
		 * loaded 2-CPU machine): the launch stays protected but its
		 * time is unknown, so it is counted apart, never as met.
		 */
		if (stop)
			return -1;
		fprintf(stderr, "demo_gpu: launch abandoned: the emulation "
		    "fell behind the sim state\n");
		d->abandoned++;
		bwc_launch_end(d->h, slot, 0);	/* its end is not known */
		bwc_stream_sync(d->h, STREAM);
		return 0;
	}
	/* the emulated end, not now: the daemon's record judges that */
	bwc_launch_end(d->h, slot, (uint64_t)finish);
	bwc_stream_sync(d->h, STREAM);
	/* from the start, as the daemon counts it (and a GPU's record) */
	record(d, d->clock_ok ? S : L, finish, be);
	return 0;
}

/* ---- main --------------------------------------------------------- */

static void
summary(const struct demo *d)
{
	struct bwc_lock_info	li;

	bwc_lock_info(d->h, &li);
	printf("demo_gpu: %lu launches, %lu over the bound, largest "
	    "actual/bound %.3f, mean actual %.3f ms, bound %.3f ms, BE "
	    "events per launch %.0f, %lu abandoned%s\n", d->n, d->over,
	    d->max_ratio,
	    d->n ? d->sum_actual / (double)d->n / 1e6 : 0.0,
	    (double)d->info.wcet_ns / 1e6,
	    d->n ? d->sum_be / (double)d->n : 0.0, d->abandoned,
	    d->nospace ? " (some launches found no free slot)" : "");
	printf("demo_gpu: lock enforced by %s: %llu kicks, %llu not "
	    "confirmed\n", li.kind == BWC_LOCK_KMOD ? "the bwreg module" :
	    li.kind == BWC_LOCK_SIM ? "the sim regulator" :
	    "the daemon's page poll (no lock slot)",
	    (unsigned long long)li.kicks,
	    (unsigned long long)li.unconfirmed);
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: demo_gpu [-q] [-s SOCKET] [-k PROFILE.bwk] "
	    "[-i INTERVAL_MS] [-t SECONDS | -n LAUNCHES] [-o CSV] "
	    "[--seed N]\n");
}

static int
parse(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 } };
	int	c;

	o->sock = getenv("BWSCHED_SOCKET");
	o->profile = "examples/histo.bwk";
	o->seconds = 10;
	o->interval_ns = 30000000;
	o->seed = 1;
	while ((c = getopt_long(argc, argv, "qs:k:i:t:n:o:h", lo, NULL)) !=
	    -1) {
		switch (c) {
		case 'q':
			o->quiet = true;
			break;
		case 's':
			o->sock = optarg;
			break;
		case 'k':
			o->profile = optarg;
			break;
		case 'i':
			o->interval_ns = (uint64_t)(atof(optarg) * 1e6);
			break;
		case 't':
			o->seconds = atof(optarg);
			break;
		case 'n':
			o->launches = strtoul(optarg, NULL, 10);
			break;
		case 'o':
			o->csv = optarg;
			break;
		case 'S':
			o->seed = strtoull(optarg, NULL, 10) | 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (o->sock == NULL || o->interval_ns < 1000000 || optind != argc) {
		if (o->sock == NULL)
			fprintf(stderr, "demo_gpu: -s SOCKET or "
			    "$BWSCHED_SOCKET needed\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

static int
run(struct demo *d)
{
	uint64_t	next = now_ns(), end;

	end = next + (uint64_t)(d->o.seconds * 1e9);
	while (!stop && (d->o.launches ? launches(d) < d->o.launches :
	    now_ns() < end)) {
		/*
		 * At a random phase of the regulation period, as bwsim's
		 * launches: an interval that is a multiple of the period
		 * would otherwise put every launch at one phase, and the
		 * run's result would depend on which one it drew.
		 */
		sleep_until(next + (uint64_t)(block_rnd(d, launches(d),
		    UINT32_MAX) * (double)d->st.period_ns));
		next += d->o.interval_ns;
		if (next < now_ns())
			next = now_ns() + d->o.interval_ns;	/* overran */
		if (one_launch(d) < 0)
			return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct demo	d;
	int			rc = 1;

	if (parse(&d.o, argc, argv) < 0)
		return 1;
	/* the short steps mean little with the default 50 us timer slack */
	(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (load_profile(&d) < 0 || map_state(&d, d.o.sock) < 0 ||
	    connect_daemon(&d) < 0)
		goto out;
	if (d.o.csv != NULL && (d.csv = fopen(d.o.csv, "w")) == NULL) {
		fprintf(stderr, "demo_gpu: %s: %s\n", d.o.csv,
		    strerror(errno));
		goto out;
	}
	if (d.csv != NULL)
		fprintf(d.csv, "launch,launch_ns,actual_ns,bound_ns,ratio,"
		    "be_events\n");
	if (run(&d) == 0)
		rc = d.over > 0 ? 3 : 0;
	summary(&d);
out:
	if (d.csv != NULL)
		fclose(d.csv);
	if (d.h != NULL)
		bwc_close(d.h);
	free(d.gs);
	free(d.spec);
	free(d.p);
	return rc;
}
