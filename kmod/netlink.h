/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_NETLINK_H
#define _GPUPATH_NETLINK_H

#include <linux/types.h>

struct gpupath_path;
struct gpupath_provider;
struct gpupath_volume;

int gpupath_genl_init(void);
void gpupath_genl_uninit(void);
void gpupath_genl_notify_provider(struct gpupath_provider *prov, u8 cmd);
void gpupath_genl_notify_volume(struct gpupath_volume *vol, u8 cmd);
void gpupath_genl_notify_path(struct gpupath_volume *vol, struct gpupath_path *path, u8 cmd);
void gpupath_genl_event(u32 type, u32 vol, u32 path, u32 err, u64 nsec, u64 ios);

#endif /* _GPUPATH_NETLINK_H */
