/*
 * jsonw.c - streaming JSON writer.
 */
#include <inttypes.h>
#include <math.h>

#include "jsonw.h"

void
jsonw_init(struct jsonw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->first[0] = 1;
	w->after_key = 0;
}

/* Separator before a value or key at the current level. */
static void
jsonw_sep(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = 0;
}

static void
jsonw_open(struct jsonw *w, int c)
{
	jsonw_sep(w);
	fputc(c, w->f);
	if (w->depth + 1 < JSONW_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = 1;
}

static void
jsonw_close(struct jsonw *w, int c)
{
	fputc(c, w->f);
	if (w->depth > 0)
		w->depth--;
}

void jsonw_obj_begin(struct jsonw *w) { jsonw_open(w, '{'); }
void jsonw_obj_end(struct jsonw *w) { jsonw_close(w, '}'); }
void jsonw_arr_begin(struct jsonw *w) { jsonw_open(w, '['); }
void jsonw_arr_end(struct jsonw *w) { jsonw_close(w, ']'); }

static void
jsonw_quoted(struct jsonw *w, const char *s)
{
	const unsigned char *p;

	fputc('"', w->f);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(w->f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", w->f);
		else if (*p < 0x20)
			fprintf(w->f, "\\u%04x", *p);
		else
			fputc(*p, w->f);
	}
	fputc('"', w->f);
}

void
jsonw_key(struct jsonw *w, const char *k)
{
	jsonw_sep(w);
	jsonw_quoted(w, k);
	fputc(':', w->f);
	w->after_key = 1;
}

void
jsonw_str(struct jsonw *w, const char *s)
{
	jsonw_sep(w);
	jsonw_quoted(w, s);
}

void
jsonw_int(struct jsonw *w, int64_t v)
{
	jsonw_sep(w);
	fprintf(w->f, "%" PRId64, v);
}

void
jsonw_uint(struct jsonw *w, uint64_t v)
{
	jsonw_sep(w);
	fprintf(w->f, "%" PRIu64, v);
}

void
jsonw_double(struct jsonw *w, double v)
{
	jsonw_sep(w);
	if (isfinite(v))
		fprintf(w->f, "%.17g", v);
	else
		fputs("null", w->f);
}

void
jsonw_bool(struct jsonw *w, int v)
{
	jsonw_sep(w);
	fputs(v ? "true" : "false", w->f);
}

void
jsonw_null(struct jsonw *w)
{
	jsonw_sep(w);
	fputs("null", w->f);
}

void
jsonw_end(struct jsonw *w)
{
	fputc('\n', w->f);
	fflush(w->f);
}
