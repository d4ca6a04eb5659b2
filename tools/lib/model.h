/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal to libgpupath (and its unit tests): decoding netlink messages into
 * the model of libgpupath.h.
 */
#ifndef GPUPATH_MODEL_H
#define GPUPATH_MODEL_H

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "libgpupath-admin.h"
#include "objects.h"

/* Decode a GPUPATH_A_INFO nest. Unknown attributes are ignored. */
int gpupath_model_info(struct nlattr *nest, struct gpupath_info *info);
/* Decode a GPUPATH_A_PROVIDER nest. */
int gpupath_model_provider(struct nlattr *nest, struct gpupath_provider *prov);
/* Decode a GPUPATH_A_VOLUME nest, with its paths (GPUPATH_A_VOLUME_PATH). */
int gpupath_model_volume(struct nlattr *nest, struct gpupath_volume *vol);
int gpupath_model_portal(struct nlattr *nest, struct gpupath_portal *portal);
int gpupath_model_qos(struct nlattr *nest, struct gpupath_qos *qos);
/* Decode a GPUPATH_A_PATH (or GPUPATH_A_VOLUME_PATH) nest. */
int gpupath_model_path(struct nlattr *nest, struct gpupath_path *path);
/* Decode a gpupath notification. */
int gpupath_model_event(struct nlmsghdr *nlh, struct gpupath_model_event *ev);
/* The multicast group a notification with command @cmd is sent to. */
const char *gpupath_cmd_group(uint32_t cmd);

/*
 * Send command @cmd (nlmsg @flags: NLM_F_ACK, or NLM_F_DUMP) with the
 * attributes @fill adds, pass each reply to
 * @parse; both take @arg and may be NULL. The request is a page, or larger
 * as its attributes need (-EMSGSIZE past 256 KiB). Returns 0 or the kernel's
 * negative errno, with its extended-ACK message in gpupath_ctl_errmsg().
 */
int gpupath_ctl_request(struct gpupath_ctl *ctl, uint8_t cmd, int flags,
			int (*fill)(struct nl_msg *msg, void *arg),
			int (*parse)(struct nlmsghdr *nlh, void *arg), void *arg);

#endif /* GPUPATH_MODEL_H */
