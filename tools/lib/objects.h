/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal to libgpupath (and its unit tests): what stands behind its
 * size-tagged and opaque interface. The library decodes into structures of
 * its own size and copies them out at the caller's; a notification and a
 * snapshot of every counter are kept whole, and copied out on request.
 */
#ifndef GPUPATH_OBJECTS_H
#define GPUPATH_OBJECTS_H

#include "libgpupath-admin.h"

/*
 * The library's structure @src, of @lsize bytes, into the caller's @dst of
 * @size bytes: as much of it as fits, and zeros past @lsize.
 */
void gpupath_copy_out(void *dst, size_t size, const void *src, size_t lsize);

/*
 * A notification as decoded: the event the callback is handed (first, so
 * that the gpupath_mon_event_*() functions find the rest), and what it
 * carried.
 */
struct gpupath_model_event {
	struct gpupath_mon_event ev;
	bool has_info;
	struct gpupath_info info;
	bool has_provider;
	struct gpupath_provider provider;
	bool has_volume;
	struct gpupath_volume volume;
	bool has_path;
	struct gpupath_path path;
	bool has_event;
	struct gpupath_volume_event event;
	bool has_portal;
	struct gpupath_portal portal;
	bool has_qos;
	struct gpupath_qos qos;
};

typedef void (*gpupath_model_fn)(const struct gpupath_model_event *ev, void *arg);

/* gpupath_mon_dispatch(), handing @fn each notification as decoded. */
int gpupath_mon_dispatch_model(struct gpupath_mon *mon, gpupath_model_fn fn, void *arg);

/* An array made at a caller's size, freed with the snapshot. */
struct gpupath_stats_copy {
	struct gpupath_stats_copy *next;
	void *items;
};

/* Every counter at one moment, at the library's sizes. */
struct gpupath_stats {
	struct gpupath_provider *prov;
	size_t nprov;
	struct gpupath_volume *vol;
	size_t nvol;
	struct gpupath_portal *portal;
	size_t nportal;
	struct gpupath_qos *qos;
	size_t nqos;
	struct gpupath_cgroup_stats *cgroup;
	size_t ncgroup;
	struct gpupath_stats_copy *copies;
};

#endif /* GPUPATH_OBJECTS_H */
