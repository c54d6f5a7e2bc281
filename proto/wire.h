/*
 * wire.h - one protocol message per SOCK_SEQPACKET datagram, with up to
 * BWP_MAX_FDS descriptors in SCM_RIGHTS, and the checks on the memfd
 * pages a client passes (doc/protocol.md "Framing", "Shared pages").
 */
#ifndef BWP_WIRE_H
#define BWP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bwproto.h"

/* Receive buffer size: one byte more than the limit to see overruns. */
#define BWP_RECV_BUF	(BWP_MAX_MSG + 1)

struct bwp_recv {
	size_t	len;		/* datagram bytes (real size) */
	bool	toobig;		/* over BWP_MAX_MSG: do not decode */
	bool	fds_lost;	/* more than BWP_MAX_FDS were sent */
	int	nfds;
	int	fds[BWP_MAX_FDS];
};

/*
 * Connect a SOCK_SEQPACKET socket (close-on-exec, blocking) to the
 * daemon at path.  Returns the descriptor or -errno (-ENAMETOOLONG when
 * path does not fit sun_path).
 */
int	bwp_wire_connect(const char *path);

/*
 * Send one datagram (MSG_NOSIGNAL plus flags, e.g. MSG_DONTWAIT) with
 * nfds descriptors.  Returns 0 or -errno.
 */
int	bwp_wire_send(int sock, const void *buf, size_t len, const int *fds,
	    int nfds, int flags);

/*
 * Receive one datagram into buf (cap >= BWP_RECV_BUF) with its
 * descriptors (close-on-exec).  Returns 1 with *r filled, 0 on orderly
 * end of the connection, -errno on error (-EAGAIN when nothing waits).
 * Descriptors beyond BWP_MAX_FDS are closed by the kernel or here.
 */
int	bwp_wire_recv(int sock, void *buf, size_t cap, struct bwp_recv *r,
	    int flags);

/* Close every descriptor still in r (the caller sets used ones to -1). */
void	bwp_wire_close_fds(struct bwp_recv *r);

/*
 * Check a page descriptor: a memfd whose seals include
 * F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL.  Returns 0 with its size, or -1
 * with the reason in err.
 */
int	bwp_memfd_check(int fd, uint64_t *size, char *err, size_t errlen);

/* Check a mapped task page of size bytes: size, magic, version. */
int	bwp_task_page_check(const void *page, uint64_t size, char *err,
	    size_t errlen);

/*
 * Check a progress page from fd (header read with pread) against its
 * size.  Returns 0, or -1 with the reason.
 */
int	bwp_progress_page_check(int fd, uint64_t size, char *err,
	    size_t errlen);

#endif /* BWP_WIRE_H */
