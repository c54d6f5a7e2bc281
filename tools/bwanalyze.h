/*
 * bwanalyze.h - subcommands of bwanalyze.  Each takes the arguments after
 * the subcommand name (argv[0] is the subcommand) and returns the exit
 * code: 0 success, 1 a negative answer (e.g. not schedulable, tests
 * rejected), 2 bad usage or input.
 */
#ifndef BWANALYZE_H
#define BWANALYZE_H

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

#endif /* BWANALYZE_H */
