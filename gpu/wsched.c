/*
 * wsched.c - SortWarps for LRR, GTO and RT-PAWS.
 *
 * W_greedy is the warp issued in the previous cycle, and no warp after
 * a cycle in which nothing issued: that is how [PredGPU] defines it in
 * the text ("the warp that is issued in the last cycle"), and it makes
 * GTO pick the oldest ready warp once the greedy one has stalled.  The
 * sticky option keeps the last issued warp instead, as the variable of
 * Algorithm 4 (and GPGPU-Sim's GTO) does.
 */
#include <stdlib.h>
#include <string.h>

#include "wsched.h"

const char *const gpu_policy_names[GPU_NPOLICIES] = {
	"lrr", "gto", "rtpaws"
};

void
sched_init(struct sched *s, int policy, int sticky)
{
	memset(s, 0, sizeof(*s));
	s->policy = policy;
	s->sticky = sticky;
	s->greedy = SCHED_NONE;
	s->last = SCHED_NONE;
}

static int
sched_idcmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* LRR: by runtime id, starting after the warp issued last. */
static void
sched_lrr(const struct sched *s, const struct sched_warp *w, uint32_t n,
    uint32_t *q)
{
	uint32_t	ids[SCHED_MAX], i, k = 0;

	for (i = 0; i < n; i++)
		ids[i] = w[i].id;
	qsort(ids, n, sizeof(ids[0]), sched_idcmp);
	if (s->last != SCHED_NONE)
		while (k < n && ids[k] <= s->last)
			k++;
	for (i = 0; i < n; i++)
		q[i] = ids[(k + i) % n];
}

/* GTO over the warps of priority prio (all when all): the greedy warp,
 * then the others oldest first.  Returns the count written. */
static uint32_t
sched_gto(const struct sched *s, const struct sched_warp *w, uint32_t n,
    int all, uint32_t prio, uint32_t *q)
{
	uint32_t	i, k = 0;
	int		has_greedy = 0;

	for (i = 0; i < n; i++)
		if (w[i].id == s->greedy && (all || w[i].prio == prio))
			has_greedy = 1;
	if (has_greedy)
		q[k++] = s->greedy;
	for (i = 0; i < n; i++)
		if ((all || w[i].prio == prio) && !(has_greedy &&
		    w[i].id == s->greedy))
			q[k++] = w[i].id;
	return k;
}

/* OLD: oldest first. */
static uint32_t
sched_old(const struct sched_warp *w, uint32_t n, uint32_t prio,
    uint32_t *q)
{
	uint32_t	i, k = 0;

	for (i = 0; i < n; i++)
		if (w[i].prio == prio)
			q[k++] = w[i].id;
	return k;
}

/*
 * The budgets of the two groups present (pa, pb); a group seen for the
 * first time starts with its priority as budget (RESETBUDGET), one that
 * left is forgotten.
 */
static void
sched_groups(struct sched *s, uint32_t pa, uint32_t pb)
{
	unsigned int	i, j;
	uint32_t	p[2] = { pa, pb };

	for (i = 0; i < s->ngroups;) {
		if (s->gprio[i] != pa && s->gprio[i] != pb) {
			s->gprio[i] = s->gprio[s->ngroups - 1];
			s->budget[i] = s->budget[s->ngroups - 1];
			s->ngroups--;
		} else
			i++;
	}
	for (j = 0; j < 2; j++) {
		for (i = 0; i < s->ngroups && s->gprio[i] != p[j]; i++)
			;
		if (i == s->ngroups) {
			s->gprio[i] = p[j];
			s->budget[i] = p[j];
			s->ngroups++;
		}
	}
}

static int64_t *
sched_budget(struct sched *s, uint32_t prio)
{
	return &s->budget[s->gprio[0] == prio ? 0 : 1];
}

/* g0: the group whose warps lead Q_prev; the oldest warp's at first. */
static uint32_t
sched_g0(const struct sched *s, const struct sched_warp *w, uint32_t n)
{
	uint32_t	i, j;

	for (j = 0; j < s->nqprev; j++)
		for (i = 0; i < n; i++)
			if (w[i].id == s->qprev[j])
				return w[i].prio;
	return w[0].prio;
}

int
sched_leading_prio(const struct sched *s, const struct sched_warp *w,
    uint32_t n, uint32_t *prio)
{
	if (n == 0)
		return -1;
	*prio = sched_g0(s, w, n);
	return 0;
}

/* [PredGPU] Algorithm 5 */
static int
sched_rtpaws(struct sched *s, const struct sched_warp *w, uint32_t n,
    uint32_t *q)
{
	uint32_t	pa = w[0].prio, pb = w[0].prio, p0, p1, i, k;
	int64_t		*b0;

	for (i = 1; i < n; i++) {
		if (w[i].prio == pa || w[i].prio == pb)
			continue;
		if (pb != pa)
			return -1;	/* line 10: at most two groups */
		pb = w[i].prio;
	}
	if (pa == pb) {
		/* lines 7-8: one group, GTO */
		sched_gto(s, w, n, 1, 0, q);
		return 0;
	}
	sched_groups(s, pa, pb);
	p0 = sched_g0(s, w, n);
	p1 = p0 == pa ? pb : pa;
	b0 = sched_budget(s, p0);
	/* line 14: the head stalled unless it is the warp issued */
	if (s->nqprev == 0 || s->qprev[0] != s->greedy) {
		if (s->greedy != SCHED_NONE && s->greedy_prio == p0)
			(*b0)--;			/* line 19 */
		if (*b0 <= 0) {
			*b0 = p0;			/* line 25 */
			k = sched_old(w, n, p1, q);	/* line 26 */
			sched_old(w, n, p0, q + k);
			s->swaps++;
			return 0;
		}
	}
	k = sched_gto(s, w, n, 0, p0, q);		/* lines 16, 23 */
	sched_old(w, n, p1, q + k);
	return 0;
}

int
sched_sort(struct sched *s, const struct sched_warp *w, uint32_t n,
    uint32_t *q)
{
	if (n == 0)
		return 0;
	switch (s->policy) {
	case GPU_LRR:
		sched_lrr(s, w, n, q);
		return 0;
	case GPU_GTO:
		sched_gto(s, w, n, 1, 0, q);
		return 0;
	default:
		return sched_rtpaws(s, w, n, q);
	}
}

void
sched_issued(struct sched *s, const uint32_t *q, uint32_t n,
    uint32_t issued, uint32_t prio)
{
	if (n > SCHED_MAX)
		n = SCHED_MAX;
	memcpy(s->qprev, q, n * sizeof(*q));
	s->nqprev = n;
	if (issued != SCHED_NONE || !s->sticky) {
		s->greedy = issued;
		s->greedy_prio = prio;
	}
	if (issued != SCHED_NONE)
		s->last = issued;
}
