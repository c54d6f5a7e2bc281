/*
 * validate.c - per-op request validators (see validate.h).
 */
#include <config.h>
#include <string.h>

#include <bwsched/bwshm.h>

#include "validate.h"

typedef int (*validator_fn)(struct bwp_msg *, int nfds, union req *);

static int
v_none(struct bwp_msg *m, int nfds, union req *r)
{
	return m->status;
}

static int
v_hello(struct bwp_msg *m, int nfds, union req *r)
{
	bwp_get_uint(m, NULL, "pid", true, 1, INT32_MAX, &r->hello.pid);
	bwp_get_str(m, NULL, "name", true, 0, BWP_MAX_NAME, r->hello.name);
	return m->status;
}

/*
 * The optional "gpu" map (doc/protocol.md): a_ns and class required,
 * b_ns, k, deadline_ns and (kernels) period_ns optional.
 */
static int
v_gpu(struct bwp_msg *m, struct req_gpu *g, bool kernel)
{
	const msgpack_object	*o = bwp_msg_find(m, NULL, "gpu");
	char			 cls[3];

	memset(g, 0, sizeof(*g));
	if (o == NULL)
		return 0;
	if (o->type != MSGPACK_OBJECT_MAP)
		return bwp_msg_fail(m, BWP_E_BADARG, "\"gpu\" must be a map");
	bwp_get_uint(m, o, "a_ns", true, 1, BWP_MAX_EXEC_NS, &g->a_ns);
	bwp_get_str(m, o, "class", true, 2, 2, cls);
	g->has_b = bwp_get_uint(m, o, "b_ns", false, 0, BWP_MAX_EXEC_NS,
	    &g->b_ns) > 0;
	g->has_k = bwp_get_double(m, o, "k", false, 1, 100, false,
	    &g->k) > 0;
	g->has_deadline = bwp_get_uint(m, o, "deadline_ns", false, 1,
	    BWP_MAX_PERIOD_NS, &g->deadline_ns) > 0;
	if (kernel)
		g->has_period = bwp_get_uint(m, o, "period_ns", false,
		    BWP_MIN_PERIOD_NS, BWP_MAX_PERIOD_NS, &g->period_ns) > 0;
	if (m->status != BWP_OK)
		return m->status;
	if (strcmp(cls, "ci") == 0)
		g->cls = 0;
	else if (strcmp(cls, "mi") == 0)
		g->cls = 1;
	else
		return bwp_msg_fail(m, BWP_E_BADARG, "\"gpu.class\" must be "
		    "\"ci\" or \"mi\"");
	g->present = true;
	return BWP_OK;
}

static int
v_task_register(struct bwp_msg *m, int nfds, union req *r)
{
	struct req_task_register	*t = &r->task;
	int				want;

	bwp_get_str(m, NULL, "name", true, 1, BWP_MAX_NAME, t->name);
	bwp_get_uint(m, NULL, "period_ns", true, BWP_MIN_PERIOD_NS,
	    BWP_MAX_PERIOD_NS, &t->period_ns);
	bwp_get_uint(m, NULL, "priority", true, 1, 99, &t->priority);
	bwp_get_uint(m, NULL, "pages", true, 0, 3, &t->pages);
	if (m->status != BWP_OK)
		return m->status;
	want = (int)(t->pages & 1) + (int)((t->pages >> 1) & 1);
	if (nfds != want)
		return bwp_msg_fail(m, BWP_E_BADFD, "\"pages\" %llu needs %d "
		    "descriptors, got %d", (unsigned long long)t->pages,
		    want, nfds);
	return v_gpu(m, &t->gpu, false);
}

static int
v_clusters(struct bwp_msg *m, struct req_kernel_register *k)
{
	const msgpack_object_array	*a, *p;
	uint32_t			i;

	if (bwp_get_array(m, NULL, "clusters", true, 1, BWP_MAX_CLUSTERS,
	    &a) < 0)
		return -1;
	k->nclusters = a->size;
	for (i = 0; i < a->size; i++) {
		if (a->ptr[i].type != MSGPACK_OBJECT_ARRAY ||
		    a->ptr[i].via.array.size != 2) {
			bwp_msg_fail(m, BWP_E_BADARG, "\"clusters\"[%u] must "
			    "be [e0_ns, e1_ns]", i);
			return -1;
		}
		p = &a->ptr[i].via.array;
		if (bwp_obj_uint(m, &p->ptr[0], "clusters.e0", 1,
		    BWP_MAX_EXEC_NS, &k->e0[i]) < 0 ||
		    bwp_obj_uint(m, &p->ptr[1], "clusters.e1", 1,
		    BWP_MAX_EXEC_NS, &k->e1[i]) < 0)
			return -1;
		if (k->e1[i] < k->e0[i]) {
			bwp_msg_fail(m, BWP_E_BADARG, "\"clusters\"[%u]: e1 < "
			    "e0", i);
			return -1;
		}
	}
	return 0;
}

static int
v_interval(struct bwp_msg *m, struct req_kernel_register *k, uint32_t i,
    const msgpack_object *o, uint64_t *used)
{
	uint64_t	first, id;

	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 2) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"intervals\"[%u] must be "
		    "[first_block, cluster_id]", i);
		return -1;
	}
	if (bwp_obj_uint(m, &o->via.array.ptr[0], "intervals.first_block", 0,
	    k->blocks - 1, &first) < 0 ||
	    bwp_obj_uint(m, &o->via.array.ptr[1], "intervals.cluster_id", 0,
	    k->nclusters - 1, &id) < 0)
		return -1;
	if ((i == 0 && first != 0) || (i > 0 && first <= k->first[i - 1])) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"intervals\"[%u]: first blocks "
		    "must start at 0 and increase strictly", i);
		return -1;
	}
	k->first[i] = (uint32_t)first;
	k->cluster[i] = (uint16_t)id;
	used[id / 64] |= 1ull << (id % 64);
	return 0;
}

static int
v_intervals(struct bwp_msg *m, struct req_kernel_register *k)
{
	const msgpack_object_array	*a;
	uint64_t			used[(BWP_MAX_CLUSTERS + 63) / 64];
	uint32_t			i;

	memset(used, 0, sizeof(used));
	if (bwp_get_array(m, NULL, "intervals", true, 1, BWP_MAX_INTERVALS,
	    &a) < 0)
		return -1;
	k->nintervals = a->size;
	for (i = 0; i < a->size; i++)
		if (v_interval(m, k, i, &a->ptr[i], used) < 0)
			return -1;
	for (i = 0; i < k->nclusters; i++)
		if (!(used[i / 64] & (1ull << (i % 64)))) {
			bwp_msg_fail(m, BWP_E_BADARG, "cluster %u is used by "
			    "no interval", i);
			return -1;
		}
	return 0;
}

static int
v_kernel_register(struct bwp_msg *m, int nfds, union req *r)
{
	struct req_kernel_register	*k = &r->kreg;
	uint64_t			v;
	int				got;

	bwp_get_str(m, NULL, "name", true, 1, BWP_MAX_NAME, k->name);
	if (bwp_get_uint(m, NULL, "blocks", true, 1, BWP_MAX_BLOCKS, &v) > 0)
		k->blocks = (uint32_t)v;
	if (bwp_get_uint(m, NULL, "concurrency", true, 1,
	    BWP_MAX_CONCURRENCY, &v) > 0)
		k->concurrency = (uint32_t)v;
	if (m->status != BWP_OK || v_clusters(m, k) < 0 ||
	    v_intervals(m, k) < 0)
		return m->status;
	got = bwp_get_double(m, NULL, "slowdown", false, 0, 10, true,
	    &k->slowdown);
	k->has_slowdown = got > 0;
	got = bwp_get_double(m, NULL, "q_nominal", false, 0, 1, false, &k->q);
	k->has_q = got > 0;
	if (m->status != BWP_OK)
		return m->status;
	return v_gpu(m, &k->gpu, true);
}

static int
v_kernel_start(struct bwp_msg *m, int nfds, union req *r)
{
	struct req_kernel_start	*s = &r->kstart;

	bwp_get_uint(m, NULL, "kernel", true, 0, UINT64_MAX, &s->kernel);
	bwp_get_uint(m, NULL, "stream", true, 0, UINT64_MAX, &s->stream);
	s->has_slot = bwp_get_uint(m, NULL, "slot", false, 0,
	    BWSHM_MAX_SLOTS - 1, &s->slot) > 0;
	s->has_launch_ns = bwp_get_uint(m, NULL, "launch_ns", false, 0,
	    UINT64_MAX, &s->launch_ns) > 0;
	return m->status;
}

static int
v_kernel_end(struct bwp_msg *m, int nfds, union req *r)
{
	bwp_get_uint(m, NULL, "kernel", true, 0, UINT64_MAX, &r->kend.kernel);
	r->kend.has_launch = bwp_get_uint(m, NULL, "launch", false, 0,
	    UINT64_MAX, &r->kend.launch) > 0;
	return m->status;
}

static int
v_stream_sync(struct bwp_msg *m, int nfds, union req *r)
{
	bool	all = false;

	if (bwp_get_bool(m, NULL, "all", false, &all) < 0)
		return m->status;
	r->sync.all = all;
	if (!all)
		bwp_get_uint(m, NULL, "stream", true, 0, UINT64_MAX,
		    &r->sync.stream);
	return m->status;
}

static int
v_kernels(struct bwp_msg *m, int nfds, union req *r)
{
	/* an id the daemon never gives out is NOENT, not BADVAL */
	r->kernels.has_task = bwp_get_uint(m, NULL, "task", false, 0,
	    UINT64_MAX, &r->kernels.task) > 0;
	return m->status;
}

static int
v_get(struct bwp_msg *m, int nfds, union req *r)
{
	bwp_get_str(m, NULL, "key", true, 1, BWP_MAX_KEY, r->key.key);
	return m->status;
}

static int
v_set(struct bwp_msg *m, int nfds, union req *r)
{
	const msgpack_object	*o;
	double			d;

	if (v_get(m, nfds, r) != BWP_OK)
		return m->status;
	o = bwp_msg_find(m, NULL, "value");
	if (o == NULL)
		return bwp_msg_fail(m, BWP_E_BADARG, "missing \"value\"");
	if (o->type == MSGPACK_OBJECT_STR) {
		if (o->via.str.size > BWP_MAX_VALUE ||
		    memchr(o->via.str.ptr, 0, o->via.str.size) != NULL)
			return bwp_msg_fail(m, BWP_E_BADARG, "\"value\" "
			    "longer than %d bytes or holds a NUL",
			    BWP_MAX_VALUE);
	} else if (bwp_obj_double(o, &d) < 0)
		return bwp_msg_fail(m, BWP_E_BADARG, "\"value\" must be a "
		    "string or a finite number");
	r->key.value = o;
	return BWP_OK;
}

static const char *const topic_names[] = { "lock", "kernel", "period", "log" };

const char *
validate_topic_name(unsigned int bit)
{
	unsigned int	i;

	for (i = 0; i < 4; i++)
		if (bit == 1u << i)
			return topic_names[i];
	return "?";
}

static int
v_subscribe(struct bwp_msg *m, int nfds, union req *r)
{
	const msgpack_object_array	*a;
	char				t[16];
	uint32_t			i, j;

	r->sub.topics = 0;
	if (bwp_get_array(m, NULL, "topics", true, 0, BWP_MAX_TOPICS, &a) < 0)
		return m->status;
	for (i = 0; i < a->size; i++) {
		if (bwp_obj_str(m, &a->ptr[i], "topics", sizeof(t) - 1, t) < 0)
			return m->status;
		for (j = 0; j < 4; j++)
			if (strcmp(t, topic_names[j]) == 0)
				break;
		if (j == 4)
			return bwp_msg_fail(m, BWP_E_BADARG, "unknown topic "
			    "\"%s\"", t);
		r->sub.topics |= 1u << j;
	}
	return BWP_OK;
}

static int
v_gpu_device(struct bwp_msg *m, int nfds, union req *r)
{
	bwp_get_uint(m, NULL, "sms", true, 1, BWP_MAX_SMS, &r->gdev.sms);
	bwp_get_uint(m, NULL, "granule", true, 1, BWP_MAX_SMS,
	    &r->gdev.granule);
	if (m->status == BWP_OK && r->gdev.granule > r->gdev.sms)
		return bwp_msg_fail(m, BWP_E_BADARG, "\"granule\" above "
		    "\"sms\"");
	return m->status;
}

static int
v_gpu_granted(struct bwp_msg *m, int nfds, union req *r)
{
	bwp_get_uint(m, NULL, "sms", true, 1, BWP_MAX_SMS, &r->granted.sms);
	return m->status;
}

static const validator_fn validators[BWP_OP_MAX] = {
	[BWP_OP_HELLO] = v_hello,
	[BWP_OP_TASK_REGISTER] = v_task_register,
	[BWP_OP_TASK_UNREGISTER] = v_none,
	[BWP_OP_KERNEL_REGISTER] = v_kernel_register,
	[BWP_OP_KERNEL_START] = v_kernel_start,
	[BWP_OP_KERNEL_END] = v_kernel_end,
	[BWP_OP_STREAM_SYNC] = v_stream_sync,
	[BWP_OP_MEMCPY_BEGIN] = v_none,
	[BWP_OP_MEMCPY_END] = v_none,
	[BWP_OP_LOCK] = v_none,
	[BWP_OP_UNLOCK] = v_none,
	[BWP_OP_STATUS] = v_none,
	[BWP_OP_TASKS] = v_none,
	[BWP_OP_KERNELS] = v_kernels,
	[BWP_OP_GET] = v_get,
	[BWP_OP_SET] = v_set,
	[BWP_OP_SUBSCRIBE] = v_subscribe,
	[BWP_OP_RELOAD] = v_none,
	[BWP_OP_METRICS] = v_none,
	[BWP_OP_LOCK_FILES] = v_none,
	[BWP_OP_PARTITIONS] = v_none,
	[BWP_OP_GPU_DEVICE] = v_gpu_device,
	[BWP_OP_GPU_GRANTED] = v_gpu_granted,
};

int
validate_request(struct bwp_msg *m, int nfds, union req *r)
{
	if (m->status != BWP_OK)
		return m->status;
	if (m->op <= 0 || m->op >= BWP_OP_MAX)
		return bwp_msg_fail(m, BWP_E_UNKNOWN_OP, "unknown op");
	if (nfds > 0 && m->op != BWP_OP_TASK_REGISTER)
		return bwp_msg_fail(m, BWP_E_BADFD, "op \"%s\" takes no "
		    "descriptors", bwp_op_name(m->op));
	return validators[m->op](m, nfds, r);
}
