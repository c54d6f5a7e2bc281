/*
 * cvalue.c - get/set value conversions (see cvalue.h).
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvalue.h"

void
cvalue_write(struct bwp_writer *w, const char *text)
{
	char		*end;
	long long	 i;
	unsigned long long u;
	double		 d;

	if (*text != '\0' && *text != ' ') {
		errno = 0;
		if (*text == '-') {
			i = strtoll(text, &end, 10);
			if (errno == 0 && *end == '\0') {
				bwp_w_int(w, i);
				return;
			}
		} else {
			u = strtoull(text, &end, 10);
			if (errno == 0 && *end == '\0') {
				bwp_w_uint(w, u);
				return;
			}
		}
		errno = 0;
		d = strtod(text, &end);
		/* "nan", "inf" and hex floats stay strings */
		if (errno == 0 && *end == '\0' && isfinite(d) &&
		    strpbrk(text, "xXnN") == NULL) {
			bwp_w_double(w, d);
			return;
		}
	}
	if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)
		bwp_w_bool(w, text[0] == 't');
	else
		bwp_w_str(w, text);
}

int
cvalue_format(const msgpack_object *o, char *buf, size_t len)
{
	int	n;

	switch (o->type) {
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		n = snprintf(buf, len, "%" PRIu64, o->via.u64);
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		n = snprintf(buf, len, "%" PRId64, o->via.i64);
		break;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		n = snprintf(buf, len, "%.10g", o->via.f64);
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		n = snprintf(buf, len, "%s", o->via.boolean ? "true" : "false");
		break;
	case MSGPACK_OBJECT_STR:
		/* as "%.*s" would, without the printf machinery (hot: get) */
		n = (int)strnlen(o->via.str.ptr, o->via.str.size);
		if ((size_t)n >= len)
			return -ERANGE;
		memcpy(buf, o->via.str.ptr, (size_t)n);
		buf[n] = '\0';
		break;
	default:
		return -EPROTO;
	}
	return n >= 0 && (size_t)n < len ? n : -ERANGE;
}
