/*
 * period.c - the period engine (see period.h for the contract).
 *
 * Layout of one period (run_period):
 *   1. read the lock slots' launch counts, then take the holders'
 *      snapshot (in that order: a launch after the counts were read
 *      shows as a count the plan did not account for);
 *   2. read every holder's launch slots (seqlock), validate them and
 *      match them to tracked launches keyed by (task, slot, seq);
 *   3. decide() a plan; re-check the slots' seqs and, if one moved while
 *      we read its bitmap, decide again with that holder on its Q-bar;
 *   4. hand the plan to the backend; bump the heartbeat;
 *   5. account Q to the running launches, retire launches not seen,
 *      push the period record, release the snapshot, notify the loop.
 * Between two wake-ups the loop may kick the engine: when the holders
 * changed, the plan for the period just decided was withdrawn, and if
 * that period has not begun it is decided again (redecide()).
 */
#define _GNU_SOURCE
#include <config.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "monoclock.h"
#include "lathist.h"
#include "leadctl.h"
#include "period.h"

/* A launch being tracked across periods. */
struct launch {
	bool			used;
	bool			seen;		/* found running this period */
	struct progress_scan	scan;
	double			prev_q;		/* SMOOTH's y(n-1), -1 none */
	uint64_t		acc_target;	/* period accounted last */
	double			acc_q;		/* the Q accounted for it */
	double			acc_prev_q;	/* prev_q before it */
	uint64_t		done_ns;	/* first wake, 0 remaining */
	uint64_t		start_ns;	/* GPU start; 0: rec.launch_ns */
	struct period_launch	rec;
};

/* One valid running slot found this period. */
struct slot_view {
	uint64_t		seq;
	uint64_t		stream;
	const struct bwshm_launch *lp;
	const struct kernel	*k;
	struct launch		*l;
	uint64_t		launch_ns;
	const uint64_t		*bitmap;
	uint32_t		nwords;
	uint32_t		slot;
	bool			decided;	/* handed to decide() */
};

struct period {
	struct period_params	p;		/* policy fields under mu */
	struct ring		*records;
	struct ring		*launches;
	pthread_t		thread;
	bool			started;
	int			stop;		/* atomic */
	int			tfd, efd;	/* timerfd, eventfd: stop, kick */
	uint64_t		last_target;	/* 0: none yet */
	uint64_t		last_boundary;	/* where last_target begins */
	uint64_t		last_gen;	/* holders it was decided on */
	pthread_mutex_t		mu;
	struct period_stats	st;		/* under mu */
	struct lathist		late_h, cost_h;	/* under mu */
	struct leadctl		lead;		/* period thread only */
	uint64_t		cost_est;	/* ns a decision may take */

	/* period thread only */
	struct launch		l[PERIOD_MAX_LAUNCHES];
	struct period_holder	h[PERIOD_MAX_HOLDERS];
	struct decide_holder	dh[PERIOD_MAX_HOLDERS];
	struct decide_kernel	dk[PERIOD_MAX_LAUNCHES];
	struct slot_view	sv[PERIOD_MAX_LAUNCHES];
	unsigned int		hfirst[PERIOD_MAX_HOLDERS + 1];
	struct ring_period	rec;
	struct reg_locks	locks;
	struct reg_plan		plan;
	uint64_t		bad_slots;
	uint64_t		nlaunches;	/* retired */
	uint64_t		redecided;	/* holders moved mid-decision */
	unsigned int		quiet;		/* periods not notified */
};

#define PERIOD_QUIET_NOTIFY	16

/* ---- clock -------------------------------------------------------- */

static uint64_t
thread_cpu_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t
now_ns(const struct period *pe)
{
	const struct period_clock	*c = pe->p.clock;

	return c != NULL ? c->now(c->arg) : monoclock_ns();
}

/*
 * Absolute timerfd deadline.  The eventfd interrupts it: -1 for stop,
 * 1 for a kick (period_kick()).
 */
static int
timer_sleep(struct period *pe, uint64_t t)
{
	struct itimerspec	its;
	struct pollfd		fds[2];
	uint64_t		v;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(t / 1000000000u);
	its.it_value.tv_nsec = (long)(t % 1000000000u);
	if (timerfd_settime(pe->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -1;
	fds[0].fd = pe->tfd;
	fds[0].events = POLLIN;
	fds[1].fd = pe->efd;
	fds[1].events = POLLIN;
	for (;;) {
		if (__atomic_load_n(&pe->stop, __ATOMIC_ACQUIRE))
			return -1;
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (fds[1].revents) {
			if (__atomic_load_n(&pe->stop, __ATOMIC_ACQUIRE))
				return -1;
			(void)!read(pe->efd, &v, sizeof(v));
			return 1;
		}
		if (fds[0].revents && read(pe->tfd, &v, sizeof(v)) ==
		    (ssize_t)sizeof(v))
			return 0;
	}
}

/* Sleep to t; 1 when kicked before it (the holders may have changed). */
static int
sleep_until(struct period *pe, uint64_t t)
{
	const struct period_clock	*c = pe->p.clock;

	if (c != NULL)
		return c->sleep_until(c->arg, t);
	return timer_sleep(pe, t);
}

/*
 * No task: nothing to decide, no budget but the static one (which the
 * loop sets).  Keep the regulator's heartbeat, let the registry free
 * what it buried (a snapshot marks it seen), and sleep idle_ns or until
 * period_kick().  The next period is found afresh from the backend.
 */
static int
idle_once(struct period *pe)
{
	uint64_t	gen;

	pe->p.ops->heartbeat(pe->p.reg);
	pe->p.src.snapshot(pe->p.src.arg, pe->h, PERIOD_MAX_HOLDERS, &gen);
	pe->p.src.release(pe->p.src.arg);
	pe->last_target = 0;
	/* records the loop was not woken for would wait the whole sleep */
	if (pe->quiet > 0 && pe->p.notify != NULL) {
		pe->quiet = 0;
		pe->p.notify(pe->p.notify_arg);
	}
	pthread_mutex_lock(&pe->mu);
	pe->st.idle++;
	pthread_mutex_unlock(&pe->mu);
	return sleep_until(pe, now_ns(pe) + pe->p.idle_ns) < 0 ? -1 : 0;
}

static bool
idle(struct period *pe)
{
	return pe->p.idle_ns > 0 && pe->p.src.idle != NULL &&
	    pe->p.src.idle(pe->p.src.arg);
}

/* ---- slots -------------------------------------------------------- */

static const struct kernel *
find_kernel(const struct period_holder *h, uint32_t id)
{
	unsigned int	i;

	for (i = 0; i < h->nkernels; i++)
		if (h->kernels[i]->id == id)
			return h->kernels[i];
	return NULL;
}

/*
 * Geometry of a holder's progress page from what the registry checked
 * (its size and slot count), never from the header the application
 * can still write.  0 words when the page is unusable.
 */
static size_t
slot_bytes(const struct period_holder *h, uint32_t *max_words)
{
	size_t	sz;

	*max_words = 0;
	if (h->pp == NULL || h->nslots < 1 || h->nslots > BWSHM_MAX_SLOTS ||
	    h->pp_size <= BWSHM_PROGRESS_HDR_SIZE)
		return 0;
	sz = (h->pp_size - BWSHM_PROGRESS_HDR_SIZE) / h->nslots;
	sz &= ~(size_t)63;
	if (sz < BWSHM_LAUNCH_HDR_SIZE + 8)
		return 0;
	*max_words = (uint32_t)((sz - BWSHM_LAUNCH_HDR_SIZE) / 8);
	return sz;
}

enum { SLOT_RUNNING, SLOT_IDLE, SLOT_UNSTABLE, SLOT_BAD };

/* Seqlock read of slot i's header into v; see bwshm.h. */
static int
read_slot(const struct period_holder *h, unsigned int i, size_t sz,
    uint32_t max_words, struct slot_view *v)
{
	const struct bwshm_launch	*l;
	uint64_t			s1, s2, lns, stream;
	uint32_t			state, kid, nb;

	l = (const struct bwshm_launch *)(const void *)
	    ((const char *)h->pp + BWSHM_PROGRESS_HDR_SIZE + i * sz);
	s1 = __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE);
	if (s1 & 1)
		return SLOT_UNSTABLE;
	state = __atomic_load_n(&l->state, __ATOMIC_RELAXED);
	kid = __atomic_load_n(&l->kernel, __ATOMIC_RELAXED);
	lns = __atomic_load_n(&l->launch_ns, __ATOMIC_RELAXED);
	nb = __atomic_load_n(&l->nblocks, __ATOMIC_RELAXED);
	stream = __atomic_load_n(&l->stream, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&l->seq, __ATOMIC_RELAXED);
	if (s1 != s2)
		return SLOT_UNSTABLE;
	if (state != BWSHM_SLOT_RUNNING)
		return SLOT_IDLE;
	v->k = find_kernel(h, kid);
	/* the progress table is the registered kernel's: sizes must agree */
	if (v->k == NULL || nb < 1 || nb != v->k->blocks ||
	    (nb + 63u) / 64u > max_words)
		return SLOT_BAD;
	v->seq = s1;
	v->lp = l;
	v->stream = stream;
	v->launch_ns = lns;
	v->bitmap = l->bitmap;
	v->nwords = (nb + 63u) / 64u;
	v->slot = i;
	return SLOT_RUNNING;
}

static struct launch *
launch_find(struct period *pe, uint32_t task, uint32_t slot, uint64_t seq)
{
	struct launch	*free_l = NULL;
	unsigned int	i;

	for (i = 0; i < PERIOD_MAX_LAUNCHES; i++) {
		struct launch	*l = &pe->l[i];

		if (!l->used) {
			if (free_l == NULL)
				free_l = l;
			continue;
		}
		if (l->rec.task == task && l->rec.slot == slot &&
		    l->rec.seq == seq)
			return l;
	}
	return free_l;
}

/* Start tracking a launch first seen now. */
static void
launch_begin(struct launch *l, const struct period_holder *h,
    const struct slot_view *v, uint64_t now)
{
	memset(l, 0, sizeof(*l));
	l->used = true;
	l->prev_q = -1;
	progress_scan_reset(&l->scan);
	snprintf(l->rec.task_name, sizeof(l->rec.task_name), "%s",
	    h->name != NULL ? h->name : "");
	snprintf(l->rec.kernel_name, sizeof(l->rec.kernel_name), "%s",
	    v->k->name);
	l->rec.pid = h->pid;
	l->rec.task = h->task;
	l->rec.kernel = v->k->id;
	l->rec.slot = v->slot;
	l->rec.blocks = v->k->blocks;
	l->rec.seq = v->seq;
	/* a launch time in the future only fools its own task: clamp */
	l->rec.launch_ns = v->launch_ns <= now ? v->launch_ns : now;
	l->rec.slot_launch_ns = v->launch_ns;
	l->rec.bound_ns = v->k->wcet_ns;
	l->rec.qbar = v->k->q_nominal;
	l->rec.q_min = 2;
	l->rec.q_max = -1;
}

/*
 * The holder's GPU clock calibration (bwshm.h), under its seqlock;
 * false when none is published or it is being rewritten.
 */
static bool
read_gpuclock(const struct period_holder *h, struct decide_gpuclock *c)
{
	const struct bwshm_progress_hdr	*ph = h->pp;
	uint32_t			s1, s2;

	s1 = __atomic_load_n(&ph->clock_seq, __ATOMIC_ACQUIRE);
	if (s1 == 0 || (s1 & 1))
		return false;
	c->offset_ns = __atomic_load_n(&ph->clock_offset_ns, __ATOMIC_RELAXED);
	c->err_ns = __atomic_load_n(&ph->clock_err_ns, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&ph->clock_seq, __ATOMIC_RELAXED);
	return s1 == s2;
}

/*
 * Where the launch's remaining time counts from: its CPU launch time
 * until the GPU start is known and passes decide_start_ns()'s bounds,
 * then that start, kept (the device writes it once; a later value is the
 * client's, not the GPU's).  A kernel queued behind another on its
 * stream would otherwise look late by the time it waited.
 */
static void
launch_start(struct launch *l, const struct period_holder *h,
    const struct slot_view *v, uint64_t now)
{
	struct decide_gpuclock	c;
	uint64_t		g;

	if (l->start_ns != 0)
		return;
	g = __atomic_load_n(&v->lp->gpu_start, __ATOMIC_RELAXED);
	if (g == 0 || !read_gpuclock(h, &c))
		return;
	/* read outside the seqlock: recheck() retires a reused slot */
	g = decide_start_ns(l->rec.launch_ns, g, &c, now);
	if (g != l->rec.launch_ns)
		l->start_ns = g;
}

/* Every active stream of the task page must have a running slot;
 * otherwise some GPU work is uninstrumented and only Q-bar is safe. */
static bool
streams_covered(const struct period_holder *h, const struct slot_view *v,
    unsigned int n)
{
	uint64_t	act, hd;
	unsigned int	b, j;
	bool		ok;

	if (h->tp == NULL)
		return true;
	if (__atomic_load_n(&h->tp->memcpy_depth, __ATOMIC_ACQUIRE) > 0)
		return false;
	act = __atomic_load_n(&h->tp->active_streams, __ATOMIC_ACQUIRE);
	for (b = 0; act != 0 && b < BWSHM_MAX_STREAMS; b++) {
		if (!(act & (1ull << b)))
			continue;
		act &= ~(1ull << b);
		hd = __atomic_load_n(&h->tp->stream_handle[b],
		    __ATOMIC_RELAXED);
		ok = false;
		for (j = 0; j < n && !ok; j++)
			ok = v[j].stream == hd;
		if (!ok)
			return false;
	}
	return true;
}

/*
 * Collect holder hi's running launches into pe->sv/pe->dk from index
 * *n on.  Returns true when the holder's progress is fully known.
 */
static bool
collect(struct period *pe, unsigned int hi, unsigned int *n, uint64_t now)
{
	const struct period_holder	*h = &pe->h[hi];
	struct slot_view		*v;
	uint32_t			maxw;
	size_t				sz = slot_bytes(h, &maxw);
	unsigned int			i, first = *n;
	bool				known = sz > 0 && !h->uninstrumented;
	int				r;

	for (i = 0; sz > 0 && i < h->nslots; i++) {
		if (*n >= PERIOD_MAX_LAUNCHES) {
			known = false;
			break;
		}
		v = &pe->sv[*n];
		r = read_slot(h, i, sz, maxw, v);
		if (r == SLOT_IDLE)
			continue;
		if (r != SLOT_RUNNING) {
			pe->bad_slots += r == SLOT_BAD;
			known = false;
			continue;
		}
		v->l = launch_find(pe, h->task, i, v->seq);
		if (v->l == NULL) {
			known = false;
			continue;
		}
		if (!v->l->used)
			launch_begin(v->l, h, v, now);
		launch_start(v->l, h, v, now);
		v->l->seen = true;
		(*n)++;
	}
	if (*n == first)
		known = false;
	return known && streams_covered(h, &pe->sv[first], *n - first);
}

static void
fill_kernel(struct decide_kernel *dk, const struct slot_view *v,
    uint64_t target)
{
	memset(dk, 0, sizeof(*dk));
	dk->wk = &v->k->wk;
	dk->pt = v->k->pt;
	dk->bitmap = v->bitmap;
	dk->nwords = v->nwords;
	dk->window = v->k->concurrency;
	dk->qnom = v->k->q_nominal;
	dk->bound_ns = v->k->wcet_ns;
	dk->launch_ns = v->l->start_ns != 0 ? v->l->start_ns :
	    v->l->rec.launch_ns;
	/* decided again: SMOOTH's y(n-1) is still the period before */
	dk->prev_q = v->l->acc_target == target ? v->l->acc_prev_q :
	    v->l->prev_q;
	dk->scan = &v->l->scan;
}

/* Build decide()'s holders from the snapshot; returns their number. */
static unsigned int
build(struct period *pe, unsigned int nh, uint64_t now, uint64_t target)
{
	unsigned int	i, j, n = 0;
	bool		known;

	for (i = 0; i < PERIOD_MAX_LAUNCHES; i++)
		pe->l[i].seen = false;
	for (i = 0; i < nh; i++) {
		pe->hfirst[i] = n;
		known = collect(pe, i, &n, now);
		for (j = pe->hfirst[i]; j < n; j++) {
			fill_kernel(&pe->dk[j], &pe->sv[j], target);
			pe->sv[j].decided = known;
		}
		pe->dh[i].qbar = pe->h[i].qbar;
		pe->dh[i].has_progress = known;
		pe->dh[i].nkernels = known ? n - pe->hfirst[i] : 0;
		pe->dh[i].kernels = &pe->dk[pe->hfirst[i]];
	}
	pe->hfirst[nh] = n;
	return n;
}

/* A slot rewritten while we read its bitmap: the holder falls back to
 * its Q-bar for this period.  Returns true when anything moved. */
static bool
recheck(struct period *pe, unsigned int nh)
{
	unsigned int	i, j;
	bool		moved = false, hm;

	for (i = 0; i < nh; i++) {
		if (!pe->dh[i].has_progress)
			continue;
		hm = false;
		for (j = pe->hfirst[i]; j < pe->hfirst[i + 1]; j++) {
			if (__atomic_load_n(&pe->sv[j].lp->seq,
			    __ATOMIC_ACQUIRE) == pe->sv[j].seq)
				continue;
			/* that launch is over: retire it this period */
			pe->sv[j].l->seen = false;
			hm = true;
		}
		if (!hm)
			continue;
		moved = true;
		pe->dh[i].has_progress = 0;
		pe->dh[i].nkernels = 0;
		for (j = pe->hfirst[i]; j < pe->hfirst[i + 1]; j++)
			pe->sv[j].decided = false;
	}
	return moved;
}

/* ---- accounting --------------------------------------------------- */

/* Count period `target` with Q q in l's record; decided again, the new
 * Q replaces the old one in the sums (the extremes keep both). */
static void
account_q(struct launch *l, uint64_t target, double q, bool late)
{
	if (l->acc_target == target) {
		l->rec.q_sum += q - l->acc_q;
		l->rec.q_sq += q * q - l->acc_q * l->acc_q;
	} else {
		l->rec.periods++;
		l->rec.late += late;
		l->rec.q_sum += q;
		l->rec.q_sq += q * q;
		l->acc_target = target;
		l->acc_prev_q = l->prev_q;
	}
	l->acc_q = q;
	if (q < l->rec.q_min)
		l->rec.q_min = q;
	if (q > l->rec.q_max)
		l->rec.q_max = q;
}

static void
account(struct period *pe, unsigned int nk, const struct decide_output *o,
    bool late, uint64_t now, uint64_t target)
{
	struct decide_kernel	*dk;
	struct launch		*l;
	double			q;
	unsigned int		i;

	/* the Q the plan gives its first period */
	q = !o->regulated ? 1 : o->q;
	for (i = 0; i < nk; i++) {
		l = pe->sv[i].l;
		if (!l->seen)
			continue;
		dk = &pe->dk[i];
		account_q(l, target, q, late);
		if (!pe->sv[i].decided)
			continue;
		/* a launch whose blocks all finished ended by now */
		if (dk->out.remaining == 0 && l->done_ns == 0)
			l->done_ns = now;
		if (dk->out.remaining > 0)
			l->rec.prev_ns = now;
		l->prev_q = dk->out.q;
	}
}

/* Launches not seen running this period have ended; how many. */
static unsigned int
retire(struct period *pe, uint64_t now)
{
	struct launch	*l;
	unsigned int	i, n = 0;

	for (i = 0; i < PERIOD_MAX_LAUNCHES; i++) {
		l = &pe->l[i];
		if (!l->used || l->seen)
			continue;
		l->rec.finished = l->done_ns != 0;
		/* the bound is the kernel's from its start: the record
		 * measures from where the decisions counted */
		if (l->start_ns != 0) {
			l->rec.launch_ns = l->start_ns;
			l->rec.gpu_start = true;
		}
		l->rec.end_ns = l->done_ns != 0 ? l->done_ns : now;
		if (l->rec.prev_ns == 0)
			l->rec.prev_ns = l->rec.launch_ns;
		ring_push(pe->launches, &l->rec);
		pe->nlaunches++;
		l->used = false;
		n++;
	}
	return n;
}

/* ---- one period --------------------------------------------------- */

static void
record_kernels(struct period *pe, unsigned int nk)
{
	struct ring_kernel	*rk;
	unsigned int		i, n = 0;

	for (i = 0; i < nk && n < RING_MAX_KERNELS; i++) {
		if (!pe->sv[i].decided)
			continue;
		rk = &pe->rec.k[n++];
		rk->task = pe->sv[i].l->rec.task;
		rk->kernel = pe->sv[i].k->id;
		rk->slot = pe->sv[i].slot;
		rk->pad = 0;
		rk->seq = pe->sv[i].seq;
		rk->blocks = pe->sv[i].k->blocks;
		rk->remaining = pe->dk[i].out.remaining;
		rk->t_remaining_ns = (int64_t)pe->dk[i].out.t_remaining;
		rk->q = pe->dk[i].out.q;
	}
	pe->rec.nkernels = n;
}

/* What the plan's first entry gives the target period. */
static void
record(struct period *pe, const struct decide_output *o, unsigned int nh,
    unsigned int nk, unsigned int ncores)
{
	const uint64_t	*ev = o->events;
	unsigned int	i;

	pe->rec.q = !o->regulated ? -1 : o->q;
	pe->rec.q_static = o->regulated ? o->q_static : -1;
	pe->rec.holders = nh;
	pe->rec.ncores = ncores;
	for (i = 0; i < RING_MAX_CORES; i++)
		pe->rec.budget[i] = i < ncores ? ev[i] : 0;
	record_kernels(pe, nk);
}

/*
 * The lock slots the plan accounted for: every holder with a slot, at
 * the launch count read before the snapshot.  A slot held by a task
 * the snapshot does not list as a holder is not in the mask, so the
 * backend caps it at the slot's static budget.
 */
static void
plan_locks(struct period *pe, unsigned int nh, bool have_locks)
{
	int	s;
	unsigned int	i;

	pe->plan.lock_mask = 0;
	if (!have_locks)
		return;
	for (i = 0; i < nh; i++) {
		s = pe->h[i].lock_slot;
		if (s < 0 || s >= REG_MAX_LOCKS ||
		    !(pe->locks.valid & (1ull << s)))
			continue;
		pe->plan.lock_mask |= 1ull << s;
		pe->plan.lock_launches[s] = pe->locks.launches[s];
	}
}

/*
 * Hand the plan over; the backend decides what it may still govern, and
 * refuses it (-ESTALE) when the holders changed after the snapshot.
 */
static int
hand_over(struct period *pe, uint64_t target, const struct decide_output *o,
    unsigned int ncores, uint64_t gen)
{
	unsigned int	i, j;
	int		e;

	pe->plan.gen = gen;
	pe->plan.first = target;
	pe->plan.len = o->plan_len;
	for (j = 0; j < o->plan_len; j++)
		for (i = 0; i < ncores; i++)
			pe->plan.events[j][i] = o->plan_events[j][i];
	if ((e = pe->p.ops->apply_plan(pe->p.reg, &pe->plan)) < 0 &&
	    e != -ESTALE) {
		pthread_mutex_lock(&pe->mu);
		pe->st.apply_errors++;
		pthread_mutex_unlock(&pe->mu);
	}
	return e;
}

static void
update_stats(struct period *pe, const struct decide_output *o, bool late,
    bool applied, uint64_t lateness, uint64_t cost, bool again)
{
	pthread_mutex_lock(&pe->mu);
	pe->st.periods++;
	pe->st.again += again;
	pe->st.late += late;
	pe->st.applied += applied;
	pe->st.lead_ns = pe->lead.cur;
	pe->st.plan_len = pe->p.plan_len;
	pe->st.bad_slots = pe->bad_slots;
	pe->st.launches = pe->nlaunches;
	pe->st.redecided = pe->redecided;
	pe->st.q = o->regulated ? o->q : -1;
	pe->st.period = o->period;
	/* a kick is no wake-up for a deadline: no lateness */
	if (!again)
		lathist_add(&pe->late_h, lateness);
	lathist_add(&pe->cost_h, cost);
	pthread_mutex_unlock(&pe->mu);
}

/* Has the lock state moved on since the snapshot of generation gen? */
static bool
moved(struct period *pe, uint64_t gen)
{
	return pe->p.src.generation != NULL &&
	    pe->p.src.generation(pe->p.src.arg) != gen;
}

/* The launch counts of the lock slots, read before the snapshot. */
static bool
read_locks(struct period *pe)
{
	if (pe->p.ops->locks == NULL)
		return false;
	if (pe->p.ops->locks(pe->p.reg, &pe->locks) == 0)
		return true;
	pthread_mutex_lock(&pe->mu);
	pe->st.lock_errors++;
	pthread_mutex_unlock(&pe->mu);
	return false;
}

/* Decide, apply and record the plan from `target` starting at
 * `boundary`; late: the wake-up missed the period it was for; again:
 * target was decided before, on holders that have changed since. */
static void
run_period(struct period *pe, uint64_t target, uint64_t boundary,
    uint64_t woke, uint64_t deadline, bool late, bool again)
{
	struct decide_config	dc;
	struct decide_input	in;
	struct decide_output	o;
	unsigned int		nh, nk, i, tries;
	uint64_t		c0 = thread_cpu_now(), gen;
	bool			ok, news, applied = false, locks, stale;
	int			e;

	pthread_mutex_lock(&pe->mu);
	dc.bwmax_events = pe->p.bwmax_events;
	dc.overhead_events = pe->p.overhead_events;
	dc.ncores = pe->p.ncores;
	dc.smooth_a = pe->p.smooth_a;
	in.policy = pe->p.policy;
	pthread_mutex_unlock(&pe->mu);
	in.period = target;
	in.period_start_ns = boundary;
	in.cfg = &dc;
	in.plan_len = pe->p.plan_len;
	for (tries = 0;; tries++) {
		locks = read_locks(pe);
		nh = pe->p.src.snapshot(pe->p.src.arg, pe->h,
		    PERIOD_MAX_HOLDERS, &gen);
		nk = build(pe, nh, woke, target);
		in.holders = pe->dh;
		in.nholders = nh;
		memset(&o, 0, sizeof(o));
		ok = decide(&in, &o) == 0 && (!recheck(pe, nh) ||
		    decide(&in, &o) == 0);
		if (!ok) {
			/* cannot happen with checked parameters; if it
			 * does, hand nothing over: static is safe */
			o.period = target;
			o.plan_len = 1;
			for (i = 0; i < dc.ncores; i++)
				o.events[i] = o.static_events[i] =
				    REG_UNLIMITED;
		}
		/* no holder, no plan: the static budget (unlimited) */
		stale = false;
		if (ok && nh > 0) {
			plan_locks(pe, nh, locks);
			e = hand_over(pe, target, &o, dc.ncores, gen);
			applied = e == 0;
			stale = e == -ESTALE;
		}
		/*
		 * The holders changed while we decided: a plan published
		 * before the loop set the new static budget was withdrawn by
		 * it, one after it was refused as stale.  Either way, decide
		 * again on the new state (once; later periods catch up).
		 */
		if (tries > 0 || !(stale || (applied && moved(pe, gen))))
			break;
		pe->p.src.release(pe->p.src.arg);
		pe->redecided++;
	}
	pe->p.ops->heartbeat(pe->p.reg);
	account(pe, nk, &o, late, woke, target);
	record(pe, &o, nh, nk, dc.ncores);
	pe->p.src.release(pe->p.src.arg);
	news = retire(pe, woke) > 0 || nh > 0;
	pe->rec.period = target;
	pe->rec.t_ns = woke;
	pe->rec.boundary_ns = boundary;
	pe->rec.lateness_ns = (int64_t)(woke - deadline);
	pe->rec.late = late;
	pe->rec.cost_ns = thread_cpu_now() - c0;
	pe->rec.lead_ns = pe->lead.cur;
	pe->rec.plan_len = o.plan_len;
	pe->rec.q_last = o.regulated ? o.plan_q[o.plan_len - 1] : -1;
	pe->rec.again = again;
	ring_push(pe->records, &pe->rec);
	/* late is judged with cost_est (retarget): the lead is too */
	if (!again)
		leadctl_add(&pe->lead, woke > deadline ? woke - deadline : 0,
		    pe->cost_est);
	update_stats(pe, &o, late, applied, woke > deadline ?
	    woke - deadline : 0, pe->rec.cost_ns, again);
	pe->last_gen = gen;
	/*
	 * With no holder and no launch ending, the records only feed status
	 * and subscribers: drained every PERIOD_QUIET_NOTIFY periods, an
	 * idle daemon does not wake its loop every period.
	 */
	if (pe->p.notify != NULL && (news ||
	    ++pe->quiet >= PERIOD_QUIET_NOTIFY)) {
		pe->quiet = 0;
		pe->p.notify(pe->p.notify_arg);
	}
}

/*
 * Which period to prepare next and its boundary.  The backend says
 * which period runs now; once we have prepared the next one we move on
 * to the one after it, a period length later.
 */
static int
next_target(struct period *pe, uint64_t *target, uint64_t *boundary)
{
	uint64_t	cur, b;

	if (pe->p.ops->clock(pe->p.reg, &cur, &b) < 0)
		return -1;
	*target = cur + 1;
	*boundary = b;
	if (pe->last_target != 0 && *target <= pe->last_target) {
		*boundary = b + (pe->last_target + 1 - *target) *
		    pe->p.period_ns;
		*target = pe->last_target + 1;
	}
	return 0;
}

/*
 * After the wake-up: the first period that begins far enough ahead for
 * a decision (cost_est) to reach the backend before it.  late: that is
 * not the period the engine slept for.
 */
static int
retarget(struct period *pe, uint64_t woke, uint64_t *target,
    uint64_t *boundary, bool *late)
{
	uint64_t	cur, b, t;

	*late = false;
	if (woke + pe->cost_est < *boundary)
		return 0;
	if (pe->p.ops->clock(pe->p.reg, &cur, &b) < 0)
		return -1;
	t = cur + 1;
	if (b < woke + pe->cost_est) {
		t++;
		b += pe->p.period_ns;
	}
	*late = t != *target;
	if (t > *target) {
		*target = t;
		*boundary = b;
	}
	return 0;
}

/* What a decision may cost: its p99 and a floor, every 64 periods. */
static void
update_cost_est(struct period *pe)
{
	uint64_t	c;

	if (pe->cost_est != 0 && pe->st.periods % 64 != 0)
		return;
	pthread_mutex_lock(&pe->mu);
	c = lathist_pct(&pe->cost_h, 99);
	pthread_mutex_unlock(&pe->mu);
	pe->cost_est = c + pe->p.period_ns / 50;
}

/*
 * Kicked between two wake-ups.  When the holders changed since the last
 * decision, the loop's new static budget withdrew its plan (tasks.h): if
 * the period it was for has not begun, with a decision's cost to spare,
 * decide it again on the new holders.  Else that period runs on the
 * static budget, and a lock taken just after the engine woke would cost
 * its holders a whole period more than it must.
 */
static void
redecide(struct period *pe)
{
	uint64_t	now = now_ns(pe);

	if (pe->last_target == 0 || !moved(pe, pe->last_gen) ||
	    now + pe->cost_est >= pe->last_boundary)
		return;
	run_period(pe, pe->last_target, pe->last_boundary, now, now, false,
	    true);
}

int
period_run_once(struct period *pe)
{
	uint64_t	target, boundary, deadline, woke, lead;
	bool		late;
	int		r;

	/* the period after the last holder left is still recorded */
	if (idle(pe) && pe->rec.holders == 0)
		return idle_once(pe);
	if (next_target(pe, &target, &boundary) < 0)
		return -1;
	update_cost_est(pe);
	lead = pe->lead.cur;
	deadline = boundary > lead ? boundary - lead : 0;
	while ((r = sleep_until(pe, deadline)) == 1)
		redecide(pe);
	if (r < 0)
		return -1;
	woke = now_ns(pe);
	if (retarget(pe, woke, &target, &boundary, &late) < 0)
		return -1;
	run_period(pe, target, boundary, woke, deadline, late, false);
	pe->last_target = target;
	pe->last_boundary = boundary;
	return 0;
}

static void *
period_main(void *arg)
{
	struct period	*pe = arg;

	while (!__atomic_load_n(&pe->stop, __ATOMIC_ACQUIRE))
		if (period_run_once(pe) < 0 &&
		    !__atomic_load_n(&pe->stop, __ATOMIC_ACQUIRE))
			/* a backend clock failure: do not spin */
			sleep_until(pe, now_ns(pe) + pe->p.period_ns);
	return NULL;
}

/* ---- set-up ------------------------------------------------------- */

struct period *
period_new(const struct period_params *p, char *err, size_t errlen)
{
	struct period	*pe;
	uint32_t	n = p->ring_records ? p->ring_records : 4096;

	if (p->ops == NULL || p->ops->apply_plan == NULL ||
	    p->src.snapshot == NULL || p->src.release == NULL ||
	    p->period_ns == 0 || p->lead_ns >= p->period_ns ||
	    p->lead_max_ns >= p->period_ns || p->ncores < 1 ||
	    p->plan_len > DECIDE_MAX_PLAN || p->plan_len > REG_PLAN_MAX ||
	    p->ncores > DECIDE_MAX_CORES || p->ncores > REG_MAX_CORES) {
		snprintf(err, errlen, "period engine: bad parameters");
		return NULL;
	}
	if ((pe = calloc(1, sizeof(*pe))) == NULL) {
		snprintf(err, errlen, "period engine: out of memory");
		return NULL;
	}
	pe->p = *p;
	if (pe->p.plan_len == 0)
		pe->p.plan_len = 1;
	/* the lead never needs to exceed what the range allows */
	leadctl_init(&pe->lead, p->lead_adapt, p->lead_ns,
	    p->lead_min_ns ? p->lead_min_ns : p->lead_ns / 2 + 1,
	    p->lead_max_ns ? p->lead_max_ns : p->period_ns / 2, 0,
	    p->period_ns);
	pe->st.lead_ns = pe->lead.cur;
	pe->st.plan_len = pe->p.plan_len;
	pe->tfd = pe->efd = -1;
	pthread_mutex_init(&pe->mu, NULL);
	pe->records = ring_new(sizeof(struct ring_period), n);
	pe->launches = ring_new(sizeof(struct period_launch), 256);
	if (pe->records == NULL || pe->launches == NULL) {
		snprintf(err, errlen, "period engine: out of memory");
		period_free(pe);
		return NULL;
	}
	return pe;
}

/* SCHED_FIFO and the CPU: wanted, not required. */
static void
realtime(struct period *pe, char *warn, size_t warnlen)
{
	struct sched_param	sp;
	cpu_set_t		set;
	int			e;
	size_t			o = 0;

	warn[0] = '\0';
	if (pe->p.priority > 0) {
		memset(&sp, 0, sizeof(sp));
		sp.sched_priority = pe->p.priority;
		e = pthread_setschedparam(pe->thread, SCHED_FIFO, &sp);
		if (e != 0)
			o += (size_t)snprintf(warn, warnlen, "period thread "
			    "runs without SCHED_FIFO %d (%s): expect late "
			    "wake-ups", pe->p.priority, strerror(e));
		pe->st.rt = e == 0;
	}
	if (pe->p.cpu >= 0 && pe->p.cpu < CPU_SETSIZE && o < warnlen) {
		CPU_ZERO(&set);
		CPU_SET(pe->p.cpu, &set);
		e = pthread_setaffinity_np(pe->thread, sizeof(set), &set);
		if (e != 0)
			snprintf(warn + o, warnlen - o, "%speriod thread not "
			    "pinned to CPU %d (%s)", o ? "; " : "", pe->p.cpu,
			    strerror(e));
	}
}

int
period_start(struct period *pe, char *warn, size_t warnlen, char *err,
    size_t errlen)
{
	int	e;

	if (pe->p.clock == NULL) {
		pe->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		pe->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (pe->tfd < 0 || pe->efd < 0) {
			snprintf(err, errlen, "period engine: %s",
			    strerror(errno));
			return -1;
		}
	}
	if ((e = pthread_create(&pe->thread, NULL, period_main, pe)) != 0) {
		snprintf(err, errlen, "period engine: thread: %s",
		    strerror(e));
		return -1;
	}
	pe->started = true;
	pthread_mutex_lock(&pe->mu);
	realtime(pe, warn, warnlen);
	pthread_mutex_unlock(&pe->mu);
	return 0;
}

void
period_kick(struct period *pe)
{
	uint64_t	one = 1;

	/* a failed write only means it wakes at the end of idle_ns */
	if (pe != NULL && pe->efd >= 0)
		(void)!write(pe->efd, &one, sizeof(one));
}

void
period_stop(struct period *pe)
{
	uint64_t	one = 1;

	if (pe == NULL || !pe->started)
		return;
	__atomic_store_n(&pe->stop, 1, __ATOMIC_RELEASE);
	/* if the write fails the flag still stops it at the next wake-up */
	if (pe->efd >= 0)
		(void)!write(pe->efd, &one, sizeof(one));
	pthread_join(pe->thread, NULL);
	pe->started = false;
}

void
period_free(struct period *pe)
{
	if (pe == NULL)
		return;
	period_stop(pe);
	if (pe->tfd >= 0)
		close(pe->tfd);
	if (pe->efd >= 0)
		close(pe->efd);
	ring_free(pe->records);
	ring_free(pe->launches);
	pthread_mutex_destroy(&pe->mu);
	free(pe);
}

/* ---- loop side ---------------------------------------------------- */

void
period_set_policy(struct period *pe, enum decide_policy pol,
    double overhead_events, double smooth_a)
{
	pthread_mutex_lock(&pe->mu);
	pe->p.policy = pol;
	pe->p.overhead_events = overhead_events;
	pe->p.smooth_a = smooth_a;
	pthread_mutex_unlock(&pe->mu);
}

void
period_stats(struct period *pe, struct period_stats *s)
{
	pthread_mutex_lock(&pe->mu);
	*s = pe->st;
	s->lateness_p50_ns = lathist_pct(&pe->late_h, 50);
	s->lateness_p99_ns = lathist_pct(&pe->late_h, 99);
	s->lateness_max_ns = pe->late_h.max;
	s->cost_p50_ns = lathist_pct(&pe->cost_h, 50);
	s->cost_p99_ns = lathist_pct(&pe->cost_h, 99);
	s->cost_max_ns = pe->cost_h.max;
	pthread_mutex_unlock(&pe->mu);
	s->dropped = ring_dropped(pe->records) + ring_dropped(pe->launches);
}

struct ring *
period_records(struct period *pe)
{
	return pe->records;
}

struct ring *
period_launches(struct period *pe)
{
	return pe->launches;
}
