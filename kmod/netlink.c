// SPDX-License-Identifier: GPL-2.0
/*
 * The generic-netlink family "gpupath"; the protocol is documented in
 * uapi/linux/gpupath.h.
 */
#include <linux/rwsem.h>
#include <linux/utsname.h>
#include <net/genetlink.h>

#include "feature.h"
#include "netlink.h"
#include "portal.h"
#include "provider.h"
#include "version.h"
#include "volume.h"

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

static const struct nla_policy volume_attr_policy[GPUPATH_A_VOLUME_MAX + 1] = {
	[GPUPATH_A_VOLUME_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPATH_A_VOLUME_WWID] = { .type = NLA_NUL_STRING, .len = GPUPATH_WWID_LEN - 1 },
	[GPUPATH_A_VOLUME_POLICY] = NLA_POLICY_MAX(NLA_U32, GPUPATH_POLICY_MAX),
	[GPUPATH_A_VOLUME_FALLBACK] = NLA_POLICY_MAX(NLA_U32, GPUPATH_POLICY_MAX),
	[GPUPATH_A_VOLUME_QUEUE_TIMEOUT] = { .type = NLA_U32 },
};

static const struct nla_policy volume_policy[GPUPATH_A_MAX + 1] = {
	[GPUPATH_A_VOLUME] = NLA_POLICY_NESTED(volume_attr_policy),
};

static const struct nla_policy path_attr_policy[GPUPATH_A_PATH_MAX + 1] = {
	[GPUPATH_A_PATH_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPATH_A_PATH_VOLUME] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPATH_A_PATH_DEVICE] = { .type = NLA_NUL_STRING, .len = PATH_MAX - 1 },
	[GPUPATH_A_PATH_STATE] = NLA_POLICY_MAX(NLA_U32, GPUPATH_PATH_STATE_MAX),
	[GPUPATH_A_PATH_WEIGHT] = NLA_POLICY_RANGE(NLA_U32, 1, GPUPATH_WEIGHT_MAX),
	[GPUPATH_A_PATH_RAIL] = { .type = NLA_U32 },
	[GPUPATH_A_PATH_LINK] = NLA_POLICY_MAX(NLA_U32, GPUPATH_LINK_MAX),
};

static const struct nla_policy path_policy[GPUPATH_A_MAX + 1] = {
	[GPUPATH_A_PATH] = NLA_POLICY_NESTED(path_attr_policy),
};

static const struct nla_policy portal_policy[GPUPATH_A_MAX + 1] = {
	[GPUPATH_A_PORTAL] = NLA_POLICY_NESTED(gpupath_portal_policy),
};

static const struct nla_policy qos_policy[GPUPATH_A_MAX + 1] = {
	[GPUPATH_A_QOS] = NLA_POLICY_NESTED(gpupath_qos_policy),
};

static struct genl_family gpupath_genl_family;

/*
 * Notifications go out only while the family is registered: senders hold
 * genl_ready_sem for reading while they test genl_ready and send, the
 * unregistration clears it holding the semaphore for writing first.
 */
static bool genl_ready;
static DECLARE_RWSEM(genl_ready_sem);

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

static int put_provider_obj(struct sk_buff *skb, void *prov)
{
	return put_provider(skb, prov);
}

/*
 * The largest message: a volume with many paths, or a portal with many
 * connections, can outgrow NLMSG_GOODSIZE. User space reads with a buffer
 * at least this large (libgpupath does).
 */
#define GPUPATH_MSG_MAX		(32 * 1024)

/* A message with one object, put by @put: in a page if it fits. */
static struct sk_buff *object_msg(u32 portid, u32 seq, u8 cmd,
				  int (*put)(struct sk_buff *skb, void *obj), void *obj)
{
	size_t size = NLMSG_GOODSIZE;
	struct sk_buff *msg;
	void *hdr;

	for (;;) {
		msg = genlmsg_new(size, GFP_KERNEL);
		if (!msg)
			return NULL;
		hdr = genlmsg_put(msg, portid, seq, &gpupath_genl_family, 0, cmd);
		if (hdr && !put(msg, obj))
			break;
		nlmsg_free(msg);
		if (!hdr || size == GPUPATH_MSG_MAX)
			return NULL;
		size = GPUPATH_MSG_MAX;
	}
	genlmsg_end(msg, hdr);
	return msg;
}

/* The reply to a request: one object, put by @put. */
static int reply_obj(struct genl_info *info, u8 cmd,
		     int (*put)(struct sk_buff *skb, void *obj), void *obj)
{
	struct sk_buff *msg = object_msg(info->snd_portid, info->snd_seq, cmd, put, obj);

	return msg ? genlmsg_reply(msg, info) : -ENOMEM;
}

/* One object of a dump, put by @put; -EMSGSIZE once the skb is full. */
static int dump_one(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		    int (*put)(struct sk_buff *skb, void *obj), void *obj)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &gpupath_genl_family, NLM_F_MULTI, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (put(skb, obj)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genl_dump_check_consistent(cb, hdr);
	genlmsg_end(skb, hdr);
	return 0;
}

/* Sends @msg (consumed) to group @grp, unless the family is going. */
static void multicast(struct sk_buff *msg, enum gpupath_nlgrp grp)
{
	if (!msg)
		return;
	down_read(&genl_ready_sem);
	if (genl_ready)
		genlmsg_multicast(&gpupath_genl_family, msg, 0, grp, GFP_KERNEL);
	else
		nlmsg_free(msg);
	up_read(&genl_ready_sem);
}

/**
 * gpupath_genl_notify_provider() - tell the "config" group about a provider
 * @prov: the provider
 * @cmd: %GPUPATH_CMD_PROVIDER_NEW or %GPUPATH_CMD_PROVIDER_DEL
 */
void gpupath_genl_notify_provider(struct gpupath_provider *prov, u8 cmd)
{
	if (READ_ONCE(genl_ready))
		multicast(object_msg(0, 0, cmd, put_provider_obj, prov), GPUPATH_NLGRP_CONFIG);
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
	msg = object_msg(info->snd_portid, info->snd_seq, GPUPATH_CMD_PROVIDER_NEW,
			 put_provider_obj, prov);
	gpupath_provider_put(prov);
	if (!msg)
		return -ENOMEM;
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the id of the last provider dumped. */
static int provider_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gpupath_provider *prov;
	int ret;

	cb->seq = gpupath_provider_generation();
	while ((prov = gpupath_provider_next(cb->args[0]))) {
		ret = dump_one(skb, cb, GPUPATH_CMD_PROVIDER_NEW, put_provider_obj, prov);
		if (!ret)
			cb->args[0] = prov->id;
		gpupath_provider_put(prov);
		if (ret)
			break;
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

/*
 * Providers (P2P memory registered), volumes and paths (NVMe namespaces
 * claimed exclusively) change the machine, not only the network: they need
 * CAP_SYS_ADMIN on top of the CAP_NET_ADMIN that GENL_ADMIN_PERM checks.
 */
static int need_sys_admin(struct sk_buff *skb, struct genl_info *info)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG_MOD(info->extack,
			   "providers, volumes and paths need CAP_SYS_ADMIN");
	return -EPERM;
}

static int provider_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];
	struct gpupath_provider *prov;
	struct pci_dev *pdev;
	struct sk_buff *msg;
	int ret;

	ret = need_sys_admin(skb, info);
	if (ret)
		return ret;
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
	msg = object_msg(info->snd_portid, info->snd_seq, GPUPATH_CMD_PROVIDER_NEW,
			 put_provider_obj, prov);
	gpupath_provider_put(prov);
	return msg ? genlmsg_reply(msg, info) : 0;
}

static int provider_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];
	struct gpupath_provider *prov;
	u32 id;
	int ret;

	ret = need_sys_admin(skb, info);
	if (ret)
		return ret;
	prov = provider_from_info(info, tb);
	if (IS_ERR(prov))
		return PTR_ERR(prov);
	id = prov->id;
	gpupath_provider_put(prov);
	return gpupath_provider_del(id, info->extack);
}

/* ---- volumes and paths ------------------------------------------------ */

static int put_u64(struct sk_buff *skb, int type, u64 val, int pad)
{
	return nla_put_u64_64bit(skb, type, val, pad);
}

/* A counter: its attribute type and value. */
struct counter {
	int type;
	u64 val;
};

/* A nest of u64 counters, padded with attribute @pad. */
static int put_counters(struct sk_buff *skb, int type, int pad, const struct counter *c,
			size_t n)
{
	struct nlattr *nest;
	size_t i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++)
		if (put_u64(skb, c[i].type, c[i].val, pad))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int put_path_stats(struct sk_buff *skb, struct gpupath_path *path)
{
	struct gpupath_path_stats *st = &path->stats;
	const struct counter c[] = {
		{ GPUPATH_A_PSTATS_IOS, atomic64_read(&st->ios) },
		{ GPUPATH_A_PSTATS_BYTES, atomic64_read(&st->bytes) },
		{ GPUPATH_A_PSTATS_ERRORS, atomic64_read(&st->errors) },
		{ GPUPATH_A_PSTATS_DIRECT_IOS, atomic64_read(&st->direct_ios) },
		{ GPUPATH_A_PSTATS_INFLIGHT, atomic_read(&path->inflight) },
		{ GPUPATH_A_PSTATS_LATENCY_NS, atomic64_read(&path->latency_ns) },
	};

	return put_counters(skb, GPUPATH_A_PATH_STATS, GPUPATH_A_PSTATS_PAD, c, ARRAY_SIZE(c));
}

/* The attributes of one path, inside a nest of type @type. */
static int put_path(struct sk_buff *skb, int type, struct gpupath_path *path)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, GPUPATH_A_PATH_ID, path->id) ||
	    nla_put_u32(skb, GPUPATH_A_PATH_VOLUME, path->vol->id) ||
	    nla_put_string(skb, GPUPATH_A_PATH_DEVICE, path->dev.bdev->bd_disk->disk_name) ||
	    nla_put_u32(skb, GPUPATH_A_PATH_STATE, READ_ONCE(path->state)) ||
	    nla_put_u32(skb, GPUPATH_A_PATH_HEALTH, READ_ONCE(path->health)) ||
	    nla_put_u32(skb, GPUPATH_A_PATH_WEIGHT, READ_ONCE(path->weight)) ||
	    nla_put_u32(skb, GPUPATH_A_PATH_RAIL, READ_ONCE(path->rail)) ||
	    nla_put_u32(skb, GPUPATH_A_PATH_LINK, READ_ONCE(path->link)) ||
	    nla_put_string(skb, GPUPATH_A_PATH_TRANSPORT, path->transport) ||
	    (path->ctrl && nla_put_string(skb, GPUPATH_A_PATH_CONTROLLER,
					  dev_name(path->ctrl))) ||
	    (path->dma.dev && nla_put_string(skb, GPUPATH_A_PATH_DMA_DEV,
					     dev_name(path->dma.dev))) ||
	    nla_put_u32(skb, GPUPATH_A_PATH_REASON, path->dma.reason) ||
	    put_path_stats(skb, path)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int put_volume_stats(struct sk_buff *skb, struct gpupath_volume *vol)
{
	struct gpupath_volume_stats *st = &vol->stats;
	const struct counter c[] = {
		{ GPUPATH_A_VSTATS_IOS, atomic64_read(&st->ios) },
		{ GPUPATH_A_VSTATS_BYTES, atomic64_read(&st->bytes) },
		{ GPUPATH_A_VSTATS_ERRORS, atomic64_read(&st->errors) },
		{ GPUPATH_A_VSTATS_RETRIES, atomic64_read(&st->retries) },
		{ GPUPATH_A_VSTATS_QUEUED, atomic64_read(&st->queued) },
		{ GPUPATH_A_VSTATS_REFUSED, atomic64_read(&st->refused) },
		{ GPUPATH_A_VSTATS_FAILOVERS, atomic64_read(&st->failovers) },
		{ GPUPATH_A_VSTATS_FAILOVER_LAST_NS, atomic64_read(&st->failover_last_ns) },
		{ GPUPATH_A_VSTATS_FAILOVER_MAX_NS, atomic64_read(&st->failover_max_ns) },
		{ GPUPATH_A_VSTATS_INFLIGHT, atomic_read(&vol->inflight) },
	};

	return put_counters(skb, GPUPATH_A_VOLUME_STATS, GPUPATH_A_VSTATS_PAD, c, ARRAY_SIZE(c));
}

static int put_volume_locked(struct sk_buff *skb, struct gpupath_volume *vol)
{
	struct gpupath_path *path;

	lockdep_assert_held(&vol->lock);
	if (nla_put_u32(skb, GPUPATH_A_VOLUME_ID, vol->id) ||
	    nla_put_string(skb, GPUPATH_A_VOLUME_NAME, vol->disk->disk_name) ||
	    nla_put_string(skb, GPUPATH_A_VOLUME_WWID, vol->wwid) ||
	    nla_put_u32(skb, GPUPATH_A_VOLUME_POLICY, READ_ONCE(vol->policy)) ||
	    nla_put_u32(skb, GPUPATH_A_VOLUME_FALLBACK, READ_ONCE(vol->fallback)) ||
	    nla_put_u32(skb, GPUPATH_A_VOLUME_QUEUE_TIMEOUT, READ_ONCE(vol->queue_timeout)) ||
	    put_u64(skb, GPUPATH_A_VOLUME_SIZE, get_capacity(vol->disk) << SECTOR_SHIFT,
		    GPUPATH_A_VOLUME_PAD) ||
	    nla_put_u32(skb, GPUPATH_A_VOLUME_BLOCK_SIZE,
			queue_logical_block_size(vol->disk->queue)) ||
	    nla_put_u32(skb, GPUPATH_A_VOLUME_MODE, gpupath_volume_mode(vol)) ||
	    nla_put_u32(skb, GPUPATH_A_VOLUME_OPEN, disk_openers(vol->disk)) ||
	    nla_put_u32(skb, GPUPATH_A_VOLUME_PATHS, vol->npaths) ||
	    nla_put_u32(skb, GPUPATH_A_VOLUME_USABLE, gpupath_volume_usable(vol)) ||
	    put_volume_stats(skb, vol))
		return -EMSGSIZE;
	list_for_each_entry(path, &vol->paths, node)
		if (put_path(skb, GPUPATH_A_VOLUME_PATH, path))
			return -EMSGSIZE;
	return 0;
}

static int put_volume(struct sk_buff *skb, struct gpupath_volume *vol)
{
	struct nlattr *nest;
	int ret;

	nest = nla_nest_start(skb, GPUPATH_A_VOLUME);
	if (!nest)
		return -EMSGSIZE;
	mutex_lock(&vol->lock);
	ret = put_volume_locked(skb, vol);
	mutex_unlock(&vol->lock);
	if (ret) {
		nla_nest_cancel(skb, nest);
		return ret;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int put_volume_obj(struct sk_buff *skb, void *vol)
{
	return put_volume(skb, vol);
}

static int put_path_obj(struct sk_buff *skb, void *path)
{
	return put_path(skb, GPUPATH_A_PATH, path);
}

/**
 * gpupath_genl_notify_volume() - tell the "config" group about a volume
 * @vol: the volume
 * @cmd: %GPUPATH_CMD_VOLUME_NEW (also for changes) or %GPUPATH_CMD_VOLUME_DEL
 */
void gpupath_genl_notify_volume(struct gpupath_volume *vol, u8 cmd)
{
	if (!READ_ONCE(genl_ready))
		return;
	multicast(object_msg(0, 0, cmd, put_volume_obj, vol), GPUPATH_NLGRP_CONFIG);
}

/**
 * gpupath_genl_notify_path() - tell the "config" group about a path
 * @vol: its volume
 * @path: the path, on the list under vol->lock or off it
 * @cmd: %GPUPATH_CMD_PATH_NEW (also for changes) or %GPUPATH_CMD_PATH_DEL
 */
void gpupath_genl_notify_path(struct gpupath_volume *vol, struct gpupath_path *path, u8 cmd)
{
	if (!READ_ONCE(genl_ready))
		return;
	multicast(object_msg(0, 0, cmd, put_path_obj, path), GPUPATH_NLGRP_CONFIG);
}

/**
 * gpupath_genl_event() - tell the "events" group what happened
 * @type: enum gpupath_event
 * @vol: volume id
 * @path: path id, or 0
 * @err: errno, or 0
 * @nsec: a duration, or 0
 * @ios: a count, or 0
 */
void gpupath_genl_event(u32 type, u32 vol, u32 path, u32 err, u64 nsec, u64 ios)
{
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;

	if (!READ_ONCE(genl_ready))
		return;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &gpupath_genl_family, 0, GPUPATH_CMD_EVENT);
	nest = hdr ? nla_nest_start(msg, GPUPATH_A_EVENT) : NULL;
	if (!nest ||
	    nla_put_u32(msg, GPUPATH_A_EVENT_TYPE, type) ||
	    nla_put_u32(msg, GPUPATH_A_EVENT_VOLUME, vol) ||
	    nla_put_u32(msg, GPUPATH_A_EVENT_PATH, path) ||
	    (err && nla_put_u32(msg, GPUPATH_A_EVENT_ERROR, err)) ||
	    (nsec && put_u64(msg, GPUPATH_A_EVENT_NSEC, nsec, GPUPATH_A_EVENT_PAD)) ||
	    (ios && put_u64(msg, GPUPATH_A_EVENT_IOS, ios, GPUPATH_A_EVENT_PAD))) {
		nlmsg_free(msg);
		return;
	}
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	multicast(msg, GPUPATH_NLGRP_EVENTS);
}

/* The request's nest @type, parsed with @policy into @tb. */
static int parse_nest(struct genl_info *info, int type, int max,
		      const struct nla_policy *policy, struct nlattr **tb)
{
	if (GENL_REQ_ATTR_CHECK(info, type))
		return -EINVAL;
	return nla_parse_nested(tb, max, info->attrs[type], policy, info->extack);
}

static s64 opt_u32(struct nlattr **tb, int type)
{
	if (!tb[type])
		return -1;
	return nla_get_u32(tb[type]);
}

static void volume_cfg(struct nlattr **tb, struct gpupath_volume_cfg *cfg)
{
	cfg->wwid = tb[GPUPATH_A_VOLUME_WWID] ? nla_data(tb[GPUPATH_A_VOLUME_WWID]) : NULL;
	cfg->policy = opt_u32(tb, GPUPATH_A_VOLUME_POLICY);
	cfg->fallback = opt_u32(tb, GPUPATH_A_VOLUME_FALLBACK);
	cfg->queue_timeout = opt_u32(tb, GPUPATH_A_VOLUME_QUEUE_TIMEOUT);
}

static void path_cfg(struct nlattr **tb, struct gpupath_path_cfg *cfg)
{
	cfg->state = opt_u32(tb, GPUPATH_A_PATH_STATE);
	cfg->weight = opt_u32(tb, GPUPATH_A_PATH_WEIGHT);
	cfg->rail = opt_u32(tb, GPUPATH_A_PATH_RAIL);
	cfg->link = opt_u32(tb, GPUPATH_A_PATH_LINK);
}

/* The volume named by the request's GPUPATH_A_VOLUME_ID. */
static struct gpupath_volume *volume_from_info(struct genl_info *info, struct nlattr **tb)
{
	struct gpupath_volume *vol;
	int ret;

	ret = parse_nest(info, GPUPATH_A_VOLUME, GPUPATH_A_VOLUME_MAX, volume_attr_policy, tb);
	if (ret)
		return ERR_PTR(ret);
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_VOLUME], tb,
			      GPUPATH_A_VOLUME_ID))
		return ERR_PTR(-EINVAL);
	vol = gpupath_volume_get(nla_get_u32(tb[GPUPATH_A_VOLUME_ID]));
	if (IS_ERR(vol))
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_VOLUME_ID],
				    "no volume with this id");
	return vol;
}

static int reply_volume(struct genl_info *info, struct gpupath_volume *vol)
{
	return reply_obj(info, GPUPATH_CMD_VOLUME_NEW, put_volume_obj, vol);
}

static int volume_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_VOLUME_MAX + 1];
	struct gpupath_volume *vol;
	int ret;

	vol = volume_from_info(info, tb);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	ret = reply_volume(info, vol);
	gpupath_volume_put(vol);
	return ret;
}

/* cb->args[0]: the id of the last volume dumped. */
static int volume_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gpupath_volume *vol;
	int ret;

	cb->seq = gpupath_volume_generation();
	while ((vol = gpupath_volume_next(cb->args[0]))) {
		ret = dump_one(skb, cb, GPUPATH_CMD_VOLUME_NEW, put_volume_obj, vol);
		if (!ret)
			cb->args[0] = vol->id;
		gpupath_volume_put(vol);
		if (ret)
			return skb->len ?: ret;	/* not even one fits: say so */
	}
	return skb->len;
}

static int volume_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_VOLUME_MAX + 1] = {};
	struct gpupath_volume_cfg cfg;
	struct gpupath_volume *vol;
	struct sk_buff *msg;
	int ret;

	ret = need_sys_admin(skb, info);
	if (ret)
		return ret;
	if (info->attrs[GPUPATH_A_VOLUME]) {
		ret = parse_nest(info, GPUPATH_A_VOLUME, GPUPATH_A_VOLUME_MAX,
				 volume_attr_policy, tb);
		if (ret)
			return ret;
	}
	if (tb[GPUPATH_A_VOLUME_ID]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_VOLUME_ID],
				    "the kernel picks a new volume's id");
		return -EINVAL;
	}
	volume_cfg(tb, &cfg);
	ret = gpupath_volume_add(&cfg, info->extack, &vol);
	if (ret)
		return ret;
	/* No reply, no volume: the caller is told what happened. */
	msg = object_msg(info->snd_portid, info->snd_seq, GPUPATH_CMD_VOLUME_NEW,
			 put_volume_obj, vol);
	if (!msg) {
		gpupath_volume_del(vol, NULL);
		gpupath_volume_put(vol);
		return -ENOMEM;
	}
	gpupath_genl_notify_volume(vol, GPUPATH_CMD_VOLUME_NEW);
	gpupath_volume_put(vol);
	return genlmsg_reply(msg, info);
}

static int volume_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_VOLUME_MAX + 1];
	struct gpupath_volume_cfg cfg;
	struct gpupath_volume *vol;
	int ret;

	ret = need_sys_admin(skb, info);
	if (ret)
		return ret;
	vol = volume_from_info(info, tb);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	volume_cfg(tb, &cfg);
	ret = gpupath_volume_set(vol, &cfg, info->extack);
	if (!ret)
		gpupath_genl_notify_volume(vol, GPUPATH_CMD_VOLUME_NEW);
	gpupath_volume_put(vol);
	return ret;
}

static int volume_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_VOLUME_MAX + 1];
	struct gpupath_volume *vol;
	int ret;

	ret = need_sys_admin(skb, info);
	if (ret)
		return ret;
	vol = volume_from_info(info, tb);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	ret = gpupath_volume_del(vol, info->extack);
	gpupath_volume_put(vol);
	return ret;
}

/* The volume of the path named by the request's GPUPATH_A_PATH_ID. */
static struct gpupath_volume *path_from_info(struct genl_info *info, struct nlattr **tb,
					     u32 *id)
{
	struct gpupath_volume *vol;
	int ret;

	ret = parse_nest(info, GPUPATH_A_PATH, GPUPATH_A_PATH_MAX, path_attr_policy, tb);
	if (ret)
		return ERR_PTR(ret);
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_PATH], tb, GPUPATH_A_PATH_ID))
		return ERR_PTR(-EINVAL);
	*id = nla_get_u32(tb[GPUPATH_A_PATH_ID]);
	vol = gpupath_volume_of_path(*id);
	if (IS_ERR(vol))
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_PATH_ID], "no path with this id");
	return vol;
}

/* Put the path @id of @vol (under vol->lock), or -ENOENT. */
static int put_path_of(struct sk_buff *skb, struct gpupath_volume *vol, u32 id)
{
	struct gpupath_path *path;
	int ret = -ENOENT;

	mutex_lock(&vol->lock);
	list_for_each_entry(path, &vol->paths, node)
		if (path->id == id)
			ret = put_path(skb, GPUPATH_A_PATH, path);
	mutex_unlock(&vol->lock);
	return ret;
}

static int path_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1];
	struct gpupath_volume *vol;
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int ret;

	vol = path_from_info(info, tb, &id);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &gpupath_genl_family, 0, GPUPATH_CMD_PATH_NEW);
	ret = hdr ? put_path_of(msg, vol, id) : -EMSGSIZE;
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
out:
	gpupath_volume_put(vol);
	return ret;
}

/*
 * cb->args[0]: the volume being dumped, [1]: the last path id dumped,
 * [2]: only this volume's paths (0: all).
 */
static int path_dump_volume(struct sk_buff *skb, struct netlink_callback *cb,
			    struct gpupath_volume *vol)
{
	struct gpupath_path *path;
	int ret = 0;

	mutex_lock(&vol->lock);
	list_for_each_entry(path, &vol->paths, node) {
		if (path->id <= cb->args[1])
			continue;
		ret = dump_one(skb, cb, GPUPATH_CMD_PATH_NEW, put_path_obj, path);
		if (ret)
			break;
		cb->args[1] = path->id;
	}
	mutex_unlock(&vol->lock);
	return ret;
}

static int path_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = gpupath_compat_dump_attrs(cb);
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1] = {};
	struct gpupath_volume *vol;
	u32 only = 0;

	if (attrs[GPUPATH_A_PATH]) {
		if (nla_parse_nested(tb, GPUPATH_A_PATH_MAX, attrs[GPUPATH_A_PATH],
				     path_attr_policy, cb->extack))
			return -EINVAL;
		if (tb[GPUPATH_A_PATH_VOLUME])
			only = nla_get_u32(tb[GPUPATH_A_PATH_VOLUME]);
	}
	cb->seq = gpupath_volume_generation();
	while ((vol = gpupath_volume_next(cb->args[0]))) {
		if (only && vol->id != only) {
			cb->args[0] = vol->id;
			gpupath_volume_put(vol);
			continue;
		}
		if (path_dump_volume(skb, cb, vol)) {
			gpupath_volume_put(vol);
			break;
		}
		cb->args[0] = vol->id;
		cb->args[1] = 0;
		gpupath_volume_put(vol);
	}
	return skb->len;
}

static int path_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1];
	struct gpupath_path_cfg cfg;
	struct gpupath_volume *vol;
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int ret;

	ret = need_sys_admin(skb, info);
	if (ret)
		return ret;
	ret = parse_nest(info, GPUPATH_A_PATH, GPUPATH_A_PATH_MAX, path_attr_policy, tb);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_PATH], tb,
			      GPUPATH_A_PATH_VOLUME) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_PATH], tb,
			      GPUPATH_A_PATH_DEVICE))
		return -EINVAL;
	if (tb[GPUPATH_A_PATH_ID]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_PATH_ID],
				    "the kernel picks a new path's id");
		return -EINVAL;
	}
	vol = gpupath_volume_get(nla_get_u32(tb[GPUPATH_A_PATH_VOLUME]));
	if (IS_ERR(vol)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_PATH_VOLUME],
				    "no volume with this id");
		return PTR_ERR(vol);
	}
	path_cfg(tb, &cfg);
	ret = gpupath_path_add(vol, nla_data(tb[GPUPATH_A_PATH_DEVICE]), &cfg, info->extack,
			       &id);
	if (ret)
		goto out;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &gpupath_genl_family, 0, GPUPATH_CMD_PATH_NEW);
	if (!hdr || put_path_of(msg, vol, id)) {
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
out:
	gpupath_volume_put(vol);
	return ret;
}

static int path_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1];
	struct gpupath_path_cfg cfg;
	struct gpupath_volume *vol;
	u32 id;
	int ret;

	ret = need_sys_admin(skb, info);
	if (ret)
		return ret;
	vol = path_from_info(info, tb, &id);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	if (tb[GPUPATH_A_PATH_DEVICE] || tb[GPUPATH_A_PATH_VOLUME]) {
		NL_SET_ERR_MSG(info->extack, "a path's device and volume cannot change");
		ret = -EINVAL;
	} else {
		path_cfg(tb, &cfg);
		ret = gpupath_path_set(vol, id, &cfg, info->extack);
	}
	gpupath_volume_put(vol);
	return ret;
}

static int path_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1];
	struct gpupath_volume *vol;
	u32 id;
	int ret;

	ret = need_sys_admin(skb, info);
	if (ret)
		return ret;
	vol = path_from_info(info, tb, &id);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	ret = gpupath_path_del(vol, id, info->extack);
	gpupath_volume_put(vol);
	return ret;
}

/* Every top-level policy covers GPUPATH_A_*, up to GPUPATH_A_MAX. */
/*
 * Portals and QoS classes: plain objects the module keeps for the daemon,
 * all under the portal lock, handled alike.
 */
struct kept {
	int attr;				/* GPUPATH_A_PORTAL, ... */
	int max;
	const struct nla_policy *policy;
	u8 get_cmd;
	u8 new_cmd;
	u8 set_cmd;
	u8 del_cmd;
	int (*put)(struct sk_buff *skb, void *obj);
	void *(*find)(struct nlattr **tb, struct netlink_ext_ack *extack);
	void *(*next)(u32 after, u32 *id);
	int (*add)(const struct nlattr *nest, struct nlattr **tb,
		   struct netlink_ext_ack *extack, void **objp);
	int (*set)(void *obj, const struct nlattr *nest, struct nlattr **tb,
		   struct netlink_ext_ack *extack);
	int (*del)(void *obj, struct netlink_ext_ack *extack);
};

#define KEPT_MAX	GPUPATH_A_PORTAL_MAX	/* the largest of the kept kinds */
static_assert((int)GPUPATH_A_QOS_MAX <= (int)KEPT_MAX);

static int put_portal_obj(struct sk_buff *skb, void *portal)
{
	return gpupath_portal_put(skb, portal);
}

static void *find_portal(struct nlattr **tb, struct netlink_ext_ack *extack)
{
	return gpupath_portal_find_locked(tb, extack);
}

static void *next_portal(u32 after, u32 *id)
{
	struct gpupath_portal *portal = gpupath_portal_next_locked(after);

	if (portal)
		*id = portal->id;
	return portal;
}

static int add_portal(const struct nlattr *nest, struct nlattr **tb,
		      struct netlink_ext_ack *extack, void **objp)
{
	return gpupath_portal_add_locked(nest, tb, extack, (struct gpupath_portal **)objp);
}

static int set_portal(void *obj, const struct nlattr *nest, struct nlattr **tb,
		      struct netlink_ext_ack *extack)
{
	return gpupath_portal_set_locked(obj, nest, tb, extack);
}

static int del_portal(void *obj, struct netlink_ext_ack *extack)
{
	gpupath_portal_del_locked(obj);
	return 0;
}

static const struct kept portal_kept = {
	GPUPATH_A_PORTAL, GPUPATH_A_PORTAL_MAX, gpupath_portal_policy,
	GPUPATH_CMD_PORTAL_GET, GPUPATH_CMD_PORTAL_NEW, GPUPATH_CMD_PORTAL_SET,
	GPUPATH_CMD_PORTAL_DEL, put_portal_obj, find_portal,
	next_portal, add_portal, set_portal, del_portal,
};

static int put_qos_obj(struct sk_buff *skb, void *qos)
{
	return gpupath_qos_put(skb, qos);
}

static void *find_qos(struct nlattr **tb, struct netlink_ext_ack *extack)
{
	return gpupath_qos_find_locked(tb, extack);
}

static void *next_qos(u32 after, u32 *id)
{
	struct gpupath_qos *qos = gpupath_qos_next_locked(after);

	if (qos)
		*id = qos->id;
	return qos;
}

static int add_qos(const struct nlattr *nest, struct nlattr **tb,
		   struct netlink_ext_ack *extack, void **objp)
{
	return gpupath_qos_add_locked(tb, extack, (struct gpupath_qos **)objp);
}

static int set_qos(void *obj, const struct nlattr *nest, struct nlattr **tb,
		   struct netlink_ext_ack *extack)
{
	return gpupath_qos_set_locked(obj, nest, tb, extack);
}

static int del_qos(void *obj, struct netlink_ext_ack *extack)
{
	return gpupath_qos_del_locked(obj, extack);
}

static const struct kept qos_kept = {
	GPUPATH_A_QOS, GPUPATH_A_QOS_MAX, gpupath_qos_policy,
	GPUPATH_CMD_QOS_GET, GPUPATH_CMD_QOS_NEW, GPUPATH_CMD_QOS_SET,
	GPUPATH_CMD_QOS_DEL, put_qos_obj, find_qos,
	next_qos, add_qos, set_qos, del_qos,
};

/* The notification about @obj, or NULL; under the portal lock. */
static struct sk_buff *kept_msg(const struct kept *k, void *obj, u8 cmd)
{
	if (!READ_ONCE(genl_ready))
		return NULL;
	return object_msg(0, 0, cmd, k->put, obj);
}

/* Under the portal lock. */
static void notify_kept(const struct kept *k, void *obj, u8 cmd)
{
	multicast(kept_msg(k, obj, cmd), GPUPATH_NLGRP_CONFIG);
}

/* cb->args[0]: the id of the last object dumped. */
static int kept_dumpit(const struct kept *k, struct sk_buff *skb, struct netlink_callback *cb)
{
	void *obj;
	u32 id;
	int ret = 0;

	gpupath_portal_lock();
	cb->seq = gpupath_portal_generation();
	while ((obj = k->next(cb->args[0], &id))) {
		ret = dump_one(skb, cb, k->new_cmd, k->put, obj);
		if (ret)
			break;
		cb->args[0] = id;
	}
	gpupath_portal_unlock();
	return skb->len ?: ret;	/* not even one fits: say so */
}

/* GET, NEW, SET or DEL (the request's command) of a kept object, under the portal lock. */
static int kept_doit(const struct kept *k, struct genl_info *info)
{
	const struct nlattr *nest = info->attrs[k->attr];
	u8 op = info->genlhdr->cmd;
	struct nlattr *tb[KEPT_MAX + 1];
	struct sk_buff *msg;
	void *obj;
	int ret;

	ret = parse_nest(info, k->attr, k->max, k->policy, tb);
	if (ret)
		return ret;
	gpupath_portal_lock();
	if (op == k->new_cmd) {
		ret = k->add(nest, tb, info->extack, &obj);
	} else {
		obj = k->find(tb, info->extack);
		ret = PTR_ERR_OR_ZERO(obj);
	}
	if (ret)
		goto out;
	if (op == k->new_cmd) {
		/* No reply, no object: the caller is told what happened. */
		msg = object_msg(info->snd_portid, info->snd_seq, k->new_cmd, k->put, obj);
		if (!msg) {
			k->del(obj, NULL);
			ret = -ENOMEM;
			goto out;
		}
		notify_kept(k, obj, k->new_cmd);
		ret = genlmsg_reply(msg, info);
	} else if (op == k->get_cmd) {
		ret = reply_obj(info, k->new_cmd, k->put, obj);
	} else if (op == k->set_cmd) {
		ret = k->set(obj, nest, tb, info->extack);
		if (!ret)
			notify_kept(k, obj, k->new_cmd);
	} else {
		/* DEL. The notification carries the object: built before, sent after. */
		msg = kept_msg(k, obj, k->del_cmd);
		ret = k->del(obj, info->extack);
		if (ret)
			nlmsg_free(msg);
		else
			multicast(msg, GPUPATH_NLGRP_CONFIG);
	}
out:
	gpupath_portal_unlock();
	return ret;
}

static int portal_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return kept_dumpit(&portal_kept, skb, cb);
}

static int portal_doit(struct sk_buff *skb, struct genl_info *info)
{
	return kept_doit(&portal_kept, info);
}

static int qos_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return kept_dumpit(&qos_kept, skb, cb);
}

static int qos_doit(struct sk_buff *skb, struct genl_info *info)
{
	return kept_doit(&qos_kept, info);
}

/* Dumps start with room for the largest object (netlink allocates that). */
static int dump_start(struct netlink_callback *cb)
{
	cb->min_dump_alloc = GPUPATH_MSG_MAX;
	return 0;
}

#define GPUPATH_OP_READ(c, d, dump, p) \
	{ .cmd = (c), .start = dump_start, .doit = (d), .dumpit = (dump), .policy = (p), \
	  .maxattr = GPUPATH_A_MAX }
#define GPUPATH_OP_ADMIN(c, d, p) \
	{ .cmd = (c), .doit = (d), .policy = (p), .maxattr = GPUPATH_A_MAX, \
	  .flags = GENL_ADMIN_PERM }

static const struct genl_ops gpupath_genl_ops[] = {
	GPUPATH_OP_READ(GPUPATH_CMD_GET_INFO, get_info_doit, NULL, get_info_policy),
	GPUPATH_OP_READ(GPUPATH_CMD_PROVIDER_GET, provider_get_doit, provider_get_dumpit,
			provider_get_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_PROVIDER_NEW, provider_new_doit, provider_add_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_PROVIDER_DEL, provider_del_doit, provider_get_policy),
	GPUPATH_OP_READ(GPUPATH_CMD_VOLUME_GET, volume_get_doit, volume_get_dumpit, volume_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_VOLUME_NEW, volume_new_doit, volume_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_VOLUME_DEL, volume_del_doit, volume_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_VOLUME_SET, volume_set_doit, volume_policy),
	GPUPATH_OP_READ(GPUPATH_CMD_PATH_GET, path_get_doit, path_get_dumpit, path_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_PATH_NEW, path_new_doit, path_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_PATH_DEL, path_del_doit, path_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_PATH_SET, path_set_doit, path_policy),
	GPUPATH_OP_READ(GPUPATH_CMD_PORTAL_GET, portal_doit, portal_get_dumpit,
			portal_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_PORTAL_NEW, portal_doit, portal_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_PORTAL_DEL, portal_doit, portal_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_PORTAL_SET, portal_doit, portal_policy),
	GPUPATH_OP_READ(GPUPATH_CMD_QOS_GET, qos_doit, qos_get_dumpit, qos_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_QOS_NEW, qos_doit, qos_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_QOS_DEL, qos_doit, qos_policy),
	GPUPATH_OP_ADMIN(GPUPATH_CMD_QOS_SET, qos_doit, qos_policy),
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
	int ret = genl_register_family(&gpupath_genl_family);

	WRITE_ONCE(genl_ready, !ret);
	return ret;
}

/**
 * gpupath_genl_uninit() - unregister the generic-netlink family
 */
void gpupath_genl_uninit(void)
{
	/* No sender is between its test of genl_ready and its send. */
	down_write(&genl_ready_sem);
	WRITE_ONCE(genl_ready, false);
	up_write(&genl_ready_sem);
	genl_unregister_family(&gpupath_genl_family);
}
