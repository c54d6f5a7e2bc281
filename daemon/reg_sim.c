/*
 * reg_sim.c - the "sim" regulator backend: the simulated platform of
 * DESIGN.md section 5 (sim/sim.h) run in wall-clock time.
 *
 * The model's time 0 is a CLOCK_MONOTONIC instant aligned to the period
 * (like the module's hrtimers), so its period numbers are the ones the
 * engine sees.  Every backend call first advances the model to now, and
 * a small thread advances it every SIM_TICK_NS on its own so the
 * published state never lags by more than that.  The BE cores run the
 * tasks named in $BWSCHED_SIM_TASKS (comma-separated per core: "mem" a
 * memory hog at the core's maximum, "cpu" a compute task, or a number of
 * events per microsecond; default "mem,cpu").  Budgets are enforced on
 * the simulated cores exactly as the module would: apply() for exactly
 * one period, the static budget otherwise (a counted fallback), the
 * fail-safe budget when heartbeats stop.
 *
 * The state is published in a read-only file (bwsimstate.h) at
 * cfg->device when that is set (the daemon passes SOCKET.sim).
 * All entry points take the mutex: the period thread, the event loop and
 * the tick thread all call in.
 */
#define _GNU_SOURCE
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bwsched/bwsimstate.h>

#include "monoclock.h"
#include "reg_sim.h"
#include "sim.h"

#define SIM_TICK_NS	200000ull	/* own advance and publish interval */
#define SIM_IDLE_NS	10000000ull	/* the same while the lock is free */
#define SIM_TASKS_ENV	"BWSCHED_SIM_TASKS"

_Static_assert(BWSIM_HISTORY_OFFSET + sizeof(struct bwsim_history) <=
    BWSIM_STATE_SIZE, "the sim history does not fit the state file");
_Static_assert(sizeof(struct bwsim_state) <= BWSIM_HISTORY_OFFSET,
    "the sim state overlaps its history");

struct regulator {
	pthread_mutex_t		mu;
	struct reg_config	cfg;
	struct sim		sim;
	uint64_t		epoch;		/* model time 0 */
	uint64_t		static_events[REG_MAX_CORES];
	uint64_t		nsets;		/* set_static calls */
	uint64_t		last_beat;	/* ns of the last heartbeat */
	bool			failsafe;	/* heartbeats stopped */
	struct bwsim_state	*st;		/* published page or NULL */
	char			path[256];
	pthread_t		thr;
	pthread_cond_t		wake;		/* lock taken, or stop */
	bool			thr_on;
	int			stop;		/* atomic */
};

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
		uint64_t	fs[SIM_MAX_CORES];
		unsigned int	i;

		for (i = 0; i < r->cfg.ncores; i++)
			fs[i] = r->cfg.failsafe_events;
		sim_lock(&r->sim, fs);
		r->failsafe = true;
	}
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
 * The model runs on its own every SIM_TICK_NS while a task holds the
 * lock: the demo clients follow their launches through the published
 * history, and the watchdog must notice a silent daemon.  With the lock
 * free nobody waits on the state and the period engine advances the
 * model every period anyway, so 100 wake-ups a second do; 5,000 cost
 * the clients on that CPU about 3 % of it.  Taking the lock wakes the
 * thread at once (sim_set_static).
 */
static void *
tick_main(void *arg)
{
	struct regulator	*r = arg;
	struct timespec		ts;
	uint64_t		t = monoclock_ns(), due, now;

	pthread_mutex_lock(&r->mu);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		due = t + (r->sim.locked ? SIM_TICK_NS : SIM_IDLE_NS);
		ts.tv_sec = (time_t)(due / 1000000000u);
		ts.tv_nsec = (long)(due % 1000000000u);
		now = pthread_cond_timedwait(&r->wake, &r->mu, &ts) ==
		    ETIMEDOUT ? 0 : monoclock_ns();
		advance(r);
		/* woken early, or back from a suspend: no replayed ticks */
		t = now != 0 ? now : due;
		if ((now = monoclock_ns()) > t + 100 * SIM_IDLE_NS)
			t = now;
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* ---- regulator_ops ------------------------------------------------- */

static void sim_close(struct regulator *);

static void
wake_init(pthread_cond_t *c)
{
	pthread_condattr_t	a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
}

static int
sim_open(struct regulator **out, const struct reg_config *cfg, char *err,
    size_t errlen)
{
	struct regulator	*r;
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
	wake_init(&r->wake);
	r->cfg = *cfg;
	r->cfg.device = NULL;
	for (i = 0; i < REG_MAX_CORES; i++)
		r->static_events[i] = REG_UNLIMITED;
	if ((e = model_init(r, err, errlen)) < 0 ||
	    (cfg->device != NULL && strncmp(cfg->device, "/dev/", 5) != 0 &&
	    (e = open_state(r, cfg->device, err, errlen)) < 0)) {
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
sim_apply_ops(struct regulator *r, uint64_t period, const uint64_t *events,
    unsigned int n)
{
	int	e;

	if (n != r->cfg.ncores)
		return -EINVAL;
	pthread_mutex_lock(&r->mu);
	advance(r);
	/* refused when that period has already begun (sim_apply) */
	e = sim_apply(&r->sim, period, events);
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
sim_set_static(struct regulator *r, const uint64_t *events, unsigned int n)
{
	if (n != r->cfg.ncores)
		return -EINVAL;
	pthread_mutex_lock(&r->mu);
	advance(r);
	memcpy(r->static_events, events, n * sizeof(*events));
	r->nsets++;
	/* lock state changes act at once, within the current period */
	if (all_unlimited(events, n)) {
		sim_unlock(&r->sim);
	} else {
		if (!r->sim.locked)
			pthread_cond_signal(&r->wake);	/* the fine tick */
		sim_lock(&r->sim, events);
	}
	r->failsafe = false;
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
		if (r->sim.locked)
			sim_lock(&r->sim, r->static_events);
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
	for (i = 0; i < s->ncores; i++) {
		c = &r->sim.core[i];
		s->core[i].events = (uint64_t)c->events;
		s->core[i].throttles = c->throttles;
		s->core[i].throttled_ns = (uint64_t)c->throttled_ns;
		s->core[i].fallbacks = r->sim.stats.fallbacks;
	}
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static void
sim_close(struct regulator *r)
{
	if (r == NULL)
		return;
	if (r->thr_on) {
		pthread_mutex_lock(&r->mu);
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
		pthread_cond_signal(&r->wake);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->thr, NULL);
	}
	if (r->st != NULL) {
		munmap(r->st, BWSIM_STATE_SIZE);
		unlink(r->path);
	}
	sim_free(&r->sim);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->mu);
	free(r);
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

int
reg_sim_budgets(struct regulator *r, uint64_t *events, unsigned int n)
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
	.open = sim_open,
	.clock = sim_clock,
	.apply = sim_apply_ops,
	.set_static = sim_set_static,
	.set_rho = sim_set_rho,
	.heartbeat = sim_heartbeat,
	.stats = sim_stats,
	.close = sim_close,
};
