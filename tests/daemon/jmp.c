/*
 * jmp.c - JSON text to msgpack for the tests (see jmp.h).
 */
#include <config.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "jmp.h"

static int	value(msgpack_packer *, const char **);

static void
ws(const char **p)
{
	while (isspace((unsigned char)**p))
		(*p)++;
}

static int
string(msgpack_packer *pk, const char **p)
{
	char	buf[70000];
	size_t	n = 0;

	(*p)++;
	while (**p != '"') {
		if (**p == '\0' || n == sizeof(buf))
			return -1;
		if (**p == '\\' && (*p)[1] != '\0')
			(*p)++;
		buf[n++] = *(*p)++;
	}
	(*p)++;
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, buf, n);
	return 0;
}

static int
container(msgpack_packer *pk, const char **p, char close, bool map)
{
	msgpack_sbuffer	sb;
	msgpack_packer	in;
	uint32_t	n = 0;
	int		r = 0;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&in, &sb, msgpack_sbuffer_write);
	(*p)++;
	ws(p);
	while (r == 0 && **p != close) {
		if (n > 0) {
			if (**p != ',') {
				r = -1;
				break;
			}
			(*p)++;
			ws(p);
		}
		r = value(&in, p);
		ws(p);
		if (r == 0 && map) {
			if (**p != ':') {
				r = -1;
				break;
			}
			(*p)++;
			ws(p);
			r = value(&in, p);
			ws(p);
		}
		n++;
	}
	if (r == 0) {
		(*p)++;
		if (map)
			msgpack_pack_map(pk, n);
		else
			msgpack_pack_array(pk, n);
		/* raw append of the packed elements */
		msgpack_pack_str_body(pk, sb.data, sb.size);
	}
	msgpack_sbuffer_destroy(&sb);
	return r;
}

static int
number(msgpack_packer *pk, const char **p)
{
	const char	*s = *p;
	char		*end;
	bool		flt = false;

	while (**p == '-' || **p == '+' || **p == '.' || **p == 'e' ||
	    **p == 'E' || isdigit((unsigned char)**p)) {
		if (**p == '.' || **p == 'e' || **p == 'E')
			flt = true;
		(*p)++;
	}
	if (*p == s)
		return -1;
	if (flt)
		msgpack_pack_double(pk, strtod(s, &end));
	else if (*s == '-')
		msgpack_pack_int64(pk, strtoll(s, &end, 10));
	else
		msgpack_pack_uint64(pk, strtoull(s, &end, 10));
	return end == *p ? 0 : -1;
}

static int
value(msgpack_packer *pk, const char **p)
{
	ws(p);
	switch (**p) {
	case '{':
		return container(pk, p, '}', true);
	case '[':
		return container(pk, p, ']', false);
	case '"':
		return string(pk, p);
	}
	if (strncmp(*p, "true", 4) == 0) {
		*p += 4;
		msgpack_pack_true(pk);
		return 0;
	}
	if (strncmp(*p, "false", 5) == 0) {
		*p += 5;
		msgpack_pack_false(pk);
		return 0;
	}
	if (strncmp(*p, "null", 4) == 0) {
		*p += 4;
		msgpack_pack_nil(pk);
		return 0;
	}
	return number(pk, p);
}

int
jmp_pack(struct bwp_writer *w, const char *json)
{
	const char	*p = json;

	if (value(&w->pk, &p) < 0)
		return -1;
	ws(&p);
	return *p == '\0' ? 0 : -1;
}

void *
jmp_message(const char *json, size_t *len)
{
	struct bwp_writer	w;
	void			*buf = NULL;

	bwp_w_init(&w);
	/* the raw packing, without the counted map header of finish */
	if (jmp_pack(&w, json) == 0 && !w.nomem &&
	    (buf = malloc(w.len - BWP_W_HDR + 1)) != NULL) {
		memcpy(buf, w.data + BWP_W_HDR, w.len - BWP_W_HDR);
		*len = w.len - BWP_W_HDR;
	}
	bwp_w_free(&w);
	return buf;
}
