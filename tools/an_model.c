/* an_model.c - PLACEHOLDER until its part lands */
#include <stdio.h>
#include "bwanalyze.h"
int
an_wcet_main(int argc, char **argv)
{
	fprintf(stderr, "bwanalyze: wcet is not implemented yet\n");
	return 2;
}
int
an_nominal_main(int argc, char **argv)
{
	fprintf(stderr, "bwanalyze: nominal is not implemented yet\n");
	return 2;
}
int
an_budget_main(int argc, char **argv)
{
	fprintf(stderr, "bwanalyze: budget is not implemented yet\n");
	return 2;
}
int
an_rta_main(int argc, char **argv)
{
	fprintf(stderr, "bwanalyze: rta is not implemented yet\n");
	return 2;
}
int
an_show_main(int argc, char **argv)
{
	fprintf(stderr, "bwanalyze: show is not implemented yet\n");
	return 2;
}
