/*
 * partition.h - spatial partitioning of a GPU's SMs among real-time GPU
 * tasks ([PredGPU] chapter 3; doc/partition.md): the execution-time model
 * C(m) = k(a/m + b), CI/MI classification (Definition 1), the necessary
 * test (Lemma 1), minimal partitions (Lemma 2), partition and allocate
 * (Algorithm 1, Lemma 3), merge (Algorithm 2), select (Algorithm 3) with
 * the SMS and best-fit orders and the forbidden list (ACT, INA), and the
 * task-set CSV format.
 *
 * Inside a partition the tasks share its SMs one job at a time in EDF
 * order; a partition is schedulable when the processor-demand test holds
 * with every task's C(m) for the partition's size and conflicts.
 *
 * Pure: no I/O, no allocation (the caller provides the work area).
 */
#ifndef PARTITION_H
#define PARTITION_H

#include <stddef.h>
#include <stdint.h>

#define PARTITION_MAX_TASKS	256
#define PARTITION_WORDS		(PARTITION_MAX_TASKS / 64)
#define PARTITION_MAX_IDS	(2 * PARTITION_MAX_TASKS)
#define PARTITION_MAX_NAME	63
#define PARTITION_MAX_SMS	4096
#define PARTITION_MAX_SIZE	(1u << 18)	/* bytes of a task-set file */
#define PARTITION_MAX_NS	3600000000000ull /* times: at most 1 h */
#define PARTITION_MAX_K		100.0
#define PARTITION_MAX_CURVE	4096	/* points of a speed-up curve */

/* Defaults ([PredGPU] 3.6.1): b = beta*a, conflict factor k. */
#define PARTITION_B_CI		0.02
#define PARTITION_B_MI		0.10
#define PARTITION_K_CI		1.2
#define PARTITION_K_MI		2.3

enum partition_class {
	PARTITION_CI = 0,	/* compute intensive */
	PARTITION_MI = 1,	/* memory intensive */
};

struct partition_task {
	char			name[PARTITION_MAX_NAME + 1];
	uint64_t		period;		/* T, ns */
	uint64_t		deadline;	/* D, ns, 0 < D <= T */
	uint64_t		a;		/* parallel part on one SM, ns */
	uint64_t		b;		/* serial part, ns */
	double			k;		/* conflict factor, >= 1 */
	enum partition_class	cls;
};

struct partition_set {
	unsigned int		n;
	struct partition_task	task[PARTITION_MAX_TASKS];
};

/* Set a task's b and k from its class and a (the defaults). */
void		partition_task_defaults(struct partition_task *);
uint64_t	partition_default_b(uint64_t a, enum partition_class);
double		partition_default_k(enum partition_class);
const char	*partition_class_name(enum partition_class);

/*
 * C(m) = k(a/m + b) in ns, rounded up; k = 1 without conflict.  m >= 1.
 * Saturates at UINT64_MAX.
 */
uint64_t	partition_wcet(const struct partition_task *, unsigned int m,
		    int conflict);

/* ---- per-partition test: EDF on the partition ---- */

struct partition_job {
	uint64_t	c;	/* WCET */
	uint64_t	d;	/* relative deadline, 0 < d <= t */
	uint64_t	t;	/* period */
};

/*
 * Exact EDF processor-demand test for constrained deadlines: 1 when
 * dbf(t) <= t for every absolute deadline t (QPA, Zhang and Burns), 0
 * otherwise.  A set whose test horizon does not fit in 62 bits (total
 * utilisation within 1e-12 of 1 and a hyperperiod beyond 2^62) is
 * answered 0: safe, never optimistic.
 */
int		partition_edf(const struct partition_job *, unsigned int n);

/* dbf(t) = sum over d_i <= t of (floor((t - d_i)/t_i) + 1) c_i, saturating. */
uint64_t	partition_dbf(const struct partition_job *, unsigned int n,
		    uint64_t t);

/* Bitsets of task indices. */
typedef uint64_t partition_bits[PARTITION_WORDS];

static inline void
partition_bit_set(uint64_t *s, unsigned int i)
{
	s[i / 64] |= 1ull << (i % 64);
}

static inline int
partition_bit_test(const uint64_t *s, unsigned int i)
{
	return (s[i / 64] >> (i % 64)) & 1;
}

/* Does task i of ts conflict with the other tasks of set? */
int		partition_conflict(const struct partition_set *,
		    const uint64_t *set, unsigned int i);

/*
 * Is the set of tasks schedulable on m SMs (the EDF test with each
 * task's conflict-aware C(m))?  jobs: scratch room for ts->n entries.
 */
int		partition_fits(const struct partition_set *,
		    const uint64_t *set, unsigned int m,
		    struct partition_job *jobs);

/* ---- Lemmas 1 and 2 ---- */

/* Lemma 1: sum of C^n(1)/T; the set is not schedulable when > M. */
double		partition_lemma1_load(const struct partition_set *);
int		partition_lemma1(const struct partition_set *,
		    unsigned int sms);

/*
 * Lemma 2: the smallest m in {g, 2g, ...} up to sms with C^n(m) <= D,
 * or 0 when there is none.
 */
unsigned int	partition_min_sms(const struct partition_task *,
		    unsigned int sms, unsigned int granule);

/* ---- Algorithms 1-3 ---- */

struct partition_opts;

/*
 * Lemma 2 for a set of tasks: the smallest size allowed by the options
 * (a multiple of the granule, at least min_sms, at most sms) on which
 * the set passes, or 0.
 */
unsigned int	partition_min_size(const struct partition_set *,
		    const uint64_t *set, const struct partition_opts *,
		    struct partition_job *jobs);

enum partition_order {
	PARTITION_ORDER_SMS,	/* >>: smallest merged partition first */
	PARTITION_ORDER_BF,	/* >: least merged utilisation first */
};

enum partition_forbid {
	PARTITION_FORBID_INA,	/* pairs that failed, filled on the way */
	PARTITION_FORBID_ACT,	/* + every failing task pair, up front */
	PARTITION_FORBID_NONE,	/* no list: failed pairs are retried */
};

struct partition_opts {
	unsigned int		sms;		/* M */
	unsigned int		granule;	/* sizes multiple of; >= 1 */
	enum partition_order	order;
	enum partition_forbid	forbid;
	unsigned int		min_sms;	/* smallest size; 0: granule */
	/*
	 * NULL, or a group per task: tasks of one group start in one
	 * partition (the kernels of one process, which the platform
	 * cannot split), sized by the smallest m the group passes on.
	 */
	const uint16_t		*group;
};

enum partition_verdict {
	PARTITION_OK,		/* Lemma 3: Pi <= M */
	PARTITION_LEMMA1,	/* rejected by the necessary test */
	PARTITION_TOO_BIG,	/* a task misses D alone on all M SMs */
	PARTITION_NO_MERGE,	/* Algorithm 1 found no merge; Pi > M */
	PARTITION_ONE_GPU,	/* 1G baseline: one partition fails */
	PARTITION_BAD_SIZE,	/* check: a granted size is not enough */
	PARTITION_OVER,		/* check: granted sizes exceed M */
};

struct partition_part {
	partition_bits	tasks;
	unsigned int	sms;
	unsigned int	id;	/* unique within one run */
	double		load;	/* sum of a/T: the list order */
};

struct partition_stats {
	uint64_t	tests;		/* EDF tests run */
	uint64_t	merges;		/* merges attempted (Algorithm 2) */
	uint64_t	forbidden;	/* pairs put on the forbidden list */
	uint64_t	prefill_tests;	/* of tests: ACT's up-front pairs */
};

struct partition_plan {
	enum partition_verdict	verdict;
	unsigned int		sms_total;	/* M */
	unsigned int		sms_used;	/* Pi */
	unsigned int		task;		/* TOO_BIG: the task (the
						 * first of its group);
						 * BAD_SIZE: the partition */
	unsigned int		granted;	/* BAD_SIZE: its granted size */
	double			load;		/* Lemma 1's sum */
	struct partition_stats	stats;
	unsigned int		nparts;
	struct partition_part	part[PARTITION_MAX_TASKS];
};

/* Scratch space of partition_plan(); large, allocate it once. */
struct partition_work {
	uint64_t		fpair[PARTITION_MAX_IDS][PARTITION_MAX_IDS / 64];
	partition_bits		fnb[PARTITION_MAX_IDS];	/* ACT: tasks a
						 * partition may not meet */
	struct partition_job	jobs[PARTITION_MAX_TASKS];
	unsigned int		cand[PARTITION_MAX_TASKS];
	unsigned int		csms[PARTITION_MAX_TASKS];
	double			ckey[PARTITION_MAX_TASKS];
};

/*
 * Algorithm 1 with Lemma 1 first: fills plan and returns 1 when the set
 * is schedulable (Lemma 3), 0 when not (plan->verdict says why; the
 * partitions then are the last state reached), -1 on bad options.
 */
int		partition_plan(const struct partition_set *,
		    const struct partition_opts *, struct partition_work *,
		    struct partition_plan *);

/*
 * The 1G baseline: every task in one partition of all M SMs, the same
 * EDF test with the conflicts of the whole set.  1 schedulable, 0 not.
 */
int		partition_one_gpu(const struct partition_set *,
		    unsigned int sms, struct partition_work *,
		    struct partition_plan *);

/*
 * The utilisation form of 1G that matches [PredGPU] Fig. 3.4: sum of
 * C^c(1)/T <= M with every task's conflict as in one partition.  Not a
 * schedulability guarantee (doc/partition.md); 1 within, 0 beyond.
 */
int		partition_one_gpu_util(const struct partition_set *,
		    unsigned int sms);

/*
 * Re-check a plan with the sizes a platform granted (sms[j] for
 * partition j, e.g. after the driver rounded them): 1 when every
 * partition still passes and the sizes fit in M; else 0 with
 * plan->verdict BAD_SIZE (plan->task = the partition) or OVER.
 */
int		partition_check(const struct partition_set *,
		    struct partition_plan *, const unsigned int *sms,
		    struct partition_job *jobs);

/* Human-readable reason of a plan's verdict. */
void		partition_reason(const struct partition_set *,
		    const struct partition_plan *, char *buf, size_t len);

/* ---- the task-set file (doc/partition.md) ---- */

/*
 * Parse CSV: a header naming at least name,period_ns,deadline_ns,a_ns,
 * class (any order; optional b_ns, k_conflict), then one task per line.
 * -EINVAL with "line N: ..." in err.
 */
int		partition_parse(const char *buf, size_t len,
		    struct partition_set *, char *err, size_t errlen);

/* Check one task's fields (the parser's and the daemon's rules). */
int		partition_task_valid(const struct partition_task *,
		    const char **why);

/* ---- Definition 1: classify from a measured speed-up curve ---- */

struct partition_curve_fit {
	enum partition_class	cls;
	unsigned int		knee;	/* smallest m within tol of best */
	double			a;	/* least-squares fit t = a/m + b */
	double			b;
	double			speedup; /* t(min m)/t(max m) */
};

/*
 * sms[i] distinct, >= 1; times[i] > 0; n >= 2.  The kernel is memory
 * intensive when its time comes within tol (e.g. 0.10) of its best at
 * a knee <= knee_frac (e.g. 0.75) of the largest measured m: beyond the
 * knee more SMs stop helping.  Returns 0, or -EINVAL.
 */
int		partition_classify(const unsigned int *sms,
		    const double *times, unsigned int n, double tol,
		    double knee_frac, struct partition_curve_fit *);

#endif /* PARTITION_H */
