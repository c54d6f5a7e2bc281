/*
 * demo_client.c - a real-time GPU task as libbwclient sees it, without a
 * GPU: registers itself and the histo kernel of [DynBW] (Table 4.1's
 * three clusters, with M = 32 resident blocks: the TX2's full occupancy,
 * where examples/histo.bwk keeps the thesis's M = 8), then launches it a
 * few times, emulating the kernel by
 * sleeping its isolation WCET while "finishing" blocks in the progress
 * bitmap, and synchronizing its stream to release the bandwidth lock.
 *
 * At the end it launches once more and holds the lock until standard
 * input reaches end of file, so bwctl can show a lock holder.
 *
 * usage: demo_client [SOCKET] [LAUNCHES]
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bwsched/bwclient.h"

/* histo (Parboil) on a Jetson TX2: [DynBW] Tables 4.1 and 4.2 */
#define HISTO_BLOCKS	37627
#define HISTO_M		32	/* resident blocks: 2 SMs x 16 */
#define HISTO_NINTERVALS 14
#define STREAM		1

static const struct bwc_cluster histo_clusters[] = {
	{ 1700, 3690 },		/* worst-case measured e0/e1 in ns */
	{ 2500, 6520 },
	{ 3300, 8830 },
};

#define KERNEL_RUN	0.8	/* of G(0), the WCET without interference */

static void
sleep_ns(uint64_t ns)
{
	struct timespec	ts = { (time_t)(ns / 1000000000u),
			       (long)(ns % 1000000000u) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * The "GPU": finish the blocks in id order over the kernel's duration,
 * on deadlines from the start so that oversleeping does not add up (the
 * launch's end goes into the daemon's record, judged against the bound).
 */
static void
fake_kernel(uint64_t *bitmap, uint64_t ns)
{
	const int	steps = 8;
	struct timespec	t0, ts;
	uint64_t	at;
	uint32_t	b = 0, end;
	int		s;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (s = 1; s <= steps; s++) {
		at = (uint64_t)t0.tv_nsec + ns * (uint64_t)s / steps;
		ts.tv_sec = t0.tv_sec + (time_t)(at / 1000000000u);
		ts.tv_nsec = (long)(at % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
		    NULL) == EINTR)
			;
		end = (uint32_t)((uint64_t)HISTO_BLOCKS * s / steps);
		for (; bitmap != NULL && b < end; b++)
			__atomic_fetch_or(&bitmap[b / 64], 1ull << (b % 64),
			    __ATOMIC_RELAXED);
	}
}

static int
die(bwc_t *h, const char *what, int rc)
{
	fprintf(stderr, "demo_client: %s: %s (%s)\n", what, strerror(-rc),
	    h != NULL ? bwc_strerror(h) : "");
	exit(1);
}

int
main(int argc, char **argv)
{
	struct bwc_interval	 iv[HISTO_NINTERVALS];
	struct bwc_kernel_info	 info;
	struct bwc_kernel_desc	 kd;
	struct bwc_task_params	 tp;
	uint64_t		*bitmap;
	const char		*sock = argc > 1 ? argv[1] : NULL;
	int			 launches = argc > 2 ? atoi(argv[2]) : 3;
	int			 i, k, slot, rc;
	char			 line[64];
	bwc_t			*h;

	setvbuf(stdout, NULL, _IOLBF, 0);
	h = bwc_open(sock, "demo_client", 0);
	if (h == NULL) {
		fprintf(stderr, "demo_client: cannot reach bwsched at %s: %s\n",
		    bwc_socket_path(sock), strerror(errno));
		return 1;
	}
	memset(&tp, 0, sizeof(tp));
	tp.name = "histo-task";
	tp.period_ns = 10000000;
	tp.priority = 50;
	tp.progress_slots = 4;
	tp.progress_max_blocks = HISTO_BLOCKS;
	if ((rc = bwc_task_register(h, &tp)) < 0)
		die(h, "task.register", rc);
	printf("registered task %s: period 10 ms, priority 50, task page "
	    "and a progress page of 4 slots\n", tp.name);

	/*
	 * Table 4.2 gives histo 14 cluster intervals but not where they
	 * start: spread them evenly, cycling through the three clusters.
	 */
	for (i = 0; i < HISTO_NINTERVALS; i++) {
		iv[i].first_block = (uint32_t)((uint64_t)HISTO_BLOCKS * i /
		    HISTO_NINTERVALS);
		iv[i].cluster = (uint32_t)(i % 3);
	}
	memset(&kd, 0, sizeof(kd));
	kd.name = "histo";
	kd.blocks = HISTO_BLOCKS;
	kd.concurrency = HISTO_M;
	kd.nclusters = 3;
	kd.clusters = histo_clusters;
	kd.nintervals = HISTO_NINTERVALS;
	kd.intervals = iv;
	k = bwc_kernel_register(h, &kd, &info);
	if (k < 0)
		die(h, "kernel.register", k);
	printf("registered kernel histo: %u blocks, M = %u, 3 clusters; "
	    "daemon says Q-bar = %.4f, G(0) = %" PRIu64 " ns, G(Q-bar) = %"
	    PRIu64 " ns\n", HISTO_BLOCKS, HISTO_M, info.q_nominal,
	    info.wcet0_ns, info.wcet_ns);

	for (i = 0; i < launches; i++) {
		slot = bwc_launch(h, k, STREAM, &bitmap);
		if (slot < 0 && slot != -ENOSPC)
			die(h, "launch", slot);
		printf("launch %d: stream %d active (lock taken), progress "
		    "slot %d; kernel runs %.2f ms\n", i + 1, STREAM, slot,
		    KERNEL_RUN * info.wcet0_ns / 1e6);
		/* a real launch takes less than its isolation WCET */
		fake_kernel(bitmap, (uint64_t)(KERNEL_RUN * info.wcet0_ns));
		if (slot >= 0)
			bwc_launch_done(h, slot);
		bwc_stream_sync(h, STREAM);
		printf("launch %d: stream synchronized (lock released)\n",
		    i + 1);
		sleep_ns(5000000);
	}

	if ((rc = bwc_memcpy_begin(h)) < 0)
		die(h, "memcpy_begin", rc);
	printf("synchronous copy: lock held for its duration\n");
	sleep_ns(2000000);
	bwc_memcpy_end(h);

	slot = bwc_launch(h, k, STREAM, &bitmap);
	if (slot < 0 && slot != -ENOSPC)
		die(h, "launch", slot);
	printf("final launch in slot %d: holding the lock until stdin "
	    "closes\n", slot);
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin) != NULL)
		;
	if (slot >= 0)
		bwc_launch_done(h, slot);
	bwc_device_sync(h);
	printf("device synchronized, unregistering\n");
	if ((rc = bwc_task_unregister(h)) < 0)
		die(h, "task.unregister", rc);
	bwc_close(h);
	return 0;
}
