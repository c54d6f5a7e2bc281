/*
 * abuse.c - hostile clients against a running bwsched: every case gets
 * its documented status, and after each one a well-behaved client is
 * still served.  abuse SOCKET inputs|flood|limits
 */
#include <config.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bwsched/bwshm.h>

#include "jmp.h"
#include "tc.h"

static const char	*sock;
static int		good = -1;

static void
still_serving(const char *after)
{
	TC_CHECK(tc_simple(good, BWP_OP_STATUS, NULL) == BWP_OK,
	    "daemon not serving after %s", after);
}

/* A good request on the bad connection too: it resets the bad-input
 * count, so the cases stay independent of BWP_BAD_INPUT_LIMIT. */
static void
reset(int fd, const char *after)
{
	TC_CHECK(tc_simple(fd, BWP_OP_STATUS, NULL) == BWP_OK,
	    "connection unusable after %s", after);
	still_serving(after);
}

static int
hello_conn(void)
{
	int	fd = tc_connect(sock);

	TC_CHECK(fd >= 0 && tc_hello(fd, "abuse") == BWP_OK, "hello");
	return fd;
}

/* Send raw bytes with descriptors; return the reply status (-1 none). */
static int
raw_status(int fd, const void *buf, size_t len, const int *fds, int nfds,
    char *err, size_t errlen)
{
	struct bwp_msg	m;
	char		e[BWP_ERR_MAX];
	int		st;

	if (bwp_wire_send(fd, buf, len, fds, nfds, 0) < 0 ||
	    tc_reply(fd, &m, 2000) <= 0)
		return -1;
	st = tc_status(&m);
	if (err != NULL && bwp_get_str(&m, NULL, "error", false, 0,
	    sizeof(e) - 1, e) > 0)
		snprintf(err, errlen, "%s", e);
	bwp_msg_free(&m);
	return st;
}

static int
json_status(int fd, const char *json, const int *fds, int nfds)
{
	size_t	len;
	void	*buf = jmp_message(json, &len);
	int	st;

	if (buf == NULL)
		return -2;
	st = raw_status(fd, buf, len, fds, nfds, NULL, 0);
	free(buf);
	return st;
}

static const struct {
	const char	*what;
	const char	*json;
	int		status;
} json_cases[] = {
	{ "non-map", "[1,2,3]", BWP_E_MALFORMED },
	{ "wrong types", "{\"v\":1,\"id\":1,\"op\":\"get\",\"key\":5}",
	    BWP_E_BADARG },
	{ "unknown op", "{\"v\":1,\"id\":1,\"op\":\"explode\"}",
	    BWP_E_UNKNOWN_OP },
	{ "wrong version", "{\"v\":9,\"id\":1,\"op\":\"status\"}",
	    BWP_E_VERSION },
	{ "missing version", "{\"id\":1,\"op\":\"status\"}", BWP_E_VERSION },
	{ "missing id", "{\"v\":1,\"op\":\"status\"}", BWP_E_BADARG },
	{ "hello again", "{\"v\":1,\"id\":1,\"op\":\"hello\",\"pid\":1,"
	    "\"name\":\"x\"}", BWP_E_EXIST },
};

static void
bad_inputs(int fd)
{
	static const uint8_t	trunc[] = { 0x83, 0xa1, 'v', 0x01 };
	uint8_t			*big;
	size_t			i;

	TC_CHECK(raw_status(fd, trunc, sizeof(trunc), NULL, 0, NULL, 0) ==
	    BWP_E_MALFORMED, "truncated msgpack");
	reset(fd, "truncated");
	big = calloc(1, 70000);
	big[0] = 0x80;
	TC_CHECK(raw_status(fd, big, 70000, NULL, 0, NULL, 0) == BWP_E_TOOBIG,
	    "oversized datagram");
	free(big);
	reset(fd, "oversized");
	for (i = 0; i < sizeof(json_cases) / sizeof(json_cases[0]); i++) {
		TC_CHECK(json_status(fd, json_cases[i].json, NULL, 0) ==
		    json_cases[i].status, "%s", json_cases[i].what);
		reset(fd, json_cases[i].what);
	}
}

#define TREG(pages) "{\"v\":1,\"id\":1,\"op\":\"task.register\"," \
	"\"name\":\"t\",\"period_ns\":1000000,\"priority\":5," \
	"\"pages\":" pages "}"

static void
bad_fds(int fd)
{
	struct bwshm_task_page	*tp;
	int			f, p[2];

	f = memfd_create("unsealed", MFD_CLOEXEC);
	TC_CHECK(ftruncate(f, BWSHM_TASK_PAGE_SIZE) == 0, "ftruncate");
	TC_CHECK(json_status(fd, TREG("1"), &f, 1) == BWP_E_BADFD,
	    "unsealed memfd");
	reset(fd, "unsealed memfd");
	close(f);
	f = memfd_create("small", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	TC_CHECK(ftruncate(f, 100) == 0, "ftruncate");
	fcntl(f, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	TC_CHECK(json_status(fd, TREG("1"), &f, 1) == BWP_E_BADFD,
	    "wrong-size memfd");
	reset(fd, "wrong-size memfd");
	close(f);
	TC_CHECK(pipe(p) == 0, "pipe");
	TC_CHECK(json_status(fd, TREG("1"), p, 1) == BWP_E_BADFD,
	    "non-memfd descriptor");
	reset(fd, "non-memfd descriptor");
	TC_CHECK(json_status(fd, "{\"v\":1,\"id\":1,\"op\":\"status\"}", p,
	    1) == BWP_E_BADFD, "descriptor on status");
	reset(fd, "descriptor on status");
	TC_CHECK(json_status(fd, TREG("3"), p, 1) == BWP_E_BADFD,
	    "descriptor count");
	reset(fd, "descriptor count");
	close(p[0]);
	close(p[1]);
	f = tc_task_page((void **)&tp);
	TC_CHECK(json_status(fd, TREG("2"), &f, 1) == BWP_E_BADFD,
	    "task page as progress page");
	reset(fd, "task page as progress page");
	close(f);
}

static void
identity(void)
{
	int	fd = tc_connect(sock);

	TC_CHECK(json_status(fd, "{\"v\":1,\"id\":1,\"op\":\"status\"}", NULL,
	    0) == BWP_E_NOHELLO, "op before hello");
	TC_CHECK(json_status(fd, "{\"v\":1,\"id\":1,\"op\":\"hello\","
	    "\"pid\":1,\"name\":\"init?\"}", NULL, 0) == BWP_E_PERM,
	    "hello with another pid");
	close(fd);
	still_serving("identity");
}

/* BWP_BAD_INPUT_LIMIT bad messages in a row: replies, then closed. */
static void
bad_limit(void)
{
	struct bwp_msg	m;
	int		fd = hello_conn(), i, st = 0;

	for (i = 0; i < BWP_BAD_INPUT_LIMIT; i++)
		st |= json_status(fd, "[0]", NULL, 0) != BWP_E_MALFORMED;
	TC_CHECK(st == 0, "eight MALFORMED replies");
	TC_CHECK(tc_send_raw(fd, "\x80", 1) < 0 || tc_recv(fd, &m, 2000) == 0,
	    "connection closed after %d bad messages", BWP_BAD_INPUT_LIMIT);
	close(fd);
	still_serving("bad-input limit");
}

static int
inputs(void)
{
	int	fd;

	good = hello_conn();
	fd = hello_conn();
	bad_inputs(fd);
	/* good messages in between reset the bad-input counter */
	TC_CHECK(tc_simple(fd, BWP_OP_STATUS, NULL) == BWP_OK, "good again");
	bad_fds(fd);
	TC_CHECK(tc_simple(fd, BWP_OP_STATUS, NULL) == BWP_OK,
	    "connection survives non-consecutive bad input");
	close(fd);
	identity();
	bad_limit();
	return tc_failures ? 1 : 0;
}

/* A subscriber that never reads is disconnected; nobody else suffers. */
static int
flood(void)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	int			slow, fd, i, clients = 0;

	good = hello_conn();
	slow = hello_conn();
	bwp_w_init(&w);
	bwp_w_request(&w, 1, BWP_OP_SUBSCRIBE);
	bwp_w_key(&w, "topics");
	jmp_pack(&w, "[\"lock\",\"kernel\",\"log\"]");
	tc_send(slow, &w, NULL, 0);
	TC_CHECK(tc_reply(slow, &m, 2000) == 1 && tc_status(&m) == BWP_OK,
	    "subscribe");
	bwp_msg_free(&m);
	fd = hello_conn();
	TC_CHECK(json_status(fd, TREG("0"), NULL, 0) == BWP_OK, "task");
	for (i = 0; i < 20000; i++) {
		tc_simple(fd, i % 2 ? BWP_OP_UNLOCK : BWP_OP_LOCK, NULL);
		if (i % 500 == 499) {
			TC_CHECK(tc_simple(good, BWP_OP_STATUS, &m) == BWP_OK,
			    "status during flood");
			clients = (int)tc_uint(&m, "clients");
			bwp_msg_free(&m);
			if (clients == 2)
				break;
		}
	}
	TC_CHECK(clients == 2, "slow subscriber disconnected (clients %d)",
	    clients);
	close(slow);
	close(fd);
	still_serving("slow reader");
	return tc_failures ? 1 : 0;
}

static void
too_many_clients(int max)
{
	struct bwp_msg	m;
	int		fds[64], i, extra;

	for (i = 0; i < max - 1; i++)
		fds[i] = hello_conn();
	extra = tc_connect(sock);
	TC_CHECK(extra < 0 || tc_hello(extra, "extra") < 0 ||
	    tc_recv(extra, &m, 1000) == 0, "client over max_clients refused");
	if (extra >= 0)
		close(extra);
	for (i = 0; i < max - 1; i++)
		close(fds[i]);
	usleep(100000);
	still_serving("too many clients");
}

static void
rate(int per_sec)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	int			fd = hello_conn(), i, rated = 0, got = 0;

	usleep(1100000);	/* full bucket */
	for (i = 0; i < per_sec * 2; i++) {
		bwp_w_init(&w);
		bwp_w_request(&w, (uint64_t)i, BWP_OP_STATUS);
		tc_send(fd, &w, NULL, 0);
	}
	while (got < per_sec * 2 && tc_recv(fd, &m, 2000) == 1) {
		got++;
		rated += tc_status(&m) == BWP_E_RATE;
		bwp_msg_free(&m);
	}
	TC_CHECK(rated > 0 && rated < per_sec * 2, "RATE replies: %d of %d",
	    rated, got);
	usleep(1100000);
	TC_CHECK(tc_simple(fd, BWP_OP_STATUS, NULL) == BWP_OK,
	    "served again after a pause");
	/* persistent flooding: closed */
	for (i = 0; i < per_sec * 4; i++) {
		bwp_w_init(&w);
		bwp_w_request(&w, (uint64_t)i, BWP_OP_STATUS);
		if (tc_send(fd, &w, NULL, 0) < 0)
			break;
	}
	while ((i = tc_recv(fd, &m, 2000)) == 1)
		bwp_msg_free(&m);
	TC_CHECK(i == 0, "flooder closed");
	close(fd);
	still_serving("rate limit");
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: abuse SOCKET inputs|flood|limits "
		    "MAXCLIENTS RATE\n");
		return 2;
	}
	sock = argv[1];
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(argv[2], "inputs") == 0)
		return inputs();
	if (strcmp(argv[2], "flood") == 0)
		return flood();
	if (strcmp(argv[2], "limits") == 0 && argc == 5) {
		good = hello_conn();
		too_many_clients(atoi(argv[3]));
		rate(atoi(argv[4]));
		return tc_failures ? 1 : 0;
	}
	return 2;
}
