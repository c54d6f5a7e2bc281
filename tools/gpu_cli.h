/*
 * gpu_cli.h - what bwanalyze ptx, bwsim sm and bwsim warps share: the
 * options that name a kernel launch and the model's parameters, reading
 * and analysing the PTX file (doc/gpu-model.md).
 */
#ifndef GPU_CLI_H
#define GPU_CLI_H

#include <stdint.h>

#include "gtrace.h"
#include "ptx.h"
#include "wexec.h"

struct gpu_cli {
	const char		*prog;		/* "bwanalyze ptx" ... */
	const char		*file;
	const char		*kernel;
	uint32_t		 grid[3], block[3];
	int			 have_grid, have_block;
	unsigned int		 nparams;
	const char		*params[PTX_MAX_PARAMS];	/* NAME=VALUE */
	struct gpu_cfg		 cfg;
	int			 json;
	struct ptx_module	*mod;
	const struct ptx_kernel	*k;
	struct gpu_launch	 launch;
};

void	gpu_cli_init(struct gpu_cli *, const char *prog);
/*
 * One of the shared options at argv[*i] (moving *i past its value):
 * 1 when taken, 0 when not one of them, -1 after a message on error.
 * A first argument not starting with "-" is the file.
 */
int	gpu_cli_opt(struct gpu_cli *, int argc, char **argv, int *i);
/* Read and parse the file, find the kernel, apply the parameters;
 * 0, or -1 after a message. */
int	gpu_cli_load(struct gpu_cli *);
/* Analyze the launch (or launch l if not NULL) into t; 0 or -1. */
int	gpu_cli_trace(struct gpu_cli *, const struct gpu_launch *l,
	    struct gpu_trace *t);
void	gpu_cli_free(struct gpu_cli *);
/* Usage text of the shared options. */
extern const char gpu_cli_usage[];
/* A number option into [lo, hi]; -1 after a message. */
int	gpu_cli_u32(const char *prog, const char *opt, const char *s,
	    uint32_t lo, uint32_t hi, uint32_t *v);

#endif /* GPU_CLI_H */
