/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fabric connections and path assembly: the portals the module keeps,
 * connected once per rail through libnvme, and the namespaces found on
 * their controllers pushed to the module as volumes and paths.
 *
 * Called from the daemon's loop, in its main thread. A connect, and a
 * discovery controller's connect and log page reads, run in a child
 * process each (they may wait on the network for minutes), whose end
 * wakes the loop (fabric_fd()). fabric-internal.h says how the pieces
 * divide the work.
 */
#ifndef GPUPATHD_FABRIC_H
#define GPUPATHD_FABRIC_H

#include <stdbool.h>
#include <sys/types.h>

#include "libgpupath-admin.h"

struct fabric;

int fabric_new(struct fabric **f);
void fabric_free(struct fabric *f);

/*
 * One pass: read the portals, connect what is missing and due, report the
 * connections back, and bring volumes and paths in line with the namespaces
 * of the connected controllers. Returns whether a retry is pending (the
 * caller then comes back within a second).
 */
bool fabric_reconcile(struct fabric *f, struct gpupath_ctl *ctl);

/*
 * A portal is gone (its PORTAL_DEL notification, with the connections last
 * reported): disconnect the controllers gpupathd made for it.
 */
void fabric_portal_gone(struct fabric *f, const struct gpupath_portal *portal);

/*
 * Controller @ctrl reported a discovery log change (its NVME_AEN uevent) or
 * reconnected: if it is a rail's persistent discovery controller, its log
 * page is read again at the next pass. Returns whether it is one.
 */
bool fabric_discovery_changed(struct fabric *f, const char *ctrl);

struct mdns;
/* The mDNS browser portals with "discover mdns" use (none: not found). */
void fabric_set_mdns(struct fabric *f, struct mdns *m);

/*
 * Readable when a child (a connect or a discovery, each in a process of
 * its own) has ended: a pass takes its result.
 */
int fabric_fd(struct fabric *f);

/*
 * Interface @ifname's carrier changed: the paths of the connections made
 * from it are marked link down (or up) at once. Returns whether it is a
 * rail of a portal. (Nothing is connected from a rail without carrier: a
 * pass after the link comes back does.)
 */
bool fabric_link(struct fabric *f, struct gpupath_ctl *ctl, const char *ifname, bool up);

/*
 * gpupathd --release-qos, with no gpupathd running: take back every QoS
 * setting the ledger holds (the DSCP APP entries, PFC bits, ETS shares, ECN
 * knobs and RoCE ToS the classes set), each named on stdout. Returns how
 * many could not be (kept in the ledger), or a negative errno (-EBUSY: a
 * gpupathd runs; nothing is done).
 */
int fabric_release_qos(void);

/* The lock a running gpupathd holds on the QoS ledger (ledger_lock). */
int fabric_lock(pid_t *holder);

#endif /* GPUPATHD_FABRIC_H */
