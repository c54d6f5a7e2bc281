/*
 * ops.h - request dispatch: decode, validate (validate.c), the checks
 * every op shares (hello first, admin, a registered task), then the op's
 * handler from one table; the reply goes out through the peer's queue.
 */
#ifndef OPS_H
#define OPS_H

#include "peer.h"
#include "wire.h"

/* Handle one received datagram; descriptors it keeps are set to -1. */
void	ops_dispatch(struct peer *, struct bwp_recv *);

/* Reply RATE to a datagram over the peer's message rate. */
void	ops_reject_rate(struct peer *, struct bwp_recv *);

#endif /* OPS_H */
