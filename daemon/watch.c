// SPDX-License-Identifier: GPL-2.0
/*
 * The host's interfaces, as the fabric sees them (fabric-internal.h): their
 * addresses, read at the start of each pass, and their carriers, read then
 * and kept current by the link changes rtnetlink reports to the daemon's
 * loop (fabric_link()). A rail without carrier has its paths marked link
 * down at once, and nothing is connected from it until the link is back.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "fabric-internal.h"
#include "internal.h"
#include "log.h"

static void link_note(struct links *l, const char *iface, bool running)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->link[i].name, iface))
			break;
	if (i == l->n) {
		if (l->n == LINKS_MAX)
			return;
		cpy(l->link[l->n++].name, IF_NAMESIZE, iface);
	}
	l->link[i].running = running;
}

void links_read(struct fabric *f)
{
	struct links *l = &f->links;
	struct ifaddrs *i;

	l->n = 0;
	links_free(f);
	if (getifaddrs(&l->addrs) < 0) {
		l->addrs = NULL;
		return;
	}
	for (i = l->addrs; i; i = i->ifa_next)
		link_note(l, i->ifa_name, (i->ifa_flags & IFF_UP) && (i->ifa_flags & IFF_RUNNING));
}

void links_free(struct fabric *f)
{
	if (f->links.addrs)
		freeifaddrs(f->links.addrs);
	f->links.addrs = NULL;
}

bool ifaddr_find(const struct fabric *f, const char *iface, const char *addr, int family,
		 char *iface_out, size_t iface_size, char *addr_out, size_t addr_size)
{
	if (!f->links.addrs)
		return gpupath_ifaddr_find(iface, addr, family, iface_out, iface_size, addr_out,
					   addr_size);
	return gpupath_ifaddr_find_in(f->links.addrs, iface, addr, family, iface_out, iface_size,
				      addr_out, addr_size);
}

bool iface_running(const struct fabric *f, const char *iface)
{
	const struct links *l = &f->links;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->link[i].name, iface))
			return l->link[i].running;
	return true;
}

void iface_addr(const struct fabric *f, const char *iface, const char *traddr, char *buf,
		size_t size)
{
	buf[0] = 0;
	ifaddr_find(f, iface, NULL, strchr(traddr, ':') ? AF_INET6 : AF_INET, NULL, 0, buf, size);
}

/* The interface that has address @addr, into @iface ("" when none has). */
static void addr_iface(const struct fabric *f, const char *addr, char *iface, size_t size)
{
	iface[0] = 0;
	ifaddr_find(f, NULL, addr, AF_UNSPEC, iface, size, NULL, 0);
}

bool iface_subnet_has(const struct fabric *f, const char *iface, const char *addr)
{
	return gpupath_ifaddr_subnet_in(f->links.addrs, iface, addr, NULL, 0);
}

bool rail_iface(const struct fabric *f, const struct gpupath_portal_rail *rail, char *iface,
		size_t size)
{
	cpy(iface, size, rail->iface);
	if (!iface[0] && rail->addr[0])
		addr_iface(f, rail->addr, iface, size);
	return iface[0];
}

bool fabric_link(struct fabric *f, struct gpupath_ctl *ctl, const char *ifname, bool up)
{
	size_t i;

	link_note(&f->links, ifname, up);
	for (i = 0; i < f->nconns; i++)
		if (f->conns[i].seen && !strcmp(f->conns[i].iface, ifname))
			break;
	if (i == f->nconns)
		return false;	/* no rail of ours */
	log_debug("rail interface %s: link %s at %.3f s", ifname, up ? "up" : "down",
		  now_ms() / 1e3);
	paths_link(f, ctl, ifname, up);
	return true;
}
