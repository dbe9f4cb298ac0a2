// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the latency iopolicy's pricing.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/time64.h>

#define US(x)	((u32)((x) * NSEC_PER_USEC))

static struct nvme_lat_in lat_in(u32 lat_ns, u32 per_req_ns, u8 tier)
{
	return (struct nvme_lat_in){ .lat_ns = lat_ns, .per_req_ns = per_req_ns,
				     .tier = tier };
}

/* The band of @nr paths and each one's price. */
static void lat_price_all(const struct nvme_lat_in *in, int nr, u64 *price,
			  struct nvme_lat_band *b)
{
	int i;

	*b = (struct nvme_lat_band){ };
	for (i = 0; i < nr; i++)
		nvme_lat_band_add(b, &in[i]);
	for (i = 0; i < nr; i++)
		price[i] = nvme_lat_price(b, &in[i]);
}

/* Equal estimates: one price, and the requests in flight decide. */
static void lat_test_band_is_queue_depth(struct kunit *test)
{
	struct nvme_lat_in in[3] = {
		lat_in(US(100), US(25), 0), lat_in(US(120), US(60), 0),
		lat_in(0, 0, 0),
	};
	struct nvme_lat_band b;
	u64 price[3];
	unsigned int n;

	lat_price_all(in, 3, price, &b);
	KUNIT_EXPECT_EQ(test, b.min_ns, US(100));
	KUNIT_EXPECT_EQ(test, b.band_ns, US(125));
	KUNIT_EXPECT_EQ(test, price[0], price[1]);
	KUNIT_EXPECT_EQ(test, price[0], price[2]);
	KUNIT_EXPECT_TRUE(test, price[0] & NVME_LAT_BAND);
	for (n = 0; n < 100; n++)
		KUNIT_EXPECT_LT(test, nvme_lat_cost(price[0], n),
				nvme_lat_cost(price[1], n + 1));
}

/* A slower path takes I/O only when the band is loaded past the band. */
static void lat_test_outside(struct kunit *test)
{
	struct nvme_lat_in in[2] = {
		lat_in(US(100), US(20), 0), lat_in(US(1000), US(500), 0),
	};
	struct nvme_lat_band b;
	u64 price[2];

	lat_price_all(in, 2, price, &b);
	KUNIT_EXPECT_FALSE(test, price[1] & NVME_LAT_BAND);
	/* idle slow path: 500 us against the band's 100 us */
	KUNIT_EXPECT_LT(test, nvme_lat_cost(price[0], 0),
			nvme_lat_cost(price[1], 0));
	/* the fast path at 23 in flight costs 480 us, at 26 540 us */
	KUNIT_EXPECT_LT(test, nvme_lat_cost(price[0], 23),
			nvme_lat_cost(price[1], 0));
	KUNIT_EXPECT_GT(test, nvme_lat_cost(price[0], 26),
			nvme_lat_cost(price[1], 0));
	/* measured at a high load, cheap at a low one, never below the band */
	in[1] = lat_in(US(1000), US(10), 0);
	lat_price_all(in, 2, price, &b);
	KUNIT_EXPECT_EQ(test, nvme_lat_cost(price[1], 0), US(125));
}

/* A silent path sets no band and costs at least its silence. */
static void lat_test_silent(struct kunit *test)
{
	struct nvme_lat_in in[2] = {
		lat_in(US(100), US(100), 0), lat_in(US(20000), US(20000), 0),
	};
	struct nvme_lat_band b;
	u64 price[2];

	in[1].silent = true;
	lat_price_all(in, 2, price, &b);
	KUNIT_EXPECT_EQ(test, b.min_ns, US(100));
	KUNIT_EXPECT_GE(test, nvme_lat_cost(price[1], 0), US(20000));
	/* silent and faster than the others: still not the band */
	in[0] = lat_in(US(30000), US(30000), 0);
	lat_price_all(in, 2, price, &b);
	KUNIT_EXPECT_EQ(test, b.min_ns, US(30000));
	KUNIT_EXPECT_FALSE(test, price[1] & NVME_LAT_BAND);
}

/*
 * The best ANA tier sets the band; a path of another tier is priced against
 * it.  Without estimates, queue-depth.
 */
static void lat_test_tiers(struct kunit *test)
{
	struct nvme_lat_in in[2] = {
		lat_in(US(1000), US(1000), 1), lat_in(US(100), US(100), 0),
	};
	struct nvme_lat_band b;
	u64 price[2];

	lat_price_all(in, 2, price, &b);
	KUNIT_EXPECT_EQ(test, b.tier, 0);
	/* optimized before the next window, the slow path is not free */
	KUNIT_EXPECT_GT(test, nvme_lat_cost(price[0], 0),
			nvme_lat_cost(price[1], 8));
	in[0] = lat_in(0, 0, 0);
	in[1] = lat_in(0, 0, 0);
	lat_price_all(in, 2, price, &b);
	KUNIT_EXPECT_TRUE(test, price[0] & NVME_LAT_BAND);
	KUNIT_EXPECT_EQ(test, nvme_lat_cost(price[0], 3), 3);
}

/*
 * A path not priced takes no I/O from priced ones; a new path starts at the
 * lowest price of the others, not below it.
 */
static void lat_test_unpriced(struct kunit *test)
{
	struct nvme_lat_in in = lat_in(US(100), US(100), 0);
	struct nvme_lat *lat = nvme_lat_alloc();
	struct nvme_lat *old = nvme_lat_alloc();
	struct nvme_lat_band b = { };
	u64 price;

	KUNIT_ASSERT_NOT_NULL(test, lat);
	KUNIT_ASSERT_NOT_NULL(test, old);
	nvme_lat_band_add(&b, &in);
	price = nvme_lat_price(&b, &in);
	KUNIT_EXPECT_GT(test, nvme_lat_cost(lat->slot[0].price, 0),
			nvme_lat_cost(price, 64));
	/* between paths not priced, queue-depth */
	KUNIT_EXPECT_LT(test, nvme_lat_cost(lat->slot[0].price, 2),
			nvme_lat_cost(lat->slot[1].price, 3));
	old->slot[0].price = price | NVME_LAT_PROBE;
	nvme_lat_start_prices(lat, old);
	KUNIT_EXPECT_EQ(test, lat->slot[0].price, price);
	KUNIT_EXPECT_EQ(test, lat->slot[1].price, NVME_LAT_UNPRICED);
	old->slot[0].price = price + (1ULL << 32);
	nvme_lat_start_prices(lat, old);
	KUNIT_EXPECT_EQ(test, lat->slot[0].price, price);
	kfree(old);
	kfree(lat);
}

/* Deep queues and dear paths do not wrap. */
static void lat_test_deep_queue(struct kunit *test)
{
	u64 price = (u64)US(100) << 32 | U32_MAX;

	KUNIT_EXPECT_GT(test, nvme_lat_cost(price, U32_MAX),
			nvme_lat_cost(price, U32_MAX - 1));
	KUNIT_EXPECT_GT(test, nvme_lat_cost(price, U16_MAX + 1),
			nvme_lat_cost(price, U16_MAX));
	KUNIT_EXPECT_EQ(test, nvme_lat_cost(NVME_LAT_BAND, 3), 3);
}

/* Probes back off while outside the band, and one is claimed once. */
static void lat_test_probe(struct kunit *test)
{
	struct nvme_lat_band b = { .min_ns = US(100), .band_ns = US(125),
				   .fresh = true };
	struct nvme_lat_in in = lat_in(US(1000), US(1000), 0);
	struct nvme_lat_slot s = { };
	int i, last = 0, gap = 1;

	in.stale = true;
	KUNIT_EXPECT_TRUE(test, nvme_lat_probe(&s, &in, &b));
	/* then 1, 2, 4, 8, 16 and 16 windows apart */
	for (i = 1; i <= 47; i++) {
		if (!nvme_lat_probe(&s, &in, &b))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, i - last, gap, "probe at window %d", i);
		last = i;
		gap = min(gap * 2, 16);
	}
	KUNIT_EXPECT_EQ(test, last, 47);
	/* a probed path is fresh for 4 windows; they count towards the gap */
	for (i = 1, last = 0; i <= 32; i++) {
		in.stale = i - last > 4;
		if (!nvme_lat_probe(&s, &in, &b))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, i - last, 16, "probe at window %d", i);
		last = i;
	}
	KUNIT_EXPECT_EQ(test, last, 32);
	in.stale = true;
	/* in the band again: at once */
	in.lat_ns = US(110);
	KUNIT_EXPECT_TRUE(test, nvme_lat_probe(&s, &in, &b));
	KUNIT_EXPECT_TRUE(test, nvme_lat_probe(&s, &in, &b));
	/* not for a kind of I/O nobody uses, nor for unusable paths */
	b.fresh = false;
	KUNIT_EXPECT_FALSE(test, nvme_lat_probe(&s, &in, &b));
	b.fresh = true;
	b.tier = NVME_LAT_UNUSABLE;
	in.tier = NVME_LAT_UNUSABLE;
	KUNIT_EXPECT_FALSE(test, nvme_lat_probe(&s, &in, &b));

	s.price = 0;
	KUNIT_EXPECT_TRUE(test, nvme_lat_publish(&s, 7, true, false));
	KUNIT_EXPECT_TRUE(test, nvme_lat_publish(&s, 8, false, false));
	KUNIT_EXPECT_EQ(test, s.price, 8 | NVME_LAT_PROBE);
	s.price = 8;	/* claimed */
	KUNIT_EXPECT_FALSE(test, nvme_lat_publish(&s, 9, false, false));
}

/* A pending probe is dropped when its path goes silent or changes tier. */
static void lat_test_probe_silent(struct kunit *test)
{
	struct nvme_lat_band b = { .min_ns = US(100), .band_ns = US(125),
				   .fresh = true };
	struct nvme_lat *lat = nvme_lat_alloc();

	KUNIT_ASSERT_NOT_NULL(test, lat);
	lat->in = lat_in(US(110), US(110), 0);
	lat->in.stale = true;
	KUNIT_EXPECT_TRUE(test, nvme_lat_price_path(lat, &b, false));
	lat->in.silent = true;
	lat->in.lat_ns = US(60000);
	KUNIT_EXPECT_FALSE(test, nvme_lat_price_path(lat, &b, false));
	KUNIT_EXPECT_FALSE(test, lat->slot[0].price & NVME_LAT_PROBE);
	/* pending on an optimized path that turns non-optimized */
	lat->in = lat_in(US(110), US(110), 0);
	lat->in.stale = true;
	KUNIT_EXPECT_TRUE(test, nvme_lat_price_path(lat, &b, false));
	lat->in.tier = 1;
	KUNIT_EXPECT_FALSE(test, nvme_lat_price_path(lat, &b, false));
	KUNIT_EXPECT_FALSE(test, lat->slot[0].price & NVME_LAT_PROBE);
	kfree(lat);
}

static struct kunit_case lat_test_cases[] = {
	KUNIT_CASE(lat_test_band_is_queue_depth),
	KUNIT_CASE(lat_test_outside),
	KUNIT_CASE(lat_test_silent),
	KUNIT_CASE(lat_test_tiers),
	KUNIT_CASE(lat_test_unpriced),
	KUNIT_CASE(lat_test_deep_queue),
	KUNIT_CASE(lat_test_probe),
	KUNIT_CASE(lat_test_probe_silent),
	{}
};

static struct kunit_suite lat_test_suite = {
	.name = "nvme-mpath-latency",
	.test_cases = lat_test_cases,
};

kunit_test_suite(lat_test_suite);
