/*
 * lockslot.c - tasks' lock slots in the regulator (see lockslot.h).
 */
#include <config.h>
#include <stdio.h>
#include <unistd.h>

#include "bwproto.h"
#include "bwsched.h"
#include "lockslot.h"
#include "log.h"
#include "tasks.h"

const char *
lockslot_kind_name(enum reg_lock_kind k)
{
	switch (k) {
	case REG_LOCK_KMOD:
		return "kmod";
	case REG_LOCK_SIM:
		return "sim";
	default:
		return "none";
	}
}

int
lockslot_files(struct bwsched *d, struct task *t, struct reg_lock_files *lf,
    unsigned int *slot, char *err, size_t errlen)
{
	uint64_t	events;
	int		s;

	if (d->reg_ops->lock_open == NULL) {
		snprintf(err, errlen, "the %s regulator has no lock slots: the "
		    "lock acts at the daemon's next page poll",
		    d->reg_ops->name);
		return BWP_E_NOENT;
	}
	if ((s = tasks_lock_slot(d->tasks, t, &events)) < 0) {
		snprintf(err, errlen, "all %d lock slots are in use",
		    REG_MAX_LOCKS);
		return BWP_E_LIMIT;
	}
	if (d->reg_ops->lock_open(d->reg, (unsigned int)s, events, lf, err,
	    errlen) < 0)
		return BWP_E_INTERNAL;
	*slot = (unsigned int)s;
	log_task(LOG_L_DEBUG, t->id, t->pid, "lock slot %d: %s files, static "
	    "budget %llu events per core", s, lockslot_kind_name(lf->kind),
	    (unsigned long long)events);
	return BWP_OK;
}

void
lockslot_hook(void *arg, unsigned int slot, uint64_t events, bool close)
{
	struct bwsched	*d = arg;
	const uint64_t	*st;
	unsigned int	n;

	if (d->reg_ops->lock_open == NULL)
		return;
	if (!close) {
		if (d->reg_ops->lock_static(d->reg, slot, events) < 0)
			log_msg(LOG_L_ERR, "regulator %s refused lock slot "
			    "%u's budget", d->reg_ops->name, slot);
		return;
	}
	(void)d->reg_ops->lock_close(d->reg, slot);
	/*
	 * A plan may still account for the slot with a launch count a
	 * new owner could repeat: withdraw the plans (the static budget
	 * set again does that); the engine decides anew next period.
	 */
	st = tasks_static_budget(d->tasks, &n);
	if (n > 0)
		(void)d->reg_ops->set_static(d->reg, st, n,
		    tasks_generation(d->tasks));
}
