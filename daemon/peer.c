/*
 * peer.c - client connections (see peer.h).
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "peer.h"
#include "wire.h"

/*
 * The peer's supplementary groups as the kernel saw them at connect()
 * (SO_PEERGROUPS): /proc/PID/status read after accept() races with the
 * pid being reused.  Failure leaves none: the primary group still counts.
 */
static void
take_groups(struct peer *p)
{
	socklen_t	len = 64 * sizeof(gid_t);
	gid_t		*g = malloc(len);

	if (g != NULL && getsockopt(p->fd, SOL_SOCKET, SO_PEERGROUPS, g,
	    &len) < 0) {
		free(g);
		g = NULL;
		/* ERANGE: len now says how much room they need */
		if (errno == ERANGE && (g = malloc(len)) != NULL &&
		    getsockopt(p->fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
			free(g);
			g = NULL;
		}
	}
	if (g == NULL) {
		log_msg(LOG_L_WARNING, "client %u: its groups are unknown (%s): "
		    "only its primary group counts", p->id, strerror(errno));
		return;
	}
	p->groups = g;
	p->ngroups = (unsigned int)(len / sizeof(gid_t));
}

bool
peer_admin(const struct peer *p)
{
	const struct bwsched	*d = p->d;
	unsigned int		i;

	if (p->uid == 0)
		return true;
	if (!d->have_admin_gid)
		return false;
	if (p->gid == d->admin_gid)
		return true;
	for (i = 0; i < p->ngroups; i++)
		if (p->groups[i] == d->admin_gid)
			return true;
	return false;
}

static void	peer_read_cb(struct ev_loop *, ev_io *, int);
static void	peer_write_cb(struct ev_loop *, ev_io *, int);

struct peer *
peer_new(struct bwsched *d, int fd)
{
	struct ucred	cr;
	socklen_t	len = sizeof(cr);
	struct peer	*p;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    (p = calloc(1, sizeof(*p))) == NULL) {
		log_msg(LOG_L_WARNING, "cannot take a connection: %s",
		    strerror(errno));
		close(fd);
		return NULL;
	}
	p->d = d;
	p->fd = fd;
	p->id = ++d->next_client;
	p->pid = cr.pid;
	p->uid = cr.uid;
	p->gid = cr.gid;
	take_groups(p);
	p->qtail = &p->qhead;
	p->tokens = (double)d->cfg.max_msgs_per_sec;
	p->refill = ev_now(d->loop);
	ev_io_init(&p->rio, peer_read_cb, fd, EV_READ);
	ev_io_init(&p->wio, peer_write_cb, fd, EV_WRITE);
	p->rio.data = p->wio.data = p;
	ev_io_start(d->loop, &p->rio);
	p->next = d->peers;
	if (d->peers != NULL)
		d->peers->prev = p;
	d->peers = p;
	d->npeers++;
	log_msg(LOG_L_DEBUG, "client %u connected: pid %d uid %d%s", p->id,
	    (int)p->pid, (int)p->uid, peer_admin(p) ? " (admin)" : "");
	return p;
}

static void
outbuf_free(struct outbuf *o)
{
	int	i;

	for (i = 0; i < o->nfds; i++)
		close(o->fds[i]);
	free(o);
}

void
peer_free(struct peer *p)
{
	struct bwsched	*d = p->d;
	struct outbuf	*o, *n;

	ev_io_stop(d->loop, &p->rio);
	ev_io_stop(d->loop, &p->wio);
	if (p->task != NULL) {
		log_task(LOG_L_INFO, p->task->id, p->pid, "task \"%s\" gone",
		    p->task->name);
		tasks_unregister(d->tasks, p->task);
		p->task = NULL;
	}
	for (o = p->qhead; o != NULL; o = n) {
		n = o->next;
		outbuf_free(o);
	}
	close(p->fd);
	if (p->prev != NULL)
		p->prev->next = p->next;
	else
		d->peers = p->next;
	if (p->next != NULL)
		p->next->prev = p->prev;
	d->npeers--;
	free(p->groups);
	free(p);
}

/* A client hanging up is routine: logged at debug, other ends at info. */
static void
kill_at(struct peer *p, int level, const char *why)
{
	if (p->dead)
		return;
	p->dead = true;
	ev_io_stop(p->d->loop, &p->rio);
	ev_io_stop(p->d->loop, &p->wio);
	ev_prepare_start(p->d->loop, &p->d->reaper);	/* frees it */
	/* SHUT_RD: a hung-up process loses its lock even before the reaper */
	shutdown(p->fd, SHUT_RDWR);
	log_msg(level, "client %u (pid %d) closed: %s", p->id, (int)p->pid,
	    why);
}

void
peer_kill(struct peer *p, const char *why)
{
	kill_at(p, LOG_L_INFO, why);
}

static int
enqueue(struct peer *p, const void *buf, size_t len, const int *fds,
    int nfds)
{
	struct outbuf	*o;
	int		i;

	if (p->qbytes + len > p->d->cfg.max_output_bytes) {
		peer_kill(p, "slow reader: output queue over max_output_bytes");
		return -1;
	}
	if ((o = malloc(sizeof(*o) + len)) == NULL) {
		peer_kill(p, "out of memory");
		return -1;
	}
	o->next = NULL;
	o->len = len;
	o->nfds = 0;
	for (i = 0; i < nfds && i < BWP_MAX_FDS; i++) {
		if ((o->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 0)) < 0) {
			outbuf_free(o);
			peer_kill(p, "cannot keep a descriptor to send");
			return -1;
		}
		o->nfds++;
	}
	memcpy(o->data, buf, len);
	*p->qtail = o;
	p->qtail = &o->next;
	p->qbytes += len;
	ev_io_start(p->d->loop, &p->wio);
	return 0;
}

void
peer_send_fds(struct peer *p, const void *buf, size_t len, const int *fds,
    int nfds)
{
	int	r;

	if (p->dead)
		return;
	if (p->qhead == NULL) {
		r = bwp_wire_send(p->fd, buf, len, fds, nfds, MSG_DONTWAIT);
		if (r == 0)
			return;
		if (r != -EAGAIN) {
			peer_kill(p, strerror(-r));
			return;
		}
	}
	enqueue(p, buf, len, fds, nfds);
}

void
peer_send(struct peer *p, const void *buf, size_t len)
{
	peer_send_fds(p, buf, len, NULL, 0);
}

static void
peer_write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct peer	*p = w->data;
	struct outbuf	*o;
	int		r;

	while ((o = p->qhead) != NULL) {
		r = bwp_wire_send(p->fd, o->data, o->len, o->fds, o->nfds,
		    MSG_DONTWAIT);
		if (r == -EAGAIN)
			return;
		if (r < 0) {
			peer_kill(p, strerror(-r));
			return;
		}
		p->qhead = o->next;
		p->qbytes -= o->len;
		outbuf_free(o);
	}
	p->qtail = &p->qhead;
	ev_io_stop(loop, w);
}

/*
 * Token bucket: max_msgs_per_sec per second, burst of one second.  Time
 * is the loop's, read once per wake-up rather than once per message; it
 * follows the wall clock, so a clock stepped back refills nothing.
 */
static bool
rate_ok(struct peer *p)
{
	double	rate = (double)p->d->cfg.max_msgs_per_sec;
	double	now = ev_now(p->d->loop);

	if (now > p->refill)
		p->tokens += (now - p->refill) * rate;
	p->refill = now;
	if (p->tokens > rate)
		p->tokens = rate;
	if (p->tokens < 1)
		return false;
	p->tokens -= 1;
	return true;
}

static void
peer_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct peer	*p = w->data;
	struct bwp_recv	rv;
	int		r;

	/*
	 * One datagram per wake-up: the loop is level-triggered, so a
	 * client with more queued comes straight back, others get their
	 * turn in between, and a lone request/reply client is not charged
	 * a second recvmsg that can only say EAGAIN.
	 */
	if (p->dead)
		return;
	r = bwp_wire_recv(p->fd, p->d->rbuf, BWP_RECV_BUF, &rv, MSG_DONTWAIT);
	if (r == -EAGAIN || r == -EWOULDBLOCK)
		return;
	if (r <= 0) {
		if (r == 0)
			kill_at(p, LOG_L_DEBUG, "hung up");
		else
			peer_kill(p, strerror(-r));
		tasks_update(p->d->tasks);
		return;
	}
	if (rate_ok(p)) {
		p->rate_in_row = 0;
		p->d->requests.dispatch(p, &rv);
	} else {
		p->d->requests.reject_rate(p, &rv);
		if (++p->rate_in_row > p->d->cfg.max_msgs_per_sec)
			peer_kill(p, "persistent flooding over "
			    "max_msgs_per_sec");
	}
	bwp_wire_close_fds(&rv);
	tasks_update(p->d->tasks);
}
