/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_TENANT_H
#define _GPUPATH_TENANT_H

#include "provider.h"

/* cgroups whose I/O is counted apart; the rest share one entry. */
#define GPUPATH_TENANTS_MAX	64

/**
 * struct gpupath_tenant - I/O counters of one cgroup (v2)
 * @cgrp: the cgroup (a reference), NULL for the entry of the others
 * @users: requests in flight that count here: the entry is not given to
 *	another cgroup while any is
 * @stats: device-memory I/O, as a provider's
 * @host_ios: I/Os between host memory and a device
 * @host_bytes: their bytes
 */
struct gpupath_tenant {
	struct cgroup *cgrp;
	atomic_t users;
	struct gpupath_stats stats;
	atomic64_t host_ios;
	atomic64_t host_bytes;
};

struct gpupath_tenant *gpupath_tenant_get(void);
void gpupath_tenant_put(struct gpupath_tenant *t);
void gpupath_tenant_exit(void);
struct gpupath_tenant *gpupath_tenant_slot(unsigned int i, struct cgroup **cgrp);

#endif
