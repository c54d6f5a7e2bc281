/*
 * an_model.c - bwanalyze wcet, nominal, budget, rta and show: the
 * analysis core (model/) on .bwk profiles and taskset files.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwanalyze.h"
#include "budget.h"
#include "fileio.h"
#include "jsonw.h"
#include "profile.h"
#include "progress.h"
#include "rta.h"
#include "wcet.h"

/* A loaded profile and its model. */
struct an_kernel {
	const char		*path;
	struct profile		 p;
	struct wcet_kernel	 k;
	struct progress_table	 t;
};

static int
an_u64(const char *s, const char **end, uint64_t *v)
{
	uint64_t	x = 0;
	const char	*p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*end = p;
	*v = x;
	return 0;
}

static int
an_load(const char *cmd, const char *path, struct an_kernel *ak)
{
	char	*buf, err[256];
	size_t	 len;
	int	 rc;

	ak->path = path;
	if ((rc = fileio_read(path, PROFILE_MAX_SIZE, &buf, &len)) != 0) {
		fprintf(stderr, "bwanalyze %s: %s: %s\n", cmd, path,
		    rc == -EFBIG ? "larger than the 1 MiB profile limit" :
		    strerror(-rc));
		return 2;
	}
	rc = profile_parse(buf, len, &ak->p, err, sizeof(err));
	free(buf);
	if (rc != 0) {
		fprintf(stderr, "bwanalyze %s: %s: %s\n", cmd, path, err);
		return 2;
	}
	if (profile_to_model(&ak->p, &ak->k, &ak->t) != 0) {
		fprintf(stderr, "bwanalyze %s: %s: inconsistent profile\n",
		    cmd, path);
		return 2;
	}
	return 0;
}

int
an_wcet_main(int argc, char **argv)
{
	struct an_opt	 opts[] = { AN_OPT("q", AN_VALUE), AN_OPT("sync", AN_VALUE),
	    AN_OPT("json", AN_FLAG), AN_OPT_END };
	struct an_kernel ak;
	struct jsonw	 w;
	const char	*path, *s;
	double		 q, sync = 0;
	uint64_t	 g;
	int		 rc;

	if ((rc = an_args(argc, argv, opts, "PROFILE", &path)) != 0)
		return rc;
	if ((s = an_opt(opts, "q")) == NULL)
		return an_usage(argv[0], "%s", "--q Q is required");
	if ((rc = an_double(argv[0], "q", s, 0, 1, &q)) != 0)
		return rc;
	if ((s = an_opt(opts, "sync")) != NULL &&
	    strcmp(s, "0") != 0 && strcmp(s, "1") != 0)
		return an_usage(argv[0], "bad value '%s' for --sync (0 or 1)",
		    s);
	if (s != NULL)
		sync = s[0] == '1';
	if ((rc = an_load(argv[0], path, &ak)) != 0)
		return rc;
	g = wcet_bound(&ak.k, ak.t.n, q, (int)sync);
	if (an_opt(opts, "json")) {
		jsonw_init(&w, stdout);
		jsonw_obj_begin(&w);
		jsonw_key(&w, "wcet_ns");
		jsonw_uint(&w, g);
		jsonw_obj_end(&w);
		jsonw_end(&w);
	} else
		printf("%s: G(Q=%g, sync=%d) = %llu ns\n", ak.p.name, q,
		    (int)sync, (unsigned long long)g);
	return 0;
}

/* --slowdown and --bwmax-events/--overhead-events into a nominal. */
static int
an_nominal(const char *cmd, const struct an_opt *opts, struct an_kernel *ak,
    struct budget_nominal *nom, double *slowdown)
{
	const char	*s, *b, *e;
	double		 bw = 0, ov = 0;
	int		 rc;

	*slowdown = BUDGET_DEFAULT_SLOWDOWN;
	if ((s = an_opt(opts, "slowdown")) != NULL &&
	    (rc = an_double(cmd, "slowdown", s, 0, 1e6, slowdown)) != 0)
		return rc;
	b = an_opt(opts, "bwmax-events");
	e = an_opt(opts, "overhead-events");
	if ((b == NULL) != (e == NULL))
		return an_usage(cmd, "%s", "--bwmax-events and "
		    "--overhead-events go together");
	if (b && ((rc = an_double(cmd, "bwmax-events", b, 1e-300, 1e300,
	    &bw)) != 0 || (rc = an_double(cmd, "overhead-events", e, 0,
	    1e300, &ov)) != 0))
		return rc;
	if (budget_nominal(&ak->k, ak->t.n, *slowdown, bw, ov, nom) != 0)
		return an_usage(cmd, "%s", "bad nominal arguments");
	return 0;
}

int
an_nominal_main(int argc, char **argv)
{
	struct an_opt	 opts[] = { AN_OPT("slowdown", AN_VALUE),
	    AN_OPT("bwmax-events", AN_VALUE), AN_OPT("overhead-events", AN_VALUE),
	    AN_OPT("json", AN_FLAG), AN_OPT_END };
	struct an_kernel	ak;
	struct budget_nominal	nom;
	struct jsonw		w;
	const char		*path;
	double			 slow;
	int			 rc;

	if ((rc = an_args(argc, argv, opts, "PROFILE", &path)) != 0)
		return rc;
	if ((rc = an_load(argv[0], path, &ak)) != 0 ||
	    (rc = an_nominal(argv[0], opts, &ak, &nom, &slow)) != 0)
		return rc;
	if (an_opt(opts, "json")) {
		jsonw_init(&w, stdout);
		jsonw_obj_begin(&w);
		jsonw_key(&w, "q");
		jsonw_double(&w, nom.q);
		jsonw_key(&w, "q_adjusted");
		jsonw_double(&w, nom.q_adjusted);
		jsonw_key(&w, "wcet_ns");
		jsonw_uint(&w, nom.wcet);
		jsonw_key(&w, "wcet0_ns");
		jsonw_uint(&w, nom.wcet0);
		jsonw_obj_end(&w);
		jsonw_end(&w);
		return 0;
	}
	printf("%s: nominal budget for a %g %% slowdown\n", ak.p.name,
	    slow * 100);
	printf("  Q-bar           %.4f\n", nom.q);
	printf("  Q-bar adjusted  %.4f\n", nom.q_adjusted);
	printf("  G(Q-bar)        %llu ns\n", (unsigned long long)nom.wcet);
	printf("  G(0)            %llu ns\n", (unsigned long long)nom.wcet0);
	return 0;
}

/* "R0,R1,..." in cluster-id order, each at most Ni. */
static int
an_remaining(const char *cmd, const char *s, const struct an_kernel *ak,
    uint64_t *r)
{
	const char	*end;
	unsigned int	 i = 0;

	for (;;) {
		if (i == ak->k.nclusters || an_u64(s, &end, &r[i]) != 0 ||
		    (*end != ',' && *end != '\0'))
			break;
		if (r[i] > ak->t.n[i]) {
			fprintf(stderr, "bwanalyze %s: --remaining: cluster %u "
			    "has only %llu blocks in %s\n", cmd, i,
			    (unsigned long long)ak->t.n[i], ak->path);
			return 2;
		}
		i++;
		if (*end == '\0') {
			if (i == ak->k.nclusters)
				return 0;
			break;
		}
		s = end + 1;
	}
	fprintf(stderr, "bwanalyze %s: --remaining needs %u comma-separated "
	    "block counts (one per cluster of %s)\n", cmd, ak->k.nclusters,
	    ak->path);
	return 2;
}

int
an_budget_main(int argc, char **argv)
{
	struct an_opt	 opts[] = { AN_OPT("policy", AN_VALUE),
	    AN_OPT("elapsed-ns", AN_VALUE), AN_OPT("remaining", AN_VALUE),
	    AN_OPT("q-nominal", AN_VALUE), AN_OPT("prev-q", AN_VALUE),
	    AN_OPT("json", AN_FLAG), AN_OPT_END };
	struct an_kernel	 ak;
	struct budget_nominal	 nom;
	struct jsonw		 w;
	uint64_t		 r[WCET_MAX_CLUSTERS];
	const char		*path, *pol, *s;
	double			 elapsed, qnom, prev, t, q, slow;
	int			 rc;

	if ((rc = an_args(argc, argv, opts, "PROFILE", &path)) != 0)
		return rc;
	pol = an_opt(opts, "policy");
	if (pol == NULL || (strcmp(pol, "fair") && strcmp(pol, "greedy") &&
	    strcmp(pol, "smooth")))
		return an_usage(argv[0], "%s", "--policy fair|greedy|smooth "
		    "is required");
	if ((s = an_opt(opts, "elapsed-ns")) == NULL)
		return an_usage(argv[0], "%s", "--elapsed-ns E is required");
	if ((rc = an_double(argv[0], "elapsed-ns", s, 0, 1e300,
	    &elapsed)) != 0)
		return rc;
	if (an_opt(opts, "remaining") == NULL)
		return an_usage(argv[0], "%s", "--remaining R0,R1,... is "
		    "required");
	if ((rc = an_load(argv[0], path, &ak)) != 0)
		return rc;
	if ((rc = an_remaining(argv[0], an_opt(opts, "remaining"), &ak,
	    r)) != 0)
		return rc;
	if ((s = an_opt(opts, "q-nominal")) != NULL) {
		if ((rc = an_double(argv[0], "q-nominal", s, 0, 1,
		    &qnom)) != 0)
			return rc;
	} else {
		if ((rc = an_nominal(argv[0], opts, &ak, &nom, &slow)) != 0)
			return rc;
		qnom = nom.q;
	}
	prev = qnom;
	if ((s = an_opt(opts, "prev-q")) != NULL &&
	    (rc = an_double(argv[0], "prev-q", s, 0, 1, &prev)) != 0)
		return rc;
	/* remaining time: the nominal bound of the whole kernel minus
	 * what has elapsed since its launch */
	t = (double)wcet_bound(&ak.k, ak.t.n, qnom, 0) - elapsed;
	if (strcmp(pol, "fair") == 0)
		q = budget_fair(&ak.k, r, t, qnom);
	else {
		q = budget_greedy(&ak.k, r, t, qnom);
		if (strcmp(pol, "smooth") == 0)
			q = budget_smooth(q, prev, BUDGET_DEFAULT_SMOOTH_A,
			    qnom);
	}
	if (an_opt(opts, "json")) {
		jsonw_init(&w, stdout);
		jsonw_obj_begin(&w);
		jsonw_key(&w, "q");
		jsonw_double(&w, q);
		jsonw_obj_end(&w);
		jsonw_end(&w);
	} else
		printf("%s: %s budget Q = %.6f (Q-bar %.4f, remaining time "
		    "%.0f ns)\n", ak.p.name, pol, q, qnom, t);
	return 0;
}

int
an_rta_main(int argc, char **argv)
{
	struct an_opt		 opts[] = { AN_OPT("json", AN_FLAG),
	    AN_OPT_END };
	struct rta_taskset	 ts;
	struct rta_result	 res[RTA_MAX_TASKS];
	struct jsonw		 w;
	const char		*path;
	char			*buf, err[256];
	size_t			 len;
	unsigned int		 i;
	int			 rc, ok;

	if ((rc = an_args(argc, argv, opts, "TASKSET", &path)) != 0)
		return rc;
	if ((rc = fileio_read(path, RTA_MAX_SIZE, &buf, &len)) != 0) {
		fprintf(stderr, "bwanalyze rta: %s: %s\n", path,
		    rc == -EFBIG ? "larger than the 64 KiB taskset limit" :
		    strerror(-rc));
		return 2;
	}
	rc = rta_parse(buf, len, &ts, err, sizeof(err));
	free(buf);
	if (rc != 0) {
		fprintf(stderr, "bwanalyze rta: %s: %s\n", path, err);
		return 2;
	}
	ok = rta_all(&ts, res);
	if (an_opt(opts, "json")) {
		jsonw_init(&w, stdout);
		jsonw_obj_begin(&w);
		jsonw_key(&w, "schedulable");
		jsonw_bool(&w, ok);
		jsonw_key(&w, "tasks");
		jsonw_arr_begin(&w);
		for (i = 0; i < ts.ntasks; i++) {
			jsonw_obj_begin(&w);
			jsonw_key(&w, "name");
			jsonw_str(&w, ts.task[i].name);
			jsonw_key(&w, "response_ns");
			jsonw_uint(&w, res[i].response);
			jsonw_key(&w, "blocking_ns");
			jsonw_uint(&w, res[i].blocking);
			jsonw_key(&w, "deadline_ns");
			jsonw_uint(&w, ts.task[i].deadline);
			jsonw_key(&w, "schedulable");
			jsonw_bool(&w, res[i].schedulable);
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		jsonw_obj_end(&w);
		jsonw_end(&w);
	} else {
		printf("%-16s %14s %14s %14s  %s\n", "task", "response_ns",
		    "blocking_ns", "deadline_ns", "ok");
		for (i = 0; i < ts.ntasks; i++)
			printf("%-16s %14llu %14llu %14llu  %s\n",
			    ts.task[i].name,
			    (unsigned long long)res[i].response,
			    (unsigned long long)res[i].blocking,
			    (unsigned long long)ts.task[i].deadline,
			    res[i].schedulable ? "yes" : "NO");
		printf("%s\n", ok ? "schedulable" : "NOT schedulable");
	}
	return ok ? 0 : 1;
}

#define AN_TABLE_STEPS	10

static void
an_show_json(const struct an_kernel *ak, const struct budget_nominal *nom)
{
	struct jsonw	w;
	unsigned int	i;
	double		q;

	jsonw_init(&w, stdout);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "kernel");
	jsonw_str(&w, ak->p.name);
	jsonw_key(&w, "blocks");
	jsonw_uint(&w, ak->p.blocks);
	jsonw_key(&w, "concurrency");
	jsonw_uint(&w, ak->p.concurrency);
	jsonw_key(&w, "period_ns");
	jsonw_uint(&w, ak->p.period_ns);
	jsonw_key(&w, "intervals");
	jsonw_uint(&w, ak->p.nintervals);
	jsonw_key(&w, "clusters");
	jsonw_arr_begin(&w);
	for (i = 0; i < ak->p.nclusters; i++) {
		jsonw_obj_begin(&w);
		jsonw_key(&w, "id");
		jsonw_uint(&w, i);
		jsonw_key(&w, "e0_ns");
		jsonw_uint(&w, ak->p.e0[i]);
		jsonw_key(&w, "e1_ns");
		jsonw_uint(&w, ak->p.e1[i]);
		jsonw_key(&w, "blocks");
		jsonw_uint(&w, ak->t.n[i]);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "q_nominal");
	jsonw_double(&w, nom->q);
	jsonw_key(&w, "wcet0_ns");
	jsonw_uint(&w, nom->wcet0);
	jsonw_key(&w, "wcet_nominal_ns");
	jsonw_uint(&w, nom->wcet);
	jsonw_key(&w, "wcet1_ns");
	jsonw_uint(&w, wcet_bound(&ak->k, ak->t.n, 1, 0));
	jsonw_key(&w, "table");
	jsonw_arr_begin(&w);
	for (i = 0; i <= AN_TABLE_STEPS; i++) {
		q = (double)i / AN_TABLE_STEPS;
		jsonw_obj_begin(&w);
		jsonw_key(&w, "q");
		jsonw_double(&w, q);
		jsonw_key(&w, "wcet_ns");
		jsonw_uint(&w, wcet_bound(&ak->k, ak->t.n, q, 0));
		jsonw_key(&w, "wcet_sync_ns");
		jsonw_uint(&w, wcet_bound(&ak->k, ak->t.n, q, 1));
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	jsonw_end(&w);
}

static void
an_show_text(const struct an_kernel *ak, const struct budget_nominal *nom)
{
	uint64_t	g0 = nom->wcet0, g;
	unsigned int	i;
	double		q;

	printf("kernel %s: %u blocks, %u at once, period %llu ns, "
	    "%u intervals\n", ak->p.name, ak->p.blocks, ak->p.concurrency,
	    (unsigned long long)ak->p.period_ns, ak->p.nintervals);
	printf("%8s %12s %12s %10s\n", "cluster", "e0_ns", "e1_ns", "blocks");
	for (i = 0; i < ak->p.nclusters; i++)
		printf("%8u %12llu %12llu %10llu\n", i,
		    (unsigned long long)ak->p.e0[i],
		    (unsigned long long)ak->p.e1[i],
		    (unsigned long long)ak->t.n[i]);
	printf("G(0)      = %llu ns\n", (unsigned long long)g0);
	printf("G(Q-bar)  = %llu ns  (Q-bar = %.4f for a %g %% slowdown)\n",
	    (unsigned long long)nom->wcet, nom->q,
	    BUDGET_DEFAULT_SLOWDOWN * 100);
	printf("G(1)      = %llu ns\n",
	    (unsigned long long)wcet_bound(&ak->k, ak->t.n, 1, 0));
	printf("%6s %14s %14s %10s\n", "Q", "G sync=0", "G sync=1",
	    "slowdown");
	for (i = 0; i <= AN_TABLE_STEPS; i++) {
		q = (double)i / AN_TABLE_STEPS;
		g = wcet_bound(&ak->k, ak->t.n, q, 0);
		printf("%6.2f %14llu %14llu %9.1f%%\n", q,
		    (unsigned long long)g,
		    (unsigned long long)wcet_bound(&ak->k, ak->t.n, q, 1),
		    g0 ? 100.0 * ((double)g - (double)g0) / (double)g0 : 0);
	}
}

int
an_show_main(int argc, char **argv)
{
	struct an_opt		 opts[] = { AN_OPT("json", AN_FLAG),
	    AN_OPT_END };
	struct an_kernel	 ak;
	struct budget_nominal	 nom;
	const char		*path;
	int			 rc;

	if ((rc = an_args(argc, argv, opts, "PROFILE", &path)) != 0 ||
	    (rc = an_load(argv[0], path, &ak)) != 0)
		return rc;
	if (budget_nominal(&ak.k, ak.t.n, BUDGET_DEFAULT_SLOWDOWN, 0, 0,
	    &nom) != 0)
		return an_usage(argv[0], "%s", "nominal search failed");
	if (an_opt(opts, "json"))
		an_show_json(&ak, &nom);
	else
		an_show_text(&ak, &nom);
	return 0;
}
