/*
 * bwsim_part.c - `bwsim partition`: the experiment of [PredGPU] section
 * 3.6 (sim/partexp.c), and `bwsim plot partition`: its Fig. 3.4-3.6.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwsim.h"
#include "jsonw.h"
#include "partexp.h"

#define BP_PATH		1024

/* --only a,b,c: the variants to run. */
static int
bp_only(const char *s, unsigned int *mask)
{
	char		buf[128], *tok, *save;
	unsigned int	v;

	if (s == NULL || strlen(s) >= sizeof(buf)) {
		fprintf(stderr, "bwsim partition: --only needs a list\n");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		for (v = 0; v < PARTEXP_NV; v++)
			if (strcmp(tok, partexp_name(v)) == 0)
				break;
		if (v == PARTEXP_NV) {
			fprintf(stderr, "bwsim partition: --only: unknown "
			    "'%s' (sms_act sms_ina bf_act bf_ina 1g "
			    "1g_util)\n", tok);
			return -1;
		}
		*mask |= 1u << v;
	}
	return *mask ? 0 : -1;
}

/* The options both commands take; 1 consumed, 0 not ours, -1 bad. */
static int
bp_opt(struct partexp_args *a, int argc, char **argv, int *i)
{
	const char	*o = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	uint64_t	 x;
	int		 rc = 0;

	if (strcmp(o, "--tasks") == 0) {
		rc = bwsim_u64(o, v, 1, PARTITION_MAX_TASKS, &x);
		a->tasks = (unsigned int)x;
	} else if (strcmp(o, "--sets") == 0) {
		rc = bwsim_u64(o, v, 1, 1000000, &x);
		a->sets = (unsigned int)x;
	} else if (strcmp(o, "--sms") == 0) {
		rc = bwsim_u64(o, v, 1, PARTITION_MAX_SMS, &x);
		a->sms = (unsigned int)x;
	} else if (strcmp(o, "--seed") == 0)
		rc = bwsim_u64(o, v, 0, (1ull << 24) - 1, &a->seed);
	else if (strcmp(o, "--prm") == 0)
		rc = bwsim_double(o, v, 0, 1, &a->prm);
	else if (strcmp(o, "--umin") == 0)
		rc = bwsim_double(o, v, 1e-3, 1e6, &a->umin);
	else if (strcmp(o, "--umax") == 0)
		rc = bwsim_double(o, v, 1e-3, 1e6, &a->umax);
	else if (strcmp(o, "--ustep") == 0)
		rc = bwsim_double(o, v, 1e-3, 1e6, &a->ustep);
	else if (strcmp(o, "--only") == 0)
		rc = bp_only(v, &a->variants);
	else
		return 0;
	(*i)++;
	return rc == 0 ? 1 : -1;
}

static void
bp_json_map(struct jsonw *j, const char *key, const struct partexp_args *a,
    const struct partexp_point *pt, int what)
{
	unsigned int	v;

	jsonw_key(j, key);
	jsonw_obj_begin(j);
	for (v = 0; v < PARTEXP_NV; v++) {
		if (!(a->variants & (1u << v)))
			continue;
		jsonw_key(j, partexp_name(v));
		if (what == 0)
			jsonw_double(j, (double)pt->ok[v] / pt->sets);
		else if (what == 1)
			jsonw_double(j, pt->ms[v]);
		else if (what == 2)
			jsonw_double(j, pt->tests[v]);
		else
			jsonw_double(j, pt->prefill[v]);
	}
	jsonw_obj_end(j);
}

static void
bp_json(const struct partexp_args *a, const struct partexp_point *pts,
    int n)
{
	struct jsonw	j;
	int		i;

	jsonw_init(&j, stdout);
	jsonw_obj_begin(&j);
	jsonw_key(&j, "tasks");
	jsonw_uint(&j, a->tasks);
	jsonw_key(&j, "prm");
	jsonw_double(&j, a->prm);
	jsonw_key(&j, "sets");
	jsonw_uint(&j, a->sets);
	jsonw_key(&j, "sms");
	jsonw_uint(&j, a->sms);
	jsonw_key(&j, "seed");
	jsonw_uint(&j, a->seed);
	jsonw_key(&j, "points");
	jsonw_arr_begin(&j);
	for (i = 0; i < n; i++) {
		jsonw_obj_begin(&j);
		jsonw_key(&j, "utilization");
		jsonw_double(&j, pts[i].utilization);
		jsonw_key(&j, "discarded");
		jsonw_uint(&j, pts[i].discarded);
		bp_json_map(&j, "rates", a, &pts[i], 0);
		bp_json_map(&j, "analysis_ms", a, &pts[i], 1);
		bp_json_map(&j, "tests", a, &pts[i], 2);
		bp_json_map(&j, "prefill_tests", a, &pts[i], 3);
		jsonw_obj_end(&j);
	}
	jsonw_arr_end(&j);
	jsonw_obj_end(&j);
	jsonw_end(&j);
}

static void
bp_text(const struct partexp_args *a, const struct partexp_point *pts,
    int n)
{
	unsigned int	v;
	int		i;

	printf("%u tasks, prm %.2f, %u sets per point, M = %u SMs, seed "
	    "%llu\nschedulable %% (mean analysis CPU ms per set)\n", a->tasks,
	    a->prm, a->sets, a->sms, (unsigned long long)a->seed);
	printf("%6s", "U");
	for (v = 0; v < PARTEXP_NV; v++)
		if (a->variants & (1u << v))
			printf(" %17s", partexp_name(v));
	printf("\n");
	for (i = 0; i < n; i++) {
		printf("%6g", pts[i].utilization);
		for (v = 0; v < PARTEXP_NV; v++)
			if (a->variants & (1u << v))
				printf("     %5.1f (%6.2f)", 100.0 *
				    pts[i].ok[v] / pts[i].sets, pts[i].ms[v]);
		printf("\n");
	}
}

/* Run, report failures; the caller frees *pts. */
static int
bp_run(const struct partexp_args *a, struct partexp_point **pts, FILE *csv)
{
	int	n, rc;

	if ((n = partexp_npoints(a)) < 0) {
		fprintf(stderr, "bwsim partition: bad --umin/--umax/--ustep "
		    "(at most 1000 points)\n");
		return -1;
	}
	if ((*pts = calloc((size_t)n, sizeof(**pts))) == NULL)
		return -1;
	if ((rc = partexp_run(a, *pts, csv)) != 0) {
		fprintf(stderr, "bwsim partition: %s\n", rc == -EAGAIN ?
		    "no task set after 10000 draws: lower the utilisation or "
		    "raise --tasks" : strerror(-rc));
		return -1;
	}
	return n;
}

int
bwsim_partition_main(int argc, char **argv)
{
	struct partexp_args	 a;
	struct partexp_point	*pts = NULL;
	const char		*csv = NULL;
	FILE			*f = NULL;
	int			 i, rc, json = 0, n, ret = 1;

	partexp_default(&a);
	for (i = 1; i < argc; i++) {
		if ((rc = bp_opt(&a, argc, argv, &i)) < 0)
			return 2;
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
			csv = argv[++i];
		else {
			fprintf(stderr, "bwsim partition: unknown argument "
			    "'%s' (see bwsim(1))\n", argv[i]);
			return 2;
		}
	}
	if (partexp_npoints(&a) < 0) {
		fprintf(stderr, "bwsim partition: bad --umin/--umax/--ustep "
		    "(at most 1000 points)\n");
		return 2;
	}
	if (csv != NULL && (f = fopen(csv, "w")) == NULL) {
		fprintf(stderr, "bwsim partition: %s: %s\n", csv,
		    strerror(errno));
		return 1;
	}
	if ((n = bp_run(&a, &pts, f)) >= 0) {
		if (json)
			bp_json(&a, pts, n);
		else
			bp_text(&a, pts, n);
		ret = 0;
	}
	if (f != NULL && fclose(f) != 0) {
		fprintf(stderr, "bwsim partition: %s: write error\n", csv);
		ret = 1;
	}
	free(pts);
	return ret;
}

/* ---- plot ---- */

/* One experiment's points as PREFIX-N.csv for gnuplot. */
static int
bp_plot_data(const char *prefix, struct partexp_args *a, char *path)
{
	struct partexp_point	*pts = NULL;
	FILE			*f;
	unsigned int		 v;
	int			 n, i, rc = -1;

	snprintf(path, BP_PATH, "%s-%u.csv", prefix, a->tasks);
	if ((n = bp_run(a, &pts, NULL)) < 0)
		goto out;
	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "bwsim plot: %s: %s\n", path, strerror(errno));
		goto out;
	}
	fprintf(f, "utilization");
	for (v = 0; v < PARTEXP_NV; v++)
		fprintf(f, ",%s,%s_ms", partexp_name(v), partexp_name(v));
	fprintf(f, "\n");
	for (i = 0; i < n; i++) {
		fprintf(f, "%g", pts[i].utilization);
		for (v = 0; v < PARTEXP_NV; v++)
			fprintf(f, ",%.4f,%.6f", 100.0 * pts[i].ok[v] /
			    pts[i].sets, pts[i].ms[v]);
		fprintf(f, "\n");
	}
	rc = fclose(f) == 0 ? 0 : -1;
out:
	free(pts);
	return rc;
}

/*
 * gnuplot plot items for one data file: the heuristics and baselines'
 * rates, or the heuristics' analysis times; appended to s at *n.
 */
static void
bp_plot_lines(char *s, size_t len, int *n, const char *path, int time,
    const char *label)
{
	static const char *const title[PARTEXP_NV] = { "SMS-ACT", "SMS-INA",
	    "BF-ACT", "BF-INA", "1G (EDF)", "1G (utilisation)" };
	unsigned int	v, nv = time ? PARTEXP_1G : PARTEXP_NV;

	for (v = 0; v < nv; v++)
		*n += snprintf(s + *n, len - (size_t)*n, "%s'%s' skip 1 using "
		    "1:%u with linespoints lw 2 title '%s%s'",
		    *n > 0 && s[*n - 1] != ' ' ? ", " : "", path,
		    2 + 2 * v + (time != 0), title[v], label);
}

int
bwsim_plot_partition(const char *prefix, int argc, char **argv)
{
	struct partexp_args	a;
	char			path[2][BP_PATH], out[BP_PATH], script[8192];
	unsigned int		k;
	int			i, n;

	partexp_default(&a);
	for (i = 0; i < argc; i++)
		if (bp_opt(&a, argc, argv, &i) <= 0) {
			fprintf(stderr, "bwsim plot partition: bad argument "
			    "'%s'\n", argv[i]);
			return 2;
		}
	a.variants = (1u << PARTEXP_NV) - 1;
	for (k = 0; k < 2; k++) {	/* Fig. 3.4 (50 tasks), 3.5 (200) */
		a.tasks = k == 0 ? 50 : 200;
		if (bp_plot_data(prefix, &a, path[k]) != 0)
			return 1;
		n = snprintf(script, sizeof(script), "set title '[PredGPU] "
		    "Fig. 3.%u: schedulability, %u tasks, prm %.2f, %u sets "
		    "per point'\nset xlabel 'total utilisation'\nset ylabel "
		    "'schedulable (%%)'\nset yrange [0:105]\nplot ", 4 + k,
		    a.tasks, a.prm, a.sets);
		bp_plot_lines(script, sizeof(script), &n, path[k], 0, "");
		snprintf(script + n, sizeof(script) - (size_t)n, "\n");
		snprintf(out, sizeof(out), "%s-fig3.%u", prefix, 4 + k);
		if (bwsim_plot_run(out, script) != 0)
			return 1;
	}
	n = snprintf(script, sizeof(script), "set title '[PredGPU] Fig. 3.6: "
	    "analysis CPU time per task set'\nset xlabel 'total "
	    "utilisation'\nset ylabel 'ms'\nset logscale y\nplot ");
	bp_plot_lines(script, sizeof(script), &n, path[0], 1, ", 50 tasks");
	bp_plot_lines(script, sizeof(script), &n, path[1], 1, ", 200 tasks");
	snprintf(script + n, sizeof(script) - (size_t)n, "\n");
	snprintf(out, sizeof(out), "%s-fig3.6", prefix);
	return bwsim_plot_run(out, script) != 0;
}
