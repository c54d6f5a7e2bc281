/*
 * bwsched.h - the daemon's top-level state, shared by main.c, server.c,
 * peer.c and ops.c.  One instance, owned by main().
 */
#ifndef BWSCHED_H
#define BWSCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "conf.h"
#include "regulator.h"
#include "tasks.h"

struct engine;
struct peer;

struct bwsched {
	struct ev_loop			*loop;
	struct config			cfg;
	const char			*config_path;
	bool				config_optional; /* default path */
	const char			*regulator_name; /* --regulator */
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
	char				socket_path[CONFIG_MAX_PATH];
	ev_io				accept_w;
	struct peer			*peers;
	unsigned int			npeers;
	uint32_t			next_client;
	uint8_t				*rbuf;	/* recv buffer */
	struct msgpack_zone		*zone;	/* decodes every request */
	struct engine			*engine; /* NULL until started */

	ev_signal			sig_int, sig_term, sig_hup;
	ev_timer			tick, watchdog, status_w;
	char				status_text[128]; /* last STATUS= */
	ev_prepare			reaper;	/* frees dead peers; on while any */
};

uint64_t	bwsched_now(void);		/* CLOCK_MONOTONIC ns */

/* Reload the config file (SIGHUP, `reload`); keeps the old one if bad. */
int		bwsched_reload(struct bwsched *, char *err, size_t errlen);
/* A task was registered: poll the pages, wake the engine. */
void		bwsched_poll_tasks(struct bwsched *);
/* The config changed: regulator rho, log level, tasks' budgets. */
void		bwsched_config_changed(struct bwsched *);

#endif /* BWSCHED_H */
