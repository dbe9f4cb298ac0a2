/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM blk_clat

#if !defined(_TRACE_BLK_CLAT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BLK_CLAT_H

#include <linux/blkdev.h>
#include <linux/tracepoint.h>

/*
 * blk_clat_fold - a window's samples folded into one estimate
 * @disk: the queue's disk; NULL for an estimator that has no queue (KUnit)
 * @node: NUMA node of the CPUs that submitted the requests
 * @write: the requests were writes
 * @class: size class, from 0 (up to 4 KiB) to 4 (over 256 KiB)
 * @mean_ns: mean completion latency of the samples folded, in ns
 * @lat_ns: the estimate after the fold, in ns
 * @samples: number of samples folded
 */
TRACE_EVENT(blk_clat_fold,

	TP_PROTO(struct gendisk *disk, int node, bool write, unsigned int class,
		 u64 mean_ns, u32 lat_ns, u64 samples),

	TP_ARGS(disk, node, write, class, mean_ns, lat_ns, samples),

	TP_STRUCT__entry(
		__field(dev_t,		dev)
		__field(int,		node)
		__field(bool,		write)
		__field(unsigned int,	class)
		__field(u64,		mean_ns)
		__field(u32,		lat_ns)
		__field(u64,		samples)
	),

	TP_fast_assign(
		__entry->dev		= disk ? disk_devt(disk) : 0;
		__entry->node		= node;
		__entry->write		= write;
		__entry->class		= class;
		__entry->mean_ns	= mean_ns;
		__entry->lat_ns		= lat_ns;
		__entry->samples	= samples;
	),

	TP_printk("%d,%d node=%d %s class=%s mean_ns=%llu lat_ns=%u samples=%llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->node,
		  __entry->write ? "write" : "read",
		  __print_symbolic(__entry->class, { 0, "4k" }, { 1, "16k" },
				   { 2, "64k" }, { 3, "256k" }, { 4, "large" }),
		  __entry->mean_ns, __entry->lat_ns, __entry->samples)
);

#endif /* _TRACE_BLK_CLAT_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
