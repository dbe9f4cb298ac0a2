/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-queue completion latency estimator (blk-clat), for drivers that pick
 * one of several queues per I/O, such as NVMe native multipath.
 */
#ifndef _LINUX_BLK_CLAT_H
#define _LINUX_BLK_CLAT_H

#include <linux/blk-mq.h>
#include <linux/types.h>

struct blk_clat;

/**
 * struct blk_clat_est - one estimate, as of the last fold
 * @lat_ns: decayed mean completion latency; 0 if there has been no sample
 * @age: windows since the last fold that had samples (0: the last one had)
 */
struct blk_clat_est {
	u32 lat_ns;
	u32 age;
};

/**
 * blk_clat_discard - take no latency sample of a request
 * @rq: a request that failed, or whose I/O goes to another queue
 *
 * Context: any, before the request completes.
 */
static inline void blk_clat_discard(struct request *rq)
{
	rq->stats_sectors = 0;
}

struct blk_clat *blk_clat_attach(struct gendisk *disk);
void blk_clat_detach(struct gendisk *disk);
u64 blk_clat_fold(struct blk_clat *clat, unsigned int windows, u64 *nr_done);
struct blk_clat_est blk_clat_read(const struct blk_clat *clat, bool write);

#endif /* _LINUX_BLK_CLAT_H */
