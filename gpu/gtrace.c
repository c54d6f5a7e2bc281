/*
 * gtrace.c - the model's parameters with their defaults, and the trace
 * containers the analyzer fills.  doc/gpu-model.md gives the source of
 * every default.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtrace.h"

const char *const gpu_cls_names[GPU_NCLS] = {
	"alu", "sfu", "shared", "param", "branch", "bar", "exit", "gld", "gst",
	"gatom"
};

void
gpu_cfg_default(struct gpu_cfg *c)
{
	memset(c, 0, sizeof(*c));
	/* [Reorder] Table 2: 16 kB, 4-way, 128 B lines, LRU */
	c->l1.size = 16 * 1024;
	c->l1.assoc = 4;
	c->l1.line = 128;
	c->lat[GPU_ALU] = 4;
	c->lat[GPU_SFU] = 20;
	c->lat[GPU_SHARED] = 24;
	c->lat[GPU_PARAM] = 4;
	c->lat[GPU_BRANCH] = 6;
	c->lat[GPU_BAR] = 16;
	c->lat[GPU_EXIT] = 1;
	c->l1_hit = 28;
	c->l_base = 400;
	/* the other 14 SMs of [Reorder]'s 15-SM configuration */
	c->n_conflict = 14;
	c->max_warps = 48;
	c->max_blocks = 8;
	c->skew = 32;
}

int
gpu_cfg_check(const struct gpu_cfg *c, char *err, size_t errlen)
{
	const struct gpu_l1	*l = &c->l1;
	unsigned int		 i;

	if (l->line < 4 || l->line > 4096 || (l->line & (l->line - 1)) != 0) {
		snprintf(err, errlen, "L1 line size must be a power of two "
		    "in 4..4096");
		return -EINVAL;
	}
	if (l->assoc == 0 || l->assoc > 64 || l->size == 0 ||
	    l->size > (64u << 20) || l->size % (l->line * l->assoc) != 0) {
		snprintf(err, errlen, "L1 size must be a multiple of line "
		    "size x associativity (associativity 1..64, at most "
		    "64 MiB)");
		return -EINVAL;
	}
	for (i = 0; i < GPU_NCLS; i++)
		if (c->lat[i] > 100000) {
			snprintf(err, errlen, "latency of %s: at most 100000",
			    gpu_cls_names[i]);
			return -EINVAL;
		}
	for (i = 0; i < GPU_GLD; i++)
		if (c->lat[i] == 0) {
			snprintf(err, errlen, "latency of %s: at least 1",
			    gpu_cls_names[i]);
			return -EINVAL;
		}
	if (c->l1_hit == 0 || c->l1_hit > 100000 || c->l_base > 100000 ||
	    c->l_base < c->l1_hit || c->n_conflict > 1024) {
		snprintf(err, errlen, "memory latencies: 1 <= L1 hit <= "
		    "L_base <= 100000, at most 1024 conflicting SMs");
		return -EINVAL;
	}
	if (c->max_warps == 0 || c->max_warps > 1024 || c->max_blocks == 0 ||
	    c->max_blocks > 1024 || c->skew > 1000000) {
		snprintf(err, errlen, "SM: 1..1024 warps and blocks, skew at "
		    "most 1000000");
		return -EINVAL;
	}
	return 0;
}

uint32_t
gpu_lat(const struct gpu_cfg *c, const struct gpu_sinst *s)
{
	if (s->lat != 0)
		return s->lat;
	return c->lat[s->cls];
}

uint32_t
gpu_wave_blocks(const struct gpu_cfg *c, uint32_t warps_per_block,
    uint32_t cap)
{
	uint32_t	n;

	if (warps_per_block == 0 || warps_per_block > cap)
		return 0;
	n = cap / warps_per_block;
	return n < c->max_blocks ? n : c->max_blocks;
}

int
gpu_grow(void **p, uint32_t *cap, uint64_t need, size_t elem, uint32_t max)
{
	uint64_t	 n;
	void		*q;

	if (need <= *cap)
		return 0;
	if (need > max)
		return -E2BIG;
	n = *cap ? (uint64_t)*cap * 2 : 1024;
	if (n < need)
		n = need;
	if (n > max)
		n = max;
	if ((q = realloc(*p, (size_t)n * elem)) == NULL)
		return -ENOMEM;
	*p = q;
	*cap = (uint32_t)n;
	return 0;
}

int
gpu_trace_add(struct gpu_trace *t, uint32_t sidx, uint16_t active,
    const uint64_t *lines, unsigned int nlines)
{
	struct gpu_dinst	*d;
	int			 rc;

	if ((rc = gpu_grow((void **)&t->d, &t->d_cap, (uint64_t)t->nd + 1,
	    sizeof(*t->d), GPU_MAX_DYN)) != 0)
		return rc;
	if ((rc = gpu_grow((void **)&t->lines, &t->lines_cap,
	    (uint64_t)t->nlines + nlines, sizeof(*t->lines),
	    GPU_MAX_LINES)) != 0)
		return rc;
	d = &t->d[t->nd++];
	d->sidx = sidx;
	d->line0 = t->nlines;
	d->nlines = (uint16_t)nlines;
	d->active = active;
	if (nlines > 0)
		memcpy(t->lines + t->nlines, lines, nlines * sizeof(*lines));
	t->nlines += nlines;
	return 0;
}

void
gpu_trace_free(struct gpu_trace *t)
{
	free(t->sinst);
	free(t->warps);
	free(t->d);
	free(t->lines);
	memset(t, 0, sizeof(*t));
}

uint64_t
gpu_trace_requests(const struct gpu_trace *t)
{
	return t->nlines;
}
