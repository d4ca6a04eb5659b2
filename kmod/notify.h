/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the objects tell the world: a provider, volume or path was added,
 * changed or removed (the "config" multicast group, with the attributes of
 * the object's GET reply), or something happened to a volume or a path (the
 * "events" group). netlink.c implements it; the objects call it and know
 * nothing of netlink. Each may sleep.
 */
#ifndef _GPUPATH_NOTIFY_H
#define _GPUPATH_NOTIFY_H

#include <linux/types.h>

struct gpupath_path;
struct gpupath_provider;
struct gpupath_volume;

void gpupath_notify_provider(struct gpupath_provider *prov, u8 cmd);
void gpupath_notify_volume(struct gpupath_volume *vol, u8 cmd);
void gpupath_notify_path(struct gpupath_volume *vol, struct gpupath_path *path, u8 cmd);
void gpupath_notify_event(u32 type, u32 vol, u32 path, u32 err, u64 nsec, u64 ios);

#endif /* _GPUPATH_NOTIFY_H */
