/*
 * reg_sim.c - the "sim" regulator backend: the simulated platform of
 * doc/sim.md (sim/sim.h) run in wall-clock time.
 *
 * The model's time 0 is a CLOCK_MONOTONIC instant aligned to the period
 * (like the module's hrtimers), so its period numbers are the ones the
 * engine sees.  Every backend call first advances the model to now, and
 * a small thread advances it every SIM_TICK_NS on its own so the
 * published state never lags by more than that.  The BE cores run the
 * tasks named in $BWSCHED_SIM_TASKS (comma-separated per core: "mem" a
 * memory hog at the core's maximum, "cpu" a compute task, or a number of
 * events per microsecond; default "mem,cpu").  Budgets are enforced on
 * the simulated cores exactly as the module would (regulator.h): plans
 * under the look-ahead rule, the static budget otherwise (a counted
 * fallback), the fail-safe budget when heartbeats stop, and lock slots.
 *
 * Lock slots: each is a memfd page laid out as struct bwreg_lock (the
 * module's) and a SOCK_SEQPACKET pair.  The application writes held and
 * launches into the page; a kick is one datagram carrying the
 * application's CLOCK_MONOTONIC time (8 bytes), answered with one byte
 * once the simulated cores enforce the slot.  The tick thread polls the
 * kick sockets, so no engine or event-loop wake-up is in that path; it
 * tells the event loop afterwards (lock_edge_fd), which then reads the
 * task pages at once.
 *
 * The state is published in a read-only file (bwsimstate.h) at
 * cfg->state_path when that is set (the daemon passes SOCKET.sim).
 * All entry points take the mutex: the period thread, the event loop and
 * the tick thread all call in.
 */
#define _GNU_SOURCE
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bwsched/bwsimstate.h>

#include "bwreg.h"
#include "monoclock.h"
#include "reg_sim.h"
#include "sim.h"

#define SIM_TICK_NS	200000ull	/* own advance and publish interval */
#define SIM_IDLE_NS	10000000ull	/* the same while the lock is free */
#define SIM_TASKS_ENV	"BWSCHED_SIM_TASKS"
#define SIM_TICK_PRIORITY 91		/* above the period thread's 90 */

_Static_assert(BWSIM_HISTORY_OFFSET + sizeof(struct bwsim_history) <=
    BWSIM_STATE_SIZE, "the sim history does not fit the state file");
_Static_assert(sizeof(struct bwsim_state) <= BWSIM_HISTORY_OFFSET,
    "the sim state overlaps its history");
_Static_assert(REG_MAX_LOCKS == SIM_MAX_LOCKS &&
    REG_PLAN_MAX == SIM_PLAN_MAX, "regulator and model limits differ");

#define SIM_LOCK_PAGE	4096

/* A lock slot's daemon side. */
struct sim_slot_files {
	struct bwreg_lock	*page;		/* shared with the application */
	int			sock;		/* our end of the kick pair */
	unsigned int		kicks;		/* since the last fine tick */
};

/*
 * Kicks answered per slot between two fine ticks: an application kicks
 * once per lock edge; one that floods its socket waits for the next
 * tick instead of keeping this FIFO thread busy.
 */
#define SIM_KICKS_PER_TICK	8

struct regulator {
	pthread_mutex_t		mu;
	struct reg_config	cfg;
	struct sim		sim;
	uint64_t		epoch;		/* model time 0 */
	uint64_t		static_events[REG_MAX_CORES];
	uint64_t		nsets;		/* set_static calls */
	uint64_t		static_gen;	/* plans older are stale */
	uint64_t		last_beat;	/* ns of the last heartbeat */
	bool			failsafe;	/* heartbeats stopped */
	struct bwsim_state	*st;		/* published page or NULL */
	char			path[256];
	pthread_t		thr;
	int			wakefd;		/* eventfd: lock taken, slots
						 * changed, or stop */
	int			edgefd;		/* eventfd: a kick answered,
						 * for the event loop */
	bool			thr_on;
	int			stop;		/* atomic */
	struct sim_slot_files	slot[REG_MAX_LOCKS];
	struct reg_lock_stats	lk;
};

static void
wake_thread(struct regulator *r)
{
	uint64_t	one = 1;

	/* a failed write leaves the thread on its timeout: no harm */
	if (r->wakefd >= 0)
		(void)!write(r->wakefd, &one, sizeof(one));
}

/* ---- lock slots ---------------------------------------------------- */

/* Copy what the applications wrote into the model; caller holds mu. */
static void
slots_read(struct regulator *r)
{
	struct bwreg_lock	*pg;
	unsigned int		i;

	for (i = 0; i < REG_MAX_LOCKS; i++) {
		if ((pg = r->slot[i].page) == NULL)
			continue;
		sim_lock_words(&r->sim, i,
		    __atomic_load_n(&pg->held, __ATOMIC_ACQUIRE) != 0,
		    __atomic_load_n(&pg->launches, __ATOMIC_ACQUIRE));
	}
}

/* Tell each held slot whether a launch must kick (dyn). */
static void
slots_dyn(struct regulator *r)
{
	unsigned int	i;

	for (i = 0; i < REG_MAX_LOCKS; i++)
		if (r->slot[i].page != NULL)
			__atomic_store_n(&r->slot[i].page->dyn,
			    (uint32_t)sim_lock_dyn(&r->sim, i),
			    __ATOMIC_RELEASE);
}

static void
slot_free(struct regulator *r, unsigned int i)
{
	struct sim_slot_files	*f = &r->slot[i];

	if (f->page != NULL)
		munmap(f->page, SIM_LOCK_PAGE);
	if (f->sock >= 0)
		close(f->sock);
	f->page = NULL;
	f->sock = -1;
}

/* ---- state page ---------------------------------------------------- */

static void
publish_cores(struct regulator *r, struct bwsim_state *p)
{
	const struct sim_core	*c;
	unsigned int		i;

	for (i = 0; i < r->sim.cfg.ncores; i++) {
		c = &r->sim.core[i];
		p->core[i].budget = c->budget;
		p->core[i].used = (uint64_t)c->used;
		p->core[i].events = (uint64_t)c->events;
		p->core[i].throttles = c->throttles;
		p->core[i].throttled_ns = (uint64_t)c->throttled_ns;
		p->core[i].throttled = (uint32_t)c->throttled;
	}
}

/* Seqlock writer (bwsimstate.h); the model is under r->mu. */
static void
publish(struct regulator *r)
{
	struct bwsim_state	*p = r->st;
	const struct sim	*s = &r->sim;
	double			ev = 0;
	unsigned int		i;

	if (p == NULL)
		return;
	for (i = 0; i < s->cfg.ncores; i++)
		ev += s->core[i].events;
	__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	p->now_ns = r->epoch + (uint64_t)s->now;
	p->period = s->period;
	p->next_boundary_ns = r->epoch + (uint64_t)s->next_boundary;
	p->u = s->u;
	p->be_events = ev;
	/* the cores' top rate is bwmax per period: u = rate / that */
	p->traffic_ns = ev * (double)s->cfg.period_ns / s->cfg.bwmax_events;
	p->fallbacks = s->stats.fallbacks;
	p->locked = (uint32_t)s->locked;
	p->rho = s->cfg.rho;
	publish_cores(r, p);
	__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
}

static int
open_state(struct regulator *r, const char *path, char *err, size_t errlen)
{
	int	fd;
	void	*m;

	if (snprintf(r->path, sizeof(r->path), "%s", path) >=
	    (int)sizeof(r->path)) {
		snprintf(err, errlen, "sim: state path too long");
		return -ENAMETOOLONG;
	}
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, BWSIM_STATE_SIZE) < 0) {
		snprintf(err, errlen, "sim: %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	m = mmap(NULL, BWSIM_STATE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "sim: mmap %s: %s", path,
		    strerror(errno));
		unlink(path);
		return -ENOMEM;
	}
	r->st = m;
	r->st->version = BWSIM_STATE_VERSION;
	r->st->period_ns = r->cfg.period_ns;
	r->st->bwmax_events = r->sim.cfg.bwmax_events;
	r->st->ncores = r->cfg.ncores;
	__atomic_store_n(&r->st->magic, BWSIM_STATE_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

/* ---- the model ----------------------------------------------------- */

/* Append the traffic integral at the model's time (bwsimstate.h). */
static void
sample(struct regulator *r)
{
	struct bwsim_history	*h;
	struct bwsim_sample	*e;
	double			ev = 0;
	unsigned int		i;

	if (r->st == NULL)
		return;
	h = (struct bwsim_history *)(void *)((char *)r->st +
	    BWSIM_HISTORY_OFFSET);
	for (i = 0; i < r->sim.cfg.ncores; i++)
		ev += r->sim.core[i].events;
	e = &h->s[h->count % BWSIM_HISTORY];
	e->t_ns = (double)r->epoch + r->sim.now;
	e->traffic_ns = ev * (double)r->sim.cfg.period_ns /
	    r->sim.cfg.bwmax_events;
	__atomic_store_n(&h->count, h->count + 1, __ATOMIC_RELEASE);
}

/* Advance the model to the wall clock in short steps, sampling the
 * traffic integral after each; caller holds r->mu. */
static void
advance(struct regulator *r)
{
	uint64_t	t = monoclock_ns();
	double		to, step;

	slots_read(r);
	to = t > r->epoch ? (double)(t - r->epoch) : 0;
	/* after a long stall, do not fill the history with one gap */
	if (to - r->sim.now > (double)BWSIM_HISTORY_STEP_NS * 400)
		sim_run_until(&r->sim, to - BWSIM_HISTORY_STEP_NS * 400.0);
	while (r->sim.now < to) {
		step = r->sim.now + BWSIM_HISTORY_STEP_NS;
		sim_run_until(&r->sim, step < to ? step : to);
		sample(r);
	}
	/* the module's watchdog: no heartbeat for too long while the lock
	 * is held means the daemon is gone; fall back to the fail-safe */
	if (!r->failsafe && r->sim.locked && r->cfg.heartbeat_timeout_ns &&
	    t - r->last_beat > r->cfg.heartbeat_timeout_ns) {
		sim_failsafe(&r->sim, 1, r->cfg.failsafe_events);
		r->failsafe = true;
	}
	slots_dyn(r);
	publish(r);
}

/* One core's task list from $BWSCHED_SIM_TASKS. */
static int
add_tasks(struct regulator *r, unsigned int core, char *err, size_t errlen)
{
	const char	*spec = getenv(SIM_TASKS_ENV);
	char		buf[256], *tok, *save = NULL, *end;
	double		in;
	int		n = 0;

	snprintf(buf, sizeof(buf), "%s", spec && *spec ? spec : "mem,cpu");
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save), n++) {
		if (strcmp(tok, "mem") == 0)
			in = SIM_MEM;
		else if (strcmp(tok, "cpu") == 0)
			in = 0;
		else if ((in = strtod(tok, &end)) < 0 || *end != '\0' ||
		    end == tok) {
			snprintf(err, errlen, "sim: %s: bad task \"%s\" "
			    "(mem, cpu or events per us)", SIM_TASKS_ENV, tok);
			return -EINVAL;
		}
		if (sim_add_task(&r->sim, core, tok, in) < 0) {
			snprintf(err, errlen, "sim: %s: too many tasks",
			    SIM_TASKS_ENV);
			return -EINVAL;
		}
	}
	return 0;
}

static int
model_init(struct regulator *r, char *err, size_t errlen)
{
	struct sim_config	sc;
	unsigned int		i;
	int			e;

	sim_config_default(&sc);
	sc.period_ns = r->cfg.period_ns;
	sc.ncores = r->cfg.ncores;
	if (r->cfg.bwmax_events > 0)	/* else the model's default */
		sc.bwmax_events = (double)r->cfg.bwmax_events;
	sc.rho = r->cfg.rho;
	sc.jitter = 0;		/* no GPU in here: the demo client has it */
	if (sim_init(&r->sim, &sc) < 0) {
		snprintf(err, errlen, "sim: the model rejects the config");
		return -EINVAL;
	}
	for (i = 0; i < sc.ncores; i++)
		if ((e = add_tasks(r, i, err, errlen)) < 0)
			return e;
	return 0;
}

/*
 * Answer the kicks waiting on slot i's socket: the model is at now and
 * the held slots are enforced; each kick carries the application's time
 * of the kick, so the latency counted is the application's.  Caller
 * holds mu.  Returns the kicks answered.
 */
static int
slot_kicks(struct regulator *r, unsigned int i, uint64_t now)
{
	uint64_t	t0, ns;
	uint8_t		ack = 1;
	ssize_t		n;
	int		k;

	for (k = 0; k < 16 && r->slot[i].kicks < SIM_KICKS_PER_TICK; k++) {
		r->slot[i].kicks++;
		t0 = 0;
		n = recv(r->slot[i].sock, &t0, sizeof(t0), MSG_DONTWAIT);
		if (n < 0 || n == 0)
			return k;
		ns = n == (ssize_t)sizeof(t0) && t0 <= now ? now - t0 : 0;
		r->lk.kicks++;
		r->lk.kick_ns_last = ns;
		r->lk.kick_ns_sum += ns;
		if (ns > r->lk.kick_ns_max)
			r->lk.kick_ns_max = ns;
		/* an application that does not read its answers loses them */
		(void)!send(r->slot[i].sock, &ack, 1, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
	}
	return k;
}

/* Poll set: the wake eventfd, then every open slot's socket. */
static unsigned int
tick_fds(struct regulator *r, struct pollfd *fds, unsigned int *which)
{
	unsigned int	i, n = 1;

	fds[0].fd = r->wakefd;
	fds[0].events = POLLIN;
	for (i = 0; i < REG_MAX_LOCKS; i++) {
		if (r->slot[i].sock < 0 ||
		    r->slot[i].kicks >= SIM_KICKS_PER_TICK)
			continue;
		fds[n].fd = r->slot[i].sock;
		fds[n].events = POLLIN;
		which[n++] = i;
	}
	return n;
}

/* One turn: sleep until due or a kick, then advance and answer.
 * Returns true when it slept to the tick. */
static bool
tick_once(struct regulator *r, uint64_t due)
{
	struct pollfd	fds[1 + REG_MAX_LOCKS];
	struct timespec	ts;
	unsigned int	which[1 + REG_MAX_LOCKS], n, i;
	uint64_t	now = monoclock_ns(), v, left, edges = 0;
	int		k;

	pthread_mutex_lock(&r->mu);
	n = tick_fds(r, fds, which);
	pthread_mutex_unlock(&r->mu);
	/* ns, not poll's ms: the fine tick is 200 us */
	left = due > now ? due - now : 0;
	ts.tv_sec = (time_t)(left / 1000000000u);
	ts.tv_nsec = (long)(left % 1000000000u);
	if ((k = ppoll(fds, n, &ts, NULL)) < 0)
		return false;
	if (fds[0].revents)
		(void)!read(r->wakefd, &v, sizeof(v));
	pthread_mutex_lock(&r->mu);
	advance(r);
	for (i = 1; i < n; i++)
		if (fds[i].revents && r->slot[which[i]].sock == fds[i].fd) {
			r->lk.kick_lowered += sim_lock_kick(&r->sim);
			slots_dyn(r);
			publish(r);
			edges += slot_kicks(r, which[i], monoclock_ns());
		}
	if (k == 0)
		for (i = 0; i < REG_MAX_LOCKS; i++)
			r->slot[i].kicks = 0;
	pthread_mutex_unlock(&r->mu);
	/* after the answers: the application runs before the daemon */
	if (edges > 0)
		(void)!write(r->edgefd, &edges, sizeof(edges));
	return k == 0;
}

/*
 * The model runs on its own every SIM_TICK_NS while a task holds the
 * lock: the demo clients follow their launches through the published
 * history, and the watchdog must notice a silent daemon.  With the lock
 * free nobody waits on the state and the period engine advances the
 * model every period anyway, so 100 wake-ups a second do; 5,000 cost
 * the clients on that CPU about 3 % of it.  Taking the lock or a slot
 * kick wakes the thread at once.
 */
static void *
tick_main(void *arg)
{
	struct regulator	*r = arg;
	uint64_t		t = monoclock_ns(), due, now;
	bool			fine;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&r->mu);
		fine = r->sim.locked || r->sim.cur_kind != SIM_BUDGET_UNREGULATED;
		pthread_mutex_unlock(&r->mu);
		due = t + (fine ? SIM_TICK_NS : SIM_IDLE_NS);
		tick_once(r, due);
		now = monoclock_ns();
		/* woken early: the next tick from now; back from a
		 * suspend: no replayed ticks */
		t = now < due ? now : due;
		if (now > t + 100 * SIM_IDLE_NS)
			t = now;
	}
	return NULL;
}

/* ---- regulator_ops ------------------------------------------------- */

static void sim_close(struct regulator *);

static int
sim_open(struct regulator **out, const struct reg_config *cfg, char *err,
    size_t errlen)
{
	struct regulator	*r;
	struct sched_param	sp;
	unsigned int		i;
	int			e;

	if (cfg->period_ns == 0 || cfg->ncores == 0 ||
	    cfg->ncores > SIM_MAX_CORES) {
		snprintf(err, errlen, "sim: a period and 1..%d cores needed",
		    SIM_MAX_CORES);
		return -EINVAL;
	}
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		snprintf(err, errlen, "sim: out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&r->mu, NULL);
	r->cfg = *cfg;
	r->cfg.device = NULL;
	r->cfg.state_path = NULL;
	for (i = 0; i < REG_MAX_CORES; i++)
		r->static_events[i] = REG_UNLIMITED;
	for (i = 0; i < REG_MAX_LOCKS; i++)
		r->slot[i].sock = -1;
	r->edgefd = -1;
	if ((r->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    (r->edgefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(err, errlen, "sim: eventfd: %s", strerror(errno));
		e = -errno;
		sim_close(r);
		return e;
	}
	if ((e = model_init(r, err, errlen)) < 0 ||
	    (cfg->state_path != NULL &&
	    (e = open_state(r, cfg->state_path, err, errlen)) < 0)) {
		sim_close(r);
		return e;
	}
	r->epoch = monoclock_ns() / cfg->period_ns * cfg->period_ns;
	r->last_beat = monoclock_ns();
	pthread_mutex_lock(&r->mu);
	advance(r);
	pthread_mutex_unlock(&r->mu);
	if ((e = pthread_create(&r->thr, NULL, tick_main, r)) != 0) {
		snprintf(err, errlen, "sim: thread: %s", strerror(e));
		sim_close(r);
		return -e;
	}
	r->thr_on = true;
	/*
	 * The simulated regulator reacts to kicks like the module's
	 * interrupts would, ahead of ordinary threads; without the
	 * privilege it still works, later.
	 */
	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = SIM_TICK_PRIORITY;
	(void)pthread_setschedparam(r->thr, SCHED_FIFO, &sp);
	*out = r;
	return 0;
}

static int
sim_clock(struct regulator *r, uint64_t *period, uint64_t *next)
{
	pthread_mutex_lock(&r->mu);
	advance(r);
	*period = r->sim.period;
	*next = r->epoch + (uint64_t)r->sim.next_boundary;
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static int
sim_apply_plan_ops(struct regulator *r, const struct reg_plan *rp)
{
	struct sim_plan	p;
	unsigned int	j, c;
	int		e;

	if (rp->len < 1 || rp->len > REG_PLAN_MAX)
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	p.first = rp->first;
	p.len = rp->len;
	p.lock_mask = rp->lock_mask;
	memcpy(p.lock_launches, rp->lock_launches, sizeof(p.lock_launches));
	for (j = 0; j < p.len; j++) {
		p.q[j] = -1;
		for (c = 0; c < r->cfg.ncores; c++)
			p.events[j][c] = rp->events[j][c];
	}
	pthread_mutex_lock(&r->mu);
	advance(r);
	/* decided on holders set_static() has since replaced */
	e = rp->gen < r->static_gen ? -ESTALE : sim_apply_plan(&r->sim, &p);
	pthread_mutex_unlock(&r->mu);
	return e;
}

static bool
all_unlimited(const uint64_t *ev, unsigned int n)
{
	unsigned int	i;

	for (i = 0; i < n; i++)
		if (ev[i] != REG_UNLIMITED)
			return false;
	return true;
}

static int
sim_set_static(struct regulator *r, const uint64_t *events, unsigned int n,
    uint64_t gen)
{
	if (n != r->cfg.ncores)
		return -EINVAL;
	pthread_mutex_lock(&r->mu);
	advance(r);
	if (gen > r->static_gen)
		r->static_gen = gen;
	memcpy(r->static_events, events, n * sizeof(*events));
	r->nsets++;
	/* lock state changes act at once, within the current period */
	if (r->failsafe)
		sim_failsafe(&r->sim, 0, 0);
	r->failsafe = false;
	if (all_unlimited(events, n)) {
		sim_unlock(&r->sim);
	} else {
		if (!r->sim.locked)
			wake_thread(r);		/* the fine tick */
		sim_lock(&r->sim, events);
	}
	slots_dyn(r);
	publish(r);
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static int
sim_set_rho(struct regulator *r, double rho)
{
	if (!(rho >= 0))
		return -EINVAL;
	pthread_mutex_lock(&r->mu);
	r->sim.cfg.rho = rho;
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static int
sim_heartbeat(struct regulator *r)
{
	pthread_mutex_lock(&r->mu);
	r->last_beat = monoclock_ns();
	if (r->failsafe) {
		/* back from the fail-safe: the static budget again */
		r->failsafe = false;
		sim_failsafe(&r->sim, 0, 0);
	}
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static int
sim_stats(struct regulator *r, struct reg_stats *s)
{
	const struct sim_core	*c;
	unsigned int		i;

	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&r->mu);
	advance(r);
	s->period = r->sim.period;
	s->ncores = r->cfg.ncores;
	s->plan_id = r->sim.cur_plan;
	s->lock = r->lk;
	for (i = 0; i < s->ncores; i++) {
		c = &r->sim.core[i];
		s->core[i].events = (uint64_t)c->events;
		s->core[i].throttles = c->throttles;
		s->core[i].throttled_ns = (uint64_t)c->throttled_ns;
		/* one choice for all cores: the model counts it once */
		s->core[i].fallbacks = r->sim.stats.fallbacks;
		s->core[i].plan_first = r->sim.stats.plan_first;
		s->core[i].plan_ahead = r->sim.stats.plan_ahead;
		s->core[i].refused = r->sim.stats.refused;
		s->core[i].lock_limited = r->sim.stats.lock_limited;
		s->core[i].unregulated = r->sim.stats.unregulated;
	}
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static void
sim_close(struct regulator *r)
{
	unsigned int	i;

	if (r == NULL)
		return;
	if (r->thr_on) {
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
		wake_thread(r);
		pthread_join(r->thr, NULL);
	}
	for (i = 0; i < REG_MAX_LOCKS; i++)
		slot_free(r, i);
	if (r->wakefd >= 0)
		close(r->wakefd);
	if (r->edgefd >= 0)
		close(r->edgefd);
	if (r->st != NULL) {
		munmap(r->st, BWSIM_STATE_SIZE);
		unlink(r->path);
	}
	sim_free(&r->sim);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

/* ---- lock slots ---------------------------------------------------- */

/* A sealed one-page memfd for the slot, mapped here read-write. */
static int
slot_page(struct bwreg_lock **out, int *fd, char *err, size_t errlen)
{
	void	*m;

	*fd = memfd_create("bwsched-lock", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (*fd < 0 || ftruncate(*fd, SIM_LOCK_PAGE) < 0 ||
	    fcntl(*fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_SEAL) < 0) {
		snprintf(err, errlen, "sim: lock page: %s", strerror(errno));
		goto fail;
	}
	m = mmap(NULL, SIM_LOCK_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
	    *fd, 0);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "sim: lock page: %s", strerror(errno));
		goto fail;
	}
	*out = m;
	return 0;
fail:
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return -EIO;
}

static int
sim_lock_open(struct regulator *r, unsigned int slot, uint64_t events,
    struct reg_lock_files *lf, char *err, size_t errlen)
{
	struct bwreg_lock	*pg;
	int			fd, sv[2];

	if (slot >= REG_MAX_LOCKS) {
		snprintf(err, errlen, "sim: lock slot %u out of range", slot);
		return -EINVAL;
	}
	if (slot_page(&pg, &fd, err, errlen) < 0)
		return -EIO;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, errlen, "sim: kick socket: %s", strerror(errno));
		munmap(pg, SIM_LOCK_PAGE);
		close(fd);
		return -EIO;
	}
	pthread_mutex_lock(&r->mu);
	advance(r);
	slot_free(r, slot);		/* a new file revokes the old one */
	r->slot[slot].page = pg;
	r->slot[slot].sock = sv[0];
	sim_lock_slot(&r->sim, slot, 0, 0);
	sim_lock_slot(&r->sim, slot, 1, events);
	pthread_mutex_unlock(&r->mu);
	wake_thread(r);			/* poll the new socket */
	lf->kind = REG_LOCK_SIM;
	lf->nfds = 2;
	lf->fds[0] = fd;
	lf->fds[1] = sv[1];
	return 0;
}

static int
sim_lock_static(struct regulator *r, unsigned int slot, uint64_t events)
{
	if (slot >= REG_MAX_LOCKS)
		return -EINVAL;
	pthread_mutex_lock(&r->mu);
	if (r->slot[slot].page != NULL)
		sim_lock_slot(&r->sim, slot, 1, events);
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static int
sim_lock_close(struct regulator *r, unsigned int slot)
{
	if (slot >= REG_MAX_LOCKS)
		return -EINVAL;
	pthread_mutex_lock(&r->mu);
	slot_free(r, slot);
	sim_lock_slot(&r->sim, slot, 0, 0);
	pthread_mutex_unlock(&r->mu);
	wake_thread(r);
	return 0;
}

static int
sim_locks(struct regulator *r, struct reg_locks *out)
{
	struct bwreg_lock	*pg;
	unsigned int		i;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&r->mu);
	for (i = 0; i < REG_MAX_LOCKS; i++) {
		if ((pg = r->slot[i].page) == NULL)
			continue;
		out->valid |= 1ull << i;
		if (__atomic_load_n(&pg->held, __ATOMIC_ACQUIRE))
			out->held |= 1ull << i;
		out->launches[i] = __atomic_load_n(&pg->launches,
		    __ATOMIC_ACQUIRE);
	}
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static int
sim_lock_edge_fd(struct regulator *r)
{
	return r->edgefd;
}

int
reg_sim_recorded(struct regulator *r, uint64_t *events, unsigned int n,
    uint64_t *nsets)
{
	if (n > r->cfg.ncores)
		n = r->cfg.ncores;
	pthread_mutex_lock(&r->mu);
	memcpy(events, r->static_events, n * sizeof(*events));
	*nsets = r->nsets;
	pthread_mutex_unlock(&r->mu);
	return (int)n;
}

static int
sim_budgets(struct regulator *r, uint64_t *events, unsigned int n)
{
	unsigned int	i;

	pthread_mutex_lock(&r->mu);
	advance(r);
	if (n > r->cfg.ncores)
		n = r->cfg.ncores;
	for (i = 0; i < n; i++)
		events[i] = r->sim.core[i].budget;
	pthread_mutex_unlock(&r->mu);
	return (int)n;
}

const struct regulator_ops reg_sim_ops = {
	.name = "sim",
	.simulated = true,
	.open = sim_open,
	.clock = sim_clock,
	.apply_plan = sim_apply_plan_ops,
	.set_static = sim_set_static,
	.set_rho = sim_set_rho,
	.heartbeat = sim_heartbeat,
	.stats = sim_stats,
	.budgets = sim_budgets,
	.close = sim_close,
	.lock_open = sim_lock_open,
	.lock_static = sim_lock_static,
	.lock_close = sim_lock_close,
	.locks = sim_locks,
	.lock_edge_fd = sim_lock_edge_fd,
};
