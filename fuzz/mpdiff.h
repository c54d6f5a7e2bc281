/*
 * mpdiff.h - differential check of proto/mpdec.c against msgpack-c's own
 * decoder: both must accept or refuse the same input, take the same
 * number of bytes and build the same tree.  The unit test runs it on
 * generated messages and the message fuzz target on every input.
 */
#ifndef FUZZ_MPDIFF_H
#define FUZZ_MPDIFF_H

#include <stddef.h>
#include <stdint.h>

/* 0 when the decoders agree on buf, else -1 with the difference in why. */
int	mpdiff_check(const uint8_t *buf, size_t len, char *why, size_t whylen);

#endif /* FUZZ_MPDIFF_H */
