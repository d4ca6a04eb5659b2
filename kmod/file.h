/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_FILE_H
#define _GPUPATH_FILE_H

#include <linux/fs.h>
#include <linux/gpupath.h>

struct bio_vec;
struct block_device;
struct gpupath_buf;

enum gpupath_reason gpupath_fileio_reason(struct file *file, u32 op);
struct block_device *gpupath_fileio_bdev(struct file *file);
bool gpupath_fileio_rdonly(struct file *file);
int gpupath_fileio_check(struct file *file, const struct gpupath_io *io, struct gpupath_buf *buf);
struct bio_vec *gpupath_fileio_bvecs(struct gpupath_buf *buf, u64 off, u64 len,
				     unsigned int *nr);
void gpupath_fileio_done(struct kiocb *iocb, long ret);
ssize_t gpupath_fileio_start(struct kiocb *iocb, struct file *file, u32 op, u64 pos,
			     struct bio_vec *bv, unsigned int nr, size_t len,
			     void (*complete)(struct kiocb *iocb, long ret));

#endif /* _GPUPATH_FILE_H */
