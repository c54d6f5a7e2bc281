/*
 * service.h - the running daemon on its shared state (bwsched.h): the
 * configuration (load, reload, what a change touches), start-up in
 * order (log, loop, registry, socket, regulator, engine), the page poll,
 * signals, the systemd watchdog and STATUS=, and shutdown in reverse.
 * main() parses the arguments, wires the request hooks and calls these.
 */
#ifndef SERVICE_H
#define SERVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "bwsched.h"

/* Defaults, the file (d->config_path), then --regulator; err if bad. */
int	service_load_config(struct bwsched *, struct config *, char *err,
	    size_t errlen);
/* Detach unless fg, then bring everything up; -1 (logged) on failure. */
int	service_start(struct bwsched *, bool fg);
/* Announce readiness and run the loop until a stop signal. */
void	service_run(struct bwsched *);
/* Tear down what service_start() brought up, even half of it. */
void	service_stop(struct bwsched *);

/* Reload the config file (SIGHUP, `reload`); keeps the old one if bad. */
int	service_reload(struct bwsched *, char *err, size_t errlen);
/* A task was registered: poll the pages, wake the engine. */
void	service_poll_tasks(struct bwsched *);
/* The config changed: regulator rho, log level, tasks' budgets. */
void	service_config_changed(struct bwsched *);

#endif /* SERVICE_H */
