// SPDX-License-Identifier: GPL-2.0
/*
 * Block devices stacked on others, seen through to the devices below them:
 *
 * - An NVMe native-multipath head, over its paths. The kernel picks the
 *   path of each I/O below gpupath, so device memory goes direct only where
 *   the head itself takes P2PDMA pages (the kernel stacks that capability
 *   from its paths' queues, from 7.2 on) and the DMA engine of every live
 *   path reaches the memory. Elsewhere the head is refused, multipath-head.
 * - md RAID0, RAID1, RAID10 and linear arrays, over their members. They
 *   only remap and split bios, so device memory goes direct when it can go
 *   to every member; a member may itself be an array, a gpupath volume or a
 *   head. RAID4/5/6 compute parity over the data with the CPU: refused,
 *   stacked-transform.
 * - Anything else bio-based: device mapper, whose table the kernel keeps to
 *   itself; loop; zram. Refused, stacked-device.
 *
 * What is below a device is read as user space reads it, from sysfs: an
 * array's md/level and slaves/, a head's multipath/ (devattr.c). A member
 * is looked at through a read-only open of its block device, which md
 * holds open already. The answers for a device and a provider are kept for
 * GPUPATH_STACK_TTL, as route.c keeps a fabrics namespace's DMA engine, so
 * that each I/O does not list and open the members again.
 */
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/major.h>
#include <linux/slab.h>

#include "compat/compat.h"
#include "devattr.h"
#include "provider.h"
#include "route.h"
#include "stack.h"
#include "volume.h"

/* Arrays of arrays of arrays: deeper is refused. */
#define GPUPATH_STACK_DEPTH	4
/* Members of one array, paths of one head. */
#define GPUPATH_STACK_BELOW	64

#define GPUPATH_STACK_CACHE	16
#define GPUPATH_STACK_TTL	HZ

static struct stack_cached {
	u64 diskseq;
	u32 prov;
	unsigned long stamp;
	enum gpupath_reason reason;
	int distance;
} stack_cache[GPUPATH_STACK_CACHE];
static DEFINE_SPINLOCK(stack_cache_lock);	/* stack_cache */

static struct stack_cached *cache_slot(struct gendisk *disk, struct gpupath_provider *prov)
{
	return &stack_cache[hash_64(disk->diskseq ^ ((u64)prov->id << 32),
				    ilog2(GPUPATH_STACK_CACHE))];
}

static bool cached(struct gendisk *disk, struct gpupath_provider *prov,
		   enum gpupath_reason *reason, int *distance)
{
	struct stack_cached *c = cache_slot(disk, prov);
	bool hit;

	spin_lock(&stack_cache_lock);
	hit = c->diskseq == disk->diskseq && c->prov == prov->id &&
	      time_before(jiffies, c->stamp + GPUPATH_STACK_TTL);
	if (hit) {
		*reason = c->reason;
		*distance = c->distance;
	}
	spin_unlock(&stack_cache_lock);
	return hit;
}

static void cache(struct gendisk *disk, struct gpupath_provider *prov,
		  enum gpupath_reason reason, int distance)
{
	struct stack_cached *c = cache_slot(disk, prov);

	spin_lock(&stack_cache_lock);
	*c = (struct stack_cached){
		.diskseq = disk->diskseq, .prov = prov->id, .stamp = jiffies,
		.reason = reason, .distance = distance,
	};
	spin_unlock(&stack_cache_lock);
}

/* An NVMe native-multipath head: its parent is the subsystem. */
static bool is_head(struct gendisk *disk)
{
	struct device *parent = disk_to_dev(disk)->parent;

	return parent && parent->class && !strcmp(parent->class->name, "nvme-subsystem");
}

/**
 * gpupath_stacked() - whether a block device stacks on others
 * @bdev: the block device (not a gpupath volume)
 *
 * Return: true for a native-multipath head and any bio-based or loop
 * device: gpupath_stack_reason() decides for those.
 */
bool gpupath_stacked(struct block_device *bdev)
{
	struct gendisk *disk = bdev->bd_disk;

	return is_head(disk) || disk->fops->submit_bio ||
	       MAJOR(disk_devt(disk)) == LOOP_MAJOR;
}

static enum gpupath_reason reason_of(struct block_device *bdev, struct gpupath_provider *prov,
				     int depth, int *distance);

/* Keep the farthest: the I/O may go to any of them. */
static void farthest(int *distance, int d)
{
	if (d > *distance)
		*distance = d;
}

/* Each live path of a head, by its controller's DMA engine. */
static enum gpupath_reason head_reason(struct gendisk *disk, struct gpupath_provider *prov,
				       struct gpupath_devattr_name *names, int *distance)
{
	struct device *dev = disk_to_dev(disk);
	enum gpupath_reason reason;
	char group[2 * sizeof(names->name)], state[16];
	struct gpupath_dma dma;
	int n, i, live = 0;

	/* Until the kernel stacks P2PDMA onto heads, they send none on. */
	if (!gpupath_compat_bdev_p2pdma(disk->part0))
		return GPUPATH_REASON_MULTIPATH_HEAD;
	n = gpupath_devattr_list(dev, "multipath", names, GPUPATH_STACK_BELOW);
	if (n < 0)
		return n == -ENOENT ? GPUPATH_REASON_MULTIPATH_HEAD : GPUPATH_REASON_NO_DMA_DEVICE;
	for (i = 0; i < n; i++) {
		snprintf(group, sizeof(group), "multipath/%s/device", names[i].name);
		/* A controller that is not live takes no I/O of the head's. */
		if (gpupath_devattr_get(dev, group, "state", state, sizeof(state)) ||
		    strcmp(state, "live"))
			continue;
		live++;
		gpupath_dma_find_ctrl(dev, group, &dma);
		reason = gpupath_dma_reason(&dma, prov);
		if (reason == GPUPATH_REASON_NONE)
			farthest(distance, gpupath_dma_distance(&dma, prov));
		gpupath_dma_put(&dma);
		if (reason != GPUPATH_REASON_NONE)
			return reason;
	}
	return live ? GPUPATH_REASON_NONE : GPUPATH_REASON_NO_DMA_DEVICE;
}

/* One member of an array, by its device number. */
static enum gpupath_reason member_reason(struct device *dev, const char *name,
					 struct gpupath_provider *prov, int depth, int *distance)
{
	char group[sizeof_field(struct gpupath_devattr_name, name) + 8], num[24];
	struct gpupath_compat_bdev h = {};
	enum gpupath_reason reason;
	unsigned int major, minor;

	snprintf(group, sizeof(group), "slaves/%s", name);
	if (gpupath_devattr_get(dev, group, "dev", num, sizeof(num)) ||
	    sscanf(num, "%u:%u", &major, &minor) != 2)
		return GPUPATH_REASON_NO_DMA_DEVICE;
	if (gpupath_compat_bdev_open_dev(MKDEV(major, minor), &h))
		return GPUPATH_REASON_NO_DMA_DEVICE;
	reason = reason_of(h.bdev, prov, depth, distance);
	gpupath_compat_bdev_close_dev(&h);
	return reason;
}

/* An md array that remaps and splits bios only, by each member. */
static enum gpupath_reason md_reason(struct gendisk *disk, const char *level,
				     struct gpupath_provider *prov, int depth,
				     struct gpupath_devattr_name *names, int *distance)
{
	struct device *dev = disk_to_dev(disk);
	enum gpupath_reason reason;
	int n, i;

	if (!strcmp(level, "raid4") || !strcmp(level, "raid5") || !strcmp(level, "raid6"))
		return GPUPATH_REASON_STACKED_TRANSFORM;
	if (strcmp(level, "raid0") && strcmp(level, "raid1") && strcmp(level, "raid10") &&
	    strcmp(level, "linear"))
		return GPUPATH_REASON_STACKED_DEVICE;
	n = gpupath_devattr_list(dev, "slaves", names, GPUPATH_STACK_BELOW);
	if (n <= 0)
		return n == -E2BIG ? GPUPATH_REASON_STACKED_DEVICE : GPUPATH_REASON_NO_DMA_DEVICE;
	for (i = 0; i < n; i++) {
		reason = member_reason(dev, names[i].name, prov, depth + 1, distance);
		if (reason != GPUPATH_REASON_NONE)
			return reason;
	}
	return GPUPATH_REASON_NONE;
}

/* A stacked device, its answer kept a while. */
static enum gpupath_reason stack_reason(struct gendisk *disk, struct gpupath_provider *prov,
					int depth, int *distance)
{
	struct gpupath_devattr_name *names;
	enum gpupath_reason reason;
	char level[16];
	int d = -1;

	if (cached(disk, prov, &reason, &d))
		goto out;
	names = kmalloc_array(GPUPATH_STACK_BELOW, sizeof(*names), GFP_KERNEL);
	if (!names)
		return GPUPATH_REASON_NO_DMA_DEVICE;
	if (is_head(disk))
		reason = head_reason(disk, prov, names, &d);
	else if (disk->fops->submit_bio &&
		 !gpupath_devattr_get(disk_to_dev(disk), "md", "level", level, sizeof(level)))
		reason = md_reason(disk, level, prov, depth, names, &d);
	else
		reason = GPUPATH_REASON_STACKED_DEVICE;
	kfree(names);
	cache(disk, prov, reason, d);
out:
	if (reason == GPUPATH_REASON_NONE)
		farthest(distance, d);
	return reason;
}

static enum gpupath_reason reason_of(struct block_device *bdev, struct gpupath_provider *prov,
				     int depth, int *distance)
{
	struct gpupath_volume *vol = gpupath_volume_of_bdev(bdev);
	enum gpupath_reason reason;
	struct gpupath_dma dma;

	if (vol)
		return gpupath_volume_reason(vol, prov);
	if (gpupath_stacked(bdev))
		return depth > GPUPATH_STACK_DEPTH ? GPUPATH_REASON_STACKED_DEVICE :
		       stack_reason(bdev->bd_disk, prov, depth, distance);
	gpupath_dma_find(bdev, &dma);
	reason = gpupath_dma_reason(&dma, prov);
	if (reason == GPUPATH_REASON_NONE)
		farthest(distance, gpupath_dma_distance(&dma, prov));
	gpupath_dma_put(&dma);
	return reason;
}

/**
 * gpupath_stack_reason() - whether device memory of @prov can go direct
 *	through a stacked block device
 * @bdev: the device, for which gpupath_stacked() is true
 * @prov: the provider
 * @distance: set to the farthest DMA engine's distance below, as
 *	pci_p2pdma_distance() counts it, when the answer is NONE (-1 where a
 *	gpupath volume below picks its own path)
 *
 * Return: %GPUPATH_REASON_NONE, or why not: the first device below that
 * cannot, or the stacked device's own reason. Sleeps.
 */
enum gpupath_reason gpupath_stack_reason(struct block_device *bdev,
					 struct gpupath_provider *prov, int *distance)
{
	*distance = -1;
	return stack_reason(bdev->bd_disk, prov, 0, distance);
}
