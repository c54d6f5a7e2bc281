/*
 * tc.c - synchronous protocol client for the daemon tests (see tc.h).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <bwsched/bwshm.h>

#include "tc.h"

int	tc_failures;

void
tc_fail(const char *file, int line, const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	tc_failures++;
}
static uint64_t	next_id = 1;
static uint8_t	rbuf[BWP_RECV_BUF];

int
tc_connect(const char *path)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	int			fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int
tc_send(int fd, struct bwp_writer *w, const int *fds, int nfds)
{
	size_t		 len;
	const void	*buf = bwp_w_finish(w, &len);
	int		 r;

	r = buf != NULL ? bwp_wire_send(fd, buf, len, fds, nfds, 0) : -1;
	bwp_w_free(w);
	return r;
}

int
tc_send_raw(int fd, const void *buf, size_t len)
{
	return bwp_wire_send(fd, buf, len, NULL, 0, 0);
}

int
tc_recv(int fd, struct bwp_msg *m, int timeout_ms)
{
	struct pollfd	p = { .fd = fd, .events = POLLIN };
	struct bwp_recv	rv;
	int		r;

	bwp_msg_init(m);
	if (poll(&p, 1, timeout_ms) <= 0)
		return -1;
	r = bwp_wire_recv(fd, rbuf, sizeof(rbuf), &rv, 0);
	bwp_wire_close_fds(&rv);
	if (r <= 0)
		return r == 0 || r == -ECONNRESET ? 0 : -1;
	if (bwp_msg_parse(m, rbuf, rv.len) != BWP_OK)
		return -1;
	return 1;
}

int
tc_reply(int fd, struct bwp_msg *m, int timeout_ms)
{
	int	r;

	for (;;) {
		r = tc_recv(fd, m, timeout_ms);
		if (r <= 0)
			return r;
		if (bwp_msg_find(m, NULL, BWP_K_STATUS) != NULL)
			return 1;
		bwp_msg_free(m);
	}
}

uint64_t
tc_uint(struct bwp_msg *m, const char *key)
{
	const msgpack_object	*o = bwp_msg_find(m, NULL, key);

	if (o == NULL || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return UINT64_MAX - 1;
	return o->via.u64;
}

bool
tc_bool(struct bwp_msg *m, const char *key)
{
	const msgpack_object	*o = bwp_msg_find(m, NULL, key);

	return o != NULL && o->type == MSGPACK_OBJECT_BOOLEAN &&
	    o->via.boolean;
}

double
tc_double(struct bwp_msg *m, const char *key)
{
	const msgpack_object	*o = bwp_msg_find(m, NULL, key);
	double			d;

	if (o == NULL || bwp_obj_double(o, &d) < 0)
		return -1e300;
	return d;
}

int
tc_status(struct bwp_msg *m)
{
	return (int)tc_uint(m, BWP_K_STATUS);
}

int
tc_simple(int fd, enum bwp_op op, struct bwp_msg *reply)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	int			st;

	bwp_w_init(&w);
	bwp_w_request(&w, next_id++, op);
	if (tc_send(fd, &w, NULL, 0) < 0 || tc_reply(fd, &m, 2000) <= 0)
		return -1;
	st = tc_status(&m);
	if (reply != NULL)
		*reply = m;
	else
		bwp_msg_free(&m);
	return st;
}

int
tc_hello(int fd, const char *name)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	int			st;

	bwp_w_init(&w);
	bwp_w_request(&w, next_id++, BWP_OP_HELLO);
	bwp_w_kuint(&w, "pid", (uint64_t)getpid());
	bwp_w_kstr(&w, "name", name);
	if (tc_send(fd, &w, NULL, 0) < 0 || tc_reply(fd, &m, 2000) <= 0)
		return -1;
	st = tc_status(&m);
	bwp_msg_free(&m);
	return st;
}

int
tc_task_page(void **map)
{
	struct bwshm_task_page	*p;
	int			fd;

	fd = memfd_create("bwtask", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, BWSHM_TASK_PAGE_SIZE) < 0)
		return -1;
	p = mmap(NULL, BWSHM_TASK_PAGE_SIZE, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	p->magic = BWSHM_TASK_MAGIC;
	p->version = BWSHM_LAYOUT_VERSION;
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	*map = p;
	return fd;
}

int
tc_progress_page(uint32_t nslots, uint32_t max_blocks)
{
	struct bwshm_progress_hdr	h = { 0 };
	uint64_t			size = BWSHM_PROGRESS_SIZE(nslots,
					    max_blocks);
	int				fd;

	fd = memfd_create("bwprogress", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		return -1;
	h.magic = BWSHM_PROGRESS_MAGIC;
	h.version = BWSHM_LAYOUT_VERSION;
	h.nslots = nslots;
	h.max_blocks = max_blocks;
	h.slot_size = BWSHM_SLOT_SIZE(max_blocks);
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -1;
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	return fd;
}
