// SPDX-License-Identifier: GPL-2.0
/*
 * The nvidia provider: CUDA device memory pinned with the NVIDIA driver's
 * peer-memory API, found at run time (symbol_get), never linked against.
 * The driver hands back the GPU BAR addresses of the memory; gpupath takes
 * their struct pages from a P2PDMA region over that BAR (the NVIDIA driver's
 * own, or one gpupath registers), so that bios can carry them and the
 * P2PDMA distance check applies as for any provider.
 *
 * The region. NVIDIA's UVM registers one over BAR1 itself (565 and later)
 * when the driver keeps a static BAR1 mapping that is not write-combined
 * (NVreg_RegistryDwords="RMForceStaticBar1=1;RmForceDisableIomapWC=1"),
 * and gpupath takes its pages from that region. Where the GPU has none,
 * REG_CUDA fails with ENXIO, unless the administrator set nvidia_bar_region:
 * then gpupath registers its own. That memremaps the whole BAR uncached
 * (64 bytes of struct page per 4 KiB: gigabytes with a large BAR1, built
 * in the first registration; on x86 it meets the driver's write-combined
 * mappings of the same BAR, which PAT refuses or turns uncached), and a
 * region UVM would register later over the same BAR fails. So only
 * CAP_SYS_ADMIN may have REG_CUDA create it; once it exists, any user may
 * register CUDA memory of their own over it. Setup is serialised by
 * setup_lock. pci_p2pdma_add_resource() always puts the BAR into a pool too,
 * but the region is never published, so no other kernel user finds it
 * (pci_p2pmem_find()), and gpupath never allocates from it
 * (GPUPATH_IOC_ALLOC refuses nvidia providers): that BAR maps every
 * process's GPU memory.
 *
 * Pages and their page map. A buffer keeps the struct pages of its GPU
 * pages, but holds a reference on their page map only while I/O uses them
 * (from the first nv_io_begin() of a run of I/Os to the last
 * nv_io_end()): NVIDIA's UVM (570 to 590) unregisters its region when the
 * last process using the GPU ends, and its teardown waits, under UVM's
 * global lock, for every reference. A reference held for a buffer's life
 * would hang that process's exit whenever its UVM descriptor closes before
 * its gpupath one. While the region is gone, I/O on the buffer fails with
 * ENODEV; a registration with a region back over the BAR makes the
 * provider learn the new page map (gpupath_provider_relearn()). Unbinding
 * the GPU's driver takes the region too (devres); the provider leaves the
 * list as the unbind starts (provider.c's bus notifier).
 *
 * Persistent pages. Where the driver offers them (515 on; refused with
 * -ENOTSUPP under APM, and more before 555) and nvidia_persistent is set,
 * a buffer pins with nvidia_p2p_get_pages_persistent(), as NVIDIA's own
 * GDS does: no callback, the memory stays allocated until the buffer is
 * freed, even past a cudaFree of it, and the buffer gives it back from
 * whatever context frees it. Elsewhere, nvidia_p2p_get_pages() with a free
 * callback, under that API's rules:
 *
 *  - put_pages works only from the process that pinned: from any other
 *    (a worker, a process the descriptor was passed to) NVIDIA returns 0
 *    and does nothing. Such a buffer is released without put_pages and
 *    its state (struct gpupath_nv_buf, reference counted) waits for the
 *    callback, which comes at the owner's cudaFree or end, holding the
 *    module meanwhile.
 *  - The callback (revoke()) runs with NVIDIA's API lock held, possibly
 *    on another thread before get_pages has returned. NVIDIA frees the
 *    table once it returns; nvidia_p2p_free_page_table() is a no-op from
 *    515 on, called still for the drivers before, which freed it there.
 *  - Every CUDA call on the node waits while it runs: it waits for the
 *    registration being set up (which does not need that lock), fails the
 *    buffer's I/O that waits in a volume for a path, and waits at most
 *    nvidia_revoke_ms for the I/O on a path, which a hung fabric may never
 *    end. I/O left past that is logged: its data may land in GPU memory
 *    NVIDIA has reused.
 *
 *   ACTIVE --callback--> REVOKING --no I/O, or the bound--> REVOKED
 *   ACTIVE --release--> RELEASED  (put_pages, or kept for the callback)
 *
 * under the buffer's lock; a release during REVOKING waits for REVOKED.
 * The VM tests check this against a test double (selftests/vm/nvfake),
 * written from NVIDIA's source, not against the real driver.
 */
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci-p2pdma.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "buffer.h"
#include "nv-p2p.h"
#include "nvidia.h"
#include "provider.h"

static bool nvidia_bar_region;
module_param(nvidia_bar_region, bool, 0644);
MODULE_PARM_DESC(nvidia_bar_region,
		 "Register a P2PDMA region over an NVIDIA GPU's BAR where the driver has none (default N; see install.md for the cost)");

static bool nvidia_persistent = true;
module_param(nvidia_persistent, bool, 0644);
MODULE_PARM_DESC(nvidia_persistent,
		 "Pin CUDA memory with the driver's persistent pages where it offers them (default Y)");

static unsigned int nvidia_revoke_ms = 5000;
module_param(nvidia_revoke_ms, uint, 0644);
MODULE_PARM_DESC(nvidia_revoke_ms,
		 "At most this long a cudaFree of registered memory waits for its I/O on a path (default 5000)");

/* Serialises setting up a GPU: its P2PDMA region and its provider. */
static DEFINE_MUTEX(setup_lock);

enum nv_state {
	NV_ACTIVE,	/* pinned: I/O may start */
	NV_REVOKING,	/* the driver takes it back: waiting for I/O in flight */
	NV_REVOKED,	/* the driver took it back: the table is the driver's */
	NV_RELEASED,	/* the buffer is freed */
};

/**
 * struct gpupath_nv_buf - what a CUDA buffer holds of the NVIDIA driver
 * @ref: the buffer's, and the free callback's while it may still come
 * @get: nvidia_p2p_get_pages (a module reference)
 * @put: nvidia_p2p_put_pages (a module reference)
 * @free_table: nvidia_p2p_free_page_table (a module reference)
 * @get_persistent: nvidia_p2p_get_pages_persistent, or NULL
 * @put_persistent: nvidia_p2p_put_pages_persistent, or NULL
 * @persistent: pinned with persistent pages: no callback
 * @owner: the thread group that pinned (NVIDIA's key for put_pages)
 * @table: the pinned pages' table, NULL once the driver has it back
 * @pfn: the first page frame of the table's span
 * @npfns: page frames from @pfn to the table's last page's end
 * @pgmap: the page map of the span, referenced while @uses is not 0
 * @va: the CUDA address
 * @lock: protects @state, @uses, @pgmap, @registered, @orphan; taken in
 *	bio completion
 * @state: enum nv_state
 * @uses: I/Os using the memory, and registration while it sets up
 * @setup: the registration is still being set up
 * @registered: the free callback may still come, and holds a reference
 * @orphan: released without put_pages: the callback's reference holds
 *	this module too
 * @wait: woken when @uses drops to 0 and when @state leaves NV_REVOKING
 */
struct gpupath_nv_buf {
	struct kref ref;
	gpupath_nv_get_pages_t get;
	gpupath_nv_put_pages_t put;
	gpupath_nv_free_page_table_t free_table;
	gpupath_nv_get_pages_persistent_t get_persistent;
	gpupath_nv_put_pages_persistent_t put_persistent;
	bool persistent;
	pid_t owner;
	struct nvidia_p2p_page_table *table;
	unsigned long pfn;
	unsigned long npfns;
	struct dev_pagemap *pgmap;
	u64 va;
	spinlock_t lock;	/* see above; taken in bio completion */
	enum nv_state state;
	unsigned int uses;
	bool setup;
	bool registered;
	bool orphan;
	wait_queue_head_t wait;
};

static void put_symbols(struct gpupath_nv_buf *nv)
{
	if (nv->get)
		__symbol_put("nvidia_p2p_get_pages");
	if (nv->put)
		__symbol_put("nvidia_p2p_put_pages");
	if (nv->free_table)
		__symbol_put("nvidia_p2p_free_page_table");
	if (nv->get_persistent)
		__symbol_put("nvidia_p2p_get_pages_persistent");
	if (nv->put_persistent)
		__symbol_put("nvidia_p2p_put_pages_persistent");
}

/*
 * From 6.5 on, and in 6.1.y stable releases, __symbol_get() resolves only
 * EXPORT_SYMBOL_GPL symbols; the NVIDIA driver exports this API GPL. The
 * persistent pair is optional, and taken only together.
 */
static int get_symbols(struct gpupath_nv_buf *nv)
{
	nv->get = __symbol_get("nvidia_p2p_get_pages");
	nv->put = __symbol_get("nvidia_p2p_put_pages");
	nv->free_table = __symbol_get("nvidia_p2p_free_page_table");
	nv->get_persistent = __symbol_get("nvidia_p2p_get_pages_persistent");
	nv->put_persistent = __symbol_get("nvidia_p2p_put_pages_persistent");
	if (!nv->get_persistent || !nv->put_persistent) {
		if (nv->get_persistent)
			__symbol_put("nvidia_p2p_get_pages_persistent");
		if (nv->put_persistent)
			__symbol_put("nvidia_p2p_put_pages_persistent");
		nv->get_persistent = NULL;
		nv->put_persistent = NULL;
	}
	if (nv->get && nv->put && nv->free_table)
		return 0;
	put_symbols(nv);
	return -ENODEV;
}

/* A reference on the live P2PDMA pagemap holding @nr pages from @pfn, or NULL. */
static struct dev_pagemap *p2p_pgmap(unsigned long pfn, unsigned long nr)
{
	struct dev_pagemap *pgmap = gpupath_compat_get_dev_pagemap(pfn);

	if (pgmap && (pgmap->type != MEMORY_DEVICE_PCI_P2PDMA ||
		      PFN_PHYS(pfn + nr) - 1 > pgmap->range.end)) {
		put_dev_pagemap(pgmap);
		pgmap = NULL;
	}
	return pgmap;
}

static void nv_free(struct kref *ref)
{
	struct gpupath_nv_buf *nv = container_of(ref, struct gpupath_nv_buf, ref);
	bool orphan = nv->orphan;

	put_symbols(nv);
	kfree(nv);
	/* Taken for a buffer released while the callback could still come. */
	if (orphan)
		module_put(THIS_MODULE);
}

static void nv_put(struct gpupath_nv_buf *nv)
{
	kref_put(&nv->ref, nv_free);
}

/* Whether @page is GPU memory of @arg, an NVIDIA page table. */
static bool table_has_page(struct page *page, void *arg)
{
	struct nvidia_p2p_page_table *t = arg;
	u64 phys = page_to_phys(page);
	u32 i;

	for (i = 0; i < t->entries; i++)
		if (phys - t->pages[i]->physical_address < GPUPATH_NV_PAGE_SIZE)
			return true;
	return false;
}

/*
 * The free callback: the driver takes the memory back (cudaFree, the
 * owner's end), with its API lock held, so bounded. A buffer released
 * meanwhile only lets go of the state it kept for this call.
 */
static void revoke(void *data)
{
	struct gpupath_nv_buf *nv = data;
	struct nvidia_p2p_page_table *table;
	unsigned long deadline;
	unsigned int left;

	spin_lock_irq(&nv->lock);
	if (!nv->registered) {
		/* Given back by put_pages, which this call raced. */
		spin_unlock_irq(&nv->lock);
		return;
	}
	nv->registered = false;
	if (nv->state != NV_ACTIVE) {
		/* Released without put_pages: nothing uses the memory. */
		table = nv->table;
		nv->table = NULL;
		spin_unlock_irq(&nv->lock);
		nv->free_table(table);
		nv_put(nv);
		return;
	}
	nv->state = NV_REVOKING;
	/* Setting up reads the table, and takes no lock of the driver's. */
	wait_event_lock_irq(nv->wait, !nv->setup, nv->lock);
	deadline = jiffies + msecs_to_jiffies(READ_ONCE(nvidia_revoke_ms));
	/*
	 * I/O of it waiting in a volume for a path fails, now and every
	 * second, so that the driver's locks are not held for a path.
	 */
	while (nv->uses && time_before(jiffies, deadline)) {
		spin_unlock_irq(&nv->lock);
		gpupath_provider_memory_gone(table_has_page, nv->table);
		spin_lock_irq(&nv->lock);
		wait_event_lock_irq_timeout(nv->wait, !nv->uses, nv->lock,
					    min_t(long, HZ, max_t(long, deadline - jiffies, 1)));
	}
	left = nv->uses;
	table = nv->table;
	nv->table = NULL;
	/* Woken under the lock: a release that sees REVOKED goes on. */
	nv->state = NV_REVOKED;
	wake_up(&nv->wait);
	spin_unlock_irq(&nv->lock);
	if (left)
		pr_warn_ratelimited("gpupath: CUDA memory at %#llx freed with %u I/O still on a path after %u ms: their data may reach reused GPU memory\n",
				    nv->va, left, READ_ONCE(nvidia_revoke_ms));
	nv->free_table(table);
	nv_put(nv);
}

/**
 * nv_io_begin() - an I/O is about to use a CUDA buffer's pages
 * @buf: a CUDA buffer
 *
 * Each successful call is paired with nv_io_end() once the I/O's
 * last bio is done; until then a revocation waits, and the pages' page
 * map is held.
 *
 * Return: 0, or -ENODEV when the NVIDIA driver took the memory back, the
 * region over the GPU's BAR is gone, or the GPU's driver was unbound.
 */
static int nv_io_begin(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;
	unsigned long flags;
	int ret = -ENODEV;

	/* The GPU's driver unbound: the provider, and the memory, are gone. */
	if (IS_ERR(READ_ONCE(buf->prov->pgmap)))
		return -ENODEV;
	spin_lock_irqsave(&nv->lock, flags);
	if (nv->state == NV_ACTIVE && !nv->uses)
		nv->pgmap = p2p_pgmap(nv->pfn, nv->npfns);
	if (nv->state == NV_ACTIVE && nv->pgmap) {
		nv->uses++;
		ret = 0;
	}
	spin_unlock_irqrestore(&nv->lock, flags);
	return ret;
}

/**
 * nv_io_end() - an I/O no longer uses a CUDA buffer's pages
 * @buf: the buffer of a successful nv_io_begin()
 *
 * Any context.
 */
static void nv_io_end(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;
	unsigned long flags;

	spin_lock_irqsave(&nv->lock, flags);
	if (!--nv->uses) {
		if (nv->pgmap)
			put_dev_pagemap(nv->pgmap);
		nv->pgmap = NULL;
		wake_up(&nv->wait);
	}
	spin_unlock_irqrestore(&nv->lock, flags);
}

/* The PCI device, and its BAR, whose memory holds @phys. */
static struct pci_dev *bar_of(phys_addr_t phys, int *barp)
{
	struct pci_dev *pdev = NULL;
	int bar;

	for_each_pci_dev(pdev) {
		for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
			if ((pci_resource_flags(pdev, bar) & IORESOURCE_MEM) &&
			    phys >= pci_resource_start(pdev, bar) &&
			    phys <= pci_resource_end(pdev, bar)) {
				*barp = bar;
				return pdev;	/* with the iterator's reference */
			}
		}
	}
	return NULL;
}

/*
 * Make sure @phys, in @bar of @pdev, has P2PDMA pages: the NVIDIA driver's
 * region, or, where the administrator allows it (nvidia_bar_region), an
 * earlier one of ours or a new one, which only CAP_SYS_ADMIN creates.
 */
static int ensure_region(struct pci_dev *pdev, int bar, phys_addr_t phys)
{
	struct dev_pagemap *pgmap;

	lockdep_assert_held(&setup_lock);
	pgmap = p2p_pgmap(PHYS_PFN(phys), 1);
	if (pgmap) {
		put_dev_pagemap(pgmap);
		return 0;
	}
	if (!READ_ONCE(nvidia_bar_region)) {
		pci_notice_ratelimited(pdev,
				       "gpupath: BAR %d has no P2PDMA region; NVIDIA's driver registers one with NVreg_RegistryDwords=\"RMForceStaticBar1=1;RmForceDisableIomapWC=1\" (or set gpupath.nvidia_bar_region)\n",
				       bar);
		return -ENXIO;
	}
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* struct pages but no live pagemap: a region on its way out (unbind) */
	if (pfn_valid(PHYS_PFN(phys)))
		return -EBUSY;
	/* The region is devres of the device: it needs its driver bound. */
	if (!READ_ONCE(pdev->dev.driver))
		return -ENODEV;
	return pci_p2pdma_add_resource(pdev, bar, 0, 0);
}

/* The provider of the GPU holding @phys, with P2PDMA pages over its BAR. */
static struct gpupath_provider *gpu_provider(phys_addr_t phys)
{
	struct gpupath_provider *prov;
	struct dev_pagemap *pgmap;
	struct pci_dev *pdev;
	int bar, ret;

	pdev = bar_of(phys, &bar);
	if (!pdev)
		return ERR_PTR(-ENODEV);
	mutex_lock(&setup_lock);
	ret = ensure_region(pdev, bar, phys);
	if (ret)
		goto out;
	/*
	 * Not under the GPU's device lock: an unbind holding it may be in the
	 * driver's remove, calling revoke() for a buffer being set up here.
	 * The driver's name stays while its symbols are held.
	 */
	prov = gpupath_provider_find(pdev);
	if (!prov)
		ret = gpupath_provider_add(pdev, GPUPATH_PROVIDER_NVIDIA, NULL, &prov);
	/* The region may be another than the provider last saw (UVM's, again). */
	pgmap = ret ? NULL : p2p_pgmap(PHYS_PFN(phys), 1);
	if (pgmap) {
		gpupath_provider_relearn(prov, pgmap);
		put_dev_pagemap(pgmap);
	}
out:
	mutex_unlock(&setup_lock);
	pci_dev_put(pdev);
	return ret ? ERR_PTR(ret) : prov;
}

/*
 * struct pages for every 4 KiB of the table's 64 KiB GPU pages, all in one
 * live P2PDMA region, whose page map is held (nv->pgmap) for the setup.
 */
static int fill_pages(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;
	struct nvidia_p2p_page_table *t = nv->table;
	unsigned int per = GPUPATH_NV_PAGE_SIZE >> PAGE_SHIFT, i, j;
	u64 phys, lo = U64_MAX, hi = 0;

	if (t->page_size != GPUPATH_NV_PAGE_SIZE_64KB ||
	    t->entries != buf->size >> GPUPATH_NV_PAGE_SHIFT)
		return -EIO;
	buf->pages = kvcalloc(buf->size >> PAGE_SHIFT, sizeof(*buf->pages), GFP_KERNEL_ACCOUNT);
	if (!buf->pages)
		return -ENOMEM;
	for (i = 0; i < t->entries; i++) {
		phys = t->pages[i]->physical_address;
		if (!IS_ALIGNED(phys, GPUPATH_NV_PAGE_SIZE))
			return -EIO;
		lo = min(lo, phys);
		hi = max(hi, phys + GPUPATH_NV_PAGE_SIZE);
		for (j = 0; j < per; j++)
			buf->pages[i * per + j] = pfn_to_page(PHYS_PFN(phys) + j);
	}
	nv->pfn = PHYS_PFN(lo);
	nv->npfns = PHYS_PFN(hi - lo);
	spin_lock_irq(&nv->lock);
	nv->pgmap = p2p_pgmap(nv->pfn, nv->npfns);
	spin_unlock_irq(&nv->lock);
	return nv->pgmap ? 0 : -EIO;
}

/*
 * Pin the memory: persistent pages where the driver and nvidia_persistent
 * allow, else pages with a free callback (which may run, on another
 * thread, before get_pages returns: setting up holds it off).
 */
static int pin_pages(struct gpupath_nv_buf *nv, u64 size)
{
	int ret = -EOPNOTSUPP;

	if (nv->get_persistent && READ_ONCE(nvidia_persistent)) {
		ret = nv->get_persistent(nv->va, size, &nv->table, 0);
		if (!ret) {
			nv->persistent = true;
			return 0;
		}
		nv->table = NULL;
		/* The driver cannot here (ENOTSUPP): pages with a callback. */
		if (ret != -ENOTSUPP)
			return ret;
	}
	nv->registered = true;
	kref_get(&nv->ref);
	ret = nv->get(0, 0, nv->va, size, &nv->table, revoke, nv);
	if (ret) {
		/* No callback comes for a mapping that was not made. */
		nv->registered = false;
		nv->table = NULL;
		nv_put(nv);
	}
	return ret;
}

/* Pin the memory, find its GPU and pages; undone by nv_release(). */
static int pin(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;
	u32 major;
	int ret;

	ret = pin_pages(nv, buf->size);
	if (ret)
		return ret;
	/* The layout of a driver newer than gpupath knows: nothing is read. */
	major = GPUPATH_NV_TABLE_MAJOR(nv->table->version);
	if (major != 1 && major != 2)
		return -EPROTO;
	if (!nv->table->entries)
		return -EIO;
	buf->prov = gpu_provider(nv->table->pages[0]->physical_address);
	if (IS_ERR(buf->prov)) {
		ret = PTR_ERR(buf->prov);
		buf->prov = NULL;
		return ret;
	}
	return fill_pages(buf);
}

/* The setup is done: a revocation waiting for it goes on. */
static void setup_done(struct gpupath_nv_buf *nv)
{
	spin_lock_irq(&nv->lock);
	nv->setup = false;
	wake_up(&nv->wait);
	spin_unlock_irq(&nv->lock);
}

/**
 * nv_release() - give a CUDA buffer back to the NVIDIA driver
 * @buf: the buffer, no longer used by any I/O
 *
 * Waits for a revocation in progress. Gives the pages back unless the
 * driver has revoked them: persistent pages from any context, others
 * from their owner's only; a buffer freed elsewhere (a worker, another
 * process) keeps its state for the callback still to come.
 */
static void nv_release(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;
	bool put_persistent = false, put = false;

	spin_lock_irq(&nv->lock);
	wait_event_lock_irq(nv->wait, nv->state != NV_REVOKING, nv->lock);
	WARN_ON_ONCE(nv->uses);
	if (nv->state == NV_ACTIVE && nv->table) {
		if (nv->persistent) {
			put_persistent = true;
		} else if (nv->owner == current->tgid && !(current->flags & PF_KTHREAD)) {
			/* The callback's reference is put_pages's to drop. */
			put = nv->registered;
			nv->registered = false;
		} else if (nv->registered) {
			nv->orphan = true;
			__module_get(THIS_MODULE);
		}
	}
	nv->state = NV_RELEASED;
	spin_unlock_irq(&nv->lock);
	if (put_persistent)
		nv->put_persistent(nv->va, nv->table, 0);
	if (put) {
		/* NVIDIA serialises it with the callback, which then does nothing. */
		nv->put(0, 0, nv->va, nv->table);
		nv_put(nv);
	}
	if (buf->prov)
		gpupath_provider_put(buf->prov);
	kvfree(buf->pages);
	nv_put(nv);
}

/**
 * gpupath_nvidia_present() - whether a loaded NVIDIA driver exports the API
 *
 * Return: true if nvidia_p2p_get_pages and the rest can be found.
 */
bool gpupath_nvidia_present(void)
{
	struct gpupath_nv_buf nv = {};

	if (get_symbols(&nv))
		return false;
	put_symbols(&nv);
	return true;
}

/* What gpupath's buffers do with CUDA memory at I/O and at their end. */
static const struct gpupath_buf_ops nv_buf_ops = {
	.io_begin = nv_io_begin,
	.io_end = nv_io_end,
	.release = nv_release,
};

/* A buffer for @req, pinned by nobody yet, with the NVIDIA API's symbols. */
static struct gpupath_buf *buf_new(struct gpupath_cuda_reg *req)
{
	struct gpupath_nv_buf *nv;
	struct gpupath_buf *buf;
	int ret;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL_ACCOUNT);
	nv = kzalloc(sizeof(*nv), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!buf || !nv)
		goto err_free;
	ret = get_symbols(nv);
	if (ret)
		goto err_free;
	kref_init(&buf->ref);
	buf->type = GPUPATH_BUF_CUDA;
	buf->size = req->size;
	buf->ops = &nv_buf_ops;
	buf->nv = nv;
	kref_init(&nv->ref);
	nv->va = req->addr;
	nv->owner = current->tgid;
	spin_lock_init(&nv->lock);
	init_waitqueue_head(&nv->wait);
	nv->state = NV_ACTIVE;
	/* Setting up uses the table: a revocation meanwhile waits. */
	nv->setup = true;
	nv->uses = 1;
	return buf;

err_free:
	kfree(nv);
	kfree(buf);
	return ERR_PTR(ret);
}

/**
 * gpupath_nvidia_reg() - GPUPATH_IOC_REG_CUDA
 * @f: the file
 * @req: the request, completed with provider and handle
 *
 * Return: 0, -EINVAL (alignment, flags), -ENODEV (no NVIDIA peer-memory
 * API, or no PCI device holds the memory, or its driver is unbound, or the
 * driver took the memory back while it was being registered), -ENXIO (the
 * GPU's BAR has no P2PDMA region, and nvidia_bar_region is off), -EPERM
 * (the GPU's P2PDMA region would have to be created, and the caller lacks
 * CAP_SYS_ADMIN), -EBUSY (the region is going away), -EIO (pages outside
 * one P2PDMA region), -EPROTO (a page table of a version gpupath does not
 * know), or the NVIDIA driver's error.
 */
int gpupath_nvidia_reg(struct gpupath_file *f, struct gpupath_cuda_reg *req)
{
	struct gpupath_buf *buf;
	u64 end;
	int ret;

	if (req->flags || !req->size ||
	    !IS_ALIGNED(req->addr | req->size, GPUPATH_NV_PAGE_SIZE) ||
	    check_add_overflow(req->addr, req->size, &end))
		return -EINVAL;
	buf = buf_new(req);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = pin(buf);
	setup_done(buf->nv);
	nv_io_end(buf);
	if (ret)
		goto err_put;
	/* The driver took it back while it was being set up: nothing to register. */
	if (READ_ONCE(buf->nv->state) != NV_ACTIVE) {
		ret = -ENODEV;
		goto err_put;
	}
	/* Once in the table another thread may free it: read it before. */
	req->provider = buf->prov->id;
	ret = gpupath_buf_insert(f, buf, &req->handle);
	if (ret)
		goto err_put;
	return 0;

err_put:
	gpupath_buf_put(buf);
	return ret;
}
