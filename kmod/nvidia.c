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
 * Unbinding the GPU's driver. The region is devres of the GPU's PCI device,
 * so it goes when the NVIDIA driver unbinds. Each CUDA buffer holds a
 * reference on the dev_pagemap of every page it uses (get_dev_pagemap())
 * until it is released or revoked, and memunmap_pages() waits for those: the
 * unbind blocks until then, and the pages never outlive their memmap. While
 * it waits, no new buffer can be registered there (the pagemap is dead). The
 * provider leaves the list as the unbind starts (provider.c's bus notifier),
 * so a REG_CUDA once the driver is bound again finds a new provider, whose
 * page map is the new region's: no buffer is taken for the old one's.
 *
 * Revocation (cudaFree while registered). The NVIDIA driver calls revoke();
 * each I/O holds a use of the buffer (nv_io_begin()) from before
 * its first bio until its last one is done. A buffer goes
 *
 *   ACTIVE --revoke()--> REVOKING --no use left--> REVOKED  (free_page_table)
 *   ACTIVE --release--> RELEASED                            (put_pages)
 *
 * under its lock: revoke() returns only when no I/O touches the memory any
 * more, and no I/O starts after REVOKING. The driver frees the page table,
 * its pages and its DMA mappings itself once revoke() returns (from 515 on
 * nvidia_p2p_free_page_table() does nothing; it is still called for the
 * drivers before, which freed the table there): nothing reads the table
 * after that, and a release after REVOKED gives nothing back (a release
 * during REVOKING waits for REVOKED). The driver calls revoke() in process
 * context with its API and GPU locks held: it may sleep, but nothing it
 * waits for may need those locks. It waits for I/O in flight, which does
 * not enter the driver, and fails the I/O of the memory that waits in a
 * volume for a path, which might never end. The VM tests check all of this
 * against a test double (selftests/vm/nvfake), not the real driver.
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

/* Serialises setting up a GPU: its P2PDMA region and its provider. */
static DEFINE_MUTEX(setup_lock);

enum nv_state {
	NV_ACTIVE,	/* pinned: I/O may start */
	NV_REVOKING,	/* the driver takes it back: waiting for I/O in flight */
	NV_REVOKED,	/* the driver took it back: table freed, pagemaps put */
	NV_RELEASED,	/* given back to the driver with put_pages */
};

/**
 * struct gpupath_nv_buf - what a CUDA buffer holds of the NVIDIA driver
 * @get: nvidia_p2p_get_pages (a module reference)
 * @put: nvidia_p2p_put_pages (a module reference)
 * @free_table: nvidia_p2p_free_page_table (a module reference)
 * @table: the pinned pages' table
 * @pgmaps: a reference on the pagemap of each of the table's pages, or NULL
 * @npgmaps: entries of @pgmaps
 * @va: the CUDA address
 * @lock: protects @state and @uses; taken in bio completion
 * @state: enum nv_state
 * @uses: I/Os using the memory, and registration while it sets up
 * @wait: woken when @uses drops to 0 and when @state leaves NV_REVOKING
 */
struct gpupath_nv_buf {
	gpupath_nv_get_pages_t get;
	gpupath_nv_put_pages_t put;
	gpupath_nv_free_page_table_t free_table;
	struct nvidia_p2p_page_table *table;
	struct dev_pagemap **pgmaps;
	u32 npgmaps;
	u64 va;
	spinlock_t lock;	/* @state, @uses; taken in bio completion */
	enum nv_state state;
	unsigned int uses;
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
}

/*
 * From 6.5 on, and in 6.1.y stable releases, __symbol_get() resolves only
 * EXPORT_SYMBOL_GPL symbols; the NVIDIA driver exports this API GPL.
 */
static int get_symbols(struct gpupath_nv_buf *nv)
{
	nv->get = __symbol_get("nvidia_p2p_get_pages");
	nv->put = __symbol_get("nvidia_p2p_put_pages");
	nv->free_table = __symbol_get("nvidia_p2p_free_page_table");
	if (nv->get && nv->put && nv->free_table)
		return 0;
	put_symbols(nv);
	return -ENODEV;
}

/* Drop the pagemap references: an unbinding driver may take the pages. */
static void unref_pages(struct gpupath_nv_buf *nv)
{
	u32 i;

	for (i = 0; i < nv->npgmaps; i++)
		if (nv->pgmaps[i])
			put_dev_pagemap(nv->pgmaps[i]);
	kvfree(nv->pgmaps);
	nv->pgmaps = NULL;
	nv->npgmaps = 0;
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

/* Called by the NVIDIA driver when the memory goes away under us (cudaFree). */
static void revoke(void *data)
{
	struct gpupath_nv_buf *nv = data;

	spin_lock_irq(&nv->lock);
	if (nv->state != NV_ACTIVE) {
		/* Released: put_pages, racing with us, gives the table back. */
		spin_unlock_irq(&nv->lock);
		return;
	}
	nv->state = NV_REVOKING;
	/*
	 * I/O of it waiting in a volume for a path fails, now and every
	 * second, so that the driver's locks are not held for a path.
	 */
	while (nv->uses) {
		spin_unlock_irq(&nv->lock);
		gpupath_provider_memory_gone(table_has_page, nv->table);
		spin_lock_irq(&nv->lock);
		wait_event_lock_irq_timeout(nv->wait, !nv->uses, nv->lock, HZ);
	}
	spin_unlock_irq(&nv->lock);

	nv->free_table(nv->table);
	unref_pages(nv);

	/* Woken under the lock: a release that sees REVOKED frees @nv. */
	spin_lock_irq(&nv->lock);
	nv->state = NV_REVOKED;
	wake_up(&nv->wait);
	spin_unlock_irq(&nv->lock);
}

/**
 * nv_io_begin() - an I/O is about to use a CUDA buffer's pages
 * @buf: a CUDA buffer
 *
 * Each successful call is paired with nv_io_end() once the I/O's
 * last bio is done; until then a revocation waits.
 *
 * Return: 0, or -ENODEV when the NVIDIA driver took the memory back.
 */
static int nv_io_begin(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;
	unsigned long flags;
	int ret = -ENODEV;

	spin_lock_irqsave(&nv->lock, flags);
	if (nv->state == NV_ACTIVE) {
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
	if (!--nv->uses)
		wake_up(&nv->wait);
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

/* A reference on the live P2PDMA pagemap holding @nr pages from @pfn, or NULL. */
static struct dev_pagemap *p2p_pgmap(unsigned long pfn, unsigned int nr)
{
	struct dev_pagemap *pgmap = gpupath_compat_get_dev_pagemap(pfn);

	if (pgmap && (pgmap->type != MEMORY_DEVICE_PCI_P2PDMA ||
		      PFN_PHYS(pfn + nr) - 1 > pgmap->range.end)) {
		put_dev_pagemap(pgmap);
		pgmap = NULL;
	}
	return pgmap;
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
out:
	mutex_unlock(&setup_lock);
	pci_dev_put(pdev);
	return ret ? ERR_PTR(ret) : prov;
}

/*
 * struct pages for every 4 KiB of the table's 64 KiB GPU pages, each GPU
 * page's pagemap referenced.
 */
static int fill_pages(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;
	struct nvidia_p2p_page_table *t = nv->table;
	unsigned int per = GPUPATH_NV_PAGE_SIZE >> PAGE_SHIFT, i, j;
	u64 phys;

	if (t->page_size != GPUPATH_NV_PAGE_SIZE_64KB ||
	    t->entries != buf->size >> GPUPATH_NV_PAGE_SHIFT)
		return -EIO;
	buf->pages = kvcalloc(buf->size >> PAGE_SHIFT, sizeof(*buf->pages), GFP_KERNEL_ACCOUNT);
	nv->pgmaps = kvcalloc(t->entries, sizeof(*nv->pgmaps), GFP_KERNEL_ACCOUNT);
	if (!buf->pages || !nv->pgmaps)
		return -ENOMEM;
	nv->npgmaps = t->entries;
	for (i = 0; i < t->entries; i++) {
		phys = t->pages[i]->physical_address;
		if (!IS_ALIGNED(phys, GPUPATH_NV_PAGE_SIZE))
			return -EIO;
		nv->pgmaps[i] = p2p_pgmap(PHYS_PFN(phys), per);
		if (!nv->pgmaps[i])
			return -EIO;
		for (j = 0; j < per; j++)
			buf->pages[i * per + j] = pfn_to_page(PHYS_PFN(phys) + j);
	}
	return 0;
}

/* Pin the memory, find its GPU and pages; undone by nv_release(). */
static int pin(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;
	u32 major;
	int ret;

	ret = nv->get(0, 0, nv->va, buf->size, &nv->table, revoke, nv);
	if (ret) {
		nv->table = NULL;
		return ret;
	}
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

/**
 * nv_release() - give a CUDA buffer back to the NVIDIA driver
 * @buf: the buffer, no longer used by any I/O
 *
 * Waits for a revocation in progress; gives the pages back with put_pages
 * only if the driver has not revoked them.
 */
static void nv_release(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;
	bool put;

	spin_lock_irq(&nv->lock);
	wait_event_lock_irq(nv->wait, nv->state != NV_REVOKING, nv->lock);
	WARN_ON_ONCE(nv->uses);
	put = nv->state == NV_ACTIVE;
	nv->state = NV_RELEASED;
	spin_unlock_irq(&nv->lock);
	if (put) {
		if (nv->table)
			nv->put(0, 0, nv->va, nv->table);
		unref_pages(nv);
	}
	if (buf->prov)
		gpupath_provider_put(buf->prov);
	put_symbols(nv);
	kvfree(buf->pages);
	kfree(nv);
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
	nv->va = req->addr;
	spin_lock_init(&nv->lock);
	init_waitqueue_head(&nv->wait);
	nv->state = NV_ACTIVE;
	/* Setting up uses the table: a revocation meanwhile waits. */
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
 * API, or no PCI device holds the memory, or its driver is unbound), -ENXIO
 * (the GPU's BAR has no P2PDMA region, and nvidia_bar_region is off), -EPERM
 * (the GPU's P2PDMA region would have to be created, and the caller lacks
 * CAP_SYS_ADMIN), -EBUSY (the region is going away), -EIO (pages outside
 * any P2PDMA region), -EPROTO (a page table of a version gpupath does not
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
	nv_io_end(buf);
	if (ret)
		goto err_put;
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
