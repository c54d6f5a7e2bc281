/*
 * fuzz_partition.c - the task-set parser (doc/partition.md) on arbitrary
 * bytes: never crashes, errors name a line, every accepted task passes
 * the model's own checks, and the heuristics on what it accepts return
 * plans that are partitions of the set, each partition passing its test.
 */
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "partition.h"

/* A successful plan: disjoint, complete, each part fits, Pi <= M. */
static void
fuzz_check_plan(const struct partition_set *ts, struct partition_plan *p,
    struct partition_job *jobs)
{
	partition_bits	seen = { 0 };
	unsigned int	j, i, sum = 0;

	for (j = 0; j < p->nparts; j++) {
		for (i = 0; i < PARTITION_WORDS; i++) {
			if (seen[i] & p->part[j].tasks[i])
				abort();
			seen[i] |= p->part[j].tasks[i];
		}
		if (!partition_fits(ts, p->part[j].tasks, p->part[j].sms, jobs))
			abort();
		sum += p->part[j].sms;
	}
	for (i = 0; i < ts->n; i++)
		if (!partition_bit_test(seen, i))
			abort();
	if (sum != p->sms_used || sum > p->sms_total)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct partition_set	ts;
	static struct partition_work	w;
	static struct partition_plan	p;
	struct partition_opts		o = { 8, 1, PARTITION_ORDER_SMS,
	    PARTITION_FORBID_INA, 0, NULL };
	const char			*why;
	char				 err[256];
	unsigned int			 i;

	if (size > PARTITION_MAX_SIZE)
		return 0;
	if (partition_parse((const char *)data, size, &ts, err,
	    sizeof(err)) != 0) {
		if (strncmp(err, "line ", 5) != 0)
			abort();
		return 0;
	}
	if (ts.n == 0 || ts.n > PARTITION_MAX_TASKS)
		abort();
	for (i = 0; i < ts.n; i++)
		if (!partition_task_valid(&ts.task[i], &why))
			abort();
	if (ts.n > 32)		/* keep one input's run short */
		return 0;
	if (partition_plan(&ts, &o, &w, &p) == 1)
		fuzz_check_plan(&ts, &p, w.jobs);
	o.order = PARTITION_ORDER_BF;
	o.forbid = PARTITION_FORBID_ACT;
	o.granule = 2;
	if (partition_plan(&ts, &o, &w, &p) == 1)
		fuzz_check_plan(&ts, &p, w.jobs);
	(void)partition_one_gpu(&ts, 8, &w, &p);
	(void)partition_one_gpu_util(&ts, 8);
	return 0;
}
