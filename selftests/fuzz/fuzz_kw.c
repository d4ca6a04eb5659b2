// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the settings shared by the CLI and gpupath.conf:
 * "KEYWORD\nVALUE" (or KEYWORD, a NUL, VALUE; no separator: no value) into
 * gpupath_kw_set() with each keyword table, twice, the second time with an
 * error buffer too short for most messages.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CHECK(cond) do { if (!(cond)) abort(); } while (0)
#define CHECK_STR(a) CHECK(strnlen(a, sizeof(a)) < sizeof(a))

/* What the tables set: one configuration of each kind. */
union conf {
	struct gpupath_portal_conf portal;
	struct gpupath_qos_conf qos;
	struct gpupath_volume_conf volume;
	struct gpupath_path_conf path;
};

static const struct table {
	const struct gpupath_kw *kws;
	unsigned int n;
} tables[] = {
	{ gpupath_portal_kws, GPUPATH_PORTAL_KWS },
	{ gpupath_qos_kws, GPUPATH_QOS_KWS },
	{ gpupath_volume_kws, GPUPATH_VOLUME_KWS },
	{ gpupath_path_kws, GPUPATH_PATH_KWS },
};

/* A string a keyword stored: the value itself. */
static void check_ptr(const char *s, const char *val)
{
	CHECK(!s || s == val);
}

static void check_conf(const struct table *t, const union conf *c, const char *val)
{
	unsigned int i;

	if (t->kws == gpupath_portal_kws) {
		check_ptr(c->portal.traddr, val);
		check_ptr(c->portal.subsysnqn, val);
		check_ptr(c->portal.qos, val);
		CHECK(c->portal.nrails <= GPUPATH_PORTAL_RAILS_MAX);
		for (i = 0; i < c->portal.nrails; i++) {
			CHECK_STR(c->portal.rail[i].iface);
			CHECK_STR(c->portal.rail[i].addr);
		}
	} else if (t->kws == gpupath_volume_kws) {
		check_ptr(c->volume.wwid, val);
	}
}

static void set(const struct table *t, const char *key, const char *val, size_t errsize)
{
	char *err = malloc(errsize);
	uint64_t seen = 0;
	uint32_t given = 0;
	union conf c;
	int r;

	CHECK(err);
	memset(&c, 0, sizeof(c));
	memset(err, 0, errsize);
	r = gpupath_kw_set(t->kws, t->n, &c, &given, &seen, key, val, err, errsize);
	if (r) {
		CHECK(r == -ENOENT || r == -EINVAL);
		CHECK(strnlen(err, errsize) < errsize && *err);
	} else {
		CHECK(val && seen);
		check_conf(t, &c, val);
		/* The same keyword again is a mistake. */
		r = gpupath_kw_set(t->kws, t->n, &c, &given, &seen, key, val, err, errsize);
		CHECK(r == -EINVAL);
	}
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *key = malloc(size + 1), *val, *sep;
	unsigned int i;

	if (!key)
		return 0;
	memcpy(key, data, size);
	key[size] = 0;
	sep = key + strcspn(key, "\n");
	val = size && sep < key + size ? sep + 1 : NULL;
	*sep = 0;
	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		set(&tables[i], key, val, 512);
		set(&tables[i], key, val, 12);
	}
	free(key);
	return 0;
}
