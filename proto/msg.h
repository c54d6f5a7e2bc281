/*
 * msg.h - decode, validate and encode one bwsched protocol message
 * (doc/protocol.md).  The reader decodes into msgpack-c's object model
 * (mpdec.h) and wraps it with typed getters that check type, range,
 * string length and array size and leave a status code and an error text
 * naming the key; the writer packs into its own buffer and counts the
 * top-level keys itself so callers cannot get the map size wrong.  No
 * daemon or client state here: both sides link this.
 */
#ifndef BWP_MSG_H
#define BWP_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <msgpack.h>

#include "bwproto.h"

#define BWP_ERR_MAX	160

/* ---- reader ------------------------------------------------------- */

/* The header keys every message may carry, found in one pass. */
enum bwp_known {
	BWP_KN_VERSION,		/* BWP_K_VERSION */
	BWP_KN_ID,		/* BWP_K_ID */
	BWP_KN_OP,		/* BWP_K_OP */
	BWP_KN_STATUS,		/* BWP_K_STATUS */
	BWP_KN_ERROR,		/* BWP_K_ERROR */
	BWP_KN_EVENT,		/* BWP_K_EVENT */
	BWP_KN_MAX
};

struct bwp_msg {
	const msgpack_object	*known[BWP_KN_MAX];	/* or NULL */
	msgpack_zone		*zone;	/* the decoded objects live here */
	bool			 zone_lent;	/* the caller's: clear, keep */
	msgpack_object		 obj;
	const msgpack_object	*map;	/* top-level map once parsed */
	int			status;	/* of the first error */
	char			err[BWP_ERR_MAX];
	/* request header, filled by bwp_msg_request() */
	uint64_t		id;
	bool			has_id;
	enum bwp_op		op;
};

void	bwp_msg_init(struct bwp_msg *);
void	bwp_msg_free(struct bwp_msg *);
/*
 * The same, decoding into a zone the caller keeps for many messages
 * (bwp_msg_free() clears it).  msgpack-c would otherwise allocate and
 * free a chunk for each message, a good part of a request's cost.
 */
void	bwp_msg_init_zone(struct bwp_msg *, msgpack_zone *);

/*
 * Decode len bytes as one msgpack map with nothing after it.  Returns
 * BWP_OK or BWP_E_MALFORMED (m->err says why).
 */
int	bwp_msg_parse(struct bwp_msg *, const void *buf, size_t len);

/*
 * Parse a request: the map, then "id" (kept for the reply even when a
 * later check fails), "v", "op".  Returns the status.
 */
int	bwp_msg_request(struct bwp_msg *, const void *buf, size_t len);

/* Set the error (first one wins); returns status. */
int	bwp_msg_fail(struct bwp_msg *, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* The same as bwp_msg_find(m, NULL, that key), without the search. */
static inline const msgpack_object *
bwp_msg_known(const struct bwp_msg *m, enum bwp_known k)
{
	return m->map != NULL ? m->known[k] : NULL;
}

/*
 * Value of key in map (NULL if absent); map NULL means the top level.
 * m may be NULL to search a map decoded elsewhere.
 */
const msgpack_object *bwp_msg_find(const struct bwp_msg *,
	    const msgpack_object *map, const char *key);

/*
 * Typed getters.  Each returns 1 when the value was stored, 0 when an
 * optional key is absent, -1 after recording BWP_E_BADARG naming the key.
 * map NULL means the top level.  The "what" of array elements is the key
 * name used in errors.
 */
int	bwp_get_uint(struct bwp_msg *, const msgpack_object *map,
	    const char *key, bool required, uint64_t min, uint64_t max,
	    uint64_t *out);
int	bwp_get_double(struct bwp_msg *, const msgpack_object *map,
	    const char *key, bool required, double min, double max,
	    bool min_open, double *out);
int	bwp_get_bool(struct bwp_msg *, const msgpack_object *map,
	    const char *key, bool required, bool *out);
/* Copies at most maxlen bytes plus NUL into out (size > maxlen); no NUL
 * bytes allowed inside. */
int	bwp_get_str(struct bwp_msg *, const msgpack_object *map,
	    const char *key, bool required, size_t minlen, size_t maxlen,
	    char *out);
int	bwp_get_array(struct bwp_msg *, const msgpack_object *map,
	    const char *key, bool required, uint32_t min, uint32_t max,
	    const msgpack_object_array **out);

/* Element checks for arrays (what names the key in errors). */
int	bwp_obj_uint(struct bwp_msg *, const msgpack_object *,
	    const char *what, uint64_t min, uint64_t max, uint64_t *out);
int	bwp_obj_double(const msgpack_object *, double *out);
int	bwp_obj_str(struct bwp_msg *, const msgpack_object *,
	    const char *what, size_t maxlen, char *out);

/* ---- ops and status names ---------------------------------------- */

const char	*bwp_op_name(enum bwp_op);
/* The op named by the len bytes at name (no NUL needed), or 0. */
enum bwp_op	 bwp_op_lookup(const char *name, size_t len);
const char	*bwp_status_name(int status);

/* ---- writer ------------------------------------------------------- */

/*
 * One top-level map.  bwp_w_key() starts a top-level entry and counts
 * it; the value follows with the bwp_w_* value calls.  Nested maps and
 * arrays take explicit sizes (bwp_w_map/bwp_w_array) and their keys are
 * written with bwp_w_str().
 */
#define BWP_W_INLINE	512	/* most messages never touch the heap */
#define BWP_W_HDR	5	/* room kept for the largest map header */

/*
 * The body is packed after BWP_W_HDR spare bytes, so finishing only
 * writes the map header in front of it: no copy, and no allocation
 * until a message outgrows the inline buffer.  The packer points at the
 * writer, so a writer must not be copied or moved once initialised.
 */
struct bwp_writer {
	msgpack_packer	pk;
	char		*data;		/* inl, or the heap once grown */
	size_t		len;		/* used, header room included */
	size_t		cap;
	uint32_t	nkeys;
	bool		nomem;
	char		inl[BWP_W_INLINE];
};

void	bwp_w_init(struct bwp_writer *);
void	bwp_w_free(struct bwp_writer *);
void	bwp_w_uint(struct bwp_writer *, uint64_t);
void	bwp_w_int(struct bwp_writer *, int64_t);
void	bwp_w_double(struct bwp_writer *, double);
void	bwp_w_bool(struct bwp_writer *, bool);
void	bwp_w_nil(struct bwp_writer *);
void	bwp_w_map(struct bwp_writer *, uint32_t n);
void	bwp_w_array(struct bwp_writer *, uint32_t n);
/* Copy a decoded object back out (get/set echo). */
void	bwp_w_object(struct bwp_writer *, const msgpack_object *);
/* bwp_w_strn() for what its inline part leaves: long strings, no room. */
void	bwp_w_strn_slow(struct bwp_writer *, const char *, size_t);

/*
 * Strings of up to 31 bytes (msgpack's fixstr) are most of every message
 * and every key, so they are written inline: a constant key's length and
 * copy fold into a few stores.
 */
static inline void
bwp_w_strn(struct bwp_writer *w, const char *s, size_t n)
{
	char	*p = w->data + w->len;

	if (n <= 31 && n < w->cap - w->len && !w->nomem) {
		p[0] = (char)(0xa0 | n);
		if (n > 0)	/* s may be NULL then */
			memcpy(p + 1, s, n);
		w->len += n + 1;
	} else
		bwp_w_strn_slow(w, s, n);
}

static inline void
bwp_w_str(struct bwp_writer *w, const char *s)
{
	bwp_w_strn(w, s, strlen(s));
}

/* A top-level key, counted for the map header. */
static inline void
bwp_w_key(struct bwp_writer *w, const char *key)
{
	w->nkeys++;
	bwp_w_str(w, key);
}

/* Convenience: top-level key plus value, bwp_w_kuint() to bwp_w_kstr(). */
#define BWP_W_KEYED(kind, type)						\
static inline void							\
bwp_w_k##kind(struct bwp_writer *w, const char *key, type v)		\
{									\
	bwp_w_key(w, key);						\
	bwp_w_##kind(w, v);						\
}
BWP_W_KEYED(uint, uint64_t)
BWP_W_KEYED(int, int64_t)
BWP_W_KEYED(double, double)
BWP_W_KEYED(bool, bool)
BWP_W_KEYED(str, const char *)
#undef BWP_W_KEYED

/*
 * Put the map header with the counted keys in front of the body and
 * return the whole message, which stays valid until the writer is
 * written to again or freed; NULL when memory ran out on the way.
 */
const void	*bwp_w_finish(struct bwp_writer *, size_t *len);

/* Start a request {"v":1,"id":id,"op":op} / reply {"id","status"[,"error"]}. */
void	bwp_w_request(struct bwp_writer *, uint64_t id, enum bwp_op);
void	bwp_w_reply(struct bwp_writer *, uint64_t id, int status,
	    const char *error);

#endif /* BWP_MSG_H */
