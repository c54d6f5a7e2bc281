/*
 * fuzz_profile.c - the .bwk parser on arbitrary bytes: never crashes,
 * every accepted profile formats and parses back to the same profile,
 * builds a valid model, and the O(C) parts of the model accept it.
 */
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "profile.h"
#include "budget.h"

static char	fmtbuf[PROFILE_MAX_SIZE];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct profile		p, q;
	static struct wcet_kernel	k;
	static struct progress_table	t;
	static uint64_t			bitmap[64];
	uint64_t			r[WCET_MAX_CLUSTERS];
	char				err[256];
	double				g0, g1;
	int				len;

	if (size > PROFILE_MAX_SIZE)
		return 0;
	if (profile_parse((const char *)data, size, &p, err,
	    sizeof(err)) != 0) {
		if (strncmp(err, "line ", 5) != 0)
			abort();
		return 0;
	}
	len = profile_format(&p, fmtbuf, sizeof(fmtbuf));
	if (len <= 0)
		abort();
	if (profile_parse(fmtbuf, (size_t)len, &q, err, sizeof(err)) != 0 ||
	    memcmp(&p, &q, sizeof(p)) != 0)
		abort();
	if (profile_to_model(&p, &k, &t) != 0)
		abort();
	g0 = wcet_isolation(&k, t.n);
	g1 = wcet_relaxed(&k, t.n, 1e300);
	if (!(g1 >= g0))
		abort();
	memset(bitmap, 0xa5, sizeof(bitmap));
	progress_count(&t, bitmap, 64, r);
	(void)budget_fair(&k, r, g1 / 2, 0.1);
	(void)budget_greedy(&k, r, g1 / 2, 0.1);
	return 0;
}
