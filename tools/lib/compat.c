// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Version node LIBGPUPATH_0, the interface as first released, for the
 * programs linked against it: the functions whose structures have changed
 * since, as they were. Their default versions, in LIBGPUPATH_0.2, take the
 * size of the caller's structures; these fill and read the structures laid
 * out as that release laid them out, declared below under their own names
 * (today's are included under other names, *_now, so that this file sees
 * both). The .symver directives give each its name and version.
 *
 * These layouts never change. selftests/abi-check.sh compares them with the
 * release's ABI (selftests/abi/): abidiff does not compare the non-default
 * versions of a symbol, so the check builds this file with GPUPATH_ABI_VIEW,
 * which makes these functions the default versions of a library of their
 * own, and compares that.
 *
 * gpupath_info, gpupath_route and gpupath_qos are as released, and so are the
 * structures the changed ones hold (gpupath_peer, gpupath_path_stats, ...):
 * should one of them change, its release layout moves here too.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define gpupath_provider	gpupath_provider_now
#define gpupath_path		gpupath_path_now
#define gpupath_volume		gpupath_volume_now
#define gpupath_portal		gpupath_portal_now
#define gpupath_path_conf	gpupath_path_conf_now
#define gpupath_portal_conf	gpupath_portal_conf_now
#define gpupath_stats		gpupath_stats_now
#define gpupath_mon_event	gpupath_mon_event_now
#define gpupath_event_fn	gpupath_event_fn_now
#include "libgpupath-admin.h"
#include "objects.h"
#undef gpupath_provider
#undef gpupath_path
#undef gpupath_volume
#undef gpupath_portal
#undef gpupath_path_conf
#undef gpupath_portal_conf
#undef gpupath_stats
#undef gpupath_mon_event
#undef gpupath_event_fn

#ifdef GPUPATH_ABI_VIEW
#define LIBGPUPATH_0(fn, name) __asm__(".symver " #fn ", " #name "@@LIBGPUPATH_0")
#else
#define LIBGPUPATH_0(fn, name) __asm__(".symver " #fn ", " #name "@LIBGPUPATH_0")
#endif
#define EXPORT __attribute__((visibility("default")))

/* ---- the structures as released ----------------------------------------- */

struct gpupath_provider {
	uint32_t id;
	uint32_t type;
	char pci_dev[16];
	char driver[32];
	bool owned;
	int bar;
	unsigned int npeers;
	struct gpupath_peer peers[GPUPATH_PEERS_MAX];
	uint64_t size;
	uint64_t allocated;
	uint64_t available;
	uint64_t direct_ios;
	uint64_t direct_bytes;
	uint64_t errors;
	uint64_t refused_ios[GPUPATH_REASONS_KNOWN];
	uint64_t refused_bytes[GPUPATH_REASONS_KNOWN];
};

struct gpupath_path {
	uint32_t id;
	uint32_t volume;
	char device[32];
	uint32_t state;
	uint32_t health;
	uint32_t weight;
	uint32_t rail;
	uint32_t link;
	char transport[16];
	char controller[32];
	char dma_dev[16];
	uint32_t reason;
	struct gpupath_path_stats stats;
};

struct gpupath_volume {
	uint32_t id;
	char name[32];
	char wwid[256];
	uint32_t policy;
	uint32_t fallback;
	uint32_t queue_timeout;
	uint64_t size;
	uint32_t block_size;
	uint32_t mode;
	uint32_t open;
	uint32_t paths;
	uint32_t usable;
	struct gpupath_volume_stats stats;
	unsigned int npaths;
	struct gpupath_path path[GPUPATH_VOLUME_PATHS_MAX];
};

/* The bits of enum gpupath_path_set the release had. */
#define PATH_SET_0	((1u << 4) - 1)

struct gpupath_path_conf {
	uint32_t set;
	uint32_t state;
	uint32_t weight;
	uint32_t rail;
	uint32_t link;
};

struct gpupath_portal {
	uint32_t id;
	char name[GPUPATH_NAME_LEN];
	uint32_t transport;
	char traddr[48];
	uint32_t trsvcid;
	char subsysnqn[224];
	bool discovery;
	char qos[GPUPATH_NAME_LEN];
	uint32_t ctrl_loss_tmo;
	uint32_t fast_io_fail_tmo;
	uint32_t reconnect_delay;
	uint32_t nr_io_queues;
	unsigned int nrails;
	struct gpupath_portal_rail rail[GPUPATH_PORTAL_RAILS_MAX];
	unsigned int nconns;
	struct gpupath_portal_conn conn[GPUPATH_PORTAL_CONNS_MAX];
};

/* The bits of enum gpupath_portal_set the release had. */
#define PORTAL_SET_0	((1u << 8) - 1)

struct gpupath_portal_conf {
	uint32_t set;
	const char *name;
	uint32_t transport;
	const char *traddr;
	const char *subsysnqn;
	uint32_t trsvcid;
	const char *qos;
	uint32_t ctrl_loss_tmo;
	uint32_t fast_io_fail_tmo;
	uint32_t reconnect_delay;
	uint32_t nr_io_queues;
	unsigned int nrails;
	struct gpupath_portal_rail rail[GPUPATH_PORTAL_RAILS_MAX];
	unsigned int nconns;
	const struct gpupath_portal_conn *conn;
};

struct gpupath_stats {
	struct gpupath_provider *prov;
	size_t nprov;
	struct gpupath_volume *vol;
	size_t nvol;
	struct gpupath_portal *portal;
	size_t nportal;
	struct gpupath_qos *qos;
	size_t nqos;
};

struct gpupath_mon_event {
	enum gpupath_event_type type;
	const char *group;
	uint8_t cmd;
	bool has_info;
	struct gpupath_info info;
	bool has_provider;
	struct gpupath_provider provider;
	bool has_volume;
	struct gpupath_volume volume;
	bool has_path;
	struct gpupath_path path;
	bool has_event;
	struct gpupath_volume_event event;
	bool has_portal;
	struct gpupath_portal portal;
	bool has_qos;
	struct gpupath_qos qos;
};

typedef void (*gpupath_event_fn)(const struct gpupath_mon_event *ev, void *arg);

/*
 * Today's provider, path and portal (and confs) begin with the release's:
 * members were only added at their end. A volume's paths are as long as a
 * path, so today's volume begins with the release's only up to its paths.
 */
#define SAME_OFFSET(type, member) \
	_Static_assert(offsetof(struct type, member) == offsetof(struct type##_now, member), \
		       #type "." #member " moved")
SAME_OFFSET(gpupath_provider, refused_bytes);
SAME_OFFSET(gpupath_path, stats);
SAME_OFFSET(gpupath_volume, npaths);
SAME_OFFSET(gpupath_volume, path);
SAME_OFFSET(gpupath_path_conf, link);
SAME_OFFSET(gpupath_portal, conn);
SAME_OFFSET(gpupath_portal_conf, conn);
_Static_assert(sizeof(struct gpupath_provider) <= offsetof(struct gpupath_provider_now, user_limit),
	       "provider");
_Static_assert(sizeof(struct gpupath_path) <= offsetof(struct gpupath_path_now, ana_state),
	       "path");
_Static_assert(sizeof(struct gpupath_portal) <= offsetof(struct gpupath_portal_now, host_nqn),
	       "portal");

/* ---- between the two ------------------------------------------------------ */

static void volume_to_0(struct gpupath_volume *v0, const struct gpupath_volume_now *v)
{
	unsigned int i;

	memset(v0, 0, sizeof(*v0));
	memcpy(v0, v, offsetof(struct gpupath_volume, path));
	for (i = 0; i < GPUPATH_VOLUME_PATHS_MAX; i++)
		memcpy(&v0->path[i], &v->path[i], sizeof(v0->path[i]));
}

static void volume_from_0(struct gpupath_volume_now *v, const struct gpupath_volume *v0)
{
	unsigned int i;

	memset(v, 0, sizeof(*v));
	memcpy(v, v0, offsetof(struct gpupath_volume, path));
	for (i = 0; i < GPUPATH_VOLUME_PATHS_MAX; i++)
		memcpy(&v->path[i], &v0->path[i], sizeof(v0->path[i]));
}

/* A dump of today's volumes as an array of the release's, in place of it. */
static int volumes_to_0(struct gpupath_volume_now *list, size_t n, struct gpupath_volume **out)
{
	size_t i;

	*out = NULL;
	if (n) {
		*out = calloc(n, sizeof(**out));
		if (!*out) {
			free(list);
			return -ENOMEM;
		}
	}
	for (i = 0; i < n; i++)
		volume_to_0(&(*out)[i], &list[i]);
	free(list);
	return 0;
}

/* A release's conf with the bits it knew of (nothing past it is read). */
static void path_conf_from_0(struct gpupath_path_conf_now *c, const struct gpupath_path_conf *c0)
{
	memset(c, 0, sizeof(*c));
	memcpy(c, c0, sizeof(*c0));
	c->set &= PATH_SET_0;
}

static void portal_conf_from_0(struct gpupath_portal_conf_now *c,
			       const struct gpupath_portal_conf *c0)
{
	memset(c, 0, sizeof(*c));
	memcpy(c, c0, sizeof(*c0));
	c->set &= PORTAL_SET_0;
}

/* ---- LIBGPUPATH_0 ------------------------------------------------------- */

EXPORT int compat_ctl_get_info(struct gpupath_ctl *ctl, struct gpupath_info *info)
{
	return gpupath_ctl_get_info(ctl, info, sizeof(*info));
}
LIBGPUPATH_0(compat_ctl_get_info, gpupath_ctl_get_info);

EXPORT int compat_ctl_route(struct gpupath_ctl *ctl, uint32_t provider, const char *target,
			    uint32_t op, struct gpupath_route *route)
{
	return gpupath_ctl_route(ctl, provider, target, op, route, sizeof(*route));
}
LIBGPUPATH_0(compat_ctl_route, gpupath_ctl_route);

EXPORT int compat_ctl_provider_list(struct gpupath_ctl *ctl, struct gpupath_provider **list,
				    size_t *count)
{
	struct gpupath_provider_now *items;
	int r = gpupath_ctl_provider_list(ctl, &items, sizeof(**list), count);

	*list = (struct gpupath_provider *)items;
	return r;
}
LIBGPUPATH_0(compat_ctl_provider_list, gpupath_ctl_provider_list);

EXPORT int compat_ctl_provider_get(struct gpupath_ctl *ctl, uint32_t id,
				   struct gpupath_provider *prov)
{
	return gpupath_ctl_provider_get(ctl, id, (struct gpupath_provider_now *)prov,
					sizeof(*prov));
}
LIBGPUPATH_0(compat_ctl_provider_get, gpupath_ctl_provider_get);

EXPORT int compat_ctl_provider_add(struct gpupath_ctl *ctl, const char *pci_dev,
				   struct gpupath_provider *prov)
{
	return gpupath_ctl_provider_add(ctl, pci_dev, (struct gpupath_provider_now *)prov,
					sizeof(*prov));
}
LIBGPUPATH_0(compat_ctl_provider_add, gpupath_ctl_provider_add);

EXPORT int compat_ctl_volume_list(struct gpupath_ctl *ctl, struct gpupath_volume **list,
				  size_t *count)
{
	struct gpupath_volume_now *now;
	int r;

	*list = NULL;
	r = gpupath_ctl_volume_list(ctl, &now, sizeof(*now), count);
	if (r < 0)
		return r;
	r = volumes_to_0(now, *count, list);
	if (r < 0)
		*count = 0;
	return r;
}
LIBGPUPATH_0(compat_ctl_volume_list, gpupath_ctl_volume_list);

EXPORT int compat_ctl_volume_get(struct gpupath_ctl *ctl, uint32_t id,
				 struct gpupath_volume *vol)
{
	struct gpupath_volume_now *now = malloc(sizeof(*now));
	int r;

	if (!now)
		return -ENOMEM;
	r = gpupath_ctl_volume_get(ctl, id, now, sizeof(*now));
	if (r == 0)
		volume_to_0(vol, now);
	free(now);
	return r;
}
LIBGPUPATH_0(compat_ctl_volume_get, gpupath_ctl_volume_get);

EXPORT int compat_ctl_volume_add(struct gpupath_ctl *ctl, const struct gpupath_volume_conf *conf,
				 struct gpupath_volume *vol)
{
	struct gpupath_volume_now *now = NULL;
	int r;

	if (vol) {
		now = malloc(sizeof(*now));
		if (!now)
			return -ENOMEM;
	}
	r = gpupath_ctl_volume_add(ctl, conf, now, sizeof(*now));
	if (r == 0 && vol)
		volume_to_0(vol, now);
	free(now);
	return r;
}
LIBGPUPATH_0(compat_ctl_volume_add, gpupath_ctl_volume_add);

EXPORT int compat_ctl_path_list(struct gpupath_ctl *ctl, uint32_t volume,
				struct gpupath_path **list, size_t *count)
{
	struct gpupath_path_now *items;
	int r = gpupath_ctl_path_list(ctl, volume, &items, sizeof(**list), count);

	*list = (struct gpupath_path *)items;
	return r;
}
LIBGPUPATH_0(compat_ctl_path_list, gpupath_ctl_path_list);

EXPORT int compat_ctl_path_get(struct gpupath_ctl *ctl, uint32_t id, struct gpupath_path *path)
{
	return gpupath_ctl_path_get(ctl, id, (struct gpupath_path_now *)path, sizeof(*path));
}
LIBGPUPATH_0(compat_ctl_path_get, gpupath_ctl_path_get);

EXPORT int compat_ctl_path_add(struct gpupath_ctl *ctl, uint32_t volume, const char *device,
			       const struct gpupath_path_conf *conf, struct gpupath_path *path)
{
	struct gpupath_path_conf_now c;

	if (conf)
		path_conf_from_0(&c, conf);
	return gpupath_ctl_path_add(ctl, volume, device, conf ? &c : NULL,
				    (struct gpupath_path_now *)path, sizeof(*path));
}
LIBGPUPATH_0(compat_ctl_path_add, gpupath_ctl_path_add);

EXPORT int compat_ctl_path_set(struct gpupath_ctl *ctl, uint32_t id,
			       const struct gpupath_path_conf *conf)
{
	struct gpupath_path_conf_now c;

	if (conf)
		path_conf_from_0(&c, conf);
	return gpupath_ctl_path_set(ctl, id, conf ? &c : NULL);
}
LIBGPUPATH_0(compat_ctl_path_set, gpupath_ctl_path_set);

EXPORT int compat_ctl_portal_list(struct gpupath_ctl *ctl, struct gpupath_portal **list,
				  size_t *count)
{
	struct gpupath_portal_now *items;
	int r = gpupath_ctl_portal_list(ctl, &items, sizeof(**list), count);

	*list = (struct gpupath_portal *)items;
	return r;
}
LIBGPUPATH_0(compat_ctl_portal_list, gpupath_ctl_portal_list);

EXPORT int compat_ctl_portal_get(struct gpupath_ctl *ctl, uint32_t id, const char *name,
				 struct gpupath_portal *portal)
{
	return gpupath_ctl_portal_get(ctl, id, name, (struct gpupath_portal_now *)portal,
				      sizeof(*portal));
}
LIBGPUPATH_0(compat_ctl_portal_get, gpupath_ctl_portal_get);

EXPORT int compat_ctl_portal_add(struct gpupath_ctl *ctl, const struct gpupath_portal_conf *conf,
				 struct gpupath_portal *portal)
{
	struct gpupath_portal_conf_now c;

	portal_conf_from_0(&c, conf);
	return gpupath_ctl_portal_add(ctl, &c, (struct gpupath_portal_now *)portal,
				      sizeof(*portal));
}
LIBGPUPATH_0(compat_ctl_portal_add, gpupath_ctl_portal_add);

EXPORT int compat_ctl_portal_set(struct gpupath_ctl *ctl, uint32_t id, const char *name,
				 const struct gpupath_portal_conf *conf)
{
	struct gpupath_portal_conf_now c;

	if (conf)
		portal_conf_from_0(&c, conf);
	return gpupath_ctl_portal_set(ctl, id, name, conf ? &c : NULL);
}
LIBGPUPATH_0(compat_ctl_portal_set, gpupath_ctl_portal_set);

EXPORT int compat_ctl_qos_list(struct gpupath_ctl *ctl, struct gpupath_qos **list,
			       size_t *count)
{
	return gpupath_ctl_qos_list(ctl, list, sizeof(**list), count);
}
LIBGPUPATH_0(compat_ctl_qos_list, gpupath_ctl_qos_list);

EXPORT int compat_ctl_qos_get(struct gpupath_ctl *ctl, const char *name, struct gpupath_qos *qos)
{
	return gpupath_ctl_qos_get(ctl, name, qos, sizeof(*qos));
}
LIBGPUPATH_0(compat_ctl_qos_get, gpupath_ctl_qos_get);

EXPORT int compat_ctl_qos_add(struct gpupath_ctl *ctl, const char *name,
			      const struct gpupath_qos_conf *conf, struct gpupath_qos *qos)
{
	return gpupath_ctl_qos_add(ctl, name, conf, qos, sizeof(*qos));
}
LIBGPUPATH_0(compat_ctl_qos_add, gpupath_ctl_qos_add);

/* ---- every counter at once, as the release kept it ------------------------- */

EXPORT void compat_stats_free(struct gpupath_stats *s)
{
	free(s->prov);
	free(s->vol);
	free(s->portal);
	free(s->qos);
	memset(s, 0, sizeof(*s));
}
LIBGPUPATH_0(compat_stats_free, gpupath_stats_free);

EXPORT int compat_stats_get(struct gpupath_ctl *ctl, struct gpupath_stats *s, const char **what)
{
	struct gpupath_volume_now *vol;
	int r;

	memset(s, 0, sizeof(*s));
	*what = "provider dump";
	r = compat_ctl_provider_list(ctl, &s->prov, &s->nprov);
	if (r >= 0) {
		*what = "volume dump";
		r = gpupath_ctl_volume_list(ctl, &vol, sizeof(*vol), &s->nvol);
		if (r >= 0)
			r = volumes_to_0(vol, s->nvol, &s->vol);
	}
	if (r >= 0) {
		*what = "portal dump";
		r = compat_ctl_portal_list(ctl, &s->portal, &s->nportal);
	}
	if (r >= 0) {
		*what = "qos dump";
		r = gpupath_ctl_qos_list(ctl, &s->qos, sizeof(*s->qos), &s->nqos);
	}
	if (r < 0)
		compat_stats_free(s);
	return r;
}
LIBGPUPATH_0(compat_stats_get, gpupath_stats_get);

/* @n structures of @size0 bytes as today's (zeros past them). */
static void *items_from_0(const void *items, size_t n, size_t size0, size_t size)
{
	char *out = calloc(n ? n : 1, size);
	size_t i;

	for (i = 0; out && i < n; i++)
		memcpy(out + i * size, (const char *)items + i * size0, size0);
	return out;
}

EXPORT int compat_stats_prometheus(const struct gpupath_stats *s0, FILE *f)
{
	struct gpupath_stats_now s = { 0 };
	size_t i;
	int r = -ENOMEM;

	s.prov = items_from_0(s0->prov, s0->nprov, sizeof(*s0->prov), sizeof(*s.prov));
	s.vol = calloc(s0->nvol ? s0->nvol : 1, sizeof(*s.vol));
	s.portal = items_from_0(s0->portal, s0->nportal, sizeof(*s0->portal), sizeof(*s.portal));
	if (s.prov && s.vol && s.portal) {
		for (i = 0; i < s0->nvol; i++)
			volume_from_0(&s.vol[i], &s0->vol[i]);
		s.nprov = s0->nprov;
		s.nvol = s0->nvol;
		s.nportal = s0->nportal;
		s.qos = s0->qos;
		s.nqos = s0->nqos;
		r = gpupath_stats_prometheus(&s, f);
	}
	free(s.prov);
	free(s.vol);
	free(s.portal);
	return r;
}
LIBGPUPATH_0(compat_stats_prometheus, gpupath_stats_prometheus);

/* ---- notifications, as the release handed them over ----------------------- */

struct sink_0 {
	gpupath_event_fn fn;
	void *arg;
};

static void deliver_0(const struct gpupath_model_event *m, void *arg)
{
	const struct sink_0 *sink = arg;
	struct gpupath_mon_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = m->ev.type;
	ev.group = m->ev.group;
	ev.cmd = m->ev.cmd;
	ev.has_info = m->has_info;
	ev.info = m->info;
	ev.has_provider = m->has_provider;
	memcpy(&ev.provider, &m->provider, sizeof(ev.provider));
	ev.has_volume = m->has_volume;
	volume_to_0(&ev.volume, &m->volume);
	ev.has_path = m->has_path;
	memcpy(&ev.path, &m->path, sizeof(ev.path));
	ev.has_event = m->has_event;
	ev.event = m->event;
	ev.has_portal = m->has_portal;
	memcpy(&ev.portal, &m->portal, sizeof(ev.portal));
	ev.has_qos = m->has_qos;
	ev.qos = m->qos;
	sink->fn(&ev, sink->arg);
}

EXPORT int compat_mon_dispatch(struct gpupath_mon *mon, gpupath_event_fn fn, void *arg)
{
	struct sink_0 sink = { .fn = fn, .arg = arg };

	return gpupath_mon_dispatch_model(mon, deliver_0, &sink);
}
LIBGPUPATH_0(compat_mon_dispatch, gpupath_mon_dispatch);
