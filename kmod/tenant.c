// SPDX-License-Identifier: GPL-2.0
/*
 * I/O counters per tenant, a tenant being a cgroup (v2): each request
 * counts, when it ends, for the cgroup of the task that asked for it.
 *
 * The table is fixed: GPUPATH_TENANTS_MAX cgroups kept apart, and one
 * entry for the others (slot 0), so that what a scraper sees is bounded
 * whatever jobs come and go. A cgroup that is removed keeps its entry
 * until the slot is wanted by another: its counts then move to the others'
 * entry, so the sum over the table never goes down.
 */
#include <linux/cgroup.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/netlink.h>

#include <uapi/linux/gpupath_nl.h>

#include "netlink-gen.h"
#include "nl.h"
#include "tenant.h"

static struct gpupath_tenant tenants[GPUPATH_TENANTS_MAX + 1];
static DEFINE_SPINLOCK(tenants_lock);	/* the slots' cgroups */

static void fold_stats(struct gpupath_tenant *to, struct gpupath_tenant *from)
{
	int r;

	atomic64_add(atomic64_xchg(&from->stats.direct_ios, 0), &to->stats.direct_ios);
	atomic64_add(atomic64_xchg(&from->stats.direct_bytes, 0), &to->stats.direct_bytes);
	atomic64_add(atomic64_xchg(&from->stats.errors, 0), &to->stats.errors);
	for (r = 0; r < __GPUPATH_REASON_MAX; r++) {
		atomic64_add(atomic64_xchg(&from->stats.refused_ios[r], 0),
			     &to->stats.refused_ios[r]);
		atomic64_add(atomic64_xchg(&from->stats.refused_bytes[r], 0),
			     &to->stats.refused_bytes[r]);
	}
	atomic64_add(atomic64_xchg(&from->host_ios, 0), &to->host_ios);
	atomic64_add(atomic64_xchg(&from->host_bytes, 0), &to->host_bytes);
}

/* A slot whose cgroup was removed and that nothing in flight counts in. */
static bool reusable(struct gpupath_tenant *t)
{
	return !(t->cgrp->self.flags & CSS_ONLINE) && !atomic_read(&t->users);
}

/**
 * gpupath_tenant_get() - the entry the current task's I/O counts in
 *
 * Process context. Release with gpupath_tenant_put() when the request is
 * counted.
 *
 * Return: its cgroup's entry, or the others' when none is free.
 */
struct gpupath_tenant *gpupath_tenant_get(void)
{
	struct gpupath_tenant *t = NULL, *free = NULL, *stale = NULL;
	struct cgroup *cgrp;
	int i;

	rcu_read_lock();
	cgrp = task_dfl_cgroup(current);
	spin_lock(&tenants_lock);
	for (i = 1; i <= GPUPATH_TENANTS_MAX && !t; i++) {
		if (tenants[i].cgrp == cgrp)
			t = &tenants[i];
		else if (!tenants[i].cgrp && !free)
			free = &tenants[i];
		else if (tenants[i].cgrp && !stale && reusable(&tenants[i]))
			stale = &tenants[i];
	}
	if (!t && (free || stale) && cgroup_tryget(cgrp)) {
		t = free ?: stale;
		if (t->cgrp) {
			fold_stats(&tenants[0], t);
			cgroup_put(t->cgrp);
		}
		t->cgrp = cgrp;
	}
	if (!t)
		t = &tenants[0];
	atomic_inc(&t->users);
	spin_unlock(&tenants_lock);
	rcu_read_unlock();
	return t;
}

/**
 * gpupath_tenant_put() - a request counted in @t is done with it
 * @t: from gpupath_tenant_get()
 */
void gpupath_tenant_put(struct gpupath_tenant *t)
{
	atomic_dec(&t->users);
}

/* At unload, every request is gone: the cgroups are let go. */
void gpupath_tenant_exit(void)
{
	int i;

	for (i = 1; i <= GPUPATH_TENANTS_MAX; i++) {
		if (tenants[i].cgrp)
			cgroup_put(tenants[i].cgrp);
		tenants[i].cgrp = NULL;
	}
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

	nest = nla_nest_start(skb, GPUPATH_A_CGROUP);
	if (!nest)
		return -EMSGSIZE;
	if (v->cgrp) {
		if (cgroup_path_ns(v->cgrp, v->path, PATH_MAX, current->nsproxy->cgroup_ns) < 0)
			v->path[0] = '\0';
		if (nla_put_u64_64bit(skb, GPUPATH_A_CGROUP_ID, cgroup_id(v->cgrp),
				      GPUPATH_A_CGROUP_PAD) ||
		    (v->path[0] && nla_put_string(skb, GPUPATH_A_CGROUP_PATH, v->path)))
			goto cancel;
	} else if (nla_put_flag(skb, GPUPATH_A_CGROUP_OTHER)) {
		goto cancel;
	}
	if (gpupath_nl_put_stats(skb, GPUPATH_A_CGROUP_STATS, &v->t->stats) ||
	    put_u64(skb, GPUPATH_A_CGROUP_HOST_IOS, &v->t->host_ios) ||
	    put_u64(skb, GPUPATH_A_CGROUP_HOST_BYTES, &v->t->host_bytes))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
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
		v.t = &tenants[cb->args[0]];
		spin_lock(&tenants_lock);
		v.cgrp = v.t->cgrp;
		if (v.cgrp)
			cgroup_get(v.cgrp);
		spin_unlock(&tenants_lock);
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
