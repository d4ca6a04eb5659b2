/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_DEVATTR_H
#define _GPUPATH_DEVATTR_H

#include <linux/device.h>

ssize_t gpupath_devattr_read(struct device *dev, const char *group,
			     const char *name, char *buf);
/* A name in a sysfs directory listed: a block device's, or more. */
struct gpupath_devattr_name {
	char name[32];
};

int gpupath_devattr_list(struct device *dev, const char *dir,
			 struct gpupath_devattr_name *names, int max);
int gpupath_devattr_get(struct device *dev, const char *group, const char *name,
			char *out, size_t len);

#endif /* _GPUPATH_DEVATTR_H */
