/*
 * sink.h - where the state machine's changes go: libbwclient (loaded at
 * run time, so the instrumentation works, unprotected, without it), a
 * recorder writing one line per change (tests, benchmark) or nothing.
 * Chosen by $BWSCHED_CUDA_SINK: "bwclient" (default), "record:PATH",
 * "none".
 */
#ifndef BWCUDA_SINK_H
#define BWCUDA_SINK_H

#include "state.h"

#define BWCUDA_HIDDEN	__attribute__((visibility("hidden")))
/*
 * For code our dlsym runs: sanitizer runtimes call dlsym while they
 * initialize, before their shadow memory exists.
 */
#define BWCUDA_NO_SANITIZE \
	__attribute__((no_sanitize("address", "undefined")))

BWCUDA_HIDDEN void	bwcuda_sink_from_env(struct bwcuda_sink *);
BWCUDA_HIDDEN void	bwcuda_sink_none(struct bwcuda_sink *);
/* fd < 0: record into memory only (benchmark). */
BWCUDA_HIDDEN void	bwcuda_sink_record(struct bwcuda_sink *, int fd);
BWCUDA_HIDDEN int	bwcuda_sink_bwclient(struct bwcuda_sink *);

/* One "bwsched: ..." line on stderr. */
void		bwcuda_warn(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* libc's dlsym, never our interposed one, and its address. */
BWCUDA_HIDDEN void	*bwcuda_real_dlsym(void *handle, const char *name);
BWCUDA_HIDDEN void	*bwcuda_real_dlsym_fn(void);
/* The CUDA driver library (libcuda.so.1), loaded if needed; or NULL. */
BWCUDA_HIDDEN void	*bwcuda_driver_handle(void);

#endif /* BWCUDA_SINK_H */
