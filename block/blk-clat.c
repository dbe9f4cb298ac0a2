// SPDX-License-Identifier: GPL-2.0
/*
 * blk-clat: per-queue completion latency estimator.
 *
 * A driver that sends each I/O to one of several queues attaches this rq_qos
 * to the queues it chooses between, while it needs the numbers.  A completed
 * read or write is a sample: the time from the start of its I/O accounting
 * (iostats) to its completion, added to a per-CPU counter for the request's
 * direction (past 16 of a kind in a window, one in 8 weighs 8).  No clock is
 * read at issue: a queue with iostats off gives no samples.  The driver calls
 * blk_clat_fold() once per window of its choosing; it folds the samples of
 * each direction into an exponentially weighted moving average (EWMA), and
 * blk_clat_read() returns it.  A queue without the rq_qos runs none of this.
 */
#include <linux/blk-clat.h>
#include <linux/blk-mq.h>
#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-debugfs.h"
#include "blk-rq-qos.h"

/*
 * A per-CPU sample word counts completions in its low 20 bits and sums their
 * latencies, in units of 2^BLK_CLAT_SUM_SHIFT ns, in the 44 above: one
 * atomic add takes a sample and one exchange takes a consistent set.  A
 * window's completions on one CPU sum to at most 2^51 ns, 26 days.
 */
#define BLK_CLAT_NR_BITS	20
#define BLK_CLAT_SUM_SHIFT	7
/*
 * Past this many samples of one kind on one CPU in a window, one completion
 * in BLK_CLAT_THIN is a sample and weighs BLK_CLAT_THIN: the clock is read
 * for few of them, and the sums stay those of every completion.
 */
#define BLK_CLAT_ALL_SAMPLES	16
#define BLK_CLAT_THIN		8
/* a new window's mean weighs 1/4; a step shows 90% after 8 windows */
#define BLK_CLAT_EWMA_SHIFT	2
/* an estimate updated more than this many windows ago weighs nothing (< 1%) */
#define BLK_CLAT_MAX_AGE	16

struct blk_clat_pcpu {
	/* reads, writes */
	atomic64_t sample[2];
	/* completions past BLK_CLAT_ALL_SAMPLES, on this CPU */
	unsigned int thin;
};

/* written by blk_clat_fold() only; readers see @est */
struct blk_clat_bucket {
	struct blk_clat_est est;
	u64 sum_ns;
	u64 nr;
};

struct blk_clat {
	struct rq_qos rqos;
	struct blk_clat_pcpu __percpu *pcpu;
	struct blk_clat_bucket bucket[2];
};

static inline struct blk_clat *rqos_to_clat(struct rq_qos *rqos)
{
	return container_of(rqos, struct blk_clat, rqos);
}

/*
 * The old estimate keeps (3/4)^(@age + 1) of its weight: a queue not used
 * for a while is described by its first new samples.
 */
static u64 blk_clat_ewma(u64 old_ns, u64 mean_ns, unsigned int age)
{
	age = min(age, BLK_CLAT_MAX_AGE);
	if (!old_ns || age == BLK_CLAT_MAX_AGE)
		return mean_ns;
	do {
		old_ns -= old_ns >> BLK_CLAT_EWMA_SHIFT;
		old_ns += mean_ns >> BLK_CLAT_EWMA_SHIFT;
	} while (age--);
	return old_ns;
}

/* A completion's weight as a sample: 0 (none), 1 or BLK_CLAT_THIN */
static unsigned int blk_clat_weight(struct blk_clat *clat, int cpu, bool write)
{
	atomic64_t *sample = &per_cpu_ptr(clat->pcpu, cpu)->sample[write];

	if ((atomic64_read(sample) & (BIT(BLK_CLAT_NR_BITS) - 1)) <
	    BLK_CLAT_ALL_SAMPLES)
		return 1;
	return this_cpu_inc_return(clat->pcpu->thin) % BLK_CLAT_THIN ?
		0 : BLK_CLAT_THIN;
}

static void blk_clat_add(struct blk_clat *clat, int cpu, bool write,
			 u64 lat_ns, unsigned int weight)
{
	u64 units = DIV_ROUND_UP(clamp(lat_ns, 1, U32_MAX),
				 BIT(BLK_CLAT_SUM_SHIFT));

	atomic64_add(((units << BLK_CLAT_NR_BITS) + 1) * weight,
		     &per_cpu_ptr(clat->pcpu, cpu)->sample[write]);
}

/* Marks the request as blk-stat would at issue, without turning it on */
static void blk_clat_track(struct rq_qos *rqos, struct request *rq,
			   struct bio *bio)
{
	rq->stats_sectors = bio_sectors(bio);
}

/* Out of line: most completions of a busy queue are no sample. */
static noinline void blk_clat_sample(struct blk_clat *clat,
				     struct request *rq, bool write,
				     unsigned int weight)
{
	u64 now = blk_time_get_ns();

	if (now > rq->start_time_ns)
		blk_clat_add(clat, raw_smp_processor_id(), write,
			     now - rq->start_time_ns, weight);
}

static void blk_clat_done(struct rq_qos *rqos, struct request *rq)
{
	struct blk_clat *clat = rqos_to_clat(rqos);
	bool write = op_is_write(req_op(rq));
	unsigned int weight;

	/*
	 * RQF_IO_STAT: start_time_ns is set; no sectors: blk_clat_discard();
	 * idle: never started (merged into another, or failed at dispatch)
	 */
	if (!(rq->rq_flags & RQF_IO_STAT) || !blk_rq_stats_sectors(rq) ||
	    blk_mq_rq_state(rq) == MQ_RQ_IDLE ||
	    (req_op(rq) != REQ_OP_READ && req_op(rq) != REQ_OP_WRITE))
		return;
	weight = blk_clat_weight(clat, raw_smp_processor_id(), write);
	if (weight)
		blk_clat_sample(clat, rq, write, weight);
}

/* Take every CPU's samples into the pending sums of the buckets. */
static void blk_clat_take(struct blk_clat *clat)
{
	struct blk_clat_bucket *b = clat->bucket;
	atomic64_t *sample;
	unsigned int i;
	u64 v;
	int cpu;

	for_each_possible_cpu(cpu) {
		sample = per_cpu_ptr(clat->pcpu, cpu)->sample;
		for (i = 0; i < ARRAY_SIZE(clat->bucket); i++) {
			if (!atomic64_read(&sample[i]))
				continue;
			v = atomic64_xchg(&sample[i], 0);
			b[i].nr += v & (BIT_ULL(BLK_CLAT_NR_BITS) - 1);
			b[i].sum_ns += (v >> BLK_CLAT_NR_BITS) << BLK_CLAT_SUM_SHIFT;
		}
	}
}

/**
 * blk_clat_fold - fold the samples taken since the last fold
 * @clat: the estimator
 * @windows: windows since the last fold, at least 1; an estimate last
 *	updated n windows ago keeps (3/4)^n of its weight
 * @nr_done: set to the number of completions the samples stand for
 *
 * Context: process or softirq context; the caller serialises the folds of
 * one estimator.
 * Return: the summed latency of the samples taken, in ns; divided by the
 * time since the last fold, that is the mean number of requests in flight,
 * but a sample counts whole in the fold that takes it, however long it took.
 */
u64 blk_clat_fold(struct blk_clat *clat, unsigned int windows, u64 *nr_done)
{
	u64 mean_ns, busy_ns = 0;
	struct blk_clat_bucket *b;
	unsigned int i;

	windows = max(windows, 1U);
	*nr_done = 0;
	blk_clat_take(clat);
	for (i = 0; i < ARRAY_SIZE(clat->bucket); i++) {
		b = &clat->bucket[i];
		if (!b->nr) {
			WRITE_ONCE(b->est.age,
				   min(b->est.age + windows, U32_MAX / 2));
			continue;
		}
		busy_ns += b->sum_ns;
		*nr_done += b->nr;
		mean_ns = div64_u64(b->sum_ns, b->nr) ?: 1;
		WRITE_ONCE(b->est.lat_ns,
			   min(blk_clat_ewma(b->est.lat_ns, mean_ns,
					     b->est.age + windows - 1), U32_MAX));
		WRITE_ONCE(b->est.age, 0);
		b->sum_ns = 0;
		b->nr = 0;
	}
	return busy_ns;
}
EXPORT_SYMBOL_GPL(blk_clat_fold);

/**
 * blk_clat_read - an estimate, as of the last fold
 * @clat: the estimator
 * @write: of writes, not reads
 *
 * Context: any.
 * Return: the estimate; ages written by a concurrent fold may be seen with
 * the latencies of the fold before.
 */
struct blk_clat_est blk_clat_read(const struct blk_clat *clat, bool write)
{
	return (struct blk_clat_est){
		.lat_ns = READ_ONCE(clat->bucket[write].est.lat_ns),
		.age = READ_ONCE(clat->bucket[write].est.age),
	};
}
EXPORT_SYMBOL_GPL(blk_clat_read);

static struct blk_clat *blk_clat_alloc(void)
{
	struct blk_clat *clat;

	clat = kzalloc_obj(*clat);
	if (!clat)
		return NULL;
	clat->pcpu = alloc_percpu(struct blk_clat_pcpu);
	if (!clat->pcpu) {
		kfree(clat);
		return NULL;
	}
	clat->bucket[0].est.age = BLK_CLAT_MAX_AGE;
	clat->bucket[1].est.age = BLK_CLAT_MAX_AGE;
	return clat;
}

static void blk_clat_free(struct blk_clat *clat)
{
	free_percpu(clat->pcpu);
	kfree(clat);
}

static void blk_clat_exit(struct rq_qos *rqos)
{
	blk_clat_free(rqos_to_clat(rqos));
}

#ifdef CONFIG_BLK_DEBUG_FS
/* One line per estimate: direction, estimate, age. */
static int blk_clat_estimates_show(void *data, struct seq_file *m)
{
	struct blk_clat *clat = rqos_to_clat(data);
	struct blk_clat_est rd = blk_clat_read(clat, false);
	struct blk_clat_est wr = blk_clat_read(clat, true);

	seq_printf(m, "read %u %u\nwrite %u %u\n", rd.lat_ns, rd.age,
		   wr.lat_ns, wr.age);
	return 0;
}

static const struct blk_mq_debugfs_attr blk_clat_debugfs_attrs[] = {
	{"estimates", 0400, blk_clat_estimates_show},
	{},
};
#endif

static const struct rq_qos_ops blk_clat_rqos_ops = {
	.track = blk_clat_track,
	.done = blk_clat_done,
	.exit = blk_clat_exit,
#ifdef CONFIG_BLK_DEBUG_FS
	.debugfs_attrs = blk_clat_debugfs_attrs,
#endif
};

/**
 * blk_clat_attach - add an estimator to a disk's queue
 * @disk: a blk-mq disk
 *
 * Freezes the queue.  The estimator lives until blk_clat_detach() or until
 * the disk is deleted, whichever comes first: a caller that keeps the
 * returned pointer must stop using it before either.
 *
 * Context: process context.
 * Return: the estimator; ERR_PTR(-ENODEV) if the disk is not added yet or
 * is being deleted, -EBUSY if it has an estimator already, -ENOMEM.
 */
struct blk_clat *blk_clat_attach(struct gendisk *disk)
{
	struct request_queue *q = disk->queue;
	unsigned int memflags;
	struct blk_clat *clat;
	int ret = -ENODEV;

	clat = blk_clat_alloc();
	if (!clat)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&q->rq_qos_mutex);
	/* del_gendisk() marks the disk dead before its rq_qos_exit() */
	if (test_bit(GD_ADDED, &disk->state) &&
	    !test_bit(GD_DEAD, &disk->state))
		ret = rq_qos_add(&clat->rqos, disk, RQ_QOS_CLAT,
				 &blk_clat_rqos_ops);
	mutex_unlock(&q->rq_qos_mutex);
	if (ret) {
		blk_clat_free(clat);
		return ERR_PTR(ret);
	}
	memflags = blk_debugfs_lock(q);
	/* not if del_gendisk() has removed the queue's directory */
	if (q->debugfs_dir)
		blk_mq_debugfs_register_rq_qos(q);
	blk_debugfs_unlock(q, memflags);
	return clat;
}
EXPORT_SYMBOL_GPL(blk_clat_attach);

/**
 * blk_clat_detach - remove a disk's estimator, if it has one
 * @disk: the disk
 *
 * Freezes the queue.  The caller must have stopped using the estimator.
 *
 * Context: process context.
 */
void blk_clat_detach(struct gendisk *disk)
{
	struct request_queue *q = disk->queue;
	unsigned int __maybe_unused memflags;
	struct rq_qos *rqos;

	mutex_lock(&q->rq_qos_mutex);
	rqos = rq_qos_id(q, RQ_QOS_CLAT);
	if (rqos)
		rq_qos_del(rqos);
	mutex_unlock(&q->rq_qos_mutex);
	if (!rqos)
		return;
#ifdef CONFIG_BLK_DEBUG_FS
	/* debugfs_mutex is never taken under rq_qos_mutex */
	memflags = blk_debugfs_lock(q);
	if (q->debugfs_dir)
		debugfs_remove_recursive(rqos->debugfs_dir);
	blk_debugfs_unlock(q, memflags);
#endif
	blk_clat_exit(rqos);
}
EXPORT_SYMBOL_GPL(blk_clat_detach);

#ifdef CONFIG_BLK_CLAT_KUNIT_TEST
#include "blk-clat-test.c"
#endif
