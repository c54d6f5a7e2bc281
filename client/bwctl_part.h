/*
 * bwctl_part.h - `bwctl partitions`: print the reply of the "partitions"
 * op (doc/protocol.md) as a table.
 */
#ifndef BWCTL_PART_H
#define BWCTL_PART_H

#include "msg.h"

void	bwctl_partitions_print(const msgpack_object *reply);

#endif /* BWCTL_PART_H */
