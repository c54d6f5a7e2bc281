/*
 * gcheck.h - shared by the gpu tests: CHECK (tests/check.h), and the
 * example kernels with the launches of examples/kernels/launches.
 */
#ifndef GCHECK_H
#define GCHECK_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "fileio.h"
#include "ptx.h"
#include "wexec.h"

#define CHECK_EQ(a, b) do {						\
	long long gc_a = (long long)(a), gc_b = (long long)(b);		\
	if (gc_a != gc_b) {						\
		fprintf(stderr, "FAIL %s:%d: %s = %lld, expected %lld\n",\
		    __FILE__, __LINE__, #a, gc_a, gc_b);		\
		failures++;						\
	}								\
} while (0)

/* A file of the source tree, NUL-terminated; exits if it is missing. */
static inline char *
gcheck_read(const char *rel, size_t *len)
{
	const char	*top = getenv("top_srcdir");
	char		 path[4096], *buf;

	snprintf(path, sizeof(path), "%s/%s", top ? top : ".", rel);
	if (fileio_read(path, PTX_MAX_SIZE, &buf, len) != 0) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(99);
	}
	return buf;
}

/* Parse a PTX text; 0 or the parser's error. */
static inline int
gcheck_parse(const char *text, struct ptx_module *m, char *err, size_t len)
{
	return ptx_parse(text, strlen(text), m, err, len);
}

/* Parse examples/kernels/NAME.ptx into m; exits if it does not. */
static inline void
gcheck_load(const char *name, struct ptx_module *m)
{
	char	rel[256], err[512], *buf;
	size_t	len;

	snprintf(rel, sizeof(rel), "examples/kernels/%s.ptx", name);
	buf = gcheck_read(rel, &len);
	if (ptx_parse(buf, len, m, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", rel, err);
		exit(99);
	}
	free(buf);
}

/*
 * examples/kernels/NAME.ptx analyzed with its line of
 * examples/kernels/launches; m is left for the caller to free.
 */
static inline int
gcheck_example(const char *name, struct ptx_module *m,
    struct gpu_launch *l, uint32_t line_size, struct gpu_trace *t)
{
	char		 err[512], *lines, *ln, *save = NULL;
	char		*tok, *save2 = NULL;
	const struct ptx_kernel	*k;
	size_t		 len;
	int		 i, n;

	gcheck_load(name, m);
	k = &m->kernels[0];
	wexec_launch_init(l);
	lines = gcheck_read("examples/kernels/launches", &len);
	for (ln = strtok_r(lines, "\n", &save); ln != NULL;
	    ln = strtok_r(NULL, "\n", &save)) {
		if (strncmp(ln, name, strlen(name)) != 0 ||
		    ln[strlen(name)] != ' ')
			continue;
		for (tok = strtok_r(ln + strlen(name), " ", &save2);
		    tok != NULL; tok = strtok_r(NULL, " ", &save2)) {
			char	*v = strtok_r(NULL, " ", &save2);
			uint32_t *d = NULL;

			if (v == NULL)
				break;
			if (strcmp(tok, "--grid") == 0)
				d = l->grid;
			else if (strcmp(tok, "--block") == 0)
				d = l->block;
			if (d != NULL) {
				for (i = 0; i < 3; i++)
					d[i] = 1;
				for (i = 0; i < 3 && *v; i++) {
					d[i] = (uint32_t)strtoul(v, &v, 10);
					if (*v == ',')
						v++;
				}
				continue;
			}
			/* --param N=V: integers, floats as their bits */
			n = atoi(v);
			v = strchr(v, '=') + 1;
			if (PTX_T_KIND(k->params[n].type) == PTX_K_F) {
				float		f = strtof(v, NULL);
				uint32_t	u;

				memcpy(&u, &f, 4);
				l->param[n] = u;
			} else
				l->param[n] = strtoull(v, NULL, 0);
			l->have[n] = 1;
		}
	}
	free(lines);
	if (wexec_default_params(k, l, err, sizeof(err)) != 0 ||
	    wexec_run(k, l, line_size, t, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", name, err);
		exit(99);
	}
	return 0;
}

static const char *const gcheck_kernels[] = {
	"vecadd", "transpose", "stencil", "pathfinder", "histogram"
};

#define GCHECK_NKERNELS	5

static inline int
gcheck_done(const char *name)
{
	if (failures) {
		fprintf(stderr, "%s: %d checks failed\n", name, failures);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}

#endif /* GCHECK_H */
