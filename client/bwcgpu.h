/*
 * bwcgpu.h - libbwclient's side of GPU partitioning (doc/partition.md):
 * the "gpu" map of a registration, and the plan page SOCKET.gpu
 * (bwplan.h) read without a system call while nothing changed.
 */
#ifndef BWCGPU_H
#define BWCGPU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <bwsched/bwclient.h>
#include <bwsched/bwplan.h>

#include "msg.h"
#include "profile.h"

struct bwcgpu_plan {
	pthread_mutex_t			 mu;	/* the cache below */
	const struct bwplan_page	*page;	/* NULL: not mapped */
	struct bwplan_page		*copy;
	uint64_t			 gen;	/* of the cache */
	uint32_t			 task;	/* whose entry it holds */
	int				 have;	/* cache holds an entry */
	struct bwc_partition		 cache;
};

/* -EINVAL with a message in err when the demand cannot be sent. */
int	bwcgpu_check(const struct bwc_gpu_demand *, bool kernel, char *err,
	    size_t errlen);
/* Write the "gpu" key and its map. */
void	bwcgpu_write(struct bwp_writer *, const struct bwc_gpu_demand *);
/* A .bwk profile's gpu directive as a demand. */
void	bwcgpu_from_profile(const struct profile_gpu *,
	    struct bwc_gpu_demand *);

void	bwcgpu_plan_init(struct bwcgpu_plan *);
/*
 * Map SOCKET.gpu read-only if not yet, or again (a daemon that restarted
 * made a new page): 0 or a negative errno.
 */
int	bwcgpu_plan_open(struct bwcgpu_plan *, const char *socket_path,
	    bool again);
void	bwcgpu_plan_close(struct bwcgpu_plan *);
/* The entry of task: 0, -ENOENT (none), -EAGAIN (page busy). */
int	bwcgpu_plan_get(struct bwcgpu_plan *, uint32_t task,
	    struct bwc_partition *);

#endif /* BWCGPU_H */
