/*
 * bwctl_part.c - `bwctl partitions`: the daemon's GPU partition plan
 * (doc/partition.md) as a table, one line per demand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwctl_part.h"
#include "cvalue.h"

/* The scalar map[key] as text, "-" when absent or not a scalar. */
static const char *
pf(const msgpack_object *map, const char *key, char *buf, size_t len)
{
	const msgpack_object	*v = bwp_msg_find(NULL, map, key);

	if (v == NULL || cvalue_format(v, buf, len) < 0)
		return "-";
	return buf;
}

static const msgpack_object_array *
pa(const msgpack_object *map, const char *key)
{
	const msgpack_object	*v = bwp_msg_find(NULL, map, key);

	return v != NULL && v->type == MSGPACK_OBJECT_ARRAY ? &v->via.array :
	    NULL;
}

static void
print_demands(const msgpack_object *part, const msgpack_object *task,
    const char *range)
{
	const msgpack_object_array	*d = pa(task, "demands");
	const char			*k;
	char				 b[11][72];
	uint32_t			 i;

	for (i = 0; d != NULL && i < d->size; i++) {
		k = pf(&d->ptr[i], "kernel", b[5], 72);
		printf("%4s %-9s %7s %5s %7s %-16s %-16s %5s %12s %12s %12s "
		    "%8s\n", pf(part, "index", b[0], 72), range,
		    pf(part, "granted", b[1], 72), pf(task, "task", b[2], 72),
		    pf(task, "pid", b[3], 72), pf(task, "name", b[4], 72),
		    k[0] ? k : "(task)", pf(&d->ptr[i], "class", b[6], 72),
		    pf(&d->ptr[i], "wcet_ns", b[7], 72),
		    pf(&d->ptr[i], "deadline_ns", b[8], 72),
		    pf(&d->ptr[i], "period_ns", b[9], 72),
		    pf(&d->ptr[i], "conflict", b[10], 72));
	}
}

void
bwctl_partitions_print(const msgpack_object *r)
{
	const msgpack_object_array	*parts = pa(r, "partitions"), *tasks;
	const msgpack_object		*p;
	char				 b[7][192], range[32];
	uint64_t			 first, sms;
	uint32_t			 j, i;

	printf("GPU: %s SMs in groups of %s (%s), plan %s, %s SMs used: "
	    "%s\n(%s)\n", pf(r, "sms_total", b[0], 192),
	    pf(r, "granule", b[1], 192), pf(r, "source", b[2], 192),
	    pf(r, "plan", b[3], 192), pf(r, "sms_used", b[4], 192),
	    strcmp(pf(r, "schedulable", b[5], 192), "true") == 0 ?
	    "schedulable" : "NOT schedulable", pf(r, "reason", b[6], 192));
	printf("%4s %-9s %7s %5s %7s %-16s %-16s %5s %12s %12s %12s %8s\n",
	    "PART", "SMS", "GRANTED", "TASK", "PID", "NAME", "DEMAND",
	    "CLASS", "C_NS", "D_NS", "T_NS", "CONFLICT");
	for (j = 0; parts != NULL && j < parts->size; j++) {
		p = &parts->ptr[j];
		first = strtoull(pf(p, "sm_first", b[0], 192), NULL, 10);
		sms = strtoull(pf(p, "sms", b[1], 192), NULL, 10);
		snprintf(range, sizeof(range), "%llu-%llu",
		    (unsigned long long)first,
		    (unsigned long long)(first + sms - 1));
		tasks = pa(p, "tasks");
		for (i = 0; tasks != NULL && i < tasks->size; i++)
			print_demands(p, &tasks->ptr[i], range);
	}
}
