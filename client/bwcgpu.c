/*
 * bwcgpu.c - libbwclient's side of GPU partitioning (bwcgpu.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bwcgpu.h"

#define BWCGPU_MAX_NS	3600000000000ull

int
bwcgpu_check(const struct bwc_gpu_demand *g, bool kernel, char *err,
    size_t errlen)
{
	const char	*why = NULL;

	if (g->a_ns == 0 || g->a_ns > BWCGPU_MAX_NS)
		why = "a_ns must be in 1..3600000000000";
	else if (g->b_set && g->b_ns > BWCGPU_MAX_NS)
		why = "b_ns must be at most 3600000000000";
	else if (g->k != 0 && !(g->k >= 1 && g->k <= 100))
		why = "k must be 0 (the class's) or in 1..100";
	else if (g->memory != 0 && g->memory != 1)
		why = "memory must be 0 or 1";
	else if (!kernel && g->period_ns != 0)
		why = "a task's demand takes the task's period";
	if (why == NULL)
		return 0;
	snprintf(err, errlen, "GPU demand: %s", why);
	return -EINVAL;
}

void
bwcgpu_write(struct bwp_writer *w, const struct bwc_gpu_demand *g)
{
	uint32_t	n = 2 + (g->b_set != 0) + (g->k != 0) +
			    (g->deadline_ns != 0) + (g->period_ns != 0);

	bwp_w_key(w, "gpu");
	bwp_w_map(w, n);
	bwp_w_str(w, "a_ns");
	bwp_w_uint(w, g->a_ns);
	bwp_w_str(w, "class");
	bwp_w_str(w, g->memory ? "mi" : "ci");
	if (g->b_set) {
		bwp_w_str(w, "b_ns");
		bwp_w_uint(w, g->b_ns);
	}
	if (g->k != 0) {
		bwp_w_str(w, "k");
		bwp_w_double(w, g->k);
	}
	if (g->deadline_ns != 0) {
		bwp_w_str(w, "deadline_ns");
		bwp_w_uint(w, g->deadline_ns);
	}
	if (g->period_ns != 0) {
		bwp_w_str(w, "period_ns");
		bwp_w_uint(w, g->period_ns);
	}
}

void
bwcgpu_from_profile(const struct profile_gpu *p, struct bwc_gpu_demand *g)
{
	memset(g, 0, sizeof(*g));
	g->a_ns = p->a_ns;
	g->memory = p->mi;
	g->b_set = p->has_b;
	g->b_ns = p->b_ns;
	g->k = p->k_milli ? p->k_milli / 1000.0 : 0;
	g->deadline_ns = p->deadline_ns;
	g->period_ns = p->period_ns;
}

void
bwcgpu_plan_init(struct bwcgpu_plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	pthread_mutex_init(&pl->mu, NULL);
}

int
bwcgpu_plan_open(struct bwcgpu_plan *pl, const char *socket_path,
    bool again)
{
	char	path[256];
	void	*m;
	int	fd, rc = 0;

	pthread_mutex_lock(&pl->mu);
	if (pl->page != NULL && !again)
		goto out;
	if (snprintf(path, sizeof(path), "%s%s", socket_path,
	    BWPLAN_SUFFIX) >= (int)sizeof(path)) {
		rc = -ENAMETOOLONG;
		goto out;
	}
	if (pl->copy == NULL && (pl->copy = malloc(sizeof(*pl->copy))) ==
	    NULL) {
		rc = -ENOMEM;
		goto out;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		goto out;
	}
	m = mmap(NULL, BWPLAN_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	rc = m == MAP_FAILED ? -errno : 0;
	close(fd);
	if (rc == 0) {
		if (pl->page != NULL)	/* a restarted daemon's new page */
			munmap((void *)pl->page, BWPLAN_SIZE);
		__atomic_store_n(&pl->page, m, __ATOMIC_RELEASE);
		pl->gen = UINT64_MAX;	/* read it at the next get */
	}
out:
	pthread_mutex_unlock(&pl->mu);
	return rc;
}

void
bwcgpu_plan_close(struct bwcgpu_plan *pl)
{
	if (pl->page != NULL)
		munmap((void *)pl->page, BWPLAN_SIZE);
	free(pl->copy);
	pthread_mutex_destroy(&pl->mu);
	memset(pl, 0, sizeof(*pl));
}

/* Fill the cache from a fresh copy of the page (mu held). */
static int
plan_refresh(struct bwcgpu_plan *pl, uint32_t task)
{
	const struct bwplan_entry	*e;
	uint32_t			 i;

	if (bwplan_read(pl->page, pl->copy) < 0)
		return -EAGAIN;
	pl->gen = pl->copy->gen;
	pl->task = task;
	pl->have = 0;
	for (i = 0; i < pl->copy->nentries; i++) {
		e = &pl->copy->entry[i];
		if (e->task != task)
			continue;
		pl->cache.partition = e->partition;
		pl->cache.sm_first = e->sm_first;
		pl->cache.sms = e->sms;
		pl->cache.granted = e->granted;
		pl->cache.sms_total = pl->copy->sms_total;
		pl->cache.granule = pl->copy->granule;
		pl->cache.plan = pl->copy->gen;
		pl->have = 1;
	}
	return 0;
}

int
bwcgpu_plan_get(struct bwcgpu_plan *pl, uint32_t task,
    struct bwc_partition *out)
{
	int	rc = 0;

	/* tasks without a GPU demand: no lock on their every launch */
	if (__atomic_load_n(&pl->page, __ATOMIC_ACQUIRE) == NULL)
		return -ENOENT;
	pthread_mutex_lock(&pl->mu);
	if (pl->page == NULL)
		rc = -ENOENT;
	else if (bwplan_gen(pl->page) != pl->gen || pl->task != task)
		rc = plan_refresh(pl, task);
	if (rc == 0 && !pl->have)
		rc = -ENOENT;
	if (rc == 0)
		*out = pl->cache;
	pthread_mutex_unlock(&pl->mu);
	return rc;
}
