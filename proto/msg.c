/*
 * msg.c - message reader and writer over msgpack-c's object model (see
 * msg.h); the decoding itself is mpdec.c's.
 */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpdec.h"
#include "msg.h"

/* ---- reader ------------------------------------------------------- */

void
bwp_msg_init(struct bwp_msg *m)
{
	m->zone = NULL;
	m->zone_lent = false;
	m->map = NULL;
	m->status = BWP_OK;
	m->err[0] = '\0';
	m->id = 0;
	m->has_id = false;
	m->op = (enum bwp_op)0;
	memset(m->known, 0, sizeof(m->known));
}

void
bwp_msg_init_zone(struct bwp_msg *m, msgpack_zone *zone)
{
	bwp_msg_init(m);
	m->zone = zone;
	m->zone_lent = zone != NULL;
}

void
bwp_msg_free(struct bwp_msg *m)
{
	if (m->zone_lent)
		msgpack_zone_clear(m->zone);
	else if (m->zone != NULL)
		msgpack_zone_free(m->zone);
	if (!m->zone_lent)
		m->zone = NULL;
	m->map = NULL;
}

int
bwp_msg_fail(struct bwp_msg *m, int status, const char *fmt, ...)
{
	va_list	ap;

	if (m->status != BWP_OK)
		return m->status;
	m->status = status;
	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return status;
}

#define KNOWN(k)	{ k, sizeof(k) - 1 }

static const struct {
	const char	*name;
	uint32_t	 len;
} known_keys[BWP_KN_MAX] = {
	[BWP_KN_VERSION] = KNOWN(BWP_K_VERSION),
	[BWP_KN_ID] = KNOWN(BWP_K_ID),
	[BWP_KN_OP] = KNOWN(BWP_K_OP),
	[BWP_KN_STATUS] = KNOWN(BWP_K_STATUS),
	[BWP_KN_ERROR] = KNOWN(BWP_K_ERROR),
	[BWP_KN_EVENT] = KNOWN(BWP_K_EVENT),
};

/* Bit n set when a header key is n bytes long: other keys skip the table. */
#define KLEN(k)		(1u << (sizeof(k) - 1))
static const uint32_t known_lens = KLEN(BWP_K_VERSION) | KLEN(BWP_K_ID) |
    KLEN(BWP_K_OP) | KLEN(BWP_K_STATUS) | KLEN(BWP_K_ERROR) |
    KLEN(BWP_K_EVENT);

/*
 * One pass over the top-level keys for the header ones, so requests and
 * replies are checked without a search per key.  The last of a repeated
 * key wins, as in bwp_msg_find().
 */
static void
find_known(struct bwp_msg *m)
{
	const msgpack_object_kv	*kv = m->map->via.map.ptr;
	const char		*s;
	uint32_t		 i, n;
	int			 k;

	for (k = 0; k < BWP_KN_MAX; k++)
		m->known[k] = NULL;
	for (i = 0; i < m->map->via.map.size; i++) {
		if (kv[i].key.type != MSGPACK_OBJECT_STR)
			continue;
		n = kv[i].key.via.str.size;
		s = kv[i].key.via.str.ptr;
		if (n > 31 || !(known_lens >> n & 1))
			continue;
		for (k = 0; k < BWP_KN_MAX; k++)
			if (known_keys[k].len == n &&
			    known_keys[k].name[0] == s[0] && (n == 1 ||
			    memcmp(known_keys[k].name + 1, s + 1, n - 1) == 0)) {
				m->known[k] = &kv[i].val;
				break;	/* the names differ */
			}
	}
}

int
bwp_msg_parse(struct bwp_msg *m, const void *buf, size_t len)
{
	char	why[96];
	size_t	used = 0;
	int	r;

	if (len == 0)
		return bwp_msg_fail(m, BWP_E_MALFORMED, "empty message");
	if (len > BWP_MAX_MSG)
		return bwp_msg_fail(m, BWP_E_TOOBIG,
		    "message of %zu bytes over the limit of %d", len,
		    BWP_MAX_MSG);
	if (m->zone == NULL &&
	    (m->zone = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE)) == NULL)
		return bwp_msg_fail(m, BWP_E_INTERNAL, "out of memory");
	r = mpdec_decode(buf, len, &used, m->zone, &m->obj, why, sizeof(why));
	if (r == MPDEC_NOMEM)
		return bwp_msg_fail(m, BWP_E_INTERNAL, "out of memory");
	if (r != MPDEC_OK)
		return bwp_msg_fail(m, BWP_E_MALFORMED, "bad msgpack: %s",
		    why);
	if (used != len)
		return bwp_msg_fail(m, BWP_E_MALFORMED,
		    "%zu trailing bytes after the message", len - used);
	if (m->obj.type != MSGPACK_OBJECT_MAP)
		return bwp_msg_fail(m, BWP_E_MALFORMED,
		    "message is not a map");
	m->map = &m->obj;
	find_known(m);
	return BWP_OK;
}

static bool
key_is(const msgpack_object *k, const char *key, size_t n)
{
	return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
	    (n == 0 || (k->via.str.ptr[0] == key[0] &&
	    memcmp(k->via.str.ptr, key, n) == 0));
}

const msgpack_object *
bwp_msg_find(const struct bwp_msg *m, const msgpack_object *map,
    const char *key)
{
	size_t		n = strlen(key);
	uint32_t	i;

	if (map == NULL && m != NULL)
		map = m->map;
	if (map == NULL || map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	/* last one wins, like most decoders that build a dictionary */
	for (i = map->via.map.size; i-- > 0;)
		if (key_is(&map->via.map.ptr[i].key, key, n))
			return &map->via.map.ptr[i].val;
	return NULL;
}

int
bwp_msg_request(struct bwp_msg *m, const void *buf, size_t len)
{
	const msgpack_object	*o;
	uint64_t		v;
	char			op[32];

	if (bwp_msg_parse(m, buf, len) != BWP_OK)
		return m->status;
	o = bwp_msg_known(m, BWP_KN_ID);
	if (o != NULL && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		m->id = o->via.u64;
		m->has_id = true;
	}
	o = bwp_msg_known(m, BWP_KN_VERSION);
	if (o == NULL)
		return bwp_msg_fail(m, BWP_E_VERSION, "missing \"v\"");
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    o->via.u64 != BWP_VERSION)
		return bwp_msg_fail(m, BWP_E_VERSION,
		    "protocol version must be %d", BWP_VERSION);
	o = bwp_msg_known(m, BWP_KN_ID);
	if (o == NULL)
		return bwp_msg_fail(m, BWP_E_BADARG, "missing \"%s\"",
		    BWP_K_ID);
	if (bwp_obj_uint(m, o, BWP_K_ID, 0, UINT64_MAX, &v) < 0)
		return m->status;
	o = bwp_msg_known(m, BWP_KN_OP);
	if (o == NULL)
		return bwp_msg_fail(m, BWP_E_BADARG, "missing \"op\"");
	if (o->type != MSGPACK_OBJECT_STR)
		return bwp_msg_fail(m, BWP_E_BADARG,
		    "\"op\" must be a string");
	m->op = bwp_op_lookup(o->via.str.ptr, o->via.str.size);
	if (m->op != 0)
		return BWP_OK;
	/* name it in the error only when it is printable text */
	if (o->via.str.size >= sizeof(op) ||
	    bwp_obj_str(m, o, BWP_K_OP, sizeof(op) - 1, op) < 0) {
		m->status = BWP_OK;
		return bwp_msg_fail(m, BWP_E_UNKNOWN_OP, "unknown op");
	}
	return bwp_msg_fail(m, BWP_E_UNKNOWN_OP, "unknown op \"%s\"", op);
}

static const msgpack_object *
lookup(struct bwp_msg *m, const msgpack_object *map, const char *key,
    bool required, int *ret)
{
	const msgpack_object	*o = bwp_msg_find(m, map, key);

	*ret = 1;
	if (o == NULL) {
		if (required) {
			bwp_msg_fail(m, BWP_E_BADARG, "missing \"%s\"", key);
			*ret = -1;
		} else {
			*ret = 0;
		}
	}
	return o;
}

int
bwp_obj_uint(struct bwp_msg *m, const msgpack_object *o, const char *what,
    uint64_t min, uint64_t max, uint64_t *out)
{
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER &&
	    o->type != MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" must be an unsigned "
		    "integer", what);
		return -1;
	}
	/* msgpack-c decodes every non-negative value as POSITIVE_INTEGER */
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER ||
	    o->via.u64 < min || o->via.u64 > max) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" out of range "
		    "[%llu, %llu]", what, (unsigned long long)min,
		    (unsigned long long)max);
		return -1;
	}
	*out = o->via.u64;
	return 1;
}

int
bwp_get_uint(struct bwp_msg *m, const msgpack_object *map, const char *key,
    bool required, uint64_t min, uint64_t max, uint64_t *out)
{
	int			ret;
	const msgpack_object	*o = lookup(m, map, key, required, &ret);

	if (o == NULL)
		return ret;
	return bwp_obj_uint(m, o, key, min, max, out);
}

int
bwp_obj_double(const msgpack_object *o, double *out)
{
	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		*out = o->via.f64;
		return isfinite(*out) ? 1 : -1;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		*out = (double)o->via.u64;
		return 1;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		*out = (double)o->via.i64;
		return 1;
	default:
		return -1;
	}
}

int
bwp_get_double(struct bwp_msg *m, const msgpack_object *map, const char *key,
    bool required, double min, double max, bool min_open, double *out)
{
	int			ret;
	const msgpack_object	*o = lookup(m, map, key, required, &ret);
	double			v;

	if (o == NULL)
		return ret;
	if (bwp_obj_double(o, &v) < 0) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" must be a finite number",
		    key);
		return -1;
	}
	if (v > max || v < min || (min_open && v == min)) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" out of range %c%g, %g]",
		    key, min_open ? '(' : '[', min, max);
		return -1;
	}
	*out = v;
	return 1;
}

int
bwp_get_bool(struct bwp_msg *m, const msgpack_object *map, const char *key,
    bool required, bool *out)
{
	int			ret;
	const msgpack_object	*o = lookup(m, map, key, required, &ret);

	if (o == NULL)
		return ret;
	if (o->type != MSGPACK_OBJECT_BOOLEAN) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" must be a boolean", key);
		return -1;
	}
	*out = o->via.boolean;
	return 1;
}

int
bwp_obj_str(struct bwp_msg *m, const msgpack_object *o, const char *what,
    size_t maxlen, char *out)
{
	if (o->type != MSGPACK_OBJECT_STR) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" must be a string", what);
		return -1;
	}
	if (o->via.str.size > maxlen) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" longer than %zu bytes",
		    what, maxlen);
		return -1;
	}
	if (memchr(o->via.str.ptr, 0, o->via.str.size) != NULL) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" contains a NUL byte",
		    what);
		return -1;
	}
	memcpy(out, o->via.str.ptr, o->via.str.size);
	out[o->via.str.size] = '\0';
	return 1;
}

int
bwp_get_str(struct bwp_msg *m, const msgpack_object *map, const char *key,
    bool required, size_t minlen, size_t maxlen, char *out)
{
	int			ret;
	const msgpack_object	*o = lookup(m, map, key, required, &ret);

	if (o == NULL)
		return ret;
	if (bwp_obj_str(m, o, key, maxlen, out) < 0)
		return -1;
	if (o->via.str.size < minlen) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" shorter than %zu bytes",
		    key, minlen);
		return -1;
	}
	return 1;
}

int
bwp_get_array(struct bwp_msg *m, const msgpack_object *map, const char *key,
    bool required, uint32_t min, uint32_t max,
    const msgpack_object_array **out)
{
	int			ret;
	const msgpack_object	*o = lookup(m, map, key, required, &ret);

	if (o == NULL)
		return ret;
	if (o->type != MSGPACK_OBJECT_ARRAY) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" must be an array", key);
		return -1;
	}
	if (o->via.array.size < min || o->via.array.size > max) {
		bwp_msg_fail(m, BWP_E_BADARG, "\"%s\" must have %u to %u "
		    "elements", key, min, max);
		return -1;
	}
	*out = &o->via.array;
	return 1;
}

/* ---- ops and status names ---------------------------------------- */

/* Names with their lengths, so a lookup compares bytes only on a match. */
static const struct {
	const char	*name;
	size_t		 len;
} op_names[BWP_OP_MAX] = {
	[BWP_OP_HELLO] = KNOWN("hello"),
	[BWP_OP_TASK_REGISTER] = KNOWN("task.register"),
	[BWP_OP_TASK_UNREGISTER] = KNOWN("task.unregister"),
	[BWP_OP_KERNEL_REGISTER] = KNOWN("kernel.register"),
	[BWP_OP_KERNEL_START] = KNOWN("kernel.start"),
	[BWP_OP_KERNEL_END] = KNOWN("kernel.end"),
	[BWP_OP_STREAM_SYNC] = KNOWN("stream.sync"),
	[BWP_OP_MEMCPY_BEGIN] = KNOWN("memcpy.begin"),
	[BWP_OP_MEMCPY_END] = KNOWN("memcpy.end"),
	[BWP_OP_LOCK] = KNOWN("lock"),
	[BWP_OP_UNLOCK] = KNOWN("unlock"),
	[BWP_OP_STATUS] = KNOWN("status"),
	[BWP_OP_TASKS] = KNOWN("tasks"),
	[BWP_OP_KERNELS] = KNOWN("kernels"),
	[BWP_OP_GET] = KNOWN("get"),
	[BWP_OP_SET] = KNOWN("set"),
	[BWP_OP_SUBSCRIBE] = KNOWN("subscribe"),
	[BWP_OP_RELOAD] = KNOWN("reload"),
	[BWP_OP_METRICS] = KNOWN("metrics"),
	[BWP_OP_LOCK_FILES] = KNOWN("lock.files"),
	[BWP_OP_PARTITIONS] = KNOWN("partitions"),
	[BWP_OP_GPU_DEVICE] = KNOWN("gpu.device"),
	[BWP_OP_GPU_GRANTED] = KNOWN("gpu.granted"),
};

static const char *const status_names[BWP_E_MAX] = {
	"OK", "MALFORMED", "TOOBIG", "VERSION", "UNKNOWN_OP", "BADARG",
	"PERM", "NOHELLO", "NOENT", "EXIST", "LIMIT", "BADFD", "STATE",
	"RATE", "INTERNAL", "UNSCHEDULABLE",
};

const char *
bwp_op_name(enum bwp_op op)
{
	if (op <= 0 || op >= BWP_OP_MAX)
		return "?";
	return op_names[op].name;
}

enum bwp_op
bwp_op_lookup(const char *name, size_t len)
{
	int	i;

	for (i = 1; i < BWP_OP_MAX; i++)
		if (op_names[i].len == len &&
		    memcmp(op_names[i].name, name, len) == 0)
			return (enum bwp_op)i;
	return (enum bwp_op)0;
}

const char *
bwp_status_name(int status)
{
	if (status < 0 || status >= BWP_E_MAX)
		return "?";
	return status_names[status];
}

/* ---- writer ------------------------------------------------------- */

/* msgpack_packer's sink: append, growing to the heap when needed. */
static int
w_write(void *data, const char *b, size_t n)
{
	struct bwp_writer	*w = data;
	size_t			 cap;
	char			*p;

	if (w->nomem)
		return -1;
	if (n == 0)
		return 0;	/* an empty body may come with a NULL pointer */
	if (n > w->cap - w->len) {
		for (cap = w->cap * 2; cap - w->len < n; cap *= 2)
			if (cap > SIZE_MAX / 4)
				goto nomem;
		if ((p = malloc(cap)) == NULL)
			goto nomem;
		memcpy(p, w->data, w->len);
		if (w->data != w->inl)
			free(w->data);
		w->data = p;
		w->cap = cap;
	}
	memcpy(w->data + w->len, b, n);
	w->len += n;
	return 0;
nomem:
	w->nomem = true;
	return -1;
}

void
bwp_w_init(struct bwp_writer *w)
{
	w->data = w->inl;
	w->cap = sizeof(w->inl);
	w->len = BWP_W_HDR;
	w->nkeys = 0;
	w->nomem = false;
	msgpack_packer_init(&w->pk, w, w_write);
}

void
bwp_w_free(struct bwp_writer *w)
{
	if (w->data != w->inl)
		free(w->data);
	w->data = w->inl;
	w->cap = sizeof(w->inl);
	w->len = BWP_W_HDR;
}

/*
 * Strings and unsigned integers are most of every message, so they are
 * encoded here directly (the msgpack spec's str and uint families) when
 * they fit: msgpack_packer would call w_write twice per item, which was
 * most of the cost of packing a small request.  Everything else, and
 * anything that needs the buffer to grow, goes through the packer.
 */
static uint8_t *
w_room(struct bwp_writer *w, size_t n)
{
	return n <= w->cap - w->len && !w->nomem ?
	    (uint8_t *)w->data + w->len : NULL;
}

static size_t
be_put(uint8_t *p, uint8_t tag, uint64_t v, unsigned int bytes)
{
	unsigned int	i;

	p[0] = tag;
	for (i = 0; i < bytes; i++)
		p[1 + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	return 1 + bytes;
}

void
bwp_w_strn_slow(struct bwp_writer *w, const char *s, size_t n)
{
	uint8_t	*p = w_room(w, n + 5);
	size_t	 h;

	if (p == NULL || n > UINT32_MAX) {
		msgpack_pack_str(&w->pk, n);
		msgpack_pack_str_body(&w->pk, s, n);
		return;
	}
	if (n <= 31)
		h = be_put(p, (uint8_t)(0xa0 | n), 0, 0);
	else if (n <= UINT8_MAX)
		h = be_put(p, 0xd9, n, 1);
	else if (n <= UINT16_MAX)
		h = be_put(p, 0xda, n, 2);
	else
		h = be_put(p, 0xdb, n, 4);
	if (n > 0)
		memcpy(p + h, s, n);
	w->len += h + n;
}

void
bwp_w_uint(struct bwp_writer *w, uint64_t v)
{
	uint8_t	*p = w_room(w, 9);

	if (p == NULL)
		msgpack_pack_uint64(&w->pk, v);
	else if (v <= 0x7f)
		w->len += be_put(p, (uint8_t)v, 0, 0);
	else if (v <= UINT8_MAX)
		w->len += be_put(p, 0xcc, v, 1);
	else if (v <= UINT16_MAX)
		w->len += be_put(p, 0xcd, v, 2);
	else if (v <= UINT32_MAX)
		w->len += be_put(p, 0xce, v, 4);
	else
		w->len += be_put(p, 0xcf, v, 8);
}

void
bwp_w_int(struct bwp_writer *w, int64_t v)
{
	msgpack_pack_int64(&w->pk, v);
}

void
bwp_w_double(struct bwp_writer *w, double v)
{
	msgpack_pack_double(&w->pk, v);
}

void
bwp_w_bool(struct bwp_writer *w, bool v)
{
	if (v)
		msgpack_pack_true(&w->pk);
	else
		msgpack_pack_false(&w->pk);
}

void
bwp_w_nil(struct bwp_writer *w)
{
	msgpack_pack_nil(&w->pk);
}

void
bwp_w_map(struct bwp_writer *w, uint32_t n)
{
	msgpack_pack_map(&w->pk, n);
}

void
bwp_w_array(struct bwp_writer *w, uint32_t n)
{
	msgpack_pack_array(&w->pk, n);
}

void
bwp_w_object(struct bwp_writer *w, const msgpack_object *o)
{
	msgpack_pack_object(&w->pk, *o);
}

const void *
bwp_w_finish(struct bwp_writer *w, size_t *len)
{
	uint32_t	 n = w->nkeys;
	unsigned int	 bytes = n <= 15 ? 0 : n <= UINT16_MAX ? 2 : 4;
	uint8_t		*p = (uint8_t *)w->data + BWP_W_HDR - 1 - bytes;

	if (w->nomem)
		return NULL;
	/* fixmap, map 16 or map 32, ending where the body starts */
	be_put(p, bytes == 0 ? (uint8_t)(0x80 | n) : bytes == 2 ? 0xde : 0xdf,
	    n, bytes);
	*len = w->len - (size_t)(p - (uint8_t *)w->data);
	return p;
}

void
bwp_w_request(struct bwp_writer *w, uint64_t id, enum bwp_op op)
{
	bwp_w_kuint(w, BWP_K_VERSION, BWP_VERSION);
	bwp_w_kuint(w, BWP_K_ID, id);
	bwp_w_kstr(w, BWP_K_OP, bwp_op_name(op));
}

void
bwp_w_reply(struct bwp_writer *w, uint64_t id, int status, const char *error)
{
	bwp_w_kuint(w, BWP_K_ID, id);
	bwp_w_kuint(w, BWP_K_STATUS, (uint64_t)status);
	if (status != BWP_OK)
		bwp_w_kstr(w, BWP_K_ERROR, error != NULL ? error : "");
}
