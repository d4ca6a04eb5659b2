// SPDX-License-Identifier: GPL-2.0
/*
 * The family's volume and path commands, and the notifications of volumes,
 * paths and their events (notify.h).
 */
#include <net/genetlink.h>

#include "family.h"
#include "nl.h"
#include "notify.h"
#include "volume.h"

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
	    nla_put_u32(skb, GPUPATH_A_PATH_ANA_STATE, READ_ONCE(path->ana)) ||
	    nla_put_u32(skb, GPUPATH_A_PATH_ANA_TT, READ_ONCE(path->ana_tt)) ||
	    nla_put_u32(skb, GPUPATH_A_PATH_ANA_GROUP, READ_ONCE(path->ana_group)) ||
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
 * gpupath_notify_volume() - tell the "config" group about a volume
 * @vol: the volume
 * @cmd: %GPUPATH_CMD_VOLUME_NEW (also for changes) or %GPUPATH_CMD_VOLUME_DEL
 */
void gpupath_notify_volume(struct gpupath_volume *vol, u8 cmd)
{
	if (!gpupath_nl_ready())
		return;
	gpupath_nl_multicast(gpupath_nl_msg(0, 0, cmd, put_volume_obj, vol), GPUPATH_NLGRP_CONFIG);
}

/**
 * gpupath_notify_path() - tell the "config" group about a path
 * @vol: its volume
 * @path: the path, on the list under vol->lock or off it
 * @cmd: %GPUPATH_CMD_PATH_NEW (also for changes) or %GPUPATH_CMD_PATH_DEL
 */
void gpupath_notify_path(struct gpupath_volume *vol, struct gpupath_path *path, u8 cmd)
{
	if (!gpupath_nl_ready())
		return;
	gpupath_nl_multicast(gpupath_nl_msg(0, 0, cmd, put_path_obj, path), GPUPATH_NLGRP_CONFIG);
}

/**
 * gpupath_notify_event() - tell the "events" group what happened
 * @type: enum gpupath_event
 * @vol: volume id
 * @path: path id, or 0
 * @err: errno, or 0
 * @nsec: a duration, or 0
 * @ios: a count, or 0
 */
void gpupath_notify_event(u32 type, u32 vol, u32 path, u32 err, u64 nsec, u64 ios)
{
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;

	if (!gpupath_nl_ready())
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
	gpupath_nl_multicast(msg, GPUPATH_NLGRP_EVENTS);
}

static s64 opt_u32(struct nlattr **tb, int type)
{
	if (!tb[type])
		return -1;
	return nla_get_u32(tb[type]);
}

/* A wwid as NVMe gives one (uuid., eui., nvme.): printable ASCII, no space. */
static bool valid_wwid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
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
	cfg->ana = opt_u32(tb, GPUPATH_A_PATH_ANA_STATE);
	cfg->ana_tt = opt_u32(tb, GPUPATH_A_PATH_ANA_TT);
	cfg->ana_group = opt_u32(tb, GPUPATH_A_PATH_ANA_GROUP);
}

/* The volume named by the request's GPUPATH_A_VOLUME_ID. */
static struct gpupath_volume *volume_from_info(struct genl_info *info,
					       const struct nla_policy *policy, int maxtype,
					       struct nlattr **tb)
{
	struct gpupath_volume *vol;
	int ret;

	ret = gpupath_nl_parse_info(info, GPUPATH_A_VOLUME, policy, maxtype, tb,
				    GPUPATH_A_VOLUME_MAX);
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

int gpupath_nl_volume_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_VOLUME_MAX + 1];
	struct gpupath_volume *vol;
	int ret;

	vol = volume_from_info(info, gpupath_volume_get_request_nl_policy,
			       ARRAY_SIZE(gpupath_volume_get_request_nl_policy) - 1, tb);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	ret = gpupath_nl_reply(info, put_volume_obj, vol);
	gpupath_volume_put(vol);
	return ret;
}

/* cb->args[0]: the id of the last volume dumped. */
int gpupath_nl_volume_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gpupath_volume *vol;
	int ret;

	cb->seq = gpupath_volume_generation();
	while ((vol = gpupath_volume_next(cb->args[0]))) {
		ret = gpupath_nl_dump_one(skb, cb, put_volume_obj, vol);
		if (!ret)
			cb->args[0] = vol->id;
		gpupath_volume_put(vol);
		if (ret)
			return skb->len ?: ret;	/* not even one fits: say so */
	}
	return skb->len;
}

int gpupath_nl_volume_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_VOLUME_MAX + 1] = {};
	struct gpupath_volume_cfg cfg;
	struct gpupath_volume *vol;
	struct sk_buff *msg;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	if (info->attrs[GPUPATH_A_VOLUME]) {
		ret = gpupath_nl_parse_info(info, GPUPATH_A_VOLUME,
					    gpupath_volume_new_request_nl_policy,
					    ARRAY_SIZE(gpupath_volume_new_request_nl_policy) - 1,
					    tb, GPUPATH_A_VOLUME_MAX);
		if (ret)
			return ret;
	}
	if (tb[GPUPATH_A_VOLUME_WWID] && !valid_wwid(nla_data(tb[GPUPATH_A_VOLUME_WWID]))) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_VOLUME_WWID],
				    "a wwid is 1 to 255 characters of printable ASCII, no spaces");
		return -EINVAL;
	}
	volume_cfg(tb, &cfg);
	ret = gpupath_nl_refused_at(info->extack, info->attrs[GPUPATH_A_VOLUME],
				    gpupath_volume_add(&cfg, info->extack, &vol));
	if (ret)
		return ret;
	/* No reply, no volume: the caller is told what happened. */
	msg = gpupath_nl_msg(info->snd_portid, info->snd_seq, GPUPATH_CMD_VOLUME_NEW,
			     put_volume_obj, vol);
	if (!msg) {
		gpupath_volume_del(vol, NULL);
		gpupath_volume_put(vol);
		return -ENOMEM;
	}
	gpupath_notify_volume(vol, GPUPATH_CMD_VOLUME_NEW);
	gpupath_volume_put(vol);
	return genlmsg_reply(msg, info);
}

int gpupath_nl_volume_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_VOLUME_MAX + 1];
	struct gpupath_volume_cfg cfg;
	struct gpupath_volume *vol;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	vol = volume_from_info(info, gpupath_volume_set_request_nl_policy,
			       ARRAY_SIZE(gpupath_volume_set_request_nl_policy) - 1, tb);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	volume_cfg(tb, &cfg);
	ret = gpupath_nl_refused_at(info->extack, info->attrs[GPUPATH_A_VOLUME],
				    gpupath_volume_set(vol, &cfg, info->extack));
	if (!ret)
		gpupath_notify_volume(vol, GPUPATH_CMD_VOLUME_NEW);
	gpupath_volume_put(vol);
	return ret;
}

int gpupath_nl_volume_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_VOLUME_MAX + 1];
	struct gpupath_volume *vol;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	vol = volume_from_info(info, gpupath_volume_del_request_nl_policy,
			       ARRAY_SIZE(gpupath_volume_del_request_nl_policy) - 1, tb);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	ret = gpupath_nl_refused_at(info->extack, tb[GPUPATH_A_VOLUME_ID],
				    gpupath_volume_del(vol, info->extack));
	gpupath_volume_put(vol);
	return ret;
}

/* The volume of the path named by the request's GPUPATH_A_PATH_ID. */
static struct gpupath_volume *path_from_info(struct genl_info *info,
					     const struct nla_policy *policy, int maxtype,
					     struct nlattr **tb, u32 *id)
{
	struct gpupath_volume *vol;
	int ret;

	ret = gpupath_nl_parse_info(info, GPUPATH_A_PATH, policy, maxtype, tb, GPUPATH_A_PATH_MAX);
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

int gpupath_nl_path_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1];
	struct gpupath_volume *vol;
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int ret;

	vol = path_from_info(info, gpupath_path_get_request_nl_policy,
			     ARRAY_SIZE(gpupath_path_get_request_nl_policy) - 1, tb, &id);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &gpupath_genl_family, 0, info->genlhdr->cmd);
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
		ret = gpupath_nl_dump_one(skb, cb, put_path_obj, path);
		if (ret)
			break;
		cb->args[1] = path->id;
	}
	mutex_unlock(&vol->lock);
	return ret;
}

int gpupath_nl_path_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = gpupath_compat_dump_attrs(cb);
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1] = {};
	struct gpupath_volume *vol;
	u32 only = 0;

	if (attrs[GPUPATH_A_PATH]) {
		if (gpupath_nl_parse_policy(attrs[GPUPATH_A_PATH],
					    gpupath_path_get_request_nl_policy,
					    ARRAY_SIZE(gpupath_path_get_request_nl_policy) - 1,
					    tb, GPUPATH_A_PATH_MAX, cb->extack))
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

int gpupath_nl_path_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1];
	struct gpupath_path_cfg cfg;
	struct gpupath_volume *vol;
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	ret = gpupath_nl_parse_info(info, GPUPATH_A_PATH, gpupath_path_new_request_nl_policy,
				    ARRAY_SIZE(gpupath_path_new_request_nl_policy) - 1,
				    tb, GPUPATH_A_PATH_MAX);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_PATH], tb,
			      GPUPATH_A_PATH_VOLUME) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[GPUPATH_A_PATH], tb,
			      GPUPATH_A_PATH_DEVICE))
		return -EINVAL;
	vol = gpupath_volume_get(nla_get_u32(tb[GPUPATH_A_PATH_VOLUME]));
	if (IS_ERR(vol)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_PATH_VOLUME],
				    "no volume with this id");
		return PTR_ERR(vol);
	}
	path_cfg(tb, &cfg);
	ret = gpupath_nl_refused_at(info->extack, tb[GPUPATH_A_PATH_DEVICE],
				    gpupath_path_add(vol, nla_data(tb[GPUPATH_A_PATH_DEVICE]), &cfg,
						     info->extack, &id));
	if (ret)
		goto out;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto err_del;
	hdr = genlmsg_put_reply(msg, info, &gpupath_genl_family, 0, GPUPATH_CMD_PATH_NEW);
	if (!hdr || put_path_of(msg, vol, id)) {
		nlmsg_free(msg);
		goto err_del;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
	goto out;

err_del:
	/* No reply, no path (removed now, or by a worker): the caller is told. */
	gpupath_path_del(vol, id, NULL);
	ret = -ENOMEM;
out:
	gpupath_volume_put(vol);
	return ret;
}

int gpupath_nl_path_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1];
	struct gpupath_path_cfg cfg;
	struct gpupath_volume *vol;
	u32 id;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	vol = path_from_info(info, gpupath_path_set_request_nl_policy,
			     ARRAY_SIZE(gpupath_path_set_request_nl_policy) - 1, tb, &id);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	path_cfg(tb, &cfg);
	ret = gpupath_nl_refused_at(info->extack, tb[GPUPATH_A_PATH_ID],
				    gpupath_path_set(vol, id, &cfg, info->extack));
	gpupath_volume_put(vol);
	return ret;
}

int gpupath_nl_path_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PATH_MAX + 1];
	struct gpupath_volume *vol;
	u32 id;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	vol = path_from_info(info, gpupath_path_del_request_nl_policy,
			     ARRAY_SIZE(gpupath_path_del_request_nl_policy) - 1, tb, &id);
	if (IS_ERR(vol))
		return PTR_ERR(vol);
	ret = gpupath_nl_refused_at(info->extack, tb[GPUPATH_A_PATH_ID],
				    gpupath_path_del(vol, id, info->extack));
	gpupath_volume_put(vol);
	return ret;
}
