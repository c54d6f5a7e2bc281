/*
 * tc.h - a small synchronous protocol client for the daemon tests, built
 * on proto/libbwproto.la only (so the tests do not depend on libbwclient).
 */
#ifndef TC_H
#define TC_H

#include <stdbool.h>
#include <stdint.h>

#include "msg.h"
#include "wire.h"

extern int	tc_failures;

/* A check that does not hold: FAIL file:line and the message, counted
 * in tc_failures (the unit tests' CHECKM of tests/check.h, for clients) */
void	tc_fail(const char *file, int line, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

#define TC_CHECK(cond, ...) do {					\
	if (!(cond))							\
		tc_fail(__FILE__, __LINE__, __VA_ARGS__);		\
} while (0)

int	tc_connect(const char *path);
/* Send a finished writer (frees it) with descriptors. */
int	tc_send(int fd, struct bwp_writer *, const int *fds, int nfds);
int	tc_send_raw(int fd, const void *buf, size_t len);
/*
 * Receive one message within timeout_ms into m (bwp_msg_free it).
 * 1 ok, 0 closed by the daemon, -1 timeout or error.
 */
int	tc_recv(int fd, struct bwp_msg *, int timeout_ms);
/* Receive until a reply (has "status"); events are skipped. */
int	tc_reply(int fd, struct bwp_msg *, int timeout_ms);
/* Send a request with no arguments and return the reply status. */
int	tc_simple(int fd, enum bwp_op, struct bwp_msg *reply);
/* hello with our own pid; returns status. */
int	tc_hello(int fd, const char *name);
uint64_t tc_uint(struct bwp_msg *, const char *key);
bool	tc_bool(struct bwp_msg *, const char *key);
double	tc_double(struct bwp_msg *, const char *key);
int	tc_status(struct bwp_msg *);

/* A sealed memfd task page (magic set) and a progress page. */
int	tc_task_page(void **map);
int	tc_progress_page(uint32_t nslots, uint32_t max_blocks);

#endif /* TC_H */
