/*
 * bwsim.h - shared helpers of bwsim's front end (tools/bwsim.c) and its
 * plot command (tools/bwsim_plot.c).
 */
#ifndef BWSIM_H
#define BWSIM_H

#include <stdint.h>

#include "profile.h"

/* Parse a number option into [lo, hi]; -1 with a message on error. */
int	bwsim_double(const char *opt, const char *s, double lo, double hi,
	    double *v);
int	bwsim_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi,
	    uint64_t *v);
/* Read and parse a .bwk file; -1 with a message on error. */
int	bwsim_load_profile(const char *path, struct profile *p);

int	bwsim_plot_main(int, char **);
/* tools/bwsim_gpu.c: the warp-level GPU model */
int	bwsim_sm_main(int, char **);
int	bwsim_warps_main(int, char **);
/* Feed a gnuplot script to gnuplot for OUT.png and OUT.svg. */
int	bwsim_plot_run(const char *out, const char *script);

/* tools/bwsim_part.c: bwsim partition and bwsim plot partition */
int	bwsim_partition_main(int, char **);
int	bwsim_plot_partition(const char *prefix, int argc, char **argv);

#endif /* BWSIM_H */
