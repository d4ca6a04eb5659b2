/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_ROUTE_H
#define _GPUPATH_ROUTE_H

#include <linux/blk_types.h>
#include <linux/gpupath.h>

struct device;
struct gpupath_provider;

/**
 * struct gpupath_dma - the DMA engine behind a block device
 * @dev: the PCI function that DMAs (a reference), or NULL
 * @reason: why no device memory can go direct, or NONE (then @dev is set)
 * @fabrics: the device is reached over a fabric
 */
struct gpupath_dma {
	struct device *dev;
	enum gpupath_reason reason;
	bool fabrics;
};

void gpupath_dma_find(struct block_device *bdev, struct gpupath_dma *dma);
void gpupath_dma_find_ctrl(struct device *dev, const char *group, struct gpupath_dma *dma);
void gpupath_route_exit(void);
void gpupath_dma_put(struct gpupath_dma *dma);
int gpupath_dma_distance(const struct gpupath_dma *dma, struct gpupath_provider *prov);
enum gpupath_reason gpupath_dma_reason(const struct gpupath_dma *dma,
				       struct gpupath_provider *prov);

#endif /* _GPUPATH_ROUTE_H */
