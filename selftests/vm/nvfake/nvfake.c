// SPDX-License-Identifier: GPL-2.0
/*
 * nvfake: a test double of the NVIDIA driver's peer-memory API, for the VM
 * tests only. It is NOT the NVIDIA driver: it stands in for the functions
 * gpupath looks up (kmod/nv-p2p.h), behaving as NVIDIA's open kernel
 * modules (570 to 595) do where gpupath's side of the contract depends on
 * it, so that the tests can check that side. What it models:
 *
 *  - get_pages records the calling thread group as the owner; put_pages
 *    from any other (another process, a kernel thread) returns 0 and does
 *    nothing (counted in silent_put), as NVIDIA's lookup by process does.
 *  - The free callback runs with the double's lock (NVIDIA's API lock)
 *    held; the driver frees the table itself once the callback returns.
 *    nvidia_p2p_free_page_table() is a no-op, as from 515 on (a call
 *    outside a callback, which would free twice on older drivers, is
 *    counted in bad_free). A put_pages after the callback, which NVIDIA
 *    answers with 0 (the key is gone), is counted in late_put when the
 *    callback took that very mapping back (the API's own race: the caller
 *    decided to put as the callback ran, which NVIDIA serialises), and in
 *    bad_put otherwise.
 *  - With revoke_in_get=1, get_pages has another thread run the callback
 *    (a cudaFree racing it) and returns while it runs, as NVIDIA can.
 *  - Persistent pages (persistent=1, the default, as the drivers from 555
 *    on; 0 refuses them with -ENOTSUPP, as under APM): no callback; a
 *    cudaFree (the revoke knob) leaves the memory held until
 *    put_pages_persistent, which works from any context.
 *  - Page tables of version table_version (2.0 by default, as from 580).
 *  - The client file stands in for a process's /dev/nvidiactl: its close
 *    calls the callback of every mapping of the process that opened it
 *    (the RM client's teardown at the process's end).
 *  - uvm_region: 1 registers a P2PDMA region over the BAR at probe, kept
 *    until the unbind (UVM with static BAR1, 595); 2 registers one at the
 *    first open of the uvm file and unregisters it at its last close, with
 *    devm_memunmap_pages() under a global lock, waiting for every reference
 *    on its page map (UVM's GPU teardown at the last process's end, 570 to
 *    590): a reference held for good hangs that close, and every open of
 *    the uvm file behind it.
 *
 * It binds, through driver_override, to a PCI device with a memory BAR
 * (the VM's ivshmem "GPU", BAR2) as the NVIDIA driver binds to a GPU:
 *
 *   echo nvfake > /sys/bus/pci/devices/BDF/driver_override
 *   echo BDF > /sys/bus/pci/drivers_probe
 *
 * "CUDA memory" at address va_base + X is the BAR's bytes at offset X, in
 * 64 KiB GPU pages. debugfs (/sys/kernel/debug/nvfake/) has
 *
 *   revoke  write a CUDA address: a cudaFree of it. The free callback of
 *           the live mapping starting there is called now, and the write
 *           returns when it has; a persistent mapping stays, held; -ENOENT
 *           if none
 *   client  open: the opening process's RM client; close: its teardown
 *   uvm     open and close: UVM's file (uvm_region=2)
 *   stats   live mappings and the counters, "name value" lines
 *
 * gpupath must keep every bad_* counter and silent_put at 0.
 */
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

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

static uint uvm_region;
module_param(uvm_region, uint, 0444);
MODULE_PARM_DESC(uvm_region,
		 "A P2PDMA region over the BAR as UVM registers one: 1 at probe (595), 2 while the uvm file is open (570 to 590)");

static bool persistent = true;
module_param(persistent, bool, 0644);
MODULE_PARM_DESC(persistent, "Offer persistent pages (default Y; N: -ENOTSUPP, as under APM)");

static bool revoke_in_get;
module_param(revoke_in_get, bool, 0644);
MODULE_PARM_DESC(revoke_in_get, "Have get_pages return while another thread runs the callback");

/**
 * struct nvfake_map - one mapping not yet given back
 * @node: in maps
 * @va: CUDA address
 * @owner: the thread group that made it
 * @persistent: made by get_pages_persistent: no callback
 * @freed: a cudaFree of a persistent mapping came: only its pin holds it
 * @table: the page table handed out
 * @pages: the table's pages
 * @cb: the caller's free callback
 * @data: its argument
 */
struct nvfake_map {
	struct list_head node;
	u64 va;
	pid_t owner;
	bool persistent;
	bool freed;
	struct nvidia_p2p_page_table *table;
	struct nvidia_p2p_page *pages;
	void (*cb)(void *data);
	void *data;
};

static DEFINE_MUTEX(lock);	/* the device, maps, revoking, counters; held over callbacks */
static struct pci_dev *gpu;
static LIST_HEAD(maps);
static struct nvfake_map *revoking;	/* whose callback runs now */
static u64 n_get, n_get_persistent, n_put, n_put_persistent, n_silent_put, n_revoke,
	   n_client_revoke, n_revoke_freed, n_free_table, n_held_freed, n_bad_put, n_bad_free;
static u64 last_revoke_us;
static struct dentry *dir;
/*
 * The keys of the last mappings a callback took back: a put_pages of one
 * (late_put) is the API's own race, a release that decided to put while
 * the callback ran (NVIDIA serialises the two; the second finds nothing).
 */
static struct gone {
	u64 va;
	struct nvidia_p2p_page_table *table;
} gone[64];
static unsigned int gone_next;
static u64 n_late_put;

/* Whether (@va, @table) is a key a callback took back; forgotten if so. */
static bool gone_take(u64 va, struct nvidia_p2p_page_table *table)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gone); i++) {
		if (gone[i].table == table && gone[i].va == va && table) {
			gone[i].table = NULL;
			return true;
		}
	}
	return false;
}

/* UVM's global lock, the region's users and its devres (uvm_region=2). */
static DEFINE_MUTEX(uvm_lock);
static unsigned int uvm_users;
static void *uvm_group;
static u64 n_uvm_register, n_uvm_unregister;

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
	m->owner = current->tgid;
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

/* A new mapping of the range, listed; with the lock held. */
static int map_add(u64 va, u64 length, struct nvidia_p2p_page_table **page_table,
		   struct nvfake_map **mp)
{
	u64 off = va - va_base;
	struct nvfake_map *m;

	lockdep_assert_held(&lock);
	if (!gpu)
		return -ENODEV;
	if (va < va_base || !length || !IS_ALIGNED(off | length, GPUPATH_NV_PAGE_SIZE) ||
	    off + length > pci_resource_len(gpu, NVFAKE_BAR) || off + length < off)
		return -EINVAL;
	m = map_new(va, length, pci_resource_start(gpu, NVFAKE_BAR) + off);
	if (!m)
		return -ENOMEM;
	list_add_tail(&m->node, &maps);
	*page_table = m->table;
	*mp = m;
	return 0;
}

/* The mapping of @table at @va, or NULL; with the lock held. */
static struct nvfake_map *map_find(u64 va, struct nvidia_p2p_page_table *table)
{
	struct nvfake_map *m;

	list_for_each_entry(m, &maps, node)
		if (m->table == table && m->va == va)
			return m;
	return NULL;
}

/*
 * The memory of @m goes (cudaFree, the client's end): its free callback,
 * with the lock held; then the driver frees the table, as NVIDIA does.
 */
static void run_callback(struct nvfake_map *m)
{
	ktime_t start;

	lockdep_assert_held(&lock);
	revoking = m;
	start = ktime_get();
	m->cb(m->data);
	last_revoke_us = ktime_us_delta(ktime_get(), start);
	revoking = NULL;
	gone[gone_next++ % ARRAY_SIZE(gone)] = (struct gone){ m->va, m->table };
	map_free(m);
	n_revoke_freed++;
}

struct racing_free {
	struct work_struct work;
	struct nvfake_map *map;
	struct completion started;
};

/* A cudaFree on another thread, racing get_pages (revoke_in_get). */
static void racing_free_work(struct work_struct *work)
{
	struct racing_free *r = container_of(work, struct racing_free, work);

	mutex_lock(&lock);
	complete(&r->started);
	n_revoke++;
	run_callback(r->map);
	mutex_unlock(&lock);
}

/**
 * nvidia_p2p_get_pages() - pin "CUDA memory": a range of the BAR
 * @p2p_token: ignored
 * @va_space: ignored
 * @virtual_address: va_base + the BAR offset, 64 KiB aligned
 * @length: bytes, a multiple of 64 KiB
 * @page_table: out, the table
 * @free_callback: called when the memory goes (cudaFree, the client's end)
 * @data: its argument
 *
 * Return: 0, -ENODEV (no device bound), -EINVAL (range, no callback),
 * -ENOMEM.
 */
int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address, u64 length,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data)
{
	struct racing_free race;
	struct nvfake_map *m;
	int ret;

	if (!free_callback)
		return -EINVAL;
	mutex_lock(&lock);
	ret = map_add(virtual_address, length, page_table, &m);
	if (!ret) {
		m->cb = free_callback;
		m->data = data;
		n_get++;
	}
	mutex_unlock(&lock);
	if (ret || !READ_ONCE(revoke_in_get))
		return ret;
	/* The callback is registered, the lock dropped: a cudaFree comes. */
	race.map = m;
	init_completion(&race.started);
	INIT_WORK_ONSTACK(&race.work, racing_free_work);
	schedule_work(&race.work);
	wait_for_completion(&race.started);
	destroy_work_on_stack(&race.work);
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_get_pages);

/**
 * nvidia_p2p_put_pages() - unpin: the table is freed
 * @p2p_token: ignored
 * @va_space: ignored
 * @virtual_address: as given to nvidia_p2p_get_pages()
 * @page_table: the table it handed out
 *
 * Return: 0, also where NVIDIA does nothing: from a process other than the
 * owner (counted in silent_put), or for a table not live (bad_put).
 */
int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 struct nvidia_p2p_page_table *page_table)
{
	struct nvfake_map *m;

	if (!page_table)
		return 0;
	mutex_lock(&lock);
	m = map_find(virtual_address, page_table);
	if (!m && gone_take(virtual_address, page_table)) {
		n_late_put++;
	} else if (!m || m->persistent) {
		n_bad_put++;
		pr_err("nvfake: put_pages of a table not live (va %#llx)\n", virtual_address);
	} else if (m->owner != current->tgid || (current->flags & PF_KTHREAD)) {
		n_silent_put++;
		pr_err("nvfake: put_pages from pid %d, not the owner %d: nothing done\n",
		       current->tgid, m->owner);
	} else {
		map_free(m);
		n_put++;
	}
	mutex_unlock(&lock);
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_put_pages);

/**
 * nvidia_p2p_free_page_table() - a no-op, as from 515 on
 * @page_table: a table
 *
 * Return: 0. A call outside the callback of that table is counted in
 * bad_free (the drivers before 515 freed the table here).
 */
int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table)
{
	n_free_table++;
	/* Only from the callback, which runs with the lock held. */
	if (!mutex_is_locked(&lock) || !revoking || revoking->table != page_table) {
		n_bad_free++;
		pr_err("nvfake: free_page_table of a table not being revoked\n");
	}
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_free_page_table);

/**
 * nvidia_p2p_get_pages_persistent() - pin "CUDA memory" until put
 * @virtual_address: va_base + the BAR offset, 64 KiB aligned
 * @length: bytes, a multiple of 64 KiB
 * @page_table: out, the table
 * @flags: 0
 *
 * Return: 0, -ENOTSUPP (persistent=0), -ENODEV, -EINVAL, -ENOMEM.
 */
int nvidia_p2p_get_pages_persistent(u64 virtual_address, u64 length,
				    struct nvidia_p2p_page_table **page_table, u32 flags)
{
	struct nvfake_map *m;
	int ret;

	if (!READ_ONCE(persistent))
		return -ENOTSUPP;
	if (flags)
		return -EINVAL;
	mutex_lock(&lock);
	ret = map_add(virtual_address, length, page_table, &m);
	if (!ret) {
		m->persistent = true;
		n_get_persistent++;
	}
	mutex_unlock(&lock);
	return ret;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_get_pages_persistent);

/**
 * nvidia_p2p_put_pages_persistent() - unpin persistent pages, from any context
 * @virtual_address: as given to nvidia_p2p_get_pages_persistent()
 * @page_table: the table it handed out
 * @flags: 0
 *
 * Return: 0, or -EINVAL (flags, or a table not live: counted in bad_put).
 */
int nvidia_p2p_put_pages_persistent(u64 virtual_address,
				    struct nvidia_p2p_page_table *page_table, u32 flags)
{
	struct nvfake_map *m;
	int ret = -EINVAL;

	if (flags)
		return -EINVAL;
	if (!page_table)
		return 0;
	mutex_lock(&lock);
	m = map_find(virtual_address, page_table);
	if (m && m->persistent) {
		map_free(m);
		n_put_persistent++;
		ret = 0;
	} else {
		n_bad_put++;
		pr_err("nvfake: put_pages_persistent of a table not live (va %#llx)\n",
		       virtual_address);
	}
	mutex_unlock(&lock);
	return ret;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_put_pages_persistent);

static ssize_t revoke_write(struct file *file, const char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	struct nvfake_map *m, *found = NULL;
	u64 va;
	int ret;

	ret = kstrtou64_from_user(ubuf, len, 0, &va);
	if (ret)
		return ret;
	mutex_lock(&lock);
	list_for_each_entry(m, &maps, node) {
		if (m->va == va && !m->freed) {
			found = m;
			break;
		}
	}
	if (!found) {
		mutex_unlock(&lock);
		return -ENOENT;
	}
	n_revoke++;
	if (found->persistent) {
		/* The pin duplicated the memory's handle: it stays. */
		found->freed = true;
		n_held_freed++;
	} else {
		run_callback(found);
	}
	mutex_unlock(&lock);
	return len;
}

static int client_open(struct inode *inode, struct file *file)
{
	file->private_data = (void *)(long)current->tgid;
	return 0;
}

/* The RM client's teardown: the callback of each mapping its process made. */
static int client_release(struct inode *inode, struct file *file)
{
	pid_t owner = (long)file->private_data;
	struct nvfake_map *m, *next;

	mutex_lock(&lock);
	list_for_each_entry_safe(m, next, &maps, node) {
		if (m->persistent || m->owner != owner)
			continue;
		n_client_revoke++;
		run_callback(m);
	}
	mutex_unlock(&lock);
	return 0;
}

/*
 * The first process to open UVM's file brings the GPU's region up, as a
 * devres group of its own so that it can go with the device still bound.
 */
static int uvm_open(struct inode *inode, struct file *file)
{
	struct pci_dev *pdev;
	int ret = 0;

	mutex_lock(&uvm_lock);
	mutex_lock(&lock);
	pdev = gpu ? pci_dev_get(gpu) : NULL;
	mutex_unlock(&lock);
	if (uvm_region == 2 && pdev && !uvm_users) {
		uvm_group = devres_open_group(&pdev->dev, NULL, GFP_KERNEL);
		ret = uvm_group ? pci_p2pdma_add_resource(pdev, NVFAKE_BAR, 0, 0) : -ENOMEM;
		if (uvm_group)
			devres_close_group(&pdev->dev, uvm_group);
		if (ret && uvm_group)
			devres_release_group(&pdev->dev, uvm_group);
		if (ret)
			uvm_group = NULL;
		else
			n_uvm_register++;
	}
	if (!ret)
		uvm_users++;
	mutex_unlock(&uvm_lock);
	pci_dev_put(pdev);
	return ret;
}

/*
 * The last one takes it down, under the global lock: memunmap_pages()
 * waits for every reference on the page map.
 */
static int uvm_release(struct inode *inode, struct file *file)
{
	mutex_lock(&uvm_lock);
	if (!--uvm_users && uvm_group) {
		devres_release_group(&gpu->dev, uvm_group);
		uvm_group = NULL;
		n_uvm_unregister++;
	}
	mutex_unlock(&uvm_lock);
	return 0;
}

static int stats_show(struct seq_file *s, void *unused)
{
	struct nvfake_map *m;
	u64 live = 0;

	mutex_lock(&lock);
	list_for_each_entry(m, &maps, node)
		live++;
	seq_printf(s, "bound %d\nlive %llu\nget %llu\nget_persistent %llu\nput %llu\n",
		   !!gpu, live, n_get, n_get_persistent, n_put);
	seq_printf(s, "put_persistent %llu\nsilent_put %llu\nrevoke %llu\nclient_revoke %llu\n",
		   n_put_persistent, n_silent_put, n_revoke, n_client_revoke);
	seq_printf(s, "revoke_freed %llu\nfree_table %llu\nheld_freed %llu\n",
		   n_revoke_freed, n_free_table, n_held_freed);
	seq_printf(s, "bad_put %llu\nbad_free %llu\nlast_revoke_us %llu\nlate_put %llu\n",
		   n_bad_put, n_bad_free, last_revoke_us, n_late_put);
	mutex_unlock(&lock);
	seq_printf(s, "uvm_users %u\nuvm_register %llu\nuvm_unregister %llu\n",
		   READ_ONCE(uvm_users), n_uvm_register, n_uvm_unregister);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static const struct file_operations revoke_fops = {
	.owner = THIS_MODULE,
	.write = revoke_write,
	.llseek = noop_llseek,
};

static const struct file_operations client_fops = {
	.owner = THIS_MODULE,
	.open = client_open,
	.release = client_release,
	.llseek = noop_llseek,
};

static const struct file_operations uvm_fops = {
	.owner = THIS_MODULE,
	.open = uvm_open,
	.release = uvm_release,
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
	if (uvm_region == 1) {
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
	/* The region, if up, goes with the device's devres. */
	mutex_lock(&uvm_lock);
	uvm_group = NULL;
	mutex_unlock(&uvm_lock);
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
	debugfs_create_file("client", 0444, dir, NULL, &client_fops);
	debugfs_create_file("uvm", 0444, dir, NULL, &uvm_fops);
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
