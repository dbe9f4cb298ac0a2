/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-queue completion latency estimator (blk-clat), for drivers that pick
 * one of several queues per I/O, such as NVMe native multipath.
 */
#ifndef _LINUX_BLK_CLAT_H
#define _LINUX_BLK_CLAT_H

#include <linux/err.h>
#include <linux/types.h>

struct gendisk;
struct request;
struct blk_clat;

/* fixed point of blk_clat_estimate.inflight_mean */
#define BLK_CLAT_INFLIGHT_SHIFT	10

/**
 * struct blk_clat_estimate - one decayed estimate as seen by a path selector
 * @lat_ns: decayed mean completion latency in nanoseconds, at most
 *	U32_MAX; 0 means that there is no estimate yet.
 * @lat_per_inflight_ns: @lat_ns divided by (mean number of requests in
 *	flight on the queue during the measurement + 1), in nanoseconds.
 *	Multiplied by (current in-flight count + 1) it scales the estimate to
 *	the queue's present load relative to the load it was measured at.
 * @inflight_mean: mean number of requests in flight on the queue during
 *	the measurement, in 1/2^BLK_CLAT_INFLIGHT_SHIFT requests.
 * @win_jiffies: the estimator's window; a stale queue needs about one
 *	probe per window to get a fresh estimate.
 * @stale: no estimate, or fewer than the minimum number of samples for
 *	longer than the stale period: the caller should send a probe.
 */
struct blk_clat_estimate {
	u32 lat_ns;
	u32 lat_per_inflight_ns;
	u32 inflight_mean;
	unsigned long win_jiffies;
	bool stale;
};

/* blk_clat_key() values for one node, from the node's first on */
#define BLK_CLAT_KEYS_PER_NODE	10

/**
 * struct blk_clat_peek - the two figures of an estimate, in one word
 * @lat_ns: as in &struct blk_clat_estimate
 * @lat_per_inflight_ns: as in &struct blk_clat_estimate
 */
struct blk_clat_peek {
	u32 lat_ns;
	u32 lat_per_inflight_ns;
};

#if IS_ENABLED(CONFIG_BLK_CLAT)
struct blk_clat *blk_clat_attach(struct gendisk *disk);
void blk_clat_detach(struct gendisk *disk);
int blk_clat_set_window(struct blk_clat *clat, u64 win_ns);
void blk_clat_discard(struct request *rq);
void blk_clat_read(const struct blk_clat *clat, int node, bool write,
		   unsigned int bytes, unsigned long now,
		   struct blk_clat_estimate *est);
unsigned int blk_clat_key(int node, bool write, unsigned int bytes);
struct blk_clat_peek blk_clat_peek(const struct blk_clat *clat,
				   unsigned int key);
void blk_clat_notify_folds(struct blk_clat *clat, atomic_t *seq);
#if IS_ENABLED(CONFIG_KUNIT)
/* for tests that drive an estimator without a queue, such as path models */
struct blk_clat *blk_clat_alloc(void);
void blk_clat_free(struct blk_clat *clat);
void blk_clat_add_sample(struct blk_clat *clat, int cpu, bool write,
			 u64 bytes, u64 lat_ns);
bool blk_clat_fold(struct blk_clat *clat, u64 now_ns, unsigned long now,
		   bool busy);
#endif
#else
static inline struct blk_clat *blk_clat_attach(struct gendisk *disk)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline void blk_clat_detach(struct gendisk *disk)
{
}

static inline int blk_clat_set_window(struct blk_clat *clat, u64 win_ns)
{
	return -EOPNOTSUPP;
}

static inline void blk_clat_discard(struct request *rq)
{
}

static inline void blk_clat_read(const struct blk_clat *clat, int node,
				 bool write, unsigned int bytes,
				 unsigned long now,
				 struct blk_clat_estimate *est)
{
	est->lat_ns = 0;
	est->lat_per_inflight_ns = 0;
	est->inflight_mean = 0;
	est->win_jiffies = 0;
	est->stale = true;
}

static inline unsigned int blk_clat_key(int node, bool write,
					unsigned int bytes)
{
	return 0;
}

static inline struct blk_clat_peek blk_clat_peek(const struct blk_clat *clat,
						 unsigned int key)
{
	return (struct blk_clat_peek){ };
}

static inline void blk_clat_notify_folds(struct blk_clat *clat, atomic_t *seq)
{
}
#endif /* CONFIG_BLK_CLAT */

#endif /* _LINUX_BLK_CLAT_H */
