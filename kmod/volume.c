// SPDX-License-Identifier: GPL-2.0
/*
 * Volumes: one NVMe namespace reached over several paths, exposed as the
 * bio-based block device /dev/gpupathN. This file is their control: lookup,
 * add, set and delete, and their paths' add, set and delete. The I/O path
 * (selection, failover, the probe) is multipath.c.
 *
 * Lock order, outermost first (Documentation/internals.md has the whole
 * module's):
 *   volumes_lock	the list of volumes, their ids and minor numbers;
 *   vol->lock		a volume's settings and its path list (writers;
 *			readers of the path list use vol->srcu);
 *   vol->qlock		the bios waiting for a path (multipath.c), a
 *			spinlock with interrupts off.
 * vol->holder_lock, the sysfs holder links between a volume and its paths,
 * is taken with none of them held: bd_link_disk_holder() takes a disk's
 * open_mutex under it.
 * An open of the volume holds its disk's open_mutex while it reads the
 * partition table, which may wait for a path: nothing that brings a path,
 * takes one away or fails waiting I/O (PATH_NEW, PATH_DEL, VOLUME_DEL, the
 * probe) waits for open_mutex before it has done so, and vol->lock is never
 * held across a wait for it. Under vol->lock only the block layer's queue
 * locks are taken (stacking a path's limits onto the disk's); a path's
 * block device is opened before it.
 */
#include <linux/blkdev.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "devattr.h"
#include "notify.h"
#include "provider.h"
#include "volume.h"

#define GPUPATH_QUEUE_TIMEOUT_DEFAULT	30000

static DEFINE_MUTEX(volumes_lock);	/* volumes, volume_next_id, index_ida */
static LIST_HEAD(volumes);
static u32 volume_next_id = 1;
static atomic_t path_last_id = ATOMIC_INIT(0);
static atomic_t volume_gen = ATOMIC_INIT(1);
static DEFINE_IDA(index_ida);
static int gpupath_major;
/* Deletions and path removals whose caller was killed while waiting. */
static struct workqueue_struct *volume_wq;

static void del_work(struct work_struct *work);

static void volume_release(struct kref *ref)
{
	struct gpupath_volume *vol = container_of(ref, struct gpupath_volume, ref);

	/* The volume goes with its disk: volume_free_disk(). */
	put_disk(vol->disk);
}

/* The last reference to the disk (an opener may hold it past deletion). */
static void volume_free_disk(struct gendisk *disk)
{
	struct gpupath_volume *vol = disk->private_data;

	percpu_ref_exit(&vol->io_ref);
	cleanup_srcu_struct(&vol->srcu);
	ida_free(&index_ida, vol->index);
	kfree(vol);
}

static const struct block_device_operations volume_fops = {
	.owner = THIS_MODULE,
	.submit_bio = gpupath_multipath_submit_bio,
	.free_disk = volume_free_disk,
};

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

/*
 * Device memory is being taken back: the bios on it that wait for a path,
 * in every volume, fail now (the revocation waits for them).
 */
static int memory_gone(struct notifier_block *nb, unsigned long action, void *data)
{
	struct gpupath_memory_gone *gone = data;
	struct gpupath_volume *vol;

	mutex_lock(&volumes_lock);
	list_for_each_entry(vol, &volumes, node)
		gpupath_multipath_fail_memory(vol, gone->match, gone->arg);
	mutex_unlock(&volumes_lock);
	return NOTIFY_DONE;
}

static struct notifier_block memory_gone_nb = {
	.notifier_call = memory_gone,
};

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

/*
 * Whether another volume serves the namespace @wwid already: two block
 * devices writing the same blocks with nothing between them. A volume's
 * wwid is written under volumes_lock.
 */
static bool wwid_taken_locked(struct gpupath_volume *self, const char *wwid)
{
	struct gpupath_volume *vol;

	lockdep_assert_held(&volumes_lock);
	list_for_each_entry(vol, &volumes, node)
		if (vol != self && !strcmp(vol->wwid, wwid))
			return true;
	return false;
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
	mutex_init(&vol->holder_lock);
	INIT_LIST_HEAD(&vol->paths);
	INIT_LIST_HEAD(&vol->linked);
	init_waitqueue_head(&vol->wait);
	INIT_WORK(&vol->del_work, del_work);
	vol->policy = GPUPATH_POLICY_ROUND_ROBIN;
	vol->fallback = GPUPATH_POLICY_ROUND_ROBIN;
	vol->queue_timeout = GPUPATH_QUEUE_TIMEOUT_DEFAULT;
	if (cfg->wwid)
		strscpy(vol->wwid, cfg->wwid, sizeof(vol->wwid));
	apply_cfg(vol, cfg);

	ret = gpupath_multipath_setup(vol);
	if (ret)
		goto err_free;
	ret = init_srcu_struct(&vol->srcu);
	if (ret)
		goto err_ref;
	vol->disk = gpupath_compat_alloc_stacking_disk();
	if (IS_ERR(vol->disk)) {
		ret = PTR_ERR(vol->disk);
		goto err_srcu;
	}

	mutex_lock(&volumes_lock);
	if (vol->wwid[0] && wwid_taken_locked(vol, vol->wwid)) {
		mutex_unlock(&volumes_lock);
		NL_SET_ERR_MSG(extack, "another volume serves this wwid");
		ret = -EEXIST;
		goto err_disk;
	}
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
	/*
	 * The whole volume on gpupath's major; its partitions, as an NVMe
	 * namespace's, on the block layer's extended numbers.
	 */
	vol->disk->minors = 1;
	vol->disk->fops = &volume_fops;
	vol->disk->private_data = vol;
	snprintf(vol->disk->disk_name, DISK_NAME_LEN, "gpupath%d", vol->index);
	/*
	 * Solid state, and io_uring may send I/O that must not sleep until a
	 * path says otherwise (gpupath_multipath_refresh_locked()).
	 */
	gpupath_compat_disk_features(vol->disk, false, false, false, true);
	gpupath_compat_disk_io_stat(vol->disk);
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
err_ref:
	percpu_ref_exit(&vol->io_ref);
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
	if (vol->dead) {
		mutex_unlock(&vol->lock);
		NL_SET_ERR_MSG(extack, "the volume is being deleted");
		return -ENOENT;
	}
	apply_cfg(vol, cfg);
	/* Also the way to make it look at its paths' size and cache again. */
	gpupath_multipath_refresh_locked(vol);
	mutex_unlock(&vol->lock);
	/* A shorter queue timeout may apply at once. */
	mod_delayed_work(system_wq, &vol->probe_work, 0);
	return 0;
}

static void path_free(struct gpupath_path *path)
{
	gpupath_compat_bdev_close(&path->dev, &path->vol->holder);
	gpupath_dma_put(&path->dma);
	put_device(path->ctrl);
	kfree(path);
}

/*
 * The sysfs links between a path and the volume (slaves/, holders/), made
 * once the path takes I/O, and never once the volume is being deleted:
 * del_gendisk() takes its slaves/ directory away.
 */
static void holder_link(struct gpupath_volume *vol, struct gpupath_path *path)
{
	mutex_lock(&vol->holder_lock);
	if (!READ_ONCE(vol->dead) && !READ_ONCE(path->unlisted) &&
	    !bd_link_disk_holder(path->dev.bdev, vol->disk)) {
		path->linked = true;
		list_add_tail(&path->link_node, &vol->linked);
	}
	mutex_unlock(&vol->holder_lock);
}

static void holder_unlink_locked(struct gpupath_volume *vol, struct gpupath_path *path)
{
	lockdep_assert_held(&vol->holder_lock);
	if (!path->linked)
		return;
	bd_unlink_disk_holder(path->dev.bdev, vol->disk);
	list_del(&path->link_node);
	path->linked = false;
}

static void holder_unlink(struct gpupath_volume *vol, struct gpupath_path *path)
{
	mutex_lock(&vol->holder_lock);
	holder_unlink_locked(vol, path);
	mutex_unlock(&vol->holder_lock);
}

static void path_unlist_locked(struct gpupath_volume *vol, struct gpupath_path *path)
{
	lockdep_assert_held(&vol->lock);
	WRITE_ONCE(path->unlisted, true);
	WRITE_ONCE(path->state, GPUPATH_PATH_DRAINING);
	list_del_rcu(&path->node);
	vol->npaths--;
}

/* The path's I/O has ended: it goes. */
static void path_release(struct gpupath_volume *vol, struct gpupath_path *path)
{
	holder_unlink(vol, path);
	gpupath_notify_path(vol, path, GPUPATH_CMD_PATH_DEL);
	path_free(path);
	volumes_changed();
}

static void path_free_work(struct work_struct *work)
{
	struct gpupath_path *path = container_of(work, struct gpupath_path, free_work);
	struct gpupath_volume *vol = path->vol;

	wait_event(vol->wait, !atomic_read(&path->inflight));
	path_release(vol, path);
	/*
	 * Its disk, deleted before path_release() closed it, may have queued
	 * the probe after the volume's teardown cancelled it.
	 */
	if (READ_ONCE(vol->dead)) {
		cancel_delayed_work_sync(&vol->probe_work);
		flush_work(&vol->event_work);
	}
	gpupath_volume_put(vol);
}

/*
 * @path is off the list: wait for its I/O, release it. A caller killed
 * while waiting (a hung fabric) leaves the rest to a worker.
 */
static void path_remove(struct gpupath_volume *vol, struct gpupath_path *path)
{
	/* Nobody sees it usable now, so round-robin picks it no more ... */
	synchronize_srcu(&vol->srcu);
	/* ... and once no walk starts from it either, it may go. */
	if (cmpxchg(&vol->rr_last, path, NULL) == path)
		synchronize_srcu(&vol->srcu);
	if (wait_event_killable(vol->wait, !atomic_read(&path->inflight))) {
		kref_get(&vol->ref);
		INIT_WORK(&path->free_work, path_free_work);
		queue_work(volume_wq, &path->free_work);
		return;
	}
	path_release(vol, path);
}

/* The rest of a deletion, once no bio is inside the volume. */
static void volume_teardown(struct gpupath_volume *vol)
{
	struct gpupath_path *path;

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
	/* The requeue may arm the probe: it goes first. */
	cancel_work_sync(&vol->requeue_work);
	cancel_delayed_work_sync(&vol->probe_work);
	cancel_delayed_work_sync(&vol->refresh_work);
	flush_work(&vol->event_work);
	gpupath_notify_volume(vol, GPUPATH_CMD_VOLUME_DEL);
	/* The list's reference, and the deletion's own. */
	gpupath_volume_put(vol);
	gpupath_volume_put(vol);
}

static void del_work(struct work_struct *work)
{
	struct gpupath_volume *vol = container_of(work, struct gpupath_volume, del_work);

	wait_for_completion(&vol->drained);
	volume_teardown(vol);
}

/**
 * gpupath_volume_del() - remove a volume that nobody has open
 * @vol: the volume (the caller's reference stays the caller's)
 * @extack: for error messages
 *
 * Bios waiting for a path fail at once; those on a path are waited for. A
 * caller killed meanwhile returns, and the paths are released when that
 * I/O has ended.
 *
 * Return: 0, -EBUSY when its block device is open, -ENOENT when it is
 * already gone.
 */
int gpupath_volume_del(struct gpupath_volume *vol, struct netlink_ext_ack *extack)
{
	struct gpupath_path *path, *tmp;

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

	/* No path is added or changed from here on, no bio sent again. */
	mutex_lock(&vol->lock);
	WRITE_ONCE(vol->dead, true);
	mutex_unlock(&vol->lock);
	kref_get(&vol->ref);
	/*
	 * What waits for a path fails before the disk's open_mutex is taken
	 * (unlinking the holders, del_gendisk()): an open reading the
	 * partition table holds it while its reads wait.
	 */
	gpupath_multipath_fail_queued(vol, BLK_STS_IOERR);
	mutex_lock(&vol->holder_lock);
	list_for_each_entry_safe(path, tmp, &vol->linked, link_node)
		holder_unlink_locked(vol, path);
	mutex_unlock(&vol->holder_lock);
	del_gendisk(vol->disk);
	percpu_ref_kill(&vol->io_ref);
	gpupath_multipath_fail_queued(vol, BLK_STS_IOERR);
	if (wait_for_completion_killable(&vol->drained))
		queue_work(volume_wq, &vol->del_work);
	else
		volume_teardown(vol);
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

/*
 * The device's wwid, read before any of the volume's locks are taken: a
 * sysfs read takes its file's locks, and a revocation (under its
 * provider's locks) takes volumes_lock.
 */
static int read_wwid(struct gpupath_path *path, char *wwid, size_t size,
		     struct netlink_ext_ack *extack)
{
	struct block_device *bdev = path->dev.bdev;
	int ret;

	ret = gpupath_devattr_get(disk_to_dev(bdev->bd_disk), NULL, "wwid", wwid, size);
	if (ret == -ENOMEM)
		return ret;
	if (ret == -E2BIG) {
		NL_SET_ERR_MSG(extack, "the device's wwid is too long");
		return -EINVAL;
	}
	if (ret) {
		NL_SET_ERR_MSG(extack, "not an NVMe namespace: the device has no wwid");
		return -EINVAL;
	}
	return 0;
}

/*
 * The device's identity against the volume's: wwid (and no other volume's),
 * size, block size. Under volumes_lock and vol->lock.
 */
static int check_identity(struct gpupath_volume *vol, struct gpupath_path *path,
			  const char *wwid, struct netlink_ext_ack *extack)
{
	struct block_device *bdev = path->dev.bdev;
	struct gendisk *disk = vol->disk;
	int ret = 0;

	if (vol->wwid[0] && strcmp(vol->wwid, wwid)) {
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
	} else if (!vol->wwid[0] && wwid_taken_locked(vol, wwid)) {
		NL_SET_ERR_MSG(extack, "another volume serves the device's wwid");
		ret = -EEXIST;
	} else if (!vol->wwid[0]) {
		strscpy(vol->wwid, wwid, sizeof(vol->wwid));
	}
	return ret;
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
	if (cfg->ana_tt >= 0)
		WRITE_ONCE(path->ana_tt, cfg->ana_tt);
	if (cfg->ana_group >= 0)
		WRITE_ONCE(path->ana_group, cfg->ana_group);
	if (cfg->ana >= 0)
		gpupath_multipath_set_ana(path, cfg->ana);
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
	char wwid[GPUPATH_WWID_LEN];
	struct gpupath_path *path, *p;
	struct device *parent;
	int ret;

	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	path->vol = vol;
	path->weight = 1;
	ret = gpupath_compat_bdev_open(device, &vol->holder, &path->dev);
	if (ret) {
		if (ret == -EBUSY)
			NL_SET_ERR_MSG(extack, "the device is in use (mounted, or in a volume)");
		else
			NL_SET_ERR_MSG(extack, "cannot open the block device");
		kfree(path);
		return ret;
	}
	ret = -EINVAL;
	if (gpupath_volume_of_bdev(path->dev.bdev)) {
		NL_SET_ERR_MSG(extack, "a volume cannot be a path");
		goto err_close;
	}
	/* Two partitions of one namespace would be two "paths" to other blocks. */
	if (bdev_is_partition(path->dev.bdev)) {
		NL_SET_ERR_MSG(extack, "a partition cannot be a path: give the whole namespace");
		goto err_close;
	}
	/* A volume implements no zone operations. */
	if (bdev_is_zoned(path->dev.bdev)) {
		NL_SET_ERR_MSG(extack, "a zoned namespace cannot be a path");
		ret = -EOPNOTSUPP;
		goto err_close;
	}
	parent = disk_to_dev(path->dev.bdev->bd_disk)->parent;
	path->ctrl = get_device(parent);
	path->head = parent && parent->class && !strcmp(parent->class->name, "nvme-subsystem");
	path_transport(path);
	gpupath_dma_find(path->dev.bdev, &path->dma);
	apply_path_cfg(path, cfg);
	ret = read_wwid(path, wwid, sizeof(wwid), extack);
	if (ret)
		goto err_put;

	/* volumes_lock: no other volume takes the same wwid meanwhile. */
	mutex_lock(&volumes_lock);
	mutex_lock(&vol->lock);
	ret = -ENOENT;
	if (vol->dead) {
		NL_SET_ERR_MSG(extack, "the volume is being deleted");
		goto err_unlock;
	}
	list_for_each_entry(p, &vol->paths, node) {
		if (p->dev.bdev == path->dev.bdev) {
			NL_SET_ERR_MSG(extack, "the device already is a path of this volume");
			ret = -EEXIST;
			goto err_unlock;
		}
	}
	ret = check_identity(vol, path, wwid, extack);
	if (ret)
		goto err_unlock;
	/* The volume takes the device's limits (the strictest of all paths). */
	ret = gpupath_compat_stack_bdev(vol->disk, path->dev.bdev);
	if (ret) {
		NL_SET_ERR_MSG(extack, "the device's queue limits do not stack with the volume's");
		goto err_unlock;
	}
	path->id = atomic_inc_return(&path_last_id);
	volumes_changed();
	list_add_tail_rcu(&path->node, &vol->paths);
	vol->npaths++;
	gpupath_multipath_refresh_locked(vol);
	*idp = path->id;
	gpupath_notify_path(vol, path, GPUPATH_CMD_PATH_NEW);
	/* Kept until linked: its removal waits for that. */
	atomic_inc(&path->inflight);
	mutex_unlock(&vol->lock);
	mutex_unlock(&volumes_lock);
	/* I/O waiting for a path (an open's partition scan among it) goes ... */
	gpupath_multipath_kick(vol);
	gpupath_multipath_refresh_soon(vol);
	/* ... and lsblk and sysfs show the volume above the device. */
	holder_link(vol, path);
	gpupath_multipath_inflight_put(vol, path);
	return 0;

err_unlock:
	mutex_unlock(&vol->lock);
	mutex_unlock(&volumes_lock);
err_put:
	gpupath_dma_put(&path->dma);
	put_device(path->ctrl);
err_close:
	gpupath_compat_bdev_close(&path->dev, &vol->holder);
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
	path = vol->dead ? NULL : path_find_locked(vol, id);
	if (!path) {
		mutex_unlock(&vol->lock);
		NL_SET_ERR_MSG(extack, "no path with this id");
		return -ENOENT;
	}
	apply_path_cfg(path, cfg);
	gpupath_notify_path(vol, path, GPUPATH_CMD_PATH_NEW);
	mutex_unlock(&vol->lock);
	gpupath_multipath_kick(vol);
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
	if (path) {
		path_unlist_locked(vol, path);
		gpupath_multipath_refresh_locked(vol);
	}
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

	volume_wq = alloc_workqueue("gpupath_volume", GPUPATH_COMPAT_WQ_PERCPU_FLAG, 0);
	if (!volume_wq)
		return -ENOMEM;
	ret = gpupath_multipath_init();
	if (ret)
		goto err_wq;
	gpupath_major = register_blkdev(0, "gpupath");
	if (gpupath_major < 0) {
		ret = gpupath_major;
		goto err_bioset;
	}
	gpupath_provider_watch(&memory_gone_nb);
	return 0;

err_bioset:
	gpupath_multipath_exit();
err_wq:
	destroy_workqueue(volume_wq);
	return ret;
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
	gpupath_provider_unwatch(&memory_gone_nb);
	/* Deletions and removals left to workers end first. */
	destroy_workqueue(volume_wq);
	unregister_blkdev(gpupath_major, "gpupath");
	gpupath_multipath_exit();
}
