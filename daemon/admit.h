/*
 * admit.h - admission control for GPU spatial partitioning
 * (doc/partition.md): the daemon's partition plan of the GPU's SMs among
 * the tasks that declare a GPU demand, kept schedulable ([PredGPU]
 * chapter 3, model/partition.c).
 *
 * A task's demands (its own "gpu" map at task.register and each
 * kernel's at kernel.register) are model tasks of one group: they stay
 * in one partition, the one its process's green context covers.  A new
 * demand is placed without moving anyone when it can be (into an
 * existing partition at its size, or a new partition in free SMs);
 * otherwise the whole set is partitioned again (Algorithm 1, the SMS
 * order and then best fit) and the tasks whose SMs change follow the
 * published plan.  A demand that leaves no schedulable plan is refused
 * with status UNSCHEDULABLE and the reason; the plan stays as it was.
 *
 * The plan is published in SOCKET.gpu (include/bwsched/bwplan.h) and
 * every change is logged.  Runs on the event loop.
 */
#ifndef ADMIT_H
#define ADMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "msg.h"
#include "validate.h"

struct admit;

/* Where a task's work goes. */
struct admit_place {
	uint32_t	partition;
	uint32_t	sm_first;
	uint32_t	sms;
	uint32_t	granted;	/* 0: not reported */
	uint64_t	gen;		/* plan generation */
};

struct admit	*admit_new(const struct config *);
void		 admit_free(struct admit *);
/* gpu_sms or gpu_sm_granule may have changed (reload). */
void		 admit_config(struct admit *, const struct config *);
/* Publish the plan as SOCKET.gpu; 0 or -1 (logged, no page). */
int		 admit_publish(struct admit *, const char *socket_path);

/*
 * A task's own demand (task.register) or a kernel's (kernel.register,
 * kernel non-NULL); period is the task's.  BWP_OK once placed, else a
 * status with err: UNSCHEDULABLE, LIMIT (too many demands), STATE (no
 * SM count known), BADARG (deadline beyond the period, mixed classes).
 */
int		 admit_demand(struct admit *, uint32_t task, pid_t pid,
		    const char *task_name, uint64_t period_ns,
		    const char *kernel, const struct req_gpu *,
		    char *err, size_t errlen);
/* The task is gone: its demands leave their partition. */
void		 admit_remove(struct admit *, uint32_t task);
/* 0 with the task's partition, or -1 when it has none. */
int		 admit_place(const struct admit *, uint32_t task,
		    struct admit_place *);

/* gpu.device: a client's device has sms SMs in groups of granule. */
int		 admit_device(struct admit *, uint32_t sms, uint32_t granule,
		    char *err, size_t errlen);
/*
 * gpu.granted: the driver gave the task's partition sms SMs.  The plan
 * is checked again with the granted sizes; *ok tells the outcome and
 * why says it.  BWP_OK, or NOENT when the task has no partition.
 */
int		 admit_granted(struct admit *, uint32_t task, uint32_t sms,
		    bool *ok, char *why, size_t whylen);

/* The "partitions" reply; task_name/pid come from the registry. */
void		 admit_write(const struct admit *, struct bwp_writer *);
/* Whether the daemon knows the SM count (hello's "partitioning"). */
bool		 admit_ready(const struct admit *);

#endif /* ADMIT_H */
