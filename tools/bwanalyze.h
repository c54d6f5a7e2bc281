/*
 * bwanalyze.h - subcommands of bwanalyze.  Each takes the arguments after
 * the subcommand name (argv[0] is the subcommand) and returns the exit
 * code: 0 success, 1 a negative answer (e.g. not schedulable, tests
 * rejected), 2 bad usage or input.
 */
#ifndef BWANALYZE_H
#define BWANALYZE_H

/* How an option takes its value. */
enum an_arg {
	AN_FLAG,	/* --name alone */
	AN_VALUE,	/* --name VALUE or --name=VALUE, at most once */
	AN_LIST		/* the same, repeatable (e.g. evt --p) */
};

#define AN_MAX_LIST	16

/* Options of one subcommand: name (without "--") and how it is given. */
struct an_opt {
	const char	*name;
	enum an_arg	 arg;
	const char	*value;		/* NULL: not given; "" for flags */
	const char	*list[AN_MAX_LIST];	/* AN_LIST: every value */
	int		 nlist;
};

#define AN_OPT(n, a)	{ .name = (n), .arg = (a) }
#define AN_OPT_END	{ .name = NULL }

/*
 * tools/bwanalyze.c: the option parser of every subcommand.  an_args
 * splits argv into the one positional argument (named posname in the
 * message when it is missing) and the options; "-o" stands for "--o"
 * where the subcommand has an "o".  an_double reads a finite number in
 * [lo, hi].  Both print why and return 2 on bad usage.
 */
int		 an_args(int, char **, struct an_opt *, const char *posname,
		    const char **pos);
const char	*an_opt(const struct an_opt *, const char *name);
const struct an_opt *an_opt_find(const struct an_opt *, const char *name);
int		 an_double(const char *cmd, const char *name, const char *s,
		    double lo, double hi, double *v);
/* "bwanalyze CMD: ..." on stderr; an_usage adds the --help hint; 2 */
int		 an_fail(const char *cmd, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
int		 an_usage(const char *cmd, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));

/* tools/an_model.c: the analysis core */
int	an_wcet_main(int, char **);
int	an_nominal_main(int, char **);
int	an_budget_main(int, char **);
int	an_rta_main(int, char **);
int	an_show_main(int, char **);

/* tools/an_cluster.c, an_evt.c, an_plot.c: traces to profiles */
int	an_cluster_main(int, char **);
int	an_evt_main(int, char **);
int	an_plot_main(int, char **);

/* tools/an_ptx.c: the warp-level GPU model's analyzer */
int	an_ptx_main(int, char **);
/* tools/an_partition.c: GPU spatial partitioning (doc/partition.md) */
int	an_partition_main(int, char **);
int	an_classify_main(int, char **);

#endif /* BWANALYZE_H */
