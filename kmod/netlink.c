// SPDX-License-Identifier: GPL-2.0
/*
 * The handlers of the generic-netlink family "gpupath", defined in
 * Documentation/netlink/specs/gpupath.yaml: its policies and ops are
 * generated from there (netlink-gen.c, registered by family.c), and the
 * protocol is documented in uapi/linux/gpupath.h.
 */
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/namei.h>
#include <linux/rwsem.h>
#include <linux/utsname.h>
#include <net/genetlink.h>

#include "family.h"
#include "feature.h"
#include "io.h"
#include "netlink.h"
#include "nl.h"
#include "notify.h"
#include "provider.h"
#include "stack.h"
#include "version.h"

/*
 * Notifications go out only while the family is registered: senders hold
 * genl_ready_sem for reading while they test genl_ready and send, the
 * unregistration clears it holding the semaphore for writing first.
 */
static bool genl_ready;
static DECLARE_RWSEM(genl_ready_sem);

/* Whether the family is registered, for senders of notifications. */
bool gpupath_nl_ready(void)
{
	return READ_ONCE(genl_ready);
}

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

int gpupath_nl_get_info_doit(struct sk_buff *skb, struct genl_info *info)
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

/**
 * gpupath_nl_put_stats() - device-memory I/O counters as a stats nest
 * @skb: the message
 * @type: the nest's attribute
 * @st: the counters
 *
 * Return: 0 or -EMSGSIZE.
 */
int gpupath_nl_put_stats(struct sk_buff *skb, int type, struct gpupath_stats *st)
{
	struct nlattr *nest;
	int reason;

	nest = nla_nest_start(skb, type);
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

/**
 * gpupath_nl_nest_done() - a nest is ended, or cancelled when it did not fit
 * @skb: the message
 * @nest: the nest, or NULL when it could not start
 * @full: something of it did not fit
 *
 * Return: 0, or -EMSGSIZE (then @nest is gone).
 */
int gpupath_nl_nest_done(struct sk_buff *skb, struct nlattr *nest, bool full)
{
	if (!nest || full) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
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

/* The DMA-capable functions P2P may reach the memory from (distances cached). */
static int put_peers(struct sk_buff *skb, struct gpupath_provider *prov)
{
	struct pci_dev *pdev = NULL;
	struct nlattr *nest;
	int dist;

	for_each_pci_dev(pdev) {
		if (pdev == prov->pdev || !dma_peer_class(pdev))
			continue;
		dist = gpupath_provider_distance(prov, &pdev->dev);
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

static int put_provider(struct sk_buff *skb, struct gpupath_provider *prov,
			const struct gpupath_viewer *who)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, GPUPATH_A_PROVIDER);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, GPUPATH_A_PROVIDER_ID, prov->id) ||
	    nla_put_u32(skb, GPUPATH_A_PROVIDER_TYPE, prov->type) ||
	    nla_put_string(skb, GPUPATH_A_PROVIDER_PCI_DEV, pci_name(prov->pdev)) ||
	    (prov->driver[0] && nla_put_string(skb, GPUPATH_A_PROVIDER_DRIVER, prov->driver)) ||
	    nla_put_u32(skb, GPUPATH_A_PROVIDER_OWNED, prov->owned) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_PROVIDER_SIZE, gpupath_provider_size(prov),
			      GPUPATH_A_PROVIDER_PAD) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_PROVIDER_ALLOCATED,
			      atomic64_read(&prov->allocated), GPUPATH_A_PROVIDER_PAD) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_PROVIDER_AVAILABLE,
			      gpupath_provider_available(prov), GPUPATH_A_PROVIDER_PAD) ||
	    (prov->bar >= 0 && nla_put_u32(skb, GPUPATH_A_PROVIDER_BAR, prov->bar)) ||
	    put_peers(skb, prov) ||
	    gpupath_nl_put_stats(skb, GPUPATH_A_PROVIDER_STATS, &prov->stats) ||
	    gpupath_nl_put_quota(skb, &prov->quota, who)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* A provider as one reader may see it. */
struct provider_msg {
	struct gpupath_provider *prov;
	const struct gpupath_viewer *who;
};

static int put_provider_obj(struct sk_buff *skb, void *obj)
{
	struct provider_msg *m = obj;

	return put_provider(skb, m->prov, m->who);
}

/* The reply to @skb about @prov, as its sender may see it. */
static int reply_provider(struct sk_buff *skb, struct genl_info *info,
			  struct gpupath_provider *prov)
{
	struct gpupath_viewer who;
	struct provider_msg m = { .prov = prov, .who = &who };
	int ret;

	gpupath_viewer_init(&who, skb);
	ret = gpupath_nl_reply(info, put_provider_obj, &m);
	gpupath_viewer_release(&who);
	return ret;
}

/* A message with one object, put by @put: in a page if it fits. */
struct sk_buff *gpupath_nl_msg(u32 portid, u32 seq, u8 cmd,
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

/* The reply to a request, with its command: one object, put by @put. */
int gpupath_nl_reply(struct genl_info *info, int (*put)(struct sk_buff *skb, void *obj),
		     void *obj)
{
	struct sk_buff *msg = gpupath_nl_msg(info->snd_portid, info->snd_seq, info->genlhdr->cmd,
					 put, obj);

	return msg ? genlmsg_reply(msg, info) : -ENOMEM;
}

/*
 * One object of a dump, put by @put, with the dump request's command;
 * -EMSGSIZE once the skb is full.
 */
int gpupath_nl_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			int (*put)(struct sk_buff *skb, void *obj), void *obj)
{
	const struct genlmsghdr *req = nlmsg_data(cb->nlh);
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &gpupath_genl_family, NLM_F_MULTI, req->cmd);
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
void gpupath_nl_multicast(struct sk_buff *msg, unsigned int grp)
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
 * gpupath_notify_provider() - tell the "config" group about a provider
 * @prov: the provider
 * @cmd: %GPUPATH_CMD_PROVIDER_NEW or %GPUPATH_CMD_PROVIDER_DEL
 */
void gpupath_notify_provider(struct gpupath_provider *prov, u8 cmd)
{
	struct provider_msg m = { .prov = prov };

	if (gpupath_nl_ready())
		gpupath_nl_multicast(gpupath_nl_msg(0, 0, cmd, put_provider_obj, &m),
				     GPUPATH_NLGRP_CONFIG);
}

/**
 * gpupath_nl_parse_policy() - a request's nest, parsed
 * @nest: the nest
 * @policy: what its command takes inside it: the generated
 *	gpupath_<command>_request_nl_policy
 * @maxtype: @policy's largest attribute
 * @tb: the attributes, @max + 1 entries (those above @maxtype NULL)
 * @max: the largest attribute of the nest's set
 * @extack: for errors
 *
 * Return: 0 or the error of nla_parse_nested().
 */
int gpupath_nl_parse_policy(const struct nlattr *nest, const struct nla_policy *policy,
			    int maxtype, struct nlattr **tb, int max,
			    struct netlink_ext_ack *extack)
{
	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (WARN_ON_ONCE(maxtype > max))
		return -EINVAL;
	return nla_parse_nested(tb, maxtype, nest, policy, extack);
}

/*
 * A refusal by an object's code names no attribute: it is about @attr, the
 * one the request gave for what was refused (its device, its id).
 */
int gpupath_nl_refused_at(struct netlink_ext_ack *extack, const struct nlattr *attr, int ret)
{
	if (ret && extack && attr && !extack->bad_attr && !extack->miss_type)
		NL_SET_BAD_ATTR(extack, attr);
	return ret;
}

/* The request's nest @type, which it must have, parsed as gpupath_nl_parse_policy() does. */
int gpupath_nl_parse_info(struct genl_info *info, int type, const struct nla_policy *policy,
			  int maxtype, struct nlattr **tb, int max)
{
	if (GENL_REQ_ATTR_CHECK(info, type))
		return -EINVAL;
	return gpupath_nl_parse_policy(info->attrs[type], policy, maxtype, tb, max, info->extack);
}

/* The provider named by the request's GPUPATH_A_PROVIDER_ID. */
static struct gpupath_provider *provider_from_info(struct genl_info *info,
						   const struct nla_policy *policy, int maxtype,
						   struct nlattr **tb)
{
	struct gpupath_provider *prov;
	int ret;

	ret = gpupath_nl_parse_info(info, GPUPATH_A_PROVIDER, policy, maxtype, tb,
				    GPUPATH_A_PROVIDER_MAX);
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

int gpupath_nl_provider_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];
	struct gpupath_provider *prov;
	int ret;

	prov = provider_from_info(info, gpupath_provider_get_request_nl_policy,
				  ARRAY_SIZE(gpupath_provider_get_request_nl_policy) - 1, tb);
	if (IS_ERR(prov))
		return PTR_ERR(prov);
	ret = reply_provider(skb, info, prov);
	gpupath_provider_put(prov);
	return ret;
}

/* cb->args[0]: the id of the last provider dumped. */
int gpupath_nl_provider_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct provider_msg m = {};
	struct gpupath_viewer who;
	int ret;

	gpupath_viewer_init(&who, cb->skb);
	m.who = &who;
	cb->seq = gpupath_provider_generation();
	while ((m.prov = gpupath_provider_next(cb->args[0]))) {
		ret = gpupath_nl_dump_one(skb, cb, put_provider_obj, &m);
		if (!ret)
			cb->args[0] = m.prov->id;
		gpupath_provider_put(m.prov);
		if (ret)
			break;
	}
	gpupath_viewer_release(&who);
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
 * claimed exclusively) and portals (which root's gpupathd connects, reads
 * secret files for and assembles into volumes) change the machine, not
 * only the network: they need CAP_SYS_ADMIN on top of the CAP_NET_ADMIN
 * that GENL_ADMIN_PERM checks.
 */
int gpupath_nl_need_sys_admin(struct sk_buff *skb, struct genl_info *info)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG_MOD(info->extack,
			   "providers, volumes, paths, portals and dm tables need CAP_SYS_ADMIN");
	return -EPERM;
}

/**
 * gpupath_viewer_init() - who reads the reply to @skb
 * @v: filled in; release with gpupath_viewer_release()
 * @skb: the request (its socket's credentials), read in the requester's context
 */
void gpupath_viewer_init(struct gpupath_viewer *v, struct sk_buff *skb)
{
	v->all = netlink_capable(skb, CAP_SYS_ADMIN);
	v->uid = current_uid();
	rcu_read_lock();
	v->cgrp = task_dfl_cgroup(current);
	if (!cgroup_tryget(v->cgrp))
		v->cgrp = NULL;
	rcu_read_unlock();
}

/**
 * gpupath_viewer_release() - drop what gpupath_viewer_init() took
 * @v: the viewer
 */
void gpupath_viewer_release(struct gpupath_viewer *v)
{
	if (v->cgrp)
		cgroup_put(v->cgrp);
}

/**
 * gpupath_viewer_sees() - whether a tenant's entry goes into the reply
 * @v: the reader, NULL for a notification
 * @cgrp: the entry's cgroup, or NULL for a user's entry
 * @uid: the user's
 *
 * Return: true when @v may see it.
 */
bool gpupath_viewer_sees(const struct gpupath_viewer *v, struct cgroup *cgrp, kuid_t uid)
{
	if (!v)
		return false;
	if (v->all)
		return true;
	/* Its cgroup's ancestors too: their limits bound it. */
	if (cgrp)
		return v->cgrp && (cgroup_is_descendant(cgrp, v->cgrp) ||
				   cgroup_is_descendant(v->cgrp, cgrp));
	return uid_eq(uid, v->uid);
}

int gpupath_nl_provider_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	/* The caller has CAP_SYS_ADMIN: the provider is new, nobody holds any of it yet. */
	static const struct gpupath_viewer admin = { .all = true };
	struct provider_msg m = { .who = &admin };
	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];
	struct gpupath_provider *prov;
	struct pci_dev *pdev;
	struct sk_buff *msg;
	u32 id;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	ret = gpupath_nl_parse_info(info, GPUPATH_A_PROVIDER,
				    gpupath_provider_new_request_nl_policy,
				    ARRAY_SIZE(gpupath_provider_new_request_nl_policy) - 1,
				    tb, GPUPATH_A_PROVIDER_MAX);
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
	/*
	 * Memory its driver did not publish is not another's to use (looked
	 * at before the device lock: the answer may be a sysfs read).
	 */
	if (IS_ENABLED(CONFIG_PCI_P2PDMA) && !gpupath_compat_p2pmem_published(pdev)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "device publishes no P2P memory: bind it to the gpupath driver with driver_override, or use a device whose driver publishes its BAR");
		ret = -ENODEV;
	} else {
		/* Its driver stays while it is looked at (unbinding it removes the provider). */
		device_lock(&pdev->dev);
		ret = gpupath_provider_add(pdev, GPUPATH_PROVIDER_P2PDMA, info->extack, &prov);
		device_unlock(&pdev->dev);
	}
	ret = gpupath_nl_refused_at(info->extack, tb[GPUPATH_A_PROVIDER_PCI_DEV], ret);
	pci_dev_put(pdev);
	if (ret)
		return ret;
	m.prov = prov;
	msg = gpupath_nl_msg(info->snd_portid, info->snd_seq, GPUPATH_CMD_PROVIDER_NEW,
			     put_provider_obj, &m);
	id = prov->id;
	gpupath_provider_put(prov);
	if (!msg) {
		/*
		 * No reply, no provider: the caller is told what happened,
		 * unless memory was already taken from it (then it stays).
		 */
		return gpupath_provider_del(id, NULL) == -EBUSY ? 0 : -ENOMEM;
	}
	return genlmsg_reply(msg, info);
}

/* The provider a change names, for a caller who may change providers. */
static struct gpupath_provider *provider_to_change(struct sk_buff *skb, struct genl_info *info,
						   const struct nla_policy *policy, int maxtype,
						   struct nlattr **tb)
{
	int ret = gpupath_nl_need_sys_admin(skb, info);

	return ret ? ERR_PTR(ret) : provider_from_info(info, policy, maxtype, tb);
}

int gpupath_nl_provider_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];
	struct gpupath_provider *prov;
	u32 id;

	prov = provider_to_change(skb, info, gpupath_provider_del_request_nl_policy,
				  ARRAY_SIZE(gpupath_provider_del_request_nl_policy) - 1, tb);
	if (IS_ERR(prov))
		return PTR_ERR(prov);
	id = prov->id;
	gpupath_provider_put(prov);
	return gpupath_nl_refused_at(info->extack, tb[GPUPATH_A_PROVIDER_ID],
			  gpupath_provider_del(id, info->extack));
}

/* A limit: absent is "leave it" (-1). */
static s64 opt_limit(struct nlattr **tb, int type)
{
	return tb[type] ? (s64)min_t(u64, nla_get_u64(tb[type]), S64_MAX) : -1;
}

/*
 * PROVIDER_SET's limits: per user and per cgroup, or one cgroup's own (with
 * CGROUP). All is checked before anything changes.
 */
static int set_limits(struct gpupath_provider *prov, struct nlattr **tb,
		      struct netlink_ext_ack *extack)
{
	struct nlattr *cg = tb[GPUPATH_A_PROVIDER_CGROUP];
	bool dflt = nla_get_flag(tb[GPUPATH_A_PROVIDER_CGROUP_LIMIT_DEFAULT]);
	bool climit = tb[GPUPATH_A_PROVIDER_CGROUP_LIMIT];
	u64 size = gpupath_provider_size(prov);
	int ret;

	if (!tb[GPUPATH_A_PROVIDER_USER_LIMIT] && !climit && !dflt) {
		NL_SET_ERR_MSG_MOD(extack, "nothing to change: give user-limit or cgroup-limit");
		return -EINVAL;
	}
	if (prov->type != GPUPATH_PROVIDER_P2PDMA) {
		NL_SET_ERR_MSG_MOD(extack,
				   "only memory gpupath allocates has limits: not an nvidia provider");
		return -EOPNOTSUPP;
	}
	if (cg && climit == dflt) {
		NL_SET_ERR_MSG_MOD(extack,
				   "a cgroup takes cgroup-limit SIZE or cgroup-limit default");
		return -EINVAL;
	}
	if (!cg && dflt) {
		NL_SET_ERR_MSG_MOD(extack, "cgroup-limit default needs a cgroup");
		return -EINVAL;
	}
	if (gpupath_quota_check(opt_limit(tb, GPUPATH_A_PROVIDER_USER_LIMIT), size, extack))
		return -EINVAL;
	if (cg) {
		ret = gpupath_quota_set_cgroup(&prov->quota, nla_data(cg),
					       dflt ? -1 : opt_limit(tb,
								GPUPATH_A_PROVIDER_CGROUP_LIMIT),
					       size, extack);
		if (ret)
			return gpupath_nl_refused_at(extack, cg, ret);
		return gpupath_quota_set(&prov->quota,
					 opt_limit(tb, GPUPATH_A_PROVIDER_USER_LIMIT), -1, size,
					 extack);
	}
	return gpupath_quota_set(&prov->quota, opt_limit(tb, GPUPATH_A_PROVIDER_USER_LIMIT),
				 opt_limit(tb, GPUPATH_A_PROVIDER_CGROUP_LIMIT), size, extack);
}

int gpupath_nl_provider_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];
	struct gpupath_provider *prov;
	int ret;

	prov = provider_to_change(skb, info, gpupath_provider_set_request_nl_policy,
				  ARRAY_SIZE(gpupath_provider_set_request_nl_policy) - 1, tb);
	if (IS_ERR(prov))
		return PTR_ERR(prov);
	ret = set_limits(prov, tb, info->extack);
	if (!ret) {
		ret = reply_provider(skb, info, prov);
		gpupath_notify_provider(prov, GPUPATH_CMD_PROVIDER_SET);
	}
	gpupath_provider_put(prov);
	return ret;
}

/* ---- route queries -------------------------------------------------- */

/*
 * The target of a route query, opened for reading as the caller: only a
 * block device or a regular file (nothing else is opened, so no FIFO
 * blocks and no character device is touched).
 */
static struct file *route_target(const char *name, struct netlink_ext_ack *extack,
				 const struct nlattr *attr)
{
	struct file *file;
	struct path path;
	umode_t mode;
	int ret;

	ret = kern_path(name, LOOKUP_FOLLOW, &path);
	if (ret) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "no such file or block device");
		return ERR_PTR(ret);
	}
	mode = d_inode(path.dentry)->i_mode;
	if (!S_ISBLK(mode) && !S_ISREG(mode)) {
		path_put(&path);
		NL_SET_ERR_MSG_ATTR(extack, attr, "not a block device or a regular file");
		return ERR_PTR(S_ISDIR(mode) ? -EISDIR : -ENOTBLK);
	}
	/*
	 * dentry_open() checks no permission: the caller must be able to read
	 * it, and a device node on a nodev mount opens for nobody.
	 */
	ret = S_ISBLK(mode) && (path.mnt->mnt_flags & MNT_NODEV) ? -EACCES :
	      path_permission(&path, MAY_READ);
	if (ret) {
		path_put(&path);
		NL_SET_ERR_MSG_ATTR(extack, attr, "permission denied: the caller cannot read it");
		return ERR_PTR(ret);
	}
	file = dentry_open(&path, O_RDONLY | O_NONBLOCK | O_LARGEFILE, current_cred());
	path_put(&path);
	if (IS_ERR(file))
		NL_SET_ERR_MSG_ATTR(extack, attr, "cannot open it for reading");
	return file;
}

static int put_route(struct sk_buff *skb, u32 prov, const char *target,
		     const struct gpupath_io_route *route)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPATH_A_ROUTE);
	char name[BDEVNAME_SIZE];

	if (!nest)
		return -EMSGSIZE;
	if (route->bdev)
		snprintf(name, sizeof(name), "%pg", route->bdev);
	if (nla_put_u32(skb, GPUPATH_A_ROUTE_PROVIDER, prov) ||
	    nla_put_string(skb, GPUPATH_A_ROUTE_TARGET, target) ||
	    nla_put_u32(skb, GPUPATH_A_ROUTE_REASON, route->reason) ||
	    (route->bdev && nla_put_string(skb, GPUPATH_A_ROUTE_DEVICE, name)) ||
	    (route->dma.dev && nla_put_string(skb, GPUPATH_A_ROUTE_DMA_DEV,
					      dev_name(route->dma.dev))) ||
	    (route->distance >= 0 && nla_put_u32(skb, GPUPATH_A_ROUTE_DISTANCE, route->distance)) ||
	    (route->dma.fabrics && nla_put_flag(skb, GPUPATH_A_ROUTE_FABRICS))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int gpupath_nl_route_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_ROUTE_MAX + 1];
	struct gpupath_provider *prov;
	struct gpupath_io_route route;
	struct sk_buff *msg;
	struct file *target;
	void *hdr;
	int ret;

	ret = gpupath_nl_parse_info(info, GPUPATH_A_ROUTE, gpupath_route_get_request_nl_policy,
				    ARRAY_SIZE(gpupath_route_get_request_nl_policy) - 1,
				    tb, GPUPATH_A_ROUTE_MAX);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_ROUTE], tb,
			      GPUPATH_A_ROUTE_PROVIDER) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_ROUTE], tb,
			      GPUPATH_A_ROUTE_TARGET))
		return -EINVAL;
	prov = gpupath_provider_get(nla_get_u32(tb[GPUPATH_A_ROUTE_PROVIDER]));
	if (IS_ERR(prov)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_ROUTE_PROVIDER],
				    "no provider with this id");
		return PTR_ERR(prov);
	}
	target = route_target(nla_data(tb[GPUPATH_A_ROUTE_TARGET]), info->extack,
			      tb[GPUPATH_A_ROUTE_TARGET]);
	ret = PTR_ERR_OR_ZERO(target);
	if (ret)
		goto out_prov;
	ret = gpupath_io_route(target, prov, tb[GPUPATH_A_ROUTE_OP] ?
			       nla_get_u32(tb[GPUPATH_A_ROUTE_OP]) : GPUPATH_IO_READ, &route);
	if (ret)
		goto out_file;
	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out_route;
	hdr = genlmsg_put_reply(msg, info, &gpupath_genl_family, 0, info->genlhdr->cmd);
	if (!hdr || put_route(msg, prov->id, nla_data(tb[GPUPATH_A_ROUTE_TARGET]), &route)) {
		nlmsg_free(msg);
		goto out_route;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
out_route:
	gpupath_io_route_put(&route);
out_file:
	fput(target);
out_prov:
	gpupath_provider_put(prov);
	return ret;
}

/* ---- dm disks ------------------------------------------------------- */

/* The dm disk a stack-set names: its sequence number must be the one given. */
static int told_disk(struct nlattr **tb, struct netlink_ext_ack *extack, u64 *diskseq)
{
	u32 major = nla_get_u32(tb[GPUPATH_A_STACK_MAJOR]);
	u32 minor = nla_get_u32(tb[GPUPATH_A_STACK_MINOR]);

	if (major >= 1U << (32 - MINORBITS)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_STACK_MAJOR], "not a major number");
		return -EINVAL;
	}
	if (minor > MINORMASK) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_STACK_MINOR], "not a minor number");
		return -EINVAL;
	}
	if (gpupath_stack_dm_diskseq(MKDEV(major, minor), diskseq)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_STACK_MINOR],
				    "no device-mapper disk has this number");
		return -ENODEV;
	}
	if (*diskseq != nla_get_u64(tb[GPUPATH_A_STACK_DISKSEQ])) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_STACK_DISKSEQ],
				    "that disk is gone: this one has another sequence number");
		return -ESTALE;
	}
	return 0;
}

int gpupath_nl_stack_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_STACK_MAX + 1];
	enum gpupath_stack_kind kind;
	u64 diskseq;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	ret = gpupath_nl_parse_info(info, GPUPATH_A_STACK, gpupath_stack_set_request_nl_policy,
				    ARRAY_SIZE(gpupath_stack_set_request_nl_policy) - 1,
				    tb, GPUPATH_A_STACK_MAX);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_STACK], tb,
			      GPUPATH_A_STACK_MAJOR) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_STACK], tb,
			      GPUPATH_A_STACK_MINOR) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_STACK], tb,
			      GPUPATH_A_STACK_DISKSEQ) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_STACK], tb,
			      GPUPATH_A_STACK_KIND))
		return -EINVAL;
	ret = told_disk(tb, info->extack, &diskseq);
	if (ret)
		return ret;
	kind = nla_get_u32(tb[GPUPATH_A_STACK_KIND]);
	gpupath_stack_tell(diskseq, kind, genl_info_net(info), info->snd_portid);
	pr_debug("dm disk %u:%u (diskseq %llu): %s (%s)\n",
		 nla_get_u32(tb[GPUPATH_A_STACK_MAJOR]), nla_get_u32(tb[GPUPATH_A_STACK_MINOR]),
		 diskseq, kind == GPUPATH_STACK_KIND_REMAP ? "remaps" :
		 kind == GPUPATH_STACK_KIND_TRANSFORM ? "transforms" : "other",
		 tb[GPUPATH_A_STACK_TARGETS] ? (char *)nla_data(tb[GPUPATH_A_STACK_TARGETS]) : "");
	return 0;
}

/* Dumps start with room for the largest object (netlink allocates that). */
int gpupath_nl_dump_start(struct netlink_callback *cb)
{
	cb->min_dump_alloc = GPUPATH_MSG_MAX;
	return 0;
}

/**
 * gpupath_genl_init() - register the generic-netlink family
 *
 * Return: 0 or a negative errno from genl_register_family().
 */
int __init gpupath_genl_init(void)
{
	int ret = gpupath_family_register();

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
	gpupath_family_unregister();
}
