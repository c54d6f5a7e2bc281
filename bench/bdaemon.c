/*
 * bdaemon.c - shared helpers of the client benchmarks (see bdaemon.h).
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwsched/bwclient.h"
#include "bdaemon.h"
#include "monoclock.h"

const char *
bd_path(const char *arg)
{
	static char	buf[512];
	const char	*top = getenv("top_builddir");

	if (arg != NULL)
		return arg;
	if (top != NULL) {
		snprintf(buf, sizeof(buf), "%s/daemon/bwsched", top);
		return buf;
	}
	return "./daemon/bwsched";
}

int
bd_start(struct bdaemon *d, const char *bwsched)
{
	char	conf[300];
	bwc_t	*h;
	FILE	*f;
	int	 i;

	snprintf(d->dir, sizeof(d->dir), "%s/bwbench.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(d->dir) == NULL)
		return -1;
	snprintf(d->sock, sizeof(d->sock), "%s/sock", d->dir);
	snprintf(conf, sizeof(conf), "%s/bwsched.conf", d->dir);
	f = fopen(conf, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "group =\nlog_level = err\nmax_clients = 256\n"
	    "max_msgs_per_sec = 10000000\n");
	fclose(f);
	d->pid = fork();
	if (d->pid < 0)
		return -1;
	if (d->pid == 0) {
		execl(bwsched, bwsched, "-f", "--regulator=sim", "-c", conf,
		    "-s", d->sock, (char *)NULL);
		fprintf(stderr, "bench: cannot run %s: %s\n", bwsched,
		    strerror(errno));
		_exit(127);
	}
	for (i = 0; i < 400; i++) {
		h = bwc_open(d->sock, "probe", BWC_NO_RECONNECT);
		if (h != NULL) {
			bwc_close(h);
			return 0;
		}
		if (waitpid(d->pid, NULL, WNOHANG) == d->pid) {
			d->pid = -1;
			return -1;
		}
		usleep(25000);
	}
	bd_stop(d);
	return -1;
}

void
bd_stop(struct bdaemon *d)
{
	char	path[400];

	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		waitpid(d->pid, NULL, 0);
		d->pid = -1;
	}
	snprintf(path, sizeof(path), "%s/bwsched.conf", d->dir);
	unlink(path);
	unlink(d->sock);
	rmdir(d->dir);
}

int
bd_pin(pid_t pid, int cpu)
{
	struct dirent	*e;
	cpu_set_t	 set;
	char		 path[64];
	DIR		*dir;
	int		 rc = 0;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pid == 0)
		return sched_setaffinity(0, sizeof(set), &set);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (dir == NULL)
		return -1;
	while ((e = readdir(dir)) != NULL)
		if (e->d_name[0] != '.' && sched_setaffinity(
		    (pid_t)atoi(e->d_name), sizeof(set), &set) < 0)
			rc = -1;
	closedir(dir);
	return rc;
}

int
bd_ncpus(void)
{
	cpu_set_t	set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return CPU_COUNT(&set);
}

double
bd_now(void)
{
	return (double)monoclock_ns() / 1e9;
}

void
bd_out(FILE *out, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (out != NULL) {
		va_start(ap, fmt);
		vfprintf(out, fmt, ap);
		va_end(ap);
	}
	fflush(stdout);
}

int
bd_setup(struct bdaemon *d, const char *name, const char *outpath,
    const char *bwsched, FILE **out)
{
	signal(SIGPIPE, SIG_IGN);
	*out = NULL;
	if (outpath != NULL && (*out = fopen(outpath, "w")) == NULL) {
		perror(outpath);
		return -1;
	}
	if (bd_start(d, bd_path(bwsched)) < 0) {
		fprintf(stderr, "%s: cannot start bwsched\n", name);
		return -1;
	}
	return 0;
}
