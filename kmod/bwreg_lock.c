// SPDX-License-Identifier: GPL-2.0
/*
 * bwreg_lock.c - lock slots (kmod/uapi/bwreg.h): the lock files the daemon
 * hands to applications, and the kick that enforces a slot's static
 * budget at once, before the application's next kernel starts.
 *
 * A slot points to its current lock file under bwreg_dec_lock, which the
 * deciding timer also holds while it reads the file's page, so revoking a
 * slot (pointer cleared under the lock, reference dropped after) never
 * frees a page the timer is reading.  A revoked file stays valid memory
 * for its holders until the last close and unmap.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "bwreg.h"

struct bwreg_lock_stats bwreg_lock_st;
static u64 bwreg_kick_seq;		/* under bwreg_dec_lock */

static void bwreg_lockf_free(struct kref *ref)
{
	struct bwreg_lockf *lf = container_of(ref, struct bwreg_lockf, ref);

	vfree(lf->pg);
	kfree(lf);
}

static void bwreg_lockf_put(struct bwreg_lockf *lf)
{
	if (lf)
		kref_put(&lf->ref, bwreg_lockf_free);
}

/* Make lf the slot's current file, or revoke the slot (lf NULL). */
static void bwreg_slot_set(u32 slot, struct bwreg_lockf *lf)
{
	struct bwreg_lockf *old;
	unsigned long flags;

	if (lf)
		kref_get(&lf->ref);
	raw_spin_lock_irqsave(&bwreg_dec_lock, flags);
	old = bwreg_slots[slot];
	bwreg_slots[slot] = lf;
	raw_spin_unlock_irqrestore(&bwreg_dec_lock, flags);
	bwreg_lockf_put(old);
}

/* Revoke lf's slot if lf is still its current file. */
static void bwreg_slot_drop(struct bwreg_lockf *lf)
{
	struct bwreg_lockf *old = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&bwreg_dec_lock, flags);
	if (bwreg_slots[lf->slot] == lf) {
		old = lf;
		bwreg_slots[lf->slot] = NULL;
	}
	raw_spin_unlock_irqrestore(&bwreg_dec_lock, flags);
	bwreg_lockf_put(old);
}

/* Wait for the throttle threads at most this long (jiffies). */
static long bwreg_kick_timeout(void)
{
	unsigned long j = nsecs_to_jiffies(10 * bwreg_conf.period_ns);

	return (long)clamp_t(unsigned long, j, msecs_to_jiffies(50), HZ);
}

DECLARE_WAIT_QUEUE_HEAD(bwreg_edge_wq);
static atomic_long_t bwreg_edge_count = ATOMIC_LONG_INIT(0);

unsigned long bwreg_lock_edges(void)
{
	return (unsigned long)atomic_long_read(&bwreg_edge_count);
}

static void bwreg_kick_account(struct bwreg_lockf *lf, u64 ns, bool lowered,
			       bool done, u64 p0)
{
	struct bwreg_lock_stats *st = &bwreg_lock_st;
	unsigned long flags;

	raw_spin_lock_irqsave(&bwreg_dec_lock, flags);
	st->kicks++;
	if (lowered)
		st->kick_lowered++;
	st->kick_ns_last = ns;
	st->kick_ns_max = max(st->kick_ns_max, ns);
	st->kick_ns_sum += ns;
	WRITE_ONCE(lf->pg->kicks, lf->pg->kicks + 1);
	/* No later decision raised anything: every CPU is at most the cap. */
	if (done && bwreg_slots[lf->slot] == lf && bwreg_dec.period == p0)
		WRITE_ONCE(lf->pg->dyn, 0);
	raw_spin_unlock_irqrestore(&bwreg_dec_lock, flags);
}

/*
 * BWREG_LOCK_IOC_KICK: lower every regulated CPU's budget for the rest of
 * the current period to the slot's static budget less what it used, and
 * return once every CPU's thread has re-armed its counter (or throttled
 * it).  Taking bwreg_dec_lock after the caller stored held and launches
 * makes every later decision see them; the current decision's cap is
 * lowered too, for CPUs whose timer has not reached its period yet.
 */
static long bwreg_lock_kick(struct bwreg_lockf *lf)
{
	u64 t0 = ktime_get_ns(), seq = 0, mask = 0, p0, cap, ack = 0, ns;
	bool lowered = false;
	unsigned long flags;
	long ret = 0, left;

	raw_spin_lock_irqsave(&bwreg_dec_lock, flags);
	if (bwreg_slots[lf->slot] != lf) {
		raw_spin_unlock_irqrestore(&bwreg_dec_lock, flags);
		return -ESTALE;
	}
	cap = READ_ONCE(bwreg_page->lock_static[lf->slot]);
	p0 = bwreg_dec.period;
	if (cap < BWREG_MAX_BUDGET) {
		bwreg_dec.cap = min(bwreg_dec.cap, cap);
		seq = ++bwreg_kick_seq;
		mask = bwreg_core_kick(cap, seq);
	}
	raw_spin_unlock_irqrestore(&bwreg_dec_lock, flags);
	if (mask) {
		left = wait_event_killable_timeout(bwreg_kick_wq,
				bwreg_core_kick_done(seq, mask, &lowered, &ack),
				bwreg_kick_timeout());
		if (left == 0)
			ret = -ETIMEDOUT;
		else if (left < 0)
			ret = -EINTR;
	}
	/* to the last CPU's acknowledgement, not to the caller's wake-up */
	ns = ret == 0 && ack > t0 ? ack - t0 : ktime_get_ns() - t0;
	bwreg_kick_account(lf, ns, lowered, ret == 0, p0);
	/*
	 * Tell the daemon a task took the lock, so it reads the task pages
	 * now rather than at its next poll; after the CPUs, which come
	 * first.
	 */
	atomic_long_inc(&bwreg_edge_count);
	wake_up_interruptible(&bwreg_edge_wq);
	return ret;
}

static long bwreg_lockf_ioctl(struct file *f, unsigned int cmd,
			      unsigned long arg)
{
	if (cmd != BWREG_LOCK_IOC_KICK)
		return -ENOTTY;
	return bwreg_lock_kick(f->private_data);
}

/* Exactly one page at offset 0, shared: a private copy would be ignored. */
static int bwreg_lockf_mmap(struct file *f, struct vm_area_struct *vma)
{
	struct bwreg_lockf *lf = f->private_data;

	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE ||
	    !(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	return remap_vmalloc_range(vma, lf->pg, 0);
}

/* Nobody can hold a lock whose file nobody has: revoke, then free. */
static int bwreg_lockf_release(struct inode *inode, struct file *f)
{
	struct bwreg_lockf *lf = f->private_data;

	bwreg_slot_drop(lf);
	bwreg_lockf_put(lf);
	return 0;
}

static const struct file_operations bwreg_lockf_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= bwreg_lockf_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= bwreg_lockf_mmap,
	.release	= bwreg_lockf_release,
	.llseek		= noop_llseek,
};

static struct bwreg_lockf *bwreg_lockf_new(u32 slot)
{
	struct bwreg_lockf *lf = kzalloc(sizeof(*lf), GFP_KERNEL);

	if (!lf)
		return NULL;
	lf->pg = vmalloc_user(PAGE_SIZE);
	if (!lf->pg) {
		kfree(lf);
		return NULL;
	}
	kref_init(&lf->ref);
	lf->slot = slot;
	return lf;
}

/* BWREG_IOC_LOCK_FD (config mutex held). */
long bwreg_lock_fd(void __user *arg)
{
	struct bwreg_lock_fd a;
	struct bwreg_lockf *lf;
	struct file *f;
	int fd;

	BUILD_BUG_ON(sizeof(struct bwreg_lock) > PAGE_SIZE);
	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.slot >= BWREG_MAX_LOCKS || a.flags || a.pad)
		return -EINVAL;
	lf = bwreg_lockf_new(a.slot);
	if (!lf)
		return -ENOMEM;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		bwreg_lockf_put(lf);
		return fd;
	}
	f = anon_inode_getfile("[bwreg-lock]", &bwreg_lockf_fops, lf, O_RDWR);
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		bwreg_lockf_put(lf);
		return PTR_ERR(f);
	}
	a.fd = fd;
	if (copy_to_user(arg, &a, sizeof(a))) {
		put_unused_fd(fd);
		fput(f);	/* releases lf */
		return -EFAULT;
	}
	bwreg_slot_set(a.slot, lf);
	fd_install(fd, f);
	return 0;
}

/* BWREG_IOC_LOCK_REVOKE (config mutex held); revoking an empty slot is ok. */
long bwreg_lock_revoke(void __user *arg)
{
	u32 slot;

	if (copy_from_user(&slot, arg, sizeof(slot)))
		return -EFAULT;
	if (slot >= BWREG_MAX_LOCKS)
		return -EINVAL;
	bwreg_slot_set(slot, NULL);
	return 0;
}

/* BWREG_IOC_LOCKS */
long bwreg_lock_list(void __user *arg)
{
	struct bwreg_locks *l = kzalloc(sizeof(*l), GFP_KERNEL);
	unsigned long flags;
	unsigned int s;
	long ret = 0;

	if (!l)
		return -ENOMEM;
	raw_spin_lock_irqsave(&bwreg_dec_lock, flags);
	for (s = 0; s < BWREG_MAX_LOCKS; s++) {
		struct bwreg_lockf *lf = bwreg_slots[s];

		if (!lf)
			continue;
		l->valid |= BIT_ULL(s);
		if (READ_ONCE(lf->pg->held))
			l->held |= BIT_ULL(s);
		l->launches[s] = READ_ONCE(lf->pg->launches);
	}
	raw_spin_unlock_irqrestore(&bwreg_dec_lock, flags);
	if (copy_to_user(arg, l, sizeof(*l)))
		ret = -EFAULT;
	kfree(l);
	return ret;
}

/* A configuration or unload: revoke every slot, zero the lock stats. */
void bwreg_lock_reset(void)
{
	unsigned long flags;
	unsigned int s;

	for (s = 0; s < BWREG_MAX_LOCKS; s++)
		bwreg_slot_set(s, NULL);
	raw_spin_lock_irqsave(&bwreg_dec_lock, flags);
	memset(&bwreg_lock_st, 0, sizeof(bwreg_lock_st));
	raw_spin_unlock_irqrestore(&bwreg_dec_lock, flags);
}
