// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers: device memory allocated from a provider, or host memory pinned,
 * registered on an open /dev/gpupath. They die with the file (and its
 * mappings), so a process that crashes leaks nothing.
 */
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "buffer.h"
#include "nvidia.h"
#include "provider.h"

/* Handles are xarray indices; 0 is never used. */
#define HANDLE_LIMIT	XA_LIMIT(1, INT_MAX)

static void buf_release(struct kref *ref)
{
	struct gpupath_buf *buf = container_of(ref, struct gpupath_buf, ref);
	unsigned long npages = buf->size >> PAGE_SHIFT;

	switch (buf->type) {
	case GPUPATH_BUF_DEVICE:
		gpupath_provider_free(buf->prov, buf->kaddr, buf->size);
		gpupath_provider_put(buf->prov);
		break;
	case GPUPATH_BUF_HOST:
		unpin_user_pages(buf->pages, npages);
		account_locked_vm(buf->mm, npages, false);
		mmdrop(buf->mm);
		kvfree(buf->pages);
		break;
	case GPUPATH_BUF_CUDA:
		gpupath_nvidia_release(buf);
		break;
	}
	kfree(buf);
}

/**
 * gpupath_buf_put() - drop a reference to a buffer
 * @buf: the buffer
 */
void gpupath_buf_put(struct gpupath_buf *buf)
{
	kref_put(&buf->ref, buf_release);
}

/**
 * gpupath_buf_get() - look a buffer up by handle
 * @f: the file
 * @handle: the handle
 *
 * Return: the buffer with a reference, or ERR_PTR(-ENOENT).
 */
struct gpupath_buf *gpupath_buf_get(struct gpupath_file *f, u64 handle)
{
	struct gpupath_buf *buf = NULL;

	if (handle && handle <= INT_MAX) {
		xa_lock(&f->bufs);
		buf = xa_load(&f->bufs, handle);
		if (buf)
			kref_get(&buf->ref);
		xa_unlock(&f->bufs);
	}
	return buf ?: ERR_PTR(-ENOENT);
}

/**
 * gpupath_buf_insert() - give a new buffer its handle on a file
 * @f: the file
 * @buf: the buffer; the file's table takes the caller's reference
 * @handle: the handle
 *
 * Return: 0, -ENOSPC or -ENOMEM.
 */
int gpupath_buf_insert(struct gpupath_file *f, struct gpupath_buf *buf, u64 *handle)
{
	u32 id;
	int ret;

	ret = xa_alloc(&f->bufs, &id, buf, HANDLE_LIMIT, GFP_KERNEL);
	if (ret)
		return ret == -EBUSY ? -ENOSPC : ret;
	*handle = id;
	return 0;
}

/* Which BAR holds the buffer, and where in it. */
static void locate(struct gpupath_buf *buf, struct gpupath_alloc *req)
{
	struct pci_dev *pdev = buf->prov->pdev;
	phys_addr_t phys = virt_to_phys(buf->kaddr);
	int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		if (!(pci_resource_flags(pdev, bar) & IORESOURCE_MEM) ||
		    phys < pci_resource_start(pdev, bar) || phys > pci_resource_end(pdev, bar))
			continue;
		req->bar = bar;
		req->bar_offset = phys - pci_resource_start(pdev, bar);
		return;
	}
}

static int check_size(u64 size)
{
	if (!size || !PAGE_ALIGNED(size) || size > (u64)INT_MAX << PAGE_SHIFT)
		return -EINVAL;
	return 0;
}

/**
 * gpupath_buf_alloc() - GPUPATH_IOC_ALLOC
 * @f: the file
 * @req: the request, completed with the handle and mmap offset
 *
 * Only memory that is gpupath's to hand out is allocated: a provider of
 * type %GPUPATH_PROVIDER_P2PDMA. An nvidia provider's BAR maps every
 * process's GPU memory; its pages come only from the NVIDIA driver.
 *
 * Return: 0, -EINVAL (size, flags), -ENOENT (provider), -EOPNOTSUPP (not a
 * P2PDMA provider), -ENOMEM.
 */
int gpupath_buf_alloc(struct gpupath_file *f, struct gpupath_alloc *req)
{
	struct gpupath_provider *prov;
	struct gpupath_buf *buf;
	int ret;

	if (req->flags || req->pad || check_size(req->size))
		return -EINVAL;
	prov = gpupath_provider_get(req->provider);
	if (IS_ERR(prov))
		return PTR_ERR(prov);
	ret = -EOPNOTSUPP;
	if (prov->type != GPUPATH_PROVIDER_P2PDMA)
		goto err_put_prov;
	ret = -ENOMEM;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		goto err_put_prov;
	kref_init(&buf->ref);
	buf->type = GPUPATH_BUF_DEVICE;
	buf->size = req->size;
	buf->prov = prov;
	buf->kaddr = gpupath_provider_alloc(prov, req->size);
	if (!buf->kaddr)
		goto err_free_buf;
	ret = gpupath_buf_insert(f, buf, &req->handle);
	if (ret)
		goto err_put_buf;
	req->mmap_offset = req->handle << PAGE_SHIFT;
	locate(buf, req);
	return 0;

err_put_buf:
	gpupath_buf_put(buf);
	return ret;
err_free_buf:
	kfree(buf);
err_put_prov:
	gpupath_provider_put(prov);
	return ret;
}

static int pin_host(struct gpupath_buf *buf, u64 addr)
{
	unsigned long npages = buf->size >> PAGE_SHIFT;
	int ret, pinned;

	buf->pages = kvcalloc(npages, sizeof(*buf->pages), GFP_KERNEL);
	if (!buf->pages)
		return -ENOMEM;
	ret = account_locked_vm(current->mm, npages, true);
	if (ret)
		goto err_free_pages;
	pinned = pin_user_pages_fast(addr, npages, FOLL_WRITE | FOLL_LONGTERM, buf->pages);
	if (pinned != npages) {
		ret = pinned < 0 ? pinned : -EFAULT;
		if (pinned > 0)
			unpin_user_pages(buf->pages, pinned);
		goto err_unaccount;
	}
	mmgrab(current->mm);
	buf->mm = current->mm;
	return 0;

err_unaccount:
	account_locked_vm(current->mm, npages, false);
err_free_pages:
	kvfree(buf->pages);
	return ret;
}

/**
 * gpupath_buf_reg_host() - GPUPATH_IOC_REG_HOST
 * @f: the file
 * @req: the request, completed with the handle
 *
 * Return: 0, -EINVAL (alignment, size, flags), -EFAULT (not the caller's
 * writable memory), -ENOMEM (also over RLIMIT_MEMLOCK).
 */
int gpupath_buf_reg_host(struct gpupath_file *f, struct gpupath_host_reg *req)
{
	struct gpupath_buf *buf;
	u64 end;
	int ret;

	if (req->flags || req->pad || check_size(req->size) || !PAGE_ALIGNED(req->addr) ||
	    check_add_overflow(req->addr, req->size, &end) || end > TASK_SIZE)
		return -EINVAL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kref_init(&buf->ref);
	buf->type = GPUPATH_BUF_HOST;
	buf->size = req->size;
	ret = pin_host(buf, req->addr);
	if (ret) {
		kfree(buf);
		return ret;
	}
	ret = gpupath_buf_insert(f, buf, &req->handle);
	if (ret)
		gpupath_buf_put(buf);
	return ret;
}

/**
 * gpupath_buf_free() - GPUPATH_IOC_FREE
 * @f: the file
 * @handle: the buffer
 *
 * The memory goes once no mapping and no I/O uses it any more.
 *
 * Return: 0 or -ENOENT.
 */
int gpupath_buf_free(struct gpupath_file *f, u64 handle)
{
	struct gpupath_buf *buf;

	if (!handle || handle > INT_MAX)
		return -ENOENT;
	buf = xa_erase(&f->bufs, handle);
	if (!buf)
		return -ENOENT;
	gpupath_buf_put(buf);
	return 0;
}

/**
 * gpupath_buf_page() - the page holding a byte of a buffer
 * @buf: the buffer
 * @offset: below the buffer's size
 *
 * Return: the page.
 */
struct page *gpupath_buf_page(struct gpupath_buf *buf, u64 offset)
{
	if (buf->type == GPUPATH_BUF_DEVICE)
		return virt_to_page(buf->kaddr + offset);
	return buf->pages[offset >> PAGE_SHIFT];
}

static void vma_open(struct vm_area_struct *vma)
{
	struct gpupath_buf *buf = vma->vm_private_data;

	kref_get(&buf->ref);
}

static void vma_close(struct vm_area_struct *vma)
{
	gpupath_buf_put(vma->vm_private_data);
}

/*
 * A mapping of device memory goes whole: the page attributes of its PFN
 * range are tracked for the whole mapping, and unmapping a part would free
 * them for a range never tracked on its own.
 */
static int vma_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct gpupath_vm_ops = {
	.open = vma_open,
	.close = vma_close,
	.may_split = vma_may_split,
};

/**
 * gpupath_buf_mmap() - map a device buffer into the caller
 * @f: the file
 * @vma: the mapping; its offset is the buffer's mmap_offset
 *
 * Return: 0, -EINVAL (no such buffer, not device memory, or larger than
 * the buffer), or the error of remap_pfn_range().
 */
int gpupath_buf_mmap(struct gpupath_file *f, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct gpupath_buf *buf;
	int ret;

	buf = gpupath_buf_get(f, vma->vm_pgoff);
	if (IS_ERR(buf))
		return -EINVAL;
	ret = -EINVAL;
	if (buf->type != GPUPATH_BUF_DEVICE || len > buf->size)
		goto err_put;
	gpupath_compat_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	ret = remap_pfn_range(vma, vma->vm_start, PHYS_PFN(virt_to_phys(buf->kaddr)),
			      len, vma->vm_page_prot);
	if (ret)
		goto err_put;
	vma->vm_private_data = buf;
	vma->vm_ops = &gpupath_vm_ops;
	return 0;

err_put:
	gpupath_buf_put(buf);
	return ret;
}

/**
 * gpupath_file_init() - state of a newly opened /dev/gpupath
 * @f: the state
 */
void gpupath_file_init(struct gpupath_file *f)
{
	xa_init_flags(&f->bufs, XA_FLAGS_ALLOC1);
}

/**
 * gpupath_file_release() - the file is closed: drop every buffer
 * @f: the state
 */
void gpupath_file_release(struct gpupath_file *f)
{
	struct gpupath_buf *buf;
	unsigned long handle;

	xa_for_each(&f->bufs, handle, buf) {
		xa_erase(&f->bufs, handle);
		gpupath_buf_put(buf);
	}
	xa_destroy(&f->bufs);
}
