/*
 * order.c - the reordering unit's static release order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "order.h"

struct order_key {
	uint32_t	wave, phase, k, warp;
	uint32_t	dyn;
};

static int
order_cmp(const void *a, const void *b)
{
	const struct order_key	*x = a, *y = b;

	if (x->wave != y->wave)
		return x->wave < y->wave ? -1 : 1;
	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	/* warps are numbered block-major, so this is block then warp */
	if (x->warp != y->warp)
		return x->warp < y->warp ? -1 : 1;
	return 0;
}

static int
order_is_l1(const struct gpu_trace *t, const struct gpu_dinst *d)
{
	uint8_t	cls = t->sinst[d->sidx].cls;

	return (cls == GPU_GLD || cls == GPU_GST) && d->nlines > 0;
}

/* One key per L1 instruction, in warp order. */
static uint32_t
order_keys(const struct gpu_trace *t, uint32_t wave_blocks,
    struct order_key *keys)
{
	const struct gpu_warp	*w;
	const struct gpu_dinst	*d;
	uint32_t		 i, j, n = 0, phase, k;

	for (i = 0; i < t->nwarps; i++) {
		w = &t->warps[i];
		phase = k = 0;
		for (j = 0; j < w->nd; j++) {
			d = &t->d[w->d0 + j];
			if (t->sinst[d->sidx].cls == GPU_BAR) {
				phase++;
				k = 0;
			}
			if (!order_is_l1(t, d))
				continue;
			keys[n].wave = w->block / wave_blocks;
			keys[n].phase = phase;
			keys[n].k = k++;
			keys[n].warp = i;
			keys[n].dyn = w->d0 + j;
			n++;
		}
	}
	return n;
}

int
gpu_order_build(const struct gpu_trace *t, uint32_t wave_blocks,
    struct gpu_order *o)
{
	struct order_key	*keys = NULL;
	uint32_t		 i, j, nk = 0, nreq = 0, w;
	int			 rc = -ENOMEM;

	memset(o, 0, sizeof(*o));
	if (wave_blocks == 0)
		return -EINVAL;
	o->wave_blocks = wave_blocks;
	o->nwaves = (t->nblocks + wave_blocks - 1) / wave_blocks;
	for (i = 0; i < t->nd; i++)
		if (order_is_l1(t, &t->d[i])) {
			nk++;
			nreq += t->d[i].nlines;
		}
	keys = malloc((size_t)nk * sizeof(*keys) + 1);
	o->r = malloc((size_t)nreq * sizeof(*o->r) + 1);
	o->first = malloc((size_t)t->nd * sizeof(*o->first) + 1);
	o->wave_req = calloc(o->nwaves + 1, sizeof(*o->wave_req));
	if (!keys || !o->r || !o->first || !o->wave_req)
		goto out;
	for (i = 0; i < t->nd; i++)
		o->first[i] = ORDER_NONE;
	nk = order_keys(t, wave_blocks, keys);
	qsort(keys, nk, sizeof(*keys), order_cmp);
	for (i = 0; i < nk; i++) {
		const struct gpu_dinst	*d = &t->d[keys[i].dyn];

		o->first[keys[i].dyn] = o->n;
		for (j = 0; j < d->nlines; j++) {
			o->r[o->n].warp = keys[i].warp;
			o->r[o->n].dyn = keys[i].dyn;
			o->r[o->n].line = (uint16_t)j;
			o->r[o->n].store = t->sinst[d->sidx].cls == GPU_GST;
			o->n++;
		}
	}
	/* wave_req[w] is the first request of wave w */
	for (w = 0, i = 0; w <= o->nwaves; w++) {
		while (i < o->n &&
		    t->warps[o->r[i].warp].block / wave_blocks < w)
			i++;
		o->wave_req[w] = i;
	}
	o->wave_req[o->nwaves] = o->n;
	rc = 0;
out:
	free(keys);
	if (rc != 0)
		gpu_order_free(o);
	return rc;
}

void
gpu_order_free(struct gpu_order *o)
{
	free(o->r);
	free(o->first);
	free(o->wave_req);
	memset(o, 0, sizeof(*o));
}
