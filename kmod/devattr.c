// SPDX-License-Identifier: GPL-2.0
/*
 * Reading another driver's sysfs device attributes from the kernel: the
 * NVMe controller's state, transport and address, the P2P pool's free
 * space, an md array's level and members and a multipath head's paths are
 * published only there.
 *
 * They are read as any reader of sysfs reads them, through a file opened
 * in the initial mount namespace: kernfs then holds the attribute active
 * while its ->show runs, so that the device may be deleted meanwhile, and
 * nobody's private view of /sys is believed.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat/compat.h"
#include "devattr.h"

/* /sys/... of an attribute of @dev, or NULL. */
static char *attr_path(struct device *dev, const char *group, const char *name)
{
	char *kpath, *path;

	kpath = kobject_get_path(&dev->kobj, GFP_KERNEL);
	if (!kpath)
		return NULL;
	path = kasprintf(GFP_KERNEL, "/sys%s/%s%s%s", kpath, group ?: "", group ? "/" : "",
			 name);
	kfree(kpath);
	return path;
}

static struct file *open_initns(const char *path, int flags)
{
	struct path root;
	struct file *file;

	gpupath_compat_init_root(&root);
	file = file_open_root(&root, path, flags, 0);
	path_put(&root);
	return file;
}

/*
 * @name (in @group) of @dev in sysfs, opened with @flags: ERR_PTR -ENOENT
 * when there is no such file (or the device is no longer in sysfs), or
 * -ENOMEM.
 */
static struct file *open_attr(struct device *dev, const char *group, const char *name,
			      int flags)
{
	struct file *file;
	char *path;

	if (!dev->kobj.state_in_sysfs)
		return ERR_PTR(-ENOENT);
	path = attr_path(dev, group, name);
	if (!path)
		return ERR_PTR(-ENOMEM);
	file = open_initns(path, flags);
	kfree(path);
	if (IS_ERR(file) && PTR_ERR(file) != -ENOMEM)
		return ERR_PTR(-ENOENT);
	return file;
}

/**
 * gpupath_devattr_read() - read a device attribute as sysfs would
 * @dev: the device, kept alive by the caller (it may be deleted)
 * @group: the attribute group's directory, or NULL
 * @name: the attribute
 * @buf: PAGE_SIZE bytes
 *
 * Return: the length read, -ENOENT if there is no such attribute (or the
 * device is no longer in sysfs), -ENOMEM, or the attribute's own error.
 */
ssize_t gpupath_devattr_read(struct device *dev, const char *group,
			     const char *name, char *buf)
{
	struct file *file;
	loff_t pos = 0;
	ssize_t ret;

	file = open_attr(dev, group, name, O_RDONLY | O_NOFOLLOW);
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = kernel_read(file, buf, PAGE_SIZE - 1, &pos);
	fput(file);
	if (ret >= 0)
		buf[ret] = '\0';
	return ret;
}

struct list_ctx {
	struct dir_context ctx;
	struct gpupath_devattr_name *names;
	int n, max;
	bool overflow;
};

/* Called under the directory's lock: only copies the name. */
static bool list_actor(struct dir_context *ctx, const char *name, int len, loff_t off,
		       u64 ino, unsigned int type)
{
	struct list_ctx *l = container_of(ctx, struct list_ctx, ctx);

	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (l->n == l->max || len >= sizeof(l->names->name)) {
		l->overflow = true;
		return false;
	}
	memcpy(l->names[l->n].name, name, len);
	l->names[l->n].name[len] = '\0';
	l->n++;
	return true;
}

/**
 * gpupath_devattr_list() - the entries of a directory of a device in sysfs
 * @dev: the device, kept alive by the caller (it may be deleted)
 * @dir: the directory, below the device's own (slaves, multipath)
 * @names: where the names go
 * @max: room at @names
 *
 * Listed as ls would list it, through the initial mount namespace's /sys.
 *
 * Return: how many entries, -ENOENT if there is no such directory (or the
 * device is no longer in sysfs), -E2BIG if they do not fit, -ENOMEM.
 */
int gpupath_devattr_list(struct device *dev, const char *dir,
			 struct gpupath_devattr_name *names, int max)
{
	struct list_ctx l = { .ctx.actor = list_actor, .names = names, .max = max };
	struct file *file;
	int ret;

	file = open_attr(dev, NULL, dir, O_RDONLY | O_DIRECTORY);
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = iterate_dir(file, &l.ctx);
	fput(file);
	if (ret)
		return ret;
	return l.overflow ? -E2BIG : l.n;
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
