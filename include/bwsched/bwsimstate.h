/*
 * bwsimstate.h - the state page the daemon's "sim" regulator publishes
 * next to its control socket (SOCKET.sim, e.g.
 * /run/bwsched/bwsched.sock.sim), so a demo GPU client can emulate a
 * kernel that really slows down when the BE cores get more budget.
 *
 * The file is BWSIM_STATE_SIZE bytes, written only by the daemon;
 * clients map it read-only.  Seqlock: the daemon makes seq odd, rewrites
 * the fields, makes it even; a reader copies the struct between two
 * reads of seq and retries when they differ or are odd
 * (bwsim_state_read() below does exactly that).  Times are
 * CLOCK_MONOTONIC nanoseconds; the model has reached now_ns, which lags
 * the wall clock by at most the backend's publish interval (~200 us).
 *
 * Emulating a block: the simulated BE traffic over BWmax is u(t) in
 * [0,1]; traffic_ns = integral of u dt from the model's start, so over
 * [a, b] a block with times e0 (alone) and e1 (full interference) does
 * (b - a)/e0 - (1/e0 - 1/e1) * (traffic_ns(b) - traffic_ns(a)) of its
 * work (rate (1-u)/e0 + u/e1: the platform model of DESIGN.md section 5
 * under which the analytical bound holds).  A C99 header that compiles
 * as C++.
 */
#ifndef BWSCHED_BWSIMSTATE_H
#define BWSCHED_BWSIMSTATE_H

#include <stdint.h>
#include <string.h>

#define BWSIM_STATE_MAGIC	0x53535742u	/* "BWSS" */
#define BWSIM_STATE_VERSION	1
#define BWSIM_STATE_SIZE	4096
#define BWSIM_STATE_MAX_CORES	16
#define BWSIM_STATE_SUFFIX	".sim"	/* after the socket path */

struct bwsim_core_state {
	uint64_t	budget;		/* this period, UINT64_MAX: none */
	uint64_t	used;		/* events used this period */
	uint64_t	events;		/* total events */
	uint64_t	throttles;	/* periods throttled */
	uint64_t	throttled_ns;	/* total throttled time */
	uint32_t	throttled;	/* 1: throttled now */
	uint32_t	pad;
};

struct bwsim_state {
	uint32_t	magic;		/* BWSIM_STATE_MAGIC */
	uint32_t	version;	/* BWSIM_STATE_VERSION */
	uint64_t	seq;		/* odd while being rewritten */
	uint64_t	now_ns;		/* time the model has reached */
	uint64_t	period;		/* current period number */
	uint64_t	period_ns;
	uint64_t	next_boundary_ns;
	double		bwmax_events;	/* all BE cores, per period, Q = 1 */
	double		u;		/* current BE traffic / BWmax */
	double		traffic_ns;	/* integral of u dt, ns */
	double		be_events;	/* total BE events since start */
	uint64_t	fallbacks;	/* periods on the static budget */
	uint32_t	locked;		/* the bandwidth lock is held */
	uint32_t	ncores;
	double		rho;		/* TFS factor */
	struct bwsim_core_state core[BWSIM_STATE_MAX_CORES];
};

/* Copy a consistent state out of the mapping; 0, or -1 (not a state page). */
static inline int
bwsim_state_read(const struct bwsim_state *m, struct bwsim_state *out)
{
	uint64_t	s1, s2;
	int		tries;

	for (tries = 0; tries < 1000000; tries++) {
		s1 = __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1)
			continue;
		memcpy(out, (const void *)m, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&m->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return out->magic == BWSIM_STATE_MAGIC &&
			    out->version == BWSIM_STATE_VERSION ? 0 : -1;
	}
	return -1;
}

#endif /* BWSCHED_BWSIMSTATE_H */
