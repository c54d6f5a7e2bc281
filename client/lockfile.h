/*
 * lockfile.h - the application side of a lock slot (regulator.h in the
 * daemon; doc/protocol.md, lock.files): the page the regulator reads the
 * task's lock word and launch count from, and the kick that makes it
 * enforce the task's static budget at once.
 *
 * What bwc_lock() and a launch get from it: when lockfile_sync() returns
 * 0 after the task's page says it holds the lock, the regulator already
 * limits the best-effort cores to at most the task's static budget for
 * the rest of the current period (less what they used in it), and keeps
 * doing so until a plan that accounts for this launch takes over.  The
 * system call is paid only on the idle -> held edge and on a launch while
 * the regulator runs a budget above the task's static one (dyn).
 */
#ifndef LOCKFILE_H
#define LOCKFILE_H

#include <pthread.h>
#include <stdint.h>

#include "bwreg.h"
#include "cpage.h"

enum lockfile_kind {
	LOCKFILE_KMOD = 1,	/* the module's lock file: mmap + ioctl */
	LOCKFILE_SIM = 2,	/* a memfd page + a kick socket */
};

struct lockfile {
	enum lockfile_kind	 kind;
	int			 fd;	/* kmod: the lock file, else -1 */
	int			 kick;	/* sim: the kick socket, else -1 */
	struct bwreg_lock	*page;
	pthread_mutex_t		 mu;	/* the edge: one thread kicks */
	int			 enforced; /* atomic: held and enforced */
	int			 dead;	/* atomic: the regulator went away */
	uint64_t		 kicks;	/* atomic */
	uint64_t		 failures; /* atomic: kicks not confirmed */
};

/*
 * Take the files of a lock.files reply (kind "kmod" or "sim"); they are
 * owned from then on (closed on failure too).  Returns 0 or -errno.
 */
int	lockfile_open(struct lockfile *, const char *kind, const int *fds,
	    int nfds);
void	lockfile_close(struct lockfile *);

/*
 * After a change of the task page t: mirror whether the task holds the
 * lock into the slot, and kick when the regulator must act now.  launch:
 * a kernel or copy is about to start (its progress slot, if any, is
 * already written).  Returns 0, or -ETIMEDOUT (or another -errno) when
 * a regulator that is still there did not confirm the kick; the lock then
 * acts at the daemon's next page poll.  A regulator that has gone away
 * (its socket closed) makes the files inert and is not an error.
 */
int	lockfile_sync(struct lockfile *, const struct cpage_task *t,
	    int launch);

#endif /* LOCKFILE_H */
