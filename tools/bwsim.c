/*
 * bwsim.c - experiments on the simulated platform, in virtual time
 * (bwsim(1), doc/sim.md): tfs, throttle, budgets, protect and plot.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwsim.h"
#include "exp.h"
#include "fileio.h"
#include "jsonw.h"

struct bwsim_common {
	int		 json;
	const char	*csv;
	FILE		*csvf;
};

int
bwsim_double(const char *opt, const char *s, double lo, double hi,
    double *v)
{
	char	*end;

	if (s == NULL) {
		fprintf(stderr, "bwsim: %s needs a value\n", opt);
		return -1;
	}
	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(*v) ||
	    *v < lo || *v > hi) {
		fprintf(stderr, "bwsim: %s: bad value '%s' (%g..%g)\n", opt, s,
		    lo, hi);
		return -1;
	}
	return 0;
}

int
bwsim_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi,
    uint64_t *v)
{
	char			*end;
	unsigned long long	 x;

	if (s == NULL) {
		fprintf(stderr, "bwsim: %s needs a value\n", opt);
		return -1;
	}
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' ||
	    x < lo || x > hi) {
		fprintf(stderr, "bwsim: %s: bad value '%s' (%llu..%llu)\n",
		    opt, s, (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	*v = x;
	return 0;
}

int
bwsim_load_profile(const char *path, struct profile *p)
{
	char	*buf, err[256];
	size_t	 len;
	int	 rc;

	if ((rc = fileio_read(path, PROFILE_MAX_SIZE, &buf, &len)) != 0) {
		fprintf(stderr, "bwsim: %s: %s\n", path, strerror(-rc));
		return -1;
	}
	rc = profile_parse(buf, len, p, err, sizeof(err));
	free(buf);
	if (rc != 0) {
		fprintf(stderr, "bwsim: %s: %s\n", path, err);
		return -1;
	}
	return 0;
}

/* Options every command takes; returns 1 if consumed, -1 on error. */
static int
bwsim_common_opt(struct bwsim_common *c, int argc, char **argv, int *i)
{
	if (strcmp(argv[*i], "--json") == 0) {
		c->json = 1;
		return 1;
	}
	if (strcmp(argv[*i], "--csv") == 0) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "bwsim: --csv needs a file\n");
			return -1;
		}
		c->csv = argv[++*i];
		return 1;
	}
	return 0;
}

static int
bwsim_csv_open(struct bwsim_common *c)
{
	if (c->csv == NULL)
		return 0;
	if ((c->csvf = fopen(c->csv, "w")) == NULL) {
		fprintf(stderr, "bwsim: %s: %s\n", c->csv, strerror(errno));
		return -1;
	}
	return 0;
}

static int
bwsim_csv_close(struct bwsim_common *c)
{
	if (c->csvf != NULL && fclose(c->csvf) != 0) {
		fprintf(stderr, "bwsim: %s: write error\n", c->csv);
		return -1;
	}
	c->csvf = NULL;
	return 0;
}

static int
bwsim_unknown(const char *cmd, const char *arg)
{
	fprintf(stderr, "bwsim %s: unknown argument '%s' (see bwsim(1))\n",
	    cmd, arg);
	return 2;
}

/* ---- tfs ---- */

static int
bwsim_tfs(int argc, char **argv)
{
	struct bwsim_common	c = { 0, NULL, NULL };
	struct exp_tfs_args	a;
	struct exp_tfs_result	r;
	struct jsonw		j;
	int			i, rc, have_rho = 0;

	exp_tfs_default(&a);
	for (i = 1; i < argc; i++) {
		if ((rc = bwsim_common_opt(&c, argc, argv, &i)) < 0)
			return 2;
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--rho") == 0) {
			if (bwsim_double("--rho", argv[++i], 0, 1000, &a.rho))
				return 2;
			have_rho = 1;
		} else if (strcmp(argv[i], "--periods") == 0) {
			if (bwsim_u64("--periods", argv[++i], 1, 100000000,
			    &a.periods))
				return 2;
		} else if (strcmp(argv[i], "--budget-frac") == 0) {
			if (bwsim_double("--budget-frac", argv[++i], 1e-6, 1,
			    &a.budget_frac))
				return 2;
		} else if (strcmp(argv[i], "--seed") == 0) {
			if (bwsim_u64("--seed", argv[++i], 0, UINT64_MAX,
			    &a.seed))
				return 2;
		} else
			return bwsim_unknown("tfs", argv[i]);
	}
	if (!have_rho) {
		fprintf(stderr, "bwsim tfs: --rho R is required (0 = CFS)\n");
		return 2;
	}
	if (bwsim_csv_open(&c))
		return 1;
	rc = exp_tfs(&a, c.csvf, &r);
	if (bwsim_csv_close(&c) || rc != 0) {
		if (rc != 0)
			fprintf(stderr, "bwsim tfs: %s\n", strerror(-rc));
		return 1;
	}
	if (c.json) {
		jsonw_init(&j, stdout);
		jsonw_obj_begin(&j);
		jsonw_key(&j, "rho");
		jsonw_double(&j, a.rho);
		jsonw_key(&j, "periods");
		jsonw_uint(&j, a.periods);
		jsonw_key(&j, "mem_periods");
		jsonw_uint(&j, r.mem_periods);
		jsonw_key(&j, "cpu_periods");
		jsonw_uint(&j, r.cpu_periods);
		jsonw_key(&j, "throttled_ns");
		jsonw_uint(&j, r.throttled_ns);
		jsonw_key(&j, "mem_vruntime_ns");
		jsonw_double(&j, r.mem_vruntime);
		jsonw_key(&j, "cpu_vruntime_ns");
		jsonw_double(&j, r.cpu_vruntime);
		jsonw_obj_end(&j);
		jsonw_end(&j);
	} else {
		printf("%s (rho %g), %llu periods, one BE core\n",
		    a.rho == 0 ? "CFS" : "TFS", a.rho,
		    (unsigned long long)a.periods);
		printf("  periods run by the memory task: %llu (%.1f %%)\n",
		    (unsigned long long)r.mem_periods,
		    100.0 * (double)r.mem_periods /
		    (double)(r.mem_periods + r.cpu_periods));
		printf("  periods run by the cpu task:    %llu (%.1f %%)\n",
		    (unsigned long long)r.cpu_periods,
		    100.0 * (double)r.cpu_periods /
		    (double)(r.mem_periods + r.cpu_periods));
		printf("  throttled: %.3f ms (%.1f %% of the time)\n",
		    (double)r.throttled_ns / 1e6,
		    100.0 * (double)r.throttled_ns / ((double)a.periods * 1e6));
	}
	return 0;
}

/* ---- throttle ---- */

static int
bwsim_throttle(int argc, char **argv)
{
	struct bwsim_common	c = { 0, NULL, NULL };
	struct exp_throttle_args a;
	struct exp_throttle_result r, base;
	struct profile		*p = NULL;
	struct jsonw		j;
	uint64_t		v;
	double			red = 0;
	int			i, rc, have_rho = 0, ret = 2;

	exp_throttle_default(&a);
	for (i = 1; i < argc; i++) {
		if ((rc = bwsim_common_opt(&c, argc, argv, &i)) < 0)
			goto out;
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--rho") == 0) {
			if (bwsim_double("--rho", argv[++i], 0, 1000, &a.rho))
				goto out;
			have_rho = 1;
		} else if (strcmp(argv[i], "--launches") == 0) {
			if (bwsim_u64("--launches", argv[++i], 1, 10000000,
			    &a.launches))
				goto out;
		} else if (strcmp(argv[i], "--q") == 0) {
			if (bwsim_double("--q", argv[++i], 0, 1, &a.q))
				goto out;
		} else if (strcmp(argv[i], "--cores") == 0) {
			if (bwsim_u64("--cores", argv[++i], 1, SIM_MAX_CORES,
			    &v))
				goto out;
			a.ncores = (unsigned int)v;
		} else if (strcmp(argv[i], "--seed") == 0) {
			if (bwsim_u64("--seed", argv[++i], 0, UINT64_MAX,
			    &a.seed))
				goto out;
		} else if (strcmp(argv[i], "--profile") == 0) {
			if ((p = calloc(1, sizeof(*p))) == NULL ||
			    bwsim_load_profile(argv[++i], p))
				goto out;
			a.profile = p;
		} else {
			ret = bwsim_unknown("throttle", argv[i]);
			goto out;
		}
	}
	if (!have_rho) {
		fprintf(stderr, "bwsim throttle: --rho R is required\n");
		goto out;
	}
	ret = 1;
	if (bwsim_csv_open(&c))
		goto out;
	rc = exp_throttle(&a, c.csvf, &r);
	if (bwsim_csv_close(&c) || rc != 0) {
		if (rc != 0)
			fprintf(stderr, "bwsim throttle: %s\n", strerror(-rc));
		goto out;
	}
	/* the same run under plain CFS, for the reduction */
	base = r;
	if (a.rho != 0) {
		a.rho = 0;
		if ((rc = exp_throttle(&a, NULL, &base)) != 0)
			goto out;
	}
	if (base.throttled_ns > 0)
		red = 1 - (double)r.throttled_ns / (double)base.throttled_ns;
	if (c.json) {
		jsonw_init(&j, stdout);
		jsonw_obj_begin(&j);
		jsonw_key(&j, "throttled_ns");
		jsonw_uint(&j, r.throttled_ns);
		jsonw_key(&j, "cfs_throttled_ns");
		jsonw_uint(&j, base.throttled_ns);
		jsonw_key(&j, "reduction");
		jsonw_double(&j, red);
		jsonw_key(&j, "locked_ns");
		jsonw_uint(&j, r.locked_ns);
		jsonw_key(&j, "periods");
		jsonw_uint(&j, r.periods);
		jsonw_key(&j, "q");
		jsonw_double(&j, r.q);
		jsonw_key(&j, "cpu_runtime_ns");
		jsonw_double(&j, r.cpu_runtime);
		jsonw_key(&j, "mem_runtime_ns");
		jsonw_double(&j, r.mem_runtime);
		jsonw_obj_end(&j);
		jsonw_end(&j);
	} else {
		printf("total throttled time: %.3f ms over %llu periods "
		    "(lock held %.3f ms, Q %.4f)\n",
		    (double)r.throttled_ns / 1e6,
		    (unsigned long long)r.periods, (double)r.locked_ns / 1e6,
		    r.q);
		printf("plain CFS on the same run: %.3f ms; "
		    "reduction %.1f %%\n",
		    (double)base.throttled_ns / 1e6, 100 * red);
	}
	ret = 0;
out:
	free(p);
	return ret;
}

/* The bounds both budgets and protect report. */
static void
bwsim_json_bounds(struct jsonw *j, double qnom, uint64_t bound,
    uint64_t wcet0)
{
	jsonw_key(j, "q_nominal");
	jsonw_double(j, qnom);
	jsonw_key(j, "bound_ns");
	jsonw_uint(j, bound);
	jsonw_key(j, "wcet0_ns");
	jsonw_uint(j, wcet0);
}

/* ---- budgets ---- */

/* --be hogs | mixed | F[,F...]: fractions of a core's maximum, 0..1. */
static int
bwsim_be(const char *v, struct exp_budgets_args *a)
{
	char	 buf[256], *tok, *save = NULL;

	a->mixed = 0;
	a->be_nfrac = 0;
	if (v != NULL && strcmp(v, "hogs") == 0)
		return 0;
	if (v != NULL && strcmp(v, "mixed") == 0) {
		a->mixed = 1;
		return 0;
	}
	if (v == NULL || strlen(v) >= sizeof(buf) || *v == '\0')
		goto bad;
	strcpy(buf, v);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (a->be_nfrac == SIM_MAX_CORES || bwsim_double("--be", tok,
		    0, 1, &a->be_frac[a->be_nfrac]) < 0)
			goto bad;
		a->be_nfrac++;
	}
	if (a->be_nfrac > 0)
		return 0;
bad:
	fprintf(stderr, "bwsim budgets: --be hogs|mixed|F[,F...] (each F "
	    "the share of a core's maximum bandwidth its task uses, 0..1, "
	    "at most %d)\n", SIM_MAX_CORES);
	return -1;
}

static int
bwsim_budgets_args(int argc, char **argv, struct exp_budgets_args *a,
    struct bwsim_common *c, struct profile *p)
{
	uint64_t	v;
	int		i, rc, pol, have_prof = 0, have_pol = 0;

	for (i = 1; i < argc; i++) {
		if ((rc = bwsim_common_opt(c, argc, argv, &i)) < 0)
			return 2;
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--profile") == 0) {
			if (bwsim_load_profile(argv[++i], p))
				return 2;
			have_prof = 1;
		} else if (strcmp(argv[i], "--policy") == 0) {
			if (++i >= argc ||
			    (pol = decide_policy_parse(argv[i])) < 0) {
				fprintf(stderr, "bwsim budgets: --policy "
				    "nominal|fair|greedy|smooth\n");
				return 2;
			}
			a->policy = (enum decide_policy)pol;
			have_pol = 1;
		} else if (strcmp(argv[i], "--launches") == 0) {
			if (bwsim_u64("--launches", argv[++i], 1, 100000000,
			    &a->launches))
				return 2;
		} else if (strcmp(argv[i], "--seed") == 0) {
			if (bwsim_u64("--seed", argv[++i], 0, UINT64_MAX,
			    &a->seed))
				return 2;
		} else if (strcmp(argv[i], "--cores") == 0) {
			if (bwsim_u64("--cores", argv[++i], 1, SIM_MAX_CORES,
			    &v))
				return 2;
			a->ncores = (unsigned int)v;
		} else if (strcmp(argv[i], "--bwmax-events") == 0) {
			if (bwsim_double("--bwmax-events", argv[++i], 1, 1e12,
			    &a->bwmax_events))
				return 2;
		} else if (strcmp(argv[i], "--overhead-events") == 0) {
			if (bwsim_double("--overhead-events", argv[++i], 0,
			    1e12, &a->overhead_events))
				return 2;
		} else if (strcmp(argv[i], "--slowdown") == 0) {
			if (bwsim_double("--slowdown", argv[++i], 0, 100,
			    &a->slowdown))
				return 2;
		} else if (strcmp(argv[i], "--smooth-a") == 0) {
			if (bwsim_double("--smooth-a", argv[++i], 1e-6, 1,
			    &a->smooth_a))
				return 2;
		} else if (strcmp(argv[i], "--lead-ns") == 0) {
			if (bwsim_u64("--lead-ns", argv[++i], 1, 1000000000,
			    &a->lead_ns))
				return 2;
		} else if (strcmp(argv[i], "--jitter") == 0) {
			if (bwsim_double("--jitter", argv[++i], 0, 0.99,
			    &a->jitter))
				return 2;
		} else if (strcmp(argv[i], "--lookahead") == 0) {
			if (bwsim_u64("--lookahead", argv[++i], 1,
			    SIM_PLAN_MAX, &v))
				return 2;
			a->plan_len = (unsigned int)v;
		} else if (strcmp(argv[i], "--late-p") == 0) {
			if (bwsim_double("--late-p", argv[++i], 0, 1,
			    &a->late_p))
				return 2;
		} else if (strcmp(argv[i], "--late-ns") == 0) {
			if (bwsim_u64("--late-ns", argv[++i], 0, 1000000000,
			    &a->late_ns))
				return 2;
		} else if (strcmp(argv[i], "--step-ns") == 0) {
			if (bwsim_u64("--step-ns", argv[++i], 100, 1000000,
			    &a->step_ns))
				return 2;
		} else if (strcmp(argv[i], "--csv-launches") == 0) {
			if (bwsim_u64("--csv-launches", argv[++i], 0,
			    UINT64_MAX, &a->csv_launches))
				return 2;
		} else if (strcmp(argv[i], "--rho") == 0) {
			if (bwsim_double("--rho", argv[++i], 0, 1000, &a->rho))
				return 2;
		} else if (strcmp(argv[i], "--be") == 0) {
			if (bwsim_be(argv[++i], a) < 0)
				return 2;
		} else if (strcmp(argv[i], "--queued") == 0) {
			if (bwsim_u64("--queued", argv[++i], 1, 2, &v))
				return 2;
			a->queued = (unsigned int)v;
		} else if (strcmp(argv[i], "--start") == 0) {
			if (++i < argc && strcmp(argv[i], "cpu") == 0)
				a->gpu_start = 0;
			else if (i < argc && strcmp(argv[i], "gpu") == 0)
				a->gpu_start = 1;
			else {
				fprintf(stderr, "bwsim budgets: --start "
				    "cpu|gpu\n");
				return 2;
			}
		} else if (strcmp(argv[i], "--speed") == 0) {
			if (++i < argc && strcmp(argv[i], "linear") == 0)
				a->speed = SIM_SPEED_LINEAR;
			else if (i < argc && strcmp(argv[i], "harmonic") == 0)
				a->speed = SIM_SPEED_HARMONIC;
			else {
				fprintf(stderr, "bwsim budgets: --speed "
				    "linear|harmonic\n");
				return 2;
			}
		} else
			return bwsim_unknown("budgets", argv[i]);
	}
	if (!have_prof || !have_pol) {
		fprintf(stderr, "bwsim budgets: --profile K.bwk and --policy "
		    "are required\n");
		return 2;
	}
	return 0;
}

static void
bwsim_budgets_print(const struct exp_budgets_args *a,
    const struct exp_budgets_result *r, int json)
{
	struct jsonw	j;

	if (!json) {
		printf("%s, %llu launches of %s (Q-bar %.4f, bound %.3f ms, "
		    "isolation %.3f ms)\n", decide_policy_name(a->policy),
		    (unsigned long long)r->launches, a->profile->name, r->qnom,
		    (double)r->bound_ns / 1e6, (double)r->wcet0_ns / 1e6);
		printf("  over bound: %llu, max actual/bound %.4f, "
		    "mean %.4f\n", (unsigned long long)r->over_bound,
		    r->max_ratio, r->mean_ratio);
		printf("  BE memory events per launch: %.0f\n", r->be_events);
		printf("  BE CPU time per launch: %.3f ms (cpu-bound tasks "
		    "%.3f ms)\n", r->be_run_ns / 1e6, r->cpu_run_ns / 1e6);
		printf("  Q over %llu periods: mean %.4f, std %.4f\n",
		    (unsigned long long)r->periods, r->q_mean, r->q_std);
		printf("  periods on a plan's first entry %llu, on a "
		    "look-ahead entry %llu, static %llu\n",
		    (unsigned long long)r->plan_first,
		    (unsigned long long)r->plan_ahead,
		    (unsigned long long)r->static_periods);
		printf("  periods above Q-bar: %.1f %%\n", r->periods > 0 ?
		    100.0 * (double)r->dyn_periods / (double)r->periods : 0);
		if (a->queued == 2)
			printf("  queued kernel (start %s): %llu periods, "
			    "%.1f %% above Q-bar, mean Q %.4f, mean time "
			    "%.3f ms\n", a->gpu_start ? "gpu" : "cpu",
			    (unsigned long long)r->periods2, r->periods2 > 0 ?
			    100.0 * (double)r->dyn_periods2 /
			    (double)r->periods2 : 0, r->q2_mean,
			    r->mean2_ns / 1e6);
		return;
	}
	jsonw_init(&j, stdout);
	jsonw_obj_begin(&j);
	jsonw_key(&j, "policy");
	jsonw_str(&j, decide_policy_name(a->policy));
	jsonw_key(&j, "launches");
	jsonw_uint(&j, r->launches);
	jsonw_key(&j, "over_bound");
	jsonw_uint(&j, r->over_bound);
	jsonw_key(&j, "max_ratio");
	jsonw_double(&j, r->max_ratio);
	jsonw_key(&j, "mean_ratio");
	jsonw_double(&j, r->mean_ratio);
	jsonw_key(&j, "be_events");
	jsonw_double(&j, r->be_events);
	jsonw_key(&j, "be_run_ns");
	jsonw_double(&j, r->be_run_ns);
	jsonw_key(&j, "cpu_run_ns");
	jsonw_double(&j, r->cpu_run_ns);
	jsonw_key(&j, "q_mean");
	jsonw_double(&j, r->q_mean);
	jsonw_key(&j, "q_std");
	jsonw_double(&j, r->q_std);
	bwsim_json_bounds(&j, r->qnom, r->bound_ns, r->wcet0_ns);
	jsonw_key(&j, "mean_ns");
	jsonw_double(&j, r->mean_ns);
	jsonw_key(&j, "periods");
	jsonw_uint(&j, r->periods);
	jsonw_key(&j, "fallbacks");
	jsonw_uint(&j, r->fallbacks);
	jsonw_key(&j, "plan_first");
	jsonw_uint(&j, r->plan_first);
	jsonw_key(&j, "plan_ahead");
	jsonw_uint(&j, r->plan_ahead);
	jsonw_key(&j, "static_periods");
	jsonw_uint(&j, r->static_periods);
	jsonw_key(&j, "dyn_periods");
	jsonw_uint(&j, r->dyn_periods);
	if (a->queued == 2) {
		jsonw_key(&j, "start");
		jsonw_str(&j, a->gpu_start ? "gpu" : "cpu");
		jsonw_key(&j, "periods2");
		jsonw_uint(&j, r->periods2);
		jsonw_key(&j, "dyn_periods2");
		jsonw_uint(&j, r->dyn_periods2);
		jsonw_key(&j, "q2_mean");
		jsonw_double(&j, r->q2_mean);
		jsonw_key(&j, "mean2_ns");
		jsonw_double(&j, r->mean2_ns);
	}
	jsonw_obj_end(&j);
	jsonw_end(&j);
}

static int
bwsim_budgets(int argc, char **argv)
{
	struct bwsim_common	 c = { 0, NULL, NULL };
	struct exp_budgets_args	 a;
	struct exp_budgets_result r;
	struct profile		*p;
	int			 rc, ret;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return 1;
	exp_budgets_default(&a);
	a.profile = p;
	if ((ret = bwsim_budgets_args(argc, argv, &a, &c, p)) != 0)
		goto out;
	ret = 1;
	if (bwsim_csv_open(&c))
		goto out;
	rc = exp_budgets(&a, c.csvf, &r);
	if (bwsim_csv_close(&c) || rc != 0) {
		if (rc != 0)
			fprintf(stderr, "bwsim budgets: %s\n", strerror(-rc));
		goto out;
	}
	bwsim_budgets_print(&a, &r, c.json);
	ret = 0;
out:
	free(p);
	return ret;
}

/* ---- protect ---- */

static void
bwsim_protect_print(const struct exp_protect_args *a,
    const struct exp_protect_result *r, int json)
{
	static const char *const name[] = { "solo", "corun", "locked" };
	struct jsonw	j;

	if (!json) {
		printf("%s, %llu launches: response time mean %.3f ms, max "
		    "%.3f ms\n", name[a->scenario],
		    (unsigned long long)r->launches, r->mean_ns / 1e6,
		    r->max_ns / 1e6);
		printf("  BE budget Q %.4f (Q-bar %.4f), bound G(Q) %.3f ms, "
		    "over bound %llu, BE events per launch %.0f\n", r->q,
		    r->qnom, (double)r->bound_ns / 1e6,
		    (unsigned long long)r->over_bound, r->be_events);
		return;
	}
	jsonw_init(&j, stdout);
	jsonw_obj_begin(&j);
	jsonw_key(&j, "scenario");
	jsonw_str(&j, name[a->scenario]);
	jsonw_key(&j, "launches");
	jsonw_uint(&j, r->launches);
	jsonw_key(&j, "mean_ns");
	jsonw_double(&j, r->mean_ns);
	jsonw_key(&j, "max_ns");
	jsonw_double(&j, r->max_ns);
	jsonw_key(&j, "q");
	jsonw_double(&j, r->q);
	bwsim_json_bounds(&j, r->qnom, r->bound_ns, r->wcet0_ns);
	jsonw_key(&j, "over_bound");
	jsonw_uint(&j, r->over_bound);
	jsonw_key(&j, "be_events");
	jsonw_double(&j, r->be_events);
	jsonw_obj_end(&j);
	jsonw_end(&j);
}

static int
bwsim_protect(int argc, char **argv)
{
	struct bwsim_common	 c = { 0, NULL, NULL };
	struct exp_protect_args	 a;
	struct exp_protect_result r;
	struct profile		*p = NULL;
	uint64_t		 v;
	int			 i, rc, ret = 2, have = 0;

	exp_protect_default(&a);
	for (i = 1; i < argc; i++) {
		if ((rc = bwsim_common_opt(&c, argc, argv, &i)) < 0)
			goto out;
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--scenario") == 0) {
			const char *s = ++i < argc ? argv[i] : "";

			have = 1;
			if (strcmp(s, "solo") == 0)
				a.scenario = EXP_SOLO;
			else if (strcmp(s, "corun") == 0)
				a.scenario = EXP_CORUN;
			else if (strcmp(s, "locked") == 0)
				a.scenario = EXP_LOCKED;
			else
				have = 0;
		} else if (strcmp(argv[i], "--q") == 0) {
			if (bwsim_double("--q", argv[++i], 0, 1, &a.q))
				goto out;
		} else if (strcmp(argv[i], "--launches") == 0) {
			if (bwsim_u64("--launches", argv[++i], 1, 100000000,
			    &a.launches))
				goto out;
		} else if (strcmp(argv[i], "--seed") == 0) {
			if (bwsim_u64("--seed", argv[++i], 0, UINT64_MAX,
			    &a.seed))
				goto out;
		} else if (strcmp(argv[i], "--cores") == 0) {
			if (bwsim_u64("--cores", argv[++i], 1, SIM_MAX_CORES,
			    &v))
				goto out;
			a.ncores = (unsigned int)v;
		} else if (strcmp(argv[i], "--jitter") == 0) {
			if (bwsim_double("--jitter", argv[++i], 0, 0.99,
			    &a.jitter))
				goto out;
		} else if (strcmp(argv[i], "--profile") == 0) {
			if ((p = calloc(1, sizeof(*p))) == NULL ||
			    bwsim_load_profile(argv[++i], p))
				goto out;
			a.profile = p;
		} else {
			ret = bwsim_unknown("protect", argv[i]);
			goto out;
		}
	}
	if (!have) {
		fprintf(stderr, "bwsim protect: --scenario solo|corun|locked "
		    "is required\n");
		goto out;
	}
	ret = 1;
	if ((rc = exp_protect(&a, &r)) != 0) {
		fprintf(stderr, "bwsim protect: %s\n", strerror(-rc));
		goto out;
	}
	bwsim_protect_print(&a, &r, c.json);
	ret = 0;
out:
	free(p);
	return ret;
}

static const struct {
	const char	*name;
	int		(*main)(int, char **);
	const char	*usage;
} bwsim_cmds[] = {
	{ "tfs", bwsim_tfs, "tfs --rho R [--periods P] [--budget-frac F] "
	    "[--seed S] [--json] [--csv FILE]" },
	{ "throttle", bwsim_throttle, "throttle --rho R [--launches N] [--q Q] "
	    "[--profile K.bwk] [--cores N] [--seed S] [--json] [--csv FILE]" },
	{ "budgets", bwsim_budgets, "budgets --profile K.bwk --policy "
	    "nominal|fair|greedy|smooth --launches N [--seed S] [--json] "
	    "[--csv FILE] (more in bwsim(1))" },
	{ "protect", bwsim_protect, "protect --scenario solo|corun|locked "
	    "[--q Q] [--launches N] [--profile K.bwk] [--cores N] "
	    "[--jitter J] [--seed S] [--json]" },
	{ "partition", bwsim_partition_main, "partition [--tasks N] "
	    "[--prm P] [--sets S] [--seed X] [--sms M] [--umin U] [--umax U] "
	    "[--ustep U] [--only LIST] [--json] [--csv FILE]" },
	{ "plot", bwsim_plot_main, "plot q|vruntime|shares|throttle|partition "
	    "[-o PREFIX] [--profile K.bwk] [--seed S]" },
	{ "sm", bwsim_sm_main, "sm FILE.ptx --grid X[,Y] --block X[,Y] ... "
	    "--policy lrr|gto|rtpaws [--reorder] [--runs N] [--json]" },
	{ "warps", bwsim_warps_main, "warps --example fig4.1 [--search] | "
	    "warps FILE.ptx --grid X[,Y] --block X[,Y] ... [--p 2,4,8] "
	    "[--json]" },
};

#define BWSIM_NCMDS (sizeof(bwsim_cmds) / sizeof(bwsim_cmds[0]))

static int
bwsim_usage(FILE *f)
{
	size_t	i;

	fprintf(f, "usage: bwsim EXPERIMENT ARGS...\n");
	for (i = 0; i < BWSIM_NCMDS; i++)
		fprintf(f, "       bwsim %s\n", bwsim_cmds[i].usage);
	return 2;
}

int
main(int argc, char **argv)
{
	size_t	i;

	if (argc < 2)
		return bwsim_usage(stderr);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		bwsim_usage(stdout);
		return 0;
	}
	for (i = 0; i < BWSIM_NCMDS; i++)
		if (strcmp(argv[1], bwsim_cmds[i].name) == 0)
			return bwsim_cmds[i].main(argc - 1, argv + 1);
	fprintf(stderr, "bwsim: unknown experiment '%s'\n", argv[1]);
	return bwsim_usage(stderr);
}
