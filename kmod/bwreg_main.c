// SPDX-License-Identifier: GPL-2.0
/*
 * bwreg_main.c - the bwreg module: parameters, /dev/bwreg (ioctls and the
 * shared budget page), debugfs, load and unload.
 *
 * Permission: the ioctls that change regulation (config, stop, rho, lock
 * slots) need /dev/bwreg opened for writing, and the node's mode decides
 * who may (0600 root: the daemon, doc/kmod.md); reading version, stats
 * and slots needs only an open descriptor.  No capability is checked, so
 * a daemon without CAP_SYS_ADMIN (the shipped systemd unit) drives it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "bwreg.h"

#define BWREG_VERSION_STR	"0.1"

#if defined(CONFIG_ARM64)
#define BWREG_DEF_TYPE		PERF_TYPE_RAW
#define BWREG_DEF_CONFIG	0x17	/* ARMv8 L2D_CACHE_REFILL */
#else
#define BWREG_DEF_TYPE		PERF_TYPE_HARDWARE
#define BWREG_DEF_CONFIG	PERF_COUNT_HW_CACHE_MISSES
#endif

static unsigned long cpus;
module_param(cpus, ulong, 0444);
MODULE_PARM_DESC(cpus, "CPU mask to regulate at load (default 0: wait for the daemon)");

static unsigned int period_us = 1000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "Regulation period in microseconds (default 1000)");

static unsigned int event_type = BWREG_DEF_TYPE;
module_param(event_type, uint, 0444);
MODULE_PARM_DESC(event_type, "perf event type (x86: 0 hardware; arm64: 4 raw)");

static unsigned long long event_config = BWREG_DEF_CONFIG;
module_param(event_config, ullong, 0444);
MODULE_PARM_DESC(event_config, "perf event config (x86: 3 LLC misses; arm64: 0x17 L2D_CACHE_REFILL)");

static unsigned long long static_events = BWREG_UNLIMITED;
module_param(static_events, ullong, 0444);
MODULE_PARM_DESC(static_events, "Static per-CPU budget at load (default unlimited)");

static unsigned long long failsafe_events = BWREG_UNLIMITED;
module_param(failsafe_events, ullong, 0444);
MODULE_PARM_DESC(failsafe_events, "Per-CPU budget when the daemon's heartbeat stops (default unlimited)");

static unsigned int heartbeat_ms = 100;
module_param(heartbeat_ms, uint, 0444);
MODULE_PARM_DESC(heartbeat_ms, "Heartbeat timeout in ms, 0 = off (default 100)");

static bool tfs_nice = true;
module_param(tfs_nice, bool, 0444);
MODULE_PARM_DESC(tfs_nice, "Enforce TFS with a nice penalty on throttled tasks (default on)");

static unsigned int rho_milli = 1000;
module_param(rho_milli, uint, 0444);
MODULE_PARM_DESC(rho_milli, "TFS factor rho * 1000 (default 1000)");

struct bwreg_conf bwreg_conf;
struct bwreg_page *bwreg_page;
static DEFINE_MUTEX(bwreg_lock);

static int bwreg_check_config(const struct bwreg_config *c)
{
	unsigned int i;
	u64 possible = 0;

	if (c->version != BWREG_UAPI_VERSION || c->size != sizeof(*c))
		return -EPROTO;
	for (i = 0; i < ARRAY_SIZE(c->reserved); i++)
		if (c->reserved[i])
			return -EINVAL;
	if (c->pad || (c->flags & ~BWREG_CFG_ALL))
		return -EINVAL;
	if (!c->cpumask)
		return 0;
	if (c->period_ns < BWREG_MIN_PERIOD_NS ||
	    c->period_ns > BWREG_MAX_PERIOD_NS)
		return -EINVAL;
	if (c->rho_milli > BWREG_MAX_RHO_MILLI)
		return -EINVAL;
	if (c->heartbeat_timeout_ns &&
	    (c->heartbeat_timeout_ns < c->period_ns ||
	     c->heartbeat_timeout_ns > 60ULL * NSEC_PER_SEC))
		return -EINVAL;
	for (i = 0; i < BWREG_MAX_CPUS && i < nr_cpu_ids; i++)
		if (cpu_possible(i))
			possible |= BIT_ULL(i);
	if (c->cpumask & ~possible)
		return -EINVAL;
	return 0;
}

/* Reset the page for a new configuration; no CPU is running. */
static void bwreg_reset_page(const struct bwreg_config *c)
{
	struct bwreg_page *pg = bwreg_page;
	unsigned int i;

	WRITE_ONCE(pg->period_ns, c->period_ns);
	WRITE_ONCE(pg->base_ns, bwreg_conf.base_ns);
	WRITE_ONCE(pg->period, 0);
	WRITE_ONCE(pg->next_boundary_ns, bwreg_conf.base_ns + c->period_ns);
	WRITE_ONCE(pg->cpumask, c->cpumask);
	WRITE_ONCE(pg->failsafe, 0);
	WRITE_ONCE(pg->config_gen, pg->config_gen + 1);
	WRITE_ONCE(pg->plan_id, 0);
	WRITE_ONCE(pg->lock_held, 0);
	for (i = 0; i < BWREG_MAX_CPUS; i++)
		WRITE_ONCE(pg->static_events[i], c->static_events);
	/* The daemon writes a slot's budget before creating its file. */
	for (i = 0; i < BWREG_MAX_LOCKS; i++)
		WRITE_ONCE(pg->lock_static[i], BWREG_UNLIMITED);
	memset(pg->stats, 0, sizeof(pg->stats));
	/* Plans were made for the old configuration (seq 0, id 0: empty). */
	memset(pg->plan, 0, sizeof(pg->plan));
}

static int bwreg_apply_config(const struct bwreg_config *c)
{
	int ret = bwreg_check_config(c);

	if (ret)
		return ret;
	mutex_lock(&bwreg_lock);
	bwreg_core_stop();
	bwreg_lock_reset();
	if (!c->cpumask) {
		WRITE_ONCE(bwreg_page->cpumask, 0);
		mutex_unlock(&bwreg_lock);
		pr_info("regulation stopped\n");
		return 0;
	}
	bwreg_conf.period_ns = c->period_ns;
	bwreg_conf.cpumask = c->cpumask;
	if (c->flags & BWREG_CFG_MODULE_EVENT) {
		bwreg_conf.event_type = event_type;
		bwreg_conf.event_config = event_config;
	} else {
		bwreg_conf.event_type = c->event_type;
		bwreg_conf.event_config = c->event_config;
	}
	bwreg_conf.rho_milli = c->rho_milli;
	bwreg_conf.flags = c->flags;
	bwreg_conf.failsafe_events = c->failsafe_events;
	bwreg_conf.hb_timeout_ns = c->heartbeat_timeout_ns;
	bwreg_conf.base_ns = ktime_get_ns();
	bwreg_reset_page(c);
	ret = bwreg_core_start();
	if (ret)
		WRITE_ONCE(bwreg_page->cpumask, 0);
	mutex_unlock(&bwreg_lock);
	if (!ret)
		pr_info("regulating CPUs 0x%llx: period %llu ns, event %u:0x%llx, rho %u.%03u, TFS %s\n",
			c->cpumask, c->period_ns, bwreg_conf.event_type,
			bwreg_conf.event_config, c->rho_milli / 1000,
			c->rho_milli % 1000,
			c->flags & BWREG_CFG_TFS_NICE ? "nice penalty" :
			"accounted only");
	return ret;
}

static long bwreg_ioctl_version(void __user *arg)
{
	struct bwreg_version v = {
		.uapi		= BWREG_UAPI_VERSION,
		.max_cpus	= BWREG_MAX_CPUS,
		.map_size	= BWREG_MAP_SIZE,
		.nr_cpu_ids	= nr_cpu_ids,
		.running	= bwreg_core_running(),
		.plan_max	= BWREG_PLAN_MAX,
		.max_locks	= BWREG_MAX_LOCKS,
	};

	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static long bwreg_ioctl_config(void __user *arg)
{
	struct bwreg_config c;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	return bwreg_apply_config(&c);
}

static long bwreg_ioctl_stats(void __user *arg)
{
	struct bwreg_stats *st;
	long ret = 0;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->version = BWREG_UAPI_VERSION;
	mutex_lock(&bwreg_lock);
	bwreg_core_stats(st);
	mutex_unlock(&bwreg_lock);
	if (copy_to_user(arg, st, sizeof(*st)))
		ret = -EFAULT;
	kfree(st);
	return ret;
}

static long bwreg_ioctl_set_rho(void __user *arg)
{
	u32 rho;

	if (copy_from_user(&rho, arg, sizeof(rho)))
		return -EFAULT;
	if (rho > BWREG_MAX_RHO_MILLI)
		return -EINVAL;
	/* Read by the timers once per period; a torn read is impossible. */
	WRITE_ONCE(bwreg_conf.rho_milli, rho);
	return 0;
}

/* The ioctls that change regulation need the device open for writing. */
static long bwreg_ioctl_write(unsigned int cmd, void __user *uarg)
{
	struct bwreg_config stop = {
		.version = BWREG_UAPI_VERSION,
		.size = sizeof(stop),
	};
	long ret;

	switch (cmd) {
	case BWREG_IOC_CONFIG:
		return bwreg_ioctl_config(uarg);
	case BWREG_IOC_STOP:
		return bwreg_apply_config(&stop);
	case BWREG_IOC_SET_RHO:
		return bwreg_ioctl_set_rho(uarg);
	case BWREG_IOC_LOCK_FD:
		mutex_lock(&bwreg_lock);
		ret = bwreg_lock_fd(uarg);
		mutex_unlock(&bwreg_lock);
		return ret;
	case BWREG_IOC_LOCK_REVOKE:
		mutex_lock(&bwreg_lock);
		ret = bwreg_lock_revoke(uarg);
		mutex_unlock(&bwreg_lock);
		return ret;
	default:
		return -ENOTTY;
	}
}

static long bwreg_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case BWREG_IOC_VERSION:
		return bwreg_ioctl_version(uarg);
	case BWREG_IOC_STATS:
		return bwreg_ioctl_stats(uarg);
	case BWREG_IOC_LOCKS:
		return bwreg_lock_list(uarg);
	case BWREG_IOC_CONFIG:
	case BWREG_IOC_STOP:
	case BWREG_IOC_SET_RHO:
	case BWREG_IOC_LOCK_FD:
	case BWREG_IOC_LOCK_REVOKE:
		if (!(f->f_mode & FMODE_WRITE))
			return -EPERM;
		return bwreg_ioctl_write(cmd, uarg);
	default:
		return -ENOTTY;
	}
}

static int bwreg_mmap(struct file *f, struct vm_area_struct *vma)
{
	/*
	 * One shared view of the page: private copies would be ignored.
	 * VM_MAYSHARE, not VM_SHARED: a read-only descriptor may map it
	 * read-only (the kernel clears VM_SHARED for those).
	 */
	if (vma->vm_pgoff || !(vma->vm_flags & VM_MAYSHARE) ||
	    vma->vm_end - vma->vm_start > PAGE_ALIGN(BWREG_MAP_SIZE))
		return -EINVAL;
	return remap_vmalloc_range(vma, bwreg_page, 0);
}

/*
 * Lock edges: each open file remembers the kick count it has read up to
 * (in private_data, which misc_open() preset to the device); poll()
 * says readable while kicks are newer, read() returns how many (a u64)
 * and catches up.
 */
static int bwreg_open(struct inode *inode, struct file *f)
{
	f->private_data = (void *)bwreg_lock_edges();
	return 0;
}

static __poll_t bwreg_poll(struct file *f, poll_table *wait)
{
	poll_wait(f, &bwreg_edge_wq, wait);
	return bwreg_lock_edges() != (unsigned long)f->private_data ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

static ssize_t bwreg_read(struct file *f, char __user *buf, size_t len,
			  loff_t *off)
{
	unsigned long now, seen = (unsigned long)f->private_data;
	u64 n;

	if (len < sizeof(n))
		return -EINVAL;
	while ((now = bwreg_lock_edges()) == seen) {
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(bwreg_edge_wq,
					     bwreg_lock_edges() != seen))
			return -ERESTARTSYS;
	}
	n = now - seen;
	if (copy_to_user(buf, &n, sizeof(n)))
		return -EFAULT;
	f->private_data = (void *)now;
	return sizeof(n);
}

static const struct file_operations bwreg_fops = {
	.owner		= THIS_MODULE,
	.open		= bwreg_open,
	.read		= bwreg_read,
	.poll		= bwreg_poll,
	.unlocked_ioctl	= bwreg_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= bwreg_mmap,
	.llseek		= noop_llseek,
};

static struct miscdevice bwreg_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "bwreg",
	.fops	= &bwreg_fops,
	.mode	= 0600,
};

/*
 * debugfs bwreg/throttle_latency: per regulated CPU, the time from a
 * counter overflow to the throttle thread holding the CPU (what a
 * hardware NMI, the irq_work and the wake-up cost), with quantiles from
 * a log-linear histogram (upper bounds, resolution 25 %).
 */
static struct dentry *bwreg_debugfs;

static u64 bwreg_lat_quantile(const u32 *bucket, u64 count, unsigned int pct)
{
	u64 want = div_u64(count * pct + 99, 100), seen = 0;
	unsigned int b;

	for (b = 0; b < BWREG_LAT_BUCKETS; b++) {
		seen += bucket[b];
		if (seen >= want)
			return b + 1 < BWREG_LAT_BUCKETS ?
			       bwreg_lat_floor(b + 1) : U64_MAX;
	}
	return 0;
}

static int bwreg_lat_show(struct seq_file *m, void *v)
{
	u32 *bucket = kmalloc_array(BWREG_LAT_BUCKETS, sizeof(u32),
				    GFP_KERNEL);
	u64 count, sum, max;
	unsigned int cpu;

	if (!bucket)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		if (!bwreg_core_lat(cpu, &count, &sum, &max, bucket) || !count)
			continue;
		seq_printf(m, "cpu %u: %llu throttles, mean %llu ns, p50 <= %llu ns, p99 <= %llu ns, max %llu ns\n",
			   cpu, count, div64_u64(sum, count),
			   bwreg_lat_quantile(bucket, count, 50),
			   bwreg_lat_quantile(bucket, count, 99), max);
	}
	kfree(bucket);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bwreg_lat);

static int bwreg_load_config(void)
{
	struct bwreg_config c = {
		.version		= BWREG_UAPI_VERSION,
		.size			= sizeof(c),
		.period_ns		= (u64)period_us * NSEC_PER_USEC,
		.cpumask		= cpus,
		.event_type		= event_type,
		.event_config		= event_config,
		.rho_milli		= rho_milli,
		.flags			= tfs_nice ? BWREG_CFG_TFS_NICE : 0,
		.static_events		= static_events,
		.failsafe_events	= failsafe_events,
		.heartbeat_timeout_ns	= (u64)heartbeat_ms * NSEC_PER_MSEC,
	};

	if (!cpus)
		return 0;
	return bwreg_apply_config(&c);
}

static int __init bwreg_init(void)
{
	int ret;

	/* The layout is ABI: checked at compile time. */
	BUILD_BUG_ON(sizeof(struct bwreg_page) != BWREG_MAP_SIZE);
	BUILD_BUG_ON(offsetof(struct bwreg_page, stats) != 4096);
	BUILD_BUG_ON(offsetof(struct bwreg_page, plan) !=
		     4096 + 128 * BWREG_MAX_CPUS);
	BUILD_BUG_ON(sizeof(struct bwreg_plan) != BWREG_PLAN_SIZE);
	BUILD_BUG_ON(sizeof(struct bwreg_config) != 96);
	BUILD_BUG_ON(sizeof(struct bwreg_cpu_stats) != 128);
	BUILD_BUG_ON(sizeof(struct bwreg_lock) != 64);
	BUILD_BUG_ON(sizeof(struct bwreg_lock_fd) != 16);

	bwreg_page = vmalloc_user(PAGE_ALIGN(BWREG_MAP_SIZE));
	if (!bwreg_page)
		return -ENOMEM;
	bwreg_page->magic = BWREG_MAGIC;
	bwreg_page->version = BWREG_UAPI_VERSION;
	bwreg_page->max_cpus = BWREG_MAX_CPUS;
	ret = bwreg_core_init();
	if (ret)
		goto free_page;
	ret = bwreg_load_config();
	if (ret) {
		pr_err("cannot start with the module parameters: %d\n", ret);
		goto core_exit;
	}
	ret = misc_register(&bwreg_dev);
	if (ret)
		goto core_exit;
	bwreg_debugfs = debugfs_create_dir("bwreg", NULL);
	debugfs_create_file("throttle_latency", 0400, bwreg_debugfs, NULL,
			    &bwreg_lat_fops);
	pr_info("version %s loaded (uapi %d, fair class %s)\n",
		BWREG_VERSION_STR, BWREG_UAPI_VERSION, BWREG_FAIR_CLASS);
	return 0;

core_exit:
	bwreg_core_exit();
	bwreg_lock_reset();
free_page:
	vfree(bwreg_page);
	return ret;
}

static void __exit bwreg_exit(void)
{
	debugfs_remove(bwreg_debugfs);
	misc_deregister(&bwreg_dev);
	mutex_lock(&bwreg_lock);
	bwreg_core_exit();
	bwreg_lock_reset();
	mutex_unlock(&bwreg_lock);
	vfree(bwreg_page);
	pr_info("unloaded\n");
}

module_init(bwreg_init);
module_exit(bwreg_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bwsched per-core memory-bandwidth regulator with TFS");
MODULE_VERSION(BWREG_VERSION_STR);
