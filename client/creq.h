/*
 * creq.h - small requests packed into a fixed buffer on the stack, for
 * the client's frequent slow-path ops (get, lock and stream ops over the
 * socket).  bwp_writer (proto/msg.h) allocates two 8 KiB buffers and
 * copies per message; this costs nothing but the packing, which matters
 * for the round-trip rate.  The caller states the number of keys after
 * v/id/op up front.
 */
#ifndef CREQ_H
#define CREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "bwproto.h"

#define CREQ_MAX	512

struct creq {
	msgpack_packer	pk;
	size_t		len;
	bool		overflow;
	char		buf[CREQ_MAX];
};

/* {"v":1,"id":id,"op":op} plus room for nkeys more entries. */
void	creq_begin(struct creq *, uint64_t id, enum bwp_op, uint32_t nkeys);
void	creq_kuint(struct creq *, const char *key, uint64_t);
void	creq_kstr(struct creq *, const char *key, const char *);
void	creq_kbool(struct creq *, const char *key, bool);

#endif /* CREQ_H */
