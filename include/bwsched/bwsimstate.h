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
 * work (rate (1-u)/e0 + u/e1: the platform model of doc/design.md section 5
 * under which the analytical bound holds).
 *
 * Ahead of now_ns: while `locked`, or while a lock slot is held (the
 * slot caps every core at its static budget, below any plan's), a core
 * throttled at now_ns stays throttled until next_boundary_ns, and any
 * other core adds at most 1/ncores to u.  A client that holds its slot
 * may bound the traffic it has not seen yet with that (the demo client
 * sets the bits of blocks certainly done by the wall clock).
 * A C99 header that compiles as C++.
 */
#ifndef BWSCHED_BWSIMSTATE_H
#define BWSCHED_BWSIMSTATE_H

#include <sched.h>
#include <stdint.h>
#include <string.h>

#define BWSIM_STATE_MAGIC	0x53535742u	/* "BWSS" */
#define BWSIM_STATE_VERSION	2	/* 2: history of 8192 samples */
#define BWSIM_STATE_SIZE	139264	/* the history ends at 135,232 */
/*
 * Samples of the traffic integral: 8192 of at most 20 us are 164 ms, so
 * a client descheduled for a long time on a loaded machine still finds
 * its launch instant (512, about 10 ms, was not enough on a busy VM).
 */
#define BWSIM_HISTORY		8192
#define BWSIM_HISTORY_OFFSET	4096	/* where struct bwsim_history is */
#define BWSIM_HISTORY_STEP_NS	20000	/* the model advances by at most this */
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

/*
 * The traffic integral sampled every time the model has advanced (at
 * most BWSIM_HISTORY_STEP_NS apart), so a client can find it at any
 * recent instant, e.g. a kernel's launch time, by interpolating between
 * two samples (bwsim_history_at()).  Sample i lives in entry
 * i % BWSIM_HISTORY; count is the number written so far, stored after
 * the entry it makes visible.
 */
struct bwsim_sample {
	double		t_ns;		/* model time, CLOCK_MONOTONIC ns */
	double		traffic_ns;	/* integral of u dt up to t_ns */
};

struct bwsim_history {
	uint64_t		count;
	uint64_t		pad[7];
	struct bwsim_sample	s[BWSIM_HISTORY];
};

/*
 * Copy a consistent state out of the mapping.  0; -1 when the writer
 * kept it busy (it may be preempted inside its update: try again
 * later); -2 when the mapping is not a state page.
 */
static inline int
bwsim_state_read(const struct bwsim_state *m, struct bwsim_state *out)
{
	uint64_t	s1, s2;
	int		tries;

	for (tries = 0; tries < 4096; tries++) {
		if ((tries & 63) == 63)
			sched_yield();
		s1 = __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1)
			continue;
		memcpy(out, (const void *)m, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&m->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return out->magic == BWSIM_STATE_MAGIC &&
			    out->version == BWSIM_STATE_VERSION ? 0 : -2;
	}
	return -1;
}

static inline const struct bwsim_history *
bwsim_history(const struct bwsim_state *m)
{
	return (const struct bwsim_history *)(const void *)
	    ((const char *)m + BWSIM_HISTORY_OFFSET);
}

/*
 * The traffic integral at time t, interpolated between the samples
 * around it.  0, or -1 when t is not covered (too old, or not reached
 * yet: retry later).
 */
static inline double
bwsim_sample_t(const struct bwsim_history *h, uint64_t i)
{
	struct bwsim_sample	x;

	memcpy(&x, (const void *)&h->s[i % BWSIM_HISTORY], sizeof(x));
	return x.t_ns;
}

static inline int
bwsim_history_at(const struct bwsim_state *m, double t, double *traffic)
{
	const struct bwsim_history	*h = bwsim_history(m);
	struct bwsim_sample		a, b;
	uint64_t			n, lo, hi, mid;

	/*
	 * Binary search for the first sample at or after t among those the
	 * writer cannot reach while we look (8 to spare); a sample it
	 * overwrote meanwhile can only mislead the search into a pair that
	 * fails the checks below, which then say "retry".
	 */
	n = __atomic_load_n(&h->count, __ATOMIC_ACQUIRE);
	if (n < 2)
		return -1;
	lo = n > BWSIM_HISTORY - 8 ? n - (BWSIM_HISTORY - 8) : 1;
	hi = n - 1;
	if (bwsim_sample_t(h, hi) < t)
		return -1;		/* not reached yet */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (bwsim_sample_t(h, mid) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	memcpy(&b, (const void *)&h->s[lo % BWSIM_HISTORY], sizeof(b));
	memcpy(&a, (const void *)&h->s[(lo - 1) % BWSIM_HISTORY], sizeof(a));
	if (a.t_ns > t || b.t_ns < t)
		return -1;		/* too old, or lapped */
	/* the writer may have lapped us while we copied */
	if (__atomic_load_n(&h->count, __ATOMIC_ACQUIRE) - (lo - 1) >=
	    BWSIM_HISTORY - 1)
		return -1;
	*traffic = b.t_ns > a.t_ns ? a.traffic_ns + (b.traffic_ns -
	    a.traffic_ns) * (t - a.t_ns) / (b.t_ns - a.t_ns) : a.traffic_ns;
	return 0;
}

#endif /* BWSCHED_BWSIMSTATE_H */
