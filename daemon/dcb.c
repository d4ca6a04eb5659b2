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

/* ---- ETS tables ----------------------------------------------------------- */

#define NTC	IEEE_8021QAZ_MAX_TCS

_Static_assert(sizeof(((struct ets_map *)0)->prio_tc) == NTC &&
	       sizeof(((struct ets_map *)0)->tc_tsa) == NTC &&
	       sizeof(((struct ets_map *)0)->tc_tx_bw) == NTC, "an ETS table has 8 of each");

static void ets_get(struct ets_map *t, const struct ieee_ets *ets)
{
	memcpy(t->prio_tc, ets->prio_tc, sizeof(t->prio_tc));
	memcpy(t->tc_tsa, ets->tc_tsa, sizeof(t->tc_tsa));
	memcpy(t->tc_tx_bw, ets->tc_tx_bw, sizeof(t->tc_tx_bw));
}

static void ets_put(struct ieee_ets *ets, const struct ets_map *t)
{
	memcpy(ets->prio_tc, t->prio_tc, sizeof(t->prio_tc));
	memcpy(ets->tc_tsa, t->tc_tsa, sizeof(t->tc_tsa));
	memcpy(ets->tc_tx_bw, t->tc_tx_bw, sizeof(t->tc_tx_bw));
}

static bool ets_equal(const struct ets_map *a, const struct ets_map *b)
{
	return !memcmp(a, b, sizeof(*a));
}

bool ets_valid(const struct ets_map *t)
{
	unsigned int p, tc, sum = 0;
	bool any = false;

	for (p = 0; p < NTC; p++)
		if (t->prio_tc[p] >= NTC)
			return false;
	for (tc = 0; tc < NTC; tc++) {
		if (t->tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS) {
			any = true;
			sum += t->tc_tx_bw[tc];
		}
	}
	return !any || sum == 100;
}

/*
 * @left percent shared by the traffic classes of @rest, in proportion to
 * their shares in @t (largest remainders first, the lowest class on a tie),
 * into @out. With no share among them, the lowest that has a priority in
 * it (@users), or else the lowest, takes it all.
 */
static void ets_share_rest(struct ets_map *out, const struct ets_map *t, const bool *rest,
			   const uint8_t *users, unsigned int left)
{
	unsigned int tc, best, weights = 0, given = 0, rem[NTC];

	for (tc = 0; tc < NTC; tc++)
		if (rest[tc])
			weights += t->tc_tx_bw[tc];
	if (!weights) {
		for (best = 0; best < NTC && !(rest[best] && users[best]); best++)
			;
		for (tc = 0; best == NTC && tc < NTC; tc++)
			if (rest[tc])
				best = tc;
		for (tc = 0; tc < NTC; tc++)
			if (rest[tc])
				out->tc_tx_bw[tc] = tc == best ? left : 0;
		return;
	}
	for (tc = 0; tc < NTC; tc++) {
		if (!rest[tc])
			continue;
		out->tc_tx_bw[tc] = left * t->tc_tx_bw[tc] / weights;
		rem[tc] = left * t->tc_tx_bw[tc] % weights;
		given += out->tc_tx_bw[tc];
	}
	while (given < left) {
		best = NTC;
		for (tc = 0; tc < NTC; tc++)
			if (rest[tc] && (best == NTC || rem[tc] > rem[best]))
				best = tc;
		out->tc_tx_bw[best]++;
		rem[best] = 0;
		given++;
	}
}

int ets_merge(struct ets_map *t, unsigned int cap, const struct gpupath_qos *const *classes,
	      unsigned int n, int err[8])
{
	int share[NTC], owner[NTC];
	unsigned int i, p, tc, sum = 0, outside = 0, placed, left;
	bool ets[NTC], rest[NTC], any_rest;
	uint8_t users[NTC] = { 0 };	/* bit p: priority p is in the class */
	struct ets_map out = *t;

	for (p = 0; p < NTC; p++) {
		share[p] = -1;
		err[p] = 0;
	}
	for (i = 0; i < n; i++) {
		if (!classes[i]->ets)
			continue;
		p = classes[i]->priority & 7;
		if (share[p] >= 0 && share[p] != (int)classes[i]->ets)
			return -EINVAL;	/* one priority, two shares */
		if (share[p] < 0)
			sum += classes[i]->ets;
		share[p] = classes[i]->ets;
	}
	if (sum > 100)
		return -EINVAL;
	if (!cap || cap > NTC)
		cap = NTC;
	for (tc = 0; tc < NTC; tc++) {
		owner[tc] = -1;
		ets[tc] = tc < cap && t->tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS;
		/* ETS classes past ets_cap stay as they are, but count. */
		if (!ets[tc] && t->tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS)
			outside += t->tc_tx_bw[tc];
	}
	for (p = 0; p < NTC; p++)
		if (t->prio_tc[p] < NTC)
			users[t->prio_tc[p]] |= 1u << p;

	/* Priorities in a strict, vendor or other non-ETS class stay there. */
	for (p = 0; p < NTC; p++)
		if (share[p] >= 0 && (t->prio_tc[p] >= NTC || !ets[t->prio_tc[p]]))
			err[p] = -EBUSY;
	/* A priority alone in its ETS class keeps it; the others, an empty one. */
	for (p = 0; p < NTC; p++) {
		tc = t->prio_tc[p];
		if (share[p] >= 0 && !err[p] && users[tc] == 1u << p)
			owner[tc] = p;
	}
	for (p = 0; p < NTC; p++) {
		if (share[p] < 0 || err[p] || owner[t->prio_tc[p]] == (int)p)
			continue;
		for (tc = 0; tc < NTC && !(ets[tc] && owner[tc] < 0 && !users[tc]); tc++)
			;
		if (tc < NTC)
			owner[tc] = p;
		else
			err[p] = -ENOSPC;
	}
	/*
	 * What is left of 100% goes to the ETS classes no priority took; with
	 * none left to take it, the highest priority placed gives its class up.
	 */
	for (;;) {
		placed = 0;
		any_rest = false;
		for (tc = 0; tc < NTC; tc++) {
			rest[tc] = ets[tc] && owner[tc] < 0;
			any_rest |= rest[tc];
			if (owner[tc] >= 0)
				placed += share[owner[tc]];
		}
		if (outside + placed > 100)
			return -EINVAL;
		left = 100 - outside - placed;
		if (!left || any_rest || !placed)
			break;
		for (tc = 0, i = NTC; tc < NTC; tc++)
			if (owner[tc] >= 0 && (i == NTC || owner[tc] > owner[i]))
				i = tc;
		err[owner[i]] = -ENOSPC;
		owner[i] = -1;
	}
	for (tc = 0; tc < NTC; tc++) {
		if (owner[tc] < 0)
			continue;
		out.prio_tc[owner[tc]] = tc;
		out.tc_tx_bw[tc] = share[owner[tc]];
	}
	if (any_rest)
		ets_share_rest(&out, t, rest, users, left);
	*t = out;
	return 0;
}

void ets_rebase(struct ets_map *base, const struct mark *m, const struct ets_map *cur)
{
	const uint8_t *before = (const uint8_t *)&m->ets_before;
	const uint8_t *wrote = (const uint8_t *)&m->ets_wrote;
	const uint8_t *now = (const uint8_t *)cur;
	uint8_t *b = (uint8_t *)base;
	size_t i;

	for (i = 0; i < sizeof(*base); i++)
		b[i] = now[i] == wrote[i] ? before[i] : now[i];
}

int ets_plan(const struct ledger *l, const char *ifname, const struct ets_map *cur,
	     unsigned int cap, const struct gpupath_qos *const *classes, unsigned int n,
	     struct ets_map *base, struct ets_map *want, int err[8])
{
	const struct mark *m = ledger_find(l, ifname, MARK_ETS, 0);

	if (m)
		ets_rebase(base, m, cur);
	else
		*base = *cur;
	*want = *base;
	return ets_merge(want, cap, classes, n, err);
}

int ets_restore(const struct mark *m, const struct ets_map *cur, struct ets_map *back)
{
	ets_rebase(back, m, cur);
	if (ets_equal(back, cur))
		return 0;
	return ets_valid(back) ? 0 : -ESTALE;
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
	unsigned int n = 0, prio = q->priority & 7;
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

	/*
	 * ETS: gpupathd's part of the table, from every class on the
	 * interface, merged into the table without it (strict and vendor
	 * traffic classes, and what others changed, stay theirs).
	 */
	if (q->ets && st.has_ets) {
		struct ets_map cur, base, want, back;
		int err[NTC], w = 0;

		ets_get(&cur, &st.ets);
		r = ets_plan(l, ifname, &cur, st.ets.ets_cap, classes, nclasses, &base, &want, err);
		changed = !r && !ets_equal(&want, &cur);
		if (changed) {
			struct ieee_ets ets = st.ets;

			ets_put(&ets, &want);
			r = w = ieee_set(sk, ifname, DCB_ATTR_IEEE_ETS, &ets, sizeof(ets));
			if (!r)
				r = ieee_get(sk, ifname, &st);
			if (!r && !st.has_ets)
				r = -EIO;
		}
		/* The table as read back, or as written where it could not be. */
		if (!r)
			ets_get(&back, &st.ets);
		else
			back = want;
		if (!r || (changed && !w))
			ledger_want_ets(l, ifname, &base, &back, changed);
		else	/* not written: what the ledger holds stays */
			ledger_want(l, ifname, MARK_ETS, 0, 0, false);
		if (!r && err[prio]) {
			r = err[prio];
			log_debug("%s: ETS share of priority %u: %s", ifname, prio,
				  r == -EBUSY ? "its traffic class is not ETS (left as it is)" :
				  "no ETS traffic class free for it");
		}
		report(&a[n++], ifname, "ets", r,
		       !r && st.has_ets && st.ets.prio_tc[prio] == want.prio_tc[prio] &&
		       st.ets.tc_tx_bw[want.prio_tc[prio] & 7] == q->ets,
		       st.ets.tc_tx_bw[st.ets.prio_tc[prio] & 7]);
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

/* @m's table put back on its interface, whose state is @st. */
static int ets_undo(struct nl_sock *sk, const struct mark *m, struct ieee *st)
{
	struct ets_map cur, back;
	int r;

	if (!st->has_ets)
		return -ENOENT;	/* no ETS on the device now: nothing to put back */
	ets_get(&cur, &st->ets);
	r = ets_restore(m, &cur, &back);
	if (r == -ESTALE) {
		if (ets_equal(&cur, &m->ets_wrote))
			log_warn("%s: ETS table left as gpupathd wrote it: the one it found "
				 "is not one the driver takes", m->device);
		else
			log_warn("%s: ETS table left as it is: changed since gpupathd wrote it, "
				 "and putting back the rest of what it found would not make "
				 "the ETS shares add up to 100%%", m->device);
		return r;
	}
	if (ets_equal(&back, &cur))
		return 0;
	if (!ets_equal(&cur, &m->ets_wrote))
		log_info("%s: ETS table changed since gpupathd wrote it: what others changed "
			 "stays, the rest is put back as gpupathd found it", m->device);
	ets_put(&st->ets, &back);
	return ieee_set(sk, m->device, DCB_ATTR_IEEE_ETS, &st->ets, sizeof(st->ets));
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
	if (m->kind != MARK_APP_DSCP && m->kind != MARK_PFC && m->kind != MARK_ETS)
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
	if (!r && m->kind == MARK_ETS)
		r = ets_undo(sk, m, &st);
	nl_socket_free(sk);
	return r;
}
