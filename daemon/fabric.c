// SPDX-License-Identifier: GPL-2.0
/*
 * Fabric connections and path assembly (see fabric.h): the passes.
 *
 * Every pass starts from what is true now: the module's portals (with the
 * connections the last daemon reported) and a fresh libnvme scan of the
 * controllers. Each portal's pass lists the subsystems it wants (its own,
 * or what its discovery controllers list) and each rail's pass connects
 * them from that rail (connect.c). Then the connections are reported, the
 * QoS classes applied (qos.c), and the controllers' namespaces assembled
 * into volumes and paths (paths.c). fabric-internal.h says which piece
 * does what, and what runs where.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "clock.h"
#include "fabric-internal.h"
#include "libnvme-fix.h"
#include "log.h"
#include "mdns.h"

#define BROWSE_MAX		16	/* interfaces browsed by mDNS */

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
	qos_load(*f);
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
	links_free(f);
	free(f);
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
		rail_iface(f, rail, c->iface, sizeof(c->iface));
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
		if (f->mdns && rail_iface(f, &p->rail[i], iface, sizeof(iface))) {
			n = mdns_services(f->mdns, iface, p->transport, svc, TARGETS_MAX);
			for (k = 0; k < n && k < TARGETS_MAX; k++) {
				if (!iface_subnet_has(f, iface, svc[k].traddr)) {
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
		disconnect_named(f, r, cn->rep.controller, cn->rep.subsysnqn, why);
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
			if (rail_iface(f, &portals[i].rail[j], names[k], sizeof(names[k]))) {
				ifaces[k] = names[k];
				k++;
			}
	}
	mdns_watch(f->mdns, ifaces, k);
}

/*
 * The portals' part of a pass: connections and discovery controllers made
 * what the portals want, what they no longer want disconnected (@unwanted:
 * made by connects that ended since), and the connections reported.
 */
static void portals_pass(struct fabric *f, struct gpupath_ctl *ctl, nvme_root_t r,
			 const struct gpupath_portal *portals, size_t n,
			 const struct gpupath_portal_conn *unwanted, size_t nunwanted,
			 bool *pending)
{
	size_t i;

	for (i = 0; i < nunwanted; i++)
		disconnect_named(f, r, unwanted[i].controller, unwanted[i].subsysnqn,
				 "connected for a connection no longer wanted");
	for (i = 0; i < f->nconns; i++)
		f->conns[i].seen = false;
	for (i = 0; i < f->ndisc; i++)
		f->disc[i].seen = false;
	mdns_want(f, portals, n);
	for (i = 0; i < n; i++)
		portal_pass(f, r, &portals[i], pending);
	prune(f, r, portals, n);
	disc_prune(f, r);
	disc_marks_prune(f);
	for (i = 0; i < n; i++)
		conns_report(f, ctl, &portals[i]);
}

/* Where a pass's time went, @t[0] its start, for the debug log. */
static void log_times(const uint64_t *t)
{
	log_debug("pass: lists %llu, reap %llu, scan %llu, portals %llu, qos %llu, rescan %llu, assemble %llu ms",
		  (unsigned long long)(t[1] - t[0]), (unsigned long long)(t[2] - t[1]),
		  (unsigned long long)(t[3] - t[2]), (unsigned long long)(t[4] - t[3]),
		  (unsigned long long)(t[5] - t[4]), (unsigned long long)(t[6] - t[5]),
		  (unsigned long long)(now_ms() - t[6]));
}

bool fabric_reconcile(struct fabric *f, struct gpupath_ctl *ctl)
{
	struct gpupath_portal_conn unwanted[CONNECTS_MAX];
	struct gpupath_portal *portals;
	bool pending = false, classes_read;
	size_t n, nunwanted = 0;
	unsigned long changes0;
	uint64_t t[7];
	nvme_root_t r;
	int ret;

	t[0] = now_ms();
	ret = gpupath_ctl_portal_list(ctl, &portals, sizeof(*portals), &n);
	if (ret < 0) {
		log_errno(ret, "reading portals");
		return true;
	}
	classes_read = qos_read(f, ctl);
	links_read(f);
	changes0 = f->changes;
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
	portals_pass(f, ctl, r, portals, n, unwanted, nunwanted, &pending);
	t[4] = now_ms();
	progress(f);
	qos_pass(f, ctl, portals, n, classes_read);
	/* New controllers' namespaces show up in a new scan. */
	t[5] = now_ms();
	if (f->changes != changes0) {
		nvme_free_tree(r);
		r = scan();
	}
	t[6] = now_ms();
	progress(f);
	if (r) {
		assemble(f, ctl, r);
		nvme_free_tree(r);
	}
	log_times(t);
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
			disconnect_named(f, r, pc->controller, pc->subsysnqn, why);
	}
	for (m = 0; m < f->nconns; m++) {
		pc = &f->conns[m].rep;
		if (f->conns[m].portal != portal->id || !f->conns[m].ours || !pc->controller[0])
			continue;
		for (k = 0; k < portal->nconns; k++)
			if (same(portal->conn[k].controller, pc->controller))
				break;
		if (k == portal->nconns)
			disconnect_named(f, r, pc->controller, pc->subsysnqn, why);
	}
	nvme_free_tree(r);
}
