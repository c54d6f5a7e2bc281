/*
 * bwtest.c - drives a running bwsched over its socket: bwtest SOCKET
 * SCENARIO [ARG].  Scenarios: basic (the ops and lock transitions),
 * nonadmin, get KEY (prints the value), ping, wait.  Abuse scenarios are
 * in tests/abuse/abuse.c.
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bwsched/bwshm.h>

#include "regulator.h"
#include "tc.h"

static const char	*sock;
static uint64_t		id = 1000;

static void
msleep(int ms)
{
	struct timespec	ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int
connect_hello(const char *name)
{
	int	fd = tc_connect(sock);

	TC_CHECK(fd >= 0, "connect %s", sock);
	if (fd < 0)
		exit(1);
	TC_CHECK(tc_hello(fd, name) == BWP_OK, "hello");
	return fd;
}

static int
task_register(int fd, const int *fds, int nfds, unsigned int pages)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	int			st;

	bwp_w_init(&w);
	bwp_w_request(&w, id++, BWP_OP_TASK_REGISTER);
	bwp_w_kstr(&w, "name", "rt-task");
	bwp_w_kuint(&w, "period_ns", 10000000);
	bwp_w_kuint(&w, "priority", 50);
	bwp_w_kuint(&w, "pages", pages);
	if (tc_send(fd, &w, fds, nfds) < 0 || tc_reply(fd, &m, 2000) <= 0)
		return -1;
	st = tc_status(&m);
	bwp_msg_free(&m);
	return st;
}

/* Two clusters over 1000 blocks, M = 100. */
static int
kernel_register(int fd, const char *name, struct bwp_msg *m)
{
	struct bwp_writer	w;

	bwp_w_init(&w);
	bwp_w_request(&w, id++, BWP_OP_KERNEL_REGISTER);
	bwp_w_kstr(&w, "name", name);
	bwp_w_kuint(&w, "blocks", 1000);
	bwp_w_kuint(&w, "concurrency", 100);
	bwp_w_key(&w, "clusters");
	bwp_w_array(&w, 2);
	bwp_w_array(&w, 2);
	bwp_w_uint(&w, 20000);
	bwp_w_uint(&w, 60000);
	bwp_w_array(&w, 2);
	bwp_w_uint(&w, 50000);
	bwp_w_uint(&w, 55000);
	bwp_w_key(&w, "intervals");
	bwp_w_array(&w, 3);
	bwp_w_array(&w, 2);
	bwp_w_uint(&w, 0);
	bwp_w_uint(&w, 0);
	bwp_w_array(&w, 2);
	bwp_w_uint(&w, 400);
	bwp_w_uint(&w, 1);
	bwp_w_array(&w, 2);
	bwp_w_uint(&w, 800);
	bwp_w_uint(&w, 0);
	if (tc_send(fd, &w, NULL, 0) < 0 || tc_reply(fd, m, 5000) <= 0)
		return -1;
	return tc_status(m);
}

static int
req_u(int fd, enum bwp_op op, const char *k, uint64_t v, const char *k2,
    uint64_t v2, struct bwp_msg *m)
{
	struct bwp_writer	w;

	bwp_w_init(&w);
	bwp_w_request(&w, id++, op);
	if (k != NULL)
		bwp_w_kuint(&w, k, v);
	if (k2 != NULL)
		bwp_w_kuint(&w, k2, v2);
	if (tc_send(fd, &w, NULL, 0) < 0 || tc_reply(fd, m, 2000) <= 0)
		return -1;
	return tc_status(m);
}

static int
req_key(int fd, enum bwp_op op, const char *key, const char *sval,
    double dval, struct bwp_msg *m)
{
	struct bwp_writer	w;

	bwp_w_init(&w);
	bwp_w_request(&w, id++, op);
	bwp_w_kstr(&w, "key", key);
	if (op == BWP_OP_SET) {
		if (sval != NULL)
			bwp_w_kstr(&w, "value", sval);
		else
			bwp_w_kdouble(&w, "value", dval);
	}
	if (tc_send(fd, &w, NULL, 0) < 0 || tc_reply(fd, m, 2000) <= 0)
		return -1;
	return tc_status(m);
}

/* holders and core 0's budget from status */
static void
status_budget(int fd, uint64_t *holders, uint64_t *budget)
{
	const msgpack_object	*cores, *c;
	struct bwp_msg		m;
	uint32_t		i;

	*budget = 0;
	TC_CHECK(tc_simple(fd, BWP_OP_STATUS, &m) == BWP_OK, "status");
	*holders = tc_uint(&m, "holders");
	cores = bwp_msg_find(&m, NULL, "cores");
	if (cores != NULL && cores->type == MSGPACK_OBJECT_ARRAY &&
	    cores->via.array.size > 0) {
		c = &cores->via.array.ptr[0];
		for (i = 0; i < c->via.map.size; i++)
			if (c->via.map.ptr[i].key.via.str.size == 6 &&
			    memcmp(c->via.map.ptr[i].key.via.str.ptr,
			    "budget", 6) == 0)
				*budget = c->via.map.ptr[i].val.via.u64;
	}
	bwp_msg_free(&m);
}

/* The next event of kind ev on fd, or fail. */
static bool
expect_event(int fd, const char *ev, const char *key, bool val)
{
	struct bwp_msg		m;
	const msgpack_object	*o;
	bool			ok = false;
	int			i;

	for (i = 0; i < 20 && !ok; i++) {
		if (tc_recv(fd, &m, 2000) <= 0)
			break;
		o = bwp_msg_find(&m, NULL, BWP_K_EVENT);
		if (o != NULL && o->type == MSGPACK_OBJECT_STR &&
		    o->via.str.size == strlen(ev) &&
		    memcmp(o->via.str.ptr, ev, strlen(ev)) == 0 &&
		    (key == NULL || tc_bool(&m, key) == val))
			ok = true;
		bwp_msg_free(&m);
	}
	return ok;
}

static int
subscribe(int fd, const char *t1, const char *t2)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	int			st;

	bwp_w_init(&w);
	bwp_w_request(&w, id++, BWP_OP_SUBSCRIBE);
	bwp_w_key(&w, "topics");
	bwp_w_array(&w, t2 ? 2 : 1);
	bwp_w_str(&w, t1);
	if (t2)
		bwp_w_str(&w, t2);
	if (tc_send(fd, &w, NULL, 0) < 0 || tc_reply(fd, &m, 2000) <= 0)
		return -1;
	st = tc_status(&m);
	bwp_msg_free(&m);
	return st;
}

static void
basic_hello(void)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	int			fd = tc_connect(sock);

	TC_CHECK(tc_simple(fd, BWP_OP_STATUS, NULL) == BWP_E_NOHELLO,
	    "status before hello");
	bwp_w_init(&w);
	bwp_w_request(&w, 7, BWP_OP_HELLO);
	bwp_w_kuint(&w, "pid", (uint64_t)getpid());
	bwp_w_kstr(&w, "name", "basic");
	tc_send(fd, &w, NULL, 0);
	TC_CHECK(tc_reply(fd, &m, 2000) == 1 && tc_status(&m) == BWP_OK,
	    "hello");
	TC_CHECK(tc_uint(&m, "id") == 7, "id echoed");
	TC_CHECK(tc_uint(&m, "proto") == BWP_VERSION, "proto");
	TC_CHECK(tc_bool(&m, "admin") == (getuid() == 0), "admin flag");
	TC_CHECK(tc_uint(&m, "period_ns") == 1000000, "period_ns");
	bwp_msg_free(&m);
	TC_CHECK(tc_hello(fd, "again") == BWP_E_EXIST, "hello twice");
	close(fd);
}

static void
basic_locks(int fd, int watch, uint64_t kernel, double q)
{
	struct bwp_msg	m;
	uint64_t	holders, budget, want;

	want = (uint64_t)((60000 * q - 470) / 3);
	TC_CHECK(req_u(fd, BWP_OP_KERNEL_START, "kernel", kernel, "stream", 7,
	    &m) == BWP_OK && tc_uint(&m, "launch") == 1, "kernel.start");
	bwp_msg_free(&m);
	/* the kernel event comes first, then the lock change it causes */
	TC_CHECK(expect_event(watch, "kernel", NULL, 0), "kernel event");
	TC_CHECK(expect_event(watch, "lock", "locked", true), "lock event");
	status_budget(fd, &holders, &budget);
	TC_CHECK(holders == 1, "one holder, got %llu",
	    (unsigned long long)holders);
	TC_CHECK(budget == want, "static budget %llu, want %llu",
	    (unsigned long long)budget, (unsigned long long)want);
	TC_CHECK(req_u(fd, BWP_OP_KERNEL_END, "kernel", kernel, "launch", 1,
	    &m) == BWP_OK, "kernel.end");
	bwp_msg_free(&m);
	TC_CHECK(req_u(fd, BWP_OP_STREAM_SYNC, "stream", 8, NULL, 0, &m) ==
	    BWP_OK && tc_bool(&m, "locked"), "other stream sync keeps lock");
	bwp_msg_free(&m);
	TC_CHECK(req_u(fd, BWP_OP_STREAM_SYNC, "stream", 7, NULL, 0, &m) ==
	    BWP_OK && !tc_bool(&m, "locked"), "stream.sync releases");
	bwp_msg_free(&m);
	TC_CHECK(expect_event(watch, "lock", "locked", false), "unlock event");
	status_budget(fd, &holders, &budget);
	TC_CHECK(holders == 0 && budget == REG_UNLIMITED, "unregulated");
}

static void
basic_depths(int fd)
{
	struct bwp_msg	m;

	TC_CHECK(tc_simple(fd, BWP_OP_MEMCPY_BEGIN, &m) == BWP_OK &&
	    tc_bool(&m, "locked"), "memcpy.begin");
	bwp_msg_free(&m);
	TC_CHECK(tc_simple(fd, BWP_OP_MEMCPY_END, &m) == BWP_OK &&
	    !tc_bool(&m, "locked"), "memcpy.end");
	bwp_msg_free(&m);
	TC_CHECK(tc_simple(fd, BWP_OP_MEMCPY_END, NULL) == BWP_E_STATE,
	    "memcpy.end without begin");
	TC_CHECK(tc_simple(fd, BWP_OP_LOCK, NULL) == BWP_OK, "lock");
	TC_CHECK(tc_simple(fd, BWP_OP_LOCK, NULL) == BWP_OK, "lock nested");
	TC_CHECK(tc_simple(fd, BWP_OP_UNLOCK, &m) == BWP_OK &&
	    tc_bool(&m, "locked"), "unlock keeps nested lock");
	bwp_msg_free(&m);
	TC_CHECK(tc_simple(fd, BWP_OP_UNLOCK, &m) == BWP_OK &&
	    !tc_bool(&m, "locked"), "unlock releases");
	bwp_msg_free(&m);
	TC_CHECK(tc_simple(fd, BWP_OP_UNLOCK, NULL) == BWP_E_STATE,
	    "unlock without lock");
}

/* The task page alone takes the lock (read on the 1 ms tick). */
static void
basic_page(int fd, struct bwshm_task_page *tp)
{
	uint64_t	holders, budget;

	__atomic_store_n(&tp->active_streams, 1, __ATOMIC_RELEASE);
	msleep(50);
	status_budget(fd, &holders, &budget);
	TC_CHECK(holders == 1, "page lock seen");
	__atomic_store_n(&tp->active_streams, 0, __ATOMIC_RELEASE);
	msleep(50);
	status_budget(fd, &holders, &budget);
	TC_CHECK(holders == 0, "page unlock seen");
}

static void
basic_config(int fd)
{
	struct bwp_msg	m;

	TC_CHECK(req_key(fd, BWP_OP_GET, "policy", NULL, 0, &m) == BWP_OK,
	    "get policy");
	bwp_msg_free(&m);
	TC_CHECK(req_key(fd, BWP_OP_GET, "nosuch", NULL, 0, &m) ==
	    BWP_E_NOENT, "get unknown");
	bwp_msg_free(&m);
	if (getuid() != 0)
		return;
	TC_CHECK(req_key(fd, BWP_OP_SET, "policy", "greedy", 0, &m) ==
	    BWP_OK, "set policy");
	bwp_msg_free(&m);
	TC_CHECK(req_key(fd, BWP_OP_SET, "rho", NULL, 2.5, &m) == BWP_OK &&
	    tc_double(&m, "value") == 2.5, "set rho");
	bwp_msg_free(&m);
	TC_CHECK(req_key(fd, BWP_OP_SET, "rho", NULL, -1, &m) == BWP_E_BADARG,
	    "set rho out of range");
	bwp_msg_free(&m);
	TC_CHECK(req_key(fd, BWP_OP_SET, "period_ns", NULL, 2e6, &m) ==
	    BWP_E_BADARG, "set period_ns refused");
	bwp_msg_free(&m);
	TC_CHECK(req_key(fd, BWP_OP_GET, "policy", NULL, 0, &m) == BWP_OK,
	    "get policy");
	bwp_msg_free(&m);
}

static void
basic_listings(int fd, uint64_t task)
{
	struct bwp_msg		m;
	const msgpack_object	*o;

	TC_CHECK(tc_simple(fd, BWP_OP_TASKS, &m) == BWP_OK, "tasks");
	o = bwp_msg_find(&m, NULL, "tasks");
	TC_CHECK(o != NULL && o->type == MSGPACK_OBJECT_ARRAY &&
	    o->via.array.size == 1, "one task listed");
	bwp_msg_free(&m);
	TC_CHECK(req_u(fd, BWP_OP_KERNELS, "task", task, NULL, 0, &m) ==
	    BWP_OK, "kernels");
	o = bwp_msg_find(&m, NULL, "kernels");
	TC_CHECK(o != NULL && o->type == MSGPACK_OBJECT_ARRAY &&
	    o->via.array.size == 1, "one kernel listed");
	bwp_msg_free(&m);
	TC_CHECK(req_u(fd, BWP_OP_KERNELS, "task", 9999, NULL, 0, &m) ==
	    BWP_E_NOENT, "kernels of no task");
	bwp_msg_free(&m);
}

/* A child takes the lock and dies: the watcher sees it released. */
static void
basic_death(int watch)
{
	uint64_t	holders, budget;
	pid_t		pid;
	int		fd, st;

	pid = fork();
	if (pid == 0) {
		fd = connect_hello("doomed");
		if (task_register(fd, NULL, 0, 0) != BWP_OK ||
		    tc_simple(fd, BWP_OP_LOCK, NULL) != BWP_OK)
			_exit(1);
		_exit(0);	/* no unregister: the hang-up must do it */
	}
	waitpid(pid, &st, 0);
	TC_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child locked");
	TC_CHECK(expect_event(watch, "lock", "locked", true), "child lock");
	TC_CHECK(expect_event(watch, "lock", "locked", false),
	    "death releases the lock");
	status_budget(watch, &holders, &budget);
	TC_CHECK(holders == 0, "no holder after death");
}

static int
basic(void)
{
	struct bwshm_task_page	*tp;
	struct bwp_msg		m;
	uint64_t		task, kernel;
	double			q;
	int			fd, watch, fds[2];

	basic_hello();
	fd = connect_hello("basic");
	watch = connect_hello("watch");
	TC_CHECK(subscribe(watch, "lock", "kernel") == BWP_OK, "subscribe");
	TC_CHECK(kernel_register(fd, "k", &m) == BWP_E_NOENT,
	    "kernel.register without a task");
	bwp_msg_free(&m);
	fds[0] = tc_task_page((void **)&tp);
	fds[1] = tc_progress_page(4, 1000);
	TC_CHECK(fds[0] >= 0 && fds[1] >= 0, "pages");
	TC_CHECK(task_register(fd, fds, 2, 3) == BWP_OK, "task.register");
	TC_CHECK(task_register(fd, NULL, 0, 0) == BWP_E_EXIST, "second task");
	close(fds[0]);
	close(fds[1]);
	TC_CHECK(tc_simple(fd, BWP_OP_STATUS, &m) == BWP_OK, "status");
	task = tc_uint(&m, "tasks");
	TC_CHECK(task == 1, "one task");
	bwp_msg_free(&m);
	TC_CHECK(kernel_register(fd, "k", &m) == BWP_OK, "kernel.register");
	kernel = tc_uint(&m, "kernel");
	q = tc_double(&m, "q_nominal");
	TC_CHECK(q >= 0 && q <= 1, "q_nominal %g", q);
	TC_CHECK(tc_uint(&m, "wcet_ns") >= tc_uint(&m, "wcet0_ns") &&
	    tc_uint(&m, "wcet0_ns") > 0, "bounds");
	bwp_msg_free(&m);
	TC_CHECK(kernel_register(fd, "k", &m) == BWP_E_EXIST, "same name");
	bwp_msg_free(&m);
	TC_CHECK(req_u(fd, BWP_OP_KERNEL_START, "kernel", 4242, "stream", 1,
	    &m) == BWP_E_NOENT, "start unknown kernel");
	bwp_msg_free(&m);
	basic_locks(fd, watch, kernel, q);
	basic_depths(fd);
	basic_page(fd, tp);
	basic_listings(fd, 1);
	basic_config(fd);
	TC_CHECK(tc_simple(fd, BWP_OP_TASK_UNREGISTER, NULL) == BWP_OK,
	    "unregister");
	TC_CHECK(tc_simple(fd, BWP_OP_LOCK, NULL) == BWP_E_NOENT,
	    "lock without task");
	/* drain the watcher, then the death test */
	while (tc_recv(watch, &m, 100) > 0)
		bwp_msg_free(&m);
	basic_death(watch);
	close(fd);
	close(watch);
	return tc_failures ? 1 : 0;
}

static int
nonadmin(void)
{
	struct bwp_msg	m;
	int		fd = connect_hello("nonadmin");

	TC_CHECK(req_key(fd, BWP_OP_SET, "policy", "fair", 0, &m) ==
	    BWP_E_PERM, "set as non-admin");
	bwp_msg_free(&m);
	TC_CHECK(tc_simple(fd, BWP_OP_RELOAD, NULL) == BWP_E_PERM,
	    "reload as non-admin");
	TC_CHECK(req_key(fd, BWP_OP_GET, "policy", NULL, 0, &m) == BWP_OK,
	    "get as non-admin");
	bwp_msg_free(&m);
	close(fd);
	return tc_failures ? 1 : 0;
}

static int
get(const char *key)
{
	const msgpack_object	*o;
	struct bwp_msg		m;
	int			fd = connect_hello("get");

	if (req_key(fd, BWP_OP_GET, key, NULL, 0, &m) != BWP_OK)
		return 1;
	o = bwp_msg_find(&m, NULL, "value");
	if (o->type == MSGPACK_OBJECT_STR)
		printf("%.*s\n", (int)o->via.str.size, o->via.str.ptr);
	else if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		printf("%llu\n", (unsigned long long)o->via.u64);
	else
		printf("%g\n", o->via.f64);
	bwp_msg_free(&m);
	return 0;
}

static int
wait_ready(void)
{
	int	i, fd;

	for (i = 0; i < 500; i++) {
		if ((fd = tc_connect(sock)) >= 0) {
			close(fd);
			return 0;
		}
		msleep(10);
	}
	return 1;
}

int
main(int argc, char **argv)
{
	int	fd;

	if (argc < 3) {
		fprintf(stderr, "usage: bwtest SOCKET basic|nonadmin|get KEY|"
		    "ping|wait\n");
		return 2;
	}
	sock = argv[1];
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(argv[2], "basic") == 0)
		return basic();
	if (strcmp(argv[2], "nonadmin") == 0)
		return nonadmin();
	if (strcmp(argv[2], "get") == 0 && argc == 4)
		return get(argv[3]);
	if (strcmp(argv[2], "wait") == 0)
		return wait_ready();
	if (strcmp(argv[2], "ping") == 0) {
		fd = connect_hello("ping");
		return tc_simple(fd, BWP_OP_STATUS, NULL) == BWP_OK &&
		    !tc_failures ? 0 : 1;
	}
	return 2;
}
