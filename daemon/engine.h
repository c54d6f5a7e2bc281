/*
 * engine.h - the event-loop side of the period engine: starts the
 * period thread (period.h) on the task registry and the regulator,
 * drains its rings when it signals (ev_async), turns period records
 * into "period" events and finished launches into journal records and
 * "kernel" events (launchlog.h), lets the registry free departed tasks
 * once the thread has let go of them, and reports for `status`.
 * One per daemon.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "bwsched.h"
#include "msg.h"
#include "period.h"

struct engine;

/* Start after the regulator and the registry exist.  NULL with err. */
struct engine	*engine_start(struct bwsched *, char *err, size_t errlen);
/* A task registered: end the engine's idle sleep at once. */
void		 engine_kick(struct engine *);
/* Stop the thread (before the registry and the regulator go away). */
void		 engine_stop(struct engine *);

/* Policy, overhead or SMOOTH's a changed. */
void		 engine_config_changed(struct engine *, const struct config *);

/* status: "q", "late", lateness and cost percentiles, "rt", ... */
void		 engine_status(struct engine *, struct bwp_writer *);
double		 engine_q(struct engine *);	/* -1 unregulated */
void		 engine_stats(struct engine *, struct period_stats *);

#endif /* ENGINE_H */
