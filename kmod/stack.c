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
 * - Device-mapper disks, over the devices their tables name. The kernel
 *   keeps a table to itself, so root's gpupathd reads it and says what its
 *   targets do (GPUPATH_CMD_STACK_SET, per disk sequence number, again at
 *   each change uevent: a table is swapped on resume). Tables that only
 *   remap bios (linear, striped) are seen through as md arrays are; tables
 *   with a target that touches the data (crypt, integrity, ...) are
 *   refused, stacked-transform; any other table, and a disk gpupathd has
 *   said nothing of, stacked-device. A word lasts as long as the netlink
 *   socket that said it: when gpupathd stops, its words go. Between a
 *   table's swap and gpupathd's word on it (a uevent's round trip) the old
 *   word holds.
 * - Anything else bio-based: loop, zram. Refused, stacked-device.
 *
 * What is below a device is read as user space reads it, from sysfs: an
 * array's md/level, a dm disk's dm/, their slaves/, a head's multipath/
 * (devattr.c). A member
 * is looked at through a read-only open of its block device, which md
 * holds open already. The answers for a device and a provider are kept for
 * GPUPATH_STACK_TTL, as route.c keeps a fabrics namespace's DMA engine, so
 * that each I/O does not list and open the members again.
 */
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/major.h>
#include <linux/module.h>
#include <linux/netlink.h>
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
/* dm disks gpupathd has spoken of; the one spoken of longest ago goes. */
#define GPUPATH_STACK_TOLD	128

static struct stack_cached {
	u64 diskseq;
	u32 prov;
	unsigned long stamp;
	enum gpupath_reason reason;
	int distance;
} stack_cache[GPUPATH_STACK_CACHE];

static struct stack_told {
	u64 diskseq;
	u64 when;		/* order of telling: the smallest goes first */
	enum gpupath_stack_kind kind;
	/* The socket that told it (compared only, never followed). */
	struct net *net;
	u32 portid;
} stack_told[GPUPATH_STACK_TOLD];
/* Counts the words told and dropped: an answer worked out before one is not kept. */
static u64 stack_told_count;

static DEFINE_SPINLOCK(stack_cache_lock);	/* stack_cache, stack_told* */

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

static u64 told_count(void)
{
	u64 n;

	spin_lock(&stack_cache_lock);
	n = stack_told_count;
	spin_unlock(&stack_cache_lock);
	return n;
}

/* Keep an answer worked out since the @told-th word, unless a word came since. */
static void cache(struct gendisk *disk, struct gpupath_provider *prov,
		  enum gpupath_reason reason, int distance, u64 told)
{
	struct stack_cached *c = cache_slot(disk, prov);

	spin_lock(&stack_cache_lock);
	if (told == stack_told_count)
		*c = (struct stack_cached){
			.diskseq = disk->diskseq, .prov = prov->id, .stamp = jiffies,
			.reason = reason, .distance = distance,
		};
	spin_unlock(&stack_cache_lock);
}

/* What gpupathd said of dm disk @diskseq; 0: nothing. */
static enum gpupath_stack_kind told_kind(u64 diskseq)
{
	enum gpupath_stack_kind kind = 0;
	int i;

	spin_lock(&stack_cache_lock);
	for (i = 0; i < GPUPATH_STACK_TOLD; i++)
		if (stack_told[i].diskseq == diskseq)
			kind = stack_told[i].kind;
	spin_unlock(&stack_cache_lock);
	return kind;
}

/**
 * gpupath_stack_tell() - what a dm disk is, as its user says
 * @diskseq: the disk's sequence number
 * @kind: enum gpupath_stack_kind
 * @net: the network namespace of the socket that said it
 * @portid: that socket (what it said goes when it closes)
 *
 * The answers given before it are forgotten.
 */
void gpupath_stack_tell(u64 diskseq, enum gpupath_stack_kind kind, struct net *net, u32 portid)
{
	struct stack_told *t = &stack_told[0];
	int i;

	spin_lock(&stack_cache_lock);
	for (i = 0; i < GPUPATH_STACK_TOLD; i++) {
		if (stack_told[i].diskseq == diskseq) {
			t = &stack_told[i];
			break;
		}
		if (stack_told[i].when < t->when)
			t = &stack_told[i];
	}
	*t = (struct stack_told){
		.diskseq = diskseq, .when = ++stack_told_count, .kind = kind,
		.net = net, .portid = portid,
	};
	memset(stack_cache, 0, sizeof(stack_cache));
	spin_unlock(&stack_cache_lock);
}

/* A generic netlink socket closed: what it said goes with it. */
static int stack_released(struct notifier_block *nb, unsigned long what, void *ptr)
{
	struct netlink_notify *n = ptr;
	bool dropped = false;
	int i;

	if (what != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC || !n->portid)
		return NOTIFY_DONE;
	spin_lock(&stack_cache_lock);
	for (i = 0; i < GPUPATH_STACK_TOLD; i++) {
		if (stack_told[i].diskseq && stack_told[i].portid == n->portid &&
		    net_eq(stack_told[i].net, n->net)) {
			stack_told[i] = (struct stack_told){};
			dropped = true;
		}
	}
	if (dropped) {
		stack_told_count++;
		memset(stack_cache, 0, sizeof(stack_cache));
	}
	spin_unlock(&stack_cache_lock);
	return NOTIFY_DONE;
}

static struct notifier_block stack_release_nb = {
	.notifier_call = stack_released,
};

int gpupath_stack_init(void)
{
	return netlink_register_notifier(&stack_release_nb);
}

void gpupath_stack_exit(void)
{
	netlink_unregister_notifier(&stack_release_nb);
}

/* A device-mapper disk, bio-based or request-based: it has dm/ in sysfs. */
static bool is_dm(struct gendisk *disk)
{
	char suspended[8];

	return !gpupath_devattr_get(disk_to_dev(disk), "dm", "suspended", suspended,
				    sizeof(suspended));
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

/* A device that remaps and splits bios only, by each device below it. */
static enum gpupath_reason members_reason(struct gendisk *disk, struct gpupath_provider *prov,
					  int depth, struct gpupath_devattr_name *names,
					  int *distance)
{
	struct device *dev = disk_to_dev(disk);
	enum gpupath_reason reason;
	int n, i;

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

/* An md array, by its level. */
static enum gpupath_reason md_reason(struct gendisk *disk, const char *level,
				     struct gpupath_provider *prov, int depth,
				     struct gpupath_devattr_name *names, int *distance)
{
	if (!strcmp(level, "raid4") || !strcmp(level, "raid5") || !strcmp(level, "raid6"))
		return GPUPATH_REASON_STACKED_TRANSFORM;
	if (strcmp(level, "raid0") && strcmp(level, "raid1") && strcmp(level, "raid10") &&
	    strcmp(level, "linear"))
		return GPUPATH_REASON_STACKED_DEVICE;
	return members_reason(disk, prov, depth, names, distance);
}

/* A device-mapper disk, by what gpupathd said of its table. */
static enum gpupath_reason dm_reason(struct gendisk *disk, struct gpupath_provider *prov,
				     int depth, struct gpupath_devattr_name *names,
				     int *distance)
{
	switch (told_kind(disk->diskseq)) {
	case GPUPATH_STACK_KIND_REMAP:
		return members_reason(disk, prov, depth, names, distance);
	case GPUPATH_STACK_KIND_TRANSFORM:
		return GPUPATH_REASON_STACKED_TRANSFORM;
	default:
		return GPUPATH_REASON_STACKED_DEVICE;
	}
}

/* A stacked device, its answer kept a while. */
static enum gpupath_reason stack_reason(struct gendisk *disk, struct gpupath_provider *prov,
					int depth, int *distance)
{
	struct gpupath_devattr_name *names;
	enum gpupath_reason reason;
	char level[16];
	int d = -1;
	u64 told;

	if (cached(disk, prov, &reason, &d))
		goto out;
	told = told_count();
	names = kmalloc_array(GPUPATH_STACK_BELOW, sizeof(*names), GFP_KERNEL);
	if (!names)
		return GPUPATH_REASON_NO_DMA_DEVICE;
	if (is_head(disk))
		reason = head_reason(disk, prov, names, &d);
	else if (disk->fops->submit_bio &&
		 !gpupath_devattr_get(disk_to_dev(disk), "md", "level", level, sizeof(level)))
		reason = md_reason(disk, level, prov, depth, names, &d);
	else if (disk->fops->submit_bio && is_dm(disk))
		reason = dm_reason(disk, prov, depth, names, &d);
	else
		reason = GPUPATH_REASON_STACKED_DEVICE;
	kfree(names);
	cache(disk, prov, reason, d, told);
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

/**
 * gpupath_stack_dm_diskseq() - the sequence number of a dm disk
 * @devt: the disk's number
 * @diskseq: its sequence number
 *
 * Found through device mapper itself (dm_mod's exports, taken only while
 * used): opening the disk would make a dmsetup remove meanwhile fail with
 * EBUSY.
 *
 * Return: 0, or -ENODEV when no dm disk has this number.
 */
int gpupath_stack_dm_diskseq(dev_t devt, u64 *diskseq)
{
	struct mapped_device *(*get_md)(dev_t dev) = symbol_get(dm_get_md);
	struct gendisk *(*disk_of)(struct mapped_device *md) = symbol_get(dm_disk);
	void (*put)(struct mapped_device *md) = symbol_get(dm_put);
	struct mapped_device *md = NULL;
	int ret = -ENODEV;

	if (get_md && disk_of && put)
		md = get_md(devt);
	if (md) {
		*diskseq = disk_of(md)->diskseq;
		put(md);
		ret = 0;
	}
	if (get_md)
		symbol_put(dm_get_md);
	if (disk_of)
		symbol_put(dm_disk);
	if (put)
		symbol_put(dm_put);
	return ret;
}
