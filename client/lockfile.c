/*
 * lockfile.c - the application side of a lock slot (see lockfile.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lockfile.h"
#include "monoclock.h"

#define LOCKFILE_PAGE		4096
#define LOCKFILE_KICK_MS	100	/* a sim regulator slower than this
					 * has not confirmed */

static void
lockfile_reset(struct lockfile *l)
{
	memset(l, 0, sizeof(*l));
	l->fd = l->kick = -1;
}

int
lockfile_open(struct lockfile *l, const char *kind, const int *fds, int nfds)
{
	struct timeval	tv = { 0, LOCKFILE_KICK_MS * 1000 };
	void		*m;
	int		i, e;

	lockfile_reset(l);
	if (strcmp(kind, "kmod") == 0 && nfds == 1) {
		l->kind = LOCKFILE_KMOD;
		l->fd = fds[0];
	} else if (strcmp(kind, "sim") == 0 && nfds == 2) {
		l->kind = LOCKFILE_SIM;
		l->kick = fds[1];
		if (setsockopt(l->kick, SOL_SOCKET, SO_RCVTIMEO, &tv,
		    sizeof(tv)) < 0)
			goto fail;
	} else {
		errno = EPROTO;
		goto fail;
	}
	m = mmap(NULL, LOCKFILE_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fds[0], 0);
	if (m == MAP_FAILED)
		goto fail;
	l->page = m;
	/* the mapping keeps a memfd page; a module lock file stays open */
	if (l->kind == LOCKFILE_SIM)
		close(fds[0]);
	pthread_mutex_init(&l->mu, NULL);
	return 0;
fail:
	e = errno;
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	lockfile_reset(l);
	return -e;
}

void
lockfile_close(struct lockfile *l)
{
	if (l->page == NULL)
		return;
	munmap(l->page, LOCKFILE_PAGE);
	if (l->fd >= 0)
		close(l->fd);
	if (l->kick >= 0)
		close(l->kick);
	pthread_mutex_destroy(&l->mu);
	lockfile_reset(l);
}

/* The sim regulator's kick: our time out, one byte back when done. */
static int
lockfile_kick_sim(struct lockfile *l)
{
	uint64_t	t;
	uint8_t		ack;
	ssize_t		n;

	/* answers to kicks that timed out earlier would pair up wrong */
	while (recv(l->kick, &ack, 1, MSG_DONTWAIT) > 0)
		;
	t = monoclock_ns();
	if (send(l->kick, &t, sizeof(t), MSG_NOSIGNAL) != (ssize_t)sizeof(t))
		return -errno;
	do
		n = recv(l->kick, &ack, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		return 0;
	return n == 0 ? -ECONNRESET : -(errno == EAGAIN ? ETIMEDOUT : errno);
}

static int
lockfile_kick(struct lockfile *l)
{
	int	rc;

	__atomic_fetch_add(&l->kicks, 1, __ATOMIC_RELAXED);
	if (l->kind == LOCKFILE_KMOD) {
		do
			rc = ioctl(l->fd, BWREG_LOCK_IOC_KICK) < 0 ? -errno : 0;
		while (rc == -EINTR);
	} else
		rc = lockfile_kick_sim(l);
	if (rc < 0)
		__atomic_fetch_add(&l->failures, 1, __ATOMIC_RELAXED);
	return rc;
}

/* The slow path, under mu: the page decides, fresh. */
static int
lockfile_edge(struct lockfile *l, const struct cpage_task *t, int launch)
{
	int	held, rc = 0;

	pthread_mutex_lock(&l->mu);
	held = cpage_locked(t);
	if (__atomic_load_n(&l->dead, __ATOMIC_ACQUIRE)) {
		rc = 0;		/* the regulator is gone: nothing to tell */
	} else if (!held) {
		__atomic_store_n(&l->enforced, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&l->page->held, 0, __ATOMIC_RELEASE);
	} else if (!__atomic_load_n(&l->enforced, __ATOMIC_ACQUIRE) ||
	    (launch && __atomic_load_n(&l->page->dyn, __ATOMIC_SEQ_CST))) {
		__atomic_store_n(&l->page->held, 1, __ATOMIC_RELEASE);
		rc = lockfile_kick(l);
		__atomic_store_n(&l->enforced, rc == 0, __ATOMIC_RELEASE);
		/*
		 * A regulator that has gone away (the daemon died with
		 * its sim backend) or revoked the files (ESTALE: a new
		 * daemon configured the module) has nothing to enforce with
		 * them: until new files come with the next registration the
		 * lock acts through the task page.
		 */
		if (rc == -EPIPE || rc == -ECONNRESET || rc == -ENOTCONN ||
		    rc == -EBADF || rc == -ENODEV || rc == -ESTALE) {
			__atomic_store_n(&l->dead, 1, __ATOMIC_RELEASE);
			rc = 0;
		}
	}
	pthread_mutex_unlock(&l->mu);
	return rc;
}

int
lockfile_sync(struct lockfile *l, const struct cpage_task *t, int launch)
{
	int	held = cpage_locked(t);

	if (l->page == NULL || __atomic_load_n(&l->dead, __ATOMIC_ACQUIRE))
		return 0;
	/*
	 * After the progress slot: a plan that read the count before this
	 * bump did not see the launch, so the regulator caps it.  The bump,
	 * a full fence, then dyn: the regulator stores dyn, fences, then
	 * reads the counts (kmod/uapi/bwreg.h), so one of the two sees the
	 * other and a launch under a dynamic budget always kicks.
	 */
	if (held && launch) {
		__atomic_fetch_add(&l->page->launches, 1, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	if (held && __atomic_load_n(&l->enforced, __ATOMIC_ACQUIRE) &&
	    !(launch && __atomic_load_n(&l->page->dyn, __ATOMIC_SEQ_CST)))
		return 0;
	if (!held && !__atomic_load_n(&l->page->held, __ATOMIC_ACQUIRE))
		return 0;
	return lockfile_edge(l, t, launch);
}
