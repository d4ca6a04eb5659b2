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
 * The range, from range.h. A kernel after the last tested series is refused
 * rather than built against APIs nobody has checked, unless the build asks
 * for it (GPUPATH_UNTESTED_KERNEL=1: see range.h).
 */
#include "range.h"
#if LINUX_VERSION_CODE < GPUPATH_KERNEL_FIRST
#error "gpupath supports Linux 6.1 to 7.3: this kernel is older"
#endif
#if LINUX_VERSION_CODE >= GPUPATH_KERNEL_REFUSED && !defined(GPUPATH_UNTESTED_KERNEL)
#error "gpupath is tested up to Linux 7.3: this kernel is newer (GPUPATH_UNTESTED_KERNEL=1 builds it anyway)"
#endif
/* Built for a kernel after the last tested series, on request: said at load. */
#define GPUPATH_COMPAT_AFTER_TESTED	(LINUX_VERSION_CODE >= GPUPATH_KERNEL_REFUSED)

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
 *
 * The holder hears of its device's death (del_gendisk(), a controller
 * deleted) through gpupath_bdev_dead(), from the holder ops' mark_dead where
 * it is called with bd_holder_lock held and must release it (probe: that
 * rule came with the freeze and thaw ops, 6.8). gpupath_bdev_dead() runs
 * under that lock: it may not sleep on the holder's own locks. Older
 * kernels tell nothing; the holder sees the dead disk on its next I/O.
 */
#include <linux/backing-dev-defs.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>

struct gpupath_compat_bdev {
	struct block_device *bdev;
	void *priv;
};

void gpupath_bdev_dead(void *holder);

#ifdef GPUPATH_COMPAT_HOLDER_DEAD
static inline void gpupath_compat_mark_dead(struct block_device *bdev, bool surprise)
{
	gpupath_bdev_dead(bdev->bd_holder);
	mutex_unlock(&bdev->bd_holder_lock);
}

static const struct blk_holder_ops gpupath_compat_hops = {
	.mark_dead = gpupath_compat_mark_dead,
};

#define GPUPATH_COMPAT_HOPS	(&gpupath_compat_hops)
#define GPUPATH_COMPAT_BDEV_DEAD	1
#else
#define GPUPATH_COMPAT_HOPS	NULL
#define GPUPATH_COMPAT_BDEV_DEAD	0
#endif

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

	handle = bdev_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder,
				   GPUPATH_COMPAT_HOPS);
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

	file = bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder,
				      GPUPATH_COMPAT_HOPS);
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
 * A look at a block device by number, opened for reading and not claimed:
 * what gpupath_compat_bdev_open() opens, without a holder.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
static inline int gpupath_compat_bdev_open_dev(dev_t dev, struct gpupath_compat_bdev *h)
{
	h->bdev = blkdev_get_by_dev(dev, FMODE_READ, NULL);
	return PTR_ERR_OR_ZERO(h->bdev);
}

static inline void gpupath_compat_bdev_close_dev(struct gpupath_compat_bdev *h)
{
	blkdev_put(h->bdev, FMODE_READ);
}
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0)
static inline int gpupath_compat_bdev_open_dev(dev_t dev, struct gpupath_compat_bdev *h)
{
	h->bdev = blkdev_get_by_dev(dev, BLK_OPEN_READ, NULL, NULL);
	return PTR_ERR_OR_ZERO(h->bdev);
}

static inline void gpupath_compat_bdev_close_dev(struct gpupath_compat_bdev *h)
{
	blkdev_put(h->bdev, NULL);
}
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
static inline int gpupath_compat_bdev_open_dev(dev_t dev, struct gpupath_compat_bdev *h)
{
	struct bdev_handle *handle = bdev_open_by_dev(dev, BLK_OPEN_READ, NULL, NULL);

	if (IS_ERR(handle))
		return PTR_ERR(handle);
	h->priv = handle;
	h->bdev = handle->bdev;
	return 0;
}

static inline void gpupath_compat_bdev_close_dev(struct gpupath_compat_bdev *h)
{
	bdev_release(h->priv);
}
#else
static inline int gpupath_compat_bdev_open_dev(dev_t dev, struct gpupath_compat_bdev *h)
{
	struct file *file = bdev_file_open_by_dev(dev, BLK_OPEN_READ, NULL, NULL);

	if (IS_ERR(file))
		return PTR_ERR(file);
	h->priv = file;
	h->bdev = file_bdev(file);
	return 0;
}

static inline void gpupath_compat_bdev_close_dev(struct gpupath_compat_bdev *h)
{
	fput(h->priv);
}
#endif

/*
 * A bio-based disk that stacks on other block devices, and its features
 * (write cache, FUA, stable pages, no-wait submission, P2PDMA pages). Until 6.11 features
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
/*
 * A bio-based disk keeps I/O statistics (diskstats) only when asked:
 * QUEUE_FLAG_IO_STAT, from 6.11 the feature BLK_FEAT_IO_STAT. Asked once,
 * when the disk is made: the user may turn them off (queue/iostats), and
 * no later change of features undoes that.
 */
static inline void gpupath_compat_disk_io_stat(struct gendisk *disk)
{
	struct queue_limits lim = queue_limits_start_update(disk->queue);

	lim.features |= BLK_FEAT_IO_STAT;
	WARN_ON_ONCE(queue_limits_commit_update(disk->queue, &lim));
}

static inline blk_features_t gpupath_compat_features(blk_features_t f, bool wc, bool fua,
						     bool stable, bool nowait)
{
	f &= ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA | BLK_FEAT_STABLE_WRITES | BLK_FEAT_NOWAIT |
	       BLK_FEAT_ROTATIONAL);
	f |= BLK_FEAT_PCI_P2PDMA;
	if (wc)
		f |= BLK_FEAT_WRITE_CACHE | (fua ? BLK_FEAT_FUA : 0);
	if (stable)
		f |= BLK_FEAT_STABLE_WRITES;
	if (nowait)
		f |= BLK_FEAT_NOWAIT;
	return f;
}

/*
 * Only features change: the limits are those the paths gave. Nothing is
 * committed when nothing changes, and the read-ahead the administrator set
 * stays (a commit sets it from the I/O size again).
 */
static inline void gpupath_compat_disk_features(struct gendisk *disk, bool wc, bool fua,
						bool stable, bool nowait)
{
	struct queue_limits lim;
	unsigned long ra;

	if (gpupath_compat_features(disk->queue->limits.features, wc, fua, stable, nowait) ==
	    disk->queue->limits.features)
		return;
	lim = queue_limits_start_update(disk->queue);
	lim.features = gpupath_compat_features(lim.features, wc, fua, stable, nowait);
	ra = disk->bdi->ra_pages;
	WARN_ON_ONCE(queue_limits_commit_update(disk->queue, &lim));
	disk->bdi->ra_pages = ra;
}
#else
static inline void gpupath_compat_queue_flag(struct request_queue *q, unsigned int flag, bool on)
{
	if (on)
		blk_queue_flag_set(flag, q);
	else
		blk_queue_flag_clear(flag, q);
}

static inline void gpupath_compat_disk_io_stat(struct gendisk *disk)
{
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, disk->queue);
}

static inline void gpupath_compat_disk_features(struct gendisk *disk, bool wc, bool fua,
						bool stable, bool nowait)
{
	blk_queue_write_cache(disk->queue, wc, wc && fua);
	gpupath_compat_queue_flag(disk->queue, QUEUE_FLAG_STABLE_WRITES, stable);
	gpupath_compat_queue_flag(disk->queue, QUEUE_FLAG_NOWAIT, nowait);
	gpupath_compat_queue_flag(disk->queue, QUEUE_FLAG_NONROT, true);
	gpupath_compat_queue_flag(disk->queue, QUEUE_FLAG_PCI_P2PDMA, true);
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
#ifdef GPUPATH_COMPAT_COMMIT_FROZEN
	ret = queue_limits_commit_update_frozen(disk->queue, &lim);
#else
	blk_mq_freeze_queue(disk->queue);
	ret = queue_limits_commit_update(disk->queue, &lim);
	blk_mq_unfreeze_queue(disk->queue);
#endif
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

/* The page map of a ZONE_DEVICE page: a field until 6.14 (probe). */
static inline struct dev_pagemap *gpupath_compat_page_pgmap(struct page *page)
{
#ifdef GPUPATH_COMPAT_PAGE_PGMAP
	return page_pgmap(page);
#else
	return page->pgmap;
#endif
}

/* The live page map holding @pfn, with a reference, or NULL (probe: 6.16). */
static inline struct dev_pagemap *gpupath_compat_get_dev_pagemap(unsigned long pfn)
{
#ifdef GPUPATH_COMPAT_GET_PGMAP_PFN
	return get_dev_pagemap(pfn);
#else
	return get_dev_pagemap(pfn, NULL);
#endif
}

/*
 * Device memory mapped into a process. From 6.2 user-space direct I/O may
 * pin P2PDMA pages (FOLL_PCI_P2PDMA, probe), and the block layer sends them
 * only to queues that take them. The pages are then mapped as pages, which
 * GUP finds, and each page of an allocation holds one reference on its page
 * map: the last user of the page (gpupath, a mapping or a pin of someone's
 * direct I/O) gives it back to the device's pool, as the PCI core's own
 * p2pmem mappings do. Before 6.2 GUP does not tell P2PDMA pages from host
 * memory and would hand them to any driver: they are mapped as raw frames,
 * which GUP refuses, and gpupath frees the allocation whole.
 */
#include <linux/memremap.h>
#include <linux/pci-p2pdma.h>
#ifdef GPUPATH_COMPAT_P2P_GUP
#define GPUPATH_COMPAT_P2P_USER_DIO	true
#define GPUPATH_COMPAT_P2P_VM_FLAGS	(VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP)

static inline vm_fault_t gpupath_compat_p2p_insert(struct vm_area_struct *vma,
						   unsigned long addr, struct page *page)
{
	int err = vm_insert_page(vma, addr, page);

	if (err == -ENOMEM)
		return VM_FAULT_OOM;
	/* -EBUSY: another fault mapped it first. */
	if (err && err != -EBUSY)
		return VM_FAULT_SIGBUS;
	return VM_FAULT_NOPAGE;
}

/*
 * A new allocation of @size bytes at @kaddr: one page map reference and one
 * page reference a page. The pool's free pages hold one reference up to
 * 6.14; from 6.15 on they hold none (the mm stopped initialising P2PDMA
 * pages' counts, no header says so), and the allocator sets it to one, as
 * the PCI core's own p2pmem mappings do.
 */
static inline void gpupath_compat_p2p_own(void *kaddr, size_t size)
{
	size_t off;

	for (off = 0; off < size; off += PAGE_SIZE)
		if (!page_ref_count(virt_to_page(kaddr + off)))
			set_page_count(virt_to_page(kaddr + off), 1);
	if (size > PAGE_SIZE)
		percpu_ref_get_many(&gpupath_compat_page_pgmap(virt_to_page(kaddr))->ref,
				    (size >> PAGE_SHIFT) - 1);
}

/* Each page goes back to the pool when its last user drops it. */
static inline void gpupath_compat_p2p_free(struct pci_dev *pdev, void *kaddr, size_t size)
{
	size_t off;

	for (off = 0; off < size; off += PAGE_SIZE)
		put_page(virt_to_page(kaddr + off));
}
#else
#define GPUPATH_COMPAT_P2P_USER_DIO	false
#define GPUPATH_COMPAT_P2P_VM_FLAGS	(VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP)

static inline vm_fault_t gpupath_compat_p2p_insert(struct vm_area_struct *vma,
						   unsigned long addr, struct page *page)
{
	return vmf_insert_pfn(vma, addr, page_to_pfn(page));
}

static inline void gpupath_compat_p2p_own(void *kaddr, size_t size)
{
}

static inline void gpupath_compat_p2p_free(struct pci_dev *pdev, void *kaddr, size_t size)
{
	pci_free_p2pmem(pdev, kaddr, size);
}
#endif

/*
 * Whether a device's driver published its P2P memory for others to use:
 * pci_has_p2pmem() until it became static (probe), then the PCI core's
 * p2pmem/published attribute, which tells the same (provider.c; a sysfs
 * read: never under the device lock).
 */
bool gpupath_p2pmem_published_attr(struct pci_dev *pdev);
static inline bool gpupath_compat_p2pmem_published(struct pci_dev *pdev)
{
#ifdef GPUPATH_COMPAT_HAS_P2PMEM
	return pci_has_p2pmem(pdev);
#else
	return gpupath_p2pmem_published_attr(pdev);
#endif
}

/* Whether a mapped segment is a PCI bus address, renamed in 6.2 (probe). */
#include <linux/scatterlist.h>
static inline bool gpupath_compat_sg_bus_address(struct scatterlist *sg)
{
#ifdef GPUPATH_COMPAT_SG_DMA_IS_BUS_ADDRESS
	return sg_dma_is_bus_address(sg);
#else
	return sg_is_dma_bus_address(sg);
#endif
}

/* A file's attributes, struct file_kattr since 6.17 (probe). */
#ifndef GPUPATH_COMPAT_FILE_KATTR
#define file_kattr fileattr
#endif

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

/*
 * Generic netlink operations: split do and dump ops from 6.2 (probe: struct
 * genl_split_ops). 6.1 takes one struct genl_ops per command, whose fields
 * are those of a split op: there the generated split table is folded into
 * one op per command, the do's request policy serving its dump as well
 * (they are the same where both take one).
 */
#include <net/genetlink.h>
#include <linux/slab.h>

/* The generated policies' ranges are const; 6.1's nla_policy points at them without. */
#ifndef GPUPATH_COMPAT_CONST_RANGE
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}
#endif

#ifdef GPUPATH_COMPAT_GENL_SPLIT_OPS
static inline int gpupath_compat_genl_ops(struct genl_family *fam,
					  const struct genl_split_ops *ops, unsigned int n)
{
	fam->split_ops = ops;
	fam->n_split_ops = n;
	return 0;
}

static inline void gpupath_compat_genl_ops_free(struct genl_family *fam)
{
}
#else
#define genl_split_ops genl_ops
#define GPUPATH_COMPAT_GENL_CAPS	(GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP | GENL_CMD_CAP_HASPOL)

static inline int gpupath_compat_genl_ops(struct genl_family *fam, const struct genl_ops *ops,
					  unsigned int n)
{
	struct genl_ops *one;
	unsigned int i, j, k = 0;

	one = kcalloc(n, sizeof(*one), GFP_KERNEL);
	if (!one)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (j = 0; j < k && one[j].cmd != ops[i].cmd; j++)
			;
		if (j == k)
			one[k++].cmd = ops[i].cmd;
		one[j].flags |= ops[i].flags & ~GPUPATH_COMPAT_GENL_CAPS;
		one[j].validate |= ops[i].validate;
		if (ops[i].flags & GENL_CMD_CAP_DO) {
			one[j].doit = ops[i].doit;
			one[j].policy = ops[i].policy;
			one[j].maxattr = ops[i].maxattr;
		}
		if (ops[i].flags & GENL_CMD_CAP_DUMP) {
			one[j].start = ops[i].start;
			one[j].dumpit = ops[i].dumpit;
			one[j].done = ops[i].done;
			if (!one[j].policy) {
				one[j].policy = ops[i].policy;
				one[j].maxattr = ops[i].maxattr;
			}
		}
	}
	fam->ops = one;
	fam->n_ops = k;
	return 0;
}

static inline void gpupath_compat_genl_ops_free(struct genl_family *fam)
{
	kfree(fam->ops);
}
#endif

/* Per-CPU workqueues are asked for by name from 6.17 on; before, by default. */
#ifdef GPUPATH_COMPAT_WQ_PERCPU
#define GPUPATH_COMPAT_WQ_PERCPU_FLAG WQ_PERCPU
#else
#define GPUPATH_COMPAT_WQ_PERCPU_FLAG 0
#endif

/*
 * The root of the initial mount namespace as user space sees it: the init
 * task's root until it became an empty nullfs under the real root (probe,
 * 7.0), then that of the first user-space process.
 */
#include <linux/fs_struct.h>
#include <linux/sched/task.h>
static inline void gpupath_compat_init_root(struct path *root)
{
#ifdef GPUPATH_COMPAT_USERSPACE_INIT_FS
	get_fs_root(userspace_init_fs, root);
#else
	task_lock(&init_task);
	get_fs_root(init_task.fs, root);
	task_unlock(&init_task);
#endif
}

#endif /* _GPUPATH_COMPAT_H */
