/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_STACK_H
#define _GPUPATH_STACK_H

#include <linux/blk_types.h>
#include <linux/gpupath.h>

struct gpupath_provider;
struct net;

int gpupath_stack_init(void);
void gpupath_stack_exit(void);
bool gpupath_stacked(struct block_device *bdev);
enum gpupath_reason gpupath_stack_reason(struct block_device *bdev,
					 struct gpupath_provider *prov, int *distance);
int gpupath_stack_dm_diskseq(dev_t devt, u64 *diskseq);
void gpupath_stack_tell(u64 diskseq, enum gpupath_stack_kind kind, struct net *net, u32 portid);

#endif /* _GPUPATH_STACK_H */
