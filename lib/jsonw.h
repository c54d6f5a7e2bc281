/*
 * jsonw.h - a small streaming JSON writer for the programs' --json output.
 * Commas and string escaping are handled here; nesting depth is bounded.
 */
#ifndef JSONW_H
#define JSONW_H

#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH	16

struct jsonw {
	FILE		*f;
	int		 depth;
	int		 first[JSONW_MAX_DEPTH];	/* no member written yet */
	int		 after_key;
};

void	jsonw_init(struct jsonw *, FILE *);
void	jsonw_obj_begin(struct jsonw *);
void	jsonw_obj_end(struct jsonw *);
void	jsonw_arr_begin(struct jsonw *);
void	jsonw_arr_end(struct jsonw *);
void	jsonw_key(struct jsonw *, const char *);
void	jsonw_str(struct jsonw *, const char *);
void	jsonw_int(struct jsonw *, int64_t);
void	jsonw_uint(struct jsonw *, uint64_t);
void	jsonw_double(struct jsonw *, double);	/* non-finite: null */
void	jsonw_bool(struct jsonw *, int);
void	jsonw_null(struct jsonw *);
/* Finish the document with a newline. */
void	jsonw_end(struct jsonw *);

#endif /* JSONW_H */
