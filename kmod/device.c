// SPDX-License-Identifier: GPL-2.0
/*
 * The control device /dev/gpupath: the data-path ioctls live here.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "buffer.h"
#include "device.h"
#include "feature.h"
#include "io.h"
#include "nvidia.h"
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

/*
 * The ioctls that take a structure in and give it back: copy in, run, copy
 * out (also on failure, so that EXDEV comes with its reason). A buffer
 * made for a caller that cannot be told its handle goes again.
 */
#define IOCTL_INOUT(type, fn, made)					\
static long ioctl_##fn(struct gpupath_file *f, void __user *arg)	\
{									\
	type req;							\
	long ret;							\
									\
	if (copy_from_user(&req, arg, sizeof(req)))			\
		return -EFAULT;						\
	ret = fn(f, &req);						\
	if (copy_to_user(arg, &req, sizeof(req))) {			\
		if ((made) && !ret)					\
			gpupath_buf_free(f, req.handle);		\
		return -EFAULT;						\
	}								\
	return ret;							\
}

IOCTL_INOUT(struct gpupath_alloc, gpupath_buf_alloc, true)
IOCTL_INOUT(struct gpupath_host_reg, gpupath_buf_reg_host, true)
IOCTL_INOUT(struct gpupath_io, gpupath_io, false)
IOCTL_INOUT(struct gpupath_cuda_reg, gpupath_nvidia_reg, true)

static long ioctl_free(struct gpupath_file *f, void __user *arg)
{
	u64 handle;

	if (copy_from_user(&handle, arg, sizeof(handle)))
		return -EFAULT;
	return gpupath_buf_free(f, handle);
}

static long ioctl_set_eventfd(struct gpupath_file *f, void __user *arg)
{
	s32 fd;

	if (copy_from_user(&fd, arg, sizeof(fd)))
		return -EFAULT;
	return gpupath_io_set_eventfd(f, fd);
}

static long gpupath_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct gpupath_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case GPUPATH_IOC_VERSION:
		return ioctl_version(uarg);
	case GPUPATH_IOC_ALLOC:
		return ioctl_gpupath_buf_alloc(f, uarg);
	case GPUPATH_IOC_REG_HOST:
		return ioctl_gpupath_buf_reg_host(f, uarg);
	case GPUPATH_IOC_FREE:
		return ioctl_free(f, uarg);
	case GPUPATH_IOC_IO:
		return ioctl_gpupath_io(f, uarg);
	case GPUPATH_IOC_SUBMIT:
		return gpupath_io_submit(f, uarg);
	case GPUPATH_IOC_REAP:
		return gpupath_io_reap(f, uarg);
	case GPUPATH_IOC_SET_EVENTFD:
		return ioctl_set_eventfd(f, uarg);
	case GPUPATH_IOC_REG_CUDA:
		return ioctl_gpupath_nvidia_reg(f, uarg);
	default:
		return -ENOTTY;
	}
}

static int gpupath_open(struct inode *inode, struct file *file)
{
	struct gpupath_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	gpupath_file_init(f, file);
	gpupath_io_init(f);
	file->private_data = f;
	return nonseekable_open(inode, file);
}

static int gpupath_release(struct inode *inode, struct file *file)
{
	struct gpupath_file *f = file->private_data;

	gpupath_io_release(f);
	gpupath_file_release(f);
	gpupath_file_put(f);
	return 0;
}

static __poll_t gpupath_poll(struct file *file, poll_table *wait)
{
	return gpupath_io_poll(file->private_data, file, wait);
}

static int gpupath_mmap(struct file *file, struct vm_area_struct *vma)
{
	return gpupath_buf_mmap(file->private_data, vma);
}

static const struct file_operations gpupath_fops = {
	.owner = THIS_MODULE,
	.open = gpupath_open,
	.release = gpupath_release,
	.mmap = gpupath_mmap,
	.poll = gpupath_poll,
	.unlocked_ioctl = gpupath_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
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
 * Return: 0 or a negative errno.
 */
int gpupath_device_init(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct gpupath_version) != 32);
	BUILD_BUG_ON(sizeof(struct gpupath_alloc) != 48);
	BUILD_BUG_ON(sizeof(struct gpupath_host_reg) != 32);
	BUILD_BUG_ON(sizeof(struct gpupath_io) != 64);
	BUILD_BUG_ON(sizeof(struct gpupath_submit) != 16);
	BUILD_BUG_ON(sizeof(struct gpupath_completion) != 32);
	BUILD_BUG_ON(sizeof(struct gpupath_reap) != 16);
	BUILD_BUG_ON(sizeof(struct gpupath_cuda_reg) != 32);
	ret = gpupath_io_wq_init();
	if (ret)
		return ret;
	ret = misc_register(&gpupath_misc);
	if (ret)
		gpupath_io_wq_uninit();
	return ret;
}

/**
 * gpupath_device_uninit() - remove /dev/gpupath
 */
void gpupath_device_uninit(void)
{
	misc_deregister(&gpupath_misc);
	gpupath_io_wq_uninit();
}
