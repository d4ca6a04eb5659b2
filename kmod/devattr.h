/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_DEVATTR_H
#define _GPUPATH_DEVATTR_H

#include <linux/device.h>

ssize_t gpupath_devattr_read(struct device *dev, const char *group,
			     const char *name, char *buf);

#endif /* _GPUPATH_DEVATTR_H */
