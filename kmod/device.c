// SPDX-License-Identifier: GPL-2.0
/*
 * The control device /dev/gpupath: the data-path ioctls live here.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "device.h"
#include "feature.h"
#include "version.h"

static long ioctl_version(void __user *arg)
{
	struct gpupath_version v = {
		.major = GPUPATH_VERSION_MAJOR,
		.minor = GPUPATH_VERSION_MINOR,
		.patch = GPUPATH_VERSION_PATCH,
		.genl_version = GPUPATH_GENL_VERSION,
		.ioctl_version = GPUPATH_IOCTL_VERSION,
		.p2pdma_status = gpupath_feature_p2pdma_status(),
		.features = gpupath_feature_mask(),
	};

	if (copy_to_user(arg, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

static long gpupath_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case GPUPATH_IOC_VERSION:
		return ioctl_version(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations gpupath_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = gpupath_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice gpupath_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = GPUPATH_DEVICE_NAME,
	.fops = &gpupath_fops,
	.mode = 0666,
};

/**
 * gpupath_device_init() - create /dev/gpupath
 *
 * Return: 0 or a negative errno from misc_register().
 */
int gpupath_device_init(void)
{
	BUILD_BUG_ON(sizeof(struct gpupath_version) != 32);
	return misc_register(&gpupath_misc);
}

/**
 * gpupath_device_uninit() - remove /dev/gpupath
 */
void gpupath_device_uninit(void)
{
	misc_deregister(&gpupath_misc);
}
