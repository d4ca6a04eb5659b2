/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What netlink.c gives the family's other handlers (netlink-volume.c,
 * netlink-fabric.c): messages of one object, replies, dumps, notifications,
 * and requests parsed with their command's generated policy.
 */
#ifndef _GPUPATH_NL_H
#define _GPUPATH_NL_H

#include <net/genetlink.h>

/*
 * The largest message: a volume with many paths, or a portal with many
 * connections, can outgrow NLMSG_GOODSIZE. User space reads with a buffer
 * at least this large (libgpupath does).
 */
#define GPUPATH_MSG_MAX		(32 * 1024)

bool gpupath_nl_ready(void);
struct sk_buff *gpupath_nl_msg(u32 portid, u32 seq, u8 cmd,
			       int (*put)(struct sk_buff *skb, void *obj), void *obj);
int gpupath_nl_reply(struct genl_info *info, int (*put)(struct sk_buff *skb, void *obj),
		     void *obj);
int gpupath_nl_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			int (*put)(struct sk_buff *skb, void *obj), void *obj);
void gpupath_nl_multicast(struct sk_buff *msg, unsigned int grp);
struct gpupath_stats;
int gpupath_nl_put_stats(struct sk_buff *skb, int type, struct gpupath_stats *st);
int gpupath_nl_nest_done(struct sk_buff *skb, struct nlattr *nest, bool full);
int gpupath_nl_parse_policy(const struct nlattr *nest, const struct nla_policy *policy,
			    int maxtype, struct nlattr **tb, int max,
			    struct netlink_ext_ack *extack);
int gpupath_nl_parse_info(struct genl_info *info, int type, const struct nla_policy *policy,
			  int maxtype, struct nlattr **tb, int max);
int gpupath_nl_refused_at(struct netlink_ext_ack *extack, const struct nlattr *attr, int ret);
int gpupath_nl_need_sys_admin(struct sk_buff *skb, struct genl_info *info);

struct cgroup;

/**
 * struct gpupath_viewer - what the reader of a reply may see of other
 *	tenants' entries (users and cgroups holding memory, their counters)
 * @all: everything: CAP_SYS_ADMIN in the initial user namespace
 * @uid: else its own user's entries only
 * @cgrp: and its own cgroup's, those above it (whose limits bound it) and
 *	those below it (a reference)
 *
 * Notifications, which anyone may read, carry none of them (a NULL viewer).
 */
struct gpupath_viewer {
	bool all;
	kuid_t uid;
	struct cgroup *cgrp;
};

void gpupath_viewer_init(struct gpupath_viewer *v, struct sk_buff *skb);
void gpupath_viewer_release(struct gpupath_viewer *v);
bool gpupath_viewer_sees(const struct gpupath_viewer *v, struct cgroup *cgrp, kuid_t uid);

struct gpupath_quota;
int gpupath_nl_put_quota(struct sk_buff *skb, struct gpupath_quota *q,
			 const struct gpupath_viewer *who);

#endif /* _GPUPATH_NL_H */
