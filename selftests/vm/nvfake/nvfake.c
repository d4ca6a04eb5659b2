// SPDX-License-Identifier: GPL-2.0
/*
 * nvfake: a test double of the NVIDIA driver's peer-memory API, for the VM
 * tests only. It is NOT the NVIDIA driver: gpupath's use of the real one
 * (its locking, the order of its callbacks, its page tables) remains
 * untested by it; it only stands in for the three functions gpupath looks
 * up (kmod/nv-p2p.h) so that gpupath's side of the contract can be tested.
 *
 * It binds, through driver_override, to a PCI device with a memory BAR (the
 * VM's ivshmem "GPU", BAR2) as the NVIDIA driver binds to a GPU, with
 * uvm_region=1 registering a P2PDMA region over it as UVM does:
 *
 *   echo nvfake > /sys/bus/pci/devices/BDF/driver_override
 *   echo BDF > /sys/bus/pci/drivers_probe
 *
 * "CUDA memory" at address va_base + X is the BAR's bytes at offset X, in
 * 64 KiB GPU pages. nvidia_p2p_get_pages() hands out a page table of their
 * physical addresses and remembers the free callback; debugfs
 * (/sys/kernel/debug/nvfake/) has
 *
 *   revoke  write a CUDA address: the free callback of the live mapping
 *           starting there is called now (what cudaFree does), and the
 *           write returns when the callback has; -ENOENT if none
 *   stats   live mappings and the counters below, "name value" lines
 *
 * The callback and put_pages are serialised (as a driver serialises its
 * callbacks against put_pages): a put_pages of a mapping whose callback ran
 * and freed the table is a caller's bug, counted in bad_put and refused; a
 * free_page_table of a table not being revoked (not handed to a callback,
 * or freed already) is counted in bad_free and refused; a callback that
 * returned without freeing the table leaves the mapping live, for
 * put_pages. gpupath must keep every bad_* counter at 0.
 */
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/slab.h>

#include "nvfake.h"

#define NVFAKE_BAR	2

static unsigned long long va_base = 0x700000000000ULL;
module_param(va_base, ullong, 0444);
MODULE_PARM_DESC(va_base, "CUDA address of the BAR's first byte (64 KiB aligned)");

/* 0x20000: version 2.0, the drivers from 580 on; 0x10002 before. */
static uint table_version = 0x20000;
module_param(table_version, uint, 0444);
MODULE_PARM_DESC(table_version, "Version of the page tables handed out (default 0x20000)");

/* The GPU's UUID, as the driver puts it in each table. */
static u8 gpu_uuid[16] = { 0x6e, 0x76, 0x66, 0x61, 0x6b, 0x65 };

/*
 * As NVIDIA's UVM does (565 and later) where BAR1 is static and not
 * write-combined: a P2PDMA region over the whole BAR, registered at probe,
 * never published, gone with the unbind (devres).
 */
static bool uvm_region;
module_param(uvm_region, bool, 0444);
MODULE_PARM_DESC(uvm_region, "Register a P2PDMA region over the BAR at probe, as UVM does with static BAR1");

/**
 * struct nvfake_map - one nvidia_p2p_get_pages() not yet given back
 * @node: in maps
 * @va: CUDA address
 * @table: the page table handed out
 * @pages: the table's pages
 * @cb: the caller's free callback
 * @data: its argument
 */
struct nvfake_map {
	struct list_head node;
	u64 va;
	struct nvidia_p2p_page_table *table;
	struct nvidia_p2p_page *pages;
	void (*cb)(void *data);
	void *data;
};

static DEFINE_MUTEX(lock);	/* the device, maps, revoking, counters; held over callbacks */
static struct pci_dev *gpu;
static LIST_HEAD(maps);
static struct nvfake_map *revoking;	/* whose callback runs now */
static u64 n_get, n_put, n_revoke, n_revoke_freed, n_bad_put, n_bad_free;
static u64 last_revoke_us;
static struct dentry *dir;

static void map_free(struct nvfake_map *m)
{
	list_del(&m->node);
	kfree(m->table->pages);
	kfree(m->table);
	kfree(m->pages);
	kfree(m);
}

static struct nvfake_map *map_new(u64 va, u64 len, phys_addr_t base)
{
	u32 i, n = len >> GPUPATH_NV_PAGE_SHIFT;
	struct nvfake_map *m;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NULL;
	m->va = va;
	m->table = kzalloc(sizeof(*m->table), GFP_KERNEL);
	m->pages = kcalloc(n, sizeof(*m->pages), GFP_KERNEL);
	if (m->table)
		m->table->pages = kcalloc(n, sizeof(*m->table->pages), GFP_KERNEL);
	if (!m->table || !m->pages || !m->table->pages) {
		if (m->table)
			kfree(m->table->pages);
		kfree(m->table);
		kfree(m->pages);
		kfree(m);
		return NULL;
	}
	m->table->version = table_version;
	m->table->gpu_uuid = gpu_uuid;
	m->table->page_size = GPUPATH_NV_PAGE_SIZE_64KB;
	m->table->entries = n;
	for (i = 0; i < n; i++) {
		m->pages[i].physical_address = base + ((u64)i << GPUPATH_NV_PAGE_SHIFT);
		m->table->pages[i] = &m->pages[i];
	}
	return m;
}

/**
 * nvidia_p2p_get_pages() - pin "CUDA memory": a range of the BAR
 * @p2p_token: ignored
 * @va_space: ignored
 * @virtual_address: va_base + the BAR offset, 64 KiB aligned
 * @length: bytes, a multiple of 64 KiB
 * @page_table: out, the table
 * @free_callback: called when the memory is revoked (debugfs revoke)
 * @data: its argument
 *
 * Return: 0, -ENODEV (no device bound), -EINVAL (range), -ENOMEM.
 */
int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address, u64 length,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data)
{
	struct nvfake_map *m;
	u64 off = virtual_address - va_base;
	int ret;

	mutex_lock(&lock);
	ret = -ENODEV;
	if (!gpu)
		goto out;
	ret = -EINVAL;
	if (virtual_address < va_base || !length ||
	    !IS_ALIGNED(off | length, GPUPATH_NV_PAGE_SIZE) ||
	    off + length > pci_resource_len(gpu, NVFAKE_BAR) || off + length < off)
		goto out;
	ret = -ENOMEM;
	m = map_new(virtual_address, length, pci_resource_start(gpu, NVFAKE_BAR) + off);
	if (!m)
		goto out;
	m->cb = free_callback;
	m->data = data;
	list_add_tail(&m->node, &maps);
	*page_table = m->table;
	n_get++;
	ret = 0;
out:
	mutex_unlock(&lock);
	return ret;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_get_pages);

/**
 * nvidia_p2p_put_pages() - unpin: the table is freed
 * @p2p_token: ignored
 * @va_space: ignored
 * @virtual_address: as given to nvidia_p2p_get_pages()
 * @page_table: the table it handed out
 *
 * Return: 0, or -EINVAL (counted in bad_put) for a table not live.
 */
int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 struct nvidia_p2p_page_table *page_table)
{
	struct nvfake_map *m;
	int ret = -EINVAL;

	mutex_lock(&lock);
	list_for_each_entry(m, &maps, node) {
		if (m->table == page_table && m->va == virtual_address) {
			map_free(m);
			n_put++;
			ret = 0;
			break;
		}
	}
	if (ret) {
		n_bad_put++;
		pr_err("nvfake: put_pages of a table not live (va %#llx)\n", virtual_address);
	}
	mutex_unlock(&lock);
	return ret;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_put_pages);

/**
 * nvidia_p2p_free_page_table() - free a table from within its free callback
 * @page_table: the table of the mapping being revoked
 *
 * Return: 0, or -EINVAL (counted in bad_free) for any other table.
 */
int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table)
{
	/* Only from the callback, which runs with the lock held. */
	if (!mutex_is_locked(&lock) || !revoking || revoking->table != page_table) {
		n_bad_free++;
		pr_err("nvfake: free_page_table of a table not being revoked\n");
		return -EINVAL;
	}
	map_free(revoking);
	revoking = NULL;
	n_revoke_freed++;
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_free_page_table);

static ssize_t revoke_write(struct file *file, const char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	struct nvfake_map *m, *found = NULL;
	ktime_t start;
	u64 va;
	int ret;

	ret = kstrtou64_from_user(ubuf, len, 0, &va);
	if (ret)
		return ret;
	mutex_lock(&lock);
	list_for_each_entry(m, &maps, node) {
		if (m->va == va) {
			found = m;
			break;
		}
	}
	if (!found) {
		mutex_unlock(&lock);
		return -ENOENT;
	}
	n_revoke++;
	revoking = found;
	start = ktime_get();
	found->cb(found->data);
	last_revoke_us = ktime_us_delta(ktime_get(), start);
	/* Not freed: the caller gave it back meanwhile; put_pages frees it. */
	revoking = NULL;
	mutex_unlock(&lock);
	return len;
}

static int stats_show(struct seq_file *s, void *unused)
{
	struct nvfake_map *m;
	u64 live = 0;

	mutex_lock(&lock);
	list_for_each_entry(m, &maps, node)
		live++;
	seq_printf(s, "bound %d\nlive %llu\nget %llu\nput %llu\nrevoke %llu\n",
		   !!gpu, live, n_get, n_put, n_revoke);
	seq_printf(s, "revoke_freed %llu\nbad_put %llu\nbad_free %llu\nlast_revoke_us %llu\n",
		   n_revoke_freed, n_bad_put, n_bad_free, last_revoke_us);
	mutex_unlock(&lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static const struct file_operations revoke_fops = {
	.owner = THIS_MODULE,
	.write = revoke_write,
	.llseek = noop_llseek,
};

static int nvfake_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret;

	if (!(pci_resource_flags(pdev, NVFAKE_BAR) & IORESOURCE_MEM))
		return -ENODEV;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	if (uvm_region) {
		ret = pci_p2pdma_add_resource(pdev, NVFAKE_BAR, 0, 0);
		if (ret)
			return ret;
	}
	mutex_lock(&lock);
	ret = -EBUSY;
	if (!gpu) {
		gpu = pdev;
		ret = 0;
	}
	mutex_unlock(&lock);
	if (!ret)
		pci_info(pdev, "nvfake: BAR %d is \"GPU memory\" at CUDA address %#llx\n",
			 NVFAKE_BAR, va_base);
	return ret;
}

/* Live mappings stay: only their holders give them back. */
static void nvfake_remove(struct pci_dev *pdev)
{
	mutex_lock(&lock);
	gpu = NULL;
	mutex_unlock(&lock);
}

static struct pci_driver nvfake_driver = {
	.name = "nvfake",
	.id_table = NULL,	/* binds only through driver_override */
	.probe = nvfake_probe,
	.remove = nvfake_remove,
};

static int __init nvfake_init(void)
{
	if (!IS_ALIGNED(va_base, GPUPATH_NV_PAGE_SIZE))
		return -EINVAL;
	dir = debugfs_create_dir("nvfake", NULL);
	debugfs_create_file("revoke", 0200, dir, NULL, &revoke_fops);
	debugfs_create_file("stats", 0444, dir, NULL, &stats_fops);
	return pci_register_driver(&nvfake_driver);
}

/* Unloading is refused while gpupath holds the symbols, so no map is left. */
static void __exit nvfake_exit(void)
{
	pci_unregister_driver(&nvfake_driver);
	debugfs_remove_recursive(dir);
}

module_init(nvfake_init);
module_exit(nvfake_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test double of the NVIDIA peer-memory API (VM tests only)");
