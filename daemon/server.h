/*
 * server.h - the listening socket (systemd-activated or our own), the
 * accept path with the client limit, the reaper of closed peers and the
 * broadcast of events to subscribers.
 */
#ifndef SERVER_H
#define SERVER_H

#include <stddef.h>

#include "bwsched.h"

int	server_open(struct bwsched *, char *err, size_t errlen);
void	server_close(struct bwsched *);

/* Send one finished message to every live subscriber of topic. */
void	server_broadcast(struct bwsched *, unsigned int topic,
	    struct bwp_writer *);
/* Whether any live peer subscribes to topic (skip building events). */
bool	server_anyone(const struct bwsched *, unsigned int topic);

/* tasks hooks and the log hook */
void	server_event_lock(void *, const struct task *, bool locked);
void	server_event_kernel(void *, const struct task *,
	    const struct kernel *, uint64_t launch, const char *what,
	    uint64_t ts_ns);
void	server_event_log(void *, int level, const char *msg);

#endif /* SERVER_H */
