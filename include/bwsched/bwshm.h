/*
 * bwshm.h - layouts of the two shared pages between an application and
 * bwsched (doc/design.md section 2).  Public: used by libbwclient, the daemon,
 * the CUDA instrumentation and device code (bwprogress.cuh), so it is
 * plain C99 that also compiles as CUDA C++.
 *
 * Both pages are memfds created by the application, sealed with
 * F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL and passed to the daemon once
 * with SCM_RIGHTS in task.register.  Every field that changes after the
 * page is sent is read and written with atomic operations (__atomic_*
 * builtins in C, atomicOr_system on the GPU); all multi-byte values are in
 * the host's byte order.  The daemon trusts nothing in them: a page that
 * lies can only make its own task's budget wrong, never crash the daemon.
 */
#ifndef BWSCHED_BWSHM_H
#define BWSCHED_BWSHM_H

#include <stdint.h>

#define BWSHM_TASK_MAGIC	0x50545742u	/* "BWTP" */
#define BWSHM_PROGRESS_MAGIC	0x50505742u	/* "BWPP" */
#define BWSHM_LAYOUT_VERSION	1

/* ---- task page ---------------------------------------------------- */

#define BWSHM_TASK_PAGE_SIZE	4096
#define BWSHM_MAX_STREAMS	64	/* stream slots per task */

/*
 * The task holds the bandwidth lock while lock_depth > 0, memcpy_depth > 0
 * or active_streams != 0 (BWLOCK++ Table 1).  The application bumps seq
 * after every change so the daemon can skip unchanged pages, and bumps
 * heartbeat whenever it likes (the daemon reports pages that go quiet).
 * stream_handle[i] is the application's stream identifier for bit i of
 * active_streams (0 = slot free); only the application writes it.
 */
struct bwshm_task_page {
	uint32_t magic;			/* BWSHM_TASK_MAGIC, set before sending */
	uint32_t version;		/* BWSHM_LAYOUT_VERSION */
	uint32_t lock_depth;		/* explicit bwc_lock() nesting */
	uint32_t memcpy_depth;		/* synchronous copies in flight */
	uint64_t active_streams;	/* bit i: stream slot i has work */
	uint64_t seq;			/* bumped after every change */
	uint64_t heartbeat;		/* bumped by the application */
	uint64_t stream_handle[BWSHM_MAX_STREAMS];
};

/* ---- progress page ------------------------------------------------ */

/*
 * A progress page holds nslots launch slots of slot_size bytes each,
 * starting at offset BWSHM_PROGRESS_HDR_SIZE.  Each slot is one kernel
 * launch in flight: a header then a bitmap of ceil(max_blocks / 64)
 * 64-bit words, bit b set when thread block b has finished.
 */
#define BWSHM_PROGRESS_HDR_SIZE	64
#define BWSHM_MAX_SLOTS		64
#define BWSHM_MAX_PROGRESS_SIZE	(16u << 20)	/* bytes, whole page */

struct bwshm_progress_hdr {
	uint32_t magic;			/* BWSHM_PROGRESS_MAGIC */
	uint32_t version;		/* BWSHM_LAYOUT_VERSION */
	uint32_t nslots;		/* 1..BWSHM_MAX_SLOTS */
	uint32_t slot_size;		/* bytes per slot, multiple of 64 */
	uint32_t max_blocks;		/* bitmap capacity of every slot */
	/*
	 * GPU clock calibration (additive in version 1; zero in older
	 * clients): start_mono = gpu_start + clock_offset_ns, within
	 * +-clock_err_ns.  clock_seq is a seqlock the client alone writes:
	 * 0 = no offset published (the daemon counts from launch_ns), odd
	 * while the two fields are rewritten, even and non-zero when valid;
	 * each calibration adds 2, so it is also the offset's generation.
	 */
	uint32_t clock_seq;
	int64_t	 clock_offset_ns;	/* CLOCK_MONOTONIC - %globaltimer */
	uint64_t clock_err_ns;		/* half the tightest bracket */
	uint32_t pad[6];
};

enum bwshm_slot_state {
	BWSHM_SLOT_FREE = 0,
	BWSHM_SLOT_RUNNING = 1,		/* launched, blocks may be finishing */
	BWSHM_SLOT_DONE = 2,		/* completed (stream synchronized) */
};

/*
 * Slot protocol (seqlock): the application makes seq odd, fills kernel,
 * stream, launch_ns and clears the bitmap, sets state RUNNING, then makes
 * seq even.  The daemon reads seq, the header, seq again, and ignores a
 * slot whose seq was odd or changed.  The GPU only ORs bitmap bits.
 *
 * Freeing the slot (state FREE, under the same seqlock) also stores when
 * the launch ended and which launch that was (its launch_ns): the daemon
 * sees a launch end only at its next period, and uses end_ns for the
 * launch's record when ended_launch_ns matches.  A claim leaves both.
 *
 * gpu_start is the GPU's %globaltimer when the launch's first block
 * began (0: not known yet, or the kernel does not record it): the device
 * helper BWPROGRESS_START stores it with a compare-and-swap from 0, so the
 * first block that starts wins.  The claim clears it with the rest of the
 * header; like the bitmap it changes outside the seqlock.  It must stay
 * the 8 bytes just before the bitmap: the device only has the bitmap's
 * address and writes bitmap[-1].
 */
struct bwshm_launch {
	uint64_t seq;			/* odd while the header is rewritten */
	uint32_t state;			/* enum bwshm_slot_state */
	uint32_t kernel;		/* kernel id from kernel.register */
	uint64_t stream;		/* application stream handle */
	uint64_t launch_ns;		/* CLOCK_MONOTONIC at the CPU-side launch */
	uint32_t nblocks;		/* blocks of this launch (<= max_blocks) */
	uint32_t pad0;
	uint64_t end_ns;		/* CLOCK_MONOTONIC the last launch ended */
	uint64_t ended_launch_ns;	/* that launch's launch_ns; 0: none */
	uint64_t gpu_start;		/* %globaltimer ns at the first block */
	uint64_t bitmap[];		/* finished-block bits */
};

#define BWSHM_LAUNCH_HDR_SIZE	64
#define BWSHM_GPU_START_WORD	(-1)	/* gpu_start as bitmap[-1] */

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && \
    __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(struct bwshm_progress_hdr) == BWSHM_PROGRESS_HDR_SIZE,
    "progress page header size");
_Static_assert(sizeof(struct bwshm_launch) == BWSHM_LAUNCH_HDR_SIZE,
    "launch slot header size");
_Static_assert(__builtin_offsetof(struct bwshm_launch, gpu_start) ==
    BWSHM_LAUNCH_HDR_SIZE - 8, "gpu_start just before the bitmap");
#endif

/* Bytes one slot needs for max_blocks blocks, rounded up to 64. */
#define BWSHM_SLOT_SIZE(max_blocks) \
	((BWSHM_LAUNCH_HDR_SIZE + 8u * (((max_blocks) + 63u) / 64u) + 63u) & ~63u)

/* Bytes of a whole progress page. */
#define BWSHM_PROGRESS_SIZE(nslots, max_blocks) \
	(BWSHM_PROGRESS_HDR_SIZE + (uint64_t)(nslots) * BWSHM_SLOT_SIZE(max_blocks))

#endif /* BWSCHED_BWSHM_H */
