/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_PROVIDER_H
#define _GPUPATH_PROVIDER_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/xarray.h>
#include <linux/gpupath.h>

#include "quota.h"

/* Counters of I/O into and out of one provider's memory. */
struct gpupath_stats {
	atomic64_t direct_ios;
	atomic64_t direct_bytes;
	atomic64_t errors;
	atomic64_t refused_ios[__GPUPATH_REASON_MAX];
	atomic64_t refused_bytes[__GPUPATH_REASON_MAX];
};

/**
 * struct gpupath_provider - device memory that I/O can target
 * @node: in the provider list, under provider_lock
 * @ref: held by the list, by each buffer and by lookups
 * @id: stable id, never reused while the module is loaded
 * @type: enum gpupath_provider_type
 * @pdev: the PCI device whose BAR is P2PDMA memory (a reference)
 * @owned: gpupath's stub driver registered the BAR
 * @bar: the BAR holding the P2P memory, -1 if none is found
 * @allocated: bytes allocated through gpupath and not yet freed
 * @mems: the memory it lent (struct gpupath_p2p_mem), under provider_lock
 * @stats: I/O counters
 * @pgmap: the P2PDMA page map of its memory, once known: at registration
 *	when the BAR's first page is P2P memory, else at the first allocation;
 *	an error pointer once its device is gone
 * @pgmap_node: in the list of known page maps (RCU), while @pgmap is set
 * @rcu: the provider is freed after an RCU grace period
 * @quota: its limits per user and per cgroup, and what each holds
 * @dists: pci_p2pdma_distance() to the DMA engines asked about, by PCI
 *	function, with the PCI topology's generation they were taken at
 * @driver: the name of the driver its device had when it was added (the
 *	provider goes when that driver unbinds)
 */
struct gpupath_provider {
	struct list_head node;
	struct kref ref;
	u32 id;
	u32 type;
	struct pci_dev *pdev;
	bool owned;
	int bar;
	atomic64_t allocated;
	struct list_head mems;
	struct gpupath_stats stats;
	struct dev_pagemap *pgmap;
	struct list_head pgmap_node;
	struct rcu_head rcu;
	struct gpupath_quota quota;
	struct xarray dists;
	char driver[32];
};

int gpupath_provider_init(void);
void gpupath_provider_uninit(void);

struct gpupath_provider *gpupath_provider_get(u32 id);
struct gpupath_provider *gpupath_provider_next(u32 after);
void gpupath_provider_put(struct gpupath_provider *prov);
u32 gpupath_provider_generation(void);

struct gpupath_provider *gpupath_provider_find(struct pci_dev *pdev);
struct gpupath_provider *gpupath_provider_of_page(struct page *page);
void gpupath_provider_relearn(struct gpupath_provider *prov, struct dev_pagemap *pgmap);
int gpupath_provider_add(struct pci_dev *pdev, u32 type, struct netlink_ext_ack *extack,
			 struct gpupath_provider **provp);
int gpupath_provider_del(u32 id, struct netlink_ext_ack *extack);
/* A distance: P2P refused because it would pass by a translating IOMMU. */
#define GPUPATH_DIST_IOMMU	(-2)
bool gpupath_provider_distance_cached(struct gpupath_provider *prov, struct device *client,
				      int *dist);
int gpupath_provider_distance(struct gpupath_provider *prov, struct device *client);

/**
 * struct gpupath_memory_gone - device memory being taken back (a provider
 *	removed, a cudaFree), told to those who may hold I/O of it waiting
 * @match: whether a P2PDMA page is of that memory
 * @arg: for @match
 */
struct gpupath_memory_gone {
	bool (*match)(struct page *page, void *arg);
	void *arg;
};

void gpupath_provider_memory_gone(bool (*match)(struct page *page, void *arg), void *arg);
int gpupath_provider_watch(struct notifier_block *nb);
void gpupath_provider_unwatch(struct notifier_block *nb);

struct gpupath_p2p_mem;

/**
 * struct gpupath_p2p_mem_ops - how a provider that goes takes its memory back
 * @get: a reference on the memory's owner, false when it is being freed
 * @put: drop that reference
 * @revoke: stop every use of the memory, then give it back
 *	(gpupath_provider_free()); sleeps
 */
struct gpupath_p2p_mem_ops {
	bool (*get)(struct gpupath_p2p_mem *mem);
	void (*put)(struct gpupath_p2p_mem *mem);
	void (*revoke)(struct gpupath_p2p_mem *mem);
};

/**
 * struct gpupath_p2p_mem - P2P memory a provider lent; its owner embeds it
 * @node: in the provider's list, under the provider lock
 * @size: bytes, set by the owner
 * @kaddr: the memory, NULL once given back
 * @ops: set by the owner
 * @owner: who it is charged to (gpupath_provider_alloc())
 */
struct gpupath_p2p_mem {
	struct list_head node;
	size_t size;
	void *kaddr;
	const struct gpupath_p2p_mem_ops *ops;
	struct gpupath_quota_owner owner;
};

int gpupath_provider_alloc(struct gpupath_provider *prov, struct gpupath_p2p_mem *mem);
void gpupath_provider_free(struct gpupath_provider *prov, struct gpupath_p2p_mem *mem);
u64 gpupath_provider_size(struct gpupath_provider *prov);
bool gpupath_p2pmem_published_attr(struct pci_dev *pdev);
u64 gpupath_provider_available(struct gpupath_provider *prov);

#endif /* _GPUPATH_PROVIDER_H */
