// SPDX-License-Identifier: GPL-2.0
/*
 * Fabric connections and path assembly (see fabric.h).
 *
 * Every pass starts from what is true now: the module's portals (with the
 * connections the last daemon reported) and a fresh libnvme scan of the
 * controllers. A controller that already matches a wanted connection is
 * used as it is, whoever made it, so a restarted daemon never connects
 * twice. What is missing is connected when due; a failed attempt backs off
 * exponentially, capped, and is retried for ever, every attempt logged and
 * reported in the portal's connections.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <syslog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libnvme.h>
#include <systemd/sd-daemon.h>

#include "dcb.h"
#include "disclog.h"
#include "fabric.h"
#include "ledger.h"
#include "libnvme-fix.h"
#include "internal.h"
#include "log.h"
#include "clock.h"
#include "mdns.h"
#include "private.h"
#include "secret.h"

#define BACKOFF_MAX_MS		60000
#define DISCOVERY_EVERY_MS	30000	/* while a rail has no discovery controller */
#define DISCOVERY_KATO		30	/* keep-alive of persistent discovery controllers */
#define DISCOVERY_DEPTH		3	/* referrals followed */
#define REFERRALS_MAX		8	/* referrals followed by one discovery */
#define DISC_RETRY_MS		1000	/* a log page that could not be read */
#define DISC_JOBS_MAX		16	/* discovery children at work at once */
#define TARGETS_MAX		GPUPATH_PORTAL_CONNS_MAX
#define QOS_LEDGER		"/run/gpupath/qos-ledger"
#define BROWSE_MAX		16	/* interfaces browsed by mDNS */
#define DISC_MARKS		"/run/gpupath/discovery"	/* 69-gpupath.rules */
#define CONNECTS_MAX		64	/* connects under way at once */

/* What gpupathd knows of one wanted connection, kept across passes. */
struct conn {
	uint32_t portal;
	char iface[IF_NAMESIZE];	/* the host interface it uses, "" unknown */
	struct gpupath_portal_conn rep;	/* as reported; the key is rail,
					 * subsysnqn, traddr, trsvcid */
	bool ours;			/* made by gpupathd */
	int tos;			/* the tos it was connected with, -1: not known */
	bool seen;			/* still wanted in this pass */
	uint64_t next_ms;		/* next attempt, monotonic */
	int auth_said;			/* last secret update problem logged */
};

/*
 * A connect under way, in a child process: the kernel's connect can take
 * minutes (one admin timeout after another when a target drops the
 * controller during authentication), and the daemon's loop, its other
 * portals and its watchdog must not wait for it.
 */
struct connect_job {
	pid_t pid;
	int fd;				/* the child's connect_result */
	uint32_t portal;
	struct gpupath_portal_conn key;	/* the connection's rail, NQN, address */
	int tos;
};

struct connect_result {
	int error;			/* errno, 0: connected */
	char ctrl[32];			/* the controller made */
};

/*
 * A discovery portal's rail: its persistent discovery controller, whose
 * discovery-log-change events (a uevent with NVME_AEN) say when to read
 * the log page again, and what the log page listed last.
 */
struct discovered {
	uint32_t portal;
	uint32_t rail;
	char traddr[GPUPATH_ADDR_LEN];	/* the discovery controller's address */
	uint32_t trsvcid;
	char ctrl[32];			/* the persistent controller, "" none */
	bool ours;			/* connected by gpupathd */
	bool stale;			/* the log page is to be read again */
	bool seen;			/* still wanted in this pass */
	uint64_t next_ms;		/* next try (no controller, or no page read) */
	unsigned int reads;		/* log pages read, for the log */
	pid_t job;			/* its discovery child, 0: none at work */
	int job_fd;			/* the child's disc_result */
	bool again;			/* changed while the child read it */
	unsigned int n;
	struct target t[TARGETS_MAX];
};

/*
 * What a discovery child found: the controller it used (made by it when
 * @made), and the log page when it was read whole, the same twice.
 */
struct disc_result {
	int error;			/* errno: no controller could be made */
	bool made;
	bool read;
	char ctrl[32];
	unsigned int n;
	struct target t[TARGETS_MAX];
};

struct fabric {
	struct conn *conns;
	size_t nconns;
	struct gpupath_qos *qos;	/* the classes, as of this pass */
	size_t nqos;
	struct discovered *disc;
	size_t ndisc;
	struct ledger ledger;		/* what the QoS classes set, to take back */
	struct mdns *mdns;		/* NULL: no mDNS discovery */
	struct connect_job jobs[CONNECTS_MAX];
	size_t njobs;
	int wake;			/* eventfd: a connect_job ended */
	bool watchdog;			/* systemd's watchdog is on */
};

/*
 * A pass that moves on tells the watchdog so (the loop pings it only
 * between passes): a scan of sysfs while many controllers come and go
 * takes seconds (kernfs is busy with their removal; 9 s seen for 128
 * controllers in an emulated guest). A pass that is stuck does not ping.
 */
static void progress(const struct fabric *f)
{
	if (f->watchdog)
		sd_notify(0, "WATCHDOG=1");
}

/* The interfaces' addresses as of the pass's start (NULL: not read). */
static struct ifaddrs *addrs;

/* A string into a fixed buffer, cut to fit. */
static void cpy(char *dst, size_t size, const char *src)
{
	size_t n;

	if (!src)
		src = "";	/* libnvme's value of what it could not read */
	n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

int fabric_new(struct fabric **f)
{
	int r;

	*f = calloc(1, sizeof(**f));
	if (!*f)
		return -ENOMEM;
	(*f)->watchdog = sd_watchdog_enabled(0, NULL) > 0;
	(*f)->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if ((*f)->wake < 0) {
		r = -errno;
		free(*f);
		return r;
	}
	r = ledger_load(&(*f)->ledger, QOS_LEDGER);
	if (r < 0)
		log_errno(r, "reading %s: what gpupathd set before is forgotten", QOS_LEDGER);
	return 0;
}

void fabric_free(struct fabric *f)
{
	size_t i;

	if (!f)
		return;
	/* Children still connecting or discovering finish on their own. */
	for (i = 0; i < f->njobs; i++)
		close(f->jobs[i].fd);
	for (i = 0; i < f->ndisc; i++)
		if (f->disc[i].job)
			close(f->disc[i].job_fd);
	close(f->wake);
	free(f->conns);
	free(f->qos);
	free(f->disc);
	ledger_free(&f->ledger);
	free(f);
	if (addrs)
		freeifaddrs(addrs);
	addrs = NULL;
}

static const char *transport_of(const struct gpupath_portal *p)
{
	return gpupath_transport_name(p->transport);
}

/* ---- controllers ------------------------------------------------------- */

/*
 * Where a rail connects from: the interface and the host address. nvme-tcp
 * binds to an interface (host_iface); nvme-rdma only to an address
 * (host_traddr), so there the interface's address stands for it.
 */
struct host_end {
	const char *iface;		/* NULL: not bound */
	const char *addr;		/* NULL: not bound */
	char buf[INET6_ADDRSTRLEN];
};

/*
 * The interfaces' carriers, read once per pass (links_read()) and kept
 * current by rtnetlink (fabric_link()): asked for every connection and
 * path, getifaddrs() each time would cost a netlink dump each.
 */
#define LINKS_MAX	256
static struct {
	char name[IF_NAMESIZE];
	bool running;
} links[LINKS_MAX];
static size_t nlinks;

static void link_note(const char *iface, bool running)
{
	size_t i;

	for (i = 0; i < nlinks; i++)
		if (!strcmp(links[i].name, iface))
			break;
	if (i == nlinks) {
		if (nlinks == LINKS_MAX)
			return;
		cpy(links[nlinks++].name, IF_NAMESIZE, iface);
	}
	links[i].running = running;
}

static void links_read(void)
{
	struct ifaddrs *i;

	nlinks = 0;
	if (addrs)
		freeifaddrs(addrs);
	if (getifaddrs(&addrs) < 0) {
		addrs = NULL;
		return;
	}
	for (i = addrs; i; i = i->ifa_next)
		link_note(i->ifa_name, (i->ifa_flags & IFF_UP) && (i->ifa_flags & IFF_RUNNING));
}

/* gpupath_ifaddr_find(), in the pass's list when there is one. */
static bool ifaddr_find(const char *iface, const char *addr, int family, char *iface_out,
			size_t iface_size, char *addr_out, size_t addr_size)
{
	if (!addrs)
		return gpupath_ifaddr_find(iface, addr, family, iface_out, iface_size, addr_out,
					   addr_size);
	return gpupath_ifaddr_find_in(addrs, iface, addr, family, iface_out, iface_size,
				      addr_out, addr_size);
}

/* Whether @iface is up with a carrier (unknown interfaces count as up). */
static bool iface_running(const char *iface)
{
	size_t i;

	for (i = 0; i < nlinks; i++)
		if (!strcmp(links[i].name, iface))
			return links[i].running;
	return true;
}

static void iface_addr(const char *iface, const char *traddr, char *buf, size_t size)
{
	buf[0] = 0;
	ifaddr_find(iface, NULL, strchr(traddr, ':') ? AF_INET6 : AF_INET, NULL, 0, buf, size);
}

/* The interface that has address @addr, into @iface ("" when none has). */
static void addr_iface(const char *addr, char *iface, size_t size)
{
	iface[0] = 0;
	ifaddr_find(NULL, addr, AF_UNSPEC, iface, size, NULL, 0);
}


/* The interface a rail connects from: named, or the one with its address. */
static bool rail_iface(const struct gpupath_portal_rail *rail, char *iface, size_t size)
{
	cpy(iface, size, rail->iface);
	if (!iface[0] && rail->addr[0])
		addr_iface(rail->addr, iface, size);
	return iface[0];
}

static void host_end(const struct gpupath_portal *p, const struct gpupath_portal_rail *rail,
		     const char *traddr, struct host_end *he)
{
	he->iface = NULL;
	he->addr = rail->addr[0] ? rail->addr : NULL;	/* may be the only binding */
	if (!rail->iface[0])
		return;
	if (p->transport == GPUPATH_TRANSPORT_TCP) {
		he->iface = rail->iface;
	} else if (!he->addr) {
		iface_addr(rail->iface, traddr, he->buf, sizeof(he->buf));
		if (he->buf[0])
			he->addr = he->buf;
	}
}

static bool same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Whether an address of @iface is on the subnet of @addr (IPv4 or IPv6). */
static bool iface_subnet_has(const char *iface, const char *addr)
{
	return gpupath_ifaddr_subnet_in(addrs, iface, addr, NULL, 0);
}

/*
 * Whether @c connects from @rail: by what it really uses, whoever connected
 * it (the daemon, or by hand with any address of the rail's interface): its
 * host_iface, its host_traddr, or the source address of its connection
 * (nvme-tcp's src_addr). A controller bound to none of them (nvme-cli's
 * autoconnect may make those over RDMA) goes where the kernel routes its
 * target: to the rail whose interface's subnet holds the target address.
 */
static bool on_rail(nvme_ctrl_t c, const struct gpupath_portal_rail *rail)
{
	const char *used[2] = { nvme_ctrl_get_host_traddr(c) };
	char src[INET6_ADDRSTRLEN], iface[IF_NAMESIZE];
	const char *hif = nvme_ctrl_get_host_iface(c);
	bool bound = hif && hif[0];
	unsigned int i;

	gpupath_addr_field(nvme_ctrl_get_address(c), "src_addr", src, sizeof(src));
	used[1] = src;
	if (!rail->iface[0] && !rail->addr[0])
		return true;
	if (!rail->addr[0] && same(hif, rail->iface))
		return true;
	for (i = 0; i < 2; i++) {
		if (!used[i] || !used[i][0])
			continue;
		bound = true;
		if (rail->addr[0] ? !strcmp(used[i], rail->addr) :
		    ifaddr_find(rail->iface, used[i], AF_UNSPEC, NULL, 0, NULL, 0))
			return true;
	}
	return !bound && nvme_ctrl_get_traddr(c) && rail_iface(rail, iface, sizeof(iface)) &&
	       iface_subnet_has(iface, nvme_ctrl_get_traddr(c));
}

/*
 * The host @p's connections present: the portal's own NQN and ID (an ID
 * named by an NQN of the nvmexpress uuid form when it gives none), or the
 * system's (/etc/nvme/hostnqn, hostid).
 */
static nvme_host_t host_of(nvme_root_t r, const struct gpupath_portal *p)
{
	const char *id = p->host_id[0] ? p->host_id : NULL, *u;

	if (!p->host_nqn[0] && !id)
		return nvme_default_host(r);
	if (!p->host_nqn[0]) {
		nvme_host_t h = nvme_default_host(r);

		return h ? nvme_lookup_host(r, nvme_host_get_hostnqn(h), id) : NULL;
	}
	u = strstr(p->host_nqn, ":uuid:");
	if (!id && u)
		id = u + 6;
	return nvme_lookup_host(r, p->host_nqn, id);
}

/* The controller of @p's @rail to @t in the scan, if there is one. */
static nvme_ctrl_t find_ctrl(nvme_root_t r, const struct gpupath_portal *p,
			     const struct gpupath_portal_rail *rail, const struct target *t)
{
	nvme_host_t want = host_of(r, p), h;
	char svc[8];
	nvme_subsystem_t s;
	nvme_ctrl_t c;

	snprintf(svc, sizeof(svc), "%u", t->trsvcid);
	nvme_for_each_host(r, h) {
		/* another host NQN is another host's association */
		if (want && !same(nvme_host_get_hostnqn(h), nvme_host_get_hostnqn(want)))
			continue;
		nvme_for_each_subsystem(h, s) {
			nvme_subsystem_for_each_ctrl(s, c) {
				/* (no name: one deleted while the scan read it) */
				if (nvme_ctrl_get_name(c) &&
				    same(nvme_ctrl_get_transport(c), transport_of(p)) &&
				    same(nvme_ctrl_get_traddr(c), t->traddr) &&
				    same(nvme_ctrl_get_trsvcid(c), svc) &&
				    same(nvme_ctrl_get_subsysnqn(c), t->nqn) && on_rail(c, rail))
					return c;
			}
		}
	}
	return NULL;
}

/*
 * libnvme reports its own codes (ENVME_CONNECT_*, past the errno range) and
 * logs the system error behind them: an errno for the module's report.
 */
static int os_errno(int err)
{
	if (err <= 0)
		return EIO;
	if (err < ENVME_CONNECT_RESOLVE)
		return err;
	switch (err) {
	case ENVME_CONNECT_RESOLVE:
		return EADDRNOTAVAIL;
	case ENVME_CONNECT_ADDRFAM:
		return EAFNOSUPPORT;
	case ENVME_CONNECT_OPEN:
		return ENODEV;
	case ENVME_CONNECT_WRITE:
	case ENVME_CONNECT_READ:
		return ECOMM;
	case ENVME_CONNECT_ALREADY:
	case ENVME_CONNECT_ADDRINUSE:
		return EADDRINUSE;
	case ENVME_CONNECT_NODEV:
		return ENODEV;
	case ENVME_CONNECT_OPNOTSUPP:
		return EOPNOTSUPP;
	case ENVME_CONNECT_CONNREFUSED:
		return ECONNREFUSED;
	default:
		return EINVAL;
	}
}

/* The IP ToS byte of @p's QoS class, -1 when it has none. */
static int portal_tos(const struct fabric *f, const struct gpupath_portal *p)
{
	size_t i;

	for (i = 0; p->qos[0] && i < f->nqos; i++)
		if (!strcmp(f->qos[i].name, p->qos))
			return f->qos[i].dscp << 2;
	return -1;
}

static void fabrics_config(const struct gpupath_portal *p, const struct host_end *he, int tos,
			   struct nvme_fabrics_config *cfg)
{
	nvmf_default_config(cfg);
	if (tos >= 0)
		cfg->tos = tos;
	cfg->host_iface = (char *)he->iface;
	cfg->host_traddr = (char *)he->addr;
	cfg->ctrl_loss_tmo = p->ctrl_loss_tmo == GPUPATH_TMO_FOREVER ? -1 :
			     (int)p->ctrl_loss_tmo;
	cfg->fast_io_fail_tmo = p->fast_io_fail_tmo == GPUPATH_TMO_OFF ? -1 :
				(int)p->fast_io_fail_tmo;
	cfg->reconnect_delay = p->reconnect_delay;
	if (p->nr_io_queues)
		cfg->nr_io_queues = p->nr_io_queues;
}

/* Whose secret: the host's (0) or the controller's (1). */
static const char *const secret_role[2] = { "host", "controller" };

/*
 * The file of @p's secret @i (secret_role), "" when there is none: a
 * discovery controller (@disc) authenticates the host only.
 */
static const char *secret_file(const struct gpupath_portal *p, unsigned int i, bool disc)
{
	return i ? (disc ? "" : p->ctrl_secret_file) : p->secret_file;
}

/*
 * Read portal @p's DH-HMAC-CHAP secrets (those secret_file() gives) into
 * @c, or only check them when @c is NULL. Returns 0, or a negative errno
 * after saying what is wrong with which file. libnvme prefers a secret of the host
 * object (which its scan takes from any live controller of the same host
 * NQN) to the controller's: it is cleared, so that the portal's own is
 * used, or none.
 */
static int set_secrets(nvme_host_t h, nvme_ctrl_t c, const struct gpupath_portal *p,
		       bool disc)
{
	char key[SECRET_LEN], why[160];
	const char *file;
	unsigned int i;
	int err;

	if (h)
		nvme_host_set_dhchap_key(h, NULL);
	for (i = 0; i < 2; i++) {
		file = secret_file(p, i, disc);
		if (!file[0])
			continue;
		err = secret_read(file, key, why, sizeof(why));
		if (err) {
			log_warn("portal %s: %s secret %s: %s", p->name, secret_role[i], file, why);
			return err;
		}
		if (c && i)
			nvme_ctrl_set_dhchap_key(c, key);
		else if (c)
			nvme_ctrl_set_dhchap_host_key(c, key);
		secret_wipe(key);
	}
	return 0;
}

/* Controllers connected or disconnected so far: a pass that did neither scans once. */
static unsigned long changes;

/* Connect @p's @rail to @t; the new controller, or NULL with errno set. */
static nvme_ctrl_t connect_ctrl(nvme_root_t r, const struct gpupath_portal *p,
				const struct gpupath_portal_rail *rail, const struct target *t,
				int tos)
{
	bool disc = !strcmp(t->nqn, NVME_DISC_SUBSYS_NAME);
	struct nvme_fabrics_config cfg;
	nvme_host_t h = host_of(r, p);
	struct host_end he;
	char svc[8];
	nvme_ctrl_t c;
	int err;

	if (!h) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(svc, sizeof(svc), "%u", t->trsvcid);
	host_end(p, rail, t->traddr, &he);
	if (rail->iface[0] && !he.iface && !he.addr) {
		log_warn("portal %s rail %u: %s has no address to connect from", p->name,
			 rail->id, rail->iface);
		errno = EADDRNOTAVAIL;
		return NULL;
	}
	c = nvme_create_ctrl(r, t->nqn, transport_of(p), t->traddr, he.addr, he.iface, svc);
	if (!c)
		return NULL;
	fabrics_config(p, &he, tos, &cfg);
	if (disc) {
		/* Kept: its keep-alive tells the host when the target goes. */
		cfg.keep_alive_tmo = DISCOVERY_KATO;
		nvme_ctrl_set_persistent(c, true);
	}
	err = set_secrets(h, c, p, disc);
	if (err) {
		nvme_free_ctrl(c);
		errno = -err;
		return NULL;
	}
	if (nvmf_add_ctrl(h, c, &cfg) < 0) {
		err = os_errno(errno);
		/* The kernel refused the authentication, or the target did. */
		if (p->secret_file[0] && (err == ECONNREFUSED || err == ECOMM || err == EKEYREJECTED ||
					  err == EACCES || err == EPERM || err == EIO)) {
			log_warn("portal %s: %s at %s:%s refused host %s: authentication failed "
				 "(check its DH-HMAC-CHAP secrets and the target's)", p->name, t->nqn,
				 t->traddr, svc, nvme_host_get_hostnqn(h));
			err = EKEYREJECTED;
		}
		nvme_free_ctrl(c);
		errno = err;
		return NULL;
	}
	changes++;
	return c;
}

static bool conn_key(const struct gpupath_portal_conn *a, const struct gpupath_portal_conn *b)
{
	return a->rail == b->rail && a->trsvcid == b->trsvcid &&
	       !strcmp(a->subsysnqn, b->subsysnqn) && !strcmp(a->traddr, b->traddr);
}

/* The connect under way for @portal's connection @key, if there is one. */
static struct connect_job *job_of(struct fabric *f, uint32_t portal,
				  const struct gpupath_portal_conn *key)
{
	size_t i;

	for (i = 0; i < f->njobs; i++)
		if (f->jobs[i].portal == portal && conn_key(&f->jobs[i].key, key))
			return &f->jobs[i];
	return NULL;
}

/*
 * In a connect child: nothing of the daemon's but @a and @b stays open.
 * A child holding the daemon's sockets (the metrics port, netlink, udev)
 * would keep a restarted daemon from binding the port, and would hear what
 * is not its own. The log is closed first (syslog opens its socket again
 * when the child logs; the journal's is not used again, the child writing
 * to stderr), so that no descriptor number it kept is reused.
 */
static void child_fds(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	log_close();
	if (lo > 3)
		close_range(3, lo - 1, 0);
	if (hi > lo + 1)
		close_range(lo + 1, hi - 1, 0);
	close_range(hi + 1, ~0U, 0);
}

/*
 * A child process for work that may wait on the network (a connect, a
 * discovery controller): the loop never does. Returns its pid in the
 * parent, with the read end of its result pipe (non-blocking) in *@fd; 0
 * in the child, with the write end; a negative errno when none started.
 */
static pid_t child_start(struct fabric *f, int *fd)
{
	int fds[2], err;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	/*
	 * The log's stream is held across fork(), so that no other thread
	 * (the ANA poller) holds it in the child, which has that thread no
	 * more.
	 */
	fflush(NULL);
	flockfile(stderr);
	pid = fork();
	if (!pid) {
		sigset_t none;

		funlockfile(stderr);
		child_fds(fds[1], f->wake);
		/* A stop signal stops it (the daemon blocks them for its loop's signalfd). */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		*fd = fds[1];
		return 0;
	}
	err = errno;
	funlockfile(stderr);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -err;
	}
	*fd = fds[0];
	return pid;
}

/* In the child: its result to the daemon, which it wakes; then it ends. */
static void __attribute__((noreturn)) child_end(struct fabric *f, int fd, const void *res,
						size_t size)
{
	const char *p = res;
	ssize_t w;

	while (size) {
		w = write(fd, p, size);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1);
		p += w;
		size -= w;
	}
	_exit(eventfd_write(f->wake, 1) ? 1 : 0);
}

/*
 * Start connecting @c (of @p, from @rail, to @t) in a child process, which
 * writes its connect_result and wakes the loop (fabric_fd()) when it is
 * done. Returns 0, or a negative errno when no child could be started.
 */
static int connect_start(struct fabric *f, nvme_root_t r, struct conn *c,
			 const struct gpupath_portal *p, const struct gpupath_portal_rail *rail,
			 const struct target *t, int tos)
{
	struct connect_job *j = &f->jobs[f->njobs];
	struct connect_result res = { 0 };
	nvme_ctrl_t ctrl;
	pid_t pid;
	int fd = -1, err;

	/* A secret file that will not do fails here, with its reason, at once. */
	err = set_secrets(NULL, NULL, p, false);
	if (err)
		return err;
	pid = child_start(f, &fd);
	if (pid < 0)
		return pid;
	if (!pid) {
		ctrl = connect_ctrl(r, p, rail, t, tos);
		if (ctrl)
			cpy(res.ctrl, sizeof(res.ctrl), nvme_ctrl_get_name(ctrl));
		else
			res.error = errno ? errno : EIO;
		child_end(f, fd, &res, sizeof(res));
	}
	j->pid = pid;
	j->fd = fd;
	j->portal = p->id;
	j->key = c->rep;
	j->tos = tos;
	f->njobs++;
	return 0;
}

int fabric_fd(struct fabric *f)
{
	return f->wake;
}

/* ---- discovery --------------------------------------------------------- */

static void discover_at(nvme_root_t r, const struct gpupath_portal *p,
			const struct gpupath_portal_rail *rail, const struct target *at, int tos,
			int depth, struct discovered *d);

/* Referrals followed by this process (a discovery child) so far. */
static unsigned int referrals;

/*
 * Read @c's discovery log page into @d (referrals followed), and its
 * generation counter into *@genctr; false: failed.
 */
static bool read_log(nvme_root_t r, nvme_ctrl_t c, const struct gpupath_portal *p,
		     const struct gpupath_portal_rail *rail, const struct target *at, int tos,
		     int depth, struct discovered *d, uint64_t *genctr)
{
	struct nvmf_discovery_log *log = NULL;
	int trtype = p->transport == GPUPATH_TRANSPORT_RDMA ? NVMF_TRTYPE_RDMA : NVMF_TRTYPE_TCP;
	unsigned int dropped = 0;
	struct target t;
	uint64_t i, n;

	if (nvmf_get_discovery_log(c, &log, 4) < 0) {
		log_warn("portal %s: discovery log page of %s:%u: %s", p->name, at->traddr,
			 at->trsvcid, strerror(errno));
		return false;
	}
	n = le64toh(log->numrec);
	*genctr = le64toh(log->genctr);
	log_debug("portal %s: discovery log page of %s:%u: generation %llu, %llu records",
		  p->name, at->traddr, at->trsvcid, (unsigned long long)*genctr,
		  (unsigned long long)n);
	for (i = 0; i < n; i++) {
		struct nvmf_disc_log_entry *e = &log->entries[i];
		char why[384];

		if (e->trtype != trtype ||
		    (e->subtype != NVME_NQN_NVME && e->subtype != NVME_NQN_DISC))
			continue;
		if (!disc_record(e, &t, why, sizeof(why))) {
			log_warn("portal %s: discovery log page of %s:%u, record %llu: %s; left out",
				 p->name, at->traddr, at->trsvcid, (unsigned long long)i, why);
			continue;
		}
		log_debug("  record %llu: subtype %u trtype %u %s:%u %s", (unsigned long long)i,
			  e->subtype, e->trtype, t.traddr, t.trsvcid, t.nqn);
		if (e->subtype == NVME_NQN_NVME && d->n < TARGETS_MAX) {
			d->t[d->n++] = t;
		} else if (e->subtype == NVME_NQN_NVME) {
			if (!dropped++)
				log_warn("portal %s: %s:%u lists more than %u subsystems: %s and "
					 "those after it are left out (use more portals)", p->name,
					 at->traddr, at->trsvcid, TARGETS_MAX, t.nqn);
		} else if (e->subtype == NVME_NQN_DISC && depth < DISCOVERY_DEPTH &&
			   (strcmp(t.traddr, at->traddr) || t.trsvcid != at->trsvcid)) {
			/* (one discovery child's count: it follows no more) */
			if (referrals++ == REFERRALS_MAX)
				log_warn("portal %s: more than %u referrals; %s:%u and those after "
					 "it are left out", p->name, REFERRALS_MAX, t.traddr,
					 t.trsvcid);
			if (referrals > REFERRALS_MAX)
				continue;
			log_info("portal %s: referral to %s:%u", p->name, t.traddr, t.trsvcid);
			discover_at(r, p, rail, &t, tos, depth + 1, d);
		}
	}
	free(log);
	return true;
}

/* A referral: a discovery controller for one read, then disconnected. */
static void discover_at(nvme_root_t r, const struct gpupath_portal *p,
			const struct gpupath_portal_rail *rail, const struct target *at, int tos,
			int depth, struct discovered *d)
{
	nvme_ctrl_t c = connect_ctrl(r, p, rail, at, tos);
	uint64_t genctr;

	if (!c) {
		log_warn("portal %s: discovery controller %s:%u: %s", p->name, at->traddr,
			 at->trsvcid, strerror(errno));
		return;
	}
	read_log(r, c, p, rail, at, tos, depth, d, &genctr);
	nvme_disconnect_ctrl(c);
	nvme_free_ctrl(c);
}

/*
 * The controllers as they are now, without their namespaces (libnvme-fix.c
 * says why; ctrl_namespaces() has them). libnvme says only what is
 * critical: a controller that a connect under way is making has no
 * subsystem yet, which it would report as an error on each pass; the
 * daemon says what failed.
 */
static nvme_root_t scan(void)
{
	nvme_root_t r = nvme_create_root(stderr, LOG_CRIT);
	int ret;

	if (!r)
		return NULL;
	libnvme_scan_ctrls_only(true);
	ret = nvme_scan_topology(r, NULL, NULL);
	libnvme_scan_ctrls_only(false);
	if (ret < 0) {
		nvme_free_tree(r);
		return NULL;
	}
	return r;
}

static int namespace_entry(const struct dirent *e)
{
	return libnvme_is_namespace(e->d_name);
}

/*
 * The block devices of controller @ctrl's namespaces, from sysfs alone:
 * *@list, their number, or -1 (errno). Free with free_dirents().
 */
static int ctrl_namespaces(const char *ctrl, struct dirent ***list)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "/sys/class/nvme/%s", ctrl);
	return scandir(dir, list, namespace_entry, alphasort);
}

static void free_dirents(struct dirent **list, int n)
{
	while (n-- > 0)
		free(list[n]);
	free(list);
}

/* The controller named @name in the scan, if there is one. */
static nvme_ctrl_t ctrl_named(nvme_root_t r, const char *name)
{
	nvme_subsystem_t s;
	nvme_host_t h;
	nvme_ctrl_t c;

	nvme_for_each_host(r, h)
		nvme_for_each_subsystem(h, s)
			nvme_subsystem_for_each_ctrl(s, c)
				if (same(nvme_ctrl_get_name(c), name))
					return c;
	return NULL;
}

static struct discovered *disc_get(struct fabric *f, uint32_t portal, uint32_t rail,
				   const struct target *at)
{
	struct discovered *d;
	size_t i;

	for (i = 0; i < f->ndisc; i++)
		if (f->disc[i].portal == portal && f->disc[i].rail == rail &&
		    !strcmp(f->disc[i].traddr, at->traddr) && f->disc[i].trsvcid == at->trsvcid)
			return &f->disc[i];
	d = realloc(f->disc, (f->ndisc + 1) * sizeof(*f->disc));
	if (!d)
		return NULL;
	f->disc = d;
	d = &f->disc[f->ndisc++];
	memset(d, 0, sizeof(*d));
	d->portal = portal;
	d->rail = rail;
	cpy(d->traddr, sizeof(d->traddr), at->traddr);
	d->trsvcid = at->trsvcid;
	d->stale = true;
	return d;
}

/*
 * The discovery controllers gpupathd's portals use, one empty file each
 * under DISC_MARKS, named as the controller. 69-gpupath.rules renames
 * their events (NVME_AEN, NVME_EVENT=rediscover) so that nvme-cli's
 * autoconnect rule leaves them to gpupathd. A mark is made as soon as the
 * portal takes the controller, before its first event can come; marks of
 * controllers no portal uses any more go at the end of each pass
 * (disc_marks_prune()). They stay while gpupathd is stopped or restarts.
 */
static void disc_mark(const char *ctrl)
{
	char path[sizeof(DISC_MARKS) + 40];
	int fd;

	snprintf(path, sizeof(path), DISC_MARKS "/%s", ctrl);
	if (!access(path, F_OK))
		return;
	if ((mkdir("/run/gpupath", 0755) < 0 && errno != EEXIST) ||
	    (mkdir(DISC_MARKS, 0755) < 0 && errno != EEXIST))
		goto fail;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	close(fd);
	return;
fail:
	log_errno(-errno, "cannot mark %s as gpupathd's (%s): nvme-cli's autoconnect may act on its events",
		  ctrl, path);
}

static void disc_marks_prune(const struct fabric *f)
{
	char path[sizeof(DISC_MARKS) + 300];
	struct dirent *e;
	size_t i;
	DIR *dir;

	dir = opendir(DISC_MARKS);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		for (i = 0; i < f->ndisc; i++)
			if (!strcmp(f->disc[i].ctrl, e->d_name))
				break;
		if (i < f->ndisc)
			continue;
		snprintf(path, sizeof(path), DISC_MARKS "/%s", e->d_name);
		if (unlink(path) < 0 && errno != ENOENT)
			log_errno(-errno, "removing %s", path);
	}
	closedir(dir);
}

/*
 * In a discovery child: the log page of @at (referrals followed) through
 * controller @ctrl, or through one it connects when there is none, into
 * @res.
 */
static void disc_child(nvme_root_t r, const struct gpupath_portal *p,
		       const struct gpupath_portal_rail *rail, const struct target *at, int tos,
		       const char *ctrl, struct disc_result *res)
{
	nvme_ctrl_t c = ctrl[0] ? ctrl_named(r, ctrl) : NULL;
	uint64_t gen[2] = { 0, 1 };
	struct discovered *fresh;

	if (!c) {
		c = connect_ctrl(r, p, rail, at, tos);
		if (!c) {
			res->error = errno ? errno : EIO;
			return;
		}
		res->made = true;
	}
	cpy(res->ctrl, sizeof(res->ctrl), nvme_ctrl_get_name(c));
	fresh = calloc(2, sizeof(*fresh));
	/*
	 * Read twice: a page the target changed while it was read is not
	 * taken (read again soon); one that cannot be read leaves the last
	 * one in place.
	 */
	if (fresh && read_log(r, c, p, rail, at, tos, 0, &fresh[0], &gen[0]) &&
	    read_log(r, c, p, rail, at, tos, 0, &fresh[1], &gen[1]) &&
	    gen[0] == gen[1] && fresh[0].n == fresh[1].n &&
	    !memcmp(fresh[0].t, fresh[1].t, fresh[0].n * sizeof(*fresh->t))) {
		memcpy(res->t, fresh->t, fresh->n * sizeof(*res->t));
		res->n = fresh->n;
		res->read = true;
	}
	free(fresh);
}

/*
 * Start a discovery child for @d: connecting its controller, reading its
 * log page. The pass goes on with the last list; the child's result is
 * taken by a later pass (disc_reap()), which its end wakes.
 */
static void disc_start(struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
		       const struct gpupath_portal_rail *rail, const struct target *at, int tos,
		       struct discovered *d, bool *pending)
{
	size_t i, busy = 0;
	pid_t pid;
	int fd = -1;

	/* Announcements by anyone on a rail's LAN start no more than this. */
	for (i = 0; i < f->ndisc; i++)
		busy += f->disc[i].job != 0;
	if (busy >= DISC_JOBS_MAX) {
		*pending = true;
		return;
	}
	pid = child_start(f, &fd);
	if (pid < 0) {
		log_errno(pid, "portal %s rail %u: cannot start discovery at %s:%u", p->name,
			  rail->id, at->traddr, at->trsvcid);
		*pending = true;
		return;
	}
	if (!pid) {
		struct disc_result res = { 0 };

		disc_child(r, p, rail, at, tos, d->ctrl, &res);
		child_end(f, fd, &res, sizeof(res));
	}
	d->job = pid;
	d->job_fd = fd;
}

/* The whole of a child's result from @fd, once it has ended: true. */
static bool read_whole(int fd, void *buf, size_t size)
{
	char *p = buf;
	ssize_t n;

	while (size) {
		n = read(fd, p, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		size -= n;
	}
	return true;
}

/* The name of portal @id in the pass's @portals, for the log. */
static const char *portal_name(const struct gpupath_portal *portals, size_t n, uint32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (portals[i].id == id)
			return portals[i].name;
	return "(deleted)";
}

/*
 * Take what the discovery children that ended found (before the pass's
 * scan, which then finds the controllers they made).
 */
static void disc_reap(struct fabric *f, const struct gpupath_portal *portals, size_t np)
{
	struct disc_result *res = NULL;
	struct discovered *d;
	const char *name;
	pid_t w;
	size_t i;

	for (i = 0; i < f->ndisc; i++) {
		d = &f->disc[i];
		if (!d->job)
			continue;
		w = waitpid(d->job, NULL, WNOHANG);
		if (!w || (w < 0 && errno == EINTR))
			continue;	/* at work still */
		name = portal_name(portals, np, d->portal);
		if (!res)
			res = malloc(sizeof(*res));	/* (a result is a page's worth) */
		if (!res || !read_whole(d->job_fd, res, sizeof(*res))) {
			log_warn("portal %s rail %u: discovery at %s:%u ended without a result",
				 name, d->rail, d->traddr, d->trsvcid);
			d->next_ms = now_ms() + DISCOVERY_EVERY_MS;
		} else if (res->error) {
			log_warn("portal %s rail %u: discovery controller %s:%u: %s; trying again in %u s",
				 name, d->rail, d->traddr, d->trsvcid, strerror(res->error),
				 DISCOVERY_EVERY_MS / 1000);
			d->next_ms = now_ms() + DISCOVERY_EVERY_MS;
		} else {
			if (res->made) {
				d->ours = true;
				log_info("portal %s rail %u: persistent discovery controller %s",
					 name, d->rail, res->ctrl);
			}
			if (!same(d->ctrl, res->ctrl))
				d->stale = true;
			cpy(d->ctrl, sizeof(d->ctrl), res->ctrl);
			disc_mark(d->ctrl);
			if (res->read) {
				memcpy(d->t, res->t, res->n * sizeof(*d->t));
				d->n = res->n;
				d->stale = d->again;
				d->next_ms = 0;
				d->reads++;
				log_info("portal %s rail %u: discovery lists %u subsystem%s (log page %u of %s)",
					 name, d->rail, d->n, d->n == 1 ? "" : "s", d->reads, d->ctrl);
			} else {
				d->next_ms = now_ms() + DISC_RETRY_MS;
			}
		}
		close(d->job_fd);
		d->job = 0;
		d->again = false;
	}
	free(res);
}

/*
 * The subsystems a discovery portal lists on @rail. The rail keeps a
 * persistent discovery controller (one already there, made by hand or by
 * nvme-cli, is used as it is); the log page is read when it is new, when
 * it reconnected, and on its discovery-log-change events: there is no
 * polling while it is live. Without one, a new one is tried every 30 s.
 * Connecting one and reading its log page wait on the network: a child
 * does both (disc_start()), and the last list holds meanwhile.
 */
static const struct discovered *discover(struct fabric *f, nvme_root_t r,
					 const struct gpupath_portal *p,
					 const struct gpupath_portal_rail *rail, const char *traddr,
					 uint32_t trsvcid, bool *pending)
{
	struct target at = { .trsvcid = trsvcid };
	int tos = portal_tos(f, p);
	struct discovered *d;
	nvme_ctrl_t c = NULL;
	const char *state;

	cpy(at.nqn, sizeof(at.nqn), NVME_DISC_SUBSYS_NAME);
	cpy(at.traddr, sizeof(at.traddr), traddr);
	d = disc_get(f, p->id, rail->id, &at);
	if (!d)
		return NULL;
	d->seen = true;
	if (d->job)
		return d;	/* its end wakes a pass */
	if (d->ctrl[0])
		c = ctrl_named(r, d->ctrl);
	if (!c) {
		c = find_ctrl(r, p, rail, &at);
		if (c) {
			/* By hand, by nvme-cli or by a daemon before: left alone. */
			d->ours = false;
			log_info("portal %s rail %u: discovery controller %s adopted", p->name,
				 rail->id, nvme_ctrl_get_name(c));
		}
	}
	if (!c) {
		char iface[IF_NAMESIZE];

		d->ctrl[0] = 0;
		if (rail_iface(rail, iface, sizeof(iface)) && !iface_running(iface)) {
			/* As conn_pass(): the last list holds until the link is back. */
			d->stale = true;
			return d;
		}
		if (now_ms() < d->next_ms) {
			*pending = true;
			return d;
		}
		disc_start(f, r, p, rail, &at, tos, d, pending);
		return d;
	}
	if (!same(d->ctrl, nvme_ctrl_get_name(c)))
		d->stale = true;
	cpy(d->ctrl, sizeof(d->ctrl), nvme_ctrl_get_name(c));
	disc_mark(d->ctrl);
	state = nvme_ctrl_get_state(c);
	if (!state || strcmp(state, "live")) {
		/* The host reconnects it; the log is read again once it is back. */
		d->stale = true;
	} else if (d->stale && now_ms() < d->next_ms) {
		*pending = true;
	} else if (d->stale) {
		disc_start(f, r, p, rail, &at, tos, d, pending);
	}
	return d;
}

bool fabric_discovery_changed(struct fabric *f, const char *ctrl)
{
	bool found = false;
	size_t i;

	for (i = 0; i < f->ndisc; i++) {
		if (strcmp(f->disc[i].ctrl, ctrl))
			continue;
		f->disc[i].stale = true;
		/* A child reading it now may have read it before the change. */
		f->disc[i].again = f->disc[i].job != 0;
		found = true;
	}
	return found;
}

/* Disconnect controller @name, if it is still there and of subsystem @nqn. */
static void disconnect_named(nvme_root_t r, const char *name, const char *nqn, const char *why)
{
	nvme_ctrl_t c = name[0] ? ctrl_named(r, name) : NULL;

	if (!c || !same(nvme_ctrl_get_subsysnqn(c), nqn))
		return;
	log_info("%s: disconnecting %s", why, name);
	changes++;
	if (nvme_disconnect_ctrl(c) < 0)
		log_errno(-errno, "disconnecting %s", name);
}

/* Disconnect discovery controllers gpupathd made and no portal wants now. */
static void disc_prune(struct fabric *f, nvme_root_t r)
{
	size_t i, n = 0;

	for (i = 0; i < f->ndisc; i++) {
		/* (one whose child is at work goes once its result is in) */
		if (f->disc[i].seen || f->disc[i].job)
			f->disc[n++] = f->disc[i];
		else if (f->disc[i].ours)
			disconnect_named(r, f->disc[i].ctrl, NVME_DISC_SUBSYS_NAME,
					 "a discovery controller no portal wants");
	}
	f->ndisc = n;
}

/* ---- connections ------------------------------------------------------- */

/* The connection of portal @p with @key, created when new. */
static struct conn *conn_get(struct fabric *f, const struct gpupath_portal *p,
			     const struct gpupath_portal_conn *key)
{
	struct conn *c, *tmp;
	unsigned int i;

	for (i = 0; i < f->nconns; i++)
		if (f->conns[i].portal == p->id && conn_key(&f->conns[i].rep, key))
			return &f->conns[i];
	tmp = realloc(f->conns, (f->nconns + 1) * sizeof(*f->conns));
	if (!tmp)
		return NULL;
	f->conns = tmp;
	c = &f->conns[f->nconns++];
	memset(c, 0, sizeof(*c));
	c->portal = p->id;
	c->rep = *key;
	c->tos = -1;
	/* Connected by an earlier gpupathd: the module's record says so. */
	for (i = 0; i < p->nconns; i++)
		if (conn_key(&p->conn[i], key) && p->conn[i].state != GPUPATH_CONN_ADOPTED)
			c->ours = p->conn[i].controller[0] != 0;
	return c;
}

static void connected(struct conn *c, const char *ctrl, uint32_t state)
{
	cpy(c->rep.controller, sizeof(c->rep.controller), ctrl);
	c->rep.state = state;
	c->rep.attempts = 0;
	c->rep.error = 0;
	c->rep.retry_ms = 0;
}

/*
 * A controller of @p (of a subsystem, never a discovery controller) takes
 * the secrets its files hold now: one that changed is written to the
 * controller, and the kernel authenticates the live controller again with
 * it (a rotation, with I/O going on), or reconnects with it.
 */
static void rotate_secrets(struct conn *cn, nvme_ctrl_t ctrl, const struct gpupath_portal *p)
{
	static const char *const attr[2] = { "dhchap_secret", "dhchap_ctrl_secret" };
	const char *dir = nvme_ctrl_get_sysfs_dir(ctrl), *file;
	char key[SECRET_LEN], why[160];
	unsigned int i;
	int r;

	for (i = 0; dir && i < 2; i++) {
		file = secret_file(p, i, false);
		if (!file[0])
			continue;
		r = secret_read(file, key, why, sizeof(why));
		if (r) {
			if (cn->auth_said != r)
				log_warn("portal %s: %s keeps its %s secret: %s: %s", p->name,
					 nvme_ctrl_get_name(ctrl), secret_role[i], file, why);
			cn->auth_said = r;
			return;
		}
		r = secret_sysfs_update(dir, attr[i], key);
		secret_wipe(key);
		if (r == 1)
			log_info("portal %s: %s authenticates again with the %s secret of %s",
				 p->name, nvme_ctrl_get_name(ctrl), secret_role[i], file);
		else if (r < 0 && cn->auth_said != r)
			log_warn("portal %s: %s takes no new %s secret (%s)%s", p->name,
				 nvme_ctrl_get_name(ctrl), secret_role[i], strerror(-r),
				 r == -EINVAL ? ": connected without one, it gets it when it is "
				 "connected anew" : "");
		cn->auth_said = r < 0 ? r : 0;
		if (r < 0)
			return;
	}
}

/* @c's attempt failed with @err: the next one backs off further. */
static void conn_failed(struct conn *c, const struct gpupath_portal *p, int err, bool *pending)
{
	uint64_t delay;

	c->rep.error = err ? err : EIO;
	c->rep.attempts++;
	c->rep.controller[0] = 0;
	delay = (uint64_t)p->reconnect_delay * 1000;
	delay <<= c->rep.attempts < 8 ? c->rep.attempts - 1 : 7;
	if (delay > BACKOFF_MAX_MS)
		delay = BACKOFF_MAX_MS;
	c->next_ms = now_ms() + delay;
	c->rep.state = GPUPATH_CONN_BACKOFF;
	c->rep.retry_ms = delay;
	*pending = true;
	log_warn("portal %s rail %u: connecting %s %s:%u failed (attempt %u): %s; next in %.1fs",
		 p->name, c->rep.rail, c->rep.subsysnqn, c->rep.traddr, c->rep.trsvcid,
		 c->rep.attempts, strerror(c->rep.error), delay / 1e3);
}

/* Bring one wanted connection about, or note when to try again. */
static void conn_pass(struct fabric *f, struct conn *c, nvme_root_t r,
		      const struct gpupath_portal *p, const struct gpupath_portal_rail *rail,
		      const struct target *t, int tos, bool *pending)
{
	const char *state;
	nvme_ctrl_t ctrl;
	int err;

	/* Its controller may show already: it is taken once the child is done. */
	if (job_of(f, p->id, &c->rep)) {
		c->rep.state = GPUPATH_CONN_CONNECTING;
		return;
	}
	ctrl = find_ctrl(r, p, rail, t);
	if (ctrl) {
		state = nvme_ctrl_get_state(ctrl);
		if (state && !strcmp(state, "live")) {
			if (c->rep.state != GPUPATH_CONN_LIVE && c->rep.state != GPUPATH_CONN_ADOPTED)
				log_info("portal %s rail %u: %s %s live (%s)", p->name, rail->id,
					 t->nqn, c->ours ? "is" : "adopted,",
					 nvme_ctrl_get_name(ctrl));
			connected(c, nvme_ctrl_get_name(ctrl), c->ours ? GPUPATH_CONN_LIVE : GPUPATH_CONN_ADOPTED);
		} else {
			/* The host reconnects it (ctrl_loss_tmo): leave it be. */
			if (c->rep.state != GPUPATH_CONN_RECONNECTING)
				log_info("portal %s rail %u: %s is %s, the host reconnects it",
					 p->name, rail->id, nvme_ctrl_get_name(ctrl),
					 state ? state : "unknown");
			connected(c, nvme_ctrl_get_name(ctrl), GPUPATH_CONN_RECONNECTING);
		}
		/* Live or reconnecting, it takes the secrets the files hold now. */
		if (p->secret_file[0])
			rotate_secrets(c, ctrl, p);
		return;
	}
	if (c->iface[0] && !iface_running(c->iface)) {
		/*
		 * No carrier: an attempt could only time out, holding up every
		 * other connection. The link's return brings a pass.
		 */
		if (c->rep.error != ENETDOWN)
			log_info("portal %s rail %u: %s waits for %s's link", p->name, rail->id,
				 t->nqn, c->iface);
		c->rep.state = GPUPATH_CONN_BACKOFF;
		c->rep.error = ENETDOWN;
		c->rep.retry_ms = 0;
		c->rep.controller[0] = 0;
		return;
	}
	if (now_ms() < c->next_ms || f->njobs == CONNECTS_MAX) {
		*pending = true;
		return;
	}
	log_info("portal %s rail %u: connecting %s %s:%u%s%s (attempt %u)", p->name, rail->id,
		 t->nqn, t->traddr, t->trsvcid, rail->iface[0] ? " from " : "", rail->iface,
		 c->rep.attempts + 1);
	err = connect_start(f, r, c, p, rail, t, tos);
	if (err) {
		conn_failed(c, p, -err, pending);
		return;
	}
	c->rep.state = GPUPATH_CONN_CONNECTING;
	c->rep.controller[0] = 0;
}

/*
 * Take the results of the connects that ended (before the pass's scan, which
 * then finds their controllers). A controller whose connection is no longer
 * wanted (its portal deleted, its subsystem no longer listed) is put in
 * @unwanted, to be disconnected.
 */
static void connects_reap(struct fabric *f, const struct gpupath_portal *portals, size_t n,
			  struct gpupath_portal_conn *unwanted, size_t *nunwanted, bool *pending)
{
	struct connect_result res;
	struct connect_job *j;
	struct conn *c;
	size_t i, k, m;
	ssize_t len;

	for (i = 0; i < f->njobs;) {
		j = &f->jobs[i];
		len = read(j->fd, &res, sizeof(res));
		if (len < 0 && errno == EAGAIN) {
			i++;
			continue;
		}
		if (len != sizeof(res)) {
			memset(&res, 0, sizeof(res));
			res.error = EIO;	/* the child died */
		}
		close(j->fd);
		while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
			;
		for (k = 0; k < n && portals[k].id != j->portal; k++)
			;
		c = NULL;
		for (m = 0; k < n && m < f->nconns; m++)
			if (f->conns[m].portal == j->portal && conn_key(&f->conns[m].rep, &j->key))
				c = &f->conns[m];
		if (!c) {
			if (!res.error) {
				unwanted[*nunwanted] = j->key;
				cpy(unwanted[(*nunwanted)++].controller,
				    sizeof(unwanted->controller), res.ctrl);
			}
		} else if (res.error) {
			conn_failed(c, &portals[k], res.error, pending);
		} else {
			c->ours = true;
			c->tos = j->tos;
			connected(c, res.ctrl, GPUPATH_CONN_LIVE);
			changes++;
			log_info("portal %s rail %u: connected %s as %s", portals[k].name,
				 c->rep.rail, c->rep.subsysnqn, res.ctrl);
		}
		f->jobs[i] = f->jobs[--f->njobs];
	}
}

static bool conn_equal(const struct gpupath_portal_conn *a, const struct gpupath_portal_conn *b)
{
	return conn_key(a, b) && a->state == b->state && a->attempts == b->attempts &&
	       a->error == b->error && a->retry_ms == b->retry_ms &&
	       !strcmp(a->controller, b->controller);
}

/* Report @p's connections to the module when they changed. */
static void report(struct fabric *f, struct gpupath_ctl *ctl, const struct gpupath_portal *p)
{
	struct gpupath_portal_conf conf = { .set = GPUPATH_PORTAL_SET_CONNS };
	struct gpupath_portal_conn *reps;
	bool changed;
	size_t i;
	int r;

	reps = calloc(GPUPATH_PORTAL_CONNS_MAX, sizeof(*reps));
	if (!reps)
		return;
	for (i = 0; i < f->nconns; i++) {
		if (f->conns[i].portal != p->id || !f->conns[i].seen)
			continue;
		if (conf.nconns < GPUPATH_PORTAL_CONNS_MAX)
			reps[conf.nconns] = f->conns[i].rep;
		conf.nconns++;
	}
	if (conf.nconns > GPUPATH_PORTAL_CONNS_MAX) {
		/* made and kept all the same; only the report is short (said once) */
		if (p->nconns < GPUPATH_PORTAL_CONNS_MAX)
			log_warn("portal %s: %u connections, only the first %u shown (use a portal per rail)",
				 p->name, conf.nconns, GPUPATH_PORTAL_CONNS_MAX);
		conf.nconns = GPUPATH_PORTAL_CONNS_MAX;
	}
	changed = conf.nconns != p->nconns;
	for (i = 0; !changed && i < conf.nconns; i++)
		changed = !conn_equal(&reps[i], &p->conn[i]);
	conf.conn = reps;
	if (changed) {
		r = gpupath_ctl_portal_set(ctl, p->id, NULL, &conf);
		if (r < 0)
			log_errno(r, "portal %s: reporting connections", p->name);
	}
	free(reps);
}

/* ---- volumes and paths ------------------------------------------------- */

/* The namespace's wwid from sysfs, "" when it has none. */
static void wwid_of(const char *disk, char *buf, size_t size)
{
	char dir[128];

	snprintf(dir, sizeof(dir), "/sys/block/%s", disk);
	if (gpupath_sysfs_read(dir, "wwid", buf, size) < 0)
		buf[0] = 0;
}

static struct gpupath_volume *volume_by_wwid(struct gpupath_volume *v, size_t n,
					     const char *wwid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].wwid, wwid))
			return &v[i];
	return NULL;
}

static bool is_path(struct gpupath_volume *v, size_t n, const char *disk)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < v[i].npaths; j++)
			if (!strcmp(v[i].path[j].device, disk))
				return true;
	return false;
}

/* A namespace of a wanted controller: into a volume, as a path. */
static void assemble_ns(struct gpupath_ctl *ctl, struct gpupath_volume **vols, size_t *nvols,
			const char *disk, const struct conn *c)
{
	struct gpupath_path_conf pconf = { .set = GPUPATH_PATH_SET_RAIL, .rail = c->rep.rail };
	struct gpupath_volume_conf vconf = { 0 };
	struct gpupath_volume *vol, *tmp;
	struct gpupath_path path;
	char wwid[256], dev[64];
	int r;

	if (is_path(*vols, *nvols, disk))
		return;
	if (c->iface[0]) {
		pconf.set |= GPUPATH_PATH_SET_LINK;
		pconf.link = iface_running(c->iface) ? GPUPATH_LINK_UP : GPUPATH_LINK_DOWN;
	}
	wwid_of(disk, wwid, sizeof(wwid));
	if (!wwid[0])
		return;
	vol = volume_by_wwid(*vols, *nvols, wwid);
	if (!vol) {
		tmp = realloc(*vols, (*nvols + 1) * sizeof(**vols));
		if (!tmp)
			return;
		*vols = tmp;
		vconf.wwid = wwid;
		r = gpupath_ctl_volume_add(ctl, &vconf, &(*vols)[*nvols], sizeof(**vols));
		if (r < 0) {
			log_errno_why(r, gpupath_ctl_errmsg(ctl), "volume for %s (%s)", disk, wwid);
			return;
		}
		vol = &(*vols)[(*nvols)++];
		log_info("volume %s for %s", vol->name, wwid);
	}
	snprintf(dev, sizeof(dev), "/dev/%s", disk);
	r = gpupath_ctl_path_add(ctl, vol->id, dev, &pconf, &path, sizeof(path));
	if (r < 0) {
		log_errno_why(r, gpupath_ctl_errmsg(ctl), "path %s of %s", disk, vol->name);
		return;
	}
	log_info("path %u: %s into %s (rail %u)", path.id, disk, vol->name, c->rep.rail);
	if (vol->npaths < GPUPATH_VOLUME_PATHS_MAX)
		vol->path[vol->npaths++] = path;
}

/*
 * Whether a path's block device is still the one it was added as: the disk
 * exists, under the same controller. The module cannot always tell (no I/O,
 * no error): a deleted controller's disk just vanishes.
 */
static bool path_present(const struct gpupath_path *p)
{
	char link[128], target[256];
	const char *ctrl;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/block/%s/device", p->device);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = 0;
	ctrl = strrchr(target, '/');
	return !p->controller[0] || !strcmp(ctrl ? ctrl + 1 : target, p->controller);
}

/* Paths whose device was deleted: removed (a reconnect brings a new one). */
static void remove_gone(struct gpupath_ctl *ctl, struct gpupath_volume *vols, size_t n)
{
	struct gpupath_path *p;
	size_t i, j;
	int r;

	for (i = 0; i < n; i++) {
		for (j = 0; j < vols[i].npaths; j++) {
			p = &vols[i].path[j];
			if (p->health != GPUPATH_HEALTH_GONE && path_present(p))
				continue;
			r = gpupath_ctl_path_del(ctl, p->id);
			if (r < 0) {
				log_errno(r, "removing gone path %u (%s)", p->id, p->device);
				continue;
			}
			log_info("path %u: %s (%s) is gone, removed from %s", p->id, p->device,
				 p->controller, vols[i].name);
			p->device[0] = 0;	/* the name may be a new disk's */
		}
	}
}

/* The connection whose controller is @ctrl, if gpupathd wants it. */
static struct conn *conn_of_ctrl(struct fabric *f, const char *ctrl)
{
	size_t i;

	for (i = 0; i < f->nconns; i++)
		if (f->conns[i].seen && ctrl[0] && !strcmp(f->conns[i].rep.controller, ctrl))
			return &f->conns[i];
	return NULL;
}

/* Set @p's link, when it differs; logs it. */
static void set_link(struct gpupath_ctl *ctl, const struct gpupath_path *p, const char *iface,
		     uint32_t link)
{
	struct gpupath_path_conf conf = { .set = GPUPATH_PATH_SET_LINK, .link = link };
	int r;

	if (p->link == link)
		return;
	r = gpupath_ctl_path_set(ctl, p->id, &conf);
	if (r < 0)
		log_errno(r, "path %u (%s): setting link %s", p->id, p->device,
			  gpupath_path_link_name(link));
	else	/* with the monotonic time: how fast it was can be measured */
		log_info("path %u (%s): link %s (%s) at %.3f s", p->id, p->device,
			 gpupath_path_link_name(link), iface, now_ms() / 1e3);
}

/* Every path of a wanted connection: its link as its interface is now. */
static void sync_links(struct fabric *f, struct gpupath_ctl *ctl, struct gpupath_volume *vols,
		       size_t n)
{
	const struct gpupath_path *p;
	struct conn *c;
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < vols[i].npaths; j++) {
			p = &vols[i].path[j];
			c = conn_of_ctrl(f, p->controller);
			if (!p->device[0] || !c || !c->iface[0])
				continue;
			set_link(ctl, p, c->iface, iface_running(c->iface) ? GPUPATH_LINK_UP :
					 GPUPATH_LINK_DOWN);
		}
	}
}

bool fabric_link(struct fabric *f, struct gpupath_ctl *ctl, const char *ifname, bool up)
{
	struct gpupath_volume *vols;
	const struct gpupath_path *p;
	struct conn *c;
	size_t n, i, j;
	int r;

	link_note(ifname, up);
	for (i = 0; i < f->nconns; i++)
		if (f->conns[i].seen && !strcmp(f->conns[i].iface, ifname))
			break;
	if (i == f->nconns)
		return false;	/* no rail of ours */
	log_debug("rail interface %s: link %s at %.3f s", ifname, up ? "up" : "down",
		  now_ms() / 1e3);
	r = gpupath_ctl_volume_list(ctl, &vols, sizeof(*vols), &n);
	if (r < 0) {
		log_errno(r, "reading volumes");
		return true;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < vols[i].npaths; j++) {
			p = &vols[i].path[j];
			c = conn_of_ctrl(f, p->controller);
			if (c && !strcmp(c->iface, ifname))
				set_link(ctl, p, ifname, up ? GPUPATH_LINK_UP : GPUPATH_LINK_DOWN);
		}
	}
	free(vols);
	return true;
}

static void assemble(struct fabric *f, struct gpupath_ctl *ctl, nvme_root_t r)
{
	struct gpupath_volume *vols;
	nvme_subsystem_t s;
	nvme_host_t h;
	nvme_ctrl_t c;
	struct dirent **ns;
	size_t nvols, i;
	int ret, k, nns;
	char disk[32];

	ret = gpupath_ctl_volume_list(ctl, &vols, sizeof(*vols), &nvols);
	if (ret < 0) {
		log_errno(ret, "reading volumes");
		return;
	}
	remove_gone(ctl, vols, nvols);
	sync_links(f, ctl, vols, nvols);
	nvme_for_each_host(r, h) {
		nvme_for_each_subsystem(h, s) {
			nvme_subsystem_for_each_ctrl(s, c) {
				for (i = 0; i < f->nconns; i++) {
					if (!f->conns[i].seen || !nvme_ctrl_get_name(c) ||
					    !same(f->conns[i].rep.controller,
						  nvme_ctrl_get_name(c)))
						continue;
					nns = ctrl_namespaces(nvme_ctrl_get_name(c), &ns);
					for (k = 0; k < nns; k++) {
						/* (names as "nvme123c45n678") */
						snprintf(disk, sizeof(disk), "%.31s",
							 ns[k]->d_name);
						assemble_ns(ctl, &vols, &nvols, disk,
							    &f->conns[i]);
					}
					if (nns > 0)
						free_dirents(ns, nns);
				}
			}
		}
	}
	free(vols);
}

/* ---- QoS ---------------------------------------------------------------- */

/* The RDMA device whose port 1 sits on netdev @iface, into @ibdev. */
static bool ibdev_of(const char *iface, char *ibdev, size_t size)
{
	char path[320], ndev[IF_NAMESIZE + 2];
	struct dirent *de;
	bool found = false;
	FILE *fp;
	DIR *dir;

	dir = opendir("/sys/class/infiniband");
	if (!dir)
		return false;
	while (!found && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0",
			 de->d_name);
		fp = fopen(path, "re");
		if (!fp)
			continue;
		if (fgets(ndev, sizeof(ndev), fp) && !strcmp(strtok(ndev, "\n") ?: "", iface)) {
			cpy(ibdev, size, de->d_name);
			found = true;
		}
		fclose(fp);
	}
	closedir(dir);
	return found;
}

/*
 * rdma_cm's default ToS for RoCE connections on @ibdev port 1 (the
 * rdma_cm configfs), set to @tos and read back into @a.
 */
static void set_roce_tos(const char *ibdev, int tos, struct ledger *l,
			 struct gpupath_qos_applied *a)
{
	char dir[200], file[260], buf[16];
	int fd, before = -1;
	ssize_t n;

	cpy(a->device, sizeof(a->device), ibdev);
	cpy(a->setting, sizeof(a->setting), "default_roce_tos");
	snprintf(dir, sizeof(dir), "/sys/kernel/config/rdma_cm/%s", ibdev);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		a->result = errno == ENOENT ? GPUPATH_APPLIED_UNSUPPORTED : GPUPATH_APPLIED_FAILED;
		a->error = errno;
		return;
	}
	snprintf(file, sizeof(file), "%s/ports/1/default_roce_tos", dir);
	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		before = atoi(buf);
	}
	snprintf(buf, sizeof(buf), "%d", tos);
	if (fd < 0 || before < 0 || lseek(fd, 0, SEEK_SET) < 0 ||
	    (before != tos && write(fd, buf, strlen(buf)) < 0) || lseek(fd, 0, SEEK_SET) < 0 ||
	    (n = read(fd, buf, sizeof(buf) - 1)) <= 0) {
		a->result = GPUPATH_APPLIED_FAILED;
		a->error = errno ? errno : EIO;
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	buf[n] = 0;
	a->value = strtoul(buf, NULL, 10);
	a->result = (int)a->value == tos ? GPUPATH_APPLIED_OK : GPUPATH_APPLIED_FAILED;
	a->error = a->result == GPUPATH_APPLIED_OK ? 0 : EIO;
	if (a->result == GPUPATH_APPLIED_OK)
		ledger_want(l, ibdev, MARK_ROCE_TOS, 0, before, before != tos);
}

/* Put rdma_cm's default RoCE ToS of @ibdev port 1 back to @tos. */
static int reset_roce_tos(const char *ibdev, int tos)
{
	char file[260], buf[16];
	int fd, r = 0;

	snprintf(file, sizeof(file), "/sys/kernel/config/rdma_cm/%s/ports/1/default_roce_tos",
		 ibdev);
	snprintf(buf, sizeof(buf), "%d", tos);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, strlen(buf)) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	return r;
}

/* Take back @m, one setting gpupathd made (dcb_undo's results). */
static int qos_undo(const struct mark *m)
{
	return m->kind == MARK_ROCE_TOS ? reset_roce_tos(m->device, m->before) : dcb_undo(m);
}

/*
 * What the classes set and no class wants now (a class changed or deleted,
 * a portal that no longer names it): taken back, exactly that.
 */
static void converge_qos(struct fabric *f, size_t marks)
{
	struct mark *undo;
	size_t n, i;
	int r;

	if (ledger_unwanted(&f->ledger, &undo, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		const struct mark *m = &undo[i];

		r = qos_undo(m);
		if (!ledger_undo_done(r)) {
			log_errno(r, "QoS: taking back %s %s %u (tried again next pass)", m->device,
				  ledger_kind_name(m->kind), m->key);
			ledger_put_back(&f->ledger, m);
			continue;
		}
		log_info("QoS: %s %s %u %s", m->device, ledger_kind_name(m->kind), m->key,
			 r == -ESTALE ? "left as others changed it" :
			 r < 0 ? "taken back (the device is gone)" : "taken back");
	}
	free(undo);
	if (!n && f->ledger.n == marks)
		return;
	r = ledger_save(&f->ledger, QOS_LEDGER);
	if (r < 0)
		log_errno(r, "writing %s", QOS_LEDGER);
}

/* @m in words: "eth1: pfc on priority 3". */
static void mark_text(char *buf, size_t size, const struct mark *m)
{
	const char *kind = ledger_kind_name(m->kind);

	switch (m->kind) {
	case MARK_APP_DSCP:
		snprintf(buf, size, "%s: %s %u -> priority %u", m->device, kind, m->key >> 8,
			 m->key & 7);
		break;
	case MARK_PFC:
		snprintf(buf, size, "%s: %s on priority %u", m->device, kind, m->key);
		break;
	case MARK_ECN_NP:
	case MARK_ECN_RP:
		snprintf(buf, size, "%s: %s on priority %u (%d before)", m->device, kind, m->key,
			 m->before);
		break;
	case MARK_ROCE_TOS:
		snprintf(buf, size, "%s: %s of port 1 (%d before)", m->device, kind, m->before);
		break;
	default:
		snprintf(buf, size, "%s: %s (gpupathd's shares)", m->device, kind);
		break;
	}
}

/* One line of gpupathd --release-qos for @m, taken back or not (@r). */
static void release_report(const struct mark *m, int r, void *arg)
{
	char what[128];

	(void)arg;
	mark_text(what, sizeof(what), m);
	if (ledger_undo_done(r))
		printf("%s: %s\n", what, r == -ESTALE ? "left as others changed it since" :
		       r < 0 ? "taken back (the device is gone)" : "taken back");
	else
		printf("%s: NOT taken back: %s\n", what, strerror(-r));
}

int fabric_release_qos(void)
{
	struct ledger l;
	pid_t holder = 0;
	char what[128];
	size_t i;
	int r;

	r = ledger_release(QOS_LEDGER, qos_undo, release_report, NULL, &holder);
	if (r == -EBUSY) {
		fprintf(stderr, "gpupathd: gpupathd (pid %d) runs and would set the QoS settings "
			"again: nothing is taken back; stop it first\n", (int)holder);
		r = ledger_load(&l, QOS_LEDGER);
		for (i = 0; !r && i < l.n; i++) {
			mark_text(what, sizeof(what), &l.m[i]);
			printf("%s: NOT taken back: gpupathd runs\n", what);
		}
		r = r ? r : (int)l.n;
		ledger_free(&l);
		if (r <= 0)
			return -EBUSY;
	} else if (r < 0) {
		fprintf(stderr, "gpupathd: taking back what %s holds: %s\n", QOS_LEDGER,
			strerror(-r));
		return r;
	}
	if (r)
		printf("QoS settings gpupathd made and not taken back are in %s "
		       "(\"KIND DEVICE KEY BEFORE\" a line)\n", QOS_LEDGER);
	else
		printf("no QoS setting of gpupathd's is left on the host's devices\n");
	return r;
}

int fabric_lock(pid_t *holder)
{
	return ledger_lock(QOS_LEDGER, true, holder);
}

static bool applied_equal(const struct gpupath_qos *q, const struct gpupath_qos_applied *a,
			  unsigned int n)
{
	unsigned int i;

	if (q->napplied != n)
		return false;
	for (i = 0; i < n; i++)
		if (strcmp(q->applied[i].device, a[i].device) ||
		    strcmp(q->applied[i].setting, a[i].setting) ||
		    q->applied[i].result != a[i].result || q->applied[i].error != a[i].error ||
		    q->applied[i].value != a[i].value)
			return false;
	return true;
}

/* The classes whose portals connect from @iface (at most @max). */
static unsigned int classes_on(const struct fabric *f, const char *iface,
			       const struct gpupath_portal *portals, size_t nportals,
			       const struct gpupath_qos **out, unsigned int max)
{
	char name[IF_NAMESIZE];
	unsigned int n = 0, r;
	size_t c, j;

	for (c = 0; c < f->nqos && n < max; c++) {
		bool used = false;

		for (j = 0; j < nportals && !used; j++) {
			if (strcmp(portals[j].qos, f->qos[c].name))
				continue;
			for (r = 0; r < portals[j].nrails && !used; r++)
				used = rail_iface(&portals[j].rail[r], name, sizeof(name)) &&
				       !strcmp(name, iface);
		}
		if (used)
			out[n++] = &f->qos[c];
	}
	return n;
}

/* Whether @device already has entries among the first @n of @a. */
static bool reported(const struct gpupath_qos_applied *a, unsigned int n, const char *device)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (!strcmp(a[k].device, device))
			return true;
	return false;
}

/* Apply class @q to what its portals use, and report each setting. */
static void apply_qos(struct fabric *f, struct gpupath_ctl *ctl, struct gpupath_qos *q,
		      const struct gpupath_portal *portals, size_t nportals)
{
	struct gpupath_qos_conf conf = { .set = GPUPATH_QOS_SET_APPLIED };
	struct gpupath_qos_applied *a;
	char ibdev[64];
	unsigned int n = 0, k;
	size_t i, j;
	int r;

	a = calloc(GPUPATH_QOS_APPLIED_MAX, sizeof(*a));
	if (!a)
		return;
	/* The connections made with the class's ToS (the host driver took it). */
	for (i = 0; i < f->nconns && n < GPUPATH_QOS_APPLIED_MAX; i++) {
		const struct conn *c = &f->conns[i];

		for (j = 0; j < nportals; j++)
			if (portals[j].id == c->portal && !strcmp(portals[j].qos, q->name))
				break;
		if (j == nportals || !c->seen || !c->rep.controller[0] || c->tos < 0)
			continue;
		cpy(a[n].device, sizeof(a[n].device), c->rep.controller);
		cpy(a[n].setting, sizeof(a[n].setting), "tos");
		a[n].value = c->tos;
		a[n].result = c->tos == (int)q->dscp << 2 ? GPUPATH_APPLIED_OK :
			      GPUPATH_APPLIED_FAILED;	/* connected before a change */
		n++;
	}
	/*
	 * On every rail's interface (once, however many portals use it): DCB
	 * and, for RDMA, the vendor ECN knobs and rdma_cm's default ToS on its
	 * RDMA device.
	 */
	for (j = 0; j < nportals; j++) {
		const struct gpupath_portal *p = &portals[j];
		bool rdma = p->transport == GPUPATH_TRANSPORT_RDMA;

		if (strcmp(p->qos, q->name))
			continue;
		for (i = 0; i < p->nrails && n < GPUPATH_QOS_APPLIED_MAX; i++) {
			const struct gpupath_qos *classes[GPUPATH_QOS_APPLIED_MAX];
			char iface[IF_NAMESIZE];
			unsigned int nc;

			if (!rail_iface(&p->rail[i], iface, sizeof(iface)) || reported(a, n, iface))
				continue;	/* one interface, several portals */
			nc = classes_on(f, iface, portals, nportals, classes,
					GPUPATH_QOS_APPLIED_MAX);
			n += dcb_apply(iface, q, classes, nc, &f->ledger, a + n,
				       GPUPATH_QOS_APPLIED_MAX - n);
			if (!rdma)
				continue;
			n += ecn_apply(iface, q->priority, &f->ledger, a + n,
				       GPUPATH_QOS_APPLIED_MAX - n);
			if (!ibdev_of(iface, ibdev, sizeof(ibdev)) || reported(a, n, ibdev) ||
			    n == GPUPATH_QOS_APPLIED_MAX)
				continue;
			set_roce_tos(ibdev, q->dscp << 2, &f->ledger, &a[n++]);
		}
	}
	if (!applied_equal(q, a, n)) {
		conf.napplied = n;
		conf.applied = a;
		r = gpupath_ctl_qos_set(ctl, q->name, &conf);
		if (r < 0)
			log_errno(r, "QoS class %s: reporting", q->name);
		for (k = 0; k < n; k++)
			log_info("QoS class %s: %s %s %s (%u)%s%s", q->name, a[k].device,
				 a[k].setting, gpupath_applied_name(a[k].result), a[k].value,
				 a[k].error ? ": " : "", a[k].error ? strerror(a[k].error) : "");
	}
	free(a);
}

/* ---- passes ------------------------------------------------------------ */

/* @d's subsystems added to the @nt of @t (each once); the new count. */
static unsigned int add_targets(struct target *t, unsigned int nt, const struct discovered *d)
{
	unsigned int j, k;

	for (j = 0; d && j < d->n && nt < TARGETS_MAX; j++) {
		for (k = 0; k < nt; k++)
			if (!strcmp(t[k].nqn, d->t[j].nqn) && !strcmp(t[k].traddr, d->t[j].traddr) &&
			    t[k].trsvcid == d->t[j].trsvcid)
				break;
		if (k == nt)
			t[nt++] = d->t[j];
	}
	return nt;
}

/* The @nt subsystems of @t, each connected from @rail. */
static void rail_pass(struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
		      const struct gpupath_portal_rail *rail, const struct target *t,
		      unsigned int nt, bool *pending)
{
	struct gpupath_portal_conn key;
	struct conn *c;
	unsigned int j;

	for (j = 0; j < nt; j++) {
		memset(&key, 0, sizeof(key));
		key.rail = rail->id;
		cpy(key.subsysnqn, sizeof(key.subsysnqn), t[j].nqn);
		cpy(key.traddr, sizeof(key.traddr), t[j].traddr);
		key.trsvcid = t[j].trsvcid;
		c = conn_get(f, p, &key);
		if (!c)
			continue;
		c->seen = true;
		rail_iface(rail, c->iface, sizeof(c->iface));
		conn_pass(f, c, r, p, rail, &t[j], portal_tos(f, p), pending);
	}
}

/*
 * A portal that discovers by mDNS: on each rail, the discovery controllers
 * announced on its interface whose address is on its subnet, and what they
 * list, connected from that rail only.
 */
static void mdns_pass(struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
		      bool *pending)
{
	struct mdns_service svc[TARGETS_MAX];
	char iface[IF_NAMESIZE];
	struct target t[TARGETS_MAX];
	unsigned int i, nt;
	size_t n, k;

	for (i = 0; i < p->nrails; i++) {
		nt = 0;
		if (f->mdns && rail_iface(&p->rail[i], iface, sizeof(iface))) {
			n = mdns_services(f->mdns, iface, p->transport, svc, TARGETS_MAX);
			for (k = 0; k < n && k < TARGETS_MAX; k++) {
				if (!iface_subnet_has(iface, svc[k].traddr)) {
					log_debug("portal %s rail %u: mDNS %s at %s is not on %s's subnet",
						  p->name, p->rail[i].id, svc[k].name, svc[k].traddr,
						  iface);
					continue;
				}
				nt = add_targets(t, nt, discover(f, r, p, &p->rail[i], svc[k].traddr,
								 svc[k].trsvcid, pending));
			}
		}
		rail_pass(f, r, p, &p->rail[i], t, nt, pending);
	}
}

static void portal_pass(struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
			bool *pending)
{
	static const struct gpupath_portal_rail none = { 0 };
	const struct gpupath_portal_rail *rails = p->nrails ? p->rail : &none;
	unsigned int nrails = p->nrails ? p->nrails : 1, i, nt = 0;
	struct target t[TARGETS_MAX];

	if (p->discover == GPUPATH_DISCOVER_MDNS) {
		mdns_pass(f, r, p, pending);
		return;
	}
	if (p->discovery) {
		/* What any rail's discovery controller lists, once. */
		for (i = 0; i < nrails; i++)
			nt = add_targets(t, nt, discover(f, r, p, &rails[i], p->traddr, p->trsvcid,
							 pending));
	} else {
		cpy(t[0].nqn, sizeof(t[0].nqn), p->subsysnqn);
		cpy(t[0].traddr, sizeof(t[0].traddr), p->traddr);
		t[0].trsvcid = p->trsvcid;
		nt = 1;
	}
	for (i = 0; i < nrails; i++)
		rail_pass(f, r, p, &rails[i], t, nt, pending);
}

/*
 * Forget connections of portals that are gone or no longer want them. A
 * subsystem a discovery portal no longer lists is given up: the controller
 * gpupathd made for it is disconnected (a portal deleted is the
 * notification's: fabric_portal_gone()).
 */
static void prune(struct fabric *f, nvme_root_t r, const struct gpupath_portal *portals,
		  size_t nportals)
{
	char why[GPUPATH_NAME_LEN + GPUPATH_NQN_LEN + 32];
	size_t i, j, n = 0;

	for (i = 0; i < f->nconns; i++) {
		struct conn *cn = &f->conns[i];

		if (cn->seen) {
			f->conns[n++] = *cn;
			continue;
		}
		for (j = 0; j < nportals; j++)
			if (portals[j].id == cn->portal)
				break;
		if (j == nportals || !portals[j].discovery || !cn->ours)
			continue;
		snprintf(why, sizeof(why), "portal %s: %s is no longer listed", portals[j].name,
			 cn->rep.subsysnqn);
		disconnect_named(r, cn->rep.controller, cn->rep.subsysnqn, why);
	}
	f->nconns = n;
}

void fabric_set_mdns(struct fabric *f, struct mdns *m)
{
	f->mdns = m;
}

/* mDNS browsers on the rails of the portals that discover by mDNS, only. */
static void mdns_want(struct fabric *f, const struct gpupath_portal *portals, size_t n)
{
	char names[BROWSE_MAX][IF_NAMESIZE];
	const char *ifaces[BROWSE_MAX];
	size_t i, k = 0;
	unsigned int j;

	if (!f->mdns)
		return;
	for (i = 0; i < n; i++) {
		if (portals[i].discover != GPUPATH_DISCOVER_MDNS)
			continue;
		for (j = 0; j < portals[i].nrails && k < BROWSE_MAX; j++)
			if (rail_iface(&portals[i].rail[j], names[k], sizeof(names[k]))) {
				ifaces[k] = names[k];
				k++;
			}
	}
	mdns_watch(f->mdns, ifaces, k);
}

bool fabric_reconcile(struct fabric *f, struct gpupath_ctl *ctl)
{
	struct gpupath_portal_conn unwanted[CONNECTS_MAX];
	size_t nunwanted = 0;
	unsigned long changes0;
	struct gpupath_portal *portals;
	bool pending = false, qos_read;
	size_t n, i, marks;
	uint64_t t[7];
	nvme_root_t r;
	int ret;

	/* Where a pass's time goes, for the debug log. */
	t[0] = now_ms();
	ret = gpupath_ctl_portal_list(ctl, &portals, sizeof(*portals), &n);
	if (ret < 0) {
		log_errno(ret, "reading portals");
		return true;
	}
	free(f->qos);
	f->qos = NULL;
	f->nqos = 0;
	ret = gpupath_ctl_qos_list(ctl, &f->qos, sizeof(*f->qos), &f->nqos);
	qos_read = ret >= 0;
	if (!qos_read)
		log_errno(ret, "reading QoS classes");
	links_read();
	changes0 = changes;
	t[1] = now_ms();
	connects_reap(f, portals, n, unwanted, &nunwanted, &pending);
	disc_reap(f, portals, n);
	t[2] = now_ms();
	r = scan();
	t[3] = now_ms();
	progress(f);
	if (!r) {
		log_errno(-errno, "scanning NVMe controllers");
		free(portals);
		return true;
	}
	for (i = 0; i < nunwanted; i++)
		disconnect_named(r, unwanted[i].controller, unwanted[i].subsysnqn,
				 "connected for a connection no longer wanted");
	for (i = 0; i < f->nconns; i++)
		f->conns[i].seen = false;
	for (i = 0; i < f->ndisc; i++)
		f->disc[i].seen = false;
	mdns_want(f, portals, n);
	for (i = 0; i < n; i++)
		portal_pass(f, r, &portals[i], &pending);
	prune(f, r, portals, n);
	disc_prune(f, r);
	disc_marks_prune(f);
	for (i = 0; i < n; i++)
		report(f, ctl, &portals[i]);
	t[4] = now_ms();
	progress(f);
	/* A pass that could not read the classes takes nothing back. */
	ledger_begin(&f->ledger);
	marks = f->ledger.n;
	for (i = 0; i < f->nqos; i++)
		apply_qos(f, ctl, &f->qos[i], portals, n);
	if (qos_read)
		converge_qos(f, marks);
	/* New controllers' namespaces show up in a new scan. */
	t[5] = now_ms();
	if (changes != changes0) {
		nvme_free_tree(r);
		r = scan();
	}
	t[6] = now_ms();
	progress(f);
	if (r) {
		assemble(f, ctl, r);
		nvme_free_tree(r);
	}
	log_debug("pass: lists %llu, reap %llu, scan %llu, portals %llu, qos %llu, rescan %llu, assemble %llu ms",
		  (unsigned long long)(t[1] - t[0]), (unsigned long long)(t[2] - t[1]),
		  (unsigned long long)(t[3] - t[2]), (unsigned long long)(t[4] - t[3]),
		  (unsigned long long)(t[5] - t[4]), (unsigned long long)(t[6] - t[5]),
		  (unsigned long long)(now_ms() - t[6]));
	free(portals);
	return pending;
}

/*
 * Portal @portal was deleted: the controllers made for it go. The module's
 * notification lists the connections it was told of; a connect whose
 * result came in after the last report is known to gpupathd alone, so its
 * own record of the portal's connections is read as well.
 */
void fabric_portal_gone(struct fabric *f, const struct gpupath_portal *portal)
{
	char why[GPUPATH_NAME_LEN + 16];
	const struct gpupath_portal_conn *pc;
	nvme_root_t r;
	unsigned int i, k;
	size_t m;

	r = scan();
	if (!r)
		return;
	snprintf(why, sizeof(why), "portal %s deleted", portal->name);
	for (i = 0; i < portal->nconns; i++) {
		pc = &portal->conn[i];
		if (pc->state != GPUPATH_CONN_ADOPTED && pc->controller[0])
			disconnect_named(r, pc->controller, pc->subsysnqn, why);
	}
	for (m = 0; m < f->nconns; m++) {
		pc = &f->conns[m].rep;
		if (f->conns[m].portal != portal->id || !f->conns[m].ours || !pc->controller[0])
			continue;
		for (k = 0; k < portal->nconns; k++)
			if (same(portal->conn[k].controller, pc->controller))
				break;
		if (k == portal->nconns)
			disconnect_named(r, pc->controller, pc->subsysnqn, why);
	}
	nvme_free_tree(r);
}
