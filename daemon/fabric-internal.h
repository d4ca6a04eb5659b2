/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pieces of the fabric share; fabric.h is the rest of the
 * daemon's view of them.
 *
 *   fabric.c     the passes: reconcile, and its per-portal and per-rail
 *                passes
 *   connect.c    controllers found, connected and disconnected; the wanted
 *                connections and their report to the module
 *   child.c      the child processes connects and discoveries run in
 *   discovery.c  discovery portals: their persistent discovery controllers
 *                and the log pages read from them
 *   paths.c      the connected controllers' namespaces as volumes and
 *                paths, and each path's link
 *   qos.c        the QoS classes applied to the rails' devices, and the
 *                ledger of what they set, to take back
 *   watch.c      the host's interfaces: their addresses and carriers
 *
 * All of it runs in the daemon's main thread, in its loop, but for the
 * child processes: a connect, or a discovery controller's connect and log
 * page reads, waits on the network (minutes, at worst), so each runs in a
 * child forked for it (child_start()), whose result a later pass takes.
 * The child has a copy of struct fabric, read only; what it changes there
 * the daemon never sees. The daemon's other threads (the ANA poller,
 * Avahi's and libmicrohttpd's) touch nothing here.
 */
#ifndef GPUPATHD_FABRIC_INTERNAL_H
#define GPUPATHD_FABRIC_INTERNAL_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <libnvme.h>

#include "disclog.h"
#include "fabric.h"
#include "ledger.h"

#define TARGETS_MAX		GPUPATH_PORTAL_CONNS_MAX
#define CONNECTS_MAX		64	/* connects under way at once */
#define LINKS_MAX		256	/* interfaces whose carrier is known */

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
 * The host's interfaces: their addresses as of the pass's start, and their
 * carriers, read once per pass (links_read()) and kept current by
 * rtnetlink (fabric_link()). Asked for every connection and path,
 * getifaddrs() each time would cost a netlink dump each.
 */
struct links {
	struct ifaddrs *addrs;		/* NULL: not read */
	struct {
		char name[IF_NAMESIZE];
		bool running;
	} link[LINKS_MAX];
	size_t n;
};

struct fabric {
	struct conn *conns;
	size_t nconns;
	struct connect_job jobs[CONNECTS_MAX];
	size_t njobs;
	/* Controllers connected or disconnected: a pass that did neither scans once. */
	unsigned long changes;
	struct discovered *disc;
	size_t ndisc;
	struct mdns *mdns;		/* NULL: no mDNS discovery */
	struct gpupath_qos *qos;	/* the classes, as of this pass */
	size_t nqos;
	struct ledger ledger;		/* what the QoS classes set, to take back */
	struct links links;
	int wake;			/* eventfd: a child ended */
	bool watchdog;			/* systemd's watchdog is on */
};

/* A string into a fixed buffer, cut to fit. */
static inline void cpy(char *dst, size_t size, const char *src)
{
	size_t n;

	if (!src)
		src = "";	/* libnvme's value of what it could not read */
	n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

static inline bool same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* ---- connect.c ---------------------------------------------------------- */

/* The controller of @p's @rail to @t in the scan, if there is one. */
nvme_ctrl_t find_ctrl(const struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
		      const struct gpupath_portal_rail *rail, const struct target *t);

/* The controller named @name in the scan, if there is one. */
nvme_ctrl_t ctrl_named(nvme_root_t r, const char *name);

/*
 * Connect @p's @rail to @t, in a child process (it may wait on the
 * network); the new controller, or NULL with errno set.
 */
nvme_ctrl_t connect_ctrl(const struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
			 const struct gpupath_portal_rail *rail, const struct target *t, int tos);

/* Disconnect controller @name, if it is still there and of subsystem @nqn. */
void disconnect_named(struct fabric *f, nvme_root_t r, const char *name, const char *nqn,
		      const char *why);

/* The connection of portal @p with @key, created when new. */
struct conn *conn_get(struct fabric *f, const struct gpupath_portal *p,
		      const struct gpupath_portal_conn *key);

/* Bring one wanted connection about, or note when to try again. */
void conn_pass(struct fabric *f, struct conn *c, nvme_root_t r, const struct gpupath_portal *p,
	       const struct gpupath_portal_rail *rail, const struct target *t, int tos,
	       bool *pending);

/*
 * Take the results of the connects that ended (before the pass's scan,
 * which then finds their controllers). A controller whose connection is no
 * longer wanted (its portal deleted, its subsystem no longer listed) is put
 * in @unwanted, to be disconnected.
 */
void connects_reap(struct fabric *f, const struct gpupath_portal *portals, size_t n,
		   struct gpupath_portal_conn *unwanted, size_t *nunwanted, bool *pending);

/* Report @p's connections to the module when they changed. */
void conns_report(struct fabric *f, struct gpupath_ctl *ctl, const struct gpupath_portal *p);

/* ---- child.c ------------------------------------------------------------ */

/*
 * A child process for work that may wait on the network (a connect, a
 * discovery controller): the loop never does. Returns its pid in the
 * parent, with the read end of its result pipe (non-blocking) in *@fd; 0
 * in the child, with the write end; a negative errno when none started.
 */
pid_t child_start(const struct fabric *f, int *fd);

/* In the child: its result to the daemon, which it wakes; then it ends. */
void __attribute__((noreturn)) child_end(const struct fabric *f, int fd, const void *res,
					 size_t size);

/* The whole of a child's result from @fd, once it has ended: true. */
bool read_whole(int fd, void *buf, size_t size);

/* ---- discovery.c -------------------------------------------------------- */

/*
 * The subsystems a discovery portal lists on @rail, as last read (NULL:
 * none known); when they are to be read again, a child reads them.
 */
const struct discovered *discover(struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
				  const struct gpupath_portal_rail *rail, const char *traddr,
				  uint32_t trsvcid, bool *pending);

/*
 * Take what the discovery children that ended found (before the pass's
 * scan, which then finds the controllers they made).
 */
void disc_reap(struct fabric *f, const struct gpupath_portal *portals, size_t np);

/* Disconnect discovery controllers gpupathd made and no portal wants now. */
void disc_prune(struct fabric *f, nvme_root_t r);

/* The marks of discovery controllers no portal uses any more: removed. */
void disc_marks_prune(const struct fabric *f);

/* ---- paths.c ------------------------------------------------------------ */

/*
 * The namespaces of the wanted connections' controllers in @r into volumes
 * and paths; paths whose device is gone removed, every path's link set.
 */
void assemble(struct fabric *f, struct gpupath_ctl *ctl, nvme_root_t r);

/* The link of every path made from interface @ifname: up or down. */
void paths_link(struct fabric *f, struct gpupath_ctl *ctl, const char *ifname, bool up);

/* ---- qos.c -------------------------------------------------------------- */

/* The ledger of what gpupathd set before, if it left one. */
void qos_load(struct fabric *f);

/* The classes, as of now, into f->qos; false when they could not be read. */
bool qos_read(struct fabric *f, struct gpupath_ctl *ctl);

/* The IP ToS byte of @p's QoS class, -1 when it has none. */
int portal_tos(const struct fabric *f, const struct gpupath_portal *p);

/*
 * Every class applied to the host's devices its portals use, and what no
 * class wants now taken back, unless the classes could not be read
 * (@classes_read false): such a pass takes nothing back.
 */
void qos_pass(struct fabric *f, struct gpupath_ctl *ctl, const struct gpupath_portal *portals,
	      size_t n, bool classes_read);

/* ---- watch.c ------------------------------------------------------------ */

/* The interfaces' addresses and carriers, read anew for a pass. */
void links_read(struct fabric *f);
void links_free(struct fabric *f);

/* gpupath_ifaddr_find(), in the pass's list when there is one. */
bool ifaddr_find(const struct fabric *f, const char *iface, const char *addr, int family,
		 char *iface_out, size_t iface_size, char *addr_out, size_t addr_size);

/* Whether @iface is up with a carrier (unknown interfaces count as up). */
bool iface_running(const struct fabric *f, const char *iface);

/* An address of @iface of the family of @traddr into @buf ("" when none). */
void iface_addr(const struct fabric *f, const char *iface, const char *traddr, char *buf,
		size_t size);

/* Whether an address of @iface is on the subnet of @addr (IPv4 or IPv6). */
bool iface_subnet_has(const struct fabric *f, const char *iface, const char *addr);

/* The interface a rail connects from: named, or the one with its address. */
bool rail_iface(const struct fabric *f, const struct gpupath_portal_rail *rail, char *iface,
		size_t size);

#endif /* GPUPATHD_FABRIC_INTERNAL_H */
