/*
 * bwctl_top.h - `bwctl top` (a live view refreshed every second) and
 * `bwctl trace` (period records as they happen), each on its own
 * connection to the daemon.  Both return a bwctl exit status.
 */
#ifndef BWCTL_TOP_H
#define BWCTL_TOP_H

/* bwctl top [--once] [--iterations N] [--interval SECONDS] */
int	bwctl_top(const char *path, int argc, char **argv);
/* bwctl trace [--csv] [--count N] */
int	bwctl_trace(const char *path, int argc, char **argv);

#endif /* BWCTL_TOP_H */
