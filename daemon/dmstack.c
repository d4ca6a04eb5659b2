// SPDX-License-Identifier: GPL-2.0
/*
 * Device-mapper tables, read with libdevmapper and told to the module.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libdevmapper.h>
#include <netlink/attr.h>

#include "dmstack.h"
#include "log.h"
#include "model.h"

/* What the module keeps of the target types (GPUPATH_A_STACK_TARGETS). */
#define TARGETS_MAX	128

/* Targets that hand each bio, remapped, to a device below. */
static const char *const remap_targets[] = { "linear", "striped", "unstriped", "switch" };
/*
 * Targets that read or write the data with the CPU: encryption, checksums,
 * parity, hash trees, compression and deduplication, a cache in memory,
 * copies through buffers, zeroes filled in, test targets that corrupt or
 * log it. (raid: by its level, raid_kind().)
 */
static const char *const transform_targets[] = {
	"crypt", "integrity", "verity", "vdo", "writecache", "ebs", "log-writes", "flakey",
	"zero",
};

static bool listed(const char *type, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(type, list[i]))
			return true;
	return false;
}

enum gpupath_stack_kind dmstack_target_kind(const char *type)
{
	if (listed(type, remap_targets, sizeof(remap_targets) / sizeof(remap_targets[0])))
		return GPUPATH_STACK_KIND_REMAP;
	if (listed(type, transform_targets,
		   sizeof(transform_targets) / sizeof(transform_targets[0])))
		return GPUPATH_STACK_KIND_TRANSFORM;
	return GPUPATH_STACK_KIND_OTHER;
}

/* dm-raid by its level, its first parameter: RAID0/1/10 remap, as md's do. */
static enum gpupath_stack_kind raid_kind(const char *params)
{
	size_t n = strcspn(params, " ");

	if ((n == 5 && !strncmp(params, "raid0", 5)) || (n == 5 && !strncmp(params, "raid1", 5)) ||
	    (n == 6 && !strncmp(params, "raid10", 6)))
		return GPUPATH_STACK_KIND_REMAP;
	return GPUPATH_STACK_KIND_TRANSFORM;
}

/* The least direct of two: a transform over anything else, then other. */
static enum gpupath_stack_kind worse(enum gpupath_stack_kind a, enum gpupath_stack_kind b)
{
	if (a == GPUPATH_STACK_KIND_TRANSFORM || b == GPUPATH_STACK_KIND_TRANSFORM)
		return GPUPATH_STACK_KIND_TRANSFORM;
	return a > b ? a : b;
}

/* libdevmapper's messages, into gpupathd's log (at debug: callers say more). */
static void dm_log(int level, const char *file, int line, int dm_errno, const char *f, ...)
{
	char msg[256];
	va_list ap;

	(void)file;
	(void)line;
	(void)dm_errno;
	/* Errors and worse (_LOG_ERR, 3); the flags above the level masked. */
	if ((level & 7) > 3)
		return;
	va_start(ap, f);
	vsnprintf(msg, sizeof(msg), f, ap);
	va_end(ap);
	log_debug("libdevmapper: %s", msg);
}

/* A dm disk's name as /sys/block has it: "dm-" and a number. */
static bool dm_name(const char *name)
{
	const char *p = name + 3;

	if (strncmp(name, "dm-", 3) || !*p || strlen(name) > 16)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* /sys/block/NAME/ATTR, one line, into @buf. */
static int read_attr(const char *name, const char *attr, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/block/%s/%s", name, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

struct told {
	unsigned int major, minor;
	uint64_t diskseq;
	enum gpupath_stack_kind kind;
	char targets[TARGETS_MAX];
};

/* Whether @type is in @list (comma-separated) already. */
static bool in_list(const char *list, const char *type)
{
	size_t n = strlen(type);
	const char *p;

	for (p = list; *p; p += strcspn(p, ","), p += *p == ',') {
		if (!strncmp(p, type, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/* The live table of @t's disk: its kind, and its target types in order. */
static int read_table(struct told *t)
{
	uint64_t start, length;
	char *type, *params;
	struct dm_info info;
	struct dm_task *dmt;
	void *next = NULL;
	size_t len = 0;
	enum gpupath_stack_kind k;
	int r = -EIO;

	dmt = dm_task_create(DM_DEVICE_TABLE);
	if (!dmt)
		return -ENOMEM;
	/* A crypt table's parameters hold its key: wiped when the task goes. */
	if (!dm_task_set_major_minor(dmt, (int)t->major, (int)t->minor, 0) ||
	    !dm_task_no_open_count(dmt) || !dm_task_secure_data(dmt))
		goto out;
	if (!dm_task_run(dmt)) {
		if (dm_task_get_errno(dmt) == ENXIO)
			r = -ENOENT;	/* removed meanwhile */
		goto out;
	}
	r = -ENOENT;
	if (!dm_task_get_info(dmt, &info) || !info.exists)
		goto out;
	t->kind = 0;
	t->targets[0] = '\0';
	do {
		type = params = NULL;
		next = dm_get_next_target(dmt, next, &start, &length, &type, &params);
		if (!type)
			continue;
		k = !strcmp(type, "raid") ? raid_kind(params ? params : "") :
					    dmstack_target_kind(type);
		t->kind = t->kind ? worse(t->kind, k) : k;
		/* Each type once, in the order met. */
		if (!in_list(t->targets, type) && len + strlen(type) + 2 < sizeof(t->targets))
			len += (size_t)snprintf(t->targets + len, sizeof(t->targets) - len, "%s%s",
						len ? "," : "", type);
	} while (next);
	/* No table loaded: nothing goes through it. */
	if (!t->kind)
		t->kind = GPUPATH_STACK_KIND_OTHER;
	r = 0;
out:
	dm_task_destroy(dmt);
	return r;
}

static int fill_stack(struct nl_msg *msg, void *arg)
{
	const struct told *t = arg;
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_STACK);

	if (!nest || nla_put_u32(msg, GPUPATH_A_STACK_MAJOR, t->major) < 0 ||
	    nla_put_u32(msg, GPUPATH_A_STACK_MINOR, t->minor) < 0 ||
	    nla_put_u64(msg, GPUPATH_A_STACK_DISKSEQ, t->diskseq) < 0 ||
	    nla_put_u32(msg, GPUPATH_A_STACK_KIND, t->kind) < 0 ||
	    nla_put_string(msg, GPUPATH_A_STACK_TARGETS, t->targets) < 0)
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static const char *kind_text(enum gpupath_stack_kind kind)
{
	switch (kind) {
	case GPUPATH_STACK_KIND_REMAP:
		return "remaps only: seen through";
	case GPUPATH_STACK_KIND_TRANSFORM:
		return "touches the data: stacked-transform";
	default:
		return "not seen through: stacked-device";
	}
}

/*
 * What was told last of each disk, so that the periodic passes log only
 * changes; a disk not found here is logged and takes the oldest entry.
 */
#define SAID_MAX	256
static struct {
	uint64_t diskseq;
	enum gpupath_stack_kind kind;
	char targets[TARGETS_MAX];
} said[SAID_MAX];
static unsigned int said_next;

/* Whether @t says something new of its disk; remembers it. */
static bool news(const struct told *t)
{
	unsigned int i;

	for (i = 0; i < SAID_MAX; i++) {
		if (said[i].diskseq != t->diskseq)
			continue;
		if (said[i].kind == t->kind && !strcmp(said[i].targets, t->targets))
			return false;
		break;
	}
	if (i == SAID_MAX)
		i = said_next++ % SAID_MAX;
	said[i].diskseq = t->diskseq;
	said[i].kind = t->kind;
	snprintf(said[i].targets, sizeof(said[i].targets), "%s", t->targets);
	return true;
}

int dmstack_tell(struct gpupath_ctl *ctl, const char *name)
{
	char dev[32], seq[32], end;
	struct told t = { 0 };
	int r;

	if (!dm_name(name))
		return -EINVAL;
	r = read_attr(name, "dev", dev, sizeof(dev));
	if (!r)
		r = read_attr(name, "diskseq", seq, sizeof(seq));
	if (r == -ENOENT)
		return r;	/* gone meanwhile */
	if (r < 0)
		return log_errno(r, "%s: cannot read its device number", name);
	if (sscanf(dev, "%u:%u%c", &t.major, &t.minor, &end) != 2 ||
	    sscanf(seq, "%" SCNu64 "%c", &t.diskseq, &end) != 1)
		return log_errno(-EINVAL, "%s: device number \"%s\" or diskseq \"%s\" unreadable",
				 name, dev, seq);
	r = read_table(&t);
	if (r == -ENOENT)
		return r;
	if (r < 0)
		return log_errno(r, "%s: cannot read its device-mapper table", name);
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_STACK_SET, NLM_F_ACK, fill_stack, NULL, &t);
	if (r == -ENODEV || r == -ESTALE)
		return -ENOENT;	/* gone, or replaced: its own uevent follows */
	if (r < 0)
		return log_errno_why(r, gpupath_ctl_errmsg(ctl), "%s: cannot tell the module of its table",
				     name);
	if (news(&t))
		log_info("%s: table %s: %s", name, t.targets[0] ? t.targets : "(none)",
			 kind_text(t.kind));
	return 0;
}

void dmstack_init(void)
{
	dm_log_with_errno_init(dm_log);
}

void dmstack_tell_all(struct gpupath_ctl *ctl)
{
	struct dirent *e;
	DIR *dir;

	dir = opendir("/sys/block");
	if (!dir) {
		log_errno(-errno, "cannot list /sys/block");
		return;
	}
	while ((e = readdir(dir)))
		if (dm_name(e->d_name))
			dmstack_tell(ctl, e->d_name);
	closedir(dir);
}
