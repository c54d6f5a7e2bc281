/*
 * reg_sim.c - PLACEHOLDER "sim" regulator backend.
 *
 * It records the budgets the daemon hands it and keeps a period clock
 * (CLOCK_MONOTONIC aligned to period_ns) so the rest of the daemon can be
 * built and tested against the regulator interface.  It does not model BE
 * cores, throttling or TFS: its statistics are only what it recorded
 * (periods that had no budget of their own count as fallbacks).  The
 * simulated platform of DESIGN.md section 5 replaces this file.
 */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reg_sim.h"

struct regulator {
	struct reg_config	cfg;
	uint64_t		epoch;		/* period 0 starts here */
	uint64_t		static_events[REG_MAX_CORES];
	uint64_t		nsets;		/* set_static calls */
	uint64_t		last_period;	/* of the last apply() */
	uint64_t		applied;	/* periods with own budget */
	uint64_t		dyn_events[REG_MAX_CORES];
	uint64_t		heartbeats;
	double			rho;
};

static uint64_t
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
sim_open(struct regulator **out, const struct reg_config *cfg, char *err,
    size_t errlen)
{
	struct regulator	*r;
	unsigned int		i;

	if (cfg->period_ns == 0 || cfg->ncores == 0 ||
	    cfg->ncores > REG_MAX_CORES) {
		snprintf(err, errlen, "sim: bad period or core count");
		return -EINVAL;
	}
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		snprintf(err, errlen, "sim: out of memory");
		return -ENOMEM;
	}
	r->cfg = *cfg;
	r->cfg.device = NULL;
	r->rho = cfg->rho;
	/* align to a multiple of the period, like the module's hrtimers */
	r->epoch = now_ns() / cfg->period_ns * cfg->period_ns;
	for (i = 0; i < REG_MAX_CORES; i++)
		r->static_events[i] = REG_UNLIMITED;
	*out = r;
	return 0;
}

static int
sim_clock(struct regulator *r, uint64_t *period, uint64_t *next)
{
	uint64_t	p = (now_ns() - r->epoch) / r->cfg.period_ns;

	*period = p;
	*next = r->epoch + (p + 1) * r->cfg.period_ns;
	return 0;
}

static int
sim_apply(struct regulator *r, uint64_t period, const uint64_t *events,
    unsigned int n)
{
	if (n != r->cfg.ncores)
		return -EINVAL;
	memcpy(r->dyn_events, events, n * sizeof(*events));
	if (r->applied == 0 || period != r->last_period)
		r->applied++;
	r->last_period = period;
	return 0;
}

static int
sim_set_static(struct regulator *r, const uint64_t *events, unsigned int n)
{
	if (n != r->cfg.ncores)
		return -EINVAL;
	memcpy(r->static_events, events, n * sizeof(*events));
	r->nsets++;
	return 0;
}

static int
sim_set_rho(struct regulator *r, double rho)
{
	if (!(rho >= 0))
		return -EINVAL;
	r->rho = rho;
	return 0;
}

static int
sim_heartbeat(struct regulator *r)
{
	r->heartbeats++;
	return 0;
}

static int
sim_stats(struct regulator *r, struct reg_stats *s)
{
	uint64_t	next, fallbacks;
	unsigned int	i;

	memset(s, 0, sizeof(*s));
	sim_clock(r, &s->period, &next);
	fallbacks = s->period + 1 > r->applied ? s->period + 1 - r->applied : 0;
	s->ncores = r->cfg.ncores;
	for (i = 0; i < s->ncores; i++)
		s->core[i].fallbacks = fallbacks;
	return 0;
}

static void
sim_close(struct regulator *r)
{
	free(r);
}

int
reg_sim_recorded(struct regulator *r, uint64_t *events, unsigned int n,
    uint64_t *nsets)
{
	if (n > r->cfg.ncores)
		n = r->cfg.ncores;
	memcpy(events, r->static_events, n * sizeof(*events));
	*nsets = r->nsets;
	return (int)n;
}

const struct regulator_ops reg_sim_ops = {
	.name = "sim",
	.open = sim_open,
	.clock = sim_clock,
	.apply = sim_apply,
	.set_static = sim_set_static,
	.set_rho = sim_set_rho,
	.heartbeat = sim_heartbeat,
	.stats = sim_stats,
	.close = sim_close,
};
