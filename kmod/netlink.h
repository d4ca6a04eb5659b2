/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_NETLINK_H
#define _GPUPATH_NETLINK_H

#include <linux/types.h>

struct gpupath_provider;

int gpupath_genl_init(void);
void gpupath_genl_uninit(void);
void gpupath_genl_notify_provider(struct gpupath_provider *prov, u8 cmd);

#endif /* _GPUPATH_NETLINK_H */
