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
#include <linux/sched.h>
#include <linux/spinlock.h>

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

/**
 * gpupath_tenant_slot() - an entry of the table, as it is now
 * @i: 0 (the others) to %GPUPATH_TENANTS_MAX
 * @cgrp: its cgroup, with a reference, or NULL for none
 *
 * Return: the entry.
 */
struct gpupath_tenant *gpupath_tenant_slot(unsigned int i, struct cgroup **cgrp)
{
	struct gpupath_tenant *t = &tenants[i];

	spin_lock(&tenants_lock);
	*cgrp = t->cgrp;
	if (*cgrp)
		cgroup_get(*cgrp);
	spin_unlock(&tenants_lock);
	return t;
}
