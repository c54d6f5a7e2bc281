/*
 * regulator.c - backend lookup by name (regulator.h).
 */
#include <config.h>
#include <string.h>

#include "regulator.h"

static const struct regulator_ops *const backends[] = {
	&reg_sim_ops,
	/* &reg_kmod_ops: added with daemon/reg_kmod.c by the kmod part */
};

const struct regulator_ops *
regulator_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}
