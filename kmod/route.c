// SPDX-License-Identifier: GPL-2.0
/*
 * Can a block device's DMA engine reach a provider's memory directly? The
 * DMA engine is found from the disk: the PCI function above it, when its
 * driver takes P2P memory in its requests (the queue's PCI P2PDMA
 * capability: nvme-pci), or for nvme-rdma the net device that carries the
 * controller's connection. nvme-rdma is the one driver taken without that
 * capability: it maps each request through the RDMA device, which maps P2P
 * memory as any other. The answer is a gpupath_reason, NONE for yes.
 */
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/major.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <net/route.h>

#include "devattr.h"
#include "fault.h"
#include "provider.h"
#include "route.h"

static struct device *pci_ancestor(struct device *dev)
{
	for (; dev; dev = dev->parent)
		if (dev_is_pci(dev))
			return dev;
	return NULL;
}

/* The value of "key=" in an nvme controller's address attribute. */
static bool address_field(const char *addr, const char *key, __be32 *ip)
{
	const char *p = addr;
	size_t klen = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=')
			return in4_pton(p + klen + 1, -1, (u8 *)ip, ',', NULL);
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

/* The net device a connection to @addr leaves through. */
static struct net_device *egress_dev(const char *addr)
{
	__be32 daddr = 0, saddr = 0;
	struct flowi4 fl4 = {};
	struct net_device *ndev;
	struct rtable *rt;

	if (!address_field(addr, "traddr", &daddr))
		return NULL;
	address_field(addr, "host_traddr", &saddr);
	/* A local address: the device that owns it, as rdma_cm resolves it. */
	ndev = ip_dev_find(&init_net, daddr);
	if (ndev)
		return ndev;
	fl4.daddr = daddr;
	fl4.saddr = saddr;
	rt = ip_route_output_key(&init_net, &fl4);
	if (IS_ERR(rt))
		return NULL;
	ndev = rt->dst.dev;
	dev_hold(ndev);
	ip_rt_put(rt);
	return ndev;
}

/* An RDMA device (class "infiniband") on @dev, or one level below it. */
static int rdma_child(struct device *dev, void *depth)
{
	if (dev->class && !strcmp(dev->class->name, "infiniband"))
		return 1;
	return depth ? 0 : device_for_each_child(dev, (void *)1, rdma_child);
}

/*
 * Whether a PCI function has an RDMA device of its own: a hardware RNIC
 * registers its RDMA device below its PCI function (directly, or below an
 * auxiliary device of it). A NIC without one carries only software RDMA
 * (soft-RoCE, siw), which copies with the CPU through the pages' kernel
 * mapping, whatever the net device is. (The RDMA core's lookups are not
 * GPL exports: symbol_get() refuses them, and gpupath does not depend on
 * the RDMA core.)
 */
static bool rdma_hardware(struct device *pci)
{
	return device_for_each_child(pci, NULL, rdma_child) > 0;
}

/*
 * nvme-rdma: the RDMA device is the one on the net device the connection
 * leaves through. A hardware RNIC is that net device's PCI function (RoCE);
 * a net device without a PCI function (veth, dummy), or whose function has
 * no RDMA device, can only carry a software one (soft-RoCE, siw): it copies
 * with the CPU.
 */
static void rdma_dma(struct gpupath_dma *dma, const char *addr)
{
	struct net_device *ndev;
	struct device *pci;

	ndev = egress_dev(addr);
	if (!ndev) {
		dma->reason = GPUPATH_REASON_NO_DMA_DEVICE;
		return;
	}
	pci = pci_ancestor(ndev->dev.parent);
	if (pci && rdma_hardware(pci))
		dma->dev = get_device(pci);
	else
		dma->reason = GPUPATH_REASON_VIRTUAL_DMA;
	dev_put(ndev);
}

/*
 * The DMA engine of an NVMe controller from its transport and address
 * attributes: @group of @dev is the controller's directory (NULL: @dev is
 * the controller). PCIe only where @pcie (a path of a native head: the head
 * stacked the PCI P2PDMA capability from its paths' queues); the PCI
 * function of a namespace's own disk is found from the disk.
 */
static void nvme_ctrl_dma(struct gpupath_dma *dma, struct device *dev, const char *group,
			  bool pcie, char *buf)
{
	dma->reason = GPUPATH_REASON_NO_DMA_DEVICE;
	if (gpupath_devattr_read(dev, group, "transport", buf) <= 0)
		return;
	if (pcie && sysfs_streq(buf, "pcie")) {
		if (gpupath_devattr_read(dev, group, "address", buf) <= 0)
			return;
		dma->dev = bus_find_device_by_name(&pci_bus_type, NULL, strim(buf));
		if (dma->dev)
			dma->reason = GPUPATH_REASON_NONE;
		return;
	}
	dma->fabrics = true;
	if (sysfs_streq(buf, "tcp")) {
		dma->reason = GPUPATH_REASON_CPU_COPY;
		return;
	}
	if (!sysfs_streq(buf, "rdma") || gpupath_devattr_read(dev, group, "address", buf) <= 0)
		return;
	dma->reason = GPUPATH_REASON_NONE;
	rdma_dma(dma, strim(buf));
}

/**
 * gpupath_dma_find_ctrl() - the DMA engine of an NVMe controller
 * @dev: a device in sysfs
 * @group: the controller's directory below @dev's (a head's
 *	multipath/nvme0c1n1/device), or NULL when @dev is the controller
 * @dma: filled in; release with gpupath_dma_put()
 *
 * For a path of a native head, which has no block device of its own: the
 * PCI function of an NVMe-PCIe controller, the RDMA device's of nvme-rdma.
 * Sleeps.
 */
void gpupath_dma_find_ctrl(struct device *dev, const char *group, struct gpupath_dma *dma)
{
	char *buf;

	memset(dma, 0, sizeof(*dma));
	dma->reason = GPUPATH_REASON_NO_DMA_DEVICE;
	buf = (char *)__get_free_page(GFP_KERNEL);
	if (!buf)
		return;
	nvme_ctrl_dma(dma, dev, group, true, buf);
	free_page((unsigned long)buf);
}

/*
 * A fabrics namespace's DMA engine takes two sysfs reads, a route lookup and
 * a walk of the NIC's child devices: the last few answers are kept, by disk (its
 * sequence number, never reused), for GPUPATH_DMA_CACHE_TTL, so that each
 * I/O on a namespace does not ask again while a route change is still
 * seen within that time.
 */
#define GPUPATH_DMA_CACHE		8
#define GPUPATH_DMA_CACHE_TTL		HZ

static struct dma_cached {
	u64 diskseq;
	unsigned long stamp;
	struct gpupath_dma dma;
} dma_cache[GPUPATH_DMA_CACHE];
static DEFINE_SPINLOCK(dma_cache_lock);	/* dma_cache */

static struct dma_cached *cache_slot(struct gendisk *disk)
{
	return &dma_cache[hash_64(disk->diskseq, ilog2(GPUPATH_DMA_CACHE))];
}

static bool cached(struct gendisk *disk, struct gpupath_dma *dma)
{
	struct dma_cached *c = cache_slot(disk);
	bool hit;

	spin_lock(&dma_cache_lock);
	hit = c->diskseq == disk->diskseq &&
	      time_before(jiffies, c->stamp + GPUPATH_DMA_CACHE_TTL);
	if (hit) {
		*dma = c->dma;
		get_device(dma->dev);
	}
	spin_unlock(&dma_cache_lock);
	return hit;
}

static void cache(struct gendisk *disk, const struct gpupath_dma *dma)
{
	struct dma_cached *c = cache_slot(disk);
	struct device *old;

	spin_lock(&dma_cache_lock);
	old = c->dma.dev;
	c->diskseq = disk->diskseq;
	c->stamp = jiffies;
	c->dma = *dma;
	get_device(dma->dev);
	spin_unlock(&dma_cache_lock);
	put_device(old);
}

/**
 * gpupath_route_exit() - forget the DMA engines kept, at unload
 */
void gpupath_route_exit(void)
{
	int i;

	for (i = 0; i < GPUPATH_DMA_CACHE; i++) {
		put_device(dma_cache[i].dma.dev);
		dma_cache[i] = (struct dma_cached){};
	}
}

/**
 * gpupath_dma_find() - the DMA engine of a block device
 * @bdev: the block device
 * @dma: filled in; release with gpupath_dma_put()
 *
 * Either @dma->dev is the PCI function that DMAs for @bdev (a reference),
 * or @dma->reason says why no device memory can go direct on it. Sleeps.
 */
void gpupath_dma_find(struct block_device *bdev, struct gpupath_dma *dma)
{
	struct device *disk = disk_to_dev(bdev->bd_disk), *ctrl = disk->parent;
	struct device *pci;
	char *buf;

	memset(dma, 0, sizeof(*dma));
	if (!IS_ENABLED(CONFIG_PCI_P2PDMA)) {
		dma->reason = GPUPATH_REASON_P2PDMA_NOT_BUILT;
		return;
	}
	if (ctrl && ctrl->class && !strcmp(ctrl->class->name, "nvme-subsystem")) {
		dma->reason = GPUPATH_REASON_MULTIPATH_HEAD;
		return;
	}
	/* Bio-based drivers remap to devices of their own (dm, md, zram). */
	if (bdev->bd_disk->fops->submit_bio || MAJOR(disk_devt(bdev->bd_disk)) == LOOP_MAJOR) {
		dma->reason = GPUPATH_REASON_STACKED_DEVICE;
		return;
	}
	pci = pci_ancestor(disk);
	if (pci) {
		/*
		 * Only a driver that says so takes P2P pages in its requests
		 * (nvme-pci on DMA ops that can map them); others would hand
		 * them to the CPU or to DMA ops that cannot.
		 */
		if (gpupath_compat_bdev_p2pdma(bdev))
			dma->dev = get_device(pci);
		else
			dma->reason = GPUPATH_REASON_NO_P2P_QUEUE;
		return;
	}
	dma->reason = GPUPATH_REASON_NO_DMA_DEVICE;
	if (!ctrl || !ctrl->class || strcmp(ctrl->class->name, "nvme"))
		return;
	dma->fabrics = true;
	if (cached(bdev->bd_disk, dma))
		return;
	buf = (char *)__get_free_page(GFP_KERNEL);
	if (!buf)
		return;
	nvme_ctrl_dma(dma, ctrl, NULL, false, buf);
	free_page((unsigned long)buf);
	cache(bdev->bd_disk, dma);
}

/**
 * gpupath_dma_put() - release what gpupath_dma_find() took
 * @dma: the DMA engine
 */
void gpupath_dma_put(struct gpupath_dma *dma)
{
	put_device(dma->dev);
	dma->dev = NULL;
}

/**
 * gpupath_dma_distance() - how far @prov's memory is from a DMA engine
 * @dma: the DMA engine
 * @prov: the provider
 *
 * Return: the distance as pci_p2pdma_distance() counts it, or negative when
 * the engine cannot DMA into that memory (gpupath_provider_distance()).
 * Sleeps.
 */
int gpupath_dma_distance(const struct gpupath_dma *dma, struct gpupath_provider *prov)
{
	struct device *client = dma->dev;

	if (dma->reason != GPUPATH_REASON_NONE || !client)
		return -1;
	return gpupath_provider_distance(prov, client);
}

/**
 * gpupath_dma_reason() - whether a DMA engine can reach @prov's memory
 * @dma: the DMA engine
 * @prov: the provider
 *
 * Return: %GPUPATH_REASON_NONE when it can, else why not. Sleeps.
 */
enum gpupath_reason gpupath_dma_reason(const struct gpupath_dma *dma,
				       struct gpupath_provider *prov)
{
	int dist;

	if (dma->reason != GPUPATH_REASON_NONE)
		return dma->reason;
	dist = gpupath_dma_distance(dma, prov);
	if (dist == GPUPATH_DIST_IOMMU)
		return GPUPATH_REASON_IOMMU_BUS_ADDR;
	if (dist < 0 && !gpupath_fault_p2p_route())
		return GPUPATH_REASON_NO_P2P_ROUTE;
	return GPUPATH_REASON_NONE;
}
