// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cufile: NVIDIA's configuration file (private.h says what is
 * where). The JSON file CUFILE_ENV_PATH_JSON names (default
 * /etc/cufile.json; json-c takes NVIDIA's // comments) is read at each
 * first open of the driver. The "properties" keys gpupath has a use for are
 * taken; every other key the file sets is named once, as not used. What a
 * program set through the API (cuFileDriverSet*) stands over the file, as
 * in NVIDIA's library.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "private.h"

/* A property gpupath takes, and where it goes. */
struct prop {
	const char *key;
	enum { BOOL, KB, COUNT } kind;
	size_t off;		/* in struct drv */
	size_t min, max;	/* KB and COUNT */
	unsigned int api;	/* API_SET_* that stands over it, or 0 */
};

#define FIELD(f) offsetof(struct drv, f)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct prop props[] = {
	{ "allow_compat_mode", BOOL, FIELD(allow_compat), 0, 0, 0 },
	{ "force_compat_mode", BOOL, FIELD(force_compat), 0, 0, 0 },
	{ "gds_rdma_write_support", BOOL, FIELD(rdma_write), 0, 0, 0 },
	{ "use_poll_mode", BOOL, FIELD(poll), 0, 0, API_SET_POLL },
	{ "poll_mode_max_size_kb", KB, FIELD(poll_kb), 4, 1ULL << 30, API_SET_POLL },
	{ "max_direct_io_size_kb", KB, FIELD(max_direct_kb), 4, CHUNK_MAX >> 10, API_SET_DIRECT },
	{ "max_device_cache_size_kb", KB, FIELD(max_cache_kb), 4, 1ULL << 40, API_SET_CACHE },
	{ "max_device_pinned_mem_size_kb", KB, FIELD(max_pinned_kb), 4, 1ULL << 40,
	  API_SET_PINNED },
	{ "io_batchsize", COUNT, FIELD(batch_size), 1, BATCH_MAX, 0 },
};

static const struct prop stats_prop = {
	"cufile_stats", COUNT, FIELD(stats_level), 0, 3, API_SET_STATS,
};

static bool once_named;

/* One property from the file: taken, or said why not. */
static void prop_take(const char *path, const struct prop *p, struct json_object *v)
{
	char *at = (char *)&drv + p->off;
	int64_t n;

	if (drv.api_set & p->api)
		return;
	if (p->kind == BOOL) {
		if (json_object_is_type(v, json_type_boolean))
			*(bool *)at = json_object_get_boolean(v);
		else
			fprintf(stderr, "libgpupath-cufile: %s: %s is not true or false; not taken\n",
				path, p->key);
		return;
	}
	n = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
	if (n < (int64_t)p->min || (uint64_t)n > p->max || (p->kind == KB && n % 4)) {
		fprintf(stderr, "libgpupath-cufile: %s: %s must be %s from %zu to %zu; not taken\n",
			path, p->key, p->kind == KB ? "KiB, a multiple of 4," : "a number", p->min,
			p->max);
		return;
	}
	*(size_t *)at = n;
}

/* Appends "SECTION.KEY" to @list (of @size), a comma before all but the first. */
static void name_add(char *list, size_t size, const char *section, const char *key)
{
	size_t len = strlen(list);

	if (len + 1 < size)
		snprintf(list + len, size - len, "%s%s%s%s", len ? ", " : "", section,
			 key ? "." : "", key ? key : "");
}

/* One top-level section of the file. */
static void section_take(const char *path, const char *section, struct json_object *val,
			 char *unused, size_t size)
{
	unsigned int i;

	if (!json_object_is_type(val, json_type_object) || !json_object_object_length(val)) {
		name_add(unused, size, section, NULL);
		return;
	}
	json_object_object_foreach(val, key, v) {
		/* The statistics' level (cuFileSetStatsLevel stands over it). */
		if (!strcmp(section, "profile") && !strcmp(key, "cufile_stats")) {
			prop_take(path, &stats_prop, v);
			continue;
		}
		for (i = 0; !strcmp(section, "properties") && i < ARRAY_SIZE(props); i++)
			if (!strcmp(props[i].key, key))
				break;
		/* A key of NVIDIA's library alone. */
		if (strcmp(section, "properties") || i == ARRAY_SIZE(props))
			name_add(unused, size, section, key);
		else
			prop_take(path, &props[i], v);
	}
}

void config_load(void)
{
	const char *env = getenv("CUFILE_ENV_PATH_JSON"), *force;
	const char *path = env && *env ? env : "/etc/cufile.json";
	struct json_object *root;
	char unused[1024] = "";

	/* NVIDIA's defaults, but what the program set through the API. */
	drv.allow_compat = true;
	drv.force_compat = false;
	drv.rdma_write = true;
	drv.batch_size = BATCH_DEFAULT;
	if (!(drv.api_set & API_SET_POLL)) {
		drv.poll = false;
		drv.poll_kb = POLL_KB_DEFAULT;
	}
	if (!(drv.api_set & API_SET_DIRECT))
		drv.max_direct_kb = MAX_DIRECT_KB_DEFAULT;
	if (!(drv.api_set & API_SET_CACHE))
		drv.max_cache_kb = MAX_CACHE_KB_DEFAULT;
	if (!(drv.api_set & API_SET_PINNED))
		drv.max_pinned_kb = MAX_PINNED_KB_DEFAULT;
	if (!(drv.api_set & API_SET_STATS))
		drv.stats_level = 0;
	root = access(path, F_OK) == 0 || env ? json_object_from_file(path) : NULL;
	if (!root && env && *env) {
		const char *why = json_util_get_last_err();

		fprintf(stderr, "libgpupath-cufile: %s: %.*s; the defaults hold\n", path,
			why ? (int)strcspn(why, "\n") : 14, why ?: "cannot read it");
	}
	if (root && !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		root = NULL;
	}
	if (root) {
		json_object_object_foreach(root, section, val)
			section_take(path, section, val, unused, sizeof(unused));
	}
	if (unused[0] && !once_named) {
		once_named = true;
		fprintf(stderr, "libgpupath-cufile: %s: not used by gpupath: %s\n", path, unused);
	}
	json_object_put(root);
	force = getenv("CUFILE_FORCE_COMPAT_MODE");
	if (force)
		drv.force_compat = !strcasecmp(force, "true") || !strcmp(force, "1");
}
