/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/gpupath.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_GPUPATH_GEN_H
#define _LINUX_GPUPATH_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/gpupath_nl.h>

/* Common nested types */
extern const struct nla_policy gpupath_applied_nl_policy[GPUPATH_A_APPLIED_VALUE + 1];
extern const struct nla_policy gpupath_conn_nl_policy[GPUPATH_A_CONN_TRSVCID + 1];
extern const struct nla_policy gpupath_get_info_request_nl_policy[GPUPATH_A_INFO_UNSPEC + 1];
extern const struct nla_policy gpupath_path_del_request_nl_policy[GPUPATH_A_PATH_ID + 1];
extern const struct nla_policy gpupath_path_get_request_nl_policy[GPUPATH_A_PATH_VOLUME + 1];
extern const struct nla_policy gpupath_path_new_request_nl_policy[GPUPATH_A_PATH_ANA_GROUP + 1];
extern const struct nla_policy gpupath_path_set_request_nl_policy[GPUPATH_A_PATH_ANA_GROUP + 1];
extern const struct nla_policy gpupath_portal_del_request_nl_policy[GPUPATH_A_PORTAL_NAME + 1];
extern const struct nla_policy gpupath_portal_get_request_nl_policy[GPUPATH_A_PORTAL_NAME + 1];
extern const struct nla_policy gpupath_portal_new_request_nl_policy[GPUPATH_A_PORTAL_DISCOVER + 1];
extern const struct nla_policy gpupath_portal_set_request_nl_policy[GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE + 1];
extern const struct nla_policy gpupath_provider_del_request_nl_policy[GPUPATH_A_PROVIDER_ID + 1];
extern const struct nla_policy gpupath_provider_get_request_nl_policy[GPUPATH_A_PROVIDER_ID + 1];
extern const struct nla_policy gpupath_provider_new_request_nl_policy[GPUPATH_A_PROVIDER_PCI_DEV + 1];
extern const struct nla_policy gpupath_provider_set_request_nl_policy[GPUPATH_A_PROVIDER_CGROUP_LIMIT_DEFAULT + 1];
extern const struct nla_policy gpupath_qos_del_request_nl_policy[GPUPATH_A_QOS_NAME + 1];
extern const struct nla_policy gpupath_qos_get_request_nl_policy[GPUPATH_A_QOS_NAME + 1];
extern const struct nla_policy gpupath_qos_new_request_nl_policy[GPUPATH_A_QOS_ETS + 1];
extern const struct nla_policy gpupath_qos_set_request_nl_policy[GPUPATH_A_QOS_APPLIED_CLEAR + 1];
extern const struct nla_policy gpupath_rail_nl_policy[GPUPATH_A_RAIL_ADDR + 1];
extern const struct nla_policy gpupath_route_get_request_nl_policy[GPUPATH_A_ROUTE_OP + 1];
extern const struct nla_policy gpupath_stack_set_request_nl_policy[GPUPATH_A_STACK_TARGETS + 1];
extern const struct nla_policy gpupath_volume_del_request_nl_policy[GPUPATH_A_VOLUME_ID + 1];
extern const struct nla_policy gpupath_volume_get_request_nl_policy[GPUPATH_A_VOLUME_ID + 1];
extern const struct nla_policy gpupath_volume_new_request_nl_policy[GPUPATH_A_VOLUME_QUEUE_TIMEOUT + 1];
extern const struct nla_policy gpupath_volume_set_request_nl_policy[GPUPATH_A_VOLUME_QUEUE_TIMEOUT + 1];

/* Ops table for gpupath */
extern const struct genl_split_ops gpupath_nl_ops[29];

int gpupath_nl_dump_start(struct netlink_callback *cb);

int gpupath_nl_get_info_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_provider_get_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_provider_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb);
int gpupath_nl_provider_new_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_provider_del_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_volume_get_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_volume_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);
int gpupath_nl_volume_new_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_volume_del_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_volume_set_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_path_get_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_path_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int gpupath_nl_path_new_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_path_del_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_path_set_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_portal_get_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_portal_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);
int gpupath_nl_portal_new_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_portal_del_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_portal_set_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_qos_get_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_qos_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int gpupath_nl_qos_new_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_qos_del_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_qos_set_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_route_get_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_provider_set_doit(struct sk_buff *skb, struct genl_info *info);
int gpupath_nl_cgroup_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);
int gpupath_nl_stack_set_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _LINUX_GPUPATH_GEN_H */
