// SPDX-License-Identifier: GPL-2.0
/*
 * The volumes' I/O path, split from their control (volume.c) as the NVMe
 * host splits multipath.c from core.c: each bio of /dev/gpupathN is cloned
 * onto a path picked by the volume's policy; a clone that fails with a path
 * error takes its path out of use and the bio is sent again on another
 * path, or waits for one (up to the queue timeout) when none is left.
 * Device memory only goes to paths whose DMA engine can reach it. A probe
 * brings failed paths back and fails what waited too long; events go out
 * from a work item.
 *
 * Paths live on an SRCU list: selection may sleep (P2P distances are
 * computed by the PCI core). Each path counts its clones in flight, and
 * removing a path waits for them. Locks: vol->lock (a mutex) is taken by
 * the probe and the event work, after volumes_lock where both are held (see
 * volume.c); vol->qlock (a spinlock, interrupts off) guards the queued and
 * failed bio lists, is innermost, and is never held across a submission.
 */
#include <linux/blk-cgroup.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/ktime.h>
#include <linux/pci-p2pdma.h>
#include <linux/sched/clock.h>

#include "devattr.h"
#include "io.h"
#include "notify.h"
#include "provider.h"
#include "volume.h"

#define GPUPATH_PROBE_MS		1000
/*
 * How often a volume with paths looks at them when nothing is wrong: a
 * namespace resized, or its write cache turned on or off, tells nothing to
 * the holders of its block device.
 */
#define GPUPATH_REFRESH_MS		5000

/* Volume-level events waiting to be sent (bits of vol->pending). */
enum {
	GPUPATH_PENDING_FAILOVER,
	GPUPATH_PENDING_NO_PATH,
	GPUPATH_PENDING_IO_ERROR,
};

/* Attempts of one bio, at most, before its last error is the caller's. */
#define GPUPATH_TRIES_MAX	8

/**
 * struct gpupath_vio - a bio of the volume and its one clone, over attempts
 * @orig: the bio the volume received
 * @path: the path of the attempt in flight or being looked at (its
 *	in-flight count held), NULL while waiting for one
 * @iter: the clone's iterator as cloned, restored for every attempt
 * @opf: the clone's operation and flags as cloned, restored likewise
 * @flags: the clone's bi_flags as cloned, restored likewise
 * @start: local_clock() when the attempt was sent, or 0 when its latency
 *	is not taken (see wants_latency())
 * @acct_start: jiffies when the block layer's accounting of @orig began,
 *	once for all its attempts
 * @status: the last attempt's error
 * @tries: attempts sent
 * @suspect: the healthy path an attempt failed on with an error that may
 *	be the namespace's rather than the path's (its in-flight count held
 *	until the bio ends), or NULL
 * @p2p: its data is device memory
 * @ana_held: it waited once for an ANA change its error may have been
 * @failfast: the attempt in flight was sent fail-fast (see map_bio())
 * @patient: fail-fast no more: an attempt so sent failed with an error the
 *	NVMe driver might have retried
 * @resend: to be sent again patiently, whatever the error was
 * @acct: @orig is in the disk's statistics (queue/iostats is on)
 * @clone: what goes to the paths; last, the bio_set's front pad precedes it
 */
struct gpupath_vio {
	struct bio *orig;
	struct gpupath_path *path;
	struct bvec_iter iter;
	blk_opf_t opf;
	unsigned short flags;
	u64 start;
	unsigned long acct_start;
	blk_status_t status;
	u8 tries;
	struct gpupath_path *suspect;
	bool p2p;
	bool ana_held;
	bool failfast;
	bool patient;
	bool resend;
	bool acct;
	struct bio clone;
};

/*
 * The clones of every volume's bios, with their context in front. One set
 * for the module: a clone's lower device never allocates from it, so its
 * reserve always comes back, and making a volume creates no kmem cache.
 */
static struct bio_set clone_bs;

static u64 now_ns(void)
{
	return ktime_get_ns();
}

/* The ANA states whose paths take I/O: optimized (or not known) and non-optimized. */
static bool ana_takes_io(u32 ana)
{
	return ana == GPUPATH_ANA_UNKNOWN || ana == GPUPATH_ANA_OPTIMIZED ||
	       ana == GPUPATH_ANA_NON_OPTIMIZED;
}

static bool usable(struct gpupath_path *path)
{
	return READ_ONCE(path->state) == GPUPATH_PATH_UP &&
	       READ_ONCE(path->health) == GPUPATH_HEALTH_LIVE &&
	       READ_ONCE(path->link) != GPUPATH_LINK_DOWN &&
	       ana_takes_io(READ_ONCE(path->ana));
}

/*
 * What a bio may use: usable paths but @exclude, and for device memory
 * only those that can DMA it, at distance @dist when that is not -1. With
 * @nowait nothing may sleep: a distance not known yet sets @blocked.
 */
struct pick {
	struct gpupath_provider *prov;
	int dist;
	u32 exclude;
	bool nowait;
	bool blocked;
	bool non_optimized;	/* ANA non-optimized paths too */
};

/* How far @prov's memory is from the path's DMA engine; -1: unreachable. */
static int path_distance(struct gpupath_path *path, struct pick *pk)
{
	int dist;

	if (path->dma.reason != GPUPATH_REASON_NONE || !path->dma.dev)
		return -1;
	if (gpupath_provider_distance_cached(pk->prov, path->dma.dev, &dist))
		return dist;
	if (pk->nowait) {
		/* The PCI core may sleep to find it. */
		pk->blocked = true;
		return -1;
	}
	return gpupath_dma_distance(&path->dma, pk->prov);
}

static bool eligible(struct gpupath_path *path, struct pick *pk)
{
	int d;

	if (!usable(path) || path->id == pk->exclude)
		return false;
	if (!pk->non_optimized && READ_ONCE(path->ana) == GPUPATH_ANA_NON_OPTIMIZED)
		return false;
	if (!pk->prov)
		return true;
	d = path_distance(path, pk);
	return d >= 0 && (pk->dist < 0 || d == pk->dist);
}

/* Readers of vol->paths hold vol->srcu. */
#define for_each_path(path, head, srcu) \
	list_for_each_entry_srcu(path, head, node, srcu_read_lock_held(srcu))

/*
 * Each of these picks in one pass over the paths, so that a path failing
 * meanwhile changes only which path is picked, never whether one is.
 */

/*
 * The first eligible path after the one picked last, in list order: one
 * step while every path is eligible, however many there are. The walk stops
 * after a lap. It starts from the list's head when the last one has left
 * the list: its next path may have left too, and be freed by a removal that
 * did not wait for this walk (path_remove()).
 */
static struct gpupath_path *pick_rr(struct gpupath_volume *vol, struct pick *pk)
{
	struct gpupath_path *last = READ_ONCE(vol->rr_last), *path;
	unsigned int steps = READ_ONCE(vol->npaths) + 1;
	struct list_head *pos;

	if (last && READ_ONCE(last->unlisted))
		last = NULL;
	pos = last ? &last->node : &vol->paths;

	while (steps--) {
		pos = srcu_dereference(list_next_rcu(pos), &vol->srcu);
		if (pos == &vol->paths)
			continue;
		path = list_entry(pos, struct gpupath_path, node);
		if (eligible(path, pk)) {
			if (path != last)
				WRITE_ONCE(vol->rr_last, path);
			return path;
		}
	}
	return NULL;
}

/*
 * Smooth weighted round-robin: every eligible path earns its weight, the
 * richest is picked and pays what all of them earned.
 */
static struct gpupath_path *pick_weighted(struct gpupath_volume *vol, struct pick *pk)
{
	struct gpupath_path *path, *best = NULL;
	int total = 0, credit, best_credit = 0;
	u32 w;

	for_each_path(path, &vol->paths, &vol->srcu) {
		w = READ_ONCE(path->weight);
		if (!w || !eligible(path, pk))
			continue;
		total += w;
		credit = atomic_add_return(w, &path->credit);
		if (!best || credit > best_credit) {
			best = path;
			best_credit = credit;
		}
	}
	if (best)
		atomic_sub(total, &best->credit);
	return best;
}

static u64 score(struct gpupath_path *path, u32 policy)
{
	u64 inflight = atomic_read(&path->inflight);

	if (policy == GPUPATH_POLICY_QUEUE_DEPTH)
		return inflight;
	return (inflight + 1) * max_t(u64, atomic64_read(&path->latency_ns), 1);
}

/* The lowest score; ties go round the paths so that idle paths share. */
static struct gpupath_path *pick_least(struct gpupath_volume *vol, struct pick *pk, u32 policy)
{
	struct gpupath_path *path, *best = NULL;
	unsigned int start = (unsigned int)atomic_inc_return(&vol->rr);
	unsigned int i = 0, rank, best_rank = 0;
	u64 s, best_score = 0;

	for_each_path(path, &vol->paths, &vol->srcu) {
		if (!eligible(path, pk))
			continue;
		s = score(path, policy);
		rank = i++ - start;
		if (!best || s < best_score || (s == best_score && rank < best_rank)) {
			best = path;
			best_score = s;
			best_rank = rank;
		}
	}
	return best;
}

static struct gpupath_path *pick_by(struct gpupath_volume *vol, struct pick *pk, u32 policy)
{
	switch (policy) {
	case GPUPATH_POLICY_QUEUE_DEPTH:
	case GPUPATH_POLICY_SERVICE_TIME:
		return pick_least(vol, pk, policy);
	case GPUPATH_POLICY_WEIGHTED:
		return pick_weighted(vol, pk);
	default:
		return pick_rr(vol, pk);
	}
}

/* gpu-affinity: only the closest paths, then the fallback policy. */
static struct gpupath_path *pick_affinity(struct gpupath_volume *vol, struct pick *pk)
{
	u32 fallback = READ_ONCE(vol->fallback);
	struct gpupath_path *path;
	int d;

	if (pk->prov) {
		for_each_path(path, &vol->paths, &vol->srcu) {
			if (!eligible(path, pk))
				continue;
			d = path_distance(path, pk);
			if (pk->dist < 0 || d < pk->dist)
				pk->dist = d;
		}
	}
	path = pick_by(vol, pk, fallback);
	if (!path && pk->dist >= 0) {
		/* The closest went meanwhile: any that can DMA it. */
		pk->dist = -1;
		path = pick_by(vol, pk, fallback);
	}
	return path;
}

static struct gpupath_path *pick_policy(struct gpupath_volume *vol, struct pick *pk)
{
	u32 policy = READ_ONCE(vol->policy);

	if (policy == GPUPATH_POLICY_GPU_AFFINITY)
		return pick_affinity(vol, pk);
	return pick_by(vol, pk, policy);
}

/*
 * Under vol->srcu. ANA optimized paths (and those whose state is not
 * known) first; the policy picks among non-optimized ones only when none
 * of those is eligible.
 */
static struct gpupath_path *pick_path(struct gpupath_volume *vol, struct pick *pk)
{
	struct gpupath_path *path;
	int dist = pk->dist;

	path = pick_policy(vol, pk);
	if (path || pk->non_optimized)
		return path;
	pk->non_optimized = true;
	pk->dist = dist;
	return pick_policy(vol, pk);
}

/**
 * gpupath_multipath_set_ana() - a path's ANA state, as its controller reports it
 * @path: the path
 * @ana: enum gpupath_ana_state
 *
 * Takes effect for the next bio; the caller kicks queued I/O.
 */
void gpupath_multipath_set_ana(struct gpupath_path *path, u32 ana)
{
	WRITE_ONCE(path->ana, ana);
	/* A path held out for an error that may have been this: known now. */
	if (atomic_xchg(&path->ana_suspect, 0))
		mod_delayed_work(system_wq, &path->vol->probe_work, 0);
}

/*
 * How long I/O with no usable path waits (ms): the volume's queue timeout,
 * or, while a path is in ANA change or an error may have been one (see
 * ana_hold()), that path's ANA transition time when it is longer. I/O is
 * not failed while the array moves a group.
 */
static u32 queue_limit(struct gpupath_volume *vol)
{
	u32 tmo = READ_ONCE(vol->queue_timeout), tt;
	u64 hold = atomic64_read(&vol->ana_hold_until), now = now_ns();
	struct gpupath_path *path;
	int idx;

	if (tmo == GPUPATH_QUEUE_FOREVER)
		return tmo;
	/* An error that may have been an ANA change: waited for (ana_hold()). */
	if (hold > now) {
		u64 since = atomic64_read(&vol->nopath_since) ?: now;

		tmo = max_t(u64, tmo, div_u64(hold - since, NSEC_PER_MSEC) + 1);
	}
	idx = srcu_read_lock(&vol->srcu);
	for_each_path(path, &vol->paths, &vol->srcu) {
		if (READ_ONCE(path->ana) != GPUPATH_ANA_CHANGE)
			continue;
		tt = READ_ONCE(path->ana_tt) * MSEC_PER_SEC;
		tmo = max(tmo, tt);
	}
	srcu_read_unlock(&vol->srcu, idx);
	return tmo;
}

/*
 * How close a reason is to going direct, to tell the administrator the
 * one that matters: a path with a DMA engine that is only in the wrong
 * place beats one that has none.
 */
static int reason_rank(enum gpupath_reason reason)
{
	static const u8 rank[] = {
		[GPUPATH_REASON_IOMMU_BUS_ADDR] = 1,
		[GPUPATH_REASON_NO_P2P_ROUTE] = 2,
		[GPUPATH_REASON_NO_P2P_QUEUE] = 3,
		[GPUPATH_REASON_VIRTUAL_DMA] = 4,
		[GPUPATH_REASON_CPU_COPY] = 5,
		[GPUPATH_REASON_MULTIPATH_HEAD] = 6,
		[GPUPATH_REASON_NO_DMA_DEVICE] = 7,
	};

	return reason < ARRAY_SIZE(rank) && rank[reason] ? rank[reason] : ARRAY_SIZE(rank);
}

/*
 * Why none of the usable paths can DMA @prov's memory: the reason of the
 * path closest to it. Under vol->srcu.
 */
static enum gpupath_reason refusal(struct gpupath_volume *vol, struct gpupath_provider *prov)
{
	enum gpupath_reason best = GPUPATH_REASON_NONE, r;
	struct gpupath_path *path;

	for_each_path(path, &vol->paths, &vol->srcu) {
		if (!usable(path))
			continue;
		r = gpupath_dma_reason(&path->dma, prov);
		if (best == GPUPATH_REASON_NONE || reason_rank(r) < reason_rank(best))
			best = r;
	}
	return best;
}

/**
 * gpupath_volume_reason() - whether device memory of @prov can go direct
 * @vol: the volume
 * @prov: the provider
 *
 * Return: %GPUPATH_REASON_NONE when a usable path can DMA it, or when no
 * path is usable (the I/O then waits for one); else why not.
 */
enum gpupath_reason gpupath_volume_reason(struct gpupath_volume *vol,
					  struct gpupath_provider *prov)
{
	struct pick pk = { .prov = prov, .dist = -1 };
	enum gpupath_reason reason = GPUPATH_REASON_NONE;
	struct gpupath_path *path;
	bool found = false;
	int idx;

	idx = srcu_read_lock(&vol->srcu);
	for_each_path(path, &vol->paths, &vol->srcu)
		found |= eligible(path, &pk);
	if (!found)
		reason = refusal(vol, prov);
	srcu_read_unlock(&vol->srcu, idx);
	return reason;
}

/*
 * Whether the bio's data is device memory, and if so whose: the provider
 * with a reference, or NULL when no provider owns those pages now. The
 * volume takes P2PDMA pages from anyone (user-space direct I/O, nvmet, a
 * file system), so each segment is looked at: host memory may share the
 * bio, and device memory of two page maps is nobody's (refused).
 */
static bool bio_p2p(struct bio *bio, struct gpupath_provider **provp)
{
	struct dev_pagemap *pgmap = NULL, *pm;
	struct page *page = NULL;
	struct bvec_iter iter;
	struct bio_vec bv;

	*provp = NULL;
	if (!bio_has_data(bio))
		return false;
	bio_for_each_bvec(bv, bio, iter) {
		if (!is_pci_p2pdma_page(bv.bv_page))
			continue;
		pm = gpupath_compat_page_pgmap(bv.bv_page);
		if (!page) {
			page = bv.bv_page;
			pgmap = pm;
		} else if (pm != pgmap) {
			return true;
		}
	}
	if (!page)
		return false;
	*provp = gpupath_provider_of_page(page);
	return true;
}

static void event(struct gpupath_volume *vol, int bit)
{
	set_bit(bit, &vol->pending);
	schedule_work(&vol->event_work);
}

/**
 * gpupath_multipath_inflight_put() - a hold on a path's in-flight count ends
 * @vol: its volume
 * @path: the path; its removal waits for the count to reach 0
 */
void gpupath_multipath_inflight_put(struct gpupath_volume *vol, struct gpupath_path *path)
{
	if (atomic_dec_and_test(&path->inflight))
		wake_up_all(&vol->wait);
}

/* The attempt on vio->path is over. */
static void path_put_io(struct gpupath_volume *vol, struct gpupath_vio *vio)
{
	gpupath_multipath_inflight_put(vol, vio->path);
	vio->path = NULL;
}

/*
 * The bio leaves the volume. The volume lives on until the bio's
 * reference is dropped, last: a deletion waits for that.
 */
static void orig_end(struct gpupath_volume *vol, struct gpupath_vio *vio, blk_status_t status)
{
	struct bio *orig = vio->orig;

	if (status) {
		atomic64_inc(&vol->stats.errors);
		if (status != BLK_STS_NOTSUPP) {
			WRITE_ONCE(vol->ioerr, blk_status_to_errno(status));
			atomic64_inc(&vol->ioerr_count);
			event(vol, GPUPATH_PENDING_IO_ERROR);
		}
	} else {
		atomic64_inc(&vol->stats.ios);
		atomic64_add(orig->bi_iter.bi_size, &vol->stats.bytes);
	}
	if (vio->suspect)
		gpupath_multipath_inflight_put(vol, vio->suspect);
	if (vio->acct)
		bio_end_io_acct(orig, vio->acct_start);
	bio_put(&vio->clone);
	orig->bi_status = status;
	bio_endio(orig);
	atomic_dec(&vol->inflight);
	percpu_ref_put(&vol->io_ref);
}

/* Every bio has left the deleted volume. */
static void io_drained(struct percpu_ref *ref)
{
	struct gpupath_volume *vol = container_of(ref, struct gpupath_volume, io_ref);

	complete(&vol->drained);
}

static void park(struct gpupath_volume *vol, struct bio_list *list, struct gpupath_vio *vio)
{
	unsigned long flags;

	spin_lock_irqsave(&vol->qlock, flags);
	bio_list_add(list, &vio->clone);
	spin_unlock_irqrestore(&vol->qlock, flags);
}

static unsigned long probe_delay(struct gpupath_volume *vol)
{
	u32 ms = min_t(u32, GPUPATH_PROBE_MS, queue_limit(vol));

	/* Nothing may wait (queue timeout 0): only failed paths are probed. */
	return msecs_to_jiffies(ms ?: GPUPATH_PROBE_MS);
}

/*
 * The probe runs within a second of being asked for, however often it is
 * asked: new I/O never pushes it back.
 */
static void probe_soon(struct gpupath_volume *vol, unsigned long delay)
{
	queue_delayed_work(system_wq, &vol->probe_work, delay);
}

/*
 * No usable path: the bio waits for one, up to the queue timeout. Not in a
 * volume being deleted: its last pass over the queue (under vol->qlock,
 * after @dead was set) has gone or will see this bio, whichever comes
 * first. Returns false when the bio was ended instead.
 */
static bool queue_bio(struct gpupath_volume *vol, struct gpupath_vio *vio)
{
	unsigned long flags;

	spin_lock_irqsave(&vol->qlock, flags);
	if (READ_ONCE(vol->dead)) {
		spin_unlock_irqrestore(&vol->qlock, flags);
		orig_end(vol, vio, vio->status ?: BLK_STS_IOERR);
		return false;
	}
	bio_list_add(&vol->queued, &vio->clone);
	spin_unlock_irqrestore(&vol->qlock, flags);
	if (!atomic64_cmpxchg(&vol->nopath_since, 0, now_ns()))
		event(vol, GPUPATH_PENDING_NO_PATH);
	atomic64_inc(&vol->stats.queued);
	probe_soon(vol, probe_delay(vol));
	return true;
}

/*
 * An I/O failed on @path, out of service now: the volume's failover clock
 * starts, once per failure of the path, whether the I/O error or the
 * path's removal (its disk deleted, the probe) took it out of use first.
 */
static void failover_start(struct gpupath_volume *vol, struct gpupath_path *path)
{
	if (atomic_xchg(&path->timed, 1))
		return;
	if (!atomic64_cmpxchg(&vol->fail_start, 0, now_ns()))
		WRITE_ONCE(vol->fail_path, path->id);
}

static void path_failed(struct gpupath_path *path, blk_status_t status)
{
	struct gpupath_volume *vol = path->vol;

	if (cmpxchg(&path->health, GPUPATH_HEALTH_LIVE, GPUPATH_HEALTH_FAILED) ==
	    GPUPATH_HEALTH_LIVE) {
		WRITE_ONCE(path->error, blk_status_to_errno(status));
		schedule_work(&vol->event_work);
		probe_soon(vol, msecs_to_jiffies(GPUPATH_PROBE_MS));
	}
	failover_start(vol, path);
}

/* A clone on a path other than the failed one succeeded: recovered. */
static void recovered(struct gpupath_volume *vol, struct gpupath_path *path)
{
	u64 start = atomic64_read(&vol->fail_start), took;

	if (!start || path->id == READ_ONCE(vol->fail_path) ||
	    atomic64_cmpxchg(&vol->fail_start, start, 0) != start)
		return;
	took = now_ns() - start;
	atomic64_inc(&vol->stats.failovers);
	atomic64_set(&vol->stats.failover_last_ns, took);
	if (took > atomic64_read(&vol->stats.failover_max_ns))
		atomic64_set(&vol->stats.failover_max_ns, took);
	WRITE_ONCE(vol->failover_ns, took);
	event(vol, GPUPATH_PENDING_FAILOVER);
}

static void update_latency(struct gpupath_path *path, s64 lat)
{
	s64 old = atomic64_read(&path->latency_ns);

	/* local_clock() of two CPUs may differ slightly. */
	lat = max_t(s64, lat, 0);
	atomic64_set(&path->latency_ns, old ? old + (lat - old) / 8 : lat);
}

/*
 * Errors that are the path's whatever the namespace: the transport's
 * (nvme: a host path error). Others that blk_path_error() lets through
 * (an I/O error above all) may be the namespace's too.
 */
static bool path_error(blk_status_t status)
{
	return status == BLK_STS_TRANSPORT || gpupath_compat_sts_offline(status);
}

static void clone_end_io(struct bio *clone)
{
	struct gpupath_vio *vio = container_of(clone, struct gpupath_vio, clone);
	struct gpupath_path *path = vio->path;
	struct gpupath_volume *vol = path->vol;
	blk_status_t status = clone->bi_status;

	if (!status) {
		atomic64_inc(&path->stats.ios);
		atomic64_add(vio->iter.bi_size, &path->stats.bytes);
		if (vio->p2p)
			atomic64_inc(&path->stats.direct_ios);
		if (vio->start)
			update_latency(path, local_clock() - vio->start);
		/* It failed elsewhere first, with an error that was that path's. */
		if (vio->suspect && vio->suspect != path)
			path_failed(vio->suspect, vio->status);
		if (vio->tries > 1)
			recovered(vol, path);
		path_put_io(vol, vio);
		orig_end(vol, vio, BLK_STS_OK);
		return;
	}
	atomic64_inc(&path->stats.errors);
	vio->status = status;
	/*
	 * Sent fail-fast, it got no retry of the NVMe driver's: an error the
	 * volume would end the bio with at once (a namespace not ready, an
	 * interrupted command: a target error) is sent again, once, without
	 * the flag, unless it is a refusal. Others go through retry() as any.
	 */
	if (vio->failfast && !blk_path_error(status) && status != BLK_STS_NOTSUPP &&
	    vio->tries < GPUPATH_TRIES_MAX) {
		vio->patient = true;
		vio->resend = true;
		park(vol, &vol->failed, vio);
		queue_work(system_wq, &vol->requeue_work);
		return;
	}
	/* No-wait I/O that would have waited goes back to be sent again. */
	if (!blk_path_error(status) || status == BLK_STS_AGAIN ||
	    vio->tries >= GPUPATH_TRIES_MAX) {
		path_put_io(vol, vio);
		orig_end(vol, vio, status);
		return;
	}
	/* The path's own error takes it out of use at once. */
	if (path_error(status))
		path_failed(path, status);
	/* Looked at where paths can be read, with the path held. */
	park(vol, &vol->failed, vio);
	queue_work(system_wq, &vol->requeue_work);
}

/*
 * Only service-time picks by the paths' latency (gpu-affinity too, when
 * it falls back on it); for the other policies the latency is only shown,
 * so one attempt in 64 is timed: two clock reads saved on the others.
 */
static DEFINE_PER_CPU(u32, latency_tick);

static bool wants_latency(struct gpupath_volume *vol)
{
	u32 policy = READ_ONCE(vol->policy);

	if (policy == GPUPATH_POLICY_GPU_AFFINITY)
		policy = READ_ONCE(vol->fallback);
	return policy == GPUPATH_POLICY_SERVICE_TIME ||
	       !(this_cpu_inc_return(latency_tick) & 63);
}

/*
 * The clone goes to @path's disk, in the cgroup of the bio it stands for:
 * one blkg lookup, on the disk that throttles and weighs it (the clone
 * was made with no disk, so it looked up none before).
 */
static void clone_set_dev(struct gpupath_vio *vio, struct gpupath_path *path)
{
	struct bio *clone = &vio->clone;

	clone->bi_bdev = path->dev.bdev;
	bio_associate_blkg_from_css(clone, bio_blkcg_css(vio->orig));
}

/*
 * Send @vio on a path, or queue it when there is none, or end it. Returns
 * false when it had to be queued for lack of a path.
 */
static bool map_bio(struct gpupath_volume *vol, struct gpupath_vio *vio)
{
	struct pick pk = { .dist = -1, .nowait = vio->orig->bi_opf & REQ_NOWAIT };
	enum gpupath_reason reason = GPUPATH_REASON_NONE;
	struct bio *clone = &vio->clone;
	struct gpupath_path *path = NULL;
	int idx;

	if (READ_ONCE(vol->dead)) {
		orig_end(vol, vio, vio->status ?: BLK_STS_IOERR);
		return true;
	}
	if (vio->suspect)
		pk.exclude = vio->suspect->id;
	vio->p2p = bio_p2p(vio->orig, &pk.prov);
	if (vio->p2p && !pk.prov)
		reason = GPUPATH_REASON_UNKNOWN_MEMORY;
	idx = srcu_read_lock(&vol->srcu);
	if (reason == GPUPATH_REASON_NONE)
		path = pick_path(vol, &pk);
	if (!path && vio->suspect && !pk.blocked && reason == GPUPATH_REASON_NONE) {
		/*
		 * Only the path held out for the bio's last error is left (the
		 * others failed meanwhile, and told nothing of the namespace):
		 * it takes the bio again, or the bio waits for any path.
		 */
		gpupath_multipath_inflight_put(vol, vio->suspect);
		vio->suspect = NULL;
		pk.exclude = 0;
		pk.dist = -1;
		pk.non_optimized = false;
		path = pick_path(vol, &pk);
	}
	if (path)
		atomic_inc(&path->inflight);
	else if (pk.prov && !pk.blocked)
		reason = refusal(vol, pk.prov);
	srcu_read_unlock(&vol->srcu, idx);
	if (pk.prov)
		gpupath_provider_put(pk.prov);

	if (!path) {
		if (reason != GPUPATH_REASON_NONE) {
			/* Usable paths, none of which can DMA this memory. */
			atomic64_inc(&vol->stats.refused);
			orig_end(vol, vio, BLK_STS_NOTSUPP);
		} else if (pk.nowait) {
			orig_end(vol, vio, BLK_STS_AGAIN);
		} else if (!queue_limit(vol)) {
			orig_end(vol, vio, vio->status ?: BLK_STS_IOERR);
		} else {
			return !queue_bio(vol, vio);
		}
		return true;
	}

	if (vio->tries)
		atomic64_inc(&vol->stats.retries);
	vio->tries++;
	vio->path = path;
	/*
	 * The same clone each time, as it was cloned: what the lower queue
	 * made of it last time (split, chained, advanced) is undone.
	 */
	clone->bi_iter = vio->iter;
	clone->bi_opf = vio->opf;
	clone->bi_flags = vio->flags;
	clone->bi_status = BLK_STS_OK;
	atomic_set(&clone->__bi_remaining, 1);
	clone_set_dev(vio, path);
	/*
	 * With other paths to go to, a per-controller path fails fast, as
	 * native multipath's requests do: a controller reconnecting does not
	 * hold the bio (the NVMe driver would requeue it until its
	 * fast_io_fail_tmo, by default never). The flag also stops the
	 * driver's own retries of an interrupted command or a namespace not
	 * ready: such an error is sent again without it (clone_end_io()).
	 * A path alone, or a bio sent again so, rides the reconnect out as
	 * any O_DIRECT I/O does.
	 */
	vio->failfast = !path->head && !vio->patient && READ_ONCE(vol->npaths) > 1;
	if (vio->failfast)
		clone->bi_opf |= REQ_FAILFAST_TRANSPORT;
	/*
	 * Device memory never shares a request with host memory on the path:
	 * bios a file system built for it carry no such flag of their own.
	 */
	if (vio->p2p)
		clone->bi_opf |= REQ_NOMERGE;
	vio->start = wants_latency(vol) ? local_clock() ?: 1 : 0;
	submit_bio_noacct(clone);
	return true;
}

/**
 * gpupath_multipath_submit_bio() - the volume's submit_bio: clone, send
 * @bio: a bio of /dev/gpupathN
 */
void gpupath_multipath_submit_bio(struct bio *bio)
{
	struct gpupath_volume *vol = bio->bi_bdev->bd_disk->private_data;
	gfp_t gfp = bio->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
	struct gpupath_vio *vio;
	struct bio *clone;

	if (!percpu_ref_tryget_live(&vol->io_ref)) {
		bio_io_error(bio);
		return;
	}
	clone = bio_alloc_clone(NULL, bio, gfp, &clone_bs);
	if (!clone) {
		percpu_ref_put(&vol->io_ref);
		bio_wouldblock_error(bio);
		return;
	}
	atomic_inc(&vol->inflight);
	vio = container_of(clone, struct gpupath_vio, clone);
	vio->orig = bio;
	vio->path = NULL;
	vio->iter = clone->bi_iter;
	vio->opf = clone->bi_opf;
	vio->flags = clone->bi_flags;
	vio->status = BLK_STS_OK;
	vio->tries = 0;
	vio->suspect = NULL;
	vio->ana_held = false;
	vio->patient = false;
	vio->resend = false;
	/*
	 * One I/O in diskstats however many attempts it takes: accounted on
	 * the bio received (its partition's and the whole volume's), from
	 * here until it is ended. An empty flush (fsync) is no read or write.
	 */
	vio->acct = blk_queue_io_stat(bio->bi_bdev->bd_disk->queue) &&
		    (bio_sectors(bio) || !op_is_flush(bio->bi_opf));
	if (vio->acct)
		vio->acct_start = bio_start_io_acct(bio);
	clone->bi_end_io = clone_end_io;
	map_bio(vol, vio);
}

/* Everything on @list, taken off the volume. */
static void take(struct gpupath_volume *vol, struct bio_list *list, struct bio_list *bios)
{
	spin_lock_irq(&vol->qlock);
	*bios = *list;
	bio_list_init(list);
	spin_unlock_irq(&vol->qlock);
}

/* Is the path's controller live? (Not an nvme controller: assume so.) */
static bool ctrl_live(struct gpupath_path *path)
{
	char state[32];
	int ret;

	if (!path->ctrl || !path->ctrl->class || strcmp(path->ctrl->class->name, "nvme"))
		return true;
	ret = gpupath_devattr_get(path->ctrl, NULL, "state", state, sizeof(state));
	if (ret == -ENOENT)
		return true;
	return !ret && !strcmp(state, "live");
}

/*
 * The error of @vio on @path, a path of a controller that reports ANA, with
 * no other path usable or after the same on another path: it may be the
 * array moving the namespace's group
 * (an ANA transition error, which the host driver reports as an I/O
 * error) before gpupathd has read the new state. Once per bio, the path is
 * taken out of use until gpupathd gives its ANA state (or the wait ends),
 * and the volume's I/O waits for up to the path's ANATT, instead of
 * failing.
 */
static bool ana_hold(struct gpupath_volume *vol, struct gpupath_vio *vio,
		     struct gpupath_path *path)
{
	u32 tt = READ_ONCE(path->ana_tt);
	u64 until, cur;

	if (vio->ana_held || !tt || READ_ONCE(vol->dead))
		return false;
	vio->ana_held = true;
	atomic_set(&path->ana_suspect, 1);
	until = now_ns() + (u64)tt * NSEC_PER_SEC;
	cur = atomic64_read(&vol->ana_hold_until);
	while (cur < until) {
		u64 old = atomic64_cmpxchg(&vol->ana_hold_until, cur, until);

		if (old == cur)
			break;
		cur = old;
	}
	return true;
}

static bool other_usable(struct gpupath_volume *vol, struct gpupath_path *path)
{
	struct gpupath_path *p;
	bool found = false;
	int idx;

	idx = srcu_read_lock(&vol->srcu);
	for_each_path(p, &vol->paths, &vol->srcu)
		found |= p != path && usable(p);
	srcu_read_unlock(&vol->srcu, idx);
	return found;
}

/*
 * An attempt of @vio failed with an error that may be its path's: is the
 * bio sent again? An error that is the path's (a transport error, or its
 * disk or controller going away) takes the path out of use, and the bio
 * goes on another path or waits for one. Any other error may as well be the
 * namespace's (write-protected, past its end after a shrink, an internal
 * error): the path stays, and the bio is tried once on another healthy
 * path. When it fails there too, or there is none, it may still be the
 * array moving the namespace's ANA group, which the host driver ends as an
 * I/O error once its own retries are spent: on paths that report ANA, the
 * paths it failed on are held out and the bio waits, once, for gpupathd to
 * read their new states (ana_hold()). Otherwise the error is the caller's.
 */
static bool retry(struct gpupath_volume *vol, struct gpupath_vio *vio)
{
	struct gpupath_path *path = vio->path, *suspect = vio->suspect;

	if (vio->resend) {
		vio->resend = false;
		path_put_io(vol, vio);
		return true;
	}

	if (path_error(vio->status) || !disk_live(path->dev.bdev->bd_disk) ||
	    !ctrl_live(path)) {
		path_failed(path, vio->status);
		path_put_io(vol, vio);
		return true;
	}
	if (!suspect && other_usable(vol, path)) {
		/* Held until the bio ends: out of use if another path takes the bio. */
		vio->suspect = path;
		vio->path = NULL;
		return true;
	}
	if (!ana_hold(vol, vio, path)) {
		path_put_io(vol, vio);
		return false;
	}
	path_failed(path, vio->status);
	path_put_io(vol, vio);
	if (suspect) {
		atomic_set(&suspect->ana_suspect, 1);
		path_failed(suspect, vio->status);
		gpupath_multipath_inflight_put(vol, suspect);
		vio->suspect = NULL;
	}
	return true;
}

static void requeue_work(struct work_struct *work)
{
	struct gpupath_volume *vol = container_of(work, struct gpupath_volume, requeue_work);
	struct bio_list failed, bios;
	struct gpupath_vio *vio;
	struct blk_plug plug;
	struct bio *bio;

	take(vol, &vol->failed, &failed);
	bio_list_init(&bios);
	while ((bio = bio_list_pop(&failed))) {
		vio = container_of(bio, struct gpupath_vio, clone);
		if (retry(vol, vio))
			bio_list_add(&bios, bio);
		else
			orig_end(vol, vio, vio->status);
	}
	spin_lock_irq(&vol->qlock);
	bio_list_merge(&bios, &vol->queued);
	bio_list_init(&vol->queued);
	spin_unlock_irq(&vol->qlock);

	blk_start_plug(&plug);
	while ((bio = bio_list_pop(&bios))) {
		if (!map_bio(vol, container_of(bio, struct gpupath_vio, clone))) {
			/* No path again: the rest wait too, in order ... */
			spin_lock_irq(&vol->qlock);
			if (!READ_ONCE(vol->dead)) {
				bio_list_merge(&vol->queued, &bios);
				bio_list_init(&bios);
			}
			spin_unlock_irq(&vol->qlock);
			/* ... unless the volume's last pass over them is done. */
			while ((bio = bio_list_pop(&bios)))
				map_bio(vol, container_of(bio, struct gpupath_vio, clone));
			break;
		}
	}
	blk_finish_plug(&plug);
}

/**
 * gpupath_multipath_kick() - a path may be usable again: try the queued bios
 * @vol: the volume
 */
void gpupath_multipath_kick(struct gpupath_volume *vol)
{
	if (gpupath_volume_usable(vol))
		atomic64_set(&vol->nopath_since, 0);
	queue_work(system_wq, &vol->requeue_work);
}

/**
 * gpupath_multipath_fail_queued() - fail every bio waiting for a path
 * @vol: the volume
 * @status: what they end with
 */
void gpupath_multipath_fail_queued(struct gpupath_volume *vol, blk_status_t status)
{
	struct bio_list bios;
	struct bio *bio;

	take(vol, &vol->queued, &bios);
	while ((bio = bio_list_pop(&bios)))
		orig_end(vol, container_of(bio, struct gpupath_vio, clone), status);
}

/* Whether any page of @bio's data is memory @match names. */
static bool bio_uses(struct bio *bio, bool (*match)(struct page *page, void *arg), void *arg)
{
	struct bvec_iter iter;
	struct bio_vec bv;

	if (!bio_has_data(bio))
		return false;
	bio_for_each_segment(bv, bio, iter)
		if (is_pci_p2pdma_page(bv.bv_page) && match(bv.bv_page, arg))
			return true;
	return false;
}

/**
 * gpupath_multipath_fail_memory() - fail the bios waiting for a path whose
 *	data is device memory being taken back
 * @vol: the volume
 * @match: whether a P2PDMA page is of that memory
 * @arg: for @match
 *
 * A revocation waits for the I/O on the memory; a bio waiting for a path
 * could keep it waiting up to the queue timeout, or for ever. The others
 * keep their place.
 */
void gpupath_multipath_fail_memory(struct gpupath_volume *vol,
				   bool (*match)(struct page *page, void *arg), void *arg)
{
	struct bio_list bios, keep;
	struct gpupath_vio *vio;
	struct bio *bio;

	bio_list_init(&keep);
	take(vol, &vol->queued, &bios);
	while ((bio = bio_list_pop(&bios))) {
		vio = container_of(bio, struct gpupath_vio, clone);
		if (bio_uses(vio->orig, match, arg))
			orig_end(vol, vio, BLK_STS_IOERR);
		else
			bio_list_add(&keep, bio);
	}
	spin_lock_irq(&vol->qlock);
	bio_list_merge(&keep, &vol->queued);
	vol->queued = keep;
	spin_unlock_irq(&vol->qlock);
}

/**
 * gpupath_multipath_refresh_locked() - what the volume says of itself
 * follows its paths
 * @vol: the volume, its lock held
 *
 * The smallest size of a live path (a resized namespace shows on its paths
 * one after the other), a write cache and stable pages when any path has
 * them, FUA when all of them do, and no-wait I/O when every path takes it.
 */
void gpupath_multipath_refresh_locked(struct gpupath_volume *vol)
{
	bool wc = false, fua = true, stable = false, nowait = true, any = false;
	struct gpupath_path *path;
	struct block_device *bdev;
	sector_t size = 0;

	lockdep_assert_held(&vol->lock);
	list_for_each_entry(path, &vol->paths, node) {
		bdev = path->dev.bdev;
		/*
		 * A namespace being removed shows 0 sectors before its disk
		 * goes: it says nothing of the volume, whose size must not
		 * drop to 0 under I/O meanwhile.
		 */
		if (!disk_live(bdev->bd_disk) || !bdev_nr_sectors(bdev))
			continue;
		if (!any || bdev_nr_sectors(bdev) < size)
			size = bdev_nr_sectors(bdev);
		any = true;
		wc |= bdev_write_cache(bdev);
		fua &= bdev_fua(bdev);
		stable |= bdev_stable_writes(bdev);
		nowait &= bdev_nowait(bdev);
	}
	if (!any)
		return;
	gpupath_compat_disk_features(vol->disk, wc, fua, stable, nowait);
	if (size == get_capacity(vol->disk))
		return;
	if (get_capacity(vol->disk)) {
		set_capacity_and_notify(vol->disk, size);
		return;
	}
	/*
	 * Its size first known: the partition table is read by the next open
	 * (udev's, on this event), as nbd does, not by the module with the
	 * disk's open_mutex held while the reads wait for a path.
	 */
	set_capacity(vol->disk, size);
	set_bit(GD_NEED_PART_SCAN, &vol->disk->state);
	kobject_uevent(&disk_to_dev(vol->disk)->kobj, KOBJ_CHANGE);
}

/*
 * Every second while a path has failed or I/O waits, and at once when a
 * path's disk is deleted: failed paths whose controller is live come back
 * (failback), those whose disk was deleted are gone; queued I/O past the
 * timeout fails.
 */
static void probe_work(struct work_struct *work)
{
	struct gpupath_volume *vol = container_of(to_delayed_work(work), struct gpupath_volume,
						  probe_work);
	bool again = false, back = false, any;
	struct gpupath_path *path;
	u64 since, tmo;

	mutex_lock(&vol->lock);
	list_for_each_entry(path, &vol->paths, node) {
		if (READ_ONCE(path->health) == GPUPATH_HEALTH_GONE)
			continue;
		if (!disk_live(path->dev.bdev->bd_disk)) {
			WRITE_ONCE(path->health, GPUPATH_HEALTH_GONE);
		} else if (READ_ONCE(path->health) != GPUPATH_HEALTH_FAILED) {
			continue;
		} else if (atomic_read(&path->ana_suspect) &&
			   now_ns() < (u64)atomic64_read(&vol->ana_hold_until)) {
			/* Out until gpupathd reads its ANA state, or the hold ends. */
			again = true;
		} else if (ctrl_live(path)) {
			atomic_set(&path->ana_suspect, 0);
			atomic_set(&path->timed, 0);
			WRITE_ONCE(path->health, GPUPATH_HEALTH_LIVE);
			back = true;
		} else {
			again = true;
		}
	}
	gpupath_multipath_refresh_locked(vol);
	mutex_unlock(&vol->lock);
	schedule_work(&vol->event_work);
	if (back)
		gpupath_multipath_kick(vol);

	spin_lock_irq(&vol->qlock);
	any = !bio_list_empty(&vol->queued);
	spin_unlock_irq(&vol->qlock);
	since = atomic64_read(&vol->nopath_since);
	tmo = queue_limit(vol);
	if (any && gpupath_volume_usable(vol)) {
		gpupath_multipath_kick(vol);
	} else if (any && since && tmo != GPUPATH_QUEUE_FOREVER &&
		   now_ns() - since >= tmo * NSEC_PER_MSEC) {
		gpupath_multipath_fail_queued(vol, BLK_STS_IOERR);
	} else if (any) {
		again = true;
	}
	if (again)
		mod_delayed_work(system_wq, &vol->probe_work, probe_delay(vol));
}

/*
 * Every GPUPATH_REFRESH_MS while the volume has paths: its size and cache
 * follow its paths' (besides at each path event and probe).
 */
static void refresh_work(struct work_struct *work)
{
	struct gpupath_volume *vol = container_of(to_delayed_work(work), struct gpupath_volume,
						  refresh_work);

	mutex_lock(&vol->lock);
	gpupath_multipath_refresh_locked(vol);
	mutex_unlock(&vol->lock);
	gpupath_multipath_refresh_soon(vol);
}

/**
 * gpupath_multipath_refresh_soon() - have the volume look at its paths in
 *	GPUPATH_REFRESH_MS, and every time after while it has any
 * @vol: the volume
 */
void gpupath_multipath_refresh_soon(struct gpupath_volume *vol)
{
	if (READ_ONCE(vol->npaths) && !READ_ONCE(vol->dead))
		queue_delayed_work(system_wq, &vol->refresh_work,
				   msecs_to_jiffies(GPUPATH_REFRESH_MS));
}

/*
 * A path's disk is being deleted (its controller went): the probe marks the
 * path gone now, not at the path's next I/O error, which may never come.
 * Under the block layer's holder lock: only queues work (see compat.h).
 */
static void bdev_dead(struct gpupath_compat_holder *holder)
{
	struct gpupath_volume *vol = container_of(holder, struct gpupath_volume, holder);

	mod_delayed_work(system_wq, &vol->probe_work, 0);
}

/* Sends what happened; each health change of a path is reported once. */
static void event_work(struct work_struct *work)
{
	struct gpupath_volume *vol = container_of(work, struct gpupath_volume, event_work);
	static const u32 health_event[] = {
		[GPUPATH_HEALTH_LIVE] = GPUPATH_EVENT_FAILBACK,
		[GPUPATH_HEALTH_FAILED] = GPUPATH_EVENT_PATH_FAILED,
		[GPUPATH_HEALTH_GONE] = GPUPATH_EVENT_PATH_GONE,
	};
	struct gpupath_path *path;
	u32 health;

	mutex_lock(&vol->lock);
	list_for_each_entry(path, &vol->paths, node) {
		health = READ_ONCE(path->health);
		if (health == path->reported)
			continue;
		path->reported = health;
		gpupath_notify_event(health_event[health], vol->id, path->id,
				     health == GPUPATH_HEALTH_FAILED ? -READ_ONCE(path->error) : 0,
				     0, 0);
	}
	mutex_unlock(&vol->lock);
	if (test_and_clear_bit(GPUPATH_PENDING_NO_PATH, &vol->pending))
		gpupath_notify_event(GPUPATH_EVENT_NO_PATH, vol->id, 0, 0, 0, 0);
	if (test_and_clear_bit(GPUPATH_PENDING_FAILOVER, &vol->pending))
		gpupath_notify_event(GPUPATH_EVENT_FAILOVER, vol->id, READ_ONCE(vol->fail_path), 0,
				     READ_ONCE(vol->failover_ns), 0);
	if (test_and_clear_bit(GPUPATH_PENDING_IO_ERROR, &vol->pending))
		gpupath_notify_event(GPUPATH_EVENT_IO_ERROR, vol->id, 0, -READ_ONCE(vol->ioerr), 0,
				     atomic64_xchg(&vol->ioerr_count, 0));
}

/**
 * gpupath_volume_usable() - how many paths take new I/O now
 * @vol: the volume
 *
 * Return: the count.
 */
u32 gpupath_volume_usable(struct gpupath_volume *vol)
{
	struct gpupath_path *path;
	u32 n = 0;
	int idx;

	idx = srcu_read_lock(&vol->srcu);
	for_each_path(path, &vol->paths, &vol->srcu)
		n += usable(path);
	srcu_read_unlock(&vol->srcu, idx);
	return n;
}

/**
 * gpupath_multipath_setup() - a new volume's I/O state
 * @vol: the volume, zeroed
 *
 * Return: 0 or a negative errno (its I/O reference could not be made).
 */
int gpupath_multipath_setup(struct gpupath_volume *vol)
{
	spin_lock_init(&vol->qlock);
	bio_list_init(&vol->queued);
	bio_list_init(&vol->failed);
	init_completion(&vol->drained);
	INIT_WORK(&vol->requeue_work, requeue_work);
	INIT_WORK(&vol->event_work, event_work);
	INIT_DELAYED_WORK(&vol->probe_work, probe_work);
	INIT_DELAYED_WORK(&vol->refresh_work, refresh_work);
	vol->holder.dead = bdev_dead;
	return percpu_ref_init(&vol->io_ref, io_drained, 0, GFP_KERNEL);
}

/**
 * gpupath_multipath_init() - the clones' bio_set
 *
 * Return: 0 or a negative errno.
 */
int __init gpupath_multipath_init(void)
{
	return bioset_init(&clone_bs, BIO_POOL_SIZE, offsetof(struct gpupath_vio, clone), 0);
}

/**
 * gpupath_multipath_exit() - the clones' bio_set goes, after every volume
 */
void gpupath_multipath_exit(void)
{
	bioset_exit(&clone_bs);
}
