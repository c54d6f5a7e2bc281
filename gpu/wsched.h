/*
 * wsched.h - warp schedulers: the issue unit of [PredGPU] Algorithm 4
 * asks SortWarps for a prioritised queue every cycle and issues the
 * first ready warp in it.  Policies: loose round-robin (LRR),
 * greedy-then-oldest (GTO) and RT-PAWS ([PredGPU] Algorithm 5: two
 * priority groups, a budget per group, GTO within the leading group).
 * Pure.
 */
#ifndef GPU_SCHED_H
#define GPU_SCHED_H

#include <stdint.h>

#define SCHED_MAX	1024		/* warps of one scheduler */
#define SCHED_NONE	UINT32_MAX

enum gpu_policy { GPU_LRR, GPU_GTO, GPU_RTPAWS, GPU_NPOLICIES };

extern const char *const gpu_policy_names[GPU_NPOLICIES];

/* A warp as the scheduler sees it. */
struct sched_warp {
	uint32_t	id;		/* runtime warp id: the LRR order */
	uint32_t	prio;		/* its kernel's real-time priority */
};

struct sched {
	int		policy;
	int		sticky;		/* W_greedy kept over idle cycles */
	uint32_t	greedy;		/* W_greedy: issued last cycle */
	uint32_t	greedy_prio;
	uint32_t	last;		/* LRR: the last warp issued */
	uint32_t	nqprev;
	uint32_t	qprev[SCHED_MAX];	/* Q_prev */
	unsigned int	ngroups;	/* RT-PAWS budgets seen so far */
	uint32_t	gprio[2];
	int64_t		budget[2];
	uint64_t	swaps;		/* RT-PAWS group swaps (line 26) */
};

/*
 * sticky: keep W_greedy through idle cycles, as Algorithm 4's state
 * variable does, instead of the text's "the warp issued in the last
 * cycle" (none after an idle one).
 */
void	sched_init(struct sched *, int policy, int sticky);
/*
 * SortWarps: Q_issue from the scheduler's warps w[0..n-1], oldest
 * first, into q (n entries).  Returns 0, or -1 when RT-PAWS is given
 * more than two priorities.
 */
int	sched_sort(struct sched *, const struct sched_warp *w, uint32_t n,
	    uint32_t *q);
/* What the issue unit did with q: the warp it issued (whose priority
 * is prio), or SCHED_NONE after an idle cycle. */
void	sched_issued(struct sched *, const uint32_t *q, uint32_t n,
	    uint32_t issued, uint32_t prio);
/* The group RT-PAWS put first in its last queue, by priority. */
int	sched_leading_prio(const struct sched *, const struct sched_warp *w,
	    uint32_t n, uint32_t *prio);

#endif /* GPU_SCHED_H */
