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

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "gpupath needs Linux 6.1 or later"
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
 * A bio-based queue's features: queue flags until 6.11, then features in
 * the queue limits.
 */
static inline void gpupath_compat_queue_flag(struct request_queue *q, unsigned int flag, bool on)
{
	if (on)
		blk_queue_flag_set(flag, q);
	else
		blk_queue_flag_clear(flag, q);
}

static inline void gpupath_compat_queue_nowait(struct request_queue *q, bool on)
{
	gpupath_compat_queue_flag(q, QUEUE_FLAG_NOWAIT, on);
}

static inline void gpupath_compat_queue_stable_writes(struct request_queue *q, bool on)
{
	gpupath_compat_queue_flag(q, QUEUE_FLAG_STABLE_WRITES, on);
}

static inline void gpupath_compat_queue_write_cache(struct request_queue *q, bool wc, bool fua)
{
	blk_queue_write_cache(q, wc, fua);
}

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

/* BLK_STS_OFFLINE (a device that went away) came in 6.6. */
static inline bool gpupath_compat_sts_offline(blk_status_t status)
{
#ifdef BLK_STS_OFFLINE
	return status == BLK_STS_OFFLINE;
#else
	return false;
#endif
}

#endif /* _GPUPATH_COMPAT_H */
