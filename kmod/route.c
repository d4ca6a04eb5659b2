// SPDX-License-Identifier: GPL-2.0
/*
 * Can a block device's DMA engine reach a provider's memory directly? The
 * DMA engine is found from the disk: the PCI function above it (nvme-pci,
 * virtio, HBAs), or for nvme-rdma the net device that carries the
 * controller's connection. The answer is a gpupath_reason, NONE for yes.
 */
#include <linux/blkdev.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/pci-p2pdma.h>
#include <net/route.h>

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
 * nvme-rdma: the RDMA device is the one on the net device the connection
 * leaves through. A hardware RNIC is that net device's PCI function (RoCE);
 * a net device without a PCI function (veth, dummy) can only carry a
 * software RDMA device (soft-RoCE, siw), whose "DMA" is a CPU copy.
 */
static enum gpupath_reason rdma_route(struct gpupath_provider *prov, const char *addr)
{
	enum gpupath_reason reason;
	struct net_device *ndev;
	struct device *pci;

	ndev = egress_dev(addr);
	if (!ndev)
		return GPUPATH_REASON_NO_DMA_DEVICE;
	pci = pci_ancestor(ndev->dev.parent);
	reason = pci ? distance(prov, pci) : GPUPATH_REASON_VIRTUAL_DMA;
	dev_put(ndev);
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
