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
 * 6.8, a struct file from 6.9 (compat.c).
 *
 * The holder hears of its device's death (del_gendisk(), a controller
 * deleted) through its @dead, from the holder ops' mark_dead where it is
 * called with bd_holder_lock held, which compat.c releases after it (probe:
 * that rule came with the freeze and thaw ops, 6.8). @dead runs under that
 * lock: it may not sleep on the holder's own locks. Older kernels tell
 * nothing; the holder sees the dead disk on its next I/O.
 */
#include <linux/backing-dev-defs.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>

struct gpupath_compat_bdev {
	struct block_device *bdev;
	void *priv;
};

/**
 * struct gpupath_compat_holder - who holds block devices open exclusively
 * @dead: told that one of them is going (may be NULL)
 */
struct gpupath_compat_holder {
	void (*dead)(struct gpupath_compat_holder *holder);
};

#ifdef GPUPATH_COMPAT_HOLDER_DEAD
#define GPUPATH_COMPAT_BDEV_DEAD	1
#else
#define GPUPATH_COMPAT_BDEV_DEAD	0
#endif

int gpupath_compat_bdev_open(const char *path, struct gpupath_compat_holder *holder,
			     struct gpupath_compat_bdev *h);
void gpupath_compat_bdev_close(struct gpupath_compat_bdev *h,
			       struct gpupath_compat_holder *holder);

/*
 * A look at a block device by number, opened for reading and not claimed:
 * what gpupath_compat_bdev_open() opens, without a holder.
 */
int gpupath_compat_bdev_open_dev(dev_t dev, struct gpupath_compat_bdev *h);
void gpupath_compat_bdev_close_dev(struct gpupath_compat_bdev *h);

/*
 * A bio-based disk that stacks on other block devices, and its features
 * (write cache, FUA, stable pages, no-wait submission, P2PDMA pages). Until
 * 6.11 features are queue flags set on the live queue; from 6.11 they are
 * bits of the queue limits (probe: BLK_FEAT_NOWAIT), changed in an update of
 * the limits (probe: queue_limits_stack_bdev, 6.9), which from 6.9
 * blk_alloc_disk() also takes (probe). compat.c.
 */
struct gendisk *gpupath_compat_alloc_stacking_disk(void);
void gpupath_compat_disk_io_stat(struct gendisk *disk);
void gpupath_compat_disk_features(struct gendisk *disk, bool wc, bool fua, bool stable,
				  bool nowait);
int gpupath_compat_stack_bdev(struct gendisk *disk, struct block_device *bdev);

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

static inline void gpupath_compat_p2p_free(struct pci_dev *pdev, void *kaddr, size_t size)
{
	pci_free_p2pmem(pdev, kaddr, size);
}
#endif

/*
 * A new allocation of @size bytes at @kaddr: one page map reference and one
 * page reference a page, where the pages are mapped as pages (compat.c).
 */
void gpupath_compat_p2p_own(void *kaddr, size_t size);

/*
 * Whether a device's driver published its P2P memory for others to use:
 * pci_has_p2pmem() until it became static (probe), then the PCI core's
 * p2pmem/published attribute, which tells the same (a sysfs read: never
 * under the device lock). compat.c.
 */
bool gpupath_compat_p2pmem_published(struct pci_dev *pdev);

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
 * are those of a split op: gpupath_compat_genl_ops() folds the generated
 * split table into them (compat.c).
 */
#include <net/genetlink.h>

/* The generated policies' ranges are const; 6.1's nla_policy points at them without. */
#ifndef GPUPATH_COMPAT_CONST_RANGE
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}
#endif

#ifndef GPUPATH_COMPAT_GENL_SPLIT_OPS
#define genl_split_ops genl_ops
#endif

int gpupath_compat_genl_ops(struct genl_family *fam, const struct genl_split_ops *ops,
			    unsigned int n);
void gpupath_compat_genl_ops_free(struct genl_family *fam);

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
