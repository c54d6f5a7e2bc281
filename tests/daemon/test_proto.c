/*
 * test_proto.c - the protocol library and the validators: decode and
 * validate every op (good and table-driven bad inputs), the writer,
 * framing with descriptors over a socketpair, and the page checks.
 */
#include <config.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bwsched/bwshm.h>

#include "jmp.h"
#include "validate.h"
#include "wire.h"

#include "../check.h"

#define KREG(extra) "{\"v\":1,\"id\":3,\"op\":\"kernel.register\"," \
	"\"name\":\"k\",\"blocks\":100,\"concurrency\":10," extra "}"
#define KGOOD	"\"clusters\":[[10,20],[5,5]],\"intervals\":[[0,0],[50,1]]"

static const struct {
	const char	*json;
	int		nfds;
	int		status;
	const char	*err;		/* substring, or NULL */
} cases[] = {
	/* header */
	{ "[1,2]", 0, BWP_E_MALFORMED, "not a map" },
	{ "5", 0, BWP_E_MALFORMED, "not a map" },
	{ "{}", 0, BWP_E_VERSION, "missing \"v\"" },
	{ "{\"v\":2,\"id\":1,\"op\":\"status\"}", 0, BWP_E_VERSION, NULL },
	{ "{\"v\":\"1\",\"id\":1,\"op\":\"status\"}", 0, BWP_E_VERSION, NULL },
	{ "{\"v\":1,\"op\":\"status\"}", 0, BWP_E_BADARG, "\"id\"" },
	{ "{\"v\":1,\"id\":-1,\"op\":\"status\"}", 0, BWP_E_BADARG, "\"id\"" },
	{ "{\"v\":1,\"id\":1}", 0, BWP_E_BADARG, "\"op\"" },
	{ "{\"v\":1,\"id\":1,\"op\":7}", 0, BWP_E_BADARG, "\"op\"" },
	{ "{\"v\":1,\"id\":1,\"op\":\"fly\"}", 0, BWP_E_UNKNOWN_OP, "fly" },
	{ "{\"v\":1,\"id\":1,\"op\":\"ge\"}", 0, BWP_E_UNKNOWN_OP, "\"ge\"" },
	{ "{\"v\":1,\"id\":1,\"op\":\"gets\"}", 0, BWP_E_UNKNOWN_OP, "gets" },
	{ "{\"v\":1,\"id\":18446744073709551615,\"op\":\"status\"}", 0,
	    BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"status\",\"future\":[1]}", 0, BWP_OK,
	    NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"status\"}", 1, BWP_E_BADFD,
	    "takes no descriptors" },
	/* hello */
	{ "{\"v\":1,\"id\":1,\"op\":\"hello\",\"pid\":10,\"name\":\"a\"}", 0,
	    BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"hello\",\"pid\":\"10\",\"name\":\"a\"}",
	    0, BWP_E_BADARG, "\"pid\"" },
	{ "{\"v\":1,\"id\":1,\"op\":\"hello\",\"pid\":10}", 0, BWP_E_BADARG,
	    "missing \"name\"" },
	{ "{\"v\":1,\"id\":1,\"op\":\"hello\",\"pid\":10,\"name\":"
	    "\"01234567890123456789012345678901"
	    "23456789012345678901234567890123\"}",
	    0, BWP_E_BADARG, "longer than 63" },
	/* task.register */
	{ "{\"v\":1,\"id\":1,\"op\":\"task.register\",\"name\":\"t\","
	    "\"period_ns\":1000000,\"priority\":10,\"pages\":3}", 2, BWP_OK,
	    NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"task.register\",\"name\":\"t\","
	    "\"period_ns\":1000000,\"priority\":10,\"pages\":3}", 1,
	    BWP_E_BADFD, "needs 2" },
	{ "{\"v\":1,\"id\":1,\"op\":\"task.register\",\"name\":\"t\","
	    "\"period_ns\":99999,\"priority\":10,\"pages\":0}", 0,
	    BWP_E_BADARG, "period_ns" },
	{ "{\"v\":1,\"id\":1,\"op\":\"task.register\",\"name\":\"t\","
	    "\"period_ns\":1000000,\"priority\":100,\"pages\":0}", 0,
	    BWP_E_BADARG, "priority" },
	{ "{\"v\":1,\"id\":1,\"op\":\"task.register\",\"name\":\"t\","
	    "\"period_ns\":1000000,\"priority\":1,\"pages\":4}", 0,
	    BWP_E_BADARG, "pages" },
	/* kernel.register */
	{ KREG(KGOOD), 0, BWP_OK, NULL },
	{ KREG(KGOOD ",\"slowdown\":0.2,\"q_nominal\":0.5"), 0, BWP_OK, NULL },
	{ KREG(KGOOD ",\"q_nominal\":1"), 0, BWP_OK, NULL },
	{ KREG(KGOOD ",\"slowdown\":0"), 0, BWP_E_BADARG, "slowdown" },
	{ KREG(KGOOD ",\"q_nominal\":1.5"), 0, BWP_E_BADARG, "q_nominal" },
	{ KREG(KGOOD ",\"q_nominal\":\"x\""), 0, BWP_E_BADARG, "q_nominal" },
	{ KREG("\"clusters\":[],\"intervals\":[[0,0]]"), 0, BWP_E_BADARG,
	    "clusters" },
	{ KREG("\"clusters\":[[0,20]],\"intervals\":[[0,0]]"), 0,
	    BWP_E_BADARG, "clusters.e0" },
	{ KREG("\"clusters\":[[30,20]],\"intervals\":[[0,0]]"), 0,
	    BWP_E_BADARG, "e1 < e0" },
	{ KREG("\"clusters\":[[10,3600000000001]],\"intervals\":[[0,0]]"), 0,
	    BWP_E_BADARG, "clusters.e1" },
	{ KREG("\"clusters\":[[10,20,30]],\"intervals\":[[0,0]]"), 0,
	    BWP_E_BADARG, "[e0_ns, e1_ns]" },
	{ KREG("\"clusters\":[[10,20]],\"intervals\":[[1,0]]"), 0,
	    BWP_E_BADARG, "start at 0" },
	{ KREG("\"clusters\":[[10,20]],\"intervals\":[[0,0],[0,0]]"), 0,
	    BWP_E_BADARG, "increase strictly" },
	{ KREG("\"clusters\":[[10,20]],\"intervals\":[[0,0],[100,0]]"), 0,
	    BWP_E_BADARG, "first_block" },
	{ KREG("\"clusters\":[[10,20]],\"intervals\":[[0,1]]"), 0,
	    BWP_E_BADARG, "cluster_id" },
	{ KREG("\"clusters\":[[10,20],[1,2]],\"intervals\":[[0,0]]"), 0,
	    BWP_E_BADARG, "cluster 1 is used by no interval" },
	{ KREG("\"clusters\":[[10,20]]"), 0, BWP_E_BADARG,
	    "missing \"intervals\"" },
	{ "{\"v\":1,\"id\":1,\"op\":\"kernel.register\",\"name\":\"k\","
	    "\"blocks\":16777217,\"concurrency\":1}", 0, BWP_E_BADARG,
	    "blocks" },
	{ "{\"v\":1,\"id\":1,\"op\":\"kernel.register\",\"name\":\"k\","
	    "\"blocks\":10,\"concurrency\":65537}", 0, BWP_E_BADARG,
	    "concurrency" },
	/* launches, streams */
	{ "{\"v\":1,\"id\":1,\"op\":\"kernel.start\",\"kernel\":1,"
	    "\"stream\":5,\"slot\":3,\"launch_ns\":12}", 0, BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"kernel.start\",\"kernel\":1}", 0,
	    BWP_E_BADARG, "stream" },
	{ "{\"v\":1,\"id\":1,\"op\":\"kernel.start\",\"kernel\":1,"
	    "\"stream\":5,\"slot\":64}", 0, BWP_E_BADARG, "slot" },
	{ "{\"v\":1,\"id\":1,\"op\":\"kernel.end\",\"kernel\":1,"
	    "\"launch\":2}", 0, BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"kernel.end\"}", 0, BWP_E_BADARG,
	    "kernel" },
	{ "{\"v\":1,\"id\":1,\"op\":\"stream.sync\",\"all\":true}", 0,
	    BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"stream.sync\",\"stream\":0}", 0,
	    BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"stream.sync\"}", 0, BWP_E_BADARG,
	    "stream" },
	{ "{\"v\":1,\"id\":1,\"op\":\"stream.sync\",\"all\":1}", 0,
	    BWP_E_BADARG, "boolean" },
	{ "{\"v\":1,\"id\":1,\"op\":\"memcpy.begin\"}", 0, BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"lock\"}", 0, BWP_OK, NULL },
	/* queries and admin */
	{ "{\"v\":1,\"id\":1,\"op\":\"kernels\",\"task\":2}", 0, BWP_OK,
	    NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"get\",\"key\":\"rho\"}", 0, BWP_OK,
	    NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"get\",\"key\":\"\"}", 0, BWP_E_BADARG,
	    "key" },
	{ "{\"v\":1,\"id\":1,\"op\":\"set\",\"key\":\"rho\",\"value\":2}", 0,
	    BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"set\",\"key\":\"rho\",\"value\":2.5}",
	    0, BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"set\",\"key\":\"policy\","
	    "\"value\":\"fair\"}", 0, BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"set\",\"key\":\"rho\"}", 0,
	    BWP_E_BADARG, "value" },
	{ "{\"v\":1,\"id\":1,\"op\":\"set\",\"key\":\"rho\",\"value\":[1]}",
	    0, BWP_E_BADARG, "value" },
	{ "{\"v\":1,\"id\":1,\"op\":\"subscribe\",\"topics\":[\"lock\","
	    "\"log\"]}", 0, BWP_OK, NULL },
	{ "{\"v\":1,\"id\":1,\"op\":\"subscribe\",\"topics\":[\"bogus\"]}", 0,
	    BWP_E_BADARG, "bogus" },
	{ "{\"v\":1,\"id\":1,\"op\":\"subscribe\",\"topics\":[1,2,3,4,5,6,7,"
	    "8,9]}", 0, BWP_E_BADARG, "topics" },
	{ "{\"v\":1,\"id\":1,\"op\":\"reload\"}", 0, BWP_OK, NULL },
};

static void
table(void)
{
	static union req	r;
	struct bwp_msg		m;
	size_t			i, len;
	void			*buf;
	int			st;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf = jmp_message(cases[i].json, &len);
		CHECKM(buf != NULL, "case %zu: bad JSON", i);
		if (buf == NULL)
			continue;
		bwp_msg_init(&m);
		if (bwp_msg_request(&m, buf, len) == BWP_OK)
			validate_request(&m, cases[i].nfds, &r);
		st = m.status;
		CHECKM(st == cases[i].status, "case %zu (%s): status %d, want "
		    "%d (%s)", i, cases[i].json, st, cases[i].status, m.err);
		CHECKM(cases[i].err == NULL || strstr(m.err, cases[i].err),
		    "case %zu: error \"%s\" lacks \"%s\"", i, m.err,
		    cases[i].err);
		bwp_msg_free(&m);
		free(buf);
	}
}

static void
decoded_values(void)
{
	static union req	r;
	struct bwp_msg		m;
	size_t			len;
	void			*buf;

	buf = jmp_message(KREG(KGOOD ",\"slowdown\":0.25"), &len);
	bwp_msg_init(&m);
	CHECKM(bwp_msg_request(&m, buf, len) == BWP_OK &&
	    validate_request(&m, 0, &r) == BWP_OK, "kernel.register");
	CHECKM(m.id == 3 && m.op == BWP_OP_KERNEL_REGISTER, "header");
	CHECKM(r.kreg.blocks == 100 && r.kreg.concurrency == 10 &&
	    r.kreg.nclusters == 2 && r.kreg.e0[0] == 10 &&
	    r.kreg.e1[1] == 5 && r.kreg.nintervals == 2 &&
	    r.kreg.first[1] == 50 && r.kreg.cluster[1] == 1 &&
	    r.kreg.has_slowdown && r.kreg.slowdown == 0.25 && !r.kreg.has_q,
	    "kernel.register values");
	bwp_msg_free(&m);
	free(buf);
}

/* Byte-level failures the JSON table cannot express. */
static void
raw(void)
{
	static const uint8_t huge[] = { 0x81, 0xa1, 'v', 0xdd, 0x7f, 0xff,
		0xff, 0xff };
	static const uint8_t trunc[] = { 0x81, 0xa1, 'v', 0xa5, 'a' };
	static const uint8_t trailing[] = { 0x80, 0x80 };
	static const uint8_t c1[] = { 0x81, 0xc1, 0x01 };
	struct bwp_msg		m;
	uint8_t			*big;

	bwp_msg_init(&m);
	CHECKM(bwp_msg_parse(&m, huge, sizeof(huge)) == BWP_E_MALFORMED &&
	    strstr(m.err, "more items than bytes"), "huge array: %s", m.err);
	bwp_msg_free(&m);
	bwp_msg_init(&m);
	CHECKM(bwp_msg_parse(&m, trunc, sizeof(trunc)) == BWP_E_MALFORMED &&
	    strstr(m.err, "truncated"), "truncated: %s", m.err);
	bwp_msg_free(&m);
	bwp_msg_init(&m);
	CHECKM(bwp_msg_parse(&m, trailing, sizeof(trailing)) ==
	    BWP_E_MALFORMED && strstr(m.err, "trailing"), "trailing");
	bwp_msg_free(&m);
	bwp_msg_init(&m);
	CHECKM(bwp_msg_parse(&m, c1, sizeof(c1)) == BWP_E_MALFORMED,
	    "0xc1");
	bwp_msg_free(&m);
	bwp_msg_init(&m);
	CHECKM(bwp_msg_parse(&m, trailing, 0) == BWP_E_MALFORMED, "empty");
	bwp_msg_free(&m);
	/* nesting deeper than the decoder's stack: an error, not a crash */
	big = calloc(1, BWP_MAX_MSG + 1);
	memcpy(big, "\x81\xa1" "a", 3);
	memset(big + 3, 0x91, 10000);
	bwp_msg_init(&m);
	CHECKM(bwp_msg_parse(&m, big, 10004) == BWP_E_MALFORMED, "deep: %s",
	    m.err);
	bwp_msg_free(&m);
	bwp_msg_init(&m);
	CHECKM(bwp_msg_parse(&m, big, BWP_MAX_MSG + 1) == BWP_E_TOOBIG,
	    "too big");
	bwp_msg_free(&m);
	free(big);
}

static void
writer(void)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	uint64_t		u;
	double			d;
	char			s[16];
	size_t			len;
	const void		*buf;

	bwp_w_init(&w);
	bwp_w_reply(&w, 42, BWP_E_STATE, "nope");
	bwp_w_kdouble(&w, "q", 0.25);
	bwp_w_kstr(&w, "s", "abc");
	buf = bwp_w_finish(&w, &len);
	bwp_msg_init(&m);
	CHECKM(bwp_msg_parse(&m, buf, len) == BWP_OK, "writer output parses");
	CHECKM(m.map->via.map.size == 5, "five keys counted");
	CHECKM(bwp_get_uint(&m, NULL, "id", true, 0, UINT64_MAX, &u) == 1 &&
	    u == 42, "id");
	CHECKM(bwp_get_uint(&m, NULL, "status", true, 0, 99, &u) == 1 &&
	    u == BWP_E_STATE, "status");
	CHECKM(bwp_get_str(&m, NULL, "error", true, 0, 15, s) == 1 &&
	    strcmp(s, "nope") == 0, "error");
	CHECKM(bwp_get_double(&m, NULL, "q", true, 0, 1, false, &d) == 1 &&
	    d == 0.25, "double");
	CHECKM(bwp_get_uint(&m, NULL, "absent", false, 0, 1, &u) == 0,
	    "optional absent");
	CHECKM(strcmp(bwp_status_name(BWP_E_RATE), "RATE") == 0 &&
	    bwp_op_lookup("reload", 6) == BWP_OP_RELOAD &&
	    strcmp(bwp_op_name(BWP_OP_STREAM_SYNC), "stream.sync") == 0,
	    "names");
	/* a name is its bytes: no prefix, no NUL-terminated prefix */
	CHECKM(bwp_op_lookup("getx", 3) == BWP_OP_GET &&
	    bwp_op_lookup("get\0x", 5) == 0 && bwp_op_lookup("ge", 2) == 0 &&
	    bwp_op_lookup("", 0) == 0, "op lookup by length");
	bwp_msg_free(&m);
	bwp_w_free(&w);
}

/*
 * Past the inline buffer and past each map-header size: n keys whose
 * values are long enough to push the body onto the heap when big.
 */
static void
writer_sized(uint32_t n, size_t vlen, msgpack_zone *zone)
{
	struct bwp_writer	w;
	struct bwp_msg		m;
	const void		*buf;
	char			key[16], *val, got[16];
	uint32_t		i;
	size_t			len;
	bool			ok = true;

	val = malloc(vlen + 1);
	memset(val, 'x', vlen);
	val[vlen] = '\0';
	bwp_w_init(&w);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "k%u", i);
		bwp_w_kstr(&w, key, i == n - 1 ? val : "v");
	}
	buf = bwp_w_finish(&w, &len);
	bwp_msg_init_zone(&m, zone);
	if (buf != NULL && len > BWP_MAX_MSG) {
		/* past the protocol limit: check the encoding itself */
		size_t	off = 0;

		if (m.zone == NULL)
			m.zone = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
		CHECKM(msgpack_unpack(buf, len, &off, m.zone, &m.obj) ==
		    MSGPACK_UNPACK_SUCCESS && off == len, "big output decodes");
		m.map = m.obj.type == MSGPACK_OBJECT_MAP ? &m.obj : NULL;
	} else {
		CHECKM(buf != NULL && bwp_msg_parse(&m, buf, len) == BWP_OK,
		    "sized writer output parses");
	}
	CHECKM(m.map != NULL && m.map->via.map.size == n, "sized: map size");
	for (i = 0; m.map != NULL && i + 1 < n && ok; i += n / 7 + 1) {
		snprintf(key, sizeof(key), "k%u", i);
		ok = bwp_get_str(&m, NULL, key, true, 1, 1, got) == 1 &&
		    strcmp(got, "v") == 0;
	}
	CHECKM(ok, "sized: keys read back");
	snprintf(key, sizeof(key), "k%u", n - 1);
	CHECKM(m.map != NULL && bwp_msg_find(&m, NULL, key) != NULL &&
	    bwp_msg_find(&m, NULL, key)->via.str.size == vlen,
	    "sized: the long value");
	bwp_msg_free(&m);
	bwp_w_free(&w);
	free(val);
}

/* The writer's own str/uint encoding against msgpack-c's packer. */
static void
writer_same(bool str, uint64_t v)
{
	struct bwp_writer	w;
	msgpack_sbuffer		sb;
	msgpack_packer		pk;
	const void		*buf;
	size_t			len;
	char			*s = NULL;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 1);
	msgpack_pack_str(&pk, 1);
	msgpack_pack_str_body(&pk, "k", 1);
	bwp_w_init(&w);
	if (str) {
		s = malloc(v + 1);
		memset(s, 's', v);
		s[v] = '\0';
		msgpack_pack_str(&pk, v);
		msgpack_pack_str_body(&pk, s, v);
		bwp_w_kstr(&w, "k", s);
	} else {
		msgpack_pack_uint64(&pk, v);
		bwp_w_kuint(&w, "k", v);
	}
	buf = bwp_w_finish(&w, &len);
	if (buf == NULL || len != sb.size || memcmp(buf, sb.data, len) != 0) {
		fprintf(stderr, "FAIL: %s %llu encoded differently from "
		    "msgpack-c\n", str ? "string of length" : "uint",
		    (unsigned long long)v);
		failures++;
	}
	bwp_w_free(&w);
	msgpack_sbuffer_destroy(&sb);
	free(s);
}

static void
writer_encodings(void)
{
	static const uint64_t	u[] = { 0, 1, 0x7f, 0x80, 0xff, 0x100,
	    0xffff, 0x10000, 0xffffffffull, 0x100000000ull, UINT64_MAX };
	static const uint64_t	n[] = { 0, 1, 31, 32, 255, 256, 400, 600,
	    65535, 65536, 70000 };
	size_t			i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		writer_same(false, u[i]);
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		writer_same(true, n[i]);
}

static void
writer_sizes(void)
{
	msgpack_zone	*zone = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);

	writer_sized(1, 10, NULL);
	writer_sized(15, 400, zone);		/* fixmap, just inline */
	writer_sized(16, 600, zone);		/* map 16, heap */
	writer_sized(40, 60000, zone);		/* grows several times */
	writer_sized(300, 70000, zone);		/* past BWP_MAX_MSG */
	writer_sized(65536, 3, zone);		/* map 32 */
	writer_sized(2, 5, zone);		/* the zone is reusable */
	msgpack_zone_free(zone);
}

static int
memfd(size_t size, bool seal)
{
	int	fd = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		return -1;
	if (seal)
		fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		    F_SEAL_SEAL);
	return fd;
}

static void
pages(void)
{
	struct bwshm_progress_hdr	h = { 0 };
	struct bwshm_task_page		tp = { 0 };
	char				err[128];
	uint64_t			size;
	int				fd, p[2];

	fd = memfd(4096, false);
	CHECKM(bwp_memfd_check(fd, &size, err, sizeof(err)) < 0 &&
	    strstr(err, "seals"), "unsealed: %s", err);
	close(fd);
	CHECKM(pipe(p) == 0, "pipe");
	CHECKM(bwp_memfd_check(p[0], &size, err, sizeof(err)) < 0 &&
	    strstr(err, "not a memfd"), "pipe: %s", err);
	close(p[0]);
	close(p[1]);
	fd = memfd(8192, true);
	CHECKM(bwp_memfd_check(fd, &size, err, sizeof(err)) == 0 &&
	    size == 8192, "sealed");
	close(fd);
	CHECKM(bwp_task_page_check(&tp, 4096, err, sizeof(err)) < 0 &&
	    strstr(err, "magic"), "task magic");
	tp.magic = BWSHM_TASK_MAGIC;
	tp.version = BWSHM_LAYOUT_VERSION;
	CHECKM(bwp_task_page_check(&tp, 4096, err, sizeof(err)) == 0,
	    "task page ok");
	CHECKM(bwp_task_page_check(&tp, 8192, err, sizeof(err)) < 0, "size");
	h.magic = BWSHM_PROGRESS_MAGIC;
	h.version = BWSHM_LAYOUT_VERSION;
	h.nslots = 2;
	h.max_blocks = 100;
	h.slot_size = BWSHM_SLOT_SIZE(100);
	size = BWSHM_PROGRESS_SIZE(2, 100);
	fd = memfd(size, true);
	CHECKM(pwrite(fd, &h, sizeof(h), 0) == sizeof(h), "pwrite");
	CHECKM(bwp_progress_page_check(fd, size, err, sizeof(err)) == 0,
	    "progress ok: %s", err);
	CHECKM(bwp_progress_page_check(fd, size + 64, err, sizeof(err)) < 0,
	    "progress size");
	h.slot_size = 64;
	CHECKM(pwrite(fd, &h, sizeof(h), 0) == sizeof(h), "pwrite");
	CHECKM(bwp_progress_page_check(fd, size, err, sizeof(err)) < 0,
	    "progress slot_size");
	close(fd);
}

static void
framing(void)
{
	static uint8_t	buf[BWP_RECV_BUF];
	struct bwp_recv	rv;
	uint8_t		*big;
	int		sv[2], fds[2], three[3];

	CHECKM(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0, "socketpair");
	fds[0] = memfd(4096, true);
	fds[1] = memfd(4096, true);
	CHECKM(bwp_wire_send(sv[0], "\x80", 1, fds, 2, 0) == 0, "send fds");
	CHECKM(bwp_wire_recv(sv[1], buf, sizeof(buf), &rv, 0) == 1 &&
	    rv.len == 1 && rv.nfds == 2 && !rv.toobig && !rv.fds_lost,
	    "recv fds");
	bwp_wire_close_fds(&rv);
	CHECKM(bwp_wire_send(sv[0], "\x80", 1, fds, 3, 0) < 0, "send 3 fds");
	/* three descriptors by hand: the extra one is closed */
	three[0] = fds[0], three[1] = fds[1], three[2] = fds[0];
	{
		union { char b[CMSG_SPACE(sizeof(three))];
			struct cmsghdr a; } ctl;
		struct iovec	iov = { (void *)"\x80", 1 };
		struct msghdr	mh = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = ctl.b,
				    .msg_controllen = sizeof(ctl.b) };
		struct cmsghdr	*c = CMSG_FIRSTHDR(&mh);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(three));
		memcpy(CMSG_DATA(c), three, sizeof(three));
		CHECKM(sendmsg(sv[0], &mh, 0) == 1, "sendmsg 3");
	}
	CHECKM(bwp_wire_recv(sv[1], buf, sizeof(buf), &rv, 0) == 1 &&
	    rv.fds_lost && rv.nfds == 2, "extra descriptor dropped");
	bwp_wire_close_fds(&rv);
	big = calloc(1, BWP_MAX_MSG + 100);
	CHECKM(bwp_wire_send(sv[0], big, BWP_MAX_MSG + 100, NULL, 0, 0) == 0,
	    "send big");
	CHECKM(bwp_wire_recv(sv[1], buf, sizeof(buf), &rv, 0) == 1 &&
	    rv.toobig && rv.len == BWP_MAX_MSG + 100, "big is toobig");
	free(big);
	close(sv[0]);
	CHECKM(bwp_wire_recv(sv[1], buf, sizeof(buf), &rv, 0) == 0, "EOF");
	close(sv[1]);
	close(fds[0]);
	close(fds[1]);
}

int
main(void)
{
	table();
	decoded_values();
	raw();
	writer();
	writer_sizes();
	writer_encodings();
	pages();
	framing();
	if (failures == 0)
		printf("proto: all passed\n");
	return failures ? 1 : 0;
}
