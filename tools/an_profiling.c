/* an_profiling.c - PLACEHOLDER until its part lands */
#include <stdio.h>
#include "bwanalyze.h"
int
an_cluster_main(int argc, char **argv)
{
	fprintf(stderr, "bwanalyze: cluster is not implemented yet\n");
	return 2;
}
int
an_evt_main(int argc, char **argv)
{
	fprintf(stderr, "bwanalyze: evt is not implemented yet\n");
	return 2;
}
int
an_plot_main(int argc, char **argv)
{
	fprintf(stderr, "bwanalyze: plot is not implemented yet\n");
	return 2;
}
