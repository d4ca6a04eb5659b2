// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The data device /dev/gpupath.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libgpupath.h"

struct gpupath_dev {
	int fd;
};

int gpupath_dev_open(struct gpupath_dev **devp)
{
	struct gpupath_dev *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->fd = open(GPUPATH_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		int r = -errno;

		free(dev);
		return r;
	}
	*devp = dev;
	return 0;
}

void gpupath_dev_close(struct gpupath_dev *dev)
{
	if (!dev)
		return;
	close(dev->fd);
	free(dev);
}

int gpupath_dev_fd(const struct gpupath_dev *dev)
{
	return dev->fd;
}

int gpupath_dev_version(struct gpupath_dev *dev, struct gpupath_version *ver)
{
	if (ioctl(dev->fd, GPUPATH_IOC_VERSION, ver) < 0)
		return -errno;
	return 0;
}
