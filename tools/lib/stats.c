// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every counter of the module at one moment, and in the Prometheus text
 * exposition format: what "gpupath stats" and gpupathd's metrics endpoint
 * print.
 *
 * Metric names follow Prometheus' conventions: gpupath_<object>_<what>, base
 * units in the name (_bytes, _seconds), counters ending in _total, and
 * states as "_info" gauges of value 1 whose labels carry them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "libgpupath-admin.h"
#include "objects.h"

void gpupath_stats_free(struct gpupath_stats *s)
{
	struct gpupath_stats_copy *c, *next;

	if (!s)
		return;
	for (c = s->copies; c; c = next) {
		next = c->next;
		free(c->items);
		free(c);
	}
	free(s->prov);
	free(s->vol);
	free(s->portal);
	free(s->qos);
	free(s->cgroup);
	free(s);
}

int gpupath_stats_get(struct gpupath_ctl *ctl, struct gpupath_stats **sp, const char **what)
{
	struct gpupath_stats *s;
	int r;

	*sp = NULL;
	*what = "memory";
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*what = "provider dump";
	r = gpupath_ctl_provider_list(ctl, &s->prov, sizeof(*s->prov), &s->nprov);
	if (r >= 0) {
		*what = "volume dump";
		r = gpupath_ctl_volume_list(ctl, &s->vol, sizeof(*s->vol), &s->nvol);
	}
	if (r >= 0) {
		*what = "portal dump";
		r = gpupath_ctl_portal_list(ctl, &s->portal, sizeof(*s->portal), &s->nportal);
	}
	if (r >= 0) {
		*what = "qos dump";
		r = gpupath_ctl_qos_list(ctl, &s->qos, sizeof(*s->qos), &s->nqos);
	}
	if (r >= 0) {
		*what = "cgroup dump";
		r = gpupath_ctl_cgroup_list(ctl, &s->cgroup, sizeof(*s->cgroup), &s->ncgroup);
	}
	if (r < 0) {
		gpupath_stats_free(s);
		return r;
	}
	*sp = s;
	return r;
}

/*
 * @n items of @lsize bytes as an array of elements of @size bytes: the
 * library's own when the sizes agree, else a copy kept with @s.
 */
static int stats_items(struct gpupath_stats *s, const void *items, size_t n, size_t lsize,
		       const void **list, size_t size, size_t *count)
{
	struct gpupath_stats_copy *c;
	size_t i;

	*list = NULL;
	*count = 0;
	if (n && size != lsize) {
		c = calloc(1, sizeof(*c));
		if (c)
			c->items = calloc(n, size);
		if (!c || !c->items) {
			free(c);
			return -ENOMEM;
		}
		for (i = 0; i < n; i++)
			gpupath_copy_out((char *)c->items + i * size, size,
					 (const char *)items + i * lsize, lsize);
		c->next = s->copies;
		s->copies = c;
		items = c->items;
	}
	*list = items;
	*count = n;
	return 0;
}

int gpupath_stats_providers(struct gpupath_stats *s, const struct gpupath_provider **list,
			    size_t size, size_t *count)
{
	const void *items;
	int r = stats_items(s, s->prov, s->nprov, sizeof(*s->prov), &items, size, count);

	*list = items;
	return r;
}

int gpupath_stats_volumes(struct gpupath_stats *s, const struct gpupath_volume **list,
			  size_t size, size_t *count)
{
	const void *items;
	int r = stats_items(s, s->vol, s->nvol, sizeof(*s->vol), &items, size, count);

	*list = items;
	return r;
}

int gpupath_stats_portals(struct gpupath_stats *s, const struct gpupath_portal **list,
			  size_t size, size_t *count)
{
	const void *items;
	int r = stats_items(s, s->portal, s->nportal, sizeof(*s->portal), &items, size, count);

	*list = items;
	return r;
}

int gpupath_stats_qos(struct gpupath_stats *s, const struct gpupath_qos **list, size_t size,
		      size_t *count)
{
	const void *items;
	int r = stats_items(s, s->qos, s->nqos, sizeof(*s->qos), &items, size, count);

	*list = items;
	return r;
}

int gpupath_stats_cgroups(struct gpupath_stats *s, const struct gpupath_cgroup_stats **list,
			  size_t size, size_t *count)
{
	const void *items;
	int r = stats_items(s, s->cgroup, s->ncgroup, sizeof(*s->cgroup), &items, size, count);

	*list = items;
	return r;
}

/* A label value, escaped as the exposition format wants. */
static void label(FILE *f, const char *name, const char *value, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	/*
	 * Any byte a cgroup's name holds: a label value must be UTF-8, or
	 * the whole exposition is refused.
	 */
	gpupath_fputs_text(f, value, "\\\"");
	fputc('"', f);
}

static void label_u32(FILE *f, const char *name, uint32_t value, bool first)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%" PRIu32, value);
	label(f, name, buf, first);
}

/*
 * The label of a cgroup: its path; "id:N" when it has none (removed);
 * "other" for the others' entry (a path starts with "/").
 */
static void cgroup_label(FILE *f, const char *path, uint64_t id, bool other, bool first)
{
	char buf[32];

	if (!other && !path[0])
		snprintf(buf, sizeof(buf), "id:%" PRIu64, id);
	label(f, "cgroup", other ? "other" : path[0] ? path : buf, first);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A value: an integer, or nanoseconds as seconds. */
static void value(FILE *f, uint64_t v, bool ns)
{
	if (ns)
		fprintf(f, "} %.9f\n", v / 1e9);
	else
		fprintf(f, "} %" PRIu64 "\n", v);
}

/* One metric of an object: where its value is in the object's struct. */
struct metric {
	const char *name;
	const char *type;
	const char *help;
	size_t off;
	int size;		/* 4 or 8 */
	bool ns;		/* nanoseconds, shown as seconds */
};

#define M(name, type, help, st, field) \
	{ name, type, help, offsetof(st, field), sizeof(((st *)0)->field), false }
#define M_NS(name, help, st, field) \
	{ name, "gauge", help, offsetof(st, field), sizeof(((st *)0)->field), true }

static uint64_t field(const void *obj, const struct metric *m)
{
	const char *p = (const char *)obj + m->off;

	if (m->size == 4)
		return *(const uint32_t *)p;
	return *(const uint64_t *)p;
}

static const struct metric provider_metrics[] = {
	M("gpupath_provider_memory_bytes", "gauge", "Device memory the provider offers.",
	  struct gpupath_provider, size),
	M("gpupath_provider_allocated_bytes", "gauge", "Device memory allocated through gpupath.",
	  struct gpupath_provider, allocated),
	M("gpupath_provider_available_bytes", "gauge", "Device memory free for allocation.",
	  struct gpupath_provider, available),
	M("gpupath_provider_direct_ios_total", "counter",
	  "I/Os that moved data straight between a device and this memory.",
	  struct gpupath_provider, direct_ios),
	M("gpupath_provider_direct_bytes_total", "counter", "Bytes of the direct I/Os.",
	  struct gpupath_provider, direct_bytes),
	M("gpupath_provider_errors_total", "counter", "Direct I/Os that failed.",
	  struct gpupath_provider, errors),
	M("gpupath_provider_user_limit_bytes", "gauge",
	  "Device memory one user may hold allocated (0: no limit).",
	  struct gpupath_provider, user_limit),
	M("gpupath_provider_cgroup_limit_bytes", "gauge",
	  "Device memory one cgroup, with its descendants, may hold allocated (0: no limit).",
	  struct gpupath_provider, cgroup_limit),
};

static void provider_labels(FILE *f, const struct gpupath_provider *p)
{
	fprintf(f, "{");
	label_u32(f, "provider", p->id, true);
	label(f, "pci_dev", p->pci_dev, false);
	label(f, "type", gpupath_provider_type_name(p->type), false);
}

static void prom_providers(FILE *f, const struct gpupath_stats *s)
{
	static const char *const names[] = { "gpupath_provider_refused_ios_total",
					     "gpupath_provider_refused_bytes_total" };
	static const char *const helps[] = {
		"I/Os that could not go direct, by reason (the library bounces them).",
		"Bytes of the I/Os that could not go direct, by reason.",
	};
	unsigned int m, r, k;
	size_t i;

	for (m = 0; m < sizeof(provider_metrics) / sizeof(provider_metrics[0]); m++) {
		family(f, provider_metrics[m].name, provider_metrics[m].type, provider_metrics[m].help);
		for (i = 0; i < s->nprov; i++) {
			fprintf(f, "%s", provider_metrics[m].name);
			provider_labels(f, &s->prov[i]);
			value(f, field(&s->prov[i], &provider_metrics[m]), false);
		}
	}
	/* What each user and cgroup holding memory holds: as many series as holders. */
	family(f, "gpupath_provider_held_bytes", "gauge",
	       "Device memory held allocated, by user (uid) or by cgroup (with its descendants).");
	for (i = 0; i < s->nprov; i++) {
		const struct gpupath_provider *p = &s->prov[i];

		for (r = 0; r < p->nusage && r < GPUPATH_USAGE_MAX; r++) {
			const struct gpupath_usage *u = &p->usage[r];

			fprintf(f, "gpupath_provider_held_bytes");
			provider_labels(f, p);
			if (u->is_cgroup)
				cgroup_label(f, u->cgroup, u->cgroup_id, false, false);
			else
				label_u32(f, "uid", u->uid, false);
			value(f, u->bytes, false);
		}
	}
	for (k = 0; k < 2; k++) {
		family(f, names[k], "counter", helps[k]);
		for (i = 0; i < s->nprov; i++) {
			const struct gpupath_provider *p = &s->prov[i];

			for (r = 1; r < GPUPATH_REASONS_KNOWN; r++) {
				if (!p->refused_ios[r])
					continue;
				fprintf(f, "%s", names[k]);
				provider_labels(f, p);
				label(f, "reason", gpupath_reason_name(r), false);
				value(f, k ? p->refused_bytes[r] : p->refused_ios[r], false);
			}
		}
	}
}

#define VS struct gpupath_volume
static const struct metric volume_metrics[] = {
	M("gpupath_volume_size_bytes", "gauge", "Size of the volume.", VS, size),
	M("gpupath_volume_paths", "gauge", "Paths of the volume.", VS, paths),
	M("gpupath_volume_usable_paths", "gauge", "Paths that take new I/O now.", VS, usable),
	M("gpupath_volume_openers", "gauge", "Openers of the volume's block device.", VS, open),
	M("gpupath_volume_ios_total", "counter", "I/Os completed.", VS, stats.ios),
	M("gpupath_volume_bytes_total", "counter", "Bytes read and written.", VS, stats.bytes),
	M("gpupath_volume_errors_total", "counter", "I/Os that failed.", VS, stats.errors),
	M("gpupath_volume_retries_total", "counter", "I/Os sent again on another path.", VS,
	  stats.retries),
	M("gpupath_volume_queued_total", "counter", "I/Os queued for want of a usable path.", VS,
	  stats.queued),
	M("gpupath_volume_refused_total", "counter",
	  "I/Os of device memory no usable path could DMA.", VS, stats.refused),
	M("gpupath_volume_failovers_total", "counter", "Failovers from one path to another.", VS,
	  stats.failovers),
	M_NS("gpupath_volume_failover_last_seconds", "Duration of the last failover.", VS,
	     stats.failover_last_ns),
	M_NS("gpupath_volume_failover_max_seconds", "Longest failover.", VS,
	     stats.failover_max_ns),
	M("gpupath_volume_inflight_ios", "gauge", "I/Os in flight.", VS, stats.inflight),
};
#undef VS

#define PS struct gpupath_path
static const struct metric path_metrics[] = {
	M("gpupath_path_ios_total", "counter", "I/Os completed on the path.", PS, stats.ios),
	M("gpupath_path_bytes_total", "counter", "Bytes read and written on the path.", PS,
	  stats.bytes),
	M("gpupath_path_errors_total", "counter", "I/Os that failed on the path.", PS,
	  stats.errors),
	M("gpupath_path_direct_ios_total", "counter", "I/Os of device memory the path DMAed.",
	  PS, stats.direct_ios),
	M("gpupath_path_inflight_ios", "gauge", "I/Os in flight on the path.", PS,
	  stats.inflight),
	M_NS("gpupath_path_latency_seconds",
	     "Service time of the path's I/Os (exponentially weighted moving average).", PS,
	     stats.latency_ns),
};
#undef PS

static void volume_labels(FILE *f, const struct gpupath_volume *v)
{
	fprintf(f, "{");
	label(f, "volume", v->name, true);
}

static void path_labels(FILE *f, const struct gpupath_volume *v, const struct gpupath_path *p)
{
	volume_labels(f, v);
	label_u32(f, "path", p->id, false);
	label(f, "device", p->device, false);
	label_u32(f, "rail", p->rail, false);
	label(f, "transport", p->transport, false);
}

static void prom_volumes(FILE *f, const struct gpupath_stats *s)
{
	unsigned int m, k;
	size_t i;

	for (m = 0; m < sizeof(volume_metrics) / sizeof(volume_metrics[0]); m++) {
		family(f, volume_metrics[m].name, volume_metrics[m].type, volume_metrics[m].help);
		for (i = 0; i < s->nvol; i++) {
			fprintf(f, "%s", volume_metrics[m].name);
			volume_labels(f, &s->vol[i]);
			value(f, field(&s->vol[i], &volume_metrics[m]), volume_metrics[m].ns);
		}
	}
	for (m = 0; m < sizeof(path_metrics) / sizeof(path_metrics[0]); m++) {
		family(f, path_metrics[m].name, path_metrics[m].type, path_metrics[m].help);
		for (i = 0; i < s->nvol; i++) {
			for (k = 0; k < s->vol[i].npaths; k++) {
				const struct gpupath_path *p = &s->vol[i].path[k];

				fprintf(f, "%s", path_metrics[m].name);
				path_labels(f, &s->vol[i], p);
				value(f, field(p, &path_metrics[m]), path_metrics[m].ns);
			}
		}
	}
	family(f, "gpupath_path_info", "gauge",
	       "A path's state, health, link, ANA state and why it cannot DMA device memory "
	       "(value 1).");
	for (i = 0; i < s->nvol; i++) {
		for (k = 0; k < s->vol[i].npaths; k++) {
			const struct gpupath_path *p = &s->vol[i].path[k];

			fprintf(f, "gpupath_path_info");
			path_labels(f, &s->vol[i], p);
			label(f, "controller", p->controller, false);
			label(f, "dma_dev", p->dma_dev, false);
			label(f, "state", gpupath_path_state_name(p->state), false);
			label(f, "health", gpupath_path_health_name(p->health), false);
			label(f, "link", gpupath_path_link_name(p->link), false);
			label(f, "ana", gpupath_ana_state_name(p->ana_state), false);
			label(f, "reason", gpupath_reason_name(p->reason), false);
			value(f, 1, false);
		}
	}
}

static void conn_labels(FILE *f, const struct gpupath_portal *p, const struct gpupath_portal_conn *c)
{
	fprintf(f, "{");
	label(f, "portal", p->name, true);
	label_u32(f, "rail", c->rail, false);
	label(f, "traddr", c->traddr, false);
	label(f, "subsysnqn", c->subsysnqn, false);
}

static void prom_portals(FILE *f, const struct gpupath_stats *s)
{
	unsigned int k;
	size_t i;

	family(f, "gpupath_portal_connection_info", "gauge",
	       "A connection gpupathd keeps for a portal: its state and controller (value 1).");
	for (i = 0; i < s->nportal; i++) {
		for (k = 0; k < s->portal[i].nconns; k++) {
			const struct gpupath_portal_conn *c = &s->portal[i].conn[k];

			fprintf(f, "gpupath_portal_connection_info");
			conn_labels(f, &s->portal[i], c);
			label(f, "state", gpupath_conn_state_name(c->state), false);
			label(f, "controller", c->controller, false);
			value(f, 1, false);
		}
	}
	family(f, "gpupath_portal_connection_failed_attempts", "gauge",
	       "Failed connection attempts in a row.");
	for (i = 0; i < s->nportal; i++) {
		for (k = 0; k < s->portal[i].nconns; k++) {
			fprintf(f, "gpupath_portal_connection_failed_attempts");
			conn_labels(f, &s->portal[i], &s->portal[i].conn[k]);
			value(f, s->portal[i].conn[k].attempts, false);
		}
	}
}

static void setting_labels(FILE *f, const struct gpupath_qos *q, const struct gpupath_qos_applied *a)
{
	fprintf(f, "{");
	label(f, "class", q->name, true);
	label(f, "device", a->device, false);
	label(f, "setting", a->setting, false);
}

static void prom_qos(FILE *f, const struct gpupath_stats *s)
{
	unsigned int k;
	size_t i;

	family(f, "gpupath_qos_setting_info", "gauge",
	       "A QoS setting on a device as gpupathd left it: applied, unsupported or failed (value 1).");
	for (i = 0; i < s->nqos; i++) {
		for (k = 0; k < s->qos[i].napplied; k++) {
			const struct gpupath_qos_applied *a = &s->qos[i].applied[k];

			fprintf(f, "gpupath_qos_setting_info");
			setting_labels(f, &s->qos[i], a);
			label(f, "result", gpupath_applied_name(a->result), false);
			label(f, "error", a->error ? strerror(a->error) : "", false);
			value(f, 1, false);
		}
	}
	family(f, "gpupath_qos_setting_value", "gauge", "The setting's value, read back from the device.");
	for (i = 0; i < s->nqos; i++) {
		for (k = 0; k < s->qos[i].napplied; k++) {
			fprintf(f, "gpupath_qos_setting_value");
			setting_labels(f, &s->qos[i], &s->qos[i].applied[k]);
			value(f, s->qos[i].applied[k].value, false);
		}
	}
}

#define CG struct gpupath_cgroup_stats
static const struct metric cgroup_metrics[] = {
	M("gpupath_cgroup_direct_ios_total", "counter",
	  "Device-memory I/Os of the cgroup's tasks that went direct.", CG, direct_ios),
	M("gpupath_cgroup_direct_bytes_total", "counter", "Bytes of those I/Os.", CG, direct_bytes),
	M("gpupath_cgroup_errors_total", "counter", "Direct I/Os of the cgroup's tasks that failed.",
	  CG, errors),
	M("gpupath_cgroup_host_ios_total", "counter",
	  "Host-memory I/Os of the cgroup's tasks through gpupath (libgpupath's bounces among them).",
	  CG, host_ios),
	M("gpupath_cgroup_host_bytes_total", "counter", "Bytes of those I/Os.", CG, host_bytes),
};
#undef CG

static void cgroup_labels(FILE *f, const struct gpupath_cgroup_stats *c)
{
	fprintf(f, "{");
	cgroup_label(f, c->path, c->id, c->other, true);
}

static void prom_cgroups(FILE *f, const struct gpupath_stats *s)
{
	unsigned int m, r, k;
	size_t i;

	for (m = 0; m < sizeof(cgroup_metrics) / sizeof(cgroup_metrics[0]); m++) {
		family(f, cgroup_metrics[m].name, cgroup_metrics[m].type, cgroup_metrics[m].help);
		for (i = 0; i < s->ncgroup; i++) {
			fprintf(f, "%s", cgroup_metrics[m].name);
			cgroup_labels(f, &s->cgroup[i]);
			value(f, field(&s->cgroup[i], &cgroup_metrics[m]), false);
		}
	}
	for (k = 0; k < 2; k++) {
		const char *name = k ? "gpupath_cgroup_refused_bytes_total" :
				       "gpupath_cgroup_refused_ios_total";

		family(f, name, "counter", k ? "Bytes of those I/Os, by reason." :
		       "Device-memory I/Os of the cgroup's tasks that could not go direct, by reason.");
		for (i = 0; i < s->ncgroup; i++) {
			const struct gpupath_cgroup_stats *c = &s->cgroup[i];

			for (r = 1; r < GPUPATH_REASONS_KNOWN; r++) {
				if (!c->refused_ios[r])
					continue;
				fprintf(f, "%s", name);
				cgroup_labels(f, c);
				label(f, "reason", gpupath_reason_name(r), false);
				value(f, k ? c->refused_bytes[r] : c->refused_ios[r], false);
			}
		}
	}
}

int gpupath_stats_prometheus(const struct gpupath_stats *s, FILE *f)
{
	prom_providers(f, s);
	prom_volumes(f, s);
	prom_portals(f, s);
	prom_qos(f, s);
	prom_cgroups(f, s);
	return ferror(f) ? -EIO : 0;
}
