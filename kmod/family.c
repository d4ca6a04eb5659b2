// SPDX-License-Identifier: GPL-2.0
/*
 * The generic-netlink family itself: its multicast groups, and the
 * registration of the policies and split ops generated from
 * Documentation/netlink/specs/gpupath.yaml (netlink-gen.c). The handlers
 * are in netlink*.c.
 */
#include "family.h"

static const struct genl_multicast_group gpupath_nl_mcgrps[] = {
	[GPUPATH_NLGRP_CONFIG] = { .name = GPUPATH_MCGRP_CONFIG, },
	[GPUPATH_NLGRP_EVENTS] = { .name = GPUPATH_MCGRP_EVENTS, },
};

struct genl_family gpupath_genl_family __ro_after_init = {
	.name = GPUPATH_GENL_NAME,
	.version = GPUPATH_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.mcgrps = gpupath_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(gpupath_nl_mcgrps),
};

/**
 * gpupath_family_register() - register the family with its generated ops
 *
 * Return: 0, -ENOMEM, or an error of genl_register_family().
 */
int gpupath_family_register(void)
{
	int ret;

	ret = gpupath_compat_genl_ops(&gpupath_genl_family, gpupath_nl_ops,
				      ARRAY_SIZE(gpupath_nl_ops));
	if (ret)
		return ret;
	ret = genl_register_family(&gpupath_genl_family);
	if (ret)
		gpupath_compat_genl_ops_free(&gpupath_genl_family);
	return ret;
}

/**
 * gpupath_family_unregister() - unregister the family
 */
void gpupath_family_unregister(void)
{
	genl_unregister_family(&gpupath_genl_family);
	gpupath_compat_genl_ops_free(&gpupath_genl_family);
}
