// SPDX-License-Identifier: GPL-2.0
/*
 * Tenants in the family's messages: a provider's limits and who holds its
 * memory (quota.c), and the I/O counters per cgroup (tenant.c, the
 * CGROUP_GET dump). Each reader sees its own user's and cgroups' entries
 * only, unless it may see them all.
 */
#include <linux/cgroup.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "family.h"
#include "nl.h"
#include "quota.h"
#include "tenant.h"

/* A cgroup's id and path (@path: PATH_MAX bytes of room) into a usage nest. */
static int put_usage_cgroup(struct sk_buff *skb, struct cgroup *cgrp, char *path)
{
	if (cgroup_path_ns(cgrp, path, PATH_MAX, current->nsproxy->cgroup_ns) < 0)
		path[0] = '\0';
	if (nla_put_u64_64bit(skb, GPUPATH_A_USAGE_CGROUP_ID, cgroup_id(cgrp),
			      GPUPATH_A_USAGE_PAD) ||
	    (path[0] && nla_put_string(skb, GPUPATH_A_USAGE_CGROUP, path)))
		return -EMSGSIZE;
	return 0;
}

static int put_override(struct sk_buff *skb, struct gpupath_override *o, char *path)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPATH_A_PROVIDER_CGROUP_OVERRIDE);

	return gpupath_nl_nest_done(skb, nest, !nest || put_usage_cgroup(skb, o->cgrp, path) ||
				    nla_put_u64_64bit(skb, GPUPATH_A_USAGE_LIMIT, o->limit,
						      GPUPATH_A_USAGE_PAD));
}

static int put_charge(struct sk_buff *skb, struct gpupath_charge *c, char *path)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPATH_A_PROVIDER_USAGE);
	bool full;

	if (!nest)
		return -EMSGSIZE;
	if (c->cgrp)
		full = put_usage_cgroup(skb, c->cgrp, path);
	else
		full = nla_put_u32(skb, GPUPATH_A_USAGE_UID,
				   from_kuid_munged(&init_user_ns, c->uid));
	full = full ||
	       nla_put_u64_64bit(skb, GPUPATH_A_USAGE_BYTES, c->bytes, GPUPATH_A_USAGE_PAD) ||
	       nla_put_u32(skb, GPUPATH_A_USAGE_BUFFERS, c->buffers);
	return gpupath_nl_nest_done(skb, nest, full);
}

/**
 * gpupath_nl_put_quota() - a provider's limits and usage, into its nest
 * @skb: the message
 * @q: the provider's quota
 * @who: the reader: users and cgroups other than its own are left out
 *	unless it may see them all; NULL: none (a notification)
 *
 * Return: 0, -EMSGSIZE, -ENOMEM.
 */
int gpupath_nl_put_quota(struct sk_buff *skb, struct gpupath_quota *q,
			 const struct gpupath_viewer *who)
{
	struct gpupath_override *o;
	struct gpupath_charge *c;
	char *path;
	int ret = 0;

	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	mutex_lock(&q->lock);
	if (nla_put_u64_64bit(skb, GPUPATH_A_PROVIDER_USER_LIMIT, q->user_limit,
			      GPUPATH_A_PROVIDER_PAD) ||
	    nla_put_u64_64bit(skb, GPUPATH_A_PROVIDER_CGROUP_LIMIT, q->cgroup_limit,
			      GPUPATH_A_PROVIDER_PAD))
		ret = -EMSGSIZE;
	list_for_each_entry(c, &q->charges, node) {
		if (ret)
			break;
		if (gpupath_viewer_sees(who, c->cgrp, c->uid))
			ret = put_charge(skb, c, path);
	}
	list_for_each_entry(o, &q->overrides, node) {
		if (ret)
			break;
		if (gpupath_viewer_sees(who, o->cgrp, INVALID_UID))
			ret = put_override(skb, o, path);
	}
	mutex_unlock(&q->lock);
	kfree(path);
	return ret;
}

static int put_u64(struct sk_buff *skb, int type, atomic64_t *v)
{
	return nla_put_u64_64bit(skb, type, atomic64_read(v), GPUPATH_A_CGROUP_PAD);
}

/* One entry as it is now: its slot, its cgroup (a reference) or NULL. */
struct tenant_view {
	struct gpupath_tenant *t;
	struct cgroup *cgrp;
	char *path;
};

static int put_tenant(struct sk_buff *skb, void *obj)
{
	struct tenant_view *v = obj;
	struct nlattr *nest;
	bool full;

	nest = nla_nest_start(skb, GPUPATH_A_CGROUP);
	if (!nest)
		return -EMSGSIZE;
	if (v->cgrp) {
		if (cgroup_path_ns(v->cgrp, v->path, PATH_MAX, current->nsproxy->cgroup_ns) < 0)
			v->path[0] = '\0';
		full = nla_put_u64_64bit(skb, GPUPATH_A_CGROUP_ID, cgroup_id(v->cgrp),
					 GPUPATH_A_CGROUP_PAD) ||
		       (v->path[0] && nla_put_string(skb, GPUPATH_A_CGROUP_PATH, v->path));
	} else {
		full = nla_put_flag(skb, GPUPATH_A_CGROUP_OTHER);
	}
	full = full ||
	       gpupath_nl_put_stats(skb, GPUPATH_A_CGROUP_STATS, &v->t->stats) ||
	       put_u64(skb, GPUPATH_A_CGROUP_HOST_IOS, &v->t->host_ios) ||
	       put_u64(skb, GPUPATH_A_CGROUP_HOST_BYTES, &v->t->host_bytes);
	return gpupath_nl_nest_done(skb, nest, full);
}

/*
 * CGROUP_GET dump: the others' entry first, then each slot with a cgroup,
 * one message each; cb->args[0] is the next slot. A slot's counts may move
 * to the others' entry between two parts of one dump.
 */
int gpupath_nl_cgroup_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gpupath_viewer who;
	struct tenant_view v;
	int ret = 0;

	v.path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!v.path)
		return -ENOMEM;
	gpupath_viewer_init(&who, cb->skb);
	for (; cb->args[0] <= GPUPATH_TENANTS_MAX; cb->args[0]++) {
		v.t = gpupath_tenant_slot(cb->args[0], &v.cgrp);
		if (cb->args[0] && !v.cgrp)
			continue;
		/* Slot 0 counts the cgroups with no slot: for who sees all. */
		if (!(v.cgrp ? gpupath_viewer_sees(&who, v.cgrp, INVALID_UID) : who.all)) {
			if (v.cgrp)
				cgroup_put(v.cgrp);
			continue;
		}
		ret = gpupath_nl_dump_one(skb, cb, put_tenant, &v);
		if (v.cgrp)
			cgroup_put(v.cgrp);
		if (ret)
			break;
	}
	gpupath_viewer_release(&who);
	kfree(v.path);
	return skb->len;
}
