/*
 * lockhold.c - a bwsched client for the kmod end-to-end test: lockhold
 * SOCKET MS registers a task, takes the bandwidth lock, prints "locked",
 * holds it MS milliseconds or until SIGUSR1, whichever comes first, and
 * releases it.  Exit 0 when every step succeeded.
 */
#include <config.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tc.h"

static int register_task(int fd)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	int			st;

	bwp_w_init(&w);
	bwp_w_request(&w, 1, BWP_OP_TASK_REGISTER);
	bwp_w_kstr(&w, "name", "lockhold");
	bwp_w_kuint(&w, "period_ns", 10000000);
	bwp_w_kuint(&w, "priority", 50);
	bwp_w_kuint(&w, "pages", 0);
	if (tc_send(fd, &w, NULL, 0) < 0 || tc_reply(fd, &m, 2000) <= 0)
		return -1;
	st = tc_status(&m);
	bwp_msg_free(&m);
	return st;
}

int main(int argc, char **argv)
{
	struct timespec	ts;
	sigset_t	usr1;
	long		ms;
	int		fd;

	if (argc != 3 || (ms = strtol(argv[2], NULL, 10)) < 0) {
		fprintf(stderr, "usage: lockhold SOCKET MS\n");
		return 2;
	}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);	/* taken by sigtimedwait */
	fd = tc_connect(argv[1]);
	if (fd < 0 || tc_hello(fd, "lockhold") != BWP_OK) {
		fprintf(stderr, "lockhold: cannot connect to %s\n", argv[1]);
		return 1;
	}
	if (register_task(fd) != BWP_OK) {
		fprintf(stderr, "lockhold: task.register failed\n");
		return 1;
	}
	if (tc_simple(fd, BWP_OP_LOCK, NULL) != BWP_OK) {
		fprintf(stderr, "lockhold: lock failed\n");
		return 1;
	}
	printf("locked\n");	/* e2e.sh measures from here on */
	fflush(stdout);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	sigtimedwait(&usr1, NULL, &ts);
	if (tc_simple(fd, BWP_OP_UNLOCK, NULL) != BWP_OK) {
		fprintf(stderr, "lockhold: unlock failed\n");
		return 1;
	}
	close(fd);
	return 0;
}
