/*
 * fuzz_msg.c - fuzz target: the daemon's request path up to the handler
 * (bwp_msg_request, then validate_request), with the descriptor count
 * taken from the input's length so the descriptor checks run too; and
 * the msgpack decoder against msgpack-c's on the same input (mpdiff.h),
 * which aborts on any difference.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "driver.h"
#include "mpdiff.h"
#include "validate.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static union req	r;
	struct bwp_msg		m;
	char			why[200];

	if (mpdiff_check(data, size, why, sizeof(why)) < 0) {
		fprintf(stderr, "fuzz_msg: decoders differ: %s\n", why);
		abort();
	}
	bwp_msg_init(&m);
	if (bwp_msg_request(&m, data, size) == BWP_OK)
		validate_request(&m, (int)(size % (BWP_MAX_FDS + 1)), &r);
	bwp_msg_free(&m);
	return 0;
}
