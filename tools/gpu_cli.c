/*
 * gpu_cli.c - the shared options and the file reading of the PTX
 * commands.  Every bad value gets a message naming the option.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "gpu_cli.h"

const char gpu_cli_usage[] =
    "FILE.ptx [--kernel NAME] --grid X[,Y[,Z]] --block X[,Y[,Z]] "
    "[--param NAME=VALUE]... [--l1 SIZE,ASSOC,LINE] [--lat CLASS=N,...] "
    "[--l1-hit N] [--lbase N] [--conflict-sms N] [--max-warps N] "
    "[--max-blocks N] [--skew N] [--json]";

void
gpu_cli_init(struct gpu_cli *c, const char *prog)
{
	memset(c, 0, sizeof(*c));
	c->prog = prog;
	gpu_cfg_default(&c->cfg);
	wexec_launch_init(&c->launch);
}

int
gpu_cli_u32(const char *prog, const char *opt, const char *s, uint32_t lo,
    uint32_t hi, uint32_t *v)
{
	unsigned long long	 x;
	char			*end;

	if (s == NULL) {
		fprintf(stderr, "%s: %s needs a value\n", prog, opt);
		return -1;
	}
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' ||
	    x < lo || x > hi) {
		fprintf(stderr, "%s: %s: bad value '%s' (%u..%u)\n", prog, opt,
		    s, lo, hi);
		return -1;
	}
	*v = (uint32_t)x;
	return 0;
}

/* X[,Y[,Z]] */
static int
gpu_cli_dims(struct gpu_cli *c, const char *opt, const char *s,
    uint32_t *d)
{
	char		 buf[64], *tok, *save = NULL;
	unsigned int	 n = 0;

	if (s == NULL || strlen(s) >= sizeof(buf)) {
		fprintf(stderr, "%s: %s needs X[,Y[,Z]]\n", c->prog, opt);
		return -1;
	}
	strcpy(buf, s);
	d[0] = d[1] = d[2] = 1;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (n == 3 || gpu_cli_u32(c->prog, opt, tok, 1, 65535,
		    &d[n]) != 0) {
			if (n == 3)
				fprintf(stderr, "%s: %s: at most three "
				    "dimensions\n", c->prog, opt);
			return -1;
		}
		n++;
	}
	if (n == 0) {
		fprintf(stderr, "%s: %s needs X[,Y[,Z]]\n", c->prog, opt);
		return -1;
	}
	return 0;
}

/* SIZE[K],ASSOC,LINE */
static int
gpu_cli_l1(struct gpu_cli *c, const char *s)
{
	char		 buf[64], *p, *q, *end;
	unsigned long	 size;
	char		 err[128];

	if (s == NULL || strlen(s) >= sizeof(buf) ||
	    (p = strchr(strcpy(buf, s), ',')) == NULL ||
	    (q = strchr(p + 1, ',')) == NULL) {
		fprintf(stderr, "%s: --l1 needs SIZE,ASSOC,LINE (e.g. "
		    "16K,4,128)\n", c->prog);
		return -1;
	}
	*p++ = '\0';
	*q++ = '\0';
	errno = 0;
	size = strtoul(buf, &end, 10);
	if (*end == 'K' || *end == 'k') {
		size *= 1024;
		end++;
	}
	if (errno != 0 || end == buf || *end != '\0' || buf[0] == '-' ||
	    size > (64ul << 20)) {
		fprintf(stderr, "%s: --l1: bad size '%s'\n", c->prog, buf);
		return -1;
	}
	c->cfg.l1.size = (uint32_t)size;
	if (gpu_cli_u32(c->prog, "--l1 associativity", p, 1, 64,
	    &c->cfg.l1.assoc) != 0 || gpu_cli_u32(c->prog, "--l1 line", q,
	    4, 4096, &c->cfg.l1.line) != 0)
		return -1;
	if (gpu_cfg_check(&c->cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: --l1: %s\n", c->prog, err);
		return -1;
	}
	return 0;
}

/* CLASS=N,... */
static int
gpu_cli_lat(struct gpu_cli *c, const char *s)
{
	char		 buf[256], *tok, *save = NULL, *eq;
	unsigned int	 i;

	if (s == NULL || strlen(s) >= sizeof(buf)) {
		fprintf(stderr, "%s: --lat needs CLASS=N,...\n", c->prog);
		return -1;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((eq = strchr(tok, '=')) == NULL) {
			fprintf(stderr, "%s: --lat: '%s' is not CLASS=N\n",
			    c->prog, tok);
			return -1;
		}
		*eq = '\0';
		for (i = 0; i < GPU_GLD; i++)
			if (strcmp(tok, gpu_cls_names[i]) == 0)
				break;
		if (i == GPU_GLD) {
			fprintf(stderr, "%s: --lat: unknown class '%s' (alu, "
			    "sfu, shared, param, branch, bar, exit; memory "
			    "has --l1-hit and --lbase)\n", c->prog, tok);
			return -1;
		}
		if (gpu_cli_u32(c->prog, "--lat", eq + 1, 1, 100000,
		    &c->cfg.lat[i]) != 0)
			return -1;
	}
	return 0;
}

/* The numeric model parameters. */
static const struct {
	const char	*name;
	size_t		 off;
	uint32_t	 lo, hi;
} gpu_cli_nums[] = {
	{ "--l1-hit", offsetof(struct gpu_cfg, l1_hit), 1, 100000 },
	{ "--lbase", offsetof(struct gpu_cfg, l_base), 1, 100000 },
	{ "--conflict-sms", offsetof(struct gpu_cfg, n_conflict), 0, 1024 },
	{ "--max-warps", offsetof(struct gpu_cfg, max_warps), 1, 1024 },
	{ "--max-blocks", offsetof(struct gpu_cfg, max_blocks), 1, 1024 },
	{ "--skew", offsetof(struct gpu_cfg, skew), 0, 1000000 },
};

/* An option with a value; 0, or -1 after a message. */
static int
gpu_cli_valued(struct gpu_cli *c, const char *a, const char *v)
{
	size_t	i;

	/* every field in gpu_cli_nums is a uint32_t */
	for (i = 0; i < sizeof(gpu_cli_nums) / sizeof(gpu_cli_nums[0]); i++)
		if (strcmp(a, gpu_cli_nums[i].name) == 0)
			return gpu_cli_u32(c->prog, a, v, gpu_cli_nums[i].lo,
			    gpu_cli_nums[i].hi, (uint32_t *)(void *)
			    ((char *)&c->cfg + gpu_cli_nums[i].off));
	if (strcmp(a, "--l1") == 0)
		return gpu_cli_l1(c, v);
	if (strcmp(a, "--lat") == 0)
		return gpu_cli_lat(c, v);
	if (strcmp(a, "--grid") == 0) {
		c->have_grid = 1;
		return gpu_cli_dims(c, a, v, c->grid);
	}
	if (strcmp(a, "--block") == 0) {
		c->have_block = 1;
		return gpu_cli_dims(c, a, v, c->block);
	}
	if (v == NULL) {
		fprintf(stderr, "%s: %s needs a value\n", c->prog, a);
		return -1;
	}
	if (strcmp(a, "--kernel") == 0) {
		c->kernel = v;
		return 0;
	}
	/* --param */
	if (strchr(v, '=') == NULL) {
		fprintf(stderr, "%s: --param needs NAME=VALUE\n", c->prog);
		return -1;
	}
	if (c->nparams == PTX_MAX_PARAMS) {
		fprintf(stderr, "%s: too many --param\n", c->prog);
		return -1;
	}
	c->params[c->nparams++] = v;
	return 0;
}

int
gpu_cli_opt(struct gpu_cli *c, int argc, char **argv, int *i)
{
	static const char *const valued[] = {
		"--kernel", "--grid", "--block", "--param", "--l1", "--lat",
		"--l1-hit", "--lbase", "--conflict-sms", "--max-warps",
		"--max-blocks", "--skew"
	};
	const char	*a = argv[*i];
	size_t		 j;

	if (a[0] != '-' && c->file == NULL) {
		c->file = a;
		return 1;
	}
	if (strcmp(a, "--json") == 0) {
		c->json = 1;
		return 1;
	}
	for (j = 0; j < sizeof(valued) / sizeof(valued[0]); j++)
		if (strcmp(a, valued[j]) == 0)
			break;
	if (j == sizeof(valued) / sizeof(valued[0]))
		return 0;
	if (gpu_cli_valued(c, a, *i + 1 < argc ? argv[*i + 1] : NULL) != 0)
		return -1;
	(*i)++;
	return 1;
}

/* VALUE for a parameter of type t: an integer, or a number for floats. */
static int
gpu_cli_value(struct gpu_cli *c, const struct ptx_param *p, const char *s,
    uint64_t *v)
{
	char		*end;
	double		 d;
	float		 f;
	uint32_t	 u;

	errno = 0;
	if (PTX_T_KIND(p->type) == PTX_K_F) {
		d = strtod(s, &end);
		if (errno != 0 || end == s || *end != '\0' || !isfinite(d))
			goto bad;
		if (PTX_T_SIZE(p->type) == 4) {
			f = (float)d;
			memcpy(&u, &f, 4);
			*v = u;
		} else
			memcpy(v, &d, 8);
		return 0;
	}
	if (s[0] == '-')
		*v = (uint64_t)strtoll(s, &end, 0);
	else
		*v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0')
		goto bad;
	if (PTX_T_SIZE(p->type) < 8 && PTX_T_KIND(p->type) != PTX_K_S &&
	    (*v >> (8 * PTX_T_SIZE(p->type))) != 0)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "%s: --param %s: bad value '%s' for a .%s%u\n",
	    c->prog, p->name, s, PTX_T_KIND(p->type) == PTX_K_F ? "f" :
	    PTX_T_KIND(p->type) == PTX_K_S ? "s" : "u",
	    8 * PTX_T_SIZE(p->type));
	return -1;
}

static int
gpu_cli_params(struct gpu_cli *c)
{
	char		 name[256], err[256];
	const char	*eq;
	unsigned int	 i;
	int		 n;

	for (i = 0; i < c->nparams; i++) {
		eq = strchr(c->params[i], '=');
		if ((size_t)(eq - c->params[i]) >= sizeof(name)) {
			fprintf(stderr, "%s: --param: name too long\n", c->prog);
			return -1;
		}
		memcpy(name, c->params[i], (size_t)(eq - c->params[i]));
		name[eq - c->params[i]] = '\0';
		if ((n = ptx_param_find(c->k, name)) < 0) {
			fprintf(stderr, "%s: kernel %s has no parameter '%s' "
			    "(give its name or index 0..%u)\n", c->prog,
			    c->k->name, name, c->k->nparams ?
			    c->k->nparams - 1 : 0);
			return -1;
		}
		if (gpu_cli_value(c, &c->k->params[n], eq + 1,
		    &c->launch.param[n]) != 0)
			return -1;
		c->launch.have[n] = 1;
	}
	if (wexec_default_params(c->k, &c->launch, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", c->prog, err);
		return -1;
	}
	return 0;
}

int
gpu_cli_load(struct gpu_cli *c)
{
	char	*buf, err[512];
	size_t	 len;
	int	 rc;

	if (c->file == NULL) {
		fprintf(stderr, "%s: no PTX file\n", c->prog);
		return -1;
	}
	if (!c->have_grid || !c->have_block) {
		fprintf(stderr, "%s: --grid and --block are required\n",
		    c->prog);
		return -1;
	}
	if ((rc = fileio_read(c->file, PTX_MAX_SIZE, &buf, &len)) != 0) {
		fprintf(stderr, "%s: %s: %s\n", c->prog, c->file,
		    rc == -EFBIG ? "larger than 4 MiB" : strerror(-rc));
		return -1;
	}
	if ((c->mod = malloc(sizeof(*c->mod))) == NULL) {
		free(buf);
		fprintf(stderr, "%s: out of memory\n", c->prog);
		return -1;
	}
	rc = ptx_parse(buf, len, c->mod, err, sizeof(err));
	free(buf);
	if (rc != 0) {
		fprintf(stderr, "%s: %s: %s\n", c->prog, c->file, err);
		free(c->mod);
		c->mod = NULL;
		return -1;
	}
	if (c->kernel == NULL && c->mod->nkernels > 1) {
		fprintf(stderr, "%s: %s has %u kernels: name one with "
		    "--kernel\n", c->prog, c->file, c->mod->nkernels);
		return -1;
	}
	c->k = c->kernel ? ptx_kernel_find(c->mod, c->kernel) :
	    &c->mod->kernels[0];
	if (c->k == NULL) {
		fprintf(stderr, "%s: %s has no kernel '%s'\n", c->prog,
		    c->file, c->kernel);
		return -1;
	}
	memcpy(c->launch.grid, c->grid, sizeof(c->grid));
	memcpy(c->launch.block, c->block, sizeof(c->block));
	return gpu_cli_params(c);
}

int
gpu_cli_trace(struct gpu_cli *c, const struct gpu_launch *l,
    struct gpu_trace *t)
{
	char	err[512];

	if (wexec_run(c->k, l ? l : &c->launch, c->cfg.l1.line, t, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s: %s\n", c->prog, c->file, err);
		return -1;
	}
	return 0;
}

void
gpu_cli_free(struct gpu_cli *c)
{
	if (c->mod != NULL) {
		ptx_free(c->mod);
		free(c->mod);
	}
	c->mod = NULL;
}
