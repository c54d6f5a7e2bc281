/*
 * lockslot.h - tasks' lock slots in the regulator (regulator.h): the
 * files an application uses to have its bandwidth lock enforced by the
 * regulator itself, at once, on the idle -> held edge (doc/design.md,
 * "Lock semantics"), and the registry's hook that keeps each slot's
 * static budget equal to its task's Q-bar.
 */
#ifndef LOCKSLOT_H
#define LOCKSLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regulator.h"

struct bwsched;
struct task;

/*
 * lock.files: the task's slot (allocated on first use) and fresh files
 * for it, which revoke the ones handed out before.  Returns a status;
 * err explains failures.  The caller sends and then closes lf->fds.
 */
int	lockslot_files(struct bwsched *, struct task *,
	    struct reg_lock_files *lf, unsigned int *slot, char *err,
	    size_t errlen);

/* tasks_hooks.slot: a slot's static budget changed or it closes. */
void	lockslot_hook(void *arg, unsigned int slot, uint64_t events,
	    bool close);

/* The wire name of a lock-file kind ("kmod", "sim"). */
const char *lockslot_kind_name(enum reg_lock_kind);

#endif /* LOCKSLOT_H */
