/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_VOLUME_H
#define _GPUPATH_VOLUME_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/percpu-refcount.h>
#include <linux/srcu.h>
#include <linux/workqueue.h>
#include <linux/gpupath.h>

#include "compat/compat.h"
#include "route.h"

struct gpupath_provider;

/* Per-path counters (GPUPATH_A_PSTATS_*). */
struct gpupath_path_stats {
	atomic64_t ios;
	atomic64_t bytes;
	atomic64_t errors;
	atomic64_t direct_ios;
};

/**
 * struct gpupath_path - a block device of the volume's namespace
 * @node: in the volume's path list (SRCU readers, writers under vol->lock)
 * @vol: the volume
 * @id: unique among all paths, never reused while the module is loaded
 * @dev: the block device, open exclusively with the volume as holder
 * @ctrl: the disk's parent (an nvme controller or subsystem), a reference
 * @dma: the DMA engine behind it
 * @transport: "rdma", "tcp", "pcie", ... or "multipath" for a head device
 * @head: an nvme native-multipath head device
 * @state: enum gpupath_path_state, set by the administrator
 * @health: enum gpupath_path_health, set by I/O and the probe
 * @reported: the health last reported as an event
 * @error: the errno that failed it
 * @timed: the volume's failover clock runs for this failure of the path
 * @weight: for the weighted policy
 * @rail: the rail it belongs to, for the administrator
 * @link: enum gpupath_path_link, set by the daemon
 * @ana: enum gpupath_ana_state, set by the daemon
 * @ana_tt: seconds I/O waits while the path is in ANA change
 * @ana_group: the namespace's ANA group on the path's controller
 * @ana_suspect: held out of use for an I/O error that may have been an ANA
 *	change, until its ANA state is set (or the volume's wait ends)
 * @inflight: clones on the path now
 * @credit: weighted: what smooth weighted round-robin owes it
 * @latency_ns: EWMA of the service time
 * @stats: counters
 * @free_work: releases the path once its I/O has ended, when the remover
 *	could not wait for that (it was killed)
 * @unlisted: it has left the volume's list (set under vol->lock before it
 *	leaves, read anywhere)
 * @linked: the sysfs holder links between it and the volume exist; in
 *	vol->linked then (both under vol->holder_lock)
 * @link_node: in vol->linked
 */
struct gpupath_path {
	struct list_head node;
	struct gpupath_volume *vol;
	u32 id;
	struct gpupath_compat_bdev dev;
	struct device *ctrl;
	struct gpupath_dma dma;
	char transport[16];
	bool head;
	u32 state;
	u32 health;
	u32 reported;
	int error;
	atomic_t timed;
	u32 weight;
	u32 rail;
	u32 link;
	u32 ana;
	u32 ana_tt;
	u32 ana_group;
	atomic_t ana_suspect;
	atomic_t inflight;
	atomic_t credit;
	atomic64_t latency_ns;
	struct gpupath_path_stats stats;
	struct work_struct free_work;
	bool unlisted;
	bool linked;
	struct list_head link_node;
};

/* Per-volume counters (GPUPATH_A_VSTATS_*). */
struct gpupath_volume_stats {
	atomic64_t ios;
	atomic64_t bytes;
	atomic64_t errors;
	atomic64_t retries;
	atomic64_t queued;
	atomic64_t refused;
	atomic64_t failovers;
	atomic64_t failover_last_ns;
	atomic64_t failover_max_ns;
};

/**
 * struct gpupath_volume - one namespace over several paths, a block device
 * @node: in the volume list, under volumes_lock
 * @ref: held by the list and by lookups; the last one puts the disk, and
 *	the volume is freed with the disk (its ->free_disk), once no opener
 *	of the block device is left
 * @id: stable id, never reused while the module is loaded
 * @index: N of /dev/gpupathN, and its minor
 * @disk: the block device
 * @lock: paths and settings
 * @holder_lock: the sysfs holder links of the paths (@linked); taken with
 *	no other of the volume's locks held, and held while the block layer
 *	takes the volume's disk's open_mutex to make or remove one
 * @linked: the paths linked as holders (struct gpupath_path.link_node)
 * @srcu: protects readers of @paths
 * @paths: struct gpupath_path list
 * @npaths: length of @paths
 * @wwid: the namespace's wwid, "" until known
 * @policy: enum gpupath_policy
 * @fallback: the policy gpu-affinity falls back on
 * @queue_timeout: ms I/O waits with no usable path
 * @rr: turns of the queue-depth and service-time policies, which share
 *	ties round the paths
 * @rr_last: round-robin: the path picked last, read and set under @srcu;
 *	a path leaving clears it before it is freed (path_remove())
 * @dead: being deleted: no path is added, no setting changes, no bio is
 *	sent again (under @lock to set, read anywhere)
 * @io_ref: held by every bio inside the volume; killed by deletion
 * @drained: completed when @io_ref is killed and the last bio has left
 * @inflight: bios inside the volume (on a path or queued), for the counters
 * @wait: woken when a path's in-flight count drops to 0
 * @qlock: protects @queued and @failed
 * @queued: clones (struct gpupath_vio) waiting for a path
 * @failed: clones whose attempt failed, to be looked at and sent again
 * @nopath_since: ktime (ns) since when no path was usable, 0 if one is
 * @ana_hold_until: ktime (ns) until which I/O with no usable path waits
 *	for an ANA change an I/O error may have been
 * @fail_start: ktime (ns) of the first path error not yet recovered from
 * @fail_path: the path that error came from
 * @failover_ns: duration of the last recovery, to report
 * @pending: GPUPATH_PENDING_* events to send
 * @ioerr: errno of the last I/O failed to the caller, to report
 * @ioerr_count: I/Os failed to the caller since the last report
 * @requeue_work: looks at @failed, resubmits it and @queued
 * @event_work: sends the events
 * @probe_work: brings failed paths back, marks deleted ones gone, times
 *	queued I/O out
 * @refresh_work: looks at the paths' size and cache every few seconds
 * @del_work: finishes a deletion whose caller was killed while waiting
 * @stats: counters
 * @holder: what holds the paths' devices (told of a device's death)
 */
struct gpupath_volume {
	struct list_head node;
	struct kref ref;
	u32 id;
	int index;
	struct gendisk *disk;
	struct mutex lock;		/* paths and settings */
	struct mutex holder_lock;	/* linked, path->linked */
	struct list_head linked;
	struct srcu_struct srcu;
	struct list_head paths;
	u32 npaths;
	char wwid[GPUPATH_WWID_LEN];
	u32 policy;
	u32 fallback;
	u32 queue_timeout;
	atomic_t rr;
	struct gpupath_path *rr_last;
	bool dead;
	struct percpu_ref io_ref;
	struct completion drained;
	atomic_t inflight;
	wait_queue_head_t wait;
	spinlock_t qlock;		/* queued, failed */
	struct bio_list queued;
	struct bio_list failed;
	atomic64_t nopath_since;
	atomic64_t ana_hold_until;
	atomic64_t fail_start;
	u32 fail_path;
	u64 failover_ns;
	unsigned long pending;
	int ioerr;
	atomic64_t ioerr_count;
	struct work_struct requeue_work;
	struct work_struct event_work;
	struct delayed_work probe_work;
	struct delayed_work refresh_work;
	struct work_struct del_work;
	struct gpupath_volume_stats stats;
	struct gpupath_compat_holder holder;
};

/* Settings of VOLUME_NEW and VOLUME_SET; a negative value is "not given". */
struct gpupath_volume_cfg {
	const char *wwid;
	s64 policy;
	s64 fallback;
	s64 queue_timeout;
};

/* Settings of PATH_NEW and PATH_SET; a negative value is "not given". */
struct gpupath_path_cfg {
	s64 state;
	s64 weight;
	s64 rail;
	s64 link;
	s64 ana;
	s64 ana_tt;
	s64 ana_group;
};

int gpupath_volume_init(void);
void gpupath_volume_uninit(void);

struct gpupath_volume *gpupath_volume_get(u32 id);
struct gpupath_volume *gpupath_volume_next(u32 after);
void gpupath_volume_put(struct gpupath_volume *vol);
u32 gpupath_volume_generation(void);
struct gpupath_volume *gpupath_volume_of_path(u32 path_id);

int gpupath_volume_add(const struct gpupath_volume_cfg *cfg, struct netlink_ext_ack *extack,
		       struct gpupath_volume **volp);
int gpupath_volume_set(struct gpupath_volume *vol, const struct gpupath_volume_cfg *cfg,
		       struct netlink_ext_ack *extack);
int gpupath_volume_del(struct gpupath_volume *vol, struct netlink_ext_ack *extack);
u32 gpupath_volume_mode(struct gpupath_volume *vol);
u32 gpupath_volume_usable(struct gpupath_volume *vol);

int gpupath_path_add(struct gpupath_volume *vol, const char *device,
		     const struct gpupath_path_cfg *cfg, struct netlink_ext_ack *extack,
		     u32 *idp);
int gpupath_path_set(struct gpupath_volume *vol, u32 id, const struct gpupath_path_cfg *cfg,
		     struct netlink_ext_ack *extack);
int gpupath_path_del(struct gpupath_volume *vol, u32 id, struct netlink_ext_ack *extack);

struct gpupath_volume *gpupath_volume_of_bdev(struct block_device *bdev);
enum gpupath_reason gpupath_volume_reason(struct gpupath_volume *vol,
					  struct gpupath_provider *prov);

/* The I/O path of volumes (multipath.c). */
int gpupath_multipath_init(void);
void gpupath_multipath_exit(void);
int gpupath_multipath_setup(struct gpupath_volume *vol);
void gpupath_multipath_submit_bio(struct bio *bio);
void gpupath_multipath_kick(struct gpupath_volume *vol);
void gpupath_multipath_inflight_put(struct gpupath_volume *vol, struct gpupath_path *path);
void gpupath_multipath_set_ana(struct gpupath_path *path, u32 ana);
void gpupath_multipath_fail_queued(struct gpupath_volume *vol, blk_status_t status);
void gpupath_multipath_fail_memory(struct gpupath_volume *vol,
				   bool (*match)(struct page *page, void *arg), void *arg);
void gpupath_multipath_refresh_locked(struct gpupath_volume *vol);
void gpupath_multipath_refresh_soon(struct gpupath_volume *vol);

#endif /* _GPUPATH_VOLUME_H */
