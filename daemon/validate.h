/*
 * validate.h - per-op request validators: every key's type, range,
 * string length and array size, and the descriptor count, checked before
 * a handler sees the request.  Pure (no daemon state), so the fuzz target
 * runs exactly what the daemon runs.
 */
#ifndef VALIDATE_H
#define VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "msg.h"

#define TOPIC_LOCK	0x1u
#define TOPIC_KERNEL	0x2u
#define TOPIC_PERIOD	0x4u
#define TOPIC_LOG	0x8u

struct req_hello {
	uint64_t	pid;
	char		name[BWP_MAX_NAME + 1];
};

/*
 * The optional "gpu" map of task.register and kernel.register: a GPU
 * demand for partitioning (doc/partition.md).  Periods and deadlines
 * left out are the task's.
 */
struct req_gpu {
	bool		present;
	uint64_t	a_ns;
	bool		has_b;
	uint64_t	b_ns;
	int		cls;		/* enum partition_class: 0 ci, 1 mi */
	bool		has_k;
	double		k;
	bool		has_period;	/* kernel.register only */
	uint64_t	period_ns;
	bool		has_deadline;
	uint64_t	deadline_ns;
};

struct req_task_register {
	char		name[BWP_MAX_NAME + 1];
	uint64_t	period_ns;
	uint64_t	priority;
	uint64_t	pages;		/* 1 task page, 2 progress page */
	struct req_gpu	gpu;
};

struct req_kernel_register {
	char		name[BWP_MAX_NAME + 1];
	uint32_t	blocks;
	uint32_t	concurrency;
	unsigned int	nclusters;
	uint64_t	e0[BWP_MAX_CLUSTERS];
	uint64_t	e1[BWP_MAX_CLUSTERS];
	unsigned int	nintervals;
	uint32_t	first[BWP_MAX_INTERVALS];
	uint16_t	cluster[BWP_MAX_INTERVALS];
	bool		has_slowdown;
	double		slowdown;
	bool		has_q;
	double		q;
	struct req_gpu	gpu;
};

struct req_kernel_start {
	uint64_t	kernel;
	uint64_t	stream;
	bool		has_slot;
	uint64_t	slot;
	bool		has_launch_ns;
	uint64_t	launch_ns;
};

struct req_kernel_end {
	uint64_t	kernel;
	bool		has_launch;
	uint64_t	launch;
};

struct req_stream_sync {
	bool		all;
	uint64_t	stream;
};

struct req_kernels {
	bool		has_task;
	uint64_t	task;
};

struct req_key {			/* get and set */
	char			key[BWP_MAX_KEY + 1];
	const msgpack_object	*value;	/* set: str, int or float */
};

struct req_subscribe {
	unsigned int	topics;		/* TOPIC_* */
};

struct req_gpu_device {			/* the SMs a client's device has */
	uint64_t	sms;
	uint64_t	granule;	/* SMs per group of its split */
};

struct req_gpu_granted {		/* SMs the driver gave a partition */
	uint64_t	sms;
};

union req {
	struct req_hello		hello;
	struct req_task_register	task;
	struct req_kernel_register	kreg;
	struct req_kernel_start		kstart;
	struct req_kernel_end		kend;
	struct req_stream_sync		sync;
	struct req_kernels		kernels;
	struct req_key			key;
	struct req_subscribe		sub;
	struct req_gpu_device		gdev;
	struct req_gpu_granted		granted;
};

/*
 * Validate the arguments of a request whose header bwp_msg_request()
 * accepted; nfds descriptors came with it.  Returns the status (the error
 * text is in m->err).
 */
int	validate_request(struct bwp_msg *, int nfds, union req *);

/* Names of the TOPIC_* bits, for replies. */
const char *validate_topic_name(unsigned int bit);

#endif /* VALIDATE_H */
