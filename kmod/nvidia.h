/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_NVIDIA_H
#define _GPUPATH_NVIDIA_H

#include <linux/gpupath.h>

struct gpupath_buf;
struct gpupath_file;

int gpupath_nvidia_reg(struct gpupath_file *f, struct gpupath_cuda_reg *req);
void gpupath_nvidia_release(struct gpupath_buf *buf);
int gpupath_nvidia_start_io(struct gpupath_buf *buf);
void gpupath_nvidia_end_io(struct gpupath_buf *buf);
bool gpupath_nvidia_present(void);

#endif /* _GPUPATH_NVIDIA_H */
