// SPDX-License-Identifier: GPL-2.0
/*
 * The nvidia provider: CUDA device memory pinned with the NVIDIA driver's
 * peer-memory API, found at run time (symbol_get), never linked against.
 * The driver hands back the GPU BAR addresses of the memory; gpupath takes
 * their struct pages from a P2PDMA region over that BAR (the NVIDIA driver's
 * own, or one gpupath registers), so that bios can carry them and the
 * P2PDMA distance check applies as for any provider.
 */
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci-p2pdma.h>
#include <linux/slab.h>

#include "buffer.h"
#include "nv-p2p.h"
#include "nvidia.h"
#include "provider.h"

/**
 * struct gpupath_nv_buf - what a CUDA buffer holds of the NVIDIA driver
 * @get: nvidia_p2p_get_pages (a module reference)
 * @put: nvidia_p2p_put_pages (a module reference)
 * @free_table: nvidia_p2p_free_page_table (a module reference)
 * @table: the pinned pages' table
 * @va: the CUDA address
 * @revoked: the driver took the memory back (cudaFree): no more I/O
 */
struct gpupath_nv_buf {
	gpupath_nv_get_pages_t get;
	gpupath_nv_put_pages_t put;
	gpupath_nv_free_page_table_t free_table;
	struct nvidia_p2p_page_table *table;
	u64 va;
	bool revoked;
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

/* Called by the NVIDIA driver when the memory goes away under us. */
static void revoke(void *data)
{
	struct gpupath_nv_buf *nv = data;

	WRITE_ONCE(nv->revoked, true);
	nv->free_table(nv->table);
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

static bool is_p2p_pfn(unsigned long pfn)
{
	return pfn_valid(pfn) && is_pci_p2pdma_page(pfn_to_page(pfn));
}

/*
 * The provider of the GPU holding @phys, with struct pages over its BAR: the
 * NVIDIA driver's P2PDMA region if it has one, else one registered here.
 */
static struct gpupath_provider *gpu_provider(phys_addr_t phys)
{
	struct gpupath_provider *prov;
	struct pci_dev *pdev;
	int bar, ret;

	pdev = bar_of(phys, &bar);
	if (!pdev)
		return ERR_PTR(-ENODEV);
	prov = gpupath_provider_find(pdev);
	if (prov)
		goto out;
	if (!is_p2p_pfn(PHYS_PFN(phys))) {
		ret = pci_p2pdma_add_resource(pdev, bar, 0, 0);
		if (ret) {
			prov = ERR_PTR(ret);
			goto out;
		}
	}
	ret = gpupath_provider_add(pdev, GPUPATH_PROVIDER_NVIDIA, NULL, &prov);
	if (ret)
		prov = ERR_PTR(ret);
out:
	pci_dev_put(pdev);
	return prov;
}

/* struct pages for every 4 KiB of the table's 64 KiB GPU pages. */
static int fill_pages(struct gpupath_buf *buf)
{
	struct nvidia_p2p_page_table *t = buf->nv->table;
	unsigned int per = GPUPATH_NV_PAGE_SIZE >> PAGE_SHIFT, i, j;
	unsigned long pfn;

	if (t->page_size != GPUPATH_NV_PAGE_SIZE_64KB ||
	    t->entries != buf->size >> GPUPATH_NV_PAGE_SHIFT)
		return -EIO;
	buf->pages = kvcalloc(buf->size >> PAGE_SHIFT, sizeof(*buf->pages), GFP_KERNEL);
	if (!buf->pages)
		return -ENOMEM;
	for (i = 0; i < t->entries; i++) {
		pfn = PHYS_PFN(t->pages[i]->physical_address);
		for (j = 0; j < per; j++) {
			if (!is_p2p_pfn(pfn + j))
				return -EIO;
			buf->pages[i * per + j] = pfn_to_page(pfn + j);
		}
	}
	return 0;
}

/* Pin the memory, find its GPU and pages; undone by gpupath_nvidia_release(). */
static int pin(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;
	int ret;

	ret = nv->get(0, 0, nv->va, buf->size, &nv->table, revoke, nv);
	if (ret)
		return ret;
	if (!nv->table->entries) {
		nv->put(0, 0, nv->va, nv->table);
		nv->table = NULL;
		return -EIO;
	}
	buf->prov = gpu_provider(nv->table->pages[0]->physical_address);
	if (IS_ERR(buf->prov)) {
		ret = PTR_ERR(buf->prov);
		buf->prov = NULL;
		return ret;
	}
	return fill_pages(buf);
}

/**
 * gpupath_nvidia_release() - give a CUDA buffer back to the NVIDIA driver
 * @buf: the buffer, no longer used by any I/O
 */
void gpupath_nvidia_release(struct gpupath_buf *buf)
{
	struct gpupath_nv_buf *nv = buf->nv;

	if (nv->table && !READ_ONCE(nv->revoked))
		nv->put(0, 0, nv->va, nv->table);
	if (buf->prov)
		gpupath_provider_put(buf->prov);
	put_symbols(nv);
	kvfree(buf->pages);
	kfree(nv);
}

/**
 * gpupath_nvidia_revoked() - whether the NVIDIA driver took the memory back
 * @buf: a CUDA buffer
 *
 * Return: true when no more I/O may use it.
 */
bool gpupath_nvidia_revoked(struct gpupath_buf *buf)
{
	return READ_ONCE(buf->nv->revoked);
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

/**
 * gpupath_nvidia_reg() - GPUPATH_IOC_REG_CUDA
 * @f: the file
 * @req: the request, completed with provider and handle
 *
 * Return: 0, -EINVAL (alignment, flags), -ENODEV (no NVIDIA peer-memory
 * API, or no PCI device holds the memory), or the NVIDIA driver's error.
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
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kref_init(&buf->ref);
	buf->type = GPUPATH_BUF_CUDA;
	buf->size = req->size;
	buf->nv = kzalloc(sizeof(*buf->nv), GFP_KERNEL);
	if (!buf->nv) {
		kfree(buf);
		return -ENOMEM;
	}
	buf->nv->va = req->addr;
	ret = get_symbols(buf->nv);
	if (ret) {
		kfree(buf->nv);
		kfree(buf);
		return ret;
	}
	ret = pin(buf);
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
