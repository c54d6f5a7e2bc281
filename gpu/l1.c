/*
 * l1.c - set-associative LRU cache with per-line stamps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "l1.h"

int
l1_init(struct l1 *c, const struct gpu_l1 *g)
{
	memset(c, 0, sizeof(*c));
	if (g->line == 0 || (g->line & (g->line - 1)) != 0 || g->assoc == 0 ||
	    g->size == 0 || g->size % (g->line * g->assoc) != 0)
		return -EINVAL;
	c->g = *g;
	c->nsets = g->size / (g->line * g->assoc);
	if ((c->ways = calloc((size_t)c->nsets * g->assoc,
	    sizeof(*c->ways))) == NULL)
		return -ENOMEM;
	return 0;
}

void
l1_free(struct l1 *c)
{
	free(c->ways);
	memset(c, 0, sizeof(*c));
}

void
l1_reset(struct l1 *c)
{
	memset(c->ways, 0, (size_t)c->nsets * c->g.assoc * sizeof(*c->ways));
	c->clock = 0;
	c->accesses = 0;
	c->misses = 0;
}

int
l1_access(struct l1 *c, uint64_t line, int store, int64_t miss_stamp,
    int64_t *stamp)
{
	struct l1_way	*set, *victim;
	uint32_t	 i;

	set = &c->ways[(size_t)((line / c->g.line) % c->nsets) * c->g.assoc];
	c->accesses++;
	c->clock++;
	for (i = 0; i < c->g.assoc; i++)
		if (set[i].valid && set[i].line == line) {
			set[i].used = c->clock;
			*stamp = set[i].stamp;
			return 1;
		}
	/* the first empty way, else the least recently used */
	victim = NULL;
	for (i = 0; i < c->g.assoc && victim == NULL; i++)
		if (!set[i].valid)
			victim = &set[i];
	if (victim == NULL) {
		victim = &set[0];
		for (i = 1; i < c->g.assoc; i++)
			if (set[i].used < victim->used)
				victim = &set[i];
	}
	c->misses++;
	if (!store) {
		victim->valid = 1;
		victim->line = line;
		victim->used = c->clock;
		victim->stamp = miss_stamp;
	}
	return 0;
}
