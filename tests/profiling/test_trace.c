/*
 * test_trace.c - the trace reader (CSV and binary), the binary writer and
 * the bounded per-block accumulator.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcheck.h"
#include "trace.h"

static int
read_all(const char *buf, size_t len, struct trace_rec *out, int max,
    char *err)
{
	struct trace_reader *r = malloc(sizeof(*r));
	FILE	*f = fmemopen((void *)buf, len, "r");
	int	n = 0, rc;

	rc = trace_open(r, f, err, 128);
	while (rc >= 0 && n < max && (rc = trace_next(r, &out[n], err,
	    128)) > 0)
		n++;
	fclose(f);
	free(r);
	return rc < 0 ? rc : n;
}

int
main(void)
{
	static const char csv[] = "run,block,exec_ns,cond\r\n0,0,100,0\n"
	    "# comment\n\n0,1,2000,1\n7,16777215,72057594037927935,0";
	struct trace_rec rec[8], w;
	struct trace_acc a;
	char	err[128], *bin = NULL;
	size_t	blen = 0;
	uint32_t len, *v;
	FILE	*f;
	int	i;

	CHECK(read_all(csv, sizeof(csv) - 1, rec, 8, err) == 3);
	CHECK(rec[0].run == 0 && rec[0].block == 0 && rec[0].exec_ns == 100 &&
	    rec[0].cond == 0);
	CHECK(rec[1].block == 1 && rec[1].cond == 1);
	CHECK(rec[2].run == 7 && rec[2].exec_ns == TRACE_MAX_EXEC);

	CHECK(read_all("run,block,exec\n", 15, rec, 8, err) == -EINVAL);
	CHECK(strstr(err, "header") != NULL);
	CHECK(read_all("run,block,exec_ns,cond\n0,0,1,2\n", 31, rec, 8,
	    err) == -EINVAL);
	CHECK(strstr(err, "line 2") != NULL);
	CHECK(read_all("run,block,exec_ns,cond\n0,0,0,0\n", 31, rec, 8,
	    err) == -EINVAL);
	CHECK(read_all("run,block,exec_ns,cond\n0,0,-1,0\n", 32, rec, 8,
	    err) == -EINVAL);
	CHECK(read_all("run,block,exec_ns,cond\n4294967296,0,1,0\n", 40, rec,
	    8, err) == -EINVAL);
	CHECK(read_all("run,block,exec_ns,cond\n0,0,1,0,\n", 32, rec, 8,
	    err) == -EINVAL);
	CHECK(read_all("", 0, rec, 8, err) == -EINVAL);

	/* binary round trip */
	f = open_memstream(&bin, &blen);
	CHECK(trace_write_header(f) == 0);
	for (i = 0; i < 5; i++) {
		w.run = (uint32_t)i;
		w.block = 70000u + (uint32_t)i;
		w.exec_ns = 0x00ab000000000001ull + (uint64_t)i;
		w.cond = (unsigned)i & 1;
		CHECK(trace_write_rec(f, &w) == 0);
	}
	w.cond = 2;
	CHECK(trace_write_rec(f, &w) == -EINVAL);
	fclose(f);
	CHECK(blen == TRACE_HDR_SIZE + 5 * TRACE_REC_SIZE);
	CHECK(read_all(bin, blen, rec, 8, err) == 5);
	CHECK(rec[4].run == 4 && rec[4].block == 70004 &&
	    rec[4].exec_ns == 0x00ab000000000005ull && rec[4].cond == 0);
	CHECK(rec[3].cond == 1);
	CHECK(read_all(bin, blen - 3, rec, 8, err) == -EINVAL);
	CHECK(strstr(err, "truncated") != NULL);
	bin[4] = 2;
	CHECK(read_all(bin, blen, rec, 8, err) == -EINVAL);
	free(bin);

	/* accumulator: exact moments, reservoir bounded and exact below */
	CHECK(trace_acc_init(&a, 8, 100, 0) == 0);
	for (i = 0; i < 1000; i++) {
		w.run = (uint32_t)i;
		w.block = 3;
		w.exec_ns = (uint64_t)(i % 10) + 1;
		w.cond = 0;
		CHECK(trace_acc_add(&a, &w) == 0);
	}
	for (i = 0; i < 5; i++) {
		w.block = 1;
		w.exec_ns = (uint64_t)(10 * i + 1);
		w.cond = 1;
		CHECK(trace_acc_add(&a, &w) == 0);
	}
	CHECK(a.nblocks == 4);
	CHECK(a.st[3 * 2].count == 1000 && a.st[3 * 2].max == 10);
	CHECK_NEAR(a.st[3 * 2].mean, 5.5, 1e-12);
	v = trace_acc_sample(&a, 3, 0, &len);
	CHECK(len == 8);
	for (i = 0; i < 8; i++)
		CHECK(v[i] >= 1 && v[i] <= 10);
	v = trace_acc_sample(&a, 1, 1, &len);
	CHECK(len == 5 && v[0] == 1 && v[4] == 41);
	w.block = 100;
	CHECK(trace_acc_add(&a, &w) == -EINVAL);
	w.block = 0;
	w.exec_ns = 1ull << 32;
	CHECK(trace_acc_add(&a, &w) == -EINVAL);
	trace_acc_free(&a);
	CHECK_DONE();
}
