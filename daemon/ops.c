/*
 * ops.c - per-op handlers (see ops.h and doc/protocol.md).
 */
#include <config.h>	/* PACKAGE_VERSION */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admit.h"
#include "engine.h"
#include "lockslot.h"
#include "log.h"
#include "metrics.h"
#include "ops.h"
#include "server.h"
#include "service.h"
#include "validate.h"

#define ERRLEN	BWP_ERR_MAX

typedef int (*handler_fn)(struct peer *, union req *, struct bwp_recv *,
    struct bwp_writer *, char *err);

struct op {
	handler_fn	fn;
	bool		admin;		/* uid 0 or the admin group */
	bool		task;		/* needs a registered task */
};

static void
w_locked(struct bwp_writer *w, const struct task *t)
{
	bwp_w_kbool(w, "locked", tasks_task_locked(t));
}

static int
h_hello(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	const struct config	*c = &p->d->cfg;

	if (p->hello) {
		snprintf(err, ERRLEN, "hello already done");
		return BWP_E_EXIST;
	}
	if (r->hello.pid != (uint64_t)p->pid) {
		snprintf(err, ERRLEN, "pid %llu is not the peer's (%d)",
		    (unsigned long long)r->hello.pid, (int)p->pid);
		return BWP_E_PERM;
	}
	p->hello = true;
	snprintf(p->name, sizeof(p->name), "%s", r->hello.name);
	bwp_w_kstr(w, "server", "bwsched");
	bwp_w_kstr(w, "version", PACKAGE_VERSION);
	bwp_w_kuint(w, "proto", BWP_VERSION);
	bwp_w_kuint(w, "client", p->id);
	bwp_w_kbool(w, "admin", peer_admin(p));
	bwp_w_kuint(w, "period_ns", c->period_ns);
	bwp_w_kstr(w, "policy", config_policy_name(c->policy));
	bwp_w_kbool(w, "partitioning", true);	/* gpu keys understood */
	return BWP_OK;
}

/* The task's GPU partition, when it has one (doc/partition.md). */
static void
w_partition(struct peer *p, struct bwp_writer *w)
{
	struct admit_place	pl;

	if (admit_place(tasks_admit(p->d->tasks), p->task->id, &pl) < 0)
		return;
	bwp_w_key(w, "partition");
	bwp_w_map(w, 5);
	bwp_w_str(w, "index");
	bwp_w_uint(w, pl.partition);
	bwp_w_str(w, "sm_first");
	bwp_w_uint(w, pl.sm_first);
	bwp_w_str(w, "sms");
	bwp_w_uint(w, pl.sms);
	bwp_w_str(w, "granted");
	bwp_w_uint(w, pl.granted);
	bwp_w_str(w, "plan");
	bwp_w_uint(w, pl.gen);
}

static int
h_task_register(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	int	st, i;

	if (p->task != NULL) {
		snprintf(err, ERRLEN, "this connection has a task already");
		return BWP_E_EXIST;
	}
	st = tasks_register(p->d->tasks, p->pid, &r->task, rv->fds, rv->nfds,
	    &p->task, err, ERRLEN);
	for (i = 0; i < rv->nfds; i++)
		rv->fds[i] = -1;	/* tasks_register closed them */
	if (st != BWP_OK)
		return st;
	service_poll_tasks(p->d);
	log_task(LOG_L_INFO, p->task->id, p->pid, "task \"%s\" registered "
	    "(period %llu ns, priority %u, pages %u)", p->task->name,
	    (unsigned long long)p->task->period_ns, p->task->priority,
	    p->task->pages);
	bwp_w_kuint(w, "task", p->task->id);
	w_partition(p, w);
	return BWP_OK;
}

static int
h_task_unregister(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	log_task(LOG_L_INFO, p->task->id, p->pid, "task \"%s\" unregistered",
	    p->task->name);
	tasks_unregister(p->d->tasks, p->task);
	p->task = NULL;
	return BWP_OK;
}

static int
h_kernel_register(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	struct kernel	*k;
	int		st;

	st = tasks_kernel_register(p->d->tasks, p->task, &r->kreg, &k, err,
	    ERRLEN);
	if (st != BWP_OK)
		return st;
	log_task(LOG_L_INFO, p->task->id, p->pid, "kernel \"%s\" registered: "
	    "Q-bar %.4f, bound %llu ns (alone %llu ns)", k->name,
	    k->q_nominal, (unsigned long long)k->wcet_ns,
	    (unsigned long long)k->wcet0_ns);
	bwp_w_kuint(w, "kernel", k->id);
	bwp_w_kdouble(w, "q_nominal", k->q_nominal);
	bwp_w_kuint(w, "wcet_ns", k->wcet_ns);
	bwp_w_kuint(w, "wcet0_ns", k->wcet0_ns);
	w_partition(p, w);
	return BWP_OK;
}

static int
h_kernel_start(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	uint64_t	launch;
	int		st;

	st = tasks_kernel_start(p->d->tasks, p->task, &r->kstart,
	    bwsched_now(), &launch, err, ERRLEN);
	if (st == BWP_OK)
		bwp_w_kuint(w, "launch", launch);
	return st;
}

static int
h_kernel_end(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	return tasks_kernel_end(p->d->tasks, p->task, &r->kend, bwsched_now(),
	    err, ERRLEN);
}

static int
h_stream_sync(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	int	st = tasks_stream_sync(p->d->tasks, p->task, &r->sync, err,
	    ERRLEN);

	if (st == BWP_OK)
		w_locked(w, p->task);
	return st;
}

static int
h_memcpy(struct peer *p, bool begin, struct bwp_writer *w, char *err)
{
	int	st = tasks_memcpy(p->d->tasks, p->task, begin, err, ERRLEN);

	if (st == BWP_OK)
		w_locked(w, p->task);
	return st;
}

static int
h_memcpy_begin(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	return h_memcpy(p, true, w, err);
}

static int
h_memcpy_end(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	return h_memcpy(p, false, w, err);
}

static int
h_lock_common(struct peer *p, bool lock, struct bwp_writer *w, char *err)
{
	int	st = tasks_lock(p->d->tasks, p->task, lock, err, ERRLEN);

	if (st == BWP_OK)
		w_locked(w, p->task);
	return st;
}

static int
h_lock(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	return h_lock_common(p, true, w, err);
}

static int
h_unlock(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	return h_lock_common(p, false, w, err);
}

/* The per-core part of status: what the regulator recorded and counts. */
static void
status_cores(struct bwsched *d, const struct reg_stats *s,
    struct bwp_writer *w)
{
	uint64_t	budget[REG_MAX_CORES];
	unsigned int	i, n;

	/* the budget the cores run on now; the static one otherwise */
	n = metrics_budgets(d, budget, REG_MAX_CORES);
	bwp_w_key(w, "cores");
	bwp_w_array(w, d->cfg.ncores);
	for (i = 0; i < d->cfg.ncores; i++) {
		bwp_w_map(w, 5);
		bwp_w_str(w, "cpu");
		bwp_w_uint(w, (uint64_t)d->cfg.cores[i]);
		bwp_w_str(w, "budget");
		bwp_w_uint(w, i < n ? budget[i] : REG_UNLIMITED);
		bwp_w_str(w, "events");
		bwp_w_uint(w, i < s->ncores ? s->core[i].events : 0);
		bwp_w_str(w, "throttles");
		bwp_w_uint(w, i < s->ncores ? s->core[i].throttles : 0);
		bwp_w_str(w, "throttled_ns");
		bwp_w_uint(w, i < s->ncores ? s->core[i].throttled_ns : 0);
	}
}

static int
h_status(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	struct bwsched		*d = p->d;
	const struct config	*c = &d->cfg;
	struct reg_stats	s;

	memset(&s, 0, sizeof(s));
	if (d->reg_ops->stats(d->reg, &s) < 0)
		memset(&s, 0, sizeof(s));
	bwp_w_kstr(w, "version", PACKAGE_VERSION);
	bwp_w_kuint(w, "uptime_ns", bwsched_now() - d->start_ns);
	bwp_w_kuint(w, "period_ns", c->period_ns);
	bwp_w_kuint(w, "lead_ns", c->lead_ns);
	bwp_w_kstr(w, "policy", config_policy_name(c->policy));
	bwp_w_kstr(w, "regulator", d->reg_ops->name);
	/* the sim only pretends: say so wherever status is read */
	bwp_w_kbool(w, "be_regulated", !d->reg_ops->simulated);
	bwp_w_kuint(w, "clients", d->npeers);
	bwp_w_kuint(w, "tasks", tasks_count(d->tasks));
	bwp_w_kuint(w, "kernels", tasks_kernel_count(d->tasks));
	bwp_w_kuint(w, "holders", tasks_holders(d->tasks));
	bwp_w_kuint(w, "periods", s.period);
	if (d->engine != NULL) {
		/* q (in effect), late, lateness, engine cost */
		engine_status(d->engine, w);
	} else {
		bwp_w_kdouble(w, "q", tasks_q_static(d->tasks));
		bwp_w_kuint(w, "late", 0);
	}
	bwp_w_kuint(w, "fallbacks", s.ncores > 0 ? s.core[0].fallbacks : 0);
	status_cores(d, &s, w);
	return BWP_OK;
}

static int
h_tasks(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	struct task	*t;

	bwp_w_key(w, "tasks");
	bwp_w_array(w, tasks_count(p->d->tasks));
	for (t = tasks_first(p->d->tasks); t != NULL; t = t->next) {
		bwp_w_map(w, 9);
		bwp_w_str(w, "task");
		bwp_w_uint(w, t->id);
		bwp_w_str(w, "pid");
		bwp_w_uint(w, (uint64_t)t->pid);
		bwp_w_str(w, "name");
		bwp_w_str(w, t->name);
		bwp_w_str(w, "period_ns");
		bwp_w_uint(w, t->period_ns);
		bwp_w_str(w, "priority");
		bwp_w_uint(w, t->priority);
		bwp_w_str(w, "locked");
		bwp_w_bool(w, tasks_task_locked(t));
		bwp_w_str(w, "streams");
		bwp_w_uint(w, tasks_active_streams(t));
		bwp_w_str(w, "kernels");
		bwp_w_uint(w, t->nkernels);
		bwp_w_str(w, "pages");
		bwp_w_uint(w, t->pages);
	}
	return BWP_OK;
}

static void
write_kernel(struct bwp_writer *w, const struct task *t,
    const struct kernel *k)
{
	unsigned int	i, paged = tasks_kernel_running(t, k->id);

	bwp_w_map(w, 12);
	bwp_w_str(w, "task");
	bwp_w_uint(w, t->id);
	bwp_w_str(w, "kernel");
	bwp_w_uint(w, k->id);
	bwp_w_str(w, "name");
	bwp_w_str(w, k->name);
	bwp_w_str(w, "blocks");
	bwp_w_uint(w, k->blocks);
	bwp_w_str(w, "concurrency");
	bwp_w_uint(w, k->concurrency);
	bwp_w_str(w, "clusters");
	bwp_w_array(w, k->nclusters);
	for (i = 0; i < k->nclusters; i++) {
		bwp_w_array(w, 2);
		bwp_w_uint(w, k->e0[i]);
		bwp_w_uint(w, k->e1[i]);
	}
	bwp_w_str(w, "q_nominal");
	bwp_w_double(w, k->q_nominal);
	bwp_w_str(w, "wcet_ns");
	bwp_w_uint(w, k->wcet_ns);
	bwp_w_str(w, "wcet0_ns");
	bwp_w_uint(w, k->wcet0_ns);
	/* socket starts, and launches seen on the progress page */
	bwp_w_str(w, "launches");
	bwp_w_uint(w, k->launches + k->page_launches);
	bwp_w_str(w, "running");
	bwp_w_bool(w, k->running + paged > 0);
	bwp_w_str(w, "running_launches");
	bwp_w_uint(w, k->running + paged);
}

static int
h_kernels(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	struct task	*t, *only = NULL;
	unsigned int	n = 0, i;

	tasks_count_launches(p->d->tasks);	/* the last poll's are old */
	if (r->kernels.has_task) {
		/* ids are 32-bit: a larger one names no task */
		if (r->kernels.task <= UINT32_MAX)
			only = tasks_find(p->d->tasks,
			    (uint32_t)r->kernels.task);
		if (only == NULL) {
			snprintf(err, ERRLEN, "no task %llu",
			    (unsigned long long)r->kernels.task);
			return BWP_E_NOENT;
		}
	}
	for (t = tasks_first(p->d->tasks); t != NULL; t = t->next)
		if (only == NULL || t == only)
			n += t->nkernels;
	bwp_w_key(w, "kernels");
	bwp_w_array(w, n);
	for (t = tasks_first(p->d->tasks); t != NULL; t = t->next)
		if (only == NULL || t == only)
			for (i = 0; i < t->nkernels; i++)
				write_kernel(w, t, t->kernels[i]);
	return BWP_OK;
}

static void
write_value(struct bwp_writer *w, const struct config_value *v)
{
	switch (v->type) {
	case CONFIG_T_UINT:
		bwp_w_uint(w, v->u);
		break;
	case CONFIG_T_INT:
		bwp_w_int(w, v->i);
		break;
	case CONFIG_T_DOUBLE:
		bwp_w_double(w, v->d);
		break;
	case CONFIG_T_STR:
		bwp_w_str(w, v->s);
		break;
	}
}

static int
h_get(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	struct config_value	v;

	if (config_get(&p->d->cfg, r->key.key, &v) < 0) {
		snprintf(err, ERRLEN, "unknown key \"%s\"", r->key.key);
		return BWP_E_NOENT;
	}
	bwp_w_kstr(w, "key", r->key.key);
	bwp_w_key(w, "value");
	write_value(w, &v);
	return BWP_OK;
}

static void
value_text(const msgpack_object *o, char *out, size_t len)
{
	switch (o->type) {
	case MSGPACK_OBJECT_STR:
		snprintf(out, len, "%.*s", (int)o->via.str.size,
		    o->via.str.ptr);
		break;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		snprintf(out, len, "%llu", (unsigned long long)o->via.u64);
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		snprintf(out, len, "%lld", (long long)o->via.i64);
		break;
	default:
		snprintf(out, len, "%.17g", o->via.f64);
		break;
	}
}

static int
h_set(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	struct config	c = p->d->cfg;
	char		text[BWP_MAX_VALUE + 1];

	value_text(r->key.value, text, sizeof(text));
	if (config_get(&c, r->key.key, &(struct config_value){ 0 }) < 0) {
		snprintf(err, ERRLEN, "unknown key \"%s\"", r->key.key);
		return BWP_E_NOENT;
	}
	if (config_set(&c, r->key.key, text, true, err, ERRLEN) < 0 ||
	    config_check(&c, err, ERRLEN) < 0)
		return BWP_E_BADARG;
	p->d->cfg = c;
	service_config_changed(p->d);
	log_msg(LOG_L_NOTICE, "client %u (uid %d) set %s = %s", p->id,
	    (int)p->uid, r->key.key, text);
	return h_get(p, r, rv, w, err);
}

static int
h_subscribe(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	unsigned int	bit, n = 0;

	p->topics = r->sub.topics;
	for (bit = 1; bit <= TOPIC_LOG; bit <<= 1)
		n += (p->topics & bit) != 0;
	bwp_w_key(w, "topics");
	bwp_w_array(w, n);
	for (bit = 1; bit <= TOPIC_LOG; bit <<= 1)
		if (p->topics & bit)
			bwp_w_str(w, validate_topic_name(bit));
	return BWP_OK;
}

static int
h_reload(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	return service_reload(p->d, err, ERRLEN) < 0 ? BWP_E_BADARG : BWP_OK;
}

/* Prometheus text in "text" (metrics.h); bwctl metrics prints it. */
static int
h_metrics(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	size_t	len;
	char	*text = metrics_text(p->d, &len);

	if (text == NULL) {
		snprintf(err, ERRLEN, "out of memory");
		return BWP_E_INTERNAL;
	}
	if (len > BWP_MAX_MSG - 256) {
		snprintf(err, ERRLEN, "%zu bytes of metrics: more than a "
		    "message holds; use metrics_dir", len);
		free(text);
		return BWP_E_TOOBIG;
	}
	bwp_w_kstr(w, "text", text);
	free(text);
	return BWP_OK;
}

/* Descriptors the reply carries (lock.files); one loop thread. */
static int	reply_fds[BWP_MAX_FDS];
static int	reply_nfds;

static int
h_lock_files(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	struct reg_lock_files	lf;
	unsigned int		slot, i;
	int			st;

	st = lockslot_files(p->d, p->task, &lf, &slot, err, ERRLEN);
	if (st != BWP_OK)
		return st;
	for (i = 0; i < lf.nfds && i < BWP_MAX_FDS; i++)
		reply_fds[reply_nfds++] = lf.fds[i];
	bwp_w_kstr(w, "kind", lockslot_kind_name(lf.kind));
	bwp_w_kuint(w, "slot", slot);
	bwp_w_kuint(w, "fds", lf.nfds);
	return BWP_OK;
}

static int
h_partitions(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	admit_write(tasks_admit(p->d->tasks), w);
	return BWP_OK;
}

static int
h_gpu_device(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	int	st = admit_device(tasks_admit(p->d->tasks),
	    (uint32_t)r->gdev.sms, (uint32_t)r->gdev.granule, err, ERRLEN);

	if (st == BWP_OK)
		admit_write(tasks_admit(p->d->tasks), w);
	return st;
}

static int
h_gpu_granted(struct peer *p, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	char	why[ERRLEN];
	bool	ok;
	int	st;

	st = admit_granted(tasks_admit(p->d->tasks), p->task->id,
	    (uint32_t)r->granted.sms, &ok, why, sizeof(why));
	if (st != BWP_OK) {
		snprintf(err, ERRLEN, "%s", why);
		return st;
	}
	bwp_w_kbool(w, "schedulable", ok);
	bwp_w_kstr(w, "reason", why);
	return BWP_OK;
}

static const struct op ops[BWP_OP_MAX] = {
	[BWP_OP_HELLO] = { h_hello, false, false },
	[BWP_OP_TASK_REGISTER] = { h_task_register, false, false },
	[BWP_OP_TASK_UNREGISTER] = { h_task_unregister, false, true },
	[BWP_OP_KERNEL_REGISTER] = { h_kernel_register, false, true },
	[BWP_OP_KERNEL_START] = { h_kernel_start, false, true },
	[BWP_OP_KERNEL_END] = { h_kernel_end, false, true },
	[BWP_OP_STREAM_SYNC] = { h_stream_sync, false, true },
	[BWP_OP_MEMCPY_BEGIN] = { h_memcpy_begin, false, true },
	[BWP_OP_MEMCPY_END] = { h_memcpy_end, false, true },
	[BWP_OP_LOCK] = { h_lock, false, true },
	[BWP_OP_UNLOCK] = { h_unlock, false, true },
	[BWP_OP_STATUS] = { h_status, false, false },
	[BWP_OP_TASKS] = { h_tasks, false, false },
	[BWP_OP_KERNELS] = { h_kernels, false, false },
	[BWP_OP_GET] = { h_get, false, false },
	[BWP_OP_SET] = { h_set, true, false },
	[BWP_OP_SUBSCRIBE] = { h_subscribe, false, false },
	[BWP_OP_RELOAD] = { h_reload, true, false },
	[BWP_OP_METRICS] = { h_metrics, false, false },
	[BWP_OP_LOCK_FILES] = { h_lock_files, false, true },
	[BWP_OP_PARTITIONS] = { h_partitions, false, false },
	[BWP_OP_GPU_DEVICE] = { h_gpu_device, false, false },
	[BWP_OP_GPU_GRANTED] = { h_gpu_granted, false, true },
};

static int
run_op(struct peer *p, struct bwp_msg *m, union req *r, struct bwp_recv *rv,
    struct bwp_writer *w, char *err)
{
	const struct op	*op = &ops[m->op];

	if (!p->hello && m->op != BWP_OP_HELLO) {
		snprintf(err, ERRLEN, "say hello first");
		return BWP_E_NOHELLO;
	}
	if (op->admin && !peer_admin(p)) {
		snprintf(err, ERRLEN, "\"%s\" needs uid 0 or the admin group",
		    bwp_op_name(m->op));
		return BWP_E_PERM;
	}
	if (op->task && p->task == NULL) {
		snprintf(err, ERRLEN, "no task registered on this connection");
		return BWP_E_NOENT;
	}
	return op->fn(p, r, rv, w, err);
}

static void
reply(struct peer *p, uint64_t id, int status, const char *err,
    struct bwp_writer *body)
{
	struct bwp_writer	e;
	const void		*buf;
	size_t			len;

	if (status != BWP_OK) {
		if (status > 0 && status < BWP_E_MAX)
			p->d->errors[status]++;
		bwp_w_init(&e);
		bwp_w_reply(&e, id, status, err);
		body = &e;
	} else {
		bwp_w_kuint(body, BWP_K_ID, id);
		bwp_w_kuint(body, BWP_K_STATUS, BWP_OK);
	}
	buf = bwp_w_finish(body, &len);
	if (buf == NULL)
		peer_kill(p, "out of memory");
	else
		peer_send_fds(p, buf, len, reply_fds,
		    status == BWP_OK ? reply_nfds : 0);
	if (status != BWP_OK)
		bwp_w_free(&e);
	/* sent (or duplicated into the queue): ours go */
	while (reply_nfds > 0)
		close(reply_fds[--reply_nfds]);
}

/* Status 1-5 are bad input; BWP_BAD_INPUT_LIMIT in a row closes. */
static void
count_bad(struct peer *p, int status)
{
	if (status < BWP_E_MALFORMED || status > BWP_E_BADARG) {
		p->bad_in_row = 0;
		return;
	}
	if (++p->bad_in_row >= BWP_BAD_INPUT_LIMIT)
		peer_kill(p, "too many bad messages in a row");
}

void
ops_dispatch(struct peer *p, struct bwp_recv *rv)
{
	static union req	r;	/* large; one loop thread */
	struct bwp_writer	w;
	struct bwp_msg		m;
	char			err[ERRLEN] = "";
	int			st;

	bwp_msg_init_zone(&m, p->d->zone);
	bwp_w_init(&w);
	if (rv->toobig)
		bwp_msg_fail(&m, BWP_E_TOOBIG, "message over %d bytes",
		    BWP_MAX_MSG);
	else if (rv->fds_lost)
		bwp_msg_fail(&m, BWP_E_BADFD, "more than %d descriptors",
		    BWP_MAX_FDS);
	else if (bwp_msg_request(&m, p->d->rbuf, rv->len) == BWP_OK)
		validate_request(&m, rv->nfds, &r);
	st = m.status;
	if (st == BWP_OK)
		st = run_op(p, &m, &r, rv, &w, err);
	else
		snprintf(err, sizeof(err), "%s", m.err);
	if (st != BWP_OK)
		log_msg(LOG_L_DEBUG, "client %u: %s: %s", p->id,
		    bwp_status_name(st), err);
	reply(p, m.has_id ? m.id : 0, st, err, &w);
	bwp_w_free(&w);
	bwp_msg_free(&m);
	count_bad(p, st);
}

void
ops_reject_rate(struct peer *p, struct bwp_recv *rv)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id = 0;

	bwp_msg_init_zone(&m, p->d->zone);
	bwp_w_init(&w);
	if (!rv->toobig && bwp_msg_parse(&m, p->d->rbuf, rv->len) == BWP_OK &&
	    bwp_get_uint(&m, NULL, BWP_K_ID, true, 0, UINT64_MAX, &id) < 0)
		id = 0;
	reply(p, id, BWP_E_RATE, "over max_msgs_per_sec", &w);
	bwp_w_free(&w);
	bwp_msg_free(&m);
}
