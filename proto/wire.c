/*
 * wire.c - datagram framing, descriptor passing and page checks (see
 * wire.h).
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <bwsched/bwshm.h>

#include "wire.h"

#define PAGE_SEALS	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

int
bwp_wire_connect(const char *path)
{
	struct sockaddr_un	sa;
	int			s, e;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = -errno;
		close(s);
		return e;
	}
	return s;
}

int
bwp_wire_send(int sock, const void *buf, size_t len, const int *fds,
    int nfds, int flags)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int) * BWP_MAX_FDS)];
		struct cmsghdr	align;
	} ctl;
	struct iovec	iov = { .iov_base = (void *)(uintptr_t)buf,
			    .iov_len = len };
	struct msghdr	mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr	*c;
	ssize_t		n;

	if (nfds < 0 || nfds > BWP_MAX_FDS)
		return -EINVAL;
	if (nfds > 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL | flags);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

static void
take_fds(struct msghdr *mh, struct bwp_recv *r)
{
	struct cmsghdr	*c;
	size_t		i, n;
	int		fd;

	for (c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int),
			    sizeof(int));
			if (r->nfds < BWP_MAX_FDS)
				r->fds[r->nfds++] = fd;
			else {
				close(fd);
				r->fds_lost = true;
			}
		}
	}
}

/*
 * A SOCK_SEQPACKET read of 0 bytes is either the peer's hang-up or an
 * empty message, which is a malformed request and not a reason to drop
 * the sender's task.  Only a hang-up leaves the socket shut for reading.
 */
static bool
peer_gone(int sock)
{
	struct pollfd	p = { .fd = sock, .events = POLLRDHUP };

	if (poll(&p, 1, 0) < 0)
		return true;
	return (p.revents & (POLLRDHUP | POLLHUP)) != 0;
}

int
bwp_wire_recv(int sock, void *buf, size_t cap, struct bwp_recv *r, int flags)
{
	union {
		/* room for one more than allowed, to notice extras */
		char		buf[CMSG_SPACE(sizeof(int) *
				    (BWP_MAX_FDS + 1))];
		struct cmsghdr	align;
	} ctl;
	struct iovec	iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr	mh = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	ssize_t		n;

	memset(r, 0, sizeof(*r));
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_TRUNC | flags);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	take_fds(&mh, r);
	if (mh.msg_flags & MSG_CTRUNC)
		r->fds_lost = true;
	if (n == 0 && r->nfds == 0 && !(mh.msg_flags & MSG_TRUNC) &&
	    peer_gone(sock))
		return 0;
	r->len = (size_t)n;
	if ((mh.msg_flags & MSG_TRUNC) || r->len > BWP_MAX_MSG ||
	    r->len > cap)
		r->toobig = true;
	return 1;
}

void
bwp_wire_close_fds(struct bwp_recv *r)
{
	int	i;

	for (i = 0; i < r->nfds; i++)
		if (r->fds[i] >= 0)
			close(r->fds[i]);
	r->nfds = 0;
}

int
bwp_memfd_check(int fd, uint64_t *size, char *err, size_t errlen)
{
	struct stat	st;
	int		seals;

	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0) {
		snprintf(err, errlen, "descriptor is not a memfd (%s)",
		    strerror(errno));
		return -1;
	}
	if ((seals & PAGE_SEALS) != PAGE_SEALS) {
		snprintf(err, errlen, "memfd lacks seals (has 0x%x, needs "
		    "SHRINK|GROW|SEAL)", seals);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "cannot stat memfd");
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return 0;
}

int
bwp_task_page_check(const void *page, uint64_t size, char *err,
    size_t errlen)
{
	const struct bwshm_task_page	*tp = page;

	if (size != BWSHM_TASK_PAGE_SIZE) {
		snprintf(err, errlen, "task page is %llu bytes, must be %d",
		    (unsigned long long)size, BWSHM_TASK_PAGE_SIZE);
		return -1;
	}
	if (__atomic_load_n(&tp->magic, __ATOMIC_RELAXED) !=
	    BWSHM_TASK_MAGIC) {
		snprintf(err, errlen, "task page has a wrong magic");
		return -1;
	}
	if (__atomic_load_n(&tp->version, __ATOMIC_RELAXED) !=
	    BWSHM_LAYOUT_VERSION) {
		snprintf(err, errlen, "task page layout version is not %d",
		    BWSHM_LAYOUT_VERSION);
		return -1;
	}
	return 0;
}

int
bwp_progress_page_check(int fd, uint64_t size, char *err, size_t errlen)
{
	struct bwshm_progress_hdr	h;

	if (size < sizeof(h) || size > BWSHM_MAX_PROGRESS_SIZE) {
		snprintf(err, errlen, "progress page of %llu bytes outside "
		    "[%zu, %u]", (unsigned long long)size, sizeof(h),
		    BWSHM_MAX_PROGRESS_SIZE);
		return -1;
	}
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		snprintf(err, errlen, "cannot read the progress page header");
		return -1;
	}
	if (h.magic != BWSHM_PROGRESS_MAGIC ||
	    h.version != BWSHM_LAYOUT_VERSION) {
		snprintf(err, errlen, "progress page has a wrong magic or "
		    "version");
		return -1;
	}
	if (h.nslots < 1 || h.nslots > BWSHM_MAX_SLOTS ||
	    h.max_blocks < 1 || h.max_blocks > BWP_MAX_BLOCKS ||
	    h.slot_size != BWSHM_SLOT_SIZE(h.max_blocks)) {
		snprintf(err, errlen, "progress page header out of range "
		    "(nslots %u, max_blocks %u, slot_size %u)", h.nslots,
		    h.max_blocks, h.slot_size);
		return -1;
	}
	if (size != BWSHM_PROGRESS_SIZE(h.nslots, h.max_blocks)) {
		snprintf(err, errlen, "progress page is %llu bytes, header "
		    "says %llu", (unsigned long long)size,
		    (unsigned long long)BWSHM_PROGRESS_SIZE(h.nslots,
		    h.max_blocks));
		return -1;
	}
	return 0;
}
