// SPDX-License-Identifier: GPL-2.0
/*
 * blk-clat: per-queue completion latency estimator for path selection.
 *
 * A driver that sends each I/O to one of several queues (NVMe multipath is
 * the user) attaches this rq_qos to every candidate queue while it needs the
 * numbers, and reads a decayed completion latency estimate per NUMA node,
 * direction and I/O size class when it picks a queue.
 *
 * I/O path: blk_stat_add() passes completion time - io_start_time_ns (block
 * statistics accounting is enabled while attached), with the timestamp that
 * the completion took once for its batch; the sample is added, with a count
 * of one, to a word of the submitting CPU's counters for the request's
 * direction and size class (one atomic add, on a line that CPU owns), then
 * marks that CPU active.  No locks, no shared writes in steady state.
 * Requests that never started, passthrough requests and requests without
 * RQF_STATS (blk_clat_discard() clears it for requests that failed or
 * failed over) are not samples.
 *
 * Window timer: every win_nsec the counters of the CPUs marked active are
 * taken (exchanged for zero) into the buckets of their NUMA node, so the
 * timer's work grows with the CPUs that did I/O, not with the possible ones.
 * A bucket (node, direction, size class) with at least min_samples pending
 * samples folds their mean into its EWMA; a bucket with fewer keeps them for
 * the next window, unless it is stale and they read lower: then one
 * sample, a probe's, is enough.  The old value's weight decays with the
 * number of windows since the bucket's last fold, so a path that was idle
 * for a while is dominated by its first new measurements.  The timer stops
 * when a window saw no completion and the queue holds no request, and the
 * next completion restarts it.
 *
 * Staleness: a bucket not folded for stale_windows windows is reported stale
 * and the selector sends probes to it, paced in time.
 *
 * Load: the summed latencies of the requests that completed in a window,
 * divided by the time since the last window that had completions, is the
 * mean number of requests in flight (Little's law).  Readers get the estimate
 * divided by (that mean + 1) too, so that they can scale the estimate to the
 * queue's current in-flight count without dividing per I/O.
 */
#include <linux/blk-clat.h>
#include <linux/blk-mq.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string_choices.h>
#include <linux/timer.h>
#include <kunit/visibility.h>

#include "blk.h"
#include "blk-clat.h"
#include "blk-mq.h"
#include "blk-mq-debugfs.h"
#include "blk-rq-qos.h"
#include "blk-stat.h"

#define CREATE_TRACE_POINTS
#include <trace/events/blk_clat.h>

static const u64 blk_clat_defaults[BLK_CLAT_NR_TUNABLES] = {
	[BLK_CLAT_WIN_NSEC]	= BLK_CLAT_DEF_WIN_NSEC,
	[BLK_CLAT_EWMA_WEIGHT]	= BLK_CLAT_DEF_EWMA_WEIGHT,
	[BLK_CLAT_MIN_SAMPLES]	= BLK_CLAT_DEF_MIN_SAMPLES,
	[BLK_CLAT_STALE_WINDOWS] = BLK_CLAT_DEF_STALE_WINDOWS,
};

static const u64 blk_clat_min[BLK_CLAT_NR_TUNABLES] = {
	[BLK_CLAT_WIN_NSEC]	= NSEC_PER_MSEC,
	[BLK_CLAT_EWMA_WEIGHT]	= 1,
	[BLK_CLAT_MIN_SAMPLES]	= 1,
	[BLK_CLAT_STALE_WINDOWS] = 1,
};

static const u64 blk_clat_max[BLK_CLAT_NR_TUNABLES] = {
	[BLK_CLAT_WIN_NSEC]	= NSEC_PER_SEC,
	[BLK_CLAT_EWMA_WEIGHT]	= BLK_CLAT_FIXED_ONE,
	[BLK_CLAT_MIN_SAMPLES]	= 1 << 20,
	[BLK_CLAT_STALE_WINDOWS] = 1000,
};

/*
 * Per-CPU counters, one word per direction and size class: summed latency in
 * units of 2^BLK_CLAT_SUM_SHIFT ns above BLK_CLAT_NR_BITS of sample count,
 * so that one atomic add accounts a sample and one exchange takes a
 * consistent set of them.
 */
struct blk_clat_pcpu {
	atomic64_t sample[BLK_CLAT_NR_DIRS * BLK_CLAT_NR_CLASSES];
};

/*
 * One bucket's estimate; written by the timer under ->lock only.  The fields
 * that selectors read are no wider than a long, so that they never tear.
 */
struct blk_clat_bucket {
	u32 lat_ns;
	u32 per_inflight_ns;
	unsigned long folded_jiffies;
	u64 folded_ns;
	u64 pending_sum_ns;
	u64 pending_nr;
	u64 last_nr;
	u64 total_nr;
};

struct blk_clat {
	/* read on every completion and selection */
	struct rq_qos rqos;
	struct blk_clat_pcpu __percpu *pcpu;
	struct blk_clat_bucket *bucket;
	unsigned int nr_buckets;
	u32 inflight;
	/* derived from ->tun[], written under ->lock */
	unsigned long win_jiffies;
	unsigned long stale_jiffies;

	/*
	 * Completions check the timer and mark their CPU in ->active, once
	 * per window; the rest is the window timer's, and ->lock protects it
	 * and the buckets.
	 */
	spinlock_t lock ____cacheline_aligned_in_smp;
	struct timer_list timer;
	cpumask_var_t active;		/* CPUs with samples not yet taken */
	u64 tun[BLK_CLAT_NR_TUNABLES];
	cpumask_var_t fold_cpus;
	u64 window_start_ns;
	atomic_t *fold_seq;
	bool idle;
	/* what the timer costs, for debugfs */
	u64 folds;
	u64 fold_ns_sum;
	u64 fold_ns_max;
};

static inline struct blk_clat *rqos_to_clat(struct rq_qos *rqos)
{
	return container_of(rqos, struct blk_clat, rqos);
}

/**
 * blk_clat_mean_ns - mean of a window's samples
 * @sum_ns: summed completion latencies in ns
 * @nr: number of samples
 *
 * Return: the mean in ns, at least 1, or 0 if @nr is 0.
 */
u64 blk_clat_mean_ns(u64 sum_ns, u64 nr)
{
	if (!nr)
		return 0;
	return max_t(u64, div64_u64(sum_ns, nr), 1);
}
EXPORT_SYMBOL_IF_KUNIT(blk_clat_mean_ns);

/**
 * blk_clat_ewma_fold - fold a window mean into an estimate
 * @old_ns: current estimate in ns, 0 if there is none
 * @mean_ns: the new window's mean in ns
 * @weight: weight of one window's mean, in 1/1024 (1 .. 1024)
 * @age: windows since the estimate was last folded (1 for the last one),
 *	taken as 1 .. %BLK_CLAT_MAX_AGE
 *
 * The old estimate keeps (1 - @weight)^@age of its weight, as if each missed
 * window had measured @mean_ns.  Uses mul_u64_u32_shr() on the difference so
 * that no input up to U64_MAX overflows, a constant input stays exact, and
 * the result lies between @old_ns and @mean_ns.
 *
 * Return: the new estimate in ns.
 */
u64 blk_clat_ewma_fold(u64 old_ns, u64 mean_ns, u32 weight, u64 age)
{
	u32 keep = BLK_CLAT_FIXED_ONE;

	if (!old_ns)
		return mean_ns;
	weight = clamp_t(u32, weight, 1, BLK_CLAT_FIXED_ONE);
	age = clamp_t(u64, age, 1, BLK_CLAT_MAX_AGE);
	while (age-- && keep)
		keep = (keep * (BLK_CLAT_FIXED_ONE - weight)) >>
			BLK_CLAT_FIXED_SHIFT;

	/* step from the old value towards the mean: exact when they agree */
	if (mean_ns >= old_ns)
		return old_ns + mul_u64_u32_shr(mean_ns - old_ns,
						BLK_CLAT_FIXED_ONE - keep,
						BLK_CLAT_FIXED_SHIFT);
	return old_ns - mul_u64_u32_shr(old_ns - mean_ns,
					BLK_CLAT_FIXED_ONE - keep,
					BLK_CLAT_FIXED_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(blk_clat_ewma_fold);

/**
 * blk_clat_inflight_mean - mean number of requests in flight (Little's law)
 * @busy_ns: summed completion latencies of the requests that completed in
 *	the interval, in ns
 * @elapsed_ns: length of the interval in ns
 *
 * Return: the mean in-flight count in 1/1024, capped at 65536 requests; 0
 * for an empty interval.
 */
u32 blk_clat_inflight_mean(u64 busy_ns, u64 elapsed_ns)
{
	u64 v;

	if (!elapsed_ns)
		return 0;
	busy_ns = min_t(u64, busy_ns, U64_MAX >> BLK_CLAT_FIXED_SHIFT);
	v = div64_u64(busy_ns << BLK_CLAT_FIXED_SHIFT, elapsed_ns);
	return min_t(u64, v, BLK_CLAT_MAX_INFLIGHT);
}
EXPORT_SYMBOL_IF_KUNIT(blk_clat_inflight_mean);

/**
 * blk_clat_per_inflight_ns - estimate per in-flight request
 * @lat_ns: estimate in ns
 * @inflight: mean in-flight count in 1/1024, as from blk_clat_inflight_mean()
 *
 * Return: @lat_ns / (@inflight + 1), in ns.
 */
u64 blk_clat_per_inflight_ns(u64 lat_ns, u32 inflight)
{
	inflight = min_t(u32, inflight, BLK_CLAT_MAX_INFLIGHT);
	return mul_u64_u32_div(lat_ns, BLK_CLAT_FIXED_ONE,
			       inflight + BLK_CLAT_FIXED_ONE);
}
EXPORT_SYMBOL_IF_KUNIT(blk_clat_per_inflight_ns);

/**
 * blk_clat_tunable_check - validate a tunable value
 * @t: the tunable
 * @val: the proposed value
 *
 * Return: 0 if @val is in range, -EINVAL otherwise.
 */
int blk_clat_tunable_check(enum blk_clat_tunable t, u64 val)
{
	if (t >= BLK_CLAT_NR_TUNABLES)
		return -EINVAL;
	if (val < blk_clat_min[t] || val > blk_clat_max[t])
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(blk_clat_tunable_check);

/**
 * blk_clat_add_sample - account one completion
 * @clat: the estimator
 * @cpu: the CPU that submitted the request; its node is the sample's node
 * @write: true for a write
 * @bytes: size of the request in bytes
 * @lat_ns: its completion latency in ns, counted as at least 1 and at most
 *	BLK_CLAT_MAX_SAMPLE_NS
 *
 * Context: any; one atomic add to @cpu's counters, no locks.
 */
VISIBLE_IF_KUNIT void blk_clat_add_sample(struct blk_clat *clat, int cpu,
					  bool write, u64 bytes, u64 lat_ns)
{
	struct blk_clat_pcpu *p = per_cpu_ptr(clat->pcpu, cpu);
	unsigned int i = blk_clat_index(0, write, blk_clat_size_class(bytes));

	lat_ns = clamp_t(u64, lat_ns, 1, BLK_CLAT_MAX_SAMPLE_NS);
	lat_ns = (lat_ns + BIT(BLK_CLAT_SUM_SHIFT - 1)) >> BLK_CLAT_SUM_SHIFT;
	atomic64_add((lat_ns << BLK_CLAT_NR_BITS) + 1, &p->sample[i]);
	/* add, then check the mark: pairs with the xchg in blk_clat_collect() */
	smp_mb__after_atomic();
	if (!cpumask_test_cpu(cpu, clat->active))
		cpumask_set_cpu(cpu, clat->active);
}
EXPORT_SYMBOL_IF_KUNIT(blk_clat_add_sample);

DEFINE_STATIC_KEY_FALSE(blk_clat_attached);

/**
 * __blk_clat_done - take a completed request's latency as a sample
 * @rq: a request with RQF_STATS, completing
 * @lat_ns: its completion latency in ns, from the completion's timestamp
 *
 * Called from blk_stat_add(), so that a batch of completions shares one
 * clock read, and only while some queue has an estimator.
 *
 * Context: any; the request holds its queue's usage counter, so the estimator
 * cannot go away.
 */
void __blk_clat_done(struct request *rq, u64 lat_ns)
{
	struct rq_qos *rqos = rq_qos_id(rq->q, RQ_QOS_CLAT);
	struct blk_clat *clat;
	bool write;

	if (!rqos)
		return;
	switch (req_op(rq)) {
	case REQ_OP_READ:
		write = false;
		break;
	case REQ_OP_WRITE:
		write = true;
		break;
	default:
		return;
	}

	clat = rqos_to_clat(rqos);
	blk_clat_add_sample(clat, rq->mq_ctx->cpu, write,
			    (u64)rq->stats_sectors << SECTOR_SHIFT, lat_ns);
	if (!timer_pending(&clat->timer))
		mod_timer(&clat->timer, jiffies + READ_ONCE(clat->win_jiffies));
}

/**
 * blk_clat_discard - keep a request's completion out of the estimates
 * @rq: a request that has started and not yet completed
 *
 * For a driver that ends a request the device did not serve: it failed, or
 * its bios moved to another queue.  Its latency says nothing about how long
 * the queue's next request will take.  Block statistics skip it as well.
 *
 * Context: any, before the request completes.
 */
void blk_clat_discard(struct request *rq)
{
	rq->rq_flags &= ~RQF_STATS;
}
EXPORT_SYMBOL_GPL(blk_clat_discard);

/*
 * Take the samples of the CPUs marked active into the pending sums of their
 * node's buckets; ->lock held.  A CPU marks itself after its atomic add:
 * either the xchg of the mask sees the mark and the sample is taken below,
 * or the CPU finds its mark cleared and sets it again for the next window.
 *
 * Return: the number of samples taken; their summed latency in *@busy_ns.
 */
static u64 blk_clat_collect(struct blk_clat *clat, u64 *busy_ns)
{
	unsigned long *active = cpumask_bits(clat->active);
	unsigned long *fold = cpumask_bits(clat->fold_cpus);
	u64 taken = 0;
	unsigned int i;
	int cpu;

	for (i = 0; i < BITS_TO_LONGS(nr_cpu_ids); i++)
		fold[i] = xchg(&active[i], 0);

	for_each_cpu(cpu, clat->fold_cpus) {
		struct blk_clat_pcpu *p = per_cpu_ptr(clat->pcpu, cpu);
		struct blk_clat_bucket *b =
			&clat->bucket[blk_clat_index(cpu_to_node(cpu), false, 0)];

		for (i = 0; i < ARRAY_SIZE(p->sample); i++) {
			u64 v, nr, sum_ns;

			if (!atomic64_read(&p->sample[i]))
				continue;
			v = atomic64_xchg(&p->sample[i], 0);
			nr = v & (BIT_ULL(BLK_CLAT_NR_BITS) - 1);
			sum_ns = v >> BLK_CLAT_NR_BITS << BLK_CLAT_SUM_SHIFT;
			b[i].pending_sum_ns += sum_ns;
			b[i].pending_nr += nr;
			*busy_ns += sum_ns;
			taken += nr;
		}
	}
	return taken;
}

/*
 * No estimate (@lat_ns 0), or not folded for the stale period at @now: an
 * unsigned distance, no wrap.
 */
static bool blk_clat_stale(const struct blk_clat *clat,
			   const struct blk_clat_bucket *b, u32 lat_ns,
			   unsigned long now)
{
	return !lat_ns ||
	       now - READ_ONCE(b->folded_jiffies) > READ_ONCE(clat->stale_jiffies);
}

/*
 * A stale estimate with fewer than min_samples pending, as a probe brings
 * them, whose mean is below the estimate: the path got better while it was
 * not used, which one sample shows well enough.  One that reads worse waits
 * for min_samples, as in a bucket in use.
 */
static bool blk_clat_probe_better(const struct blk_clat *clat,
				  const struct blk_clat_bucket *b,
				  unsigned long now)
{
	return b->pending_nr && b->lat_ns &&
	       blk_clat_stale(clat, b, b->lat_ns, now) &&
	       blk_clat_mean_ns(b->pending_sum_ns, b->pending_nr) < b->lat_ns;
}

/* Fold bucket @i's window into its estimate; ->lock held. */
static void blk_clat_fold_bucket(struct blk_clat *clat, unsigned int i,
				 u64 now_ns, unsigned long now, u64 win_ns,
				 u32 weight)
{
	struct blk_clat_bucket *b = &clat->bucket[i];
	u64 mean_ns = blk_clat_mean_ns(b->pending_sum_ns, b->pending_nr);
	u64 age = div64_u64(now_ns - b->folded_ns, win_ns);

	WRITE_ONCE(b->lat_ns,
		   min_t(u64, U32_MAX,
			 blk_clat_ewma_fold(b->lat_ns, mean_ns, weight, age)));
	trace_blk_clat_fold(clat->rqos.disk, blk_clat_index_node(i),
			    blk_clat_index_write(i), blk_clat_index_class(i),
			    mean_ns, b->lat_ns, b->pending_nr);
	b->last_nr = b->pending_nr;
	b->total_nr += b->pending_nr;
	b->pending_sum_ns = 0;
	b->pending_nr = 0;
	b->folded_ns = now_ns;
	WRITE_ONCE(b->folded_jiffies, now);
}

/*
 * The mean number of requests in flight into the queue's, and each estimate
 * per request in flight from that; ->lock held.  A window without
 * completions while requests are in flight extends the measurement to the
 * next one with completions, so that a queue whose requests take longer
 * than a window is measured over the time they took.
 */
static void blk_clat_fold_inflight(struct blk_clat *clat, u64 busy_ns,
				   u64 now_ns, u64 win_ns, u32 weight,
				   bool active, bool busy)
{
	u64 elapsed_ns = now_ns - clat->window_start_ns;
	unsigned int i;
	u32 inflight;

	if (!active) {
		/* idle: the next completion restarts the timer */
		clat->idle = !busy;
		return;
	}
	/*
	 * After an idle stop the timer was restarted by the first completion
	 * of this window: the gap before it was no part of the measurement.
	 */
	if (clat->idle)
		elapsed_ns = min(elapsed_ns, win_ns);
	inflight = blk_clat_inflight_mean(busy_ns, elapsed_ns);
	WRITE_ONCE(clat->inflight, clat->inflight ?
		   blk_clat_ewma_fold(clat->inflight, inflight, weight, 1) :
		   inflight);
	clat->window_start_ns = now_ns;
	clat->idle = false;

	for (i = 0; i < clat->nr_buckets; i++) {
		struct blk_clat_bucket *b = &clat->bucket[i];

		if (b->lat_ns)
			WRITE_ONCE(b->per_inflight_ns,
				   blk_clat_per_inflight_ns(b->lat_ns,
							    clat->inflight));
	}
}

/**
 * blk_clat_fold - end a window: fold its samples into the estimates
 * @clat: the estimator
 * @now_ns: the time, ktime_get_ns()
 * @now: the time in jiffies
 * @busy: requests are in flight on the queue
 *
 * Context: the window timer, or a test; takes ->lock.
 *
 * Return: true if any request completed since the last call or @busy,
 * false if the queue was idle and the timer may stop.
 */
VISIBLE_IF_KUNIT bool blk_clat_fold(struct blk_clat *clat, u64 now_ns,
				    unsigned long now, bool busy)
{
	struct blk_clat_bucket *b;
	u64 win_ns, busy_ns = 0;
	unsigned int i;
	u32 weight;
	bool active;

	spin_lock_bh(&clat->lock);
	win_ns = clat->tun[BLK_CLAT_WIN_NSEC];
	weight = clat->tun[BLK_CLAT_EWMA_WEIGHT];
	active = blk_clat_collect(clat, &busy_ns) != 0;
	for (i = 0; i < clat->nr_buckets; i++) {
		b = &clat->bucket[i];
		if (b->pending_nr >= clat->tun[BLK_CLAT_MIN_SAMPLES] ||
		    blk_clat_probe_better(clat, b, now))
			blk_clat_fold_bucket(clat, i, now_ns, now, win_ns,
					     weight);
	}
	blk_clat_fold_inflight(clat, busy_ns, now_ns, win_ns, weight, active,
			       busy);
	if (active && clat->fold_seq) {
		/* a reader that sees the count (acquire) sees the estimates */
		smp_mb__before_atomic();
		atomic_inc(clat->fold_seq);
	}
	spin_unlock_bh(&clat->lock);
	return active || busy;
}
EXPORT_SYMBOL_IF_KUNIT(blk_clat_fold);

static void blk_clat_timer_fn(struct timer_list *t)
{
	struct blk_clat *clat = timer_container_of(clat, t, timer);
	u64 start_ns = ktime_get_ns(), cost_ns;
	bool busy, active;

	/* only a window without completions needs to look for requests */
	busy = cpumask_empty(clat->active) &&
	       blk_mq_queue_inflight(clat->rqos.disk->queue);
	active = blk_clat_fold(clat, start_ns, jiffies, busy);

	/* the timer never runs concurrently with itself */
	cost_ns = ktime_get_ns() - start_ns;
	clat->folds++;
	clat->fold_ns_sum += cost_ns;
	clat->fold_ns_max = max(clat->fold_ns_max, cost_ns);

	/* idle, nothing in flight: the next completion restarts the timer */
	if (active)
		mod_timer(&clat->timer, jiffies + READ_ONCE(clat->win_jiffies));
}

/* Recompute what the I/O path reads from the tunables; ->lock held. */
static void blk_clat_apply_tunables(struct blk_clat *clat)
{
	unsigned long win = max(nsecs_to_jiffies(clat->tun[BLK_CLAT_WIN_NSEC]), 1UL);

	WRITE_ONCE(clat->win_jiffies, win);
	WRITE_ONCE(clat->stale_jiffies, win * clat->tun[BLK_CLAT_STALE_WINDOWS]);
}

/* Check and set one tunable; takes ->lock.  Returns 0 or -EINVAL. */
static int blk_clat_set_tunable(struct blk_clat *clat,
				enum blk_clat_tunable t, u64 val)
{
	int ret = blk_clat_tunable_check(t, val);

	if (ret)
		return ret;
	spin_lock_bh(&clat->lock);
	WRITE_ONCE(clat->tun[t], val);
	blk_clat_apply_tunables(clat);
	spin_unlock_bh(&clat->lock);
	return 0;
}

/**
 * blk_clat_read - read the estimate for one kind of I/O
 * @clat: estimator returned by blk_clat_attach()
 * @node: NUMA node of the submitting CPU
 * @write: true for writes, false for reads
 * @bytes: size of the I/O in bytes, as it will be issued on this queue
 * @now: the caller's time in jiffies, for the staleness of the estimate
 * @est: filled with the estimate
 *
 * Lockless and cheap: a few loads, no division.  The caller must keep @clat
 * alive, e.g. by reading it under the SRCU or RCU read lock that it waits
 * for before calling blk_clat_detach().
 *
 * Context: any.
 */
void blk_clat_read(const struct blk_clat *clat, int node, bool write,
		   unsigned int bytes, unsigned long now,
		   struct blk_clat_estimate *est)
{
	const struct blk_clat_bucket *b =
		&clat->bucket[blk_clat_index(node, write,
					     blk_clat_size_class(bytes))];

	est->lat_ns = READ_ONCE(b->lat_ns);
	est->lat_per_inflight_ns = READ_ONCE(b->per_inflight_ns);
	est->inflight_mean = READ_ONCE(clat->inflight);
	est->win_jiffies = READ_ONCE(clat->win_jiffies);
	est->stale = blk_clat_stale(clat, b, est->lat_ns, now);
}
EXPORT_SYMBOL_GPL(blk_clat_read);

/**
 * blk_clat_key - the bucket of one kind of I/O, for blk_clat_peek()
 * @node: NUMA node of the submitting CPU
 * @write: true for writes, false for reads
 * @bytes: size of the I/O in bytes, as it will be issued
 *
 * The key is the same for every estimator.  The keys of one node are
 * %BLK_CLAT_KEYS_PER_NODE apart from those of the next.
 *
 * Context: any.
 * Return: the key.
 */
unsigned int blk_clat_key(int node, bool write, unsigned int bytes)
{
	return blk_clat_index(node, write, blk_clat_size_class(bytes));
}
EXPORT_SYMBOL_GPL(blk_clat_key);

/**
 * blk_clat_peek - the estimate of a bucket, without its staleness
 * @clat: estimator returned by blk_clat_attach()
 * @key: the bucket, from blk_clat_key()
 *
 * For a caller that has read the bucket with blk_clat_read() recently,
 * knows it to be fresh, and wants its current figures: two loads.  The
 * caller keeps @clat alive as for blk_clat_read().
 *
 * Context: any.
 * Return: the estimate; @lat_ns is 0 if there is none.
 */
struct blk_clat_peek blk_clat_peek(const struct blk_clat *clat,
				   unsigned int key)
{
	const struct blk_clat_bucket *b = &clat->bucket[key];

	return (struct blk_clat_peek){
		.lat_ns = READ_ONCE(b->lat_ns),
		.lat_per_inflight_ns = READ_ONCE(b->per_inflight_ns),
	};
}
EXPORT_SYMBOL_GPL(blk_clat_peek);

/**
 * blk_clat_notify_folds - count the windows that change the estimates
 * @clat: estimator returned by blk_clat_attach()
 * @seq: incremented after each window with completions, which is when
 *	estimates change, after the new estimates are written (a reader that
 *	reads it with acquire and then the estimates sees them); NULL for none
 *
 * For a user that keeps decisions made from the estimates and must know
 * when they change.  @seq must outlive the estimator's attachment, until
 * blk_clat_detach() or the queue's removal.
 *
 * Context: any that may take a BH-disabling spinlock.
 */
void blk_clat_notify_folds(struct blk_clat *clat, atomic_t *seq)
{
	spin_lock_bh(&clat->lock);
	clat->fold_seq = seq;
	spin_unlock_bh(&clat->lock);
}
EXPORT_SYMBOL_GPL(blk_clat_notify_folds);

/**
 * blk_clat_free - free an estimator that blk_clat_alloc() returned
 * @clat: the estimator, not attached to a queue (or no longer)
 */
VISIBLE_IF_KUNIT void blk_clat_free(struct blk_clat *clat)
{
	free_percpu(clat->pcpu);
	free_cpumask_var(clat->active);
	free_cpumask_var(clat->fold_cpus);
	kfree(clat->bucket);
	kfree(clat);
}
EXPORT_SYMBOL_IF_KUNIT(blk_clat_free);

static void blk_clat_exit(struct rq_qos *rqos)
{
	struct blk_clat *clat = rqos_to_clat(rqos);

	timer_shutdown_sync(&clat->timer);
	blk_stat_disable_accounting(rqos->disk->queue);
	static_branch_dec(&blk_clat_attached);
	blk_clat_free(clat);
}

#ifdef CONFIG_BLK_DEBUG_FS
/* Forget all estimates: the debugfs "reset" file. */
static void blk_clat_reset(struct blk_clat *clat)
{
	unsigned int i;
	u64 busy_ns = 0;

	spin_lock_bh(&clat->lock);
	blk_clat_collect(clat, &busy_ns);
	for (i = 0; i < clat->nr_buckets; i++) {
		struct blk_clat_bucket *b = &clat->bucket[i];

		WRITE_ONCE(b->lat_ns, 0);
		WRITE_ONCE(b->per_inflight_ns, 0);
		b->pending_sum_ns = 0;
		b->pending_nr = 0;
		b->last_nr = 0;
	}
	WRITE_ONCE(clat->inflight, 0);
	spin_unlock_bh(&clat->lock);
}

static int blk_clat_tunable_show(void *data, struct seq_file *m,
				 enum blk_clat_tunable t)
{
	struct blk_clat *clat = rqos_to_clat(data);

	seq_printf(m, "%llu\n", READ_ONCE(clat->tun[t]));
	return 0;
}

static ssize_t blk_clat_tunable_write(void *data, const char __user *buf,
				      size_t count, enum blk_clat_tunable t)
{
	struct blk_clat *clat = rqos_to_clat(data);
	u64 val;
	int ret;

	ret = kstrtou64_from_user(buf, count, 0, &val);
	if (ret)
		return -EINVAL;
	ret = blk_clat_set_tunable(clat, t, val);
	return ret ? ret : count;
}

#define BLK_CLAT_TUNABLE_ATTR(name, t)					\
static int blk_clat_##name##_show(void *data, struct seq_file *m)	\
{									\
	return blk_clat_tunable_show(data, m, t);			\
}									\
static ssize_t blk_clat_##name##_write(void *data,			\
				       const char __user *buf,		\
				       size_t count, loff_t *ppos)	\
{									\
	return blk_clat_tunable_write(data, buf, count, t);		\
}

BLK_CLAT_TUNABLE_ATTR(win_nsec, BLK_CLAT_WIN_NSEC)
BLK_CLAT_TUNABLE_ATTR(ewma_weight, BLK_CLAT_EWMA_WEIGHT)
BLK_CLAT_TUNABLE_ATTR(min_samples, BLK_CLAT_MIN_SAMPLES)
BLK_CLAT_TUNABLE_ATTR(stale_windows, BLK_CLAT_STALE_WINDOWS)

static const char *const blk_clat_class_names[BLK_CLAT_NR_CLASSES] = {
	"4k", "16k", "64k", "256k", "large",
};

static int blk_clat_estimates_show(void *data, struct seq_file *m)
{
	struct blk_clat *clat = rqos_to_clat(data);
	u64 now = ktime_get_ns();
	unsigned int i;

	spin_lock_bh(&clat->lock);
	seq_printf(m, "inflight_mean_x1024 %u\n", clat->inflight);
	seq_printf(m, "folds %llu fold_ns_mean %llu fold_ns_max %llu\n",
		   clat->folds, clat->folds ?
		   div64_u64(clat->fold_ns_sum, clat->folds) : 0,
		   clat->fold_ns_max);
	seq_puts(m, "node dir class lat_ns per_inflight_ns samples last_nr age_ms stale\n");
	for (i = 0; i < clat->nr_buckets; i++) {
		struct blk_clat_bucket *b = &clat->bucket[i];
		bool stale = blk_clat_stale(clat, b, b->lat_ns, jiffies);

		if (!b->total_nr && !b->pending_nr && !b->lat_ns)
			continue;
		seq_printf(m, "%u %s %s %u %u %llu %llu %llu %d\n",
			   blk_clat_index_node(i),
			   str_write_read(blk_clat_index_write(i)),
			   blk_clat_class_names[blk_clat_index_class(i)],
			   b->lat_ns, b->per_inflight_ns, b->total_nr, b->last_nr,
			   div_u64(now - b->folded_ns, NSEC_PER_MSEC), stale);
	}
	spin_unlock_bh(&clat->lock);
	return 0;
}

/* blk-mq-debugfs opens every file through ->show, even write-only ones */
static int blk_clat_reset_show(void *data, struct seq_file *m)
{
	return 0;
}

static ssize_t blk_clat_reset_write(void *data, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	bool val;

	if (kstrtobool_from_user(buf, count, &val) || !val)
		return -EINVAL;
	blk_clat_reset(rqos_to_clat(data));
	return count;
}

static const struct blk_mq_debugfs_attr blk_clat_debugfs_attrs[] = {
	{"win_nsec", 0600, blk_clat_win_nsec_show, blk_clat_win_nsec_write},
	{"ewma_weight", 0600, blk_clat_ewma_weight_show,
	 blk_clat_ewma_weight_write},
	{"min_samples", 0600, blk_clat_min_samples_show,
	 blk_clat_min_samples_write},
	{"stale_windows", 0600, blk_clat_stale_windows_show,
	 blk_clat_stale_windows_write},
	{"estimates", 0400, blk_clat_estimates_show},
	{"reset", 0200, blk_clat_reset_show, blk_clat_reset_write},
	{},
};
#endif /* CONFIG_BLK_DEBUG_FS */

static const struct rq_qos_ops blk_clat_rqos_ops = {
	.exit = blk_clat_exit,
#ifdef CONFIG_BLK_DEBUG_FS
	.debugfs_attrs = blk_clat_debugfs_attrs,
#endif
};

/**
 * blk_clat_alloc - allocate an estimator with the default tunables
 *
 * blk_clat_attach() adds it to a queue; tests drive it directly with
 * blk_clat_add_sample() and blk_clat_fold().
 *
 * Context: process context.
 * Return: the estimator, or NULL without memory.
 */
VISIBLE_IF_KUNIT struct blk_clat *blk_clat_alloc(void)
{
	struct blk_clat *clat;

	clat = kzalloc_obj(*clat);
	if (!clat)
		return NULL;
	clat->nr_buckets = nr_node_ids * BLK_CLAT_NR_DIRS * BLK_CLAT_NR_CLASSES;
	clat->bucket = kcalloc(clat->nr_buckets, sizeof(*clat->bucket),
			       GFP_KERNEL);
	clat->pcpu = alloc_percpu(struct blk_clat_pcpu);
	if (!clat->bucket || !clat->pcpu ||
	    !zalloc_cpumask_var(&clat->active, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&clat->fold_cpus, GFP_KERNEL)) {
		blk_clat_free(clat);
		return NULL;
	}
	spin_lock_init(&clat->lock);
	timer_setup(&clat->timer, blk_clat_timer_fn, 0);
	memcpy(clat->tun, blk_clat_defaults, sizeof(clat->tun));
	/*
	 * The timer is not running: the first window starts with a sample,
	 * and its length, not the time since now, is what it measures.
	 */
	clat->idle = true;
	blk_clat_apply_tunables(clat);
	return clat;
}
EXPORT_SYMBOL_IF_KUNIT(blk_clat_alloc);

/**
 * blk_clat_attach - attach the completion latency estimator to a disk
 * @disk: a registered blk-mq disk, e.g. one path of a multipath device
 *
 * Adds the rq_qos (which freezes the queue), enables block statistics
 * accounting so that requests carry io_start_time_ns, and creates the
 * debugfs directory rqos/clat of the queue.  If the disk already has a
 * estimator, that one is returned and nothing changes.  The estimator lives
 * until blk_clat_detach() or until the disk is deleted, whichever comes
 * first.
 *
 * Context: process context; may sleep.  Must not be called while holding a
 * lock that the completion of I/O on @disk may need, or inside a read-side
 * critical section that such a lock's owner waits for, since it waits for
 * all requests in flight on the queue.  The caller serialises attach and
 * detach of one disk; different disks need no serialisation.
 *
 * Return: the estimator, or ERR_PTR(-ENOMEM), ERR_PTR(-ENODEV) if the disk
 * was never added or is going away, ERR_PTR(-EOPNOTSUPP) if it is not
 * blk-mq.
 */
struct blk_clat *blk_clat_attach(struct gendisk *disk)
{
	struct request_queue *q = disk->queue;
	struct blk_clat *clat, *new;
	struct rq_qos *rqos;
	unsigned int memflags;
	int ret = 0;

	might_sleep();
	if (!queue_is_mq(q))
		return ERR_PTR(-EOPNOTSUPP);

	new = blk_clat_alloc();
	if (!new)
		return ERR_PTR(-ENOMEM);

	mutex_lock(&q->rq_qos_mutex);
	rqos = rq_qos_id(q, RQ_QOS_CLAT);
	if (rqos) {
		clat = rqos_to_clat(rqos);
	} else if (!test_bit(GD_ADDED, &disk->state) ||
		   test_bit(GD_DEAD, &disk->state)) {
		/* put_disk() of a disk never added would not free us */
		ret = -ENODEV;
	} else {
		ret = rq_qos_add(&new->rqos, disk, RQ_QOS_CLAT,
				 &blk_clat_rqos_ops);
		if (!ret) {
			static_branch_inc(&blk_clat_attached);
			blk_stat_enable_accounting(q);
			clat = new;
			new = NULL;
		}
	}
	mutex_unlock(&q->rq_qos_mutex);

	if (!ret && !new) {
		memflags = blk_debugfs_lock(q);
		if (q->debugfs_dir)
			blk_mq_debugfs_register_rq_qos(q);
		blk_debugfs_unlock(q, memflags);
	}

	if (new)
		blk_clat_free(new);
	return ret ? ERR_PTR(ret) : clat;
}
EXPORT_SYMBOL_GPL(blk_clat_attach);

/**
 * blk_clat_set_window - set the length of an estimator's window
 * @clat: the estimator, from blk_clat_attach()
 * @win_ns: the window in ns, from 1 ms to 1 s
 *
 * Sets what the debugfs file win_nsec sets: the time between folds, and so
 * the pace of the estimate's decay, the stale period (a number of windows)
 * and the probe interval that blk_clat_read() reports.  The window running
 * now ends as it was set up; the next one has the new length.
 *
 * Context: any context that may take a spinlock with bottom halves off.
 * Return: 0, or -EINVAL if @win_ns is out of range.
 */
int blk_clat_set_window(struct blk_clat *clat, u64 win_ns)
{
	return blk_clat_set_tunable(clat, BLK_CLAT_WIN_NSEC, win_ns);
}
EXPORT_SYMBOL_GPL(blk_clat_set_window);

/**
 * blk_clat_detach - remove the completion latency estimator from a disk
 * @disk: the disk passed to blk_clat_attach()
 *
 * Removes the rq_qos (which freezes the queue), its debugfs files and its
 * timer, disables the statistics accounting it enabled and frees it.  Does
 * nothing if @disk has no estimator, which is also the case once del_gendisk()
 * has freed it.  The caller must hold a reference on @disk and make sure
 * that nobody still reads the estimator, e.g. with synchronize_srcu() after
 * unpublishing its pointer.
 *
 * Context: process context; may sleep, same locking rule as blk_clat_attach().
 */
void blk_clat_detach(struct gendisk *disk)
{
	struct request_queue *q = disk->queue;
	struct rq_qos *rqos;
	unsigned int memflags;

	might_sleep();
	mutex_lock(&q->rq_qos_mutex);
	rqos = rq_qos_id(q, RQ_QOS_CLAT);
	if (rqos)
		rq_qos_del(rqos);
	mutex_unlock(&q->rq_qos_mutex);

	/* off the list now, so del_gendisk() cannot free it under us */
	if (rqos) {
		memflags = blk_debugfs_lock(q);
		blk_mq_debugfs_unregister_rqos(rqos);
		blk_debugfs_unlock(q, memflags);
	}

	if (rqos)
		blk_clat_exit(rqos);
}
EXPORT_SYMBOL_GPL(blk_clat_detach);
