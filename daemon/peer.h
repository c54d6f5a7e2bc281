/*
 * peer.h - one client connection: identity from SO_PEERCRED, the receive
 * path with rate limiting and bad-input counting, and a bounded output
 * queue drained by a write watcher so a slow reader never blocks the loop.
 */
#ifndef PEER_H
#define PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "bwproto.h"
#include "bwsched.h"

struct outbuf {
	struct outbuf	*next;
	size_t		len;
	int		nfds;		/* descriptors going with it (owned) */
	int		fds[BWP_MAX_FDS];
	uint8_t		data[];
};

struct peer {
	struct peer	*next, *prev;
	struct bwsched	*d;
	int		fd;
	ev_io		rio, wio;
	uint32_t	id;
	pid_t		pid;
	uid_t		uid;
	gid_t		gid;
	gid_t		*groups;	/* supplementary, at connect() */
	unsigned int	ngroups;
	bool		hello;
	bool		dead;		/* closed at the next idle */
	char		name[BWP_MAX_NAME + 1];
	struct task	*task;
	unsigned int	topics;		/* TOPIC_* */
	struct outbuf	*qhead, **qtail;
	size_t		qbytes;
	double		tokens;		/* rate limit bucket */
	double		refill;		/* ev_now() of the last refill */
	unsigned int	bad_in_row;
	uint64_t	rate_in_row;
};

/* Take an accepted connection; NULL (fd closed) on failure. */
struct peer	*peer_new(struct bwsched *, int fd);
/* Release everything the peer had (task, locks, kernels) and free it. */
void		 peer_free(struct peer *);
/* Mark for closing; the reaper frees it outside any callback chain. */
void		 peer_kill(struct peer *, const char *why);

/* Queue one message; kills the peer when over max_output_bytes. */
void		 peer_send(struct peer *, const void *buf, size_t len);
/* The same with descriptors (SCM_RIGHTS); the caller keeps its own: a
 * queued message holds duplicates until it is sent. */
void		 peer_send_fds(struct peer *, const void *buf, size_t len,
		    const int *fds, int nfds);

/*
 * Admin test: uid 0, or the admin group of the running configuration
 * among the groups the peer had at connect(): a reload that changes
 * admin_group applies to connected clients at their next request.
 */
bool		 peer_admin(const struct peer *);

#endif /* PEER_H */
