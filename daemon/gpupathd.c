// SPDX-License-Identifier: GPL-2.0
/*
 * gpupathd: the gpupath reconciler.
 *
 * One thread, one sd-event loop: the gpupath netlink notifications (and
 * the module coming and going), rtnetlink link changes, the uevents of nvme
 * controllers and namespaces (libudev's monitor, after udev's rules where
 * udev runs), signals (TERM/INT stop, HUP reloads gpupath.conf, CHLD: a
 * connect or discovery child ended) and timers. Read the configuration,
 * subscribe, then dump, apply the configuration, reconcile, then run.
 * Under systemd (Type=notify) it says when it is ready, reloading and
 * stopping, and the loop pings the watchdog.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <libudev.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <netlink/netlink.h>

#include "private.h"

#include "config.h"
#include "ana.h"
#include "clock.h"
#include "fabric.h"
#include "log.h"
#include "dmstack.h"
#include "metrics.h"
#include "mdns.h"

#define INTERVAL_DEFAULT	30
#define INTERVAL_MAX		GPUPATH_CONF_INTERVAL_MAX

#define SOON_MS		100	/* notifications coalesce this long */
#define RETRY_MS	1000	/* a pass again while connections are due */
#define TIMER_ACCURACY_US	1000	/* sd-event's default is 250 ms */

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

/* ---- dump ------------------------------------------------------------- */

static void log_module_info(const struct gpupath_info *info)
{
	char features[256];

	log_info("gpupath module %s (kernel %s, genl version %u)",
		 info->has & GPUPATH_INFO_HAS_VERSION ? info->version : "?",
		 info->has & GPUPATH_INFO_HAS_KERNEL ? info->kernel : "?",
		 info->genl_version);
	if (info->has & GPUPATH_INFO_HAS_P2PDMA_STATUS)
		log_info("P2PDMA: %s",
			 gpupath_p2pdma_status_text(info->p2pdma_status));
	if (info->has & GPUPATH_INFO_HAS_FEATURES) {
		gpupath_features_format(info->features, features, sizeof(features));
		log_info("features: %s", features);
	}
}

/*
 * Read the module's state and log it. Failures are logged here and leave the
 * daemon waiting: the module can come and go at any time.
 */
static void untell_dm(struct daemon *d);

static void dump(struct daemon *d)
{
	struct gpupath_info info;
	struct gpupath_ctl *ctl;
	const char *msg;
	int r;

	if (!d->loaded) {
		log_info("gpupath module not loaded; waiting for it");
		return;
	}
	r = gpupath_ctl_open(&ctl);
	if (r == -ENOENT) {
		log_info("gpupath module went away; waiting for it");
		d->loaded = false;
		untell_dm(d);
		return;
	}
	if (r < 0) {
		log_errno(r, "cannot open the gpupath control socket");
		return;
	}
	r = gpupath_ctl_get_info(ctl, &info, sizeof(info));
	if (r < 0) {
		msg = gpupath_ctl_errmsg(ctl);
		log_errno(r, "cannot read gpupath module info%s%s%s",
			  msg ? " (" : "", msg ? msg : "", msg ? ")" : "");
	} else {
		log_module_info(&info);
		/* A module before ANA takes no ANA state: none is read for it. */
		d->ana_ok = (info.has & GPUPATH_INFO_HAS_FEATURES) &&
			    (info.features & GPUPATH_FEATURE_PATH_ANA);
	}
	gpupath_ctl_close(ctl);
}

/* ---- configuration ---------------------------------------------------- */

static void conf_error(void *arg, unsigned int line, const char *msg)
{
	log_err("%s:%u: %s", (const char *)arg, line, msg);
}

/* @conf becomes the daemon's configuration; the one before is returned. */
static struct gpupath_conf *use_config(struct daemon *d, struct gpupath_conf *conf)
{
	struct gpupath_conf *prev = d->conf;

	d->conf = conf;
	if (!d->interval_fixed)
		d->interval = conf && conf->interval ? conf->interval : INTERVAL_DEFAULT;
	return prev;
}

/*
 * Read gpupath.conf. A missing file (the default one) names nothing. Returns
 * 0 with the new configuration in d->conf, the one before in *@prev (NULL
 * for none), or a negative errno after explaining every mistake, d->conf
 * untouched.
 */
static int load_config(struct daemon *d, struct gpupath_conf **prev)
{
	struct gpupath_conf *conf;
	bool absent = false;
	int r;

	r = gpupath_conf_load(d->config, &conf, conf_error, (void *)d->config);
	/* Gone since it was read: a mistake, not "delete everything". */
	if (r == -ENOENT && !d->config_given && !d->config_read) {
		log_info("no %s: portals and QoS classes come from the gpupath CLI alone",
			 d->config);
		absent = true;
		r = gpupath_conf_parse("", 0, &conf, NULL, NULL);
	}
	if (r < 0) {
		log_err("cannot read %s: %s", d->config, gpupath_conf_strerror(r));
		return r;
	}
	if (r > 0) {
		log_err("%s: %d mistake%s; nothing in it is applied", d->config, r,
			r == 1 ? "" : "s");
		gpupath_conf_free(conf);
		return -EINVAL;
	}
	*prev = use_config(d, conf);
	d->config_read |= !absent;
	return 0;
}

/* The control socket while the module is loaded; NULL otherwise (explained). */
static struct gpupath_ctl *ctl_open(struct daemon *d)
{
	struct gpupath_ctl *ctl;
	int r;

	if (!d->loaded)
		return NULL;
	r = gpupath_ctl_open(&ctl);
	if (r < 0) {
		if (r != -ENOENT)
			log_errno(r, "cannot open the gpupath control socket");
		return NULL;
	}
	return ctl;
}

/*
 * Make the module's portals and classes what gpupath.conf says. Returns a
 * negative errno when the module would refuse it (nothing is changed then).
 */
static int apply_config(struct daemon *d)
{
	struct gpupath_ctl *ctl;
	int r;

	if (!d->conf)
		return 0;
	ctl = ctl_open(d);
	if (!ctl)
		return 0;
	r = config_apply(ctl, d->conf, d->config, CONFIG_STATE);
	gpupath_ctl_close(ctl);
	return r;
}

/* ---- reconcile -------------------------------------------------------- */

/*
 * Run a reconcile pass in @ms, or sooner if one is due already: a storm of
 * events does not keep pushing the pass back.
 */
static void soon(struct daemon *d, unsigned int ms)
{
	uint64_t at, cur;
	int on, r;

	/*
	 * Passes take at most half the time: while connects (in child
	 * processes) end one after another, each with its uevents, a pass
	 * over many controllers would otherwise follow another.
	 */
	if (ms < d->pass_ms)
		ms = d->pass_ms;
	/* From the clock, not the loop's wake-up: a pass may have run since. */
	at = now_us() + (uint64_t)ms * 1000;
	if (sd_event_source_get_enabled(d->soon, &on) > 0 &&
	    sd_event_source_get_time(d->soon, &cur) >= 0 && cur <= at)
		return;
	r = sd_event_source_set_time(d->soon, at);
	if (r >= 0)
		r = sd_event_source_set_enabled(d->soon, SD_EVENT_ONESHOT);
	if (r < 0)
		log_errno(r, "cannot arm the reconcile timer");
}

/* Bring the kernel's objects and the fabric in line with the portals. */
static void reconcile(struct daemon *d)
{
	struct gpupath_ctl *ctl = ctl_open(d);
	uint64_t t0 = now_ms();
	bool pending;

	if (!ctl)
		return;
	pending = fabric_reconcile(d->fabric, ctl);
	d->pass_ms = now_ms() - t0;
	if (pending)
		soon(d, RETRY_MS);
	log_debug("pass: %llu ms", (unsigned long long)d->pass_ms);
	if (d->ana_ok)
		ana_kick(d->ana);	/* the paths' ANA states, in the poller's thread */
	gpupath_ctl_close(ctl);
}


/*
 * What the dm disks' tables do, for the module (dmstack.h), on a socket
 * kept while the module is loaded: the module keeps the words as long as
 * the socket, so they go when gpupathd does.
 */
static void tell_dm(struct daemon *d, const char *name)
{
	if (!d->dmctl)
		d->dmctl = ctl_open(d);
	if (!d->dmctl)
		return;
	if (name)
		dmstack_tell(d->dmctl, name);
	else
		dmstack_tell_all(d->dmctl);
}

static void untell_dm(struct daemon *d)
{
	if (d->dmctl)
		gpupath_ctl_close(d->dmctl);
	d->dmctl = NULL;
}

static void resync(struct daemon *d)
{
	dump(d);
	apply_config(d);
	tell_dm(d, NULL);
	reconcile(d);
}

/* ---- notifications ---------------------------------------------------- */

static void on_notify(struct daemon *d, const struct gpupath_mon_event *ev)
{
	const char *name = gpupath_cmd_name(ev->cmd);
	const char *group = ev->group ? ev->group : "?";
	struct gpupath_portal portal;

	if (name)
		log_debug("notification on \"%s\": %s", group, name);
	else
		log_debug("notification on \"%s\": command %u", group, ev->cmd);
	if (ev->cmd == GPUPATH_CMD_PORTAL_DEL &&
	    !gpupath_mon_event_portal(ev, &portal, sizeof(portal)))
		fabric_portal_gone(d->fabric, &portal);
	/* Portals, volumes, paths and path events all may need a pass. */
	soon(d, SOON_MS);
}

static void on_event(const struct gpupath_mon_event *ev, void *userdata)
{
	struct daemon *d = userdata;

	switch (ev->type) {
	case GPUPATH_EVENT_FAMILY_NEW:
		log_info("gpupath module loaded");
		d->loaded = true;
		resync(d);
		break;
	case GPUPATH_EVENT_FAMILY_DEL:
		log_info("gpupath module unloaded; waiting for it to come back");
		d->loaded = false;
		untell_dm(d);
		break;
	case GPUPATH_EVENT_NOTIFY:
		on_notify(d, ev);
		break;
	}
}

static int on_mon(sd_event_source *s, int fd, uint32_t events, void *userdata)
{
	struct daemon *d = userdata;
	int r;

	(void)fd;
	(void)events;
	r = gpupath_mon_dispatch(d->mon, on_event, d);
	if (r == -ENOBUFS) {
		log_warn("notifications lost; reading the module's state again");
		resync(d);
		return 0;
	}
	if (r < 0 && r != -EAGAIN && r != -EINTR) {
		log_errno(r, "reading gpupath notifications failed");
		return sd_event_exit(sd_event_source_get_event(s), EXIT_FAILURE);
	}
	return 0;
}

static int subscribe(struct daemon *d)
{
	int r;

	r = gpupath_mon_open(&d->mon, &d->loaded);
	if (r < 0)
		return log_errno(r, "cannot subscribe to gpupath notifications");
	r = sd_event_add_io(d->event, NULL, gpupath_mon_fd(d->mon), EPOLLIN, on_mon, d);
	if (r < 0)
		return log_errno(r, "cannot watch gpupath notifications");
	return 0;
}

/* ---- links ------------------------------------------------------------ */

/* RTM_NEWLINK/DELLINK: a rail's carrier, acted on at once. */
static int on_link_msg(struct nl_msg *msg, void *userdata)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[IFLA_MAX + 1];
	struct daemon *d = userdata;
	struct gpupath_ctl *ctl;
	struct ifinfomsg *ifi;
	bool up;

	if ((nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK) || !d->loaded ||
	    nlmsg_parse(nlh, sizeof(*ifi), tb, IFLA_MAX, NULL) < 0 || !tb[IFLA_IFNAME])
		return NL_OK;
	ifi = nlmsg_data(nlh);
	up = nlh->nlmsg_type == RTM_NEWLINK && (ifi->ifi_flags & IFF_UP) &&
	     (ifi->ifi_flags & IFF_RUNNING);
	if (gpupath_ctl_open(&ctl) < 0)
		return NL_OK;
	if (fabric_link(d->fabric, ctl, nla_get_string(tb[IFLA_IFNAME]), up) && up)
		soon(d, SOON_MS);	/* what waited for the link */
	gpupath_ctl_close(ctl);
	return NL_OK;
}

static int on_rt(sd_event_source *s, int fd, uint32_t events, void *userdata)
{
	struct daemon *d = userdata;
	int r;

	(void)s;
	(void)fd;
	(void)events;
	r = nl_recvmsgs_default(d->rt);
	if (r == -NLE_NOMEM) {
		/* Link messages lost (ENOBUFS): a full pass sets every path's link. */
		log_warn("link notifications lost; checking every link");
		soon(d, SOON_MS);
	} else if (r < 0 && r != -NLE_AGAIN) {
		log_warn("reading link notifications: %s", nl_geterror(r));
	}
	return 0;
}

static int watch_links(struct daemon *d)
{
	int r;

	d->rt = nl_socket_alloc();
	if (!d->rt)
		return log_errno(-ENOMEM, "cannot watch links");
	nl_socket_disable_seq_check(d->rt);
	nl_socket_modify_cb(d->rt, NL_CB_VALID, NL_CB_CUSTOM, on_link_msg, d);
	r = nl_connect(d->rt, NETLINK_ROUTE);
	if (r >= 0)
		r = nl_socket_add_membership(d->rt, RTNLGRP_LINK);
	if (r >= 0)
		r = nl_socket_set_nonblocking(d->rt);
	if (r < 0) {
		log_err("cannot watch links: %s", nl_geterror(r));
		return -EIO;
	}
	r = sd_event_add_io(d->event, NULL, nl_socket_get_fd(d->rt), EPOLLIN, on_rt, d);
	if (r < 0)
		return log_errno(r, "cannot watch links");
	return 0;
}

/* ---- periodic check --------------------------------------------------- */

/* The next periodic check, d->interval from now. */
static void arm_timer(struct daemon *d)
{
	int r = sd_event_source_set_time(d->timer, now_us() + (uint64_t)d->interval * 1000000);

	if (r >= 0)
		r = sd_event_source_set_enabled(d->timer, SD_EVENT_ONESHOT);
	if (r < 0)
		log_errno(r, "cannot arm the periodic timer");
}

/* ---- uevents ----------------------------------------------------------- */

/*
 * A discovery log change: an asynchronous event of type notice (2), the
 * discovery-log-change information (0xf0), for log page 0x70.
 */
static bool discovery_aen(const char *aen)
{
	unsigned long v = strtoul(aen, NULL, 0);

	return (v & 0x7) == 2 && ((v >> 8) & 0xff) == 0xf0 && ((v >> 16) & 0xff) == 0x70;
}

/*
 * An nvme controller's event (NVME_EVENT=connected after a reconnect, a
 * discovery change, add or remove) or an nvme namespace's block device
 * coming or going: a pass now rather than at the next periodic check. The
 * monitor's filter (in the kernel) lets only nvme and block disks through.
 */
static int on_uevent(sd_event_source *s, int fd, uint32_t events, void *userdata)
{
	struct daemon *d = userdata;
	const char *subsys, *name, *ev, *action, *aen;
	struct udev_device *dev;

	(void)s;
	(void)fd;
	(void)events;
	for (;;) {
		errno = 0;
		dev = udev_monitor_receive_device(d->uev);
		if (!dev) {
			if (errno == ENOBUFS) {
				log_warn("uevents lost; checking everything");
				tell_dm(d, NULL);
				soon(d, SOON_MS);
				continue;
			}
			return 0;
		}
		subsys = udev_device_get_subsystem(dev);
		name = udev_device_get_sysname(dev);
		action = udev_device_get_action(dev);
		ev = udev_device_get_property_value(dev, "NVME_EVENT");
		aen = udev_device_get_property_value(dev, "NVME_AEN");
		/* Renamed by 69-gpupath.rules for gpupathd's discovery controllers. */
		if (!aen)
			aen = udev_device_get_property_value(dev, "GPUPATH_AEN");
		if (subsys && name &&
		    (!strcmp(subsys, "nvme") ||
		     (!strcmp(subsys, "block") && !strncmp(name, "nvme", 4)))) {
			log_debug("uevent: %s@%s %s%s%s%s%s", action ? action : "?",
				  udev_device_get_devpath(dev), name, ev ? " NVME_EVENT=" : "",
				  ev ? ev : "", aen ? " NVME_AEN=" : "", aen ? aen : "");
			if (((aen && discovery_aen(aen)) || (ev && !strcmp(ev, "connected"))) &&
			    fabric_discovery_changed(d->fabric, name))
				log_info("%s: %s: reading its discovery log page", name,
					 aen ? "discovery log changed" : "reconnected");
			if (d->loaded)
				soon(d, SOON_MS);
		} else if (subsys && name && action && !strcmp(subsys, "block") &&
			   !strncmp(name, "dm-", 3) &&
			   (!strcmp(action, "add") || !strcmp(action, "change"))) {
			log_debug("uevent: %s@%s", action, udev_device_get_devpath(dev));
			tell_dm(d, name);
		}
		udev_device_unref(dev);
	}
}

/*
 * udev's events once its rules have run, where udevd runs; the kernel's
 * own otherwise (an initramfs, a container).
 */
static int watch_uevents(struct daemon *d)
{
	const char *source = access("/run/udev/control", F_OK) ? "kernel" : "udev";
	int r = -ENOMEM;

	d->udev = udev_new();
	if (d->udev)
		d->uev = udev_monitor_new_from_netlink(d->udev, source);
	if (!d->uev)
		return log_errno(errno ? -errno : r, "cannot watch uevents");
	r = udev_monitor_filter_add_match_subsystem_devtype(d->uev, "nvme", NULL);
	if (r >= 0)
		r = udev_monitor_filter_add_match_subsystem_devtype(d->uev, "block", "disk");
	if (r >= 0)
		r = udev_monitor_enable_receiving(d->uev);
	if (r < 0)
		return log_errno(r, "cannot watch uevents");
	/* Needs CAP_NET_ADMIN; the default size serves otherwise. */
	udev_monitor_set_receive_buffer_size(d->uev, 1 << 20);
	r = sd_event_add_io(d->event, NULL, udev_monitor_get_fd(d->uev), EPOLLIN, on_uevent, d);
	if (r < 0)
		return log_errno(r, "cannot watch uevents");
	log_debug("uevents from %s", source);
	return 0;
}

/* ---- mDNS ------------------------------------------------------------- */

/* A discovery controller announced or withdrawn: a pass. */
static int on_mdns(sd_event_source *s, int fd, uint32_t events, void *userdata)
{
	struct daemon *d = userdata;

	(void)s;
	(void)fd;
	(void)events;
	mdns_drain(d->mdns);
	if (d->loaded)
		soon(d, SOON_MS);
	return 0;
}

static int setup_mdns(struct daemon *d)
{
	int r = mdns_new(&d->mdns);

	if (r < 0)
		return log_errno(r, "cannot set up mDNS discovery");
	fabric_set_mdns(d->fabric, d->mdns);
	r = sd_event_add_io(d->event, NULL, mdns_fd(d->mdns), EPOLLIN, on_mdns, d);
	if (r < 0)
		return log_errno(r, "cannot watch mDNS discovery");
	return 0;
}

/* A connect (in a child process) ended: a pass takes its result. */
static int on_connect(sd_event_source *s, int fd, uint32_t events, void *userdata)
{
	struct daemon *d = userdata;
	eventfd_t n;

	(void)s;
	(void)events;
	if (eventfd_read(fd, &n) == 0 && d->loaded)
		soon(d, SOON_MS);
	return 0;
}

/* ---- systemd ---------------------------------------------------------- */

/* Tell the service manager (NOTIFY_SOCKET), if there is one. */
static void notify(const char *state)
{
	int r = sd_notify(0, state);

	if (r < 0)
		log_errno(r, "cannot notify the service manager");
}

/*
 * The watchdog (WATCHDOG_USEC), pinged by the loop: once now, then between
 * a half and three quarters of the period after the last ping, or at a
 * wake-up after a quarter of it.
 */
static int setup_watchdog(struct daemon *d)
{
	uint64_t usec;
	int r;

	r = sd_watchdog_enabled(0, &usec);
	if (r <= 0) {
		if (r < 0)
			log_errno(r, "ignoring the watchdog settings");
		return 0;
	}
	r = sd_event_set_watchdog(d->event, true);
	if (r < 0)
		return log_errno(r, "cannot ping the watchdog from the loop");
	log_info("watchdog: a ping at least every %llu ms", (unsigned long long)usec * 3 / 4000);
	return 0;
}

/* RELOADING=1 with the time it began, as systemd wants it. */
static void notify_reloading(void)
{
	struct timespec ts;
	char buf[64];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(buf, sizeof(buf), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
	notify(buf);
}

/* ---- signals ---------------------------------------------------------- */

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct daemon *d = userdata;
	struct gpupath_conf *prev;

	if (si->ssi_signo == SIGCHLD) {
		/*
		 * A connect or discovery child ended: its result (or its
		 * death, which left none) is taken at a pass now, not at the
		 * next periodic one. The pass reaps it (fabric.c).
		 */
		if (d->loaded)
			soon(d, SOON_MS);
		return 0;
	}
	if (si->ssi_signo == SIGHUP) {
		log_info("reloading %s", d->config);
		notify_reloading();
		if (load_config(d, &prev) < 0) {
			log_warn("keeping the configuration in place");
			notify("READY=1");
			return 0;
		}
		dump(d);
		if (apply_config(d) < 0 && prev) {
			/* The module would refuse it: the last good one stays. */
			log_warn("keeping the configuration in place");
			prev = use_config(d, prev);
		}
		gpupath_conf_free(prev);
		arm_timer(d);
		reconcile(d);
		notify("READY=1");
		return 0;
	}
	log_info("stopping");
	notify("STOPPING=1");
	return sd_event_exit(sd_event_source_get_event(s), EXIT_SUCCESS);
}

/*
 * TERM and INT stop, HUP reloads, CHLD brings a pass: taken by the loop's
 * signalfd. They are blocked here, before any other thread starts (the
 * ANA poller and Avahi's block every signal besides), and stay blocked
 * until the daemon exits, the loop freed or not.
 */
static int setup_signals(struct daemon *d)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGCHLD };
	sigset_t mask;
	size_t i;
	int r;

	sigemptyset(&mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&mask, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return log_errno(-errno, "cannot block signals");
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		r = sd_event_add_signal(d->event, NULL, sigs[i], on_signal, d);
		if (r < 0)
			return log_errno(r, "cannot watch signals");
	}
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;

	(void)usec;
	if (s == d->timer)
		arm_timer(d);
	if (!d->loaded) {
		log_debug("waiting for gpupath module");
	} else {
		tell_dm(d, NULL);
		reconcile(d);
	}
	return 0;
}

/* A timer on the loop (on_timer()), off until set. */
static int add_timer(struct daemon *d, sd_event_source **s)
{
	int r;

	r = sd_event_add_time(d->event, s, CLOCK_MONOTONIC, 0, TIMER_ACCURACY_US, on_timer, d);
	if (r >= 0)
		r = sd_event_source_set_enabled(*s, SD_EVENT_OFF);
	if (r < 0)
		return log_errno(r, "cannot add a timer to the loop");
	return 0;
}

static int setup_timer(struct daemon *d)
{
	int r = add_timer(d, &d->timer);

	if (!r)
		arm_timer(d);
	return r;
}

/* ---- main ------------------------------------------------------------- */

/* The one-shot timer of the next reconcile pass; the ANA poller. */
static int setup_soon(struct daemon *d)
{
	int r = add_timer(d, &d->soon);

	if (!r) {
		r = ana_new(&d->ana);
		if (r < 0)
			log_errno(r, "cannot start the ANA poller");
	}
	return r;
}

static void teardown(struct daemon *d)
{
	/* First: its thread stops at once, whatever its clients are doing. */
	metrics_close(d->metrics);
	untell_dm(d);
	/* The loop first, with the sources it holds, then what they watch. */
	sd_event_source_unref(d->timer);
	sd_event_source_unref(d->soon);
	sd_event_unref(d->event);
	fabric_free(d->fabric);
	if (d->rt)
		nl_socket_free(d->rt);
	udev_monitor_unref(d->uev);
	udev_unref(d->udev);
	ana_free(d->ana);
	mdns_free(d->mdns);
	if (d->lockfd >= 0)
		close(d->lockfd);
	if (d->mon)
		gpupath_mon_close(d->mon);
	gpupath_conf_free(d->conf);
}

static int run(struct daemon *opts)
{
	struct daemon d = *opts;
	struct gpupath_conf *none;
	pid_t holder = 0;
	int i, r;

	d.metrics = NULL;
	d.lockfd = -1;
	log_info("gpupathd %s starting", gpupath_tools_version());
	dmstack_init();
	r = load_config(&d, &none);
	if (r < 0)
		return r;
	/*
	 * Held while it runs: gpupathd --release-qos (the package's removal)
	 * takes nothing back under a running gpupathd. A gpupathd just told
	 * to stop is given 2 s to end.
	 */
	for (i = 0; (d.lockfd = fabric_lock(&holder)) == -EBUSY && i < 20; i++)
		usleep(100 * 1000);
	if (d.lockfd == -EBUSY)
		log_warn("another gpupathd (pid %d) is running: both set the same things",
			 (int)holder);
	else if (d.lockfd < 0)
		log_errno(d.lockfd, "cannot lock the QoS ledger (gpupathd --release-qos "
			  "would not see this gpupathd run)");
	r = sd_event_new(&d.event);
	if (r < 0)
		return log_errno(r, "cannot create the event loop");
	r = fabric_new(&d.fabric);
	if (r < 0) {
		log_errno(r, "cannot start");
		goto out;
	}
	r = sd_event_add_io(d.event, NULL, fabric_fd(d.fabric), EPOLLIN, on_connect, &d);
	if (r < 0) {
		log_errno(r, "cannot watch connects");
		goto out;
	}
	r = setup_signals(&d);
	if (r < 0)
		goto out;
	r = setup_soon(&d);
	if (r < 0)
		goto out;
	r = watch_links(&d);
	if (r < 0)
		goto out;
	r = watch_uevents(&d);
	if (r >= 0)
		r = setup_mdns(&d);
	if (r < 0)
		goto out;
	r = subscribe(&d);
	if (r < 0)
		goto out;
	r = setup_timer(&d);
	if (r >= 0)
		r = setup_watchdog(&d);
	if (r < 0)
		goto out;
	if (d.metrics_port) {
		r = metrics_open(&d.metrics, d.metrics_port);
		if (r < 0)
			goto out;
	}

	resync(&d);
	notify("READY=1");

	/* The exit code given to sd_event_exit(), or its own failure. */
	r = sd_event_loop(d.event);
	if (r < 0)
		log_errno(r, "the event loop failed");
out:
	teardown(&d);
	return r;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: gpupathd [OPTION]...\n"
		"The gpupath daemon: follows the gpupath kernel module and keeps its\n"
		"configuration in place.\n"
		"\n"
		"  -c, --config FILE       the configuration (default %s)\n"
		"      --check-config      check the configuration, print every mistake\n"
		"                          with its line, and exit (0: none)\n"
		"      --release-qos       with gpupathd stopped, take back every QoS\n"
		"                          setting gpupathd made on the host's devices,\n"
		"                          name each, and exit (0: none is left)\n"
		"  -f, --foreground        stay in the foreground and log to stderr\n"
		"                          (default: daemonize and log to syslog)\n"
		"  -v, --verbose           also log debug messages\n"
		"      --interval SECONDS  period of the background check, 1..%u\n"
		"                          (default %u)\n"
		"      --metrics-port PORT serve the module's counters for Prometheus at\n"
		"                          http://127.0.0.1:PORT/metrics (localhost only)\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"SIGHUP reloads the configuration; a file with mistakes changes nothing.\n",
		GPUPATH_CONF_FILE, INTERVAL_MAX, INTERVAL_DEFAULT);
}

/* A decimal number, 1..@max. */
static int parse_number(const char *s, unsigned int max, unsigned int *v)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || n < 1 || n > max)
		return -EINVAL;
	*v = n;
	return 0;
}

static void check_error(void *arg, unsigned int line, const char *msg)
{
	fprintf(stderr, "%s:%u: %s\n", (const char *)arg, line, msg);
}

/* --check-config: 0 when the file has no mistakes. */
static int check_config(const char *path, bool given)
{
	struct gpupath_conf *conf;
	int r;

	r = gpupath_conf_load(path, &conf, check_error, (void *)path);
	if (r == -ENOENT && !given) {
		printf("%s: absent, so it names nothing\n", path);
		return EXIT_SUCCESS;
	}
	if (r < 0) {
		fprintf(stderr, "gpupathd: cannot read %s: %s\n", path, gpupath_conf_strerror(r));
		return EXIT_FAILURE;
	}
	if (r > 0)
		fprintf(stderr, "%s: %d mistake%s\n", path, r, r == 1 ? "" : "s");
	else
		printf("%s: good: %zu portal%s, %zu QoS class%s\n", path, conf->nportals,
		       conf->nportals == 1 ? "" : "s", conf->nqos, conf->nqos == 1 ? "" : "es");
	gpupath_conf_free(conf);
	return r ? EXIT_FAILURE : EXIT_SUCCESS;
}

enum { OPT_INTERVAL = 256, OPT_CHECK_CONFIG, OPT_METRICS_PORT, OPT_RELEASE_QOS };

static const struct option options[] = {
	{ "config",	required_argument,	NULL, 'c' },
	{ "check-config", no_argument,		NULL, OPT_CHECK_CONFIG },
	{ "release-qos", no_argument,		NULL, OPT_RELEASE_QOS },
	{ "foreground",	no_argument,		NULL, 'f' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "interval",	required_argument,	NULL, OPT_INTERVAL },
	{ "metrics-port", required_argument,	NULL, OPT_METRICS_PORT },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{}
};

int main(int argc, char **argv)
{
	struct daemon d = { .interval = INTERVAL_DEFAULT, .config = GPUPATH_CONF_FILE };
	bool foreground = false, verbose = false, check = false, release = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:fvhV", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			/* Absolute: the daemon runs from / */
			d.config = realpath(optarg, NULL) ?: optarg;
			d.config_given = true;
			break;
		case OPT_CHECK_CONFIG:
			check = true;
			break;
		case OPT_RELEASE_QOS:
			release = true;
			break;
		case 'f':
			foreground = true;
			break;
		case 'v':
			verbose = true;
			break;
		case OPT_INTERVAL:
			if (parse_number(optarg, INTERVAL_MAX, &d.interval) < 0) {
				fprintf(stderr,
					"gpupathd: invalid interval '%s': expected seconds, 1..%u\n",
					optarg, INTERVAL_MAX);
				return 2;
			}
			d.interval_fixed = true;
			break;
		case OPT_METRICS_PORT:
			if (parse_number(optarg, 65535, &d.metrics_port) < 0) {
				fprintf(stderr,
					"gpupathd: invalid metrics port '%s': expected 1..65535\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'V':
			printf("gpupathd %s\n", gpupath_tools_version());
			return EXIT_SUCCESS;
		default:
			/* getopt_long already named the bad option. */
			fprintf(stderr, "Try 'gpupathd --help' for more information.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpupathd: unexpected argument '%s'\n"
			"Try 'gpupathd --help' for more information.\n", argv[optind]);
		return 2;
	}
	if (check && release) {
		fprintf(stderr, "gpupathd: --check-config and --release-qos exclude each other\n"
			"Try 'gpupathd --help' for more information.\n");
		return 2;
	}
	if (check)
		return check_config(d.config, d.config_given);
	if (release)
		return fabric_release_qos() ? EXIT_FAILURE : EXIT_SUCCESS;

	log_open(foreground, verbose);
	if (!foreground && daemon(0, 0) < 0) {
		log_errno(-errno, "cannot daemonize");
		log_close();
		return EXIT_FAILURE;
	}
	r = run(&d);
	log_close();
	return r < 0 ? EXIT_FAILURE : r;
}
