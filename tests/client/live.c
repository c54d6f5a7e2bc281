/*
 * live.c - libbwclient against the real daemon: registration, the lock
 * through the task page as the daemon sees it (bwctl --json tasks),
 * kernels, launches, get/set, the BWC_NO_SHM socket path, and reconnect
 * with re-registration after the daemon is killed and started again.
 *
 * usage: live BWSCHED BWCTL TMPDIR
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwsched/bwclient.h"
#include "bwsched/bwshm.h"
#include "profile.h"
#include "../check.h"

static const char	*bwsched, *bwctl, *tmp;
static char		 sock[256], conf[256], logpath[256];
static pid_t		 dpid = -1;

static void
msleep(int ms)
{
	struct timespec	ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void
start_daemon(void)
{
	bwc_t	*h;
	int	 i;

	dpid = fork();
	if (dpid == 0) {
		if (freopen(logpath, "a", stderr) == NULL)
			_exit(127);
		execl(bwsched, bwsched, "-f", "--regulator=sim", "-c", conf,
		    "-s", sock, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200; i++) {
		h = bwc_open(sock, "probe", BWC_NO_RECONNECT);
		if (h != NULL) {
			bwc_close(h);
			return;
		}
		msleep(25);
	}
	fprintf(stderr, "daemon did not start\n");
	exit(1);
}

static int
stop_daemon(int sig)
{
	int	st = -1;

	if (dpid > 0) {
		kill(dpid, sig);
		waitpid(dpid, &st, 0);
		dpid = -1;
	}
	return st;
}

/* Output of bwctl --json ARGS (static buffer). */
static const char *
ctl(const char *args)
{
	static char	out[65536];
	char		cmd[1024];
	size_t		n;
	FILE		*f;

	snprintf(cmd, sizeof(cmd), "'%s' -s '%s' --json %s", bwctl, sock,
	    args);
	f = popen(cmd, "r");
	if (f == NULL)
		return "";
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	pclose(f);
	return out;
}

/*
 * The JSON text of key in the flat object of bwctl --json tasks whose
 * name is task, or NULL when that task is not listed.
 */
static const char *
task_field(const char *task, const char *key)
{
	static char	val[64];
	const char	*json = ctl("tasks"), *p, *start, *end;
	char		pat[128];
	size_t		n;

	snprintf(pat, sizeof(pat), "\"name\":\"%s\"", task);
	p = strstr(json, pat);
	if (p == NULL)
		return NULL;
	for (start = p; start > json && *start != '{'; start--)
		;
	end = strchr(p, '}');
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(start, pat);
	if (p == NULL || end == NULL || p > end)
		return NULL;
	p += strlen(pat);
	n = strcspn(p, ",}");
	snprintf(val, sizeof(val), "%.*s", (int)n, p);
	return val;
}

static int
is(const char *v, const char *want)
{
	return v != NULL && strcmp(v, want) == 0;
}

static const struct bwc_cluster clusters[] = { { 1000, 2000 }, { 3000, 9000 } };
static const struct bwc_interval intervals[] = { { 0, 0 }, { 2048, 1 } };

static void
test_kernels(bwc_t *h, int *kp)
{
	struct bwc_interval	bad[] = { { 1, 0 }, { 2048, 1 } };
	struct bwc_kernel_info	info;
	struct bwc_kernel_desc	d = { "lk", 4096, 64, 2, clusters, 2,
				      intervals, 0, 0 };
	uint64_t		*bm;
	int			 k, s;

	k = bwc_kernel_register(h, &d, &info);
	CHECK(k >= 0 && info.kernel == k);
	CHECK(info.wcet0_ns > 0 && info.wcet_ns >= info.wcet0_ns);
	CHECK(info.q_nominal > 0 && info.q_nominal <= 1);
	CHECK(bwc_kernel_register(h, &d, NULL) == -EEXIST);
	d.name = "bad";
	d.intervals = bad;
	CHECK(bwc_kernel_register(h, &d, NULL) == -EINVAL);
	CHECK(strstr(bwc_strerror(h), "BADARG") != NULL);
	d.nclusters = 0;
	CHECK(bwc_kernel_register(h, &d, NULL) == -EINVAL);
	CHECK(strstr(ctl("kernels"), "\"name\":\"lk\"") != NULL);
	CHECK(strstr(ctl("kernels"), "\"name\":\"bad\"") == NULL);

	s = bwc_launch(h, k, 5, &bm);
	CHECK(s == 0 && bm != NULL);
	CHECK(is(task_field("livetask", "locked"), "true"));
	CHECK(bwc_launch(h, k, 6, NULL) == 1);
	CHECK(bwc_launch(h, k, 6, NULL) == -ENOSPC);	/* 2 slots */
	CHECK(bwc_launch(h, 99, 6, NULL) == -EINVAL);
	CHECK(bwc_launch_done(h, 0) == 0 && bwc_launch_done(h, 1) == 0);
	CHECK(bwc_launch_done(h, 1) == -EINVAL);
	CHECK(bwc_stream_sync(h, 5) == 0);
	CHECK(is(task_field("livetask", "locked"), "true"));	/* stream 6 */
	CHECK(bwc_device_sync(h) == 0);
	CHECK(is(task_field("livetask", "locked"), "false"));
	*kp = k;
}

/* A .bwk written by the model's own formatter, then registered. */
static void
test_profile_file(bwc_t *h)
{
	struct bwc_kernel_info	info;
	struct profile		p;
	char			path[300], buf[4096];
	FILE			*f;
	int			n, k;

	memset(&p, 0, sizeof(p));
	strcpy(p.name, "fromfile");
	p.blocks = 1000;
	p.concurrency = 16;
	p.period_ns = PROFILE_DEFAULT_PERIOD;
	p.nclusters = 2;
	p.e0[0] = 1500;
	p.e1[0] = 3000;
	p.e0[1] = 2000;
	p.e1[1] = 7000;
	p.nintervals = 2;
	p.first[1] = 500;
	p.cluster[1] = 1;
	n = profile_format(&p, buf, sizeof(buf));
	CHECK(n > 0);
	snprintf(path, sizeof(path), "%s/k.bwk", tmp);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f == NULL || n <= 0)
		return;
	fwrite(buf, 1, (size_t)n, f);
	fclose(f);
	k = bwc_kernel_register_file(h, path, &info);
	CHECK(k >= 0 && info.wcet_ns >= info.wcet0_ns && info.wcet0_ns > 0);
	CHECK(strstr(ctl("kernels"), "\"name\":\"fromfile\"") != NULL);
	f = fopen(path, "w");
	if (f != NULL) {
		fputs("this is not a profile\n", f);
		fclose(f);
	}
	CHECK(bwc_kernel_register_file(h, path, NULL) == -EINVAL);
	CHECK(strstr(bwc_strerror(h), "line 1") != NULL);
	snprintf(path, sizeof(path), "%s/missing.bwk", tmp);
	CHECK(bwc_kernel_register_file(h, path, NULL) == -ENOENT);
}

/* A counter of bwctl status, or -1. */
static long long
status_uint(const char *key)
{
	const char	*p = strstr(ctl("status"), key);

	if (p == NULL || p[strlen(key)] != '"' || p[strlen(key) + 1] != ':')
		return -1;
	return strtoll(p + strlen(key) + 2, NULL, 10);
}

static void
test_page_lock(bwc_t *h)
{
	long long	edges = status_uint("lock_edges_seen");

	CHECK(is(task_field("livetask", "locked"), "false"));
	CHECK(is(task_field("livetask", "pages"), "3"));
	CHECK(bwc_lock(h) == 0 && bwc_lock(h) == 0);
	CHECK(is(task_field("livetask", "locked"), "true"));
	/* the kick woke the daemon's loop (nested: one edge) */
	CHECK(edges >= 0 && status_uint("lock_edges_seen") == edges + 1);
	CHECK(bwc_unlock(h) == 0);
	CHECK(is(task_field("livetask", "locked"), "true"));
	CHECK(bwc_unlock(h) == 0);
	CHECK(is(task_field("livetask", "locked"), "false"));
	CHECK(bwc_unlock(h) == -ENOLCK);
	CHECK(bwc_stream_active(h, 0) == 0);
	CHECK(is(task_field("livetask", "locked"), "true"));
	CHECK(is(task_field("livetask", "streams"), "1"));
	CHECK(bwc_stream_sync(h, 0) == 0);
	CHECK(is(task_field("livetask", "locked"), "false"));
	CHECK(bwc_memcpy_begin(h) == 0);
	CHECK(is(task_field("livetask", "locked"), "true"));
	CHECK(bwc_memcpy_end(h) == 0);
	CHECK(bwc_memcpy_end(h) == -ENOLCK);
	CHECK(is(task_field("livetask", "locked"), "false"));
}

static void
test_get_set(bwc_t *h)
{
	char	buf[64], tiny[2];

	CHECK(bwc_get(h, "policy", buf, sizeof(buf)) == 7);
	CHECK(strcmp(buf, "nominal") == 0);
	CHECK(bwc_get(h, "no_such_key", buf, sizeof(buf)) == -ENOENT);
	CHECK(bwc_get(h, "policy", tiny, sizeof(tiny)) == -ERANGE);
	if (geteuid() == 0) {
		CHECK(bwc_set(h, "rho", "2") == 0);
		CHECK(bwc_get(h, "rho", buf, sizeof(buf)) > 0);
		CHECK(strtod(buf, NULL) == 2.0);
		CHECK(bwc_set(h, "policy", "greedy") == 0);
		CHECK(bwc_get(h, "policy", buf, sizeof(buf)) == 6);
		CHECK(bwc_set(h, "policy", "nominal") == 0);
		CHECK(bwc_set(h, "period_ns", "5") == -EINVAL);
		CHECK(bwc_set(h, "rho", "-1") == -EINVAL);
	} else {
		CHECK(bwc_set(h, "rho", "2") == -EPERM);
	}
}

static void
test_reconnect(bwc_t *h)
{
	char	buf[64];
	int	i, rc = -1;

	CHECK(bwc_lock(h) == 0);
	CHECK(is(task_field("livetask", "locked"), "true"));
	stop_daemon(SIGKILL);
	/* slow calls fail, the hot path keeps working */
	CHECK(bwc_get(h, "policy", buf, sizeof(buf)) == -ENOTCONN);
	CHECK(bwc_unlock(h) == 0 && bwc_lock(h) == 0);
	start_daemon();
	for (i = 0; i < 300 && rc != 7; i++) {
		rc = bwc_get(h, "policy", buf, sizeof(buf));
		if (rc != 7)
			msleep(20);
	}
	CHECK(rc == 7);
	CHECK(bwc_fd(h) >= 0);
	/* same task, same page: still locked; the kernel is back */
	CHECK(is(task_field("livetask", "locked"), "true"));
	CHECK(is(task_field("livetask", "kernels"), "2"));
	CHECK(strstr(ctl("kernels"), "\"name\":\"lk\"") != NULL);
	CHECK(bwc_unlock(h) == 0);
	CHECK(is(task_field("livetask", "locked"), "false"));
	CHECK(bwc_launch(h, 0, 9, NULL) == 0);
	CHECK(is(task_field("livetask", "locked"), "true"));
	CHECK(bwc_launch_done(h, 0) == 0 && bwc_stream_sync(h, 9) == 0);
}

/*
 * GPU partitioning (doc/partition.md) on the 4 SMs of the test
 * configuration: admission, the plan page behind bwc_partition, a
 * refusal, a kernel demand from a .bwk file, granted sizes, and the
 * plan of a restarted daemon.
 */
static void
test_gpu(void)
{
	struct bwc_task_params	p = { "gpuA", 100000, 10, 0, 0 };
	struct bwc_gpu_demand	ga = { 100000, 0, 0, 0, 0, 0, 0 }, g;
	struct bwc_partition	pa, pc;
	char			path[300];
	bwc_t			*a, *c, *e;
	FILE			*f;
	int			 i, rc = -1;

	a = bwc_open(sock, "gpuA", 0);
	c = bwc_open(sock, "gpuC", BWC_NO_RECONNECT);
	e = bwc_open(sock, "gpuE", BWC_NO_RECONNECT);
	CHECK(a != NULL && c != NULL && e != NULL);
	if (a == NULL || c == NULL || e == NULL)
		return;
	CHECK(bwc_partition(a, &pa) == -ENOENT);
	g = ga;
	g.k = 0.5;
	CHECK(bwc_task_register_gpu(a, &p, &g) == -EINVAL);
	CHECK(bwc_task_register_gpu(a, &p, &ga) == 0);
	CHECK(bwc_partition(a, &pa) == 0 && pa.sm_first == 0 &&
	    pa.sms == 2 && pa.sms_total == 4 && pa.granule == 1);
	/* C (compute, half of A) joins A's partition, in conflict */
	g = ga;
	g.a_ns = 50000;
	p.name = "gpuC";
	CHECK(bwc_task_register_gpu(c, &p, &g) == 0);
	CHECK(bwc_partition(c, &pc) == 0 && pc.sm_first == 0 &&
	    pc.plan > pa.plan);
	CHECK(bwc_partition(a, &pa) == 0 && pa.plan == pc.plan);
	/* E (memory, 10 SMs' worth) cannot fit: refused, not registered */
	g.a_ns = 1000000;
	g.memory = 1;
	p.name = "gpuE";
	CHECK(bwc_task_register_gpu(e, &p, &g) == -ENOSPC);
	CHECK(strstr(bwc_strerror(e), "no room for gpuE") != NULL);
	CHECK(task_field("gpuE", "name") == NULL);
	CHECK(bwc_gpu_granted(e, 2) == -ENOENT);
	/* a kernel's demand from its profile joins A's partition */
	snprintf(path, sizeof(path), "%s/gk.bwk", tmp);
	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "bwk 1\nkernel gk\nblocks 10\nconcurrency 2\n"
		    "cluster 0 e0=10 e1=20\ninterval 0 0\n"
		    "gpu a_ns=1000 class=ci period_ns=200000\n");
		fclose(f);
	}
	CHECK(bwc_kernel_register_file(a, path, NULL) >= 0);
	CHECK(strstr(ctl("partitions"), "\"kernel\":\"gk\"") != NULL);
	/* granted sizes */
	CHECK(bwc_gpu_granted(a, 2) == 1);
	CHECK(bwc_gpu_granted(a, 1) == 0);
	CHECK(bwc_gpu_granted(a, 2) == 1);
	CHECK(bwc_gpu_device(a, 4, 5) == -EINVAL);
	/* a restarted daemon: A registers again and maps the new page */
	bwc_close(c);
	bwc_close(e);
	stop_daemon(SIGKILL);
	start_daemon();
	/* wait for the task and its kernel to be registered again */
	for (i = 0; i < 300 && strstr(ctl("partitions"), "\"gk\"") == NULL;
	    i++)
		msleep(20);
	rc = bwc_partition(a, &pa);
	/* from the new daemon's page: its plan number, not the old one */
	snprintf(path, sizeof(path), "\"plan\":%llu,",
	    (unsigned long long)pa.plan);
	CHECK(rc == 0 && pa.sm_first == 0 && pa.sms == 2);
	CHECK(strstr(ctl("partitions"), path) != NULL);
	bwc_close(a);
}

static void
test_no_shm(void)
{
	struct bwc_task_params	p = { "noshm", 2000000, 20, 0, 0 };
	bwc_t			*h;

	h = bwc_open(sock, "noshm", BWC_NO_SHM | BWC_NO_RECONNECT);
	CHECK(h != NULL);
	if (h == NULL)
		return;
	CHECK(bwc_lock(h) == -ENOENT);		/* no task yet */
	p.progress_slots = 1;
	CHECK(bwc_task_register(h, &p) == -EINVAL);
	p.progress_slots = 0;
	CHECK(bwc_task_register(h, &p) == 0);
	CHECK(is(task_field("noshm", "pages"), "0"));
	CHECK(bwc_lock(h) == 0);
	CHECK(is(task_field("noshm", "locked"), "true"));
	CHECK(bwc_unlock(h) == 0);
	CHECK(is(task_field("noshm", "locked"), "false"));
	CHECK(bwc_unlock(h) == -ENOLCK);
	CHECK(bwc_stream_active(h, 3) == 0 && bwc_stream_active(h, 4) == 0);
	CHECK(is(task_field("noshm", "locked"), "true"));
	CHECK(bwc_stream_sync(h, 3) == 0);
	CHECK(is(task_field("noshm", "locked"), "true"));
	CHECK(bwc_device_sync(h) == 0);
	CHECK(is(task_field("noshm", "locked"), "false"));
	CHECK(bwc_memcpy_begin(h) == 0);
	CHECK(is(task_field("noshm", "locked"), "true"));
	CHECK(bwc_memcpy_end(h) == 0);
	CHECK(bwc_memcpy_end(h) == -ENOLCK);
	CHECK(bwc_progress_page(h, NULL) == NULL);
	bwc_close(h);
	CHECK(task_field("noshm", "name") == NULL);	/* gone with the socket */
}

int
main(int argc, char **argv)
{
	struct bwc_task_params	p = { "livetask", 1000000, 10, 2, 4096 };
	struct bwc_kernel_desc	d = { "early", 10, 1, 2, clusters, 2,
				      intervals, 0, 0 };
	size_t			sz;
	bwc_t			*h;
	FILE			*f;
	int			 k = -1, st;

	if (argc != 4) {
		fprintf(stderr, "usage: live BWSCHED BWCTL TMPDIR\n");
		return 2;
	}
	bwsched = argv[1];
	bwctl = argv[2];
	tmp = argv[3];
	snprintf(sock, sizeof(sock), "%s/sock", tmp);
	snprintf(conf, sizeof(conf), "%s/bwsched.conf", tmp);
	snprintf(logpath, sizeof(logpath), "%s/log", tmp);
	f = fopen(conf, "w");
	if (f == NULL)
		return 1;
	fprintf(f, "group =\nlog_level = debug\ngpu_sms = 4\n");
	fclose(f);
	signal(SIGPIPE, SIG_IGN);

	errno = 0;
	CHECK(bwc_open(sock, "x", 0) == NULL && errno != 0);
	start_daemon();
	CHECK(bwc_open(sock, "x", 0x100) == NULL && errno == EINVAL);
	h = bwc_open(sock, "live", 0);
	CHECK(h != NULL);
	if (h == NULL)
		goto out;
	CHECK(bwc_fd(h) >= 0);
	CHECK(strcmp(bwc_strerror(h), "no error") == 0);
	CHECK(bwc_kernel_register(h, &d, NULL) == -ENOENT);
	CHECK(strstr(bwc_strerror(h), "no task") != NULL);
	p.priority = 0;
	CHECK(bwc_task_register(h, &p) == -EINVAL);
	p.priority = 10;
	CHECK(bwc_task_register(h, &p) == 0);
	CHECK(bwc_task_register(h, &p) == -EEXIST);
	CHECK(bwc_progress_page(h, &sz) != NULL &&
	    sz == BWSHM_PROGRESS_SIZE(2, 4096));

	test_page_lock(h);
	test_kernels(h, &k);
	test_profile_file(h);
	test_get_set(h);
	test_no_shm();
	test_gpu();
	test_reconnect(h);

	CHECK(bwc_task_unregister(h) == 0);
	CHECK(task_field("livetask", "name") == NULL);
	CHECK(bwc_task_unregister(h) == -ENOENT);
	CHECK(bwc_lock(h) == -ENOENT);		/* socket path: no task */
	bwc_close(h);
out:
	st = stop_daemon(SIGTERM);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (failures > 0) {
		fprintf(stderr, "%d failures; daemon log:\n", failures);
		if (system("tail -n 20 \"$LIVE_LOG\" >&2") != 0)
			fprintf(stderr, "(no log)\n");
		return 1;
	}
	printf("ok\n");
	return 0;
}
