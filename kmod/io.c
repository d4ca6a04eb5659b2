// SPDX-License-Identifier: GPL-2.0
/*
 * I/O between registered buffers and block devices, with bios built here
 * from the buffer's pages: one at a time (GPUPATH_IOC_IO, waits) or in
 * batches (GPUPATH_IOC_SUBMIT, completions reaped later). Device memory goes
 * directly or not at all: when the device's DMA engine cannot reach it the
 * I/O is refused with the reason, and counted.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "buffer.h"
#include "io.h"
#include "nvidia.h"
#include "provider.h"
#include "route.h"
#include "volume.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/**
 * struct gpupath_req - one I/O in flight
 * @node: in the file's done list once complete
 * @f: the file it was started on
 * @buf: the buffer (a reference, dropped when reaped)
 * @bdev_file: the block device's file (a reference, dropped when reaped)
 * @io: the request, with mode and reason
 * @pending: bios in flight, plus one while they are being submitted
 * @result: 0, or the first error a bio saw, or why it never started
 * @late_reason: a volume could not send a bio of it direct after all
 * @nv_use: it holds a use of its CUDA buffer (gpupath_nvidia_start_io())
 * @sync: set for GPUPATH_IOC_IO, which waits on it
 */
struct gpupath_req {
	struct list_head node;
	struct gpupath_file *f;
	struct gpupath_buf *buf;
	struct file *bdev_file;
	struct gpupath_io io;
	atomic_t pending;
	int result;
	u32 late_reason;
	bool nv_use;
	struct completion *sync;
};

static void trace(struct gpupath_req *req)
{
	trace_gpupath_io(req->buf->prov ? req->buf->prov->id : 0,
			 file_inode(req->bdev_file)->i_rdev, req->io.op, req->io.dev_offset,
			 req->io.len, req->io.mode, req->io.reason, READ_ONCE(req->result));
}

static void count_done(struct gpupath_req *req, int ret)
{
	struct gpupath_provider *prov = req->buf->prov;

	if (!prov)
		return;
	if (ret) {
		atomic64_inc(&prov->stats.errors);
		return;
	}
	atomic64_inc(&prov->stats.direct_ios);
	atomic64_add(req->io.len, &prov->stats.direct_bytes);
}

static void count_refused(struct gpupath_provider *prov, const struct gpupath_io *io)
{
	atomic64_inc(&prov->stats.refused_ios[io->reason]);
	atomic64_add(io->len, &prov->stats.refused_bytes[io->reason]);
}

/* Its CUDA memory may be revoked once @req no longer touches it. */
static void req_end_use(struct gpupath_req *req)
{
	if (req->nv_use) {
		req->nv_use = false;
		gpupath_nvidia_end_io(req->buf);
	}
}

/* The last bio is done: counted and traced here, in whatever context. */
static void req_done(struct gpupath_req *req)
{
	struct gpupath_file *f = req->f;
	unsigned long flags;

	if (READ_ONCE(req->late_reason)) {
		/* Failed over to paths that cannot DMA it: to be bounced. */
		req->io.reason = req->late_reason;
		req->io.mode = GPUPATH_MODE_NONE;
		req->result = -EXDEV;
		count_refused(req->buf->prov, &req->io);
	} else if (req->io.mode == GPUPATH_MODE_DIRECT) {
		count_done(req, READ_ONCE(req->result));
	}
	trace(req);
	if (req->sync) {
		req_end_use(req);
		complete(req->sync);
		return;
	}
	/* Under the lock: once it is dropped, release may free @f. */
	spin_lock_irqsave(&f->lock, flags);
	list_add_tail(&req->node, &f->done);
	/* Reapable before a revocation waiting for it returns. */
	req_end_use(req);
	if (f->efd)
		eventfd_signal(f->efd, 1);
	wake_up(&f->wait);
	spin_unlock_irqrestore(&f->lock, flags);
}

static void req_put_pending(struct gpupath_req *req)
{
	if (atomic_dec_and_test(&req->pending))
		req_done(req);
}

static void end_io(struct bio *bio)
{
	struct gpupath_req *req = bio->bi_private;

	/*
	 * nvme-pci ends a bio whose device memory dma_map_sgtable() refused
	 * with a target error: the I/O is given back to be bounced.
	 */
	if (bio->bi_status == BLK_STS_TARGET && req->io.mode == GPUPATH_MODE_DIRECT)
		cmpxchg(&req->late_reason, 0, GPUPATH_REASON_DMA_MAP_FAILED);
	else if (bio->bi_status)
		cmpxchg(&req->result, 0, blk_status_to_errno(bio->bi_status));
	bio_put(bio);
	req_put_pending(req);
}

/**
 * gpupath_io_refused() - a volume refuses device memory it cannot DMA
 * @bio: a bio, ended by the caller with an error right after
 * @reason: why
 *
 * When @bio is one of gpupath's own I/O ioctls, that I/O completes with
 * -EXDEV and @reason, so that the caller bounces it.
 */
void gpupath_io_refused(struct bio *bio, enum gpupath_reason reason)
{
	struct gpupath_req *req = bio->bi_private;

	if (bio->bi_end_io == end_io)
		cmpxchg(&req->late_reason, 0, reason);
}

/* Build the bios of @req from the buffer's pages and send them down. */
static void submit(struct gpupath_req *req, struct block_device *bdev, blk_opf_t opf)
{
	u64 boff = req->io.buf_offset, doff = req->io.dev_offset, left = req->io.len;
	struct bio *bio;

	atomic_set(&req->pending, 1);
	while (left) {
		unsigned int nr = min_t(u64, DIV_ROUND_UP(offset_in_page(boff) + left, PAGE_SIZE),
					BIO_MAX_VECS);

		bio = bio_alloc(bdev, nr, opf, GFP_KERNEL);
		bio->bi_iter.bi_sector = doff >> SECTOR_SHIFT;
		bio->bi_private = req;
		bio->bi_end_io = end_io;
		while (left) {
			unsigned int off = offset_in_page(boff);
			unsigned int n = min_t(u64, left, PAGE_SIZE - off);

			if (bio_add_page(bio, gpupath_buf_page(req->buf, boff), n, off) != n)
				break;
			boff += n;
			doff += n;
			left -= n;
		}
		atomic_inc(&req->pending);
		submit_bio(bio);
	}
	req_put_pending(req);
}

/* Ranges within buffer and device, aligned to the logical block size. */
static int check_range(const struct gpupath_io *io, struct gpupath_buf *buf,
		       struct block_device *bdev)
{
	unsigned int lbs = bdev_logical_block_size(bdev);
	u64 bend, dend;

	if (!io->len || !IS_ALIGNED(io->len | io->buf_offset | io->dev_offset, lbs))
		return -EINVAL;
	if (check_add_overflow(io->buf_offset, io->len, &bend) || bend > buf->size)
		return -EINVAL;
	if (check_add_overflow(io->dev_offset, io->len, &dend) || dend > bdev_nr_bytes(bdev))
		return -EINVAL;
	return 0;
}

/*
 * Decide how @req goes and start it: 0 when started, -EXDEV when device
 * memory cannot be reached directly (io.reason says why), or bad input.
 */
static int start(struct gpupath_req *req)
{
	struct gpupath_io *io = &req->io;
	struct block_device *bdev = I_BDEV(req->bdev_file->f_mapping->host);
	blk_opf_t opf = (io->op == GPUPATH_IO_READ ? REQ_OP_READ : REQ_OP_WRITE) | REQ_SYNC;
	struct gpupath_volume *vol = gpupath_volume_of_bdev(bdev);
	bool fabrics = false;
	int ret;

	ret = check_range(io, req->buf, bdev);
	if (ret)
		return ret;
	if (req->buf->type == GPUPATH_BUF_HOST) {
		io->mode = GPUPATH_MODE_HOST;
		submit(req, bdev, opf);
		return 0;
	}
	if (req->buf->type == GPUPATH_BUF_CUDA) {
		ret = gpupath_nvidia_start_io(req->buf);
		if (ret)
			return ret;
		req->nv_use = true;
	}
	/* A volume picks a path per bio, among those that can DMA it. */
	if (vol)
		io->reason = gpupath_volume_reason(vol, req->buf->prov);
	else
		io->reason = gpupath_route(bdev, req->buf->prov, &fabrics);
	if (io->reason != GPUPATH_REASON_NONE) {
		count_refused(req->buf->prov, io);
		return -EXDEV;
	}
	/*
	 * P2P bios never merge with host-memory bios, and over a fabric a
	 * mapping the transport refuses fails rather than retrying forever.
	 */
	opf |= REQ_NOMERGE;
	if (fabrics)
		opf |= REQ_FAILFAST_TRANSPORT;
	io->mode = GPUPATH_MODE_DIRECT;
	submit(req, bdev, opf);
	return 0;
}

static void req_free(struct gpupath_req *req)
{
	req_end_use(req);	/* one that never started */
	if (req->bdev_file)
		fput(req->bdev_file);
	if (req->buf)
		gpupath_buf_put(req->buf);
	kfree(req);
}

/* A request for @io: the buffer found, the block device open the right way. */
static int req_new(struct gpupath_file *f, const struct gpupath_io *io,
		   struct gpupath_req **reqp)
{
	fmode_t need = io->op == GPUPATH_IO_READ ? FMODE_READ : FMODE_WRITE;
	struct gpupath_req *req;
	int ret;

	if (io->flags || io->pad || (io->op != GPUPATH_IO_READ && io->op != GPUPATH_IO_WRITE))
		return -EINVAL;
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	req->f = f;
	req->io = *io;
	req->io.mode = GPUPATH_MODE_NONE;
	req->io.reason = GPUPATH_REASON_NONE;
	req->buf = gpupath_buf_get(f, io->handle);
	ret = PTR_ERR_OR_ZERO(req->buf);
	if (ret) {
		req->buf = NULL;
		goto err_free;
	}
	ret = -EBADF;
	req->bdev_file = fget(io->fd);
	if (!req->bdev_file)
		goto err_free;
	if (!S_ISBLK(file_inode(req->bdev_file)->i_mode))
		ret = -ENOTBLK;
	else if (req->bdev_file->f_mode & need)
		ret = 0;
	if (ret)
		goto err_free;
	*reqp = req;
	return 0;

err_free:
	req_free(req);
	return ret;
}

/**
 * gpupath_io() - GPUPATH_IOC_IO: one I/O, waited for
 * @f: the file the buffer is registered on
 * @io: the request; mode and reason are filled in
 *
 * Return: 0, -EXDEV when device memory cannot be reached directly (see
 * @io->reason), or -EINVAL, -EBADF, -ENOTBLK, -ENOENT, -EIO.
 */
int gpupath_io(struct gpupath_file *f, struct gpupath_io *io)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct gpupath_req *req;
	int ret;

	io->mode = GPUPATH_MODE_NONE;
	io->reason = GPUPATH_REASON_NONE;
	ret = req_new(f, io, &req);
	if (ret)
		return ret;
	req->sync = &done;
	ret = start(req);
	if (!ret) {
		wait_for_completion_io(&done);
		ret = req->result;
	} else {
		req->result = ret;
		trace(req);
	}
	io->mode = ret && ret != -EXDEV ? GPUPATH_MODE_NONE : req->io.mode;
	io->reason = req->io.reason;
	req_free(req);
	return ret;
}

/* A request refused before it started completes at once with its error. */
static void complete_refused(struct gpupath_req *req, int ret)
{
	req->result = ret;
	atomic_set(&req->pending, 1);
	req_put_pending(req);
}

/**
 * gpupath_io_submit() - GPUPATH_IOC_SUBMIT
 * @f: the file
 * @arg: the user's struct gpupath_submit
 *
 * Return: how many I/Os were started, or a negative errno when none was.
 */
int gpupath_io_submit(struct gpupath_file *f, void __user *arg)
{
	struct gpupath_io __user *uios;
	struct gpupath_submit sub;
	struct gpupath_req *req;
	struct gpupath_io io;
	int ret = 0;
	u32 i;

	if (copy_from_user(&sub, arg, sizeof(sub)))
		return -EFAULT;
	if (sub.flags || !sub.count || sub.count > GPUPATH_SUBMIT_MAX)
		return -EINVAL;
	uios = u64_to_user_ptr(sub.ios);
	for (i = 0; i < sub.count; i++) {
		ret = -EFAULT;
		if (copy_from_user(&io, &uios[i], sizeof(io)))
			break;
		ret = req_new(f, &io, &req);
		if (ret)
			break;
		atomic_inc(&f->inflight);
		ret = start(req);
		if (ret == -EXDEV) {
			complete_refused(req, ret);
		} else if (ret) {
			/* Bad input in I/O i: nothing of it started. */
			req->result = ret;
			trace(req);
			req_free(req);
			atomic_dec(&f->inflight);
			break;
		}
	}
	return i ? i : ret;
}

/**
 * gpupath_io_reap() - GPUPATH_IOC_REAP
 * @f: the file
 * @arg: the user's struct gpupath_reap
 *
 * Return: 0 or a negative errno.
 */
int gpupath_io_reap(struct gpupath_file *f, void __user *arg)
{
	struct gpupath_completion __user *uc;
	struct gpupath_completion c = {};
	struct gpupath_reap rp;
	struct gpupath_req *req;
	int ret = 0;

	if (copy_from_user(&rp, arg, sizeof(rp)))
		return -EFAULT;
	if (!rp.max)
		return -EINVAL;
	uc = u64_to_user_ptr(rp.completions);
	rp.count = 0;
	while (rp.count < rp.max) {
		spin_lock_irq(&f->lock);
		req = list_first_entry_or_null(&f->done, struct gpupath_req, node);
		if (req)
			list_del(&req->node);
		spin_unlock_irq(&f->lock);
		if (!req)
			break;
		c.user_data = req->io.user_data;
		c.result = req->result;
		c.mode = c.result && c.result != -EXDEV ? GPUPATH_MODE_NONE : req->io.mode;
		c.reason = req->io.reason;
		c.len = req->io.len;
		req_free(req);
		atomic_dec(&f->inflight);
		if (copy_to_user(&uc[rp.count], &c, sizeof(c))) {
			ret = -EFAULT;
			break;
		}
		rp.count++;
	}
	if (copy_to_user(arg, &rp, sizeof(rp)))
		ret = -EFAULT;
	return ret;
}

/**
 * gpupath_io_set_eventfd() - GPUPATH_IOC_SET_EVENTFD
 * @f: the file
 * @fd: an eventfd, or -1
 *
 * Return: 0, or -EBADF/-EINVAL when @fd is no eventfd.
 */
int gpupath_io_set_eventfd(struct gpupath_file *f, int fd)
{
	struct eventfd_ctx *efd = NULL, *old;

	if (fd != -1) {
		efd = eventfd_ctx_fdget(fd);
		if (IS_ERR(efd))
			return PTR_ERR(efd);
	}
	spin_lock_irq(&f->lock);
	old = f->efd;
	f->efd = efd;
	spin_unlock_irq(&f->lock);
	if (old)
		eventfd_ctx_put(old);
	return 0;
}

static bool done_waiting(struct gpupath_file *f)
{
	bool ret;

	spin_lock_irq(&f->lock);
	ret = !list_empty(&f->done);
	spin_unlock_irq(&f->lock);
	return ret;
}

/**
 * gpupath_io_poll() - readable while completions wait to be reaped
 * @f: the file
 * @file: its struct file
 * @wait: the poll table
 *
 * Return: the poll mask.
 */
__poll_t gpupath_io_poll(struct gpupath_file *f, struct file *file, poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(file, &f->wait, wait);
	if (done_waiting(f))
		mask = EPOLLIN | EPOLLRDNORM;
	return mask;
}

/**
 * gpupath_io_init() - the I/O state of a newly opened file
 * @f: the file
 */
void gpupath_io_init(struct gpupath_file *f)
{
	spin_lock_init(&f->lock);
	INIT_LIST_HEAD(&f->done);
	init_waitqueue_head(&f->wait);
	atomic_set(&f->inflight, 0);
}

/**
 * gpupath_io_release() - the file is closing: wait for its I/Os, drop them
 * @f: the file
 */
void gpupath_io_release(struct gpupath_file *f)
{
	struct gpupath_req *req, *tmp;
	LIST_HEAD(done);

	for (;;) {
		spin_lock_irq(&f->lock);
		list_splice_tail_init(&f->done, &done);
		spin_unlock_irq(&f->lock);
		list_for_each_entry_safe(req, tmp, &done, node) {
			list_del(&req->node);
			req_free(req);
			atomic_dec(&f->inflight);
		}
		if (!atomic_read(&f->inflight))
			break;
		wait_event(f->wait, done_waiting(f));
	}
	if (f->efd)
		eventfd_ctx_put(f->efd);
}
