/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_STACK_H
#define _GPUPATH_STACK_H

#include <linux/blk_types.h>
#include <linux/gpupath.h>

struct gpupath_provider;

int gpupath_stack_init(void);
void gpupath_stack_exit(void);
bool gpupath_stacked(struct block_device *bdev);
enum gpupath_reason gpupath_stack_reason(struct block_device *bdev,
					 struct gpupath_provider *prov, int *distance);

#endif /* _GPUPATH_STACK_H */
