// SPDX-License-Identifier: GPL-2.0
/*
 * GPUPATH_IOC_IO: one read or write between a registered buffer and a block
 * device, with bios built here from the buffer's pages. Device memory goes
 * directly or not at all: when the device's DMA engine cannot reach it the
 * I/O is refused with the reason, and counted.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>

#include "buffer.h"
#include "io.h"
#include "provider.h"
#include "route.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static int submit(struct block_device *bdev, struct gpupath_buf *buf,
		  const struct gpupath_io *io, blk_opf_t opf)
{
	u64 boff = io->buf_offset, doff = io->dev_offset, left = io->len;
	struct bio *bio;
	int ret;

	while (left) {
		unsigned int nr = min_t(u64, DIV_ROUND_UP(offset_in_page(boff) + left, PAGE_SIZE),
					BIO_MAX_VECS);

		bio = bio_alloc(bdev, nr, opf, GFP_KERNEL);
		bio->bi_iter.bi_sector = doff >> SECTOR_SHIFT;
		while (left) {
			unsigned int off = offset_in_page(boff);
			unsigned int n = min_t(u64, left, PAGE_SIZE - off);

			if (bio_add_page(bio, gpupath_buf_page(buf, boff), n, off) != n)
				break;
			boff += n;
			doff += n;
			left -= n;
		}
		ret = submit_bio_wait(bio);
		bio_put(bio);
		if (ret)
			return ret;
	}
	return 0;
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

static void count_refused(struct gpupath_provider *prov, const struct gpupath_io *io)
{
	atomic64_inc(&prov->stats.refused_ios[io->reason]);
	atomic64_add(io->len, &prov->stats.refused_bytes[io->reason]);
}

static int do_io(struct gpupath_buf *buf, struct block_device *bdev, struct gpupath_io *io)
{
	blk_opf_t opf = (io->op == GPUPATH_IO_READ ? REQ_OP_READ : REQ_OP_WRITE) | REQ_SYNC;
	struct gpupath_provider *prov = buf->prov;
	bool fabrics;
	int ret;

	ret = check_range(io, buf, bdev);
	if (ret)
		return ret;
	if (buf->type == GPUPATH_BUF_HOST) {
		io->mode = GPUPATH_MODE_HOST;
		return submit(bdev, buf, io, opf);
	}

	io->reason = gpupath_route(bdev, prov, &fabrics);
	if (io->reason != GPUPATH_REASON_NONE) {
		count_refused(prov, io);
		return -EXDEV;
	}
	/*
	 * P2P bios never merge with host-memory bios, and over a fabric a
	 * mapping the transport refuses fails rather than retrying forever.
	 */
	opf |= REQ_NOMERGE;
	if (fabrics)
		opf |= REQ_FAILFAST_TRANSPORT;
	ret = submit(bdev, buf, io, opf);
	if (ret) {
		atomic64_inc(&prov->stats.errors);
		return ret;
	}
	io->mode = GPUPATH_MODE_DIRECT;
	atomic64_inc(&prov->stats.direct_ios);
	atomic64_add(io->len, &prov->stats.direct_bytes);
	return 0;
}

/**
 * gpupath_io() - GPUPATH_IOC_IO
 * @f: the file the buffer is registered on
 * @io: the request; mode and reason are filled in
 *
 * Return: 0, -EXDEV when device memory cannot be reached directly (see
 * @io->reason), or -EINVAL, -EBADF, -ENOTBLK, -ENOENT, -EIO.
 */
int gpupath_io(struct gpupath_file *f, struct gpupath_io *io)
{
	fmode_t need = io->op == GPUPATH_IO_READ ? FMODE_READ : FMODE_WRITE;
	struct gpupath_buf *buf;
	struct file *file;
	int ret;

	io->mode = GPUPATH_MODE_NONE;
	io->reason = GPUPATH_REASON_NONE;
	if (io->flags || io->pad || (io->op != GPUPATH_IO_READ && io->op != GPUPATH_IO_WRITE))
		return -EINVAL;
	buf = gpupath_buf_get(f, io->handle);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = -EBADF;
	file = fget(io->fd);
	if (!file)
		goto out_put_buf;
	if (!S_ISBLK(file_inode(file)->i_mode))
		ret = -ENOTBLK;
	else if (file->f_mode & need)
		ret = do_io(buf, I_BDEV(file->f_mapping->host), io);
	if (ret != -EBADF && ret != -ENOTBLK)
		trace_gpupath_io(buf->prov ? buf->prov->id : 0, file_inode(file)->i_rdev, io->op,
				 io->dev_offset, io->len, io->mode, io->reason, ret);
	fput(file);
out_put_buf:
	gpupath_buf_put(buf);
	return ret;
}
