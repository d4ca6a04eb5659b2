/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mDNS discovery (NVMe TP8009) through Avahi: the "_nvme-disc._tcp"
 * services announced on the rails' interfaces, for portals with
 * "discover mdns". avahi-daemon does the multicast; libavahi-client's
 * threaded poll runs the browsers and resolvers in a thread of its own, and
 * a change wakes the daemon's loop through an eventfd.
 *
 * A service is a discovery controller when its TXT record says so
 * ("nqn=nqn.2014-08.org.nvmexpress.discovery") and names a transport
 * ("p=tcp" or "p=roce"); others are logged once and left out.
 */
#ifndef GPUPATHD_MDNS_H
#define GPUPATHD_MDNS_H

#include <stddef.h>
#include <stdint.h>

struct mdns;

/* One discovery controller found: where, and on which interface. */
struct mdns_service {
	char iface[16];
	char name[64];			/* the service instance's name */
	char traddr[48];
	uint32_t trsvcid;
	uint32_t transport;		/* enum gpupath_transport */
};

/* Nothing runs until mdns_watch() names an interface. */
int mdns_new(struct mdns **m);
void mdns_free(struct mdns *m);

/* Readable when the services changed; mdns_drain() empties it. */
int mdns_fd(const struct mdns *m);
void mdns_drain(struct mdns *m);

/*
 * Browse on exactly these @n interfaces (names); browsers of others stop
 * and their services are forgotten. The first call with one starts Avahi's
 * client (avahi-daemon not running: it waits for it, and says so).
 */
void mdns_watch(struct mdns *m, const char *const *ifaces, size_t n);

/*
 * The discovery controllers found on @iface for @transport, up to @max
 * into @out; how many there are.
 */
size_t mdns_services(struct mdns *m, const char *iface, uint32_t transport,
		     struct mdns_service *out, size_t max);

/*
 * TP8009's TXT record of a service, as "key=value" strings: its transport
 * into *@transport. 0, or -EINVAL with the reason in @why (not a discovery
 * controller, unknown transport).
 */
int mdns_txt_check(const char *const *txt, size_t n, uint32_t *transport, char *why,
		   size_t size);

#endif /* GPUPATHD_MDNS_H */
