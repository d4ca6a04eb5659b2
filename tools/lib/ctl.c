// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The control plane: every generic-netlink message gpupath's user space sends
 * or receives is encoded and decoded here, into the model of libgpupath.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "libgpupath.h"
#include "model.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct gpupath_ctl {
	struct nl_sock *sk;
	int family;
	char errmsg[256];
};

struct gpupath_mon {
	struct nl_sock *sk;
	int family;		/* 0 while the module is not loaded */
	struct gpupath_event_sink {
		gpupath_event_fn fn;
		void *arg;
		int count;
	} sink;
};

/* ---- decoding ----------------------------------------------------------- */

static struct nla_policy info_policy[GPUPATH_A_INFO_MAX + 1] = {
	[GPUPATH_A_INFO_VERSION]	= { .type = NLA_STRING },
	[GPUPATH_A_INFO_GENL_VERSION]	= { .type = NLA_U32 },
	[GPUPATH_A_INFO_FEATURES]	= { .type = NLA_U64 },
	[GPUPATH_A_INFO_P2PDMA_STATUS]	= { .type = NLA_U32 },
	[GPUPATH_A_INFO_KERNEL]		= { .type = NLA_STRING },
	[GPUPATH_A_INFO_IOCTL_VERSION]	= { .type = NLA_U32 },
};

static struct nla_policy top_policy[GPUPATH_A_MAX + 1] = {
	[GPUPATH_A_INFO]		= { .type = NLA_NESTED },
	[GPUPATH_A_PROVIDER]		= { .type = NLA_NESTED },
};

static struct nla_policy provider_policy[GPUPATH_A_PROVIDER_MAX + 1] = {
	[GPUPATH_A_PROVIDER_ID]		= { .type = NLA_U32 },
	[GPUPATH_A_PROVIDER_TYPE]	= { .type = NLA_U32 },
	[GPUPATH_A_PROVIDER_PCI_DEV]	= { .type = NLA_STRING },
	[GPUPATH_A_PROVIDER_DRIVER]	= { .type = NLA_STRING },
	[GPUPATH_A_PROVIDER_OWNED]	= { .type = NLA_U32 },
	[GPUPATH_A_PROVIDER_SIZE]	= { .type = NLA_U64 },
	[GPUPATH_A_PROVIDER_ALLOCATED]	= { .type = NLA_U64 },
	[GPUPATH_A_PROVIDER_AVAILABLE]	= { .type = NLA_U64 },
	[GPUPATH_A_PROVIDER_STATS]	= { .type = NLA_NESTED },
	[GPUPATH_A_PROVIDER_BAR]	= { .type = NLA_U32 },
	[GPUPATH_A_PROVIDER_PEER]	= { .type = NLA_NESTED },
};

static struct nla_policy peer_policy[GPUPATH_A_PEER_MAX + 1] = {
	[GPUPATH_A_PEER_PCI_DEV]	= { .type = NLA_STRING },
	[GPUPATH_A_PEER_DISTANCE]	= { .type = NLA_U32 },
};

static struct nla_policy stats_policy[GPUPATH_A_STATS_MAX + 1] = {
	[GPUPATH_A_STATS_DIRECT_IOS]	= { .type = NLA_U64 },
	[GPUPATH_A_STATS_DIRECT_BYTES]	= { .type = NLA_U64 },
	[GPUPATH_A_STATS_ERRORS]	= { .type = NLA_U64 },
	[GPUPATH_A_STATS_REFUSED]	= { .type = NLA_NESTED },
};

static struct nla_policy refused_policy[GPUPATH_A_REFUSED_MAX + 1] = {
	[GPUPATH_A_REFUSED_REASON]	= { .type = NLA_U32 },
	[GPUPATH_A_REFUSED_IOS]		= { .type = NLA_U64 },
	[GPUPATH_A_REFUSED_BYTES]	= { .type = NLA_U64 },
};

static void copy_str(char *dst, size_t size, struct nlattr *attr)
{
	snprintf(dst, size, "%.*s", nla_len(attr), (const char *)nla_data(attr));
}

int gpupath_model_info(struct nlattr *nest, struct gpupath_info *info)
{
	struct nlattr *tb[GPUPATH_A_INFO_MAX + 1];
	int r;

	memset(info, 0, sizeof(*info));
	r = nla_parse_nested(tb, GPUPATH_A_INFO_MAX, nest, info_policy);
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

static int model_refused(struct nlattr *nest, struct gpupath_provider *prov)
{
	struct nlattr *tb[GPUPATH_A_REFUSED_MAX + 1];
	uint32_t reason;

	if (nla_parse_nested(tb, GPUPATH_A_REFUSED_MAX, nest, refused_policy) < 0)
		return -EBADMSG;
	reason = get_u32(tb[GPUPATH_A_REFUSED_REASON]);
	if (reason >= GPUPATH_REASONS_KNOWN)
		return 0;
	prov->refused_ios[reason] = get_u64(tb[GPUPATH_A_REFUSED_IOS]);
	prov->refused_bytes[reason] = get_u64(tb[GPUPATH_A_REFUSED_BYTES]);
	return 0;
}

static int model_stats(struct nlattr *nest, struct gpupath_provider *prov)
{
	struct nlattr *tb[GPUPATH_A_STATS_MAX + 1], *attr;
	int rem;

	if (nla_parse_nested(tb, GPUPATH_A_STATS_MAX, nest, stats_policy) < 0)
		return -EBADMSG;
	prov->direct_ios = get_u64(tb[GPUPATH_A_STATS_DIRECT_IOS]);
	prov->direct_bytes = get_u64(tb[GPUPATH_A_STATS_DIRECT_BYTES]);
	prov->errors = get_u64(tb[GPUPATH_A_STATS_ERRORS]);
	nla_for_each_nested(attr, nest, rem)
		if (nla_type(attr) == GPUPATH_A_STATS_REFUSED && model_refused(attr, prov))
			return -EBADMSG;
	return 0;
}

static int model_peer(struct nlattr *nest, struct gpupath_provider *prov)
{
	struct nlattr *tb[GPUPATH_A_PEER_MAX + 1];
	struct gpupath_peer *peer;

	if (nla_parse_nested(tb, GPUPATH_A_PEER_MAX, nest, peer_policy) < 0 ||
	    !tb[GPUPATH_A_PEER_PCI_DEV])
		return -EBADMSG;
	if (prov->npeers == GPUPATH_PEERS_MAX)
		return 0;
	peer = &prov->peers[prov->npeers++];
	copy_str(peer->pci_dev, sizeof(peer->pci_dev), tb[GPUPATH_A_PEER_PCI_DEV]);
	peer->distance = get_u32(tb[GPUPATH_A_PEER_DISTANCE]);
	return 0;
}

int gpupath_model_provider(struct nlattr *nest, struct gpupath_provider *prov)
{
	struct nlattr *attr;
	int rem;

	struct nlattr *tb[GPUPATH_A_PROVIDER_MAX + 1];

	memset(prov, 0, sizeof(*prov));
	if (nla_parse_nested(tb, GPUPATH_A_PROVIDER_MAX, nest, provider_policy) < 0 ||
	    !tb[GPUPATH_A_PROVIDER_ID])
		return -EBADMSG;
	prov->id = get_u32(tb[GPUPATH_A_PROVIDER_ID]);
	prov->type = get_u32(tb[GPUPATH_A_PROVIDER_TYPE]);
	if (tb[GPUPATH_A_PROVIDER_PCI_DEV])
		copy_str(prov->pci_dev, sizeof(prov->pci_dev), tb[GPUPATH_A_PROVIDER_PCI_DEV]);
	if (tb[GPUPATH_A_PROVIDER_DRIVER])
		copy_str(prov->driver, sizeof(prov->driver), tb[GPUPATH_A_PROVIDER_DRIVER]);
	prov->owned = get_u32(tb[GPUPATH_A_PROVIDER_OWNED]);
	prov->bar = tb[GPUPATH_A_PROVIDER_BAR] ? (int)get_u32(tb[GPUPATH_A_PROVIDER_BAR]) : -1;
	nla_for_each_nested(attr, nest, rem)
		if (nla_type(attr) == GPUPATH_A_PROVIDER_PEER && model_peer(attr, prov))
			return -EBADMSG;
	prov->size = get_u64(tb[GPUPATH_A_PROVIDER_SIZE]);
	prov->allocated = get_u64(tb[GPUPATH_A_PROVIDER_ALLOCATED]);
	prov->available = get_u64(tb[GPUPATH_A_PROVIDER_AVAILABLE]);
	if (tb[GPUPATH_A_PROVIDER_STATS])
		return model_stats(tb[GPUPATH_A_PROVIDER_STATS], prov);
	return 0;
}

int gpupath_model_event(struct nlmsghdr *nlh, struct gpupath_event *ev)
{
	struct nlattr *tb[GPUPATH_A_MAX + 1];
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	int r;

	memset(ev, 0, sizeof(*ev));
	if (!genlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	r = genlmsg_parse(nlh, 0, tb, GPUPATH_A_MAX, top_policy);
	if (r < 0)
		return -EBADMSG;
	ev->type = GPUPATH_EVENT_NOTIFY;
	ev->cmd = gnlh->cmd;
	ev->group = gpupath_cmd_group(gnlh->cmd);
	if (tb[GPUPATH_A_INFO]) {
		r = gpupath_model_info(tb[GPUPATH_A_INFO], &ev->info);
		if (r < 0)
			return r;
		ev->has_info = true;
	}
	if (tb[GPUPATH_A_PROVIDER]) {
		r = gpupath_model_provider(tb[GPUPATH_A_PROVIDER], &ev->provider);
		if (r < 0)
			return r;
		ev->has_provider = true;
	}
	return 0;
}

const char *gpupath_cmd_group(uint32_t cmd)
{
	/* Objects' NEW/DEL go to "config"; nothing goes to "events" yet. */
	(void)cmd;
	return GPUPATH_MCGRP_CONFIG;
}

/* ---- requests ----------------------------------------------------------- */

struct request {
	struct gpupath_ctl *ctl;
	int (*parse)(struct nlmsghdr *nlh, void *arg);
	void *arg;
	int err;
	bool done;
};

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
	default:
		return -EIO;
	}
}

int gpupath_ctl_request(struct gpupath_ctl *ctl, uint8_t cmd, int flags,
			int (*fill)(struct nl_msg *msg, void *arg),
			int (*parse)(struct nlmsghdr *nlh, void *arg), void *arg)
{
	struct request req = { .ctl = ctl, .parse = parse, .arg = arg };
	struct nl_msg *msg;
	struct nl_cb *cb;
	int r = -ENOMEM;

	ctl->errmsg[0] = '\0';
	msg = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!msg || !cb)
		goto out;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, ctl->family, 0,
			 NLM_F_REQUEST | flags, cmd, GPUPATH_GENL_VERSION))
		goto out;
	if (fill) {
		r = fill(msg, arg);
		if (r < 0)
			goto out;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_ack, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &req);
	r = nl_send_auto(ctl->sk, msg);
	if (r < 0) {
		r = libnl_errno(r);
		goto out;
	}
	while (!req.done) {
		r = nl_recvmsgs(ctl->sk, cb);
		if (r < 0 && !req.done) {
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

static int parse_info_reply(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[GPUPATH_A_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, GPUPATH_A_MAX, top_policy) < 0 ||
	    !tb[GPUPATH_A_INFO])
		return -EBADMSG;
	return gpupath_model_info(tb[GPUPATH_A_INFO], arg);
}

int gpupath_ctl_get_info(struct gpupath_ctl *ctl, struct gpupath_info *info)
{
	memset(info, 0, sizeof(*info));
	return gpupath_ctl_request(ctl, GPUPATH_CMD_GET_INFO, NLM_F_ACK, NULL, parse_info_reply,
				   info);
}

struct provider_list {
	struct gpupath_provider *items;
	size_t count;
};

static int parse_provider_reply(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[GPUPATH_A_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, GPUPATH_A_MAX, top_policy) < 0 ||
	    !tb[GPUPATH_A_PROVIDER])
		return -EBADMSG;
	return gpupath_model_provider(tb[GPUPATH_A_PROVIDER], arg);
}

static int parse_provider_item(struct nlmsghdr *nlh, void *arg)
{
	struct provider_list *l = arg;
	struct gpupath_provider *items;

	items = realloc(l->items, (l->count + 1) * sizeof(*items));
	if (!items)
		return -ENOMEM;
	l->items = items;
	if (parse_provider_reply(nlh, &items[l->count]) < 0)
		return -EBADMSG;
	l->count++;
	return 0;
}

int gpupath_ctl_provider_list(struct gpupath_ctl *ctl, struct gpupath_provider **list,
			      size_t *count)
{
	struct provider_list l = { 0 };
	int r;

	r = gpupath_ctl_request(ctl, GPUPATH_CMD_PROVIDER_GET, NLM_F_DUMP, NULL,
				parse_provider_item, &l);
	if (r < 0) {
		free(l.items);
		return r;
	}
	*list = l.items;
	*count = l.count;
	return 0;
}

struct provider_req {
	uint32_t id;
	const char *pci_dev;
	struct gpupath_provider *out;
};

static int fill_provider(struct nl_msg *msg, void *arg)
{
	struct provider_req *req = arg;
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_PROVIDER);

	if (!nest)
		return -ENOMEM;
	if (req->id && nla_put_u32(msg, GPUPATH_A_PROVIDER_ID, req->id))
		return -ENOMEM;
	if (req->pci_dev && nla_put_string(msg, GPUPATH_A_PROVIDER_PCI_DEV, req->pci_dev))
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

static int parse_provider_out(struct nlmsghdr *nlh, void *arg)
{
	struct provider_req *req = arg;

	return req->out ? parse_provider_reply(nlh, req->out) : 0;
}

static int provider_request(struct gpupath_ctl *ctl, uint8_t cmd, struct provider_req *req)
{
	return gpupath_ctl_request(ctl, cmd, NLM_F_ACK, fill_provider, parse_provider_out, req);
}

int gpupath_ctl_provider_get(struct gpupath_ctl *ctl, uint32_t id,
			     struct gpupath_provider *prov)
{
	struct provider_req req = { .id = id, .out = prov };

	return provider_request(ctl, GPUPATH_CMD_PROVIDER_GET, &req);
}

int gpupath_ctl_provider_add(struct gpupath_ctl *ctl, const char *pci_dev,
			     struct gpupath_provider *prov)
{
	struct provider_req req = { .pci_dev = pci_dev, .out = prov };

	return provider_request(ctl, GPUPATH_CMD_PROVIDER_NEW, &req);
}

int gpupath_ctl_provider_del(struct gpupath_ctl *ctl, uint32_t id)
{
	struct provider_req req = { .id = id };

	return provider_request(ctl, GPUPATH_CMD_PROVIDER_DEL, &req);
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
static int on_ctrl(struct gpupath_mon *mon, struct nlmsghdr *nlh, struct gpupath_event *ev)
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
	struct gpupath_event ev;
	int r = 0;

	memset(&ev, 0, sizeof(ev));
	if (nlh->nlmsg_type == GENL_ID_CTRL)
		r = on_ctrl(mon, nlh, &ev);
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

int gpupath_mon_dispatch(struct gpupath_mon *mon, gpupath_event_fn fn, void *arg)
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
