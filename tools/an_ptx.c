/*
 * an_ptx.c - bwanalyze ptx: the kernel analyzer and the estimators of
 * [Reorder] on a PTX file (doc/gpu-model.md): warps, instructions and
 * segments, global line requests, the L1 miss rate in the reordering
 * unit's order and the warp-segment WCET without and with it.
 */
#include <stdio.h>
#include <string.h>

#include "bwanalyze.h"
#include "est.h"
#include "gpu_cli.h"
#include "jsonw.h"

#define AN_PTX	"bwanalyze ptx"

static void
an_ptx_json(const struct gpu_cli *c, const struct gpu_est *e)
{
	struct jsonw	j;
	int		i;

	jsonw_init(&j, stdout);
	jsonw_obj_begin(&j);
	jsonw_key(&j, "kernel");
	jsonw_str(&j, c->k->name);
	jsonw_key(&j, "grid");
	jsonw_arr_begin(&j);
	for (i = 0; i < 3; i++)
		jsonw_uint(&j, c->grid[i]);
	jsonw_arr_end(&j);
	jsonw_key(&j, "block");
	jsonw_arr_begin(&j);
	for (i = 0; i < 3; i++)
		jsonw_uint(&j, c->block[i]);
	jsonw_arr_end(&j);
	jsonw_key(&j, "warps");
	jsonw_uint(&j, e->warps);
	jsonw_key(&j, "waves");
	jsonw_uint(&j, e->waves);
	jsonw_key(&j, "instructions");
	jsonw_uint(&j, e->instructions);
	jsonw_key(&j, "segments");
	jsonw_uint(&j, e->segments);
	jsonw_key(&j, "global_requests");
	jsonw_uint(&j, e->global_requests);
	jsonw_key(&j, "l1_accesses");
	jsonw_uint(&j, e->l1_accesses);
	jsonw_key(&j, "l1_misses");
	jsonw_uint(&j, e->l1_misses);
	jsonw_key(&j, "miss_rate_est");
	jsonw_double(&j, e->miss_rate);
	jsonw_key(&j, "coal_max");
	jsonw_uint(&j, e->coal_max);
	jsonw_key(&j, "wcet_cycles_no_mr");
	jsonw_uint(&j, e->wcet_no_mr);
	jsonw_key(&j, "wcet_cycles_mr");
	jsonw_uint(&j, e->wcet_mr);
	jsonw_key(&j, "eq2_cycles_no_mr");
	jsonw_uint(&j, e->eq2_no_mr);
	jsonw_key(&j, "eq2_cycles_mr");
	jsonw_uint(&j, e->eq2_mr);
	jsonw_obj_end(&j);
	jsonw_end(&j);
}

static void
an_ptx_text(const struct gpu_cli *c, const struct gpu_est *e)
{
	printf("kernel %s, grid %u,%u,%u, block %u,%u,%u: %u warps in %u "
	    "wave(s) of %u block(s)\n", c->k->name, c->grid[0], c->grid[1],
	    c->grid[2], c->block[0], c->block[1], c->block[2], e->warps,
	    e->waves, e->wave_blocks);
	printf("instructions %llu, segments %llu, global line requests %llu "
	    "(COAL_max %u)\n", (unsigned long long)e->instructions,
	    (unsigned long long)e->segments,
	    (unsigned long long)e->global_requests, e->coal_max);
	printf("L1 %u B, %u-way, %u B lines: %llu accesses, %llu misses in "
	    "the reordered order: miss rate %.4f\n", c->cfg.l1.size,
	    c->cfg.l1.assoc, c->cfg.l1.line,
	    (unsigned long long)e->l1_accesses,
	    (unsigned long long)e->l1_misses, e->miss_rate);
	printf("WCET bound: %llu cycles assuming every request misses, "
	    "%llu with the misses the order gives\n",
	    (unsigned long long)e->wcet_no_mr, (unsigned long long)e->wcet_mr);
	printf("[Reorder] Eq. 1-2 read literally (not a bound): %llu cycles "
	    "with Eq. 3, %llu with Eq. 4\n", (unsigned long long)e->eq2_no_mr,
	    (unsigned long long)e->eq2_mr);
}

/* Each warp's global accesses, as the analyzer of [Reorder] lists them. */
static void
an_ptx_accesses(const struct gpu_trace *t)
{
	const struct gpu_warp	*w;
	const struct gpu_dinst	*d;
	const struct gpu_sinst	*s;
	uint32_t		 i, j, r;

	for (i = 0; i < t->nwarps; i++) {
		w = &t->warps[i];
		printf("block %u warp %u:", w->block, w->wib);
		for (j = 0; j < w->nd; j++) {
			d = &t->d[w->d0 + j];
			s = &t->sinst[d->sidx];
			if (!GPU_IS_GLOBAL(s->cls) || d->nlines == 0)
				continue;
			printf(" [%s line %u:", s->cls == GPU_GLD ? "L" :
			    s->cls == GPU_GST ? "S" : "A", s->line);
			for (r = 0; r < d->nlines; r++)
				printf(" 0x%llx", (unsigned long long)
				    t->lines[d->line0 + r]);
			printf("]");
		}
		printf("\n");
	}
}

int
an_ptx_main(int argc, char **argv)
{
	struct gpu_cli		c;
	struct gpu_trace	t;
	struct gpu_est		e;
	char			err[256];
	int			i, rc, accesses = 0;

	gpu_cli_init(&c, AN_PTX);
	for (i = 1; i < argc; i++) {
		if ((rc = gpu_cli_opt(&c, argc, argv, &i)) < 0)
			return 2;
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--accesses") == 0)
			accesses = 1;
		else {
			fprintf(stderr, AN_PTX ": unknown argument '%s'\n"
			    "usage: bwanalyze ptx %s [--accesses]\n", argv[i],
			    gpu_cli_usage);
			return 2;
		}
	}
	if (gpu_cli_load(&c) != 0 || gpu_cli_trace(&c, NULL, &t) != 0) {
		gpu_cli_free(&c);
		return 2;
	}
	rc = gpu_estimate(&t, &c.cfg, &e, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, AN_PTX ": %s\n", err);
	else if (accesses)
		an_ptx_accesses(&t);
	else if (c.json)
		an_ptx_json(&c, &e);
	else
		an_ptx_text(&c, &e);
	gpu_trace_free(&t);
	gpu_cli_free(&c);
	return rc != 0 ? 2 : 0;
}
