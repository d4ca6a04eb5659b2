// SPDX-License-Identifier: GPL-2.0
/*
 * Volumes and paths (fabric-internal.h): each namespace of a wanted
 * connection's controller becomes a path of the volume of its wwid (made
 * when there is none), on the connection's rail, with its link as the
 * rail's interface's carrier. A path whose block device went away is
 * removed; a reconnect brings a new one.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "fabric-internal.h"
#include "internal.h"
#include "libnvme-fix.h"
#include "log.h"
#include "private.h"

static int namespace_entry(const struct dirent *e)
{
	return libnvme_is_namespace(e->d_name);
}

/*
 * The block devices of controller @ctrl's namespaces, from sysfs alone:
 * *@list, their number, or -1 (errno). Free with free_dirents().
 */
static int ctrl_namespaces(const char *ctrl, struct dirent ***list)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "/sys/class/nvme/%s", ctrl);
	return scandir(dir, list, namespace_entry, alphasort);
}

static void free_dirents(struct dirent **list, int n)
{
	while (n-- > 0)
		free(list[n]);
	free(list);
}

/* The namespace's wwid from sysfs, "" when it has none. */
static void wwid_of(const char *disk, char *buf, size_t size)
{
	char dir[128];

	snprintf(dir, sizeof(dir), "/sys/block/%s", disk);
	if (gpupath_sysfs_read(dir, "wwid", buf, size) < 0)
		buf[0] = 0;
}

static struct gpupath_volume *volume_by_wwid(struct gpupath_volume *v, size_t n,
					     const char *wwid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].wwid, wwid))
			return &v[i];
	return NULL;
}

static bool is_path(struct gpupath_volume *v, size_t n, const char *disk)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < v[i].npaths; j++)
			if (!strcmp(v[i].path[j].device, disk))
				return true;
	return false;
}

/* A namespace of a wanted controller: into a volume, as a path. */
static void assemble_ns(const struct fabric *f, struct gpupath_ctl *ctl,
			struct gpupath_volume **vols, size_t *nvols, const char *disk,
			const struct conn *c)
{
	struct gpupath_path_conf pconf = { .set = GPUPATH_PATH_SET_RAIL, .rail = c->rep.rail };
	struct gpupath_volume_conf vconf = { 0 };
	struct gpupath_volume *vol, *tmp;
	struct gpupath_path path;
	char wwid[256], dev[64];
	int r;

	if (is_path(*vols, *nvols, disk))
		return;
	if (c->iface[0]) {
		pconf.set |= GPUPATH_PATH_SET_LINK;
		pconf.link = iface_running(f, c->iface) ? GPUPATH_LINK_UP : GPUPATH_LINK_DOWN;
	}
	wwid_of(disk, wwid, sizeof(wwid));
	if (!wwid[0])
		return;
	vol = volume_by_wwid(*vols, *nvols, wwid);
	if (!vol) {
		tmp = realloc(*vols, (*nvols + 1) * sizeof(**vols));
		if (!tmp)
			return;
		*vols = tmp;
		vconf.wwid = wwid;
		r = gpupath_ctl_volume_add(ctl, &vconf, &(*vols)[*nvols], sizeof(**vols));
		if (r < 0) {
			log_errno_why(r, gpupath_ctl_errmsg(ctl), "volume for %s (%s)", disk, wwid);
			return;
		}
		vol = &(*vols)[(*nvols)++];
		log_info("volume %s for %s", vol->name, wwid);
	}
	snprintf(dev, sizeof(dev), "/dev/%s", disk);
	r = gpupath_ctl_path_add(ctl, vol->id, dev, &pconf, &path, sizeof(path));
	if (r < 0) {
		log_errno_why(r, gpupath_ctl_errmsg(ctl), "path %s of %s", disk, vol->name);
		return;
	}
	log_info("path %u: %s into %s (rail %u)", path.id, disk, vol->name, c->rep.rail);
	if (vol->npaths < GPUPATH_VOLUME_PATHS_MAX)
		vol->path[vol->npaths++] = path;
}

/*
 * Whether a path's block device is still the one it was added as: the disk
 * exists, under the same controller. The module cannot always tell (no I/O,
 * no error): a deleted controller's disk just vanishes.
 */
static bool path_present(const struct gpupath_path *p)
{
	char link[128], target[256];
	const char *ctrl;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/block/%s/device", p->device);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = 0;
	ctrl = strrchr(target, '/');
	return !p->controller[0] || !strcmp(ctrl ? ctrl + 1 : target, p->controller);
}

/* Paths whose device was deleted: removed (a reconnect brings a new one). */
static void remove_gone(struct gpupath_ctl *ctl, struct gpupath_volume *vols, size_t n)
{
	struct gpupath_path *p;
	size_t i, j;
	int r;

	for (i = 0; i < n; i++) {
		for (j = 0; j < vols[i].npaths; j++) {
			p = &vols[i].path[j];
			if (p->health != GPUPATH_HEALTH_GONE && path_present(p))
				continue;
			r = gpupath_ctl_path_del(ctl, p->id);
			if (r < 0) {
				log_errno(r, "removing gone path %u (%s)", p->id, p->device);
				continue;
			}
			log_info("path %u: %s (%s) is gone, removed from %s", p->id, p->device,
				 p->controller, vols[i].name);
			p->device[0] = 0;	/* the name may be a new disk's */
		}
	}
}

/* The connection whose controller is @ctrl, if gpupathd wants it. */
static struct conn *conn_of_ctrl(struct fabric *f, const char *ctrl)
{
	size_t i;

	for (i = 0; i < f->nconns; i++)
		if (f->conns[i].seen && ctrl[0] && !strcmp(f->conns[i].rep.controller, ctrl))
			return &f->conns[i];
	return NULL;
}

/* Set @p's link, when it differs; logs it. */
static void set_link(struct gpupath_ctl *ctl, const struct gpupath_path *p, const char *iface,
		     uint32_t link)
{
	struct gpupath_path_conf conf = { .set = GPUPATH_PATH_SET_LINK, .link = link };
	int r;

	if (p->link == link)
		return;
	r = gpupath_ctl_path_set(ctl, p->id, &conf);
	if (r < 0)
		log_errno(r, "path %u (%s): setting link %s", p->id, p->device,
			  gpupath_path_link_name(link));
	else	/* with the monotonic time: how fast it was can be measured */
		log_info("path %u (%s): link %s (%s) at %.3f s", p->id, p->device,
			 gpupath_path_link_name(link), iface, now_ms() / 1e3);
}

/* Every path of a wanted connection: its link as its interface is now. */
static void sync_links(struct fabric *f, struct gpupath_ctl *ctl, struct gpupath_volume *vols,
		       size_t n)
{
	const struct gpupath_path *p;
	struct conn *c;
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < vols[i].npaths; j++) {
			p = &vols[i].path[j];
			c = conn_of_ctrl(f, p->controller);
			if (!p->device[0] || !c || !c->iface[0])
				continue;
			set_link(ctl, p, c->iface, iface_running(f, c->iface) ? GPUPATH_LINK_UP :
					 GPUPATH_LINK_DOWN);
		}
	}
}

void paths_link(struct fabric *f, struct gpupath_ctl *ctl, const char *ifname, bool up)
{
	struct gpupath_volume *vols;
	const struct gpupath_path *p;
	struct conn *c;
	size_t n, i, j;
	int r;

	r = gpupath_ctl_volume_list(ctl, &vols, sizeof(*vols), &n);
	if (r < 0) {
		log_errno(r, "reading volumes");
		return;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < vols[i].npaths; j++) {
			p = &vols[i].path[j];
			c = conn_of_ctrl(f, p->controller);
			if (c && !strcmp(c->iface, ifname))
				set_link(ctl, p, ifname, up ? GPUPATH_LINK_UP : GPUPATH_LINK_DOWN);
		}
	}
	free(vols);
}

void assemble(struct fabric *f, struct gpupath_ctl *ctl, nvme_root_t r)
{
	struct gpupath_volume *vols;
	nvme_subsystem_t s;
	nvme_host_t h;
	nvme_ctrl_t c;
	struct dirent **ns;
	size_t nvols, i;
	int ret, k, nns;
	char disk[32];

	ret = gpupath_ctl_volume_list(ctl, &vols, sizeof(*vols), &nvols);
	if (ret < 0) {
		log_errno(ret, "reading volumes");
		return;
	}
	remove_gone(ctl, vols, nvols);
	sync_links(f, ctl, vols, nvols);
	nvme_for_each_host(r, h) {
		nvme_for_each_subsystem(h, s) {
			nvme_subsystem_for_each_ctrl(s, c) {
				for (i = 0; i < f->nconns; i++) {
					if (!f->conns[i].seen || !nvme_ctrl_get_name(c) ||
					    !same(f->conns[i].rep.controller,
						  nvme_ctrl_get_name(c)))
						continue;
					nns = ctrl_namespaces(nvme_ctrl_get_name(c), &ns);
					for (k = 0; k < nns; k++) {
						/* (names as "nvme123c45n678") */
						snprintf(disk, sizeof(disk), "%.31s",
							 ns[k]->d_name);
						assemble_ns(f, ctl, &vols, &nvols, disk,
							    &f->conns[i]);
					}
					if (nns > 0)
						free_dirents(ns, nns);
				}
			}
		}
	}
	free(vols);
}
