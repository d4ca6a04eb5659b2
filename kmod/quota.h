/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_QUOTA_H
#define _GPUPATH_QUOTA_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/uidgid.h>

struct cgroup;

/**
 * struct gpupath_charge - what one user or one cgroup holds of a provider
 * @node: in gpupath_quota.charges
 * @uid: the user, for a user's entry
 * @cgrp: the cgroup (a reference), NULL for a user's entry
 * @bytes: held now
 * @buffers: allocations held now
 */
struct gpupath_charge {
	struct list_head node;
	kuid_t uid;
	struct cgroup *cgrp;
	u64 bytes;
	u32 buffers;
};

/**
 * struct gpupath_override - a cgroup's own limit
 * @node: in gpupath_quota.overrides
 * @cgrp: the cgroup (a reference)
 * @limit: bytes it (with its descendants) may hold, 0: no limit
 */
struct gpupath_override {
	struct list_head node;
	struct cgroup *cgrp;
	u64 limit;
};

/**
 * struct gpupath_quota - a provider's limits on its device memory
 * @lock: guards the limits and @charges
 * @user_limit: bytes one user may hold at once, 0: no limit
 * @cgroup_limit: bytes one cgroup with its descendants may hold, 0: none
 * @charges: struct gpupath_charge, one per user and per cgroup holding
 *	memory now (so as many as there are holders, no more)
 * @overrides: struct gpupath_override, cgroups with a limit of their own
 */
struct gpupath_quota {
	struct mutex lock;		/* the limits, @charges, @overrides */
	u64 user_limit;
	u64 cgroup_limit;
	struct list_head charges;
	struct list_head overrides;
};

/**
 * struct gpupath_quota_owner - who an allocation is charged to
 * @uid: the allocating task's user
 * @cgrp: its cgroup v2 (a reference while charged)
 * @charged: charged, not yet uncharged
 */
struct gpupath_quota_owner {
	kuid_t uid;
	struct cgroup *cgrp;
	bool charged;
};

void gpupath_quota_init(struct gpupath_quota *q);
void gpupath_quota_destroy(struct gpupath_quota *q);
int gpupath_quota_charge(struct gpupath_quota *q, struct gpupath_quota_owner *owner, u64 size);
void gpupath_quota_uncharge(struct gpupath_quota *q, struct gpupath_quota_owner *owner,
			    u64 size);
int gpupath_quota_check(s64 limit, u64 max, struct netlink_ext_ack *extack);
int gpupath_quota_set(struct gpupath_quota *q, s64 user_limit, s64 cgroup_limit, u64 max,
		      struct netlink_ext_ack *extack);
int gpupath_quota_set_cgroup(struct gpupath_quota *q, const char *path, s64 limit, u64 max,
			     struct netlink_ext_ack *extack);

#endif
