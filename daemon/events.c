// SPDX-License-Identifier: GPL-2.0
/*
 * What wakes gpupathd's loop besides signals and timers (gpupathd.h): the
 * gpupath netlink notifications (and the module coming and going),
 * rtnetlink link changes, the uevents of nvme controllers and namespaces
 * and of dm disks, mDNS announcements, and the end of a connect or
 * discovery child. Most bring a reconcile pass soon; a rail's carrier is
 * acted on at once.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <libudev.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "fabric.h"
#include "gpupathd.h"
#include "log.h"
#include "mdns.h"

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

int subscribe(struct daemon *d)
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

int watch_links(struct daemon *d)
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

int watch_uevents(struct daemon *d)
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

/* ---- mDNS and children --------------------------------------------------- */

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

int setup_mdns(struct daemon *d)
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

/* A connect or discovery child ended: a pass takes its result. */
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

int watch_children(struct daemon *d)
{
	int r = sd_event_add_io(d->event, NULL, fabric_fd(d->fabric), EPOLLIN, on_connect, d);

	if (r < 0)
		return log_errno(r, "cannot watch connects");
	return 0;
}
