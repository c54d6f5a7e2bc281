/*
 * metrics.h - the daemon's counters and gauges as Prometheus text
 * (exposition format 0.0.4, which node-exporter's textfile collector
 * reads): for `bwctl metrics` (the "metrics" op) and for a file the
 * daemon rewrites atomically every metrics_interval_ns in metrics_dir.
 * No listening socket.  Every metric is documented in bwsched(8).
 */
#ifndef METRICS_H
#define METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "bwsched.h"

/* The file in metrics_dir. */
#define METRICS_FILE	"bwsched.prom"

/*
 * Each BE core's budget now (events per period, REG_UNLIMITED for none):
 * what the sim recorded, else the static budget.  Returns the count.
 */
unsigned int	metrics_budgets(struct bwsched *, uint64_t *out,
		    unsigned int max);

/* The whole text, malloc'ed (free it); NULL when out of memory. */
char		*metrics_text(struct bwsched *, size_t *len);

/* Write dir/METRICS_FILE through a temporary file and rename(2). */
int		 metrics_write(struct bwsched *, const char *dir, char *err,
		    size_t errlen);

#endif /* METRICS_H */
