/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal to libgpupath and libgpupath-cuda.
 */
#ifndef GPUPATH_INTERNAL_H
#define GPUPATH_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "libgpupath.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Moves @n bytes at @off of the caller's memory into or out of @bounce. */
typedef int (*gpupath_copy_fn)(void *bounce, uint64_t off, uint64_t n, bool to_bounce,
			       void *arg);

/* Host I/O through the device's pinned bounce buffer, @copy around each chunk. */
int gpupath_bounce(struct gpupath_dev *dev, uint32_t op, int fd, uint64_t dev_off,
		   uint64_t len, gpupath_copy_fn copy, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* GPUPATH_INTERNAL_H */
