// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers of compat.h too large to be inline: each kernel's way of
 * opening a block device for a holder, of making and changing a stacking
 * disk, of owning P2PDMA pages, of telling published P2P memory, and of
 * registering generic netlink operations. compat.h says which kernel does
 * what.
 */
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <linux/pci-p2pdma.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "provider.h"

#ifdef GPUPATH_COMPAT_HOLDER_DEAD
/* Under bd_holder_lock, which the holder ops release. */
static void holder_mark_dead(struct block_device *bdev, bool surprise)
{
	struct gpupath_compat_holder *holder = bdev->bd_holder;

	if (holder->dead)
		holder->dead(holder);
	mutex_unlock(&bdev->bd_holder_lock);
}

static const struct blk_holder_ops holder_ops = {
	.mark_dead = holder_mark_dead,
};

#define HOLDER_OPS	(&holder_ops)
#else
#define HOLDER_OPS	NULL
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define BDEV_MODE	(FMODE_READ | FMODE_WRITE | FMODE_EXCL)

int gpupath_compat_bdev_open(const char *path, struct gpupath_compat_holder *holder,
			     struct gpupath_compat_bdev *h)
{
	h->bdev = blkdev_get_by_path(path, BDEV_MODE, holder);
	return PTR_ERR_OR_ZERO(h->bdev);
}

void gpupath_compat_bdev_close(struct gpupath_compat_bdev *h,
			       struct gpupath_compat_holder *holder)
{
	blkdev_put(h->bdev, BDEV_MODE);
}

int gpupath_compat_bdev_open_dev(dev_t dev, struct gpupath_compat_bdev *h)
{
	h->bdev = blkdev_get_by_dev(dev, FMODE_READ, NULL);
	return PTR_ERR_OR_ZERO(h->bdev);
}

void gpupath_compat_bdev_close_dev(struct gpupath_compat_bdev *h)
{
	blkdev_put(h->bdev, FMODE_READ);
}
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0)
int gpupath_compat_bdev_open(const char *path, struct gpupath_compat_holder *holder,
			     struct gpupath_compat_bdev *h)
{
	h->bdev = blkdev_get_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);
	return PTR_ERR_OR_ZERO(h->bdev);
}

void gpupath_compat_bdev_close(struct gpupath_compat_bdev *h,
			       struct gpupath_compat_holder *holder)
{
	blkdev_put(h->bdev, holder);
}

int gpupath_compat_bdev_open_dev(dev_t dev, struct gpupath_compat_bdev *h)
{
	h->bdev = blkdev_get_by_dev(dev, BLK_OPEN_READ, NULL, NULL);
	return PTR_ERR_OR_ZERO(h->bdev);
}

void gpupath_compat_bdev_close_dev(struct gpupath_compat_bdev *h)
{
	blkdev_put(h->bdev, NULL);
}
#else
/*
 * From 6.8 an open device is a handle, from 6.9 a file: @priv, whose
 * device is kept in the struct gpupath_compat_bdev beside it.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
#define open_by_path	bdev_open_by_path
#define open_by_dev	bdev_open_by_dev
#define priv_release	bdev_release

static struct block_device *priv_bdev(void *priv)
{
	return ((struct bdev_handle *)priv)->bdev;
}
#else
#define open_by_path	bdev_file_open_by_path
#define open_by_dev	bdev_file_open_by_dev
#define priv_release	fput
#define priv_bdev	file_bdev
#endif

static int keep(void *priv, struct gpupath_compat_bdev *h)
{
	if (IS_ERR(priv))
		return PTR_ERR(priv);
	h->priv = priv;
	h->bdev = priv_bdev(priv);
	return 0;
}

int gpupath_compat_bdev_open(const char *path, struct gpupath_compat_holder *holder,
			     struct gpupath_compat_bdev *h)
{
	return keep(open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder, HOLDER_OPS), h);
}

void gpupath_compat_bdev_close(struct gpupath_compat_bdev *h,
			       struct gpupath_compat_holder *holder)
{
	priv_release(h->priv);
}

int gpupath_compat_bdev_open_dev(dev_t dev, struct gpupath_compat_bdev *h)
{
	return keep(open_by_dev(dev, BLK_OPEN_READ, NULL, NULL), h);
}

void gpupath_compat_bdev_close_dev(struct gpupath_compat_bdev *h)
{
	priv_release(h->priv);
}
#endif

/* A stacking disk, or an ERR_PTR. */
#ifdef GPUPATH_COMPAT_ALLOC_DISK_LIMITS
struct gendisk *gpupath_compat_alloc_stacking_disk(void)
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
struct gendisk *gpupath_compat_alloc_stacking_disk(void)
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
void gpupath_compat_disk_io_stat(struct gendisk *disk)
{
	struct queue_limits lim = queue_limits_start_update(disk->queue);

	lim.features |= BLK_FEAT_IO_STAT;
	WARN_ON_ONCE(queue_limits_commit_update(disk->queue, &lim));
}

static blk_features_t features(blk_features_t f, bool wc, bool fua, bool stable, bool nowait)
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
void gpupath_compat_disk_features(struct gendisk *disk, bool wc, bool fua, bool stable,
				  bool nowait)
{
	struct queue_limits lim;
	unsigned long ra;

	if (features(disk->queue->limits.features, wc, fua, stable, nowait) ==
	    disk->queue->limits.features)
		return;
	lim = queue_limits_start_update(disk->queue);
	lim.features = features(lim.features, wc, fua, stable, nowait);
	ra = disk->bdi->ra_pages;
	WARN_ON_ONCE(queue_limits_commit_update(disk->queue, &lim));
	disk->bdi->ra_pages = ra;
}
#else
static void queue_flag(struct request_queue *q, unsigned int flag, bool on)
{
	if (on)
		blk_queue_flag_set(flag, q);
	else
		blk_queue_flag_clear(flag, q);
}

void gpupath_compat_disk_io_stat(struct gendisk *disk)
{
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, disk->queue);
}

void gpupath_compat_disk_features(struct gendisk *disk, bool wc, bool fua, bool stable,
				  bool nowait)
{
	blk_queue_write_cache(disk->queue, wc, wc && fua);
	queue_flag(disk->queue, QUEUE_FLAG_STABLE_WRITES, stable);
	queue_flag(disk->queue, QUEUE_FLAG_NOWAIT, nowait);
	queue_flag(disk->queue, QUEUE_FLAG_NONROT, true);
	queue_flag(disk->queue, QUEUE_FLAG_PCI_P2PDMA, true);
}
#endif

/*
 * The disk takes a device's limits (the strictest of both) with its queue
 * frozen; its read-ahead follows the new I/O size.
 */
#ifdef GPUPATH_COMPAT_LIMITS_UPDATE
int gpupath_compat_stack_bdev(struct gendisk *disk, struct block_device *bdev)
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
int gpupath_compat_stack_bdev(struct gendisk *disk, struct block_device *bdev)
{
	blk_mq_freeze_queue(disk->queue);
	blk_stack_limits(&disk->queue->limits, &bdev_get_queue(bdev)->limits, 0);
	blk_mq_unfreeze_queue(disk->queue);
	disk_update_readahead(disk);
	return 0;
}
#endif

/*
 * Where pages are mapped as pages (compat.h), each of an allocation holds
 * one page reference and one page map reference. The pool's free pages hold
 * one reference up to 6.14; from 6.15 on they hold none (the mm stopped
 * initialising P2PDMA pages' counts, no header says so), and the allocator
 * sets it to one, as the PCI core's own p2pmem mappings do. Else the
 * allocation is freed whole, and nothing is taken.
 */
void gpupath_compat_p2p_own(void *kaddr, size_t size)
{
#ifdef GPUPATH_COMPAT_P2P_GUP
	size_t off;

	for (off = 0; off < size; off += PAGE_SIZE)
		if (!page_ref_count(virt_to_page(kaddr + off)))
			set_page_count(virt_to_page(kaddr + off), 1);
	if (size > PAGE_SIZE)
		percpu_ref_get_many(&gpupath_compat_page_pgmap(virt_to_page(kaddr))->ref,
				    (size >> PAGE_SHIFT) - 1);
#endif
}

/* Whether @pdev's driver published its P2P memory (may read sysfs). */
bool gpupath_compat_p2pmem_published(struct pci_dev *pdev)
{
#ifdef GPUPATH_COMPAT_HAS_P2PMEM
	return pci_has_p2pmem(pdev);
#else
	return gpupath_p2pmem_published_attr(pdev);
#endif
}

/*
 * The family's operations: split do and dump ops from 6.2 (probe). 6.1
 * takes one struct genl_ops per command, whose fields are those of a split
 * op: there the generated split table is folded into one op per command,
 * the do's request policy serving its dump as well (they are the same where
 * both take one).
 */
#ifdef GPUPATH_COMPAT_GENL_SPLIT_OPS
int gpupath_compat_genl_ops(struct genl_family *fam, const struct genl_split_ops *ops,
			    unsigned int n)
{
	fam->split_ops = ops;
	fam->n_split_ops = n;
	return 0;
}

void gpupath_compat_genl_ops_free(struct genl_family *fam)
{
}
#else
#define GENL_CAPS	(GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP | GENL_CMD_CAP_HASPOL)

int gpupath_compat_genl_ops(struct genl_family *fam, const struct genl_ops *ops,
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
		one[j].flags |= ops[i].flags & ~GENL_CAPS;
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

void gpupath_compat_genl_ops_free(struct genl_family *fam)
{
	kfree(fam->ops);
}
#endif
