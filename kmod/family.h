/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_FAMILY_H
#define _GPUPATH_FAMILY_H

#include <net/genetlink.h>

#include "netlink-gen.h"

/* The multicast groups, in the order user space finds them (uapi names). */
enum {
	GPUPATH_NLGRP_CONFIG,
	GPUPATH_NLGRP_EVENTS,
};

extern struct genl_family gpupath_genl_family;

int gpupath_family_register(void);
void gpupath_family_unregister(void);

#endif /* _GPUPATH_FAMILY_H */
