// SPDX-License-Identifier: GPL-2.0
/*
 * The QoS ledger: what gpupathd set (see ledger.h). The file is one mark a
 * line, "KIND DEVICE KEY BEFORE".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "runfile.h"

static const char *const kind_names[MARK_KINDS] = {
	[MARK_APP_DSCP] = "dcb-app-dscp",
	[MARK_PFC] = "pfc",
	[MARK_ECN_NP] = "ecn-roce_np",
	[MARK_ECN_RP] = "ecn-roce_rp",
	[MARK_ROCE_TOS] = "default_roce_tos",
};

const char *ledger_kind_name(enum mark_kind kind)
{
	return kind < MARK_KINDS ? kind_names[kind] : "?";
}

static struct mark *find(struct ledger *l, const char *device, enum mark_kind kind,
			 uint32_t key)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->m[i].kind == kind && l->m[i].key == key && !strcmp(l->m[i].device, device))
			return &l->m[i];
	return NULL;
}

static int add(struct ledger *l, const char *device, enum mark_kind kind, uint32_t key,
	       int32_t before)
{
	struct mark *m = realloc(l->m, (l->n + 1) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	l->m = m;
	m = &l->m[l->n++];
	memset(m, 0, sizeof(*m));
	snprintf(m->device, sizeof(m->device), "%s", device);
	m->kind = kind;
	m->key = key;
	m->before = before;
	return 0;
}

int ledger_load(struct ledger *l, const char *path)
{
	char kind[32], device[64];
	long long key, before;
	unsigned int k;
	FILE *f;
	int r = 0;

	l->m = NULL;
	l->n = 0;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (r >= 0 && fscanf(f, "%31s %63s %lld %lld", kind, device, &key, &before) == 4) {
		for (k = 0; k < MARK_KINDS && strcmp(kind, kind_names[k]); k++)
			;
		if (k == MARK_KINDS || strlen(device) >= sizeof(l->m->device) || key < 0 ||
		    key > UINT32_MAX || before < INT32_MIN || before > INT32_MAX ||
		    find(l, device, k, key))
			continue;
		r = add(l, device, k, key, before);
	}
	fclose(f);
	return r;
}

int ledger_save(const struct ledger *l, const char *path)
{
	char tmp[512];
	FILE *f;
	size_t i;

	f = runfile_open(path, tmp, sizeof(tmp));
	if (!f)
		return -errno;
	for (i = 0; i < l->n; i++)
		fprintf(f, "%s %s %u %d\n", kind_names[l->m[i].kind], l->m[i].device, l->m[i].key,
			l->m[i].before);
	return runfile_commit(f, tmp, path);
}

void ledger_free(struct ledger *l)
{
	free(l->m);
	l->m = NULL;
	l->n = 0;
}

void ledger_begin(struct ledger *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		l->m[i].wanted = false;
}

int ledger_want(struct ledger *l, const char *device, enum mark_kind kind, uint32_t key,
		int32_t before, bool changed)
{
	struct mark *m = find(l, device, kind, key);
	int r;

	if (m) {
		m->wanted = true;
		return 0;
	}
	if (!changed)
		return 0;
	r = add(l, device, kind, key, before);
	if (!r)
		l->m[l->n - 1].wanted = true;
	return r;
}

int ledger_unwanted(struct ledger *l, struct mark **out, size_t *n)
{
	size_t i, keep = 0, k = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; i < l->n; i++)
		k += !l->m[i].wanted;
	if (!k)
		return 0;
	*out = calloc(k, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < l->n; i++) {
		if (l->m[i].wanted)
			l->m[keep++] = l->m[i];
		else
			(*out)[(*n)++] = l->m[i];
	}
	l->n = keep;
	return 0;
}
