/*
 * test_cpage.c - unit tests of the client's page logic (client/cpage.c)
 * and value encoding (client/cvalue.c), with the daemon's own page
 * checks (proto/wire.c) as the judge of what the client sends.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpage.h"
#include "cvalue.h"
#include "msg.h"
#include "wire.h"
#include "../check.h"

static void
test_task_page(void)
{
	struct cpage_task	t;
	struct stat		st;
	uint64_t		size, seq;
	char			err[128];
	int			seals;

	CHECK(cpage_task_create(&t) == 0);
	CHECK(fstat(t.fd, &st) == 0 && st.st_size == BWSHM_TASK_PAGE_SIZE);
	seals = fcntl(t.fd, F_GET_SEALS);
	CHECK((seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) ==
	    (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL));
	CHECK(ftruncate(t.fd, 8192) < 0);		/* sealed for real */
	CHECK(fcntl(t.fd, F_GETFD) & FD_CLOEXEC);
	/* what the daemon checks on task.register */
	CHECK(bwp_memfd_check(t.fd, &size, err, sizeof(err)) == 0);
	CHECK(size == BWSHM_TASK_PAGE_SIZE);
	CHECK(bwp_task_page_check(t.page, size, err, sizeof(err)) == 0);
	CHECK(t.page->magic == BWSHM_TASK_MAGIC);
	CHECK(t.page->version == BWSHM_LAYOUT_VERSION);
	CHECK(!cpage_locked(&t));

	/* explicit lock nests; an unbalanced unlock is refused */
	seq = t.page->seq;
	cpage_lock(&t);
	cpage_lock(&t);
	CHECK(t.page->lock_depth == 2 && cpage_locked(&t));
	CHECK(t.page->seq == seq + 2);
	CHECK(cpage_unlock(&t) == 0);
	CHECK(cpage_locked(&t));
	CHECK(cpage_unlock(&t) == 0);
	CHECK(!cpage_locked(&t));
	CHECK(cpage_unlock(&t) == -ENOLCK);
	CHECK(t.page->lock_depth == 0);
	CHECK(t.page->seq == seq + 4);		/* failed unlock: no bump */

	cpage_memcpy_begin(&t);
	CHECK(cpage_locked(&t) && t.page->memcpy_depth == 1);
	CHECK(cpage_memcpy_end(&t) == 0);
	CHECK(cpage_memcpy_end(&t) == -ENOLCK);
	CHECK(!cpage_locked(&t));

	cpage_heartbeat(&t);
	CHECK(t.page->heartbeat == 1);
	cpage_task_destroy(&t);
	CHECK(t.fd == -1 && t.page == NULL);
}

static void
test_streams(void)
{
	struct cpage_task	t;
	int			i, s1, s2;

	CHECK(cpage_task_create(&t) == 0);
	/* Table 1: the lock is held while any stream is active */
	s1 = cpage_stream_active(&t, 0x1000);
	s2 = cpage_stream_active(&t, 0x2000);
	CHECK(s1 >= 0 && s2 >= 0 && s1 != s2);
	CHECK(cpage_stream_active(&t, 0x1000) == s1);	/* same slot again */
	CHECK(t.page->stream_handle[s1] == 0x1000);
	CHECK(t.page->active_streams == ((1ull << s1) | (1ull << s2)));
	cpage_stream_sync(&t, 0x1000);
	CHECK(cpage_locked(&t));
	CHECK(t.page->active_streams == 1ull << s2);
	cpage_stream_sync(&t, 0x2000);
	CHECK(!cpage_locked(&t));
	/* the slot stays assigned to its stream for the next launch */
	CHECK(t.page->stream_handle[s1] == 0x1000);
	cpage_stream_sync(&t, 0x3000);		/* unknown: no effect */
	CHECK(!cpage_locked(&t));

	/* the NULL stream is stored under a non-zero handle */
	i = cpage_stream_active(&t, 0);
	CHECK(i >= 0 && t.page->stream_handle[i] == CPAGE_NULL_STREAM);
	CHECK(cpage_locked(&t));
	cpage_stream_sync(&t, 0);
	CHECK(!cpage_locked(&t));

	/* device sync clears all */
	cpage_stream_active(&t, 0x1000);
	cpage_stream_active(&t, 0x2000);
	cpage_device_sync(&t);
	CHECK(t.page->active_streams == 0);

	/* forget frees the slot */
	cpage_stream_active(&t, 0x2000);
	cpage_stream_forget(&t, 0x2000);
	CHECK(t.page->stream_handle[s2] == 0 && !cpage_locked(&t));

	/* slot exhaustion */
	for (i = 0; i < BWSHM_MAX_STREAMS + 4; i++)
		if (cpage_stream_active(&t, 0x10000 + (uint64_t)i) < 0)
			break;
	/* 0x1000 and the NULL stream still hold a slot each */
	CHECK(i == BWSHM_MAX_STREAMS - 2);
	CHECK(cpage_stream_active(&t, 0x99999) == -EMFILE);
	cpage_device_sync(&t);
	cpage_stream_forget(&t, 0x10000);
	CHECK(cpage_stream_active(&t, 0x99999) >= 0);
	cpage_task_destroy(&t);
}

/* Two threads hammering lock/unlock and stream marks end balanced. */
static void *
hammer(void *arg)
{
	struct cpage_task	*t = arg;
	int			 i;

	for (i = 0; i < 100000; i++) {
		cpage_lock(t);
		cpage_stream_active(t, 7);
		cpage_unlock(t);
		cpage_stream_sync(t, 7);
	}
	return NULL;
}

static void
test_threads(void)
{
	struct cpage_task	t;
	pthread_t		th[2];

	CHECK(cpage_task_create(&t) == 0);
	CHECK(pthread_create(&th[0], NULL, hammer, &t) == 0);
	CHECK(pthread_create(&th[1], NULL, hammer, &t) == 0);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	CHECK(t.page->lock_depth == 0);
	CHECK(t.page->active_streams == 0);
	CHECK(t.page->seq == 4u * 2u * 100000u);
	cpage_task_destroy(&t);
}

static void
test_progress(void)
{
	struct cpage_progress	 p;
	struct bwshm_progress_hdr *hdr;
	struct bwshm_launch	*l;
	uint64_t		*bm, size;
	char			 err[128];
	int			 i, s;

	CHECK(cpage_progress_create(&p, 0, 10) == -EINVAL);
	CHECK(cpage_progress_create(&p, 65, 10) == -EINVAL);
	CHECK(cpage_progress_create(&p, 4, 0) == -EINVAL);
	/* 64 slots of 2^24 blocks is far over BWSHM_MAX_PROGRESS_SIZE */
	CHECK(cpage_progress_create(&p, 64, 1u << 24) == -EINVAL);

	CHECK(cpage_progress_create(&p, 3, 1000) == 0);
	hdr = p.map;
	CHECK(hdr->magic == BWSHM_PROGRESS_MAGIC);
	CHECK(hdr->nslots == 3 && hdr->max_blocks == 1000);
	CHECK(hdr->slot_size == BWSHM_SLOT_SIZE(1000));
	CHECK(hdr->slot_size % 64 == 0);
	CHECK(p.size == BWSHM_PROGRESS_SIZE(3, 1000));
	CHECK(bwp_memfd_check(p.fd, &size, err, sizeof(err)) == 0);
	CHECK(size == p.size);
	CHECK(bwp_progress_page_check(p.fd, size, err, sizeof(err)) == 0);

	/* dirty slot 0's bitmap to see that a claim clears it */
	l = cpage_slot(&p, 0);
	l->bitmap[3] = ~0ull;
	l->gpu_start = 777;	/* and the previous launch's GPU start */
	s = cpage_slot_claim(&p, 42, 9, 1000, 12345, &bm);
	CHECK(s == 0);
	CHECK(bm == l->bitmap && bm[3] == 0);
	CHECK(l->gpu_start == 0 && &bm[BWSHM_GPU_START_WORD] ==
	    &l->gpu_start);
	CHECK(hdr->clock_seq == 0);	/* no offset until calibrated */
	CHECK(l->seq % 2 == 0 && l->seq == 2);
	CHECK(l->state == BWSHM_SLOT_RUNNING && l->kernel == 42);
	CHECK(l->stream == 9 && l->launch_ns == 12345 && l->nblocks == 1000);
	CHECK(cpage_slot_claim(&p, 1, 1, 1001, 0, NULL) == -E2BIG);
	CHECK(cpage_slot_claim(&p, 1, 1, 10, 0, NULL) == 1);
	CHECK(cpage_slot_claim(&p, 1, 1, 10, 0, NULL) == 2);
	CHECK(cpage_slot_claim(&p, 1, 1, 10, 0, NULL) == -ENOSPC);
	CHECK(cpage_slot_release(&p, 1, 0) == 0);
	CHECK(cpage_slot(&p, 1)->state == BWSHM_SLOT_FREE);
	CHECK(cpage_slot(&p, 1)->seq % 2 == 0);
	CHECK(cpage_slot(&p, 1)->ended_launch_ns == 0);	/* no end given */
	CHECK(cpage_slot_release(&p, 1, 5) == -EINVAL);
	CHECK(cpage_slot_release(&p, 7, 5) == -EINVAL);
	CHECK(cpage_slot_release(&p, -1, 5) == -EINVAL);
	/* the end and the launch it belongs to; a new claim leaves them */
	CHECK(cpage_slot_release(&p, 0, 20000) == 0);
	CHECK(l->end_ns == 20000 && l->ended_launch_ns == 12345);
	CHECK(cpage_slot_claim(&p, 5, 1, 10, 777, NULL) == 0);
	CHECK(l->end_ns == 20000 && l->ended_launch_ns == 12345);
	CHECK(cpage_slot_claim(&p, 5, 1, 10, 0, NULL) == 1);
	for (i = 0; i < 3; i++)
		CHECK(cpage_slot_release(&p, i, 1) == 0);
	CHECK(l->end_ns == 1 && l->ended_launch_ns == 777);
	cpage_progress_destroy(&p);
}

/* Encode one value with cvalue_write and decode it back. */
/* The decoded strings point into w: free it after the message. */
static msgpack_object_type
roundtrip(const char *text, struct bwp_msg *m, struct bwp_writer *w)
{
	const msgpack_object	*v;
	const void		*buf;
	size_t			 len;

	bwp_w_init(w);
	bwp_w_key(w, "value");
	cvalue_write(w, text);
	buf = bwp_w_finish(w, &len);
	bwp_msg_init(m);
	if (buf == NULL || bwp_msg_parse(m, buf, len) != BWP_OK)
		return MSGPACK_OBJECT_NIL;
	v = bwp_msg_find(m, NULL, "value");
	return v != NULL ? v->type : MSGPACK_OBJECT_NIL;
}

static void
check_value(const char *text, msgpack_object_type type, const char *back)
{
	struct bwp_writer	wire;
	struct bwp_msg		m;
	char			buf[64];

	if (roundtrip(text, &m, &wire) != type) {
		fprintf(stderr, "FAIL: '%s' not encoded as type %d\n", text,
		    (int)type);
		failures++;
		back = NULL;
	}
	if (back != NULL) {
		CHECK(cvalue_format(bwp_msg_find(&m, NULL, "value"), buf,
		    sizeof(buf)) == (int)strlen(back));
		if (strcmp(buf, back) != 0) {
			fprintf(stderr, "FAIL: '%s' came back as '%s'\n",
			    text, buf);
			failures++;
		}
	}
	bwp_msg_free(&m);
	bwp_w_free(&wire);
}

static void
test_values(void)
{
	msgpack_object	o;
	char		small[3];

	check_value("42", MSGPACK_OBJECT_POSITIVE_INTEGER, "42");
	check_value("18446744073709551615", MSGPACK_OBJECT_POSITIVE_INTEGER,
	    "18446744073709551615");
	check_value("-3", MSGPACK_OBJECT_NEGATIVE_INTEGER, "-3");
	check_value("0.25", MSGPACK_OBJECT_FLOAT64, "0.25");
	check_value("1e-3", MSGPACK_OBJECT_FLOAT64, "0.001");
	check_value("greedy", MSGPACK_OBJECT_STR, "greedy");
	check_value("nan", MSGPACK_OBJECT_STR, "nan");
	check_value("0x10", MSGPACK_OBJECT_STR, "0x10");
	check_value("", MSGPACK_OBJECT_STR, "");
	check_value(" 5", MSGPACK_OBJECT_STR, " 5");
	check_value("12abc", MSGPACK_OBJECT_STR, "12abc");
	check_value("true", MSGPACK_OBJECT_BOOLEAN, "true");
	/* too big for uint64: a float, not a wrapped integer */
	check_value("99999999999999999999", MSGPACK_OBJECT_FLOAT64, NULL);

	o.type = MSGPACK_OBJECT_POSITIVE_INTEGER;
	o.via.u64 = 12345;
	CHECK(cvalue_format(&o, small, sizeof(small)) == -ERANGE);
	o.type = MSGPACK_OBJECT_ARRAY;
	CHECK(cvalue_format(&o, small, sizeof(small)) == -EPROTO);
}

/* The client's requests are what the daemon's request parser expects. */
static void
test_requests(void)
{
	struct bwp_writer	 w;
	struct bwp_msg		 m;
	const void		*buf;
	size_t			 len;
	uint64_t		 u;
	char			 key[64];
	bool			 b;

	bwp_w_init(&w);
	bwp_w_request(&w, 77, BWP_OP_GET);
	bwp_w_kstr(&w, "key", "policy");
	buf = bwp_w_finish(&w, &len);
	bwp_msg_init(&m);
	CHECK(buf != NULL && bwp_msg_request(&m, buf, len) == BWP_OK);
	CHECK(m.id == 77 && m.has_id && m.op == BWP_OP_GET);
	CHECK(bwp_get_str(&m, NULL, "key", true, 1, 31, key) == 1);
	CHECK(strcmp(key, "policy") == 0);
	bwp_msg_free(&m);
	bwp_w_free(&w);

	bwp_w_init(&w);
	bwp_w_request(&w, UINT64_MAX, BWP_OP_STREAM_SYNC);
	bwp_w_kbool(&w, "all", true);
	bwp_w_kuint(&w, "stream", 1ull << 40);
	buf = bwp_w_finish(&w, &len);
	bwp_msg_init(&m);
	CHECK(buf != NULL && bwp_msg_request(&m, buf, len) == BWP_OK);
	CHECK(m.id == UINT64_MAX && m.op == BWP_OP_STREAM_SYNC);
	CHECK(bwp_get_bool(&m, NULL, "all", true, &b) == 1 && b);
	CHECK(bwp_get_uint(&m, NULL, "stream", true, 0, UINT64_MAX, &u) == 1);
	CHECK(u == 1ull << 40);
	bwp_msg_free(&m);
	bwp_w_free(&w);
}

int
main(void)
{
	test_task_page();
	test_streams();
	test_threads();
	test_progress();
	test_values();
	test_requests();
	if (failures > 0) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
