/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_IO_H
#define _GPUPATH_IO_H

#include <linux/gpupath.h>

struct gpupath_file;

int gpupath_io(struct gpupath_file *f, struct gpupath_io *io);

#endif /* _GPUPATH_IO_H */
