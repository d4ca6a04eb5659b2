// SPDX-License-Identifier: GPL-2.0
/*
 * The generic-netlink family "gpupath"; the protocol is documented in
 * uapi/linux/gpupath.h.
 */
#include <linux/utsname.h>
#include <net/genetlink.h>

#include "feature.h"
#include "netlink.h"
#include "version.h"

/* Indices into gpupath_mcgrps[]. */
enum gpupath_nlgrp {
	GPUPATH_NLGRP_CONFIG,
	GPUPATH_NLGRP_EVENTS,
};

static const struct genl_multicast_group gpupath_mcgrps[] = {
	[GPUPATH_NLGRP_CONFIG] = { .name = GPUPATH_MCGRP_CONFIG },
	[GPUPATH_NLGRP_EVENTS] = { .name = GPUPATH_MCGRP_EVENTS },
};

static const struct nla_policy get_info_policy[GPUPATH_A_MAX + 1] = {
	[GPUPATH_A_INFO] = {
		.type = NLA_REJECT,
		.reject_message = "GET_INFO takes no attributes",
	},
};

static struct genl_family gpupath_genl_family;

static int put_info(struct sk_buff *skb)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, GPUPATH_A_INFO);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, GPUPATH_A_INFO_VERSION, GPUPATH_VERSION) ||
	    nla_put_u32(skb, GPUPATH_A_INFO_GENL_VERSION, GPUPATH_GENL_VERSION) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_INFO_FEATURES,
			      gpupath_feature_mask(), GPUPATH_A_INFO_PAD) ||
	    nla_put_u32(skb, GPUPATH_A_INFO_P2PDMA_STATUS,
			gpupath_feature_p2pdma_status()) ||
	    nla_put_string(skb, GPUPATH_A_INFO_KERNEL, init_utsname()->release) ||
	    nla_put_u32(skb, GPUPATH_A_INFO_IOCTL_VERSION, GPUPATH_IOCTL_VERSION)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int get_info_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	ret = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &gpupath_genl_family, 0,
				GPUPATH_CMD_GET_INFO);
	if (!hdr)
		goto err_free_msg;
	ret = put_info(msg);
	if (ret)
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	return ret;
}

static const struct genl_ops gpupath_genl_ops[] = {
	{
		.cmd = GPUPATH_CMD_GET_INFO,
		.doit = get_info_doit,
		.policy = get_info_policy,
		.maxattr = ARRAY_SIZE(get_info_policy) - 1,
	},
};

static struct genl_family gpupath_genl_family __ro_after_init = {
	.name = GPUPATH_GENL_NAME,
	.version = GPUPATH_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = gpupath_genl_ops,
	.n_ops = ARRAY_SIZE(gpupath_genl_ops),
	.mcgrps = gpupath_mcgrps,
	.n_mcgrps = ARRAY_SIZE(gpupath_mcgrps),
};

/**
 * gpupath_genl_init() - register the generic-netlink family
 *
 * Return: 0 or a negative errno from genl_register_family().
 */
int __init gpupath_genl_init(void)
{
	return genl_register_family(&gpupath_genl_family);
}

/**
 * gpupath_genl_uninit() - unregister the generic-netlink family
 */
void gpupath_genl_uninit(void)
{
	genl_unregister_family(&gpupath_genl_family);
}
