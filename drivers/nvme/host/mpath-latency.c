// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe multipath "latency" iopolicy: queue-depth that knows latency.
 *
 * Each path queue of a head that uses the policy and has more than one path
 * carries a blk-clat estimator.  Once per window a timer per head folds the
 * estimators and prices every path for reads and for writes
 * (nvme_lat_price()).  Per I/O, nvme_latency_path() walks the paths as
 * queue-depth does and takes the cheapest at the current in-flight counts.
 */
#include <linux/blk-clat.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "nvme.h"

/* estimates are folded and prices made once per window */
#define NVME_LAT_WINDOW		msecs_to_jiffies(50)
/* estimates within 1/4 of the lowest are equal: compare requests in flight */
#define NVME_LAT_BAND_SHIFT	2
/* an estimate without samples for 4 windows is stale and gets probes */
#define NVME_LAT_STALE_WINDOWS	4
/* probes of a path that stays outside the band back off up to 16 windows */
#define NVME_LAT_MAX_BACKOFF	4
/* a failed attach is retried this much later */
#define NVME_LAT_RETRY_DELAY	HZ

/* head->lat_flags: the timer has stopped; the next I/O starts it */
#define NVME_LAT_IDLE		0
/* ... and its next run starts the silences afresh */
#define NVME_LAT_SLEPT		1
#define NVME_LAT_UNUSABLE	U8_MAX
/*
 * A price: floor_ns << 32 | per_req_ns, with the floor below 2^30 ns, a bit
 * for a pending probe and one for a member of the band.
 */
#define NVME_LAT_MAX_NS		(U32_MAX >> 2)
#define NVME_LAT_FLOOR		GENMASK_ULL(61, 32)
#define NVME_LAT_BAND		BIT_ULL(62)
#define NVME_LAT_PROBE		BIT_ULL(63)
/* a path not priced yet: dearer than every priced one */
#define NVME_LAT_UNPRICED	((u64)NVME_LAT_MAX_NS << 32)

/* one path, as the latency iopolicy prices it for one kind of I/O */
struct nvme_lat_in {
	u32 lat_ns;		/* estimate, 0 if none; a silent path's silence */
	u32 per_req_ns;		/* lat_ns / (mean in flight when measured + 1) */
	u8 tier;		/* 0 ANA optimized, 1 non-optimized, or unusable */
	bool stale;		/* no samples for a while: probe it */
	bool silent;		/* holds requests, has answered none for long */
};

/* the paths of the best tier whose estimates count as equal */
struct nvme_lat_band {
	u64 min_ns;		/* lowest estimate, 0 if none */
	u64 min_per_req_ns;	/* that path's per_req_ns */
	u64 band_ns;		/* upper end of the band */
	unsigned int nr;
	u8 tier;
	bool fresh;		/* an estimate had samples lately */
};

/* one path's price for one kind of I/O; the I/O reads @price only */
struct nvme_lat_slot {
	u64 price;
	u32 band_ns;		/* band at the last probe */
	u8 backoff;		/* probes 2^backoff windows apart */
	u8 wait;		/* windows until the next probe */
};

/* what the latency iopolicy keeps of one path */
struct nvme_lat {
	struct blk_clat *clat;
	unsigned long answered_jiffies;	/* last fold it answered or was idle */
	u32 inflight_x1024;		/* mean in flight x 1024 */
	u32 inflight;			/* in flight, as the timer read it */
	u8 tier;			/* ANA tier, likewise */
	struct nvme_lat_in in;		/* the timer's scratch */
	struct nvme_ns *ns;		/* while on a list to detach */
	struct list_head entry;
	struct nvme_lat_slot slot[2];	/* for reads and for writes */
};

/*
 * A price: the floor and the cost per request in flight, in ns.  The
 * cost of a path with n requests in flight is max(floor, per_req * (n + 1))
 * plus n ns, so that between equal prices the requests in flight decide, as
 * under queue-depth.
 */
static u64 nvme_lat_make_price(u64 floor_ns, u64 per_req_ns)
{
	return min(floor_ns, NVME_LAT_MAX_NS) << 32 | min(per_req_ns, U32_MAX);
}

static u64 nvme_lat_cost(u64 price, unsigned int inflight)
{
	u64 floor_ns = (price & NVME_LAT_FLOOR) >> 32;

	return max(floor_ns, lower_32_bits(price) * (inflight + 1ULL)) +
	       inflight;
}

/*
 * Take a path into the band of one kind of I/O (@b zeroed before the first):
 * the estimates of the best ANA tier up to 5/4 of its lowest.  A silent
 * path's estimate is a bound, not a measurement, and sets no band.  The band
 * is fresh if an estimate had samples lately: that kind of I/O is in use.
 */
static void nvme_lat_band_add(struct nvme_lat_band *b,
			      const struct nvme_lat_in *in)
{
	if (!b->nr || in->tier < b->tier) {
		b->tier = in->tier;
		b->min_ns = 0;
		b->fresh = false;
	}
	b->nr++;
	if (in->tier != b->tier || !in->lat_ns || in->silent)
		return;
	b->fresh |= !in->stale;
	if (b->min_ns && in->lat_ns >= b->min_ns)
		return;
	b->min_ns = in->lat_ns;
	b->min_per_req_ns = in->per_req_ns;
	b->band_ns = b->min_ns + (b->min_ns >> NVME_LAT_BAND_SHIFT);
}

/*
 * A path's price against the band.  Band members and paths without an
 * estimate share one price, so that their requests in flight decide as
 * under queue-depth; an idle one of them is the cheapest path.  A path
 * outside the band costs its own estimate per request in flight, never less
 * than the band's upper end: it takes only the load past that.  A silent
 * path costs at least its silence.  Paths of every ANA tier are priced, so
 * that none is free when its state changes.
 */
static u64 nvme_lat_price(const struct nvme_lat_band *b,
			  const struct nvme_lat_in *in)
{
	if (!b->min_ns)
		return NVME_LAT_BAND;
	if (in->silent)
		return nvme_lat_make_price(max(b->band_ns, in->lat_ns),
					   in->per_req_ns);
	if (in->lat_ns > b->band_ns)
		return nvme_lat_make_price(b->band_ns, in->per_req_ns);
	return nvme_lat_make_price(b->min_ns, b->min_per_req_ns) | NVME_LAT_BAND;
}

/* A path's state before its first window: not priced, silent from now on */
static struct nvme_lat *nvme_lat_alloc(void)
{
	struct nvme_lat *lat = kzalloc_obj(*lat);

	if (!lat)
		return NULL;
	lat->slot[0].price = NVME_LAT_UNPRICED;
	lat->slot[1].price = NVME_LAT_UNPRICED;
	lat->answered_jiffies = jiffies;
	return lat;
}

/*
 * A new path starts at the lowest price of the others, @from one of them:
 * its first window, without an estimate, puts it in the band.
 */
static void nvme_lat_start_prices(struct nvme_lat *lat,
				  const struct nvme_lat *from)
{
	unsigned int i;
	u64 price;

	for (i = 0; i < ARRAY_SIZE(lat->slot); i++) {
		price = READ_ONCE(from->slot[i].price) & ~NVME_LAT_PROBE;
		if ((price & NVME_LAT_FLOOR) <
		    (lat->slot[i].price & NVME_LAT_FLOOR))
			lat->slot[i].price = price;
	}
}

static u8 nvme_lat_tier(struct nvme_ns *ns)
{
	if (nvme_path_is_disabled(ns) || (ns->ana_state != NVME_ANA_OPTIMIZED &&
					  ns->ana_state != NVME_ANA_NONOPTIMIZED))
		return NVME_LAT_UNUSABLE;
	return ns->ana_state == NVME_ANA_NONOPTIMIZED;
}

/*
 * Fold a path's estimator; true if it had samples.  Their summed latency
 * over the window is the mean number of requests in flight (Little's law).
 */
static bool nvme_lat_fold_path(struct nvme_lat *lat, unsigned int inflight,
			       unsigned int windows, u64 elapsed_ns,
			       unsigned long now)
{
	u64 nr_done, busy_ns = blk_clat_fold(lat->clat, windows, &nr_done);
	u32 mean_x1024;

	/* silence counts from the last fold that saw it answer or idle */
	if (busy_ns || !inflight)
		lat->answered_jiffies = now;
	if (!busy_ns)
		return false;
	/* a sample's whole latency counts in the window it completes in */
	mean_x1024 = min3(div64_u64(busy_ns << 10, elapsed_ns),
			  (nr_done + inflight) << 10, U16_MAX << 10);
	lat->inflight_x1024 -= lat->inflight_x1024 >> 2;
	lat->inflight_x1024 += mean_x1024 >> 2;
	return true;
}

/*
 * What pricing needs of a path for reads or for @write.  A path that holds
 * requests and has answered none for longer than its estimate and a window
 * is silent.
 */
static void nvme_lat_input(const struct nvme_lat *lat, u8 tier,
			   unsigned int inflight, bool write, unsigned long now,
			   struct nvme_lat_in *in)
{
	struct blk_clat_est est = blk_clat_read(lat->clat, write);
	unsigned long silent = now - READ_ONCE(lat->answered_jiffies);
	/* past any estimate (< 4.3 s), short of jiffies_to_nsecs()'s wrap */
	u64 silent_ns = jiffies_to_nsecs(min(silent, 5UL * HZ));

	in->tier = tier;
	in->stale = est.age >= NVME_LAT_STALE_WINDOWS;
	in->silent = inflight &&
		     silent_ns > max_t(u64, est.lat_ns,
				       jiffies_to_nsecs(NVME_LAT_WINDOW));
	in->lat_ns = in->silent ? min(silent_ns, NVME_LAT_MAX_NS) : est.lat_ns;
	in->per_req_ns = div_u64((u64)in->lat_ns << 10,
				 lat->inflight_x1024 + 1024);
}

/*
 * Whether a stale path that answers gets a probe in this window.  The
 * interval doubles while probes find the path outside the band, and ends
 * once it is in the band or the band has more than doubled.
 */
static bool nvme_lat_probe(struct nvme_lat_slot *s,
			   const struct nvme_lat_in *in,
			   const struct nvme_lat_band *b)
{
	bool outside = b->min_ns && in->lat_ns > b->band_ns;

	if (!outside || b->band_ns > 2ULL * s->band_ns) {
		s->backoff = 0;
		s->wait = 0;
	}
	if (s->wait) {
		s->wait--;
		return false;
	}
	if (!b->fresh || !in->stale || in->silent || in->tier != b->tier ||
	    in->tier == NVME_LAT_UNUSABLE)
		return false;
	s->wait = (1 << s->backoff) - 1;
	s->band_ns = min(b->band_ns, U32_MAX);
	if (outside && s->backoff < NVME_LAT_MAX_BACKOFF)
		s->backoff++;
	return true;
}

/*
 * Publish a price; a probe stays pending until an I/O claims it or @drop
 * (its path is silent or left the band's ANA tier).  Returns true if one is
 * pending.
 */
static bool nvme_lat_publish(struct nvme_lat_slot *s, u64 price, bool probe,
			     bool drop)
{
	u64 old = READ_ONCE(s->price);

	if (probe || ((old & NVME_LAT_PROBE) && !drop))
		price |= NVME_LAT_PROBE;
	if (try_cmpxchg(&s->price, &old, price))
		return price & NVME_LAT_PROBE;
	/* an I/O has claimed the probe meanwhile: no second one */
	WRITE_ONCE(s->price, price & ~NVME_LAT_PROBE);
	return false;
}

/*
 * Publish @lat's price for @write against the band @b, its inputs in lat->in.
 * Returns true if a probe is pending.
 */
static bool nvme_lat_price_path(struct nvme_lat *lat,
				const struct nvme_lat_band *b, bool write)
{
	struct nvme_lat_slot *s = &lat->slot[write];
	bool probe = nvme_lat_probe(s, &lat->in, b);

	return nvme_lat_publish(s, nvme_lat_price(b, &lat->in), probe,
				lat->in.silent || lat->in.tier != b->tier);
}

/* Price every path of @head for reads or for @write, under head->srcu. */
static int nvme_lat_price_head(struct nvme_ns_head *head, bool write,
			       unsigned long now)
{
	int probes = 0;
	struct nvme_lat_band b = { };
	struct nvme_lat *lat;
	struct nvme_ns *ns;

	list_for_each_entry_srcu(ns, &head->list, siblings,
				 srcu_read_lock_held(&head->srcu)) {
		lat = srcu_dereference(ns->lat, &head->srcu);
		if (lat) {
			nvme_lat_input(lat, lat->tier, lat->inflight, write,
				       now, &lat->in);
			nvme_lat_band_add(&b, &lat->in);
		}
	}
	list_for_each_entry_srcu(ns, &head->list, siblings,
				 srcu_read_lock_held(&head->srcu)) {
		lat = srcu_dereference(ns->lat, &head->srcu);
		if (lat)
			probes += nvme_lat_price_path(lat, &b, write);
	}
	return probes;
}

/*
 * Once per window while the head has requests in flight or had some in the
 * window: fold its estimators and price its paths.  It stops otherwise,
 * until nvme_latency_path() wakes it.
 */
static void nvme_lat_timer(struct timer_list *t)
{
	struct nvme_ns_head *head = timer_container_of(head, t, lat_timer);
	unsigned long now = jiffies, win = NVME_LAT_WINDOW;
	unsigned long since = now - head->lat_fold_jiffies;
	u64 elapsed_ns = jiffies_to_nsecs(clamp(since, 1UL, win));
	bool slept = test_and_clear_bit(NVME_LAT_SLEPT, &head->lat_flags);
	bool busy = false, any = false;
	struct nvme_lat *lat;
	struct nvme_ns *ns;
	int srcu_idx, probes = 0, nr = 0;

	head->lat_fold_jiffies = now;
	srcu_idx = srcu_read_lock(&head->srcu);
	list_for_each_entry_srcu(ns, &head->list, siblings,
				 srcu_read_lock_held(&head->srcu)) {
		nr++;
		lat = srcu_dereference(ns->lat, &head->srcu);
		if (!lat)
			continue;
		/* idle until the I/O that started the timer a window ago */
		if (slept)
			lat->answered_jiffies = now - win;
		lat->tier = nvme_lat_tier(ns);
		lat->inflight = atomic_read(&ns->lat_nr_active);
		/* without iostats a path gives no samples: it never reads silent */
		busy |= nvme_lat_fold_path(lat, blk_queue_io_stat(ns->queue) ?
					   lat->inflight : 0,
					   max(since / win, 1UL), elapsed_ns,
					   now);
		busy |= lat->inflight != 0;
		any = true;
	}
	if (any)
		probes = nvme_lat_price_head(head, false, now) +
			 nvme_lat_price_head(head, true, now);
	srcu_read_unlock(&head->srcu, srcu_idx);
	atomic_set(&head->lat_probes, probes);

	/* detached: nothing to fold until the work attaches again */
	if (!any)
		return;
	/* a head left with one path: the work detaches its estimator */
	if (nr < 2)
		nvme_latency_kick(head, 0);
	if (busy) {
		mod_timer(&head->lat_timer, now + win);
	} else {
		set_bit(NVME_LAT_SLEPT, &head->lat_flags);
		set_bit(NVME_LAT_IDLE, &head->lat_flags);
	}
}

/*
 * Of the I/Os that find a probe pending, the first that gives a latency
 * sample sends it, if the path is usable.  Out of line: probes are rare.
 */
static noinline bool nvme_lat_claim_probe(struct nvme_ns *ns, struct bio *bio,
					  struct nvme_lat_slot *s, u64 price)
{
	if (!bio || !bio->bi_iter.bi_size ||
	    (bio_op(bio) != REQ_OP_READ && bio_op(bio) != REQ_OP_WRITE) ||
	    nvme_lat_tier(ns) == NVME_LAT_UNUSABLE ||
	    !try_cmpxchg(&s->price, &price, price & ~NVME_LAT_PROBE))
		return false;
	atomic_dec(&ns->head->lat_probes);
	return true;
}

/**
 * nvme_latency_path - the path for one I/O under the latency iopolicy
 * @head: the namespace head
 * @bio: the I/O, or NULL for a caller that sends none (ioctl, PR, zone
 *	report): it gets a path but never takes a probe, nor does an I/O
 *	that gives no latency sample (flush, discard, write zeroes)
 *
 * Walks the paths as queue-depth does and takes, of the best ANA state, the
 * one with the lowest nvme_lat_cost() for the I/O's direction; the first on
 * ties.  It stops at an idle optimized path of the band unless a probe is
 * pending: a path with one for that kind of I/O takes the I/O.
 *
 * Context: under head->srcu.
 * Return: the path, or NULL if none is usable.
 */
struct nvme_ns *nvme_latency_path(struct nvme_ns_head *head, struct bio *bio)
	__must_hold_shared(&head->srcu)
{
	struct nvme_ns *ns, *best_opt = NULL, *best_nonopt = NULL;
	u64 cost, min_opt = U64_MAX, min_nonopt = U64_MAX, price;
	/* a flush goes where the writes it follows go */
	bool write = bio && (op_is_write(bio_op(bio)) ||
			     !bio->bi_iter.bi_size);
	unsigned int inflight;
	struct nvme_lat *lat;

	if (unlikely(test_bit(NVME_LAT_IDLE, &head->lat_flags)) &&
	    test_and_clear_bit(NVME_LAT_IDLE, &head->lat_flags))
		mod_timer(&head->lat_timer, jiffies + NVME_LAT_WINDOW);
	list_for_each_entry_srcu(ns, &head->list, siblings,
				 srcu_read_lock_held(&head->srcu)) {
		if (nvme_path_is_disabled(ns))
			continue;
		lat = srcu_dereference(ns->lat, &head->srcu);
		price = lat ? READ_ONCE(lat->slot[write].price) :
			      NVME_LAT_UNPRICED;
		if (unlikely(price & NVME_LAT_PROBE) &&
		    nvme_lat_claim_probe(ns, bio, &lat->slot[write], price))
			return ns;
		inflight = atomic_read(&ns->lat_nr_active);
		cost = nvme_lat_cost(price, inflight);
		switch (ns->ana_state) {
		case NVME_ANA_OPTIMIZED:
			if (cost < min_opt) {
				min_opt = cost;
				best_opt = ns;
			}
			if (!inflight && (price & NVME_LAT_BAND) &&
			    !atomic_read(&head->lat_probes))
				return ns;
			break;
		case NVME_ANA_NONOPTIMIZED:
			if (cost < min_nonopt) {
				min_nonopt = cost;
				best_nonopt = ns;
			}
			break;
		default:
			break;
		}
	}
	return best_opt ? best_opt : best_nonopt;
}

/* A path's state for reads, as the timer would find it now. */
static const char *nvme_lat_state(const struct nvme_lat *lat,
				  unsigned int inflight)
{
	struct nvme_lat_in in;

	if (!lat)
		return "none";
	nvme_lat_input(lat, 0, inflight, false, jiffies, &in);
	if (in.silent)
		return "silent";
	if (!in.stale)
		return "fresh";
	return READ_ONCE(lat->slot[0].backoff) ? "backed-off" : "stale";
}

/* As Documentation/ABI/testing/sysfs-nvme says; empty under other iopolicies */
static ssize_t latency_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct nvme_ns *ns = nvme_get_ns_from_dev(dev);
	unsigned int inflight = atomic_read(&ns->lat_nr_active);
	struct nvme_ns_head *head = ns->head;
	char est_us[2][12];
	struct nvme_lat *lat;
	unsigned int i;
	int srcu_idx;
	ssize_t len;
	u32 lat_ns;

	if (READ_ONCE(head->subsys->iopolicy) != NVME_IOPOLICY_LAT)
		return 0;
	srcu_idx = srcu_read_lock(&head->srcu);
	lat = srcu_dereference(ns->lat, &head->srcu);
	for (i = 0; i < ARRAY_SIZE(est_us); i++) {
		lat_ns = lat ? blk_clat_read(lat->clat, i).lat_ns : 0;
		if (lat_ns)
			snprintf(est_us[i], sizeof(est_us[i]), "%u",
				 DIV_ROUND_CLOSEST(lat_ns, 1000U));
		else
			strscpy(est_us[i], "-");
	}
	len = sysfs_emit(buf, "read %s write %s inflight %u %s\n", est_us[0],
			 est_us[1], inflight, nvme_lat_state(lat, inflight));
	srcu_read_unlock(&head->srcu, srcu_idx);
	return len;
}
DEVICE_ATTR_RO(latency);

/* Attach an estimator to @ns; returns -errno if a retry may help, else 0. */
static int nvme_lat_attach(struct nvme_ns *ns)
{
	struct nvme_ns_head *head = ns->head;
	struct nvme_lat *lat, *other;
	struct nvme_ns *sibling;
	int srcu_idx;

	lat = nvme_lat_alloc();
	if (!lat)
		return -ENOMEM;
	lat->clat = blk_clat_attach(ns->disk);
	if (IS_ERR(lat->clat)) {
		int ret = PTR_ERR(lat->clat);

		kfree(lat);
		/* a disk not added yet is kicked again when it is */
		return ret == -ENODEV ? 0 : ret;
	}
	srcu_idx = srcu_read_lock(&head->srcu);
	list_for_each_entry_srcu(sibling, &head->list, siblings,
				 srcu_read_lock_held(&head->srcu)) {
		other = srcu_dereference(sibling->lat, &head->srcu);
		if (other)
			nvme_lat_start_prices(lat, other);
	}
	srcu_read_unlock(&head->srcu, srcu_idx);
	rcu_assign_pointer(ns->lat, lat);
	/* the first I/O starts the timer */
	set_bit(NVME_LAT_SLEPT, &head->lat_flags);
	set_bit(NVME_LAT_IDLE, &head->lat_flags);
	return 0;
}

/* Unpublish the estimators, wait for the submitters and the timer, detach. */
static void nvme_lat_detach_all(struct nvme_ns_head *head)
{
	struct nvme_lat *lat, *tmp;
	struct nvme_ns *ns;
	LIST_HEAD(list);
	int srcu_idx;

	srcu_idx = srcu_read_lock(&head->srcu);
	list_for_each_entry_srcu(ns, &head->list, siblings,
				 srcu_read_lock_held(&head->srcu)) {
		if (!rcu_access_pointer(ns->lat) || !nvme_get_ns(ns))
			continue;
		lat = rcu_replace_pointer(ns->lat, NULL, true);
		lat->ns = ns;
		list_add(&lat->entry, &list);
	}
	srcu_read_unlock(&head->srcu, srcu_idx);
	if (list_empty(&list))
		return;
	synchronize_srcu(&head->srcu);
	list_for_each_entry_safe(lat, tmp, &list, entry) {
		blk_clat_detach(lat->ns->disk);
		nvme_put_ns(lat->ns);
		kfree(lat);
	}
}

/* Whether @head wants estimators, and one path without one, referenced. */
static struct nvme_ns *nvme_lat_next(struct nvme_ns_head *head, bool *want)
{
	struct nvme_ns *ns, *next = NULL;
	int srcu_idx, nr = 0;

	srcu_idx = srcu_read_lock(&head->srcu);
	list_for_each_entry_srcu(ns, &head->list, siblings,
				 srcu_read_lock_held(&head->srcu))
		nr++;
	*want = nr > 1 &&
		READ_ONCE(head->subsys->iopolicy) == NVME_IOPOLICY_LAT;
	list_for_each_entry_srcu(ns, &head->list, siblings,
				 srcu_read_lock_held(&head->srcu)) {
		if (!*want || rcu_access_pointer(ns->lat) ||
		    ns->lat_tried == head->lat_seq || !nvme_get_ns(ns))
			continue;
		ns->lat_tried = head->lat_seq;
		next = ns;
		break;
	}
	srcu_read_unlock(&head->srcu, srcu_idx);
	return next;
}

/*
 * A head whose subsystem uses the latency iopolicy and that has more than
 * one path gets an estimator on each path; other heads get none.  Attach and
 * detach freeze the path queue, so they run here with a reference on the
 * path and no SRCU read lock held.  A path disk that is being deleted gets
 * no estimator (blk_clat_attach()), and del_gendisk() frees one only after
 * the path has left head->list and the SRCU grace period that follows: the
 * timer and the submitters never see a freed one.  Each run drops the head
 * reference that nvme_latency_kick() queued it with.
 */
static void nvme_latency_work(struct work_struct *work)
{
	struct nvme_ns_head *head =
		container_of(to_delayed_work(work), struct nvme_ns_head, lat_work);
	bool want, retry = false;
	struct nvme_ns *ns;

	head->lat_seq++;
	while ((ns = nvme_lat_next(head, &want))) {
		retry |= nvme_lat_attach(ns) < 0;
		nvme_put_ns(ns);
	}
	if (!want) {
		nvme_lat_detach_all(head);
		clear_bit(NVME_LAT_IDLE, &head->lat_flags);
		timer_delete_sync(&head->lat_timer);
	}
	if (retry) {
		dev_warn_ratelimited(disk_to_dev(head->disk),
				     "latency estimator not attached, retrying\n");
		nvme_latency_kick(head, NVME_LAT_RETRY_DELAY);
	}
	/* the references this run was queued with; @head may go with them */
	nvme_put_ns_head(head);
	module_put(THIS_MODULE);
}

/**
 * nvme_latency_kick - run a head's latency work
 * @head: the namespace head, with a disk
 * @delay: jiffies from now; 0 also runs a pending retry at once
 *
 * Each queued run holds a reference on @head and, as remove_work does, on
 * this module: nothing has to cancel it.
 */
void nvme_latency_kick(struct nvme_ns_head *head, unsigned long delay)
{
	bool pending;

	if (!nvme_tryget_ns_head(head))
		return;
	if (!try_module_get(THIS_MODULE)) {
		nvme_put_ns_head(head);
		return;
	}
	if (delay)
		pending = !queue_delayed_work(nvme_wq, &head->lat_work, delay);
	else
		pending = mod_delayed_work(nvme_wq, &head->lat_work, 0);
	if (pending) {
		nvme_put_ns_head(head);
		module_put(THIS_MODULE);
	}
}

/**
 * nvme_latency_init - set up a head for the latency iopolicy
 * @head: the namespace head
 */
void nvme_latency_init(struct nvme_ns_head *head)
{
	INIT_DELAYED_WORK(&head->lat_work, nvme_latency_work);
	timer_setup(&head->lat_timer, nvme_lat_timer, 0);
}

/**
 * nvme_latency_free_path - free what a path kept for the latency iopolicy
 * @ns: the path, with no references left; its disk freed the estimator
 */
void nvme_latency_free_path(struct nvme_ns *ns)
{
	kfree(rcu_access_pointer(ns->lat));
}

#ifdef CONFIG_NVME_LATENCY_KUNIT_TEST
#include "mpath-latency-test.c"
#endif
