/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_BUFFER_H
#define _GPUPATH_BUFFER_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/mm_types.h>
#include <linux/xarray.h>
#include <linux/gpupath.h>

struct gpupath_provider;

enum gpupath_buf_type {
	GPUPATH_BUF_DEVICE,	/* P2P memory of a provider */
	GPUPATH_BUF_HOST,	/* pinned user memory */
	GPUPATH_BUF_CUDA,	/* CUDA memory pinned by the NVIDIA driver */
};

struct gpupath_nv_buf;

/**
 * struct gpupath_buf - memory registered on an open /dev/gpupath
 * @ref: held by the file's table, by each mapping and by each I/O
 * @type: enum gpupath_buf_type
 * @size: bytes
 * @prov: DEVICE: the provider (a reference)
 * @kaddr: DEVICE: the memory's kernel address
 * @pages: HOST, CUDA: the pages
 * @mm: HOST: the mm the pages are accounted to (mmgrab'ed)
 * @nv: CUDA: the NVIDIA page table and what to give it back with
 */
struct gpupath_buf {
	struct kref ref;
	enum gpupath_buf_type type;
	size_t size;
	struct gpupath_provider *prov;
	void *kaddr;
	struct page **pages;
	struct mm_struct *mm;
	struct gpupath_nv_buf *nv;
};

/**
 * struct gpupath_file - state of one open /dev/gpupath
 * @bufs: its buffers, by handle
 * @lock: protects @done and @efd; taken in bio completion (any context)
 * @done: completed batch I/Os, not yet reaped
 * @wait: woken on each completion (poll, release)
 * @inflight: batch I/Os started and not yet reaped
 * @efd: signalled once per completion, or NULL
 */
struct gpupath_file {
	struct xarray bufs;
	spinlock_t lock;
	struct list_head done;
	wait_queue_head_t wait;
	atomic_t inflight;
	struct eventfd_ctx *efd;
};

void gpupath_file_init(struct gpupath_file *f);
void gpupath_file_release(struct gpupath_file *f);

int gpupath_buf_alloc(struct gpupath_file *f, struct gpupath_alloc *req);
int gpupath_buf_reg_host(struct gpupath_file *f, struct gpupath_host_reg *req);
int gpupath_buf_free(struct gpupath_file *f, u64 handle);
struct gpupath_buf *gpupath_buf_get(struct gpupath_file *f, u64 handle);
void gpupath_buf_put(struct gpupath_buf *buf);
struct page *gpupath_buf_page(struct gpupath_buf *buf, u64 offset);
int gpupath_buf_insert(struct gpupath_file *f, struct gpupath_buf *buf, u64 *handle);
int gpupath_buf_mmap(struct gpupath_file *f, struct vm_area_struct *vma);

#endif /* _GPUPATH_BUFFER_H */
