/*
 * fuzz_trace.c - the trace reader (CSV and binary) and the accumulator
 * on arbitrary bytes: every input ends in records, a clean end or an
 * error message, never a crash or unbounded memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "trace.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct trace_reader r;
	struct trace_rec rec;
	struct trace_acc a;
	char	err[128];
	FILE	*f;
	int	rc;

	if (len == 0)
		return 0;
	f = fmemopen((void *)data, len, "r");
	if (f == NULL)
		return 0;
	/* a small block limit bounds the accumulator's memory */
	if (trace_acc_init(&a, 8, 4096, 0) < 0) {
		fclose(f);
		return 0;
	}
	rc = trace_open(&r, f, err, sizeof(err));
	while (rc >= 0 && (rc = trace_next(&r, &rec, err, sizeof(err))) > 0) {
		if (rec.cond > 1 || rec.exec_ns == 0 ||
		    rec.exec_ns > TRACE_MAX_EXEC)
			abort();
		(void)trace_acc_add(&a, &rec);
	}
	if (rc < 0 && memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	trace_acc_free(&a);
	fclose(f);
	return 0;
}
