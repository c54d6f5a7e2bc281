/*
 * partexp.h - the partitioning experiment of [PredGPU] section 3.6
 * (bwsim partition, doc/partition.md): random task sets at a range of
 * total utilisations, each analysed by the four heuristics (SMS/BF x
 * ACT/INA) and the 1G baselines; schedulability rate and analysis cost
 * per utilisation.
 */
#ifndef PARTEXP_H
#define PARTEXP_H

#include <stdint.h>
#include <stdio.h>

#include "partition.h"

enum partexp_variant {
	PARTEXP_SMS_ACT,
	PARTEXP_SMS_INA,
	PARTEXP_BF_ACT,
	PARTEXP_BF_INA,
	PARTEXP_1G,		/* one partition, the EDF test */
	PARTEXP_1G_UTIL,	/* sum C^c(1)/T <= M, the paper's 1G curve */
	PARTEXP_NV
};

struct partexp_args {
	unsigned int	tasks;		/* 50 */
	double		prm;		/* share of MI tasks, 0.5 */
	unsigned int	sets;		/* per point, 100 */
	uint64_t	seed;		/* 1 */
	unsigned int	sms;		/* M, 68 */
	double		umin, umax, ustep; /* 2, 68, 2 */
	unsigned int	variants;	/* bit per enum partexp_variant */
};

struct partexp_point {
	double		utilization;
	unsigned int	sets;
	unsigned int	discarded;	/* task sets UUniFast-Discard redrew */
	unsigned int	ok[PARTEXP_NV];	/* schedulable sets */
	double		ms[PARTEXP_NV];	/* mean analysis CPU time per set */
	double		tests[PARTEXP_NV];   /* mean EDF tests per set */
	double		prefill[PARTEXP_NV]; /* of them, ACT's up front */
};

/* Key of a variant in bwsim's JSON: "sms_act", ..., "1g", "1g_util". */
const char	*partexp_name(enum partexp_variant);

void		 partexp_default(struct partexp_args *);

/* Points from umin to umax (at most 1000): their number, or -EINVAL. */
int		 partexp_npoints(const struct partexp_args *);

/*
 * One task set of n tasks at total utilisation u (sum of a/T) from the
 * given seed, generated as [PredGPU] 3.6.1 describes (doc/partition.md
 * names the choices): UUniFast-Discard, periods from a list of 50..4000
 * ms, D = 0.75 T, class MI with probability prm, b and k from the class.
 * Redraws (counted in *discarded) while a task misses its deadline even
 * alone on all M SMs.  0, or -EAGAIN after 10000 redraws.
 */
int		 partexp_generate(const struct partexp_args *, double u,
		    uint64_t seed, struct partition_set *,
		    unsigned int *discarded);

/*
 * Run every point (pts has partexp_npoints() entries); with csv, write
 * one row per task set and variant.  0, -EINVAL, -ENOMEM or -EAGAIN.
 */
int		 partexp_run(const struct partexp_args *,
		    struct partexp_point *pts, FILE *csv);

#endif /* PARTEXP_H */
