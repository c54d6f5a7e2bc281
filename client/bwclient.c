/*
 * bwclient.c - libbwclient (include/bwsched/bwclient.h, libbwclient(3)).
 *
 * Two paths.  The slow path (hello, registration, get/set, and every
 * lock call under BWC_NO_SHM) is one request/reply on the control socket
 * under h->mu.  The hot path (lock marks, stream marks, launch slots)
 * only touches the shared pages through cpage.c: no lock, no syscall.
 *
 * Reconnection: a monitor thread polls the socket for a hang-up (and
 * bumps the task page's heartbeat every BWC_HEARTBEAT_MS); a slow
 * call that sees EPIPE/ECONNRESET/end of file drops the connection and
 * wakes it.  It then reconnects with exponential backoff, says hello,
 * registers the task again with the same page descriptors (the pages'
 * counters are still right, the new daemon reads them) and re-registers
 * every kernel.  Meanwhile slow calls return -ENOTCONN and the hot path
 * carries on writing the pages.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "monoclock.h"
#include "bwsched/bwclient.h"
#include "bwcgpu.h"
#include "bwproto.h"
#include "cpage.h"
#include "cvalue.h"
#include "lockfile.h"
#include "fileio.h"
#include "msg.h"
#include "profile.h"
#include "wire.h"

#define BWC_MAX_KERNELS		1024	/* kernels per handle */
#define BWC_REPLY_TIMEOUT_S	5	/* a daemon this slow is treated as gone */
#define BWC_BACKOFF_MIN_MS	10
#define BWC_BACKOFF_MAX_MS	1000
#define BWC_HEARTBEAT_MS	100	/* task page heartbeat period */
#define BWC_ERRLEN		256

struct bwc_kern {
	char			 name[BWP_MAX_NAME + 1];
	uint32_t		 blocks;
	uint32_t		 concurrency;
	uint32_t		 nclusters;
	struct bwc_cluster	*clusters;
	uint32_t		 nintervals;
	struct bwc_interval	*intervals;
	double			 slowdown;
	double			 q_nominal;
	uint32_t		 remote;	/* daemon's id (atomic) */
	bool			 has_gpu;
	struct bwc_gpu_demand	 gpu;
};

struct bwc {
	pthread_mutex_t		 mu;		/* socket, registration state */
	int			 sock;		/* -1 while disconnected */
	int			 flags;
	char			 path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char			 name[BWP_MAX_NAME + 1];
	uint64_t		 next_id;
	uint8_t			*rbuf;		/* BWP_RECV_BUF bytes */
	msgpack_zone		*zone;		/* replies decode here (mu) */

	/* task */
	bool			 registered;
	char			 task_name[BWP_MAX_NAME + 1];
	uint64_t		 period_ns;
	int			 priority;
	struct cpage_task	 tp;		/* fd -1: none yet */
	struct cpage_progress	 pp;		/* fd -1: none */
	/* the page the hot path uses, NULL when it must use the socket */
	struct cpage_task	*live;
	/* BWC_NO_SHM: private page that tracks the stream set */
	struct bwshm_task_page	 shadow;
	struct cpage_task	 shadow_t;
	/* GPU partitioning: the task's demand, its id, the plan page */
	bool			 has_gpu;
	struct bwc_gpu_demand	 gpu;
	uint32_t		 task_id;	/* atomic */
	struct bwcgpu_plan	 plan;

	struct bwc_kern		*kern[BWC_MAX_KERNELS];
	uint32_t		 nkern;		/* atomic: published entries */

	/*
	 * The lock slot's files (lockfile.h), NULL without them.  A new
	 * registration replaces them; the old ones stay mapped (on the
	 * retired list) until bwc_close, since a hot-path call may still
	 * be using them.
	 */
	struct bwc_lockfile	*lf;		/* atomic */
	struct bwc_lockfile	*lf_retired;

	/* monitor thread */
	pthread_t		 mon;
	bool			 mon_running;
	bool			 closing;
	int			 wake[2];
	unsigned int		 reconnects;
};

struct bwc_lockfile {
	struct lockfile		 l;
	struct bwc_lockfile	*next;
};

/* The message of the last failure, per thread (bwc_strerror). */
static __thread const struct bwc *err_h;
static __thread char err_msg[BWC_ERRLEN];

static int	fail(bwc_t *, int, const char *, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(bwc_t *h, int rc, const char *fmt, ...)
{
	va_list	ap;

	err_h = h;
	va_start(ap, fmt);
	vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
	va_end(ap);
	return rc;
}

const char *
bwc_strerror(bwc_t *h)
{
	return err_h == h && err_msg[0] != '\0' ? err_msg : "no error";
}

/* Daemon status code to a negative errno (libbwclient(3) lists them). */
static int
status_errno(uint64_t st)
{
	switch (st) {
	case BWP_OK:		return 0;
	case BWP_E_MALFORMED:	return -EPROTO;
	case BWP_E_TOOBIG:	return -EMSGSIZE;
	case BWP_E_VERSION:	return -EPROTONOSUPPORT;
	case BWP_E_UNKNOWN_OP:	return -EOPNOTSUPP;
	case BWP_E_BADARG:	return -EINVAL;
	case BWP_E_PERM:	return -EPERM;
	case BWP_E_NOHELLO:	return -EPROTO;
	case BWP_E_NOENT:	return -ENOENT;
	case BWP_E_EXIST:	return -EEXIST;
	case BWP_E_LIMIT:	return -EMFILE;
	case BWP_E_BADFD:	return -EBADF;
	case BWP_E_STATE:	return -ENOLCK;
	case BWP_E_RATE:	return -EAGAIN;
	case BWP_E_UNSCHEDULABLE: return -ENOSPC;
	default:		return -EIO;
	}
}

/* ---- connection --------------------------------------------------- */

static void
poke_monitor(bwc_t *h)
{
	char	c = 1;

	if (h->mon_running && write(h->wake[1], &c, 1) < 0) {
		/* pipe full: the monitor is awake already */
	}
}

/*
 * The socket changes under mu; the monitor reads it without (see
 * monitor()), hence the atomic store.
 */
static void
set_sock(bwc_t *h, int fd)
{
	__atomic_store_n(&h->sock, fd, __ATOMIC_RELEASE);
}

/* Lose the connection (mu held); the monitor reconnects. */
static void
drop(bwc_t *h)
{
	if (h->sock >= 0) {
		close(h->sock);
		set_sock(h, -1);
	}
	poke_monitor(h);
}

/*
 * Send the request in w with fds, wait for its reply (skipping events and
 * stale replies) and parse it into reply, which lives in the handle's zone:
 * free it before mu is let go or another call is made.  mu held.  Returns 0, a
 * negative errno for a daemon error (reply still parsed, error text in
 * the handle) or -ENOTCONN when the connection is gone.
 */
static int
call_raw(bwc_t *h, const void *buf, size_t len, uint64_t id, const int *fds,
    int nfds, struct bwp_msg *reply, struct bwp_recv *keep)
{
	const msgpack_object	*o;
	struct bwp_recv	 r;
	uint64_t	 rid, st;
	char		 etext[BWP_ERR_MAX];
	int		 rc;

	bwp_msg_init_zone(reply, h->zone);
	if (h->sock < 0)
		return fail(h, -ENOTCONN, "not connected to bwsched at %s",
		    h->path);
	rc = bwp_wire_send(h->sock, buf, len, fds, nfds, 0);
	if (rc < 0)
		goto lost;
	for (;;) {
		rc = bwp_wire_recv(h->sock, h->rbuf, BWP_RECV_BUF, &r, 0);
		if (rc <= 0) {
			if (rc == 0)
				rc = -ECONNRESET;
			goto lost;
		}
		if (r.toobig) {
			bwp_wire_close_fds(&r);
			continue;
		}
		bwp_msg_free(reply);
		bwp_msg_init_zone(reply, h->zone);
		o = NULL;
		if (bwp_msg_parse(reply, h->rbuf, r.len) == BWP_OK &&
		    bwp_msg_known(reply, BWP_KN_EVENT) == NULL)
			o = bwp_msg_known(reply, BWP_KN_ID);
		if (o == NULL || bwp_obj_uint(reply, o, BWP_K_ID, 0,
		    UINT64_MAX, &rid) < 0 || rid != id) {
			/* an event, or a late reply to a timed-out call */
			bwp_wire_close_fds(&r);
			continue;
		}
		break;
	}
	/* descriptors come only with the reply that asked for them */
	if (keep != NULL)
		*keep = r;
	else
		bwp_wire_close_fds(&r);
	o = bwp_msg_known(reply, BWP_KN_STATUS);
	if (o == NULL || bwp_obj_uint(reply, o, BWP_K_STATUS, 0, UINT64_MAX,
	    &st) < 0)
		return fail(h, -EPROTO, "reply without a status");
	if (st == BWP_OK)
		return 0;
	if (bwp_get_str(reply, NULL, BWP_K_ERROR, false, 0, BWP_ERR_MAX - 1,
	    etext) != 1)
		strcpy(etext, "(no message)");
	return fail(h, status_errno(st), "bwsched: %s: %s",
	    bwp_status_name((int)st), etext);
lost:
	drop(h);
	if (rc == -EAGAIN || rc == -EWOULDBLOCK)
		rc = -ETIMEDOUT;
	return fail(h, -ENOTCONN, "connection to bwsched lost: %s",
	    strerror(-rc));
}

/* The same for a request built with a bwp_writer; the caller frees w. */
static int
call(bwc_t *h, struct bwp_writer *w, uint64_t id, const int *fds, int nfds,
    struct bwp_msg *reply)
{
	const void	*buf;
	size_t		 len;

	bwp_msg_init(reply);
	buf = bwp_w_finish(w, &len);
	if (buf == NULL)
		return fail(h, -ENOMEM, "out of memory");
	return call_raw(h, buf, len, id, fds, nfds, reply, NULL);
}

/* Start request op in w with the next id, which it returns.  mu held. */
static uint64_t
request(bwc_t *h, struct bwp_writer *w, enum bwp_op op)
{
	uint64_t	id = h->next_id++;

	bwp_w_init(w);
	bwp_w_request(w, id, op);
	return id;
}

/* A request with no arguments; the reply is discarded. */
static int
call_simple(bwc_t *h, enum bwp_op op)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id;
	int			rc;

	id = request(h, &w, op);
	rc = call(h, &w, id, NULL, 0, &m);
	bwp_msg_free(&m);
	bwp_w_free(&w);
	return rc;
}

/* ---- lock slot ---------------------------------------------------- */

static void
retire_lockfile(bwc_t *h)
{
	struct bwc_lockfile	*o = __atomic_exchange_n(&h->lf, NULL,
				    __ATOMIC_ACQ_REL);

	if (o == NULL)
		return;
	/* a hot-path call may still hold the pointer: keep it mapped */
	o->next = h->lf_retired;
	h->lf_retired = o;
}

/*
 * The task's lock-slot files (lock.files).  None is not an error (an
 * older daemon, a regulator without slots): the lock then acts at the
 * daemon's next page poll, as before.  mu held.
 */
static void
fetch_lockfile(bwc_t *h)
{
	struct bwc_lockfile	*n;
	struct bwp_writer	 w;
	struct bwp_msg		 m;
	struct bwp_recv		 r;
	const void		*buf;
	size_t			 len;
	uint64_t		 id;
	char			 kind[8];

	retire_lockfile(h);
	if (h->tp.fd < 0)
		return;
	memset(&r, 0, sizeof(r));
	id = request(h, &w, BWP_OP_LOCK_FILES);
	bwp_msg_init(&m);
	if ((buf = bwp_w_finish(&w, &len)) != NULL &&
	    call_raw(h, buf, len, id, NULL, 0, &m, &r) == 0 &&
	    bwp_get_str(&m, NULL, "kind", true, 1, sizeof(kind) - 1,
	    kind) == 1 && (n = calloc(1, sizeof(*n))) != NULL) {
		/* lockfile_open owns the descriptors from here */
		if (lockfile_open(&n->l, kind, r.fds, r.nfds) == 0)
			__atomic_store_n(&h->lf, n, __ATOMIC_RELEASE);
		else
			free(n);
		r.nfds = 0;
	}
	bwp_wire_close_fds(&r);
	bwp_msg_free(&m);
	bwp_w_free(&w);
}

/*
 * Mirror the task page's lock state into the lock slot and kick the
 * regulator when it must act now (lockfile.h).  The lock is taken
 * either way; an error says it was not confirmed.
 */
static int
lock_sync(bwc_t *h, const struct cpage_task *t, int launch)
{
	struct bwc_lockfile	*lf = __atomic_load_n(&h->lf,
				    __ATOMIC_ACQUIRE);
	int			 rc;

	if (lf == NULL)
		return 0;
	rc = lockfile_sync(&lf->l, t, launch);
	if (rc < 0)
		return fail(h, rc, "the regulator did not confirm the lock "
		    "(%s); it acts at the daemon's next page poll",
		    strerror(-rc));
	return 0;
}

static int
sock_connect(const char *path)
{
	struct timeval	tv = { BWC_REPLY_TIMEOUT_S, 0 };
	int		s = bwp_wire_connect(path);

	if (s >= 0)
		setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return s;
}

static int
hello(bwc_t *h)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id;
	int			rc;

	id = request(h, &w, BWP_OP_HELLO);
	bwp_w_kuint(&w, "pid", (uint64_t)getpid());
	bwp_w_kstr(&w, "name", h->name);
	rc = call(h, &w, id, NULL, 0, &m);
	bwp_w_free(&w);
	bwp_msg_free(&m);
	return rc;
}

static int send_task_register(bwc_t *);
static int send_kernel_register(bwc_t *, struct bwc_kern *,
    struct bwc_kernel_info *);

/*
 * Connect, say hello and restore the registrations (mu held).  On
 * failure the handle is left disconnected.
 */
static int
establish(bwc_t *h)
{
	uint32_t	i, n;
	int		rc;

	rc = sock_connect(h->path);
	if (rc < 0)
		return fail(h, rc, "cannot connect to %s: %s", h->path,
		    strerror(-rc));
	set_sock(h, rc);
	rc = hello(h);
	if (rc == 0 && h->registered)
		rc = send_task_register(h);
	if (rc == 0 && h->registered)
		fetch_lockfile(h);
	/*
	 * A kernel the new daemon refuses (its limits may have changed)
	 * stays unknown to it; only a lost connection starts over.
	 */
	n = __atomic_load_n(&h->nkern, __ATOMIC_ACQUIRE);
	for (i = 0; rc == 0 && i < n; i++)
		if (send_kernel_register(h, h->kern[i], NULL) == -ENOTCONN)
			rc = -ENOTCONN;
	if (rc < 0 && h->sock >= 0) {
		close(h->sock);
		set_sock(h, -1);
	}
	return rc;
}

/*
 * The page's heartbeat says the process is alive; the monitor bumps it
 * every BWC_HEARTBEAT_MS so the hot path does not have to.
 */
static void
heartbeat(bwc_t *h)
{
	struct cpage_task	*t = __atomic_load_n(&h->live, __ATOMIC_ACQUIRE);

	if (t != NULL)
		cpage_heartbeat(t);
}

static void *
monitor(void *arg)
{
	bwc_t		*h = arg;
	struct pollfd	 pf[2];
	int		 backoff = BWC_BACKOFF_MIN_MS, fd, timeout, rc;
	char		 buf[64];

	/*
	 * mu is taken only to reconnect or to drop a dead socket.  A
	 * caller holds mu for its whole round trip, so a monitor queued on
	 * it at every turn was woken at each unlock only to find it taken
	 * again: a futex wake and a context switch added to every request.
	 */
	for (;;) {
		if (__atomic_load_n(&h->closing, __ATOMIC_ACQUIRE))
			return NULL;
		fd = __atomic_load_n(&h->sock, __ATOMIC_ACQUIRE);
		if (fd < 0 && !(h->flags & BWC_NO_RECONNECT)) {
			pthread_mutex_lock(&h->mu);
			if (!h->closing && h->sock < 0 && establish(h) == 0) {
				h->reconnects++;
				backoff = BWC_BACKOFF_MIN_MS;
			}
			fd = h->sock;
			pthread_mutex_unlock(&h->mu);
		}

		pf[0].fd = h->wake[0];
		pf[0].events = POLLIN;
		pf[1].fd = fd;
		pf[1].events = POLLRDHUP;	/* not POLLIN: replies are the callers' */
		timeout = BWC_HEARTBEAT_MS;
		if (fd < 0 && !(h->flags & BWC_NO_RECONNECT)) {
			timeout = backoff;
			if (backoff < BWC_BACKOFF_MAX_MS)
				backoff *= 2;
		}
		rc = poll(pf, fd < 0 ? 1 : 2, timeout);
		heartbeat(h);
		if (rc <= 0)
			continue;
		if (pf[0].revents & POLLIN)
			while (read(h->wake[0], buf, sizeof(buf)) > 0)
				;
		if (fd >= 0 && (pf[1].revents &
		    (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) {
			pthread_mutex_lock(&h->mu);
			if (h->sock == fd) {
				close(h->sock);
				set_sock(h, -1);
			}
			pthread_mutex_unlock(&h->mu);
		}
	}
}

const char *
bwc_socket_path(const char *path)
{
	if (path == NULL)
		path = getenv(BWP_SOCKET_ENV);
	if (path == NULL || *path == '\0')
		path = BWP_SOCKET_DEFAULT;
	return path;
}

bwc_t *
bwc_open(const char *path, const char *name, int flags)
{
	bwc_t	*h;
	int	 rc;

	path = bwc_socket_path(path);
	if (name == NULL)
		name = "bwclient";
	if (strlen(path) >= sizeof(h->path) || strlen(name) > BWP_MAX_NAME ||
	    (flags & ~(BWC_NO_RECONNECT | BWC_NO_SHM))) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return NULL;
	h->rbuf = malloc(BWP_RECV_BUF);
	h->zone = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
	if (h->rbuf == NULL || h->zone == NULL) {
		free(h->rbuf);
		if (h->zone != NULL)
			msgpack_zone_free(h->zone);
		free(h);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&h->mu, NULL);
	strcpy(h->path, path);
	strcpy(h->name, name);
	h->flags = flags;
	h->next_id = 1;
	h->sock = -1;
	h->tp.fd = -1;
	h->pp.fd = -1;
	h->wake[0] = h->wake[1] = -1;
	h->shadow_t.fd = -1;
	h->shadow_t.page = &h->shadow;
	bwcgpu_plan_init(&h->plan);

	rc = establish(h);
	if (rc == 0) {
		if (pipe2(h->wake, O_CLOEXEC | O_NONBLOCK) < 0)
			rc = -errno;
		else if ((rc = -pthread_create(&h->mon, NULL, monitor, h)) == 0)
			h->mon_running = true;
	}
	if (rc < 0) {
		bwc_close(h);
		errno = -rc;
		return NULL;
	}
	return h;
}

void
bwc_close(bwc_t *h)
{
	struct bwc_lockfile	*lf;
	uint32_t		 i;

	if (h == NULL)
		return;
	pthread_mutex_lock(&h->mu);
	__atomic_store_n(&h->closing, true, __ATOMIC_RELEASE);
	poke_monitor(h);
	pthread_mutex_unlock(&h->mu);
	if (h->mon_running)
		pthread_join(h->mon, NULL);
	/* closing the socket drops the task, its locks and kernels */
	if (h->sock >= 0)
		close(h->sock);
	for (i = 0; i < 2; i++)
		if (h->wake[i] >= 0)
			close(h->wake[i]);
	if (h->tp.fd >= 0)
		cpage_task_destroy(&h->tp);
	if (h->pp.fd >= 0)
		cpage_progress_destroy(&h->pp);
	for (i = 0; i < h->nkern; i++) {
		free(h->kern[i]->clusters);
		free(h->kern[i]->intervals);
		free(h->kern[i]);
	}
	retire_lockfile(h);
	while ((lf = h->lf_retired) != NULL) {
		h->lf_retired = lf->next;
		lockfile_close(&lf->l);
		free(lf);
	}
	bwcgpu_plan_close(&h->plan);
	pthread_mutex_destroy(&h->mu);
	free(h->rbuf);
	msgpack_zone_free(h->zone);
	if (err_h == h)
		err_h = NULL;
	free(h);
}

int
bwc_fd(bwc_t *h)
{
	int	fd;

	pthread_mutex_lock(&h->mu);
	fd = h->sock;
	pthread_mutex_unlock(&h->mu);
	return fd >= 0 ? fd : fail(h, -ENOTCONN, "not connected");
}

/* ---- task --------------------------------------------------------- */

static int
send_task_register(bwc_t *h)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id, pages = 0, tid;
	int			fds[2], nfds = 0, rc;

	if (h->tp.fd >= 0) {
		fds[nfds++] = h->tp.fd;
		pages |= 1;
	}
	if (h->pp.fd >= 0) {
		fds[nfds++] = h->pp.fd;
		pages |= 2;
	}
	id = request(h, &w, BWP_OP_TASK_REGISTER);
	bwp_w_kstr(&w, "name", h->task_name);
	bwp_w_kuint(&w, "period_ns", h->period_ns);
	bwp_w_kuint(&w, "priority", (uint64_t)h->priority);
	bwp_w_kuint(&w, "pages", pages);
	if (h->has_gpu)
		bwcgpu_write(&w, &h->gpu);
	rc = call(h, &w, id, fds, nfds, &m);
	bwp_w_free(&w);
	if (rc == 0 && bwp_get_uint(&m, NULL, "task", true, 1, UINT32_MAX,
	    &tid) == 1)
		__atomic_store_n(&h->task_id, (uint32_t)tid, __ATOMIC_RELEASE);
	bwp_msg_free(&m);
	/* a restarted daemon publishes a new plan page */
	if (rc == 0 && h->has_gpu)
		bwcgpu_plan_open(&h->plan, h->path, true);
	return rc;
}

/* Free every slot of a progress page kept across registrations. */
static void
progress_reset(struct cpage_progress *pp)
{
	uint32_t	i;

	for (i = 0; i < pp->nslots; i++)
		cpage_slot_release(pp, (int)i, 0);
}

static int
task_register(bwc_t *h, const struct bwc_task_params *p,
    const struct bwc_gpu_demand *g)
{
	const char	*name;
	bool		 shm = !(h->flags & BWC_NO_SHM);
	char		 err[BWC_ERRLEN];
	int		 rc;

	if (p == NULL)
		return fail(h, -EINVAL, "no task parameters");
	if (g != NULL && bwcgpu_check(g, false, err, sizeof(err)) < 0)
		return fail(h, -EINVAL, "%s", err);
	name = p->name != NULL ? p->name : h->name;
	if (strlen(name) > BWP_MAX_NAME)
		return fail(h, -EINVAL, "task name longer than %d bytes",
		    BWP_MAX_NAME);
	if (p->priority < 1 || p->priority > 99)
		return fail(h, -EINVAL, "priority %d not in 1..99", p->priority);
	if (p->progress_slots > 0 && !shm)
		return fail(h, -EINVAL, "a progress page needs shared memory "
		    "(handle opened with BWC_NO_SHM)");
	pthread_mutex_lock(&h->mu);
	if (h->registered) {
		rc = fail(h, -EEXIST, "task already registered");
		goto out;
	}
	strcpy(h->task_name, name);
	h->period_ns = p->period_ns != 0 ? p->period_ns : 1000000000ull;
	h->priority = p->priority;
	/* the task page is created once and kept until bwc_close */
	if (shm && h->tp.fd < 0 && (rc = cpage_task_create(&h->tp)) < 0) {
		rc = fail(h, rc, "task page: %s", strerror(-rc));
		goto out;
	}
	/* a page kept from an earlier registration is reused if it fits */
	if (h->pp.fd >= 0 && (h->pp.nslots != p->progress_slots ||
	    h->pp.max_blocks != p->progress_max_blocks))
		cpage_progress_destroy(&h->pp);
	if (h->pp.fd >= 0)
		progress_reset(&h->pp);
	else if (p->progress_slots > 0 && (rc = cpage_progress_create(&h->pp,
	    p->progress_slots, p->progress_max_blocks)) < 0) {
		rc = fail(h, rc, "progress page (%u slots of %u blocks): %s",
		    p->progress_slots, p->progress_max_blocks, strerror(-rc));
		goto out;
	}
	h->has_gpu = g != NULL;
	if (g != NULL)
		h->gpu = *g;
	rc = send_task_register(h);
	if (rc < 0) {
		h->has_gpu = false;
		if (h->pp.fd >= 0)
			cpage_progress_destroy(&h->pp);
		goto out;
	}
	h->registered = true;
	memset(&h->shadow, 0, sizeof(h->shadow));
	__atomic_store_n(&h->live, shm ? &h->tp : NULL, __ATOMIC_RELEASE);
	fetch_lockfile(h);
out:
	pthread_mutex_unlock(&h->mu);
	return rc;
}

int
bwc_task_register(bwc_t *h, const struct bwc_task_params *p)
{
	return task_register(h, p, NULL);
}

int
bwc_task_register_gpu(bwc_t *h, const struct bwc_task_params *p,
    const struct bwc_gpu_demand *g)
{
	if (g == NULL)
		return fail(h, -EINVAL, "no GPU demand");
	return task_register(h, p, g);
}

static void
reset_page(struct bwshm_task_page *pg)
{
	int	i;

	__atomic_store_n(&pg->lock_depth, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->memcpy_depth, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->active_streams, 0, __ATOMIC_RELAXED);
	for (i = 0; i < BWSHM_MAX_STREAMS; i++)
		__atomic_store_n(&pg->stream_handle[i], 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&pg->seq, 1, __ATOMIC_RELEASE);
}

int
bwc_task_unregister(bwc_t *h)
{
	uint32_t	i;
	int		rc;

	pthread_mutex_lock(&h->mu);
	if (!h->registered) {
		rc = fail(h, -ENOENT, "no task registered");
		goto out;
	}
	rc = call_simple(h, BWP_OP_TASK_UNREGISTER);
	/* a lost connection has unregistered the task already */
	if (rc == -ENOTCONN)
		rc = 0;
	if (rc < 0)
		goto out;
	h->registered = false;
	h->has_gpu = false;
	__atomic_store_n(&h->task_id, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&h->live, NULL, __ATOMIC_RELEASE);
	retire_lockfile(h);
	if (h->tp.page != NULL)
		reset_page(h->tp.page);
	/* the progress page may be registered for DMA: keep it mapped */
	for (i = 0; i < h->nkern; i++) {
		free(h->kern[i]->clusters);
		free(h->kern[i]->intervals);
		free(h->kern[i]);
		h->kern[i] = NULL;
	}
	__atomic_store_n(&h->nkern, 0, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&h->mu);
	return rc;
}

/* ---- kernels ------------------------------------------------------ */

static int
send_kernel_register(bwc_t *h, struct bwc_kern *k,
    struct bwc_kernel_info *info)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id, kid = 0, wcet = 0, wcet0 = 0;
	double			q = 0;
	uint32_t		i;
	int			rc;

	id = request(h, &w, BWP_OP_KERNEL_REGISTER);
	bwp_w_kstr(&w, "name", k->name);
	bwp_w_kuint(&w, "blocks", k->blocks);
	bwp_w_kuint(&w, "concurrency", k->concurrency);
	bwp_w_key(&w, "clusters");
	bwp_w_array(&w, k->nclusters);
	for (i = 0; i < k->nclusters; i++) {
		bwp_w_array(&w, 2);
		bwp_w_uint(&w, k->clusters[i].e0_ns);
		bwp_w_uint(&w, k->clusters[i].e1_ns);
	}
	bwp_w_key(&w, "intervals");
	bwp_w_array(&w, k->nintervals);
	for (i = 0; i < k->nintervals; i++) {
		bwp_w_array(&w, 2);
		bwp_w_uint(&w, k->intervals[i].first_block);
		bwp_w_uint(&w, k->intervals[i].cluster);
	}
	if (k->slowdown > 0)
		bwp_w_kdouble(&w, "slowdown", k->slowdown);
	if (k->q_nominal > 0)
		bwp_w_kdouble(&w, "q_nominal", k->q_nominal);
	if (k->has_gpu)
		bwcgpu_write(&w, &k->gpu);
	rc = call(h, &w, id, NULL, 0, &m);
	bwp_w_free(&w);
	if (rc == 0 && (bwp_get_uint(&m, NULL, "kernel", true, 0, UINT32_MAX,
	    &kid) != 1 || bwp_get_double(&m, NULL, "q_nominal", true, 0, 1,
	    false, &q) != 1 || bwp_get_uint(&m, NULL, "wcet_ns", true, 0,
	    UINT64_MAX, &wcet) != 1 || bwp_get_uint(&m, NULL, "wcet0_ns", true,
	    0, UINT64_MAX, &wcet0) != 1))
		rc = fail(h, -EPROTO, "kernel.register reply: %s", m.err);
	bwp_msg_free(&m);
	if (rc < 0)
		return rc;
	__atomic_store_n(&k->remote, (uint32_t)kid, __ATOMIC_RELEASE);
	if (info != NULL) {
		info->q_nominal = q;
		info->wcet_ns = wcet;
		info->wcet0_ns = wcet0;
	}
	return 0;
}

static void
kern_free(struct bwc_kern *k)
{
	if (k != NULL) {
		free(k->clusters);
		free(k->intervals);
		free(k);
	}
}

/* Deep copy of a descriptor, checked as far as the client can. */
static int
kern_copy(bwc_t *h, const struct bwc_kernel_desc *d, struct bwc_kern **out)
{
	struct bwc_kern	*k;

	if (d == NULL || d->name == NULL || *d->name == '\0' ||
	    strlen(d->name) > BWP_MAX_NAME)
		return fail(h, -EINVAL, "kernel name missing or longer "
		    "than %d bytes", BWP_MAX_NAME);
	if (d->nclusters < 1 || d->nclusters > BWP_MAX_CLUSTERS ||
	    d->clusters == NULL)
		return fail(h, -EINVAL, "kernel %s: %u clusters (1..%d)",
		    d->name, d->nclusters, BWP_MAX_CLUSTERS);
	if (d->nintervals < 1 || d->nintervals > BWP_MAX_INTERVALS ||
	    d->intervals == NULL)
		return fail(h, -EINVAL, "kernel %s: %u intervals (1..%d)",
		    d->name, d->nintervals, BWP_MAX_INTERVALS);
	k = calloc(1, sizeof(*k));
	if (k == NULL)
		return fail(h, -ENOMEM, "out of memory");
	k->clusters = calloc(d->nclusters, sizeof(*k->clusters));
	k->intervals = calloc(d->nintervals, sizeof(*k->intervals));
	if (k->clusters == NULL || k->intervals == NULL) {
		kern_free(k);
		return fail(h, -ENOMEM, "out of memory");
	}
	strcpy(k->name, d->name);
	k->blocks = d->blocks;
	k->concurrency = d->concurrency;
	k->nclusters = d->nclusters;
	k->nintervals = d->nintervals;
	memcpy(k->clusters, d->clusters, d->nclusters * sizeof(*d->clusters));
	memcpy(k->intervals, d->intervals,
	    d->nintervals * sizeof(*d->intervals));
	k->slowdown = d->slowdown;
	k->q_nominal = d->q_nominal;
	*out = k;
	return 0;
}

static int
kernel_register(bwc_t *h, const struct bwc_kernel_desc *d,
    const struct bwc_gpu_demand *g, struct bwc_kernel_info *info)
{
	struct bwc_kernel_info	 tmp;
	struct bwc_kern		*k = NULL;
	char			 err[BWC_ERRLEN];
	uint32_t		 n;
	int			 rc;

	if (g != NULL && bwcgpu_check(g, true, err, sizeof(err)) < 0)
		return fail(h, -EINVAL, "%s", err);
	rc = kern_copy(h, d, &k);
	if (rc < 0)
		return rc;
	k->has_gpu = g != NULL;
	if (g != NULL)
		k->gpu = *g;
	pthread_mutex_lock(&h->mu);
	n = h->nkern;
	if (!h->registered)
		rc = fail(h, -ENOENT, "kernel %s: no task registered",
		    k->name);
	else if (n == BWC_MAX_KERNELS)
		rc = fail(h, -EMFILE, "more than %d kernels", BWC_MAX_KERNELS);
	else
		rc = send_kernel_register(h, k, &tmp);
	if (rc == 0) {
		h->kern[n] = k;
		__atomic_store_n(&h->nkern, n + 1, __ATOMIC_RELEASE);
		tmp.kernel = (int)n;
		if (info != NULL)
			*info = tmp;
		rc = (int)n;
		if (g != NULL)
			bwcgpu_plan_open(&h->plan, h->path, false);
	} else {
		kern_free(k);
	}
	pthread_mutex_unlock(&h->mu);
	return rc;
}

int
bwc_kernel_register(bwc_t *h, const struct bwc_kernel_desc *d,
    struct bwc_kernel_info *info)
{
	return kernel_register(h, d, NULL, info);
}

int
bwc_kernel_register_gpu(bwc_t *h, const struct bwc_kernel_desc *d,
    const struct bwc_gpu_demand *g, struct bwc_kernel_info *info)
{
	if (g == NULL)
		return fail(h, -EINVAL, "no GPU demand");
	return kernel_register(h, d, g, info);
}

int
bwc_kernel_register_file(bwc_t *h, const char *path,
    struct bwc_kernel_info *info)
{
	struct bwc_cluster	 cl[BWP_MAX_CLUSTERS];
	struct bwc_interval	*iv;
	struct bwc_kernel_desc	 d;
	struct bwc_gpu_demand	 g;
	struct profile		*p;
	char			*buf, err[128];
	size_t			 len;
	unsigned int		 i;
	int			 rc;

	rc = fileio_read(path, PROFILE_MAX_SIZE, &buf, &len);
	if (rc < 0)
		return fail(h, rc, "%s: %s", path, strerror(-rc));
	p = calloc(1, sizeof(*p));
	iv = calloc(BWP_MAX_INTERVALS, sizeof(*iv));
	if (p == NULL || iv == NULL) {
		rc = fail(h, -ENOMEM, "out of memory");
		goto out;
	}
	if (profile_parse(buf, len, p, err, sizeof(err)) < 0) {
		rc = fail(h, -EINVAL, "%s: %s", path, err);
		goto out;
	}
	if (p->nclusters > BWP_MAX_CLUSTERS ||
	    p->nintervals > BWP_MAX_INTERVALS) {
		rc = fail(h, -EINVAL, "%s: too many clusters or intervals",
		    path);
		goto out;
	}
	for (i = 0; i < p->nclusters; i++) {
		cl[i].e0_ns = p->e0[i];
		cl[i].e1_ns = p->e1[i];
	}
	for (i = 0; i < p->nintervals; i++) {
		iv[i].first_block = p->first[i];
		iv[i].cluster = p->cluster[i];
	}
	memset(&d, 0, sizeof(d));
	d.name = p->name;
	d.blocks = p->blocks;
	d.concurrency = p->concurrency;
	d.nclusters = p->nclusters;
	d.clusters = cl;
	d.nintervals = p->nintervals;
	d.intervals = iv;
	if (p->gpu.present)
		bwcgpu_from_profile(&p->gpu, &g);
	rc = kernel_register(h, &d, p->gpu.present ? &g : NULL, info);
out:
	free(iv);
	free(p);
	free(buf);
	return rc;
}

static struct bwc_kern *
kern_get(bwc_t *h, int kernel)
{
	uint32_t	n = __atomic_load_n(&h->nkern, __ATOMIC_ACQUIRE);

	return kernel >= 0 && (uint32_t)kernel < n ? h->kern[kernel] : NULL;
}

/* ---- hot path ----------------------------------------------------- */

static inline struct cpage_task *
live(bwc_t *h)
{
	return __atomic_load_n(&h->live, __ATOMIC_ACQUIRE);
}

/* A socket op carrying one optional uint or "all" (BWC_NO_SHM path). */
static int
call_stream(bwc_t *h, enum bwp_op op, const char *key, uint64_t v)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id;
	int			rc;

	id = request(h, &w, op);
	if (key != NULL && strcmp(key, "all") == 0)
		bwp_w_kbool(&w, "all", true);
	else if (key != NULL)
		bwp_w_kuint(&w, key, v);
	rc = call(h, &w, id, NULL, 0, &m);
	bwp_msg_free(&m);
	bwp_w_free(&w);
	return rc;
}

static int
locked_simple(bwc_t *h, enum bwp_op op)
{
	int	rc;

	pthread_mutex_lock(&h->mu);
	rc = call_simple(h, op);
	pthread_mutex_unlock(&h->mu);
	return rc;
}

int
bwc_lock(bwc_t *h)
{
	struct cpage_task	*t = live(h);

	if (t == NULL)
		return locked_simple(h, BWP_OP_LOCK);
	cpage_lock(t);
	return lock_sync(h, t, 0);
}

int
bwc_unlock(bwc_t *h)
{
	struct cpage_task	*t = live(h);

	if (t == NULL)
		return locked_simple(h, BWP_OP_UNLOCK);
	if (cpage_unlock(t) < 0)
		return fail(h, -ENOLCK, "unlock without lock");
	return lock_sync(h, t, 0);
}

int
bwc_memcpy_begin(bwc_t *h)
{
	struct cpage_task	*t = live(h);

	if (t == NULL)
		return locked_simple(h, BWP_OP_MEMCPY_BEGIN);
	cpage_memcpy_begin(t);
	return lock_sync(h, t, 1);
}

int
bwc_memcpy_end(bwc_t *h)
{
	struct cpage_task	*t = live(h);

	if (t == NULL)
		return locked_simple(h, BWP_OP_MEMCPY_END);
	if (cpage_memcpy_end(t) < 0)
		return fail(h, -ENOLCK, "memcpy end without begin");
	return lock_sync(h, t, 0);
}

/*
 * BWC_NO_SHM stream marks: the stream set lives in a private shadow page
 * and its transitions become an explicit lock (first active stream) and
 * unlock (last one synchronized) on the socket; stream.sync is also sent
 * so streams marked by kernel.start (bwc_launch) are cleared.
 */
/* What changed in the shadow page. */
enum shadow_what {
	SHADOW_ACTIVE,		/* a stream got work */
	SHADOW_SYNC,		/* a stream was synchronized */
	SHADOW_DEVICE_SYNC,	/* every stream was */
	SHADOW_FORGET,		/* a stream was destroyed */
};

static int
shadow_change(bwc_t *h, enum shadow_what what, uint64_t stream)
{
	bool	before, after;
	int	rc = 0;

	pthread_mutex_lock(&h->mu);
	before = h->shadow.active_streams != 0;
	switch (what) {
	case SHADOW_ACTIVE:
		rc = cpage_stream_active(&h->shadow_t, stream);
		if (rc < 0)
			rc = fail(h, rc, "more than %d streams",
			    BWSHM_MAX_STREAMS);
		break;
	case SHADOW_SYNC:
		cpage_stream_sync(&h->shadow_t, stream);
		break;
	case SHADOW_DEVICE_SYNC:
		cpage_device_sync(&h->shadow_t);
		break;
	case SHADOW_FORGET:
		cpage_stream_forget(&h->shadow_t, stream);
		break;
	}
	after = h->shadow.active_streams != 0;
	if (rc >= 0 && !before && after)
		rc = call_simple(h, BWP_OP_LOCK);
	else if (rc >= 0 && before && !after)
		rc = call_simple(h, BWP_OP_UNLOCK);
	if (rc >= 0 && what == SHADOW_DEVICE_SYNC)
		rc = call_stream(h, BWP_OP_STREAM_SYNC, "all", 0);
	else if (rc >= 0 && what != SHADOW_ACTIVE)
		rc = call_stream(h, BWP_OP_STREAM_SYNC, "stream", stream);
	pthread_mutex_unlock(&h->mu);
	return rc < 0 ? rc : 0;
}

int
bwc_stream_active(bwc_t *h, uint64_t stream)
{
	struct cpage_task	*t = live(h);
	int			 rc;

	if (t == NULL)
		return shadow_change(h, SHADOW_ACTIVE, stream);
	rc = cpage_stream_active(t, stream);
	if (rc < 0)
		return fail(h, rc, "more than %d streams", BWSHM_MAX_STREAMS);
	/* work is about to be queued on it */
	return lock_sync(h, t, 1);
}

int
bwc_stream_sync(bwc_t *h, uint64_t stream)
{
	struct cpage_task	*t = live(h);

	if (t == NULL)
		return shadow_change(h, SHADOW_SYNC, stream);
	cpage_stream_sync(t, stream);
	return lock_sync(h, t, 0);
}

int
bwc_device_sync(bwc_t *h)
{
	struct cpage_task	*t = live(h);

	if (t == NULL)
		return shadow_change(h, SHADOW_DEVICE_SYNC, 0);
	cpage_device_sync(t);
	return lock_sync(h, t, 0);
}

int
bwc_stream_forget(bwc_t *h, uint64_t stream)
{
	struct cpage_task	*t = live(h);

	if (t == NULL)
		return shadow_change(h, SHADOW_FORGET, stream);
	cpage_stream_forget(t, stream);
	return lock_sync(h, t, 0);
}

int
bwc_launch(bwc_t *h, int kernel, uint64_t stream, uint64_t **bitmap)
{
	struct cpage_task	*t = live(h);
	struct bwc_kern		*k = kern_get(h, kernel);
	int			 rc, e;

	if (bitmap != NULL)
		*bitmap = NULL;
	if (k == NULL)
		return fail(h, -EINVAL, "no kernel %d", kernel);
	if (t == NULL) {
		pthread_mutex_lock(&h->mu);
		rc = call_stream(h, BWP_OP_KERNEL_START, "kernel",
		    __atomic_load_n(&k->remote, __ATOMIC_ACQUIRE));
		pthread_mutex_unlock(&h->mu);
		(void)stream;
		return rc < 0 ? rc : -ENOSPC;
	}
	rc = cpage_stream_active(t, stream);
	if (rc < 0)
		return fail(h, rc, "more than %d streams", BWSHM_MAX_STREAMS);
	if (h->pp.map == NULL)
		return (e = lock_sync(h, t, 1)) < 0 ? e : -ENOSPC;
	rc = cpage_slot_claim(&h->pp, __atomic_load_n(&k->remote,
	    __ATOMIC_ACQUIRE), stream, k->blocks, monoclock_ns(), bitmap);
	if (rc == -E2BIG)
		return fail(h, rc, "kernel %s: %u blocks, progress slots hold "
		    "%u", k->name, k->blocks, h->pp.max_blocks);
	/*
	 * After the slot: the launch count a plan read covers it.  A kick
	 * the regulator did not confirm is counted (bwc_lock_info) and in
	 * bwc_strerror, but the slot is returned: the caller needs it.
	 */
	e = lock_sync(h, t, 1);
	return rc >= 0 ? rc : (e < 0 ? e : rc);
}

int
bwc_lock_info(bwc_t *h, struct bwc_lock_info *out)
{
	struct bwc_lockfile	*lf = __atomic_load_n(&h->lf,
				    __ATOMIC_ACQUIRE);

	memset(out, 0, sizeof(*out));
	if (lf == NULL)
		return 0;
	out->kind = lf->l.kind == LOCKFILE_KMOD ? BWC_LOCK_KMOD :
	    BWC_LOCK_SIM;
	out->kicks = __atomic_load_n(&lf->l.kicks, __ATOMIC_RELAXED);
	out->unconfirmed = __atomic_load_n(&lf->l.failures,
	    __ATOMIC_RELAXED);
	out->enforced = __atomic_load_n(&lf->l.enforced, __ATOMIC_RELAXED);
	if (__atomic_load_n(&lf->l.dead, __ATOMIC_RELAXED))
		out->kind = BWC_LOCK_NONE;
	return 0;
}

int
bwc_launch_end(bwc_t *h, int slot, uint64_t end_ns)
{
	if (h->pp.map == NULL ||
	    cpage_slot_release(&h->pp, slot, end_ns) < 0)
		return fail(h, -EINVAL, "slot %d is not claimed", slot);
	return 0;
}

int
bwc_launch_done(bwc_t *h, int slot)
{
	return bwc_launch_end(h, slot, monoclock_ns());
}

void *
bwc_progress_page(bwc_t *h, size_t *size)
{
	void	*p;

	pthread_mutex_lock(&h->mu);
	p = h->pp.map;
	if (size != NULL)
		*size = p != NULL ? h->pp.size : 0;
	pthread_mutex_unlock(&h->mu);
	return p;
}

/* ---- get / set ---------------------------------------------------- */

int
bwc_get(bwc_t *h, const char *key, char *buf, size_t len)
{
	struct bwp_writer	 w;
	struct bwp_msg		 m;
	const msgpack_object	*v;
	uint64_t		 id;
	int			 rc;

	if (key == NULL || strlen(key) > BWP_MAX_KEY)
		return fail(h, -EINVAL, "bad key");
	pthread_mutex_lock(&h->mu);
	id = request(h, &w, BWP_OP_GET);
	bwp_w_kstr(&w, "key", key);
	rc = call(h, &w, id, NULL, 0, &m);
	bwp_w_free(&w);
	if (rc == 0) {
		v = bwp_msg_find(&m, NULL, "value");
		rc = v == NULL ? -EPROTO : cvalue_format(v, buf, len);
		if (rc == -EPROTO)
			fail(h, rc, "get %s: reply without a scalar value",
			    key);
		else if (rc == -ERANGE)
			fail(h, rc, "get %s: buffer of %zu bytes too small",
			    key, len);
	}
	bwp_msg_free(&m);
	pthread_mutex_unlock(&h->mu);
	return rc;
}

int
bwc_set(bwc_t *h, const char *key, const char *value)
{
	struct bwp_writer	 w;
	struct bwp_msg		 m;
	uint64_t		 id;
	int			 rc;

	if (key == NULL || strlen(key) > BWP_MAX_KEY || value == NULL ||
	    strlen(value) > BWP_MAX_VALUE)
		return fail(h, -EINVAL, "bad key or value");
	pthread_mutex_lock(&h->mu);
	id = request(h, &w, BWP_OP_SET);
	bwp_w_kstr(&w, "key", key);
	bwp_w_key(&w, "value");
	cvalue_write(&w, value);
	rc = call(h, &w, id, NULL, 0, &m);
	bwp_w_free(&w);
	bwp_msg_free(&m);
	pthread_mutex_unlock(&h->mu);
	return rc;
}

/* ---- GPU partitioning ---------------------------------------------- */

int
bwc_partition(bwc_t *h, struct bwc_partition *out)
{
	uint32_t	task = __atomic_load_n(&h->task_id, __ATOMIC_ACQUIRE);
	int		rc;

	/* -ENOENT sets no message: the CUDA layer asks at every launch */
	if (task == 0)
		return -ENOENT;
	rc = bwcgpu_plan_get(&h->plan, task, out);
	if (rc < 0 && rc != -ENOENT)
		return fail(h, rc, "the plan page is being rewritten");
	return rc;
}

/* A GPU op with one or two uint keys; the reply's "schedulable" in *ok. */
static int
gpu_call(bwc_t *h, enum bwp_op op, const char *k1, uint64_t v1,
    const char *k2, uint64_t v2, bool *ok)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		id;
	int			rc;

	pthread_mutex_lock(&h->mu);
	id = request(h, &w, op);
	bwp_w_kuint(&w, k1, v1);
	if (k2 != NULL)
		bwp_w_kuint(&w, k2, v2);
	rc = call(h, &w, id, NULL, 0, &m);
	bwp_w_free(&w);
	if (rc == 0 && ok != NULL && bwp_get_bool(&m, NULL, "schedulable",
	    true, ok) != 1)
		rc = fail(h, -EPROTO, "%s reply: %s", bwp_op_name(op), m.err);
	bwp_msg_free(&m);
	pthread_mutex_unlock(&h->mu);
	return rc;
}

int
bwc_gpu_device(bwc_t *h, uint32_t sms, uint32_t granule)
{
	if (sms == 0 || granule == 0 || granule > sms)
		return fail(h, -EINVAL, "bad device: %u SMs in groups of %u",
		    sms, granule);
	return gpu_call(h, BWP_OP_GPU_DEVICE, "sms", sms, "granule", granule,
	    NULL);
}

int
bwc_gpu_granted(bwc_t *h, uint32_t sms)
{
	bool	ok = false;
	int	rc;

	if (sms == 0)
		return fail(h, -EINVAL, "no SMs granted");
	rc = gpu_call(h, BWP_OP_GPU_GRANTED, "sms", sms, NULL, 0, &ok);
	return rc < 0 ? rc : ok;
}
