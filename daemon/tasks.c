/*
 * tasks.c - task and kernel registry, bandwidth lock (see tasks.h).
 */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "admit.h"
#include "budget.h"
#include "ceiling.h"
#include "tasks.h"
#include "wire.h"

struct tasks {
	const struct config	*cfg;
	struct tasks_hooks	hooks;
	struct task		*list;
	unsigned int		ntasks;
	unsigned int		nkernels;
	uint32_t		next_task;
	uint32_t		next_kernel;
	unsigned int		holders;
	double			q_static;	/* -1: no holder */
	unsigned int		ncores;
	uint64_t		budget[REG_MAX_CORES];
	bool			budget_valid;
	pthread_mutex_t		snap_lock;
	struct tasks_snapshot	*snap;	/* room: snap_cap */
	unsigned int		snap_cap;
	/* under snap_lock: has a reader taken snapshots, the last gen */
	bool			reader;
	uint64_t		reader_gen;
	/* unregistered tasks whose pages a reader may still use */
	struct task		*graves;
	uint64_t		slots;		/* lock slots in use */
	unsigned int		slot_next;	/* where the search starts */
	struct admit		*admit;	/* GPU partitioning (admit.h) */
};

struct tasks *
tasks_new(const struct config *cfg, const struct tasks_hooks *hooks)
{
	struct tasks	*ts = calloc(1, sizeof(*ts));

	if (ts == NULL)
		return NULL;
	ts->cfg = cfg;
	ts->hooks = *hooks;
	ts->next_task = 1;
	ts->next_kernel = 1;
	ts->q_static = -1;
	pthread_mutex_init(&ts->snap_lock, NULL);
	ts->snap_cap = 16;
	ts->snap = calloc(1, sizeof(*ts->snap) +
	    ts->snap_cap * sizeof(struct tasks_holder));
	if (ts->snap == NULL) {
		free(ts);
		return NULL;
	}
	ts->snap->q_static = -1;
	if ((ts->admit = admit_new(cfg)) == NULL) {
		free(ts->snap);
		free(ts);
		return NULL;
	}
	return ts;
}

struct admit *
tasks_admit(struct tasks *ts)
{
	return ts->admit;
}

static void
kernel_free(struct kernel *k)
{
	free(k->pt);
	free(k);
}

static void
task_free(struct task *t)
{
	unsigned int	i;

	for (i = 0; i < t->nkernels; i++)
		kernel_free(t->kernels[i]);
	free(t->kernels);
	if (t->tp != NULL)
		munmap(t->tp, BWSHM_TASK_PAGE_SIZE);
	if (t->pp != NULL)
		munmap(t->pp, t->pp_size);
	free(t);
}

void
tasks_free(struct tasks *ts)
{
	struct task	*t, *n;

	if (ts == NULL)
		return;
	for (t = ts->list; t != NULL; t = n) {
		n = t->next;
		task_free(t);
	}
	for (t = ts->graves; t != NULL; t = n) {
		n = t->next;
		task_free(t);
	}
	pthread_mutex_destroy(&ts->snap_lock);
	admit_free(ts->admit);
	free(ts->snap);
	free(ts);
}

/* ---- lock state --------------------------------------------------- */

bool
tasks_task_locked(const struct task *t)
{
	const struct bwshm_task_page	*p = t->tp;

	if (t->lock_depth > 0 || t->memcpy_depth > 0 || t->nstreams > 0)
		return true;
	if (p == NULL)
		return false;
	return __atomic_load_n(&p->lock_depth, __ATOMIC_ACQUIRE) > 0 ||
	    __atomic_load_n(&p->memcpy_depth, __ATOMIC_ACQUIRE) > 0 ||
	    __atomic_load_n(&p->active_streams, __ATOMIC_ACQUIRE) != 0;
}

unsigned int
tasks_active_streams(const struct task *t)
{
	uint64_t	page = 0;

	if (t->tp != NULL)
		page = __atomic_load_n(&t->tp->active_streams,
		    __ATOMIC_ACQUIRE);
	return t->nstreams + (unsigned int)__builtin_popcountll(page);
}

/* A task's static Q-bar: the smallest of its kernels'; 0 without any
 * (a copy or an uninstrumented kernel gets full protection). */
static double
task_qbar(const struct task *t)
{
	double		q = 1;
	unsigned int	i;

	if (t->nkernels == 0)
		return 0;
	for (i = 0; i < t->nkernels; i++)
		if (t->kernels[i]->q_nominal < q)
			q = t->kernels[i]->q_nominal;
	return q;
}

static void
compute_budget(const struct tasks *ts, double q, uint64_t *ev)
{
	const struct config	*c = ts->cfg;
	double			total;
	unsigned int		i;

	for (i = 0; i < c->ncores; i++) {
		if (q < 0) {
			ev[i] = REG_UNLIMITED;
			continue;
		}
		total = (double)c->bwmax_events * q -
		    (double)c->overhead_events;
		if (total < 0)
			total = 0;
		ev[i] = (uint64_t)(total / c->ncores);
	}
}

static int
snap_reserve(struct tasks *ts, unsigned int n)
{
	struct tasks_snapshot	*s;
	unsigned int		cap = ts->snap_cap;

	if (n <= cap)
		return 0;
	while (cap < n)
		cap *= 2;
	s = realloc(ts->snap, sizeof(*s) + cap * sizeof(struct tasks_holder));
	if (s == NULL)
		return -1;
	ts->snap = s;
	ts->snap_cap = cap;
	return 0;
}

/* Lock held for work the progress pages do not describe. */
static bool
task_uninstrumented(const struct task *t)
{
	unsigned int	i;

	if (t->memcpy_depth > 0)
		return true;
	for (i = 0; i < t->nstreams; i++)
		if (!t->slotted[i])
			return true;
	return false;
}

static void
publish(struct tasks *ts)
{
	struct tasks_holder	*h;
	struct task		*t;
	unsigned int		n = 0;

	pthread_mutex_lock(&ts->snap_lock);
	if (snap_reserve(ts, ts->ntasks) == 0) {
		for (t = ts->list; t != NULL; t = t->next) {
			if (!t->locked)
				continue;
			h = &ts->snap->holder[n++];
			h->task = t->id;
			h->qbar = task_qbar(t);
			h->tp = t->tp;
			h->pp = t->pp;
			h->pp_size = t->pp_size;
			h->nslots = t->nslots;
			h->pid = t->pid;
			h->name = t->name;
			h->uninstrumented = task_uninstrumented(t);
			h->nkernels = t->nkernels;
			h->kernels = t->kernels;
			h->lock_slot = t->lock_slot;
		}
	}
	ts->snap->nholders = n;
	ts->snap->q_static = ts->q_static;
	ts->snap->gen++;
	pthread_mutex_unlock(&ts->snap_lock);
}

void
tasks_snapshot(struct tasks *ts, struct tasks_snapshot *out, unsigned int max)
{
	unsigned int	n;

	pthread_mutex_lock(&ts->snap_lock);
	n = ts->snap->nholders < max ? ts->snap->nholders : max;
	out->gen = ts->snap->gen;
	out->nholders = n;
	out->total = ts->snap->nholders;
	out->q_static = ts->snap->q_static;
	memcpy(out->holder, ts->snap->holder, n * sizeof(out->holder[0]));
	ts->reader = true;
	ts->reader_gen = ts->snap->gen;
	pthread_mutex_unlock(&ts->snap_lock);
}

/*
 * Free buried tasks the reader can no longer reach: it has taken a
 * snapshot at least as new as the first one published without them.
 */
static void
reap(struct tasks *ts)
{
	struct task	**pp, *t;
	uint64_t	seen;
	bool		reader;

	if (ts->graves == NULL)
		return;
	pthread_mutex_lock(&ts->snap_lock);
	reader = ts->reader;
	seen = ts->reader_gen;
	pthread_mutex_unlock(&ts->snap_lock);
	for (pp = &ts->graves; (t = *pp) != NULL;) {
		if (!reader || t->dead_gen <= seen) {
			*pp = t->next;
			task_free(t);
		} else {
			pp = &t->next;
		}
	}
}

unsigned int
tasks_buried(const struct tasks *ts)
{
	const struct task	*t;
	unsigned int		n = 0;

	for (t = ts->graves; t != NULL; t = t->next)
		n++;
	return n;
}

uint64_t
tasks_generation(struct tasks *ts)
{
	uint64_t	g;

	pthread_mutex_lock(&ts->snap_lock);
	g = ts->snap->gen;
	pthread_mutex_unlock(&ts->snap_lock);
	return g;
}

/* Tell the regulator a task's lock-slot budget when it changed. */
static void
slot_budget(struct tasks *ts, struct task *t)
{
	uint64_t	ev[REG_MAX_CORES];

	if (t->lock_slot < 0 || ts->hooks.slot == NULL)
		return;
	compute_budget(ts, task_qbar(t), ev);
	if (ev[0] == t->lock_events)
		return;
	t->lock_events = ev[0];
	ts->hooks.slot(ts->hooks.arg, (unsigned int)t->lock_slot, ev[0],
	    false);
}

int
tasks_lock_slot(struct tasks *ts, struct task *t, uint64_t *events)
{
	uint64_t	ev[REG_MAX_CORES];
	unsigned int	i, s;

	compute_budget(ts, task_qbar(t), ev);
	t->lock_events = ev[0];
	*events = ev[0];
	if (t->lock_slot >= 0)
		return t->lock_slot;
	/* round robin: a slot just freed is taken last, so a plan that
	 * still names it has long been replaced */
	for (i = 0; i < REG_MAX_LOCKS; i++) {
		s = (ts->slot_next + i) % REG_MAX_LOCKS;
		if (!(ts->slots & (1ull << s))) {
			ts->slots |= 1ull << s;
			ts->slot_next = (s + 1) % REG_MAX_LOCKS;
			t->lock_slot = (int)s;
			return (int)s;
		}
	}
	return -1;
}

static void
slot_free(struct tasks *ts, struct task *t)
{
	if (t->lock_slot < 0)
		return;
	ts->slots &= ~(1ull << t->lock_slot);
	if (ts->hooks.slot != NULL)
		ts->hooks.slot(ts->hooks.arg, (unsigned int)t->lock_slot, 0,
		    true);
	t->lock_slot = -1;
}

/* Recompute holders and the static budget; force: publish regardless. */
static void
update(struct tasks *ts, bool force)
{
	uint64_t	ev[REG_MAX_CORES];
	struct task	*t;
	unsigned int	holders = 0;
	double		q = -1, tq;
	bool		changed = force, now;

	for (t = ts->list; t != NULL; t = t->next) {
		slot_budget(ts, t);
		now = tasks_task_locked(t);
		if (now != t->locked) {
			t->locked = now;
			t->lock_moved = true;
			changed = true;
		}
		if (!now)
			continue;
		holders++;
		tq = task_qbar(t);
		if (q < 0 || tq < q)
			q = tq;
	}
	if (!changed && q == ts->q_static && ts->budget_valid)
		return;
	ts->holders = holders;
	ts->q_static = q;
	compute_budget(ts, q, ev);
	/*
	 * Publish first: the regulator is told the generation that has the
	 * new holders, and refuses plans decided on older ones.  It is told
	 * whenever the holders may have changed, even with the same budget:
	 * plans decided for the old holders must not outlive them.
	 */
	publish(ts);
	if (changed || !ts->budget_valid || ts->ncores != ts->cfg->ncores ||
	    memcmp(ev, ts->budget, ts->cfg->ncores * sizeof(ev[0])) != 0) {
		ts->ncores = ts->cfg->ncores;
		memcpy(ts->budget, ev, ts->ncores * sizeof(ev[0]));
		ts->budget_valid = true;
		ts->hooks.budget(ts->hooks.arg, ev, ts->ncores,
		    tasks_generation(ts));
	}
	/*
	 * The regulator and the engine first (a holder's next period is
	 * decided on what was published), then the priority ceiling and the
	 * lock events.
	 */
	for (t = ts->list; t != NULL; t = t->next)
		if (t->lock_moved) {
			t->lock_moved = false;
			ts->hooks.lock(ts->hooks.arg, t, t->locked);
		}
}

void
tasks_update(struct tasks *ts)
{
	update(ts, false);
	reap(ts);
}

void
tasks_config(struct tasks *ts, const struct config *cfg)
{
	ts->cfg = cfg;
	ts->budget_valid = false;
	admit_config(ts->admit, cfg);
	update(ts, true);
}

/* ---- tasks -------------------------------------------------------- */

static int
map_page(int fd, size_t size, void **out, char *err, size_t errlen)
{
	void	*p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED) {
		snprintf(err, errlen, "cannot map page: %s", strerror(errno));
		/* the client's descriptor (write-only, say) unless we ran
		 * out of memory */
		return errno == ENOMEM ? BWP_E_INTERNAL : BWP_E_BADFD;
	}
	*out = p;
	return 0;
}

/* Check and map the pages; fds[] follow the mask order. */
static int
take_pages(struct task *t, const int *fds, int nfds, char *err,
    size_t errlen)
{
	uint64_t	size;
	void		*p;
	int		i = 0, e;

	if (t->pages & 1) {
		if (bwp_memfd_check(fds[i], &size, err, errlen) < 0)
			return BWP_E_BADFD;
		if (size != BWSHM_TASK_PAGE_SIZE) {
			snprintf(err, errlen, "task page is %llu bytes, must "
			    "be %d", (unsigned long long)size,
			    BWSHM_TASK_PAGE_SIZE);
			return BWP_E_BADFD;
		}
		if ((e = map_page(fds[i], BWSHM_TASK_PAGE_SIZE, &p, err, errlen)) != 0)
			return e;
		t->tp = p;
		if (bwp_task_page_check(p, size, err, errlen) < 0)
			return BWP_E_BADFD;
		i++;
	}
	if (t->pages & 2) {
		if (bwp_memfd_check(fds[i], &size, err, errlen) < 0 ||
		    bwp_progress_page_check(fds[i], size, err, errlen) < 0)
			return BWP_E_BADFD;
		if ((e = map_page(fds[i], size, &p, err, errlen)) != 0)
			return e;
		t->pp = p;
		t->pp_size = size;
		/* checked above; kept so later page writes cannot change it */
		t->nslots = ((const struct bwshm_progress_hdr *)p)->nslots;
		if (t->nslots < 1 || t->nslots > BWSHM_MAX_SLOTS) {
			snprintf(err, errlen, "progress page changed");
			return BWP_E_BADFD;
		}
	}
	return BWP_OK;
}

int
tasks_register(struct tasks *ts, pid_t pid, const struct req_task_register *r,
    const int *fds, int nfds, struct task **out, char *err, size_t errlen)
{
	struct task	*t;
	int		st, i;

	if (ts->ntasks >= ts->cfg->max_tasks) {
		snprintf(err, errlen, "task limit (%llu) reached",
		    (unsigned long long)ts->cfg->max_tasks);
		st = BWP_E_LIMIT;
		goto out;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(err, errlen, "out of memory");
		st = BWP_E_INTERNAL;
		goto out;
	}
	t->pid = pid;
	t->lock_slot = -1;
	snprintf(t->name, sizeof(t->name), "%s", r->name);
	t->period_ns = r->period_ns;
	t->priority = (unsigned int)r->priority;
	t->rt_cap = (unsigned int)ceiling_rt_cap(pid);
	t->pages = (unsigned int)r->pages;
	t->kcap = (unsigned int)ts->cfg->max_kernels_per_task;
	if ((t->kernels = calloc(t->kcap, sizeof(*t->kernels))) == NULL) {
		free(t);
		snprintf(err, errlen, "out of memory");
		st = BWP_E_INTERNAL;
		goto out;
	}
	st = take_pages(t, fds, nfds, err, errlen);
	if (st == BWP_OK && r->gpu.present)	/* may refuse: nothing kept */
		st = admit_demand(ts->admit, ts->next_task, pid, t->name,
		    t->period_ns, NULL, &r->gpu, err, errlen);
	if (st != BWP_OK) {
		task_free(t);
		goto out;
	}
	t->id = ts->next_task++;
	t->next = ts->list;
	ts->list = t;
	__atomic_store_n(&ts->ntasks, ts->ntasks + 1, __ATOMIC_RELEASE);
	*out = t;
	update(ts, true);
out:
	/* the mappings keep the pages; the descriptors are not needed */
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	return st;
}

void
tasks_unregister(struct tasks *ts, struct task *t)
{
	struct task	**pp;

	for (pp = &ts->list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	__atomic_store_n(&ts->ntasks, ts->ntasks - 1, __ATOMIC_RELEASE);
	ts->nkernels -= t->nkernels;
	admit_remove(ts->admit, t->id);
	if (t->locked)
		ts->hooks.lock(ts->hooks.arg, t, false);
	slot_free(ts, t);
	/* republish without t; its pages go when no reader can see them */
	update(ts, true);
	pthread_mutex_lock(&ts->snap_lock);
	t->dead_gen = ts->snap->gen;
	pthread_mutex_unlock(&ts->snap_lock);
	t->next = ts->graves;
	ts->graves = t;
	reap(ts);
}

struct task *
tasks_first(struct tasks *ts)
{
	return ts->list;
}

struct task *
tasks_find(struct tasks *ts, uint32_t id)
{
	struct task	*t;

	for (t = ts->list; t != NULL; t = t->next)
		if (t->id == id)
			return t;
	return NULL;
}

/* The slot size from the checked page size, not the page header. */
static const struct bwshm_launch *
slot_of(const struct task *t, uint32_t slot)
{
	return (const struct bwshm_launch *)(const void *)((const char *)t->pp +
	    BWSHM_PROGRESS_HDR_SIZE + (size_t)slot *
	    ((t->pp_size - BWSHM_PROGRESS_HDR_SIZE) / t->nslots));
}

/*
 * One slot's header under its seqlock; false while it is rewritten.
 * *seq is the sequence it was read at.
 */
static bool
slot_read(const struct task *t, uint32_t slot, uint32_t *state,
    uint32_t *kernel, uint64_t *seq)
{
	const struct bwshm_launch	*l = slot_of(t, slot);
	uint64_t			s1, s2;

	s1 = __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE);
	*state = __atomic_load_n(&l->state, __ATOMIC_RELAXED);
	*kernel = __atomic_load_n(&l->kernel, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&l->seq, __ATOMIC_RELAXED);
	*seq = s1;
	return !(s1 & 1) && s1 == s2;
}

int
tasks_slot_end(struct tasks *ts, uint32_t task, uint32_t slot,
    uint64_t launch_ns, uint64_t *end_ns)
{
	const struct bwshm_launch	*l;
	const struct task		*t = tasks_find(ts, task);
	uint64_t			s1, s2, end, of;

	if (t == NULL || t->pp == NULL || slot >= t->nslots)
		return -1;
	l = slot_of(t, slot);
	s1 = __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE);
	end = __atomic_load_n(&l->end_ns, __ATOMIC_RELAXED);
	of = __atomic_load_n(&l->ended_launch_ns, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&l->seq, __ATOMIC_RELAXED);
	if ((s1 & 1) || s1 != s2 || of != launch_ns || end == 0)
		return -1;
	*end_ns = end;
	return 0;
}

bool
tasks_none(const struct tasks *ts)
{
	return __atomic_load_n(&ts->ntasks, __ATOMIC_ACQUIRE) == 0;
}

unsigned int
tasks_count(const struct tasks *ts)
{
	return ts->ntasks;
}

unsigned int
tasks_kernel_count(const struct tasks *ts)
{
	return ts->nkernels;
}

unsigned int
tasks_holders(const struct tasks *ts)
{
	return ts->holders;
}

double
tasks_q_static(const struct tasks *ts)
{
	return ts->q_static;
}

const uint64_t *
tasks_static_budget(const struct tasks *ts, unsigned int *n)
{
	*n = ts->budget_valid ? ts->ncores : 0;
	return ts->budget;
}

/* ---- kernels ------------------------------------------------------ */

static struct kernel *
find_kernel(const struct task *t, uint64_t id)
{
	unsigned int	i;

	for (i = 0; i < t->nkernels; i++)
		if (t->kernels[i]->id == id)
			return t->kernels[i];
	return NULL;
}

/* Q-bar and the bounds with the model (doc/design.md section 4). */
static int
kernel_model(const struct tasks *ts, struct kernel *k,
    const struct req_kernel_register *r, char *err, size_t errlen)
{
	struct budget_nominal	bn;
	unsigned int		i;

	k->wk.nclusters = r->nclusters;
	k->wk.m = r->concurrency;
	k->wk.period = (double)ts->cfg->period_ns;
	for (i = 0; i < r->nclusters; i++) {
		k->wk.c[i].e0 = (double)r->e0[i];
		k->wk.c[i].e1 = (double)r->e1[i];
	}
	if (wcet_prepare(&k->wk) < 0 ||
	    progress_table_init(k->pt, r->blocks, r->nclusters,
	    r->nintervals, r->first, r->cluster) < 0) {
		snprintf(err, errlen, "the model rejects the cluster table");
		return -1;
	}
	if (r->has_q) {
		k->q_nominal = r->q;
	} else {
		if (budget_nominal(&k->wk, k->pt->n, r->has_slowdown ?
		    r->slowdown : ts->cfg->slowdown,
		    (double)ts->cfg->bwmax_events,
		    (double)ts->cfg->overhead_events, &bn) < 0) {
			snprintf(err, errlen, "nominal budget search failed");
			return -1;
		}
		k->q_nominal = bn.q;
	}
	k->wcet_ns = wcet_bound(&k->wk, k->pt->n, k->q_nominal, 0);
	k->wcet0_ns = wcet_bound(&k->wk, k->pt->n, 0, 0);
	return 0;
}

static int
kernel_add(struct task *t, struct kernel *k)
{
	if (t->nkernels >= t->kcap)
		return -1;
	t->kernels[t->nkernels] = k;
	t->nkernels++;		/* published under the snapshot mutex */
	return 0;
}

int
tasks_kernel_register(struct tasks *ts, struct task *t,
    const struct req_kernel_register *r, struct kernel **out, char *err,
    size_t errlen)
{
	struct kernel	*k;
	unsigned int	i;
	int		st;

	for (i = 0; i < t->nkernels; i++)
		if (strcmp(t->kernels[i]->name, r->name) == 0) {
			snprintf(err, errlen, "kernel \"%s\" already "
			    "registered", r->name);
			return BWP_E_EXIST;
		}
	if (t->nkernels >= ts->cfg->max_kernels_per_task ||
	    t->nkernels >= t->kcap) {
		snprintf(err, errlen, "kernel limit (%llu) reached",
		    (unsigned long long)ts->cfg->max_kernels_per_task);
		return BWP_E_LIMIT;
	}
	k = calloc(1, sizeof(*k));
	if (k == NULL || (k->pt = calloc(1, sizeof(*k->pt))) == NULL) {
		free(k);
		snprintf(err, errlen, "out of memory");
		return BWP_E_INTERNAL;
	}
	snprintf(k->name, sizeof(k->name), "%s", r->name);
	k->blocks = r->blocks;
	k->concurrency = r->concurrency;
	k->nclusters = r->nclusters;
	memcpy(k->e0, r->e0, sizeof(k->e0));
	memcpy(k->e1, r->e1, sizeof(k->e1));
	if (kernel_model(ts, k, r, err, errlen) < 0) {
		kernel_free(k);
		return err[0] ? BWP_E_BADARG : BWP_E_INTERNAL;
	}
	if (r->gpu.present && (st = admit_demand(ts->admit, t->id, t->pid,
	    t->name, t->period_ns, k->name, &r->gpu, err, errlen)) != BWP_OK) {
		kernel_free(k);
		return st;
	}
	if (kernel_add(t, k) < 0) {	/* not reached: nkernels < kcap */
		kernel_free(k);
		return BWP_E_INTERNAL;
	}
	k->id = ts->next_kernel++;
	ts->nkernels++;
	*out = k;
	update(ts, true);
	return BWP_OK;
}

static int
stream_add(struct task *t, uint64_t s, bool slotted)
{
	unsigned int	i;

	for (i = 0; i < t->nstreams; i++)
		if (t->streams[i] == s) {
			/* the stream's work is described only if every
			 * launch on it has a slot */
			t->slotted[i] = t->slotted[i] && slotted;
			return 0;
		}
	if (t->nstreams == BWSHM_MAX_STREAMS)
		return -1;
	t->slotted[t->nstreams] = slotted;
	t->streams[t->nstreams++] = s;
	return 0;
}

/* ---- one end event per launch (doc/protocol.md section 6) ---------- */

/* kernel.start with a slot: keep the launch until its end is sent. */
static void
announce(struct task *t, const struct kernel *k, uint32_t slot,
    uint64_t launch)
{
	struct announced	*a = &t->ann[t->ann_next++ % TASKS_ANNOUNCED];
	uint32_t		 st, kid;
	uint64_t		 seq;

	if (a->launch != 0 && !a->sent && a->end_ns != 0)
		t->ends_waiting--;
	memset(a, 0, sizeof(*a));
	a->launch = launch;
	a->kernel = k->id;
	a->slot = slot;
	/* the client claims the slot first (doc/protocol.md); one it has
	 * not claimed yet is this launch's at the slot's next record */
	if (slot_read(t, slot, &st, &kid, &seq) &&
	    st == BWSHM_SLOT_RUNNING && kid == k->id)
		a->seq = seq;
}

static struct announced *
announced_find(struct task *t, uint64_t launch)
{
	unsigned int	i;

	for (i = 0; i < TASKS_ANNOUNCED; i++)
		if (t->ann[i].launch == launch)
			return &t->ann[i];
	return NULL;
}

/* kernel.end without a number ends the kernel's oldest open launch. */
static struct announced *
announced_oldest(struct task *t, uint32_t kernel)
{
	struct announced	*a, *best = NULL;
	unsigned int		 i;

	for (i = 0; i < TASKS_ANNOUNCED; i++) {
		a = &t->ann[i];
		if (a->launch != 0 && a->kernel == kernel && !a->sent &&
		    a->end_ns == 0 && (best == NULL || a->launch < best->launch))
			best = a;
	}
	return best;
}

/* The announced launch an engine record is of: same slot and claim. */
static struct announced *
announced_match(struct task *t, uint32_t slot, uint32_t kernel,
    uint64_t seq)
{
	struct announced	*a, *best = NULL;
	unsigned int		 i;

	for (i = 0; i < TASKS_ANNOUNCED; i++) {
		a = &t->ann[i];
		if (a->launch == 0 || a->slot != slot || a->kernel != kernel)
			continue;
		if (a->seq == seq)
			return a;
		if (a->seq == 0 && !a->sent &&
		    (best == NULL || a->launch < best->launch))
			best = a;
	}
	return best;
}

bool
tasks_launch_ended(struct tasks *ts, uint32_t task, uint32_t slot,
    uint32_t kernel, uint64_t seq, uint64_t *launch, bool *send)
{
	struct task		*t = tasks_find(ts, task);
	struct announced	*a;

	*launch = 0;
	*send = true;
	if (t == NULL)
		return false;
	if ((a = announced_match(t, slot, kernel, seq)) == NULL) {
		/* made on the page alone: numbered as it ends */
		*launch = ++t->next_launch;
		return true;
	}
	*launch = a->launch;
	*send = !a->sent;
	if (!a->sent && a->end_ns != 0)
		t->ends_waiting--;
	a->sent = true;
	a->seq = seq;
	return true;
}

void
tasks_flush_ends(struct tasks *ts, uint64_t now, uint64_t grace_ns)
{
	struct task		*t;
	struct announced	*a;
	struct kernel		*k;
	unsigned int		 i;

	for (t = ts->list; t != NULL; t = t->next) {
		for (i = 0; t->ends_waiting > 0 && i < TASKS_ANNOUNCED; i++) {
			a = &t->ann[i];
			if (a->launch == 0 || a->sent || a->end_ns == 0 ||
			    a->end_ns + grace_ns > now)
				continue;
			a->sent = true;
			t->ends_waiting--;
			if ((k = find_kernel(t, a->kernel)) != NULL)
				ts->hooks.kernel(ts->hooks.arg, t, k, a->launch,
				    "end", a->end_ns);
		}
	}
}

int
tasks_kernel_start(struct tasks *ts, struct task *t,
    const struct req_kernel_start *r, uint64_t now, uint64_t *launch,
    char *err, size_t errlen)
{
	struct kernel	*k = find_kernel(t, r->kernel);

	if (k == NULL) {
		snprintf(err, errlen, "no kernel %llu in this task",
		    (unsigned long long)r->kernel);
		return BWP_E_NOENT;
	}
	if (r->has_slot && r->slot >= t->nslots) {
		snprintf(err, errlen, "\"slot\" %llu is not in the progress "
		    "page", (unsigned long long)r->slot);
		return BWP_E_BADARG;
	}
	if (stream_add(t, r->stream, r->has_slot) < 0) {
		snprintf(err, errlen, "more than %d active streams",
		    BWSHM_MAX_STREAMS);
		return BWP_E_LIMIT;
	}
	*launch = ++t->next_launch;
	if (r->has_slot)
		announce(t, k, (uint32_t)r->slot, *launch);
	k->launches++;
	k->running++;
	ts->hooks.kernel(ts->hooks.arg, t, k, *launch, "start",
	    r->has_launch_ns ? r->launch_ns : now);
	update(ts, true);
	return BWP_OK;
}

int
tasks_kernel_end(struct tasks *ts, struct task *t,
    const struct req_kernel_end *r, uint64_t now, char *err, size_t errlen)
{
	struct kernel		*k = find_kernel(t, r->kernel);
	struct announced	*a;

	if (k == NULL || (r->has_launch && (r->launch == 0 ||
	    r->launch > t->next_launch))) {
		snprintf(err, errlen, "no such kernel or launch");
		return BWP_E_NOENT;
	}
	if (k->running > 0)
		k->running--;
	a = r->has_launch ? announced_find(t, r->launch) :
	    announced_oldest(t, k->id);
	if (a == NULL || a->kernel != k->id) {
		ts->hooks.kernel(ts->hooks.arg, t, k,
		    r->has_launch ? r->launch : 0, "end", now);
		return BWP_OK;
	}
	/* the engine's record is the end event if the engine saw it run:
	 * wait for it (tasks_flush_ends) */
	if (!a->sent && a->end_ns == 0) {
		a->end_ns = now > 0 ? now : 1;
		t->ends_waiting++;
	}
	return BWP_OK;
}

int
tasks_stream_sync(struct tasks *ts, struct task *t,
    const struct req_stream_sync *r, char *err, size_t errlen)
{
	unsigned int	i;

	if (r->all) {
		t->nstreams = 0;
	} else {
		for (i = 0; i < t->nstreams; i++)
			if (t->streams[i] == r->stream) {
				t->streams[i] = t->streams[--t->nstreams];
				t->slotted[i] = t->slotted[t->nstreams];
				break;
			}
	}
	update(ts, true);
	return BWP_OK;
}

int
tasks_memcpy(struct tasks *ts, struct task *t, bool begin, char *err,
    size_t errlen)
{
	if (begin) {
		if (t->memcpy_depth == UINT32_MAX) {
			snprintf(err, errlen, "memcpy nesting too deep");
			return BWP_E_LIMIT;
		}
		t->memcpy_depth++;
	} else {
		if (t->memcpy_depth == 0) {
			snprintf(err, errlen, "memcpy.end without "
			    "memcpy.begin");
			return BWP_E_STATE;
		}
		t->memcpy_depth--;
	}
	update(ts, true);
	return BWP_OK;
}

int
tasks_lock(struct tasks *ts, struct task *t, bool lock, char *err,
    size_t errlen)
{
	if (lock) {
		if (t->lock_depth == UINT32_MAX) {
			snprintf(err, errlen, "lock nesting too deep");
			return BWP_E_LIMIT;
		}
		t->lock_depth++;
	} else {
		if (t->lock_depth == 0) {
			snprintf(err, errlen, "unlock without lock");
			return BWP_E_STATE;
		}
		t->lock_depth--;
	}
	update(ts, false);
	return BWP_OK;
}

/*
 * A slot's sequence counts its rewrites: every launch is a claim and a
 * release, each one seqlock section (bwshm.h), so seq 2 after the first
 * claim, 4 after its release, 6 after the next claim: (seq + 2) / 4
 * claims.  Polls the loop misses (a busy machine, launches shorter than
 * the poll) lose no launch; one that misses a change of kernel in a slot
 * credits the kernel it then finds.
 */
void
tasks_count_launches(struct tasks *ts)
{
	struct task	*t;
	struct kernel	*k;
	uint64_t	 seq, claims;
	uint32_t	 st, kid, i;

	for (t = ts->list; t != NULL; t = t->next) {
		for (i = 0; t->pp != NULL && i < t->nslots &&
		    i < BWSHM_MAX_SLOTS; i++) {
			if (!slot_read(t, i, &st, &kid, &seq))
				continue;
			claims = (seq + 2) / 4;
			if (claims <= t->slot_seen[i])
				continue;
			if ((k = find_kernel(t, kid)) != NULL)
				k->page_launches += claims - t->slot_seen[i];
			t->slot_seen[i] = claims;
		}
	}
}

unsigned int
tasks_kernel_running(const struct task *t, uint32_t kernel)
{
	uint64_t	seq;
	uint32_t	st, kid, i;
	unsigned int	n = 0;

	/* a slot being rewritten is a launch starting or ending */
	for (i = 0; t->pp != NULL && i < t->nslots; i++)
		if (slot_read(t, i, &st, &kid, &seq) &&
		    st == BWSHM_SLOT_RUNNING && kid == kernel)
			n++;
	return n;
}
