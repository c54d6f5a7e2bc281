/*
 * holdlock.c - the application of make check-system, compiled inside the
 * test machine against the installed libbwclient-dev (pkg-config
 * bwclient), as an operator's own program would be.
 *
 *   holdlock SECONDS LOCK_SECONDS
 *
 * registers a real-time task, holds the bandwidth lock for the first
 * LOCK_SECONDS, releases it and stays registered until SECONDS have
 * passed, so a daemon restart in between must be survived by the
 * library's reconnection.  It ends by reading a setting over the
 * connection it then has.  Exit 0 when every step succeeded, 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bwsched/bwclient.h>

static void
sleep_s(double s)
{
	struct timespec	ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* The last call's error, on stderr; returns 1 for main. */
static int
failed(bwc_t *h, const char *what, int rc)
{
	fprintf(stderr, "holdlock: %s: %s (%d)\n", what,
	    h ? bwc_strerror(h) : strerror(errno), rc);
	return 1;
}

int
main(int argc, char **argv)
{
	struct bwc_task_params	tp = { "holdlock", 10000000, 50, 0, 0 };
	char			policy[64];
	double			secs, lock_secs;
	bwc_t			*h;
	int			rc, i;

	if (argc != 3 || (secs = atof(argv[1])) <= 0 ||
	    (lock_secs = atof(argv[2])) < 0 || lock_secs > secs) {
		fprintf(stderr, "usage: holdlock SECONDS LOCK_SECONDS\n");
		return 2;
	}
	if ((h = bwc_open(NULL, "holdlock", 0)) == NULL)
		return failed(NULL, "connect", -errno);
	if ((rc = bwc_task_register(h, &tp)) < 0)
		return failed(h, "register", rc);
	printf("holdlock: registered\n");
	fflush(stdout);
	if (lock_secs > 0) {
		if ((rc = bwc_lock(h)) < 0)
			return failed(h, "lock", rc);
		printf("holdlock: holding the lock for %g s\n", lock_secs);
		fflush(stdout);
		sleep_s(lock_secs);
		if ((rc = bwc_unlock(h)) < 0)
			return failed(h, "unlock", rc);
		printf("holdlock: released the lock\n");
		fflush(stdout);
	}
	sleep_s(secs - lock_secs);
	/* after a daemon restart the library may still be reconnecting */
	for (i = 0; i < 50; i++) {
		if ((rc = bwc_get(h, "policy", policy, sizeof(policy))) == 0)
			break;
		sleep_s(0.2);
	}
	if (rc < 0)
		return failed(h, "get policy", rc);
	printf("holdlock: still connected (policy %s)\n", policy);
	bwc_close(h);
	return 0;
}
