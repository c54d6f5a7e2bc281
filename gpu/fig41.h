/*
 * fig41.h - the example of [PredGPU] section 4.4.3 (Fig. 4.1): one
 * scheduler, warps 0-1 of kernel K1 launched at t = 0, warps 2-3 of the
 * higher-priority K2 at t = 1, each warp six instructions of which one
 * has a long latency, under LRR, GTO and RT-PAWS.  The figure is not in
 * the text, so its latencies are parameters; fig41_search tries
 * assignments against what the text states.  Pure.
 */
#ifndef GPU_FIG41_H
#define GPU_FIG41_H

#include <stdint.h>

#include "sm.h"

#define FIG41_NINSNS	6

struct fig41_params {
	uint32_t	long_pos;	/* which instruction (0-5) is long */
	uint32_t	long_lat;	/* its latency */
	uint32_t	short_lat;	/* the others' latency */
	int		chain;		/* each instruction needs the one
					 * before it; else only the long
					 * one's successor waits */
	uint32_t	p;		/* K2's warp priority (K1's is 1) */
	int		from_launch;	/* execution time counted from each
					 * kernel's launch, not from t = 0 */
	int		finish_issue;	/* a kernel finishes the cycle after
					 * its last issue, not when its last
					 * instruction completes */
	int		sticky;		/* W_greedy kept over idle cycles */
};

/* One policy's outcome; times in cycles. */
struct fig41_out {
	uint64_t	k1_finish, k2_finish;
	double		k1_time, k2_time, average;
	uint64_t	issue[2][2][FIG41_NINSNS];	/* kernel, warp */
};

/* What the text states, and which of it an outcome shows. */
struct fig41_check {
	int	lrr_highest;		/* average LRR > GTO, RT-PAWS */
	int	rt_one_above_gto;	/* average RT-PAWS = GTO + 1 */
	int	gto_k2_last;		/* K2 finishes after K1 under GTO */
	int	rt_k2_first;		/* K2 before K1 under RT-PAWS */
	int	rt_max_least;		/* max(K1, K2) least under RT-PAWS */
	int	rt_k2_after_gto_k1;	/* K2 under RT-PAWS after K1 under
					 * GTO */
	/* what the text says besides, not required by the search */
	int	rt_w0_greedy;		/* RT-PAWS runs K1's warp 0 at t = 0
					 * and t = 1, K2 present */
	int	lrr_long_together;	/* LRR: the four long instructions
					 * issue in four cycles */
	int	exact;			/* averages 25, 21.5, 22.5 */
};

/* The default assignment (doc/gpu-model.md says why this one). */
void	fig41_default(struct fig41_params *);
/*
 * Run the example under LRR, GTO, RT-PAWS (out[enum gpu_policy]), with
 * on_issue/arg for a timeline (kernel 0 is K1).  0 or -errno.
 */
int	fig41_run(const struct fig41_params *, struct fig41_out out[3],
	    sm_issue_fn *on_issue, void *arg);
void	fig41_check(const struct fig41_params *, const struct fig41_out out[3],
	    struct fig41_check *);
/* The statements on averages and finish times hold (not the extras). */
int	fig41_qualitative(const struct fig41_check *);

struct fig41_search {
	uint64_t		tried;
	uint64_t		qualitative;	/* all statements but the
						 * numbers hold */
	uint64_t		exact;		/* and the numbers too */
	uint64_t		exact_numbers;	/* the numbers, whatever else */
	uint64_t		with_extras;	/* qualitative and both extras */
	struct fig41_params	best;		/* first exact, else closest
						 * qualitative */
	struct fig41_out	best_out[3];
	double			best_dist;	/* sum of |average - stated| */
	int			best_extras;
};

/*
 * Try every assignment with the long instruction anywhere, long latency
 * 2..max_long, short latency 1..max_short, both dependency shapes, K2
 * priority 2..8, both ways of counting time, both ends of a kernel and
 * both readings of W_greedy.  0 or -errno.
 */
int	fig41_search(uint32_t max_long, uint32_t max_short,
	    struct fig41_search *);

#endif /* GPU_FIG41_H */
