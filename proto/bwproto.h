/*
 * bwproto.h - the bwsched control protocol: version, limits, ops, keys and
 * status codes shared by the daemon, libbwclient and bwctl.
 *
 * One message is one msgpack map sent as one SOCK_SEQPACKET datagram on
 * the control socket.  doc/protocol.md is the normative description; this
 * header is its machine-readable half and must agree with it.
 *
 * Numbers in this file are wire values: never renumber or reuse them.  Add
 * new ones at the end and record them in the changelog below.
 *
 * Changelog
 *   1  (bwsched 0.1.0)  first version: hello, task.*, kernel.*, stream.sync,
 *                       memcpy.*, lock, unlock, status, tasks, kernels,
 *                       get, set, subscribe, reload.
 *   1  (bwsched 0.2.0)  additive: lock.files (the task's lock-slot files,
 *                       passed back with SCM_RIGHTS); status gains the
 *                       look-ahead and lock-enforcement keys.
 *   1  (bwsched 0.2.0)  additive, "v" stays 1: GPU partitioning
 *                       (doc/partition.md): optional "gpu" maps in
 *                       task.register and kernel.register; ops
 *                       partitions, gpu.device, gpu.granted; status 15
 *                       UNSCHEDULABLE; "partitioning" in hello's reply.
 */
#ifndef BWPROTO_H
#define BWPROTO_H

#include <stdint.h>

#define BWP_VERSION		1

#define BWP_SOCKET_DEFAULT	"/run/bwsched/bwsched.sock"
#define BWP_SOCKET_ENV		"BWSCHED_SOCKET"

/* Hard limits, checked before anything is decoded. */
#define BWP_MAX_MSG		65536	/* bytes in one message */
#define BWP_MAX_FDS		2	/* SCM_RIGHTS descriptors per message */
#define BWP_MAX_NAME		63	/* bytes in a task or kernel name */
#define BWP_MAX_KEY		31	/* bytes in a get/set key */
#define BWP_MAX_VALUE		255	/* bytes in a get/set string value */
#define BWP_MAX_CLUSTERS	64	/* clusters per kernel */
#define BWP_MAX_INTERVALS	4096	/* interval-table rows per kernel */
#define BWP_MAX_BLOCKS		(1u << 24) /* thread blocks per kernel */
#define BWP_MAX_CONCURRENCY	65536	/* resident blocks */
#define BWP_MAX_TOPICS		8	/* topics in one subscribe */
#define BWP_MIN_PERIOD_NS	100000ull	/* task period range */
#define BWP_MAX_PERIOD_NS	10000000000ull
#define BWP_MAX_EXEC_NS		3600000000000ull /* e0/e1 upper bound: 1 h */
#define BWP_MAX_SMS		4096	/* SMs of a GPU (partitioning) */

/* Map keys every message may carry. */
#define BWP_K_VERSION	"v"	/* uint: protocol version, requests only */
#define BWP_K_ID	"id"	/* uint: request id, echoed in the reply */
#define BWP_K_OP	"op"	/* str: operation name, requests only */
#define BWP_K_STATUS	"status" /* uint: enum bwp_status, replies only */
#define BWP_K_ERROR	"error"	/* str: human-readable, error replies only */
#define BWP_K_EVENT	"ev"	/* str: event name, pushed events only */

/*
 * Operations.  The wire carries the name; the number is for tables and
 * statistics inside the programs.
 */
enum bwp_op {
	BWP_OP_HELLO = 1,	/* "hello" */
	BWP_OP_TASK_REGISTER,	/* "task.register" */
	BWP_OP_TASK_UNREGISTER,	/* "task.unregister" */
	BWP_OP_KERNEL_REGISTER,	/* "kernel.register" */
	BWP_OP_KERNEL_START,	/* "kernel.start" */
	BWP_OP_KERNEL_END,	/* "kernel.end" */
	BWP_OP_STREAM_SYNC,	/* "stream.sync" */
	BWP_OP_MEMCPY_BEGIN,	/* "memcpy.begin" */
	BWP_OP_MEMCPY_END,	/* "memcpy.end" */
	BWP_OP_LOCK,		/* "lock" */
	BWP_OP_UNLOCK,		/* "unlock" */
	BWP_OP_STATUS,		/* "status" */
	BWP_OP_TASKS,		/* "tasks" */
	BWP_OP_KERNELS,		/* "kernels" */
	BWP_OP_GET,		/* "get" */
	BWP_OP_SET,		/* "set" (admin) */
	BWP_OP_SUBSCRIBE,	/* "subscribe" */
	BWP_OP_RELOAD,		/* "reload" (admin) */
	BWP_OP_METRICS,		/* "metrics" */
	BWP_OP_LOCK_FILES,	/* "lock.files" (0.2.0) */
	BWP_OP_PARTITIONS,	/* "partitions" */
	BWP_OP_GPU_DEVICE,	/* "gpu.device" */
	BWP_OP_GPU_GRANTED,	/* "gpu.granted" */
	BWP_OP_MAX
};

/* Reply status codes. */
enum bwp_status {
	BWP_OK = 0,
	BWP_E_MALFORMED = 1,	/* not a msgpack map, truncated, trailing bytes */
	BWP_E_TOOBIG = 2,	/* message over BWP_MAX_MSG (or truncated by it) */
	BWP_E_VERSION = 3,	/* "v" missing or not BWP_VERSION */
	BWP_E_UNKNOWN_OP = 4,	/* "op" names no operation */
	BWP_E_BADARG = 5,	/* missing key, wrong type, out of range */
	BWP_E_PERM = 6,		/* admin op by non-admin, or acting for another pid */
	BWP_E_NOHELLO = 7,	/* op other than hello before hello */
	BWP_E_NOENT = 8,	/* no such task, kernel, key or launch */
	BWP_E_EXIST = 9,	/* already registered / hello twice */
	BWP_E_LIMIT = 10,	/* a configured limit (tasks, kernels, streams) */
	BWP_E_BADFD = 11,	/* page missing, not a memfd, unsealed, wrong size */
	BWP_E_STATE = 12,	/* op not valid now (e.g. memcpy.end without begin) */
	BWP_E_RATE = 13,	/* too many messages per second */
	BWP_E_INTERNAL = 14,	/* daemon-side failure; request had no effect */
	BWP_E_UNSCHEDULABLE = 15, /* the GPU partition plan cannot take it */
	BWP_E_MAX
};

/*
 * Connections that send BWP_BAD_INPUT_LIMIT malformed or invalid messages
 * in a row are closed after the error reply.
 */
#define BWP_BAD_INPUT_LIMIT	8

#endif /* BWPROTO_H */
