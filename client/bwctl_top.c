/*
 * bwctl_top.c - `bwctl top` and `bwctl trace` (bwctl(8)).
 *
 * top subscribes to "period" and "kernel" events and asks for status,
 * tasks, kernels and rho once per refresh; between refreshes it folds
 * every period record into the view (Q over the last interval, the
 * running kernels' progress) and keeps the last finished launches.  The
 * screen is redrawn with plain ANSI escapes; --once and --iterations N
 * print snapshots without escapes, for scripts.  trace prints one line
 * (or CSV row) per period record.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bwctl_top.h"
#include "bwproto.h"
#include "human.h"
#include "msg.h"
#include "wire.h"
#include "monoclock.h"

#define EX_OK		0
#define EX_DAEMON	1
#define EX_USAGE	2
#define EX_CONNECT	3
#define MAX_RUNNING	16
#define MAX_RECENT	6
#define MAX_CORES	64

struct conn {
	int		fd;
	uint64_t	next_id;
	uint8_t		*buf;		/* receive buffer */
	size_t		len;		/* of the last message in buf */
	uint8_t		*keep[4];	/* replies kept while we ask on */
};

/* ---- msgpack helpers ---------------------------------------------- */

/* map[key], or NULL */
static const msgpack_object *
get(const msgpack_object *map, const char *key)
{
	return bwp_msg_find(NULL, map, key);
}

static double
num(const msgpack_object *map, const char *key, double dflt)
{
	const msgpack_object	*o = get(map, key);

	if (o == NULL)
		return dflt;
	switch (o->type) {
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		return (double)o->via.u64;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return (double)o->via.i64;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		return o->via.f64;
	case MSGPACK_OBJECT_BOOLEAN:
		return o->via.boolean;
	default:
		return dflt;
	}
}

static void
str(const msgpack_object *map, const char *key, char *out, size_t len)
{
	const msgpack_object	*o = get(map, key);

	out[0] = '\0';
	if (o != NULL && o->type == MSGPACK_OBJECT_STR)
		snprintf(out, len, "%.*s", (int)o->via.str.size,
		    o->via.str.ptr);
}

static const msgpack_object_array *
arr(const msgpack_object *map, const char *key)
{
	const msgpack_object	*o = get(map, key);

	return o != NULL && o->type == MSGPACK_OBJECT_ARRAY ? &o->via.array :
	    NULL;
}

/* ---- connection --------------------------------------------------- */

static int
fail(const char *what, int code)
{
	fprintf(stderr, "bwctl: %s\n", what);
	return code;
}

static int
conn_send(struct conn *c, struct bwp_writer *w)
{
	size_t		 len;
	const void	*b = bwp_w_finish(w, &len);

	if (b == NULL)
		return -ENOMEM;
	return bwp_wire_send(c->fd, b, len, NULL, 0, 0);
}

/* One message within timeout_ms (-1: wait); 1, 0 on timeout, < 0 error. */
static int
conn_recv(struct conn *c, struct bwp_msg *m, int timeout_ms)
{
	struct pollfd	pfd = { c->fd, POLLIN, 0 };
	struct bwp_recv	r;
	int		rc;

	rc = poll(&pfd, 1, timeout_ms);
	if (rc <= 0)
		return rc < 0 && errno != EINTR ? -errno : 0;
	rc = bwp_wire_recv(c->fd, c->buf, BWP_RECV_BUF, &r, 0);
	if (rc <= 0)
		return rc == 0 ? -EPIPE : rc;
	bwp_wire_close_fds(&r);
	c->len = r.len;
	bwp_msg_init(m);
	if (r.toobig || bwp_msg_parse(m, c->buf, r.len) != BWP_OK) {
		bwp_msg_free(m);
		return -EPROTO;
	}
	return 1;
}

typedef void	(*event_fn)(void *, const msgpack_object *);

/*
 * Send a request and wait for its reply; events go to ev meanwhile.
 * The reply's strings point into the buffer it was parsed from, so it
 * is parsed again from its own copy in keep (NULL: the receive buffer,
 * valid until the next receive).
 */
static int
conn_call(struct conn *c, struct bwp_writer *w, uint64_t id,
    struct bwp_msg *reply, event_fn ev, void *arg, uint8_t *keep)
{
	int	rc;

	if ((rc = conn_send(c, w)) < 0)
		return rc;
	for (;;) {
		if ((rc = conn_recv(c, reply, -1)) < 0)
			return rc;
		if (rc == 0)
			continue;
		if (get(reply->map, BWP_K_EVENT) != NULL) {
			if (ev != NULL)
				ev(arg, reply->map);
			bwp_msg_free(reply);
			continue;
		}
		if (num(reply->map, BWP_K_ID, -1) == (double)id)
			break;
		bwp_msg_free(reply);
	}
	if (num(reply->map, BWP_K_STATUS, -1) != 0) {
		char	e[BWP_ERR_MAX];

		str(reply->map, BWP_K_ERROR, e, sizeof(e));
		fprintf(stderr, "bwctl: %s\n", e);
		bwp_msg_free(reply);
		return -EINVAL;
	}
	if (keep == NULL)
		return 0;
	bwp_msg_free(reply);
	memcpy(keep, c->buf, c->len);
	bwp_msg_init(reply);
	return bwp_msg_parse(reply, keep, c->len) == BWP_OK ? 0 : -EPROTO;
}

/* A request with no arguments but an optional key/value string. */
static int
simple(struct conn *c, enum bwp_op op, const char *key, const char *val,
    struct bwp_msg *reply, event_fn ev, void *arg, uint8_t *keep)
{
	struct bwp_writer	w;
	uint64_t		id = c->next_id++;
	int			rc;

	bwp_w_init(&w);
	bwp_w_request(&w, id, op);
	if (key != NULL)
		bwp_w_kstr(&w, key, val);
	rc = conn_call(c, &w, id, reply, ev, arg, keep);
	bwp_w_free(&w);
	return rc;
}

static int
conn_open(struct conn *c, const char *path, const char *topics[],
    int ntopics)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id;
	int			i, rc;

	c->next_id = 1;
	c->buf = malloc(BWP_RECV_BUF);
	for (i = 0; i < 4; i++)
		c->keep[i] = malloc(BWP_RECV_BUF);
	if (c->buf == NULL || c->keep[3] == NULL)
		return -ENOMEM;
	if ((c->fd = bwp_wire_connect(path)) < 0)
		return c->fd;
	bwp_w_init(&w);
	bwp_w_request(&w, id = c->next_id++, BWP_OP_HELLO);
	bwp_w_kuint(&w, "pid", (uint64_t)getpid());
	bwp_w_kstr(&w, "name", "bwctl");
	rc = conn_call(c, &w, id, &m, NULL, NULL, NULL);
	bwp_w_free(&w);
	if (rc < 0)
		return rc;
	bwp_msg_free(&m);
	bwp_w_init(&w);
	bwp_w_request(&w, id = c->next_id++, BWP_OP_SUBSCRIBE);
	bwp_w_key(&w, "topics");
	bwp_w_array(&w, (uint32_t)ntopics);
	for (i = 0; i < ntopics; i++)
		bwp_w_str(&w, topics[i]);
	rc = conn_call(c, &w, id, &m, NULL, NULL, NULL);
	bwp_w_free(&w);
	if (rc == 0)
		bwp_msg_free(&m);
	return rc;
}

/* conn_open() failed with rc: say where and why; the exit code. */
static int
open_failed(const char *cmd, const char *path, int rc)
{
	fprintf(stderr, "bwctl: %s: cannot connect to %s: %s\n", cmd, path,
	    strerror(-rc));
	return rc == -ENAMETOOLONG ? EX_USAGE : EX_CONNECT;
}

static void
conn_close(struct conn *c)
{
	int	i;

	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	for (i = 0; i < 4; i++)
		free(c->keep[i]);
}

/* ---- top ---------------------------------------------------------- */

struct running {
	unsigned int	task, kernel, slot;
	double		blocks, remaining, t_left, q;
};

struct recent {
	unsigned int	task, kernel;
	char		name[64];
	double		periods, late, q_mean, actual, actual_min, bound;
	char		met[8];
};

struct view {
	/* folded from period events since the last refresh */
	double		q, q_static, q_sum, q_min, q_max;
	unsigned long	nrec, nheld, late;
	double		period, holders, budget0;
	double		counted_period, counted_q;	/* the last counted */
	struct running	run[MAX_RUNNING];
	unsigned int	nrun;
	/* the last period with the lock held: regulation in action even
	 * when the refresh falls between two launches */
	double		held_period, held_budget[MAX_CORES];
	unsigned int	held_ncores;
	struct running	last_run[MAX_RUNNING];
	unsigned int	nlast;
	double		last_run_period;
	struct recent	rec[MAX_RECENT];
	unsigned int	nrecent;
};

static void	fold_kernels(struct view *, const msgpack_object *);

static void
fold_held(struct view *v, const msgpack_object *ev)
{
	const msgpack_object_array	*b = arr(ev, "budgets");
	uint32_t			i;

	v->held_period = v->period;
	v->held_ncores = 0;
	for (i = 0; b != NULL && i < b->size && i < MAX_CORES; i++) {
		v->held_budget[i] = b->ptr[i].type ==
		    MSGPACK_OBJECT_POSITIVE_INTEGER ? (double)b->ptr[i].via.u64 :
		    0;
		v->held_ncores++;
	}
}

static void
fold_period(struct view *v, const msgpack_object *ev)
{
	double	q = num(ev, "q", -1);
	bool	again;

	v->q = q;
	v->q_static = num(ev, "q_static", -1);
	v->period = num(ev, "period", 0);
	v->holders = num(ev, "holders", 0);
	fold_kernels(v, ev);
	if (v->nrun > 0) {
		memcpy(v->last_run, v->run, v->nrun * sizeof(v->run[0]));
		v->nlast = v->nrun;
		v->last_run_period = v->period;
	}
	/* decided again: the same period, counted once, with the new Q */
	again = num(ev, "again", 0) != 0 && v->nrec > 0 &&
	    v->counted_period == v->period;
	if (!again) {
		v->late += num(ev, "late", 0) != 0;
		v->nrec++;
	}
	if (q >= 0) {
		fold_held(v, ev);
		/* Q statistics over the periods the lock was held */
		if (v->nheld == 0 || q < v->q_min)
			v->q_min = q;
		if (v->nheld == 0 || q > v->q_max)
			v->q_max = q;
		if (again && v->counted_q >= 0) {
			v->q_sum += q - v->counted_q;
		} else {
			v->q_sum += q;
			v->nheld++;
		}
	} else if (again && v->counted_q >= 0) {
		/* no longer held: that period leaves the Q statistics */
		v->q_sum -= v->counted_q;
		v->nheld--;
	}
	v->counted_period = v->period;
	v->counted_q = q;
}

static void
fold_kernels(struct view *v, const msgpack_object *ev)
{
	const msgpack_object_array	*ks = arr(ev, "kernels");
	uint32_t			i;

	v->nrun = 0;
	for (i = 0; ks != NULL && i < ks->size && v->nrun < MAX_RUNNING; i++) {
		struct running	*r = &v->run[v->nrun++];

		r->task = (unsigned int)num(&ks->ptr[i], "task", 0);
		r->kernel = (unsigned int)num(&ks->ptr[i], "kernel", 0);
		r->slot = (unsigned int)num(&ks->ptr[i], "slot", 0);
		r->blocks = num(&ks->ptr[i], "blocks", 0);
		r->remaining = num(&ks->ptr[i], "remaining", 0);
		r->t_left = num(&ks->ptr[i], "t_remaining_ns", 0);
		r->q = num(&ks->ptr[i], "q", 0);
	}
}

static void
fold_kernel(struct view *v, const msgpack_object *ev)
{
	struct recent	*r;

	if (get(ev, "periods") == NULL)
		return;		/* a socket start/end, not a launch record */
	if (v->nrecent == MAX_RECENT) {
		memmove(v->rec, v->rec + 1, (MAX_RECENT - 1) * sizeof(*r));
		v->nrecent--;
	}
	r = &v->rec[v->nrecent++];
	r->task = (unsigned int)num(ev, "task", 0);
	r->kernel = (unsigned int)num(ev, "kernel", 0);
	str(ev, "name", r->name, sizeof(r->name));
	r->periods = num(ev, "periods", 0);
	r->late = num(ev, "late_periods", 0);
	r->q_mean = num(ev, "q_mean", 0);
	r->actual = num(ev, "actual_ns", 0);
	r->actual_min = num(ev, "actual_min_ns", 0);
	r->bound = num(ev, "bound_ns", 0);
	str(ev, "bound_met", r->met, sizeof(r->met));
}

static void
on_event(void *arg, const msgpack_object *ev)
{
	struct view	*v = arg;
	char		what[16];

	str(ev, BWP_K_EVENT, what, sizeof(what));
	if (strcmp(what, "period") == 0)
		fold_period(v, ev);
	else if (strcmp(what, "kernel") == 0)
		fold_kernel(v, ev);
}

static void
show_head(const msgpack_object *st, const char *rho, const struct view *v)
{
	char	ver[32], reg[16], pol[16], q[16], qs[16], mn[16], mx[16];
	char	t[24], l[24], p50[24], p99[24], pmax[24], cost[24];
	double	dec = num(st, "decided", 0);

	str(st, "version", ver, sizeof(ver));
	str(st, "regulator", reg, sizeof(reg));
	str(st, "policy", pol, sizeof(pol));
	printf("bwsched %s  regulator %s  policy %s  period %s  lead %s"
	    "  TFS rho %s  up %.1f s\n", ver, reg, pol,
	    human_ns(num(st, "period_ns", 0), t, sizeof(t)),
	    human_ns(num(st, "lead_ns", 0), l, sizeof(l)), rho,
	    num(st, "uptime_ns", 0) / 1e9);
	human_q(v->nrec ? v->q : num(st, "q", -1), q, sizeof(q));
	human_q(v->q_static, qs, sizeof(qs));
	human_q(v->q_min, mn, sizeof(mn));
	human_q(v->q_max, mx, sizeof(mx));
	printf("period %.0f  Q %s  static %s  holders %.0f  (last %lu "
	    "periods: %lu held, Q mean %.4f min %s max %s)\n", v->period, q,
	    qs, v->holders, v->nrec, v->nheld, v->nheld ? v->q_sum /
	    (double)v->nheld : 0.0, v->nheld ? mn : "-", v->nheld ? mx : "-");
	printf("late %.0f of %.0f (%.2f%%)  lateness p50 %s p99 %s "
	    "max %s  fallbacks %.0f  cost p50 %s  %s\n",
	    num(st, "late", 0), dec, dec > 0 ? 100 * num(st, "late", 0) /
	    dec : 0.0, human_ns(num(st, "lateness_p50_ns", 0), p50,
	    sizeof(p50)), human_ns(num(st, "lateness_p99_ns", 0), p99,
	    sizeof(p99)), human_ns(num(st, "lateness_max_ns", 0), pmax,
	    sizeof(pmax)), num(st, "fallbacks", 0),
	    human_ns(num(st, "cost_p50_ns", 0), cost, sizeof(cost)),
	    num(st, "realtime", 0) ? "SCHED_FIFO" : "not real-time");
}

static const char *
budget_text(double b, char *buf, size_t len)
{
	if (b >= 1.8e19)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%.0f", b);
	return buf;
}

/*
 * Each core's budget now, and in the last period with the lock held
 * (events per period, and what that allows in MB/s): a refresh that
 * falls between two launches still shows what regulation did.
 */
static void
show_cores(const msgpack_object *st, const struct view *v)
{
	const msgpack_object_array	*c = arr(st, "cores");
	double				T = num(st, "period_ns", 0);
	uint32_t			i;
	char				now[24], held[24], mb[24], thr[24];

	printf("\n%-5s %12s %12s %14s %14s %10s %12s\n", "CORE", "BUDGET_NOW",
	    "WHILE_HELD", "HELD_MB/S", "EVENTS", "THROTTLES", "THROTTLED");
	for (i = 0; c != NULL && i < c->size; i++) {
		budget_text(num(&c->ptr[i], "budget", 0), now, sizeof(now));
		if (i < v->held_ncores) {
			budget_text(v->held_budget[i], held, sizeof(held));
			if (v->held_budget[i] >= 1.8e19)
				snprintf(mb, sizeof(mb), "-");
			else
				human_mbps(v->held_budget[i], T, mb,
				    sizeof(mb));
		} else {
			snprintf(held, sizeof(held), "-");
			snprintf(mb, sizeof(mb), "-");
		}
		printf("%-5.0f %12s %12s %14s %14.0f %10.0f %12s\n",
		    num(&c->ptr[i], "cpu", 0), now, held, mb,
		    num(&c->ptr[i], "events", 0),
		    num(&c->ptr[i], "throttles", 0),
		    human_ns(num(&c->ptr[i], "throttled_ns", 0), thr,
		    sizeof(thr)));
	}
	if (v->held_ncores > 0)
		printf("(WHILE_HELD: period %.0f, the last with the lock "
		    "held; %d bytes an event)\n", v->held_period,
		    HUMAN_EVENT_BYTES);
	else
		printf("(no period with the lock held since top started)\n");
}

static void
show_tasks(const msgpack_object *tasks)
{
	const msgpack_object_array	*t = arr(tasks, "tasks");
	uint32_t			i;
	char				name[64];

	printf("\n%-5s %-8s %-16s %-6s %-7s %-7s\n", "TASK", "PID", "NAME",
	    "LOCK", "STREAMS", "KERNELS");
	for (i = 0; t != NULL && i < t->size; i++) {
		str(&t->ptr[i], "name", name, sizeof(name));
		printf("%-5.0f %-8.0f %-16s %-6s %-7.0f %-7.0f\n",
		    num(&t->ptr[i], "task", 0), num(&t->ptr[i], "pid", 0),
		    name, num(&t->ptr[i], "locked", 0) ? "held" : "-",
		    num(&t->ptr[i], "streams", 0),
		    num(&t->ptr[i], "kernels", 0));
	}
}

static void
kernel_name(const msgpack_object *kernels, unsigned int task,
    unsigned int kernel, char *out, size_t len)
{
	const msgpack_object_array	*k = arr(kernels, "kernels");
	uint32_t			i;

	snprintf(out, len, "%u", kernel);
	for (i = 0; k != NULL && i < k->size; i++)
		if (num(&k->ptr[i], "task", 0) == task &&
		    num(&k->ptr[i], "kernel", 0) == kernel)
			str(&k->ptr[i], "name", out, len);
}

static void
show_run_rows(const struct running *run, unsigned int n,
    const msgpack_object *kernels)
{
	char		bar[21], name[64], left[24];
	unsigned int	i, j, fill;
	double		done;

	for (i = 0; i < n; i++) {
		const struct running	*r = &run[i];

		done = r->blocks > 0 ? 1 - r->remaining / r->blocks : 0;
		fill = (unsigned int)(done * 20 + 0.5);
		for (j = 0; j < 20; j++)
			bar[j] = j < fill ? '#' : '.';
		bar[20] = '\0';
		kernel_name(kernels, r->task, r->kernel, name, sizeof(name));
		printf("%-5u %-16s %-4u [%s] %7.0f/%-8.0f %10s %7.4f\n",
		    r->task, name, r->slot, bar, r->blocks - r->remaining,
		    r->blocks, human_ns(r->t_left, left, sizeof(left)), r->q);
	}
}

static void
show_running(const struct view *v, const msgpack_object *kernels)
{
	printf("\n%-5s %-16s %-4s %-22s %-16s %10s %7s\n", "TASK", "KERNEL",
	    "SLOT", "PROGRESS", "BLOCKS", "LEFT", "Q");
	if (v->nrun > 0) {
		show_run_rows(v->run, v->nrun, kernels);
	} else if (v->nlast > 0) {
		printf("(none running now; the last seen, in period %.0f:)\n",
		    v->last_run_period);
		show_run_rows(v->last_run, v->nlast, kernels);
	} else {
		printf("(no instrumented kernel seen running)\n");
	}
}

static void
show_recent(const struct view *v)
{
	unsigned int	i;
	char		b[24];

	/* the daemon sees a launch end within one period: a window */
	printf("\n%-5s %-16s %8s %8s %20s %10s %7s\n", "TASK", "LAUNCH OF",
	    "PERIODS", "Q_MEAN", "ENDED (ms)", "BOUND", "MET");
	for (i = 0; i < v->nrecent; i++)
		printf("%-5u %-16s %8.0f %8.4f %9.3f..%-9.3f %10s %7s\n",
		    v->rec[i].task, v->rec[i].name, v->rec[i].periods,
		    v->rec[i].q_mean, v->rec[i].actual_min / 1e6,
		    v->rec[i].actual / 1e6, human_ns(v->rec[i].bound, b,
		    sizeof(b)), v->rec[i].met);
}

/* Ask for status, tasks, kernels and rho, and draw one screen. */
static int
refresh(struct conn *c, struct view *v, bool ansi)
{
	struct bwp_msg	st, tk, kn, rh;
	char		rho[32];
	int		rc;

	if ((rc = simple(c, BWP_OP_STATUS, NULL, NULL, &st, on_event, v,
	    c->keep[0])) < 0)
		return rc;
	if ((rc = simple(c, BWP_OP_TASKS, NULL, NULL, &tk, on_event, v,
	    c->keep[1])) < 0) {
		bwp_msg_free(&st);
		return rc;
	}
	if ((rc = simple(c, BWP_OP_KERNELS, NULL, NULL, &kn, on_event, v,
	    c->keep[2])) < 0) {
		bwp_msg_free(&st);
		bwp_msg_free(&tk);
		return rc;
	}
	snprintf(rho, sizeof(rho), "?");
	if (simple(c, BWP_OP_GET, "key", "rho", &rh, on_event, v,
	    c->keep[3]) == 0) {
		snprintf(rho, sizeof(rho), "%.2f", num(rh.map, "value", -1));
		bwp_msg_free(&rh);
	}
	if (ansi)
		fputs("\033[H\033[2J", stdout);
	show_head(st.map, rho, v);
	show_cores(st.map, v);
	show_tasks(tk.map);
	show_running(v, kn.map);
	show_recent(v);
	fflush(stdout);
	bwp_msg_free(&st);
	bwp_msg_free(&tk);
	bwp_msg_free(&kn);
	return 0;
}

static uint64_t
mono_ms(void)
{
	return monoclock_ns() / 1000000;
}

/* Fold events for interval_ms. */
static int
collect(struct conn *c, struct view *v, uint64_t interval_ms)
{
	struct bwp_msg	m;
	uint64_t	end = mono_ms() + interval_ms, t;
	int		rc;

	v->nrec = v->nheld = 0;
	v->q_sum = 0;
	while ((t = mono_ms()) < end) {
		rc = conn_recv(c, &m, (int)(end - t));
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		if (get(m.map, BWP_K_EVENT) != NULL)
			on_event(v, m.map);
		bwp_msg_free(&m);
	}
	return 0;
}

int
bwctl_top(const char *path, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "once", no_argument, NULL, '1' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 } };
	static const char *topics[] = { "period", "kernel" };
	struct view	v;
	struct conn	c = { .fd = -1 };
	long		iters = -1, i;
	double		interval = 1;
	int		o, rc = 0;

	optind = 0;	/* GNU: start over on our arguments */
	while ((o = getopt_long(argc + 1, argv - 1, "", lo, NULL)) != -1) {
		if (o == '1')
			iters = 1;
		else if (o == 'n')
			iters = strtol(optarg, NULL, 10);
		else if (o == 'd')
			interval = atof(optarg);
		else
			return fail("usage: top [--once] [--iterations N] "
			    "[--interval SECONDS]", EX_USAGE);
	}
	if (iters == 0 || !(interval >= 0.1 && interval <= 60))
		return fail("top: bad --iterations or --interval", EX_USAGE);
	memset(&v, 0, sizeof(v));
	if ((rc = conn_open(&c, path, topics, 2)) < 0) {
		conn_close(&c);
		return open_failed("top", path, rc);
	}
	for (i = 0; iters < 0 || i < iters; i++) {
		if (collect(&c, &v, (uint64_t)(interval * 1000)) < 0 ||
		    refresh(&c, &v, iters < 0) < 0) {
			rc = fail("top: the daemon went away", EX_CONNECT);
			break;
		}
		if (iters != 1 && iters >= 0 && i + 1 < iters)
			printf("\n");
	}
	conn_close(&c);
	return rc;
}

/* ---- trace -------------------------------------------------------- */

static void
trace_line(const msgpack_object *ev, bool csv)
{
	const msgpack_object_array	*b = arr(ev, "budgets");
	const msgpack_object_array	*k = arr(ev, "kernels");
	double				rem = 0;
	uint32_t			i;
	char				q[16], qs[16], late[24], cost[24];

	for (i = 0; k != NULL && i < k->size; i++)
		rem += num(&k->ptr[i], "remaining", 0);
	if (csv) {
		printf("%.0f,%.0f,%.6f,%.6f,%.0f,%d,%.0f,%.0f,%.0f,%u,%.0f,%d\n",
		    num(ev, "period", 0), num(ev, "ts_ns", 0),
		    num(ev, "q", -1), num(ev, "q_static", -1),
		    num(ev, "holders", 0), num(ev, "late", 0) != 0,
		    num(ev, "late_ns", 0), num(ev, "cost_ns", 0),
		    b != NULL && b->size > 0 && b->ptr[0].type ==
		    MSGPACK_OBJECT_POSITIVE_INTEGER && b->ptr[0].via.u64 !=
		    UINT64_MAX ? (double)b->ptr[0].via.u64 : -1.0,
		    k != NULL ? k->size : 0, rem, num(ev, "again", 0) != 0);
		return;
	}
	printf("period %.0f  Q %s  static %s  holders %.0f  %s  "
	    "woke +%s  cost %s  kernels %u  blocks left %.0f\n",
	    num(ev, "period", 0), human_q(num(ev, "q", -1), q, sizeof(q)),
	    human_q(num(ev, "q_static", -1), qs, sizeof(qs)),
	    num(ev, "holders", 0), num(ev, "again", 0) ? "AGAIN" :
	    num(ev, "late", 0) ? "LATE" : "in time",
	    human_ns(num(ev, "late_ns", 0), late, sizeof(late)),
	    human_ns(num(ev, "cost_ns", 0), cost, sizeof(cost)),
	    k != NULL ? k->size : 0, rem);
}

int
bwctl_trace(const char *path, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "count", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 } };
	static const char *topics[] = { "period" };
	struct conn	c = { .fd = -1 };
	struct bwp_msg	m;
	bool		csv = false;
	long		count = -1, n = 0;
	char		what[16];
	int		o, rc = EX_OK;

	optind = 0;
	while ((o = getopt_long(argc + 1, argv - 1, "", lo, NULL)) != -1) {
		if (o == 'c')
			csv = true;
		else if (o == 'n' && (count = strtol(optarg, NULL, 10)) > 0)
			continue;
		else
			return fail("usage: trace [--csv] [--count N]",
			    EX_USAGE);
	}
	if ((rc = conn_open(&c, path, topics, 1)) < 0) {
		conn_close(&c);
		return open_failed("trace", path, rc);
	}
	if (csv)
		printf("period,ts_ns,q,q_static,holders,late,late_ns,cost_ns,"
		    "budget_per_core,kernels,remaining_blocks,again\n");
	while (count < 0 || n < count) {
		if ((o = conn_recv(&c, &m, -1)) < 0) {
			rc = fail("trace: the daemon went away", EX_CONNECT);
			break;
		}
		if (o == 0)
			continue;	/* interrupted */
		str(m.map, BWP_K_EVENT, what, sizeof(what));
		if (strcmp(what, "period") == 0) {
			trace_line(m.map, csv);
			fflush(stdout);	/* a pipe reader sees it now */
			n++;
		}
		bwp_msg_free(&m);
	}
	fflush(stdout);
	conn_close(&c);
	return rc;
}
