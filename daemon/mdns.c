// SPDX-License-Identifier: GPL-2.0
/*
 * mDNS discovery through Avahi (see mdns.h).
 *
 * Everything Avahi calls back runs in the threaded poll's thread, with the
 * poll's lock held; the daemon's thread takes that lock to read the
 * services and to start or stop browsers.
 */
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-common/address.h>
#include <avahi-common/error.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>

#include "internal.h"
#include "libgpupath-admin.h"
#include "log.h"
#include "mdns.h"

#define SERVICE_TYPE	"_nvme-disc._tcp"
#define DISCOVERY_NQN	"nqn.2014-08.org.nvmexpress.discovery"
#define BROWSERS_MAX	GPUPATH_PORTAL_RAILS_MAX
#define SERVICES_MAX	256

struct browser {
	char iface[IF_NAMESIZE];
	int ifindex;
	AvahiServiceBrowser *b;
};

struct mdns {
	AvahiThreadedPoll *poll;
	AvahiClient *client;
	bool running;			/* the client is connected to avahi-daemon */
	struct browser br[BROWSERS_MAX];
	size_t nbr;
	struct mdns_service svc[SERVICES_MAX];
	int svc_ifindex[SERVICES_MAX];
	size_t nsvc;
	int efd;
};

int mdns_new(struct mdns **m)
{
	*m = calloc(1, sizeof(**m));
	if (!*m)
		return -ENOMEM;
	(*m)->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if ((*m)->efd < 0) {
		int r = -errno;

		free(*m);
		*m = NULL;
		return r;
	}
	return 0;
}

void mdns_free(struct mdns *m)
{
	size_t i;

	if (!m)
		return;
	if (m->poll) {
		avahi_threaded_poll_stop(m->poll);
		for (i = 0; i < m->nbr; i++)
			if (m->br[i].b)
				avahi_service_browser_free(m->br[i].b);
		if (m->client)
			avahi_client_free(m->client);
		avahi_threaded_poll_free(m->poll);
	}
	close(m->efd);
	free(m);
}

int mdns_fd(const struct mdns *m)
{
	return m->efd;
}

void mdns_drain(struct mdns *m)
{
	uint64_t n;

	while (read(m->efd, &n, sizeof(n)) > 0)
		;
}

static void changed(struct mdns *m)
{
	uint64_t one = 1;

	if (write(m->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_errno(-errno, "mDNS: cannot wake the loop");
}

/* "key=value" in @txt's @n strings: value of @key, or NULL. */
static const char *txt_get(const char *const *txt, size_t n, const char *key)
{
	size_t klen = strlen(key), i;

	for (i = 0; i < n; i++)
		if (!strncasecmp(txt[i], key, klen) && txt[i][klen] == '=')
			return txt[i] + klen + 1;
	return NULL;
}

int mdns_txt_check(const char *const *txt, size_t n, uint32_t *transport, char *why,
		   size_t size)
{
	const char *nqn = txt_get(txt, n, "nqn"), *p = txt_get(txt, n, "p");

	if (!nqn || strcmp(nqn, DISCOVERY_NQN)) {
		snprintf(why, size, "not a discovery controller (nqn=%.64s)", nqn ? nqn : "none");
		return -EINVAL;
	}
	if (p && !strcasecmp(p, "tcp")) {
		*transport = GPUPATH_TRANSPORT_TCP;
	} else if (p && !strcasecmp(p, "roce")) {
		*transport = GPUPATH_TRANSPORT_RDMA;
	} else {
		snprintf(why, size, "unknown transport (p=%.16s; tcp or roce)", p ? p : "none");
		return -EINVAL;
	}
	return 0;
}

static struct browser *browser_of(struct mdns *m, int ifindex)
{
	size_t i;

	for (i = 0; i < m->nbr; i++)
		if (m->br[i].ifindex == ifindex)
			return &m->br[i];
	return NULL;
}

static void svc_forget(struct mdns *m, int ifindex, const char *name)
{
	size_t i, k;

	for (i = k = 0; i < m->nsvc; i++) {
		if (m->svc_ifindex[i] == ifindex && (!name || !strcmp(m->svc[i].name, name)))
			continue;
		m->svc[k] = m->svc[i];
		m->svc_ifindex[k++] = m->svc_ifindex[i];
	}
	if (k != m->nsvc) {
		m->nsvc = k;
		changed(m);
	}
}

static void on_resolved(AvahiServiceResolver *r, AvahiIfIndex ifindex, AvahiProtocol proto,
			AvahiResolverEvent event, const char *name, const char *type,
			const char *domain, const char *host, const AvahiAddress *a,
			uint16_t port, AvahiStringList *txt, AvahiLookupResultFlags flags,
			void *userdata)
{
	struct mdns *m = userdata;
	struct browser *br = browser_of(m, ifindex);
	const char *strs[32];
	char addr[AVAHI_ADDRESS_STR_MAX], why[128];
	struct mdns_service *s;
	AvahiStringList *l;
	uint32_t transport;
	size_t n = 0;

	(void)proto;
	(void)type;
	(void)domain;
	(void)flags;
	if (!br) {
		avahi_service_resolver_free(r);
		return;
	}
	if (event != AVAHI_RESOLVER_FOUND) {
		log_warn("mDNS: %s on %s: cannot resolve it: %s", name, br->iface,
			 avahi_strerror(avahi_client_errno(m->client)));
		avahi_service_resolver_free(r);
		return;
	}
	for (l = txt; l && n < sizeof(strs) / sizeof(*strs); l = avahi_string_list_get_next(l))
		strs[n++] = (const char *)avahi_string_list_get_text(l);
	avahi_address_snprint(addr, sizeof(addr), a);
	svc_forget(m, ifindex, name);
	if (mdns_txt_check(strs, n, &transport, why, sizeof(why))) {
		log_warn("mDNS: %s on %s (%s, %s:%u): %s; left out", name, br->iface, host, addr,
			 port, why);
	} else if (!port) {
		log_warn("mDNS: %s on %s (%s, %s): no port; left out", name, br->iface, host, addr);
	} else if (m->nsvc == SERVICES_MAX) {
		log_warn("mDNS: %s on %s: more than %u services; left out", name, br->iface,
			 SERVICES_MAX);
	} else {
		s = &m->svc[m->nsvc];
		memset(s, 0, sizeof(*s));
		memcpy(s->iface, br->iface, sizeof(s->iface));	/* both IF_NAMESIZE */
		snprintf(s->name, sizeof(s->name), "%s", name);
		snprintf(s->traddr, sizeof(s->traddr), "%s", addr);
		s->trsvcid = port;
		s->transport = transport;
		m->svc_ifindex[m->nsvc++] = ifindex;
		log_info("mDNS: %s on %s: %s discovery controller at %s:%u", name, br->iface,
			 gpupath_transport_name(transport), addr, port);
		changed(m);
	}
	avahi_service_resolver_free(r);
}

/*
 * Each record is resolved once it appears (TXT strings are NUL-terminated:
 * Avahi keeps a NUL after each). One that goes is forgotten.
 */
static void on_browse(AvahiServiceBrowser *b, AvahiIfIndex ifindex, AvahiProtocol proto,
		      AvahiBrowserEvent event, const char *name, const char *type,
		      const char *domain, AvahiLookupResultFlags flags, void *userdata)
{
	struct mdns *m = userdata;
	struct browser *br = browser_of(m, ifindex);

	(void)b;
	(void)flags;
	switch (event) {
	case AVAHI_BROWSER_NEW:
		if (!avahi_service_resolver_new(m->client, ifindex, proto, name, type, domain,
						AVAHI_PROTO_UNSPEC, 0, on_resolved, m))
			log_warn("mDNS: %s: cannot resolve it: %s", name,
				 avahi_strerror(avahi_client_errno(m->client)));
		break;
	case AVAHI_BROWSER_REMOVE:
		log_info("mDNS: %s on %s withdrawn", name, br ? br->iface : "?");
		svc_forget(m, ifindex, name);
		break;
	case AVAHI_BROWSER_FAILURE:
		log_warn("mDNS: browsing on %s failed: %s", br ? br->iface : "?",
			 avahi_strerror(avahi_client_errno(m->client)));
		break;
	default:
		break;
	}
}

/* Browsers for the wanted interfaces that have none (the client running). */
static void browsers_start(struct mdns *m)
{
	size_t i;

	for (i = 0; m->running && i < m->nbr; i++) {
		if (m->br[i].b || !m->br[i].ifindex)
			continue;
		m->br[i].b = avahi_service_browser_new(m->client, m->br[i].ifindex,
						       AVAHI_PROTO_UNSPEC, SERVICE_TYPE, NULL, 0,
						       on_browse, m);
		if (!m->br[i].b)
			log_warn("mDNS: cannot browse on %s: %s", m->br[i].iface,
				 avahi_strerror(avahi_client_errno(m->client)));
		else
			log_info("mDNS: browsing %s on %s", SERVICE_TYPE, m->br[i].iface);
	}
}

static void on_client(AvahiClient *c, AvahiClientState state, void *userdata)
{
	struct mdns *m = userdata;
	size_t i;

	m->client = c;		/* (called before avahi_client_new() returns) */
	switch (state) {
	case AVAHI_CLIENT_S_RUNNING:
		if (!m->running)
			log_info("mDNS: connected to avahi-daemon");
		m->running = true;
		browsers_start(m);
		break;
	case AVAHI_CLIENT_CONNECTING:
	case AVAHI_CLIENT_FAILURE:
		if (state == AVAHI_CLIENT_CONNECTING)
			log_warn("mDNS: avahi-daemon is not running; waiting for it");
		else
			log_warn("mDNS: avahi-daemon: %s", avahi_strerror(avahi_client_errno(c)));
		m->running = false;
		for (i = 0; i < m->nbr; i++) {
			if (m->br[i].b)
				avahi_service_browser_free(m->br[i].b);
			m->br[i].b = NULL;
		}
		if (m->nsvc) {
			m->nsvc = 0;
			changed(m);
		}
		break;
	default:
		break;
	}
}

static int start(struct mdns *m)
{
	int err = 0;

	m->poll = avahi_threaded_poll_new();
	if (!m->poll)
		return log_errno(-ENOMEM, "mDNS: cannot start Avahi's poll");
	/* (the client's callbacks may run before the thread does: no lock yet) */
	m->client = avahi_client_new(avahi_threaded_poll_get(m->poll), AVAHI_CLIENT_NO_FAIL,
				     on_client, m, &err);
	if (!m->client) {
		log_warn("mDNS: cannot use avahi-daemon: %s", avahi_strerror(err));
		avahi_threaded_poll_free(m->poll);
		m->poll = NULL;
		return -EIO;
	}
	if (avahi_threaded_poll_start(m->poll) < 0) {
		avahi_client_free(m->client);
		m->client = NULL;
		avahi_threaded_poll_free(m->poll);
		m->poll = NULL;
		return log_errno(-EIO, "mDNS: cannot start Avahi's thread");
	}
	return 0;
}

void mdns_watch(struct mdns *m, const char *const *ifaces, size_t n)
{
	struct browser keep[BROWSERS_MAX];
	size_t i, j, k = 0;

	if (!m->poll && (!n || start(m) < 0))
		return;
	avahi_threaded_poll_lock(m->poll);
	for (i = 0; i < n && k < BROWSERS_MAX; i++) {
		for (j = 0; j < k; j++)
			if (!strcmp(keep[j].iface, ifaces[i]))
				break;
		if (j < k)
			continue;
		memset(&keep[k], 0, sizeof(keep[k]));
		snprintf(keep[k].iface, sizeof(keep[k].iface), "%s", ifaces[i]);
		keep[k].ifindex = (int)if_nametoindex(ifaces[i]);
		for (j = 0; j < m->nbr; j++) {
			if (!strcmp(m->br[j].iface, ifaces[i]) && m->br[j].ifindex == keep[k].ifindex) {
				keep[k].b = m->br[j].b;
				m->br[j].b = NULL;
			}
		}
		k++;
	}
	for (j = 0; j < m->nbr; j++) {
		if (m->br[j].b)
			avahi_service_browser_free(m->br[j].b);
		for (i = 0; i < k; i++)
			if (keep[i].ifindex == m->br[j].ifindex)
				break;
		if (i == k)
			svc_forget(m, m->br[j].ifindex, NULL);
	}
	memcpy(m->br, keep, k * sizeof(*keep));
	m->nbr = k;
	browsers_start(m);
	avahi_threaded_poll_unlock(m->poll);
}

size_t mdns_services(struct mdns *m, const char *iface, uint32_t transport,
		     struct mdns_service *out, size_t max)
{
	size_t i, n = 0;

	if (!m->poll)
		return 0;
	avahi_threaded_poll_lock(m->poll);
	for (i = 0; i < m->nsvc; i++) {
		if (strcmp(m->svc[i].iface, iface) || m->svc[i].transport != transport)
			continue;
		if (n < max)
			out[n] = m->svc[i];
		n++;
	}
	avahi_threaded_poll_unlock(m->poll);
	return n;
}
