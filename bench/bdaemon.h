/*
 * bdaemon.h - what the client benchmarks share: start a private bwsched
 * on a temporary socket, pin a process (all its threads) or the calling
 * thread to a CPU, and write results to both stdout and the -o file.
 */
#ifndef BDAEMON_H
#define BDAEMON_H

#include <stdio.h>
#include <sys/types.h>

struct bdaemon {
	pid_t	pid;
	char	dir[256];
	char	sock[300];
};

/* The daemon binary: argv path, else $top_builddir/daemon/bwsched, else ./daemon/bwsched. */
const char	*bd_path(const char *arg);
/* Start it with the sim regulator and generous limits; 0 or -1. */
int		 bd_start(struct bdaemon *, const char *bwsched);
void		 bd_stop(struct bdaemon *);
/*
 * What every client benchmark does first: ignore SIGPIPE, open the -o
 * file (outpath may be NULL: *out is then NULL) and start the daemon
 * (bwsched: the command-line argument or NULL).  0, or -1 said on stderr
 * as "name: ...".
 */
int		 bd_setup(struct bdaemon *, const char *name,
		    const char *outpath, const char *bwsched, FILE **out);
/* Pin every thread of pid (0: the calling thread only) to cpu. */
int		 bd_pin(pid_t pid, int cpu);
int		 bd_ncpus(void);
double		 bd_now(void);	/* CLOCK_MONOTONIC seconds */
/* printf to stdout and to out (may be NULL). */
void		 bd_out(FILE *out, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));

#endif /* BDAEMON_H */
