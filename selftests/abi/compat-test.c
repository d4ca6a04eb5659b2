// SPDX-License-Identifier: GPL-2.0
/*
 * A program of libgpupath's first release, run on today's library: built
 * against that release's headers (selftests/abi/include) and linked against
 * a library with that release's symbols and version (LIBGPUPATH_0, which
 * selftests/abi-check.sh makes from the release's ABI), then run with
 * today's libgpupath.so.0. It uses the functions whose structures have
 * changed since, as such a program does, and checks what it gets:
 *
 *   - gpupath_stats_prometheus() reads counters laid out as the release laid
 *     them out (a volume's paths among them);
 *   - gpupath_mon_dispatch() hands over notifications laid out so: this
 *     program plays the kernel's part, sending the monitor's socket a
 *     "gpupath" family coming up and then a volume, a provider and a portal
 *     (a process may send a netlink socket messages with CAP_NET_ADMIN;
 *     without it that part is skipped).
 *
 * Output is TAP. No gpupath module is needed.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libgpupath-admin.h>

static int failed, count;

static void check(int ok, const char *what)
{
	count++;
	printf("%sok %d - %s\n", ok ? "" : "not ", count, what);
	if (!ok)
		failed = 1;
}

/* ---- counters, as the release laid them out --------------------------------- */

static void stats_test(void)
{
	struct gpupath_provider prov;
	struct gpupath_volume vol;
	struct gpupath_portal portal;
	struct gpupath_stats s;
	char want[512], *out = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	memset(&prov, 0, sizeof(prov));
	prov.id = 7;
	prov.type = GPUPATH_PROVIDER_P2PDMA;
	snprintf(prov.pci_dev, sizeof(prov.pci_dev), "0000:03:00.0");
	prov.direct_bytes = 12345;
	prov.refused_ios[GPUPATH_REASON_CPU_COPY] = 3;
	prov.refused_bytes[GPUPATH_REASON_CPU_COPY] = 4096;

	memset(&vol, 0, sizeof(vol));
	vol.id = 1;
	snprintf(vol.name, sizeof(vol.name), "gpupath0");
	vol.stats.failovers = 5;
	vol.npaths = 2;
	vol.path[0].id = 5;
	snprintf(vol.path[0].device, sizeof(vol.path[0].device), "nvme1n1");
	vol.path[0].stats.ios = 10;
	vol.path[1].id = 6;
	snprintf(vol.path[1].device, sizeof(vol.path[1].device), "nvme2n1");
	snprintf(vol.path[1].transport, sizeof(vol.path[1].transport), "rdma");
	vol.path[1].rail = 2;
	vol.path[1].stats.ios = 20;

	memset(&portal, 0, sizeof(portal));
	portal.id = 4;
	snprintf(portal.name, sizeof(portal.name), "rail1");
	portal.nconns = 2;
	portal.conn[1].rail = 2;
	portal.conn[1].attempts = 9;

	memset(&s, 0, sizeof(s));
	s.prov = &prov;
	s.nprov = 1;
	s.vol = &vol;
	s.nvol = 1;
	s.portal = &portal;
	s.nportal = 1;

	f = open_memstream(&out, &len);
	if (!f) {
		check(0, "stats: open_memstream");
		return;
	}
	r = gpupath_stats_prometheus(&s, f);
	fclose(f);
	check(r == 0 && out, "stats: gpupath_stats_prometheus() of the release's layout");
	if (!out)
		return;
	snprintf(want, sizeof(want),
		 "gpupath_provider_direct_bytes_total{provider=\"7\",pci_dev=\"0000:03:00.0\","
		 "type=\"%s\"} 12345\n", gpupath_provider_type_name(GPUPATH_PROVIDER_P2PDMA));
	check(strstr(out, want) != NULL, "stats: a provider's counter");
	snprintf(want, sizeof(want),
		 "gpupath_provider_refused_bytes_total{provider=\"7\",pci_dev=\"0000:03:00.0\","
		 "type=\"%s\",reason=\"%s\"} 4096\n",
		 gpupath_provider_type_name(GPUPATH_PROVIDER_P2PDMA),
		 gpupath_reason_name(GPUPATH_REASON_CPU_COPY));
	check(strstr(out, want) != NULL, "stats: a provider's last member (refused bytes)");
	check(strstr(out, "gpupath_volume_failovers_total{volume=\"gpupath0\"} 5\n") != NULL,
	      "stats: a volume's counter");
	check(strstr(out, "gpupath_path_ios_total{volume=\"gpupath0\",path=\"6\",device=\"nvme2n1\","
			  "rail=\"2\",transport=\"rdma\"} 20\n") != NULL,
	      "stats: the second path of a volume, where the release put it");
	check(strstr(out, "gpupath_portal_connection_failed_attempts{portal=\"rail1\",rail=\"2\","
			  "traddr=\"\",subsysnqn=\"\"} 9\n") != NULL,
	      "stats: a portal's second connection");
	free(out);
}

/* ---- notifications, as the release handed them over ------------------------- */

#define FAMILY 0x7ff0

struct msg {
	union {
		struct nlmsghdr nlh;
		char buf[8192];
	};
	size_t len;
};

static void msg_init(struct msg *m, uint16_t type, uint8_t cmd, uint8_t version)
{
	struct genlmsghdr *g;

	memset(m, 0, sizeof(*m));
	m->nlh.nlmsg_type = type;
	g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = version;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

static struct nlattr *put(struct msg *m, uint16_t type, const void *data, size_t n)
{
	struct nlattr *nla = (struct nlattr *)(m->buf + m->len);

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + n;
	if (n)
		memcpy((char *)nla + NLA_HDRLEN, data, n);
	m->len += NLA_ALIGN(nla->nla_len);
	return nla;
}

static void put_u16(struct msg *m, uint16_t type, uint16_t v)
{
	put(m, type, &v, sizeof(v));
}

static void put_u32(struct msg *m, uint16_t type, uint32_t v)
{
	put(m, type, &v, sizeof(v));
}

static void put_u64(struct msg *m, uint16_t type, uint64_t v)
{
	put(m, type, &v, sizeof(v));
}

static void put_str(struct msg *m, uint16_t type, const char *s)
{
	put(m, type, s, strlen(s) + 1);
}

static struct nlattr *nest(struct msg *m, uint16_t type)
{
	return put(m, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct msg *m, struct nlattr *nla)
{
	nla->nla_len = m->buf + m->len - (char *)nla;
}

static int send_to(int sk, uint32_t portid, struct msg *m)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_pid = portid };

	m->nlh.nlmsg_len = m->len;
	return sendto(sk, m->buf, m->len, 0, (struct sockaddr *)&to, sizeof(to)) < 0 ? -errno : 0;
}

static void put_path(struct msg *m, uint32_t id, const char *device, uint64_t ios)
{
	struct nlattr *path = nest(m, GPUPATH_A_VOLUME_PATH), *st;

	put_u32(m, GPUPATH_A_PATH_ID, id);
	put_u32(m, GPUPATH_A_PATH_VOLUME, 1);
	put_str(m, GPUPATH_A_PATH_DEVICE, device);
	put_u32(m, GPUPATH_A_PATH_ANA_STATE, GPUPATH_ANA_NON_OPTIMIZED);	/* not in the release */
	st = nest(m, GPUPATH_A_PATH_STATS);
	put_u64(m, GPUPATH_A_PSTATS_IOS, ios);
	nest_end(m, st);
	nest_end(m, path);
}

/* What the callback was handed, kept. */
struct seen {
	int family_new;
	int volume, provider, portal, other;
	struct gpupath_volume vol;
	struct gpupath_provider prov;
	struct gpupath_portal portal_obj;
};

static void on_event(const struct gpupath_mon_event *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->type == GPUPATH_EVENT_FAMILY_NEW) {
		s->family_new++;
		return;
	}
	if (ev->type != GPUPATH_EVENT_NOTIFY)
		return;
	if (ev->has_volume && ev->cmd == GPUPATH_CMD_VOLUME_NEW) {
		s->volume++;
		s->vol = ev->volume;
	} else if (ev->has_provider && ev->cmd == GPUPATH_CMD_PROVIDER_NEW) {
		s->provider++;
		s->prov = ev->provider;
	} else if (ev->has_portal && ev->cmd == GPUPATH_CMD_PORTAL_NEW) {
		s->portal++;
		s->portal_obj = ev->portal;
	} else {
		s->other++;
	}
	if (ev->has_info || ev->has_path || ev->has_event || ev->has_qos)
		s->other++;
}

static void mon_test(void)
{
	static struct seen seen;
	struct sockaddr_nl addr;
	socklen_t alen = sizeof(addr);
	struct gpupath_mon *mon;
	struct nlattr *n, *st, *ref;
	struct pollfd pfd;
	struct msg m;
	bool loaded;
	int sk, r, i;

	r = gpupath_mon_open(&mon, &loaded);
	if (r < 0) {
		printf("ok %d - monitor # SKIP no generic netlink here (%s)\n", ++count,
		       strerror(-r));
		return;
	}
	sk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (sk < 0 || getsockname(gpupath_mon_fd(mon), (struct sockaddr *)&addr, &alen) < 0) {
		check(0, "monitor: a netlink socket of our own");
		goto out;
	}

	/* The family comes up (no groups: nothing to join). */
	msg_init(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY, 2);
	put_u16(&m, CTRL_ATTR_FAMILY_ID, FAMILY);
	put_str(&m, CTRL_ATTR_FAMILY_NAME, GPUPATH_GENL_NAME);
	r = send_to(sk, addr.nl_pid, &m);
	if (r == -EPERM) {
		printf("ok %d - monitor # SKIP sending to a netlink socket needs CAP_NET_ADMIN\n",
		       ++count);
		goto out;
	}
	check(r == 0, "monitor: the family's arrival sent");

	/* A volume of two paths: the second is where the release put it. */
	msg_init(&m, FAMILY, GPUPATH_CMD_VOLUME_NEW, GPUPATH_GENL_VERSION);
	n = nest(&m, GPUPATH_A_VOLUME);
	put_u32(&m, GPUPATH_A_VOLUME_ID, 1);
	put_str(&m, GPUPATH_A_VOLUME_NAME, "gpupath0");
	put_u32(&m, GPUPATH_A_VOLUME_PATHS, 2);
	put_path(&m, 5, "nvme1n1", 10);
	st = nest(&m, GPUPATH_A_VOLUME_STATS);
	put_u64(&m, GPUPATH_A_VSTATS_FAILOVERS, 5);
	nest_end(&m, st);
	put_path(&m, 6, "nvme2n1", 20);
	nest_end(&m, n);
	check(send_to(sk, addr.nl_pid, &m) == 0, "monitor: a volume sent");

	/* A provider, with a counter in its last member and limits it did not have. */
	msg_init(&m, FAMILY, GPUPATH_CMD_PROVIDER_NEW, GPUPATH_GENL_VERSION);
	n = nest(&m, GPUPATH_A_PROVIDER);
	put_u32(&m, GPUPATH_A_PROVIDER_ID, 7);
	put_str(&m, GPUPATH_A_PROVIDER_PCI_DEV, "0000:03:00.0");
	put_u64(&m, GPUPATH_A_PROVIDER_USER_LIMIT, 1 << 20);
	st = nest(&m, GPUPATH_A_PROVIDER_STATS);
	ref = nest(&m, GPUPATH_A_STATS_REFUSED);
	put_u32(&m, GPUPATH_A_REFUSED_REASON, GPUPATH_REASON_CPU_COPY);
	put_u64(&m, GPUPATH_A_REFUSED_IOS, 3);
	put_u64(&m, GPUPATH_A_REFUSED_BYTES, 4096);
	nest_end(&m, ref);
	nest_end(&m, st);
	nest_end(&m, n);
	check(send_to(sk, addr.nl_pid, &m) == 0, "monitor: a provider sent");

	/* A portal, with connections, and a host NQN it did not have. */
	msg_init(&m, FAMILY, GPUPATH_CMD_PORTAL_NEW, GPUPATH_GENL_VERSION);
	n = nest(&m, GPUPATH_A_PORTAL);
	put_u32(&m, GPUPATH_A_PORTAL_ID, 4);
	put_str(&m, GPUPATH_A_PORTAL_NAME, "rail1");
	put_str(&m, GPUPATH_A_PORTAL_HOST_NQN, "nqn.2014-08.org.nvmexpress:uuid:1");
	for (i = 0; i < 2; i++) {
		st = nest(&m, GPUPATH_A_PORTAL_CONN);
		put_u32(&m, GPUPATH_A_CONN_RAIL, 1 + i);
		put_str(&m, GPUPATH_A_CONN_SUBSYSNQN, "nqn.2026-11.io.example:a");
		put_u32(&m, GPUPATH_A_CONN_ATTEMPTS, 8 + i);
		nest_end(&m, st);
	}
	nest_end(&m, n);
	check(send_to(sk, addr.nl_pid, &m) == 0, "monitor: a portal sent");

	pfd.fd = gpupath_mon_fd(mon);
	pfd.events = POLLIN;
	for (i = 0; i < 50 && seen.volume + seen.provider + seen.portal < 3; i++) {
		if (poll(&pfd, 1, 100) < 0)
			break;
		r = gpupath_mon_dispatch(mon, on_event, &seen);
		if (r < 0)
			break;
	}
	check(seen.family_new == 1, "monitor: the family's arrival handed over");
	check(seen.volume == 1 && seen.provider == 1 && seen.portal == 1 && !seen.other,
	      "monitor: a volume, a provider and a portal handed over, nothing else");
	check(seen.vol.id == 1 && !strcmp(seen.vol.name, "gpupath0") && seen.vol.paths == 2 &&
	      seen.vol.stats.failovers == 5, "monitor: the volume");
	check(seen.vol.npaths == 2 && seen.vol.path[0].id == 5 &&
	      seen.vol.path[0].stats.ios == 10 && seen.vol.path[1].id == 6 &&
	      !strcmp(seen.vol.path[1].device, "nvme2n1") && seen.vol.path[1].stats.ios == 20,
	      "monitor: the volume's paths, where the release put them");
	check(seen.prov.id == 7 && !strcmp(seen.prov.pci_dev, "0000:03:00.0") &&
	      seen.prov.bar == -1 && seen.prov.refused_ios[GPUPATH_REASON_CPU_COPY] == 3 &&
	      seen.prov.refused_bytes[GPUPATH_REASON_CPU_COPY] == 4096,
	      "monitor: the provider, to its last member");
	check(seen.portal_obj.id == 4 && !strcmp(seen.portal_obj.name, "rail1") &&
	      seen.portal_obj.nconns == 2 && seen.portal_obj.conn[1].rail == 2 &&
	      seen.portal_obj.conn[1].attempts == 9, "monitor: the portal, to its last member");
out:
	if (sk >= 0)
		close(sk);
	gpupath_mon_close(mon);
}

int main(void)
{
	printf("TAP version 13\n");
	stats_test();
	mon_test();
	printf("1..%d\n", count);
	return failed;
}
