/*
 * cvalue.h - get/set values between their text form (bwctl's command
 * line, bwc_set/bwc_get strings) and the wire, shared by libbwclient and
 * bwctl.
 */
#ifndef CVALUE_H
#define CVALUE_H

#include <stddef.h>

#include "msg.h"

/*
 * Write text as the value it spells: a decimal integer as a msgpack int,
 * a number as a float, "true"/"false" as a bool, anything else as a
 * string.
 */
void	cvalue_write(struct bwp_writer *, const char *text);

/*
 * Format a scalar (int, float, bool, str) into buf.  Returns the length,
 * -ERANGE when len is too small, -EPROTO for arrays, maps and the rest.
 */
int	cvalue_format(const msgpack_object *, char *buf, size_t len);

#endif /* CVALUE_H */
