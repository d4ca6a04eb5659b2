/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_DEVATTR_H
#define _GPUPATH_DEVATTR_H

#include <linux/device.h>

ssize_t gpupath_devattr_read(struct device *dev, const char *group,
			     const char *name, char *buf);
int gpupath_devattr_get(struct device *dev, const char *group, const char *name,
			char *out, size_t len);

#endif /* _GPUPATH_DEVATTR_H */
