/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_IO_H
#define _GPUPATH_IO_H

#include <linux/gpupath.h>
#include <linux/poll.h>

struct bio;
struct gpupath_file;

void gpupath_io_init(struct gpupath_file *f);
int gpupath_io_wq_init(void);
void gpupath_io_wq_uninit(void);
void gpupath_io_release(struct gpupath_file *f);
int gpupath_io(struct gpupath_file *f, struct gpupath_io *io);
int gpupath_io_submit(struct gpupath_file *f, void __user *arg);
int gpupath_io_reap(struct gpupath_file *f, void __user *arg);
int gpupath_io_set_eventfd(struct gpupath_file *f, int fd);
void gpupath_io_refused(struct bio *bio, enum gpupath_reason reason);
__poll_t gpupath_io_poll(struct gpupath_file *f, struct file *file, poll_table *wait);

#endif /* _GPUPATH_IO_H */
