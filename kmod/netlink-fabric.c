// SPDX-License-Identifier: GPL-2.0
/*
 * The family's portal and QoS commands: objects the module keeps for
 * gpupathd, all under the portal lock, handled alike.
 */
#include <net/genetlink.h>

#include "family.h"
#include "nl.h"
#include "portal.h"

/*
 * A kind of kept object: its nest, commands and functions. @put describes
 * an object whole, for callers with CAP_SYS_ADMIN; @put_public without
 * what only they may read, for anyone else and for notifications.
 */
struct kept {
	int attr;				/* GPUPATH_A_PORTAL, ... */
	int max;
	u8 new_cmd;
	u8 del_cmd;
	int (*put)(struct sk_buff *skb, void *obj);
	int (*put_public)(struct sk_buff *skb, void *obj);
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
	return gpupath_portal_put(skb, portal, true);
}

static int put_portal_public(struct sk_buff *skb, void *portal)
{
	return gpupath_portal_put(skb, portal, false);
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
	.attr = GPUPATH_A_PORTAL,
	.max = GPUPATH_A_PORTAL_MAX,
	.new_cmd = GPUPATH_CMD_PORTAL_NEW,
	.del_cmd = GPUPATH_CMD_PORTAL_DEL,
	.put = put_portal_obj,
	.put_public = put_portal_public,
	.find = find_portal,
	.next = next_portal,
	.add = add_portal,
	.set = set_portal,
	.del = del_portal,
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
	.attr = GPUPATH_A_QOS,
	.max = GPUPATH_A_QOS_MAX,
	.new_cmd = GPUPATH_CMD_QOS_NEW,
	.del_cmd = GPUPATH_CMD_QOS_DEL,
	.put = put_qos_obj,
	.put_public = put_qos_obj,
	.find = find_qos,
	.next = next_qos,
	.add = add_qos,
	.set = set_qos,
	.del = del_qos,
};

/* The notification about @obj, or NULL; under the portal lock. */
static struct sk_buff *kept_msg(const struct kept *k, void *obj, u8 cmd)
{
	if (!gpupath_nl_ready())
		return NULL;
	return gpupath_nl_msg(0, 0, cmd, k->put_public, obj);
}

/* Under the portal lock. */
static void notify_kept(const struct kept *k, void *obj, u8 cmd)
{
	gpupath_nl_multicast(kept_msg(k, obj, cmd), GPUPATH_NLGRP_CONFIG);
}

/* How @k's objects are described to the sender of @skb. */
static int (*kept_put(const struct kept *k, struct sk_buff *skb))(struct sk_buff *, void *)
{
	return netlink_capable(skb, CAP_SYS_ADMIN) ? k->put : k->put_public;
}

/* cb->args[0]: the id of the last object dumped. */
static int kept_dumpit(const struct kept *k, struct sk_buff *skb, struct netlink_callback *cb)
{
	int (*put)(struct sk_buff *skb, void *obj) = kept_put(k, cb->skb);
	void *obj;
	u32 id;
	int ret = 0;

	gpupath_portal_lock();
	cb->seq = gpupath_portal_generation();
	while ((obj = k->next(cb->args[0], &id))) {
		ret = gpupath_nl_dump_one(skb, cb, put, obj);
		if (ret)
			break;
		cb->args[0] = id;
	}
	gpupath_portal_unlock();
	return skb->len ?: ret;	/* not even one fits: say so */
}

/*
 * The object a GET, SET or DEL names, with the request parsed into @tb;
 * returns with the portal lock held unless it fails.
 */
static void *kept_find(const struct kept *k, struct genl_info *info, struct nlattr **tb)
{
	void *obj;
	int ret;

	ret = gpupath_nl_parse_nest(info, k->attr, k->max, tb);
	if (ret)
		return ERR_PTR(ret);
	gpupath_portal_lock();
	obj = k->find(tb, info->extack);
	if (IS_ERR(obj))
		gpupath_portal_unlock();
	return obj;
}

static int kept_get(const struct kept *k, struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KEPT_MAX + 1];
	void *obj;
	int ret;

	obj = kept_find(k, info, tb);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = gpupath_nl_reply(info, kept_put(k, skb), obj);
	gpupath_portal_unlock();
	return ret;
}

static int kept_new(const struct kept *k, struct genl_info *info)
{
	const struct nlattr *nest = info->attrs[k->attr];
	struct nlattr *tb[KEPT_MAX + 1];
	struct sk_buff *msg;
	void *obj;
	int ret;

	ret = gpupath_nl_parse_nest(info, k->attr, k->max, tb);
	if (ret)
		return ret;
	gpupath_portal_lock();
	ret = gpupath_nl_refused_at(info->extack, nest, k->add(nest, tb, info->extack, &obj));
	if (ret)
		goto out;
	/* No reply, no object: the caller is told what happened. */
	msg = gpupath_nl_msg(info->snd_portid, info->snd_seq, k->new_cmd, k->put, obj);
	if (!msg) {
		k->del(obj, NULL);
		ret = -ENOMEM;
		goto out;
	}
	notify_kept(k, obj, k->new_cmd);
	ret = genlmsg_reply(msg, info);
out:
	gpupath_portal_unlock();
	return ret;
}

static int kept_set(const struct kept *k, struct genl_info *info)
{
	struct nlattr *tb[KEPT_MAX + 1];
	void *obj;
	int ret;

	obj = kept_find(k, info, tb);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = gpupath_nl_refused_at(info->extack, info->attrs[k->attr],
				    k->set(obj, info->attrs[k->attr], tb, info->extack));
	if (!ret)
		notify_kept(k, obj, k->new_cmd);
	gpupath_portal_unlock();
	return ret;
}

static int kept_del(const struct kept *k, struct genl_info *info)
{
	struct nlattr *tb[KEPT_MAX + 1];
	struct sk_buff *msg;
	void *obj;
	int ret;

	obj = kept_find(k, info, tb);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	/* The notification carries the object: built before, sent after. */
	msg = kept_msg(k, obj, k->del_cmd);
	ret = gpupath_nl_refused_at(info->extack, info->attrs[k->attr], k->del(obj, info->extack));
	if (ret)
		nlmsg_free(msg);
	else
		gpupath_nl_multicast(msg, GPUPATH_NLGRP_CONFIG);
	gpupath_portal_unlock();
	return ret;
}

int gpupath_nl_portal_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return kept_get(&portal_kept, skb, info);
}

int gpupath_nl_portal_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return kept_dumpit(&portal_kept, skb, cb);
}

/*
 * Portal changes need CAP_SYS_ADMIN: gpupathd, which runs as root, acts on
 * them (connects, reads secret files, claims namespaces into volumes).
 */
int gpupath_nl_portal_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	int ret = gpupath_nl_need_sys_admin(skb, info);

	return ret ?: kept_new(&portal_kept, info);
}

int gpupath_nl_portal_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	int ret = gpupath_nl_need_sys_admin(skb, info);

	return ret ?: kept_set(&portal_kept, info);
}

int gpupath_nl_portal_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	int ret = gpupath_nl_need_sys_admin(skb, info);

	return ret ?: kept_del(&portal_kept, info);
}

int gpupath_nl_qos_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return kept_get(&qos_kept, skb, info);
}

int gpupath_nl_qos_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return kept_dumpit(&qos_kept, skb, cb);
}

int gpupath_nl_qos_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	return kept_new(&qos_kept, info);
}

int gpupath_nl_qos_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	return kept_set(&qos_kept, info);
}

int gpupath_nl_qos_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return kept_del(&qos_kept, info);
}
