/*
 * jmp.h - tests only: turn a small JSON text into msgpack so test tables
 * and fuzz seeds stay readable.  Integers without a dot or exponent
 * become msgpack ints, others floats; strings take \" and \\ escapes.
 */
#ifndef JMP_H
#define JMP_H

#include "msg.h"

/* Pack json into w as one value; -1 on a syntax error. */
int	jmp_pack(struct bwp_writer *, const char *json);
/* Whole message: a malloc'ed buffer, NULL on error. */
void	*jmp_message(const char *json, size_t *len);

#endif /* JMP_H */
