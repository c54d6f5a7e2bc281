/*
 * an_profiling.h - what bwanalyze cluster, evt and plot share
 * (doc/profiling.md): messages, number and sample-file readers
 * (an_profiling.c), the EVT options (an_evt.c) and a clustered trace
 * (an_cluster.c), which plot draws too (an_plot.c).
 */
#ifndef AN_PROFILING_H
#define AN_PROFILING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bwanalyze.h"
#include "cluster.h"
#include "evt.h"
#include "progress.h"
#include "trace.h"
#include "wcet.h"

/* an_profiling.c */
/* a number in the open interval (lo, hi); 0 or -1 */
int	ap_double(const char *s, double lo, double hi, double *v);
/* a decimal number at most max; 0 or -1 */
int	ap_uint(const char *s, unsigned long long max, unsigned long long *v);
/* path, or standard input for "-" */
FILE	*ap_open(const char *path);
void	 ap_close(FILE *f);
/* one sample (ns) per line into a new array; 0 or 2 after a message */
int	ap_read_samples(const char *cmd, const char *path, double **out,
	    size_t *n);

/* an_evt.c: the options evt and plot pwcet share */
#define AP_EVT_OPTS	AN_OPT("block", AN_VALUE), AN_OPT("p", AN_LIST), \
	AN_OPT("alpha", AN_VALUE), AN_OPT("per", AN_VALUE), \
	AN_OPT("theta-min", AN_VALUE), AN_OPT("theta-method", AN_VALUE)
int	ap_evt_setup(const char *cmd, const struct an_opt *o,
	    struct evt_options *eo, double *ps, int *np);

/* an_cluster.c: a trace read and clustered, for cluster and plot edf */
struct ap_cstat {
	struct cluster_stats st[2];	/* exact, per condition */
	double		 e[2];		/* selected e0, e1 */
	double		 fit[2];	/* normal K-S D / critical */
	double		 pct[2];	/* normal percentile of e */
	double		 emp[2];	/* empirical percentile of e */
	uint32_t	 nblocks;
	int		 raised;	/* e1 raised to e0 */
};

struct ap_clustering {
	struct trace_acc acc;
	uint16_t	*id;
	unsigned int	 nclusters;
	int		 nintervals;
	uint32_t	 first[PROGRESS_MAX_INTERVALS];
	uint16_t	 cluster[PROGRESS_MAX_INTERVALS];
	struct ap_cstat	 c[WCET_MAX_CLUSTERS];
	struct cluster_select sel;
	double		 alpha;
	char		 sel_text[64];
};

#define AP_CLUSTER_OPTS	AN_OPT("alpha", AN_VALUE), \
	AN_OPT("select", AN_VALUE), AN_OPT("reservoir", AN_VALUE), \
	AN_OPT("blocks", AN_VALUE), AN_OPT("o", AN_VALUE)
int	ap_cluster_opts(const char *cmd, const struct an_opt *o, double *alpha,
	    uint32_t *res, uint32_t *nblocks, struct ap_clustering *cl);
int	ap_cluster_run(const char *cmd, const char *path, double alpha,
	    uint32_t res, uint32_t nblocks, struct ap_clustering *cl);
void	ap_clustering_free(struct ap_clustering *cl);
/* the pooled samples of cluster c under condition cond (malloc'd) */
double	*ap_pool(const struct ap_clustering *cl, unsigned int c,
	    unsigned int cond, size_t *n);

#endif /* AN_PROFILING_H */
