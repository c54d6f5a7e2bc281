/*
 * regulator.c - backend lookup by name, and regulator = auto
 * (regulator.h).
 */
#include <config.h>
#include <string.h>
#include <unistd.h>

#include "regulator.h"

static const struct regulator_ops *const backends[] = {
	&reg_sim_ops,
	&reg_kmod_ops,
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

const struct regulator_ops *
regulator_auto(const char *device)
{
	return access(device, F_OK) == 0 ? &reg_kmod_ops : &reg_sim_ops;
}
