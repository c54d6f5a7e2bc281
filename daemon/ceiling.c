/*
 * ceiling.c - priority ceiling of the bandwidth lock, with sched_setattr.
 *
 * sched_setattr rather than sched_setscheduler because the saved
 * attributes (policy, priority, flags such as reset-on-fork, nice) are
 * written back unchanged on release; glibc 2.36 has no wrapper, so the
 * system calls are made directly.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ceiling.h"

/* struct sched_attr of sched_setattr(2), version 1 (48 bytes) */
struct ceiling_attr {
	uint32_t	size;
	uint32_t	sched_policy;
	uint64_t	sched_flags;
	int32_t		sched_nice;
	uint32_t	sched_priority;
	uint64_t	sched_runtime;
	uint64_t	sched_deadline;
	uint64_t	sched_period;
};

struct ceiling_thread {
	pid_t			tid;
	struct ceiling_attr	old;
};

struct ceiling_proc {
	struct ceiling_proc	*next;
	pid_t			 pid;
	int			 prio;
	unsigned int		 n;
	struct ceiling_thread	 t[CEILING_MAX_THREADS];
};

static struct ceiling_proc *ceiling_procs;

#define CEILING_CAP_SYS_NICE	23	/* capability(7) number */
#define CEILING_PRIO_MAX	99

/* The bit of CAP_SYS_NICE in the CapEff line of /proc/PID/status. */
static int
ceiling_has_sys_nice(pid_t pid)
{
	char			path[64], line[256];
	unsigned long long	caps;
	FILE			*f;
	int			r = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			r = (caps >> CEILING_CAP_SYS_NICE) & 1;
			break;
		}
	fclose(f);
	return r;
}

/* The hard RLIMIT_RTPRIO from /proc/PID/limits; -1 if unreadable. */
static int
ceiling_rtprio_hard(pid_t pid)
{
	char		path[64], line[256], soft[32], hard[32];
	FILE		*f;
	int		r = -1;
	unsigned long	v;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "Max realtime priority", 21) != 0)
			continue;
		if (sscanf(line + 21, "%31s %31s", soft, hard) != 2)
			break;
		if (strcmp(hard, "unlimited") == 0) {
			r = CEILING_PRIO_MAX;
		} else {
			v = strtoul(hard, NULL, 10);
			r = v > CEILING_PRIO_MAX ? CEILING_PRIO_MAX : (int)v;
		}
		break;
	}
	fclose(f);
	return r;
}

int
ceiling_rt_cap(pid_t pid)
{
	int	r;

	if (ceiling_has_sys_nice(pid) == 1)
		return CEILING_PRIO_MAX;
	r = ceiling_rtprio_hard(pid);
	return r < 0 ? 0 : r;
}

static int
ceiling_getattr(pid_t tid, struct ceiling_attr *a)
{
	memset(a, 0, sizeof(*a));
	return (int)syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0);
}

static int
ceiling_setattr(pid_t tid, const struct ceiling_attr *a)
{
	struct ceiling_attr	c = *a;

	c.size = sizeof(c);
	return (int)syscall(SYS_sched_setattr, tid, &c, 0);
}

/* Boost one thread if it is real-time and below prio; 1 if boosted. */
static int
ceiling_thread(struct ceiling_proc *cp, pid_t tid)
{
	struct ceiling_attr	a, up;

	if (cp->n == CEILING_MAX_THREADS || ceiling_getattr(tid, &a) < 0)
		return 0;
	if ((a.sched_policy != SCHED_FIFO && a.sched_policy != SCHED_RR) ||
	    (int)a.sched_priority >= cp->prio)
		return 0;
	up = a;
	up.sched_policy = SCHED_FIFO;
	up.sched_priority = (uint32_t)cp->prio;
	if (ceiling_setattr(tid, &up) < 0)
		return -errno;
	cp->t[cp->n].tid = tid;
	cp->t[cp->n].old = a;
	cp->n++;
	return 1;
}

static int
ceiling_scan(struct ceiling_proc *cp, char *err, size_t errlen)
{
	char		 path[64];
	DIR		*dir;
	struct dirent	*de;
	int		 r, raised = 0, fail = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)cp->pid);
	if ((dir = opendir(path)) == NULL) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return r;
	}
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		r = ceiling_thread(cp, (pid_t)atoi(de->d_name));
		if (r > 0)
			raised++;
		else if (r < 0)
			fail = r;
	}
	closedir(dir);
	if (fail < 0 && raised == 0) {
		snprintf(err, errlen, "sched_setattr on pid %d: %s",
		    (int)cp->pid, strerror(-fail));
		return fail;
	}
	return raised;
}

int
ceiling_raise(pid_t pid, int prio, char *err, size_t errlen)
{
	struct ceiling_proc	*cp;
	int			 r;

	ceiling_restore(pid);
	if (prio < 1 || prio > 99) {
		snprintf(err, errlen, "ceiling priority %d out of 1..99", prio);
		return -EINVAL;
	}
	if ((cp = calloc(1, sizeof(*cp))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	cp->pid = pid;
	cp->prio = prio;
	if ((r = ceiling_scan(cp, err, errlen)) <= 0 && cp->n == 0) {
		free(cp);
		return r;
	}
	cp->next = ceiling_procs;
	ceiling_procs = cp;
	return r;
}

/*
 * A thread whose priority someone else changed while it held the lock
 * keeps the new setting: only what is still ours is put back.
 */
static void
ceiling_put_back(const struct ceiling_proc *cp)
{
	struct ceiling_attr	now;
	unsigned int		i;

	for (i = 0; i < cp->n; i++) {
		if (ceiling_getattr(cp->t[i].tid, &now) < 0)
			continue;	/* thread gone */
		if (now.sched_policy != SCHED_FIFO ||
		    (int)now.sched_priority != cp->prio)
			continue;
		(void)ceiling_setattr(cp->t[i].tid, &cp->t[i].old);
	}
}

void
ceiling_restore(pid_t pid)
{
	struct ceiling_proc	**pp, *cp;

	for (pp = &ceiling_procs; (cp = *pp) != NULL; pp = &cp->next) {
		if (cp->pid != pid)
			continue;
		*pp = cp->next;
		ceiling_put_back(cp);
		free(cp);
		return;
	}
}

void
ceiling_restore_all(void)
{
	while (ceiling_procs != NULL)
		ceiling_restore(ceiling_procs->pid);
}

/* ---- worker ------------------------------------------------------- */

#define CEILING_RESULTS	64	/* results the loop has not read yet */

struct ceiling_req {
	struct ceiling_req	*next;
	pid_t			 pid;
	uint32_t		 task;
	int			 prio;
};

static struct {
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	pthread_t		 th;
	bool			 running, stop;
	struct ceiling_req	*pending;	/* one per pid at most */
	struct ceiling_result	 res[CEILING_RESULTS];
	unsigned int		 rhead, rn;
	void			(*wake)(void *);
	void			*arg;
} cw = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static void
ceiling_result_init(struct ceiling_result *res, pid_t pid, uint32_t task,
    int prio)
{
	memset(res, 0, sizeof(*res));
	res->pid = pid;
	res->task = task;
	res->prio = prio;
}

/* Carry one request out; the result of a raise, for the loop to log. */
static void
ceiling_do(const struct ceiling_req *q, struct ceiling_result *res)
{
	ceiling_result_init(res, q->pid, q->task, q->prio);
	if (q->prio > 0)
		res->r = ceiling_raise(q->pid, q->prio, res->err,
		    sizeof(res->err));
	else
		ceiling_restore(q->pid);
}

/* Queue a raise's result (cw.mu held); the oldest goes when full. */
static void
ceiling_push(const struct ceiling_result *res)
{
	if (res->prio == 0)
		return;
	if (cw.rn == CEILING_RESULTS) {
		cw.rhead = (cw.rhead + 1) % CEILING_RESULTS;
		cw.rn--;
	}
	cw.res[(cw.rhead + cw.rn) % CEILING_RESULTS] = *res;
	cw.rn++;
}

static void *
ceiling_main(void *unused)
{
	struct ceiling_req	*q;
	struct ceiling_result	 res;

	pthread_mutex_lock(&cw.mu);
	for (;;) {
		while (!cw.stop && cw.pending == NULL)
			pthread_cond_wait(&cw.cv, &cw.mu);
		if (cw.stop)
			break;
		q = cw.pending;
		cw.pending = q->next;
		pthread_mutex_unlock(&cw.mu);
		ceiling_do(q, &res);
		free(q);
		pthread_mutex_lock(&cw.mu);
		ceiling_push(&res);
		if (res.prio > 0 && cw.wake != NULL)
			cw.wake(cw.arg);
	}
	pthread_mutex_unlock(&cw.mu);
	return NULL;
}

int
ceiling_start(void (*wake)(void *), void *arg, char *err, size_t errlen)
{
	int	e;

	cw.wake = wake;
	cw.arg = arg;
	cw.stop = false;
	if ((e = pthread_create(&cw.th, NULL, ceiling_main, NULL)) != 0) {
		snprintf(err, errlen, "ceiling thread: %s", strerror(e));
		return -1;
	}
	cw.running = true;
	return 0;
}

void
ceiling_request(pid_t pid, uint32_t task, int prio)
{
	struct ceiling_req	*q, one = { NULL, pid, task, prio };
	struct ceiling_result	 res;

	if (!cw.running) {
		ceiling_do(&one, &res);
		pthread_mutex_lock(&cw.mu);
		ceiling_push(&res);
		pthread_mutex_unlock(&cw.mu);
		return;
	}
	pthread_mutex_lock(&cw.mu);
	for (q = cw.pending; q != NULL; q = q->next)
		if (q->pid == pid)
			break;
	if (q == NULL && (q = calloc(1, sizeof(*q))) != NULL) {
		q->next = cw.pending;
		cw.pending = q;
	}
	if (q != NULL) {
		q->pid = pid;
		q->task = task;
		q->prio = prio;
		pthread_cond_signal(&cw.cv);
	} else {
		/* said, not done: the next request for pid may do it */
		ceiling_result_init(&res, pid, task, prio > 0 ? prio : -1);
		res.r = -ENOMEM;
		snprintf(res.err, sizeof(res.err), "request dropped: out of "
		    "memory");
		ceiling_push(&res);
	}
	pthread_mutex_unlock(&cw.mu);
}

int
ceiling_result(struct ceiling_result *res)
{
	int	got = 0;

	pthread_mutex_lock(&cw.mu);
	if (cw.rn > 0) {
		*res = cw.res[cw.rhead];
		cw.rhead = (cw.rhead + 1) % CEILING_RESULTS;
		cw.rn--;
		got = 1;
	}
	pthread_mutex_unlock(&cw.mu);
	return got;
}

void
ceiling_stop(void)
{
	struct ceiling_req	*q;

	if (cw.running) {
		pthread_mutex_lock(&cw.mu);
		cw.stop = true;
		pthread_cond_signal(&cw.cv);
		pthread_mutex_unlock(&cw.mu);
		pthread_join(cw.th, NULL);
		cw.running = false;
	}
	while ((q = cw.pending) != NULL) {
		cw.pending = q->next;
		free(q);
	}
	ceiling_restore_all();
}
