// SPDX-License-Identifier: GPL-2.0
/*
 * The generic-netlink family "gpupath"; the protocol is documented in
 * uapi/linux/gpupath.h.
 */
#include <linux/utsname.h>
#include <net/genetlink.h>

#include "feature.h"
#include "netlink.h"
#include "provider.h"
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

static const struct nla_policy provider_id_policy[GPUPATH_A_PROVIDER_MAX + 1] = {
	[GPUPATH_A_PROVIDER_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy provider_new_policy[GPUPATH_A_PROVIDER_MAX + 1] = {
	[GPUPATH_A_PROVIDER_PCI_DEV] = { .type = NLA_NUL_STRING, .len = 15 },
};

static const struct nla_policy provider_get_policy[GPUPATH_A_MAX + 1] = {
	[GPUPATH_A_PROVIDER] = NLA_POLICY_NESTED(provider_id_policy),
};

static const struct nla_policy provider_add_policy[GPUPATH_A_MAX + 1] = {
	[GPUPATH_A_PROVIDER] = NLA_POLICY_NESTED(provider_new_policy),
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

static int put_refused(struct sk_buff *skb, struct gpupath_stats *st, int reason)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, GPUPATH_A_STATS_REFUSED);
	if (!nest ||
	    nla_put_u32(skb, GPUPATH_A_REFUSED_REASON, reason) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_REFUSED_IOS,
			      atomic64_read(&st->refused_ios[reason]), GPUPATH_A_REFUSED_PAD) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_REFUSED_BYTES,
			      atomic64_read(&st->refused_bytes[reason]), GPUPATH_A_REFUSED_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int put_stats(struct sk_buff *skb, struct gpupath_stats *st)
{
	struct nlattr *nest;
	int reason;

	nest = nla_nest_start(skb, GPUPATH_A_PROVIDER_STATS);
	if (!nest ||
	    nla_put_u64_64bit(skb, GPUPATH_A_STATS_DIRECT_IOS,
			      atomic64_read(&st->direct_ios), GPUPATH_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_STATS_DIRECT_BYTES,
			      atomic64_read(&st->direct_bytes), GPUPATH_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_STATS_ERRORS,
			      atomic64_read(&st->errors), GPUPATH_A_STATS_PAD))
		return -EMSGSIZE;
	for (reason = GPUPATH_REASON_NONE + 1; reason <= GPUPATH_REASON_MAX; reason++)
		if (atomic64_read(&st->refused_ios[reason]) && put_refused(skb, st, reason))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* PCI class 0x0c06, InfiniBand controllers (no name for it in pci_ids.h). */
#define GPUPATH_PCI_CLASS_INFINIBAND	0x0c06

/* NVMe controllers and network/RDMA functions are the devices that DMA. */
static bool dma_peer_class(struct pci_dev *pdev)
{
	return pdev->class == PCI_CLASS_STORAGE_EXPRESS ||
	       (pdev->class >> 16) == PCI_BASE_CLASS_NETWORK ||
	       (pdev->class >> 8) == GPUPATH_PCI_CLASS_INFINIBAND;
}

static int put_peers(struct sk_buff *skb, struct gpupath_provider *prov)
{
	struct pci_dev *pdev = NULL;
	struct nlattr *nest;
	int dist;

	for_each_pci_dev(pdev) {
		if (pdev == prov->pdev || !dma_peer_class(pdev))
			continue;
		dist = gpupath_provider_peer_distance(prov, pdev);
		if (dist < 0)
			continue;
		nest = nla_nest_start(skb, GPUPATH_A_PROVIDER_PEER);
		if (!nest ||
		    nla_put_string(skb, GPUPATH_A_PEER_PCI_DEV, pci_name(pdev)) ||
		    nla_put_u32(skb, GPUPATH_A_PEER_DISTANCE, dist)) {
			pci_dev_put(pdev);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int put_provider(struct sk_buff *skb, struct gpupath_provider *prov)
{
	struct device_driver *drv = prov->pdev->dev.driver;
	struct nlattr *nest;

	nest = nla_nest_start(skb, GPUPATH_A_PROVIDER);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, GPUPATH_A_PROVIDER_ID, prov->id) ||
	    nla_put_u32(skb, GPUPATH_A_PROVIDER_TYPE, prov->type) ||
	    nla_put_string(skb, GPUPATH_A_PROVIDER_PCI_DEV, pci_name(prov->pdev)) ||
	    (drv && nla_put_string(skb, GPUPATH_A_PROVIDER_DRIVER, drv->name)) ||
	    nla_put_u32(skb, GPUPATH_A_PROVIDER_OWNED, prov->owned) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_PROVIDER_SIZE, gpupath_provider_size(prov),
			      GPUPATH_A_PROVIDER_PAD) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_PROVIDER_ALLOCATED,
			      atomic64_read(&prov->allocated), GPUPATH_A_PROVIDER_PAD) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_PROVIDER_AVAILABLE,
			      gpupath_provider_available(prov), GPUPATH_A_PROVIDER_PAD) ||
	    (prov->bar >= 0 && nla_put_u32(skb, GPUPATH_A_PROVIDER_BAR, prov->bar)) ||
	    put_peers(skb, prov) ||
	    put_stats(skb, &prov->stats)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static struct sk_buff *provider_msg(struct gpupath_provider *prov, u32 portid, u32 seq,
				    u8 cmd)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	hdr = genlmsg_put(msg, portid, seq, &gpupath_genl_family, 0, cmd);
	if (!hdr || put_provider(msg, prov)) {
		nlmsg_free(msg);
		return NULL;
	}
	genlmsg_end(msg, hdr);
	return msg;
}

/**
 * gpupath_genl_notify_provider() - tell the "config" group about a provider
 * @prov: the provider
 * @cmd: %GPUPATH_CMD_PROVIDER_NEW or %GPUPATH_CMD_PROVIDER_DEL
 */
void gpupath_genl_notify_provider(struct gpupath_provider *prov, u8 cmd)
{
	struct sk_buff *msg = provider_msg(prov, 0, 0, cmd);

	if (msg)
		genlmsg_multicast(&gpupath_genl_family, msg, 0, GPUPATH_NLGRP_CONFIG,
				  GFP_KERNEL);
}

/* The provider named by the request's GPUPATH_A_PROVIDER_ID. */
static struct gpupath_provider *provider_from_info(struct genl_info *info,
						   struct nlattr **tb)
{
	struct gpupath_provider *prov;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, GPUPATH_A_PROVIDER))
		return ERR_PTR(-EINVAL);
	ret = nla_parse_nested(tb, GPUPATH_A_PROVIDER_MAX, info->attrs[GPUPATH_A_PROVIDER],
			       provider_id_policy, info->extack);
	if (ret)
		return ERR_PTR(ret);
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_PROVIDER], tb,
			      GPUPATH_A_PROVIDER_ID))
		return ERR_PTR(-EINVAL);
	prov = gpupath_provider_get(nla_get_u32(tb[GPUPATH_A_PROVIDER_ID]));
	if (IS_ERR(prov))
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_PROVIDER_ID],
				    "no provider with this id");
	return prov;
}

static int provider_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];
	struct gpupath_provider *prov;
	struct sk_buff *msg;

	prov = provider_from_info(info, tb);
	if (IS_ERR(prov))
		return PTR_ERR(prov);
	msg = provider_msg(prov, info->snd_portid, info->snd_seq, GPUPATH_CMD_PROVIDER_NEW);
	gpupath_provider_put(prov);
	if (!msg)
		return -ENOMEM;
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the id of the last provider dumped. */
static int provider_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gpupath_provider *prov;
	void *hdr;

	cb->seq = gpupath_provider_generation();
	while ((prov = gpupath_provider_next(cb->args[0]))) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &gpupath_genl_family, NLM_F_MULTI, GPUPATH_CMD_PROVIDER_NEW);
		if (!hdr || put_provider(skb, prov)) {
			if (hdr)
				genlmsg_cancel(skb, hdr);
			gpupath_provider_put(prov);
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		genlmsg_end(skb, hdr);
		cb->args[0] = prov->id;
		gpupath_provider_put(prov);
	}
	return skb->len;
}

static int parse_bdf(const char *s, struct pci_dev **pdevp)
{
	unsigned int domain, bus, dev, fn;
	char end;

	if (sscanf(s, "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &end) != 4 ||
	    domain > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -EINVAL;
	*pdevp = pci_get_domain_bus_and_slot(domain, bus, PCI_DEVFN(dev, fn));
	return *pdevp ? 0 : -ENODEV;
}

static int provider_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];
	struct gpupath_provider *prov;
	struct pci_dev *pdev;
	struct sk_buff *msg;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, GPUPATH_A_PROVIDER))
		return -EINVAL;
	ret = nla_parse_nested(tb, GPUPATH_A_PROVIDER_MAX, info->attrs[GPUPATH_A_PROVIDER],
			       provider_new_policy, info->extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_PROVIDER], tb,
			      GPUPATH_A_PROVIDER_PCI_DEV))
		return -EINVAL;
	ret = parse_bdf(nla_data(tb[GPUPATH_A_PROVIDER_PCI_DEV]), &pdev);
	if (ret) {
		if (ret == -ENODEV)
			NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_PROVIDER_PCI_DEV],
					    "no such PCI device");
		else
			NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_PROVIDER_PCI_DEV],
					    "PCI address must look like 0000:03:00.0");
		return ret;
	}
	ret = gpupath_provider_add(pdev, GPUPATH_PROVIDER_P2PDMA, info->extack, &prov);
	pci_dev_put(pdev);
	if (ret)
		return ret;
	msg = provider_msg(prov, info->snd_portid, info->snd_seq, GPUPATH_CMD_PROVIDER_NEW);
	gpupath_provider_put(prov);
	return msg ? genlmsg_reply(msg, info) : 0;
}

static int provider_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];
	struct gpupath_provider *prov;
	u32 id;

	prov = provider_from_info(info, tb);
	if (IS_ERR(prov))
		return PTR_ERR(prov);
	id = prov->id;
	gpupath_provider_put(prov);
	return gpupath_provider_del(id, info->extack);
}

static const struct genl_ops gpupath_genl_ops[] = {
	{
		.cmd = GPUPATH_CMD_GET_INFO,
		.doit = get_info_doit,
		.policy = get_info_policy,
		.maxattr = ARRAY_SIZE(get_info_policy) - 1,
	},
	{
		.cmd = GPUPATH_CMD_PROVIDER_GET,
		.doit = provider_get_doit,
		.dumpit = provider_get_dumpit,
		.policy = provider_get_policy,
		.maxattr = ARRAY_SIZE(provider_get_policy) - 1,
	},
	{
		.cmd = GPUPATH_CMD_PROVIDER_NEW,
		.doit = provider_new_doit,
		.policy = provider_add_policy,
		.maxattr = ARRAY_SIZE(provider_add_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GPUPATH_CMD_PROVIDER_DEL,
		.doit = provider_del_doit,
		.policy = provider_get_policy,
		.maxattr = ARRAY_SIZE(provider_get_policy) - 1,
		.flags = GENL_ADMIN_PERM,
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
