/*
 * bwsched.h - the daemon's shared state: one instance, owned by main(),
 * run by service.c and read by the server, the peers, the ops and the
 * engine.  Nothing here calls up into them: the request handlers are
 * hooks that main() wires, so peer.c does not depend on ops.c.
 */
#ifndef BWSCHED_H
#define BWSCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "conf.h"
#include "monoclock.h"
#include "regulator.h"
#include "tasks.h"

struct bwp_recv;
struct engine;
struct peer;

/* What peer.c calls for a request (ops.c's, wired by main()). */
struct bwsched_requests {
	void	(*dispatch)(struct peer *, struct bwp_recv *);
	void	(*reject_rate)(struct peer *, struct bwp_recv *);
};

struct bwsched {
	struct ev_loop			*loop;
	struct config			cfg;
	const char			*config_path;
	bool				config_optional; /* default path */
	const char			*regulator_name; /* --regulator */
	bool				regulator_auto;	/* picked by device */
	const char			*socket_override; /* -s, env */
	const struct regulator_ops	*reg_ops;
	struct regulator		*reg;
	struct tasks			*tasks;
	uint64_t			start_ns;
	gid_t				admin_gid;
	bool				have_admin_gid;
	gid_t				sock_gid;	/* group of the socket */
	bool				have_sock_gid;

	/* server */
	int				listen_fd;
	bool				activated;	/* by systemd */
	bool				own_socket;	/* unlink it */
	int				sock_lock_fd;	/* flock beside it */
	char				socket_path[CONFIG_MAX_PATH];
	ev_io				accept_w;
	struct peer			*peers;
	unsigned int			npeers;
	uint32_t			next_client;
	uint8_t				*rbuf;	/* recv buffer */
	struct msgpack_zone		*zone;	/* decodes every request */
	struct engine			*engine; /* NULL until started */
	struct bwsched_requests		requests;

	ev_signal			sig_int, sig_term, sig_hup;
	ev_io				tick;	/* the page poll (tick_fd) */
	int				tick_fd; /* timerfd, -1 */
	ev_io				lock_edge; /* regulator: a lock taken */
	uint64_t			lock_edges_seen; /* woke for */
	ev_timer			watchdog, status_w;
	ev_async			ceil_async;	/* ceiling results */
	ev_timer			metrics_w;	/* metrics_dir file */
	uint64_t			clients_refused; /* max_clients */
	uint64_t			errors[BWP_E_MAX]; /* replies by status */
	char				status_text[128]; /* last STATUS= */
	ev_prepare			reaper;	/* frees dead peers; on while any */
};

/* CLOCK_MONOTONIC ns: the time base of the pages and the events */
static inline uint64_t
bwsched_now(void)
{
	return monoclock_ns();
}

#endif /* BWSCHED_H */
