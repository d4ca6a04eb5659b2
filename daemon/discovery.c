// SPDX-License-Identifier: GPL-2.0
/*
 * Discovery portals (fabric-internal.h): on each rail, a persistent
 * discovery controller, whose log page lists the subsystems to connect.
 * Connecting it and reading its log page (referrals followed) wait on the
 * network: a child process does both (child.c), and the last list holds
 * meanwhile.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "fabric-internal.h"
#include "log.h"

#define DISCOVERY_EVERY_MS	30000	/* while a rail has no discovery controller */
#define DISCOVERY_DEPTH		3	/* referrals followed */
#define REFERRALS_MAX		8	/* referrals followed by one discovery */
#define DISC_RETRY_MS		1000	/* a log page that could not be read */
#define DISC_JOBS_MAX		16	/* discovery children at work at once */
#define DISC_MARKS		"/run/gpupath/discovery"	/* 69-gpupath.rules */

/*
 * What a discovery child found: the controller it used (made by it when
 * @made), and the log page when it was read whole, the same twice.
 */
struct disc_result {
	int error;			/* errno: no controller could be made */
	bool made;
	bool read;
	char ctrl[32];
	unsigned int n;
	struct target t[TARGETS_MAX];
};

/*
 * What one discovery child reads: the log pages of @p's @rail, referrals
 * followed, each through a controller connected with @tos.
 */
struct disc_walk {
	const struct fabric *f;
	nvme_root_t r;
	const struct gpupath_portal *p;
	const struct gpupath_portal_rail *rail;
	int tos;
	unsigned int referrals;		/* followed by this read of the page */
	bool said;			/* that there were too many: logged */
};

static void discover_at(struct disc_walk *w, const struct target *at, int depth,
			struct discovered *d);

/*
 * Read @c's discovery log page into @d (referrals followed), and its
 * generation counter into *@genctr; false: failed.
 */
static bool read_log(struct disc_walk *w, nvme_ctrl_t c, const struct target *at, int depth,
		     struct discovered *d, uint64_t *genctr)
{
	const struct gpupath_portal *p = w->p;
	struct nvmf_discovery_log *log = NULL;
	int trtype = p->transport == GPUPATH_TRANSPORT_RDMA ? NVMF_TRTYPE_RDMA : NVMF_TRTYPE_TCP;
	unsigned int dropped = 0;
	struct target t;
	uint64_t i, n;

	if (nvmf_get_discovery_log(c, &log, 4) < 0) {
		log_warn("portal %s: discovery log page of %s:%u: %s", p->name, at->traddr,
			 at->trsvcid, strerror(errno));
		return false;
	}
	n = le64toh(log->numrec);
	*genctr = le64toh(log->genctr);
	log_debug("portal %s: discovery log page of %s:%u: generation %llu, %llu records",
		  p->name, at->traddr, at->trsvcid, (unsigned long long)*genctr,
		  (unsigned long long)n);
	for (i = 0; i < n; i++) {
		struct nvmf_disc_log_entry *e = &log->entries[i];
		char why[384];

		if (e->trtype != trtype ||
		    (e->subtype != NVME_NQN_NVME && e->subtype != NVME_NQN_DISC))
			continue;
		if (!disc_record(e, &t, why, sizeof(why))) {
			log_warn("portal %s: discovery log page of %s:%u, record %llu: %s; left out",
				 p->name, at->traddr, at->trsvcid, (unsigned long long)i, why);
			continue;
		}
		log_debug("  record %llu: subtype %u trtype %u %s:%u %s", (unsigned long long)i,
			  e->subtype, e->trtype, t.traddr, t.trsvcid, t.nqn);
		if (e->subtype == NVME_NQN_NVME && d->n < TARGETS_MAX) {
			d->t[d->n++] = t;
		} else if (e->subtype == NVME_NQN_NVME) {
			if (!dropped++)
				log_warn("portal %s: %s:%u lists more than %u subsystems: %s and "
					 "those after it are left out (use more portals)", p->name,
					 at->traddr, at->trsvcid, TARGETS_MAX, t.nqn);
		} else if (e->subtype == NVME_NQN_DISC && depth < DISCOVERY_DEPTH &&
			   (strcmp(t.traddr, at->traddr) || t.trsvcid != at->trsvcid)) {
			/* (one read's count: it follows no more) */
			if (w->referrals++ == REFERRALS_MAX && !w->said) {
				w->said = true;
				log_warn("portal %s: more than %u referrals; %s:%u and those after "
					 "it are left out", p->name, REFERRALS_MAX, t.traddr,
					 t.trsvcid);
			}
			if (w->referrals > REFERRALS_MAX)
				continue;
			log_info("portal %s: referral to %s:%u", p->name, t.traddr, t.trsvcid);
			discover_at(w, &t, depth + 1, d);
		}
	}
	free(log);
	return true;
}

/*
 * One read of @at's log page into @d, referrals followed: each read follows
 * as many, so that two reads of an unchanged page agree.
 */
static bool read_page(struct disc_walk *w, nvme_ctrl_t c, const struct target *at,
		      struct discovered *d, uint64_t *genctr)
{
	w->referrals = 0;
	return read_log(w, c, at, 0, d, genctr);
}

/* A referral: a discovery controller for one read, then disconnected. */
static void discover_at(struct disc_walk *w, const struct target *at, int depth,
			struct discovered *d)
{
	nvme_ctrl_t c = connect_ctrl(w->f, w->r, w->p, w->rail, at, w->tos);
	uint64_t genctr;

	if (!c) {
		log_warn("portal %s: discovery controller %s:%u: %s", w->p->name, at->traddr,
			 at->trsvcid, strerror(errno));
		return;
	}
	read_log(w, c, at, depth, d, &genctr);
	nvme_disconnect_ctrl(c);
	nvme_free_ctrl(c);
}

static struct discovered *disc_get(struct fabric *f, uint32_t portal, uint32_t rail,
				   const struct target *at)
{
	struct discovered *d;
	size_t i;

	for (i = 0; i < f->ndisc; i++)
		if (f->disc[i].portal == portal && f->disc[i].rail == rail &&
		    !strcmp(f->disc[i].traddr, at->traddr) && f->disc[i].trsvcid == at->trsvcid)
			return &f->disc[i];
	d = realloc(f->disc, (f->ndisc + 1) * sizeof(*f->disc));
	if (!d)
		return NULL;
	f->disc = d;
	d = &f->disc[f->ndisc++];
	memset(d, 0, sizeof(*d));
	d->portal = portal;
	d->rail = rail;
	cpy(d->traddr, sizeof(d->traddr), at->traddr);
	d->trsvcid = at->trsvcid;
	d->stale = true;
	return d;
}

/*
 * The discovery controllers gpupathd's portals use, one empty file each
 * under DISC_MARKS, named as the controller. 69-gpupath.rules renames
 * their events (NVME_AEN, NVME_EVENT=rediscover) so that nvme-cli's
 * autoconnect rule leaves them to gpupathd. A mark is made as soon as the
 * portal takes the controller, before its first event can come; marks of
 * controllers no portal uses any more go at the end of each pass
 * (disc_marks_prune()). They stay while gpupathd is stopped or restarts.
 */
static void disc_mark(const char *ctrl)
{
	char path[sizeof(DISC_MARKS) + 40];
	int fd;

	snprintf(path, sizeof(path), DISC_MARKS "/%s", ctrl);
	if (!access(path, F_OK))
		return;
	if ((mkdir("/run/gpupath", 0755) < 0 && errno != EEXIST) ||
	    (mkdir(DISC_MARKS, 0755) < 0 && errno != EEXIST))
		goto fail;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	close(fd);
	return;
fail:
	log_errno(-errno, "cannot mark %s as gpupathd's (%s): nvme-cli's autoconnect may act on its events",
		  ctrl, path);
}

void disc_marks_prune(const struct fabric *f)
{
	char path[sizeof(DISC_MARKS) + 300];
	struct dirent *e;
	size_t i;
	DIR *dir;

	dir = opendir(DISC_MARKS);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		for (i = 0; i < f->ndisc; i++)
			if (!strcmp(f->disc[i].ctrl, e->d_name))
				break;
		if (i < f->ndisc)
			continue;
		snprintf(path, sizeof(path), DISC_MARKS "/%s", e->d_name);
		if (unlink(path) < 0 && errno != ENOENT)
			log_errno(-errno, "removing %s", path);
	}
	closedir(dir);
}

/*
 * In a discovery child: the log page of @at (referrals followed) through
 * controller @ctrl, or through one it connects when there is none, into
 * @res.
 */
static void disc_child(const struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
		       const struct gpupath_portal_rail *rail, const struct target *at, int tos,
		       const char *ctrl, struct disc_result *res)
{
	struct disc_walk w = { .f = f, .r = r, .p = p, .rail = rail, .tos = tos };
	nvme_ctrl_t c = ctrl[0] ? ctrl_named(r, ctrl) : NULL;
	uint64_t gen[2] = { 0, 1 };
	struct discovered *fresh;

	if (!c) {
		c = connect_ctrl(f, r, p, rail, at, tos);
		if (!c) {
			res->error = errno ? errno : EIO;
			return;
		}
		res->made = true;
	}
	cpy(res->ctrl, sizeof(res->ctrl), nvme_ctrl_get_name(c));
	fresh = calloc(2, sizeof(*fresh));
	/*
	 * Read twice: a page the target changed while it was read is not
	 * taken (read again soon); one that cannot be read leaves the last
	 * one in place.
	 */
	if (fresh && read_page(&w, c, at, &fresh[0], &gen[0]) &&
	    read_page(&w, c, at, &fresh[1], &gen[1]) &&
	    gen[0] == gen[1] && fresh[0].n == fresh[1].n &&
	    !memcmp(fresh[0].t, fresh[1].t, fresh[0].n * sizeof(*fresh->t))) {
		memcpy(res->t, fresh->t, fresh->n * sizeof(*res->t));
		res->n = fresh->n;
		res->read = true;
	}
	free(fresh);
}

/*
 * Start a discovery child for @d: connecting its controller, reading its
 * log page. The pass goes on with the last list; the child's result is
 * taken by a later pass (disc_reap()), which its end wakes.
 */
static void disc_start(struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
		       const struct gpupath_portal_rail *rail, const struct target *at, int tos,
		       struct discovered *d, bool *pending)
{
	size_t i, busy = 0;
	pid_t pid;
	int fd = -1;

	/* Announcements by anyone on a rail's LAN start no more than this. */
	for (i = 0; i < f->ndisc; i++)
		busy += f->disc[i].job != 0;
	if (busy >= DISC_JOBS_MAX) {
		*pending = true;
		return;
	}
	pid = child_start(f, &fd);
	if (pid < 0) {
		log_errno(pid, "portal %s rail %u: cannot start discovery at %s:%u", p->name,
			  rail->id, at->traddr, at->trsvcid);
		*pending = true;
		return;
	}
	if (!pid) {
		struct disc_result res = { 0 };

		disc_child(f, r, p, rail, at, tos, d->ctrl, &res);
		child_end(f, fd, &res, sizeof(res));
	}
	d->job = pid;
	d->job_fd = fd;
}

/* The name of portal @id in the pass's @portals, for the log. */
static const char *portal_name(const struct gpupath_portal *portals, size_t n, uint32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (portals[i].id == id)
			return portals[i].name;
	return "(deleted)";
}

void disc_reap(struct fabric *f, const struct gpupath_portal *portals, size_t np)
{
	struct disc_result *res = NULL;
	struct discovered *d;
	const char *name;
	pid_t w;
	size_t i;

	for (i = 0; i < f->ndisc; i++) {
		d = &f->disc[i];
		if (!d->job)
			continue;
		w = waitpid(d->job, NULL, WNOHANG);
		if (!w || (w < 0 && errno == EINTR))
			continue;	/* at work still */
		name = portal_name(portals, np, d->portal);
		if (!res)
			res = malloc(sizeof(*res));	/* (a result is a page's worth) */
		if (!res || !read_whole(d->job_fd, res, sizeof(*res))) {
			log_warn("portal %s rail %u: discovery at %s:%u ended without a result",
				 name, d->rail, d->traddr, d->trsvcid);
			d->next_ms = now_ms() + DISCOVERY_EVERY_MS;
		} else if (res->error) {
			log_warn("portal %s rail %u: discovery controller %s:%u: %s; trying again in %u s",
				 name, d->rail, d->traddr, d->trsvcid, strerror(res->error),
				 DISCOVERY_EVERY_MS / 1000);
			d->next_ms = now_ms() + DISCOVERY_EVERY_MS;
		} else {
			if (res->made) {
				d->ours = true;
				log_info("portal %s rail %u: persistent discovery controller %s",
					 name, d->rail, res->ctrl);
			}
			if (!same(d->ctrl, res->ctrl))
				d->stale = true;
			cpy(d->ctrl, sizeof(d->ctrl), res->ctrl);
			disc_mark(d->ctrl);
			if (res->read) {
				memcpy(d->t, res->t, res->n * sizeof(*d->t));
				d->n = res->n;
				d->stale = d->again;
				d->next_ms = 0;
				d->reads++;
				log_info("portal %s rail %u: discovery lists %u subsystem%s (log page %u of %s)",
					 name, d->rail, d->n, d->n == 1 ? "" : "s", d->reads, d->ctrl);
			} else {
				d->next_ms = now_ms() + DISC_RETRY_MS;
			}
		}
		close(d->job_fd);
		d->job = 0;
		d->again = false;
	}
	free(res);
}

const struct discovered *discover(struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
				  const struct gpupath_portal_rail *rail, const char *traddr,
				  uint32_t trsvcid, bool *pending)
{
	struct target at = { .trsvcid = trsvcid };
	int tos = portal_tos(f, p);
	struct discovered *d;
	nvme_ctrl_t c = NULL;
	const char *state;

	cpy(at.nqn, sizeof(at.nqn), NVME_DISC_SUBSYS_NAME);
	cpy(at.traddr, sizeof(at.traddr), traddr);
	d = disc_get(f, p->id, rail->id, &at);
	if (!d)
		return NULL;
	d->seen = true;
	if (d->job)
		return d;	/* its end wakes a pass */
	if (d->ctrl[0])
		c = ctrl_named(r, d->ctrl);
	if (!c) {
		c = find_ctrl(f, r, p, rail, &at);
		if (c) {
			/* By hand, by nvme-cli or by a daemon before: left alone. */
			d->ours = false;
			log_info("portal %s rail %u: discovery controller %s adopted", p->name,
				 rail->id, nvme_ctrl_get_name(c));
		}
	}
	if (!c) {
		char iface[IF_NAMESIZE];

		d->ctrl[0] = 0;
		if (rail_iface(f, rail, iface, sizeof(iface)) && !iface_running(f, iface)) {
			/* As conn_pass(): the last list holds until the link is back. */
			d->stale = true;
			return d;
		}
		if (now_ms() < d->next_ms) {
			*pending = true;
			return d;
		}
		disc_start(f, r, p, rail, &at, tos, d, pending);
		return d;
	}
	if (!same(d->ctrl, nvme_ctrl_get_name(c)))
		d->stale = true;
	cpy(d->ctrl, sizeof(d->ctrl), nvme_ctrl_get_name(c));
	disc_mark(d->ctrl);
	state = nvme_ctrl_get_state(c);
	if (!state || strcmp(state, "live")) {
		/* The host reconnects it; the log is read again once it is back. */
		d->stale = true;
	} else if (d->stale && now_ms() < d->next_ms) {
		*pending = true;
	} else if (d->stale) {
		disc_start(f, r, p, rail, &at, tos, d, pending);
	}
	return d;
}

bool fabric_discovery_changed(struct fabric *f, const char *ctrl)
{
	bool found = false;
	size_t i;

	for (i = 0; i < f->ndisc; i++) {
		if (strcmp(f->disc[i].ctrl, ctrl))
			continue;
		f->disc[i].stale = true;
		/* A child reading it now may have read it before the change. */
		f->disc[i].again = f->disc[i].job != 0;
		found = true;
	}
	return found;
}

void disc_prune(struct fabric *f, nvme_root_t r)
{
	size_t i, n = 0;

	for (i = 0; i < f->ndisc; i++) {
		/* (one whose child is at work goes once its result is in) */
		if (f->disc[i].seen || f->disc[i].job)
			f->disc[n++] = f->disc[i];
		else if (f->disc[i].ours)
			disconnect_named(f, r, f->disc[i].ctrl, NVME_DISC_SUBSYS_NAME,
					 "a discovery controller no portal wants");
	}
	f->ndisc = n;
}
