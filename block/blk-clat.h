/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal definitions of the completion latency estimator, shared with its
 * KUnit tests.  Drivers use <linux/blk-clat.h>.
 */
#ifndef BLK_CLAT_INTERNAL_H
#define BLK_CLAT_INTERNAL_H

#include <linux/blk-clat.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/jump_label.h>
#include <linux/minmax.h>
#include <linux/nodemask.h>
#include <linux/sizes.h>
#include <linux/time64.h>
#include <linux/types.h>

enum {
	/* reads and writes are estimated apart */
	BLK_CLAT_NR_DIRS	= 2,

	/* size classes: <= 4 KiB, 16 KiB, 64 KiB, 256 KiB, larger */
	BLK_CLAT_NR_CLASSES	= 5,

	/* EWMA weights and in-flight means are fixed point, 1.0 == 1024 */
	BLK_CLAT_FIXED_SHIFT	= BLK_CLAT_INFLIGHT_SHIFT,
	BLK_CLAT_FIXED_ONE	= 1 << BLK_CLAT_FIXED_SHIFT,

	/* after this many silent windows an old estimate has no weight */
	BLK_CLAT_MAX_AGE	= 64,

	/* cap of the mean in-flight count, fixed point */
	BLK_CLAT_MAX_INFLIGHT	= 65536 << BLK_CLAT_FIXED_SHIFT,

	/*
	 * Per-CPU sample words count samples in their low 24 bits (16M per
	 * CPU and window) and sum latencies in units of 128 ns, rounded, in
	 * the 40 above (2^47 ns, 39 hours per CPU and window).  What completes
	 * in one window on a queue sums to at most the requests in flight
	 * there, at most BLK_MQ_MAX_DEPTH (10240) per submitting CPU, times
	 * the window (1 s at most) and the longest sample (4.29 s): 15 hours.
	 */
	BLK_CLAT_NR_BITS	= 24,
	BLK_CLAT_SUM_SHIFT	= 7,
};

static_assert(BLK_CLAT_KEYS_PER_NODE == BLK_CLAT_NR_DIRS * BLK_CLAT_NR_CLASSES);

/* longer samples count as this long, as estimates do (4.29 s) */
#define BLK_CLAT_MAX_SAMPLE_NS		U32_MAX

/*
 * Defaults.  A latency step shows up as 90% of the step after 9 windows
 * (0.45 s), which leaves room for the probes of a path that carries no
 * other I/O to catch up within 1 s; a bucket not folded for 4 windows
 * (200 ms) is stale and probed once per window, and 2 probes refresh it.
 */
#define BLK_CLAT_DEF_WIN_NSEC		(50 * NSEC_PER_MSEC)
#define BLK_CLAT_DEF_EWMA_WEIGHT	(BLK_CLAT_FIXED_ONE / 4)
#define BLK_CLAT_DEF_MIN_SAMPLES	2
#define BLK_CLAT_DEF_STALE_WINDOWS	4

/**
 * enum blk_clat_tunable - debugfs tunables, in the order of their defaults
 * @BLK_CLAT_WIN_NSEC: window length in ns; one EWMA step per window.
 * @BLK_CLAT_EWMA_WEIGHT: weight of a new window mean, in 1/1024.
 * @BLK_CLAT_MIN_SAMPLES: samples needed before a bucket's window is folded;
 *	fewer are carried into the next window, but a stale bucket folds one
 *	that reads lower than its estimate.
 * @BLK_CLAT_STALE_WINDOWS: windows without a fold after which an estimate
 *	is reported stale, so that the selector probes the path.
 * @BLK_CLAT_NR_TUNABLES: number of tunables.
 */
enum blk_clat_tunable {
	BLK_CLAT_WIN_NSEC,
	BLK_CLAT_EWMA_WEIGHT,
	BLK_CLAT_MIN_SAMPLES,
	BLK_CLAT_STALE_WINDOWS,
	BLK_CLAT_NR_TUNABLES,
};

/**
 * blk_clat_size_class - size class of an I/O
 * @bytes: I/O size in bytes
 *
 * Return: 0 for up to 4 KiB, 1 for up to 16 KiB, 2 for up to 64 KiB, 3 for up
 * to 256 KiB and 4 for anything larger.
 */
static inline unsigned int blk_clat_size_class(u64 bytes)
{
	unsigned int bits;

	if (bytes <= SZ_4K)
		return 0;
	bits = fls64(bytes - 1);	/* 13 .. 64 */
	return min_t(unsigned int, (bits - 11) / 2, BLK_CLAT_NR_CLASSES - 1);
}

/**
 * blk_clat_index - bucket of a (node, direction, size class)
 * @node: NUMA node; anything outside 0 .. nr_node_ids - 1 counts as node 0
 * @write: true for writes
 * @class: size class from blk_clat_size_class()
 *
 * Return: index into the nr_node_ids * 2 * 5 buckets of an estimator.
 */
static inline unsigned int blk_clat_index(int node, bool write,
					  unsigned int class)
{
	if (node < 0 || node >= nr_node_ids)
		node = 0;
	return (node * BLK_CLAT_NR_DIRS + write) * BLK_CLAT_NR_CLASSES + class;
}

/* bucket @i's node, direction and size class: blk_clat_index() undone */
static inline unsigned int blk_clat_index_node(unsigned int i)
{
	return i / (BLK_CLAT_NR_DIRS * BLK_CLAT_NR_CLASSES);
}

static inline bool blk_clat_index_write(unsigned int i)
{
	return (i / BLK_CLAT_NR_CLASSES) % BLK_CLAT_NR_DIRS;
}

static inline unsigned int blk_clat_index_class(unsigned int i)
{
	return i % BLK_CLAT_NR_CLASSES;
}

struct request;

#ifdef CONFIG_BLK_CLAT
DECLARE_STATIC_KEY_FALSE(blk_clat_attached);
void __blk_clat_done(struct request *rq, u64 lat_ns);

/* a request's completion latency, if any queue has an estimator */
static inline void blk_clat_done(struct request *rq, u64 lat_ns)
{
	if (static_branch_unlikely(&blk_clat_attached))
		__blk_clat_done(rq, lat_ns);
}
#else
static inline void blk_clat_done(struct request *rq, u64 lat_ns)
{
}
#endif

u64 blk_clat_mean_ns(u64 sum_ns, u64 nr);
u64 blk_clat_ewma_fold(u64 old_ns, u64 mean_ns, u32 weight, u64 age);
u32 blk_clat_inflight_mean(u64 busy_ns, u64 elapsed_ns);
u64 blk_clat_per_inflight_ns(u64 lat_ns, u32 inflight);
int blk_clat_tunable_check(enum blk_clat_tunable t, u64 val);

#endif /* BLK_CLAT_INTERNAL_H */
