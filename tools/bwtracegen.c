/*
 * bwtracegen - synthetic inputs with known answers for the profiling
 * tests and benchmark (doc/profiling.md):
 *
 *   bwtracegen trace --blocks N --runs R --clusters MEAN:SD[:SLOW[:DIST]],...
 *       [--intervals FIRST:ID,...] [--seed S] [--binary] [-o FILE]
 *     A block trace: cluster ID's blocks take DIST(MEAN, SD) ns alone
 *     (cond 0) and DIST(MEAN*SLOW, SD*SLOW) under interference (cond 1,
 *     SLOW default 2); DIST is normal (default), t3 (Student's t with 3
 *     degrees of freedom: heavy tails) or gumbel (skewed right), each
 *     with that mean and standard deviation.  Intervals assign block
 *     ranges to clusters in block-id order (default: equal contiguous
 *     ranges).  Records come run by run, as a real measurement loop
 *     produces them.
 *
 *   bwtracegen samples --dist KIND --n N [--seed S] [-o FILE]
 *     One execution time per line; KIND is gumbel:MU:BETA,
 *     normal:MEAN:SD, or ar1:PHI:MEAN:SD (a dependent series).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitmix.h"
#include "trace.h"

#define TG_MAX_CLUSTERS	64
#define TG_MAX_INTERVALS	4096

static uint64_t tg_state;

/* Uniform in (0, 1). */
static double
tg_unif(void)
{
	return ((double)(splitmix64(&tg_state) >> 11) + 0.5) /
	    9007199254740992.0;
}

static double
tg_normal(void)
{
	static int have;
	static double spare;
	double	u, v;

	if (have) {
		have = 0;
		return spare;
	}
	u = tg_unif();
	v = tg_unif();
	spare = sqrt(-2.0 * log(u)) * sin(2.0 * M_PI * v);
	have = 1;
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

static int
tg_usage(void)
{
	fprintf(stderr, "usage: bwtracegen trace --blocks N --runs R "
	    "--clusters MEAN:SD[:SLOW[:normal|t3|gumbel]],... "
	    "[--intervals FIRST:ID,...] "
	    "[--seed S] [--binary] [-o FILE]\n"
	    "       bwtracegen samples --dist gumbel:MU:BETA|normal:M:SD|"
	    "ar1:PHI:M:SD --n N [--seed S] [-o FILE]\n");
	return 2;
}

enum tg_dist { TG_NORMAL, TG_T3, TG_GUMBEL };

struct tg_cluster {
	double	mean, sd, slow;
	enum tg_dist dist;
};

/* A draw of mean 0 and standard deviation 1. */
static double
tg_draw(enum tg_dist d)
{
	double	c = 0.0, z;
	int	i;

	switch (d) {
	case TG_T3:
		/* t3 = Z / sqrt(chi2_3 / 3) has variance 3 */
		z = tg_normal();
		for (i = 0; i < 3; i++) {
			double	w = tg_normal();

			c += w * w;
		}
		return z / sqrt(c / 3.0) / sqrt(3.0);
	case TG_GUMBEL:
		/* mean gamma beta, sd beta pi / sqrt(6) */
		return (-log(-log(tg_unif())) - 0.57721566490153286) *
		    sqrt(6.0) / M_PI;
	case TG_NORMAL:
		break;
	}
	return tg_normal();
}

static int
tg_dist_parse(const char *s, char **end, enum tg_dist *d)
{
	static const struct { const char *name; enum tg_dist d; } k[] = {
		{ "normal", TG_NORMAL }, { "t3", TG_T3 },
		{ "gumbel", TG_GUMBEL },
	};
	size_t	i, len;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		len = strlen(k[i].name);
		if (strncmp(s, k[i].name, len) == 0 &&
		    (s[len] == ',' || s[len] == '\0')) {
			*d = k[i].d;
			*end = (char *)s + len;
			return 0;
		}
	}
	return -1;
}

static int
tg_clusters(const char *s, struct tg_cluster *c, int *nc)
{
	char	*end;

	*nc = 0;
	while (*s != '\0') {
		if (*nc >= TG_MAX_CLUSTERS)
			return -1;
		c[*nc].slow = 2.0;
		c[*nc].dist = TG_NORMAL;
		c[*nc].mean = strtod(s, &end);
		if (*end != ':')
			return -1;
		c[*nc].sd = strtod(end + 1, &end);
		if (*end == ':')
			c[*nc].slow = strtod(end + 1, &end);
		if (*end == ':' && tg_dist_parse(end + 1, &end,
		    &c[*nc].dist) < 0)
			return -1;
		if (!(c[*nc].mean > 0) || !(c[*nc].sd >= 0) ||
		    !(c[*nc].slow >= 1.0) || (*end != ',' && *end != '\0'))
			return -1;
		(*nc)++;
		s = *end ? end + 1 : end;
	}
	return *nc > 0 ? 0 : -1;
}

static int
tg_intervals(const char *s, uint32_t *first, int *cid, int *ni)
{
	char	*end;

	*ni = 0;
	while (*s != '\0') {
		if (*ni >= TG_MAX_INTERVALS)
			return -1;
		first[*ni] = (uint32_t)strtoul(s, &end, 10);
		if (*end != ':')
			return -1;
		cid[*ni] = (int)strtol(end + 1, &end, 10);
		if (*end != ',' && *end != '\0')
			return -1;
		if (*ni == 0 ? first[0] != 0 : first[*ni] <= first[*ni - 1])
			return -1;
		(*ni)++;
		s = *end ? end + 1 : end;
	}
	return *ni > 0 ? 0 : -1;
}

static int
tg_trace(FILE *out, uint32_t nblocks, uint32_t runs,
    const struct tg_cluster *c, int nc, const uint32_t *first,
    const int *cid, int ni, int binary)
{
	struct trace_rec rec;
	int	*of;
	uint32_t b, r;
	unsigned int cond;
	int	k = 0;
	double	v;

	if ((of = malloc(nblocks * sizeof(*of))) == NULL)
		return -ENOMEM;
	for (b = 0; b < nblocks; b++) {
		if (ni > 0) {
			while (k + 1 < ni && first[k + 1] <= b)
				k++;
			of[b] = cid[k];
		} else
			of[b] = (int)((uint64_t)b * nc / nblocks);
		if (of[b] < 0 || of[b] >= nc) {
			free(of);
			return -EINVAL;
		}
	}
	if (binary ? trace_write_header(out) < 0 :
	    fprintf(out, "%s\n", TRACE_CSV_HEADER) < 0) {
		free(of);
		return -EIO;
	}
	for (cond = 0; cond < 2; cond++)
		for (r = 0; r < runs; r++)
			for (b = 0; b < nblocks; b++) {
				const struct tg_cluster *cl = &c[of[b]];
				double	f = cond ? cl->slow : 1.0;

				v = round(cl->mean * f + cl->sd * f *
				    tg_draw(cl->dist));
				rec.run = r;
				rec.block = b;
				rec.exec_ns = v < 1.0 ? 1 : (uint64_t)v;
				rec.cond = cond;
				if (binary)
					trace_write_rec(out, &rec);
				else
					fprintf(out, "%u,%u,%llu,%u\n", r, b,
					    (unsigned long long)rec.exec_ns,
					    cond);
			}
	free(of);
	return ferror(out) ? -EIO : 0;
}

static int
tg_samples(FILE *out, const char *dist, unsigned long n)
{
	double	a, b, c, x = 0.0, e;
	unsigned long i;

	if (sscanf(dist, "gumbel:%lf:%lf", &a, &b) == 2 && b > 0) {
		for (i = 0; i < n; i++)
			fprintf(out, "%.3f\n", a - b * log(-log(tg_unif())));
	} else if (sscanf(dist, "normal:%lf:%lf", &a, &b) == 2 && b >= 0) {
		for (i = 0; i < n; i++)
			fprintf(out, "%.3f\n", a + b * tg_normal());
	} else if (sscanf(dist, "ar1:%lf:%lf:%lf", &a, &b, &c) == 3 &&
	    fabs(a) < 1.0 && c >= 0) {
		/* stationary start; innovations scaled so the sd is c */
		e = c * sqrt(1.0 - a * a);
		x = c * tg_normal();
		for (i = 0; i < n; i++) {
			x = a * x + e * tg_normal();
			fprintf(out, "%.3f\n", b + x);
		}
	} else
		return -EINVAL;
	return ferror(out) ? -EIO : 0;
}

int
main(int argc, char **argv)
{
	static struct tg_cluster cl[TG_MAX_CLUSTERS];
	static uint32_t first[TG_MAX_INTERVALS];
	static int cid[TG_MAX_INTERVALS];
	const char *outp = NULL, *dist = NULL, *cls = NULL, *ints = NULL;
	unsigned long blocks = 0, runs = 0, n = 0;
	int	i, nc = 0, ni = 0, binary = 0, rc;
	FILE	*out = stdout;

	if (argc < 2)
		return tg_usage();
	tg_state = 1;
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--binary") == 0) {
			binary = 1;
			continue;
		}
		if (v == NULL)
			return tg_usage();
		i++;
		if (strcmp(a, "-o") == 0)
			outp = v;
		else if (strcmp(a, "--blocks") == 0)
			blocks = strtoul(v, NULL, 10);
		else if (strcmp(a, "--runs") == 0)
			runs = strtoul(v, NULL, 10);
		else if (strcmp(a, "--n") == 0)
			n = strtoul(v, NULL, 10);
		else if (strcmp(a, "--seed") == 0)
			tg_state = strtoull(v, NULL, 10);
		else if (strcmp(a, "--clusters") == 0)
			cls = v;
		else if (strcmp(a, "--intervals") == 0)
			ints = v;
		else if (strcmp(a, "--dist") == 0)
			dist = v;
		else
			return tg_usage();
	}
	if (outp != NULL && (out = fopen(outp, "wb")) == NULL) {
		fprintf(stderr, "bwtracegen: %s: %s\n", outp, strerror(errno));
		return 1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	if (strcmp(argv[1], "trace") == 0) {
		if (blocks == 0 || blocks > TRACE_MAX_BLOCKS || runs == 0 ||
		    cls == NULL || tg_clusters(cls, cl, &nc) < 0 ||
		    (ints != NULL && tg_intervals(ints, first, cid, &ni) < 0))
			return tg_usage();
		rc = tg_trace(out, (uint32_t)blocks, (uint32_t)runs, cl, nc,
		    first, cid, ni, binary);
	} else if (strcmp(argv[1], "samples") == 0) {
		if (dist == NULL || n == 0)
			return tg_usage();
		rc = tg_samples(out, dist, n);
	} else
		return tg_usage();
	if (fclose(out) != 0 && rc == 0)
		rc = -EIO;
	if (rc < 0) {
		fprintf(stderr, "bwtracegen: %s\n", rc == -EINVAL ?
		    "bad arguments (cluster id out of range?)" :
		    strerror(-rc));
		return rc == -EINVAL ? 2 : 1;
	}
	return 0;
}
