// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the completion latency estimator's arithmetic.
 */
#include <kunit/test.h>
#include <linux/blk-mq.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/nodemask.h>
#include <linux/sizes.h>
#include <linux/time64.h>

#include "blk-clat.h"

/* the defaults: the tests check what they promise */
#define WIN_NS		BLK_CLAT_DEF_WIN_NSEC
#define WEIGHT		BLK_CLAT_DEF_EWMA_WEIGHT
#define MIN_SAMPLES	BLK_CLAT_DEF_MIN_SAMPLES
#define STALE_WINDOWS	BLK_CLAT_DEF_STALE_WINDOWS

static void blk_clat_test_size_class(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(0), 0U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(512), 0U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_4K), 0U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_4K + 1), 1U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_8K), 1U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_16K), 1U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_16K + 1), 2U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_64K), 2U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_64K + 1), 3U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_128K), 3U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_256K), 3U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_256K + 1), 4U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(SZ_1G), 4U);
	KUNIT_EXPECT_EQ(test, blk_clat_size_class(U64_MAX), 4U);
}

static void blk_clat_test_separation(struct kunit *test)
{
	unsigned int nr = nr_node_ids * BLK_CLAT_NR_DIRS * BLK_CLAT_NR_CLASSES;
	unsigned long *seen;
	unsigned int class;
	int node, dir;

	seen = kunit_kcalloc(test, BITS_TO_LONGS(nr), sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);

	for (node = 0; node < nr_node_ids; node++)
		for (dir = 0; dir < BLK_CLAT_NR_DIRS; dir++)
			for (class = 0; class < BLK_CLAT_NR_CLASSES; class++) {
				unsigned int i = blk_clat_index(node, dir, class);

				KUNIT_ASSERT_LT(test, i, nr);
				KUNIT_EXPECT_FALSE(test, test_bit(i, seen));
				__set_bit(i, seen);
				KUNIT_EXPECT_EQ(test, blk_clat_index_node(i), (unsigned int)node);
				KUNIT_EXPECT_EQ(test, blk_clat_index_write(i), dir == 1);
				KUNIT_EXPECT_EQ(test, blk_clat_index_class(i), class);
			}
	KUNIT_EXPECT_EQ(test, bitmap_weight(seen, nr), nr);

	/* NUMA_NO_NODE and out-of-range nodes fall back to node 0 */
	KUNIT_EXPECT_EQ(test, blk_clat_index(NUMA_NO_NODE, true, 2),
			blk_clat_index(0, true, 2));
	KUNIT_EXPECT_EQ(test, blk_clat_index(nr_node_ids, false, 1),
			blk_clat_index(0, false, 1));
}

static void blk_clat_test_mean(struct kunit *test)
{
	/* no samples: no division, no estimate */
	KUNIT_EXPECT_EQ(test, blk_clat_mean_ns(0, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, blk_clat_mean_ns(12345, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, blk_clat_mean_ns(10, 4), 2ULL);
	/* a real completion never reads as "no estimate" */
	KUNIT_EXPECT_EQ(test, blk_clat_mean_ns(0, 5), 1ULL);
	KUNIT_EXPECT_EQ(test, blk_clat_mean_ns(U64_MAX, 1), U64_MAX);
}

static void blk_clat_test_first_and_steady(struct kunit *test)
{
	unsigned int age;
	u32 w;

	/* the first window's mean is the estimate */
	KUNIT_EXPECT_EQ(test, blk_clat_ewma_fold(0, 5000, WEIGHT, 1), 5000ULL);
	KUNIT_EXPECT_EQ(test, blk_clat_ewma_fold(0, 1, WEIGHT, 64), 1ULL);

	/* a constant input stays put, whatever the weight and age */
	for (w = 1; w <= BLK_CLAT_FIXED_ONE; w *= 2)
		for (age = 1; age <= BLK_CLAT_MAX_AGE; age *= 2)
			KUNIT_EXPECT_EQ(test,
					blk_clat_ewma_fold(1300000, 1300000, w, age),
					1300000ULL);
}

static unsigned int windows_to_90pct(u64 from, u64 to)
{
	u64 est = from;
	unsigned int n;

	for (n = 1; n < 1000; n++) {
		est = blk_clat_ewma_fold(est, to, WEIGHT, 1);
		if (to > from ? est - from >= (to - from) * 9 / 10 :
				from - est >= (from - to) * 9 / 10)
			return n;
	}
	return n;
}

static void blk_clat_test_step_response(struct kunit *test)
{
	unsigned int per_sec = NSEC_PER_SEC / WIN_NS;

	/*
	 * 90% of a step within 1 s, counting one window lost to a step that
	 * lands in the middle of a window; and not in a single window, or the
	 * estimate would follow every burst.
	 */
	KUNIT_EXPECT_LE(test, windows_to_90pct(1300000, 6300000), per_sec - 1);
	KUNIT_EXPECT_LE(test, windows_to_90pct(6300000, 1300000), per_sec - 1);
	KUNIT_EXPECT_GT(test, windows_to_90pct(1300000, 6300000), 1U);
	KUNIT_EXPECT_LE(test, windows_to_90pct(1000, 60 * NSEC_PER_SEC),
			per_sec - 1);
}

static void blk_clat_test_ageing(struct kunit *test)
{
	u64 step = 1000000, est = step;
	unsigned int i;

	/* age n equals n windows that all measured the new mean */
	for (i = 0; i < 4; i++)
		est = blk_clat_ewma_fold(est, 3 * step, WEIGHT, 1);
	KUNIT_EXPECT_LE(test,
			abs_diff(blk_clat_ewma_fold(step, 3 * step, WEIGHT, 4),
				 est), step / 100);

	/* after the longest age an old estimate has (almost) no weight */
	KUNIT_EXPECT_LE(test,
			abs_diff(blk_clat_ewma_fold(step, 5 * step, WEIGHT,
						    BLK_CLAT_MAX_AGE), 5 * step),
			step / 100);
	/* ages beyond the cap, and 0, are clamped */
	KUNIT_EXPECT_EQ(test, blk_clat_ewma_fold(step, 5 * step, WEIGHT, 10000),
			blk_clat_ewma_fold(step, 5 * step, WEIGHT,
					   BLK_CLAT_MAX_AGE));
	KUNIT_EXPECT_EQ(test, blk_clat_ewma_fold(step, 5 * step, WEIGHT, 0),
			blk_clat_ewma_fold(step, 5 * step, WEIGHT, 1));
}

static void blk_clat_test_reprobe_bound(struct kunit *test)
{
	/*
	 * A path that stops getting I/O is stale after STALE_WINDOWS
	 * windows, is probed from then on, and the window in which its
	 * first probe completes folds that one sample: at most 300 ms with
	 * the defaults before the probes back off (plus the probe's own
	 * latency).
	 */
	KUNIT_EXPECT_LE(test, (STALE_WINDOWS + 2) * WIN_NS,
			300 * NSEC_PER_MSEC);
	/* and the fold that ends it weighs the new mean at least 60% */
	KUNIT_EXPECT_GE(test, blk_clat_ewma_fold(1, 1001, WEIGHT, STALE_WINDOWS),
			601ULL);
}

static void blk_clat_test_inflight(struct kunit *test)
{
	u32 one = BLK_CLAT_FIXED_ONE;

	/* Little's law: 4 requests of 2 ms each during 2 ms = 4 in flight */
	KUNIT_EXPECT_EQ(test, blk_clat_inflight_mean(8 * NSEC_PER_MSEC,
						     2 * NSEC_PER_MSEC), 4 * one);
	KUNIT_EXPECT_EQ(test, blk_clat_inflight_mean(NSEC_PER_MSEC,
						     2 * NSEC_PER_MSEC), one / 2);
	KUNIT_EXPECT_EQ(test, blk_clat_inflight_mean(12345, 0), 0U);
	KUNIT_EXPECT_EQ(test, blk_clat_inflight_mean(0, WIN_NS), 0U);
	KUNIT_EXPECT_EQ(test, blk_clat_inflight_mean(U64_MAX, 1),
			(u32)BLK_CLAT_MAX_INFLIGHT);

	/* estimate per in-flight request */
	KUNIT_EXPECT_EQ(test, blk_clat_per_inflight_ns(1600, 0), 1600ULL);
	KUNIT_EXPECT_EQ(test, blk_clat_per_inflight_ns(1600, 3 * one), 400ULL);
	KUNIT_EXPECT_EQ(test, blk_clat_per_inflight_ns(0, 3 * one), 0ULL);
}

static void blk_clat_test_overflow(struct kunit *test)
{
	u64 sixty_s = 60 * NSEC_PER_SEC;
	u64 r;

	/* 60 s latencies fold without overflow, in both directions */
	r = blk_clat_ewma_fold(sixty_s, 1000, WEIGHT, 1);
	KUNIT_EXPECT_GT(test, r, 1000ULL);
	KUNIT_EXPECT_LT(test, r, sixty_s);
	r = blk_clat_ewma_fold(1000, sixty_s, WEIGHT, 1);
	KUNIT_EXPECT_GT(test, r, 1000ULL);
	KUNIT_EXPECT_LT(test, r, sixty_s);
	/* a million 60 s samples in one window */
	KUNIT_EXPECT_EQ(test, blk_clat_mean_ns(sixty_s * 1000000, 1000000),
			sixty_s);
	KUNIT_EXPECT_EQ(test, blk_clat_inflight_mean(sixty_s * 1000000, WIN_NS),
			(u32)BLK_CLAT_MAX_INFLIGHT);

	/* u64 edges: never wraps, stays between the inputs */
	r = blk_clat_ewma_fold(U64_MAX, U64_MAX, WEIGHT, 1);
	KUNIT_EXPECT_GE(test, r, U64_MAX - 1);
	r = blk_clat_ewma_fold(U64_MAX, 1, BLK_CLAT_FIXED_ONE, 1);
	KUNIT_EXPECT_EQ(test, r, 1ULL);
	r = blk_clat_ewma_fold(1, U64_MAX, 1, 1);
	KUNIT_EXPECT_GE(test, r, 1ULL);
	KUNIT_EXPECT_LT(test, r, U64_MAX / 512);
	KUNIT_EXPECT_EQ(test, blk_clat_per_inflight_ns(U64_MAX, 0), U64_MAX);
	KUNIT_EXPECT_GT(test, blk_clat_per_inflight_ns(U64_MAX, U32_MAX), 0ULL);
	/* out-of-range weights are clamped, not used */
	KUNIT_EXPECT_EQ(test, blk_clat_ewma_fold(100, 200, 0, 1),
			blk_clat_ewma_fold(100, 200, 1, 1));
	KUNIT_EXPECT_EQ(test, blk_clat_ewma_fold(100, 200, U32_MAX, 1), 200ULL);
}

static void blk_clat_test_tunables(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_WIN_NSEC, WIN_NS), 0);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_WIN_NSEC, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_WIN_NSEC,
						     NSEC_PER_MSEC - 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_WIN_NSEC,
						     NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_WIN_NSEC,
						     NSEC_PER_SEC + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_WIN_NSEC, U64_MAX),
			-EINVAL);

	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_EWMA_WEIGHT, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_EWMA_WEIGHT, 1), 0);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_EWMA_WEIGHT,
						     BLK_CLAT_FIXED_ONE), 0);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_EWMA_WEIGHT,
						     BLK_CLAT_FIXED_ONE + 1), -EINVAL);

	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_MIN_SAMPLES, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_MIN_SAMPLES, 1), 0);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_MIN_SAMPLES,
						     (1 << 20) + 1), -EINVAL);

	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_STALE_WINDOWS, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_STALE_WINDOWS, 1000), 0);
	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_STALE_WINDOWS, 1001),
			-EINVAL);

	KUNIT_EXPECT_EQ(test, blk_clat_tunable_check(BLK_CLAT_NR_TUNABLES, 1), -EINVAL);
}

/* The fold counter counts the windows with completions, and nothing else. */
static void blk_clat_test_notify_folds(struct kunit *test)
{
	struct blk_clat *clat = blk_clat_alloc();
	atomic_t seq = ATOMIC_INIT(0);
	u64 t = 0;

	KUNIT_ASSERT_NOT_NULL(test, clat);
	blk_clat_notify_folds(clat, &seq);
	blk_clat_add_sample(clat, 0, false, SZ_4K, 100 * NSEC_PER_USEC);
	blk_clat_add_sample(clat, 0, false, SZ_4K, 100 * NSEC_PER_USEC);
	t += WIN_NS;
	KUNIT_EXPECT_TRUE(test, blk_clat_fold(clat, t, INITIAL_JIFFIES + 13, false));
	KUNIT_EXPECT_EQ(test, atomic_read(&seq), 1);
	/* a window without completions changes no estimate */
	t += WIN_NS;
	blk_clat_fold(clat, t, INITIAL_JIFFIES + 26, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&seq), 1);
	blk_clat_add_sample(clat, 0, true, SZ_64K, 300 * NSEC_PER_USEC);
	t += WIN_NS;
	blk_clat_fold(clat, t, INITIAL_JIFFIES + 39, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&seq), 2);
	/* none after it is taken away */
	blk_clat_notify_folds(clat, NULL);
	blk_clat_add_sample(clat, 0, true, SZ_64K, 300 * NSEC_PER_USEC);
	t += WIN_NS;
	blk_clat_fold(clat, t, INITIAL_JIFFIES + 52, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&seq), 2);
	blk_clat_free(clat);
}

/*
 * A window that follows an idle stop measures the in-flight count over that
 * window only: the gap before its first completion is not part of it.
 */
static void blk_clat_test_idle_gap(struct kunit *test)
{
	struct blk_clat *clat = blk_clat_alloc();
	struct blk_clat_estimate est;
	int i, node = cpu_to_node(0);
	u64 t = 0;

	KUNIT_ASSERT_NOT_NULL(test, clat);
	/* 10 completions of 1.28 ms in a 50 ms window: 0.256 in flight */
	for (i = 0; i < 10; i++)
		blk_clat_add_sample(clat, 0, false, SZ_4K, 1280 * NSEC_PER_USEC);
	t += WIN_NS;
	KUNIT_EXPECT_TRUE(test, blk_clat_fold(clat, t, INITIAL_JIFFIES + 13, false));
	blk_clat_read(clat, node, false, SZ_4K, INITIAL_JIFFIES + 13, &est);
	KUNIT_EXPECT_EQ(test, est.lat_ns, (u32)(1280 * NSEC_PER_USEC));
	KUNIT_EXPECT_EQ(test, est.inflight_mean, 262U);
	KUNIT_EXPECT_FALSE(test, est.stale);

	/* idle: the timer stops; 10 s later the same load again */
	t += WIN_NS;
	KUNIT_EXPECT_FALSE(test, blk_clat_fold(clat, t, INITIAL_JIFFIES + 26, false));
	t += 10 * NSEC_PER_SEC;
	for (i = 0; i < 10; i++)
		blk_clat_add_sample(clat, 0, false, SZ_4K, 1280 * NSEC_PER_USEC);
	t += WIN_NS;
	KUNIT_EXPECT_TRUE(test, blk_clat_fold(clat, t, INITIAL_JIFFIES + 2539, false));
	blk_clat_read(clat, node, false, SZ_4K, INITIAL_JIFFIES + 2539, &est);
	KUNIT_EXPECT_EQ(test, est.inflight_mean, 262U);
	/* stale from the caller's clock: 4 windows after the last fold */
	blk_clat_read(clat, node, false, SZ_4K, INITIAL_JIFFIES + 2539 +
		      STALE_WINDOWS * est.win_jiffies + 1, &est);
	KUNIT_EXPECT_TRUE(test, est.stale);
	blk_clat_free(clat);
}

/*
 * Requests that take longer than a window: four in flight all the time, of
 * 700 ms each, end one every 175 ms, so most windows see none.  Measured
 * window by window, each completion counted 700 ms over 50 ms, 14 in flight.
 */
static void blk_clat_test_busy_long(struct kunit *test)
{
	struct blk_clat *clat = blk_clat_alloc();
	struct blk_clat_estimate est;
	int w, node = cpu_to_node(0);
	u64 t, ends = 0;

	KUNIT_ASSERT_NOT_NULL(test, clat);
	for (w = 1; w <= 40; w++) {
		t = w * WIN_NS;
		for (; (ends + 1) * 175 * NSEC_PER_MSEC <= t; ends++)
			blk_clat_add_sample(clat, 0, false, SZ_128K,
					    700 * NSEC_PER_MSEC);
		/* requests in flight: the timer runs on */
		KUNIT_EXPECT_TRUE(test, blk_clat_fold(clat, t,
						      INITIAL_JIFFIES + 13 * w,
						      true));
	}
	blk_clat_read(clat, node, false, SZ_128K, INITIAL_JIFFIES + 520, &est);
	KUNIT_EXPECT_GE(test, est.inflight_mean, 3U << 10);
	KUNIT_EXPECT_LE(test, est.inflight_mean, 5U << 10);
	blk_clat_free(clat);
}

/*
 * Samples count for the node of the CPU that submitted them, wherever they
 * complete, and one window takes every CPU's samples, once.
 */
static void blk_clat_test_cpu_node(struct kunit *test)
{
	struct blk_clat *clat = blk_clat_alloc();
	struct blk_clat_estimate est;
	u64 *sum_ns, *nr;
	int cpu, node, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, clat);
	sum_ns = kunit_kcalloc(test, nr_node_ids, sizeof(*sum_ns), GFP_KERNEL);
	nr = kunit_kcalloc(test, nr_node_ids, sizeof(*nr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sum_ns);
	KUNIT_ASSERT_NOT_NULL(test, nr);

	/*
	 * each CPU its own latency, a multiple of the 128 ns the sums count
	 * in; a CPU without a node counts for node 0
	 */
	for_each_possible_cpu(cpu) {
		u64 lat_ns = (cpu + 1) * 1024;

		node = cpu_to_node(cpu);
		if (node < 0 || node >= nr_node_ids)
			node = 0;
		blk_clat_add_sample(clat, cpu, true, SZ_16K, lat_ns);
		blk_clat_add_sample(clat, cpu, true, SZ_16K, lat_ns);
		sum_ns[node] += 2 * lat_ns;
		nr[node] += 2;
		if (++n == 256)
			break;
	}
	KUNIT_EXPECT_TRUE(test, blk_clat_fold(clat, WIN_NS, INITIAL_JIFFIES + 13, false));
	for (node = 0; node < nr_node_ids; node++) {
		blk_clat_read(clat, node, true, SZ_16K, INITIAL_JIFFIES + 13, &est);
		KUNIT_EXPECT_EQ(test, est.lat_ns,
				(u32)blk_clat_mean_ns(sum_ns[node], nr[node]));
		KUNIT_EXPECT_EQ(test, est.stale, !nr[node]);
		/* other directions and classes saw nothing */
		blk_clat_read(clat, node, false, SZ_16K, INITIAL_JIFFIES + 13, &est);
		KUNIT_EXPECT_EQ(test, est.lat_ns, 0U);
		blk_clat_read(clat, node, true, SZ_64K, INITIAL_JIFFIES + 13, &est);
		KUNIT_EXPECT_EQ(test, est.lat_ns, 0U);
	}
	/* all taken: the next window is idle */
	KUNIT_EXPECT_FALSE(test, blk_clat_fold(clat, 2 * WIN_NS, INITIAL_JIFFIES + 26, false));
	blk_clat_free(clat);
}

/*
 * A bucket that has been stale for a while folds the one sample a probe
 * brings at the next window's end if it reads lower; one that reads higher,
 * and a fresh bucket, wait for MIN_SAMPLES.
 */
static void blk_clat_test_stale_probe(struct kunit *test)
{
	struct blk_clat *clat = blk_clat_alloc();
	struct blk_clat_estimate est;
	unsigned long now = INITIAL_JIFFIES + 13;
	int i, node = cpu_to_node(0);
	u64 t = WIN_NS;
	u32 prev_ns;

	KUNIT_ASSERT_NOT_NULL(test, clat);
	for (i = 0; i < 2 * MIN_SAMPLES; i++)
		blk_clat_add_sample(clat, 0, i & 1, SZ_4K, 1280 * NSEC_PER_USEC);
	blk_clat_fold(clat, t, now, false);
	blk_clat_read(clat, node, true, SZ_4K, now, &est);
	KUNIT_ASSERT_EQ(test, est.lat_ns, (u32)(1280 * NSEC_PER_USEC));

	/* fresh: one read is not enough */
	blk_clat_add_sample(clat, 0, false, SZ_4K, 20 * NSEC_PER_USEC);
	t += WIN_NS;
	now += est.win_jiffies;
	blk_clat_fold(clat, t, now, false);
	blk_clat_read(clat, node, false, SZ_4K, now, &est);
	KUNIT_EXPECT_EQ(test, est.lat_ns, (u32)(1280 * NSEC_PER_USEC));

	/* stale writes, and a probe's write of 5 ms: it waits for another */
	t += (STALE_WINDOWS + 2) * WIN_NS;
	now += (STALE_WINDOWS + 2) * est.win_jiffies;
	blk_clat_read(clat, node, true, SZ_4K, now, &est);
	KUNIT_EXPECT_TRUE(test, est.stale);
	blk_clat_add_sample(clat, 0, true, SZ_4K, 5 * NSEC_PER_MSEC);
	blk_clat_fold(clat, t, now, false);
	blk_clat_read(clat, node, true, SZ_4K, now, &est);
	KUNIT_EXPECT_TRUE(test, est.stale);
	KUNIT_EXPECT_EQ(test, est.lat_ns, (u32)(1280 * NSEC_PER_USEC));

	/* a second probe's write of 20 us: the mean of the two is folded */
	t += WIN_NS;
	now += est.win_jiffies;
	blk_clat_add_sample(clat, 0, true, SZ_4K, 20 * NSEC_PER_USEC);
	blk_clat_fold(clat, t, now, false);
	blk_clat_read(clat, node, true, SZ_4K, now, &est);
	KUNIT_EXPECT_FALSE(test, est.stale);
	KUNIT_EXPECT_GT(test, est.lat_ns, (u32)(1280 * NSEC_PER_USEC));

	/* stale again, and a probe's write of 20 us: it dominates */
	prev_ns = est.lat_ns;
	t += (STALE_WINDOWS + 2) * WIN_NS;
	now += (STALE_WINDOWS + 2) * est.win_jiffies;
	blk_clat_read(clat, node, true, SZ_4K, now, &est);
	KUNIT_EXPECT_TRUE(test, est.stale);
	blk_clat_add_sample(clat, 0, true, SZ_4K, 20 * NSEC_PER_USEC);
	blk_clat_fold(clat, t, now, false);
	blk_clat_read(clat, node, true, SZ_4K, now, &est);
	KUNIT_EXPECT_FALSE(test, est.stale);
	KUNIT_EXPECT_LT(test, est.lat_ns, prev_ns / 4);
	blk_clat_free(clat);
}

/* the per-CPU word holds the longest samples of a full window, exactly */
static void blk_clat_test_sample_word(struct kunit *test)
{
	struct blk_clat *clat = blk_clat_alloc();
	struct blk_clat_estimate est;
	int i, node = cpu_to_node(0);

	KUNIT_ASSERT_NOT_NULL(test, clat);
	/*
	 * A full queue of 60 s samples (BLK_MQ_MAX_DEPTH of them, and one
	 * more) counts as 4.29 s each: no carry out of the sum, which in ns
	 * units wrapped at the 257th
	 */
	for (i = 0; i <= BLK_MQ_MAX_DEPTH; i++)
		blk_clat_add_sample(clat, 0, false, SZ_4K, 60 * NSEC_PER_SEC);
	KUNIT_EXPECT_TRUE(test, blk_clat_fold(clat, WIN_NS, INITIAL_JIFFIES + 13, false));
	blk_clat_read(clat, node, false, SZ_4K, INITIAL_JIFFIES + 13, &est);
	KUNIT_EXPECT_EQ(test, est.lat_ns, (u32)BLK_CLAT_MAX_SAMPLE_NS);
	/*
	 * jiffies distances past LONG_MAX: a signed compare read an estimate
	 * folded 3 * 2^(BITS_PER_LONG - 2) jiffies ago as fresh
	 */
	blk_clat_read(clat, node, false, SZ_4K,
		      INITIAL_JIFFIES + 13 + ULONG_MAX / 4 * 3, &est);
	KUNIT_EXPECT_TRUE(test, est.stale);
	blk_clat_read(clat, node, false, SZ_4K,
		      INITIAL_JIFFIES + 13 + LONG_MAX + 1UL, &est);
	KUNIT_EXPECT_TRUE(test, est.stale);

	/* a zero latency is a sample of 1 ns, not a missing one */
	for (i = 0; i < 1000; i++)
		blk_clat_add_sample(clat, 0, true, SZ_4K, 0);
	KUNIT_EXPECT_TRUE(test, blk_clat_fold(clat, 2 * WIN_NS, INITIAL_JIFFIES + 26, false));
	blk_clat_read(clat, node, true, SZ_4K, INITIAL_JIFFIES + 26, &est);
	KUNIT_EXPECT_EQ(test, est.lat_ns, 1U);
	blk_clat_free(clat);
}

static blk_status_t blk_clat_test_queue_rq(struct blk_mq_hw_ctx *hctx,
					   const struct blk_mq_queue_data *bd)
{
	return BLK_STS_IOERR;
}

static const struct blk_mq_ops blk_clat_test_mq_ops = {
	.queue_rq	= blk_clat_test_queue_rq,
};

static const struct block_device_operations blk_clat_test_fops = {
	.owner		= THIS_MODULE,
};

/*
 * The estimator attaches to a disk that is live, and only to it: a disk
 * never added is freed by put_disk() without rq_qos_exit(), so an estimator on
 * it would leak; a deleted disk has freed its estimator already.
 */
static void blk_clat_test_attach_lifecycle(struct kunit *test)
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
	disk->flags |= GENHD_FL_NO_PART;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "clat_test");
	set_capacity(disk, 8);

	/* not added: refused */
	clat = blk_clat_attach(disk);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(clat), -ENODEV);
	if (!IS_ERR(clat))
		blk_clat_detach(disk);

	if (!add_disk(disk)) {
		clat = blk_clat_attach(disk);
		KUNIT_EXPECT_FALSE(test, IS_ERR(clat));
		/* a second attach returns the same estimator */
		KUNIT_EXPECT_PTR_EQ(test, blk_clat_attach(disk), clat);
		blk_clat_detach(disk);
		blk_clat_detach(disk);
		/* deleted with an estimator attached: del_gendisk frees it */
		KUNIT_EXPECT_FALSE(test, IS_ERR(blk_clat_attach(disk)));
		del_gendisk(disk);
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(blk_clat_attach(disk)),
				-ENODEV);
	} else {
		KUNIT_FAIL(test, "add_disk failed");
	}
	put_disk(disk);
	blk_mq_free_tag_set(set);
}

static struct kunit_case blk_clat_test_cases[] = {
	KUNIT_CASE(blk_clat_test_size_class),
	KUNIT_CASE(blk_clat_test_separation),
	KUNIT_CASE(blk_clat_test_mean),
	KUNIT_CASE(blk_clat_test_first_and_steady),
	KUNIT_CASE(blk_clat_test_step_response),
	KUNIT_CASE(blk_clat_test_ageing),
	KUNIT_CASE(blk_clat_test_reprobe_bound),
	KUNIT_CASE(blk_clat_test_inflight),
	KUNIT_CASE(blk_clat_test_overflow),
	KUNIT_CASE(blk_clat_test_cpu_node),
	KUNIT_CASE(blk_clat_test_sample_word),
	KUNIT_CASE(blk_clat_test_stale_probe),
	KUNIT_CASE(blk_clat_test_attach_lifecycle),
	KUNIT_CASE(blk_clat_test_tunables),
	KUNIT_CASE(blk_clat_test_notify_folds),
	KUNIT_CASE(blk_clat_test_idle_gap),
	KUNIT_CASE(blk_clat_test_busy_long),
	{}
};

static struct kunit_suite blk_clat_test_suite = {
	.name = "blk-clat",
	.test_cases = blk_clat_test_cases,
};

kunit_test_suite(blk_clat_test_suite);

MODULE_DESCRIPTION("KUnit tests for the block completion latency estimator");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
