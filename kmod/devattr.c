// SPDX-License-Identifier: GPL-2.0
/*
 * Reading another driver's sysfs device attributes from the kernel: the
 * NVMe controller's transport and the P2P pool's free space are published
 * only there.
 */
#include <linux/gfp.h>
#include <linux/kernfs.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "devattr.h"

/**
 * gpupath_devattr_read() - read a device attribute as sysfs would
 * @dev: the device, kept alive by the caller
 * @group: the attribute group's directory, or NULL
 * @name: the attribute
 * @buf: PAGE_SIZE bytes
 *
 * Return: the length read, -ENOENT if there is no such attribute, or the
 * attribute's own error.
 */
ssize_t gpupath_devattr_read(struct device *dev, const char *group,
			     const char *name, char *buf)
{
	struct kernfs_node *dir, *kn;
	struct device_attribute *dattr;
	ssize_t ret = -ENOENT;

	dir = group ? kernfs_find_and_get(dev->kobj.sd, group) : dev->kobj.sd;
	if (!dir)
		return -ENOENT;
	kn = kernfs_find_and_get(dir, name);
	if (!kn)
		goto out_dir;
	if (kernfs_type(kn) != KERNFS_FILE || !kn->priv)
		goto out_kn;
	dattr = container_of((struct attribute *)kn->priv, struct device_attribute, attr);
	if (dattr->show)
		ret = dattr->show(dev, dattr, buf);
out_kn:
	kernfs_put(kn);
out_dir:
	if (group)
		kernfs_put(dir);
	return ret;
}

/**
 * gpupath_devattr_get() - a device attribute's value, trimmed, into @out
 * @dev: the device, kept alive by the caller
 * @group: the attribute group's directory, or NULL
 * @name: the attribute
 * @out: where the value goes
 * @len: room at @out
 *
 * Return: 0, -E2BIG when the value does not fit, -ENOMEM, -ENOENT when
 * there is no such attribute or it is empty, or the attribute's own error.
 */
int gpupath_devattr_get(struct device *dev, const char *group, const char *name,
			char *out, size_t len)
{
	char *buf = (char *)__get_free_page(GFP_KERNEL);
	ssize_t ret;

	if (!buf)
		return -ENOMEM;
	ret = gpupath_devattr_read(dev, group, name, buf);
	if (ret > 0)
		ret = strscpy(out, strim(buf), len) < 0 ? -E2BIG : 0;
	else if (!ret)
		ret = -ENOENT;
	free_page((unsigned long)buf);
	return ret;
}
