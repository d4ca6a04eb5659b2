/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_NETLINK_H
#define _GPUPATH_NETLINK_H

int gpupath_genl_init(void);
void gpupath_genl_uninit(void);

#endif /* _GPUPATH_NETLINK_H */
