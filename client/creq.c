/*
 * creq.c - fixed-buffer request packing (see creq.h).
 */
#include <config.h>

#include <string.h>

#include "creq.h"
#include "msg.h"

static int
creq_write(void *data, const char *b, size_t n)
{
	struct creq	*r = data;

	if (n > sizeof(r->buf) - r->len) {
		r->overflow = true;
		return -1;
	}
	memcpy(r->buf + r->len, b, n);
	r->len += n;
	return 0;
}

static void
creq_str(struct creq *r, const char *s)
{
	size_t	n = strlen(s);

	msgpack_pack_str(&r->pk, n);
	msgpack_pack_str_body(&r->pk, s, n);
}

void
creq_begin(struct creq *r, uint64_t id, enum bwp_op op, uint32_t nkeys)
{
	r->len = 0;
	r->overflow = false;
	msgpack_packer_init(&r->pk, r, creq_write);
	msgpack_pack_map(&r->pk, 3 + nkeys);
	creq_kuint(r, BWP_K_VERSION, BWP_VERSION);
	creq_kuint(r, BWP_K_ID, id);
	creq_kstr(r, BWP_K_OP, bwp_op_name(op));
}

void
creq_kuint(struct creq *r, const char *key, uint64_t v)
{
	creq_str(r, key);
	msgpack_pack_uint64(&r->pk, v);
}

void
creq_kstr(struct creq *r, const char *key, const char *v)
{
	creq_str(r, key);
	creq_str(r, v);
}

void
creq_kbool(struct creq *r, const char *key, bool v)
{
	creq_str(r, key);
	if (v)
		msgpack_pack_true(&r->pk);
	else
		msgpack_pack_false(&r->pk);
}
