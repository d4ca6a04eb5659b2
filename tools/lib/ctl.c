// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The control plane: every generic-netlink message gpupath's user space sends
 * or receives is encoded and decoded here, into the model of libgpupath.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "internal.h"
#include "libgpupath-admin.h"
#include "model.h"
#include "nl-policy-gen.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct gpupath_ctl {
	struct nl_sock *sk;
	int family;
	char errmsg[256];
	long erroff;		/* NLMSGERR_ATTR_OFFS, -1 when none */
};

struct gpupath_mon {
	struct nl_sock *sk;
	int family;		/* 0 while the module is not loaded */
	struct gpupath_event_sink {
		gpupath_model_fn fn;
		void *arg;
		int count;
	} sink;
};

/* ---- the caller's structures -------------------------------------------- */

void gpupath_copy_out(void *dst, size_t size, const void *src, size_t lsize)
{
	if (size <= lsize) {
		memcpy(dst, src, size);
		return;
	}
	memcpy(dst, src, lsize);
	memset((char *)dst + lsize, 0, size - lsize);
}

/* ---- decoding ----------------------------------------------------------- */

/* A string cut to @size is cut at a whole UTF-8 character. */
static void copy_str(char *dst, size_t size, struct nlattr *attr)
{
	if (snprintf(dst, size, "%.*s", nla_len(attr), (const char *)nla_data(attr)) >= (int)size)
		gpupath_utf8_cut(dst);
}

/* A string attribute that may be absent: "" then. */
static void get_str(char *dst, size_t size, struct nlattr *attr)
{
	if (attr)
		copy_str(dst, size, attr);
}

int gpupath_model_info(struct nlattr *nest, struct gpupath_info *info)
{
	struct nlattr *tb[GPUPATH_A_INFO_MAX + 1];
	int r;

	memset(info, 0, sizeof(*info));
	r = nla_parse_nested(tb, GPUPATH_A_INFO_MAX, nest, gpupath_info_nla_policy);
	if (r < 0)
		return -EBADMSG;
	if (tb[GPUPATH_A_INFO_VERSION]) {
		copy_str(info->version, sizeof(info->version), tb[GPUPATH_A_INFO_VERSION]);
		info->has |= GPUPATH_INFO_HAS_VERSION;
	}
	if (tb[GPUPATH_A_INFO_GENL_VERSION]) {
		info->genl_version = nla_get_u32(tb[GPUPATH_A_INFO_GENL_VERSION]);
		info->has |= GPUPATH_INFO_HAS_GENL_VERSION;
	}
	if (tb[GPUPATH_A_INFO_FEATURES]) {
		info->features = nla_get_u64(tb[GPUPATH_A_INFO_FEATURES]);
		info->has |= GPUPATH_INFO_HAS_FEATURES;
	}
	if (tb[GPUPATH_A_INFO_P2PDMA_STATUS]) {
		info->p2pdma_status = nla_get_u32(tb[GPUPATH_A_INFO_P2PDMA_STATUS]);
		info->has |= GPUPATH_INFO_HAS_P2PDMA_STATUS;
	}
	if (tb[GPUPATH_A_INFO_KERNEL]) {
		copy_str(info->kernel, sizeof(info->kernel), tb[GPUPATH_A_INFO_KERNEL]);
		info->has |= GPUPATH_INFO_HAS_KERNEL;
	}
	if (tb[GPUPATH_A_INFO_IOCTL_VERSION]) {
		info->ioctl_version = nla_get_u32(tb[GPUPATH_A_INFO_IOCTL_VERSION]);
		info->has |= GPUPATH_INFO_HAS_IOCTL_VERSION;
	}
	return 0;
}

static uint64_t get_u64(struct nlattr *attr)
{
	return attr ? nla_get_u64(attr) : 0;
}

static uint32_t get_u32(struct nlattr *attr)
{
	return attr ? nla_get_u32(attr) : 0;
}

/* Where a stats nest's counters go: a provider's, or a cgroup's. */
struct counters {
	uint64_t *direct_ios, *direct_bytes, *errors, *refused_ios, *refused_bytes;
};

static int model_refused(struct nlattr *nest, const struct counters *c)
{
	struct nlattr *tb[GPUPATH_A_REFUSED_MAX + 1];
	uint32_t reason;

	if (nla_parse_nested(tb, GPUPATH_A_REFUSED_MAX, nest, gpupath_refused_nla_policy) < 0)
		return -EBADMSG;
	reason = get_u32(tb[GPUPATH_A_REFUSED_REASON]);
	if (reason >= GPUPATH_REASONS_KNOWN)
		return 0;
	c->refused_ios[reason] = get_u64(tb[GPUPATH_A_REFUSED_IOS]);
	c->refused_bytes[reason] = get_u64(tb[GPUPATH_A_REFUSED_BYTES]);
	return 0;
}

static int model_stats(struct nlattr *nest, const struct counters *c)
{
	struct nlattr *tb[GPUPATH_A_STATS_MAX + 1], *attr;
	int rem;

	if (nla_parse_nested(tb, GPUPATH_A_STATS_MAX, nest, gpupath_stats_nla_policy) < 0)
		return -EBADMSG;
	*c->direct_ios = get_u64(tb[GPUPATH_A_STATS_DIRECT_IOS]);
	*c->direct_bytes = get_u64(tb[GPUPATH_A_STATS_DIRECT_BYTES]);
	*c->errors = get_u64(tb[GPUPATH_A_STATS_ERRORS]);
	nla_for_each_nested(attr, nest, rem)
		if (nla_type(attr) == GPUPATH_A_STATS_REFUSED && model_refused(attr, c))
			return -EBADMSG;
	return 0;
}

static int model_cgroup(struct nlattr *nest, struct gpupath_cgroup_stats *cg)
{
	struct nlattr *tb[GPUPATH_A_CGROUP_MAX + 1];
	struct counters c = { &cg->direct_ios, &cg->direct_bytes, &cg->errors, cg->refused_ios,
			      cg->refused_bytes };

	memset(cg, 0, sizeof(*cg));
	if (nla_parse_nested(tb, GPUPATH_A_CGROUP_MAX, nest, gpupath_cgroup_nla_policy) < 0 ||
	    (!tb[GPUPATH_A_CGROUP_ID] && !tb[GPUPATH_A_CGROUP_OTHER]))
		return -EBADMSG;
	cg->other = tb[GPUPATH_A_CGROUP_OTHER];
	cg->id = get_u64(tb[GPUPATH_A_CGROUP_ID]);
	get_str(cg->path, sizeof(cg->path), tb[GPUPATH_A_CGROUP_PATH]);
	cg->host_ios = get_u64(tb[GPUPATH_A_CGROUP_HOST_IOS]);
	cg->host_bytes = get_u64(tb[GPUPATH_A_CGROUP_HOST_BYTES]);
	if (tb[GPUPATH_A_CGROUP_STATS])
		return model_stats(tb[GPUPATH_A_CGROUP_STATS], &c);
	return 0;
}

static int model_peer(struct nlattr *nest, struct gpupath_provider *prov)
{
	struct nlattr *tb[GPUPATH_A_PEER_MAX + 1];
	struct gpupath_peer *peer;

	if (nla_parse_nested(tb, GPUPATH_A_PEER_MAX, nest, gpupath_peer_nla_policy) < 0 ||
	    !tb[GPUPATH_A_PEER_PCI_DEV])
		return -EBADMSG;
	if (prov->npeers == GPUPATH_PEERS_MAX)
		return 0;
	peer = &prov->peers[prov->npeers++];
	copy_str(peer->pci_dev, sizeof(peer->pci_dev), tb[GPUPATH_A_PEER_PCI_DEV]);
	peer->distance = get_u32(tb[GPUPATH_A_PEER_DISTANCE]);
	return 0;
}

/* A usage nest into @list, counted in *@n (those past the end dropped). */
static int model_usage(struct nlattr *nest, struct gpupath_usage *list, unsigned int *n)
{
	struct nlattr *tb[GPUPATH_A_USAGE_MAX + 1];
	struct gpupath_usage *u;

	if (nla_parse_nested(tb, GPUPATH_A_USAGE_MAX, nest, gpupath_usage_nla_policy) < 0 ||
	    (!tb[GPUPATH_A_USAGE_UID] && !tb[GPUPATH_A_USAGE_CGROUP_ID]))
		return -EBADMSG;
	if ((*n)++ >= GPUPATH_USAGE_MAX)
		return 0;
	u = &list[*n - 1];
	u->limit = get_u64(tb[GPUPATH_A_USAGE_LIMIT]);
	u->is_cgroup = tb[GPUPATH_A_USAGE_CGROUP_ID];
	u->uid = get_u32(tb[GPUPATH_A_USAGE_UID]);
	u->cgroup_id = get_u64(tb[GPUPATH_A_USAGE_CGROUP_ID]);
	get_str(u->cgroup, sizeof(u->cgroup), tb[GPUPATH_A_USAGE_CGROUP]);
	u->bytes = get_u64(tb[GPUPATH_A_USAGE_BYTES]);
	u->buffers = get_u32(tb[GPUPATH_A_USAGE_BUFFERS]);
	return 0;
}

int gpupath_model_provider(struct nlattr *nest, struct gpupath_provider *prov)
{
	struct nlattr *attr;
	int rem;

	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];

	memset(prov, 0, sizeof(*prov));
	if (nla_parse_nested(tb, GPUPATH_A_PROVIDER_MAX, nest, gpupath_provider_nla_policy) < 0 ||
	    !tb[GPUPATH_A_PROVIDER_ID])
		return -EBADMSG;
	prov->id = get_u32(tb[GPUPATH_A_PROVIDER_ID]);
	prov->type = get_u32(tb[GPUPATH_A_PROVIDER_TYPE]);
	get_str(prov->pci_dev, sizeof(prov->pci_dev), tb[GPUPATH_A_PROVIDER_PCI_DEV]);
	get_str(prov->driver, sizeof(prov->driver), tb[GPUPATH_A_PROVIDER_DRIVER]);
	prov->owned = get_u32(tb[GPUPATH_A_PROVIDER_OWNED]);
	prov->bar = tb[GPUPATH_A_PROVIDER_BAR] ? (int)get_u32(tb[GPUPATH_A_PROVIDER_BAR]) : -1;
	nla_for_each_nested(attr, nest, rem)
		if ((nla_type(attr) == GPUPATH_A_PROVIDER_PEER && model_peer(attr, prov)) ||
		    (nla_type(attr) == GPUPATH_A_PROVIDER_USAGE &&
		     model_usage(attr, prov->usage, &prov->nusage)) ||
		    (nla_type(attr) == GPUPATH_A_PROVIDER_CGROUP_OVERRIDE &&
		     model_usage(attr, prov->override, &prov->noverride)))
			return -EBADMSG;
	prov->user_limit = get_u64(tb[GPUPATH_A_PROVIDER_USER_LIMIT]);
	prov->cgroup_limit = get_u64(tb[GPUPATH_A_PROVIDER_CGROUP_LIMIT]);
	prov->size = get_u64(tb[GPUPATH_A_PROVIDER_SIZE]);
	prov->allocated = get_u64(tb[GPUPATH_A_PROVIDER_ALLOCATED]);
	prov->available = get_u64(tb[GPUPATH_A_PROVIDER_AVAILABLE]);
	if (tb[GPUPATH_A_PROVIDER_STATS]) {
		struct counters c = { &prov->direct_ios, &prov->direct_bytes, &prov->errors,
				      prov->refused_ios, prov->refused_bytes };

		return model_stats(tb[GPUPATH_A_PROVIDER_STATS], &c);
	}
	return 0;
}

static int model_pstats(struct nlattr *nest, struct gpupath_path_stats *st)
{
	struct nlattr *tb[GPUPATH_A_PSTATS_MAX + 1];

	if (nla_parse_nested(tb, GPUPATH_A_PSTATS_MAX, nest, gpupath_pstats_nla_policy) < 0)
		return -EBADMSG;
	st->ios = get_u64(tb[GPUPATH_A_PSTATS_IOS]);
	st->bytes = get_u64(tb[GPUPATH_A_PSTATS_BYTES]);
	st->errors = get_u64(tb[GPUPATH_A_PSTATS_ERRORS]);
	st->direct_ios = get_u64(tb[GPUPATH_A_PSTATS_DIRECT_IOS]);
	st->inflight = get_u64(tb[GPUPATH_A_PSTATS_INFLIGHT]);
	st->latency_ns = get_u64(tb[GPUPATH_A_PSTATS_LATENCY_NS]);
	return 0;
}

int gpupath_model_path(struct nlattr *nest, struct gpupath_path *path)
{
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1];

	memset(path, 0, sizeof(*path));
	if (nla_parse_nested(tb, GPUPATH_A_PATH_MAX, nest, gpupath_path_nla_policy) < 0 ||
	    !tb[GPUPATH_A_PATH_ID])
		return -EBADMSG;
	path->id = get_u32(tb[GPUPATH_A_PATH_ID]);
	path->volume = get_u32(tb[GPUPATH_A_PATH_VOLUME]);
	get_str(path->device, sizeof(path->device), tb[GPUPATH_A_PATH_DEVICE]);
	path->state = get_u32(tb[GPUPATH_A_PATH_STATE]);
	path->health = get_u32(tb[GPUPATH_A_PATH_HEALTH]);
	path->weight = get_u32(tb[GPUPATH_A_PATH_WEIGHT]);
	path->rail = get_u32(tb[GPUPATH_A_PATH_RAIL]);
	path->link = get_u32(tb[GPUPATH_A_PATH_LINK]);
	get_str(path->transport, sizeof(path->transport), tb[GPUPATH_A_PATH_TRANSPORT]);
	get_str(path->controller, sizeof(path->controller), tb[GPUPATH_A_PATH_CONTROLLER]);
	get_str(path->dma_dev, sizeof(path->dma_dev), tb[GPUPATH_A_PATH_DMA_DEV]);
	path->reason = get_u32(tb[GPUPATH_A_PATH_REASON]);
	path->ana_state = get_u32(tb[GPUPATH_A_PATH_ANA_STATE]);
	path->ana_tt = get_u32(tb[GPUPATH_A_PATH_ANA_TT]);
	path->ana_group = get_u32(tb[GPUPATH_A_PATH_ANA_GROUP]);
	if (tb[GPUPATH_A_PATH_STATS])
		return model_pstats(tb[GPUPATH_A_PATH_STATS], &path->stats);
	return 0;
}

static int model_vstats(struct nlattr *nest, struct gpupath_volume_stats *st)
{
	struct nlattr *tb[GPUPATH_A_VSTATS_MAX + 1];

	if (nla_parse_nested(tb, GPUPATH_A_VSTATS_MAX, nest, gpupath_vstats_nla_policy) < 0)
		return -EBADMSG;
	st->ios = get_u64(tb[GPUPATH_A_VSTATS_IOS]);
	st->bytes = get_u64(tb[GPUPATH_A_VSTATS_BYTES]);
	st->errors = get_u64(tb[GPUPATH_A_VSTATS_ERRORS]);
	st->retries = get_u64(tb[GPUPATH_A_VSTATS_RETRIES]);
	st->queued = get_u64(tb[GPUPATH_A_VSTATS_QUEUED]);
	st->refused = get_u64(tb[GPUPATH_A_VSTATS_REFUSED]);
	st->failovers = get_u64(tb[GPUPATH_A_VSTATS_FAILOVERS]);
	st->failover_last_ns = get_u64(tb[GPUPATH_A_VSTATS_FAILOVER_LAST_NS]);
	st->failover_max_ns = get_u64(tb[GPUPATH_A_VSTATS_FAILOVER_MAX_NS]);
	st->inflight = get_u64(tb[GPUPATH_A_VSTATS_INFLIGHT]);
	return 0;
}

/* One GPUPATH_A_VOLUME_PATH nest, kept while there is room. */
static int model_volume_path(struct nlattr *nest, struct gpupath_volume *vol)
{
	struct gpupath_path path;
	int r;

	r = gpupath_model_path(nest, &path);
	if (r < 0 || vol->npaths == GPUPATH_VOLUME_PATHS_MAX)
		return r;
	vol->path[vol->npaths++] = path;
	return 0;
}

int gpupath_model_volume(struct nlattr *nest, struct gpupath_volume *vol)
{
	struct nlattr *tb[GPUPATH_A_VOLUME_MAX + 1], *attr;
	int rem, r;

	memset(vol, 0, sizeof(*vol));
	if (nla_parse_nested(tb, GPUPATH_A_VOLUME_MAX, nest, gpupath_volume_nla_policy) < 0 ||
	    !tb[GPUPATH_A_VOLUME_ID])
		return -EBADMSG;
	vol->id = get_u32(tb[GPUPATH_A_VOLUME_ID]);
	get_str(vol->name, sizeof(vol->name), tb[GPUPATH_A_VOLUME_NAME]);
	get_str(vol->wwid, sizeof(vol->wwid), tb[GPUPATH_A_VOLUME_WWID]);
	vol->policy = get_u32(tb[GPUPATH_A_VOLUME_POLICY]);
	vol->fallback = get_u32(tb[GPUPATH_A_VOLUME_FALLBACK]);
	vol->queue_timeout = get_u32(tb[GPUPATH_A_VOLUME_QUEUE_TIMEOUT]);
	vol->size = get_u64(tb[GPUPATH_A_VOLUME_SIZE]);
	vol->block_size = get_u32(tb[GPUPATH_A_VOLUME_BLOCK_SIZE]);
	vol->mode = get_u32(tb[GPUPATH_A_VOLUME_MODE]);
	vol->open = get_u32(tb[GPUPATH_A_VOLUME_OPEN]);
	vol->paths = get_u32(tb[GPUPATH_A_VOLUME_PATHS]);
	vol->usable = get_u32(tb[GPUPATH_A_VOLUME_USABLE]);
	nla_for_each_nested(attr, nest, rem) {
		if (nla_type(attr) != GPUPATH_A_VOLUME_PATH)
			continue;
		r = model_volume_path(attr, vol);
		if (r < 0)
			return r;
	}
	if (tb[GPUPATH_A_VOLUME_STATS])
		return model_vstats(tb[GPUPATH_A_VOLUME_STATS], &vol->stats);
	return 0;
}

static int model_volume_event(struct nlattr *nest, struct gpupath_volume_event *e)
{
	struct nlattr *tb[GPUPATH_A_EVENT_MAX + 1];

	if (nla_parse_nested(tb, GPUPATH_A_EVENT_MAX, nest, gpupath_event_nla_policy) < 0 ||
	    !tb[GPUPATH_A_EVENT_TYPE])
		return -EBADMSG;
	e->type = get_u32(tb[GPUPATH_A_EVENT_TYPE]);
	e->volume = get_u32(tb[GPUPATH_A_EVENT_VOLUME]);
	e->path = get_u32(tb[GPUPATH_A_EVENT_PATH]);
	e->error = get_u32(tb[GPUPATH_A_EVENT_ERROR]);
	e->nsec = get_u64(tb[GPUPATH_A_EVENT_NSEC]);
	e->ios = get_u64(tb[GPUPATH_A_EVENT_IOS]);
	return 0;
}

static int model_rail(struct nlattr *nest, struct gpupath_portal_rail *rail)
{
	struct nlattr *tb[GPUPATH_A_RAIL_MAX + 1];

	if (nla_parse_nested(tb, GPUPATH_A_RAIL_MAX, nest, gpupath_rail_nla_policy) < 0)
		return -EBADMSG;
	rail->id = get_u32(tb[GPUPATH_A_RAIL_ID]);
	get_str(rail->iface, sizeof(rail->iface), tb[GPUPATH_A_RAIL_IFACE]);
	get_str(rail->addr, sizeof(rail->addr), tb[GPUPATH_A_RAIL_ADDR]);
	return 0;
}

static int model_conn(struct nlattr *nest, struct gpupath_portal_conn *c)
{
	struct nlattr *tb[GPUPATH_A_CONN_MAX + 1];

	if (nla_parse_nested(tb, GPUPATH_A_CONN_MAX, nest, gpupath_conn_nla_policy) < 0)
		return -EBADMSG;
	c->rail = get_u32(tb[GPUPATH_A_CONN_RAIL]);
	get_str(c->subsysnqn, sizeof(c->subsysnqn), tb[GPUPATH_A_CONN_SUBSYSNQN]);
	get_str(c->traddr, sizeof(c->traddr), tb[GPUPATH_A_CONN_TRADDR]);
	c->trsvcid = get_u32(tb[GPUPATH_A_CONN_TRSVCID]);
	c->state = get_u32(tb[GPUPATH_A_CONN_STATE]);
	get_str(c->controller, sizeof(c->controller), tb[GPUPATH_A_CONN_CONTROLLER]);
	c->attempts = get_u32(tb[GPUPATH_A_CONN_ATTEMPTS]);
	c->error = get_u32(tb[GPUPATH_A_CONN_ERROR]);
	c->retry_ms = get_u32(tb[GPUPATH_A_CONN_RETRY_MS]);
	return 0;
}

int gpupath_model_portal(struct nlattr *nest, struct gpupath_portal *p)
{
	struct nlattr *tb[GPUPATH_A_PORTAL_MAX + 1], *attr;
	int rem, r = 0;

	memset(p, 0, sizeof(*p));
	if (nla_parse_nested(tb, GPUPATH_A_PORTAL_MAX, nest, gpupath_portal_nla_policy) < 0 ||
	    !tb[GPUPATH_A_PORTAL_ID])
		return -EBADMSG;
	p->id = get_u32(tb[GPUPATH_A_PORTAL_ID]);
	get_str(p->name, sizeof(p->name), tb[GPUPATH_A_PORTAL_NAME]);
	p->transport = get_u32(tb[GPUPATH_A_PORTAL_TRANSPORT]);
	get_str(p->traddr, sizeof(p->traddr), tb[GPUPATH_A_PORTAL_TRADDR]);
	p->trsvcid = get_u32(tb[GPUPATH_A_PORTAL_TRSVCID]);
	get_str(p->subsysnqn, sizeof(p->subsysnqn), tb[GPUPATH_A_PORTAL_SUBSYSNQN]);
	p->discovery = tb[GPUPATH_A_PORTAL_DISCOVERY];
	get_str(p->qos, sizeof(p->qos), tb[GPUPATH_A_PORTAL_QOS]);
	p->ctrl_loss_tmo = get_u32(tb[GPUPATH_A_PORTAL_CTRL_LOSS_TMO]);
	p->fast_io_fail_tmo = get_u32(tb[GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO]);
	p->reconnect_delay = get_u32(tb[GPUPATH_A_PORTAL_RECONNECT_DELAY]);
	p->nr_io_queues = get_u32(tb[GPUPATH_A_PORTAL_NR_IO_QUEUES]);
	get_str(p->host_nqn, sizeof(p->host_nqn), tb[GPUPATH_A_PORTAL_HOST_NQN]);
	get_str(p->host_id, sizeof(p->host_id), tb[GPUPATH_A_PORTAL_HOST_ID]);
	get_str(p->secret_file, sizeof(p->secret_file), tb[GPUPATH_A_PORTAL_DHCHAP_SECRET_FILE]);
	get_str(p->ctrl_secret_file, sizeof(p->ctrl_secret_file),
		tb[GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE]);
	p->discover = get_u32(tb[GPUPATH_A_PORTAL_DISCOVER]);
	nla_for_each_nested(attr, nest, rem) {
		if (nla_type(attr) == GPUPATH_A_PORTAL_RAIL && p->nrails < GPUPATH_PORTAL_RAILS_MAX)
			r = model_rail(attr, &p->rail[p->nrails++]);
		else if (nla_type(attr) == GPUPATH_A_PORTAL_CONN &&
			 p->nconns < GPUPATH_PORTAL_CONNS_MAX)
			r = model_conn(attr, &p->conn[p->nconns++]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int model_applied(struct nlattr *nest, struct gpupath_qos_applied *a)
{
	struct nlattr *tb[GPUPATH_A_APPLIED_MAX + 1];

	if (nla_parse_nested(tb, GPUPATH_A_APPLIED_MAX, nest, gpupath_applied_nla_policy) < 0)
		return -EBADMSG;
	get_str(a->device, sizeof(a->device), tb[GPUPATH_A_APPLIED_DEVICE]);
	get_str(a->setting, sizeof(a->setting), tb[GPUPATH_A_APPLIED_SETTING]);
	a->result = get_u32(tb[GPUPATH_A_APPLIED_RESULT]);
	a->error = get_u32(tb[GPUPATH_A_APPLIED_ERROR]);
	a->value = get_u32(tb[GPUPATH_A_APPLIED_VALUE]);
	return 0;
}

int gpupath_model_qos(struct nlattr *nest, struct gpupath_qos *q)
{
	struct nlattr *tb[GPUPATH_A_QOS_MAX + 1], *attr;
	int rem, r;

	memset(q, 0, sizeof(*q));
	if (nla_parse_nested(tb, GPUPATH_A_QOS_MAX, nest, gpupath_qos_nla_policy) < 0 ||
	    !tb[GPUPATH_A_QOS_NAME])
		return -EBADMSG;
	get_str(q->name, sizeof(q->name), tb[GPUPATH_A_QOS_NAME]);
	q->dscp = get_u32(tb[GPUPATH_A_QOS_DSCP]);
	q->priority = get_u32(tb[GPUPATH_A_QOS_PRIORITY]);
	q->pfc = get_u32(tb[GPUPATH_A_QOS_PFC]);
	q->ets = get_u32(tb[GPUPATH_A_QOS_ETS]);
	q->portals = get_u32(tb[GPUPATH_A_QOS_PORTALS]);
	nla_for_each_nested(attr, nest, rem) {
		if (nla_type(attr) != GPUPATH_A_QOS_APPLIED || q->napplied == GPUPATH_QOS_APPLIED_MAX)
			continue;
		r = model_applied(attr, &q->applied[q->napplied++]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- objects ------------------------------------------------------------ */

/* What the requests about each kind of object send (0 and NULL: nothing). */
struct provider_req {
	uint32_t id;
	const char *pci_dev;
	int64_t user_limit;		/* negative: not sent */
	int64_t cgroup_limit;		/* also GPUPATH_LIMIT_DEFAULT */
	const char *cgroup;
};

struct volume_req {
	uint32_t id;
	const struct gpupath_volume_conf *conf;
};

struct path_req {
	uint32_t id;
	uint32_t volume;
	const char *device;
	const struct gpupath_path_conf *conf;
};

struct qos_req {
	const char *name;
	const struct gpupath_qos_conf *conf;
};

struct portal_req {
	uint32_t id;
	const char *name;
	const struct gpupath_portal_conf *conf;
};

/* Put u32 @type when @bit is in @set; nonzero when the message is full. */
static int put_opt_u32(struct nl_msg *msg, uint32_t set, uint32_t bit, int type, uint32_t v)
{
	return (set & bit) && nla_put_u32(msg, type, v);
}

/* Put an id unless it is 0 (ids start at 1). */
static int put_id(struct nl_msg *msg, int type, uint32_t id)
{
	return id && nla_put_u32(msg, type, id);
}

static int put_opt_str(struct nl_msg *msg, int type, const char *v)
{
	return v && nla_put_string(msg, type, v);
}

/* Put string @type when @bit is in @set and @v is given ("" included). */
static int put_set_str(struct nl_msg *msg, uint32_t set, uint32_t bit, int type, const char *v)
{
	return (set & bit) && put_opt_str(msg, type, v);
}

static int fill_provider(struct nl_msg *msg, const void *arg)
{
	const struct provider_req *req = arg;

	return put_id(msg, GPUPATH_A_PROVIDER_ID, req->id) ||
	       put_opt_str(msg, GPUPATH_A_PROVIDER_PCI_DEV, req->pci_dev) ||
	       (req->user_limit >= 0 &&
		nla_put_u64(msg, GPUPATH_A_PROVIDER_USER_LIMIT, req->user_limit)) ||
	       (req->cgroup_limit >= 0 &&
		nla_put_u64(msg, GPUPATH_A_PROVIDER_CGROUP_LIMIT, req->cgroup_limit)) ||
	       (req->cgroup_limit == GPUPATH_LIMIT_DEFAULT &&
		nla_put_flag(msg, GPUPATH_A_PROVIDER_CGROUP_LIMIT_DEFAULT)) ||
	       put_opt_str(msg, GPUPATH_A_PROVIDER_CGROUP, req->cgroup);
}

static int fill_volume(struct nl_msg *msg, const void *arg)
{
	const struct volume_req *req = arg;
	const struct gpupath_volume_conf *c = req->conf;

	if (put_id(msg, GPUPATH_A_VOLUME_ID, req->id))
		return -1;
	return c && (put_opt_str(msg, GPUPATH_A_VOLUME_WWID, c->wwid) ||
		     put_opt_u32(msg, c->set, GPUPATH_VOLUME_SET_POLICY,
				 GPUPATH_A_VOLUME_POLICY, c->policy) ||
		     put_opt_u32(msg, c->set, GPUPATH_VOLUME_SET_FALLBACK,
				 GPUPATH_A_VOLUME_FALLBACK, c->fallback) ||
		     put_opt_u32(msg, c->set, GPUPATH_VOLUME_SET_QUEUE_TIMEOUT,
				 GPUPATH_A_VOLUME_QUEUE_TIMEOUT, c->queue_timeout));
}

static int fill_path(struct nl_msg *msg, const void *arg)
{
	const struct path_req *req = arg;
	const struct gpupath_path_conf *c = req->conf;

	if (put_id(msg, GPUPATH_A_PATH_ID, req->id) ||
	    put_id(msg, GPUPATH_A_PATH_VOLUME, req->volume) ||
	    put_opt_str(msg, GPUPATH_A_PATH_DEVICE, req->device))
		return -1;
	return c && (put_opt_u32(msg, c->set, GPUPATH_PATH_SET_STATE,
				 GPUPATH_A_PATH_STATE, c->state) ||
		     put_opt_u32(msg, c->set, GPUPATH_PATH_SET_WEIGHT,
				 GPUPATH_A_PATH_WEIGHT, c->weight) ||
		     put_opt_u32(msg, c->set, GPUPATH_PATH_SET_RAIL,
				 GPUPATH_A_PATH_RAIL, c->rail) ||
		     put_opt_u32(msg, c->set, GPUPATH_PATH_SET_LINK,
				 GPUPATH_A_PATH_LINK, c->link) ||
		     put_opt_u32(msg, c->set, GPUPATH_PATH_SET_ANA_STATE,
				 GPUPATH_A_PATH_ANA_STATE, c->ana_state) ||
		     put_opt_u32(msg, c->set, GPUPATH_PATH_SET_ANA_TT,
				 GPUPATH_A_PATH_ANA_TT, c->ana_tt) ||
		     put_opt_u32(msg, c->set, GPUPATH_PATH_SET_ANA_GROUP,
				 GPUPATH_A_PATH_ANA_GROUP, c->ana_group));
}

static int fill_rail(struct nl_msg *msg, const struct gpupath_portal_rail *rail)
{
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_PORTAL_RAIL);

	if (!nest || nla_put_u32(msg, GPUPATH_A_RAIL_ID, rail->id) ||
	    (rail->iface[0] && nla_put_string(msg, GPUPATH_A_RAIL_IFACE, rail->iface)) ||
	    (rail->addr[0] && nla_put_string(msg, GPUPATH_A_RAIL_ADDR, rail->addr)))
		return -1;
	nla_nest_end(msg, nest);
	return 0;
}

static int fill_conn(struct nl_msg *msg, const struct gpupath_portal_conn *c)
{
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_PORTAL_CONN);

	if (!nest || nla_put_u32(msg, GPUPATH_A_CONN_RAIL, c->rail) ||
	    nla_put_string(msg, GPUPATH_A_CONN_SUBSYSNQN, c->subsysnqn) ||
	    nla_put_string(msg, GPUPATH_A_CONN_TRADDR, c->traddr) ||
	    nla_put_u32(msg, GPUPATH_A_CONN_TRSVCID, c->trsvcid) ||
	    nla_put_u32(msg, GPUPATH_A_CONN_STATE, c->state) ||
	    (c->controller[0] && nla_put_string(msg, GPUPATH_A_CONN_CONTROLLER, c->controller)) ||
	    nla_put_u32(msg, GPUPATH_A_CONN_ATTEMPTS, c->attempts) ||
	    nla_put_u32(msg, GPUPATH_A_CONN_ERROR, c->error) ||
	    nla_put_u32(msg, GPUPATH_A_CONN_RETRY_MS, c->retry_ms))
		return -1;
	nla_nest_end(msg, nest);
	return 0;
}

static int fill_portal(struct nl_msg *msg, const void *arg)
{
	const struct portal_req *req = arg;
	const struct gpupath_portal_conf *c = req->conf;
	unsigned int i;

	if (put_id(msg, GPUPATH_A_PORTAL_ID, req->id) ||
	    (!req->id && put_opt_str(msg, GPUPATH_A_PORTAL_NAME, req->name)))
		return -1;
	if (!c)
		return 0;
	if ((c->transport && nla_put_u32(msg, GPUPATH_A_PORTAL_TRANSPORT, c->transport)) ||
	    put_opt_str(msg, GPUPATH_A_PORTAL_TRADDR, c->traddr) ||
	    put_opt_str(msg, GPUPATH_A_PORTAL_SUBSYSNQN, c->subsysnqn) ||
	    put_opt_u32(msg, c->set, GPUPATH_PORTAL_SET_TRSVCID, GPUPATH_A_PORTAL_TRSVCID,
			c->trsvcid) ||
	    ((c->set & GPUPATH_PORTAL_SET_QOS) &&
	     nla_put_string(msg, GPUPATH_A_PORTAL_QOS, c->qos ? c->qos : "")) ||
	    put_opt_u32(msg, c->set, GPUPATH_PORTAL_SET_CTRL_LOSS_TMO,
			GPUPATH_A_PORTAL_CTRL_LOSS_TMO, c->ctrl_loss_tmo) ||
	    put_opt_u32(msg, c->set, GPUPATH_PORTAL_SET_FAST_IO_FAIL_TMO,
			GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO, c->fast_io_fail_tmo) ||
	    put_opt_u32(msg, c->set, GPUPATH_PORTAL_SET_RECONNECT_DELAY,
			GPUPATH_A_PORTAL_RECONNECT_DELAY, c->reconnect_delay) ||
	    put_opt_u32(msg, c->set, GPUPATH_PORTAL_SET_NR_IO_QUEUES,
			GPUPATH_A_PORTAL_NR_IO_QUEUES, c->nr_io_queues) ||
	    put_set_str(msg, c->set, GPUPATH_PORTAL_SET_HOST_NQN, GPUPATH_A_PORTAL_HOST_NQN,
			c->host_nqn) ||
	    put_set_str(msg, c->set, GPUPATH_PORTAL_SET_HOST_ID, GPUPATH_A_PORTAL_HOST_ID,
			c->host_id) ||
	    put_set_str(msg, c->set, GPUPATH_PORTAL_SET_SECRET,
			GPUPATH_A_PORTAL_DHCHAP_SECRET_FILE, c->secret_file) ||
	    put_set_str(msg, c->set, GPUPATH_PORTAL_SET_CTRL_SECRET,
			GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE, c->ctrl_secret_file) ||
	    put_opt_u32(msg, c->set, GPUPATH_PORTAL_SET_DISCOVER, GPUPATH_A_PORTAL_DISCOVER,
			c->discover))
		return -1;
	for (i = 0; (c->set & GPUPATH_PORTAL_SET_RAILS) && i < c->nrails; i++)
		if (fill_rail(msg, &c->rail[i]))
			return -1;
	if (!(c->set & GPUPATH_PORTAL_SET_CONNS))
		return 0;
	if (!c->nconns)
		return nla_put_flag(msg, GPUPATH_A_PORTAL_CONN_CLEAR) ? -1 : 0;
	for (i = 0; i < c->nconns; i++)
		if (fill_conn(msg, &c->conn[i]))
			return -1;
	return 0;
}

static int fill_applied(struct nl_msg *msg, const struct gpupath_qos_applied *a)
{
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_QOS_APPLIED);

	if (!nest || nla_put_string(msg, GPUPATH_A_APPLIED_DEVICE, a->device) ||
	    nla_put_string(msg, GPUPATH_A_APPLIED_SETTING, a->setting) ||
	    nla_put_u32(msg, GPUPATH_A_APPLIED_RESULT, a->result) ||
	    nla_put_u32(msg, GPUPATH_A_APPLIED_ERROR, a->error) ||
	    nla_put_u32(msg, GPUPATH_A_APPLIED_VALUE, a->value))
		return -1;
	nla_nest_end(msg, nest);
	return 0;
}

static int fill_qos(struct nl_msg *msg, const void *arg)
{
	const struct qos_req *req = arg;
	const struct gpupath_qos_conf *c = req->conf;
	unsigned int i;

	if (put_opt_str(msg, GPUPATH_A_QOS_NAME, req->name))
		return -1;
	if (!c)
		return 0;
	if (put_opt_u32(msg, c->set, GPUPATH_QOS_SET_DSCP, GPUPATH_A_QOS_DSCP, c->dscp) ||
	    put_opt_u32(msg, c->set, GPUPATH_QOS_SET_PRIORITY, GPUPATH_A_QOS_PRIORITY,
			c->priority) ||
	    put_opt_u32(msg, c->set, GPUPATH_QOS_SET_PFC, GPUPATH_A_QOS_PFC, c->pfc) ||
	    put_opt_u32(msg, c->set, GPUPATH_QOS_SET_ETS, GPUPATH_A_QOS_ETS, c->ets))
		return -1;
	if (!(c->set & GPUPATH_QOS_SET_APPLIED))
		return 0;
	if (!c->napplied)
		return nla_put_flag(msg, GPUPATH_A_QOS_APPLIED_CLEAR) ? -1 : 0;
	for (i = 0; i < c->napplied; i++)
		if (fill_applied(msg, &c->applied[i]))
			return -1;
	return 0;
}

static int decode_qos(struct nlattr *nest, void *obj)
{
	return gpupath_model_qos(nest, obj);
}

static int decode_portal(struct nlattr *nest, void *obj)
{
	return gpupath_model_portal(nest, obj);
}

static int decode_info(struct nlattr *nest, void *obj)
{
	return gpupath_model_info(nest, obj);
}

static int decode_provider(struct nlattr *nest, void *obj)
{
	return gpupath_model_provider(nest, obj);
}

static int decode_volume(struct nlattr *nest, void *obj)
{
	return gpupath_model_volume(nest, obj);
}

static int decode_path(struct nlattr *nest, void *obj)
{
	return gpupath_model_path(nest, obj);
}

static int decode_volume_event(struct nlattr *nest, void *obj)
{
	return model_volume_event(nest, obj);
}

static int decode_route(struct nlattr *nest, void *obj)
{
	struct nlattr *tb[GPUPATH_A_ROUTE_MAX + 1];
	struct gpupath_route *route = obj;

	memset(route, 0, sizeof(*route));
	route->distance = -1;
	if (nla_parse_nested(tb, GPUPATH_A_ROUTE_MAX, nest, gpupath_route_nla_policy) < 0 ||
	    !tb[GPUPATH_A_ROUTE_REASON])
		return -EBADMSG;
	route->reason = nla_get_u32(tb[GPUPATH_A_ROUTE_REASON]);
	if (tb[GPUPATH_A_ROUTE_DEVICE])
		copy_str(route->device, sizeof(route->device), tb[GPUPATH_A_ROUTE_DEVICE]);
	if (tb[GPUPATH_A_ROUTE_DMA_DEV])
		copy_str(route->dma_dev, sizeof(route->dma_dev), tb[GPUPATH_A_ROUTE_DMA_DEV]);
	if (tb[GPUPATH_A_ROUTE_DISTANCE])
		route->distance = nla_get_u32(tb[GPUPATH_A_ROUTE_DISTANCE]);
	route->fabrics = !!tb[GPUPATH_A_ROUTE_FABRICS];
	return 0;
}

/* A route query: the provider, the target and the direction. */
struct route_req {
	uint32_t provider;
	const char *target;
	uint32_t op;
};

static int fill_route(struct nl_msg *msg, const void *arg)
{
	const struct route_req *req = arg;

	return nla_put_u32(msg, GPUPATH_A_ROUTE_PROVIDER, req->provider) ||
	       nla_put_string(msg, GPUPATH_A_ROUTE_TARGET, req->target) ||
	       nla_put_u32(msg, GPUPATH_A_ROUTE_OP, req->op);
}

/*
 * A kind of object: the top-level nest it travels in, its structure, and
 * how a request about it fills that nest (NULL: it is never asked for).
 */
struct kind {
	int attr;
	size_t size;
	int (*decode)(struct nlattr *nest, void *obj);
	int (*fill)(struct nl_msg *msg, const void *req);
};

static const struct kind info_kind = {
	GPUPATH_A_INFO, sizeof(struct gpupath_info), decode_info, NULL,
};
static const struct kind provider_kind = {
	GPUPATH_A_PROVIDER, sizeof(struct gpupath_provider), decode_provider, fill_provider,
};
static const struct kind volume_kind = {
	GPUPATH_A_VOLUME, sizeof(struct gpupath_volume), decode_volume, fill_volume,
};
static const struct kind path_kind = {
	GPUPATH_A_PATH, sizeof(struct gpupath_path), decode_path, fill_path,
};
static const struct kind portal_kind = {
	GPUPATH_A_PORTAL, sizeof(struct gpupath_portal), decode_portal, fill_portal,
};
static const struct kind qos_kind = {
	GPUPATH_A_QOS, sizeof(struct gpupath_qos), decode_qos, fill_qos,
};
static int decode_cgroup(struct nlattr *nest, void *obj)
{
	return model_cgroup(nest, obj);
}

static const struct kind cgroup_kind = {
	GPUPATH_A_CGROUP, sizeof(struct gpupath_cgroup_stats), decode_cgroup, NULL,
};
static const struct kind route_kind = {
	GPUPATH_A_ROUTE, sizeof(struct gpupath_route), decode_route, fill_route,
};
static const struct kind event_kind = {
	GPUPATH_A_EVENT, sizeof(struct gpupath_volume_event), decode_volume_event, NULL,
};

/* Decode the @kind nest among @tb into @obj if there is one; *has says so. */
static int model_member(struct nlattr **tb, const struct kind *kind, void *obj, bool *has)
{
	int r;

	if (!tb[kind->attr])
		return 0;
	r = kind->decode(tb[kind->attr], obj);
	*has = r == 0;
	return r;
}

int gpupath_model_event(struct nlmsghdr *nlh, struct gpupath_model_event *ev)
{
	struct nlattr *tb[GPUPATH_A_MAX + 1];
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	int r;

	memset(ev, 0, sizeof(*ev));
	if (!genlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	r = genlmsg_parse(nlh, 0, tb, GPUPATH_A_MAX, gpupath_nla_policy);
	if (r < 0)
		return -EBADMSG;
	ev->ev.type = GPUPATH_EVENT_NOTIFY;
	ev->ev.cmd = gnlh->cmd;
	ev->ev.group = gpupath_cmd_group(gnlh->cmd);
	if (model_member(tb, &info_kind, &ev->info, &ev->has_info) ||
	    model_member(tb, &provider_kind, &ev->provider, &ev->has_provider) ||
	    model_member(tb, &volume_kind, &ev->volume, &ev->has_volume) ||
	    model_member(tb, &path_kind, &ev->path, &ev->has_path) ||
	    model_member(tb, &event_kind, &ev->event, &ev->has_event) ||
	    model_member(tb, &portal_kind, &ev->portal, &ev->has_portal) ||
	    model_member(tb, &qos_kind, &ev->qos, &ev->has_qos))
		return -EBADMSG;
	return 0;
}

const char *gpupath_cmd_group(uint32_t cmd)
{
	/* Objects' NEW/DEL go to "config", what happened to "events". */
	return cmd == GPUPATH_CMD_EVENT ? GPUPATH_MCGRP_EVENTS : GPUPATH_MCGRP_CONFIG;
}

/* ---- requests ----------------------------------------------------------- */

struct request {
	struct gpupath_ctl *ctl;
	int (*parse)(struct nlmsghdr *nlh, void *arg);
	void *arg;
	uint32_t seq;		/* the request's: replies carry it */
	int err;
	bool done;
};

/*
 * A message left over from an earlier request (whose reply or ACK came
 * after the caller gave up on it) is skipped, not taken for this one's.
 */
static int on_seq(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;

	return nlmsg_hdr(msg)->nlmsg_seq == req->seq ? NL_OK : NL_SKIP;
}

/*
 * With NETLINK_EXT_ACK and NETLINK_CAP_ACK the error message is followed
 * directly by the kernel's TLVs; libnl-3.7 does not decode them itself.
 */
static void save_ext_ack(struct gpupath_ctl *ctl, struct nlmsgerr *err)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = NLMSG_HDRLEN + sizeof(*err);

	ctl->errmsg[0] = '\0';
	ctl->erroff = -1;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || nlh->nlmsg_len <= off)
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - NLMSG_HDRLEN;
	if (nlh->nlmsg_len <= off)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
		      nlh->nlmsg_len - off, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		copy_str(ctl->errmsg, sizeof(ctl->errmsg), tb[NLMSGERR_ATTR_MSG]);
	if (tb[NLMSGERR_ATTR_OFFS])
		ctl->erroff = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct request *req = arg;

	(void)nla;
	save_ext_ack(req->ctl, err);
	req->err = err->error < 0 ? err->error : -EPROTO;
	req->done = true;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;

	(void)msg;
	req->done = true;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;
	int r;

	if (!req->parse)
		return NL_OK;
	r = req->parse(nlmsg_hdr(msg), req->arg);
	if (r < 0 && !req->err)
		req->err = r;
	return NL_OK;
}

static int libnl_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_INTR:
		return -EINTR;
	case NLE_BAD_SOCK:
		return -EBADF;
	case NLE_MSGSIZE:
	case NLE_MSG_TRUNC:
		return -EMSGSIZE;
	case NLE_MSG_OVERFLOW:
		return -EOVERFLOW;
	case NLE_SEQ_MISMATCH:
	case NLE_MSG_TOOSHORT:
	case NLE_MSGTYPE_NOSUPPORT:
		return -EPROTO;
	case NLE_DUMP_INTR:
		return -EINTR;
	case NLE_NODEV:
		return -ENODEV;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

#define OVERRUN_WAIT_MS	1000

/*
 * An overrun the socket had for an earlier request (whose reply was lost)
 * is that request's news: cleared, so that this one is not failed by it.
 */
static void clear_overrun(struct nl_sock *sk)
{
	socklen_t len = sizeof(int);
	int e;

	getsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_ERROR, &e, &len);
}

/* Requests are sized to what they carry: a page, or more when it is full. */
#define REQUEST_SIZE_MIN	4096
#define REQUEST_SIZE_MAX	(256 * 1024)

static int build_request(struct gpupath_ctl *ctl, uint8_t cmd, int flags,
			 int (*fill)(struct nl_msg *msg, void *arg), void *arg,
			 struct nl_msg **msgp)
{
	size_t size;
	int r;

	for (size = REQUEST_SIZE_MIN; size <= REQUEST_SIZE_MAX; size *= 4) {
		*msgp = nlmsg_alloc_size(size);
		if (!*msgp)
			return -ENOMEM;
		r = -ENOMEM;
		if (genlmsg_put(*msgp, NL_AUTO_PORT, NL_AUTO_SEQ, ctl->family, 0,
				NLM_F_REQUEST | flags, cmd, GPUPATH_GENL_VERSION))
			r = fill ? fill(*msgp, arg) : 0;
		if (r != -ENOMEM)
			return r < 0 ? r : 0;
		nlmsg_free(*msgp);
		*msgp = NULL;
	}
	return -EMSGSIZE;
}

int gpupath_ctl_request(struct gpupath_ctl *ctl, uint8_t cmd, int flags,
			int (*fill)(struct nl_msg *msg, void *arg),
			int (*parse)(struct nlmsghdr *nlh, void *arg), void *arg)
{
	struct request req = { .ctl = ctl, .parse = parse, .arg = arg };
	struct pollfd pfd = { .fd = nl_socket_get_fd(ctl->sk), .events = POLLIN };
	struct nl_msg *msg = NULL;
	bool overrun = false;
	struct nl_cb *cb;
	int r = -ENOMEM;

	ctl->errmsg[0] = '\0';
	ctl->erroff = -1;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		goto out;
	r = build_request(ctl, cmd, flags, fill, arg, &msg);
	if (r < 0)
		goto out;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_ack, &req);
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, on_seq, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &req);
	clear_overrun(ctl->sk);
	r = nl_send_auto(ctl->sk, msg);
	if (r < 0) {
		r = libnl_errno(r);
		goto out;
	}
	req.seq = nlmsg_hdr(msg)->nlmsg_seq;
	while (!req.done) {
		/*
		 * After an overrun (a message dropped, maybe this request's
		 * reply or ACK), what still comes is read for a second; if
		 * the end of this request is not in it, it was lost: the
		 * request may have been carried out all the same.
		 */
		if (overrun && poll(&pfd, 1, OVERRUN_WAIT_MS) <= 0) {
			r = -ENOBUFS;
			goto out;
		}
		errno = 0;
		r = nl_recvmsgs(ctl->sk, cb);
		if (r < 0 && !req.done) {
			if (r == -NLE_NOMEM && errno == ENOBUFS) {
				overrun = true;
				continue;
			}
			r = libnl_errno(r);
			goto out;
		}
	}
	r = req.err;
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return r;
}

static int set_ext_ack(struct nl_sock *sk)
{
	int one = 1, fd = nl_socket_get_fd(sk);

	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

/* At least the kernel's largest message (GPUPATH_MSG_MAX there). */
#define GPUPATH_MSG_BUF		(64 * 1024)

static int connect_genl(struct nl_sock **skp)
{
	struct nl_sock *sk;
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = genl_connect(sk);
	if (r < 0) {
		nl_socket_free(sk);
		return libnl_errno(r);
	}
	/* Volumes with many paths and portals with many connections are big. */
	nl_socket_set_msg_buf_size(sk, GPUPATH_MSG_BUF);
	*skp = sk;
	return 0;
}

int gpupath_ctl_open(struct gpupath_ctl **ctlp)
{
	struct gpupath_ctl *ctl;
	int r;

	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return -ENOMEM;
	ctl->erroff = -1;
	r = connect_genl(&ctl->sk);
	if (r < 0)
		goto err_free;
	r = set_ext_ack(ctl->sk);
	if (r < 0)
		goto err_close;
	ctl->family = genl_ctrl_resolve(ctl->sk, GPUPATH_GENL_NAME);
	if (ctl->family < 0) {
		r = libnl_errno(ctl->family);
		goto err_close;
	}
	*ctlp = ctl;
	return 0;

err_close:
	nl_socket_free(ctl->sk);
err_free:
	free(ctl);
	return r;
}

void gpupath_ctl_close(struct gpupath_ctl *ctl)
{
	if (!ctl)
		return;
	nl_socket_free(ctl->sk);
	free(ctl);
}

const char *gpupath_ctl_errmsg(const struct gpupath_ctl *ctl)
{
	return ctl->errmsg[0] ? ctl->errmsg : NULL;
}

long gpupath_ctl_erroff(const struct gpupath_ctl *ctl)
{
	return ctl->erroff;
}

/* A request about objects of one kind, and where its replies go. */
struct object_req {
	const struct kind *kind;
	const void *req;	/* what kind->fill sends; NULL: no nest at all */
	void *out;		/* the reply (NULL: not wanted), or the dump's array */
	size_t size;		/* of the caller's structure, or of each in the array */
	bool dump;
	size_t count;		/* dump: objects in out */
};

/*
 * Decode @nest as @kind into the caller's @out of @size bytes: in place when
 * the library's structure fits, else through one of its own size.
 */
static int decode_out(const struct kind *kind, struct nlattr *nest, void *out, size_t size)
{
	void *obj;
	int r;

	if (size >= kind->size) {
		r = kind->decode(nest, out);
		memset((char *)out + kind->size, 0, size - kind->size);
		return r;
	}
	obj = malloc(kind->size);
	if (!obj)
		return -ENOMEM;
	r = kind->decode(nest, obj);
	if (r == 0)
		memcpy(out, obj, size);
	free(obj);
	return r;
}

static int fill_object(struct nl_msg *msg, void *arg)
{
	struct object_req *o = arg;
	struct nlattr *nest;

	if (!o->req)
		return 0;
	nest = nla_nest_start(msg, o->kind->attr);
	if (!nest || o->kind->fill(msg, o->req))
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

static int parse_object(struct nlmsghdr *nlh, void *arg)
{
	struct object_req *o = arg;
	struct nlattr *tb[GPUPATH_A_MAX + 1];
	char *items;
	int r;

	if (!o->out && !o->dump)
		return 0;
	if (genlmsg_parse(nlh, 0, tb, GPUPATH_A_MAX, gpupath_nla_policy) < 0 || !tb[o->kind->attr])
		return -EBADMSG;
	if (!o->dump)
		return decode_out(o->kind, tb[o->kind->attr], o->out, o->size);
	if (!o->size)
		return -EINVAL;
	items = realloc(o->out, (o->count + 1) * o->size);
	if (!items)
		return -ENOMEM;
	o->out = items;
	r = decode_out(o->kind, tb[o->kind->attr], items + o->count * o->size, o->size);
	if (r < 0)
		return r;
	o->count++;
	return 0;
}

/*
 * A request for one object (or none: @out NULL), into the caller's @out of
 * @size bytes, answered with an ACK.
 */
static int object_request(struct gpupath_ctl *ctl, uint8_t cmd, const struct kind *kind,
			  const void *req, void *out, size_t size)
{
	struct object_req o = { .kind = kind, .req = req, .out = out, .size = size };

	return gpupath_ctl_request(ctl, cmd, NLM_F_ACK, req ? fill_object : NULL, parse_object,
				   &o);
}

/*
 * Every object of @kind that @req selects, into a malloc'ed array of
 * elements of @size bytes (NULL on error).
 */
static int object_dump(struct gpupath_ctl *ctl, uint8_t cmd, const struct kind *kind,
		       const void *req, void **list, size_t size, size_t *count)
{
	struct object_req o = { .kind = kind, .req = req, .size = size, .dump = true };
	int r;

	r = gpupath_ctl_request(ctl, cmd, NLM_F_DUMP, req ? fill_object : NULL, parse_object,
				&o);
	if (r < 0) {
		free(o.out);
		o.out = NULL;
	}
	*list = o.out;
	*count = o.count;
	return r;
}

int gpupath_ctl_get_info(struct gpupath_ctl *ctl, struct gpupath_info *info, size_t size)
{
	memset(info, 0, size);
	return object_request(ctl, GPUPATH_CMD_GET_INFO, &info_kind, NULL, info, size);
}

int gpupath_ctl_route(struct gpupath_ctl *ctl, uint32_t provider, const char *target,
		      uint32_t op, struct gpupath_route *route, size_t size)
{
	struct route_req req = { .provider = provider, .target = target, .op = op };

	if (!target || (op != GPUPATH_IO_READ && op != GPUPATH_IO_WRITE))
		return -EINVAL;
	return object_request(ctl, GPUPATH_CMD_ROUTE_GET, &route_kind, &req, route, size);
}

int gpupath_ctl_provider_list(struct gpupath_ctl *ctl, struct gpupath_provider **list,
			      size_t size, size_t *count)
{
	void *items;
	int r = object_dump(ctl, GPUPATH_CMD_PROVIDER_GET, &provider_kind, NULL, &items, size,
			    count);

	*list = items;
	return r;
}

int gpupath_ctl_provider_get(struct gpupath_ctl *ctl, uint32_t id,
			     struct gpupath_provider *prov, size_t size)
{
	struct provider_req req = { .id = id, .user_limit = -1, .cgroup_limit = -1 };

	return object_request(ctl, GPUPATH_CMD_PROVIDER_GET, &provider_kind, &req, prov, size);
}

int gpupath_ctl_provider_add(struct gpupath_ctl *ctl, const char *pci_dev,
			     struct gpupath_provider *prov, size_t size)
{
	struct provider_req req = { .pci_dev = pci_dev, .user_limit = -1, .cgroup_limit = -1 };

	return object_request(ctl, GPUPATH_CMD_PROVIDER_NEW, &provider_kind, &req, prov, size);
}

int gpupath_ctl_provider_del(struct gpupath_ctl *ctl, uint32_t id)
{
	struct provider_req req = { .id = id, .user_limit = -1, .cgroup_limit = -1 };

	return object_request(ctl, GPUPATH_CMD_PROVIDER_DEL, &provider_kind, &req, NULL, 0);
}

int gpupath_ctl_provider_set(struct gpupath_ctl *ctl, uint32_t id, int64_t user_limit,
			     int64_t cgroup_limit, const char *cgroup,
			     struct gpupath_provider *prov, size_t size)
{
	struct provider_req req = { .id = id, .user_limit = user_limit,
				    .cgroup_limit = cgroup_limit, .cgroup = cgroup };

	return object_request(ctl, GPUPATH_CMD_PROVIDER_SET, &provider_kind, &req, prov, size);
}

int gpupath_ctl_volume_list(struct gpupath_ctl *ctl, struct gpupath_volume **list,
			    size_t size, size_t *count)
{
	void *items;
	int r = object_dump(ctl, GPUPATH_CMD_VOLUME_GET, &volume_kind, NULL, &items, size, count);

	*list = items;
	return r;
}

int gpupath_ctl_volume_get(struct gpupath_ctl *ctl, uint32_t id, struct gpupath_volume *vol,
			   size_t size)
{
	struct volume_req req = { .id = id };

	return object_request(ctl, GPUPATH_CMD_VOLUME_GET, &volume_kind, &req, vol, size);
}

int gpupath_ctl_volume_add(struct gpupath_ctl *ctl, const struct gpupath_volume_conf *conf,
			   struct gpupath_volume *vol, size_t size)
{
	struct volume_req req = { .conf = conf };

	return object_request(ctl, GPUPATH_CMD_VOLUME_NEW, &volume_kind, &req, vol, size);
}

int gpupath_ctl_volume_set(struct gpupath_ctl *ctl, uint32_t id,
			   const struct gpupath_volume_conf *conf)
{
	struct volume_req req = { .id = id, .conf = conf };

	return object_request(ctl, GPUPATH_CMD_VOLUME_SET, &volume_kind, &req, NULL, 0);
}

int gpupath_ctl_volume_del(struct gpupath_ctl *ctl, uint32_t id)
{
	struct volume_req req = { .id = id };

	return object_request(ctl, GPUPATH_CMD_VOLUME_DEL, &volume_kind, &req, NULL, 0);
}

int gpupath_ctl_path_list(struct gpupath_ctl *ctl, uint32_t volume, struct gpupath_path **list,
			  size_t size, size_t *count)
{
	struct path_req req = { .volume = volume };
	void *items;
	int r;

	r = object_dump(ctl, GPUPATH_CMD_PATH_GET, &path_kind, volume ? &req : NULL, &items,
			size, count);
	*list = items;
	return r;
}

int gpupath_ctl_path_get(struct gpupath_ctl *ctl, uint32_t id, struct gpupath_path *path,
			 size_t size)
{
	struct path_req req = { .id = id };

	return object_request(ctl, GPUPATH_CMD_PATH_GET, &path_kind, &req, path, size);
}

int gpupath_ctl_path_add(struct gpupath_ctl *ctl, uint32_t volume, const char *device,
			 const struct gpupath_path_conf *conf, struct gpupath_path *path,
			 size_t size)
{
	struct path_req req = { .volume = volume, .device = device, .conf = conf };

	return object_request(ctl, GPUPATH_CMD_PATH_NEW, &path_kind, &req, path, size);
}

int gpupath_ctl_path_set(struct gpupath_ctl *ctl, uint32_t id,
			 const struct gpupath_path_conf *conf)
{
	struct path_req req = { .id = id, .conf = conf };

	return object_request(ctl, GPUPATH_CMD_PATH_SET, &path_kind, &req, NULL, 0);
}

int gpupath_ctl_path_del(struct gpupath_ctl *ctl, uint32_t id)
{
	struct path_req req = { .id = id };

	return object_request(ctl, GPUPATH_CMD_PATH_DEL, &path_kind, &req, NULL, 0);
}

int gpupath_ctl_portal_list(struct gpupath_ctl *ctl, struct gpupath_portal **list,
			    size_t size, size_t *count)
{
	void *items;
	int r = object_dump(ctl, GPUPATH_CMD_PORTAL_GET, &portal_kind, NULL, &items, size, count);

	*list = items;
	return r;
}

int gpupath_ctl_portal_get(struct gpupath_ctl *ctl, uint32_t id, const char *name,
			   struct gpupath_portal *portal, size_t size)
{
	struct portal_req req = { .id = id, .name = name };

	return object_request(ctl, GPUPATH_CMD_PORTAL_GET, &portal_kind, &req, portal, size);
}

int gpupath_ctl_portal_add(struct gpupath_ctl *ctl, const struct gpupath_portal_conf *conf,
			   struct gpupath_portal *portal, size_t size)
{
	struct portal_req req = { .name = conf->name, .conf = conf };

	return object_request(ctl, GPUPATH_CMD_PORTAL_NEW, &portal_kind, &req, portal, size);
}

int gpupath_ctl_portal_set(struct gpupath_ctl *ctl, uint32_t id, const char *name,
			   const struct gpupath_portal_conf *conf)
{
	struct portal_req req = { .id = id, .name = name, .conf = conf };

	return object_request(ctl, GPUPATH_CMD_PORTAL_SET, &portal_kind, &req, NULL, 0);
}

int gpupath_ctl_portal_del(struct gpupath_ctl *ctl, uint32_t id, const char *name)
{
	struct portal_req req = { .id = id, .name = name };

	return object_request(ctl, GPUPATH_CMD_PORTAL_DEL, &portal_kind, &req, NULL, 0);
}

int gpupath_ctl_qos_list(struct gpupath_ctl *ctl, struct gpupath_qos **list, size_t size,
			 size_t *count)
{
	void *items;
	int r = object_dump(ctl, GPUPATH_CMD_QOS_GET, &qos_kind, NULL, &items, size, count);

	*list = items;
	return r;
}

int gpupath_ctl_cgroup_list(struct gpupath_ctl *ctl, struct gpupath_cgroup_stats **list,
			    size_t size, size_t *count)
{
	void *items;
	int r = object_dump(ctl, GPUPATH_CMD_CGROUP_GET, &cgroup_kind, NULL, &items, size, count);

	*list = items;
	return r;
}

int gpupath_ctl_qos_get(struct gpupath_ctl *ctl, const char *name, struct gpupath_qos *qos,
			size_t size)
{
	struct qos_req req = { .name = name };

	return object_request(ctl, GPUPATH_CMD_QOS_GET, &qos_kind, &req, qos, size);
}

int gpupath_ctl_qos_add(struct gpupath_ctl *ctl, const char *name,
			const struct gpupath_qos_conf *conf, struct gpupath_qos *qos, size_t size)
{
	struct qos_req req = { .name = name, .conf = conf };

	return object_request(ctl, GPUPATH_CMD_QOS_NEW, &qos_kind, &req, qos, size);
}

int gpupath_ctl_qos_set(struct gpupath_ctl *ctl, const char *name,
			const struct gpupath_qos_conf *conf)
{
	struct qos_req req = { .name = name, .conf = conf };

	return object_request(ctl, GPUPATH_CMD_QOS_SET, &qos_kind, &req, NULL, 0);
}

int gpupath_ctl_qos_del(struct gpupath_ctl *ctl, const char *name)
{
	struct qos_req req = { .name = name };

	return object_request(ctl, GPUPATH_CMD_QOS_DEL, &qos_kind, &req, NULL, 0);
}

/* ---- notifications ------------------------------------------------------ */

/* Join group @id, or pass on the libnl error that came instead of an id. */
static int join(struct nl_sock *sk, int id)
{
	int r;

	if (id < 0)
		return libnl_errno(id);
	r = nl_socket_add_membership(sk, id);
	return r < 0 ? libnl_errno(r) : 0;
}

/* Join every multicast group listed in a CTRL_ATTR_MCAST_GROUPS nest. */
static int join_groups(struct nl_sock *sk, struct nlattr *groups)
{
	struct nlattr *grp;
	int rem, r;

	nla_for_each_nested(grp, groups, rem) {
		struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];

		if (nla_parse_nested(tb, CTRL_ATTR_MCAST_GRP_MAX, grp, NULL) < 0 ||
		    !tb[CTRL_ATTR_MCAST_GRP_ID])
			continue;
		r = join(sk, nla_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]));
		if (r < 0)
			return r;
	}
	return 0;
}

static bool is_our_family(struct nlattr **tb)
{
	return tb[CTRL_ATTR_FAMILY_NAME] &&
	       !strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), GPUPATH_GENL_NAME);
}

/* A message from the generic-netlink controller: our family came or went. */
static int on_ctrl(struct gpupath_mon *mon, struct nlmsghdr *nlh, struct gpupath_mon_event *ev)
{
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	int r;

	if (genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, NULL) < 0 || !is_our_family(tb))
		return 0;
	switch (gnlh->cmd) {
	case CTRL_CMD_NEWFAMILY:
		mon->family = tb[CTRL_ATTR_FAMILY_ID] ? nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]) : 0;
		if (tb[CTRL_ATTR_MCAST_GROUPS]) {
			r = join_groups(mon->sk, tb[CTRL_ATTR_MCAST_GROUPS]);
			if (r < 0)
				return r;
		}
		ev->type = GPUPATH_EVENT_FAMILY_NEW;
		return 1;
	case CTRL_CMD_DELFAMILY:
		mon->family = 0;
		ev->type = GPUPATH_EVENT_FAMILY_DEL;
		return 1;
	default:
		return 0;
	}
}

static int on_notification(struct nl_msg *msg, void *arg)
{
	struct gpupath_mon *mon = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct gpupath_model_event ev;
	int r = 0;

	memset(&ev, 0, sizeof(ev));
	if (nlh->nlmsg_type == GENL_ID_CTRL)
		r = on_ctrl(mon, nlh, &ev.ev);
	else if (mon->family && nlh->nlmsg_type == mon->family)
		r = gpupath_model_event(nlh, &ev) ? 0 : 1;
	if (r > 0) {
		mon->sink.fn(&ev, mon->sink.arg);
		mon->sink.count++;
	}
	return NL_OK;
}

/* The family's id and groups, asked on a socket of its own. */
static int resolve_family(struct gpupath_mon *mon, bool *loaded)
{
	static const char *const groups[] = { GPUPATH_MCGRP_CONFIG, GPUPATH_MCGRP_EVENTS };
	struct nl_sock *sk = NULL;
	unsigned int i;
	int r;

	r = connect_genl(&sk);
	if (r < 0)
		return r;
	r = join(mon->sk, genl_ctrl_resolve_grp(sk, "nlctrl", "notify"));
	if (r < 0)
		goto out;
	mon->family = genl_ctrl_resolve(sk, GPUPATH_GENL_NAME);
	*loaded = mon->family > 0;
	if (!*loaded) {
		mon->family = 0;
		goto out;
	}
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		r = join(mon->sk, genl_ctrl_resolve_grp(sk, GPUPATH_GENL_NAME, groups[i]));
		if (r < 0)
			goto out;
	}
out:
	nl_socket_free(sk);
	return r;
}

int gpupath_mon_open(struct gpupath_mon **monp, bool *loaded)
{
	struct gpupath_mon *mon;
	int r;

	mon = calloc(1, sizeof(*mon));
	if (!mon)
		return -ENOMEM;
	r = connect_genl(&mon->sk);
	if (r < 0)
		goto err_free;
	nl_socket_disable_seq_check(mon->sk);
	r = nl_socket_set_nonblocking(mon->sk);
	if (r < 0) {
		r = libnl_errno(r);
		goto err_close;
	}
	r = resolve_family(mon, loaded);
	if (r < 0)
		goto err_close;
	nl_socket_modify_cb(mon->sk, NL_CB_VALID, NL_CB_CUSTOM, on_notification, mon);
	*monp = mon;
	return 0;

err_close:
	nl_socket_free(mon->sk);
err_free:
	free(mon);
	return r;
}

void gpupath_mon_close(struct gpupath_mon *mon)
{
	if (!mon)
		return;
	nl_socket_free(mon->sk);
	free(mon);
}

int gpupath_mon_fd(const struct gpupath_mon *mon)
{
	return nl_socket_get_fd(mon->sk);
}

int gpupath_mon_dispatch_model(struct gpupath_mon *mon, gpupath_model_fn fn, void *arg)
{
	int r;

	mon->sink.fn = fn;
	mon->sink.arg = arg;
	mon->sink.count = 0;
	for (;;) {
		r = nl_recvmsgs_default(mon->sk);
		if (r == -NLE_AGAIN)
			break;
		/* libnl reports a receive-queue overrun (ENOBUFS) as NLE_NOMEM. */
		if (r == -NLE_NOMEM)
			return -ENOBUFS;
		if (r < 0)
			return libnl_errno(r);
	}
	return mon->sink.count;
}

/* The caller's callback, and its argument. */
struct event_sink {
	gpupath_event_fn fn;
	void *arg;
};

static void deliver_event(const struct gpupath_model_event *ev, void *arg)
{
	const struct event_sink *sink = arg;

	sink->fn(&ev->ev, sink->arg);
}

int gpupath_mon_dispatch(struct gpupath_mon *mon, gpupath_event_fn fn, void *arg)
{
	struct event_sink sink = { .fn = fn, .arg = arg };

	return gpupath_mon_dispatch_model(mon, deliver_event, &sink);
}

/* The notification @ev is the first member of. */
static const struct gpupath_model_event *model_of(const struct gpupath_mon_event *ev)
{
	return (const struct gpupath_model_event *)((const char *)ev -
						     offsetof(struct gpupath_model_event, ev));
}

/* Copy out what the notification carried, if it carried it. */
static int event_copy(bool has, void *dst, size_t size, const void *src, size_t lsize)
{
	if (!has)
		return -ENOENT;
	gpupath_copy_out(dst, size, src, lsize);
	return 0;
}

int gpupath_mon_event_info(const struct gpupath_mon_event *ev, struct gpupath_info *info,
			   size_t size)
{
	const struct gpupath_model_event *m = model_of(ev);

	return event_copy(m->has_info, info, size, &m->info, sizeof(m->info));
}

int gpupath_mon_event_provider(const struct gpupath_mon_event *ev,
			       struct gpupath_provider *prov, size_t size)
{
	const struct gpupath_model_event *m = model_of(ev);

	return event_copy(m->has_provider, prov, size, &m->provider, sizeof(m->provider));
}

int gpupath_mon_event_volume(const struct gpupath_mon_event *ev, struct gpupath_volume *vol,
			     size_t size)
{
	const struct gpupath_model_event *m = model_of(ev);

	return event_copy(m->has_volume, vol, size, &m->volume, sizeof(m->volume));
}

int gpupath_mon_event_path(const struct gpupath_mon_event *ev, struct gpupath_path *path,
			   size_t size)
{
	const struct gpupath_model_event *m = model_of(ev);

	return event_copy(m->has_path, path, size, &m->path, sizeof(m->path));
}

int gpupath_mon_event_volume_event(const struct gpupath_mon_event *ev,
				   struct gpupath_volume_event *event, size_t size)
{
	const struct gpupath_model_event *m = model_of(ev);

	return event_copy(m->has_event, event, size, &m->event, sizeof(m->event));
}

int gpupath_mon_event_portal(const struct gpupath_mon_event *ev,
			     struct gpupath_portal *portal, size_t size)
{
	const struct gpupath_model_event *m = model_of(ev);

	return event_copy(m->has_portal, portal, size, &m->portal, sizeof(m->portal));
}

int gpupath_mon_event_qos(const struct gpupath_mon_event *ev, struct gpupath_qos *qos,
			  size_t size)
{
	const struct gpupath_model_event *m = model_of(ev);

	return event_copy(m->has_qos, qos, size, &m->qos, sizeof(m->qos));
}

/* ---- quotas ------------------------------------------------------------- */

/* This process's cgroup v2 path ("/ta"), or "" when not known. */
static void own_cgroup(char *buf, size_t size)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "re");

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line + 3) < size)
			memcpy(buf, line + 3, strlen(line + 3) + 1);
		break;
	}
	fclose(f);
}

static void append(char *msg, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *msg, size_t size, const char *fmt, ...)
{
	size_t len = strlen(msg);
	va_list ap;

	if (len >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(msg + len, size - len, fmt, ap);
	va_end(ap);
}

/* What the usage entry of cgroup @path holds (0: none), and its own limit if any. */
static uint64_t cgroup_held(const struct gpupath_provider *p, const char *path, uint64_t *limit)
{
	uint64_t held = 0;
	unsigned int i;

	*limit = p->cgroup_limit;
	for (i = 0; i < p->noverride && i < GPUPATH_USAGE_MAX; i++)
		if (!strcmp(p->override[i].cgroup, path))
			*limit = p->override[i].limit;
	for (i = 0; i < p->nusage && i < GPUPATH_USAGE_MAX; i++)
		if (p->usage[i].is_cgroup && !strcmp(p->usage[i].cgroup, path))
			held = p->usage[i].bytes;
	return held;
}

int gpupath_alloc_explain(uint32_t provider, size_t want, int err, char *msg, size_t size)
{
	struct gpupath_provider *p;
	struct gpupath_ctl *ctl;
	uint64_t held, limit;
	char cg[1024];
	unsigned int i;
	bool any = false;
	size_t n;
	int r;

	if (!size)
		return -EINVAL;
	if (err != -EDQUOT) {
		snprintf(msg, size, "%s", strerror(err < 0 ? -err : err));
		return 0;
	}
	snprintf(msg, size, "over a device-memory limit of provider %u (per user or per cgroup)",
		 provider);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	r = gpupath_ctl_open(&ctl);
	if (!r) {
		r = gpupath_ctl_provider_get(ctl, provider, p, sizeof(*p));
		gpupath_ctl_close(ctl);
	}
	if (r < 0) {
		free(p);
		return r;
	}
	snprintf(msg, size, "provider %u:", provider);
	/* The user's limit. */
	held = 0;
	for (i = 0; i < p->nusage && i < GPUPATH_USAGE_MAX; i++)
		if (!p->usage[i].is_cgroup && p->usage[i].uid == getuid())
			held = p->usage[i].bytes;
	if (p->user_limit && held + want > p->user_limit) {
		append(msg, size, " user %u holds %" PRIu64 " KiB, its limit is %" PRIu64 " KiB",
		       getuid(), held >> 10, p->user_limit >> 10);
		any = true;
	}
	/* The limit of this process's cgroup and of each ancestor but the root. */
	own_cgroup(cg, sizeof(cg));
	for (n = 1; cg[0] == '/' && n <= strlen(cg); n++) {
		char c = cg[n];

		if (c != '/' && c != '\0')
			continue;
		cg[n] = '\0';
		held = cgroup_held(p, cg, &limit);
		if (limit && held + want > limit) {
			append(msg, size, "%s cgroup %s holds %" PRIu64 " KiB, its limit is %" PRIu64
			       " KiB", any ? ";" : "", cg, held >> 10, limit >> 10);
			any = true;
		}
		cg[n] = c;
	}
	if (!any)
		append(msg, size, " over its limit per user or per cgroup (held by others meanwhile)");
	free(p);
	return 0;
}
