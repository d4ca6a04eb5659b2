// SPDX-License-Identifier: GPL-2.0
/*
 * A QoS class on a host interface: IEEE 802.1Qaz through dcbnl (the DSCP to
 * priority APP entry, PFC for the priority, its ETS share) and the vendor
 * ECN knobs of RoCE NICs that have them in sysfs. Every setting is written,
 * read back and reported as it was found: applied (the value read back),
 * unsupported (the device has no such control) or failed (with the errno).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "dcb.h"
#include "ledger.h"
#include "log.h"

/* The device's IEEE 802.1Qaz state, as read back. */
struct ieee {
	bool has_ets, has_pfc;
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	unsigned int napps;
	struct dcb_app app[64];
};

static int on_ieee(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[DCB_ATTR_MAX + 1], *ieee[DCB_ATTR_IEEE_MAX + 1], *nla;
	struct ieee *st = arg;
	int rem;

	if (nlmsg_parse(nlmsg_hdr(msg), sizeof(struct dcbmsg), tb, DCB_ATTR_MAX, NULL) < 0 ||
	    !tb[DCB_ATTR_IEEE] ||
	    nla_parse_nested(ieee, DCB_ATTR_IEEE_MAX, tb[DCB_ATTR_IEEE], NULL) < 0)
		return NL_OK;
	if (ieee[DCB_ATTR_IEEE_ETS] && nla_len(ieee[DCB_ATTR_IEEE_ETS]) >= (int)sizeof(st->ets)) {
		memcpy(&st->ets, nla_data(ieee[DCB_ATTR_IEEE_ETS]), sizeof(st->ets));
		st->has_ets = true;
	}
	if (ieee[DCB_ATTR_IEEE_PFC] && nla_len(ieee[DCB_ATTR_IEEE_PFC]) >= (int)sizeof(st->pfc)) {
		memcpy(&st->pfc, nla_data(ieee[DCB_ATTR_IEEE_PFC]), sizeof(st->pfc));
		st->has_pfc = true;
	}
	if (ieee[DCB_ATTR_IEEE_APP_TABLE]) {
		nla_for_each_nested(nla, ieee[DCB_ATTR_IEEE_APP_TABLE], rem) {
			if (nla_type(nla) != DCB_ATTR_IEEE_APP ||
			    nla_len(nla) < (int)sizeof(struct dcb_app) ||
			    st->napps == sizeof(st->app) / sizeof(st->app[0]))
				continue;
			memcpy(&st->app[st->napps++], nla_data(nla), sizeof(struct dcb_app));
		}
	}
	return NL_OK;
}

/*
 * A SET's reply: dcbnl acknowledges it anyway and puts the driver's status
 * in a u8 DCB_ATTR_IEEE (a negative errno, truncated).
 */
static int on_set(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[DCB_ATTR_MAX + 1];
	int *status = arg;
	uint8_t v;

	if (nlmsg_parse(nlmsg_hdr(msg), sizeof(struct dcbmsg), tb, DCB_ATTR_MAX, NULL) < 0 ||
	    !tb[DCB_ATTR_IEEE] || nla_len(tb[DCB_ATTR_IEEE]) < 1)
		return NL_OK;
	v = nla_get_u8(tb[DCB_ATTR_IEEE]);
	*status = v ? -(256 - v) : 0;
	return NL_OK;
}

/* One RTM_GETDCB (into @st) or RTM_SETDCB (@st NULL) request; a negative errno. */
static int dcb_request(struct nl_sock *sk, struct nl_msg *msg, struct ieee *st)
{
	int r, status = 0;

	if (st)
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_ieee, st);
	else
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_set, &status);
	r = nl_send_auto(sk, msg);
	if (r < 0)
		return -EIO;
	r = nl_wait_for_ack(sk);
	if (!r && status)
		return status;
	if (r == -NLE_OPNOTSUPP)
		return -EOPNOTSUPP;
	if (r == -NLE_NODEV)
		return -ENODEV;
	if (r == -NLE_PERM)
		return -EPERM;
	return r < 0 ? -EIO : 0;
}

static struct nl_msg *dcb_msg(int type, int cmd, const char *ifname)
{
	struct dcbmsg dcb = { .dcb_family = AF_UNSPEC, .cmd = cmd };
	struct nl_msg *msg = nlmsg_alloc_simple(type, NLM_F_REQUEST | NLM_F_ACK);

	if (!msg)
		return NULL;
	if (nlmsg_append(msg, &dcb, sizeof(dcb), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(msg, DCB_ATTR_IFNAME, ifname) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int ieee_get(struct nl_sock *sk, const char *ifname, struct ieee *st)
{
	struct nl_msg *msg = dcb_msg(RTM_GETDCB, DCB_CMD_IEEE_GET, ifname);
	int r;

	if (!msg)
		return -ENOMEM;
	memset(st, 0, sizeof(*st));
	r = dcb_request(sk, msg, st);
	nlmsg_free(msg);
	return r;
}

/*
 * One DCB_ATTR_IEEE member set (@cmd DCB_CMD_IEEE_SET), or an APP entry
 * deleted (DCB_CMD_IEEE_DEL): @type with @len bytes at @data.
 */
static int ieee_cmd(struct nl_sock *sk, int cmd, const char *ifname, int type,
		    const void *data, size_t len)
{
	struct nl_msg *msg = dcb_msg(RTM_SETDCB, cmd, ifname);
	struct nlattr *ieee, *table;
	int r = -ENOMEM;

	if (!msg)
		return -ENOMEM;
	ieee = nla_nest_start(msg, DCB_ATTR_IEEE);
	if (!ieee)
		goto out;
	if (type == DCB_ATTR_IEEE_APP) {
		table = nla_nest_start(msg, DCB_ATTR_IEEE_APP_TABLE);
		if (!table || nla_put(msg, DCB_ATTR_IEEE_APP, len, data) < 0)
			goto out;
		nla_nest_end(msg, table);
	} else if (nla_put(msg, type, len, data) < 0) {
		goto out;
	}
	nla_nest_end(msg, ieee);
	r = dcb_request(sk, msg, NULL);
out:
	nlmsg_free(msg);
	return r;
}

static int ieee_set(struct nl_sock *sk, const char *ifname, int type, const void *data,
		    size_t len)
{
	return ieee_cmd(sk, DCB_CMD_IEEE_SET, ifname, type, data, len);
}

static void report(struct gpupath_qos_applied *a, const char *dev, const char *setting, int r,
		   bool ok, uint32_t value)
{
	snprintf(a->device, sizeof(a->device), "%s", dev);
	snprintf(a->setting, sizeof(a->setting), "%s", setting);
	a->value = value;
	a->error = 0;
	if (r == -EOPNOTSUPP || r == -ENOENT) {
		a->result = GPUPATH_APPLIED_UNSUPPORTED;
		a->error = -r;
	} else if (r < 0 || !ok) {
		a->result = GPUPATH_APPLIED_FAILED;
		a->error = r < 0 ? -r : EIO;	/* written, read back otherwise */
	} else {
		a->result = GPUPATH_APPLIED_OK;
	}
}

static bool has_app(const struct ieee *st, const struct dcb_app *app)
{
	unsigned int i;

	for (i = 0; i < st->napps; i++)
		if (st->app[i].selector == app->selector && st->app[i].protocol == app->protocol &&
		    st->app[i].priority == app->priority)
			return true;
	return false;
}

/*
 * The ETS table for the classes with a share on one interface: each
 * priority with a share gets a traffic class of its own (1, 2, ... in
 * priority order, within the device's ets_cap), traffic class 0 carries
 * every other priority with what is left of 100%. *@tc is @q's class.
 */
static int ets_table(struct ieee_ets *ets, const struct gpupath_qos *const *classes,
		     unsigned int n, const struct gpupath_qos *q, unsigned int *tc)
{
	unsigned int i, prio, ntc = 1, sum = 0;
	int share[IEEE_8021QAZ_MAX_TCS];

	for (prio = 0; prio < IEEE_8021QAZ_MAX_TCS; prio++)
		share[prio] = -1;
	for (i = 0; i < n; i++) {
		if (!classes[i]->ets)
			continue;
		prio = classes[i]->priority & 7;
		if (share[prio] >= 0 && share[prio] != (int)classes[i]->ets)
			return -EINVAL;	/* one priority, two shares */
		if (share[prio] < 0)
			sum += classes[i]->ets;
		share[prio] = classes[i]->ets;
	}
	if (sum > 100)
		return -EINVAL;
	memset(ets->prio_tc, 0, sizeof(ets->prio_tc));
	memset(ets->tc_tx_bw, 0, sizeof(ets->tc_tx_bw));
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		ets->tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
	for (prio = 0; prio < IEEE_8021QAZ_MAX_TCS; prio++) {
		if (share[prio] < 0)
			continue;
		if (ets->ets_cap && ntc >= ets->ets_cap)
			return -ERANGE;	/* more classes than the device has */
		ets->prio_tc[prio] = ntc;
		ets->tc_tx_bw[ntc] = share[prio];
		if (prio == (q->priority & 7))
			*tc = ntc;
		ntc++;
	}
	ets->tc_tx_bw[0] = 100 - sum;
	return 0;
}

unsigned int dcb_apply(const char *ifname, const struct gpupath_qos *q,
		       const struct gpupath_qos *const *classes, unsigned int nclasses,
		       struct ledger *l, struct gpupath_qos_applied *a, unsigned int room)
{
	struct dcb_app app = {
		.selector = IEEE_8021QAZ_APP_SEL_DSCP,
		.priority = q->priority,
		.protocol = q->dscp,
	};
	unsigned int n = 0, tc, prio = q->priority & 7;
	struct nl_sock *sk;
	struct ieee st;
	bool changed;
	int r;

	if (room < 3)
		return 0;
	sk = nl_socket_alloc();
	if (!sk)
		return 0;
	r = nl_connect(sk, NETLINK_ROUTE) < 0 ? -EIO : ieee_get(sk, ifname, &st);
	if (r < 0) {
		/* No dcbnl on the device (veth, most virtual NICs): none of it. */
		report(&a[n++], ifname, "dcb-app-dscp", r, false, q->dscp);
		report(&a[n++], ifname, "pfc", r, false, q->pfc);
		if (q->ets)
			report(&a[n++], ifname, "ets", r, false, q->ets);
		nl_socket_free(sk);
		return n;
	}

	/*
	 * Each setting is written only when the device differs (a PFC or ETS
	 * write can pause a port's traffic), then read back.
	 */

	/* DSCP -> priority: an APP entry in the device's table. */
	r = 0;
	changed = !has_app(&st, &app);
	if (changed) {
		r = ieee_set(sk, ifname, DCB_ATTR_IEEE_APP, &app, sizeof(app));
		if (!r)
			r = ieee_get(sk, ifname, &st);
	}
	if (!r && has_app(&st, &app))
		ledger_want(l, ifname, MARK_APP_DSCP, q->dscp << 8 | (q->priority & 7), 0, changed);
	report(&a[n++], ifname, "dcb-app-dscp", r, !r && has_app(&st, &app), q->priority);

	/* PFC on (or off) for the priority, the others as they were. */
	if (st.has_pfc) {
		r = 0;
		changed = !!(st.pfc.pfc_en & 1u << prio) != !!q->pfc;
		if (changed) {
			st.pfc.pfc_en ^= 1u << prio;
			r = ieee_set(sk, ifname, DCB_ATTR_IEEE_PFC, &st.pfc, sizeof(st.pfc));
			if (!r)
				r = ieee_get(sk, ifname, &st);
		}
		/* Only PFC turned on is gpupathd's to take back. */
		if (!r && q->pfc && st.has_pfc && st.pfc.pfc_en & 1u << prio)
			ledger_want(l, ifname, MARK_PFC, prio, 0, changed);
		report(&a[n++], ifname, "pfc", r,
		       !r && st.has_pfc && !!(st.pfc.pfc_en & 1u << prio) == !!q->pfc,
		       st.pfc.pfc_en);
	} else {
		report(&a[n++], ifname, "pfc", -EOPNOTSUPP, false, q->pfc);
	}

	/* ETS: the whole table, from every class on the interface. */
	if (q->ets && st.has_ets) {
		struct ieee_ets want = st.ets;

		tc = 0;
		r = ets_table(&want, classes, nclasses, q, &tc);
		if (!r && memcmp(&want, &st.ets, sizeof(want))) {
			r = ieee_set(sk, ifname, DCB_ATTR_IEEE_ETS, &want, sizeof(want));
			if (!r)
				r = ieee_get(sk, ifname, &st);
		}
		report(&a[n++], ifname, "ets", r,
		       !r && st.has_ets && st.ets.prio_tc[prio] == tc &&
		       st.ets.tc_tx_bw[tc] == q->ets, st.ets.tc_tx_bw[st.ets.prio_tc[prio] & 7]);
	} else if (q->ets) {
		report(&a[n++], ifname, "ets", -EOPNOTSUPP, false, q->ets);
	}
	nl_socket_free(sk);
	return n;
}

/* ---- vendor ECN ------------------------------------------------------------ */

/*
 * @path made @val (written only when it differs) and read back into @back;
 * *@before: what it held, *@changed: whether it was written.
 */
static int knob(const char *path, const char *val, char *back, size_t size, int *before,
		bool *changed)
{
	FILE *f = fopen(path, "r+e");
	int r = 0;

	*changed = false;
	if (!f)
		return -errno;
	errno = 0;
	if (!fgets(back, size, f)) {
		r = errno ? -errno : -EIO;
		goto out;
	}
	*before = atoi(back);
	if (strcmp(strtok(back, "\n") ?: "", val)) {
		*changed = true;
		if (fseek(f, 0, SEEK_SET) || fputs(val, f) < 0 || fflush(f) ||
		    fseek(f, 0, SEEK_SET) || !fgets(back, size, f))
			r = errno ? -errno : -EIO;
	}
out:
	fclose(f);
	back[strcspn(back, "\n")] = 0;
	return r;
}

static void ecn_path(char *path, size_t size, const char *ifname, enum mark_kind kind,
		     uint32_t priority)
{
	snprintf(path, size, "/sys/class/net/%s/ecn/%s/enable/%u", ifname,
		 kind == MARK_ECN_NP ? "roce_np" : "roce_rp", priority);
}

unsigned int ecn_apply(const char *ifname, uint32_t priority, struct ledger *l,
		       struct gpupath_qos_applied *a, unsigned int room)
{
	/* The RoCE ECN notification and reaction points, per priority. */
	static const enum mark_kind points[] = { MARK_ECN_NP, MARK_ECN_RP };
	char path[256], back[16] = "";
	unsigned int i, n = 0;
	bool changed;
	int r, before = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/ecn", ifname);
	if (access(path, F_OK)) {
		if (room)
			report(&a[n++], ifname, "ecn", -EOPNOTSUPP, false, 0);
		return n;
	}
	for (i = 0; i < 2 && n < room; i++) {
		ecn_path(path, sizeof(path), ifname, points[i], priority);
		r = knob(path, "1", back, sizeof(back), &before, &changed);
		if (!r && !strcmp(back, "1"))
			ledger_want(l, ifname, points[i], priority, before, changed);
		report(&a[n++], ifname, ledger_kind_name(points[i]), r, !r && !strcmp(back, "1"),
		       r ? 0 : atoi(back));
	}
	return n;
}

int dcb_undo(const struct mark *m)
{
	struct dcb_app app = {
		.selector = IEEE_8021QAZ_APP_SEL_DSCP,
		.protocol = m->key >> 8,
		.priority = m->key & 7,
	};
	char path[256], val[16], back[16];
	struct nl_sock *sk;
	struct ieee st;
	bool changed;
	int r, before;

	if (m->kind == MARK_ECN_NP || m->kind == MARK_ECN_RP) {
		ecn_path(path, sizeof(path), m->device, m->kind, m->key);
		snprintf(val, sizeof(val), "%d", m->before);
		return knob(path, val, back, sizeof(back), &before, &changed);
	}
	if (m->kind != MARK_APP_DSCP && m->kind != MARK_PFC)
		return -EINVAL;
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, NETLINK_ROUTE) < 0 ? -EIO : ieee_get(sk, m->device, &st);
	if (!r && m->kind == MARK_APP_DSCP && has_app(&st, &app))
		r = ieee_cmd(sk, DCB_CMD_IEEE_DEL, m->device, DCB_ATTR_IEEE_APP, &app,
			     sizeof(app));
	if (!r && m->kind == MARK_PFC && st.has_pfc && st.pfc.pfc_en & 1u << (m->key & 7)) {
		st.pfc.pfc_en &= ~(1u << (m->key & 7));
		r = ieee_set(sk, m->device, DCB_ATTR_IEEE_PFC, &st.pfc, sizeof(st.pfc));
	}
	nl_socket_free(sk);
	return r;
}
