// SPDX-License-Identifier: GPL-2.0
/*
 * Portals: the fabric targets the administrator wants connected, and the QoS
 * classes they name. The module keeps them, so that any number of CLIs and
 * a restarted daemon see one truth; gpupathd does the connecting and the
 * applying, and reports each connection and each setting back.
 */
#include <linux/inet.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "netlink-gen.h"
#include "portal.h"

#define DISCOVERY_NQN	"nqn.2014-08.org.nvmexpress.discovery"

static DEFINE_MUTEX(portals_lock);	/* portals, QoS classes, their ids, portal_gen */
static LIST_HEAD(portals);
static LIST_HEAD(qos_classes);
static u32 qos_next_id = 1;
static u32 portal_next_id = 1;
static u32 portal_gen = 1;

void gpupath_portal_lock(void)
{
	mutex_lock(&portals_lock);
}

void gpupath_portal_unlock(void)
{
	mutex_unlock(&portals_lock);
}

/* Changes with every portal added, changed or removed (dump consistency). */
u32 gpupath_portal_generation(void)
{
	return READ_ONCE(portal_gen);
}

static void changed_locked(void)
{
	WRITE_ONCE(portal_gen, portal_gen + 1 ? portal_gen + 1 : 1);
}

/**
 * gpupath_portal_find_locked() - the portal a request names
 * @tb: the request's GPUPATH_A_PORTAL_* attributes: ID or NAME
 * @extack: for the error message
 *
 * Return: the portal, or an ERR_PTR: -EINVAL when neither is given,
 * -ENOENT when there is no such portal.
 */
struct gpupath_portal *gpupath_portal_find_locked(struct nlattr **tb,
						  struct netlink_ext_ack *extack)
{
	struct gpupath_portal *portal;

	lockdep_assert_held(&portals_lock);
	if (!tb[GPUPATH_A_PORTAL_ID] && !tb[GPUPATH_A_PORTAL_NAME]) {
		NL_SET_ERR_MSG(extack, "name the portal by its id or its name");
		NL_SET_ERR_ATTR_MISS(extack, NULL, GPUPATH_A_PORTAL_NAME);
		return ERR_PTR(-EINVAL);
	}
	list_for_each_entry(portal, &portals, node) {
		if (tb[GPUPATH_A_PORTAL_ID] && portal->id != nla_get_u32(tb[GPUPATH_A_PORTAL_ID]))
			continue;
		if (tb[GPUPATH_A_PORTAL_NAME] &&
		    strcmp(portal->name, nla_data(tb[GPUPATH_A_PORTAL_NAME])))
			continue;
		return portal;
	}
	NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_ID] ?: tb[GPUPATH_A_PORTAL_NAME],
			    "no such portal");
	return ERR_PTR(-ENOENT);
}

/* The portal with the lowest id above @after, for dumps. */
struct gpupath_portal *gpupath_portal_next_locked(u32 after)
{
	struct gpupath_portal *portal;

	lockdep_assert_held(&portals_lock);
	list_for_each_entry(portal, &portals, node)	/* kept in id order */
		if (portal->id > after)
			return portal;
	return NULL;
}

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

/**
 * gpupath_portal_put() - a GPUPATH_A_PORTAL nest describing @portal
 * @skb: the message
 * @portal: the portal, under the portal lock
 * @secrets: with the paths of its DH-HMAC-CHAP secret files (for callers
 *	with CAP_SYS_ADMIN only: not in notifications, which anyone may read)
 *
 * Return: 0 or -EMSGSIZE.
 */
int gpupath_portal_put(struct sk_buff *skb, struct gpupath_portal *portal, bool secrets)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPATH_A_PORTAL);
	u32 i;

	if (!nest ||
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
	     nla_put_u32(skb, GPUPATH_A_PORTAL_DISCOVER, portal->discover)))
		goto cancel;
	for (i = 0; i < portal->nrails; i++)
		if (put_rail(skb, &portal->rails[i]))
			goto cancel;
	for (i = 0; i < portal->nconns; i++)
		if (put_conn(skb, &portal->conns[i]))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

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

/* Copies a validated NUL string attribute, when it is there. */
static void copy_str(char *dst, size_t size, const struct nlattr *nla)
{
	if (nla)
		nla_strscpy(dst, nla, size);
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

/* The connections of @nest (every GPUPATH_A_PORTAL_CONN), a new array. */
static int parse_conns(const struct nlattr *nest, struct gpupath_portal_conn **connsp,
		       u32 *nconns, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[GPUPATH_A_CONN_MAX + 1];
	struct gpupath_portal_conn *conns, *c;
	const struct nlattr *nla;
	u32 n = 0;
	int rem, ret;

	conns = kcalloc(GPUPATH_PORTAL_CONNS_MAX, sizeof(*conns), GFP_KERNEL);
	if (!conns)
		return -ENOMEM;
	nla_for_each_nested(nla, nest, rem) {
		if (nla_type(nla) != GPUPATH_A_PORTAL_CONN)
			continue;
		ret = -E2BIG;
		if (n == GPUPATH_PORTAL_CONNS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, nla, "too many connections");
			goto err;
		}
		ret = nla_parse_nested(tb, GPUPATH_A_CONN_MAX, nla, gpupath_conn_nl_policy, extack);
		if (ret)
			goto err;
		ret = -EINVAL;
		if (NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_CONN_STATE) ||
		    NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_CONN_SUBSYSNQN) ||
		    NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_CONN_TRADDR) ||
		    NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_CONN_TRSVCID))
			goto err;
		if (!valid_nqn(nla_data(tb[GPUPATH_A_CONN_SUBSYSNQN]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_CONN_SUBSYSNQN],
					    "not an NVMe qualified name (nqn.<date>.<domain>:...)");
			goto err;
		}
		if (!valid_addr(nla_data(tb[GPUPATH_A_CONN_TRADDR]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_CONN_TRADDR],
					    "not an IPv4 or IPv6 address");
			goto err;
		}
		if (tb[GPUPATH_A_CONN_CONTROLLER] && nla_len(tb[GPUPATH_A_CONN_CONTROLLER]) > 1 &&
		    !valid_name(nla_data(tb[GPUPATH_A_CONN_CONTROLLER]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_CONN_CONTROLLER],
					    "not a controller's name");
			goto err;
		}
		c = &conns[n++];
		c->state = nla_get_u32(tb[GPUPATH_A_CONN_STATE]);
		c->trsvcid = nla_get_u32(tb[GPUPATH_A_CONN_TRSVCID]);
		c->rail = tb[GPUPATH_A_CONN_RAIL] ? nla_get_u32(tb[GPUPATH_A_CONN_RAIL]) : 0;
		c->attempts = tb[GPUPATH_A_CONN_ATTEMPTS] ?
			      nla_get_u32(tb[GPUPATH_A_CONN_ATTEMPTS]) : 0;
		c->error = tb[GPUPATH_A_CONN_ERROR] ? nla_get_u32(tb[GPUPATH_A_CONN_ERROR]) : 0;
		c->retry_ms = tb[GPUPATH_A_CONN_RETRY_MS] ?
			      nla_get_u32(tb[GPUPATH_A_CONN_RETRY_MS]) : 0;
		copy_str(c->subsysnqn, sizeof(c->subsysnqn), tb[GPUPATH_A_CONN_SUBSYSNQN]);
		copy_str(c->traddr, sizeof(c->traddr), tb[GPUPATH_A_CONN_TRADDR]);
		copy_str(c->ctrl, sizeof(c->ctrl), tb[GPUPATH_A_CONN_CONTROLLER]);
	}
	*connsp = conns;
	*nconns = n;
	return 0;
err:
	kfree(conns);
	return ret;
}

static struct gpupath_qos *qos_named(const char *name)
{
	struct gpupath_qos *qos;

	list_for_each_entry(qos, &qos_classes, node)
		if (!strcmp(qos->name, name))
			return qos;
	return NULL;
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

/* A host NQN of the form nqn.2014-08.org.nvmexpress:uuid:<UUID>, which names its ID. */
static bool uuid_nqn(const char *nqn)
{
	const char *u = strstr(nqn, ":uuid:");

	return u && valid_host_id(u + 6);
}

/*
 * The authentication settings: the host's identity and the files of its
 * DH-HMAC-CHAP secrets. The module keeps only the files' names; the daemon
 * reads them when it connects.
 */
static int apply_auth(struct gpupath_portal_settings *set, struct nlattr **tb,
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

/* The settings PORTAL_NEW and PORTAL_SET share. */
static int apply_settings(struct gpupath_portal_settings *set, struct nlattr **tb,
			  struct netlink_ext_ack *extack)
{
	if (tb[GPUPATH_A_PORTAL_QOS]) {
		const char *qos = nla_data(tb[GPUPATH_A_PORTAL_QOS]);

		if (*qos && !qos_named(qos)) {
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
	return apply_auth(set, tb, extack);
}

/* Whether another portal already names the same target. */
static bool same_target_locked(const struct gpupath_portal *portal)
{
	struct gpupath_portal *p;

	list_for_each_entry(p, &portals, node)
		if (p != portal && p->transport == portal->transport &&
		    p->discover == portal->discover &&
		    p->trsvcid == portal->trsvcid && !strcmp(p->traddr, portal->traddr) &&
		    !strcmp(p->subsysnqn, portal->subsysnqn))
			return true;
	return false;
}

/**
 * gpupath_portal_add_locked() - a new portal from a PORTAL_NEW request
 * @nest: the request's GPUPATH_A_PORTAL nest
 * @tb: its attributes, parsed
 * @extack: for error messages
 * @portalp: the new portal
 *
 * Return: 0, or a negative errno with a message in @extack.
 */
int gpupath_portal_add_locked(const struct nlattr *nest, struct nlattr **tb,
			      struct netlink_ext_ack *extack, struct gpupath_portal **portalp)
{
	u32 discover = GPUPATH_DISCOVER_ADDRESS;
	struct gpupath_portal *portal, *p;
	const char *nqn;
	int ret;

	lockdep_assert_held(&portals_lock);
	if (tb[GPUPATH_A_PORTAL_DISCOVER])
		discover = nla_get_u32(tb[GPUPATH_A_PORTAL_DISCOVER]);
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, GPUPATH_A_PORTAL_NAME) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, GPUPATH_A_PORTAL_TRANSPORT) ||
	    (discover == GPUPATH_DISCOVER_ADDRESS &&
	     NL_REQ_ATTR_CHECK(extack, nest, tb, GPUPATH_A_PORTAL_TRADDR)))
		return -EINVAL;
	if (!valid_name(nla_data(tb[GPUPATH_A_PORTAL_NAME]))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_NAME],
				    "a portal name is letters, digits, '.', '_' and '-'");
		return -EINVAL;
	}
	if (discover == GPUPATH_DISCOVER_MDNS) {
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
	nqn = tb[GPUPATH_A_PORTAL_SUBSYSNQN] ? nla_data(tb[GPUPATH_A_PORTAL_SUBSYSNQN]) : "";
	if (*nqn && !valid_nqn(nqn)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_SUBSYSNQN],
				    "not an NVMe qualified name (nqn.<date>.<domain>:...)");
		return -EINVAL;
	}
	if (!strcmp(nqn, DISCOVERY_NQN))
		nqn = "";
	list_for_each_entry(p, &portals, node) {
		if (!strcmp(p->name, nla_data(tb[GPUPATH_A_PORTAL_NAME]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_NAME],
					    "a portal with this name exists");
			return -EEXIST;
		}
	}

	portal = kzalloc(sizeof(*portal), GFP_KERNEL);
	if (!portal)
		return -ENOMEM;
	copy_str(portal->name, sizeof(portal->name), tb[GPUPATH_A_PORTAL_NAME]);
	portal->transport = nla_get_u32(tb[GPUPATH_A_PORTAL_TRANSPORT]);
	portal->discover = discover;
	if (discover == GPUPATH_DISCOVER_ADDRESS) {
		copy_str(portal->traddr, sizeof(portal->traddr), tb[GPUPATH_A_PORTAL_TRADDR]);
		portal->trsvcid = tb[GPUPATH_A_PORTAL_TRSVCID] ?
				  nla_get_u32(tb[GPUPATH_A_PORTAL_TRSVCID]) :
				  GPUPATH_TRSVCID_DEFAULT;
	}
	strscpy(portal->subsysnqn, nqn, sizeof(portal->subsysnqn));
	portal->set.ctrl_loss_tmo = GPUPATH_TMO_FOREVER;
	portal->set.fast_io_fail_tmo = GPUPATH_TMO_OFF;
	portal->set.reconnect_delay = GPUPATH_RECONNECT_DELAY_DEFAULT;
	ret = apply_settings(&portal->set, tb, extack);
	if (!ret)
		ret = parse_rails(nest, portal->rails, &portal->nrails, extack);
	if (!ret && discover == GPUPATH_DISCOVER_MDNS && !portal->nrails) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_DISCOVER],
				    "a portal that discovers by mDNS needs rails: the interfaces to browse");
		ret = -EINVAL;
	}
	if (ret)
		goto err;
	if (same_target_locked(portal)) {
		if (discover)
			NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_DISCOVER],
					    "another portal discovers this transport by mDNS");
		else
			NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_PORTAL_TRADDR],
					    "another portal has this target");
		ret = -EEXIST;
		goto err;
	}
	portal->id = portal_next_id++;
	list_add_tail(&portal->node, &portals);
	changed_locked();
	*portalp = portal;
	return 0;
err:
	kfree(portal);
	return ret;
}

/**
 * gpupath_portal_set_locked() - apply a PORTAL_SET request
 * @portal: the portal
 * @nest: the request's GPUPATH_A_PORTAL nest
 * @tb: its attributes, parsed
 * @extack: for error messages
 *
 * Nothing changes unless everything is valid.
 *
 * Return: 0, or a negative errno with a message in @extack.
 */
int gpupath_portal_set_locked(struct gpupath_portal *portal, const struct nlattr *nest,
			      struct nlattr **tb, struct netlink_ext_ack *extack)
{
	struct gpupath_portal_rail *rails = NULL;
	struct gpupath_portal_conn *conns = NULL;
	struct gpupath_portal_settings *set;
	u32 nrails = 0, nconns = 0;
	int ret;

	lockdep_assert_held(&portals_lock);
	set = kmemdup(&portal->set, sizeof(*set), GFP_KERNEL);
	if (!set)
		return -ENOMEM;
	ret = apply_settings(set, tb, extack);
	if (ret)
		goto out;
	if (tb[GPUPATH_A_PORTAL_RAIL]) {
		rails = kcalloc(GPUPATH_PORTAL_RAILS_MAX, sizeof(*rails), GFP_KERNEL);
		if (!rails) {
			ret = -ENOMEM;
			goto out;
		}
		ret = parse_rails(nest, rails, &nrails, extack);
		if (ret)
			goto out;
	}
	if (tb[GPUPATH_A_PORTAL_CONN]) {
		ret = parse_conns(nest, &conns, &nconns, extack);
		if (ret)
			goto out;
	}
	portal->set = *set;
	if (rails) {
		memcpy(portal->rails, rails, nrails * sizeof(*rails));
		portal->nrails = nrails;
	}
	if (conns || tb[GPUPATH_A_PORTAL_CONN_CLEAR]) {
		kfree(portal->conns);
		portal->conns = conns;
		portal->nconns = nconns;
		conns = NULL;
	}
	changed_locked();
out:
	kfree(conns);
	kfree(rails);
	kfree(set);
	return ret;
}

/**
 * gpupath_portal_del_locked() - remove and free a portal
 * @portal: the portal
 */
void gpupath_portal_del_locked(struct gpupath_portal *portal)
{
	lockdep_assert_held(&portals_lock);
	list_del(&portal->node);
	changed_locked();
	kfree(portal->conns);
	kfree(portal);
}

/* ---- QoS classes ---------------------------------------------------- */

/**
 * gpupath_qos_find_locked() - the QoS class a request names
 * @tb: the request's GPUPATH_A_QOS_* attributes
 * @extack: for the error message
 *
 * Return: the class, or ERR_PTR(-EINVAL) without a name, -ENOENT.
 */
struct gpupath_qos *gpupath_qos_find_locked(struct nlattr **tb, struct netlink_ext_ack *extack)
{
	struct gpupath_qos *qos;

	lockdep_assert_held(&portals_lock);
	if (!tb[GPUPATH_A_QOS_NAME]) {
		NL_SET_ERR_MSG(extack, "name the QoS class");
		NL_SET_ERR_ATTR_MISS(extack, NULL, GPUPATH_A_QOS_NAME);
		return ERR_PTR(-EINVAL);
	}
	qos = qos_named(nla_data(tb[GPUPATH_A_QOS_NAME]));
	if (!qos) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_QOS_NAME], "no such QoS class");
		return ERR_PTR(-ENOENT);
	}
	return qos;
}

/* The class with the lowest id above @after, for dumps. */
struct gpupath_qos *gpupath_qos_next_locked(u32 after)
{
	struct gpupath_qos *qos;

	lockdep_assert_held(&portals_lock);
	list_for_each_entry(qos, &qos_classes, node)	/* kept in id order */
		if (qos->id > after)
			return qos;
	return NULL;
}

static u32 qos_users_locked(const struct gpupath_qos *qos)
{
	struct gpupath_portal *portal;
	u32 n = 0;

	list_for_each_entry(portal, &portals, node)
		n += !strcmp(portal->set.qos, qos->name);
	return n;
}

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

/**
 * gpupath_qos_put() - a GPUPATH_A_QOS nest describing @qos
 * @skb: the message
 * @qos: the class, under the portal lock
 *
 * Return: 0 or -EMSGSIZE.
 */
int gpupath_qos_put(struct sk_buff *skb, struct gpupath_qos *qos)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPATH_A_QOS);
	u32 i;

	if (!nest ||
	    nla_put_string(skb, GPUPATH_A_QOS_NAME, qos->name) ||
	    nla_put_u32(skb, GPUPATH_A_QOS_DSCP, qos->dscp) ||
	    nla_put_u32(skb, GPUPATH_A_QOS_PRIORITY, qos->priority) ||
	    nla_put_u32(skb, GPUPATH_A_QOS_PFC, qos->pfc) ||
	    nla_put_u32(skb, GPUPATH_A_QOS_ETS, qos->ets) ||
	    nla_put_u32(skb, GPUPATH_A_QOS_PORTALS, qos_users_locked(qos)))
		goto cancel;
	for (i = 0; i < qos->napplied; i++)
		if (put_applied(skb, &qos->applied[i]))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static void qos_settings(struct gpupath_qos *qos, struct nlattr **tb)
{
	if (tb[GPUPATH_A_QOS_DSCP])
		qos->dscp = nla_get_u32(tb[GPUPATH_A_QOS_DSCP]);
	if (tb[GPUPATH_A_QOS_PRIORITY])
		qos->priority = nla_get_u32(tb[GPUPATH_A_QOS_PRIORITY]);
	if (tb[GPUPATH_A_QOS_PFC])
		qos->pfc = nla_get_u32(tb[GPUPATH_A_QOS_PFC]);
	if (tb[GPUPATH_A_QOS_ETS])
		qos->ets = nla_get_u32(tb[GPUPATH_A_QOS_ETS]);
}

/**
 * gpupath_qos_add_locked() - a new QoS class from a QOS_NEW request
 * @tb: the request's GPUPATH_A_QOS_* attributes
 * @extack: for error messages
 * @qosp: the new class
 *
 * Return: 0, or a negative errno with a message in @extack.
 */
int gpupath_qos_add_locked(struct nlattr **tb, struct netlink_ext_ack *extack,
			   struct gpupath_qos **qosp)
{
	struct gpupath_qos *qos;

	lockdep_assert_held(&portals_lock);
	if (!tb[GPUPATH_A_QOS_NAME] || !tb[GPUPATH_A_QOS_DSCP]) {
		NL_SET_ERR_MSG(extack, "a QoS class needs a name and a DSCP");
		NL_SET_ERR_ATTR_MISS(extack, NULL, tb[GPUPATH_A_QOS_NAME] ? GPUPATH_A_QOS_DSCP :
				     GPUPATH_A_QOS_NAME);
		return -EINVAL;
	}
	if (!valid_name(nla_data(tb[GPUPATH_A_QOS_NAME]))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_QOS_NAME],
				    "a QoS class name is letters, digits, '.', '_' and '-'");
		return -EINVAL;
	}
	if (qos_named(nla_data(tb[GPUPATH_A_QOS_NAME]))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPUPATH_A_QOS_NAME],
				    "a QoS class with this name exists");
		return -EEXIST;
	}
	qos = kzalloc(sizeof(*qos), GFP_KERNEL);
	if (!qos)
		return -ENOMEM;
	copy_str(qos->name, sizeof(qos->name), tb[GPUPATH_A_QOS_NAME]);
	qos->priority = 3;
	qos_settings(qos, tb);
	qos->id = qos_next_id++;
	list_add_tail(&qos->node, &qos_classes);
	changed_locked();
	*qosp = qos;
	return 0;
}

/* The report of @nest (every GPUPATH_A_QOS_APPLIED), a new array. */
static int parse_applied(const struct nlattr *nest, struct gpupath_qos_applied **ap, u32 *n,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[GPUPATH_A_APPLIED_MAX + 1];
	struct gpupath_qos_applied *a;
	const struct nlattr *nla;
	int rem, ret;

	a = kcalloc(GPUPATH_QOS_APPLIED_MAX, sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	*n = 0;
	nla_for_each_nested(nla, nest, rem) {
		if (nla_type(nla) != GPUPATH_A_QOS_APPLIED)
			continue;
		ret = -E2BIG;
		if (*n == GPUPATH_QOS_APPLIED_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, nla, "too many settings reported");
			goto err;
		}
		ret = nla_parse_nested(tb, GPUPATH_A_APPLIED_MAX, nla, gpupath_applied_nl_policy,
				       extack);
		if (ret)
			goto err;
		ret = -EINVAL;
		if (NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_APPLIED_DEVICE) ||
		    NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_APPLIED_SETTING) ||
		    NL_REQ_ATTR_CHECK(extack, nla, tb, GPUPATH_A_APPLIED_RESULT))
			goto err;
		copy_str(a[*n].device, sizeof(a[*n].device), tb[GPUPATH_A_APPLIED_DEVICE]);
		copy_str(a[*n].setting, sizeof(a[*n].setting), tb[GPUPATH_A_APPLIED_SETTING]);
		a[*n].result = nla_get_u32(tb[GPUPATH_A_APPLIED_RESULT]);
		if (tb[GPUPATH_A_APPLIED_ERROR])
			a[*n].error = nla_get_u32(tb[GPUPATH_A_APPLIED_ERROR]);
		if (tb[GPUPATH_A_APPLIED_VALUE])
			a[*n].value = nla_get_u32(tb[GPUPATH_A_APPLIED_VALUE]);
		(*n)++;
	}
	*ap = a;
	return 0;
err:
	kfree(a);
	return ret;
}

/**
 * gpupath_qos_set_locked() - apply a QOS_SET request
 * @qos: the class
 * @nest: the request's GPUPATH_A_QOS nest
 * @tb: its attributes, parsed
 * @extack: for error messages
 *
 * Return: 0, or a negative errno with a message in @extack.
 */
int gpupath_qos_set_locked(struct gpupath_qos *qos, const struct nlattr *nest,
			   struct nlattr **tb, struct netlink_ext_ack *extack)
{
	struct gpupath_qos_applied *applied = NULL;
	u32 n = 0;
	int ret;

	lockdep_assert_held(&portals_lock);
	if (tb[GPUPATH_A_QOS_APPLIED]) {
		ret = parse_applied(nest, &applied, &n, extack);
		if (ret)
			return ret;
	}
	qos_settings(qos, tb);
	if (applied || tb[GPUPATH_A_QOS_APPLIED_CLEAR]) {
		kfree(qos->applied);
		qos->applied = applied;
		qos->napplied = n;
	}
	changed_locked();
	return 0;
}

/**
 * gpupath_qos_del_locked() - remove a QoS class no portal names
 * @qos: the class
 * @extack: for the error message
 *
 * Return: 0, or -EBUSY while a portal names it.
 */
int gpupath_qos_del_locked(struct gpupath_qos *qos, struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&portals_lock);
	if (qos_users_locked(qos)) {
		NL_SET_ERR_MSG(extack, "portals use this QoS class");
		return -EBUSY;
	}
	list_del(&qos->node);
	changed_locked();
	kfree(qos->applied);
	kfree(qos);
	return 0;
}

/* Module unload: the portals and classes go with it. */
void gpupath_portal_uninit(void)
{
	struct gpupath_portal *portal, *tmp;
	struct gpupath_qos *qos, *qtmp;

	mutex_lock(&portals_lock);
	list_for_each_entry_safe(portal, tmp, &portals, node)
		gpupath_portal_del_locked(portal);
	list_for_each_entry_safe(qos, qtmp, &qos_classes, node)
		gpupath_qos_del_locked(qos, NULL);
	mutex_unlock(&portals_lock);
}
