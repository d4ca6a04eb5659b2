// SPDX-License-Identifier: GPL-2.0
/*
 * The QoS ledger: what gpupathd set (see ledger.h). The file is one mark a
 * line, "KIND DEVICE KEY BEFORE"; an ETS mark adds its two tables, "BEFORE
 * WROTE", each 48 hex digits: the bytes of prio_tc, tc_tsa and tc_tx_bw.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ledger.h"
#include "runfile.h"

static const char *const kind_names[MARK_KINDS] = {
	[MARK_APP_DSCP] = "dcb-app-dscp",
	[MARK_PFC] = "pfc",
	[MARK_ECN_NP] = "ecn-roce_np",
	[MARK_ECN_RP] = "ecn-roce_rp",
	[MARK_ROCE_TOS] = "default_roce_tos",
	[MARK_ETS] = "ets",
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

const struct mark *ledger_find(const struct ledger *l, const char *device,
			       enum mark_kind kind, uint32_t key)
{
	return find((struct ledger *)l, device, kind, key);
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

/* An ETS table from its 48 hex digits: 0, or -EINVAL. */
static int ets_parse(struct ets_map *t, const char *hex)
{
	static const char digits[] = "0123456789abcdef";
	uint8_t *b = (uint8_t *)t;
	const char *hi, *lo;
	unsigned int i;

	if (strlen(hex) != 2 * sizeof(*t))
		return -EINVAL;
	for (i = 0; i < sizeof(*t); i++) {
		hi = strchr(digits, hex[2 * i]);
		lo = strchr(digits, hex[2 * i + 1]);
		if (!hi || !lo)
			return -EINVAL;
		b[i] = (hi - digits) << 4 | (lo - digits);
	}
	return 0;
}

static void ets_print(FILE *f, const struct ets_map *t)
{
	const uint8_t *b = (const uint8_t *)t;
	unsigned int i;

	for (i = 0; i < sizeof(*t); i++)
		fprintf(f, "%02x", b[i]);
}

int ledger_load(struct ledger *l, const char *path)
{
	char line[256], kind[32], device[64], before_t[64], wrote_t[64];
	struct ets_map ets_before, ets_wrote;
	long long key, before;
	unsigned int k;
	FILE *f;
	int r = 0;

	l->m = NULL;
	l->n = 0;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (r >= 0 && fgets(line, sizeof(line), f)) {
		int fields = sscanf(line, "%31s %63s %lld %lld %63s %63s", kind, device, &key,
				    &before, before_t, wrote_t);

		if (fields < 4)
			continue;
		for (k = 0; k < MARK_KINDS && strcmp(kind, kind_names[k]); k++)
			;
		if (k == MARK_KINDS || strlen(device) >= sizeof(l->m->device) || key < 0 ||
		    key > UINT32_MAX || before < INT32_MIN || before > INT32_MAX ||
		    find(l, device, k, key))
			continue;
		if (k == MARK_ETS && (fields != 6 || ets_parse(&ets_before, before_t) ||
				      ets_parse(&ets_wrote, wrote_t)))
			continue;
		r = add(l, device, k, key, before);
		if (!r && k == MARK_ETS) {
			l->m[l->n - 1].ets_before = ets_before;
			l->m[l->n - 1].ets_wrote = ets_wrote;
		}
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
	for (i = 0; i < l->n; i++) {
		fprintf(f, "%s %s %u %d", kind_names[l->m[i].kind], l->m[i].device, l->m[i].key,
			l->m[i].before);
		if (l->m[i].kind == MARK_ETS) {
			fputc(' ', f);
			ets_print(f, &l->m[i].ets_before);
			fputc(' ', f);
			ets_print(f, &l->m[i].ets_wrote);
		}
		fputc('\n', f);
	}
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

int ledger_want_ets(struct ledger *l, const char *device, const struct ets_map *before,
		    const struct ets_map *wrote, bool changed)
{
	struct mark *m = find(l, device, MARK_ETS, 0);
	int r;

	if (!m) {
		/* Found as wanted, or gpupathd has no part in it: not gpupathd's. */
		if (!changed || !memcmp(before, wrote, sizeof(*before)))
			return 0;
		r = add(l, device, MARK_ETS, 0, 0);
		if (r)
			return r;
		m = &l->m[l->n - 1];
	}
	m->ets_before = *before;
	m->ets_wrote = *wrote;
	m->wanted = !!memcmp(before, wrote, sizeof(*before));
	return 0;
}

int ledger_put_back(struct ledger *l, const struct mark *m)
{
	int r;

	if (find(l, m->device, m->kind, m->key))
		return 0;
	r = add(l, m->device, m->kind, m->key, m->before);
	if (r)
		return r;
	l->m[l->n - 1] = *m;
	l->m[l->n - 1].wanted = false;
	return 0;
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

bool ledger_undo_done(int r)
{
	return r >= 0 || r == -ENODEV || r == -ENOENT || r == -ESTALE;
}

int ledger_lock(const char *path, bool create, pid_t *holder)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char lock[512], *slash;
	int fd, r;

	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", path) >= sizeof(lock))
		return -ENAMETOOLONG;
	if (create) {
		slash = strrchr(lock, '/');
		if (slash && slash != lock) {
			*slash = 0;
			r = mkdir(lock, 0755) < 0 && errno != EEXIST ? -errno : 0;
			*slash = '/';
			if (r)
				return r;
		}
	}
	fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0644);
	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_SETLK, &fl) == 0)
		return fd;
	r = -errno;
	if (r == -EAGAIN || r == -EACCES) {
		r = -EBUSY;
		fl.l_type = F_WRLCK;
		fl.l_pid = 0;
		*holder = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK ? fl.l_pid : 0;
	}
	close(fd);
	return r;
}

int ledger_release(const char *path, int (*undo)(const struct mark *m),
		   void (*report)(const struct mark *m, int r, void *arg), void *arg,
		   pid_t *holder)
{
	struct ledger l;
	struct mark *all;
	size_t n, i;
	int fd, r;

	/* No lock file: no gpupathd since boot, or one from before the lock. */
	fd = ledger_lock(path, false, holder);
	if (fd == -ENOENT) {
		if (access(path, F_OK))
			return 0;
		fd = ledger_lock(path, true, holder);
	}
	if (fd < 0)
		return fd;
	r = ledger_load(&l, path);
	if (r < 0)
		goto out_free;
	ledger_begin(&l);
	r = ledger_unwanted(&l, &all, &n);
	if (r < 0)
		goto out_free;
	for (i = 0; i < n && r >= 0; i++) {
		int u = undo(&all[i]);

		report(&all[i], u, arg);
		if (!ledger_undo_done(u))
			r = ledger_put_back(&l, &all[i]);
	}
	free(all);
	if (r < 0)
		goto out_free;
	if (l.n)
		r = ledger_save(&l, path);
	else if (unlink(path) < 0 && errno != ENOENT)
		r = -errno;
	if (!r)
		r = l.n;
out_free:
	ledger_free(&l);
	close(fd);
	return r;
}
