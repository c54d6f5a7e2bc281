/*
 * an_cluster.c - bwanalyze cluster: a trace of block execution times to
 * a .bwk profile (doc/profiling.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_profiling.h"
#include "fileio.h"
#include "jsonw.h"
#include "kstest.h"
#include "profile.h"
#include "stats.h"

#define AP_DEFAULT_RES		128
#define AP_MIN_RUNS		10
#define AP_POOL_MAX		(1u << 20)	/* pooled samples per cluster */

/* Chan et al.: merge a block's moments into the cluster's. */
static void
ap_merge(struct cluster_stats *c, const struct trace_stat *s, double *m2)
{
	double	n = (double)c->count, k = (double)s->count, d;

	if (s->count == 0)
		return;
	d = s->mean - c->mean;
	c->mean += d * k / (n + k);
	*m2 += s->m2 + d * d * n * k / (n + k);
	c->count += s->count;
	if ((double)s->max > c->max)
		c->max = (double)s->max;
}

/*
 * Pool the reservoirs of cluster c in run-major order (sample j of every
 * block, then j + 1), at most AP_POOL_MAX values.
 */
double *
ap_pool(const struct ap_clustering *cl, unsigned int c, unsigned int cond,
    size_t *n)
{
	const struct trace_acc *a = &cl->acc;
	double	*x;
	uint32_t b, j, len;
	uint32_t *v;
	size_t	k = 0, cap = (size_t)cl->c[c].nblocks * a->res;

	if (cap > AP_POOL_MAX)
		cap = AP_POOL_MAX;
	if ((x = malloc((cap ? cap : 1) * sizeof(*x))) == NULL)
		return NULL;
	for (j = 0; j < a->res && k < cap; j++)
		for (b = 0; b < a->nblocks && k < cap; b++) {
			if (cl->id[b] != c)
				continue;
			v = trace_acc_sample(a, b, cond, &len);
			if (j < len)
				x[k++] = v[j];
		}
	*n = k;
	return x;
}

static double
ap_norm_cdf(double x, const void *arg)
{
	const struct cluster_stats *s = arg;

	return s->sd > 0.0 ? stats_norm_cdf((x - s->mean) / s->sd) :
	    (x >= s->mean ? 1.0 : 0.0);
}

/* e0/e1 and the Table 4.1 columns of one cluster and condition. */
static int
ap_select(const char *cmd, struct ap_clustering *cl, unsigned int c,
    unsigned int cond)
{
	struct ap_cstat *cs = &cl->c[c];
	struct cluster_stats *st = &cs->st[cond];
	const char *why;
	double	*x, v;
	size_t	n, i;

	if ((x = ap_pool(cl, c, cond, &n)) == NULL)
		return an_fail(cmd, "out of memory");
	if (cluster_select_value(&cl->sel, st, x, n, &v, &why) < 0) {
		free(x);
		return an_fail(cmd, "cluster %u, %s: %s cannot select e%u: %s",
		    c, cond ? "interference" : "isolation", cl->sel_text, cond,
		    why);
	}
	cs->e[cond] = ceil(v) < 1.0 ? 1.0 : ceil(v);
	stats_sort(x, n);
	/* whole-ns samples: compare with the rounded normal */
	cs->fit[cond] = ks_d1_grid(x, n, ap_norm_cdf, st, ks_grid(x, n),
	    KS_TWO_SIDED, -INFINITY) / ks_critical(cl->alpha, n, 0);
	cs->pct[cond] = ap_norm_cdf(cs->e[cond], st);
	for (i = 0; i < n && x[i] <= cs->e[cond]; i++)
		;
	cs->emp[cond] = n ? (double)i / (double)n : NAN;
	free(x);
	return 0;
}

static int
ap_check_runs(const char *cmd, const struct trace_acc *a)
{
	uint32_t b;
	unsigned int cond;
	uint64_t c;

	if (a->nblocks == 0)
		return an_fail(cmd, "the trace has no samples");
	for (b = 0; b < a->nblocks; b++)
		for (cond = 0; cond < 2; cond++) {
			c = a->st[(size_t)b * 2 + cond].count;
			if (c < AP_MIN_RUNS)
				return an_fail(cmd, "too few samples: block %u "
				    "has %llu %s samples, need at least %d",
				    b, (unsigned long long)c, cond ?
				    "interference (cond 1)" :
				    "isolation (cond 0)", AP_MIN_RUNS);
		}
	return 0;
}

/* Read, cluster, select.  Returns 0 or an exit code after a message. */
int
ap_cluster_run(const char *cmd, const char *path, double alpha,
    uint32_t res, uint32_t nblocks, struct ap_clustering *cl)
{
	struct cluster_sample *s;
	char	err[256];
	double	m2[WCET_MAX_CLUSTERS][2] = { { 0 } };
	uint32_t b, len;
	unsigned int c, cond;
	FILE	*f;
	int	rc;

	cl->alpha = alpha;
	if (trace_acc_init(&cl->acc, res, nblocks, nblocks) < 0)
		return an_fail(cmd, "out of memory");
	if ((f = ap_open(path)) == NULL)
		return an_fail(cmd, "%s: %s", path, strerror(errno));
	rc = trace_acc_read(&cl->acc, f, err, sizeof(err));
	ap_close(f);
	if (rc < 0)
		return an_fail(cmd, "%s: %s", path, err);
	if (nblocks && cl->acc.nblocks != nblocks)
		return an_fail(cmd, "%s: blocks 0..%u expected, last block "
		    "seen is %u", path, nblocks - 1, cl->acc.nblocks - 1);
	if ((rc = ap_check_runs(cmd, &cl->acc)) != 0)
		return rc;
	s = calloc(cl->acc.nblocks, sizeof(*s));
	cl->id = calloc(cl->acc.nblocks, sizeof(*cl->id));
	if (s == NULL || cl->id == NULL) {
		free(s);
		return an_fail(cmd, "out of memory");
	}
	/* the reservoirs stay in trace order: the pools and the EVT rule
	 * take them run by run, and a sorted reservoir cut short by
	 * AP_POOL_MAX would keep only its low values */
	for (b = 0; b < cl->acc.nblocks; b++) {
		s[b].v = trace_acc_sample(&cl->acc, b, 0, &len);
		s[b].len = len;
	}
	rc = cluster_blocks(s, cl->acc.nblocks, alpha, WCET_MAX_CLUSTERS,
	    cl->id);
	if (rc < 0) {
		rc = an_fail(cmd, rc == -E2BIG ? "more than %d clusters: the "
		    "blocks do not form few homogeneous groups" :
		    "clustering failed (%d)", rc == -E2BIG ?
		    WCET_MAX_CLUSTERS : rc);
		goto out;
	}
	cl->nclusters = (unsigned int)rc;
	cl->nintervals = cluster_intervals(cl->id, cl->acc.nblocks, cl->first,
	    cl->cluster, PROGRESS_MAX_INTERVALS);
	if (cl->nintervals < 0) {
		rc = an_fail(cmd, "more than %d intervals in block-id order",
		    PROGRESS_MAX_INTERVALS);
		goto out;
	}
	for (b = 0; b < cl->acc.nblocks; b++) {
		c = cl->id[b];
		cl->c[c].nblocks++;
		for (cond = 0; cond < 2; cond++)
			ap_merge(&cl->c[c].st[cond],
			    &cl->acc.st[(size_t)b * 2 + cond], &m2[c][cond]);
	}
	/* EVT selection: the 2C analyses share alpha (Bonferroni), or some
	 * test of an i.i.d. cluster would reject by chance */
	cl->sel.alpha = alpha / (2.0 * cl->nclusters);
	rc = 0;
	for (c = 0; c < cl->nclusters && rc == 0; c++) {
		for (cond = 0; cond < 2; cond++) {
			struct cluster_stats *st = &cl->c[c].st[cond];

			st->sd = st->count > 1 ?
			    sqrt(m2[c][cond] / (double)(st->count - 1)) : 0.0;
		}
		if ((rc = ap_select(cmd, cl, c, 0)) == 0)
			rc = ap_select(cmd, cl, c, 1);
		if (cl->c[c].e[1] < cl->c[c].e[0]) {
			cl->c[c].e[1] = cl->c[c].e[0];
			cl->c[c].raised = 1;
		}
	}
out:
	free(s);
	return rc;
}

void
ap_clustering_free(struct ap_clustering *cl)
{
	trace_acc_free(&cl->acc);
	free(cl->id);
}

/* Kernel name from the trace's base name: [A-Za-z0-9_.-], 63 chars. */
static void
ap_name(const char *path, char *name)
{
	const char *b = strrchr(path, '/');
	size_t	i;

	b = b ? b + 1 : path;
	if (strcmp(path, "-") == 0 || *b == '\0' || *b == '.')
		b = "kernel";
	for (i = 0; i < PROFILE_MAX_NAME && b[i] != '\0'; i++)
		name[i] = (b[i] == ' ' || b[i] == '\t' || b[i] == '#' ||
		    (unsigned char)b[i] < 0x21 ||
		    (unsigned char)b[i] > 0x7e) ? '_' : b[i];
	name[i] = '\0';
	/* drop the extension */
	if (strrchr(name, '.') != NULL && strrchr(name, '.') != name)
		*strrchr(name, '.') = '\0';
}

static void
ap_cond_json(struct jsonw *j, const char *key, const struct ap_cstat *cs,
    unsigned int cond)
{
	jsonw_key(j, key);
	jsonw_obj_begin(j);
	jsonw_key(j, "samples");
	jsonw_uint(j, cs->st[cond].count);
	jsonw_key(j, "mean_ns");
	jsonw_double(j, cs->st[cond].mean);
	jsonw_key(j, "sd_ns");
	jsonw_double(j, cs->st[cond].sd);
	jsonw_key(j, "max_ns");
	jsonw_double(j, cs->st[cond].max);
	jsonw_key(j, cond ? "e1_ns" : "e0_ns");
	jsonw_uint(j, (uint64_t)cs->e[cond]);
	jsonw_key(j, "percentile");
	jsonw_double(j, cs->pct[cond]);
	jsonw_key(j, "empirical_percentile");
	jsonw_double(j, cs->emp[cond]);
	jsonw_key(j, "fit_ratio");
	jsonw_double(j, cs->fit[cond]);
	jsonw_obj_end(j);
}

static void
ap_cluster_json(const struct ap_clustering *cl, const struct profile *p,
    const char *out)
{
	struct jsonw j;
	double	worst = 0.0;
	unsigned int c;
	int	k;

	jsonw_init(&j, stdout);
	jsonw_obj_begin(&j);
	jsonw_key(&j, "kernel");
	jsonw_str(&j, p->name);
	jsonw_key(&j, "output");
	jsonw_str(&j, out);
	jsonw_key(&j, "blocks");
	jsonw_uint(&j, p->blocks);
	jsonw_key(&j, "concurrency");
	jsonw_uint(&j, p->concurrency);
	jsonw_key(&j, "records");
	jsonw_uint(&j, cl->acc.nrec);
	jsonw_key(&j, "reservoir");
	jsonw_uint(&j, cl->acc.res);
	jsonw_key(&j, "alpha");
	jsonw_double(&j, cl->alpha);
	jsonw_key(&j, "select");
	jsonw_str(&j, cl->sel_text);
	jsonw_key(&j, "clusters");
	jsonw_arr_begin(&j);
	for (c = 0; c < cl->nclusters; c++) {
		const struct ap_cstat *cs = &cl->c[c];

		jsonw_obj_begin(&j);
		jsonw_key(&j, "id");
		jsonw_uint(&j, c);
		jsonw_key(&j, "blocks");
		jsonw_uint(&j, cs->nblocks);
		ap_cond_json(&j, "isolation", cs, 0);
		ap_cond_json(&j, "interference", cs, 1);
		jsonw_key(&j, "e1_raised_to_e0");
		jsonw_bool(&j, cs->raised);
		jsonw_obj_end(&j);
		if (cs->fit[0] > worst)
			worst = cs->fit[0];
		if (cs->fit[1] > worst)
			worst = cs->fit[1];
	}
	jsonw_arr_end(&j);
	jsonw_key(&j, "goodness_of_fit");
	jsonw_double(&j, worst);
	jsonw_key(&j, "intervals");
	jsonw_arr_begin(&j);
	for (k = 0; k < cl->nintervals; k++) {
		jsonw_arr_begin(&j);
		jsonw_uint(&j, cl->first[k]);
		jsonw_uint(&j, cl->cluster[k]);
		jsonw_arr_end(&j);
	}
	jsonw_arr_end(&j);
	jsonw_obj_end(&j);
	jsonw_end(&j);
}

/* Options shared by cluster and plot edf. */
int
ap_cluster_opts(const char *cmd, const struct an_opt *o, double *alpha,
    uint32_t *res, uint32_t *nblocks, struct ap_clustering *cl)
{
	const char *a = an_opt(o, "alpha"), *sel = an_opt(o, "select");
	const char *r = an_opt(o, "reservoir"), *b = an_opt(o, "blocks");
	unsigned long long v;

	*alpha = 0.05;
	if (a && ap_double(a, 0.0, 1.0, alpha) < 0)
		return an_fail(cmd, "bad --alpha '%s'", a);
	snprintf(cl->sel_text, sizeof(cl->sel_text), "%s", sel ? sel : "max");
	if (cluster_select_parse(cl->sel_text, &cl->sel) < 0)
		return an_fail(cmd, "bad --select '%s' (max, normal:P or "
		    "evt:P with 0 < P < 1)", cl->sel_text);
	*res = AP_DEFAULT_RES;
	if (r && (ap_uint(r, 1u << 16, &v) < 0 || v < 8))
		return an_fail(cmd, "bad --reservoir '%s' (8..65536)", r);
	if (r)
		*res = (uint32_t)v;
	*nblocks = 0;
	if (b && (ap_uint(b, TRACE_MAX_BLOCKS, &v) < 0 || v < 1))
		return an_fail(cmd, "bad --blocks '%s'", b);
	if (b)
		*nblocks = (uint32_t)v;
	return 0;
}


static int
ap_write_profile(const char *cmd, struct ap_clustering *cl, struct profile *p,
    const char *out)
{
	char	*buf, err[128];
	struct profile chk;
	unsigned int c;
	int	k, len, rc;

	p->blocks = cl->acc.nblocks;
	p->nclusters = cl->nclusters;
	for (c = 0; c < cl->nclusters; c++) {
		p->e0[c] = (uint64_t)cl->c[c].e[0];
		p->e1[c] = (uint64_t)cl->c[c].e[1];
	}
	p->nintervals = (unsigned int)cl->nintervals;
	for (k = 0; k < cl->nintervals; k++) {
		p->first[k] = cl->first[k];
		p->cluster[k] = cl->cluster[k];
	}
	if ((buf = malloc(PROFILE_MAX_SIZE)) == NULL)
		return an_fail(cmd, "out of memory");
	len = profile_format(p, buf, PROFILE_MAX_SIZE);
	/* what we write must be what the daemon's parser accepts */
	if (len < 0 || profile_parse(buf, (size_t)len, &chk, err,
	    sizeof(err)) < 0) {
		free(buf);
		return an_fail(cmd, "internal error: profile rejected (%s)",
		    len < 0 ? "format" : err);
	}
	rc = fileio_write_atomic(out, buf, (size_t)len);
	free(buf);
	if (rc < 0)
		return an_fail(cmd, "%s: %s", out, strerror(-rc));
	return 0;
}

int
an_cluster_main(int argc, char **argv)
{
	struct an_opt opts[] = { AP_CLUSTER_OPTS,
	    AN_OPT("concurrency", AN_VALUE), AN_OPT("name", AN_VALUE),
	    AN_OPT("period-ns", AN_VALUE), AN_OPT("json", AN_FLAG),
	    AN_OPT_END };
	static struct ap_clustering cl;
	static struct profile p;
	const char *path, *cmd = argv[0], *out, *conc, *name, *period;
	unsigned long long v;
	double	alpha;
	uint32_t res, nblocks;
	unsigned int c;
	int	rc;

	memset(&cl, 0, sizeof(cl));
	memset(&p, 0, sizeof(p));
	if ((rc = an_args(argc, argv, opts, "TRACE", &path)) != 0 ||
	    (rc = ap_cluster_opts(cmd, opts, &alpha, &res, &nblocks, &cl)))
		return rc;
	out = an_opt(opts, "o");
	conc = an_opt(opts, "concurrency");
	name = an_opt(opts, "name");
	period = an_opt(opts, "period-ns");
	if (out == NULL)
		return an_fail(cmd, "-o OUT.bwk is required");
	if (conc == NULL)
		return an_fail(cmd, "--concurrency M is required (thread "
		    "blocks resident on the GPU at once)");
	if (ap_uint(conc, UINT32_MAX, &v) < 0 || v < 1)
		return an_fail(cmd, "bad --concurrency '%s'", conc);
	p.concurrency = (uint32_t)v;
	p.period_ns = PROFILE_DEFAULT_PERIOD;
	if (period && (ap_uint(period, UINT64_MAX, &v) < 0 ||
	    v < 1))
		return an_fail(cmd, "bad --period-ns '%s'", period);
	if (period)
		p.period_ns = v;
	if (name) {
		if (strlen(name) > PROFILE_MAX_NAME ||
		    name[0] == '\0' ||
		    strpbrk(name, " \t#\r\n") != NULL)
			return an_fail(cmd, "bad --name (1-63 characters, no "
			    "spaces or '#')");
		strcpy(p.name, name);
	} else
		ap_name(path, p.name);
	rc = ap_cluster_run(cmd, path, alpha, res, nblocks, &cl);
	if (rc == 0)
		rc = ap_write_profile(cmd, &cl, &p, out);
	if (rc == 0 && an_opt(opts, "json"))
		ap_cluster_json(&cl, &p, out);
	else if (rc == 0) {
		printf("%s: %u blocks, %u clusters, %d intervals -> %s\n",
		    p.name, p.blocks, cl.nclusters, cl.nintervals,
		    out);
		for (c = 0; c < cl.nclusters; c++)
			printf("cluster %u: %u blocks, e0 %.0f ns, e1 %.0f ns, "
			    "fit %.2f/%.2f\n", c, cl.c[c].nblocks, cl.c[c].e[0],
			    cl.c[c].e[1], cl.c[c].fit[0], cl.c[c].fit[1]);
	}
	ap_clustering_free(&cl);
	return rc;
}
