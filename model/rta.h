/*
 * rta.h - response-time analysis of the real-time tasks on the real-time
 * core ([BWLOCK++] Eq. 4; doc/design.md section 4), and the taskset
 * text format bwanalyze rta reads (doc/analysis.md).  Pure: no I/O, no
 * allocation.
 */
#ifndef RTA_H
#define RTA_H

#include <stddef.h>
#include <stdint.h>

#define RTA_MAX_TASKS	64
#define RTA_MAX_NAME	31
#define RTA_MAX_SIZE	(1u << 16)	/* bytes of a taskset file */

/* Times in ns.  Tasks are in priority order: index 0 is the highest. */
struct rta_task {
	char		name[RTA_MAX_NAME + 1];
	uint64_t	period;		/* P */
	uint64_t	deadline;	/* D, <= P; default P */
	uint64_t	cpu;		/* C: CPU execution */
	uint64_t	gpu_mem;	/* G^m: copies to and from the GPU */
	uint64_t	gpu_exec;	/* G^e: kernel execution, e.g.
					 * its G(Q-bar) */
	uint64_t	segment;	/* longest single locked GPU segment;
					 * default G^m + G^e */
};

struct rta_taskset {
	unsigned int	ntasks;
	struct rta_task	task[RTA_MAX_TASKS];
};

struct rta_result {
	uint64_t	response;	/* R at the fixpoint, or the first
					 * iterate beyond the deadline */
	uint64_t	blocking;	/* B */
	int		schedulable;	/* R <= D */
};

/* Parse the taskset format; -EINVAL with "line N: ..." in err. */
int		rta_parse(const char *buf, size_t len, struct rta_taskset *,
		    char *err, size_t errlen);

/* E = C + G^m + G^e, saturating. */
uint64_t	rta_demand(const struct rta_task *);

/*
 * Eq. 4 for task i: R <- E_i + B_i + sum over j < i of ceil(R/P_j)*E_j,
 * B_i the longest segment of the tasks below i, until R stops changing or
 * exceeds D_i.  Returns 1 schedulable, 0 not.
 */
int		rta_task(const struct rta_taskset *, unsigned int i,
		    struct rta_result *);

/* All tasks; res[] has ntasks entries.  1 when every task is schedulable. */
int		rta_all(const struct rta_taskset *, struct rta_result *res);

#endif /* RTA_H */
