/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_ROUTE_H
#define _GPUPATH_ROUTE_H

#include <linux/blk_types.h>
#include <linux/gpupath.h>

struct gpupath_provider;

enum gpupath_reason gpupath_route(struct block_device *bdev,
				  struct gpupath_provider *prov, bool *fabrics);

#endif /* _GPUPATH_ROUTE_H */
