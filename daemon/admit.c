/*
 * admit.c - admission control for GPU spatial partitioning (admit.h,
 * doc/partition.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bwsched/bwplan.h>

#include "admit.h"
#include "log.h"
#include "partition.h"

#define ADMIT_MAX	PARTITION_MAX_TASKS	/* demands, all tasks */
#define ADMIT_WHY	192

/* One demand: a model task of its task's group. */
struct admit_ent {
	uint32_t		task;
	pid_t			pid;
	char			tname[BWP_MAX_NAME + 1];
	char			kname[BWP_MAX_NAME + 1];  /* "": the task's */
	struct partition_task	t;
	int			part;	/* -1 while being placed */
};

/* A partition: a range of SMs. */
struct admit_part {
	uint32_t	sm_first;
	uint32_t	sms;
	uint32_t	granted;	/* 0: not reported */
};

/* Everything a decision changes: tried on a copy, then committed. */
struct admit_state {
	unsigned int		nent;
	unsigned int		nparts;
	struct admit_ent	ent[ADMIT_MAX];
	struct admit_part	part[ADMIT_MAX];
};

struct admit {
	unsigned int		sms;		/* M in effect, 0: unknown */
	unsigned int		granule;
	uint64_t		cfg_sms;
	uint64_t		cfg_granule;
	uint32_t		dev_sms;	/* reported, 0: none */
	uint32_t		dev_granule;
	uint64_t		gen;
	bool			ok;		/* with the granted sizes */
	char			why[ADMIT_WHY];
	char			failed[ADMIT_WHY]; /* the last refusal */
	/* the demand refused last and the plan it was refused on: the same
	 * request again is answered without the analysis */
	struct admit_ent	refused;
	uint64_t		refused_gen;
	struct admit_state	cur, trial;
	struct partition_set	set;		/* of the state in use */
	uint16_t		group[ADMIT_MAX];
	struct partition_work	work;
	struct partition_plan	plan;
	char			path[CONFIG_MAX_PATH + 8];
	struct bwplan_page	*page;
};

/* ---- the sizes in effect ---- */

static const char *
admit_source(const struct admit *a)
{
	if (a->cfg_sms != 0)
		return "config";
	return a->dev_sms != 0 ? "device" : "none";
}

static void
admit_effective(struct admit *a)
{
	a->sms = (unsigned int)(a->cfg_sms != 0 ? a->cfg_sms : a->dev_sms);
	a->granule = (unsigned int)(a->cfg_granule != 0 ? a->cfg_granule :
	    a->dev_granule != 0 ? a->dev_granule : 1);
	if (a->sms != 0 && a->granule > a->sms)
		a->granule = a->sms;
}

static struct partition_opts
admit_opts(const struct admit *a, enum partition_order order)
{
	struct partition_opts	o = { a->sms, a->granule, order,
	    PARTITION_FORBID_INA, a->granule, a->group };

	return o;
}

bool
admit_ready(const struct admit *a)
{
	return a->sms != 0;
}

/* ---- the model's view of a state ---- */

/* The task set of st, one group per task, for model/partition.c. */
static void
set_build(struct admit *a, const struct admit_state *st)
{
	const struct admit_ent	*e;
	unsigned int		 i, j;

	a->set.n = st->nent;
	for (i = 0; i < st->nent; i++) {
		e = &st->ent[i];
		a->set.task[i] = e->t;
		snprintf(a->set.task[i].name, sizeof(a->set.task[i].name),
		    "%.31s%s%.31s", e->tname, e->kname[0] ? "/" : "",
		    e->kname);
		for (j = 0; st->ent[j].task != e->task; j++)
			;
		a->group[i] = (uint16_t)j;
	}
}

/* The demands of partition j (-1: those being placed). */
static void
bits_part(const struct admit_state *st, int j, uint64_t *bits)
{
	unsigned int	i;

	memset(bits, 0, sizeof(partition_bits));
	for (i = 0; i < st->nent; i++)
		if (st->ent[i].part == j)
			partition_bit_set(bits, i);
}

static void
bits_add(uint64_t *to, const uint64_t *from)
{
	unsigned int	i;

	for (i = 0; i < PARTITION_WORDS; i++)
		to[i] |= from[i];
}

static void
state_assign(struct admit_state *st, int from, int to)
{
	unsigned int	i;

	for (i = 0; i < st->nent; i++)
		if (st->ent[i].part == from)
			st->ent[i].part = to;
}

/* Drop partition j; the later ones move down an index. */
static void
state_drop_part(struct admit_state *st, int j)
{
	unsigned int	i;

	memmove(&st->part[j], &st->part[j + 1],
	    (st->nparts - (unsigned int)j - 1) * sizeof(st->part[0]));
	st->nparts--;
	for (i = 0; i < st->nent; i++)
		if (st->ent[i].part > j)
			st->ent[i].part--;
}

static bool
part_empty(const struct admit_state *st, int j)
{
	unsigned int	i;

	for (i = 0; i < st->nent; i++)
		if (st->ent[i].part == j)
			return false;
	return true;
}

/*
 * The lowest start, a multiple of the granule, of m free SMs below M;
 * -1 when there is no such gap.
 */
static int
first_fit(const struct admit *a, const struct admit_state *st,
    unsigned int m)
{
	unsigned int	c, f, j, g = a->granule;
	bool		clash;

	for (c = 0; c <= st->nparts; c++) {
		f = c == 0 ? 0 : st->part[c - 1].sm_first +
		    st->part[c - 1].sms;
		f = (f + g - 1) / g * g;
		if (f + m > a->sms)
			continue;
		clash = false;
		for (j = 0; j < st->nparts && !clash; j++)
			clash = f < st->part[j].sm_first + st->part[j].sms &&
			    st->part[j].sm_first < f + m;
		if (!clash)
			return (int)f;
	}
	return -1;
}

/* ---- placing a task's demands ---- */

/* Into its own partition at its size, if it has one and they fit. */
static bool
place_own(struct admit *a, struct admit_state *st, uint32_t task)
{
	partition_bits	bits, mine;
	unsigned int	i;
	int		j = -1;

	for (i = 0; i < st->nent && j < 0; i++)
		if (st->ent[i].task == task && st->ent[i].part >= 0)
			j = st->ent[i].part;
	if (j < 0)
		return false;
	bits_part(st, j, bits);
	bits_part(st, -1, mine);
	bits_add(bits, mine);
	if (partition_fits(&a->set, bits, st->part[j].sms, a->work.jobs)) {
		state_assign(st, -1, j);
		return true;
	}
	/* the task leaves its partition: all of it is placed again */
	for (i = 0; i < st->nent; i++)
		if (st->ent[i].task == task)
			st->ent[i].part = -1;
	if (part_empty(st, j))
		state_drop_part(st, j);
	return false;
}

/* Into the smallest other partition that takes it at its size. */
static bool
place_join(struct admit *a, struct admit_state *st)
{
	partition_bits	bits, mine;
	unsigned int	j;
	int		best = -1;

	bits_part(st, -1, mine);
	for (j = 0; j < st->nparts; j++) {
		if (best >= 0 && st->part[j].sms >= st->part[best].sms)
			continue;
		bits_part(st, (int)j, bits);
		bits_add(bits, mine);
		if (partition_fits(&a->set, bits, st->part[j].sms,
		    a->work.jobs))
			best = (int)j;
	}
	if (best < 0)
		return false;
	state_assign(st, -1, best);
	return true;
}

/* A new partition of Lemma 2's size in free SMs. */
static bool
place_new(struct admit *a, struct admit_state *st)
{
	struct partition_opts	o = admit_opts(a, PARTITION_ORDER_SMS);
	partition_bits		mine;
	unsigned int		m;
	int			f;

	bits_part(st, -1, mine);
	if ((m = partition_min_size(&a->set, mine, &o, a->work.jobs)) == 0 ||
	    (f = first_fit(a, st, m)) < 0)
		return false;
	st->part[st->nparts].sm_first = (uint32_t)f;
	st->part[st->nparts].sms = m;
	st->part[st->nparts].granted = 0;
	state_assign(st, -1, (int)st->nparts);
	st->nparts++;
	return true;
}

/* Without moving any other task; the state changes only on success. */
static bool
place_stable(struct admit *a, struct admit_state *st, uint32_t task)
{
	set_build(a, st);
	return place_own(a, st, task) || place_join(a, st) ||
	    place_new(a, st);
}

/*
 * Algorithm 1 over every demand, SMS first then best fit; partitions
 * laid out from SM 0 in the plan's order.  A partition that keeps its
 * range keeps its granted size.  False with a->failed set.
 */
static bool
place_all(struct admit *a, struct admit_state *st)
{
	struct partition_opts	o = admit_opts(a, PARTITION_ORDER_SMS);
	struct admit_part	old[ADMIT_MAX];
	unsigned int		j, k, i, first = 0, nold = st->nparts;

	set_build(a, st);
	if (partition_plan(&a->set, &o, &a->work, &a->plan) != 1) {
		partition_reason(&a->set, &a->plan, a->failed,
		    sizeof(a->failed));
		o.order = PARTITION_ORDER_BF;
		if (partition_plan(&a->set, &o, &a->work, &a->plan) != 1)
			return false;
	}
	memcpy(old, st->part, nold * sizeof(old[0]));
	st->nparts = a->plan.nparts;
	for (j = 0; j < a->plan.nparts; j++) {
		st->part[j].sm_first = first;
		st->part[j].sms = a->plan.part[j].sms;
		st->part[j].granted = 0;
		for (k = 0; k < nold; k++)
			if (old[k].sm_first == first &&
			    old[k].sms == st->part[j].sms)
				st->part[j].granted = old[k].granted;
		first += a->plan.part[j].sms;
		for (i = 0; i < st->nent; i++)
			if (partition_bit_test(a->plan.part[j].tasks, i))
				st->ent[i].part = (int)j;
	}
	return true;
}

/* ---- the plan's check with granted sizes, publication, log ---- */

static void
recheck(struct admit *a)
{
	unsigned int	sizes[ADMIT_MAX], j;

	set_build(a, &a->cur);
	memset(&a->plan, 0, sizeof(a->plan) - sizeof(a->plan.part));
	a->plan.sms_total = a->sms;
	a->plan.nparts = a->cur.nparts;
	for (j = 0; j < a->cur.nparts; j++) {
		bits_part(&a->cur, (int)j, a->plan.part[j].tasks);
		a->plan.part[j].sms = a->cur.part[j].sms;
		sizes[j] = a->cur.part[j].granted ? a->cur.part[j].granted :
		    a->cur.part[j].sms;
	}
	a->ok = partition_check(&a->set, &a->plan, sizes, a->work.jobs);
	partition_reason(&a->set, &a->plan, a->why, sizeof(a->why));
}

static void
publish(struct admit *a)
{
	struct bwplan_page	*p = a->page;
	struct bwplan_entry	*e;
	unsigned int		 i, j, n = 0;

	if (p == NULL)
		return;
	__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (i = 0; i < a->cur.nent && n < BWPLAN_MAX_ENTRIES; i++) {
		for (j = 0; a->cur.ent[j].task != a->cur.ent[i].task; j++)
			;
		if (j < i || a->cur.ent[i].part < 0)
			continue;	/* one entry per task */
		e = &p->entry[n++];
		e->task = a->cur.ent[i].task;
		e->pid = a->cur.ent[i].pid;
		e->partition = (uint32_t)a->cur.ent[i].part;
		e->sm_first = a->cur.part[e->partition].sm_first;
		e->sms = a->cur.part[e->partition].sms;
		e->granted = a->cur.part[e->partition].granted;
	}
	p->nentries = n;
	p->sms_total = a->sms;
	p->granule = a->granule;
	p->ok = a->ok;
	__atomic_store_n(&p->gen, a->gen, __ATOMIC_RELEASE);
	__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
}

/* "[0-3] a,b [4-5] c": the partitions and their tasks, for the log. */
static void
summary(const struct admit *a, char *buf, size_t len)
{
	const struct admit_state	*st = &a->cur;
	size_t				 n = 0;
	unsigned int			 j, i, k;
	int				 w;

	buf[0] = '\0';
	for (j = 0; j < st->nparts && n < len; j++) {
		w = snprintf(buf + n, len - n, "%s[%u-%u]", j ? " " : "",
		    st->part[j].sm_first,
		    st->part[j].sm_first + st->part[j].sms - 1);
		n += w > 0 ? (size_t)w : 0;
		for (i = 0, k = 0; i < st->nent && n < len; i++) {
			if (st->ent[i].part != (int)j || (i > 0 &&
			    st->ent[i - 1].task == st->ent[i].task &&
			    st->ent[i - 1].part == (int)j))
				continue;
			w = snprintf(buf + n, len - n, "%s%s", k++ ? "," : " ",
			    st->ent[i].tname);
			n += w > 0 ? (size_t)w : 0;
		}
	}
}

static unsigned int
sms_used(const struct admit_state *st)
{
	unsigned int	j, sum = 0;

	for (j = 0; j < st->nparts; j++)
		sum += st->part[j].sms;
	return sum;
}

static void
commit(struct admit *a, const char *what)
{
	char	s[512];

	a->cur = a->trial;
	a->gen++;
	recheck(a);
	publish(a);
	summary(a, s, sizeof(s));
	log_msg(LOG_L_NOTICE, "GPU plan %llu (%s): Pi = %u of %u SMs%s%s",
	    (unsigned long long)a->gen, what, sms_used(&a->cur), a->sms,
	    s[0] ? ": " : "", s);
}

/* ---- the interface ---- */

struct admit *
admit_new(const struct config *cfg)
{
	struct admit	*a = calloc(1, sizeof(*a));

	if (a == NULL)
		return NULL;
	a->cfg_sms = cfg->gpu_sms;
	a->cfg_granule = cfg->gpu_sm_granule;
	a->ok = true;
	admit_effective(a);
	snprintf(a->why, sizeof(a->why), "no partition");
	return a;
}

void
admit_free(struct admit *a)
{
	if (a == NULL)
		return;
	if (a->page != NULL) {
		munmap(a->page, BWPLAN_SIZE);
		unlink(a->path);
	}
	free(a);
}

int
admit_publish(struct admit *a, const char *socket_path)
{
	int	fd;
	void	*m;

	if (snprintf(a->path, sizeof(a->path), "%s%s", socket_path,
	    BWPLAN_SUFFIX) >= (int)sizeof(a->path))
		return -1;
	unlink(a->path);
	fd = open(a->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, BWPLAN_SIZE) < 0) {
		log_msg(LOG_L_WARNING, "GPU plan page %s: %s", a->path,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	m = mmap(NULL, BWPLAN_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
	    0);
	close(fd);
	if (m == MAP_FAILED) {
		log_msg(LOG_L_WARNING, "GPU plan page %s: mmap: %s", a->path,
		    strerror(errno));
		unlink(a->path);
		return -1;
	}
	a->page = m;
	a->page->version = BWPLAN_VERSION;
	publish(a);
	__atomic_store_n(&a->page->magic, BWPLAN_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

void
admit_config(struct admit *a, const struct config *cfg)
{
	unsigned int	sms = a->sms, g = a->granule;

	a->cfg_sms = cfg->gpu_sms;
	a->cfg_granule = cfg->gpu_sm_granule;
	admit_effective(a);
	if (a->sms == sms && a->granule == g)
		return;
	a->trial = a->cur;
	commit(a, "SM count or granule changed");
	if (a->cur.nparts > 0 && !a->ok)
		log_msg(LOG_L_WARNING, "GPU plan: the tasks admitted before "
		    "no longer fit: %s", a->why);
}

/* The model task of a demand, checked. */
static int
demand_task(const struct req_gpu *g, uint64_t period, const char *name,
    struct partition_task *t, char *err, size_t errlen)
{
	const char	*why;

	memset(t, 0, sizeof(*t));
	t->period = g->has_period ? g->period_ns : period;
	t->deadline = g->has_deadline ? g->deadline_ns : t->period;
	t->a = g->a_ns;
	t->cls = g->cls == 1 ? PARTITION_MI : PARTITION_CI;
	t->b = g->has_b ? g->b_ns : partition_default_b(t->a, t->cls);
	t->k = g->has_k ? g->k : partition_default_k(t->cls);
	if (!partition_task_valid(t, &why)) {
		snprintf(err, errlen, "GPU demand of %s: %s", name, why);
		return BWP_E_BADARG;
	}
	return BWP_OK;
}

/* trial = cur with ne after the task's other demands (kept together). */
static void
trial_insert(struct admit *a, const struct admit_ent *ne)
{
	struct admit_state	*st = &a->trial;
	unsigned int		 i, at;

	*st = a->cur;
	at = st->nent;
	for (i = 0; i < st->nent; i++)
		if (st->ent[i].task == ne->task)
			at = i + 1;
	memmove(&st->ent[at + 1], &st->ent[at],
	    (st->nent - at) * sizeof(st->ent[0]));
	st->ent[at] = *ne;
	st->nent++;
}

int
admit_demand(struct admit *a, uint32_t task, pid_t pid,
    const char *task_name, uint64_t period_ns, const char *kernel,
    const struct req_gpu *g, char *err, size_t errlen)
{
	struct admit_ent	ne;
	int			st;

	if (a->sms == 0) {
		snprintf(err, errlen, "the GPU's SM count is unknown: set "
		    "gpu_sms in bwsched.conf, or run the task under the CUDA "
		    "layer, which reports its device");
		return BWP_E_STATE;
	}
	if (a->cur.nent == ADMIT_MAX) {
		snprintf(err, errlen, "GPU demand limit (%d) reached",
		    ADMIT_MAX);
		return BWP_E_LIMIT;
	}
	memset(&ne, 0, sizeof(ne));
	if ((st = demand_task(g, period_ns, kernel ? kernel : task_name,
	    &ne.t, err, errlen)) != BWP_OK)
		return st;
	ne.task = task;
	ne.pid = pid;
	ne.part = -1;
	snprintf(ne.tname, sizeof(ne.tname), "%s", task_name);
	snprintf(ne.kname, sizeof(ne.kname), "%s", kernel ? kernel : "");
	if (a->refused_gen == a->gen + 1 &&
	    memcmp(&a->refused, &ne, sizeof(ne)) == 0)
		goto refuse;
	trial_insert(a, &ne);
	if (place_stable(a, &a->trial, task)) {
		commit(a, "placed");
		return BWP_OK;
	}
	trial_insert(a, &ne);
	if (place_all(a, &a->trial)) {
		commit(a, "partitioned again");
		return BWP_OK;
	}
	a->refused = ne;
	a->refused_gen = a->gen + 1;	/* 0 never matches */
	log_task(LOG_L_NOTICE, task, pid, "GPU demand of %s%s%s refused, "
	    "plan %llu unchanged: %s", task_name, kernel ? "/" : "",
	    kernel ? kernel : "", (unsigned long long)a->gen, a->failed);
refuse:		/* the same demand on the same plan: logged already */
	snprintf(err, errlen, "GPU partitioning has no room for %s%s%s: %s",
	    task_name, kernel ? "/" : "", kernel ? kernel : "", a->failed);
	return BWP_E_UNSCHEDULABLE;
}

void
admit_remove(struct admit *a, uint32_t task)
{
	struct admit_state	*st = &a->trial;
	unsigned int		 i, n = 0;
	int			 j;

	a->trial = a->cur;
	for (i = 0; i < st->nent; i++)
		if (st->ent[i].task != task)
			st->ent[n++] = st->ent[i];
	if (n == st->nent)
		return;		/* it had no GPU demand */
	st->nent = n;
	/* a partition that lost a task stays schedulable: keep the rest */
	for (j = (int)st->nparts - 1; j >= 0; j--)
		if (part_empty(st, j))
			state_drop_part(st, j);
	commit(a, "task left");
}

int
admit_place(const struct admit *a, uint32_t task, struct admit_place *out)
{
	const struct admit_part	*p;
	unsigned int		 i;

	for (i = 0; i < a->cur.nent; i++)
		if (a->cur.ent[i].task == task && a->cur.ent[i].part >= 0) {
			p = &a->cur.part[a->cur.ent[i].part];
			out->partition = (uint32_t)a->cur.ent[i].part;
			out->sm_first = p->sm_first;
			out->sms = p->sms;
			out->granted = p->granted;
			out->gen = a->gen;
			return 0;
		}
	return -1;
}

int
admit_device(struct admit *a, uint32_t sms, uint32_t granule,
    char *err, size_t errlen)
{
	unsigned int	m = a->sms, g = a->granule;

	if (a->dev_sms != 0 && (a->dev_sms != sms ||
	    a->dev_granule != granule) && a->cur.nent > 0) {
		snprintf(err, errlen, "a device of %u SMs in groups of %u was "
		    "reported before and tasks are placed on it; this one has "
		    "%u in groups of %u", a->dev_sms, a->dev_granule, sms,
		    granule);
		return BWP_E_STATE;
	}
	a->dev_sms = sms;
	a->dev_granule = granule;
	admit_effective(a);
	if (a->sms != m || a->granule != g) {
		log_msg(LOG_L_NOTICE, "GPU: %u SMs in groups of %u (%s)",
		    a->sms, a->granule, admit_source(a));
		a->trial = a->cur;
		commit(a, "device reported");
	}
	return BWP_OK;
}

int
admit_granted(struct admit *a, uint32_t task, uint32_t sms, bool *ok,
    char *why, size_t whylen)
{
	struct admit_place	pl;
	bool			was = a->ok;

	if (admit_place(a, task, &pl) < 0) {
		snprintf(why, whylen, "the task has no GPU partition");
		return BWP_E_NOENT;
	}
	a->trial = a->cur;
	a->trial.part[pl.partition].granted = sms;
	if (sms != pl.sms || pl.granted != sms) {
		commit(a, sms == pl.sms ? "size granted" :
		    "driver rounded a size");
		if (was && !a->ok)
			log_msg(LOG_L_ERR, "GPU plan %llu NOT schedulable with "
			    "the sizes the driver granted: %s",
			    (unsigned long long)a->gen, a->why);
	}
	*ok = a->ok;
	snprintf(why, whylen, "%s", a->why);
	return BWP_OK;
}

/* ---- the "partitions" reply ---- */

static void
write_demand(const struct admit *a, struct bwp_writer *w, unsigned int i,
    unsigned int m)
{
	const struct admit_ent	*e = &a->cur.ent[i];
	partition_bits		 bits;
	int			 c;

	bits_part(&a->cur, e->part, bits);
	c = partition_conflict(&a->set, bits, i);
	bwp_w_map(w, 10);
	bwp_w_str(w, "kernel");
	bwp_w_str(w, e->kname);
	bwp_w_str(w, "class");
	bwp_w_str(w, partition_class_name(e->t.cls));
	bwp_w_str(w, "a_ns");
	bwp_w_uint(w, e->t.a);
	bwp_w_str(w, "b_ns");
	bwp_w_uint(w, e->t.b);
	bwp_w_str(w, "k");
	bwp_w_double(w, e->t.k);
	bwp_w_str(w, "period_ns");
	bwp_w_uint(w, e->t.period);
	bwp_w_str(w, "deadline_ns");
	bwp_w_uint(w, e->t.deadline);
	bwp_w_str(w, "conflict");
	bwp_w_bool(w, c);
	bwp_w_str(w, "wcet_ns");
	bwp_w_uint(w, partition_wcet(&e->t, m, c));
	bwp_w_str(w, "sms");
	bwp_w_uint(w, m);
}

/* The tasks of partition j, each with its demands. */
static void
write_tasks(const struct admit *a, struct bwp_writer *w, int j,
    unsigned int m)
{
	const struct admit_state	*st = &a->cur;
	unsigned int			 i, k, n = 0, nd;

	for (i = 0; i < st->nent; i++)
		n += st->ent[i].part == j && (i == 0 ||
		    st->ent[i - 1].task != st->ent[i].task);
	bwp_w_array(w, n);
	for (i = 0; i < st->nent; i++) {
		if (st->ent[i].part != j || (i > 0 &&
		    st->ent[i - 1].task == st->ent[i].task))
			continue;
		for (nd = 0, k = i; k < st->nent &&
		    st->ent[k].task == st->ent[i].task; k++)
			nd++;
		bwp_w_map(w, 4);
		bwp_w_str(w, "task");
		bwp_w_uint(w, st->ent[i].task);
		bwp_w_str(w, "pid");
		bwp_w_uint(w, (uint64_t)st->ent[i].pid);
		bwp_w_str(w, "name");
		bwp_w_str(w, st->ent[i].tname);
		bwp_w_str(w, "demands");
		bwp_w_array(w, nd);
		for (k = i; k < i + nd; k++)
			write_demand(a, w, k, m);
	}
}

void
admit_write(const struct admit *a, struct bwp_writer *w)
{
	const struct admit_state	*st = &a->cur;
	unsigned int			 j, m;

	/* the model's view (conflicts, names) of the current state */
	set_build((struct admit *)a, st);
	bwp_w_kuint(w, "sms_total", a->sms);
	bwp_w_kuint(w, "granule", a->granule);
	bwp_w_kstr(w, "source", admit_source(a));
	bwp_w_kuint(w, "plan", a->gen);
	bwp_w_kuint(w, "sms_used", sms_used(st));
	bwp_w_kbool(w, "schedulable", a->ok);
	bwp_w_kstr(w, "reason", a->why);
	bwp_w_key(w, "partitions");
	bwp_w_array(w, st->nparts);
	for (j = 0; j < st->nparts; j++) {
		m = st->part[j].granted ? st->part[j].granted :
		    st->part[j].sms;
		bwp_w_map(w, 5);
		bwp_w_str(w, "index");
		bwp_w_uint(w, j);
		bwp_w_str(w, "sm_first");
		bwp_w_uint(w, st->part[j].sm_first);
		bwp_w_str(w, "sms");
		bwp_w_uint(w, st->part[j].sms);
		bwp_w_str(w, "granted");
		bwp_w_uint(w, st->part[j].granted);
		bwp_w_str(w, "tasks");
		write_tasks(a, w, (int)j, m);
	}
}
