// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the completion latency estimator.
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/blk-clat.h>
#include <linux/blk-mq.h>
#include <linux/sizes.h>
#include <linux/time64.h>

/* A completion on @cpu that took @lat_ns, as blk_clat_done() takes it */
static void blk_clat_test_add(struct blk_clat *clat, int cpu, bool write,
			      u64 lat_ns)
{
	unsigned int weight = blk_clat_weight(clat, cpu, write);

	if (weight)
		blk_clat_add(clat, cpu, write, lat_ns, weight);
}

static void blk_clat_test_ewma(struct kunit *test)
{
	/* the first mean is the estimate; a constant input stays exact */
	KUNIT_EXPECT_EQ(test, blk_clat_ewma(0, 1000, 0), 1000);
	KUNIT_EXPECT_EQ(test, blk_clat_ewma(123457, 123457, 0), 123457);
	KUNIT_EXPECT_EQ(test, blk_clat_ewma(U32_MAX, U32_MAX, 3), U32_MAX);
	/* one window weighs 1/4 */
	KUNIT_EXPECT_EQ(test, blk_clat_ewma(1000, 2000, 0), 1250);
	KUNIT_EXPECT_EQ(test, blk_clat_ewma(2000, 1000, 0), 1750);
	/* windows without samples count as if they had measured the mean */
	KUNIT_EXPECT_EQ(test, blk_clat_ewma(1024, 0, 1), 576);
	/* after 16 silent windows the old estimate is gone */
	KUNIT_EXPECT_EQ(test, blk_clat_ewma(1000000, 10, 16), 10);
	KUNIT_EXPECT_EQ(test, blk_clat_ewma(1000000, 10, U32_MAX), 10);
}

/* @a is @b within @tol */
static bool blk_clat_test_near(u64 a, u64 b, u64 tol)
{
	return abs_diff(a, b) <= tol;
}

static struct blk_clat *blk_clat_test_alloc(struct kunit *test)
{
	struct blk_clat *clat = blk_clat_alloc();

	KUNIT_ASSERT_NOT_NULL(test, clat);
	return clat;
}

/* Samples are taken per direction, and folded. */
static void blk_clat_test_fold(struct kunit *test)
{
	struct blk_clat *clat = blk_clat_test_alloc(test);
	struct blk_clat_est est;
	u64 nr;

	est = blk_clat_read(clat, false);
	KUNIT_EXPECT_EQ(test, est.lat_ns, 0);
	blk_clat_test_add(clat, 0, false, 100 * NSEC_PER_USEC);
	blk_clat_test_add(clat, 0, false, 300 * NSEC_PER_USEC);
	blk_clat_test_add(clat, 0, true, 1 * NSEC_PER_MSEC);
	/* the busy time: 1.4 ms, rounded to 128 ns per sample */
	KUNIT_EXPECT_TRUE(test, blk_clat_test_near(blk_clat_fold(clat, 1, &nr),
						   1400 * NSEC_PER_USEC, 3 * 128));
	KUNIT_EXPECT_EQ(test, nr, 3);
	est = blk_clat_read(clat, false);
	KUNIT_EXPECT_TRUE(test, blk_clat_test_near(est.lat_ns,
						   200 * NSEC_PER_USEC, 128));
	KUNIT_EXPECT_EQ(test, est.age, 0);
	est = blk_clat_read(clat, true);
	KUNIT_EXPECT_TRUE(test, blk_clat_test_near(est.lat_ns, NSEC_PER_MSEC,
						   128));

	/* no samples: the estimate stays and ages */
	KUNIT_EXPECT_EQ(test, blk_clat_fold(clat, 3, &nr), 0);
	KUNIT_EXPECT_EQ(test, nr, 0);
	est = blk_clat_read(clat, false);
	KUNIT_EXPECT_TRUE(test, blk_clat_test_near(est.lat_ns,
						   200 * NSEC_PER_USEC, 128));
	KUNIT_EXPECT_EQ(test, est.age, 3);

	/* aged 3 windows, then one with 1 ms: (3/4)^4 of the old is left */
	blk_clat_test_add(clat, 0, false, NSEC_PER_MSEC);
	blk_clat_fold(clat, 1, &nr);
	est = blk_clat_read(clat, false);
	KUNIT_EXPECT_TRUE(test, blk_clat_test_near(est.lat_ns,
						   747 * NSEC_PER_USEC,
						   NSEC_PER_USEC));
	blk_clat_free(clat);
}

/* Samples longer than 4.29 s count as that long; nothing wraps. */
static void blk_clat_test_overflow(struct kunit *test)
{
	struct blk_clat *clat = blk_clat_test_alloc(test);
	u64 nr;
	int i;

	for (i = 0; i < 1000; i++)
		blk_clat_test_add(clat, 0, false, U64_MAX);
	KUNIT_EXPECT_GT(test, blk_clat_fold(clat, 1, &nr),
			4000ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_GE(test, blk_clat_read(clat, false).lat_ns, U32_MAX - 128);
	blk_clat_test_add(clat, 0, false, 0);
	blk_clat_fold(clat, 500, &nr);
	KUNIT_EXPECT_GT(test, blk_clat_read(clat, false).lat_ns, 0);
	blk_clat_free(clat);
}

/*
 * Past 16 samples of a kind in a window, the 8th, 16th, ... completion is
 * a sample and weighs 8; the next window takes 16 again.
 */
static void blk_clat_test_thin(struct kunit *test)
{
	struct blk_clat *clat = blk_clat_test_alloc(test);
	u64 nr;
	int i;

	/* the completions past 16 count on the CPU that completes them */
	migrate_disable();
	for (i = 0; i < 16 + 80; i++)
		blk_clat_test_add(clat, 0, false,
				  (i >= 16 && i % 8 == 7 ? 1280 : 128) * NSEC_PER_USEC);
	migrate_enable();
	/* 16 of 128 us and 10 of 1280 us that weigh 8: 96 completions */
	KUNIT_EXPECT_EQ(test, blk_clat_fold(clat, 1, &nr),
			(16 * 128 + 80 * 1280) * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, nr, 96);
	KUNIT_EXPECT_EQ(test, blk_clat_read(clat, false).lat_ns,
			(16 * 128 + 80 * 1280) * NSEC_PER_USEC / 96);
	for (i = 0; i < 16; i++)
		blk_clat_test_add(clat, 0, false, 1280 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, blk_clat_fold(clat, 1, &nr),
			16 * 1280 * NSEC_PER_USEC);
	blk_clat_free(clat);
}

static const struct block_device_operations blk_clat_test_fops = {
	.owner = THIS_MODULE,
};

static blk_status_t blk_clat_test_queue_rq(struct blk_mq_hw_ctx *hctx,
					   const struct blk_mq_queue_data *bd)
{
	blk_mq_start_request(bd->rq);
	blk_mq_end_request(bd->rq, BLK_STS_OK);
	return BLK_STS_OK;
}

static const struct blk_mq_ops blk_clat_test_mq_ops = {
	.queue_rq = blk_clat_test_queue_rq,
};

/* A read through @disk, whose queue has no blk-stat accounting, is a sample. */
static void blk_clat_test_read(struct kunit *test, struct gendisk *disk,
			       struct blk_clat *clat)
{
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned int memflags;
	struct bio *bio;
	u64 nr;

	KUNIT_ASSERT_NOT_NULL(test, page);
	bio = bio_alloc(disk->part0, 1, REQ_OP_READ, GFP_KERNEL);
	__bio_add_page(bio, page, SZ_4K, 0);
	KUNIT_EXPECT_EQ(test, submit_bio_wait(bio), 0);
	bio_put(bio);
	__free_page(page);
	/*
	 * The bio ends before the request's ->done runs, maybe on another
	 * CPU: the frozen queue has freed the request.
	 */
	memflags = blk_mq_freeze_queue(disk->queue);
	blk_mq_unfreeze_queue(disk->queue, memflags);
	KUNIT_EXPECT_FALSE(test, test_bit(QUEUE_FLAG_STATS,
					  &disk->queue->queue_flags));
	KUNIT_EXPECT_GT(test, blk_clat_fold(clat, 1, &nr), 0);
	KUNIT_EXPECT_EQ(test, nr, 1);
}

/* A request freed without being started (merged away, failed) is none. */
static void blk_clat_test_unstarted(struct kunit *test, struct gendisk *disk,
				    struct blk_clat *clat)
{
	struct request *rq = blk_mq_alloc_request(disk->queue, REQ_OP_READ, 0);
	u64 nr;

	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	rq->rq_flags |= RQF_IO_STAT;
	rq->start_time_ns = ktime_get_ns() - NSEC_PER_MSEC;
	rq->stats_sectors = 8;
	blk_mq_free_request(rq);
	KUNIT_EXPECT_EQ(test, blk_clat_fold(clat, 1, &nr), 0);
}

/*
 * Attach refuses a disk not added or deleted; the estimator takes samples
 * of reads, not of requests that never started; del_gendisk() frees it.
 */
static void blk_clat_test_attach(struct kunit *test)
{
	struct blk_mq_tag_set *set;
	struct gendisk *disk;
	struct blk_clat *clat;

	set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_EQ(test, blk_mq_alloc_sq_tag_set(set, &blk_clat_test_mq_ops,
						      1, 0), 0);
	disk = blk_mq_alloc_disk(set, NULL, NULL);
	if (IS_ERR(disk)) {
		blk_mq_free_tag_set(set);
		KUNIT_FAIL(test, "no disk: %ld", PTR_ERR(disk));
		return;
	}
	disk->fops = &blk_clat_test_fops;
	disk->flags |= GENHD_FL_NO_PART | GENHD_FL_HIDDEN;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "clat_test");
	set_capacity(disk, 8);

	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(blk_clat_attach(disk)), -ENODEV);
	if (add_disk(disk)) {
		KUNIT_FAIL(test, "add_disk failed");
		goto out;
	}
	clat = blk_clat_attach(disk);
	if (!IS_ERR(clat)) {
		blk_clat_test_read(test, disk, clat);
		blk_clat_test_unstarted(test, disk, clat);
	} else {
		KUNIT_FAIL(test, "attach failed: %ld", PTR_ERR(clat));
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(blk_clat_attach(disk)), -EBUSY);
	blk_clat_detach(disk);
	blk_clat_detach(disk);
	KUNIT_EXPECT_FALSE(test, IS_ERR(blk_clat_attach(disk)));
	del_gendisk(disk);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(blk_clat_attach(disk)), -ENODEV);
out:
	put_disk(disk);
	blk_mq_free_tag_set(set);
}

static struct kunit_case blk_clat_test_cases[] = {
	KUNIT_CASE(blk_clat_test_ewma),
	KUNIT_CASE(blk_clat_test_fold),
	KUNIT_CASE(blk_clat_test_overflow),
	KUNIT_CASE(blk_clat_test_thin),
	KUNIT_CASE(blk_clat_test_attach),
	{}
};

static struct kunit_suite blk_clat_test_suite = {
	.name = "blk-clat",
	.test_cases = blk_clat_test_cases,
};

kunit_test_suite(blk_clat_test_suite);
