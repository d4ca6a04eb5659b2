// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/gpupath.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink-gen.h"

#include <uapi/linux/gpupath_nl.h>

/* Integer value ranges */
static const struct netlink_range_validation gpupath_a_portal_trsvcid_range = {
	.min	= 1ULL,
	.max	= 65535ULL,
};

static const struct netlink_range_validation gpupath_a_conn_trsvcid_range = {
	.min	= 1ULL,
	.max	= 65535ULL,
};

/* Common nested types */
const struct nla_policy gpupath_applied_nl_policy[GPUPATH_A_APPLIED_VALUE + 1] = {
	[GPUPATH_A_APPLIED_DEVICE] = { .type = NLA_NUL_STRING, .len = 31, },
	[GPUPATH_A_APPLIED_SETTING] = { .type = NLA_NUL_STRING, .len = 31, },
	[GPUPATH_A_APPLIED_RESULT] = NLA_POLICY_RANGE(NLA_U32, 1, 3),
	[GPUPATH_A_APPLIED_ERROR] = { .type = NLA_U32, },
	[GPUPATH_A_APPLIED_VALUE] = { .type = NLA_U32, },
};

const struct nla_policy gpupath_conn_nl_policy[GPUPATH_A_CONN_TRSVCID + 1] = {
	[GPUPATH_A_CONN_RAIL] = { .type = NLA_U32, },
	[GPUPATH_A_CONN_SUBSYSNQN] = { .type = NLA_NUL_STRING, .len = 223, },
	[GPUPATH_A_CONN_TRADDR] = { .type = NLA_NUL_STRING, .len = 47, },
	[GPUPATH_A_CONN_STATE] = NLA_POLICY_RANGE(NLA_U32, 1, 5),
	[GPUPATH_A_CONN_CONTROLLER] = { .type = NLA_NUL_STRING, .len = 31, },
	[GPUPATH_A_CONN_ATTEMPTS] = { .type = NLA_U32, },
	[GPUPATH_A_CONN_ERROR] = { .type = NLA_U32, },
	[GPUPATH_A_CONN_RETRY_MS] = { .type = NLA_U32, },
	[GPUPATH_A_CONN_TRSVCID] = NLA_POLICY_FULL_RANGE(NLA_U32, &gpupath_a_conn_trsvcid_range),
};

const struct nla_policy gpupath_get_info_request_nl_policy[GPUPATH_A_INFO_UNSPEC + 1] = {
};

const struct nla_policy gpupath_path_del_request_nl_policy[GPUPATH_A_PATH_ID + 1] = {
	[GPUPATH_A_PATH_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy gpupath_path_get_request_nl_policy[GPUPATH_A_PATH_VOLUME + 1] = {
	[GPUPATH_A_PATH_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPATH_A_PATH_VOLUME] = NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy gpupath_path_new_request_nl_policy[GPUPATH_A_PATH_ANA_GROUP + 1] = {
	[GPUPATH_A_PATH_VOLUME] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPATH_A_PATH_DEVICE] = { .type = NLA_NUL_STRING, .len = 4095, },
	[GPUPATH_A_PATH_STATE] = NLA_POLICY_MAX(NLA_U32, 2),
	[GPUPATH_A_PATH_WEIGHT] = NLA_POLICY_RANGE(NLA_U32, 1, GPUPATH_WEIGHT_MAX),
	[GPUPATH_A_PATH_RAIL] = { .type = NLA_U32, },
	[GPUPATH_A_PATH_LINK] = NLA_POLICY_MAX(NLA_U32, 2),
	[GPUPATH_A_PATH_ANA_STATE] = NLA_POLICY_MAX(NLA_U32, 5),
	[GPUPATH_A_PATH_ANA_TT] = NLA_POLICY_MAX(NLA_U32, 3600),
	[GPUPATH_A_PATH_ANA_GROUP] = { .type = NLA_U32, },
};

const struct nla_policy gpupath_path_set_request_nl_policy[GPUPATH_A_PATH_ANA_GROUP + 1] = {
	[GPUPATH_A_PATH_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPATH_A_PATH_STATE] = NLA_POLICY_MAX(NLA_U32, 2),
	[GPUPATH_A_PATH_WEIGHT] = NLA_POLICY_RANGE(NLA_U32, 1, GPUPATH_WEIGHT_MAX),
	[GPUPATH_A_PATH_RAIL] = { .type = NLA_U32, },
	[GPUPATH_A_PATH_LINK] = NLA_POLICY_MAX(NLA_U32, 2),
	[GPUPATH_A_PATH_ANA_STATE] = NLA_POLICY_MAX(NLA_U32, 5),
	[GPUPATH_A_PATH_ANA_TT] = NLA_POLICY_MAX(NLA_U32, 3600),
	[GPUPATH_A_PATH_ANA_GROUP] = { .type = NLA_U32, },
};

const struct nla_policy gpupath_portal_del_request_nl_policy[GPUPATH_A_PORTAL_NAME + 1] = {
	[GPUPATH_A_PORTAL_ID] = { .type = NLA_U32, },
	[GPUPATH_A_PORTAL_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

const struct nla_policy gpupath_portal_get_request_nl_policy[GPUPATH_A_PORTAL_NAME + 1] = {
	[GPUPATH_A_PORTAL_ID] = { .type = NLA_U32, },
	[GPUPATH_A_PORTAL_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

const struct nla_policy gpupath_portal_new_request_nl_policy[GPUPATH_A_PORTAL_DISCOVER + 1] = {
	[GPUPATH_A_PORTAL_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[GPUPATH_A_PORTAL_TRANSPORT] = NLA_POLICY_RANGE(NLA_U32, 1, 2),
	[GPUPATH_A_PORTAL_TRADDR] = { .type = NLA_NUL_STRING, .len = 47, },
	[GPUPATH_A_PORTAL_TRSVCID] = NLA_POLICY_FULL_RANGE(NLA_U32, &gpupath_a_portal_trsvcid_range),
	[GPUPATH_A_PORTAL_SUBSYSNQN] = { .type = NLA_NUL_STRING, .len = 223, },
	[GPUPATH_A_PORTAL_RAIL] = NLA_POLICY_NESTED(gpupath_rail_nl_policy),
	[GPUPATH_A_PORTAL_QOS] = { .type = NLA_NUL_STRING, .len = 31, },
	[GPUPATH_A_PORTAL_CTRL_LOSS_TMO] = { .type = NLA_U32, },
	[GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO] = { .type = NLA_U32, },
	[GPUPATH_A_PORTAL_RECONNECT_DELAY] = NLA_POLICY_RANGE(NLA_U32, 1, 3600),
	[GPUPATH_A_PORTAL_NR_IO_QUEUES] = NLA_POLICY_MAX(NLA_U32, 1024),
	[GPUPATH_A_PORTAL_HOST_NQN] = { .type = NLA_NUL_STRING, .len = 223, },
	[GPUPATH_A_PORTAL_HOST_ID] = { .type = NLA_NUL_STRING, .len = 36, },
	[GPUPATH_A_PORTAL_DHCHAP_SECRET_FILE] = { .type = NLA_NUL_STRING, .len = 255, },
	[GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE] = { .type = NLA_NUL_STRING, .len = 255, },
	[GPUPATH_A_PORTAL_DISCOVER] = NLA_POLICY_MAX(NLA_U32, 1),
};

const struct nla_policy gpupath_portal_set_request_nl_policy[GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE + 1] = {
	[GPUPATH_A_PORTAL_ID] = { .type = NLA_U32, },
	[GPUPATH_A_PORTAL_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[GPUPATH_A_PORTAL_RAIL] = NLA_POLICY_NESTED(gpupath_rail_nl_policy),
	[GPUPATH_A_PORTAL_QOS] = { .type = NLA_NUL_STRING, .len = 31, },
	[GPUPATH_A_PORTAL_CTRL_LOSS_TMO] = { .type = NLA_U32, },
	[GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO] = { .type = NLA_U32, },
	[GPUPATH_A_PORTAL_RECONNECT_DELAY] = NLA_POLICY_RANGE(NLA_U32, 1, 3600),
	[GPUPATH_A_PORTAL_NR_IO_QUEUES] = NLA_POLICY_MAX(NLA_U32, 1024),
	[GPUPATH_A_PORTAL_HOST_NQN] = { .type = NLA_NUL_STRING, .len = 223, },
	[GPUPATH_A_PORTAL_HOST_ID] = { .type = NLA_NUL_STRING, .len = 36, },
	[GPUPATH_A_PORTAL_DHCHAP_SECRET_FILE] = { .type = NLA_NUL_STRING, .len = 255, },
	[GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE] = { .type = NLA_NUL_STRING, .len = 255, },
	[GPUPATH_A_PORTAL_CONN] = NLA_POLICY_NESTED(gpupath_conn_nl_policy),
	[GPUPATH_A_PORTAL_CONN_CLEAR] = { .type = NLA_FLAG, },
};

const struct nla_policy gpupath_provider_del_request_nl_policy[GPUPATH_A_PROVIDER_ID + 1] = {
	[GPUPATH_A_PROVIDER_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy gpupath_provider_get_request_nl_policy[GPUPATH_A_PROVIDER_ID + 1] = {
	[GPUPATH_A_PROVIDER_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy gpupath_provider_new_request_nl_policy[GPUPATH_A_PROVIDER_PCI_DEV + 1] = {
	[GPUPATH_A_PROVIDER_PCI_DEV] = { .type = NLA_NUL_STRING, .len = 15, },
};

const struct nla_policy gpupath_provider_set_request_nl_policy[GPUPATH_A_PROVIDER_CGROUP_LIMIT_DEFAULT + 1] = {
	[GPUPATH_A_PROVIDER_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPATH_A_PROVIDER_USER_LIMIT] = { .type = NLA_U64, },
	[GPUPATH_A_PROVIDER_CGROUP_LIMIT] = { .type = NLA_U64, },
	[GPUPATH_A_PROVIDER_CGROUP] = { .type = NLA_NUL_STRING, .len = 4095, },
	[GPUPATH_A_PROVIDER_CGROUP_LIMIT_DEFAULT] = { .type = NLA_FLAG, },
};

const struct nla_policy gpupath_qos_del_request_nl_policy[GPUPATH_A_QOS_NAME + 1] = {
	[GPUPATH_A_QOS_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

const struct nla_policy gpupath_qos_get_request_nl_policy[GPUPATH_A_QOS_NAME + 1] = {
	[GPUPATH_A_QOS_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

const struct nla_policy gpupath_qos_new_request_nl_policy[GPUPATH_A_QOS_ETS + 1] = {
	[GPUPATH_A_QOS_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[GPUPATH_A_QOS_DSCP] = NLA_POLICY_MAX(NLA_U32, 63),
	[GPUPATH_A_QOS_PRIORITY] = NLA_POLICY_MAX(NLA_U32, 7),
	[GPUPATH_A_QOS_PFC] = NLA_POLICY_MAX(NLA_U32, 1),
	[GPUPATH_A_QOS_ETS] = NLA_POLICY_MAX(NLA_U32, 100),
};

const struct nla_policy gpupath_qos_set_request_nl_policy[GPUPATH_A_QOS_APPLIED_CLEAR + 1] = {
	[GPUPATH_A_QOS_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[GPUPATH_A_QOS_DSCP] = NLA_POLICY_MAX(NLA_U32, 63),
	[GPUPATH_A_QOS_PRIORITY] = NLA_POLICY_MAX(NLA_U32, 7),
	[GPUPATH_A_QOS_PFC] = NLA_POLICY_MAX(NLA_U32, 1),
	[GPUPATH_A_QOS_ETS] = NLA_POLICY_MAX(NLA_U32, 100),
	[GPUPATH_A_QOS_APPLIED] = NLA_POLICY_NESTED(gpupath_applied_nl_policy),
	[GPUPATH_A_QOS_APPLIED_CLEAR] = { .type = NLA_FLAG, },
};

const struct nla_policy gpupath_rail_nl_policy[GPUPATH_A_RAIL_ADDR + 1] = {
	[GPUPATH_A_RAIL_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPATH_A_RAIL_IFACE] = { .type = NLA_NUL_STRING, .len = 15, },
	[GPUPATH_A_RAIL_ADDR] = { .type = NLA_NUL_STRING, .len = 47, },
};

const struct nla_policy gpupath_route_get_request_nl_policy[GPUPATH_A_ROUTE_OP + 1] = {
	[GPUPATH_A_ROUTE_PROVIDER] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPATH_A_ROUTE_TARGET] = { .type = NLA_NUL_STRING, .len = 4095, },
	[GPUPATH_A_ROUTE_OP] = NLA_POLICY_RANGE(NLA_U32, 1, 2),
};

const struct nla_policy gpupath_stack_set_request_nl_policy[GPUPATH_A_STACK_TARGETS + 1] = {
	[GPUPATH_A_STACK_MAJOR] = { .type = NLA_U32, },
	[GPUPATH_A_STACK_MINOR] = { .type = NLA_U32, },
	[GPUPATH_A_STACK_DISKSEQ] = { .type = NLA_U64, },
	[GPUPATH_A_STACK_KIND] = NLA_POLICY_RANGE(NLA_U32, 1, 3),
	[GPUPATH_A_STACK_TARGETS] = { .type = NLA_NUL_STRING, .len = 127, },
};

const struct nla_policy gpupath_volume_del_request_nl_policy[GPUPATH_A_VOLUME_ID + 1] = {
	[GPUPATH_A_VOLUME_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy gpupath_volume_get_request_nl_policy[GPUPATH_A_VOLUME_ID + 1] = {
	[GPUPATH_A_VOLUME_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy gpupath_volume_new_request_nl_policy[GPUPATH_A_VOLUME_QUEUE_TIMEOUT + 1] = {
	[GPUPATH_A_VOLUME_WWID] = { .type = NLA_NUL_STRING, .len = 255, },
	[GPUPATH_A_VOLUME_POLICY] = NLA_POLICY_MAX(NLA_U32, 4),
	[GPUPATH_A_VOLUME_FALLBACK] = NLA_POLICY_MAX(NLA_U32, 4),
	[GPUPATH_A_VOLUME_QUEUE_TIMEOUT] = { .type = NLA_U32, },
};

const struct nla_policy gpupath_volume_set_request_nl_policy[GPUPATH_A_VOLUME_QUEUE_TIMEOUT + 1] = {
	[GPUPATH_A_VOLUME_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPATH_A_VOLUME_POLICY] = NLA_POLICY_MAX(NLA_U32, 4),
	[GPUPATH_A_VOLUME_FALLBACK] = NLA_POLICY_MAX(NLA_U32, 4),
	[GPUPATH_A_VOLUME_QUEUE_TIMEOUT] = { .type = NLA_U32, },
};

/* GPUPATH_CMD_GET_INFO - do */
static const struct nla_policy gpupath_get_info_nl_policy[GPUPATH_A_INFO + 1] = {
	[GPUPATH_A_INFO] = NLA_POLICY_NESTED(gpupath_get_info_request_nl_policy),
};

/* GPUPATH_CMD_PROVIDER_GET - do */
static const struct nla_policy gpupath_provider_get_nl_policy[GPUPATH_A_PROVIDER + 1] = {
	[GPUPATH_A_PROVIDER] = NLA_POLICY_NESTED(gpupath_provider_get_request_nl_policy),
};

/* GPUPATH_CMD_PROVIDER_NEW - do */
static const struct nla_policy gpupath_provider_new_nl_policy[GPUPATH_A_PROVIDER + 1] = {
	[GPUPATH_A_PROVIDER] = NLA_POLICY_NESTED(gpupath_provider_new_request_nl_policy),
};

/* GPUPATH_CMD_PROVIDER_DEL - do */
static const struct nla_policy gpupath_provider_del_nl_policy[GPUPATH_A_PROVIDER + 1] = {
	[GPUPATH_A_PROVIDER] = NLA_POLICY_NESTED(gpupath_provider_del_request_nl_policy),
};

/* GPUPATH_CMD_VOLUME_GET - do */
static const struct nla_policy gpupath_volume_get_nl_policy[GPUPATH_A_VOLUME + 1] = {
	[GPUPATH_A_VOLUME] = NLA_POLICY_NESTED(gpupath_volume_get_request_nl_policy),
};

/* GPUPATH_CMD_VOLUME_NEW - do */
static const struct nla_policy gpupath_volume_new_nl_policy[GPUPATH_A_VOLUME + 1] = {
	[GPUPATH_A_VOLUME] = NLA_POLICY_NESTED(gpupath_volume_new_request_nl_policy),
};

/* GPUPATH_CMD_VOLUME_DEL - do */
static const struct nla_policy gpupath_volume_del_nl_policy[GPUPATH_A_VOLUME + 1] = {
	[GPUPATH_A_VOLUME] = NLA_POLICY_NESTED(gpupath_volume_del_request_nl_policy),
};

/* GPUPATH_CMD_VOLUME_SET - do */
static const struct nla_policy gpupath_volume_set_nl_policy[GPUPATH_A_VOLUME + 1] = {
	[GPUPATH_A_VOLUME] = NLA_POLICY_NESTED(gpupath_volume_set_request_nl_policy),
};

/* GPUPATH_CMD_PATH_GET - do */
static const struct nla_policy gpupath_path_get_do_nl_policy[GPUPATH_A_PATH + 1] = {
	[GPUPATH_A_PATH] = NLA_POLICY_NESTED(gpupath_path_get_request_nl_policy),
};

/* GPUPATH_CMD_PATH_GET - dump */
static const struct nla_policy gpupath_path_get_dump_nl_policy[GPUPATH_A_PATH + 1] = {
	[GPUPATH_A_PATH] = NLA_POLICY_NESTED(gpupath_path_get_request_nl_policy),
};

/* GPUPATH_CMD_PATH_NEW - do */
static const struct nla_policy gpupath_path_new_nl_policy[GPUPATH_A_PATH + 1] = {
	[GPUPATH_A_PATH] = NLA_POLICY_NESTED(gpupath_path_new_request_nl_policy),
};

/* GPUPATH_CMD_PATH_DEL - do */
static const struct nla_policy gpupath_path_del_nl_policy[GPUPATH_A_PATH + 1] = {
	[GPUPATH_A_PATH] = NLA_POLICY_NESTED(gpupath_path_del_request_nl_policy),
};

/* GPUPATH_CMD_PATH_SET - do */
static const struct nla_policy gpupath_path_set_nl_policy[GPUPATH_A_PATH + 1] = {
	[GPUPATH_A_PATH] = NLA_POLICY_NESTED(gpupath_path_set_request_nl_policy),
};

/* GPUPATH_CMD_PORTAL_GET - do */
static const struct nla_policy gpupath_portal_get_nl_policy[GPUPATH_A_PORTAL + 1] = {
	[GPUPATH_A_PORTAL] = NLA_POLICY_NESTED(gpupath_portal_get_request_nl_policy),
};

/* GPUPATH_CMD_PORTAL_NEW - do */
static const struct nla_policy gpupath_portal_new_nl_policy[GPUPATH_A_PORTAL + 1] = {
	[GPUPATH_A_PORTAL] = NLA_POLICY_NESTED(gpupath_portal_new_request_nl_policy),
};

/* GPUPATH_CMD_PORTAL_DEL - do */
static const struct nla_policy gpupath_portal_del_nl_policy[GPUPATH_A_PORTAL + 1] = {
	[GPUPATH_A_PORTAL] = NLA_POLICY_NESTED(gpupath_portal_del_request_nl_policy),
};

/* GPUPATH_CMD_PORTAL_SET - do */
static const struct nla_policy gpupath_portal_set_nl_policy[GPUPATH_A_PORTAL + 1] = {
	[GPUPATH_A_PORTAL] = NLA_POLICY_NESTED(gpupath_portal_set_request_nl_policy),
};

/* GPUPATH_CMD_QOS_GET - do */
static const struct nla_policy gpupath_qos_get_nl_policy[GPUPATH_A_QOS + 1] = {
	[GPUPATH_A_QOS] = NLA_POLICY_NESTED(gpupath_qos_get_request_nl_policy),
};

/* GPUPATH_CMD_QOS_NEW - do */
static const struct nla_policy gpupath_qos_new_nl_policy[GPUPATH_A_QOS + 1] = {
	[GPUPATH_A_QOS] = NLA_POLICY_NESTED(gpupath_qos_new_request_nl_policy),
};

/* GPUPATH_CMD_QOS_DEL - do */
static const struct nla_policy gpupath_qos_del_nl_policy[GPUPATH_A_QOS + 1] = {
	[GPUPATH_A_QOS] = NLA_POLICY_NESTED(gpupath_qos_del_request_nl_policy),
};

/* GPUPATH_CMD_QOS_SET - do */
static const struct nla_policy gpupath_qos_set_nl_policy[GPUPATH_A_QOS + 1] = {
	[GPUPATH_A_QOS] = NLA_POLICY_NESTED(gpupath_qos_set_request_nl_policy),
};

/* GPUPATH_CMD_ROUTE_GET - do */
static const struct nla_policy gpupath_route_get_nl_policy[GPUPATH_A_ROUTE + 1] = {
	[GPUPATH_A_ROUTE] = NLA_POLICY_NESTED(gpupath_route_get_request_nl_policy),
};

/* GPUPATH_CMD_PROVIDER_SET - do */
static const struct nla_policy gpupath_provider_set_nl_policy[GPUPATH_A_PROVIDER + 1] = {
	[GPUPATH_A_PROVIDER] = NLA_POLICY_NESTED(gpupath_provider_set_request_nl_policy),
};

/* GPUPATH_CMD_STACK_SET - do */
static const struct nla_policy gpupath_stack_set_nl_policy[GPUPATH_A_STACK + 1] = {
	[GPUPATH_A_STACK] = NLA_POLICY_NESTED(gpupath_stack_set_request_nl_policy),
};

/* Ops table for gpupath */
const struct genl_split_ops gpupath_nl_ops[29] = {
	{
		.cmd		= GPUPATH_CMD_GET_INFO,
		.doit		= gpupath_nl_get_info_doit,
		.policy		= gpupath_get_info_nl_policy,
		.maxattr	= GPUPATH_A_INFO,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_PROVIDER_GET,
		.doit		= gpupath_nl_provider_get_doit,
		.policy		= gpupath_provider_get_nl_policy,
		.maxattr	= GPUPATH_A_PROVIDER,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= GPUPATH_CMD_PROVIDER_GET,
		.start	= gpupath_nl_dump_start,
		.dumpit	= gpupath_nl_provider_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= GPUPATH_CMD_PROVIDER_NEW,
		.doit		= gpupath_nl_provider_new_doit,
		.policy		= gpupath_provider_new_nl_policy,
		.maxattr	= GPUPATH_A_PROVIDER,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_PROVIDER_DEL,
		.doit		= gpupath_nl_provider_del_doit,
		.policy		= gpupath_provider_del_nl_policy,
		.maxattr	= GPUPATH_A_PROVIDER,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_VOLUME_GET,
		.doit		= gpupath_nl_volume_get_doit,
		.policy		= gpupath_volume_get_nl_policy,
		.maxattr	= GPUPATH_A_VOLUME,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= GPUPATH_CMD_VOLUME_GET,
		.start	= gpupath_nl_dump_start,
		.dumpit	= gpupath_nl_volume_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= GPUPATH_CMD_VOLUME_NEW,
		.doit		= gpupath_nl_volume_new_doit,
		.policy		= gpupath_volume_new_nl_policy,
		.maxattr	= GPUPATH_A_VOLUME,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_VOLUME_DEL,
		.doit		= gpupath_nl_volume_del_doit,
		.policy		= gpupath_volume_del_nl_policy,
		.maxattr	= GPUPATH_A_VOLUME,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_VOLUME_SET,
		.doit		= gpupath_nl_volume_set_doit,
		.policy		= gpupath_volume_set_nl_policy,
		.maxattr	= GPUPATH_A_VOLUME,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_PATH_GET,
		.doit		= gpupath_nl_path_get_doit,
		.policy		= gpupath_path_get_do_nl_policy,
		.maxattr	= GPUPATH_A_PATH,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_PATH_GET,
		.start		= gpupath_nl_dump_start,
		.dumpit		= gpupath_nl_path_get_dumpit,
		.policy		= gpupath_path_get_dump_nl_policy,
		.maxattr	= GPUPATH_A_PATH,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= GPUPATH_CMD_PATH_NEW,
		.doit		= gpupath_nl_path_new_doit,
		.policy		= gpupath_path_new_nl_policy,
		.maxattr	= GPUPATH_A_PATH,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_PATH_DEL,
		.doit		= gpupath_nl_path_del_doit,
		.policy		= gpupath_path_del_nl_policy,
		.maxattr	= GPUPATH_A_PATH,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_PATH_SET,
		.doit		= gpupath_nl_path_set_doit,
		.policy		= gpupath_path_set_nl_policy,
		.maxattr	= GPUPATH_A_PATH,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_PORTAL_GET,
		.doit		= gpupath_nl_portal_get_doit,
		.policy		= gpupath_portal_get_nl_policy,
		.maxattr	= GPUPATH_A_PORTAL,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= GPUPATH_CMD_PORTAL_GET,
		.start	= gpupath_nl_dump_start,
		.dumpit	= gpupath_nl_portal_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= GPUPATH_CMD_PORTAL_NEW,
		.doit		= gpupath_nl_portal_new_doit,
		.policy		= gpupath_portal_new_nl_policy,
		.maxattr	= GPUPATH_A_PORTAL,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_PORTAL_DEL,
		.doit		= gpupath_nl_portal_del_doit,
		.policy		= gpupath_portal_del_nl_policy,
		.maxattr	= GPUPATH_A_PORTAL,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_PORTAL_SET,
		.doit		= gpupath_nl_portal_set_doit,
		.policy		= gpupath_portal_set_nl_policy,
		.maxattr	= GPUPATH_A_PORTAL,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_QOS_GET,
		.doit		= gpupath_nl_qos_get_doit,
		.policy		= gpupath_qos_get_nl_policy,
		.maxattr	= GPUPATH_A_QOS,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= GPUPATH_CMD_QOS_GET,
		.start	= gpupath_nl_dump_start,
		.dumpit	= gpupath_nl_qos_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= GPUPATH_CMD_QOS_NEW,
		.doit		= gpupath_nl_qos_new_doit,
		.policy		= gpupath_qos_new_nl_policy,
		.maxattr	= GPUPATH_A_QOS,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_QOS_DEL,
		.doit		= gpupath_nl_qos_del_doit,
		.policy		= gpupath_qos_del_nl_policy,
		.maxattr	= GPUPATH_A_QOS,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_QOS_SET,
		.doit		= gpupath_nl_qos_set_doit,
		.policy		= gpupath_qos_set_nl_policy,
		.maxattr	= GPUPATH_A_QOS,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_ROUTE_GET,
		.doit		= gpupath_nl_route_get_doit,
		.policy		= gpupath_route_get_nl_policy,
		.maxattr	= GPUPATH_A_ROUTE,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= GPUPATH_CMD_PROVIDER_SET,
		.doit		= gpupath_nl_provider_set_doit,
		.policy		= gpupath_provider_set_nl_policy,
		.maxattr	= GPUPATH_A_PROVIDER,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= GPUPATH_CMD_CGROUP_GET,
		.start	= gpupath_nl_dump_start,
		.dumpit	= gpupath_nl_cgroup_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= GPUPATH_CMD_STACK_SET,
		.doit		= gpupath_nl_stack_set_doit,
		.policy		= gpupath_stack_set_nl_policy,
		.maxattr	= GPUPATH_A_STACK,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
};
