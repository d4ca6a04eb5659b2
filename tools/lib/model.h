/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal to libgpupath (and its unit tests): decoding netlink messages into
 * the model of libgpupath.h.
 */
#ifndef GPUPATH_MODEL_H
#define GPUPATH_MODEL_H

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "libgpupath.h"

/* Decode a GPUPATH_A_INFO nest. Unknown attributes are ignored. */
int gpupath_model_info(struct nlattr *nest, struct gpupath_info *info);
/* Decode a gpupath notification. */
int gpupath_model_event(struct nlmsghdr *nlh, struct gpupath_event *ev);
/* The multicast group a notification with command @cmd is sent to. */
const char *gpupath_cmd_group(uint32_t cmd);

#endif /* GPUPATH_MODEL_H */
