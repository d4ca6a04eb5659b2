/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_FEATURE_H
#define _GPUPATH_FEATURE_H

#include <linux/types.h>
#include <linux/gpupath.h>

u64 gpupath_feature_mask(void);
enum gpupath_p2pdma_status gpupath_feature_p2pdma_status(void);
const char *gpupath_feature_p2pdma_str(enum gpupath_p2pdma_status status);

#endif /* _GPUPATH_FEATURE_H */
