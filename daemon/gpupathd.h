/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pieces of gpupathd itself share: gpupathd.c (the configuration,
 * the passes it runs, timers, main()), events.c (what wakes the loop) and
 * service.c (signals, and what systemd is told).
 */
#ifndef GPUPATHD_GPUPATHD_H
#define GPUPATHD_GPUPATHD_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "private.h"

#define SOON_MS		100	/* notifications coalesce this long */

struct daemon {
	sd_event *event;
	struct gpupath_mon *mon;
	struct fabric *fabric;
	struct nl_sock *rt;	/* rtnetlink, link changes */
	struct udev *udev;
	struct udev_monitor *uev;	/* nvme and block uevents */
	bool loaded;		/* the gpupath family exists */
	sd_event_source *timer;	/* the periodic check */
	uint64_t pass_ms;	/* how long the last pass took */
	sd_event_source *soon;	/* one-shot: the next reconcile pass */
	struct ana *ana;	/* the controllers' ANA log pages (a thread) */
	struct mdns *mdns;	/* mDNS discovery: Avahi, once a portal wants it */
	bool ana_ok;		/* the module takes ANA states */
	struct metrics *metrics;	/* the metrics endpoint, NULL: none */
	unsigned int metrics_port;	/* 0: no endpoint */
	unsigned int interval;	/* seconds between periodic checks */
	bool interval_fixed;	/* given on the command line */
	const char *config;	/* gpupath.conf's path */
	bool config_given;	/* on the command line: it must exist */
	bool config_read;	/* it existed: it must go on existing */
	struct gpupath_conf *conf;	/* the last good one */
	struct gpupath_ctl *dmctl;	/* dm tables are told on it (dmstack.h) */
	int lockfd;		/* the QoS ledger's lock (fabric_lock), -1: none */
};

/* ---- gpupathd.c --------------------------------------------------------- */

/*
 * Read the module's state and log it. Failures are logged here and leave the
 * daemon waiting: the module can come and go at any time.
 */
void dump(struct daemon *d);

/* @conf becomes the daemon's configuration; the one before is returned. */
struct gpupath_conf *use_config(struct daemon *d, struct gpupath_conf *conf);

/*
 * Read gpupath.conf. A missing file (the default one) names nothing. Returns
 * 0 with the new configuration in d->conf, the one before in *@prev (NULL
 * for none), or a negative errno after explaining every mistake, d->conf
 * untouched.
 */
int load_config(struct daemon *d, struct gpupath_conf **prev);

/*
 * Make the module's portals and classes what gpupath.conf says. Returns a
 * negative errno when the module would refuse it (nothing is changed then).
 */
int apply_config(struct daemon *d);

/*
 * Run a reconcile pass in @ms, or sooner if one is due already: a storm of
 * events does not keep pushing the pass back.
 */
void soon(struct daemon *d, unsigned int ms);

/* Bring the kernel's objects and the fabric in line with the portals. */
void reconcile(struct daemon *d);

/*
 * What the dm disks' tables do, for the module (dmstack.h), on a socket
 * kept while the module is loaded: the module keeps the words as long as
 * the socket, so they go when gpupathd does. @name: one disk; NULL: all.
 */
void tell_dm(struct daemon *d, const char *name);
void untell_dm(struct daemon *d);

/* The module's state read, the configuration applied, a pass run. */
void resync(struct daemon *d);

/* The next periodic check, d->interval from now. */
void arm_timer(struct daemon *d);

/* ---- events.c ----------------------------------------------------------- */

/* Each source on the loop; 0, or a negative errno (logged). */
int subscribe(struct daemon *d);	/* gpupath notifications */
int watch_links(struct daemon *d);	/* rtnetlink */
int watch_uevents(struct daemon *d);	/* nvme, block */
int setup_mdns(struct daemon *d);	/* mDNS discovery */
int watch_children(struct daemon *d);	/* connect and discovery children */

/* ---- service.c ---------------------------------------------------------- */

/* Tell the service manager (NOTIFY_SOCKET), if there is one. */
void notify(const char *state);

/*
 * TERM and INT stop, HUP reloads, CHLD brings a pass: taken by the loop's
 * signalfd. They are blocked here, before any other thread starts (the
 * ANA poller and Avahi's block every signal besides), and stay blocked
 * until the daemon exits, the loop freed or not.
 */
int setup_signals(struct daemon *d);

/*
 * The watchdog (WATCHDOG_USEC), pinged by the loop: once now, then between
 * a half and three quarters of the period after the last ping, or at a
 * wake-up after a quarter of it.
 */
int setup_watchdog(struct daemon *d);

#endif /* GPUPATHD_GPUPATHD_H */
