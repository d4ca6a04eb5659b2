// SPDX-License-Identifier: GPL-2.0
/*
 * Volumes: one NVMe namespace reached over several paths, exposed as the
 * bio-based block device /dev/gpupathN. Each bio is cloned onto a path
 * picked by the volume's policy; a clone that fails with a path error takes
 * its path out of use and the bio is sent again on another path, or waits
 * for one (up to the queue timeout) when none is left. Device memory only
 * goes to paths whose DMA engine can reach it.
 *
 * Paths live on an SRCU list: selection may sleep (P2P distances are
 * computed by the PCI core). Each path counts its clones in flight, and
 * removing a path waits for them.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/idr.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pci-p2pdma.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

#include "devattr.h"
#include "io.h"
#include "netlink.h"
#include "provider.h"
#include "volume.h"

#define GPUPATH_PROBE_MS		1000
#define GPUPATH_QUEUE_TIMEOUT_DEFAULT	30000

/* Volume-level events waiting to be sent (bits of vol->pending). */
enum {
	GPUPATH_PENDING_FAILOVER,
	GPUPATH_PENDING_NO_PATH,
	GPUPATH_PENDING_IO_ERROR,
};

static DEFINE_MUTEX(volumes_lock);	/* volumes, volume_next_id, index_ida */
static LIST_HEAD(volumes);
static u32 volume_next_id = 1;
static atomic_t path_last_id = ATOMIC_INIT(0);
static atomic_t volume_gen = ATOMIC_INIT(1);
static DEFINE_IDA(index_ida);
static int gpupath_major;

static const struct block_device_operations volume_fops;

/**
 * struct gpupath_vio - one attempt of a bio on a path
 * @path: where it went
 * @orig: the bio the volume received
 * @start: local_clock() when it was sent (cheap on every clock source)
 * @p2p: its data is device memory
 * @retry: the bio had failed on another path before
 * @clone: sent to the path; last, the bio_set's front pad precedes it
 */
struct gpupath_vio {
	struct gpupath_path *path;
	struct bio *orig;
	u64 start;
	bool p2p;
	bool retry;
	struct bio clone;
};

/*
 * The clones of every volume's bios, with their context in front. One set
 * for the module: a clone's lower device never allocates from it, so its
 * reserve always comes back, and making a volume creates no kmem cache.
 */
static struct bio_set clone_bs;

static void volume_release(struct kref *ref)
{
	struct gpupath_volume *vol = container_of(ref, struct gpupath_volume, ref);

	cleanup_srcu_struct(&vol->srcu);
	put_disk(vol->disk);
	kfree(vol);
}

/**
 * gpupath_volume_put() - drop a reference
 * @vol: the volume
 */
void gpupath_volume_put(struct gpupath_volume *vol)
{
	kref_put(&vol->ref, volume_release);
}

static struct gpupath_volume *find_locked(u32 id)
{
	struct gpupath_volume *vol;

	lockdep_assert_held(&volumes_lock);
	list_for_each_entry(vol, &volumes, node)
		if (vol->id == id)
			return vol;
	return NULL;
}

/**
 * gpupath_volume_get() - look a volume up by id
 * @id: the id
 *
 * Return: the volume with a reference, or ERR_PTR(-ENOENT).
 */
struct gpupath_volume *gpupath_volume_get(u32 id)
{
	struct gpupath_volume *vol;

	mutex_lock(&volumes_lock);
	vol = find_locked(id);
	if (vol)
		kref_get(&vol->ref);
	mutex_unlock(&volumes_lock);
	return vol ?: ERR_PTR(-ENOENT);
}

/**
 * gpupath_volume_next() - the volume after @after in id order, for dumps
 * @after: an id, 0 for the first
 *
 * Return: the volume with a reference, or NULL at the end.
 */
struct gpupath_volume *gpupath_volume_next(u32 after)
{
	struct gpupath_volume *vol, *next = NULL;

	mutex_lock(&volumes_lock);
	list_for_each_entry(vol, &volumes, node) {
		if (vol->id > after) {
			next = vol;
			kref_get(&next->ref);
			break;
		}
	}
	mutex_unlock(&volumes_lock);
	return next;
}

/**
 * gpupath_volume_generation() - changes whenever a volume or path comes or goes
 *
 * Return: the generation, for genl_dump_check_consistent().
 */
u32 gpupath_volume_generation(void)
{
	return atomic_read(&volume_gen);
}

static void volumes_changed(void)
{
	atomic_inc(&volume_gen);
}

/**
 * gpupath_volume_of_path() - the volume a path belongs to
 * @path_id: the path's id
 *
 * Return: the volume with a reference, or ERR_PTR(-ENOENT).
 */
struct gpupath_volume *gpupath_volume_of_path(u32 path_id)
{
	struct gpupath_volume *vol, *found = NULL;
	struct gpupath_path *path;

	mutex_lock(&volumes_lock);
	list_for_each_entry(vol, &volumes, node) {
		mutex_lock(&vol->lock);
		list_for_each_entry(path, &vol->paths, node)
			if (path->id == path_id)
				found = vol;
		mutex_unlock(&vol->lock);
		if (found) {
			kref_get(&found->ref);
			break;
		}
	}
	mutex_unlock(&volumes_lock);
	return found ?: ERR_PTR(-ENOENT);
}

/**
 * gpupath_volume_of_bdev() - the volume a block device is, if it is one
 * @bdev: the block device
 *
 * Return: the volume (no reference: the caller holds the device open), or
 * NULL.
 */
struct gpupath_volume *gpupath_volume_of_bdev(struct block_device *bdev)
{
	if (bdev->bd_disk->fops != &volume_fops)
		return NULL;
	return bdev->bd_disk->private_data;
}

static u64 now_ns(void)
{
	return ktime_get_ns();
}

static bool usable(struct gpupath_path *path)
{
	return READ_ONCE(path->state) == GPUPATH_PATH_UP &&
	       READ_ONCE(path->health) == GPUPATH_HEALTH_LIVE &&
	       READ_ONCE(path->link) != GPUPATH_LINK_DOWN;
}

/* How far @prov's memory is from the path's DMA engine; -1: unreachable. */
static int path_distance(struct gpupath_path *path, struct gpupath_provider *prov)
{
	u64 cached = atomic64_read(&path->p2p_cache);
	int dist;

	if (cached >> 32 == prov->id)
		return (int)(u32)cached - 1;
	dist = gpupath_dma_distance(&path->dma, prov);
	atomic64_set(&path->p2p_cache, (u64)prov->id << 32 | (u32)(dist + 1));
	return dist;
}

/*
 * What a bio may use: usable paths, and for device memory only those that
 * can DMA it, at distance @dist when that is not -1.
 */
struct pick {
	struct gpupath_provider *prov;
	int dist;
};

static bool eligible(struct gpupath_path *path, struct pick *pk)
{
	int d;

	if (!usable(path))
		return false;
	if (!pk->prov)
		return true;
	d = path_distance(path, pk->prov);
	return d >= 0 && (pk->dist < 0 || d == pk->dist);
}

/* Readers of vol->paths hold vol->srcu. */
#define for_each_path(path, head, srcu) \
	list_for_each_entry_srcu(path, head, node, srcu_read_lock_held(srcu))

static struct gpupath_path *pick_rr(struct gpupath_volume *vol, struct pick *pk)
{
	struct gpupath_path *path;
	unsigned int n = 0, i;

	for_each_path(path, &vol->paths, &vol->srcu)
		n += eligible(path, pk);
	if (!n)
		return NULL;
	i = (unsigned int)atomic_inc_return(&vol->rr) % n;
	for_each_path(path, &vol->paths, &vol->srcu)
		if (eligible(path, pk) && !i--)
			return path;
	return NULL;
}

static struct gpupath_path *pick_weighted(struct gpupath_volume *vol, struct pick *pk)
{
	struct gpupath_path *path;
	unsigned int total = 0, i;

	for_each_path(path, &vol->paths, &vol->srcu)
		if (eligible(path, pk))
			total += READ_ONCE(path->weight);
	if (!total)
		return NULL;
	i = (unsigned int)atomic_inc_return(&vol->rr) % total;
	for_each_path(path, &vol->paths, &vol->srcu) {
		if (!eligible(path, pk))
			continue;
		if (i < READ_ONCE(path->weight))
			return path;
		i -= READ_ONCE(path->weight);
	}
	return NULL;
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
	struct gpupath_path *path;
	int d;

	if (pk->prov) {
		for_each_path(path, &vol->paths, &vol->srcu) {
			if (!eligible(path, pk))
				continue;
			d = path_distance(path, pk->prov);
			if (pk->dist < 0 || d < pk->dist)
				pk->dist = d;
		}
	}
	return pick_by(vol, pk, READ_ONCE(vol->fallback));
}

/* Under vol->srcu. */
static struct gpupath_path *pick_path(struct gpupath_volume *vol, struct gpupath_provider *prov)
{
	struct pick pk = { .prov = prov, .dist = -1 };
	u32 policy = READ_ONCE(vol->policy);

	if (policy == GPUPATH_POLICY_GPU_AFFINITY)
		return pick_affinity(vol, &pk);
	return pick_by(vol, &pk, policy);
}

/* Why none of the usable paths can DMA @prov's memory. Under vol->srcu. */
static enum gpupath_reason refusal(struct gpupath_volume *vol, struct gpupath_provider *prov)
{
	struct gpupath_path *path;

	for_each_path(path, &vol->paths, &vol->srcu)
		if (usable(path))
			return gpupath_dma_reason(&path->dma, prov);
	return GPUPATH_REASON_NONE;
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

/* The provider whose P2P memory the bio's data is in, with a reference. */
static struct gpupath_provider *bio_provider(struct bio *bio)
{
	struct page *page;

	if (!bio_has_data(bio))
		return NULL;
	page = bio_page(bio);
	if (!is_pci_p2pdma_page(page))
		return NULL;
	return gpupath_provider_of_page(page);
}

static void event(struct gpupath_volume *vol, int bit)
{
	set_bit(bit, &vol->pending);
	schedule_work(&vol->event_work);
}

/* The bio leaves the volume. */
static void orig_end(struct gpupath_volume *vol, struct bio *orig, blk_status_t status)
{
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
	orig->bi_status = status;
	bio_endio(orig);
	if (atomic_dec_and_test(&vol->inflight))
		wake_up_all(&vol->wait);
}

static void park(struct gpupath_volume *vol, struct bio *orig)
{
	unsigned long flags;

	spin_lock_irqsave(&vol->qlock, flags);
	bio_list_add(&vol->queued, orig);
	spin_unlock_irqrestore(&vol->qlock, flags);
}

static unsigned long probe_delay(struct gpupath_volume *vol)
{
	return msecs_to_jiffies(min_t(u32, GPUPATH_PROBE_MS, READ_ONCE(vol->queue_timeout)));
}

/* No usable path: @orig waits for one, up to the queue timeout. */
static void queue_bio(struct gpupath_volume *vol, struct bio *orig)
{
	if (!atomic64_cmpxchg(&vol->nopath_since, 0, now_ns()))
		event(vol, GPUPATH_PENDING_NO_PATH);
	park(vol, orig);
	atomic64_inc(&vol->stats.queued);
	mod_delayed_work(system_wq, &vol->probe_work, probe_delay(vol));
}

static void path_failed(struct gpupath_path *path, blk_status_t status)
{
	struct gpupath_volume *vol = path->vol;

	if (cmpxchg(&path->health, GPUPATH_HEALTH_LIVE, GPUPATH_HEALTH_FAILED) !=
	    GPUPATH_HEALTH_LIVE)
		return;
	WRITE_ONCE(path->error, blk_status_to_errno(status));
	if (!atomic64_cmpxchg(&vol->fail_start, 0, now_ns()))
		WRITE_ONCE(vol->fail_path, path->id);
	schedule_work(&vol->event_work);
	mod_delayed_work(system_wq, &vol->probe_work, msecs_to_jiffies(GPUPATH_PROBE_MS));
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

static void clone_end_io(struct bio *clone)
{
	struct gpupath_vio *vio = container_of(clone, struct gpupath_vio, clone);
	struct gpupath_path *path = vio->path;
	struct gpupath_volume *vol = path->vol;
	blk_status_t status = clone->bi_status;
	struct bio *orig = vio->orig;

	if (!status) {
		atomic64_inc(&path->stats.ios);
		atomic64_add(orig->bi_iter.bi_size, &path->stats.bytes);
		if (vio->p2p)
			atomic64_inc(&path->stats.direct_ios);
		update_latency(path, local_clock() - vio->start);
		if (vio->retry)
			recovered(vol, path);
	} else {
		atomic64_inc(&path->stats.errors);
		if (blk_path_error(status))
			path_failed(path, status);
	}
	bio_put(clone);
	if (atomic_dec_and_test(&path->inflight))
		wake_up_all(&vol->wait);

	if (status && blk_path_error(status)) {
		/* Sent again from process context, where paths can be picked. */
		atomic64_inc(&vol->stats.retries);
		park(vol, orig);
		queue_work(system_wq, &vol->requeue_work);
		return;
	}
	orig_end(vol, orig, status);
}

/*
 * Send @orig down a path, or queue it when there is none, or end it. Returns
 * false when it had to be queued for lack of a path.
 */
static bool map_bio(struct gpupath_volume *vol, struct bio *orig, bool retry)
{
	struct gpupath_provider *prov = bio_provider(orig);
	enum gpupath_reason reason = GPUPATH_REASON_NONE;
	struct gpupath_path *path;
	struct gpupath_vio *vio;
	struct bio *clone;
	int idx;

	idx = srcu_read_lock(&vol->srcu);
	path = pick_path(vol, prov);
	if (path)
		atomic_inc(&path->inflight);
	else if (prov)
		reason = refusal(vol, prov);
	srcu_read_unlock(&vol->srcu, idx);
	if (prov)
		gpupath_provider_put(prov);

	if (!path) {
		if (reason != GPUPATH_REASON_NONE) {
			/* Usable paths, none of which can DMA this memory. */
			atomic64_inc(&vol->stats.refused);
			gpupath_io_refused(orig, reason);
			orig_end(vol, orig, BLK_STS_NOTSUPP);
		} else if (!READ_ONCE(vol->queue_timeout)) {
			orig_end(vol, orig, BLK_STS_IOERR);
		} else if (orig->bi_opf & REQ_NOWAIT) {
			orig_end(vol, orig, BLK_STS_AGAIN);
		} else {
			queue_bio(vol, orig);
			return false;
		}
		return true;
	}

	clone = bio_alloc_clone(path->dev.bdev, orig, GFP_NOIO, &clone_bs);
	vio = container_of(clone, struct gpupath_vio, clone);
	vio->path = path;
	vio->orig = orig;
	vio->p2p = prov;
	vio->retry = retry;
	vio->start = local_clock();
	clone->bi_end_io = clone_end_io;
	/* Fail fast on a broken transport: the volume has other paths. */
	if (!path->head)
		clone->bi_opf |= REQ_FAILFAST_TRANSPORT;
	submit_bio_noacct(clone);
	return true;
}

static void volume_submit_bio(struct bio *bio)
{
	struct gpupath_volume *vol = bio->bi_bdev->bd_disk->private_data;

	atomic_inc(&vol->inflight);
	map_bio(vol, bio, false);
}

static const struct block_device_operations volume_fops = {
	.owner = THIS_MODULE,
	.submit_bio = volume_submit_bio,
};

/* Everything queued, taken off the volume. */
static void take_queued(struct gpupath_volume *vol, struct bio_list *bios)
{
	spin_lock_irq(&vol->qlock);
	*bios = vol->queued;
	bio_list_init(&vol->queued);
	spin_unlock_irq(&vol->qlock);
}

static void requeue_work(struct work_struct *work)
{
	struct gpupath_volume *vol = container_of(work, struct gpupath_volume, requeue_work);
	struct bio_list bios;
	struct bio *bio;

	take_queued(vol, &bios);
	while ((bio = bio_list_pop(&bios))) {
		if (!map_bio(vol, bio, true)) {
			/* No path again: the rest wait too, in order. */
			spin_lock_irq(&vol->qlock);
			bio_list_merge(&vol->queued, &bios);
			spin_unlock_irq(&vol->qlock);
			break;
		}
	}
}

/* A path may be usable again: try the queued bios. */
static void kick(struct gpupath_volume *vol)
{
	if (gpupath_volume_usable(vol))
		atomic64_set(&vol->nopath_since, 0);
	queue_work(system_wq, &vol->requeue_work);
}

/* Fail everything queued, with @status. */
static void fail_queued(struct gpupath_volume *vol, blk_status_t status)
{
	struct bio_list bios;
	struct bio *bio;

	take_queued(vol, &bios);
	while ((bio = bio_list_pop(&bios)))
		orig_end(vol, bio, status);
}

/* Is the path's controller live again? (Not an nvme controller: assume so.) */
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
 * Every second while a path has failed or I/O waits: failed paths whose
 * controller is live come back (failback), those whose disk was deleted are
 * gone; queued I/O past the timeout fails.
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
		if (READ_ONCE(path->health) != GPUPATH_HEALTH_FAILED)
			continue;
		if (!disk_live(path->dev.bdev->bd_disk)) {
			WRITE_ONCE(path->health, GPUPATH_HEALTH_GONE);
		} else if (ctrl_live(path)) {
			WRITE_ONCE(path->health, GPUPATH_HEALTH_LIVE);
			back = true;
		} else {
			again = true;
		}
	}
	mutex_unlock(&vol->lock);
	schedule_work(&vol->event_work);
	if (back)
		kick(vol);

	spin_lock_irq(&vol->qlock);
	any = !bio_list_empty(&vol->queued);
	spin_unlock_irq(&vol->qlock);
	since = atomic64_read(&vol->nopath_since);
	tmo = READ_ONCE(vol->queue_timeout);
	if (any && gpupath_volume_usable(vol)) {
		kick(vol);
	} else if (any && since && tmo != GPUPATH_QUEUE_FOREVER &&
		   now_ns() - since >= tmo * NSEC_PER_MSEC) {
		fail_queued(vol, BLK_STS_IOERR);
	} else if (any) {
		again = true;
	}
	if (again)
		mod_delayed_work(system_wq, &vol->probe_work, probe_delay(vol));
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
		gpupath_genl_event(health_event[health], vol->id, path->id,
				   health == GPUPATH_HEALTH_FAILED ? -READ_ONCE(path->error) : 0,
				   0, 0);
	}
	mutex_unlock(&vol->lock);
	if (test_and_clear_bit(GPUPATH_PENDING_NO_PATH, &vol->pending))
		gpupath_genl_event(GPUPATH_EVENT_NO_PATH, vol->id, 0, 0, 0, 0);
	if (test_and_clear_bit(GPUPATH_PENDING_FAILOVER, &vol->pending))
		gpupath_genl_event(GPUPATH_EVENT_FAILOVER, vol->id, READ_ONCE(vol->fail_path), 0,
				   READ_ONCE(vol->failover_ns), 0);
	if (test_and_clear_bit(GPUPATH_PENDING_IO_ERROR, &vol->pending))
		gpupath_genl_event(GPUPATH_EVENT_IO_ERROR, vol->id, 0, -READ_ONCE(vol->ioerr), 0,
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
 * gpupath_volume_mode() - managed, native, or empty
 * @vol: the volume, vol->lock held
 *
 * Return: enum gpupath_volume_mode.
 */
u32 gpupath_volume_mode(struct gpupath_volume *vol)
{
	struct gpupath_path *path;

	lockdep_assert_held(&vol->lock);
	path = list_first_entry_or_null(&vol->paths, struct gpupath_path, node);
	if (!path)
		return GPUPATH_VOLUME_EMPTY;
	return path->head ? GPUPATH_VOLUME_NATIVE : GPUPATH_VOLUME_MANAGED;
}

static int check_cfg(const struct gpupath_volume_cfg *cfg, struct netlink_ext_ack *extack)
{
	if (cfg->fallback == GPUPATH_POLICY_GPU_AFFINITY) {
		NL_SET_ERR_MSG(extack, "gpu-affinity cannot be its own fallback");
		return -EINVAL;
	}
	return 0;
}

/* Settings checked with check_cfg(). */
static void apply_cfg(struct gpupath_volume *vol, const struct gpupath_volume_cfg *cfg)
{
	if (cfg->policy >= 0)
		WRITE_ONCE(vol->policy, cfg->policy);
	if (cfg->fallback >= 0)
		WRITE_ONCE(vol->fallback, cfg->fallback);
	if (cfg->queue_timeout >= 0)
		WRITE_ONCE(vol->queue_timeout, cfg->queue_timeout);
}

/**
 * gpupath_volume_add() - a new volume and its block device
 * @cfg: its settings
 * @extack: for error messages
 * @volp: the new volume, with a reference
 *
 * Return: 0 or a negative errno.
 */
int gpupath_volume_add(const struct gpupath_volume_cfg *cfg, struct netlink_ext_ack *extack,
		       struct gpupath_volume **volp)
{
	struct gpupath_volume *vol;
	int ret;

	ret = check_cfg(cfg, extack);
	if (ret)
		return ret;
	vol = kzalloc(sizeof(*vol), GFP_KERNEL);
	if (!vol)
		return -ENOMEM;
	kref_init(&vol->ref);
	mutex_init(&vol->lock);
	INIT_LIST_HEAD(&vol->paths);
	init_waitqueue_head(&vol->wait);
	spin_lock_init(&vol->qlock);
	bio_list_init(&vol->queued);
	INIT_WORK(&vol->requeue_work, requeue_work);
	INIT_WORK(&vol->event_work, event_work);
	INIT_DELAYED_WORK(&vol->probe_work, probe_work);
	vol->policy = GPUPATH_POLICY_ROUND_ROBIN;
	vol->fallback = GPUPATH_POLICY_ROUND_ROBIN;
	vol->queue_timeout = GPUPATH_QUEUE_TIMEOUT_DEFAULT;
	if (cfg->wwid)
		strscpy(vol->wwid, cfg->wwid, sizeof(vol->wwid));
	apply_cfg(vol, cfg);

	ret = init_srcu_struct(&vol->srcu);
	if (ret)
		goto err_free;
	ret = -ENOMEM;
	vol->disk = blk_alloc_disk(NUMA_NO_NODE);
	if (!vol->disk)
		goto err_srcu;

	mutex_lock(&volumes_lock);
	ret = ida_alloc_max(&index_ida, MINORMASK, GFP_KERNEL);
	if (ret < 0) {
		mutex_unlock(&volumes_lock);
		NL_SET_ERR_MSG(extack, "no free volume number");
		goto err_disk;
	}
	vol->index = ret;
	vol->id = volume_next_id++;
	mutex_unlock(&volumes_lock);

	vol->disk->major = gpupath_major;
	vol->disk->first_minor = vol->index;
	vol->disk->minors = 1;
	vol->disk->flags |= GENHD_FL_NO_PART;
	vol->disk->fops = &volume_fops;
	vol->disk->private_data = vol;
	snprintf(vol->disk->disk_name, DISK_NAME_LEN, "gpupath%d", vol->index);
	blk_set_stacking_limits(&vol->disk->queue->limits);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, vol->disk->queue);
	set_capacity(vol->disk, 0);
	ret = add_disk(vol->disk);
	if (ret)
		goto err_index;

	mutex_lock(&volumes_lock);
	list_add_tail(&vol->node, &volumes);
	kref_get(&vol->ref);
	mutex_unlock(&volumes_lock);
	volumes_changed();
	*volp = vol;
	return 0;

err_index:
	ida_free(&index_ida, vol->index);
err_disk:
	put_disk(vol->disk);
err_srcu:
	cleanup_srcu_struct(&vol->srcu);
err_free:
	kfree(vol);
	return ret;
}

/**
 * gpupath_volume_set() - change a volume's settings, live
 * @vol: the volume
 * @cfg: what to change
 * @extack: for error messages
 *
 * Return: 0 or a negative errno.
 */
int gpupath_volume_set(struct gpupath_volume *vol, const struct gpupath_volume_cfg *cfg,
		       struct netlink_ext_ack *extack)
{
	int ret;

	if (cfg->wwid) {
		NL_SET_ERR_MSG(extack, "a volume's wwid cannot change");
		return -EINVAL;
	}
	ret = check_cfg(cfg, extack);
	if (ret)
		return ret;
	mutex_lock(&vol->lock);
	apply_cfg(vol, cfg);
	mutex_unlock(&vol->lock);
	/* A shorter queue timeout may apply at once. */
	mod_delayed_work(system_wq, &vol->probe_work, 0);
	return 0;
}

static void path_free(struct gpupath_path *path)
{
	gpupath_compat_bdev_close(&path->dev, path->vol);
	gpupath_dma_put(&path->dma);
	put_device(path->ctrl);
	kfree(path);
}

static void path_unlist_locked(struct gpupath_volume *vol, struct gpupath_path *path)
{
	lockdep_assert_held(&vol->lock);
	WRITE_ONCE(path->state, GPUPATH_PATH_DRAINING);
	list_del_rcu(&path->node);
	vol->npaths--;
}

/* @path is off the list: wait for its I/O, release it. */
static void path_remove(struct gpupath_volume *vol, struct gpupath_path *path)
{
	synchronize_srcu(&vol->srcu);
	wait_event(vol->wait, !atomic_read(&path->inflight));
	gpupath_genl_notify_path(vol, path, GPUPATH_CMD_PATH_DEL);
	path_free(path);
	volumes_changed();
}

/**
 * gpupath_volume_del() - remove a volume that nobody has open
 * @vol: the volume (the caller's reference stays the caller's)
 * @extack: for error messages
 *
 * Return: 0, -EBUSY when its block device is open, -ENOENT when it is
 * already gone.
 */
int gpupath_volume_del(struct gpupath_volume *vol, struct netlink_ext_ack *extack)
{
	struct gpupath_path *path;

	mutex_lock(&volumes_lock);
	if (list_empty(&vol->node)) {
		mutex_unlock(&volumes_lock);
		return -ENOENT;
	}
	if (disk_openers(vol->disk)) {
		mutex_unlock(&volumes_lock);
		NL_SET_ERR_MSG(extack, "the volume's block device is open");
		return -EBUSY;
	}
	list_del_init(&vol->node);
	mutex_unlock(&volumes_lock);
	volumes_changed();

	del_gendisk(vol->disk);
	/* Nothing new comes in; what is queued fails, what is on a path ends. */
	WRITE_ONCE(vol->queue_timeout, 0);
	fail_queued(vol, BLK_STS_IOERR);
	wait_event(vol->wait, !atomic_read(&vol->inflight));
	for (;;) {
		mutex_lock(&vol->lock);
		path = list_first_entry_or_null(&vol->paths, struct gpupath_path, node);
		if (path)
			path_unlist_locked(vol, path);
		mutex_unlock(&vol->lock);
		if (!path)
			break;
		path_remove(vol, path);
	}
	cancel_delayed_work_sync(&vol->probe_work);
	cancel_work_sync(&vol->requeue_work);
	flush_work(&vol->event_work);
	gpupath_genl_notify_volume(vol, GPUPATH_CMD_VOLUME_DEL);

	mutex_lock(&volumes_lock);
	ida_free(&index_ida, vol->index);
	mutex_unlock(&volumes_lock);
	gpupath_volume_put(vol);
	return 0;
}

/* "rdma", "tcp", "pcie", ... from the nvme controller; "multipath" for a head. */
static void path_transport(struct gpupath_path *path)
{
	if (path->head)
		strscpy(path->transport, "multipath", sizeof(path->transport));
	else if (!path->ctrl || gpupath_devattr_get(path->ctrl, NULL, "transport",
						    path->transport, sizeof(path->transport)))
		strscpy(path->transport, "unknown", sizeof(path->transport));
}

/* The device's identity against the volume's: wwid, size, block size. */
static int check_identity(struct gpupath_volume *vol, struct gpupath_path *path,
			  struct netlink_ext_ack *extack)
{
	struct block_device *bdev = path->dev.bdev;
	struct gendisk *disk = vol->disk;
	char wwid[GPUPATH_WWID_LEN];
	int ret;

	ret = gpupath_devattr_get(disk_to_dev(bdev->bd_disk), NULL, "wwid", wwid, sizeof(wwid));
	if (ret == -ENOMEM)
		return ret;
	if (ret == -E2BIG) {
		NL_SET_ERR_MSG(extack, "the device's wwid is too long");
		ret = -EINVAL;
	} else if (ret) {
		NL_SET_ERR_MSG(extack, "not an NVMe namespace: the device has no wwid");
		ret = -EINVAL;
	} else if (vol->wwid[0] && strcmp(vol->wwid, wwid)) {
		NL_SET_ERR_MSG(extack, "the device's wwid differs from the volume's");
		ret = -EINVAL;
	} else if (get_capacity(disk) && bdev_nr_sectors(bdev) != get_capacity(disk)) {
		NL_SET_ERR_MSG(extack, "the device's size differs from the volume's");
		ret = -EINVAL;
	} else if (get_capacity(disk) &&
		   bdev_logical_block_size(bdev) != queue_logical_block_size(disk->queue)) {
		NL_SET_ERR_MSG(extack, "the device's logical block size differs from the volume's");
		ret = -EINVAL;
	} else if (vol->npaths && gpupath_volume_mode(vol) != (path->head ?
			GPUPATH_VOLUME_NATIVE : GPUPATH_VOLUME_MANAGED)) {
		NL_SET_ERR_MSG(extack,
			       "a volume's paths are all nvme head devices or all per-controller namespaces");
		ret = -EINVAL;
	} else if (!vol->wwid[0]) {
		strscpy(vol->wwid, wwid, sizeof(vol->wwid));
	}
	return ret;
}

/* The volume takes the device's limits (the strictest of all paths). */
static void stack_limits(struct gpupath_volume *vol, struct block_device *bdev)
{
	struct request_queue *q = vol->disk->queue;
	bool first = !get_capacity(vol->disk);

	blk_mq_freeze_queue(q);
	blk_stack_limits(&q->limits, &bdev_get_queue(bdev)->limits, 0);
	if (bdev_write_cache(bdev))
		blk_queue_write_cache(q, true,
				      bdev_fua(bdev) || test_bit(QUEUE_FLAG_FUA, &q->queue_flags));
	blk_mq_unfreeze_queue(q);
	if (first)
		set_capacity_and_notify(vol->disk, bdev_nr_sectors(bdev));
}

static void apply_path_cfg(struct gpupath_path *path, const struct gpupath_path_cfg *cfg)
{
	if (cfg->state >= 0)
		WRITE_ONCE(path->state, cfg->state);
	if (cfg->weight >= 0)
		WRITE_ONCE(path->weight, cfg->weight);
	if (cfg->rail >= 0)
		WRITE_ONCE(path->rail, cfg->rail);
	if (cfg->link >= 0)
		WRITE_ONCE(path->link, cfg->link);
}

/**
 * gpupath_path_add() - add a block device as a path of @vol
 * @vol: the volume
 * @device: the device node, e.g. "/dev/nvme1n1"
 * @cfg: its settings
 * @extack: for error messages
 * @idp: the new path's id
 *
 * Return: 0 or a negative errno, with the reason in @extack.
 */
int gpupath_path_add(struct gpupath_volume *vol, const char *device,
		     const struct gpupath_path_cfg *cfg, struct netlink_ext_ack *extack,
		     u32 *idp)
{
	struct gpupath_path *path, *p;
	struct device *parent;
	int ret;

	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	path->vol = vol;
	path->weight = 1;
	atomic64_set(&path->p2p_cache, 0);
	ret = gpupath_compat_bdev_open(device, vol, &path->dev);
	if (ret) {
		if (ret == -EBUSY)
			NL_SET_ERR_MSG(extack, "the device is in use (mounted, or in a volume)");
		else
			NL_SET_ERR_MSG(extack, "cannot open the block device");
		kfree(path);
		return ret;
	}
	if (gpupath_volume_of_bdev(path->dev.bdev)) {
		NL_SET_ERR_MSG(extack, "a volume cannot be a path");
		ret = -EINVAL;
		goto err_close;
	}
	parent = disk_to_dev(path->dev.bdev->bd_disk)->parent;
	path->ctrl = get_device(parent);
	path->head = parent && parent->class && !strcmp(parent->class->name, "nvme-subsystem");
	path_transport(path);
	gpupath_dma_find(path->dev.bdev, &path->dma);
	apply_path_cfg(path, cfg);

	mutex_lock(&vol->lock);
	list_for_each_entry(p, &vol->paths, node) {
		if (p->dev.bdev == path->dev.bdev) {
			NL_SET_ERR_MSG(extack, "the device already is a path of this volume");
			ret = -EEXIST;
			goto err_unlock;
		}
	}
	ret = check_identity(vol, path, extack);
	if (ret)
		goto err_unlock;
	stack_limits(vol, path->dev.bdev);
	path->id = atomic_inc_return(&path_last_id);
	volumes_changed();
	list_add_tail_rcu(&path->node, &vol->paths);
	vol->npaths++;
	*idp = path->id;
	gpupath_genl_notify_path(vol, path, GPUPATH_CMD_PATH_NEW);
	mutex_unlock(&vol->lock);
	kick(vol);
	return 0;

err_unlock:
	mutex_unlock(&vol->lock);
	gpupath_dma_put(&path->dma);
	put_device(path->ctrl);
err_close:
	gpupath_compat_bdev_close(&path->dev, vol);
	kfree(path);
	return ret;
}

static struct gpupath_path *path_find_locked(struct gpupath_volume *vol, u32 id)
{
	struct gpupath_path *path;

	lockdep_assert_held(&vol->lock);
	list_for_each_entry(path, &vol->paths, node)
		if (path->id == id)
			return path;
	return NULL;
}

/**
 * gpupath_path_set() - change a path's state, weight or rail
 * @vol: its volume
 * @id: the path
 * @cfg: what to change
 * @extack: for error messages
 *
 * Return: 0 or -ENOENT.
 */
int gpupath_path_set(struct gpupath_volume *vol, u32 id, const struct gpupath_path_cfg *cfg,
		     struct netlink_ext_ack *extack)
{
	struct gpupath_path *path;

	mutex_lock(&vol->lock);
	path = path_find_locked(vol, id);
	if (!path) {
		mutex_unlock(&vol->lock);
		NL_SET_ERR_MSG(extack, "no path with this id");
		return -ENOENT;
	}
	apply_path_cfg(path, cfg);
	gpupath_genl_notify_path(vol, path, GPUPATH_CMD_PATH_NEW);
	mutex_unlock(&vol->lock);
	kick(vol);
	return 0;
}

/**
 * gpupath_path_del() - remove a path once its I/O is done
 * @vol: its volume
 * @id: the path
 * @extack: for error messages
 *
 * Return: 0 or -ENOENT.
 */
int gpupath_path_del(struct gpupath_volume *vol, u32 id, struct netlink_ext_ack *extack)
{
	struct gpupath_path *path;

	mutex_lock(&vol->lock);
	path = path_find_locked(vol, id);
	if (path)
		path_unlist_locked(vol, path);
	mutex_unlock(&vol->lock);
	if (!path) {
		NL_SET_ERR_MSG(extack, "no path with this id");
		return -ENOENT;
	}
	path_remove(vol, path);
	return 0;
}

/**
 * gpupath_volume_init() - the block major of volumes
 *
 * Return: 0 or a negative errno.
 */
int __init gpupath_volume_init(void)
{
	int ret;

	ret = bioset_init(&clone_bs, BIO_POOL_SIZE, offsetof(struct gpupath_vio, clone), 0);
	if (ret)
		return ret;
	gpupath_major = register_blkdev(0, "gpupath");
	if (gpupath_major < 0) {
		bioset_exit(&clone_bs);
		return gpupath_major;
	}
	return 0;
}

/**
 * gpupath_volume_uninit() - remove every volume (none is open: an open one
 * holds the module)
 */
void gpupath_volume_uninit(void)
{
	struct gpupath_volume *vol;

	while ((vol = gpupath_volume_next(0))) {
		int ret = gpupath_volume_del(vol, NULL);

		gpupath_volume_put(vol);
		if (WARN_ON_ONCE(ret))
			break;
	}
	unregister_blkdev(gpupath_major, "gpupath");
	bioset_exit(&clone_bs);
}
