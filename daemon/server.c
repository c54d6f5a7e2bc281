/*
 * server.c - listening socket, accept, reaper, events (see server.h).
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "msg.h"
#include "peer.h"
#include "sd.h"
#include "server.h"
#include "validate.h"

/* Create the runtime directory (0750, socket group) if it is missing. */
static int
make_dir(const struct bwsched *d, const char *path, char *err, size_t errlen)
{
	char	copy[CONFIG_MAX_PATH], *dir;

	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (mkdir(dir, 0750) < 0) {
		if (errno == EEXIST)
			return 0;
		snprintf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (d->have_sock_gid && chown(dir, (uid_t)-1, d->sock_gid) < 0)
		log_msg(LOG_L_WARNING, "chown %s: %s", dir, strerror(errno));
	return 0;
}

/*
 * One daemon per socket path.  A lock file beside the socket settles two
 * daemons starting at once; a connect() settles a socket somebody else
 * listens on without that lock (systemd's activated socket, an older
 * daemon).  Refused or missing: a stale socket, ours to replace.
 */
static int
claim_path(struct bwsched *d, const struct sockaddr_un *sa, char *err,
    size_t errlen)
{
	char	lock[sizeof(sa->sun_path) + 8];
	int	fd;

	snprintf(lock, sizeof(lock), "%s.lock", sa->sun_path);
	d->sock_lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (d->sock_lock_fd < 0) {
		snprintf(err, errlen, "%s: %s", lock, strerror(errno));
		return -1;
	}
	if (flock(d->sock_lock_fd, LOCK_EX | LOCK_NB) < 0) {
		snprintf(err, errlen, "%s: another bwsched serves this socket "
		    "(%s)", sa->sun_path, strerror(errno));
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 ||
	    errno == EAGAIN || errno == EINPROGRESS) {
		close(fd);
		snprintf(err, errlen, "%s: something is listening on it "
		    "already (another bwsched?)", sa->sun_path);
		return -1;
	}
	close(fd);
	return 0;
}

static int
own_socket(struct bwsched *d, const char *path, char *err, size_t errlen)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	mode_t			old;
	int			fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return -1;
	}
	if (make_dir(d, path, err, errlen) < 0)
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (claim_path(d, &sa, err, errlen) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	/* a stale socket from a crashed run (claim_path) */
	unlink(path);
	old = umask(0117);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 64) < 0) {
		umask(old);
		snprintf(err, errlen, "bind %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	umask(old);
	chmod(path, 0660);
	if (d->have_sock_gid && chown(path, (uid_t)-1, d->sock_gid) < 0)
		log_msg(LOG_L_WARNING, "chown %s: %s", path, strerror(errno));
	snprintf(d->socket_path, sizeof(d->socket_path), "%s", path);
	d->own_socket = true;
	return fd;
}

static void
accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct bwsched	*d = w->data;
	int		fd, i;

	for (i = 0; i < 16; i++) {
		fd = accept4(d->listen_fd, NULL, NULL,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				log_msg(LOG_L_WARNING, "accept: %s",
				    strerror(errno));
			return;
		}
		if (d->npeers >= d->cfg.max_clients) {
			/* no reply: the client sees the close at once */
			log_msg(LOG_L_WARNING, "refused a client: max_clients "
			    "(%llu) reached",
			    (unsigned long long)d->cfg.max_clients);
			d->clients_refused++;
			close(fd);
			continue;
		}
		peer_new(d, fd);
	}
}

static void
reaper_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct bwsched	*d = w->data;
	struct peer	*p, *n;

	for (p = d->peers; p != NULL; p = n) {
		n = p->next;
		if (p->dead)
			peer_free(p);
	}
	/* peer_kill() starts it again: no walk over every peer per loop */
	ev_prepare_stop(loop, w);
}

int
server_open(struct bwsched *d, char *err, size_t errlen)
{
	const char	*path;
	int		fd;

	fd = sd_activation_socket(err, errlen);
	if (fd == -2)
		return -1;
	if (fd >= 0) {
		d->activated = true;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	} else {
		path = d->socket_override ? d->socket_override : d->cfg.socket;
		if ((fd = own_socket(d, path, err, errlen)) < 0)
			return -1;
	}
	d->listen_fd = fd;
	ev_io_init(&d->accept_w, accept_cb, fd, EV_READ);
	d->accept_w.data = d;
	ev_io_start(d->loop, &d->accept_w);
	ev_prepare_init(&d->reaper, reaper_cb);
	d->reaper.data = d;
	return 0;
}

void
server_close(struct bwsched *d)
{
	while (d->peers != NULL)
		peer_free(d->peers);
	ev_io_stop(d->loop, &d->accept_w);
	ev_prepare_stop(d->loop, &d->reaper);
	if (d->listen_fd >= 0)
		close(d->listen_fd);
	d->listen_fd = -1;
	if (d->own_socket)
		unlink(d->socket_path);
	/* the lock file stays: removing it would let a third daemon lock
	 * a new file while a second still holds the old one */
	if (d->sock_lock_fd >= 0)
		close(d->sock_lock_fd);
	d->sock_lock_fd = -1;
}

void
server_broadcast(struct bwsched *d, unsigned int topic, struct bwp_writer *w)
{
	struct peer	*p;
	const void	*buf;
	size_t		len;

	buf = bwp_w_finish(w, &len);
	if (buf == NULL)
		return;
	for (p = d->peers; p != NULL; p = p->next)
		if ((p->topics & topic) && !p->dead)
			peer_send(p, buf, len);
}

bool
server_anyone(const struct bwsched *d, unsigned int topic)
{
	const struct peer	*p;

	for (p = d->peers; p != NULL; p = p->next)
		if ((p->topics & topic) && !p->dead)
			return true;
	return false;
}

void
server_event_lock(void *arg, const struct task *t, bool locked)
{
	struct bwsched		*d = arg;
	struct bwp_writer	w;

	log_task(LOG_L_DEBUG, t->id, t->pid, "task \"%s\" %s the lock",
	    t->name, locked ? "takes" : "releases");
	if (!server_anyone(d, TOPIC_LOCK))
		return;
	bwp_w_init(&w);
	bwp_w_kstr(&w, BWP_K_EVENT, "lock");
	bwp_w_kuint(&w, "task", t->id);
	bwp_w_kbool(&w, "locked", locked);
	bwp_w_kuint(&w, "ts_ns", bwsched_now());
	server_broadcast(d, TOPIC_LOCK, &w);
	bwp_w_free(&w);
}

void
server_event_kernel(void *arg, const struct task *t, const struct kernel *k,
    uint64_t launch, const char *what, uint64_t ts_ns)
{
	struct bwsched		*d = arg;
	struct bwp_writer	w;

	if (!server_anyone(d, TOPIC_KERNEL))
		return;
	bwp_w_init(&w);
	bwp_w_kstr(&w, BWP_K_EVENT, "kernel");
	bwp_w_kuint(&w, "task", t->id);
	bwp_w_kuint(&w, "kernel", k->id);
	bwp_w_kuint(&w, "launch", launch);
	bwp_w_kstr(&w, "what", what);
	bwp_w_kuint(&w, "ts_ns", ts_ns);
	bwp_w_kstr(&w, "name", k->name);
	server_broadcast(d, TOPIC_KERNEL, &w);
	bwp_w_free(&w);
}

void
server_event_log(void *arg, int level, const char *msg)
{
	struct bwsched		*d = arg;
	struct bwp_writer	w;

	if (!server_anyone(d, TOPIC_LOG))
		return;
	bwp_w_init(&w);
	bwp_w_kstr(&w, BWP_K_EVENT, "log");
	bwp_w_kuint(&w, "level", (uint64_t)level);
	bwp_w_kstr(&w, "msg", msg);
	bwp_w_kuint(&w, "ts_ns", bwsched_now());
	server_broadcast(d, TOPIC_LOG, &w);
	bwp_w_free(&w);
}
