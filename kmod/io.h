/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_IO_H
#define _GPUPATH_IO_H

#include <linux/gpupath.h>
#include <linux/poll.h>

#include "route.h"

struct gpupath_file;

/**
 * struct gpupath_io_route - how device memory would move to or from a target
 * @reason: %GPUPATH_REASON_NONE when directly, else why not
 * @bdev: the block device the data is on, or NULL (a file system without one)
 * @dma: the DMA engine, when the block device is not a volume (its @fabrics
 *	says whether it is reached over a fabric)
 * @distance: pci_p2pdma_distance() from @dma to the memory, -1 when none
 */
struct gpupath_io_route {
	enum gpupath_reason reason;
	struct block_device *bdev;
	struct gpupath_dma dma;
	int distance;
};

void gpupath_io_init(struct gpupath_file *f);
int gpupath_io_wq_init(void);
void gpupath_io_wq_uninit(void);
void gpupath_io_release(struct gpupath_file *f);
int gpupath_io(struct gpupath_file *f, struct gpupath_io *io);
int gpupath_io_submit(struct gpupath_file *f, void __user *arg);
int gpupath_io_reap(struct gpupath_file *f, void __user *arg);
int gpupath_io_set_eventfd(struct gpupath_file *f, int fd);
__poll_t gpupath_io_poll(struct gpupath_file *f, struct file *file, poll_table *wait);
int gpupath_io_route(struct file *target, struct gpupath_provider *prov, u32 op,
		     struct gpupath_io_route *route);
void gpupath_io_route_put(struct gpupath_io_route *route);

#endif /* _GPUPATH_IO_H */
