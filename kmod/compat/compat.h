/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels gpupath builds against lives here or
 * in kmod/compat/Kbuild.include; the rest of the module tests the macros and
 * helpers defined here, never LINUX_VERSION_CODE.
 */
#ifndef _GPUPATH_COMPAT_H
#define _GPUPATH_COMPAT_H

#include <linux/module.h>
#include <linux/version.h>

/*
 * The supported range, the same as BUILD_EXCLUSIVE_KERNEL in dkms.conf: the
 * 6.1 and 6.12 LTS series are built and tested, the kernels between them are
 * covered by the helpers below. A later kernel is refused rather than built
 * against APIs nobody has checked.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "gpupath supports Linux 6.1 to 6.12: this kernel is older"
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#error "gpupath supports Linux 6.1 to 6.12: this kernel is newer"
#endif

/* vm_flags became read-only behind helpers in 6.3. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#include <linux/mm_types.h>
static inline void gpupath_compat_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags |= flags;
}
#else
#define gpupath_compat_vm_flags_set vm_flags_set
#endif

/* pin_user_pages() lost its vmas argument in 6.5. Under mmap_lock. */
#include <linux/mm.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
static inline long gpupath_compat_pin_user_pages(unsigned long start, unsigned long nr_pages,
						 unsigned int gup_flags, struct page **pages)
{
	return pin_user_pages(start, nr_pages, gup_flags, pages, NULL);
}
#else
#define gpupath_compat_pin_user_pages pin_user_pages
#endif

/*
 * Opening a block device exclusively for a holder: blkdev_get_by_path() with
 * fmode_t until 6.5, with blk_mode_t and holder ops until 6.8, a handle in
 * 6.8, a struct file from 6.9.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>

struct gpupath_compat_bdev {
	struct block_device *bdev;
	void *priv;
};

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define GPUPATH_COMPAT_BDEV_MODE	(FMODE_READ | FMODE_WRITE | FMODE_EXCL)
static inline int gpupath_compat_bdev_open(const char *path, void *holder,
					   struct gpupath_compat_bdev *h)
{
	h->bdev = blkdev_get_by_path(path, GPUPATH_COMPAT_BDEV_MODE, holder);
	return PTR_ERR_OR_ZERO(h->bdev);
}

static inline void gpupath_compat_bdev_close(struct gpupath_compat_bdev *h, void *holder)
{
	blkdev_put(h->bdev, GPUPATH_COMPAT_BDEV_MODE);
}
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0)
static inline int gpupath_compat_bdev_open(const char *path, void *holder,
					   struct gpupath_compat_bdev *h)
{
	h->bdev = blkdev_get_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);
	return PTR_ERR_OR_ZERO(h->bdev);
}

static inline void gpupath_compat_bdev_close(struct gpupath_compat_bdev *h, void *holder)
{
	blkdev_put(h->bdev, holder);
}
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
static inline int gpupath_compat_bdev_open(const char *path, void *holder,
					   struct gpupath_compat_bdev *h)
{
	struct bdev_handle *handle;

	handle = bdev_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	h->priv = handle;
	h->bdev = handle->bdev;
	return 0;
}

static inline void gpupath_compat_bdev_close(struct gpupath_compat_bdev *h, void *holder)
{
	bdev_release(h->priv);
}
#else
static inline int gpupath_compat_bdev_open(const char *path, void *holder,
					   struct gpupath_compat_bdev *h)
{
	struct file *file;

	file = bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);
	if (IS_ERR(file))
		return PTR_ERR(file);
	h->priv = file;
	h->bdev = file_bdev(file);
	return 0;
}

static inline void gpupath_compat_bdev_close(struct gpupath_compat_bdev *h, void *holder)
{
	fput(h->priv);
}
#endif

/*
 * A bio-based disk that stacks on other block devices, and its features
 * (write cache, FUA, stable pages, no-wait submission). Until 6.11 features
 * are queue flags set on the live queue; from 6.11 they are bits of the
 * queue limits (probe: BLK_FEAT_NOWAIT), changed in an update of the limits
 * (probe: queue_limits_stack_bdev, 6.9), which from 6.9 blk_alloc_disk()
 * also takes (probe). Each returns the disk or an ERR_PTR.
 */
#ifdef GPUPATH_COMPAT_ALLOC_DISK_LIMITS
static inline struct gendisk *gpupath_compat_alloc_stacking_disk(void)
{
	struct queue_limits lim;

	blk_set_stacking_limits(&lim);
	/*
	 * The limits are checked before any path stacks on them: a disk that
	 * is not zoned has no zone append size (stacking would make it 0).
	 */
	lim.max_zone_append_sectors = 0;
	return blk_alloc_disk(&lim, NUMA_NO_NODE);
}
#else
static inline struct gendisk *gpupath_compat_alloc_stacking_disk(void)
{
	struct gendisk *disk = blk_alloc_disk(NUMA_NO_NODE);

	if (!disk)
		return ERR_PTR(-ENOMEM);
	blk_set_stacking_limits(&disk->queue->limits);
	return disk;
}
#endif

#ifdef GPUPATH_COMPAT_BLK_FEATURES
static inline void gpupath_compat_disk_features(struct gendisk *disk, bool wc, bool fua,
						bool stable, bool nowait)
{
	struct queue_limits lim = queue_limits_start_update(disk->queue);

	lim.features &= ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA | BLK_FEAT_STABLE_WRITES |
			  BLK_FEAT_NOWAIT | BLK_FEAT_ROTATIONAL);
	if (wc)
		lim.features |= BLK_FEAT_WRITE_CACHE | (fua ? BLK_FEAT_FUA : 0);
	if (stable)
		lim.features |= BLK_FEAT_STABLE_WRITES;
	if (nowait)
		lim.features |= BLK_FEAT_NOWAIT;
	/* Only features change: the limits are those the paths gave. */
	WARN_ON_ONCE(queue_limits_commit_update(disk->queue, &lim));
}
#else
static inline void gpupath_compat_queue_flag(struct request_queue *q, unsigned int flag, bool on)
{
	if (on)
		blk_queue_flag_set(flag, q);
	else
		blk_queue_flag_clear(flag, q);
}

static inline void gpupath_compat_disk_features(struct gendisk *disk, bool wc, bool fua,
						bool stable, bool nowait)
{
	blk_queue_write_cache(disk->queue, wc, wc && fua);
	gpupath_compat_queue_flag(disk->queue, QUEUE_FLAG_STABLE_WRITES, stable);
	gpupath_compat_queue_flag(disk->queue, QUEUE_FLAG_NOWAIT, nowait);
	gpupath_compat_queue_flag(disk->queue, QUEUE_FLAG_NONROT, true);
}
#endif

/*
 * The disk takes a device's limits (the strictest of both) with its queue
 * frozen; its read-ahead follows the new I/O size.
 */
#ifdef GPUPATH_COMPAT_LIMITS_UPDATE
static inline int gpupath_compat_stack_bdev(struct gendisk *disk, struct block_device *bdev)
{
	struct queue_limits lim = queue_limits_start_update(disk->queue);
	int ret;

	queue_limits_stack_bdev(&lim, bdev, 0, disk->disk_name);
	blk_mq_freeze_queue(disk->queue);
	ret = queue_limits_commit_update(disk->queue, &lim);
	blk_mq_unfreeze_queue(disk->queue);
	return ret;
}
#else
static inline int gpupath_compat_stack_bdev(struct gendisk *disk, struct block_device *bdev)
{
	blk_mq_freeze_queue(disk->queue);
	blk_stack_limits(&disk->queue->limits, &bdev_get_queue(bdev)->limits, 0);
	blk_mq_unfreeze_queue(disk->queue);
	disk_update_readahead(disk);
	return 0;
}
#endif

/* Whether a block device's driver takes P2PDMA pages in its requests. */
static inline bool gpupath_compat_bdev_p2pdma(struct block_device *bdev)
{
	return blk_queue_pci_p2pdma(bdev_get_queue(bdev));
}

/* The page map of a ZONE_DEVICE page: a field until 6.14. */
static inline struct dev_pagemap *gpupath_compat_page_pgmap(struct page *page)
{
	return page->pgmap;
}

/* eventfd_signal() lost its count in 6.8 (probe). */
#include <linux/eventfd.h>
static inline void gpupath_compat_eventfd_signal(struct eventfd_ctx *ctx)
{
#ifdef GPUPATH_COMPAT_EVENTFD_SIGNAL_NO_COUNT
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/* A dump's parsed request attributes: in its genl_info from 6.7 (probe). */
#include <net/genetlink.h>
static inline struct nlattr **gpupath_compat_dump_attrs(struct netlink_callback *cb)
{
#ifdef GPUPATH_COMPAT_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* BLK_STS_OFFLINE (a device that went away) came in 6.6. */
static inline bool gpupath_compat_sts_offline(blk_status_t status)
{
#ifdef BLK_STS_OFFLINE
	return status == BLK_STS_OFFLINE;
#else
	return false;
#endif
}

/* Freeze protection across an async write: kiocb_start_write() (probe). */
#include <linux/fs.h>
static inline void gpupath_compat_kiocb_start_write(struct kiocb *iocb)
{
#ifdef GPUPATH_COMPAT_KIOCB_START_WRITE
	kiocb_start_write(iocb);
#else
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;

	sb_start_write(sb);
	__sb_writers_release(sb, SB_FREEZE_WRITE);
#endif
}

static inline void gpupath_compat_kiocb_end_write(struct kiocb *iocb)
{
#ifdef GPUPATH_COMPAT_KIOCB_START_WRITE
	kiocb_end_write(iocb);
#else
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;

	__sb_writers_acquired(sb, SB_FREEZE_WRITE);
	sb_end_write(sb);
#endif
}

#endif /* _GPUPATH_COMPAT_H */
