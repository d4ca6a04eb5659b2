// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers: device memory allocated from a provider, or host memory pinned,
 * registered on an open /dev/gpupath. They die with the file (and its
 * mappings), so a process that crashes leaks nothing.
 */
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "buffer.h"
#include "provider.h"

/* Handles are xarray indices; 0 is never used. */
#define HANDLE_LIMIT	XA_LIMIT(1, INT_MAX)

/* Woken when the last I/O on a buffer completes (revocation waits). */
static DECLARE_WAIT_QUEUE_HEAD(buf_io_wait);

static bool buf_mem_get(struct gpupath_p2p_mem *mem)
{
	return kref_get_unless_zero(&container_of(mem, struct gpupath_buf, mem)->ref);
}

static void buf_mem_put(struct gpupath_p2p_mem *mem)
{
	gpupath_buf_put(container_of(mem, struct gpupath_buf, mem));
}

static void buf_revoke(struct gpupath_p2p_mem *mem);

/* How a provider that goes takes a device buffer's memory back. */
static const struct gpupath_p2p_mem_ops buf_mem_ops = {
	.get = buf_mem_get,
	.put = buf_mem_put,
	.revoke = buf_revoke,
};

/* Sleeps: called in process context only (never from a bio's completion). */
static void buf_release(struct kref *ref)
{
	struct gpupath_buf *buf = container_of(ref, struct gpupath_buf, ref);
	unsigned long npages = buf->size >> PAGE_SHIFT;

	switch (buf->type) {
	case GPUPATH_BUF_DEVICE:
		gpupath_provider_free(buf->prov, &buf->mem);
		gpupath_provider_put(buf->prov);
		gpupath_file_put(buf->f);
		break;
	case GPUPATH_BUF_HOST:
		/* READs wrote into them behind the CPU's back. */
		unpin_user_pages_dirty_lock(buf->pages, npages, true);
		account_locked_vm(buf->mm, npages, false);
		mmdrop(buf->mm);
		kvfree(buf->pages);
		break;
	case GPUPATH_BUF_CUDA:
		buf->ops->release(buf);
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

	/* Cyclic: a handle just freed is not somebody else's new one. */
	ret = xa_alloc_cyclic(&f->bufs, &id, buf, HANDLE_LIMIT, &f->next_handle,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		return ret == -EBUSY ? -ENOSPC : ret;
	*handle = id;
	return 0;
}

/* Which BAR holds the buffer, and where in it. */
static void locate(struct gpupath_buf *buf, struct gpupath_alloc *req)
{
	struct pci_dev *pdev = buf->prov->pdev;
	phys_addr_t phys = virt_to_phys(buf->mem.kaddr);
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
 * P2PDMA provider), -ENODEV (the provider is going away), -ENOMEM.
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
	buf = kzalloc(sizeof(*buf), GFP_KERNEL_ACCOUNT);
	if (!buf)
		goto err_put_prov;
	kref_init(&buf->ref);
	buf->type = GPUPATH_BUF_DEVICE;
	buf->size = req->size;
	buf->prov = prov;
	init_rwsem(&buf->revoke);
	INIT_LIST_HEAD(&buf->mem.node);
	buf->mem.size = buf->size;
	buf->mem.ops = &buf_mem_ops;
	gpupath_file_get(f);
	buf->f = f;
	/* From here on a removal of the provider may revoke it. */
	ret = gpupath_provider_alloc(prov, &buf->mem);
	if (ret)
		goto err_put_buf;
	down_write(&buf->revoke);
	ret = -ENODEV;
	if (!buf->dead) {
		locate(buf, req);
		ret = gpupath_buf_insert(f, buf, &req->handle);
	}
	if (!ret)
		buf->handle = req->handle;
	up_write(&buf->revoke);
	if (ret)
		goto err_put_buf;
	req->mmap_offset = req->handle << PAGE_SHIFT;
	return 0;

err_put_buf:
	gpupath_buf_put(buf);
	return ret;
err_put_prov:
	gpupath_provider_put(prov);
	return ret;
}

/*
 * Only anonymous, shmem and huge page (hugetlbfs) memory: a file system
 * writes its pages back and drops them behind a long-term pin, losing what
 * a READ put there; those three are never written back. Mapped throughout,
 * or -EFAULT as pinning would say. Under mmap_lock.
 */
static int check_vmas(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct vm_area_struct *vma;

	mmap_assert_locked(mm);
	while (start < end) {
		vma = find_vma(mm, start);
		if (!vma || vma->vm_start > start)
			return -EFAULT;
		if (!vma_is_anonymous(vma) && !is_vm_hugetlb_page(vma) &&
		    !(vma->vm_file && shmem_mapping(vma->vm_file->f_mapping)))
			return -EOPNOTSUPP;
		start = vma->vm_end;
	}
	return 0;
}

static int pin_locked(struct gpupath_buf *buf, u64 addr, unsigned long npages)
{
	struct mm_struct *mm = current->mm;
	long pinned;
	int ret;

	mmap_read_lock(mm);
	ret = check_vmas(mm, addr, addr + buf->size);
	if (!ret) {
		pinned = gpupath_compat_pin_user_pages(addr, npages, FOLL_WRITE | FOLL_LONGTERM,
						       buf->pages);
		if (pinned != npages) {
			ret = pinned < 0 ? pinned : -EFAULT;
			if (pinned > 0)
				unpin_user_pages(buf->pages, pinned);
		}
	}
	mmap_read_unlock(mm);
	return ret;
}

/* The page array of a host buffer must stay below kvmalloc's limit. */
#define HOST_PAGES_MAX	(INT_MAX / sizeof(struct page *))

static int pin_host(struct gpupath_buf *buf, u64 addr)
{
	unsigned long npages = buf->size >> PAGE_SHIFT;
	int ret;

	/* RLIMIT_MEMLOCK first: no allocation sized by an unchecked request. */
	ret = account_locked_vm(current->mm, npages, true);
	if (ret)
		return ret;
	ret = -ENOMEM;
	if (npages > HOST_PAGES_MAX)
		goto err_unaccount;
	buf->pages = kvcalloc(npages, sizeof(*buf->pages), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!buf->pages)
		goto err_unaccount;
	ret = pin_locked(buf, addr, npages);
	if (ret)
		goto err_free_pages;
	mmgrab(current->mm);
	buf->mm = current->mm;
	return 0;

err_free_pages:
	kvfree(buf->pages);
err_unaccount:
	account_locked_vm(current->mm, npages, false);
	return ret;
}

/**
 * gpupath_buf_reg_host() - GPUPATH_IOC_REG_HOST
 * @f: the file
 * @req: the request, completed with the handle
 *
 * Return: 0, -EINVAL (alignment, size, flags), -EFAULT (not the caller's
 * writable memory), -EOPNOTSUPP (memory of a file other than shmem or
 * hugetlbfs),
 * -ENOMEM (also over RLIMIT_MEMLOCK).
 */
int gpupath_buf_reg_host(struct gpupath_file *f, struct gpupath_host_reg *req)
{
	struct gpupath_buf *buf;
	u64 end;
	int ret;

	if (req->flags || req->pad || check_size(req->size) || !PAGE_ALIGNED(req->addr) ||
	    check_add_overflow(req->addr, req->size, &end) || end > TASK_SIZE)
		return -EINVAL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL_ACCOUNT);
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
static struct page *gpupath_buf_page(struct gpupath_buf *buf, u64 offset)
{
	if (buf->type == GPUPATH_BUF_DEVICE)
		return virt_to_page(buf->mem.kaddr + offset);
	return buf->pages[offset >> PAGE_SHIFT];
}

/**
 * gpupath_buf_contig() - how far a buffer is physically contiguous
 * @buf: the buffer
 * @offset: below the buffer's size
 * @len: bytes from @offset wanted, > 0, within the buffer
 * @page: out, the page holding the byte at @offset
 *
 * A provider's memory is one range of its BAR; pinned pages are compared
 * with their neighbours (a huge page's run in one step, not page by page
 * through gpupath_buf_page()).
 *
 * Return: the bytes from @offset, at most @len, on physically contiguous
 * pages.
 */
u64 gpupath_buf_contig(struct gpupath_buf *buf, u64 offset, u64 len, struct page **page)
{
	unsigned long first = offset >> PAGE_SHIFT, last = (offset + len - 1) >> PAGE_SHIFT;
	unsigned long n = 1, pfn;

	*page = gpupath_buf_page(buf, offset);
	if (buf->type == GPUPATH_BUF_DEVICE)
		return len;
	pfn = page_to_pfn(*page);
	while (first + n <= last && page_to_pfn(buf->pages[first + n]) == pfn + n)
		n++;
	return min_t(u64, len, ((u64)n << PAGE_SHIFT) - offset_in_page(offset));
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

/* Pages mapped per fault, at most: the rest come on their own faults. */
#define FAULT_AROUND	256

/*
 * Pages are mapped on first touch, so that a revoked buffer's mappings,
 * once zapped, fault again: and get SIGBUS.
 */
static vm_fault_t vma_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct gpupath_buf *buf = vma->vm_private_data;
	unsigned long addr = vmf->address & PAGE_MASK, i;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	void *kaddr;

	down_read(&buf->revoke);
	if (buf->dead)
		goto out;
	kaddr = buf->mem.kaddr + ((vmf->pgoff - vma->vm_pgoff) << PAGE_SHIFT);
	ret = gpupath_compat_p2p_insert(vma, addr, virt_to_page(kaddr));
	for (i = 1; ret == VM_FAULT_NOPAGE && i < FAULT_AROUND &&
	     addr + (i << PAGE_SHIFT) < vma->vm_end; i++)
		if (gpupath_compat_p2p_insert(vma, addr + (i << PAGE_SHIFT),
					      virt_to_page(kaddr + (i << PAGE_SHIFT))) !=
		    VM_FAULT_NOPAGE)
			break;
out:
	up_read(&buf->revoke);
	return ret;
}

/*
 * A mapping of device memory goes whole: it stands for one buffer, and
 * unmapping a part of it is refused as it always was.
 */
static int vma_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct gpupath_vm_ops = {
	.open = vma_open,
	.close = vma_close,
	.fault = vma_fault,
	.may_split = vma_may_split,
};

/**
 * gpupath_buf_mmap() - map a device buffer into the caller
 * @f: the file
 * @vma: the mapping; its offset is the buffer's mmap_offset
 *
 * Shared mappings only: a private one would give the CPU copies that the
 * device never sees. The memory is mapped write-combining, as GPU drivers
 * map their BARs for the CPU: uncached, writes gathered (fast, unordered
 * until a fence or a system call), unaligned accesses allowed (arm64's
 * device type would fault on them). Where the page attribute table tracks
 * the mapping (x86, before 6.2: pfn mappings), it gives each page the type
 * the kernel's own mapping has. Where the kernel lets user-space direct I/O pin
 * P2PDMA pages (6.2 on), the mapping is of pages, so that any program's
 * O_DIRECT read or write can use it: each page then stays the device's
 * until the last pin of it is dropped, even after the buffer is freed.
 *
 * Return: 0, -EINVAL (no such buffer, not device memory, larger than the
 * buffer, or not MAP_SHARED), -ENODEV (its provider went away).
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
	if (buf->type != GPUPATH_BUF_DEVICE || len > buf->size ||
	    !(vma->vm_flags & VM_MAYSHARE))
		goto err_put;
	ret = -ENODEV;
	if (READ_ONCE(buf->dead))
		goto err_put;
	gpupath_compat_vm_flags_set(vma, GPUPATH_COMPAT_P2P_VM_FLAGS);
	vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	vma->vm_private_data = buf;
	vma->vm_ops = &gpupath_vm_ops;
	return 0;

err_put:
	gpupath_buf_put(buf);
	return ret;
}

/**
 * gpupath_buf_io_begin() - an I/O is about to use a buffer's memory
 * @buf: the buffer
 *
 * Device memory and CUDA memory can be taken back (a provider removed, a
 * cudaFree): that waits for the I/O begun and not yet ended.
 *
 * Return: 0, or -ENODEV when the memory was revoked.
 */
int gpupath_buf_io_begin(struct gpupath_buf *buf)
{
	int ret = 0;

	if (buf->type == GPUPATH_BUF_CUDA)
		return buf->ops->io_begin(buf);
	if (buf->type != GPUPATH_BUF_DEVICE)
		return 0;
	down_read(&buf->revoke);
	if (buf->dead)
		ret = -ENODEV;
	else
		atomic_inc(&buf->inflight);
	up_read(&buf->revoke);
	return ret;
}

/**
 * gpupath_buf_io_end() - an I/O begun on a buffer is complete; any context
 * @buf: the buffer
 */
void gpupath_buf_io_end(struct gpupath_buf *buf)
{
	if (buf->type == GPUPATH_BUF_CUDA)
		buf->ops->io_end(buf);
	else if (buf->type == GPUPATH_BUF_DEVICE && atomic_dec_and_test(&buf->inflight))
		wake_up_all(&buf_io_wait);
}

/* Whether @page is of @arg's (a struct gpupath_p2p_mem) memory. */
static bool mem_has_page(struct page *page, void *arg)
{
	struct gpupath_p2p_mem *mem = arg;
	unsigned long first = page_to_pfn(virt_to_page(mem->kaddr));

	return page_to_pfn(page) - first < mem->size >> PAGE_SHIFT;
}

/*
 * The provider is going: take a device buffer's memory back. From now on
 * its I/O fails with -ENODEV and touching its mappings gets SIGBUS; this
 * waits for the I/O already in flight, then gives the memory back to the
 * provider. I/O of it that waits in a volume for a path fails, now and
 * every second until the wait is over: it might wait for ever. The handle
 * stays until freed.
 */
static void buf_revoke(struct gpupath_p2p_mem *mem)
{
	struct gpupath_buf *buf = container_of(mem, struct gpupath_buf, mem);

	down_write(&buf->revoke);
	buf->dead = true;
	up_write(&buf->revoke);
	unmap_mapping_range(&buf->f->mapping, (loff_t)buf->handle << PAGE_SHIFT,
			    PAGE_ALIGN(buf->size), 1);
	do {
		gpupath_provider_memory_gone(mem_has_page, mem);
	} while (!wait_event_timeout(buf_io_wait, !atomic_read(&buf->inflight), HZ));
	gpupath_provider_free(buf->prov, mem);
}

static void file_free(struct kref *ref)
{
	kfree(container_of(ref, struct gpupath_file, ref));
}

/**
 * gpupath_file_get() - take a reference to an open file's state
 * @f: the state
 */
void gpupath_file_get(struct gpupath_file *f)
{
	kref_get(&f->ref);
}

/**
 * gpupath_file_put() - drop a reference to an open file's state
 * @f: the state
 */
void gpupath_file_put(struct gpupath_file *f)
{
	kref_put(&f->ref, file_free);
}

/**
 * gpupath_file_init() - state of a newly opened /dev/gpupath
 * @f: the state
 * @file: the file; its mappings go into an address space of its own
 */
void gpupath_file_init(struct gpupath_file *f, struct file *file)
{
	kref_init(&f->ref);
	address_space_init_once(&f->mapping);
	f->mapping.host = file_inode(file);
	f->mapping.a_ops = file_inode(file)->i_mapping->a_ops;
	file->f_mapping = &f->mapping;
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
