// SPDX-License-Identifier: GPL-2.0
/*
 * ANA states of the paths, from the controllers' ANA log pages (libnvme),
 * read by a thread of their own: an admin command to a controller whose
 * link is stalling can take the host's admin timeout, and a hundred
 * controllers a while; neither may hold up the daemon's loop (link events,
 * uevents, the watchdog).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libnvme.h>

#include "ana.h"
#include "internal.h"
#include "log.h"
#include "clock.h"

/* A controller that does not report ANA is asked again this much later. */
#define ANA_RECHECK_MS	30000

/* What one controller says, kept between polls; the log page per poll. */
struct ana_ctrl {
	char name[32];			/* "nvme3" */
	bool ana;			/* it reports ANA */
	uint32_t anatt;			/* s */
	size_t len;			/* of its ANA log page */
	uint64_t checked_ms;		/* identified then */
	bool seen;			/* a path uses it, this poll */
	struct nvme_ana_log *log;	/* read this poll, NULL: not (yet) */
	bool failed;			/* reading it failed this poll */
};

/* The controllers are the poller thread's alone; the lock guards the rest. */
struct ana {
	struct ana_ctrl *c;
	size_t n;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* on CLOCK_MONOTONIC */
	bool started;
	bool stop;
	bool kicked;
};

static void *poller(void *arg);

int ana_new(struct ana **a)
{
	pthread_condattr_t attr;
	sigset_t all, old;
	int r;

	*a = calloc(1, sizeof(**a));
	if (!*a)
		return -ENOMEM;
	pthread_mutex_init(&(*a)->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&(*a)->cond, &attr);
	pthread_condattr_destroy(&attr);
	/* Signals are the loop's (sd-event's signalfd): none for the thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&(*a)->thread, NULL, poller, *a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		ana_free(*a);
		*a = NULL;
		return -r;
	}
	(*a)->started = true;
	return 0;
}

void ana_free(struct ana *a)
{
	size_t i;

	if (!a)
		return;
	if (a->started) {
		pthread_mutex_lock(&a->lock);
		a->stop = true;
		pthread_cond_signal(&a->cond);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
	}
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	for (i = 0; i < a->n; i++)
		free(a->c[i].log);
	free(a->c);
	free(a);
}

void ana_kick(struct ana *a)
{
	pthread_mutex_lock(&a->lock);
	a->kicked = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

uint32_t ana_state_of(uint8_t nvme_state)
{
	switch (nvme_state & 0xf) {
	case NVME_ANA_STATE_OPTIMIZED:
		return GPUPATH_ANA_OPTIMIZED;
	case NVME_ANA_STATE_NONOPTIMIZED:
		return GPUPATH_ANA_NON_OPTIMIZED;
	case NVME_ANA_STATE_INACCESSIBLE:
		return GPUPATH_ANA_INACCESSIBLE;
	case NVME_ANA_STATE_PERSISTENT_LOSS:
		return GPUPATH_ANA_PERSISTENT_LOSS;
	case NVME_ANA_STATE_CHANGE:
		return GPUPATH_ANA_CHANGE;
	default:
		return GPUPATH_ANA_UNKNOWN;
	}
}

static int open_ctrl(const char *name)
{
	char dev[48];

	snprintf(dev, sizeof(dev), "/dev/%s", name);
	return open(dev, O_RDONLY | O_CLOEXEC);
}

/* Whether controller @c reports ANA: its identify data, now and then. */
static void identify(struct ana_ctrl *c)
{
	struct nvme_id_ctrl id;
	size_t len = 0;
	int fd;

	c->checked_ms = now_ms();
	c->ana = false;
	fd = open_ctrl(c->name);
	if (fd < 0)
		return;
	if (!nvme_identify_ctrl(fd, &id) && (id.cmic & NVME_CTRL_CMIC_MULTI_ANA_REPORTING) &&
	    !nvme_get_ana_log_len(fd, &len) && len) {
		c->ana = true;
		c->anatt = id.anatt;
		c->len = len;
		log_debug("%s reports ANA: %u groups, ANATT %u s, log page %zu bytes", c->name,
			  le32toh(id.nanagrpid), id.anatt, len);
	}
	close(fd);
}

static struct ana_ctrl *ctrl_get(struct ana *a, const char *name)
{
	struct ana_ctrl *c, *tmp;
	size_t i;

	for (i = 0; i < a->n; i++)
		if (!strcmp(a->c[i].name, name))
			break;
	if (i == a->n) {
		tmp = realloc(a->c, (a->n + 1) * sizeof(*a->c));
		if (!tmp)
			return NULL;
		a->c = tmp;
		c = &a->c[a->n++];
		memset(c, 0, sizeof(*c));
		snprintf(c->name, sizeof(c->name), "%s", name);
		identify(c);
	}
	c = &a->c[i];
	if (!c->ana && now_ms() - c->checked_ms >= ANA_RECHECK_MS)
		identify(c);
	c->seen = true;
	return c;
}

/* @c's ANA log page of this poll, read once; NULL when it cannot be read. */
static struct nvme_ana_log *ctrl_log(struct ana_ctrl *c)
{
	int fd, r;

	if (c->log || c->failed)
		return c->log;
	c->failed = true;
	c->log = calloc(1, c->len);
	if (!c->log)
		return NULL;
	fd = open_ctrl(c->name);
	if (fd < 0) {
		r = -errno;
	} else {
		/* rae: the host driver, not gpupathd, owns the AEN */
		r = nvme_get_log_ana(fd, NVME_LOG_ANA_LSP_RGO_NAMESPACES, true, 0,
				     (uint32_t)c->len, c->log);
		r = r < 0 ? -errno : r ? -EIO : 0;
		close(fd);
	}
	if (r) {
		/* reconnecting or gone: its paths' I/O says the rest */
		log_debug("%s: ANA log page: %s", c->name, strerror(-r));
		free(c->log);
		c->log = NULL;
		return NULL;
	}
	c->failed = false;
	return c->log;
}

bool ana_log_find(const struct nvme_ana_log *log, size_t len, uint32_t nsid, uint32_t *grp,
		  uint8_t *state)
{
	const uint8_t *page = (const uint8_t *)log;
	struct nvme_ana_group_desc d;
	size_t off = offsetof(struct nvme_ana_log, descs);
	uint64_t g, ngrps;
	uint32_t i, n, id;

	if (len < sizeof(*log))
		return false;
	ngrps = le16toh(log->ngrps);
	/*
	 * A descriptor is 32 bytes and its namespace ids 4 each, so one after
	 * an odd count starts 4 bytes off the 8 its chgcnt needs: each is
	 * copied out, never read in place.
	 */
	for (g = 0; g < ngrps; g++) {
		if (len - off < sizeof(d))
			return false;
		memcpy(&d, page + off, sizeof(d));
		off += sizeof(d);
		n = le32toh(d.nnsids);
		if ((len - off) / sizeof(id) < n)
			return false;
		for (i = 0; i < n; i++, off += sizeof(id)) {
			memcpy(&id, page + off, sizeof(id));
			if (le32toh(id) == nsid) {
				*grp = le32toh(d.grpid);
				*state = d.state;
				return true;
			}
		}
	}
	return false;
}

/* Path @p: the state its controller gives its namespace, pushed when it changed. */
static void path_ana(struct gpupath_ctl *ctl, const struct gpupath_path *p, struct ana_ctrl *c)
{
	struct gpupath_path_conf conf = {
		.set = GPUPATH_PATH_SET_ANA_STATE | GPUPATH_PATH_SET_ANA_TT |
		       GPUPATH_PATH_SET_ANA_GROUP,
	};
	const struct nvme_ana_log *log = ctrl_log(c);
	char dir[64], buf[16];
	uint32_t grp = 0;
	uint8_t state = 0;
	int r;

	if (!log)
		return;
	snprintf(dir, sizeof(dir), "/sys/block/%s", p->device);
	if (gpupath_sysfs_read(dir, "nsid", buf, sizeof(buf)) < 0 ||
	    !ana_log_find(log, c->len, (uint32_t)strtoul(buf, NULL, 10), &grp, &state))
		return;
	conf.ana_state = ana_state_of(state);
	conf.ana_group = grp;
	conf.ana_tt = c->anatt;
	if (conf.ana_state == p->ana_state && grp == p->ana_group && c->anatt == p->ana_tt)
		return;
	r = gpupath_ctl_path_set(ctl, p->id, &conf);
	if (r < 0)
		log_errno(r, "path %u (%s): setting ANA state %s", p->id, p->device,
			  gpupath_ana_state_name(conf.ana_state));
	else	/* with the monotonic time: how fast it was can be measured */
		log_info("path %u (%s): ANA %s (group %u, %s) at %.3f s", p->id, p->device,
			 gpupath_ana_state_name(conf.ana_state), grp, c->name, now_ms() / 1e3);
}

/*
 * One poll: every path of every volume whose controller reports ANA gets
 * its namespace's ANA state, group and transition time, when they
 * changed. Returns whether a path's controller reports ANA (poll again),
 * or a negative errno when the volumes cannot be listed.
 */
static int ana_poll(struct ana *a, struct gpupath_ctl *ctl)
{
	struct gpupath_volume *vols;
	const struct gpupath_path *p;
	struct ana_ctrl *c;
	bool any = false;
	size_t n, i, j, k;
	int r;

	r = gpupath_ctl_volume_list(ctl, &vols, sizeof(*vols), &n);
	if (r < 0)
		return log_errno(r, "listing volumes for their ANA states");
	for (i = 0; i < a->n; i++) {
		a->c[i].seen = false;
		a->c[i].failed = false;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < vols[i].npaths; j++) {
			p = &vols[i].path[j];
			/* (no admin command to a controller behind a link that is down) */
			if (!p->controller[0] || !p->device[0] || p->health == GPUPATH_HEALTH_GONE ||
			    p->link == GPUPATH_LINK_DOWN || strncmp(p->controller, "nvme", 4))
				continue;
			c = ctrl_get(a, p->controller);
			if (!c || !c->ana)
				continue;
			any = true;
			path_ana(ctl, p, c);
		}
	}
	free(vols);
	/* Controllers no path uses are forgotten; the others' pages are read again next time. */
	for (i = k = 0; i < a->n; i++) {
		free(a->c[i].log);
		a->c[i].log = NULL;
		if (a->c[i].seen)
			a->c[k++] = a->c[i];
	}
	a->n = k;
	return any;
}

/*
 * The poller: a poll when kicked (after each of the daemon's passes), and
 * every ANA_POLL_MS while a path's controller reports ANA.
 */
static void *poller(void *arg)
{
	struct gpupath_ctl *ctl = NULL;
	struct ana *a = arg;
	struct timespec at;
	int any = 0;

	pthread_mutex_lock(&a->lock);
	while (!a->stop) {
		if (!a->kicked && any > 0) {
			clock_gettime(CLOCK_MONOTONIC, &at);
			at.tv_nsec += (ANA_POLL_MS % 1000) * 1000000L;
			at.tv_sec += ANA_POLL_MS / 1000 + at.tv_nsec / 1000000000L;
			at.tv_nsec %= 1000000000L;
			while (!a->kicked && !a->stop &&
			       pthread_cond_timedwait(&a->cond, &a->lock, &at) != ETIMEDOUT)
				;
		} else {
			while (!a->kicked && !a->stop)
				pthread_cond_wait(&a->cond, &a->lock);
		}
		if (a->stop)
			break;
		a->kicked = false;
		pthread_mutex_unlock(&a->lock);
		if (!ctl && gpupath_ctl_open(&ctl) < 0)
			ctl = NULL;
		any = ctl ? ana_poll(a, ctl) : 0;
		if (any < 0) {
			/* the module went away, or the socket broke: a fresh one next time */
			gpupath_ctl_close(ctl);
			ctl = NULL;
		}
		pthread_mutex_lock(&a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	gpupath_ctl_close(ctl);
	return NULL;
}
