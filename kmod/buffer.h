/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_BUFFER_H
#define _GPUPATH_BUFFER_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/mm_types.h>
#include <linux/xarray.h>
#include <linux/gpupath.h>

#include "provider.h"

enum gpupath_buf_type {
	GPUPATH_BUF_DEVICE,	/* P2P memory of a provider */
	GPUPATH_BUF_HOST,	/* pinned user memory */
	GPUPATH_BUF_CUDA,	/* CUDA memory pinned by the NVIDIA driver */
};

struct gpupath_nv_buf;
struct gpupath_buf;

/**
 * struct gpupath_buf_ops - what a buffer of memory another module pins
 *	(CUDA) does at its I/O and at its end; the module that made it sets it
 * @io_begin: an I/O starts on it: 0, or -ENODEV when the memory is gone
 * @io_end: that I/O is complete; any context
 * @release: the last reference is dropped: unpin it; sleeps
 */
struct gpupath_buf_ops {
	int (*io_begin)(struct gpupath_buf *buf);
	void (*io_end)(struct gpupath_buf *buf);
	void (*release)(struct gpupath_buf *buf);
};

/**
 * struct gpupath_buf - memory registered on an open /dev/gpupath
 * @ref: held by the file's table, by each mapping and by each I/O
 * @type: enum gpupath_buf_type
 * @size: bytes
 * @prov: DEVICE: the provider (a reference)
 * @mem: DEVICE: the memory the provider lent (mem.kaddr, NULL once revoked)
 * @dead: DEVICE: the provider went away and took the memory
 * @revoke: DEVICE: read-held by those that use the memory (faults, I/O starts)
 *	while they check @dead, write-held to set it
 * @inflight: DEVICE: I/Os started on it and not yet complete
 * @f: DEVICE: the file it was allocated on (a reference), whose mappings
 *	are zapped when the memory is revoked
 * @handle: DEVICE: its handle on @f, which is its mmap offset in pages
 * @pages: HOST, CUDA: the pages
 * @mm: HOST: the mm the pages are accounted to (mmgrab'ed)
 * @ops: CUDA: set by the module that pinned it
 * @nv: CUDA: the NVIDIA page table and what to give it back with
 */
struct gpupath_buf {
	struct kref ref;
	enum gpupath_buf_type type;
	size_t size;
	struct gpupath_provider *prov;
	struct gpupath_p2p_mem mem;
	bool dead;
	struct rw_semaphore revoke;
	atomic_t inflight;
	struct gpupath_file *f;
	u64 handle;
	struct page **pages;
	struct mm_struct *mm;
	const struct gpupath_buf_ops *ops;
	struct gpupath_nv_buf *nv;
};

/**
 * struct gpupath_file - state of one open /dev/gpupath
 * @ref: held by the open file, by each device buffer and each I/O of it
 * @mapping: the file's address space: its mappings of device memory, so
 *	that they can be zapped when the memory goes
 * @bufs: its buffers, by handle
 * @lock: protects @done, @closed and @efd; taken in bio completion (any
 *	context)
 * @done: completed batch I/Os, not yet reaped
 * @closed: the file is released: I/Os completing now free themselves
 * @wait: woken on each completion (poll)
 * @efd: signalled once per completion, or NULL
 * @next_handle: where the search for a free handle starts (handles are
 *	given in turn, not reused at once)
 * @reqs: its I/Os started and not yet freed (reaped, or ended unreaped),
 *	at most GPUPATH_INFLIGHT_MAX
 */
struct gpupath_file {
	struct kref ref;
	struct address_space mapping;
	struct xarray bufs;
	spinlock_t lock;		/* done, closed, efd */
	struct list_head done;
	bool closed;
	wait_queue_head_t wait;
	struct eventfd_ctx *efd;
	atomic_t reqs;
	u32 next_handle;
};

void gpupath_file_init(struct gpupath_file *f, struct file *file);
void gpupath_file_release(struct gpupath_file *f);
void gpupath_file_get(struct gpupath_file *f);
void gpupath_file_put(struct gpupath_file *f);

int gpupath_buf_alloc(struct gpupath_file *f, struct gpupath_alloc *req);
int gpupath_buf_reg_host(struct gpupath_file *f, struct gpupath_host_reg *req);
int gpupath_buf_free(struct gpupath_file *f, u64 handle);
struct gpupath_buf *gpupath_buf_get(struct gpupath_file *f, u64 handle);
void gpupath_buf_put(struct gpupath_buf *buf);
u64 gpupath_buf_contig(struct gpupath_buf *buf, u64 offset, u64 len, struct page **page);
int gpupath_buf_insert(struct gpupath_file *f, struct gpupath_buf *buf, u64 *handle);
int gpupath_buf_mmap(struct gpupath_file *f, struct vm_area_struct *vma);
int gpupath_buf_io_begin(struct gpupath_buf *buf);
void gpupath_buf_io_end(struct gpupath_buf *buf);

#endif /* _GPUPATH_BUFFER_H */
