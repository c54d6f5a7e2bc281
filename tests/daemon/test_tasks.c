/*
 * test_tasks.c - the task registry without sockets: BWLOCK++ Table 1
 * (streams, copies, explicit lock, task page words OR-ed), the static
 * budget handed to the regulator (smallest Q-bar among holders, minus the
 * overhead, split over the BE cores), the snapshot, and the sim
 * regulator's clock and statistics.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "reg_sim.h"
#include "tasks.h"

#include "../check.h"

static uint64_t	last_budget[REG_MAX_CORES], last_gen;
static unsigned int	budget_calls, lock_events;

static void
on_lock(void *arg, const struct task *t, bool locked)
{
	lock_events++;
}

static void
on_budget(void *arg, const uint64_t *ev, unsigned int n, uint64_t gen)
{
	CHECKM(gen > 0, "generation 0");
	last_gen = gen;
	memcpy(last_budget, ev, n * sizeof(*ev));
	budget_calls++;
}

static void
on_kernel(void *arg, const struct task *t, const struct kernel *k,
    uint64_t launch, const char *what, uint64_t ts)
{
}

static uint64_t	slot_events[REG_MAX_LOCKS];
static unsigned int	slot_calls, slot_closes;

static void
on_slot(void *arg, unsigned int slot, uint64_t events, bool close)
{
	if (slot >= REG_MAX_LOCKS)
		return;
	slot_events[slot] = events;
	slot_calls++;
	slot_closes += close;
}

static struct task *
new_task(struct tasks *ts, pid_t pid, int fd)
{
	struct req_task_register	r = { "t", 1000000, 10, fd >= 0, { 0 } };
	struct task			*t = NULL;
	char				err[128] = "";

	CHECKM(tasks_register(ts, pid, &r, &fd, fd >= 0, &t, err,
	    sizeof(err)) == BWP_OK, "register: %s", err);
	return t;
}

static void
add_kernel(struct tasks *ts, struct task *t, const char *name, double q)
{
	static struct req_kernel_register	r;
	struct kernel				*k;
	char					err[128] = "";

	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "%s", name);
	r.blocks = 10;
	r.concurrency = 2;
	r.nclusters = 1;
	r.e0[0] = 1000;
	r.e1[0] = 3000;
	r.nintervals = 1;
	r.has_q = true;
	r.q = q;
	CHECKM(tasks_kernel_register(ts, t, &r, &k, err, sizeof(err)) ==
	    BWP_OK && k->q_nominal == q && k->wcet_ns >= k->wcet0_ns,
	    "kernel %s: %s", name, err);
}

static void
table1(void)
{
	struct tasks_hooks	h = { NULL, on_lock, on_budget, on_kernel,
				    on_slot };
	struct req_stream_sync	sync = { false, 7 };
	struct req_kernel_start	ks = { 0 };
	struct bwshm_task_page	*tp;
	struct config		c;
	struct tasks		*ts;
	struct task		*a, *b, *t3;
	uint64_t		launch, g;
	unsigned int		n;
	char			err[128];
	int			fd;

	/* bwmax 60000, overhead 470, 3 cores */
	config_defaults(&c);
	ts = tasks_new(&c, &h);
	tasks_update(ts);
	CHECKM(budget_calls == 1 && last_budget[0] == REG_UNLIMITED,
	    "unregulated at start");
	fd = memfd_create("tp", MFD_ALLOW_SEALING);
	CHECKM(ftruncate(fd, BWSHM_TASK_PAGE_SIZE) == 0, "ftruncate");
	tp = mmap(NULL, BWSHM_TASK_PAGE_SIZE, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	tp->magic = BWSHM_TASK_MAGIC;
	tp->version = BWSHM_LAYOUT_VERSION;
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	a = new_task(ts, 100, fd);
	b = new_task(ts, 200, -1);
	add_kernel(ts, a, "ka", 0.5);
	add_kernel(ts, a, "ka2", 0.3);
	add_kernel(ts, b, "kb", 0.2);

	/* a: a stream; Q-bar of a = 0.3 */
	ks.kernel = a->kernels[0]->id;
	ks.stream = 7;
	CHECKM(tasks_kernel_start(ts, a, &ks, 1, &launch, err, sizeof(err)) ==
	    BWP_OK && launch == 1, "start");
	CHECKM(tasks_holders(ts) == 1 && last_budget[0] ==
	    (uint64_t)((60000 * 0.3 - 470) / 3), "a holds: %llu",
	    (unsigned long long)last_budget[0]);
	/* b takes the explicit lock: the smallest Q-bar wins */
	CHECKM(tasks_lock(ts, b, true, err, sizeof(err)) == BWP_OK, "lock");
	CHECKM(tasks_holders(ts) == 2 && last_budget[2] ==
	    (uint64_t)((60000 * 0.2 - 470) / 3), "both hold");
	CHECKM(tasks_lock(ts, b, false, err, sizeof(err)) == BWP_OK, "unlock");
	CHECKM(tasks_holders(ts) == 1, "b released");
	/*
	 * A holder whose Q-bar does not lower the static budget still
	 * changes the holders: the regulator is told (it withdraws plans
	 * decided without it), with a newer generation.
	 */
	n = budget_calls;
	g = last_gen;
	add_kernel(ts, b, "kb2", 0.9);
	CHECKM(tasks_lock(ts, b, true, err, sizeof(err)) == BWP_OK, "lock");
	CHECKM(budget_calls > n && last_gen > g && last_gen ==
	    tasks_generation(ts), "same budget, new holder: told (%u calls, "
	    "gen %llu)", budget_calls - n, (unsigned long long)last_gen);
	CHECKM(tasks_lock(ts, b, false, err, sizeof(err)) == BWP_OK, "unlock");
	/* the stream sync releases a, unless its page says otherwise */
	__atomic_store_n(&tp->memcpy_depth, 1, __ATOMIC_RELEASE);
	CHECKM(tasks_stream_sync(ts, a, &sync, err, sizeof(err)) == BWP_OK,
	    "sync");
	CHECKM(tasks_holders(ts) == 1, "page copy keeps a locked");
	__atomic_store_n(&tp->memcpy_depth, 0, __ATOMIC_RELEASE);
	tasks_update(ts);
	CHECKM(tasks_holders(ts) == 0 && last_budget[1] == REG_UNLIMITED,
	    "all released");
	/* copies nest; a task without kernels gets Q-bar 0 */
	CHECKM(tasks_memcpy(ts, b, false, err, sizeof(err)) == BWP_E_STATE,
	    "memcpy.end first");
	t3 = new_task(ts, 300, -1);
	CHECKM(tasks_memcpy(ts, t3, true, err, sizeof(err)) == BWP_OK &&
	    last_budget[0] == 0, "copy without kernels: zero budget");
	CHECKM(tasks_memcpy(ts, t3, true, err, sizeof(err)) == BWP_OK &&
	    tasks_memcpy(ts, t3, false, err, sizeof(err)) == BWP_OK &&
	    tasks_holders(ts) == 1, "copies nest");
	tasks_unregister(ts, t3);
	tasks_unregister(ts, b);
	CHECKM(tasks_buried(ts) == 0, "no reader: freed at once");
	CHECKM(tasks_holders(ts) == 0 && tasks_count(ts) == 1 &&
	    tasks_kernel_count(ts) == 2 && last_budget[0] == REG_UNLIMITED,
	    "unregister drops the holder");
	CHECKM(lock_events >= 6, "lock events %u", lock_events);
	tasks_free(ts);
	munmap(tp, BWSHM_TASK_PAGE_SIZE);
}

static void
snapshot(void)
{
	struct tasks_hooks	h = { NULL, on_lock, on_budget, on_kernel,
				    on_slot };
	struct tasks_snapshot	*s = calloc(1, sizeof(*s) +
				    4 * sizeof(struct tasks_holder));
	struct config		c;
	struct tasks		*ts;
	struct task		*a;
	char			err[64];

	config_defaults(&c);
	ts = tasks_new(&c, &h);
	a = new_task(ts, 1, -1);
	add_kernel(ts, a, "k", 0.4);
	tasks_lock(ts, a, true, err, sizeof(err));
	tasks_snapshot(ts, s, 4);
	CHECKM(s->nholders == 1 && s->holder[0].task == a->id &&
	    s->holder[0].qbar == 0.4 && s->q_static == 0.4, "snapshot");
	/* the reader holds a's pointers: a stays buried until it moves on */
	tasks_unregister(ts, a);
	CHECKM(tasks_buried(ts) == 1, "kept for the reader");
	tasks_update(ts);
	CHECKM(tasks_buried(ts) == 1, "still kept");
	tasks_snapshot(ts, s, 4);
	CHECKM(s->nholders == 0, "new snapshot without a");
	tasks_update(ts);
	CHECKM(tasks_buried(ts) == 0, "freed after the next snapshot");
	tasks_free(ts);
	free(s);
}

static void
limits(void)
{
	static struct req_kernel_register	r;
	struct tasks_hooks	h = { NULL, on_lock, on_budget, on_kernel,
				    on_slot };
	struct req_task_register	tr = { "t", 1000000, 10, 0, { 0 } };
	struct config		c;
	struct tasks		*ts;
	struct task		*a, *x;
	struct kernel		*k;
	uint64_t		n;
	char			err[128];

	config_defaults(&c);
	c.max_tasks = 1;
	c.max_kernels_per_task = 1;
	ts = tasks_new(&c, &h);
	a = new_task(ts, 1, -1);
	CHECKM(tasks_register(ts, 2, &tr, NULL, 0, &x, err, sizeof(err)) ==
	    BWP_E_LIMIT && strstr(err, "task limit"), "max_tasks");
	add_kernel(ts, a, "k1", 0.5);
	/* no progress page, or no such task: no client end to read */
	CHECKM(tasks_slot_end(ts, a->id, 0, 1, &n) < 0 &&
	    tasks_slot_end(ts, a->id + 99, 0, 1, &n) < 0, "slot end refused");
	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "k1");
	CHECKM(tasks_kernel_register(ts, a, &r, &k, err, sizeof(err)) ==
	    BWP_E_EXIST, "same name");
	snprintf(r.name, sizeof(r.name), "k2");
	CHECKM(tasks_kernel_register(ts, a, &r, &k, err, sizeof(err)) ==
	    BWP_E_LIMIT, "max_kernels_per_task");
	tasks_free(ts);
}

static void
sim(void)
{
	struct reg_config	rc = { .period_ns = 1000000, .ncores = 2 };
	struct regulator	*r;
	struct reg_plan		plan;
	uint64_t		ev[2] = { 5, 6 }, got[2], n, p, next;
	struct reg_stats	st;
	char			err[64];

	CHECKM(reg_sim_ops.open(&r, &rc, err, sizeof(err)) == 0, "open");
	CHECKM(reg_sim_ops.set_static(r, ev, 2, 1) == 0, "set_static");
	CHECKM(reg_sim_ops.set_static(r, ev, 3, 1) < 0, "wrong core count");
	CHECKM(reg_sim_recorded(r, got, 2, &n) == 2 && got[0] == 5 &&
	    got[1] == 6 && n == 1, "recorded");
	CHECKM(reg_sim_ops.clock(r, &p, &next) == 0 && next % 1000000 == 0,
	    "aligned boundary");
	CHECKM(reg_sim_ops.stats(r, &st) == 0 && st.ncores == 2, "stats");
	/* a plan decided on holders older than the static budget's is
	 * refused; one of the same generation or newer goes in */
	memset(&plan, 0, sizeof(plan));
	plan.first = p + 2;
	plan.len = 2;
	CHECKM(reg_sim_ops.set_static(r, ev, 2, 7) == 0, "set_static gen 7");
	plan.gen = 6;
	CHECKM(reg_sim_ops.apply_plan(r, &plan) == -ESTALE, "stale plan");
	plan.gen = 7;
	CHECKM(reg_sim_ops.apply_plan(r, &plan) == 0, "current plan");
	/* an older generation does not move the mark back */
	CHECKM(reg_sim_ops.set_static(r, ev, 2, 3) == 0, "set_static gen 3");
	plan.gen = 6;
	CHECKM(reg_sim_ops.apply_plan(r, &plan) == -ESTALE, "still stale");
	reg_sim_ops.close(r);
}

/*
 * Lock slots: allocated on first use, the same one afterwards, round
 * robin (a slot just freed is reused last), its static budget told when
 * the task's Q-bar moves, closed when the task goes, and none left when
 * all are taken.
 */
static void
slots(void)
{
	struct tasks_hooks	h = { NULL, on_lock, on_budget, on_kernel,
				    on_slot };
	struct task		*a, *b, *many[REG_MAX_LOCKS];
	struct config		c;
	struct tasks		*ts;
	uint64_t		ev, ev2;
	int			s, i;

	config_defaults(&c);
	c.max_tasks = REG_MAX_LOCKS + 2;
	ts = tasks_new(&c, &h);
	a = new_task(ts, 100, -1);
	b = new_task(ts, 101, -1);
	CHECKM(a->lock_slot == -1, "no slot before asked");
	s = tasks_lock_slot(ts, a, &ev);
	CHECKM(s == 0 && a->lock_slot == 0, "first slot %d", s);
	/* no kernel: full protection, budget 0 events */
	CHECKM(ev == 0, "no kernel: %llu", (unsigned long long)ev);
	CHECKM(tasks_lock_slot(ts, a, &ev2) == 0, "same slot again");
	CHECKM(tasks_lock_slot(ts, b, &ev) == 1, "next slot");
	slot_calls = 0;
	add_kernel(ts, a, "k", 0.2);
	CHECKM(slot_calls == 1 && slot_events[0] ==
	    (uint64_t)((60000 * 0.2 - 470) / 3), "budget told: %llu",
	    (unsigned long long)slot_events[0]);
	tasks_update(ts);
	CHECKM(slot_calls == 1, "told once");
	slot_closes = 0;
	tasks_unregister(ts, a);
	CHECKM(slot_closes == 1, "closed with its task");
	a = new_task(ts, 102, -1);
	CHECKM(tasks_lock_slot(ts, a, &ev) == 2, "round robin: not slot 0");
	for (i = 0; i < REG_MAX_LOCKS; i++)
		many[i] = NULL;
	for (i = 0; i < REG_MAX_LOCKS - 3; i++) {
		many[i] = new_task(ts, 200 + i, -1);
		CHECKM(tasks_lock_slot(ts, many[i], &ev) >= 0, "slot %d", i);
	}
	/* slot 0 is the only free one now */
	many[i] = new_task(ts, 300, -1);
	CHECKM(tasks_lock_slot(ts, many[i], &ev) == 0, "wrapped to 0");
	b = new_task(ts, 301, -1);
	CHECKM(tasks_lock_slot(ts, b, &ev) == -1, "all taken");
	tasks_free(ts);
}

int
main(void)
{
	table1();
	snapshot();
	limits();
	slots();
	sim();
	if (failures == 0)
		printf("tasks: all passed\n");
	return failures ? 1 : 0;
}
