/*
 * bwplan.h - the GPU partition plan the daemon publishes next to its
 * control socket (SOCKET.gpu, e.g. /run/bwsched/bwsched.sock.gpu), so
 * that the CUDA layer of a task finds the SMs it may use without a
 * system call per launch (doc/partition.md).
 *
 * The file is BWPLAN_SIZE bytes, written only by the daemon; clients map
 * it read-only.  Seqlock as in bwsimstate.h: the daemon makes seq odd,
 * rewrites, makes it even; bwplan_read() copies a consistent plan.  gen
 * grows with every change of the plan, so a reader that keeps the last
 * gen it saw needs one atomic load to know nothing changed.
 *
 * Partitions are ranges of SMs in units of the device's split: the
 * CUDA layer splits the device into groups of `granule` SMs (with
 * cuDevSmResourceSplitByCount) and gives a partition the groups
 * sm_first/granule .. (sm_first + sms)/granule - 1.  A C99 header that
 * compiles as C++.
 */
#ifndef BWSCHED_BWPLAN_H
#define BWSCHED_BWPLAN_H

#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define BWPLAN_MAGIC		0x50475742u	/* "BWGP" */
#define BWPLAN_VERSION		1
#define BWPLAN_SIZE		8192
#define BWPLAN_MAX_ENTRIES	256
#define BWPLAN_SUFFIX		".gpu"	/* after the socket path */

/* One task with a GPU partition. */
struct bwplan_entry {
	uint32_t	task;		/* the daemon's task id */
	int32_t		pid;		/* its process */
	uint32_t	partition;	/* index in the plan */
	uint32_t	sm_first;	/* first SM of the partition */
	uint32_t	sms;		/* SMs planned */
	uint32_t	granted;	/* SMs the driver gave; 0: unknown */
};

struct bwplan_page {
	uint32_t		magic;		/* BWPLAN_MAGIC */
	uint32_t		version;	/* BWPLAN_VERSION */
	uint64_t		seq;		/* odd while being rewritten */
	uint64_t		gen;		/* grows with every change */
	uint32_t		sms_total;	/* M */
	uint32_t		granule;	/* SMs per group of the split */
	uint32_t		nentries;
	uint32_t		ok;		/* 1: schedulable with the
						 * granted sizes */
	struct bwplan_entry	entry[BWPLAN_MAX_ENTRIES];
};

/* The generation, one atomic load. */
static inline uint64_t
bwplan_gen(const struct bwplan_page *p)
{
	return __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
}

/* Copy a consistent plan into out: 0, or -1 when none can be had. */
static inline int
bwplan_read(const struct bwplan_page *p, struct bwplan_page *out)
{
	uint64_t	s1, s2;
	int		tries;

	for (tries = 0; tries < 1000; tries++) {
		s1 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			sched_yield();
			continue;
		}
		memcpy(out, p, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&p->seq, __ATOMIC_RELAXED);
		if (s1 == s2 && out->magic == BWPLAN_MAGIC &&
		    out->version == BWPLAN_VERSION &&
		    out->nentries <= BWPLAN_MAX_ENTRIES)
			return 0;
	}
	return -1;
}

/*
 * The entry of the first task of process pid in a plan read with
 * bwplan_read(): 0, or -1 when the process has no partition.
 */
static inline int
bwplan_find(const struct bwplan_page *plan, pid_t pid,
    struct bwplan_entry *e)
{
	uint32_t	i;

	for (i = 0; i < plan->nentries; i++)
		if (plan->entry[i].pid == (int32_t)pid) {
			*e = plan->entry[i];
			return 0;
		}
	return -1;
}

#endif /* BWSCHED_BWPLAN_H */
