// SPDX-License-Identifier: GPL-2.0
/*
 * Device-memory quotas of a provider: how much of its memory one user, and
 * one cgroup v2 with everything below it, may hold allocated through
 * gpupath at once. An allocation is charged to the allocating task's user
 * and to its cgroup and each ancestor but the root, and uncharged when the
 * memory goes back (freed, or revoked with its provider). Over a limit the
 * allocation fails with EDQUOT and nothing is charged.
 *
 * A charge entry exists while its user or cgroup holds memory of the
 * provider, so there are never more entries than holders; a cgroup entry
 * holds a reference on its cgroup, as a charged page holds its memcg.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "quota.h"

void gpupath_quota_init(struct gpupath_quota *q)
{
	mutex_init(&q->lock);
	INIT_LIST_HEAD(&q->charges);
	INIT_LIST_HEAD(&q->overrides);
}

static void override_free(struct gpupath_override *o)
{
	list_del(&o->node);
	cgroup_put(o->cgrp);
	kfree(o);
}

/* The provider goes: everything was given back before its last reference. */
void gpupath_quota_destroy(struct gpupath_quota *q)
{
	struct gpupath_override *o, *tmp;

	WARN_ON_ONCE(!list_empty(&q->charges));
	list_for_each_entry_safe(o, tmp, &q->overrides, node)
		override_free(o);
	mutex_destroy(&q->lock);
}

static struct gpupath_override *find_override(struct gpupath_quota *q, struct cgroup *cgrp)
{
	struct gpupath_override *o;

	list_for_each_entry(o, &q->overrides, node)
		if (o->cgrp == cgrp)
			return o;
	return NULL;
}

/* The limit of @cgrp: its own, or the provider's per cgroup. */
static u64 cgroup_limit(struct gpupath_quota *q, struct cgroup *cgrp)
{
	struct gpupath_override *o = find_override(q, cgrp);

	return o ? o->limit : q->cgroup_limit;
}

/* The current task's cgroup v2, with a reference. */
static struct cgroup *current_cgroup(void)
{
	struct cgroup *cgrp;

	rcu_read_lock();
	do {
		cgrp = task_dfl_cgroup(current);
	} while (!cgroup_tryget(cgrp));
	rcu_read_unlock();
	return cgrp;
}

/* Whether a cgroup is charged: any but the root. */
static bool charged_cgroup(struct cgroup *cgrp)
{
	return cgrp && cgroup_parent(cgrp);
}

static struct gpupath_charge *find(struct gpupath_quota *q, kuid_t uid, struct cgroup *cgrp)
{
	struct gpupath_charge *c;

	lockdep_assert_held(&q->lock);
	list_for_each_entry(c, &q->charges, node) {
		if (cgrp ? c->cgrp == cgrp : !c->cgrp && uid_eq(c->uid, uid))
			return c;
	}
	return NULL;
}

static u64 held(struct gpupath_quota *q, kuid_t uid, struct cgroup *cgrp)
{
	struct gpupath_charge *c = find(q, uid, cgrp);

	return c ? c->bytes : 0;
}

/* @size more for the entry of @uid or @cgrp, made from @spare if it is new. */
static void add(struct gpupath_quota *q, kuid_t uid, struct cgroup *cgrp, u64 size,
		struct list_head *spare)
{
	struct gpupath_charge *c = find(q, uid, cgrp);

	if (!c) {
		c = list_first_entry(spare, struct gpupath_charge, node);
		list_move_tail(&c->node, &q->charges);
		c->uid = uid;
		c->cgrp = cgrp;
		if (cgrp)
			cgroup_get(cgrp);
	}
	c->bytes += size;
	c->buffers++;
}

static void sub(struct gpupath_quota *q, kuid_t uid, struct cgroup *cgrp, u64 size)
{
	struct gpupath_charge *c = find(q, uid, cgrp);

	if (WARN_ON_ONCE(!c || c->bytes < size || !c->buffers))
		return;
	c->bytes -= size;
	if (--c->buffers)
		return;
	list_del(&c->node);
	if (c->cgrp)
		cgroup_put(c->cgrp);
	kfree(c);
}

static void free_spare(struct list_head *spare)
{
	struct gpupath_charge *c, *tmp;

	list_for_each_entry_safe(c, tmp, spare, node)
		kfree(c);
}

/**
 * gpupath_quota_charge() - charge an allocation to the current task
 * @q: the provider's quota
 * @owner: filled with who is charged
 * @size: bytes
 *
 * Return: 0, -EDQUOT over the user's or a cgroup's limit, -ENOMEM.
 */
int gpupath_quota_charge(struct gpupath_quota *q, struct gpupath_quota_owner *owner, u64 size)
{
	struct cgroup *cgrp = current_cgroup(), *c;
	kuid_t uid = current_uid();
	struct gpupath_charge *e;
	LIST_HEAD(spare);
	int n = 1, ret = 0;

	/* At most one new entry for the user and one per charged cgroup. */
	for (c = cgrp; charged_cgroup(c); c = cgroup_parent(c))
		n++;
	while (n--) {
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (!e) {
			free_spare(&spare);
			cgroup_put(cgrp);
			return -ENOMEM;
		}
		list_add(&e->node, &spare);
	}

	mutex_lock(&q->lock);
	if (q->user_limit && held(q, uid, NULL) + size > q->user_limit)
		ret = -EDQUOT;
	for (c = cgrp; !ret && charged_cgroup(c); c = cgroup_parent(c)) {
		u64 limit = cgroup_limit(q, c);

		if (limit && held(q, uid, c) + size > limit)
			ret = -EDQUOT;
	}
	if (!ret) {
		add(q, uid, NULL, size, &spare);
		for (c = cgrp; charged_cgroup(c); c = cgroup_parent(c))
			add(q, uid, c, size, &spare);
	}
	mutex_unlock(&q->lock);
	free_spare(&spare);
	if (ret) {
		cgroup_put(cgrp);
		return ret;
	}
	owner->uid = uid;
	owner->cgrp = cgrp;
	owner->charged = true;
	return 0;
}

/**
 * gpupath_quota_uncharge() - the memory went back; once, whoever calls
 * @q: the provider's quota
 * @owner: as charged
 * @size: bytes, as charged
 */
void gpupath_quota_uncharge(struct gpupath_quota *q, struct gpupath_quota_owner *owner,
			    u64 size)
{
	struct cgroup *c;

	mutex_lock(&q->lock);
	if (!owner->charged) {
		mutex_unlock(&q->lock);
		return;
	}
	owner->charged = false;
	sub(q, owner->uid, NULL, size);
	for (c = owner->cgrp; charged_cgroup(c); c = cgroup_parent(c))
		sub(q, owner->uid, c, size);
	mutex_unlock(&q->lock);
	cgroup_put(owner->cgrp);
	owner->cgrp = NULL;
}

/**
 * gpupath_quota_check() - whether a limit can be set
 * @limit: bytes, 0 for none, negative for "not given"
 * @max: the provider's size: no limit may be larger
 * @extack: for error messages
 *
 * Return: 0 or -EINVAL.
 */
int gpupath_quota_check(s64 limit, u64 max, struct netlink_ext_ack *extack)
{
	if (limit <= 0 || limit <= max)
		return 0;
	NL_SET_ERR_MSG_MOD(extack,
			   "a limit cannot be larger than the provider's memory (its size); 0 is no limit");
	return -EINVAL;
}

/**
 * gpupath_quota_set() - change the limits
 * @q: the provider's quota
 * @user_limit: bytes, 0 for none, negative to leave it
 * @cgroup_limit: likewise
 * @max: the provider's size: no limit may be larger
 * @extack: for error messages
 *
 * Return: 0 or -EINVAL; nothing changes on an error.
 */
int gpupath_quota_set(struct gpupath_quota *q, s64 user_limit, s64 cgroup_limit, u64 max,
		      struct netlink_ext_ack *extack)
{
	if (gpupath_quota_check(user_limit, max, extack) ||
	    gpupath_quota_check(cgroup_limit, max, extack))
		return -EINVAL;
	mutex_lock(&q->lock);
	if (user_limit >= 0)
		q->user_limit = user_limit;
	if (cgroup_limit >= 0)
		q->cgroup_limit = cgroup_limit;
	mutex_unlock(&q->lock);
	return 0;
}

/**
 * gpupath_quota_set_cgroup() - give one cgroup a limit of its own, or not
 * @q: the provider's quota
 * @path: the cgroup, below the cgroup v2 root
 * @limit: bytes, 0 for none; negative: back to the provider's limit
 * @max: the provider's size: no limit may be larger
 * @extack: for error messages
 *
 * Return: 0, -EINVAL, -ENOENT (no such cgroup), -ENOMEM.
 */
int gpupath_quota_set_cgroup(struct gpupath_quota *q, const char *path, s64 limit, u64 max,
			     struct netlink_ext_ack *extack)
{
	struct gpupath_override *o, *new = NULL;
	struct cgroup *cgrp;

	if (gpupath_quota_check(limit, max, extack))
		return -EINVAL;
	if (path[0] != '/') {
		NL_SET_ERR_MSG_MOD(extack,
				   "a cgroup is a path below the cgroup v2 root: /tenant-a");
		return -EINVAL;
	}
	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp)) {
		NL_SET_ERR_MSG_MOD(extack, "no such cgroup (v2)");
		return -ENOENT;
	}
	if (!cgroup_parent(cgrp)) {
		cgroup_put(cgrp);
		NL_SET_ERR_MSG_MOD(extack, "the root cgroup is not charged: it has no limit");
		return -EINVAL;
	}
	if (limit >= 0) {
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (!new) {
			cgroup_put(cgrp);
			return -ENOMEM;
		}
	}
	mutex_lock(&q->lock);
	o = find_override(q, cgrp);
	if (o && new) {
		o->limit = limit;
	} else if (new) {
		new->cgrp = cgrp;
		new->limit = limit;
		list_add_tail(&new->node, &q->overrides);
		new = NULL;
		cgrp = NULL;
	} else if (o) {
		override_free(o);
	}
	mutex_unlock(&q->lock);
	kfree(new);
	if (cgrp)
		cgroup_put(cgrp);
	return 0;
}
