// SPDX-License-Identifier: GPL-2.0
/*
 * The family's portal and QoS commands: objects the module keeps for
 * gpupathd (portal.c). Each handler takes the portal lock, parses and checks
 * its request into a configuration, and gives that to portal.c.
 */
#include <linux/inet.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "family.h"
#include "nl.h"
#include "portal.h"

/* ---- checks of what a request gives ----------------------------------- */

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && !strchr("._-", *s))
			return false;
	return true;
}

static bool valid_addr(const char *s)
{
	u8 buf[16];

	return in4_pton(s, -1, buf, -1, NULL) || in6_pton(s, -1, buf, -1, NULL);
}

/*
 * An NVMe qualified name (NVMe base spec 4.5): "nqn." and printable ASCII,
 * with no ',', which the fabrics options (nvmf_parse_options()) take for
 * the start of another option.
 */
static bool valid_nqn(const char *s)
{
	if (strncmp(s, "nqn.", 4))
		return false;
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e || *s == ',')
			return false;
	return true;
}

/* A host ID: a UUID in its 8-4-4-4-12 hexadecimal form. */
static bool valid_host_id(const char *s)
{
	int i;

	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isxdigit(s[i])) {
			return false;
		}
	}
	return !s[i];
}

static bool absolute_path(const char *s)
{
	return *s == '/';
}

/* A host NQN of the form nqn.2014-08.org.nvmexpress:uuid:<UUID>, which names its ID. */
static bool uuid_nqn(const char *nqn)
{
	const char *u = strstr(nqn, ":uuid:");

	return u && valid_host_id(u + 6);
}

/* Copies a validated NUL string attribute, when it is there. */
static void copy_str(char *dst, size_t size, const struct nlattr *nla)
{
	if (nla)
		nla_strscpy(dst, nla, size);
}

/*
 * String attribute @nla, when given, into @dst: "" (which clears it), or a
 * string @valid takes. Returns -EINVAL, and keeps nothing, otherwise.
 */
static int set_str(char *dst, size_t size, const struct nlattr *nla,
		   bool (*valid)(const char *s))
{
	const char *val;

	if (!nla)
		return 0;
	val = nla_data(nla);
	if (*val && !valid(val))
		return -EINVAL;
	strscpy(dst, val, size);
	return 0;
}

/* A u32 attribute, or -1 when it is not given. */
static s64 opt_u32(struct nlattr **tb, int type)
{
	if (!tb[type])
		return -1;
	return nla_get_u32(tb[type]);
}

/* ---- portals ------------------------------------------------------------ */

static int put_rail(struct sk_buff *skb, const struct gpupath_portal_rail *rail)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPATH_A_PORTAL_RAIL);

	if (!nest ||
	    nla_put_u32(skb, GPUPATH_A_RAIL_ID, rail->id) ||
	    (rail->iface[0] && nla_put_string(skb, GPUPATH_A_RAIL_IFACE, rail->iface)) ||
	    (rail->addr[0] && nla_put_string(skb, GPUPATH_A_RAIL_ADDR, rail->addr)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int put_conn(struct sk_buff *skb, const struct gpupath_portal_conn *conn)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPATH_A_PORTAL_CONN);

	if (!nest ||
	    nla_put_u32(skb, GPUPATH_A_CONN_RAIL, conn->rail) ||
	    nla_put_string(skb, GPUPATH_A_CONN_SUBSYSNQN, conn->subsysnqn) ||
	    nla_put_string(skb, GPUPATH_A_CONN_TRADDR, conn->traddr) ||
	    nla_put_u32(skb, GPUPATH_A_CONN_TRSVCID, conn->trsvcid) ||
	    nla_put_u32(skb, GPUPATH_A_CONN_STATE, conn->state) ||
	    (conn->ctrl[0] && nla_put_string(skb, GPUPATH_A_CONN_CONTROLLER, conn->ctrl)) ||
	    nla_put_u32(skb, GPUPATH_A_CONN_ATTEMPTS, conn->attempts) ||
	    nla_put_u32(skb, GPUPATH_A_CONN_ERROR, conn->error) ||
	    nla_put_u32(skb, GPUPATH_A_CONN_RETRY_MS, conn->retry_ms))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* A string attribute, only when the string is not empty. */
static int put_nonempty(struct sk_buff *skb, int type, const char *s)
{
	return *s ? nla_put_string(skb, type, s) : 0;
}

/* The paths of the portal's DH-HMAC-CHAP secret files. */
static int put_secrets(struct sk_buff *skb, struct gpupath_portal *portal)
{
	return put_nonempty(skb, GPUPATH_A_PORTAL_DHCHAP_SECRET_FILE, portal->set.secret_file) ||
	       put_nonempty(skb, GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE,
			    portal->set.ctrl_secret_file);
}

/*
 * A GPUPATH_A_PORTAL nest describing @portal, under the portal lock; with
 * the paths of its DH-HMAC-CHAP secret files when @secrets (for callers
 * with CAP_SYS_ADMIN only: not in notifications, which anyone may read).
 */
static int put_portal(struct sk_buff *skb, struct gpupath_portal *portal, bool secrets)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPATH_A_PORTAL);
	bool full;
	u32 i;

	full = !nest ||
	    nla_put_u32(skb, GPUPATH_A_PORTAL_ID, portal->id) ||
	    nla_put_string(skb, GPUPATH_A_PORTAL_NAME, portal->name) ||
	    nla_put_u32(skb, GPUPATH_A_PORTAL_TRANSPORT, portal->transport) ||
	    nla_put_string(skb, GPUPATH_A_PORTAL_TRADDR, portal->traddr) ||
	    nla_put_u32(skb, GPUPATH_A_PORTAL_TRSVCID, portal->trsvcid) ||
	    (portal->subsysnqn[0] ?
	     nla_put_string(skb, GPUPATH_A_PORTAL_SUBSYSNQN, portal->subsysnqn) :
	     nla_put_flag(skb, GPUPATH_A_PORTAL_DISCOVERY)) ||
	    put_nonempty(skb, GPUPATH_A_PORTAL_QOS, portal->set.qos) ||
	    nla_put_u32(skb, GPUPATH_A_PORTAL_CTRL_LOSS_TMO, portal->set.ctrl_loss_tmo) ||
	    nla_put_u32(skb, GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO, portal->set.fast_io_fail_tmo) ||
	    nla_put_u32(skb, GPUPATH_A_PORTAL_RECONNECT_DELAY, portal->set.reconnect_delay) ||
	    nla_put_u32(skb, GPUPATH_A_PORTAL_NR_IO_QUEUES, portal->set.nr_io_queues) ||
	    put_nonempty(skb, GPUPATH_A_PORTAL_HOST_NQN, portal->set.host_nqn) ||
	    put_nonempty(skb, GPUPATH_A_PORTAL_HOST_ID, portal->set.host_id) ||
	    (secrets && put_secrets(skb, portal)) ||
	    (portal->discover &&
	     nla_put_u32(skb, GPUPATH_A_PORTAL_DISCOVER, portal->discover));
	for (i = 0; !full && i < portal->nrails; i++)
		full = put_rail(skb, &portal->rails[i]);
	for (i = 0; !full && i < portal->nconns; i++)
		full = put_conn(skb, &portal->conns[i]);
	return gpupath_nl_nest_done(skb, nest, full);
}

static int put_portal_all(struct sk_buff *skb, void *portal)
{
	return put_portal(skb, portal, true);
}

static int put_portal_public(struct sk_buff *skb, void *portal)
{
	return put_portal(skb, portal, false);
}

/* How portals are described to the sender of @skb. */
static int (*portal_put_for(struct sk_buff *skb))(struct sk_buff *, void *)
{
	return netlink_capable(skb, CAP_SYS_ADMIN) ? put_portal_all : put_portal_public;
}

/* The "config" group hears of @obj, described by @put (public); under the portal lock. */
static void notify_config(int (*put)(struct sk_buff *skb, void *obj), void *obj, u8 cmd)
{
	if (gpupath_nl_ready())
		gpupath_nl_multicast(gpupath_nl_msg(0, 0, cmd, put, obj), GPUPATH_NLGRP_CONFIG);
}

/* The rails of @nest (every GPUPATH_A_PORTAL_RAIL), into @rails. */
static int parse_rails(const struct nlattr *nest, struct gpupath_portal_rail *rails,
		       u32 *nrails, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[GPUPATH_A_RAIL_MAX + 1], *iface;
	const struct nlattr *nla;
	u32 n = 0, i;
	int rem, ret;

	nla_for_each_nested(nla, nest, rem) {
		if (nla_type(nla) != GPUPATH_A_PORTAL_RAIL)
			continue;
		if (n == GPUPATH_PORTAL_RAILS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, nla, "too many rails");
			return -E2BIG;
		}
		ret = nla_parse_nested(tb, GPUPATH_A_RAIL_MAX, nla, gpupath_rail_nl_policy, extack);
		if (ret)
			return ret;
		if (NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_RAIL_ID))
			return -EINVAL;
		iface = tb[GPUPATH_A_RAIL_IFACE];
		if (!iface && !tb[GPUPATH_A_RAIL_ADDR]) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "a rail needs an interface or a host address");
			return -EINVAL;
		}
		if (iface && !dev_valid_name(nla_data(iface))) {
			NL_SET_ERR_MSG_ATTR(extack, iface, "not a valid interface name");
			return -EINVAL;
		}
		if (tb[GPUPATH_A_RAIL_ADDR] && !valid_addr(nla_data(tb[GPUPATH_A_RAIL_ADDR]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_RAIL_ADDR],
					    "not an IPv4 or IPv6 address");
			return -EINVAL;
		}
		rails[n].id = nla_get_u32(tb[GPUPATH_A_RAIL_ID]);
		for (i = 0; i < n; i++) {
			if (rails[i].id == rails[n].id) {
				NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_RAIL_ID],
						    "this rail is given twice");
				return -EINVAL;
			}
		}
		rails[n].iface[0] = 0;
		copy_str(rails[n].iface, sizeof(rails[n].iface), tb[GPUPATH_A_RAIL_IFACE]);
		rails[n].addr[0] = 0;
		copy_str(rails[n].addr, sizeof(rails[n].addr), tb[GPUPATH_A_RAIL_ADDR]);
		n++;
	}
	*nrails = n;
	return 0;
}

/*
 * Every nest @type in @nest, parsed by @one into a new array of at most
 * @max entries of @size bytes: *@arrayp, with *@n of them. One more is
 * given to @one with no entry, to refuse.
 */
static int parse_array(const struct nlattr *nest, int type, size_t size, u32 max,
		       int (*one)(const struct nlattr *nla, void *entry,
				  struct netlink_ext_ack *extack),
		       void **arrayp, u32 *n, struct netlink_ext_ack *extack)
{
	const struct nlattr *nla;
	u32 count = 0;
	int rem, ret = 0;
	u8 *array;

	array = kcalloc(max, size, GFP_KERNEL);
	if (!array)
		return -ENOMEM;
	nla_for_each_nested(nla, nest, rem) {
		if (nla_type(nla) != type)
			continue;
		ret = one(nla, count < max ? array + count++ * size : NULL, extack);
		if (ret)
			break;
	}
	if (ret) {
		kfree(array);
		return ret;
	}
	*arrayp = array;
	*n = count;
	return 0;
}

/* One connection, @nla, into @entry (NULL: one too many). */
static int parse_conn(const struct nlattr *nla, void *entry, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[GPUPATH_A_CONN_MAX + 1];
	struct gpupath_portal_conn *c = entry;
	int ret;

	if (!c) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "too many connections");
		return -E2BIG;
	}

	ret = nla_parse_nested(tb, GPUPATH_A_CONN_MAX, nla, gpupath_conn_nl_policy, extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_CONN_STATE) ||
	    NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_CONN_SUBSYSNQN) ||
	    NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_CONN_TRADDR) ||
	    NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_CONN_TRSVCID))
		return -EINVAL;
	if (!valid_nqn(nla_data(tb[GPUPATH_A_CONN_SUBSYSNQN]))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_CONN_SUBSYSNQN],
				    "not an NVMe qualified name (nqn.<date>.<domain>:...)");
		return -EINVAL;
	}
	if (!valid_addr(nla_data(tb[GPUPATH_A_CONN_TRADDR]))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_CONN_TRADDR],
				    "not an IPv4 or IPv6 address");
		return -EINVAL;
	}
	if (tb[GPUPATH_A_CONN_CONTROLLER] && nla_len(tb[GPUPATH_A_CONN_CONTROLLER]) > 1 &&
	    !valid_name(nla_data(tb[GPUPATH_A_CONN_CONTROLLER]))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_CONN_CONTROLLER],
				    "not a controller's name");
		return -EINVAL;
	}
	c->state = nla_get_u32(tb[GPUPATH_A_CONN_STATE]);
	c->trsvcid = nla_get_u32(tb[GPUPATH_A_CONN_TRSVCID]);
	c->rail = tb[GPUPATH_A_CONN_RAIL] ? nla_get_u32(tb[GPUPATH_A_CONN_RAIL]) : 0;
	c->attempts = tb[GPUPATH_A_CONN_ATTEMPTS] ? nla_get_u32(tb[GPUPATH_A_CONN_ATTEMPTS]) : 0;
	c->error = tb[GPUPATH_A_CONN_ERROR] ? nla_get_u32(tb[GPUPATH_A_CONN_ERROR]) : 0;
	c->retry_ms = tb[GPUPATH_A_CONN_RETRY_MS] ? nla_get_u32(tb[GPUPATH_A_CONN_RETRY_MS]) : 0;
	copy_str(c->subsysnqn, sizeof(c->subsysnqn), tb[GPUPATH_A_CONN_SUBSYSNQN]);
	copy_str(c->traddr, sizeof(c->traddr), tb[GPUPATH_A_CONN_TRADDR]);
	copy_str(c->ctrl, sizeof(c->ctrl), tb[GPUPATH_A_CONN_CONTROLLER]);
	return 0;
}

/*
 * The authentication settings: the host's identity and the files of its
 * DH-HMAC-CHAP secrets. The module keeps only the files' names; the daemon
 * reads them when it connects.
 */
static int parse_auth(struct gpupath_portal_settings *set, struct nlattr **tb,
		      struct netlink_ext_ack *extack)
{
	struct nlattr *nla;

	nla = tb[GPUPATH_A_PORTAL_HOST_NQN];
	if (set_str(set->host_nqn, sizeof(set->host_nqn), nla, valid_nqn)) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "not an NVMe qualified name (nqn.<date>.<domain>:...)");
		return -EINVAL;
	}
	nla = tb[GPUPATH_A_PORTAL_HOST_ID];
	if (set_str(set->host_id, sizeof(set->host_id), nla, valid_host_id)) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a host ID is a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
		return -EINVAL;
	}
	nla = tb[GPUPATH_A_PORTAL_DHCHAP_SECRET_FILE];
	if (set_str(set->secret_file, sizeof(set->secret_file), nla, absolute_path)) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "a secret's file is an absolute path");
		return -EINVAL;
	}
	nla = tb[GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE];
	if (set_str(set->ctrl_secret_file, sizeof(set->ctrl_secret_file), nla, absolute_path)) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "a secret's file is an absolute path");
		return -EINVAL;
	}
	if (set->host_nqn[0] && !set->host_id[0] && !uuid_nqn(set->host_nqn)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_HOST_NQN] ?:
				    tb[GPUPATH_A_PORTAL_HOST_ID],
				    "a host NQN of its own needs a host ID of its own (host-id)");
		return -EINVAL;
	}
	if (set->ctrl_secret_file[0] && !set->secret_file[0]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE] ?:
				    tb[GPUPATH_A_PORTAL_DHCHAP_SECRET_FILE],
				    "a controller secret needs a host secret (dhchap-secret-file)");
		return -EINVAL;
	}
	return 0;
}

/* The settings PORTAL_NEW and PORTAL_SET share, onto @set; under the portal lock. */
static int parse_settings(struct gpupath_portal_settings *set, struct nlattr **tb,
			  struct netlink_ext_ack *extack)
{
	if (tb[GPUPATH_A_PORTAL_QOS]) {
		const char *qos = nla_data(tb[GPUPATH_A_PORTAL_QOS]);

		if (*qos && !gpupath_qos_find_locked(qos)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_QOS],
					    "no QoS class with this name (gpupath qos add)");
			return -ENOENT;
		}
		strscpy(set->qos, qos, sizeof(set->qos));
	}
	if (tb[GPUPATH_A_PORTAL_CTRL_LOSS_TMO])
		set->ctrl_loss_tmo = nla_get_u32(tb[GPUPATH_A_PORTAL_CTRL_LOSS_TMO]);
	if (tb[GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO])
		set->fast_io_fail_tmo = nla_get_u32(tb[GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO]);
	if (tb[GPUPATH_A_PORTAL_RECONNECT_DELAY])
		set->reconnect_delay = nla_get_u32(tb[GPUPATH_A_PORTAL_RECONNECT_DELAY]);
	if (tb[GPUPATH_A_PORTAL_NR_IO_QUEUES])
		set->nr_io_queues = nla_get_u32(tb[GPUPATH_A_PORTAL_NR_IO_QUEUES]);
	return parse_auth(set, tb, extack);
}

/* The target of a new portal: where it is, or that mDNS finds it. */
static int parse_target(struct gpupath_portal *portal, const struct nlattr *nest,
			struct nlattr **tb, struct netlink_ext_ack *extack)
{
	if (tb[GPUPATH_A_PORTAL_DISCOVER])
		portal->discover = nla_get_u32(tb[GPUPATH_A_PORTAL_DISCOVER]);
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, GPUPATH_A_PORTAL_NAME) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, GPUPATH_A_PORTAL_TRANSPORT) ||
	    (portal->discover == GPUPATH_DISCOVER_ADDRESS &&
	     NL_REQ_ATTR_CHECK(extack, nest, tb, GPUPATH_A_PORTAL_TRADDR)))
		return -EINVAL;
	if (!valid_name(nla_data(tb[GPUPATH_A_PORTAL_NAME]))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_NAME],
				    "a portal name is letters, digits, '.', '_' and '-'");
		return -EINVAL;
	}
	if (portal->discover == GPUPATH_DISCOVER_MDNS) {
		const struct nlattr *extra = tb[GPUPATH_A_PORTAL_TRADDR] ?:
			tb[GPUPATH_A_PORTAL_TRSVCID] ?: tb[GPUPATH_A_PORTAL_SUBSYSNQN];

		if (extra) {
			NL_SET_ERR_MSG_ATTR(extack, extra,
					    "a portal that discovers by mDNS has no traddr, trsvcid or nqn");
			return -EINVAL;
		}
	} else if (!valid_addr(nla_data(tb[GPUPATH_A_PORTAL_TRADDR]))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_TRADDR],
				    "not an IPv4 or IPv6 address");
		return -EINVAL;
	}
	if (portal->discover == GPUPATH_DISCOVER_ADDRESS) {
		copy_str(portal->traddr, sizeof(portal->traddr), tb[GPUPATH_A_PORTAL_TRADDR]);
		portal->trsvcid = tb[GPUPATH_A_PORTAL_TRSVCID] ?
				  nla_get_u32(tb[GPUPATH_A_PORTAL_TRSVCID]) :
				  GPUPATH_TRSVCID_DEFAULT;
	}
	copy_str(portal->subsysnqn, sizeof(portal->subsysnqn), tb[GPUPATH_A_PORTAL_SUBSYSNQN]);
	if (portal->subsysnqn[0] && !valid_nqn(portal->subsysnqn)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_SUBSYSNQN],
				    "not an NVMe qualified name (nqn.<date>.<domain>:...)");
		return -EINVAL;
	}
	copy_str(portal->name, sizeof(portal->name), tb[GPUPATH_A_PORTAL_NAME]);
	portal->transport = nla_get_u32(tb[GPUPATH_A_PORTAL_TRANSPORT]);
	return 0;
}

/* A PORTAL_NEW request's portal, in @portal; under the portal lock. */
static int parse_portal_new(struct gpupath_portal *portal, const struct nlattr *nest,
			    struct nlattr **tb, struct netlink_ext_ack *extack)
{
	int ret;

	gpupath_portal_init(portal);
	ret = parse_target(portal, nest, tb, extack);
	if (ret)
		return ret;
	if (gpupath_portal_find_locked(-1, portal->name)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_NAME],
				    "a portal with this name exists");
		return -EEXIST;
	}
	ret = parse_settings(&portal->set, tb, extack);
	if (ret)
		return ret;
	ret = parse_rails(nest, portal->rails, &portal->nrails, extack);
	if (ret)
		return ret;
	if (portal->discover == GPUPATH_DISCOVER_MDNS && !portal->nrails) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_DISCOVER],
				    "a portal that discovers by mDNS needs rails: the interfaces to browse");
		return -EINVAL;
	}
	return 0;
}

/* A PORTAL_NEW request's portal, added; under the portal lock. */
static int portal_new_locked(const struct nlattr *nest, struct nlattr **tb,
			     struct netlink_ext_ack *extack, struct gpupath_portal **portalp)
{
	struct gpupath_portal *portal;
	int ret;

	portal = kzalloc(sizeof(*portal), GFP_KERNEL);
	if (!portal)
		return -ENOMEM;
	ret = parse_portal_new(portal, nest, tb, extack);
	if (ret)
		goto err;
	ret = gpupath_portal_add_locked(portal);
	if (!ret) {
		*portalp = portal;
		return 0;
	}
	if (portal->discover)
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_DISCOVER],
				    "another portal discovers this transport by mDNS");
	else
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_TRADDR],
				    "another portal has this target");
err:
	kfree(portal);
	return ret;
}

/* A PORTAL_SET request, applied to @portal; under the portal lock. */
static int portal_set_locked(struct gpupath_portal *portal, const struct nlattr *nest,
			     struct nlattr **tb, struct netlink_ext_ack *extack)
{
	struct gpupath_portal_change *chg;
	int ret;

	chg = kzalloc(sizeof(*chg), GFP_KERNEL);
	if (!chg)
		return -ENOMEM;
	chg->set = portal->set;
	ret = parse_settings(&chg->set, tb, extack);
	if (!ret && tb[GPUPATH_A_PORTAL_RAIL]) {
		chg->new_rails = true;
		ret = parse_rails(nest, chg->rails, &chg->nrails, extack);
	}
	if (!ret && tb[GPUPATH_A_PORTAL_CONN])
		ret = parse_array(nest, GPUPATH_A_PORTAL_CONN, sizeof(*chg->conns),
				  GPUPATH_PORTAL_CONNS_MAX, parse_conn,
				  (void **)&chg->conns, &chg->nconns, extack);
	if (!ret) {
		chg->new_conns = chg->conns || tb[GPUPATH_A_PORTAL_CONN_CLEAR];
		gpupath_portal_set_locked(portal, chg);
	}
	kfree(chg);
	return ret;
}

/*
 * The portal a request names by GPUPATH_A_PORTAL_ID, NAME or both, with
 * the request parsed into @tb; returns with the portal lock held unless it
 * fails.
 */
static struct gpupath_portal *portal_from_info(struct genl_info *info,
					       const struct nla_policy *policy, int maxtype,
					       struct nlattr **tb)
{
	struct gpupath_portal *portal;
	int ret;

	ret = gpupath_nl_parse_info(info, GPUPATH_A_PORTAL, policy, maxtype, tb,
				    GPUPATH_A_PORTAL_MAX);
	if (ret)
		return ERR_PTR(ret);
	if (!tb[GPUPATH_A_PORTAL_ID] && !tb[GPUPATH_A_PORTAL_NAME]) {
		NL_SET_ERR_MSG(info->extack, "name the portal by its id or its name");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, GPUPATH_A_PORTAL_NAME);
		return ERR_PTR(-EINVAL);
	}
	gpupath_portal_lock();
	portal = gpupath_portal_find_locked(opt_u32(tb, GPUPATH_A_PORTAL_ID),
					    tb[GPUPATH_A_PORTAL_NAME] ?
					    nla_data(tb[GPUPATH_A_PORTAL_NAME]) : NULL);
	if (portal)
		return portal;
	gpupath_portal_unlock();
	NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_PORTAL_ID] ?: tb[GPUPATH_A_PORTAL_NAME],
			    "no such portal");
	return ERR_PTR(-ENOENT);
}

int gpupath_nl_portal_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PORTAL_MAX + 1];
	struct gpupath_portal *portal;
	int ret;

	portal = portal_from_info(info, gpupath_portal_get_request_nl_policy,
				  ARRAY_SIZE(gpupath_portal_get_request_nl_policy) - 1, tb);
	if (IS_ERR(portal))
		return PTR_ERR(portal);
	ret = gpupath_nl_reply(info, portal_put_for(skb), portal);
	gpupath_portal_unlock();
	return ret;
}

/* cb->args[0]: the id of the last portal dumped. */
int gpupath_nl_portal_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	int (*put)(struct sk_buff *skb, void *obj) = portal_put_for(cb->skb);
	struct gpupath_portal *portal;
	int ret = 0;

	gpupath_portal_lock();
	cb->seq = gpupath_portal_generation();
	while ((portal = gpupath_portal_next_locked(cb->args[0]))) {
		ret = gpupath_nl_dump_one(skb, cb, put, portal);
		if (ret)
			break;
		cb->args[0] = portal->id;
	}
	gpupath_portal_unlock();
	return skb->len ?: ret;	/* not even one fits: say so */
}

/*
 * Portal changes need CAP_SYS_ADMIN: gpupathd, which runs as root, acts on
 * them (connects, reads secret files, claims namespaces into volumes).
 */
int gpupath_nl_portal_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *nest = info->attrs[GPUPATH_A_PORTAL];
	struct nlattr *tb[GPUPATH_A_PORTAL_MAX + 1];
	struct gpupath_portal *portal;
	struct sk_buff *msg;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	ret = gpupath_nl_parse_info(info, GPUPATH_A_PORTAL, gpupath_portal_new_request_nl_policy,
				    ARRAY_SIZE(gpupath_portal_new_request_nl_policy) - 1,
				    tb, GPUPATH_A_PORTAL_MAX);
	if (ret)
		return ret;
	gpupath_portal_lock();
	ret = gpupath_nl_refused_at(info->extack, nest,
				    portal_new_locked(nest, tb, info->extack, &portal));
	if (ret)
		goto out;
	/* No reply, no portal: the caller is told what happened. */
	msg = gpupath_nl_msg(info->snd_portid, info->snd_seq, GPUPATH_CMD_PORTAL_NEW,
			     put_portal_all, portal);
	if (!msg) {
		gpupath_portal_del_locked(portal);
		ret = -ENOMEM;
		goto out;
	}
	notify_config(put_portal_public, portal, GPUPATH_CMD_PORTAL_NEW);
	ret = genlmsg_reply(msg, info);
out:
	gpupath_portal_unlock();
	return ret;
}

int gpupath_nl_portal_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PORTAL_MAX + 1];
	struct gpupath_portal *portal;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	portal = portal_from_info(info, gpupath_portal_set_request_nl_policy,
				  ARRAY_SIZE(gpupath_portal_set_request_nl_policy) - 1, tb);
	if (IS_ERR(portal))
		return PTR_ERR(portal);
	ret = gpupath_nl_refused_at(info->extack, info->attrs[GPUPATH_A_PORTAL],
				    portal_set_locked(portal, info->attrs[GPUPATH_A_PORTAL], tb,
						      info->extack));
	if (!ret)
		notify_config(put_portal_public, portal, GPUPATH_CMD_PORTAL_NEW);
	gpupath_portal_unlock();
	return ret;
}

int gpupath_nl_portal_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_PORTAL_MAX + 1];
	struct gpupath_portal *portal;
	int ret;

	ret = gpupath_nl_need_sys_admin(skb, info);
	if (ret)
		return ret;
	portal = portal_from_info(info, gpupath_portal_del_request_nl_policy,
				  ARRAY_SIZE(gpupath_portal_del_request_nl_policy) - 1, tb);
	if (IS_ERR(portal))
		return PTR_ERR(portal);
	/* The notification carries the portal: sent before it goes. */
	notify_config(put_portal_public, portal, GPUPATH_CMD_PORTAL_DEL);
	gpupath_portal_del_locked(portal);
	gpupath_portal_unlock();
	return 0;
}

/* ---- QoS classes -------------------------------------------------------- */

static int put_applied(struct sk_buff *skb, const struct gpupath_qos_applied *a)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPATH_A_QOS_APPLIED);

	if (!nest ||
	    nla_put_string(skb, GPUPATH_A_APPLIED_DEVICE, a->device) ||
	    nla_put_string(skb, GPUPATH_A_APPLIED_SETTING, a->setting) ||
	    nla_put_u32(skb, GPUPATH_A_APPLIED_RESULT, a->result) ||
	    nla_put_u32(skb, GPUPATH_A_APPLIED_ERROR, a->error) ||
	    nla_put_u32(skb, GPUPATH_A_APPLIED_VALUE, a->value))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* A GPUPATH_A_QOS nest describing a class, under the portal lock. */
static int put_qos(struct sk_buff *skb, void *obj)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPATH_A_QOS);
	struct gpupath_qos *qos = obj;
	bool full;
	u32 i;

	full = !nest ||
	    nla_put_string(skb, GPUPATH_A_QOS_NAME, qos->name) ||
	    nla_put_u32(skb, GPUPATH_A_QOS_DSCP, qos->dscp) ||
	    nla_put_u32(skb, GPUPATH_A_QOS_PRIORITY, qos->priority) ||
	    nla_put_u32(skb, GPUPATH_A_QOS_PFC, qos->pfc) ||
	    nla_put_u32(skb, GPUPATH_A_QOS_ETS, qos->ets) ||
	    nla_put_u32(skb, GPUPATH_A_QOS_PORTALS, gpupath_qos_users_locked(qos));
	for (i = 0; !full && i < qos->napplied; i++)
		full = put_applied(skb, &qos->applied[i]);
	return gpupath_nl_nest_done(skb, nest, full);
}

/* One setting's report, @nla, into @entry (NULL: one too many). */
static int parse_applied(const struct nlattr *nla, void *entry, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[GPUPATH_A_APPLIED_MAX + 1];
	struct gpupath_qos_applied *a = entry;
	int ret;

	if (!a) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "too many settings reported");
		return -E2BIG;
	}

	ret = nla_parse_nested(tb, GPUPATH_A_APPLIED_MAX, nla, gpupath_applied_nl_policy, extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_APPLIED_DEVICE) ||
	    NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_APPLIED_SETTING) ||
	    NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_APPLIED_RESULT))
		return -EINVAL;
	copy_str(a->device, sizeof(a->device), tb[GPUPATH_A_APPLIED_DEVICE]);
	copy_str(a->setting, sizeof(a->setting), tb[GPUPATH_A_APPLIED_SETTING]);
	a->result = nla_get_u32(tb[GPUPATH_A_APPLIED_RESULT]);
	if (tb[GPUPATH_A_APPLIED_ERROR])
		a->error = nla_get_u32(tb[GPUPATH_A_APPLIED_ERROR]);
	if (tb[GPUPATH_A_APPLIED_VALUE])
		a->value = nla_get_u32(tb[GPUPATH_A_APPLIED_VALUE]);
	return 0;
}

/* A QOS_NEW or QOS_SET request's settings. */
static void qos_config(struct gpupath_qos_config *cfg, struct nlattr **tb)
{
	cfg->dscp = opt_u32(tb, GPUPATH_A_QOS_DSCP);
	cfg->priority = opt_u32(tb, GPUPATH_A_QOS_PRIORITY);
	cfg->pfc = opt_u32(tb, GPUPATH_A_QOS_PFC);
	cfg->ets = opt_u32(tb, GPUPATH_A_QOS_ETS);
}

/*
 * The class a request names by GPUPATH_A_QOS_NAME, with the request parsed
 * into @tb; returns with the portal lock held unless it fails.
 */
static struct gpupath_qos *qos_from_info(struct genl_info *info, const struct nla_policy *policy,
					 int maxtype, struct nlattr **tb)
{
	struct gpupath_qos *qos;
	int ret;

	ret = gpupath_nl_parse_info(info, GPUPATH_A_QOS, policy, maxtype, tb, GPUPATH_A_QOS_MAX);
	if (ret)
		return ERR_PTR(ret);
	if (!tb[GPUPATH_A_QOS_NAME]) {
		NL_SET_ERR_MSG(info->extack, "name the QoS class");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, GPUPATH_A_QOS_NAME);
		return ERR_PTR(-EINVAL);
	}
	gpupath_portal_lock();
	qos = gpupath_qos_find_locked(nla_data(tb[GPUPATH_A_QOS_NAME]));
	if (qos)
		return qos;
	gpupath_portal_unlock();
	NL_SET_ERR_MSG_ATTR(info->extack, tb[GPUPATH_A_QOS_NAME], "no such QoS class");
	return ERR_PTR(-ENOENT);
}

int gpupath_nl_qos_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_QOS_MAX + 1];
	struct gpupath_qos *qos;
	int ret;

	qos = qos_from_info(info, gpupath_qos_get_request_nl_policy,
			    ARRAY_SIZE(gpupath_qos_get_request_nl_policy) - 1, tb);
	if (IS_ERR(qos))
		return PTR_ERR(qos);
	ret = gpupath_nl_reply(info, put_qos, qos);
	gpupath_portal_unlock();
	return ret;
}

/* cb->args[0]: the id of the last class dumped. */
int gpupath_nl_qos_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gpupath_qos *qos;
	int ret = 0;

	gpupath_portal_lock();
	cb->seq = gpupath_portal_generation();
	while ((qos = gpupath_qos_next_locked(cb->args[0]))) {
		ret = gpupath_nl_dump_one(skb, cb, put_qos, qos);
		if (ret)
			break;
		cb->args[0] = qos->id;
	}
	gpupath_portal_unlock();
	return skb->len ?: ret;	/* not even one fits: say so */
}

/* A QOS_NEW request's class, added; under the portal lock. */
static int qos_new_locked(struct nlattr **tb, struct netlink_ext_ack *extack,
			  struct gpupath_qos **qosp)
{
	struct gpupath_qos_config cfg = {};
	const char *name;

	if (!tb[GPUPATH_A_QOS_NAME] || !tb[GPUPATH_A_QOS_DSCP]) {
		NL_SET_ERR_MSG(extack, "a QoS class needs a name and a DSCP");
		NL_SET_ERR_ATTR_MISS(extack, NULL, tb[GPUPATH_A_QOS_NAME] ? GPUPATH_A_QOS_DSCP :
				     GPUPATH_A_QOS_NAME);
		return -EINVAL;
	}
	name = nla_data(tb[GPUPATH_A_QOS_NAME]);
	if (!valid_name(name)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_QOS_NAME],
				    "a QoS class name is letters, digits, '.', '_' and '-'");
		return -EINVAL;
	}
	if (gpupath_qos_find_locked(name)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_QOS_NAME],
				    "a QoS class with this name exists");
		return -EEXIST;
	}
	qos_config(&cfg, tb);
	return gpupath_qos_add_locked(name, &cfg, qosp);
}

int gpupath_nl_qos_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *nest = info->attrs[GPUPATH_A_QOS];
	struct nlattr *tb[GPUPATH_A_QOS_MAX + 1];
	struct gpupath_qos *qos;
	struct sk_buff *msg;
	int ret;

	ret = gpupath_nl_parse_info(info, GPUPATH_A_QOS, gpupath_qos_new_request_nl_policy,
				    ARRAY_SIZE(gpupath_qos_new_request_nl_policy) - 1,
				    tb, GPUPATH_A_QOS_MAX);
	if (ret)
		return ret;
	gpupath_portal_lock();
	ret = gpupath_nl_refused_at(info->extack, nest, qos_new_locked(tb, info->extack, &qos));
	if (ret)
		goto out;
	/* No reply, no class: the caller is told what happened. */
	msg = gpupath_nl_msg(info->snd_portid, info->snd_seq, GPUPATH_CMD_QOS_NEW, put_qos, qos);
	if (!msg) {
		gpupath_qos_del_locked(qos);
		ret = -ENOMEM;
		goto out;
	}
	notify_config(put_qos, qos, GPUPATH_CMD_QOS_NEW);
	ret = genlmsg_reply(msg, info);
out:
	gpupath_portal_unlock();
	return ret;
}

int gpupath_nl_qos_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *nest = info->attrs[GPUPATH_A_QOS];
	struct nlattr *tb[GPUPATH_A_QOS_MAX + 1];
	struct gpupath_qos_config cfg = {};
	struct gpupath_qos *qos;
	int ret = 0;

	qos = qos_from_info(info, gpupath_qos_set_request_nl_policy,
			    ARRAY_SIZE(gpupath_qos_set_request_nl_policy) - 1, tb);
	if (IS_ERR(qos))
		return PTR_ERR(qos);
	if (tb[GPUPATH_A_QOS_APPLIED])
		ret = parse_array(nest, GPUPATH_A_QOS_APPLIED, sizeof(*cfg.applied),
				  GPUPATH_QOS_APPLIED_MAX, parse_applied, (void **)&cfg.applied,
				  &cfg.napplied, info->extack);
	ret = gpupath_nl_refused_at(info->extack, nest, ret);
	if (!ret) {
		qos_config(&cfg, tb);
		cfg.new_applied = cfg.applied || tb[GPUPATH_A_QOS_APPLIED_CLEAR];
		gpupath_qos_set_locked(qos, &cfg);
		notify_config(put_qos, qos, GPUPATH_CMD_QOS_NEW);
	}
	gpupath_portal_unlock();
	return ret;
}

int gpupath_nl_qos_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[GPUPATH_A_QOS_MAX + 1];
	struct gpupath_qos *qos;
	struct sk_buff *msg = NULL;
	int ret;

	qos = qos_from_info(info, gpupath_qos_del_request_nl_policy,
			    ARRAY_SIZE(gpupath_qos_del_request_nl_policy) - 1, tb);
	if (IS_ERR(qos))
		return PTR_ERR(qos);
	/* The notification carries the class: built before, sent after. */
	if (gpupath_nl_ready())
		msg = gpupath_nl_msg(0, 0, GPUPATH_CMD_QOS_DEL, put_qos, qos);
	ret = gpupath_qos_del_locked(qos);
	if (ret) {
		NL_SET_ERR_MSG(info->extack, "portals use this QoS class");
		nlmsg_free(msg);
	} else {
		gpupath_nl_multicast(msg, GPUPATH_NLGRP_CONFIG);
	}
	gpupath_portal_unlock();
	return gpupath_nl_refused_at(info->extack, info->attrs[GPUPATH_A_QOS], ret);
}
