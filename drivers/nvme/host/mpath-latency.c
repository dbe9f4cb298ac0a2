// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe multipath "latency" iopolicy: each I/O goes to the usable path with
 * the lowest expected completion latency.  The estimates come from the
 * blk-clat rq_qos, which the policy attaches to every path queue of a
 * subsystem while the subsystem uses the policy, and removes again when it
 * switches away.
 */
#include <linux/blk-clat.h>
#include <linux/percpu.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/sysfs.h>
#include <kunit/visibility.h>

#include "nvme.h"
#include "trace.h"

/* a path whose estimator could not be attached is retried this much later */
#define NVME_LAT_RETRY_DELAY	HZ

/* where exact ties start, so that they rotate; per CPU, no shared writes */
static DEFINE_PER_CPU(unsigned int, nvme_lat_rotor);

/**
 * struct nvme_lat_plan_slot - where a head keeps its plan for one blk-clat key
 * @lock: taken with trylock by the one CPU that remakes the plan
 * @seq: lets the node's CPUs copy @plan without the lock
 * @plan: the plan for I/O of this key (node, direction, size class)
 */
struct nvme_lat_plan_slot {
	spinlock_t lock;	/* a writer of @plan; readers never take it */
	seqcount_spinlock_t seq;
	struct nvme_lat_plan plan;
};

static_assert(MAX_NUMNODES * BLK_CLAT_KEYS_PER_NODE < U16_MAX);

/*
 * A path that holds requests and has ended none for two jiffies or more:
 * nvme_lat_path_set() may price it at its silence.  busy_jiffies may be
 * a jiffy late, and may be ahead of a CPU whose jiffies lags.
 */
VISIBLE_IF_KUNIT bool nvme_lat_quiet(unsigned int inflight,
				     unsigned long busy_jiffies,
				     unsigned long now)
{
	return inflight && (long)(now - busy_jiffies) >= 2;
}
EXPORT_SYMBOL_IF_KUNIT(nvme_lat_quiet);

/* The estimates within @band_x1024 / 1024 of @min_lat count as equal to it. */
static u64 nvme_lat_band(u32 min_lat, u32 band_x1024)
{
	return (u64)min_lat + (((u64)min_lat * band_x1024) >> 10);
}

/* The @j-th of @nr paths in the order that starts at @start (below @nr). */
static int nvme_lat_nth(int start, int j, int nr)
{
	return start + j < nr ? start + j : start + j - nr;
}

/* A measured estimate sets the band; a silent path's bound does not */
static bool nvme_lat_sets_band(const struct nvme_lat_path *p)
{
	return p->lat_ns && !p->silent;
}

/*
 * A band member's rank on exact ties of requests in flight: a measured
 * estimate by its value, then no estimate, then a silent path.
 */
static u64 nvme_lat_tie(const struct nvme_lat_path *p)
{
	if (nvme_lat_sets_band(p))
		return p->lat_ns;
	return (u64)U32_MAX + (p->silent ? p->lat_ns : 0);
}

/* Latency of one more I/O on a path, if its latency grows with its load. */
static u64 nvme_lat_load_ns(const struct nvme_lat_path *p)
{
	return (u64)p->per_inflight_ns * ((u32)p->inflight + 1);
}

/**
 * nvme_lat_choose - the latency iopolicy's decision
 * @p: the candidate paths, in the namespace head's list order
 * @nr: number of entries in @p, at most %NVME_LAT_MAX_PATHS
 * @rotor: index at which ties start, so that they rotate
 * @band_x1024: the band's width, in 1/1024 of the lowest estimate
 *	(subsystem attribute latency_band_pct; %NVME_LAT_DEF_BAND_X1024, 1/4,
 *	by default)
 *
 * Only paths of the best ANA tier that @p holds take part.  A path with a
 * probe due wins first.  Otherwise the estimates are compared: the paths
 * whose estimate is within @band_x1024 of the lowest form the band, and of those
 * the one with the fewest requests in flight wins (then the lower
 * estimate, then the first from @rotor on).  A path outside the band wins
 * only if it is cheaper at the current loads, where the band's winner
 * costs max(lat_ns, per_inflight_ns * (inflight + 1)), its estimate raised
 * when it carries more than it was measured at, and a path outside costs
 * max(band, per_inflight_ns * (inflight + 1)): it is never priced below
 * the band, but its price falls with its load.  A path without an estimate
 * is in the band and comes after the measured members on exact ties: it
 * takes I/O when it holds fewer requests than they do, so at one request in
 * flight only its probes until it has an estimate.  A silent path's estimate
 * is a bound, not a measurement: it sets no band and comes last on ties, so
 * that it cannot keep the paths without an estimate out.
 *
 * Context: any; pure function of its arguments.
 * Return: an index into @p, or -1 if no path is usable.
 */
VISIBLE_IF_KUNIT int nvme_lat_choose(const struct nvme_lat_path *p, int nr,
				     unsigned int rotor, u32 band_x1024)
{
	int i, j, best = -1, other = -1, probe = -1;
	u8 tier = NVME_LAT_UNUSABLE;
	u32 min_lat = U32_MAX;
	u64 band, cost, other_cost = U64_MAX, tie, best_tie = U64_MAX;

	nr = min(nr, NVME_LAT_MAX_PATHS);
	if (nr <= 0)
		return -1;
	rotor %= nr;

	/* the best tier, its lowest estimate and its first probe from @rotor */
	for (j = 0; j < nr; j++) {
		i = nvme_lat_nth(rotor, j, nr);
		if (p[i].tier > tier)
			continue;
		if (p[i].tier < tier) {
			tier = p[i].tier;
			min_lat = U32_MAX;
			probe = -1;
		}
		if (nvme_lat_sets_band(&p[i]))
			min_lat = min(min_lat, p[i].lat_ns);
		if (p[i].probe && probe < 0)
			probe = i;
	}
	if (tier == NVME_LAT_UNUSABLE)
		return -1;
	if (probe >= 0)
		return probe;

	/* no estimates (min_lat U32_MAX): every path is in the band */
	band = nvme_lat_band(min_lat, band_x1024);

	/*
	 * Similar estimates: compare outstanding I/O.  Really different ones:
	 * the cheapest path outside the band at the current loads.
	 */
	for (j = 0; j < nr; j++) {
		i = nvme_lat_nth(rotor, j, nr);
		if (p[i].tier != tier)
			continue;
		if (!p[i].lat_ns || p[i].lat_ns <= band) {
			tie = nvme_lat_tie(&p[i]);
			if (best < 0 || p[i].inflight < p[best].inflight ||
			    (p[i].inflight == p[best].inflight &&
			     tie < best_tie)) {
				best = i;
				best_tie = tie;
			}
		} else {
			cost = max(band, nvme_lat_load_ns(&p[i]));
			if (cost < other_cost) {
				other_cost = cost;
				other = i;
			}
		}
	}
	if (other >= 0 &&
	    other_cost < max_t(u64, p[best].lat_ns, nvme_lat_load_ns(&p[best])))
		return other;
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(nvme_lat_choose);

/**
 * nvme_lat_probe_due - whether a path's probe slot is free
 * @next_jiffies: the path's next probe time
 * @now: the time in jiffies
 *
 * The slot is taken while @next_jiffies lies ahead of @now by at most
 * %NVME_LAT_PROBE_MAX_JIFFIES, the longest interval nvme_lat_claim_probe()
 * sets; any other distance is a time in the past, however long ago, so
 * that a path last probed more than 2^31 jiffies ago is probed at once.
 *
 * Return: true if the path may be probed.
 */
VISIBLE_IF_KUNIT bool nvme_lat_probe_due(unsigned long next_jiffies,
					 unsigned long now)
{
	return next_jiffies - now - 1 >= NVME_LAT_PROBE_MAX_JIFFIES;
}
EXPORT_SYMBOL_IF_KUNIT(nvme_lat_probe_due);

/**
 * nvme_lat_path_set - fill in one path's input to nvme_lat_choose()
 * @p: the entry to fill in
 * @est: the path's estimate for this I/O, from blk_clat_read()
 * @inflight: requests in flight on the path (this namespace's)
 * @busy_jiffies: when the path last ended a request or went busy, jiffies
 * @tier: 0 for ANA optimized, 1 for non-optimized, %NVME_LAT_UNUSABLE
 * @probe: the path's probe slot
 * @now: the time in jiffies
 * @may_probe: the caller sends I/O that yields a sample (a read or write
 *	with data), so it can serve as a probe
 *
 * A path that holds requests and has ended none for longer than its
 * estimate (and two jiffies at least) takes at least that long now: its
 * estimate and its estimate per request in flight are raised to that
 * silence, so that the requests it holds push new I/O away from it as they
 * would under queue-depth.  Such a path is not probed either, so that
 * probes cannot pile up in a path that does not answer.  Probes are a
 * window apart, or an estimated latency apart on a path slower than that,
 * and the interval doubles while the path's probes find it outside the
 * band (nvme_lat_select()).
 *
 * Context: any.
 */
VISIBLE_IF_KUNIT void nvme_lat_path_set(struct nvme_lat_path *p,
					const struct blk_clat_estimate *est,
					unsigned int inflight,
					unsigned long busy_jiffies, u8 tier,
					const struct nvme_lat_probe *probe,
					unsigned long now, bool may_probe)
{
	unsigned long quiet = now - busy_jiffies;
	u32 silent_ns = 0;

	p->lat_ns = est->lat_ns;
	p->per_inflight_ns = est->lat_per_inflight_ns;
	p->inflight = min(inflight, U16_MAX);
	p->tier = tier;
	/* a lower bound of the silence: busy_jiffies may be a jiffy late */
	if (unlikely(nvme_lat_quiet(inflight, busy_jiffies, now))) {
		quiet = min_t(unsigned long, quiet - 1, 5 * HZ);
		silent_ns = min_t(u64, jiffies_to_nsecs(quiet), U32_MAX);
		if (silent_ns > p->lat_ns) {
			p->lat_ns = silent_ns;
			p->per_inflight_ns = max(p->per_inflight_ns, silent_ns);
		} else {
			silent_ns = 0;
		}
	}
	p->silent = silent_ns != 0;
	p->stale = est->stale;
	p->probe = may_probe && est->stale && !silent_ns &&
		   tier != NVME_LAT_UNUSABLE &&
		   nvme_lat_probe_due(READ_ONCE(probe->next_jiffies), now);
	p->win_jiffies = max_t(unsigned long, est->win_jiffies, 1);
	if (p->probe)
		p->win_jiffies = max_t(unsigned long, p->win_jiffies,
				       nsecs_to_jiffies(est->lat_ns));
}
EXPORT_SYMBOL_IF_KUNIT(nvme_lat_path_set);

/**
 * nvme_lat_claim_probe - take a path's probe slot
 * @probe: the path's probe slot
 * @now: the time in jiffies
 * @interval: jiffies until the next probe, before back-off
 * @outside: the path was outside the band when its probe was chosen
 *
 * Of the CPUs that find a probe due at the same time, exactly one wins.
 * The winner doubles the path's interval (up to 2^%NVME_LAT_PROBE_MAX_BACKOFF
 * times @interval and at most %NVME_LAT_PROBE_MAX_JIFFIES) when @outside,
 * and resets it otherwise, and counts the probe in @probe->probes.
 *
 * Context: any.
 * Return: true if the caller may send the probe.
 */
VISIBLE_IF_KUNIT bool nvme_lat_claim_probe(struct nvme_lat_probe *probe,
					   unsigned long now,
					   unsigned long interval, bool outside)
{
	unsigned long old = READ_ONCE(probe->next_jiffies);
	unsigned int backoff = READ_ONCE(probe->backoff);

	if (!nvme_lat_probe_due(old, now))
		return false;
	backoff = outside ? min(backoff + 1, NVME_LAT_PROBE_MAX_BACKOFF) : 0;
	interval = min(interval, NVME_LAT_PROBE_MAX_JIFFIES) << backoff;
	interval = clamp(interval, 1UL, NVME_LAT_PROBE_MAX_JIFFIES);
	if (!try_cmpxchg(&probe->next_jiffies, &old, now + interval))
		return false;
	WRITE_ONCE(probe->backoff, backoff);
	WRITE_ONCE(probe->probes, probe->probes + 1);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(nvme_lat_claim_probe);

/*
 * A path whose probe slot is backed off was chosen in the band on a fresh
 * estimate: a probe has found it good again, from this node or another.
 * Its back-off ends, and its next probe, for a node whose estimate is still
 * stale, comes within @interval.
 */
static void nvme_lat_end_backoff(struct nvme_lat_probe *probe,
				 unsigned long now, unsigned long interval)
{
	unsigned long next = READ_ONCE(probe->next_jiffies);

	WRITE_ONCE(probe->backoff, 0);
	if (!nvme_lat_probe_due(next, now) && next - now > interval)
		try_cmpxchg(&probe->next_jiffies, &next, now + interval);
}

/* The lowest measured estimate of the paths of @i's tier but @i, or U32_MAX */
static u32 nvme_lat_others_min(const struct nvme_lat_path *p, int nr, int i)
{
	u32 min_lat = U32_MAX;
	int j;

	for (j = 0; j < nr; j++)
		if (j != i && p[j].tier == p[i].tier &&
		    nvme_lat_sets_band(&p[j]))
			min_lat = min(min_lat, p[j].lat_ns);
	return min_lat;
}

/* @p's estimate is outside the band of @others_ns (nvme_lat_others_min()) */
static bool nvme_lat_outside(const struct nvme_lat_path *p, u32 others_ns,
			     u32 band_x1024)
{
	return p->lat_ns && others_ns != U32_MAX &&
	       p->lat_ns > nvme_lat_band(others_ns, band_x1024);
}

/* @i's estimate is outside the band of the other paths of its tier */
static bool nvme_lat_outside_band(const struct nvme_lat_path *p, int nr, int i,
				  u32 band_x1024)
{
	return nvme_lat_outside(&p[i], nvme_lat_others_min(p, nr, i),
				band_x1024);
}

/*
 * @i, chosen on a fresh measured estimate, is now more than twice as slow
 * as the estimate whose band a backed-off path of its tier was last found
 * outside of: the back-off of that path ends, so that a move of the delay
 * from it to @i is seen within a window, not a backed-off interval.
 */
static void nvme_lat_band_rose(const struct nvme_lat_path *p,
			       struct nvme_lat_probe *const *probe, int nr,
			       int i, unsigned long now)
{
	u32 ref_ns;
	int j;

	for (j = 0; j < nr; j++) {
		if (j == i || p[j].tier != p[i].tier ||
		    likely(!READ_ONCE(probe[j]->backoff)))
			continue;
		ref_ns = READ_ONCE(probe[j]->band_ns);
		if (ref_ns && p[i].lat_ns / 2 > ref_ns)
			nvme_lat_end_backoff(probe[j], now, p[j].win_jiffies);
	}
}

/**
 * nvme_lat_select - decide, and claim the probe slot if the choice is a probe
 * @p: the paths, filled in with nvme_lat_path_set()
 * @probe: each path's probe slot
 * @nr: number of paths
 * @now: the time in jiffies
 * @rotor: index at which ties start
 * @band_x1024: the band's width, as for nvme_lat_choose()
 *
 * A path chosen in the band on a fresh estimate while its probe slot is
 * backed off ends the back-off (nvme_lat_end_backoff()).  A backed-off
 * path of its tier ends its back-off too when the chosen path's estimate is
 * more than twice the others' lowest estimate at that path's last probe
 * (nvme_lat_band_rose()).
 *
 * Context: any; @p is modified.
 * Return: an index into @p, or -1 if no path is usable.
 */
VISIBLE_IF_KUNIT int nvme_lat_select(struct nvme_lat_path *p,
				     struct nvme_lat_probe *const *probe,
				     int nr, unsigned long now,
				     unsigned int rotor, u32 band_x1024)
{
	u32 others_ns;
	bool outside;
	int i;

	for (;;) {
		i = nvme_lat_choose(p, nr, rotor, band_x1024);
		if (i < 0)
			return i;
		if (!p[i].probe) {
			if (p[i].stale)
				return i;
			if (unlikely(READ_ONCE(probe[i]->backoff)) &&
			    !nvme_lat_outside_band(p, nr, i, band_x1024))
				nvme_lat_end_backoff(probe[i], now,
						     p[i].win_jiffies);
			if (nvme_lat_sets_band(&p[i]))
				nvme_lat_band_rose(p, probe, nr, i, now);
			return i;
		}
		others_ns = nvme_lat_others_min(p, nr, i);
		outside = nvme_lat_outside(&p[i], others_ns, band_x1024);
		if (nvme_lat_claim_probe(probe[i], now, p[i].win_jiffies,
					 outside)) {
			if (outside)
				WRITE_ONCE(probe[i]->band_ns, others_ns);
			return i;
		}
		/* another CPU probes it in this window */
		p[i].probe = false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(nvme_lat_select);

/**
 * nvme_lat_plan_make - the plan of a decision, for reuse in its jiffy
 * @plan: filled in, but for @plan->nr_active, which the caller fills in
 *	from @plan->idx
 * @p: the decision's input, as nvme_lat_select() left it, with the probe
 *	it claimed (if any) cleared
 * @nr: number of entries in @p
 * @band_x1024: the band's width, as for nvme_lat_choose()
 *
 * Of nvme_lat_choose()'s inputs, only the requests in flight change from
 * one I/O to the next: the estimates change at folds, the ANA tiers on
 * state changes, and the probes that are due with the jiffy.  A plan keeps
 * the paths of the best tier with their estimates, the band's members
 * first by rising estimate, so that an I/O of the same jiffy reads only
 * in-flight counts (nvme_lat_plan_pick()).  There is no plan while a probe
 * of the best tier is due, while a path of that tier has no estimate or is
 * silent, or while that tier has more than %NVME_LAT_PLAN_PATHS paths.
 *
 * Context: any; pure function of its arguments.
 * Return: true if @plan was made.
 */
VISIBLE_IF_KUNIT bool nvme_lat_plan_make(struct nvme_lat_plan *plan,
					 const struct nvme_lat_path *p, int nr,
					 u32 band_x1024)
{
	u8 tier = NVME_LAT_UNUSABLE;
	u32 min_lat = U32_MAX;
	int i, j, k, n = 0, nr_band = 0;
	u64 band;

	if (nr > U8_MAX)
		return false;
	for (i = 0; i < nr; i++)
		tier = min(tier, p[i].tier);
	if (tier == NVME_LAT_UNUSABLE)
		return false;
	for (i = 0; i < nr; i++) {
		if (p[i].tier != tier)
			continue;
		if (p[i].probe || !p[i].lat_ns || p[i].silent ||
		    n == NVME_LAT_PLAN_PATHS)
			return false;
		min_lat = min(min_lat, p[i].lat_ns);
		n++;
	}
	band = nvme_lat_band(min_lat, band_x1024);
	/* the band by rising estimate (insertion), then the others */
	for (i = 0; i < nr; i++) {
		if (p[i].tier != tier || p[i].lat_ns > band)
			continue;
		for (k = nr_band; k > 0 &&
		     p[plan->idx[k - 1]].lat_ns > p[i].lat_ns; k--)
			plan->idx[k] = plan->idx[k - 1];
		plan->idx[k] = i;
		nr_band++;
	}
	n = nr_band;
	for (i = 0; i < nr; i++)
		if (p[i].tier == tier && p[i].lat_ns > band)
			plan->idx[n++] = i;
	for (j = 0; j < n; j++) {
		plan->lat_ns[j] = p[plan->idx[j]].lat_ns;
		plan->per_inflight_ns[j] = p[plan->idx[j]].per_inflight_ns;
	}
	plan->tier = tier;
	plan->band_ns = min_t(u64, band, U32_MAX);
	plan->nr = n;
	plan->nr_band = nr_band;
	plan->nr_input = nr;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(nvme_lat_plan_make);

/*
 * The plan's @i-th path comes before its @j-th in the order from the
 * rotor on, as nvme_lat_choose() breaks exact ties; only ties call it.
 */
static bool nvme_lat_plan_before(const struct nvme_lat_plan *plan,
				 unsigned int rotor, int i, int j)
{
	unsigned int start = rotor % plan->nr_input;
	unsigned int pi = plan->idx[i], pj = plan->idx[j];

	pi = pi >= start ? pi - start : pi + plan->nr_input - start;
	pj = pj >= start ? pj - start : pj + plan->nr_input - start;
	return pi < pj;
}

/* a plan's path's requests in flight, as nvme_lat_path_set() counts them */
static u16 nvme_lat_plan_inflight(const struct nvme_lat_plan *plan, int i)
{
	return min_t(unsigned int, atomic_read(plan->nr_active[i]), U16_MAX);
}

/**
 * nvme_lat_plan_pick - the decision under a plan
 * @plan: a plan from nvme_lat_plan_make(), with @plan->nr_active filled in
 * @rotor: where exact ties start, as for nvme_lat_choose()
 *
 * Decides as nvme_lat_choose() does with the plan's estimates and the
 * current requests in flight: the band's member with the fewest (then
 * the lower estimate, then the first from @rotor on), unless a path
 * outside the band is cheaper at the current loads.  As the members come
 * by rising estimate, the walk stops at the first idle member that no
 * later one can tie; the paths outside the band are read only when the
 * band's winner costs more than the band, which is the least any of them
 * can cost.
 *
 * Context: any; @plan->nr_active must point to live counters.
 * Return: an index into the plan's paths.
 */
VISIBLE_IF_KUNIT int nvme_lat_plan_pick(const struct nvme_lat_plan *plan,
					unsigned int rotor)
{
	int j, best = 0, other = -1;
	u16 inflight, best_inflight;
	u64 cost, best_cost, other_cost = U64_MAX;

	best_inflight = nvme_lat_plan_inflight(plan, 0);
	for (j = 1; j < plan->nr_band; j++) {
		if (!best_inflight && plan->lat_ns[j] > plan->lat_ns[best])
			break;
		inflight = nvme_lat_plan_inflight(plan, j);
		if (inflight > best_inflight ||
		    (inflight == best_inflight &&
		     (plan->lat_ns[j] > plan->lat_ns[best] ||
		      !nvme_lat_plan_before(plan, rotor, j, best))))
			continue;
		best = j;
		best_inflight = inflight;
	}
	best_cost = max_t(u64, plan->lat_ns[best],
			  (u64)plan->per_inflight_ns[best] * (best_inflight + 1));
	if (best_cost <= plan->band_ns)
		return best;
	for (j = plan->nr_band; j < plan->nr; j++) {
		inflight = nvme_lat_plan_inflight(plan, j);
		cost = max_t(u64, plan->band_ns,
			     (u64)plan->per_inflight_ns[j] * (inflight + 1));
		if (cost < other_cost ||
		    (cost == other_cost &&
		     nvme_lat_plan_before(plan, rotor, j, other))) {
			other_cost = cost;
			other = j;
		}
	}
	return other >= 0 && other_cost < best_cost ? other : best;
}
EXPORT_SYMBOL_IF_KUNIT(nvme_lat_plan_pick);

/* @a is a worse candidate than @b for a place in the decision */
static bool nvme_lat_worse(const struct nvme_lat_path *a,
			   const struct nvme_lat_path *b)
{
	u32 lat_a = a->lat_ns ? a->lat_ns : U32_MAX;
	u32 lat_b = b->lat_ns ? b->lat_ns : U32_MAX;

	if (a->tier != b->tier)
		return a->tier > b->tier;
	if (lat_a != lat_b)
		return lat_a > lat_b;
	return a->inflight > b->inflight;
}

/**
 * nvme_lat_slot - the place of a usable path in the decision's input
 * @p: the places filled so far
 * @nr: number of places filled, at most %NVME_LAT_MAX_PATHS
 * @c: the path's input
 *
 * Up to %NVME_LAT_MAX_PATHS paths take the next free place.  When all are
 * taken, @c replaces the worst path (worse ANA tier, then higher estimate,
 * no estimate counting as the highest, then more in flight) that has no
 * probe due, if @c has a probe due or is better than it; so the paths
 * beyond the first %NVME_LAT_MAX_PATHS are still used and probed.
 *
 * Context: any.
 * Return: the index to fill in with @c, or -1 to leave the path out.
 */
VISIBLE_IF_KUNIT int nvme_lat_slot(const struct nvme_lat_path *p, int nr,
				   const struct nvme_lat_path *c)
{
	int i, worst = -1;

	if (nr < NVME_LAT_MAX_PATHS)
		return nr;
	for (i = 0; i < nr; i++)
		if (!p[i].probe &&
		    (worst < 0 || nvme_lat_worse(&p[i], &p[worst])))
			worst = i;
	if (worst < 0 || (!c->probe && !nvme_lat_worse(&p[worst], c)))
		return -1;
	return worst;
}
EXPORT_SYMBOL_IF_KUNIT(nvme_lat_slot);

static u8 nvme_lat_tier(struct nvme_ns *ns)
{
	if (nvme_path_is_disabled(ns))
		return NVME_LAT_UNUSABLE;
	switch (ns->ana_state) {
	case NVME_ANA_OPTIMIZED:
		return 0;
	case NVME_ANA_NONOPTIMIZED:
		return 1;
	default:
		return NVME_LAT_UNUSABLE;
	}
}

static void nvme_lat_read(struct nvme_ns_head *head, struct nvme_ns *ns,
			  int node, bool write, unsigned int bytes,
			  unsigned long now, struct blk_clat_estimate *est)
	__must_hold_shared(&head->srcu)
{
	struct blk_clat *clat = srcu_dereference(ns->clat, &head->srcu);

	if (clat) {
		blk_clat_read(clat, node, write,
			      min(bytes, queue_max_bytes(ns->queue)), now, est);
	} else {
		/* nothing to measure with: no probes, no estimate */
		memset(est, 0, sizeof(*est));
	}
}

/*
 * Make the plan of a decision for the rest of the jiffy, if the plan
 * would decide as the full decision does: every usable path took part,
 * with an estimator that measures this I/O in the same bucket.
 */
static bool nvme_lat_plan_store(struct nvme_lat_plan *plan,
				const struct nvme_lat_path *p,
				struct nvme_ns *const *path, int nr, int usable,
				int node, bool write, unsigned int bytes,
				u32 band_x1024)
{
	unsigned int key = blk_clat_key(node, write, bytes);
	int i;

	if (usable != nr || !nvme_lat_plan_make(plan, p, nr, band_x1024))
		return false;
	for (i = 0; i < nr; i++)
		if (!rcu_access_pointer(path[i]->clat) ||
		    blk_clat_key(node, write,
				 min(bytes, queue_max_bytes(path[i]->queue))) != key)
			return false;
	for (i = 0; i < plan->nr; i++)
		plan->nr_active[i] = &path[plan->idx[i]]->lat_nr_active;
	plan->key = key;
	return true;
}

/*
 * Replace the plan of @slot with the one of this decision, or with none
 * (nr 0) for the rest of the jiffy if this decision makes none: one CPU
 * at a time, and the others copy the plan meanwhile or make the full
 * decision.  @gen was read before the decision's walk of the paths.
 */
static void nvme_lat_plan_update(struct nvme_lat_plan_slot *slot, bool make,
				 unsigned int for_key, unsigned int gen,
				 const struct nvme_lat_path *p,
				 struct nvme_ns *const *path, int nr,
				 int usable, int node, bool write,
				 unsigned int bytes, unsigned long now,
				 u32 band_x1024)
{
	struct nvme_lat_plan *plan = &slot->plan;

	if (!spin_trylock(&slot->lock))
		return;
	write_seqcount_begin(&slot->seq);
	if (!make || !nvme_lat_plan_store(plan, p, path, nr, usable, node,
					  write, bytes, band_x1024))
		plan->nr = 0;
	plan->gen = gen;
	plan->for_key = for_key;
	plan->made_jiffies = now;
	write_seqcount_end(&slot->seq);
	spin_unlock(&slot->lock);
}

/*
 * Copy into @plan the plan of @slot if it was made in jiffy @now for I/O of
 * key @for_key under generation @gen, and not being remade; an empty plan
 * (nr 0) is not copied.
 */
static bool nvme_lat_plan_get(struct nvme_lat_plan_slot *slot,
			      struct nvme_lat_plan *plan, unsigned int for_key,
			      unsigned int gen, unsigned long now)
{
	const struct nvme_lat_plan *src = &slot->plan;
	unsigned int seq;

	if (!raw_seqcount_try_begin(&slot->seq, seq))
		return false;
	if (src->made_jiffies != now || src->for_key != for_key ||
	    src->gen != gen)
		return false;
	if (src->nr)
		*plan = *src;
	else
		plan->nr = 0;
	return !read_seqcount_retry(&slot->seq, seq);
}

/*
 * The path for a read or write with data under @plan, made in this jiffy;
 * NULL if the plan cannot decide and the full decision must be made: the
 * chosen path has left the plan's ANA tier or become unusable since.
 */
static struct nvme_ns *nvme_lat_plan_path(const struct nvme_lat_plan *plan,
					  unsigned int rotor)
{
	int i = nvme_lat_plan_pick(plan, rotor);
	struct nvme_ns *ns = container_of(plan->nr_active[i], struct nvme_ns,
					  lat_nr_active);

	if (nvme_lat_tier(ns) != plan->tier)
		return NULL;
	if (trace_nvme_lat_select_enabled())
		trace_nvme_lat_select(ns, i < plan->nr_band ?
				      NVME_LAT_RULE_BAND : NVME_LAT_RULE_OUTSIDE,
				      true, plan->lat_ns[i],
				      atomic_read(&ns->lat_nr_active));
	return ns;
}

/**
 * nvme_latency_path - the path for one I/O under the latency iopolicy
 * @head: the namespace head
 * @bio: the I/O, or NULL for a caller that does not send I/O (ioctl, PR,
 *	zone report): it gets a path but never uses a probe slot, and neither
 *	does an I/O that yields no latency sample (flush, discard, write
 *	zeroes, zone append)
 *
 * Considers the usable paths of @head, at most %NVME_LAT_MAX_PATHS of them
 * at a time (nvme_lat_slot() keeps the most promising).  When no path has
 * an estimate for the I/O's size class, which happens when the
 * path queues merge such I/O into larger requests, the next larger class
 * with an estimate stands in for it.  A read or write with data reuses the
 * plan (nvme_lat_plan_make()) that a CPU of its node made for its direction
 * and size class, if that was in the same jiffy and no path has been
 * removed or folded its estimates since (head->lat_plan_gen), unless the
 * path it chooses has left the plan's ANA tier; the plan is made only while
 * the head has at most %NVME_LAT_MAX_PATHS usable paths, none of them
 * quiet, and all of them measure the I/O in the same size class.
 *
 * Context: under head->srcu; may take a plan's spinlock with trylock.
 * Return: the path, or NULL if none is usable.
 */
struct nvme_ns *nvme_latency_path(struct nvme_ns_head *head, struct bio *bio)
	__must_hold_shared(&head->srcu)
{
	/* filled in below before use: not worth zeroing 512 bytes per I/O */
	struct nvme_lat_path p[NVME_LAT_MAX_PATHS] __uninitialized;
	struct nvme_ns *path[NVME_LAT_MAX_PATHS] __uninitialized;
	struct nvme_lat_probe *probe[NVME_LAT_MAX_PATHS] __uninitialized;
	struct nvme_lat_plan_slot *slots = READ_ONCE(head->lat_plans);
	struct nvme_lat_plan_slot *slot = NULL;
	struct blk_clat_estimate est __uninitialized;
	struct nvme_lat_plan plan __uninitialized;
	struct nvme_lat_path c __uninitialized;
	unsigned long now = jiffies, busy;
	unsigned int bytes = bio ? bio->bi_iter.bi_size : 0, rotor, inflight;
	unsigned int for_key = 0, gen = 0;
	/* a flush goes where the writes it follows do */
	bool write = bio && (op_is_write(bio_op(bio)) || !bytes);
	bool sampled = bio && bytes && (bio_op(bio) == REQ_OP_READ ||
					bio_op(bio) == REQ_OP_WRITE);
	int node = numa_node_id(), nr = 0, usable = 0, i;
	bool any = false, plannable;
	u32 band_x1024;
	struct nvme_ns *ns;
	u8 tier;

	rotor = this_cpu_inc_return(nvme_lat_rotor);
	plannable = sampled && slots;
	if (plannable) {
		/* before the walk below: see nvme_mpath_clear_current_path() */
		gen = atomic_read_acquire(&head->lat_plan_gen);
		for_key = blk_clat_key(node, write, bytes);
		slot = &slots[for_key];
		if (nvme_lat_plan_get(slot, &plan, for_key, gen, now)) {
			if (!plan.nr) {
				/* none this jiffy: no need to try again */
				slot = NULL;
			} else {
				ns = nvme_lat_plan_path(&plan, rotor);
				if (ns)
					return ns;
			}
		}
	}

	band_x1024 = READ_ONCE(head->subsys->lat_band_x1024);
	list_for_each_entry_srcu(ns, &head->list, siblings,
				 srcu_read_lock_held(&head->srcu)) {
		tier = nvme_lat_tier(ns);
		if (tier == NVME_LAT_UNUSABLE)
			continue;
		usable++;
		inflight = atomic_read(&ns->lat_nr_active);
		busy = READ_ONCE(ns->lat_busy_jiffies);
		nvme_lat_read(head, ns, node, write, bytes, now, &est);
		nvme_lat_path_set(&c, &est, inflight, busy, tier,
				  &ns->lat_probe, now, sampled);
		plannable &= !nvme_lat_quiet(inflight, busy, now);
		i = nvme_lat_slot(p, nr, &c);
		if (i < 0)
			continue;
		p[i] = c;
		probe[i] = &ns->lat_probe;
		path[i] = ns;
		nr = max(nr, i + 1);
		any |= est.lat_ns != 0;
	}

	/* merged into larger requests: borrow the next class with estimates */
	while (!any && bio && bytes && bytes <= SZ_256K) {
		bytes *= 4;
		for (i = 0; i < nr; i++) {
			nvme_lat_read(head, path[i], node, write, bytes, now,
				      &est);
			/* above a silent path's floor, if it has one */
			p[i].lat_ns = max(p[i].lat_ns, est.lat_ns);
			p[i].per_inflight_ns = max(p[i].per_inflight_ns,
						   est.lat_per_inflight_ns);
			any |= est.lat_ns != 0;
		}
	}

	i = nvme_lat_select(p, probe, nr, now, rotor, band_x1024);
	if (trace_nvme_lat_select_enabled() && i >= 0)
		trace_nvme_lat_select(path[i], p[i].probe ? NVME_LAT_RULE_PROBE :
				      nvme_lat_outside_band(p, nr, i, band_x1024) ?
				      NVME_LAT_RULE_OUTSIDE : NVME_LAT_RULE_BAND,
				      false, p[i].lat_ns, p[i].inflight);
	if (slot) {
		/* a probe it claimed is no longer due */
		if (i >= 0)
			p[i].probe = false;
		nvme_lat_plan_update(slot, plannable && i >= 0, for_key, gen,
				     p, path, nr, usable, node, write, bytes,
				     now, band_x1024);
	}
	return i < 0 ? NULL : path[i];
}

/**
 * nvme_lat_estimates_show - a path's estimates, for sysfs
 * @ns: the path
 * @write: writes if true, else reads
 * @buf: the sysfs buffer
 *
 * One figure per online NUMA node, in node order, separated by spaces: the
 * estimate of the smallest size class that has one, in microseconds, or
 * "-" where no class has one.  Nothing unless the subsystem's iopolicy is
 * latency.
 *
 * Context: process context; takes the head's SRCU read lock.
 * Return: the number of bytes written to @buf.
 */
ssize_t nvme_lat_estimates_show(struct nvme_ns *ns, bool write, char *buf)
{
	struct nvme_ns_head *head = ns->head;
	const struct blk_clat *clat;
	unsigned int bytes;
	int node, srcu_idx;
	u32 lat_ns, lat_us;
	ssize_t len = 0;

	if (READ_ONCE(head->subsys->iopolicy) != NVME_IOPOLICY_LAT)
		return 0;
	srcu_idx = srcu_read_lock(&head->srcu);
	clat = srcu_dereference(ns->clat, &head->srcu);
	for_each_online_node(node) {
		lat_ns = 0;
		for (bytes = SZ_4K; clat && !lat_ns && bytes <= SZ_1M; bytes *= 4)
			lat_ns = blk_clat_peek(clat,
					       blk_clat_key(node, write, bytes)).lat_ns;
		if (len)
			len += sysfs_emit_at(buf, len, " ");
		lat_us = DIV_ROUND_CLOSEST(lat_ns, NSEC_PER_USEC);
		if (lat_ns)
			len += sysfs_emit_at(buf, len, "%u", lat_us);
		else
			len += sysfs_emit_at(buf, len, "-");
	}
	srcu_read_unlock(&head->srcu, srcu_idx);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t latency_window_us_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct nvme_subsystem *subsys =
		container_of(dev, struct nvme_subsystem, dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(subsys->lat_window_us));
}

/* every path's estimator takes the window; new ones in nvme_lat_update_path() */
static ssize_t latency_window_us_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	struct nvme_subsystem *subsys =
		container_of(dev, struct nvme_subsystem, dev);
	struct nvme_ns_head *head;
	struct blk_clat *clat;
	struct nvme_ns *ns;
	int srcu_idx;
	u32 win_us;

	if (kstrtou32(buf, 10, &win_us) || win_us < NVME_LAT_MIN_WINDOW_US ||
	    win_us > NVME_LAT_MAX_WINDOW_US)
		return -EINVAL;

	mutex_lock(&subsys->lock);
	WRITE_ONCE(subsys->lat_window_us, win_us);
	list_for_each_entry(head, &subsys->nsheads, entry) {
		srcu_idx = srcu_read_lock(&head->srcu);
		list_for_each_entry_srcu(ns, &head->list, siblings,
					 srcu_read_lock_held(&head->srcu)) {
			clat = srcu_dereference(ns->clat, &head->srcu);
			if (clat)
				blk_clat_set_window(clat,
						    (u64)win_us * NSEC_PER_USEC);
		}
		srcu_read_unlock(&head->srcu, srcu_idx);
	}
	mutex_unlock(&subsys->lock);
	return count;
}

struct device_attribute subsys_attr_latency_window_us =
	__ATTR(latency_window_us, 0644, latency_window_us_show,
	       latency_window_us_store);

static ssize_t latency_band_pct_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct nvme_subsystem *subsys =
		container_of(dev, struct nvme_subsystem, dev);

	return sysfs_emit(buf, "%u\n",
			  DIV_ROUND_CLOSEST(READ_ONCE(subsys->lat_band_x1024) * 100,
					    1024));
}

/* in 1/1024 for the decision: a percent rounds back to itself */
static ssize_t latency_band_pct_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t count)
{
	struct nvme_subsystem *subsys =
		container_of(dev, struct nvme_subsystem, dev);
	u32 pct;

	if (kstrtou32(buf, 10, &pct) || pct > NVME_LAT_MAX_BAND_PCT)
		return -EINVAL;
	WRITE_ONCE(subsys->lat_band_x1024, DIV_ROUND_CLOSEST(pct * 1024, 100));
	return count;
}

struct device_attribute subsys_attr_latency_band_pct =
	__ATTR(latency_band_pct, 0644, latency_band_pct_show,
	       latency_band_pct_store);

/**
 * nvme_latency_free - free what the latency iopolicy kept for a head
 * @head: the namespace head, with no submitters left
 *
 * Context: process context.
 */
void nvme_latency_free(struct nvme_ns_head *head)
{
	kfree(head->lat_plans);
	head->lat_plans = NULL;
}

/*
 * Attach or detach one path's estimator; process context, no SRCU held.
 * Returns true if a failed attach should be retried.
 */
static bool nvme_lat_update_path(struct nvme_ns *ns, bool want)
{
	struct nvme_subsystem *subsys = ns->head->subsys;
	struct blk_clat *clat;

	WRITE_ONCE(ns->lat_attach_err, 0);
	if (!want) {
		/* unpublished and waited for by the caller */
		blk_clat_detach(ns->disk);
		WRITE_ONCE(ns->lat_attached, false);
		return false;
	}
	clat = blk_clat_attach(ns->disk);
	if (IS_ERR(clat)) {
		/* not added yet (its add kicks us) or going away */
		if (PTR_ERR(clat) == -ENODEV)
			return false;
		WRITE_ONCE(ns->lat_attach_err, PTR_ERR(clat));
		dev_warn_ratelimited(ns->ctrl->device,
				     "no latency estimator for %s: %ld, retrying\n",
				     ns->disk->disk_name, PTR_ERR(clat));
		return true;
	}
	WRITE_ONCE(ns->lat_probe.next_jiffies, jiffies);
	WRITE_ONCE(ns->lat_probe.backoff, 0);
	WRITE_ONCE(ns->lat_attached, true);
	/* a plan holds until the next fold of any of the head's paths */
	blk_clat_notify_folds(clat, &ns->head->lat_plan_gen);
	rcu_assign_pointer(ns->clat, clat);
	/*
	 * The subsystem's window, after publishing: a write of the attribute
	 * either sees this estimator or is seen here (both under the lock).
	 */
	mutex_lock(&subsys->lock);
	blk_clat_set_window(clat, (u64)subsys->lat_window_us * NSEC_PER_USEC);
	mutex_unlock(&subsys->lock);
	return false;
}

/**
 * nvme_latency_work - attach or detach the estimators of a head's paths
 * @work: the head's lat_work
 *
 * Attaches the estimator to every path of the head while the subsystem uses
 * the latency iopolicy, and detaches it otherwise.  Attach and detach freeze
 * the path queue, which waits for its requests in flight, so they run here
 * with a reference on each path and with no SRCU read lock held:
 * synchronize_srcu() callers (path removal, ANA changes) never wait for a
 * queue that cannot drain.  The work item serialises them per head, and so
 * per path queue.  An attach that fails (other than for a disk not added
 * yet, whose add kicks the work again) is retried %NVME_LAT_RETRY_DELAY
 * later; until then the path has no estimate and no probes.  Each run drops
 * the head reference that nvme_latency_kick() queued it with.
 *
 * Context: process context, from nvme_wq.
 */
void nvme_latency_work(struct work_struct *work)
{
	struct nvme_ns_head *head =
		container_of(to_delayed_work(work), struct nvme_ns_head, lat_work);
	bool want = READ_ONCE(head->subsys->iopolicy) == NVME_IOPOLICY_LAT;
	struct nvme_ns *batch[NVME_LAT_MAX_PATHS], *ns;
	unsigned int seq = ++head->lat_seq;
	bool unpublished = false, retry = false;
	struct nvme_lat_plan_slot *slots;
	int nr, i, srcu_idx;

	/* without plans every I/O makes the full decision */
	if (want && !head->lat_plans) {
		nr = nr_node_ids * BLK_CLAT_KEYS_PER_NODE;
		slots = kcalloc(nr, sizeof(*slots), GFP_KERNEL);
		for (i = 0; slots && i < nr; i++) {
			spin_lock_init(&slots[i].lock);
			seqcount_spinlock_init(&slots[i].seq, &slots[i].lock);
			/* a key that no I/O has: unused before it is made */
			slots[i].plan.for_key = U16_MAX;
		}
		/* initialised before a submitter can see them */
		smp_store_release(&head->lat_plans, slots);
	}

	if (!want) {
		srcu_idx = srcu_read_lock(&head->srcu);
		list_for_each_entry_srcu(ns, &head->list, siblings,
					 srcu_read_lock_held(&head->srcu)) {
			if (rcu_access_pointer(ns->clat)) {
				rcu_assign_pointer(ns->clat, NULL);
				unpublished = true;
			}
		}
		srcu_read_unlock(&head->srcu, srcu_idx);
		/* no submitter sees the estimators any more */
		if (unpublished)
			synchronize_srcu(&head->srcu);
	}

	do {
		nr = 0;
		srcu_idx = srcu_read_lock(&head->srcu);
		list_for_each_entry_srcu(ns, &head->list, siblings,
					 srcu_read_lock_held(&head->srcu)) {
			if (nr == ARRAY_SIZE(batch))
				break;
			if (ns->lat_attached == want || ns->lat_seq == seq)
				continue;
			ns->lat_seq = seq;
			if (nvme_get_ns(ns))
				batch[nr++] = ns;
		}
		srcu_read_unlock(&head->srcu, srcu_idx);

		for (i = 0; i < nr; i++) {
			retry |= nvme_lat_update_path(batch[i], want);
			nvme_put_ns(batch[i]);
		}
	} while (nr == ARRAY_SIZE(batch));

	/* a kick in the meantime runs us sooner; this does not delay it */
	if (retry)
		nvme_latency_kick(head, NVME_LAT_RETRY_DELAY);
	/* the reference this run was queued with; @head may go with it */
	nvme_put_ns_head(head);
}

/**
 * nvme_latency_kick - run a head's latency work
 * @head: the namespace head, with a disk
 * @delay: jiffies from now; 0 also runs a pending retry at once, a delay
 *	never postpones a pending run
 *
 * Each queued run of head->lat_work holds a reference on @head, and drops
 * it when it has run.  So the work never runs on a freed head, nothing has
 * to cancel it before the head is freed, and it may drop the head's last
 * reference itself.  A head that is already going away is not kicked.
 *
 * Context: any context that may sleep.
 */
void nvme_latency_kick(struct nvme_ns_head *head, unsigned long delay)
{
	bool pending;

	if (!nvme_tryget_ns_head(head))
		return;
	if (delay)
		pending = !queue_delayed_work(nvme_wq, &head->lat_work, delay);
	else
		pending = mod_delayed_work(nvme_wq, &head->lat_work, 0);
	/* a pending run holds a reference already */
	if (pending)
		nvme_put_ns_head(head);
}
