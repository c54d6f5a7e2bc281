/*
 * bwanalyze.h - subcommands of bwanalyze.  Each takes the arguments after
 * the subcommand name (argv[0] is the subcommand) and returns the exit
 * code: 0 success, 1 a negative answer (e.g. not schedulable, tests
 * rejected), 2 bad usage or input.
 */
#ifndef BWANALYZE_H
#define BWANALYZE_H

/* Options of one subcommand: name (without "--"), takes a value. */
struct an_opt {
	const char	*name;
	int		 has_arg;
	const char	*value;		/* NULL: not given; "" for flags */
};

/*
 * tools/an_model.c: option helpers.  an_args splits argv into one
 * positional argument and the options; an_double reads a finite number
 * in [lo, hi].  Both print why and return 2 on bad usage.
 */
int		 an_args(int, char **, struct an_opt *, const char **pos);
const char	*an_opt(const struct an_opt *, const char *name);
int		 an_double(const char *cmd, const char *name, const char *s,
		    double lo, double hi, double *v);

/* tools/an_model.c: the analysis core */
int	an_wcet_main(int, char **);
int	an_nominal_main(int, char **);
int	an_budget_main(int, char **);
int	an_rta_main(int, char **);
int	an_show_main(int, char **);

/* tools/an_profiling.c: traces to profiles */
int	an_cluster_main(int, char **);
int	an_evt_main(int, char **);
int	an_plot_main(int, char **);

/* tools/an_ptx.c: the warp-level GPU model's analyzer */
int	an_ptx_main(int, char **);
/* tools/an_partition.c: GPU spatial partitioning (doc/partition.md) */
int	an_partition_main(int, char **);
int	an_classify_main(int, char **);

#endif /* BWANALYZE_H */
