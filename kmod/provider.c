// SPDX-License-Identifier: GPL-2.0
/*
 * Providers of device memory: PCI BARs registered as P2PDMA memory, either
 * by the device's own driver (an NVMe CMB) or by gpupath's stub driver,
 * which binds to any PCI device through driver_override as vfio-pci does:
 *
 *   echo gpupath > /sys/bus/pci/devices/BDF/driver_override
 *   echo BDF > /sys/bus/pci/drivers_probe
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/memremap.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci-p2pdma.h>
#include <linux/slab.h>

#include "devattr.h"
#include "notify.h"
#include "provider.h"

static int p2p_bar = -1;
module_param(p2p_bar, int, 0644);
MODULE_PARM_DESC(p2p_bar, "BAR the stub driver registers (default -1: the largest memory BAR)");

static DEFINE_MUTEX(provider_lock);	/* providers, provider_gen, provider_next_id */
static LIST_HEAD(providers);
static u32 provider_next_id = 1;
static u32 provider_gen = 1;
static struct pci_driver stub_driver;
/*
 * Providers whose page map is known, listed or not (a provider removed
 * while buffers live stays here with them): I/O finds a page's provider
 * here without a lock. Writers hold pgmap_lock.
 */
static LIST_HEAD(pgmap_providers);
static DEFINE_SPINLOCK(pgmap_lock);

/*
 * Notifications carry the pool's size and free space, which only sysfs
 * publishes. They are sent from a worker, in order: a provider comes and
 * goes inside sysfs writes (bind, unbind, drivers_probe), where reading
 * another sysfs file would nest one kernfs file's locks in another's.
 */
static struct workqueue_struct *notify_wq;

struct provider_event {
	struct work_struct work;
	struct gpupath_provider *prov;
	u8 cmd;
};

static void notify_work(struct work_struct *work)
{
	struct provider_event *ev = container_of(work, struct provider_event, work);

	gpupath_notify_provider(ev->prov, ev->cmd);
	gpupath_provider_put(ev->prov);
	kfree(ev);
}

static void notify(struct gpupath_provider *prov, u8 cmd)
{
	struct provider_event *ev = kmalloc(sizeof(*ev), GFP_KERNEL);

	/* Without memory the event is lost, as a multicast would be. */
	if (!ev)
		return;
	kref_get(&prov->ref);
	ev->prov = prov;
	ev->cmd = cmd;
	INIT_WORK(&ev->work, notify_work);
	queue_work(notify_wq, &ev->work);
}

/* Its page map is gone, or it is: no page is found to be its any more. */
static void forget_pgmap(struct gpupath_provider *prov)
{
	spin_lock(&pgmap_lock);
	if (prov->pgmap && !IS_ERR(prov->pgmap))
		list_del_rcu(&prov->pgmap_node);
	/* Never learnt again: the node may still be walked until a grace period. */
	WRITE_ONCE(prov->pgmap, ERR_PTR(-ENODEV));
	spin_unlock(&pgmap_lock);
}

static void provider_release(struct kref *ref)
{
	struct gpupath_provider *prov = container_of(ref, struct gpupath_provider, ref);

	forget_pgmap(prov);
	gpupath_quota_destroy(&prov->quota);
	xa_destroy(&prov->dists);
	pci_dev_put(prov->pdev);
	kfree_rcu(prov, rcu);
}

/* @pgmap is @prov's page map, unless it knows one (or its device is gone). */
static void link_pgmap(struct gpupath_provider *prov, struct dev_pagemap *pgmap)
{
	spin_lock(&pgmap_lock);
	if (!prov->pgmap) {
		WRITE_ONCE(prov->pgmap, pgmap);
		list_add_rcu(&prov->pgmap_node, &pgmap_providers);
	}
	spin_unlock(&pgmap_lock);
}

/* @page is P2P memory of @prov: remember its page map. */
static void learn_pgmap(struct gpupath_provider *prov, struct page *page)
{
	if (!READ_ONCE(prov->pgmap))
		link_pgmap(prov, gpupath_compat_page_pgmap(page));
}

/**
 * gpupath_provider_relearn() - the provider's BAR has a new page map
 * @prov: the provider
 * @pgmap: the live page map now over its memory
 *
 * A region over the BAR may go and come back with the device's driver
 * still bound: NVIDIA's UVM (570 to 590) unregisters its region when the
 * last process using the GPU ends, and registers a new one for the next.
 * Pages of the new map are then found to be @prov's. Sleeps; callers
 * serialise it (nvidia.c's setup lock). A provider whose device is gone
 * learns nothing.
 */
void gpupath_provider_relearn(struct gpupath_provider *prov, struct dev_pagemap *pgmap)
{
	spin_lock(&pgmap_lock);
	if (prov->pgmap == pgmap || IS_ERR(prov->pgmap)) {
		spin_unlock(&pgmap_lock);
		return;
	}
	if (prov->pgmap)
		list_del_rcu(&prov->pgmap_node);
	WRITE_ONCE(prov->pgmap, NULL);
	spin_unlock(&pgmap_lock);
	/* No walker is on the node when it is linked again. */
	synchronize_rcu();
	link_pgmap(prov, pgmap);
}

/**
 * gpupath_provider_put() - drop a reference
 * @prov: the provider
 */
void gpupath_provider_put(struct gpupath_provider *prov)
{
	kref_put(&prov->ref, provider_release);
}

static struct gpupath_provider *find_locked(u32 id, struct pci_dev *pdev)
{
	struct gpupath_provider *prov;

	lockdep_assert_held(&provider_lock);
	list_for_each_entry(prov, &providers, node)
		if (prov->id == id || (pdev && prov->pdev == pdev))
			return prov;
	return NULL;
}

/**
 * gpupath_provider_get() - look a provider up by id
 * @id: the id
 *
 * Return: the provider with a reference, or ERR_PTR(-ENOENT).
 */
struct gpupath_provider *gpupath_provider_get(u32 id)
{
	struct gpupath_provider *prov;

	mutex_lock(&provider_lock);
	prov = id ? find_locked(id, NULL) : NULL;
	if (prov)
		kref_get(&prov->ref);
	mutex_unlock(&provider_lock);
	return prov ?: ERR_PTR(-ENOENT);
}

/**
 * gpupath_provider_next() - iterate over providers in id order
 * @after: the last id seen, 0 to start
 *
 * Return: the first provider with an id above @after, with a reference, or
 * NULL at the end.
 */
struct gpupath_provider *gpupath_provider_next(u32 after)
{
	struct gpupath_provider *prov, *found = NULL;

	mutex_lock(&provider_lock);
	list_for_each_entry(prov, &providers, node) {
		if (prov->id > after) {
			found = prov;
			kref_get(&found->ref);
			break;
		}
	}
	mutex_unlock(&provider_lock);
	return found;
}

/**
 * gpupath_provider_generation() - changes whenever a provider comes or goes
 *
 * Return: the generation, for genl_dump_check_consistent().
 */
u32 gpupath_provider_generation(void)
{
	u32 gen;

	mutex_lock(&provider_lock);
	gen = provider_gen;
	mutex_unlock(&provider_lock);
	return gen;
}

/* The BAR whose start has P2PDMA pages, -1 if none. */
static int p2p_bar_of(struct pci_dev *pdev)
{
	unsigned long pfn;
	int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		if (!(pci_resource_flags(pdev, bar) & IORESOURCE_MEM))
			continue;
		pfn = PHYS_PFN(pci_resource_start(pdev, bar));
		if (pfn_valid(pfn) && is_pci_p2pdma_page(pfn_to_page(pfn)))
			return bar;
	}
	return -1;
}

/*
 * Bumped whenever a PCI device comes or goes, or p2p_past_iommu changes:
 * cached distances are stale.
 */
static atomic_t topology_gen = ATOMIC_INIT(0);

static bool p2p_past_iommu;

static int past_iommu_set(const char *val, const struct kernel_param *kp)
{
	int r = param_set_bool(val, kp);

	if (!r)
		atomic_inc(&topology_gen);
	return r;
}

static const struct kernel_param_ops past_iommu_ops = {
	.set = past_iommu_set,
	.get = param_get_bool,
};

module_param_cb(p2p_past_iommu, &past_iommu_ops, &p2p_past_iommu, 0644);
MODULE_PARM_DESC(p2p_past_iommu,
		 "P2P by PCI bus address goes direct although the DMA engine's IOMMU translates: only where the PCIe switch routes P2P between its ports (default N: refused, iommu-bus-addr)");

#define DIST_BITS	16
/* A cached distance is stored plus this: the refusals below 0. */
#define DIST_BIAS	(-GPUPATH_DIST_IOMMU)

static unsigned long dist_key(struct device *client)
{
	struct pci_dev *pdev = to_pci_dev(client);

	return (unsigned long)pci_domain_nr(pdev->bus) << 16 | pci_dev_id(pdev);
}

/**
 * gpupath_provider_distance_cached() - how far a DMA engine is from the
 *	memory, if that is known; never sleeps
 * @prov: the provider
 * @client: a PCI function
 * @dist: the distance, negative when P2P is refused
 *
 * Return: false when it must be asked (gpupath_provider_distance()).
 */
bool gpupath_provider_distance_cached(struct gpupath_provider *prov, struct device *client,
				      int *dist)
{
	void *entry = xa_load(&prov->dists, dist_key(client));
	unsigned long v;

	if (!xa_is_value(entry))
		return false;
	v = xa_to_value(entry);
	if ((u32)(v >> DIST_BITS) != (u32)atomic_read(&topology_gen))
		return false;
	*dist = (int)(v & GENMASK(DIST_BITS - 1, 0)) - DIST_BIAS;
	return true;
}

/*
 * Whether P2P between @prov's memory and @client would pass by a
 * translating IOMMU: the DMA API maps it by PCI bus address, which lands
 * only if a PCIe switch routes it to its peer port, while @client's IOMMU
 * domain translates its DMA. Where the P2P write goes up to the IOMMU
 * instead, the IOMMU drops it and the I/O completes without an error, the
 * device memory unchanged. The DMA API is asked itself: one page of the
 * provider's, mapped for @client and unmapped, with no device access.
 *
 * Return: 1 or 0; -EAGAIN while the provider's page map is not known.
 */
static int past_iommu(struct gpupath_provider *prov, struct device *client)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(client);
	struct dev_pagemap *pgmap = READ_ONCE(prov->pgmap);
	struct scatterlist sg;
	int bus;

	if (!domain || !iommu_is_dma_domain(domain))
		return 0;
	if (!pgmap)
		return -EAGAIN;
	sg_init_table(&sg, 1);
	sg_set_page(&sg, pfn_to_page(PHYS_PFN(pgmap->range.start)), PAGE_SIZE, 0);
	if (!dma_map_sg_attrs(client, &sg, 1, DMA_FROM_DEVICE, DMA_ATTR_SKIP_CPU_SYNC))
		return 0;
	bus = gpupath_compat_sg_bus_address(&sg);
	dma_unmap_sg_attrs(client, &sg, 1, DMA_FROM_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	return bus;
}

/**
 * gpupath_provider_distance() - how far a DMA engine is from the memory
 * @prov: the provider
 * @client: a PCI function
 *
 * pci_p2pdma_distance() is asked once per function and PCI topology: it
 * walks the tree and, on 6.1, stores into the provider's map-type cache
 * in a way that must not be repeated per I/O. A pair it allows whose P2P
 * would pass by a translating IOMMU (past_iommu()) is refused as well,
 * unless the administrator set p2p_past_iommu. Sleeps.
 *
 * Return: the distance; -1 when pci_p2pdma_distance() refuses P2P,
 * %GPUPATH_DIST_IOMMU when the IOMMU does.
 */
int gpupath_provider_distance(struct gpupath_provider *prov, struct device *client)
{
	u32 gen = atomic_read(&topology_gen);
	unsigned long v;
	int dist;

	if (gpupath_provider_distance_cached(prov, client, &dist))
		return dist;
	dist = pci_p2pdma_distance_many(prov->pdev, &client, 1, false);
	if (dist < 0)
		dist = -1;
	if (dist >= 0 && !READ_ONCE(p2p_past_iommu)) {
		int past = past_iommu(prov, client);

		/* Asked again once the page map is known. */
		if (past < 0)
			return GPUPATH_DIST_IOMMU;
		if (past)
			dist = GPUPATH_DIST_IOMMU;
	}
	v = (unsigned long)gen << DIST_BITS | (u16)min(dist + DIST_BIAS, (int)U16_MAX);
	/*
	 * Without memory it is asked again next time. No I/O is started to
	 * find memory: this may run in a volume's submit_bio.
	 */
	xa_store(&prov->dists, dist_key(client), xa_mk_value(v), GFP_NOIO);
	return dist;
}

/**
 * gpupath_provider_find() - the provider of a PCI device
 * @pdev: the device
 *
 * Return: the provider with a reference, or NULL.
 */
struct gpupath_provider *gpupath_provider_find(struct pci_dev *pdev)
{
	struct gpupath_provider *prov;

	mutex_lock(&provider_lock);
	prov = find_locked(0, pdev);
	if (prov)
		kref_get(&prov->ref);
	mutex_unlock(&provider_lock);
	return prov;
}

/**
 * gpupath_provider_of_page() - the provider whose memory a P2PDMA page is in
 * @page: a page of P2PDMA memory
 *
 * Found by the page's page map, without a lock: also the provider of a
 * buffer whose provider was removed meanwhile.
 *
 * Return: the provider with a reference, or NULL when no provider gpupath
 * knows owns the page.
 */
struct gpupath_provider *gpupath_provider_of_page(struct page *page)
{
	struct dev_pagemap *pgmap = gpupath_compat_page_pgmap(page);
	struct gpupath_provider *prov, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(prov, &pgmap_providers, pgmap_node) {
		if (READ_ONCE(prov->pgmap) == pgmap && kref_get_unless_zero(&prov->ref)) {
			found = prov;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * An attribute of the PCI core's p2pmem group, 0 if unknown: the pool's
 * size and free space, and whether it is published, are told only there.
 */
static u64 p2pmem_attr(struct pci_dev *pdev, const char *name)
{
	char buf[32];
	u64 val;

	if (gpupath_devattr_get(&pdev->dev, "p2pmem", name, buf, sizeof(buf)) ||
	    kstrtou64(buf, 0, &val))
		return 0;
	return val;
}

/**
 * gpupath_p2pmem_published_attr() - whether @pdev's P2P memory is published,
 *	as its sysfs attribute tells
 * @pdev: the PCI function
 *
 * Sleeps; a sysfs read, so never under the device lock.
 *
 * Return: true when published.
 */
bool gpupath_p2pmem_published_attr(struct pci_dev *pdev)
{
	return p2pmem_attr(pdev, "published");
}

/**
 * gpupath_provider_add() - make a device's P2P memory a provider
 * @pdev: the PCI device
 * @type: %GPUPATH_PROVIDER_P2PDMA: memory the device publishes for anyone to
 *	allocate; %GPUPATH_PROVIDER_NVIDIA: a GPU BAR whose pages come from the
 *	NVIDIA driver's peer-memory API
 * @extack: where to say why not, or NULL
 * @provp: the new provider with a reference for the caller, or NULL
 *
 * Return: 0, -EOPNOTSUPP without P2PDMA, -ENODEV if the device publishes no
 * P2P memory, -EEXIST if it is a provider already, -ENOMEM.
 */
int gpupath_provider_add(struct pci_dev *pdev, u32 type, struct netlink_ext_ack *extack,
			 struct gpupath_provider **provp)
{
	struct gpupath_provider *prov;
	int ret;

	if (!IS_ENABLED(CONFIG_PCI_P2PDMA)) {
		NL_SET_ERR_MSG_MOD(extack, "this kernel has no PCI P2PDMA (CONFIG_PCI_P2PDMA)");
		return -EOPNOTSUPP;
	}
	prov = kzalloc(sizeof(*prov), GFP_KERNEL);
	if (!prov)
		return -ENOMEM;
	kref_init(&prov->ref);
	xa_init(&prov->dists);
	INIT_LIST_HEAD(&prov->node);
	INIT_LIST_HEAD(&prov->mems);
	gpupath_quota_init(&prov->quota);
	prov->type = type;
	prov->pdev = pci_dev_get(pdev);
	prov->owned = to_pci_driver(pdev->dev.driver) == &stub_driver;
	if (pdev->dev.driver)
		strscpy(prov->driver, pdev->dev.driver->name, sizeof(prov->driver));
	prov->bar = p2p_bar_of(pdev);
	if (prov->bar >= 0)
		learn_pgmap(prov, pfn_to_page(PHYS_PFN(pci_resource_start(pdev, prov->bar))));

	mutex_lock(&provider_lock);
	ret = -EEXIST;
	if (find_locked(0, pdev)) {
		NL_SET_ERR_MSG_MOD(extack, "device is a provider already");
		goto err_unlock;
	}
	prov->id = provider_next_id++;
	list_add_tail(&prov->node, &providers);
	provider_gen++;
	if (provp) {
		kref_get(&prov->ref);
		*provp = prov;
	}
	mutex_unlock(&provider_lock);
	notify(prov, GPUPATH_CMD_PROVIDER_NEW);
	return 0;

err_unlock:
	mutex_unlock(&provider_lock);
	gpupath_provider_put(prov);
	return ret;
}

/* Take @prov off the list; the caller holds provider_lock and a reference. */
static void unlist_locked(struct gpupath_provider *prov)
{
	lockdep_assert_held(&provider_lock);
	list_del_init(&prov->node);
	provider_gen++;
}

static void unlisted(struct gpupath_provider *prov)
{
	notify(prov, GPUPATH_CMD_PROVIDER_DEL);
	gpupath_provider_put(prov);
}

/**
 * gpupath_provider_del() - remove a provider none of whose memory is in use
 * @id: the provider
 * @extack: where to say why not
 *
 * Return: 0, -ENOENT, or -EBUSY while memory is allocated from it.
 */
int gpupath_provider_del(u32 id, struct netlink_ext_ack *extack)
{
	struct gpupath_provider *prov;

	mutex_lock(&provider_lock);
	prov = find_locked(id, NULL);
	if (!prov) {
		mutex_unlock(&provider_lock);
		NL_SET_ERR_MSG_MOD(extack, "no provider with this id");
		return -ENOENT;
	}
	if (atomic64_read(&prov->allocated)) {
		mutex_unlock(&provider_lock);
		NL_SET_ERR_MSG_MOD(extack, "memory of this provider is allocated; free it first");
		return -EBUSY;
	}
	unlist_locked(prov);
	mutex_unlock(&provider_lock);
	unlisted(prov);
	return 0;
}

/**
 * gpupath_provider_alloc() - allocate P2P memory from a listed provider
 * @prov: the provider, of type %GPUPATH_PROVIDER_P2PDMA
 * @mem: mem->size bytes wanted; mem->kaddr gets them, and until they are
 *	freed a removal of the provider revokes them through mem->ops
 *
 * Charged to the current task's user and cgroup first (the provider's
 * quota), uncharged when given back.
 *
 * Return: 0, -ENODEV when the provider is going away, -EDQUOT over the
 * user's or a cgroup's limit, -ENOMEM.
 */
int gpupath_provider_alloc(struct gpupath_provider *prov, struct gpupath_p2p_mem *mem)
{
	int ret;

	/* Never from a GPU BAR: other processes' memory is in it. */
	if (WARN_ON_ONCE(prov->type != GPUPATH_PROVIDER_P2PDMA))
		return -EOPNOTSUPP;
	ret = gpupath_quota_charge(&prov->quota, &mem->owner, mem->size);
	if (ret)
		return ret;
	/* Counted and listed under the lock, so that a removal sees it. */
	mutex_lock(&provider_lock);
	if (list_empty(&prov->node)) {
		mutex_unlock(&provider_lock);
		gpupath_quota_uncharge(&prov->quota, &mem->owner, mem->size);
		return -ENODEV;
	}
	atomic64_add(mem->size, &prov->allocated);
	list_add_tail(&mem->node, &prov->mems);
	mutex_unlock(&provider_lock);

	mem->kaddr = pci_alloc_p2pmem(prov->pdev, mem->size);
	if (mem->kaddr) {
		gpupath_compat_p2p_own(mem->kaddr, mem->size);
		learn_pgmap(prov, virt_to_page(mem->kaddr));
		return 0;
	}
	gpupath_provider_free(prov, mem);
	return -ENOMEM;
}

/**
 * gpupath_provider_free() - give back P2P memory, once
 * @prov: the provider
 * @mem: the memory; gone when this returns, but for pages a pin of
 *	user-space direct I/O still holds: they go when it is dropped
 */
void gpupath_provider_free(struct gpupath_provider *prov, struct gpupath_p2p_mem *mem)
{
	bool listed;
	void *addr;

	mutex_lock(&provider_lock);
	listed = !list_empty(&mem->node);
	list_del_init(&mem->node);
	addr = mem->kaddr;
	mem->kaddr = NULL;
	mutex_unlock(&provider_lock);
	if (addr)
		gpupath_compat_p2p_free(prov->pdev, addr, mem->size);
	if (listed) {
		atomic64_sub(mem->size, &prov->allocated);
		gpupath_quota_uncharge(&prov->quota, &mem->owner, mem->size);
	}
}

/**
 * gpupath_provider_size() - bytes of P2P memory the device publishes
 * @prov: the provider
 *
 * Return: the size, 0 if unknown.
 */
u64 gpupath_provider_size(struct gpupath_provider *prov)
{
	return p2pmem_attr(prov->pdev, "size");
}

/**
 * gpupath_provider_available() - bytes free in the device's P2P pool
 * @prov: the provider
 *
 * Return: the free bytes (others than gpupath allocate from it too).
 */
u64 gpupath_provider_available(struct gpupath_provider *prov)
{
	return p2pmem_attr(prov->pdev, "available");
}

/* ---- the stub driver ---------------------------------------------------- */

/* The BAR to register: the p2p_bar parameter, or the largest memory BAR. */
static int stub_pick_bar(struct pci_dev *pdev)
{
	int bar, best = -1;

	if (p2p_bar >= 0)
		return p2p_bar < PCI_STD_NUM_BARS &&
		       pci_resource_flags(pdev, p2p_bar) & IORESOURCE_MEM ? p2p_bar : -1;
	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		if (!(pci_resource_flags(pdev, bar) & IORESOURCE_MEM))
			continue;
		if (best < 0 || pci_resource_len(pdev, bar) > pci_resource_len(pdev, best))
			best = bar;
	}
	return best;
}

static int stub_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct gpupath_provider *prov;
	u16 cmd;
	int bar, ret;

	bar = stub_pick_bar(pdev);
	if (bar < 0) {
		pci_err(pdev, "no usable memory BAR (p2p_bar=%d)\n", p2p_bar);
		return -ENODEV;
	}
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	/* With decode off the BAR reads as zeros: silent corruption. */
	pci_read_config_word(pdev, PCI_COMMAND, &cmd);
	if (!(cmd & PCI_COMMAND_MEMORY)) {
		pci_err(pdev, "memory decode is off\n");
		return -EIO;
	}
	ret = pci_p2pdma_add_resource(pdev, bar, 0, 0);
	if (ret) {
		pci_err(pdev, "cannot register BAR %d as P2P memory: %d\n", bar, ret);
		return ret;
	}
	pci_p2pmem_publish(pdev, true);
	ret = gpupath_provider_add(pdev, GPUPATH_PROVIDER_P2PDMA, NULL, &prov);
	if (ret)
		return ret;
	pci_info(pdev, "BAR %d: %llu MiB of P2P memory, provider %u\n", bar,
		 (u64)pci_resource_len(pdev, bar) >> 20, prov->id);
	gpupath_provider_put(prov);
	return 0;
}

/* The next memory @prov lent, its owner referenced; NULL when none is left. */
static struct gpupath_p2p_mem *next_mem(struct gpupath_provider *prov)
{
	struct gpupath_p2p_mem *mem;

	for (;;) {
		mutex_lock(&provider_lock);
		mem = list_first_entry_or_null(&prov->mems, struct gpupath_p2p_mem, node);
		if (!mem || mem->ops->get(mem)) {
			mutex_unlock(&provider_lock);
			return mem;
		}
		/* Its owner's last reference is being dropped: it leaves the list soon. */
		mutex_unlock(&provider_lock);
		usleep_range(1000, 2000);
	}
}

/* Told of memory taken back: the volumes, whose bios may wait for a path. */
static BLOCKING_NOTIFIER_HEAD(gone_chain);

/**
 * gpupath_provider_memory_gone() - device memory is being taken back: what
 *	waits on it (a volume's bios waiting for a path) must end now
 * @match: whether a P2PDMA page is of that memory
 * @arg: for @match
 *
 * For a revocation, which then waits for the I/O still on the memory.
 */
void gpupath_provider_memory_gone(bool (*match)(struct page *page, void *arg), void *arg)
{
	struct gpupath_memory_gone gone = { .match = match, .arg = arg };

	blocking_notifier_call_chain(&gone_chain, 0, &gone);
}

/**
 * gpupath_provider_watch() - be told of device memory taken back
 * @nb: called with a struct gpupath_memory_gone
 *
 * Return: 0.
 */
int gpupath_provider_watch(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&gone_chain, nb);
}

/**
 * gpupath_provider_unwatch() - no longer be told
 * @nb: as registered
 */
void gpupath_provider_unwatch(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&gone_chain, nb);
}

/* Whether @page is of @arg, a provider's page map. */
static bool pgmap_has_page(struct page *page, void *arg)
{
	return gpupath_compat_page_pgmap(page) == arg;
}

/*
 * Unbinding cannot be refused, and the devres teardown of the P2P memory
 * waits until every allocation is freed and every page is back: so the
 * provider goes now (no new buffer), every buffer's memory is taken back,
 * its mappings zapped, once the I/O in flight on it is complete, and any
 * program's direct I/O on its pages that waits in a volume for a path
 * fails.
 */
static void provider_revoke(struct pci_dev *pdev)
{
	struct gpupath_provider *prov;
	struct gpupath_p2p_mem *mem;
	struct dev_pagemap *pgmap;

	mutex_lock(&provider_lock);
	prov = find_locked(0, pdev);
	if (prov) {
		kref_get(&prov->ref);
		unlist_locked(prov);
	}
	mutex_unlock(&provider_lock);
	if (!prov)
		return;
	unlisted(prov);
	while ((mem = next_mem(prov))) {
		mem->ops->revoke(mem);
		mem->ops->put(mem);
	}
	pgmap = READ_ONCE(prov->pgmap);
	if (pgmap && !IS_ERR(pgmap))
		gpupath_provider_memory_gone(pgmap_has_page, pgmap);
	/* The page map goes with the device's P2P memory, after this. */
	forget_pgmap(prov);
	gpupath_provider_put(prov);
}

static void stub_remove(struct pci_dev *pdev)
{
	provider_revoke(pdev);
}

/*
 * A driver that registered its own P2P memory (nvme-pci's CMB) is being
 * unbound: its teardown would wait for gpupath's allocations, so they are
 * taken back first, as from the stub. Called before the driver's remove,
 * with the device locked. A device coming or going makes the distances
 * known so far stale.
 */
static int bus_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct pci_dev *pdev = to_pci_dev(data);

	if (action == BUS_NOTIFY_ADD_DEVICE || action == BUS_NOTIFY_DEL_DEVICE)
		atomic_inc(&topology_gen);
	if (action == BUS_NOTIFY_UNBIND_DRIVER && pdev->dev.driver &&
	    to_pci_driver(pdev->dev.driver) != &stub_driver)
		provider_revoke(pdev);
	return NOTIFY_DONE;
}

static struct notifier_block bus_nb = {
	.notifier_call = bus_notify,
};

static struct pci_driver stub_driver = {
	.name = "gpupath",
	.id_table = NULL,	/* binds only through driver_override */
	.probe = stub_probe,
	.remove = stub_remove,
};

/**
 * gpupath_provider_init() - register the stub PCI driver
 *
 * Return: 0 or a negative errno.
 */
int gpupath_provider_init(void)
{
	int ret;

	notify_wq = alloc_ordered_workqueue("gpupath_provider", 0);
	if (!notify_wq)
		return -ENOMEM;
	ret = pci_register_driver(&stub_driver);
	if (ret)
		goto err_wq;
	ret = bus_register_notifier(&pci_bus_type, &bus_nb);
	if (ret)
		goto err_driver;
	return 0;

err_driver:
	pci_unregister_driver(&stub_driver);
err_wq:
	destroy_workqueue(notify_wq);
	return ret;
}

/**
 * gpupath_provider_uninit() - unbind the stub and forget every provider
 *
 * Called at module unload, when no file (and so no buffer) is left.
 */
void gpupath_provider_uninit(void)
{
	struct gpupath_provider *prov, *tmp;

	bus_unregister_notifier(&pci_bus_type, &bus_nb);
	pci_unregister_driver(&stub_driver);
	mutex_lock(&provider_lock);
	list_for_each_entry_safe(prov, tmp, &providers, node) {
		list_del_init(&prov->node);
		gpupath_provider_put(prov);
	}
	mutex_unlock(&provider_lock);
	/* The events still queued go (unsent: the family is gone by now). */
	destroy_workqueue(notify_wq);
}
