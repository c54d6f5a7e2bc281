/*
 * an_profiling.c - what bwanalyze cluster, evt and plot share: their
 * messages and the readers of numbers and sample files.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_profiling.h"

#define AP_MAX_SAMPLES		(1u << 27)

int
ap_double(const char *s, double lo, double hi, double *v)
{
	char	*end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(*v > lo && *v < hi))
		return -1;
	return 0;
}

int
ap_uint(const char *s, unsigned long long max, unsigned long long *v)
{
	char	*end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || *v > max)
		return -1;
	return 0;
}

FILE *
ap_open(const char *path)
{
	return strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
}

void
ap_close(FILE *f)
{
	if (f != stdin)
		fclose(f);
}

/*
 * Read one sample per line (ns; '#' comments and blank lines skipped).
 * Returns 0 or 2 after printing why.
 */
int
ap_read_samples(const char *cmd, const char *path, double **out, size_t *n)
{
	FILE	*f;
	char	*line = NULL, *p, *end;
	size_t	cap = 0, lcap = 0;
	unsigned long ln = 0;
	double	v, *x = NULL, *nx;
	int	rc = 0;

	*n = 0;
	if ((f = ap_open(path)) == NULL)
		return an_fail(cmd, "%s: %s", path, strerror(errno));
	while (getline(&line, &lcap, f) != -1) {
		ln++;
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
			continue;
		errno = 0;
		v = strtod(p, &end);
		while (*end == ' ' || *end == '\t' || *end == '\r' ||
		    *end == '\n')
			end++;
		if (errno != 0 || end == p || *end != '\0' || !isfinite(v) ||
		    v < 0.0) {
			rc = an_fail(cmd, "%s: line %lu: expected one "
			    "non-negative execution time in ns", path, ln);
			break;
		}
		if (*n == cap) {
			if (cap >= AP_MAX_SAMPLES) {
				rc = an_fail(cmd, "%s: more than %u samples",
				    path, AP_MAX_SAMPLES);
				break;
			}
			cap = cap ? cap * 2 : 4096;
			if ((nx = realloc(x, cap * sizeof(*x))) == NULL) {
				rc = an_fail(cmd, "out of memory");
				break;
			}
			x = nx;
		}
		x[(*n)++] = v;
	}
	if (rc == 0 && ferror(f))
		rc = an_fail(cmd, "%s: read error", path);
	free(line);
	ap_close(f);
	if (rc != 0) {
		free(x);
		return rc;
	}
	*out = x;
	return 0;
}
