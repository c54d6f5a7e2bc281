/*
 * bwctl.c - the bwsched command-line client (bwctl(8)).
 *
 * Speaks the control protocol directly (proto/msg.h, proto/wire.h): one
 * hello, one request, its reply printed as a table or, with --json, as
 * one JSON object; subscribe prints one line per event until the daemon
 * goes away.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bwctl_part.h"
#include "bwctl_top.h"
#include "bwproto.h"
#include "cvalue.h"
#include "human.h"
#include "jsonw.h"
#include "msg.h"
#include "wire.h"

/* Exit codes (bwctl(8) EXIT STATUS). */
#define EX_OK		0
#define EX_DAEMON	1	/* the daemon answered with an error */
#define EX_USAGE	2
#define EX_CONNECT	3	/* cannot connect, or the connection broke */

static const char *const topics_all[] = { "lock", "kernel", "period", "log" };

struct ctl {
	int		 sock;
	bool		 json;
	uint64_t	 next_id;
	uint8_t		*buf;
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: bwctl [-s PATH] [--json] COMMAND [ARG...]\n"
	    "commands:\n"
	    "  status                 daemon state, regulator and cores\n"
	    "  tasks                  registered real-time tasks\n"
	    "  kernels [TASK]         registered kernels (of one task)\n"
	    "  partitions             the GPU partition plan\n"
	    "  get KEY                a configuration value\n"
	    "  set KEY VALUE          change a setting at run time (admin)\n"
	    "  subscribe [TOPIC...]   print events (lock kernel period log)\n"
	    "  top [--once] [--iterations N] [--interval S]\n"
	    "                         live view: holders, kernels, Q, cores\n"
	    "  trace [--csv] [--count N]  period records as they happen\n"
	    "  metrics                counters and gauges, Prometheus text\n"
	    "options (before or after the command):\n"
	    "  -s, --socket PATH      control socket (default $%s or %s)\n"
	    "  -j, --json             JSON output for scripts\n"
	    "  -V, --version          print the version\n"
	    "  -h, --help             this help\n", BWP_SOCKET_ENV,
	    BWP_SOCKET_DEFAULT);
}

static int __attribute__((format(printf, 2, 3)))
die(int code, const char *fmt, ...)
{
	va_list	ap;

	fputs("bwctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* ---- printing ----------------------------------------------------- */

static void
json_obj(struct jsonw *j, const msgpack_object *o)
{
	char		 key[256];
	uint32_t	 i;

	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		jsonw_null(j);
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		jsonw_bool(j, o->via.boolean);
		break;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		jsonw_uint(j, o->via.u64);
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		jsonw_int(j, o->via.i64);
		break;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		jsonw_double(j, o->via.f64);
		break;
	case MSGPACK_OBJECT_STR:
		snprintf(key, sizeof(key), "%.*s", (int)o->via.str.size,
		    o->via.str.ptr);
		jsonw_str(j, key);
		break;
	case MSGPACK_OBJECT_ARRAY:
		jsonw_arr_begin(j);
		for (i = 0; i < o->via.array.size; i++)
			json_obj(j, &o->via.array.ptr[i]);
		jsonw_arr_end(j);
		break;
	case MSGPACK_OBJECT_MAP:
		jsonw_obj_begin(j);
		for (i = 0; i < o->via.map.size; i++) {
			const msgpack_object *k = &o->via.map.ptr[i].key;

			if (k->type == MSGPACK_OBJECT_STR)
				snprintf(key, sizeof(key), "%.*s",
				    (int)k->via.str.size, k->via.str.ptr);
			else
				snprintf(key, sizeof(key), "?");
			jsonw_key(j, key);
			json_obj(j, &o->via.map.ptr[i].val);
		}
		jsonw_obj_end(j);
		break;
	default:
		jsonw_null(j);	/* bin and ext never appear in replies */
		break;
	}
}

static void
print_json(const msgpack_object *o)
{
	struct jsonw	j;

	jsonw_init(&j, stdout);
	json_obj(&j, o);
	jsonw_end(&j);
}

/* Compact text of any value: scalars as bwctl get prints them. */
static void
text_obj(FILE *f, const msgpack_object *o)
{
	char		buf[320];
	uint32_t	i;

	if (cvalue_format(o, buf, sizeof(buf)) >= 0) {
		fputs(buf, f);
		return;
	}
	switch (o->type) {
	case MSGPACK_OBJECT_ARRAY:
		fputc('[', f);
		for (i = 0; i < o->via.array.size; i++) {
			if (i > 0)
				fputc(',', f);
			text_obj(f, &o->via.array.ptr[i]);
		}
		fputc(']', f);
		break;
	case MSGPACK_OBJECT_MAP:
		fputc('{', f);
		for (i = 0; i < o->via.map.size; i++) {
			if (i > 0)
				fputc(' ', f);
			text_obj(f, &o->via.map.ptr[i].key);
			fputc('=', f);
			text_obj(f, &o->via.map.ptr[i].val);
		}
		fputc('}', f);
		break;
	case MSGPACK_OBJECT_NIL:
		fputs("-", f);
		break;
	default:
		fputs("?", f);
		break;
	}
}

/* map[key], or NULL */
static const msgpack_object *
find(const msgpack_object *map, const char *key)
{
	return bwp_msg_find(NULL, map, key);
}

/* How a column or a status line shows its value; --json keeps it raw. */
enum fmt {
	F_RAW,		/* as the daemon sent it */
	F_NS,		/* a duration in ns: ns, µs, ms or s */
	F_Q,		/* Q, or "unregulated" */
	F_BUDGET,	/* events per period, or "unlimited" */
	F_MBPS,		/* events per period as MB/s (needs the period) */
	F_YESNO,	/* a bool as yes/no */
	F_PCT,		/* a share in [0, 1] as a percentage */
};

/* The text of map[key] in buf, formatted as fmt ("-" when absent). */
static const char *
field(const msgpack_object *map, const char *key, enum fmt fmt,
    double period_ns, char *buf, size_t len)
{
	const msgpack_object	*v = find(map, key);
	double			 x = 0;
	FILE			*f;

	if (v == NULL)
		return "-";
	if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		x = (double)v->via.u64;
	else if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		x = (double)v->via.i64;
	else if (v->type == MSGPACK_OBJECT_FLOAT32 ||
	    v->type == MSGPACK_OBJECT_FLOAT64)
		x = v->via.f64;
	else if (v->type == MSGPACK_OBJECT_BOOLEAN && fmt == F_YESNO)
		return v->via.boolean ? "yes" : "no";
	else
		fmt = F_RAW;
	/* the regulator's "no limit" budget */
	if ((fmt == F_BUDGET || fmt == F_MBPS) &&
	    v->type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
	    v->via.u64 == UINT64_MAX)
		return "unlimited";
	switch (fmt) {
	case F_NS:
		return human_ns(x, buf, len);
	case F_Q:
		return human_q(x, buf, len);
	case F_MBPS:
		return human_mbps(x, period_ns, buf, len);
	case F_PCT:
		snprintf(buf, len, "%.1f %%", 100 * x);
		return buf;
	default:
		break;
	}
	f = fmemopen(buf, len, "w");
	if (f == NULL)
		return "?";
	text_obj(f, v);
	fclose(f);
	buf[len - 1] = '\0';
	return buf;
}

struct col {
	const char	*key;
	const char	*head;
	int		 width;	/* negative: left-aligned */
	enum fmt	 fmt;
};

static void
print_table(const msgpack_object *rows, const struct col *cols,
    double period_ns)
{
	char		buf[256];
	const struct col *c;
	uint32_t	i;

	for (c = cols; c->key != NULL; c++)
		printf("%s%*s", c == cols ? "" : " ", c->width, c->head);
	putchar('\n');
	if (rows == NULL || rows->type != MSGPACK_OBJECT_ARRAY)
		return;
	for (i = 0; i < rows->via.array.size; i++) {
		for (c = cols; c->key != NULL; c++)
			printf("%s%*s", c == cols ? "" : " ", c->width,
			    field(&rows->via.array.ptr[i], c->key, c->fmt,
			    period_ns, buf, sizeof(buf)));
		putchar('\n');
	}
}

/* A status key as shown: durations lose their "_ns" and gain a unit. */
static void
print_status_line(const msgpack_object *r, const char *key)
{
	char	buf[256], label[64];
	size_t	n = strlen(key);
	enum fmt fmt = F_RAW;

	snprintf(label, sizeof(label), "%s", key);
	if (n > 3 && strcmp(key + n - 3, "_ns") == 0) {
		label[n - 3] = '\0';
		fmt = F_NS;
	} else if (strcmp(key, "q") == 0) {
		fmt = F_Q;
	} else if (strncmp(key, "share_", 6) == 0) {
		fmt = F_PCT;
	} else {
		fmt = F_YESNO;	/* bools as yes/no, the rest as sent */
	}
	printf("%-16s %s\n", label, field(r, key, fmt, 0, buf, sizeof(buf)));
}

static void
print_status(const msgpack_object *r)
{
	static const char *const keys[] = { "version", "uptime_ns",
		"period_ns", "lead_ns", "policy", "regulator",
		"be_regulated", "clients",
		"tasks", "kernels", "holders", "q", "periods", "late",
		"fallbacks", "lead_current_ns", "lookahead", "share_dynamic",
		"share_lookahead", "share_static", "lock_enforce_mean_ns",
		NULL };
	static const struct col cores[] = {
		{ "cpu", "CPU", 4, F_RAW },
		{ "budget", "BUDGET/PERIOD", 14, F_BUDGET },
		{ "budget", "BUDGET", 14, F_MBPS },
		{ "events", "EVENTS", 14, F_RAW },
		{ "throttles", "THROTTLES", 10, F_RAW },
		{ "throttled_ns", "THROTTLED", 12, F_NS },
		{ NULL, NULL, 0, F_RAW } };
	const msgpack_object	*period = find(r, "period_ns"), *v;
	const char *const *k;
	uint32_t	i;

	for (k = keys; *k != NULL; k++)
		print_status_line(r, *k);
	/* keys this bwctl does not know yet, so nothing is hidden */
	for (i = 0; i < r->via.map.size; i++) {
		const msgpack_object *key = &r->via.map.ptr[i].key;
		char	name[64];

		if (key->type != MSGPACK_OBJECT_STR)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)key->via.str.size,
		    key->via.str.ptr);
		for (k = keys; *k != NULL && strcmp(*k, name) != 0; k++)
			;
		if (*k != NULL || strcmp(name, "id") == 0 ||
		    strcmp(name, "status") == 0 || strcmp(name, "cores") == 0)
			continue;
		print_status_line(r, name);
	}
	v = find(r, "be_regulated");
	if (v != NULL && v->type == MSGPACK_OBJECT_BOOLEAN && !v->via.boolean)
		printf("\nNOTE: the regulator is simulated: the best-effort "
		    "cores are NOT really regulated\n");
	if (find(r, "cores") != NULL) {
		putchar('\n');
		print_table(find(r, "cores"), cores, period != NULL &&
		    period->type == MSGPACK_OBJECT_POSITIVE_INTEGER ?
		    (double)period->via.u64 : 0);
	}
}

/* A string reply as it is (metrics' text). */
static void
print_text(const msgpack_object *o)
{
	if (o != NULL && o->type == MSGPACK_OBJECT_STR)
		fwrite(o->via.str.ptr, 1, o->via.str.size, stdout);
}

/* ---- protocol ----------------------------------------------------- */

static void
ctl_connect(struct ctl *c, const char *path)
{
	c->sock = bwp_wire_connect(path);
	if (c->sock == -ENAMETOOLONG)
		die(EX_USAGE, "socket path too long: %s", path);
	if (c->sock < 0)
		die(EX_CONNECT, "cannot connect to %s: %s", path,
		    strerror(-c->sock));
}

/* Receive one message that is not a stale reply; exits when the link breaks. */
static void
ctl_recv(struct ctl *c, struct bwp_msg *m)
{
	struct bwp_recv	r;
	int		rc;

	for (;;) {
		rc = bwp_wire_recv(c->sock, c->buf, BWP_RECV_BUF, &r, 0);
		if (rc == 0)
			die(EX_CONNECT, "the daemon closed the connection");
		if (rc < 0)
			die(EX_CONNECT, "receive: %s", strerror(-rc));
		bwp_wire_close_fds(&r);
		if (r.toobig)
			die(EX_CONNECT, "message of %zu bytes from the daemon",
			    r.len);
		bwp_msg_init(m);
		if (bwp_msg_parse(m, c->buf, r.len) == BWP_OK)
			return;
		fprintf(stderr, "bwctl: bad message from the daemon: %s\n",
		    m->err);
		bwp_msg_free(m);
	}
}

/*
 * Send the request in w and wait for its reply.  A daemon error is
 * printed (and, with --json, the reply too) and exits EX_DAEMON.
 */
static void
ctl_call(struct ctl *c, struct bwp_writer *w, uint64_t id, struct bwp_msg *m)
{
	uint64_t	rid, st;
	char		err[BWP_ERR_MAX];
	const void	*buf;
	size_t		 len;
	int		 rc;

	buf = bwp_w_finish(w, &len);
	if (buf == NULL)
		die(EX_CONNECT, "out of memory");
	rc = bwp_wire_send(c->sock, buf, len, NULL, 0, 0);
	bwp_w_free(w);
	if (rc < 0)
		die(EX_CONNECT, "send: %s", strerror(-rc));
	for (;;) {
		ctl_recv(c, m);
		if (bwp_msg_find(m, NULL, BWP_K_EVENT) == NULL &&
		    bwp_get_uint(m, NULL, BWP_K_ID, true, 0, UINT64_MAX,
		    &rid) == 1 && rid == id)
			break;
		bwp_msg_free(m);
	}
	if (bwp_get_uint(m, NULL, BWP_K_STATUS, true, 0, UINT64_MAX,
	    &st) != 1)
		die(EX_CONNECT, "reply without a status");
	if (st == BWP_OK)
		return;
	if (bwp_get_str(m, NULL, BWP_K_ERROR, false, 0, sizeof(err) - 1,
	    err) != 1)
		strcpy(err, "(no message)");
	if (c->json)
		print_json(m->map);
	die(EX_DAEMON, "%s: %s", bwp_status_name((int)st), err);
}

static uint64_t
ctl_request(struct ctl *c, struct bwp_writer *w, enum bwp_op op)
{
	uint64_t	id = c->next_id++;

	bwp_w_init(w);
	bwp_w_request(w, id, op);
	return id;
}

static void
ctl_hello(struct ctl *c)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id = ctl_request(c, &w, BWP_OP_HELLO);

	bwp_w_kuint(&w, "pid", (uint64_t)getpid());
	bwp_w_kstr(&w, "name", "bwctl");
	ctl_call(c, &w, id, &m);
	bwp_msg_free(&m);
}

/* ---- commands ----------------------------------------------------- */

static const struct col task_cols[] = {
	{ "task", "TASK", 5, F_RAW }, { "pid", "PID", 8, F_RAW },
	{ "name", "NAME", -16, F_RAW }, { "period_ns", "PERIOD", 10, F_NS },
	{ "priority", "PRIO", 4, F_RAW }, { "locked", "LOCKED", 6, F_YESNO },
	{ "streams", "STREAMS", 7, F_RAW }, { "kernels", "KERNELS", 7, F_RAW },
	{ "pages", "PAGES", 5, F_RAW }, { NULL, NULL, 0, F_RAW } };

static const struct col kernel_cols[] = {
	{ "task", "TASK", 5, F_RAW }, { "kernel", "KERNEL", 6, F_RAW },
	{ "name", "NAME", -16, F_RAW }, { "blocks", "BLOCKS", 8, F_RAW },
	{ "concurrency", "M", 5, F_RAW }, { "q_nominal", "Q-BAR", 7, F_Q },
	{ "wcet0_ns", "ALONE", 10, F_NS }, { "wcet_ns", "BOUND", 10, F_NS },
	{ "launches", "LAUNCHES", 8, F_RAW },
	{ "running_launches", "RUNNING", 7, F_RAW },
	{ "clusters", "CLUSTERS [E0,E1]", -1, F_RAW },
	{ NULL, NULL, 0, F_RAW } };

static int
cmd_simple(struct ctl *c, enum bwp_op op, int argc, char **argv)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id, task;
	char			*end;

	id = ctl_request(c, &w, op);
	if (argc == 1) {
		errno = 0;
		task = strtoull(argv[0], &end, 10);
		if (errno != 0 || *end != '\0' || *argv[0] == '-')
			die(EX_USAGE, "kernels: bad task id '%s'", argv[0]);
		bwp_w_kuint(&w, "task", task);
	}
	ctl_call(c, &w, id, &m);
	if (c->json)
		print_json(m.map);
	else if (op == BWP_OP_STATUS)
		print_status(m.map);
	else if (op == BWP_OP_METRICS)
		print_text(find(m.map, "text"));
	else if (op == BWP_OP_TASKS)
		print_table(find(m.map, "tasks"), task_cols, 0);
	else if (op == BWP_OP_PARTITIONS)
		bwctl_partitions_print(m.map);
	else
		print_table(find(m.map, "kernels"), kernel_cols, 0);
	bwp_msg_free(&m);
	return EX_OK;
}

static int
cmd_get_set(struct ctl *c, bool set, int argc, char **argv)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id;
	char			buf[256];

	if (strlen(argv[0]) > BWP_MAX_KEY)
		die(EX_USAGE, "key longer than %d bytes", BWP_MAX_KEY);
	if (set && strlen(argv[1]) > BWP_MAX_VALUE)
		die(EX_USAGE, "value longer than %d bytes", BWP_MAX_VALUE);
	id = ctl_request(c, &w, set ? BWP_OP_SET : BWP_OP_GET);
	bwp_w_kstr(&w, "key", argv[0]);
	if (set) {
		bwp_w_key(&w, "value");
		cvalue_write(&w, argv[1]);
	}
	ctl_call(c, &w, id, &m);
	if (c->json)
		print_json(m.map);
	else if (set)
		printf("%s = %s\n", argv[0], field(m.map, "value", F_RAW, 0,
		    buf, sizeof(buf)));
	else
		printf("%s\n", field(m.map, "value", F_RAW, 0, buf,
		    sizeof(buf)));
	bwp_msg_free(&m);
	return EX_OK;
}

static void __attribute__((noreturn))
cmd_subscribe(struct ctl *c, int argc, char **argv)
{
	struct bwp_writer	 w;
	struct bwp_msg		 m;
	const msgpack_object	*ev;
	uint64_t		 id;
	uint32_t		 i;
	int			 a;

	id = ctl_request(c, &w, BWP_OP_SUBSCRIBE);
	bwp_w_key(&w, "topics");
	bwp_w_array(&w, argc > 0 ? (uint32_t)argc : 4);
	for (a = 0; a < (argc > 0 ? argc : 4); a++)
		bwp_w_str(&w, argc > 0 ? argv[a] : topics_all[a]);
	ctl_call(c, &w, id, &m);
	if (c->json)
		print_json(m.map);
	bwp_msg_free(&m);
	fflush(stdout);
	for (;;) {
		ctl_recv(c, &m);	/* exits EX_CONNECT when the daemon stops */
		ev = bwp_msg_find(&m, NULL, BWP_K_EVENT);
		if (ev == NULL) {
			bwp_msg_free(&m);
			continue;
		}
		if (c->json) {
			print_json(m.map);
		} else {
			text_obj(stdout, ev);
			for (i = 0; i < m.map->via.map.size; i++) {
				const msgpack_object_kv *kv =
				    &m.map->via.map.ptr[i];

				if (&kv->val == ev)
					continue;
				putchar(' ');
				text_obj(stdout, &kv->key);
				putchar('=');
				text_obj(stdout, &kv->val);
			}
			putchar('\n');
		}
		fflush(stdout);
		bwp_msg_free(&m);
	}
}

/* Usage errors are found before connecting, so they exit EX_USAGE. */
static void
check_args(const char *cmd, int argc, char **argv)
{
	int	a, n;

	if ((strcmp(cmd, "status") == 0 || strcmp(cmd, "tasks") == 0 ||
	    strcmp(cmd, "metrics") == 0 ||
	    strcmp(cmd, "partitions") == 0) && argc != 0)
		die(EX_USAGE, "%s takes no arguments", cmd);
	if (strcmp(cmd, "kernels") == 0 && argc > 1)
		die(EX_USAGE, "usage: kernels [TASK]");
	if (strcmp(cmd, "get") == 0 && argc != 1)
		die(EX_USAGE, "usage: get KEY");
	if (strcmp(cmd, "set") == 0 && argc != 2)
		die(EX_USAGE, "usage: set KEY VALUE");
	if (strcmp(cmd, "subscribe") != 0)
		return;
	if (argc > BWP_MAX_TOPICS)
		die(EX_USAGE, "at most %d topics", BWP_MAX_TOPICS);
	for (a = 0; a < argc; a++) {
		for (n = 0; n < 4 && strcmp(argv[a], topics_all[n]) != 0; n++)
			;
		if (n == 4)
			die(EX_USAGE, "unknown topic '%s' (lock kernel period "
			    "log)", argv[a]);
	}
}

/*
 * The global options may also follow the command, as people type them
 * (`bwctl status --json`).  They are taken out of argv wherever they
 * stand before a "--"; a negative number stays an argument (`set KEY
 * -1`), and so does every option of top and trace but -s.  Returns the
 * new argc.
 */
static int
late_options(int argc, char **argv, const char **path, bool *json)
{
	int	i, n = 0;
	bool	rest = false;

	for (i = 0; i < argc; i++) {
		const char	*a = argv[i];

		if (rest || a[0] != '-' || a[1] == '\0' ||
		    (a[1] >= '0' && a[1] <= '9') || a[1] == '.') {
			argv[n++] = argv[i];
		} else if (strcmp(a, "--") == 0) {
			rest = true;
		} else if (strcmp(a, "-s") == 0 || strcmp(a, "--socket") == 0) {
			if (i + 1 == argc)
				die(EX_USAGE, "%s needs a path", a);
			*path = argv[++i];
		} else if (strncmp(a, "--socket=", 9) == 0) {
			*path = a + 9;
		} else if (json != NULL && (strcmp(a, "-j") == 0 ||
		    strcmp(a, "--json") == 0)) {
			*json = true;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(EX_OK);
		} else if (json == NULL) {
			argv[n++] = argv[i];	/* top's and trace's own */
		} else {
			die(EX_USAGE, "unknown option '%s' (see bwctl --help)",
			    a);
		}
	}
	argv[n] = NULL;
	return n;
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctl	 c = { .sock = -1, .next_id = 1 };
	const char	*path = NULL, *cmd;
	int		 o;

	while ((o = getopt_long(argc, argv, "+s:jVh", lopts, NULL)) != -1) {
		switch (o) {
		case 's':
			path = optarg;
			break;
		case 'j':
			c.json = true;
			break;
		case 'V':
			printf("bwctl %s\n", PACKAGE_VERSION);
			return EX_OK;
		case 'h':
			usage(stdout);
			return EX_OK;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EX_USAGE;
	}
	cmd = argv[optind++];
	argc -= optind;
	argv += optind;
	if (strcmp(cmd, "status") != 0 && strcmp(cmd, "tasks") != 0 &&
	    strcmp(cmd, "kernels") != 0 && strcmp(cmd, "get") != 0 &&
	    strcmp(cmd, "set") != 0 && strcmp(cmd, "subscribe") != 0 &&
	    strcmp(cmd, "top") != 0 && strcmp(cmd, "trace") != 0 &&
	    strcmp(cmd, "metrics") != 0 &&
	    strcmp(cmd, "partitions") != 0) {
		fprintf(stderr, "bwctl: unknown command '%s'\n", cmd);
		usage(stderr);
		return EX_USAGE;
	}
	/* top and trace take --json as an error of their own */
	argc = late_options(argc, argv, &path, strcmp(cmd, "top") != 0 &&
	    strcmp(cmd, "trace") != 0 ? &c.json : NULL);
	check_args(cmd, argc, argv);
	if (path == NULL)
		path = getenv(BWP_SOCKET_ENV);
	if (path == NULL || *path == '\0')
		path = BWP_SOCKET_DEFAULT;
	/* these keep their own connection; argv[-1] is the command */
	if (strcmp(cmd, "top") == 0)
		return bwctl_top(path, argc, argv);
	if (strcmp(cmd, "trace") == 0)
		return bwctl_trace(path, argc, argv);
	c.buf = malloc(BWP_RECV_BUF);
	if (c.buf == NULL)
		die(EX_CONNECT, "out of memory");
	ctl_connect(&c, path);
	ctl_hello(&c);
	if (strcmp(cmd, "status") == 0)
		o = cmd_simple(&c, BWP_OP_STATUS, argc, argv);
	else if (strcmp(cmd, "tasks") == 0)
		o = cmd_simple(&c, BWP_OP_TASKS, argc, argv);
	else if (strcmp(cmd, "kernels") == 0)
		o = cmd_simple(&c, BWP_OP_KERNELS, argc, argv);
	else if (strcmp(cmd, "metrics") == 0)
		o = cmd_simple(&c, BWP_OP_METRICS, argc, argv);
	else if (strcmp(cmd, "partitions") == 0)
		o = cmd_simple(&c, BWP_OP_PARTITIONS, argc, argv);
	else if (strcmp(cmd, "get") == 0 || strcmp(cmd, "set") == 0)
		o = cmd_get_set(&c, strcmp(cmd, "set") == 0, argc, argv);
	else
		cmd_subscribe(&c, argc, argv);
	close(c.sock);
	free(c.buf);
	return o;
}
