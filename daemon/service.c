/*
 * service.c - the running daemon (see service.h): configuration, start-up
 * and shutdown, the page poll, signals and timers.
 */
#include <config.h>	/* PACKAGE_VERSION */

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <msgpack.h>

#include <bwsched/bwsimstate.h>

#include "admit.h"
#include "ceiling.h"
#include "engine.h"
#include "lockslot.h"
#include "log.h"
#include "metrics.h"
#include "sd.h"
#include "server.h"
#include "service.h"
#include "wire.h"

/* Page poll: a lock taken through the task page gets the static budget
 * within this; the period engine also polls after every period. */
#define TICK_NS		200000L

/* Keys that need a restart keep their running values on reload. */
static void
keep_restart_keys(const struct config *old, struct config *c)
{
	static const char *const keys[] = { "socket", "regulator",
		"period_ns", "lead_ns", "lead_min_ns", "lead_max_ns",
		"lookahead", "be_cores", "bwmax_events",
		"heartbeat_timeout_ns", "period_thread_priority",
		"period_thread_cpu", "device", "event_type", "event_config" };
	struct config_value	a, b;
	size_t			i;
	char			err[CONFIG_ERR_MAX];

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		config_get(old, keys[i], &a);
		config_get(c, keys[i], &b);
		if (config_value_equal(&a, &b))
			continue;
		log_msg(LOG_L_NOTICE, "reload: %s changes at the next restart",
		    keys[i]);
	}
	c->period_ns = old->period_ns;
	c->lead_ns = old->lead_ns;
	c->lead_min_ns = old->lead_min_ns;
	c->lead_max_ns = old->lead_max_ns;
	c->lookahead = old->lookahead;
	c->ncores = old->ncores;
	memcpy(c->cores, old->cores, sizeof(c->cores));
	c->bwmax_events = old->bwmax_events;
	c->heartbeat_timeout_ns = old->heartbeat_timeout_ns;
	c->period_thread_priority = old->period_thread_priority;
	c->period_thread_cpu = old->period_thread_cpu;
	c->event_type = old->event_type;
	c->event_config = old->event_config;
	memcpy(c->device, old->device, sizeof(c->device));
	memcpy(c->socket, old->socket, sizeof(c->socket));
	memcpy(c->regulator, old->regulator, sizeof(c->regulator));
	if (config_check(c, err, sizeof(err)) < 0)
		log_msg(LOG_L_WARNING, "reload: %s", err);
}

/*
 * Look a configured group up; "" or a missing group leaves *have false
 * (a missing one is logged with what that means).
 */
static void
resolve_one_group(const char *name, const char *what, const char *then,
    gid_t *gid, bool *have)
{
	struct group	*g;

	*have = false;
	if (name[0] == '\0')
		return;
	if ((g = getgrnam(name)) == NULL) {
		log_msg(LOG_L_WARNING, "%s \"%s\" does not exist: %s", what,
		    name, then);
		return;
	}
	*gid = g->gr_gid;
	*have = true;
}

/*
 * The socket group says who may connect; the admin group who may use
 * set and reload.  They are separate so that being allowed to register
 * a task does not make a client an administrator.
 */
static void
resolve_group(struct bwsched *d)
{
	resolve_one_group(d->cfg.group, "socket group",
	    "the socket stays root-only", &d->sock_gid, &d->have_sock_gid);
	resolve_one_group(d->cfg.admin_group, "admin group",
	    "only root may use set and reload", &d->admin_gid,
	    &d->have_admin_gid);
}

static void	metrics_schedule(struct bwsched *);

void
service_config_changed(struct bwsched *d)
{
	log_set_level(d->cfg.log_level);
	resolve_group(d);
	if (d->reg != NULL)
		d->reg_ops->set_rho(d->reg, d->cfg.rho);
	if (d->tasks != NULL)
		tasks_config(d->tasks, &d->cfg);
	engine_config_changed(d->engine, &d->cfg);
	metrics_schedule(d);
}

static int	check_cores(struct config *, char *, size_t);

int
service_load_config(struct bwsched *d, struct config *c, char *err,
    size_t errlen)
{
	config_defaults(c);
	if (config_load(c, d->config_path, d->config_optional, err,
	    errlen) < 0)
		return -1;
	if (d->regulator_name != NULL)
		snprintf(c->regulator, sizeof(c->regulator), "%s",
		    d->regulator_name);
	/* auto: the real one when its device is there */
	d->regulator_auto = strcmp(c->regulator, "auto") == 0;
	if (d->regulator_auto)
		snprintf(c->regulator, sizeof(c->regulator), "%s",
		    regulator_auto(c->device)->name);
	if (regulator_find(c->regulator) == NULL) {
		snprintf(err, errlen, "%s: unknown regulator \"%s\" (auto, "
		    "sim, kmod)", d->regulator_name != NULL ? "--regulator" :
		    d->config_path, c->regulator);
		return -1;
	}
	if (check_cores(c, err, errlen) < 0)
		return -1;
	/* what is in use, for `get socket` */
	if (d->socket_override != NULL) {
		if (strlen(d->socket_override) >= sizeof(c->socket)) {
			snprintf(err, errlen, "socket path too long: %s",
			    d->socket_override);
			return -1;
		}
		snprintf(c->socket, sizeof(c->socket), "%s",
		    d->socket_override);
	}
	return 0;
}

/*
 * A backend that regulates real CPUs (the kernel module): a BE core this
 * machine does not have is a configuration error, unless be_cores is the
 * default (1-3, a 4-core Jetson), which then means the CPUs there are
 * besides 0.  A simulated one (the sim) simulates its cores.
 */
static int
check_cores(struct config *c, char *err, size_t errlen)
{
	long		n = sysconf(_SC_NPROCESSORS_CONF);
	struct config	def;
	unsigned int	i, k;
	bool		is_default;

	if (regulator_find(c->regulator)->simulated || n <= 0)
		return 0;
	config_defaults(&def);
	is_default = c->ncores == def.ncores &&
	    memcmp(c->cores, def.cores, sizeof(c->cores[0]) * c->ncores) == 0;
	for (i = k = 0; i < c->ncores; i++) {
		if (c->cores[i] < n) {
			c->cores[k++] = c->cores[i];
			continue;
		}
		if (is_default)
			continue;
		snprintf(err, errlen, "be_cores: CPU %d does not exist "
		    "(this machine has CPUs 0-%ld)", c->cores[i], n - 1);
		return -1;
	}
	c->ncores = k;
	if (k == 0) {
		snprintf(err, errlen, "be_cores: no best-effort CPU (this "
		    "machine has CPU 0 only)");
		return -1;
	}
	return 0;
}

int
service_reload(struct bwsched *d, char *err, size_t errlen)
{
	struct config	c;
	int		r = 0;

	sd_notifyf_state("RELOADING=1\nMONOTONIC_USEC=%llu",
	    (unsigned long long)(bwsched_now() / 1000));
	if (service_load_config(d, &c, err, errlen) < 0) {
		log_msg(LOG_L_ERR, "reload failed, keeping the old "
		    "configuration: %s", err);
		r = -1;
	} else {
		keep_restart_keys(&d->cfg, &c);
		d->cfg = c;
		service_config_changed(d);
		log_msg(LOG_L_NOTICE, "configuration reloaded");
	}
	sd_notifyf_state("READY=1\nSTATUS=%s", r < 0 ?
	    "serving; last reload failed" : "serving");
	d->status_text[0] = '\0';	/* the counts again at the next check */
	return r;
}

/* What a task's declaration may count for: what it could set itself. */
static int
declared(const struct task *t)
{
	return (int)(t->priority < t->rt_cap ? t->priority : t->rt_cap);
}

/*
 * The ceiling for holder h: a fixed priority from the config, or (auto)
 * the highest priority any registered task declared, each declaration
 * capped at what its task could set itself; then capped at what h could
 * set itself.  So no client gets, through bwsched, a priority its own
 * rights would refuse it, nor raises the ceiling for others beyond them.
 * 0 = off.
 */
static int
ceiling_priority(struct bwsched *d, const struct task *h)
{
	const struct task	*t;
	int			 max = 0;

	if (d->cfg.priority_ceiling >= 0)
		max = (int)d->cfg.priority_ceiling;
	else
		for (t = tasks_first(d->tasks); t != NULL; t = t->next)
			if (declared(t) > max)
				max = declared(t);
	return max < (int)h->rt_cap ? max : (int)h->rt_cap;
}

/*
 * Lock hook: the priority ceiling, then the subscribers' event.  The
 * ceiling's per-thread work runs on its own thread (ceiling.h); its
 * results come back through ceil_async.
 */
static void
lock_changed(void *arg, const struct task *t, bool locked)
{
	struct bwsched	*d = arg;
	int		 prio = locked ? ceiling_priority(d, t) : 0;

	if (!locked || prio > 0)
		ceiling_request(t->pid, t->id, prio);
	server_event_lock(arg, t, locked);
}

/* The ceiling worker's results, logged on the loop. */
static void
ceiling_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct ceiling_result	res;

	while (ceiling_result(&res) == 1) {
		if (res.r < 0)
			log_task(LOG_L_WARNING, res.task, res.pid,
			    "priority ceiling not applied: %s", res.err);
		else if (res.r > 0)
			log_task(LOG_L_DEBUG, res.task, res.pid, "%d thread(s) "
			    "raised to the ceiling priority %d", res.r,
			    res.prio);
	}
}

static void
ceiling_wake(void *arg)
{
	struct bwsched	*d = arg;

	ev_async_send(d->loop, &d->ceil_async);
}

static void
regulator_budget(void *arg, const uint64_t *events, unsigned int n,
    uint64_t gen)
{
	struct bwsched	*d = arg;

	if (d->reg_ops->set_static(d->reg, events, n, gen) < 0)
		log_msg(LOG_L_ERR, "regulator %s refused the static budget",
		    d->reg_ops->name);
	/* the plans are withdrawn: the engine may decide the next again */
	engine_kick(d->engine);
}

/* The sim backend's state page: SOCKET.sim. */
static char	sim_state[CONFIG_MAX_PATH + sizeof(BWSIM_STATE_SUFFIX)];

static int
open_regulator(struct bwsched *d, char *err, size_t errlen)
{
	struct reg_config	rc;
	const struct config	*c = &d->cfg;

	memset(&rc, 0, sizeof(rc));
	rc.period_ns = c->period_ns;
	rc.ncores = c->ncores;
	memcpy(rc.cores, c->cores, sizeof(rc.cores));
	rc.rho = c->rho;
	rc.bwmax_events = c->bwmax_events;
	rc.failsafe_events = (uint64_t)((double)c->bwmax_events *
	    c->failsafe_q / c->ncores);
	rc.heartbeat_timeout_ns = c->heartbeat_timeout_ns;
	rc.device = c->device;
	rc.event_type = (uint32_t)c->event_type;
	rc.event_config = c->event_config;
	/* a simulated backend publishes its state next to the socket */
	snprintf(sim_state, sizeof(sim_state), "%s%s",
	    d->socket_override ? d->socket_override : c->socket,
	    BWSIM_STATE_SUFFIX);
	rc.state_path = sim_state;
	d->reg_ops = regulator_find(c->regulator);
	return d->reg_ops->open(&d->reg, &rc, err, errlen);
}

static void
signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct bwsched	*d = w->data;
	char		err[CONFIG_ERR_MAX];

	if (w->signum == SIGHUP) {
		service_reload(d, err, sizeof(err));
		return;
	}
	log_msg(LOG_L_NOTICE, "signal %d: stopping", w->signum);
	ev_break(loop, EVBREAK_ALL);
}

/*
 * The page poll runs on a timerfd, not an ev_timer: libev sleeps in
 * epoll_wait(), whose timeout is in milliseconds, so a 200 us ev_timer
 * fired about every 1.1 ms and a lock taken through the task page
 * waited that long to be seen (and the period after it ran on the
 * static budget).  A timerfd wakes the loop at the interval asked.
 */
static void
tick_arm(struct bwsched *d, bool on)
{
	struct itimerspec	its;

	memset(&its, 0, sizeof(its));
	if (on)
		its.it_value.tv_nsec = its.it_interval.tv_nsec = TICK_NS;
	if (timerfd_settime(d->tick_fd, 0, &its, NULL) < 0)
		log_msg(LOG_L_ERR, "page poll timer: %s", strerror(errno));
}

/* Read the task pages: locks taken or released, launches made. */
static void
page_poll(struct bwsched *d)
{
	/* the period engine bumps the heartbeat every period */
	tasks_update(d->tasks);
	tasks_count_launches(d->tasks);
}

/*
 * The regulator saw a lock slot kicked: the task page says held, and
 * the engine should know before its next decision, not up to a poll
 * interval later.
 */
static void
lock_edge_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct bwsched	*d = w->data;
	uint64_t	n = 0;

	if (read(w->fd, &n, sizeof(n)) < 0 && errno != EAGAIN) {
		log_msg(LOG_L_ERR, "regulator %s: lock edges unreadable (%s); "
		    "locks are seen at the page poll", d->reg_ops->name,
		    strerror(errno));
		ev_io_stop(loop, w);
		return;
	}
	d->lock_edges_seen += n;
	page_poll(d);
}

static void
tick_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct bwsched	*d = w->data;
	uint64_t	n;

	(void)!read(d->tick_fd, &n, sizeof(n));
	page_poll(d);
	if (tasks_count(d->tasks) == 0 && tasks_buried(d->tasks) == 0) {
		tick_arm(d, false);
		ev_io_stop(loop, w);
	}
}

/*
 * The page poll runs only while there are tasks, or task records still
 * waiting to be freed: an idle daemon should not wake 5,000 times a
 * second, and with no task there is no lock to notice.  A new task also
 * wakes the period engine from its idle sleep.
 */
void
service_poll_tasks(struct bwsched *d)
{
	engine_kick(d->engine);
	if (ev_is_active(&d->tick))
		return;
	tick_arm(d, true);
	ev_io_start(d->loop, &d->tick);
}

static void
watchdog_cb(struct ev_loop *loop, ev_timer *w, int revents)
{

	sd_notifyf_state("WATCHDOG=1");
}

/* STATUS= for systemctl status, sent when it changes (checked each s). */
static void
status_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct bwsched	*d = w->data;
	char		text[sizeof(d->status_text)];

	snprintf(text, sizeof(text), "serving %u client(s), %u task(s), "
	    "%u holding the lock; regulator %s%s", d->npeers,
	    tasks_count(d->tasks), tasks_holders(d->tasks), d->reg_ops->name,
	    d->reg_ops->simulated ? " (BE cores NOT regulated)" : "");
	if (strcmp(text, d->status_text) == 0)
		return;
	memcpy(d->status_text, text, sizeof(text));
	sd_notifyf_state("STATUS=%s", text);
}

/* Rewrite the metrics file; a failure is logged once until it works. */
static void
metrics_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	static bool	failing;
	struct bwsched	*d = w->data;
	char		err[CONFIG_ERR_MAX];

	if (metrics_write(d, d->cfg.metrics_dir, err, sizeof(err)) == 0) {
		failing = false;
		return;
	}
	if (!failing)
		log_msg(LOG_L_WARNING, "%s", err);
	failing = true;
}

/* metrics_dir or metrics_interval_ns changed (or start-up). */
static void
metrics_schedule(struct bwsched *d)
{
	double	iv = (double)d->cfg.metrics_interval_ns / 1e9;

	if (d->loop == NULL || d->metrics_w.data == NULL)
		return;		/* before start_watchers() */
	ev_timer_stop(d->loop, &d->metrics_w);
	if (d->cfg.metrics_dir[0] == '\0')
		return;
	/* the first file at once, so a scraper never sees none */
	ev_timer_set(&d->metrics_w, 0, iv);
	ev_timer_start(d->loop, &d->metrics_w);
}

static void
start_watchers(struct bwsched *d)
{
	uint64_t	wd = sd_watchdog_interval();
	ev_signal	*s[] = { &d->sig_int, &d->sig_term, &d->sig_hup };
	int		sig[] = { SIGINT, SIGTERM, SIGHUP };
	int		i, fd;

	for (i = 0; i < 3; i++) {
		ev_signal_init(s[i], signal_cb, sig[i]);
		s[i]->data = d;
		ev_signal_start(d->loop, s[i]);
	}
	ev_io_init(&d->tick, tick_cb, d->tick_fd, EV_READ);
	d->tick.data = d;	/* started by the first task.register */
	if (d->reg_ops->lock_edge_fd != NULL &&
	    (fd = d->reg_ops->lock_edge_fd(d->reg)) >= 0) {
		ev_io_init(&d->lock_edge, lock_edge_cb, fd, EV_READ);
		d->lock_edge.data = d;
		ev_io_start(d->loop, &d->lock_edge);
	}
	ev_timer_init(&d->metrics_w, metrics_cb, 0, 1);
	d->metrics_w.data = d;
	metrics_schedule(d);
	ev_timer_init(&d->status_w, status_cb, 1, 1);
	d->status_w.data = d;
	ev_timer_start(d->loop, &d->status_w);
	if (wd > 0) {
		ev_timer_init(&d->watchdog, watchdog_cb, 0, wd / 2e6);
		d->watchdog.data = d;
		ev_timer_start(d->loop, &d->watchdog);
	}
}

int
service_start(struct bwsched *d, bool fg)
{
	struct tasks_hooks	h = { d, lock_changed, regulator_budget,
				    server_event_kernel, lockslot_hook };
	char			err[CONFIG_ERR_MAX];

	if (!fg && daemon(0, 0) < 0) {
		fprintf(stderr, "bwsched: daemon: %s\n", strerror(errno));
		return -1;
	}
	log_init(fg);
	log_set_level(d->cfg.log_level);
	resolve_group(d);
	d->loop = ev_default_loop(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
	d->rbuf = malloc(BWP_RECV_BUF);
	d->zone = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
	d->tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
	    TFD_CLOEXEC);
	if (d->loop == NULL || d->rbuf == NULL || d->zone == NULL ||
	    d->tick_fd < 0) {
		log_msg(LOG_L_ERR, "cannot set up the event loop%s%s",
		    d->tick_fd < 0 ? ": timerfd: " : "",
		    d->tick_fd < 0 ? strerror(errno) : "");
		return -1;
	}
	/* the socket first: its directory also holds the sim's state */
	if ((d->tasks = tasks_new(&d->cfg, &h)) == NULL ||
	    server_open(d, err, sizeof(err)) < 0) {
		log_msg(LOG_L_ERR, "%s", d->tasks ? err : "out of memory");
		return -1;
	}
	admit_publish(tasks_admit(d->tasks), d->socket_path); /* SOCKET.gpu */
	if (open_regulator(d, err, sizeof(err)) < 0) {
		log_msg(LOG_L_ERR, "regulator %s: %s", d->cfg.regulator, err);
		return -1;
	}
	if (d->reg_ops->simulated)
		log_msg(d->regulator_auto ? LOG_L_WARNING : LOG_L_NOTICE,
		    "regulator sim: the best-effort cores are SIMULATED, not "
		    "regulated%s", d->regulator_auto ? " (no regulator "
		    "device: load bwreg.ko, or set regulator = sim to say "
		    "this is meant)" : "");
	tasks_update(d->tasks);	/* hands the unregulated budget over */
	if ((d->engine = engine_start(d, err, sizeof(err))) == NULL) {
		log_msg(LOG_L_ERR, "%s", err);
		return -1;
	}
	ev_async_init(&d->ceil_async, ceiling_cb);
	d->ceil_async.data = d;
	ev_async_start(d->loop, &d->ceil_async);
	if (ceiling_start(ceiling_wake, d, err, sizeof(err)) < 0) {
		log_msg(LOG_L_ERR, "%s", err);
		return -1;
	}
	log_set_hook(server_event_log, d);
	start_watchers(d);
	return 0;
}

void
service_run(struct bwsched *d)
{
	log_msg(LOG_L_NOTICE, "bwsched %s serving on %s (regulator %s)",
	    PACKAGE_VERSION, d->activated ? "the activated socket" :
	    d->socket_path, d->reg_ops->name);
	sd_notifyf_state("READY=1\nSTATUS=serving, regulator %s",
	    d->reg_ops->name);
	ev_run(d->loop, 0);
	sd_notifyf_state("STOPPING=1");
}

void
service_stop(struct bwsched *d)
{
	char	path[CONFIG_MAX_PATH + 32];

	log_set_hook(NULL, NULL);
	/* stale numbers would read as a live daemon: none is better */
	if (d->metrics_w.data != NULL && d->cfg.metrics_dir[0] != '\0') {
		snprintf(path, sizeof(path), "%s/%s", d->cfg.metrics_dir,
		    METRICS_FILE);
		unlink(path);
	}
	/* the period thread reads pages and calls the regulator: first */
	engine_stop(d->engine);
	d->engine = NULL;
	if (d->loop != NULL)
		server_close(d);
	ceiling_stop();
	tasks_free(d->tasks);
	if (d->loop != NULL && ev_is_active(&d->lock_edge))
		ev_io_stop(d->loop, &d->lock_edge);
	if (d->reg != NULL)
		d->reg_ops->close(d->reg);
	if (d->tick_fd >= 0)
		close(d->tick_fd);
	d->tick_fd = -1;
	free(d->rbuf);
	if (d->zone != NULL)
		msgpack_zone_free(d->zone);
}
