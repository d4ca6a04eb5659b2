// SPDX-License-Identifier: GPL-2.0
/*
 * I/O between registered buffers and block devices or regular files, through
 * the target's own direct I/O (file.c): a block device's ->read_iter and
 * ->write_iter keep its page cache coherent as O_DIRECT does, a file
 * system maps its extents. One at a time (GPUPATH_IOC_IO, waits) or in
 * batches (GPUPATH_IOC_SUBMIT, completions reaped later). Device memory
 * goes directly or not at all: when the device's DMA engine cannot reach
 * it, or the file system would not hand it to the device, the I/O is
 * refused with the reason, and counted.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "buffer.h"
#include "file.h"
#include "io.h"
#include "nvidia.h"
#include "provider.h"
#include "route.h"
#include "stack.h"
#include "tenant.h"
#include "volume.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* Frees requests whose last user was a bio's completion. */
static struct workqueue_struct *io_wq;

/**
 * struct gpupath_req - one I/O in flight
 * @node: in the file's done list once complete
 * @f: the file it was started on (a reference)
 * @buf: the buffer (a reference, dropped when reaped)
 * @target: the block device's or regular file's file (a reference,
 *	dropped when reaped)
 * @bdev: the block device the data goes to: @target's, or its file
 *	system's
 * @is_file: @target is a regular file
 * @io: the request, with mode and reason
 * @result: 0, or the error it ended with, or why it never started
 * @moved: bytes transferred once complete
 * @iocb: the target's kiocb
 * @bvec: the bvec table over the buffer's pages
 * @suspect: a direct I/O failed with an error that is also how a refused
 *	DMA mapping reads: to be told apart in process context (classify())
 * @begun: gpupath_buf_io_begin() was called, its end is due
 * @sync: GPUPATH_IOC_IO, whose caller waits on @done
 * @done: completed, for @sync
 * @refs: @sync: the waiter's and the completion's; else the completion's
 * @free_work: frees it when its completion dropped the last reference
 * @tenant: the counters of the caller's cgroup
 */
struct gpupath_req {
	struct list_head node;
	struct gpupath_file *f;
	struct gpupath_buf *buf;
	struct file *target;
	struct block_device *bdev;
	bool is_file;
	struct gpupath_io io;
	int result;
	u64 moved;
	struct kiocb iocb;
	struct bio_vec *bvec;
	bool suspect;
	bool begun;
	bool sync;
	struct completion done;
	refcount_t refs;
	struct work_struct free_work;
	struct gpupath_tenant *tenant;
};

static void trace(struct gpupath_req *req)
{
	struct inode *inode = file_inode(req->target);

	trace_gpupath_io(req->buf->prov ? req->buf->prov->id : 0,
			 req->is_file ? inode->i_sb->s_dev : inode->i_rdev,
			 req->is_file ? inode->i_ino : 0, req->io.op, req->io.dev_offset,
			 req->io.len, req->io.mode, req->io.reason, READ_ONCE(req->result));
}

static void stats_done(struct gpupath_stats *st, int ret, u64 moved)
{
	if (ret) {
		atomic64_inc(&st->errors);
		return;
	}
	atomic64_inc(&st->direct_ios);
	atomic64_add(moved, &st->direct_bytes);
}

/* A direct I/O ended: for its provider and its caller's cgroup. */
static void count_done(struct gpupath_req *req, int ret)
{
	struct gpupath_provider *prov = req->buf->prov;

	if (!prov)
		return;
	stats_done(&prov->stats, ret, req->moved);
	stats_done(&req->tenant->stats, ret, req->moved);
}

static void stats_refused(struct gpupath_stats *st, const struct gpupath_io *io)
{
	atomic64_inc(&st->refused_ios[io->reason]);
	atomic64_add(io->len, &st->refused_bytes[io->reason]);
}

/* Device memory that could not go direct (to be bounced), with its reason. */
static void count_refused(struct gpupath_req *req)
{
	stats_refused(&req->buf->prov->stats, &req->io);
	stats_refused(&req->tenant->stats, &req->io);
}

/* Host memory moved (libgpupath's bounces among it): for the cgroup. */
static void count_host(struct gpupath_req *req)
{
	if (READ_ONCE(req->result))
		return;
	atomic64_inc(&req->tenant->host_ios);
	atomic64_add(req->moved, &req->tenant->host_bytes);
}

/* Process context: the last reference of the request goes. */
static void req_free(struct gpupath_req *req)
{
	if (req->begun)
		gpupath_buf_io_end(req->buf);
	kvfree(req->bvec);
	if (req->target)
		fput(req->target);
	if (req->buf)
		gpupath_buf_put(req->buf);
	gpupath_tenant_put(req->tenant);
	atomic_dec(&req->f->reqs);
	gpupath_file_put(req->f);
	kfree(req);
	/* Last: io_wq's teardown at unload waits for this work to return. */
	module_put(THIS_MODULE);
}

static void req_free_work(struct work_struct *work)
{
	req_free(container_of(work, struct gpupath_req, free_work));
}

/* A user of the request is done with it; process context. */
static void req_put(struct gpupath_req *req)
{
	if (refcount_dec_and_test(&req->refs))
		req_free(req);
}

/* The completion is done with the request; any context. */
static void req_put_async(struct gpupath_req *req)
{
	if (refcount_dec_and_test(&req->refs))
		queue_work(io_wq, &req->free_work);
}

/* The request no longer touches its buffer's memory. */
static void io_end(struct gpupath_req *req)
{
	if (req->begun) {
		gpupath_buf_io_end(req->buf);
		req->begun = false;
	}
}

/* The I/O is done: counted and traced here, in whatever context. */
static void req_done(struct gpupath_req *req)
{
	struct gpupath_file *f = req->f;
	unsigned long flags;

	if (req->io.mode == GPUPATH_MODE_DIRECT && !READ_ONCE(req->suspect))
		count_done(req, READ_ONCE(req->result));
	else if (req->io.mode == GPUPATH_MODE_HOST)
		count_host(req);
	trace(req);
	if (req->sync) {
		io_end(req);
		complete(&req->done);
		req_put_async(req);
		return;
	}
	/* Under the lock: release sets closed under it and drains the list. */
	spin_lock_irqsave(&f->lock, flags);
	if (!f->closed) {
		list_add_tail(&req->node, &f->done);
		/* Reapable before a revocation waiting for this I/O returns. */
		io_end(req);
		if (f->efd)
			gpupath_compat_eventfd_signal(f->efd);
		wake_up(&f->wait);
		spin_unlock_irqrestore(&f->lock, flags);
		return;
	}
	spin_unlock_irqrestore(&f->lock, flags);
	/* Nobody will reap it. */
	io_end(req);
	req_put_async(req);
}

/*
 * An I/O is complete. A direct one that failed with what a refused DMA
 * mapping reads as (nvme-pci: a target error, EREMOTEIO; nvme-rdma: a
 * transport error, ENOLINK; a volume: not supported; through a file
 * system maybe EIO) is for classify() to tell apart. Any context.
 */
static void iocb_end_io(struct kiocb *iocb, long ret)
{
	struct gpupath_req *req = container_of(iocb, struct gpupath_req, iocb);

	gpupath_fileio_done(iocb, ret);
	if (ret < 0) {
		if (req->io.mode == GPUPATH_MODE_DIRECT &&
		    (ret == -EREMOTEIO || ret == -ENOLINK || ret == -EIO || ret == -EOPNOTSUPP))
			WRITE_ONCE(req->suspect, true);
		req->result = ret;
	} else {
		req->moved = ret;
	}
	req_done(req);
}

/*
 * Hand @req to the target's direct I/O (the block device's or the file
 * system's); it completes through iocb_end_io().
 */
static int submit_iocb(struct gpupath_req *req)
{
	unsigned int nr;
	ssize_t ret;

	req->bvec = gpupath_fileio_bvecs(req->buf, req->io.buf_offset, req->io.len, &nr);
	if (!req->bvec)
		return -ENOMEM;
	ret = gpupath_fileio_start(&req->iocb, req->target, req->io.op, req->io.dev_offset,
				   req->bvec, nr, req->io.len, iocb_end_io);
	if (ret != -EIOCBQUEUED)
		iocb_end_io(&req->iocb, ret);
	return 0;
}

/* Ranges within buffer and device, aligned to the logical block size. */
static int check_range(const struct gpupath_io *io, struct gpupath_buf *buf,
		       struct block_device *bdev)
{
	unsigned int lbs = bdev_logical_block_size(bdev);
	u64 bend, dend;

	if (!io->len || io->len > MAX_RW_COUNT ||
	    !IS_ALIGNED(io->len | io->buf_offset | io->dev_offset, lbs))
		return -EINVAL;
	if (check_add_overflow(io->buf_offset, io->len, &bend) || bend > buf->size)
		return -EINVAL;
	if (check_add_overflow(io->dev_offset, io->len, &dend) || dend > bdev_nr_bytes(bdev))
		return -EINVAL;
	return 0;
}

/*
 * Whether device memory of @prov can go directly to or from @bdev: a
 * volume picks a path per bio among those that can DMA it; any other device
 * by its DMA engine. @dma, when given, gets that engine (release it with
 * gpupath_dma_put()). Sleeps.
 */
static enum gpupath_reason device_reason(struct block_device *bdev, struct gpupath_provider *prov,
					 struct gpupath_dma *dma, int *distance)
{
	struct gpupath_volume *vol = gpupath_volume_of_bdev(bdev);
	enum gpupath_reason reason;
	struct gpupath_dma found;
	int dist;

	if (dma)
		memset(dma, 0, sizeof(*dma));
	if (vol)
		return gpupath_volume_reason(vol, prov);
	if (gpupath_stacked(bdev)) {
		reason = gpupath_stack_reason(bdev, prov, &dist);
		if (distance && reason == GPUPATH_REASON_NONE)
			*distance = dist;
		return reason;
	}
	gpupath_dma_find(bdev, &found);
	reason = gpupath_dma_reason(&found, prov);
	if (distance && reason == GPUPATH_REASON_NONE)
		*distance = gpupath_dma_distance(&found, prov);
	if (dma)
		*dma = found;
	else
		gpupath_dma_put(&found);
	return reason;
}

/*
 * Decide how @req goes and start it: 0 when started, -EXDEV when device
 * memory cannot be reached directly (io.reason says why), or bad input.
 */
static int start(struct gpupath_req *req)
{
	struct gpupath_io *io = &req->io;
	struct block_device *bdev = req->bdev;
	int ret;

	if (req->is_file)
		ret = gpupath_fileio_check(req->target, io, req->buf);
	else
		ret = check_range(io, req->buf, bdev);
	if (ret)
		return ret;
	ret = gpupath_buf_io_begin(req->buf);
	if (ret)
		return ret;
	req->begun = true;
	/* Host memory too needs a file system that does direct I/O. */
	if (req->is_file)
		io->reason = gpupath_fileio_reason(req->target, io->op);
	/*
	 * A block device's direct write finishes through its page cache when
	 * it cannot drop the range's pages (a process has them mapped): that
	 * would copy device memory with the CPU.
	 */
	else if (io->op == GPUPATH_IO_WRITE && req->buf->prov &&
		 mapping_writably_mapped(req->target->f_mapping))
		io->reason = GPUPATH_REASON_FILE_MAPPED;
	if (io->reason != GPUPATH_REASON_NONE) {
		if (req->buf->prov)
			count_refused(req);
		return -EXDEV;
	}
	if (req->buf->type == GPUPATH_BUF_HOST) {
		io->mode = GPUPATH_MODE_HOST;
		return submit_iocb(req);
	}
	io->reason = device_reason(bdev, req->buf->prov, NULL, NULL);
	if (io->reason != GPUPATH_REASON_NONE) {
		count_refused(req);
		return -EXDEV;
	}
	/*
	 * The block device or the file system builds the bios, one plug
	 * around those of this I/O, all of them device memory of this buffer;
	 * the block layer and the NVMe driver retry them as they would any
	 * O_DIRECT I/O.
	 */
	io->mode = GPUPATH_MODE_DIRECT;
	return submit_iocb(req);
}

/*
 * Writes as the block layer allows them: not to a read-only device
 * (blockdev --setro), not to active swap.
 */
static int may_write(struct file *bdev_file)
{
	struct inode *inode = bdev_file->f_mapping->host;

	if (bdev_read_only(I_BDEV(inode)))
		return -EPERM;
	if (IS_SWAPFILE(inode))
		return -ETXTBSY;
	return 0;
}

/*
 * The block device of @target: itself, or for a regular file its file
 * system's (NULL when it has none); ERR_PTR for anything else.
 */
static struct block_device *target_bdev(struct file *target, bool *is_file)
{
	umode_t mode = file_inode(target)->i_mode;

	*is_file = S_ISREG(mode);
	if (S_ISBLK(mode))
		return I_BDEV(target->f_mapping->host);
	if (S_ISDIR(mode))
		return ERR_PTR(-EISDIR);
	if (!S_ISREG(mode))
		return ERR_PTR(-ENOTBLK);
	return gpupath_fileio_bdev(target);
}

/* A block device, or a regular file on a file system with a device. */
static int target_type(struct gpupath_req *req)
{
	req->bdev = target_bdev(req->target, &req->is_file);
	return PTR_ERR_OR_ZERO(req->bdev);
}

/**
 * gpupath_io_route() - whether device memory of @prov would move directly
 *	to or from @target: the decision each I/O takes, without the I/O
 * @target: an open block device (a gpupath volume among them) or regular file
 * @prov: the provider of the memory
 * @op: %GPUPATH_IO_READ or %GPUPATH_IO_WRITE
 * @route: filled in; release with gpupath_io_route_put()
 *
 * Return: 0, -EISDIR or -ENOTBLK for what gpupath does no I/O on. Sleeps.
 */
int gpupath_io_route(struct file *target, struct gpupath_provider *prov, u32 op,
		     struct gpupath_io_route *route)
{
	bool is_file;

	memset(route, 0, sizeof(*route));
	route->distance = -1;
	route->bdev = target_bdev(target, &is_file);
	if (IS_ERR(route->bdev))
		return PTR_ERR(route->bdev);
	route->reason = is_file ? gpupath_fileio_reason(target, op) : GPUPATH_REASON_NONE;
	if (route->reason != GPUPATH_REASON_NONE)
		return 0;
	if (!route->bdev) {
		route->reason = GPUPATH_REASON_FS_UNSUPPORTED;
		return 0;
	}
	route->reason = device_reason(route->bdev, prov, &route->dma, &route->distance);
	return 0;
}

/**
 * gpupath_io_route_put() - release what gpupath_io_route() took
 * @route: the answer
 */
void gpupath_io_route_put(struct gpupath_io_route *route)
{
	gpupath_dma_put(&route->dma);
}

/* A request for @io: the buffer found, the target open the right way. */
static int req_new(struct gpupath_file *f, const struct gpupath_io *io,
		   struct gpupath_req **reqp)
{
	fmode_t need = io->op == GPUPATH_IO_READ ? FMODE_READ : FMODE_WRITE;
	struct gpupath_req *req;
	int ret;

	if (io->flags || io->pad || (io->op != GPUPATH_IO_READ && io->op != GPUPATH_IO_WRITE))
		return -EINVAL;
	/* Started and not reaped yet: bounded per file, charged to the caller's memcg. */
	if (atomic_inc_return(&f->reqs) > GPUPATH_INFLIGHT_MAX) {
		atomic_dec(&f->reqs);
		return -EAGAIN;
	}
	req = kzalloc(sizeof(*req), GFP_KERNEL_ACCOUNT);
	if (!req) {
		atomic_dec(&f->reqs);
		return -ENOMEM;
	}
	/* In flight, a request may outlive its file: it keeps the module. */
	__module_get(THIS_MODULE);
	gpupath_file_get(f);
	req->f = f;
	req->tenant = gpupath_tenant_get();
	refcount_set(&req->refs, 1);
	INIT_WORK(&req->free_work, req_free_work);
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
	/* (fget() gives no O_PATH descriptor: EBADF, as read() says.) */
	req->target = fget(io->fd);
	if (!req->target)
		goto err_free;
	ret = target_type(req);
	if (!ret && !(req->target->f_mode & need))
		ret = io->op == GPUPATH_IO_WRITE && req->is_file &&
		      gpupath_fileio_rdonly(req->target) ? -EROFS : -EBADF;
	if (!ret && io->op == GPUPATH_IO_WRITE && !req->is_file)
		ret = may_write(req->target);
	if (ret)
		goto err_free;
	*reqp = req;
	return 0;

err_free:
	req_free(req);
	return ret;
}

/*
 * Whether device memory is out of the DMA engine's reach after all: for a
 * volume, why none of its paths can take it now (it failed over to paths
 * that cannot); for any other device, whether its route is refused.
 */
static enum gpupath_reason route_refused(struct gpupath_req *req)
{
	struct block_device *bdev = req->bdev;
	struct gpupath_volume *vol = gpupath_volume_of_bdev(bdev);
	struct gpupath_dma dma;
	int dist;

	if (vol)
		return gpupath_volume_reason(vol, req->buf->prov);
	if (gpupath_stacked(bdev))
		return gpupath_stack_reason(bdev, req->buf->prov, &dist);
	gpupath_dma_find(bdev, &dma);
	dist = gpupath_dma_distance(&dma, req->buf->prov);
	gpupath_dma_put(&dma);
	return dist < 0 ? GPUPATH_REASON_DMA_MAP_FAILED : GPUPATH_REASON_NONE;
}

/*
 * A direct I/O failed with what a refused DMA mapping reads as: refused (to
 * be bounced) only when the route really is refused (pci_p2pdma_distance(),
 * which the fail_p2p_route knob overrode; a volume's paths), else the
 * device's own error (an LBA out of range, a namespace not ready, a path
 * gone). Process context.
 */
static void classify(struct gpupath_req *req)
{
	enum gpupath_reason reason;

	if (!req->suspect)
		return;
	req->suspect = false;
	reason = route_refused(req);
	if (reason != GPUPATH_REASON_NONE) {
		req->io.reason = reason;
		req->io.mode = GPUPATH_MODE_NONE;
		req->result = -EXDEV;
		count_refused(req);
	} else {
		count_done(req, req->result);
	}
}

/**
 * gpupath_io() - GPUPATH_IOC_IO: one I/O, waited for
 * @f: the file the buffer is registered on
 * @io: the request; mode and reason are filled in
 *
 * A fatal signal ends the wait; the I/O then completes on its own.
 *
 * Return: 0 (@io->len then holds the bytes moved), -EXDEV when device
 * memory cannot be reached directly (see @io->reason), or -EINVAL, -EBADF,
 * -EISDIR, -ENOTBLK, -ENOENT, -EPERM (read-only device, immutable file),
 * -EROFS, -EFBIG, -ETXTBSY (active swap), -ENODEV (the memory was
 * revoked), -EIO and the other errors of the block layer and the file
 * system, -EINTR when killed.
 */
int gpupath_io(struct gpupath_file *f, struct gpupath_io *io)
{
	struct gpupath_req *req;
	int ret;

	io->mode = GPUPATH_MODE_NONE;
	io->reason = GPUPATH_REASON_NONE;
	ret = req_new(f, io, &req);
	if (ret)
		return ret;
	req->sync = true;
	init_completion(&req->done);
	refcount_set(&req->refs, 2);
	ret = start(req);
	if (ret) {
		req->result = ret;
		trace(req);
		io->mode = ret == -EXDEV ? req->io.mode : GPUPATH_MODE_NONE;
		io->reason = req->io.reason;
		req_free(req);
		return ret;
	}
	if (wait_for_completion_killable(&req->done)) {
		req_put(req);
		return -EINTR;
	}
	classify(req);
	ret = req->result;
	io->mode = ret && ret != -EXDEV ? GPUPATH_MODE_NONE : req->io.mode;
	io->reason = req->io.reason;
	if (!ret)
		io->len = req->moved;
	req_put(req);
	return ret;
}

/* A request refused before it started completes at once with its error. */
static void complete_refused(struct gpupath_req *req, int ret)
{
	req->result = ret;
	req_done(req);
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
		/*
		 * No plug around the batch: the target's direct I/O plugs each
		 * I/O's bios on its own, and one plug over several buffers
		 * could merge bios of device memory with bios of host memory.
		 */
		ret = start(req);
		if (ret == -EXDEV) {
			complete_refused(req, ret);
		} else if (ret) {
			/* Bad input in I/O i: nothing of it started. */
			req->result = ret;
			trace(req);
			req_free(req);
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
		classify(req);
		c.user_data = req->io.user_data;
		c.result = req->result;
		c.mode = c.result && c.result != -EXDEV ? GPUPATH_MODE_NONE : req->io.mode;
		c.reason = req->io.reason;
		c.len = c.result ? req->io.len : req->moved;
		if (copy_to_user(&uc[rp.count], &c, sizeof(c))) {
			/* Not lost: first in line for the next reap. */
			spin_lock_irq(&f->lock);
			list_add(&req->node, &f->done);
			spin_unlock_irq(&f->lock);
			ret = -EFAULT;
			break;
		}
		req_free(req);
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
}

/**
 * gpupath_io_release() - the file is closing: drop its completed I/Os
 * @f: the file
 *
 * Does not wait: I/Os still in flight free themselves when they complete.
 */
void gpupath_io_release(struct gpupath_file *f)
{
	struct gpupath_req *req, *tmp;
	struct eventfd_ctx *efd;
	LIST_HEAD(done);

	spin_lock_irq(&f->lock);
	f->closed = true;
	list_splice_init(&f->done, &done);
	efd = f->efd;
	f->efd = NULL;
	spin_unlock_irq(&f->lock);
	list_for_each_entry_safe(req, tmp, &done, node) {
		list_del(&req->node);
		req_free(req);
	}
	if (efd)
		eventfd_ctx_put(efd);
}

/**
 * gpupath_io_wq_init() - the workqueue that frees orphaned requests
 *
 * Return: 0 or -ENOMEM.
 */
int gpupath_io_wq_init(void)
{
	io_wq = alloc_workqueue("gpupath_io", WQ_MEM_RECLAIM | GPUPATH_COMPAT_WQ_PERCPU_FLAG, 0);
	return io_wq ? 0 : -ENOMEM;
}

/**
 * gpupath_io_wq_uninit() - at unload, once no request is left
 */
void gpupath_io_wq_uninit(void)
{
	destroy_workqueue(io_wq);
}
