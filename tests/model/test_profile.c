/*
 * test_profile.c - the .bwk reader and writer: a valid profile, the
 * round trip through profile_format, and malformed profiles rejected
 * with the right line number (table-driven).
 */
#include <errno.h>
#include <string.h>

#include "profile.h"
#include "tcheck.h"

static const char good[] =
    "# a kernel\n"
    "bwk 1\n"
    "\n"
    "kernel  vecadd   # trailing comment\n"
    "blocks 40\n"
    "concurrency 2\r\n"
    "period_ns 100\n"
    "cluster 1 e0=30 e1=40\n"
    "cluster 0 e0=10 e1=20\n"
    "interval 0 1\n"
    "interval 10 0\n"
    "interval\t25 1\n";

#define HEAD	"bwk 1\nkernel k\nblocks 40\nconcurrency 2\n"
#define CL	"cluster 0 e0=10 e1=20\n"

static const struct {
	const char	*text;
	const char	*err;	/* expected prefix of the message */
} bad[] = {
	{ "", "line 1: missing 'bwk'" },
	{ "kernel k\n", "line 1: the first directive" },
	{ "# x\nbwk 2\n", "line 2: expected 'bwk 1'" },
	{ "bwk 1\nbwk 1\n", "line 2: duplicate 'bwk'" },
	{ "bwk 1\nfoo 3\n", "line 2: unknown directive 'foo'" },
	{ HEAD "kernel x\n", "line 5: duplicate 'kernel'" },
	{ HEAD "blocks 3\n", "line 5: duplicate 'blocks'" },
	{ HEAD "concurrency 3\n", "line 5: duplicate 'concurrency'" },
	{ "bwk 1\nblocks 1x\n", "line 2: bad number '1x'" },
	{ "bwk 1\nblocks -1\n", "line 2: bad number '-1'" },
	{ "bwk 1\nblocks 0\n", "line 2: out of range '0'" },
	{ "bwk 1\nblocks 99999999999\n", "line 2: out of range" },
	{ "bwk 1\nperiod_ns 99999999999999999999999\n", "line 2: bad number" },
	{ "bwk 1\nperiod_ns 5\nperiod_ns 5\n", "line 3: duplicate" },
	{ "bwk 1\nblocks 4 5\n", "line 2: 'blocks' takes one value" },
	{ "bwk 1\nkernel\n", "line 2: expected 'kernel NAME'" },
	{ "bwk 1\nkernel "
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	  "line 2: expected 'kernel NAME'" },
	{ HEAD "cluster 0 e0=30 e1=20\n", "line 5: e0 30 > e1 20" },
	{ HEAD "cluster 0 e0=0 e1=20\n", "line 5: e0 must be > 0" },
	{ HEAD "cluster 0 e0=x e1=20\n", "line 5: bad e0" },
	{ HEAD "cluster 0 e1=20 e0=10\n", "line 5: bad e0" },
	{ HEAD "cluster 0 e0=10 e1=\n", "line 5: bad e1" },
	{ HEAD "cluster 0 e0=10\n", "line 5: expected 'cluster" },
	{ HEAD "cluster 64 e0=1 e1=2\n", "line 5: cluster id 64 out of" },
	{ HEAD CL "cluster 0 e0=1 e1=2\n", "line 6: duplicate cluster 0" },
	{ HEAD CL "interval 5 0\n", "line 6: the first interval must start" },
	{ HEAD CL "interval 0 0\ninterval 0 0\n", "line 7: interval start 0 "
	  "not above" },
	{ HEAD CL "interval 0 0\ninterval 20 0\ninterval 7 0\n",
	  "line 8: interval start 7 not above" },
	{ HEAD CL "interval 0 0\ninterval 40 0\n",
	  "line 7: interval start 40 beyond the 40 blocks" },
	{ HEAD CL "interval 0 0\ninterval 20 1\n",
	  "line 7: unknown cluster 1" },
	{ HEAD CL "interval 0 0\ninterval 20 99\n",
	  "line 7: unknown cluster 99" },
	{ HEAD CL "cluster 1 e0=1 e1=2\ninterval 0 0\n",
	  "line 6: cluster 1 is used by no interval" },
	{ HEAD "cluster 1 e0=1 e1=2\ninterval 0 1\n",
	  "line 6: missing cluster 0" },
	{ HEAD CL, "line 5: missing 'interval'" },
	{ HEAD "interval 0 0\n", "line 5: missing 'cluster'" },
	{ "bwk 1\nkernel k\nconcurrency 2\n" CL "interval 0 0\n",
	  "line 5: missing 'blocks'" },
	{ "bwk 1\nkernel k\nblocks 2\n" CL "interval 0 0\n",
	  "line 5: missing 'concurrency'" },
	{ "bwk 1\nblocks 2\nconcurrency 2\n" CL "interval 0 0\n",
	  "line 5: missing 'kernel'" },
	{ HEAD CL "interval 0 0 7\n", "line 6: expected 'interval" },
	{ HEAD CL "interval 0\n", "line 6: expected 'interval" },
	{ HEAD CL "interval x 0\n", "line 6: bad block number" },
	{ HEAD "cluster 0 e0=1 e1=2 e2=3 x\n", "line 5: expected 'cluster" },
	{ HEAD "cluster 0 e0=1 e1=2 a b c d e\n", "line 5: too many fields" },
	/* the gpu directive (doc/partition.md) */
	{ HEAD "gpu a_ns=10\n", "line 5: 'gpu' needs a_ns= and class=" },
	{ HEAD "gpu class=ci\n", "line 5: 'gpu' needs" },
	{ HEAD "gpu a_ns=10 class=xi\n", "line 5: bad gpu field 'class=xi'" },
	{ HEAD "gpu a_ns=0 class=ci\n", "line 5: bad gpu field 'a_ns=0'" },
	{ HEAD "gpu a_ns=1 class=ci foo=3\n", "line 5: unknown gpu field" },
	{ HEAD "gpu a_ns=1 class=ci a_ns=2\n", "line 5: duplicate gpu field" },
	{ HEAD "gpu a_ns=1 class=ci k=0.5\n", "line 5: bad gpu field 'k=0.5'" },
	{ HEAD "gpu a_ns=1 class=ci k=1.2345\n", "line 5: bad gpu field" },
	{ HEAD "gpu a_ns=1 class=ci k=101\n", "line 5: bad gpu field" },
	{ HEAD "gpu a_ns=1 class=ci k=1.\n", "line 5: bad gpu field" },
	{ HEAD "gpu a_ns=1 class=ci deadline_ns=9 period_ns=8\n",
	  "line 5: gpu deadline_ns above period_ns" },
	{ HEAD "gpu a_ns=1 class=ci\ngpu a_ns=1 class=ci\n",
	  "line 6: duplicate 'gpu'" },
	{ "bwk 1\nkernel a\0b\n", "line 2: control character" },
};

static void
test_good(void)
{
	struct profile		p, q;
	struct wcet_kernel	k;
	struct progress_table	t;
	char			err[128], buf[4096];
	int			len;

	CHECK(profile_parse(good, sizeof(good) - 1, &p, err,
	    sizeof(err)) == 0);
	CHECK(strcmp(p.name, "vecadd") == 0);
	CHECK_U64(p.blocks, 40);
	CHECK_U64(p.concurrency, 2);
	CHECK_U64(p.period_ns, 100);
	CHECK_U64(p.nclusters, 2);
	CHECK_U64(p.e0[1], 30);
	CHECK_U64(p.e1[0], 20);
	CHECK_U64(p.nintervals, 3);
	CHECK_U64(p.first[2], 25);
	CHECK_U64(p.cluster[0], 1);
	CHECK(profile_to_model(&p, &k, &t) == 0);
	CHECK_U64(t.n[0], 15);
	CHECK_U64(t.n[1], 25);
	CHECK_NEAR(k.period, 100, 0);
	CHECK(k.m == 2 && k.order[0] == 0);

	len = profile_format(&p, buf, sizeof(buf));
	CHECK(len > 0);
	CHECK(profile_parse(buf, (size_t)len, &q, err, sizeof(err)) == 0);
	CHECK(memcmp(&p, &q, sizeof(p)) == 0);
	CHECK(profile_format(&p, buf, (size_t)len) == -ENOSPC);
	CHECK(profile_format(&p, buf, (size_t)len + 1) == len);
	q = p;
	strcpy(q.name, "two words");
	CHECK(profile_format(&q, buf, sizeof(buf)) == -EINVAL);
	q.name[0] = '\0';
	CHECK(profile_format(&q, buf, sizeof(buf)) == -EINVAL);
	q = p;
	q.nclusters = WCET_MAX_CLUSTERS + 1;
	CHECK(profile_format(&q, buf, sizeof(buf)) == -EINVAL);

	/* the gpu directive reads back exactly */
	len = (int)strlen(HEAD CL "interval 0 0\ngpu class=mi a_ns=500 "
	    "k=2.05 b_ns=0 period_ns=2000000\n");
	CHECK(profile_parse(HEAD CL "interval 0 0\ngpu class=mi a_ns=500 "
	    "k=2.05 b_ns=0 period_ns=2000000\n", (size_t)len, &p, err,
	    sizeof(err)) == 0);
	CHECK(p.gpu.present && p.gpu.mi && p.gpu.a_ns == 500 &&
	    p.gpu.has_b && p.gpu.b_ns == 0 && p.gpu.k_milli == 2050 &&
	    p.gpu.period_ns == 2000000 && p.gpu.deadline_ns == 0);
	len = profile_format(&p, buf, sizeof(buf));
	CHECK(len > 0 && strstr(buf, "gpu a_ns=500 class=mi b_ns=0 k=2.050 "
	    "period_ns=2000000\n") != NULL);
	CHECK(profile_parse(buf, (size_t)len, &q, err, sizeof(err)) == 0 &&
	    memcmp(&p, &q, sizeof(p)) == 0);
	CHECK(profile_parse(HEAD CL "interval 0 0\ngpu a_ns=7 class=ci k=3\n",
	    strlen(HEAD CL "interval 0 0\ngpu a_ns=7 class=ci k=3\n"), &p, err,
	    sizeof(err)) == 0 && p.gpu.k_milli == 3000 && !p.gpu.has_b);

	/* period defaults; no trailing newline */
	CHECK(profile_parse("bwk 1\nkernel k\nblocks 1\nconcurrency 1\n"
	    "cluster 0 e0=5 e1=5\ninterval 0 0", 70, &p, err,
	    sizeof(err)) == 0);
	CHECK_U64(p.period_ns, PROFILE_DEFAULT_PERIOD);
}

static void
test_bad(void)
{
	struct profile	p;
	char		err[160];
	size_t		i, len;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = strlen(bad[i].text);
		if (strstr(bad[i].err, "control"))
			len += 3;	/* past the NUL */
		memset(err, 'x', sizeof(err));
		CHECK(profile_parse(bad[i].text, len, &p, err,
		    sizeof(err)) == -EINVAL);
		if (strncmp(err, bad[i].err, strlen(bad[i].err)) != 0) {
			fprintf(stderr, "case %zu: got \"%s\", expected "
			    "\"%s...\"\n", i, err, bad[i].err);
			failures++;
		}
	}
	/* a tiny error buffer is not overrun */
	err[4] = 'z';
	CHECK(profile_parse("x", 1, &p, err, 4) == -EINVAL);
	CHECK(err[3] == '\0' && err[4] == 'z');
}

int
main(void)
{
	test_good();
	test_bad();
	return tcheck_done("test_profile");
}
