// SPDX-License-Identifier: GPL-2.0
/*
 * I/O between registered buffers and regular files, done by the file
 * system's own direct I/O: a kiocb with IOCB_DIRECT over a bvec iterator of
 * the buffer's pages, as loop and nvmet's file backend drive it. The file
 * system maps the extents, reads holes as zeros, serialises against
 * truncate and keeps the page cache coherent; gpupath never looks at an
 * extent. Its bios go to its block device, whose route is decided as for
 * a block device opened directly.
 *
 * Only ext4 and XFS are taken: their direct I/O hands the iterator's pages
 * to bios as they are. Where either would touch the data with the CPU
 * instead (DAX, encryption, verity, inline data, data journalling, a
 * buffered fallback it is known to take), the I/O is refused up front.
 */
#include <linux/bvec.h>
#include <linux/fileattr.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <linux/slab.h>
#include <linux/stat.h>
#include <linux/uio.h>

#include "buffer.h"
#include "file.h"

/* ext4 (serving ext4 mounts only: ext2 and ext3 mounts are other types) and XFS. */
static bool fs_allowed(struct super_block *sb)
{
	const char *type = sb->s_type->name;

	if (!sb->s_bdev)
		return false;
	if (sb->s_magic == EXT4_SUPER_MAGIC)
		return !strcmp(type, "ext4");
	return sb->s_magic == XFS_SUPER_MAGIC && !strcmp(type, "xfs");
}

/* What ext4 tells through its file attributes and its direct-I/O alignment. */
static enum gpupath_reason ext4_reason(struct file *file, u32 op, const struct file_kattr *fa)
{
	struct kstat st = {};

	if (fa->flags & FS_INLINE_DATA_FL)
		return GPUPATH_REASON_FILE_INLINE_DATA;
	if (op == GPUPATH_IO_WRITE && !(fa->flags & FS_EXTENT_FL))
		return GPUPATH_REASON_FILE_BLOCK_MAPPED;
	/*
	 * ext4 reports no direct-I/O alignment exactly when it would serve
	 * the file through the page cache; with verity, encryption and inline
	 * data ruled out above, that is journalled data.
	 */
	if (vfs_getattr_nosec(&file->f_path, &st, STATX_DIOALIGN, AT_STATX_SYNC_AS_STAT) ||
	    !(st.result_mask & STATX_DIOALIGN) || !st.dio_offset_align)
		return GPUPATH_REASON_FILE_DATA_JOURNAL;
	return GPUPATH_REASON_NONE;
}

/**
 * gpupath_fileio_reason() - whether the file system would move a file's data
 *	by DMA to and from its device
 * @file: a regular file
 * @op: GPUPATH_IO_READ or GPUPATH_IO_WRITE
 *
 * These are checks made before the I/O: chattr +j or fs-verity enabled on
 * the file, or a writable mapping of it made, while it runs are seen by the
 * next one. Sleeps.
 *
 * Return: %GPUPATH_REASON_NONE, or why not.
 */
enum gpupath_reason gpupath_fileio_reason(struct file *file, u32 op)
{
	struct inode *inode = file_inode(file);
	struct file_kattr fa = {};

	if (!fs_allowed(inode->i_sb) || !(file->f_mode & FMODE_CAN_ODIRECT))
		return GPUPATH_REASON_FS_UNSUPPORTED;
	if (IS_DAX(inode))
		return GPUPATH_REASON_FILE_DAX;
	if (IS_ENCRYPTED(inode))
		return GPUPATH_REASON_FILE_ENCRYPTED;
	if (IS_VERITY(inode))
		return GPUPATH_REASON_FILE_VERITY;
	/* XFS and ext4 finish a write through the page cache when they cannot drop it. */
	if (op == GPUPATH_IO_WRITE && mapping_writably_mapped(file->f_mapping))
		return GPUPATH_REASON_FILE_MAPPED;
	if (vfs_fileattr_get(file->f_path.dentry, &fa))
		return GPUPATH_REASON_FS_UNSUPPORTED;
	if (inode->i_sb->s_magic == EXT4_SUPER_MAGIC)
		return ext4_reason(file, op, &fa);
	if (fa.fsx_xflags & FS_XFLAG_REALTIME)
		return GPUPATH_REASON_FILE_REALTIME;
	return GPUPATH_REASON_NONE;
}

/**
 * gpupath_fileio_bdev() - the block device a file's data lives on
 * @file: a regular file
 *
 * Return: the file system's device, or NULL when it has none.
 */
struct block_device *gpupath_fileio_bdev(struct file *file)
{
	return file_inode(file)->i_sb->s_bdev;
}

/**
 * gpupath_fileio_rdonly() - whether a file's mount or file system is read-only
 * @file: a regular file
 *
 * Return: true when no write can reach it.
 */
bool gpupath_fileio_rdonly(struct file *file)
{
	return sb_rdonly(file_inode(file)->i_sb) || (file->f_path.mnt->mnt_flags & MNT_READONLY);
}

/**
 * gpupath_fileio_check() - a file I/O's bad input, before anything is done
 * @file: a regular file, open for @io's direction
 * @io: the request
 * @buf: its buffer
 *
 * Reads go in logical blocks of the device, writes in blocks of the file
 * system, so that neither ext4 nor XFS zeroes partial blocks or takes the
 * copy-on-write path for unaligned writes.
 *
 * Return: 0, -EINVAL (alignment, range, an O_APPEND file written), -EROFS,
 * -EPERM (immutable or append-only), -ETXTBSY (a swap file) or -EFBIG.
 */
int gpupath_fileio_check(struct file *file, const struct gpupath_io *io, struct gpupath_buf *buf)
{
	struct inode *inode = file_inode(file);
	struct block_device *bdev = gpupath_fileio_bdev(file);
	unsigned int align = bdev ? bdev_logical_block_size(bdev) : SECTOR_SIZE;
	u64 bend, fend;

	if (io->op == GPUPATH_IO_WRITE) {
		if (gpupath_fileio_rdonly(file))
			return -EROFS;
		if (IS_IMMUTABLE(inode) || IS_APPEND(inode))
			return -EPERM;
		if (IS_SWAPFILE(inode))
			return -ETXTBSY;
		/* pwrite() on an O_APPEND file appends; so would this. */
		if (file->f_flags & O_APPEND)
			return -EINVAL;
		align = max(align, i_blocksize(inode));
	}
	if (!io->len || io->len > MAX_RW_COUNT ||
	    !IS_ALIGNED(io->len | io->buf_offset | io->dev_offset, align))
		return -EINVAL;
	if (check_add_overflow(io->buf_offset, io->len, &bend) || bend > buf->size)
		return -EINVAL;
	if (check_add_overflow(io->dev_offset, io->len, &fend) || fend > LLONG_MAX)
		return -EINVAL;
	if (io->op == GPUPATH_IO_WRITE && fend > inode->i_sb->s_maxbytes)
		return -EFBIG;
	return 0;
}

/**
 * gpupath_fileio_bvecs() - a bvec table over part of a buffer
 * @buf: the buffer
 * @off: where in it
 * @len: bytes, > 0
 * @nr: out, the entries
 *
 * Physically contiguous pages share an entry, so that the file system's
 * bios carry few, large segments; the table is built a contiguous run at a
 * time (gpupath_buf_contig()), not a page at a time.
 *
 * Return: the table (kvfree() it), or NULL without memory.
 */
struct bio_vec *gpupath_fileio_bvecs(struct gpupath_buf *buf, u64 off, u64 len,
				     unsigned int *nr)
{
	unsigned int max = DIV_ROUND_UP(offset_in_page(off) + len, PAGE_SIZE), n = 0;
	struct bio_vec *bv;

	bv = kvmalloc_array(max, sizeof(*bv), GFP_KERNEL_ACCOUNT);
	if (!bv)
		return NULL;
	while (len) {
		struct page *page;
		/* An entry's length is an unsigned int: whole pages to a run. */
		unsigned int chunk = min_t(u64, gpupath_buf_contig(buf, off, len, &page),
					   UINT_MAX & PAGE_MASK);

		bv[n].bv_page = page;
		bv[n].bv_offset = offset_in_page(off);
		bv[n].bv_len = chunk;
		n++;
		off += chunk;
		len -= chunk;
	}
	*nr = n;
	return bv;
}

/**
 * gpupath_fileio_done() - what a file I/O's completion must do first
 * @iocb: its kiocb
 * @ret: bytes, or a negative errno
 *
 * Any context (the file system may complete in bio end_io).
 */
void gpupath_fileio_done(struct kiocb *iocb, long ret)
{
	if (iocb->ki_flags & IOCB_WRITE) {
		if (ret > 0)
			fsnotify_modify(iocb->ki_filp);
		gpupath_compat_kiocb_end_write(iocb);
	}
}

/**
 * gpupath_fileio_start() - start a direct read or write of a file
 * @iocb: a kiocb, to outlive the I/O
 * @file: the file
 * @op: GPUPATH_IO_READ or GPUPATH_IO_WRITE
 * @pos: offset in the file
 * @bv: the buffer's pages, to outlive the I/O
 * @nr: entries of @bv
 * @len: bytes
 * @complete: called once with the result, unless this returns something
 *	else than -EIOCBQUEUED, which then is the result; it must call
 *	gpupath_fileio_done() first
 *
 * Return: -EIOCBQUEUED, or the result: bytes or a negative errno.
 */
ssize_t gpupath_fileio_start(struct kiocb *iocb, struct file *file, u32 op, u64 pos,
			     struct bio_vec *bv, unsigned int nr, size_t len,
			     void (*complete)(struct kiocb *iocb, long ret))
{
	struct iov_iter iter;
	ssize_t ret;

	init_sync_kiocb(iocb, file);
	iocb->ki_pos = pos;
	/* Positioned, and never O_NONBLOCK's -EAGAIN. */
	iocb->ki_flags = (iocb->ki_flags & ~(IOCB_APPEND | IOCB_NOWAIT)) | IOCB_DIRECT;
	iocb->ki_complete = complete;
	if (op == GPUPATH_IO_READ) {
		iov_iter_bvec(&iter, ITER_DEST, bv, nr, len);
		return vfs_iocb_iter_read(file, iocb, &iter);
	}
	iov_iter_bvec(&iter, ITER_SOURCE, bv, nr, len);
	ret = rw_verify_area(WRITE, file, &iocb->ki_pos, len);
	if (ret < 0)
		return ret;
	iocb->ki_flags |= IOCB_WRITE;
	/* Write access to the file system held across the async write, as aio does. */
	gpupath_compat_kiocb_start_write(iocb);
	ret = file->f_op->write_iter(iocb, &iter);
	if (ret != -EIOCBQUEUED)
		gpupath_fileio_done(iocb, ret);
	return ret;
}
