/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_NVIDIA_H
#define _GPUPATH_NVIDIA_H

#include <linux/gpupath.h>

struct gpupath_file;

int gpupath_nvidia_reg(struct gpupath_file *f, struct gpupath_cuda_reg *req);
bool gpupath_nvidia_present(void);

#endif /* _GPUPATH_NVIDIA_H */
