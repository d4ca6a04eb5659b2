// SPDX-License-Identifier: GPL-2.0
/*
 * Can a block device's DMA engine reach a provider's memory directly? The
 * DMA engine is found from the disk: the PCI function above it (nvme-pci,
 * virtio, HBAs), or for nvme-rdma the RDMA device that carries the
 * controller's connection. The answer is a gpupath_reason, NONE for yes.
 */
#include <linux/blkdev.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/pci-p2pdma.h>
#include <net/route.h>
#include <rdma/ib_verbs.h>

#include "devattr.h"
#include "provider.h"
#include "route.h"

static struct device *pci_ancestor(struct device *dev)
{
	for (; dev; dev = dev->parent)
		if (dev_is_pci(dev))
			return dev;
	return NULL;
}

static enum gpupath_reason distance(struct gpupath_provider *prov, struct device *client)
{
	if (pci_p2pdma_distance_many(prov->pdev, &client, 1, false) < 0)
		return GPUPATH_REASON_NO_P2P_ROUTE;
	return GPUPATH_REASON_NONE;
}

/* The value of "key=" in an nvme controller's address attribute. */
static bool address_field(const char *addr, const char *key, __be32 *ip)
{
	const char *p = addr;
	size_t klen = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=')
			return in4_pton(p + klen + 1, -1, (u8 *)ip, -1, NULL);
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
	struct net_device *ndev;
	struct rtable *rt;

	if (!address_field(addr, "traddr", &daddr))
		return NULL;
	address_field(addr, "host_traddr", &saddr);
	/* A local address: the device that owns it, as rdma_cm resolves it. */
	ndev = ip_dev_find(&init_net, daddr);
	if (ndev)
		return ndev;
	rt = ip_route_output(&init_net, daddr, saddr, 0, 0);
	if (IS_ERR(rt))
		return NULL;
	ndev = rt->dst.dev;
	dev_hold(ndev);
	ip_rt_put(rt);
	return ndev;
}

/*
 * nvme-rdma: the RDMA device under the controller's connection. ib_core is
 * looked up at run time, so that gpupath does not depend on it.
 */
static enum gpupath_reason rdma_route(struct gpupath_provider *prov, const char *addr)
{
	struct ib_device *(*get_by_netdev)(struct net_device *ndev, enum rdma_driver_id id);
	void (*put)(struct ib_device *ibdev);
	enum gpupath_reason reason = GPUPATH_REASON_NO_DMA_DEVICE;
	struct net_device *ndev;
	struct ib_device *ibdev;

	get_by_netdev = __symbol_get("ib_device_get_by_netdev");
	put = __symbol_get("ib_device_put");
	if (!get_by_netdev || !put)
		goto out_symbols;
	ndev = egress_dev(addr);
	if (!ndev)
		goto out_symbols;
	ibdev = get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
	dev_put(ndev);
	if (!ibdev)
		goto out_symbols;
	if (!ibdev->dma_device)
		reason = GPUPATH_REASON_VIRTUAL_DMA;
	else if (!pci_ancestor(ibdev->dma_device))
		reason = GPUPATH_REASON_NO_DMA_DEVICE;
	else
		reason = distance(prov, ibdev->dma_device);
	put(ibdev);
out_symbols:
	if (get_by_netdev)
		__symbol_put("ib_device_get_by_netdev");
	if (put)
		__symbol_put("ib_device_put");
	return reason;
}

static enum gpupath_reason nvme_fabrics_route(struct gpupath_provider *prov,
					      struct device *ctrl, char *buf)
{
	if (gpupath_devattr_read(ctrl, NULL, "transport", buf) <= 0)
		return GPUPATH_REASON_NO_DMA_DEVICE;
	if (sysfs_streq(buf, "tcp"))
		return GPUPATH_REASON_CPU_COPY;
	if (!sysfs_streq(buf, "rdma"))
		return GPUPATH_REASON_NO_DMA_DEVICE;
	if (gpupath_devattr_read(ctrl, NULL, "address", buf) <= 0)
		return GPUPATH_REASON_NO_DMA_DEVICE;
	return rdma_route(prov, strim(buf));
}

/**
 * gpupath_route() - whether I/O between @bdev and @prov's memory can be DMA
 * @bdev: the block device
 * @prov: the provider
 * @fabrics: set when the device is reached over a fabric
 *
 * Return: %GPUPATH_REASON_NONE when it can, else why not.
 */
enum gpupath_reason gpupath_route(struct block_device *bdev,
				  struct gpupath_provider *prov, bool *fabrics)
{
	struct device *disk = disk_to_dev(bdev->bd_disk), *ctrl = disk->parent;
	enum gpupath_reason reason;
	struct device *pci;
	char *buf;

	*fabrics = false;
	if (!IS_ENABLED(CONFIG_PCI_P2PDMA))
		return GPUPATH_REASON_P2PDMA_NOT_BUILT;
	if (ctrl && ctrl->class && !strcmp(ctrl->class->name, "nvme-subsystem"))
		return GPUPATH_REASON_MULTIPATH_HEAD;
	pci = pci_ancestor(disk);
	if (pci)
		return distance(prov, pci);
	if (!ctrl || !ctrl->class || strcmp(ctrl->class->name, "nvme"))
		return GPUPATH_REASON_NO_DMA_DEVICE;

	*fabrics = true;
	buf = (char *)__get_free_page(GFP_KERNEL);
	if (!buf)
		return GPUPATH_REASON_NO_DMA_DEVICE;
	reason = nvme_fabrics_route(prov, ctrl, buf);
	free_page((unsigned long)buf);
	return reason;
}
