/*
 * an_partition.c - bwanalyze partition and classify: GPU spatial
 * partitioning of a task-set file ([PredGPU] chapter 3) and CI/MI
 * classification of a measured speed-up curve (doc/partition.md).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwanalyze.h"
#include "fileio.h"
#include "jsonw.h"
#include "partition.h"

#define AN_DEFAULT_SMS	68	/* the RTX 2080 Ti of [PredGPU] 3.6 */

struct an_part_args {
	struct partition_opts	 o;
	const char		*baseline;	/* NULL, "1g", "1g-util" */
	int			 json;
};

static int
an_part_fail(const char *cmd, const char *what, const char *s)
{
	fprintf(stderr, "bwanalyze %s: bad value '%s' for --%s\n", cmd, s,
	    what);
	return 2;
}

static int
an_part_opts(const char *cmd, const struct an_opt *opts,
    struct an_part_args *a)
{
	const char	*v;
	double		 x;

	a->o = (struct partition_opts){ AN_DEFAULT_SMS, 1,
	    PARTITION_ORDER_SMS, PARTITION_FORBID_INA, 0, NULL };
	if ((v = an_opt(opts, "sms")) != NULL) {
		if (an_double(cmd, "sms", v, 1, PARTITION_MAX_SMS, &x) ||
		    x != floor(x))
			return an_part_fail(cmd, "sms", v);
		a->o.sms = (unsigned int)x;
	}
	if ((v = an_opt(opts, "granule")) != NULL) {
		if (an_double(cmd, "granule", v, 1, a->o.sms, &x) ||
		    x != floor(x))
			return an_part_fail(cmd, "granule", v);
		a->o.granule = (unsigned int)x;
	}
	if ((v = an_opt(opts, "order")) != NULL) {
		if (strcmp(v, "bf") == 0)
			a->o.order = PARTITION_ORDER_BF;
		else if (strcmp(v, "sms") != 0)
			return an_part_fail(cmd, "order (sms|bf)", v);
	}
	if ((v = an_opt(opts, "forbidden")) != NULL) {
		if (strcmp(v, "act") == 0)
			a->o.forbid = PARTITION_FORBID_ACT;
		else if (strcmp(v, "none") == 0)
			a->o.forbid = PARTITION_FORBID_NONE;
		else if (strcmp(v, "ina") != 0)
			return an_part_fail(cmd, "forbidden (act|ina|none)", v);
	}
	if ((v = an_opt(opts, "baseline")) != NULL) {
		if (strcmp(v, "1g") != 0 && strcmp(v, "1g-util") != 0)
			return an_part_fail(cmd, "baseline (1g|1g-util)", v);
		a->baseline = v;
	}
	a->json = an_opt(opts, "json") != NULL;
	return 0;
}

static int
an_part_load(const char *cmd, const char *path, struct partition_set *ts)
{
	char	*buf, err[256];
	size_t	 len;
	int	 rc;

	if ((rc = fileio_read(path, PARTITION_MAX_SIZE, &buf, &len)) != 0) {
		fprintf(stderr, "bwanalyze %s: %s: %s\n", cmd, path,
		    rc == -EFBIG ? "larger than the 256 KiB task-set limit" :
		    strerror(-rc));
		return 2;
	}
	rc = partition_parse(buf, len, ts, err, sizeof(err));
	free(buf);
	if (rc != 0) {
		fprintf(stderr, "bwanalyze %s: %s: %s\n", cmd, path, err);
		return 2;
	}
	return 0;
}

/* Partitions are worth printing unless a test refused the set first. */
static unsigned int
an_part_shown(const struct partition_plan *p)
{
	return p->verdict == PARTITION_LEMMA1 ||
	    p->verdict == PARTITION_TOO_BIG ? 0 : p->nparts;
}

static void
an_part_json(const struct partition_set *ts, const struct partition_plan *p,
    int ok, const char *why)
{
	struct jsonw	w;
	unsigned int	j, i;

	jsonw_init(&w, stdout);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "schedulable");
	jsonw_bool(&w, ok);
	jsonw_key(&w, "sms_total");
	jsonw_uint(&w, p->sms_total);
	jsonw_key(&w, "sms_used");
	jsonw_uint(&w, p->sms_used);
	jsonw_key(&w, "partitions");
	jsonw_arr_begin(&w);
	for (j = 0; j < an_part_shown(p); j++) {
		jsonw_obj_begin(&w);
		jsonw_key(&w, "tasks");
		jsonw_arr_begin(&w);
		for (i = 0; i < ts->n; i++)
			if (partition_bit_test(p->part[j].tasks, i))
				jsonw_str(&w, ts->task[i].name);
		jsonw_arr_end(&w);
		jsonw_key(&w, "sms");
		jsonw_uint(&w, p->part[j].sms);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "reason");
	jsonw_str(&w, why);
	jsonw_obj_end(&w);
	jsonw_end(&w);
}

/* One line per task: its class, conflict, C(m) against D. */
static void
an_part_text(const struct partition_set *ts, const struct partition_plan *p,
    const struct an_part_args *a, int ok, const char *why)
{
	const struct partition_task	*t;
	unsigned int			 j, i;
	int				 c;

	printf("%u tasks, M = %u SMs, ", ts->n, p->sms_total);
	if (a->baseline != NULL)
		printf("baseline %s\n", a->baseline);
	else
		printf("order %s, forbidden list %s%s\n",
		    a->o.order == PARTITION_ORDER_SMS ? "sms" : "bf",
		    a->o.forbid == PARTITION_FORBID_ACT ? "act" :
		    a->o.forbid == PARTITION_FORBID_INA ? "ina" : "none",
		    a->o.granule > 1 ? ", sizes in steps of the granule" : "");
	for (j = 0; j < an_part_shown(p); j++) {
		printf("partition %u: %u SMs\n", j + 1, p->part[j].sms);
		for (i = 0; i < ts->n; i++) {
			if (!partition_bit_test(p->part[j].tasks, i))
				continue;
			t = &ts->task[i];
			c = partition_conflict(ts, p->part[j].tasks, i);
			printf("  %-24s %s%s C = %llu ns, D = %llu ns, "
			    "T = %llu ns\n", t->name,
			    partition_class_name(t->cls),
			    c ? " conflict" : "         ",
			    (unsigned long long)partition_wcet(t,
			    p->part[j].sms, c),
			    (unsigned long long)t->deadline,
			    (unsigned long long)t->period);
		}
	}
	if (a->baseline == NULL || strcmp(a->baseline, "1g") == 0)
		printf("Pi = %u of M = %u SMs\n", p->sms_used, p->sms_total);
	printf("%s (%s)\n", ok ? "schedulable" : "NOT schedulable", why);
}

int
an_partition_main(int argc, char **argv)
{
	struct an_opt		 opts[] = { AN_OPT("sms", AN_VALUE),
	    AN_OPT("order", AN_VALUE), AN_OPT("forbidden", AN_VALUE),
	    AN_OPT("granule", AN_VALUE), AN_OPT("baseline", AN_VALUE),
	    AN_OPT("json", AN_FLAG), AN_OPT_END };
	struct an_part_args	 a = { .baseline = NULL };
	struct partition_set	*ts = NULL;
	struct partition_work	*w = NULL;
	struct partition_plan	*p = NULL;
	const char		*path;
	char			 why[256];
	int			 rc, ok;

	if ((rc = an_args(argc, argv, opts, "TASKSET", &path)) != 0 ||
	    (rc = an_part_opts(argv[0], opts, &a)) != 0)
		return rc;
	ts = malloc(sizeof(*ts));
	w = malloc(sizeof(*w));
	p = malloc(sizeof(*p));
	rc = 2;
	if (ts == NULL || w == NULL || p == NULL) {
		fprintf(stderr, "bwanalyze partition: out of memory\n");
		goto out;
	}
	if ((rc = an_part_load(argv[0], path, ts)) != 0)
		goto out;
	if (a.baseline == NULL)
		ok = partition_plan(ts, &a.o, w, p);
	else if (strcmp(a.baseline, "1g") == 0)
		ok = partition_one_gpu(ts, a.o.sms, w, p);
	else {
		ok = partition_one_gpu_util(ts, a.o.sms);
		partition_one_gpu(ts, a.o.sms, w, p);	/* the partition */
	}
	if (ok < 0) {
		fprintf(stderr, "bwanalyze partition: bad options\n");
		rc = 2;
		goto out;
	}
	if (a.baseline != NULL && strcmp(a.baseline, "1g-util") == 0)
		snprintf(why, sizeof(why), "1G utilisation: sum of C^c(1)/T "
		    "%s M = %u; not a schedulability guarantee", ok ? "<=" :
		    ">", a.o.sms);
	else
		partition_reason(ts, p, why, sizeof(why));
	if (a.json)
		an_part_json(ts, p, ok, why);
	else
		an_part_text(ts, p, &a, ok, why);
	rc = ok ? 0 : 1;
out:
	free(ts);
	free(w);
	free(p);
	return rc;
}

/* ---- classify ---- */

struct an_point {
	unsigned int	sms;
	double		t;
};

static int
an_point_cmp(const void *x, const void *y)
{
	const struct an_point	*a = x, *b = y;

	return a->sms < b->sms ? -1 : a->sms > b->sms;
}

/* "sms,time_ns" then one measurement a line; 0 or 2 after a message. */
static int
an_curve_parse(const char *path, char *buf, struct an_point *pt,
    unsigned int *n)
{
	char		*line, *next, *end, *comma;
	unsigned long	 m;
	unsigned int	 ln = 0;
	int		 header = 0;

	*n = 0;
	for (line = buf; line != NULL; line = next) {
		ln++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (!header) {
			if (strcmp(line, "sms,time_ns") != 0)
				goto bad_header;
			header = 1;
			continue;
		}
		if (*n == PARTITION_MAX_CURVE) {
			fprintf(stderr, "bwanalyze classify: %s: line %u: more "
			    "than %u points\n", path, ln, PARTITION_MAX_CURVE);
			return 2;
		}
		errno = 0;
		m = strtoul(line, &comma, 10);
		if (comma == line || *comma != ',' || line[0] == '-' ||
		    errno != 0 || m == 0 || m > PARTITION_MAX_SMS)
			goto bad_line;
		pt[*n].sms = (unsigned int)m;
		pt[*n].t = strtod(comma + 1, &end);
		if (end == comma + 1 || *end != '\0' || !isfinite(pt[*n].t) ||
		    pt[*n].t <= 0)
			goto bad_line;
		(*n)++;
	}
	if (!header)
		goto bad_header;
	return 0;
bad_header:
	fprintf(stderr, "bwanalyze classify: %s: the first line must be "
	    "'sms,time_ns'\n", path);
	return 2;
bad_line:
	fprintf(stderr, "bwanalyze classify: %s: line %u: expected SMS "
	    "(1..%u),TIME_NS (> 0)\n", path, ln, PARTITION_MAX_SMS);
	return 2;
}

static int
an_curve_load(const char *path, unsigned int *sms, double *t,
    unsigned int *n)
{
	struct an_point	*pt;
	char		*buf;
	size_t		 len;
	unsigned int	 i;
	int		 rc;

	if ((rc = fileio_read(path, 1u << 20, &buf, &len)) != 0) {
		fprintf(stderr, "bwanalyze classify: %s: %s\n", path,
		    rc == -EFBIG ? "larger than 1 MiB" : strerror(-rc));
		return 2;
	}
	if (strlen(buf) != len || (pt = calloc(PARTITION_MAX_CURVE,
	    sizeof(*pt))) == NULL) {
		fprintf(stderr, "bwanalyze classify: %s: %s\n", path,
		    strlen(buf) != len ? "NUL byte in the file" :
		    "out of memory");
		free(buf);
		return 2;
	}
	rc = an_curve_parse(path, buf, pt, n);
	free(buf);
	if (rc == 0 && *n < 2) {
		fprintf(stderr, "bwanalyze classify: %s: needs at least two "
		    "points\n", path);
		rc = 2;
	}
	qsort(pt, *n, sizeof(*pt), an_point_cmp);
	for (i = 0; rc == 0 && i < *n; i++) {
		if (i > 0 && pt[i].sms == pt[i - 1].sms) {
			fprintf(stderr, "bwanalyze classify: %s: %u SMs "
			    "measured twice\n", path, pt[i].sms);
			rc = 2;
		}
		sms[i] = pt[i].sms;
		t[i] = pt[i].t;
	}
	free(pt);
	return rc;
}

int
an_classify_main(int argc, char **argv)
{
	struct an_opt			 opts[] = { AN_OPT("tol", AN_VALUE),
	    AN_OPT("knee", AN_VALUE), AN_OPT("json", AN_FLAG), AN_OPT_END };
	static unsigned int		 sms[PARTITION_MAX_CURVE];
	static double			 t[PARTITION_MAX_CURVE];
	struct partition_curve_fit	 f;
	struct jsonw			 w;
	const char			*path, *v;
	double				 tol = 0.10, knee = 0.75;
	unsigned int			 n;
	int				 rc;

	if ((rc = an_args(argc, argv, opts, "CURVE", &path)) != 0)
		return rc;
	if ((v = an_opt(opts, "tol")) != NULL &&
	    an_double(argv[0], "tol", v, 0, 1, &tol))
		return 2;
	if ((v = an_opt(opts, "knee")) != NULL &&
	    an_double(argv[0], "knee", v, 0.01, 1, &knee))
		return 2;
	if ((rc = an_curve_load(path, sms, t, &n)) != 0)
		return rc;
	if (partition_classify(sms, t, n, tol, knee, &f) != 0) {
		fprintf(stderr, "bwanalyze classify: %s: bad curve\n", path);
		return 2;
	}
	if (an_opt(opts, "json")) {
		jsonw_init(&w, stdout);
		jsonw_obj_begin(&w);
		jsonw_key(&w, "class");
		jsonw_str(&w, partition_class_name(f.cls));
		jsonw_key(&w, "knee_sms");
		jsonw_uint(&w, f.knee);
		jsonw_key(&w, "a_ns");
		jsonw_double(&w, f.a);
		jsonw_key(&w, "b_ns");
		jsonw_double(&w, f.b);
		jsonw_key(&w, "speedup");
		jsonw_double(&w, f.speedup);
		jsonw_obj_end(&w);
		jsonw_end(&w);
	} else
		printf("%s: %s (within %.0f %% of its best time from %u of %u "
		    "SMs; speed-up %.2f)\nfit t(m) = a/m + b: a = %.0f ns, "
		    "b = %.0f ns\n", path, f.cls == PARTITION_MI ?
		    "memory intensive" : "compute intensive", tol * 100,
		    f.knee, sms[n - 1], f.speedup, f.a, f.b);
	return 0;
}
