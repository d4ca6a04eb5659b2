// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath.conf, applied: the QoS classes and portals it names are made to
 * exist in the module with exactly its settings, and those it named before
 * and names no more are deleted. Objects made with the CLI and never named
 * in the file are left alone.
 *
 * What the file named is remembered in a state file under /run, so that a
 * restarted daemon (kill -9 included) knows what is its to delete. A file
 * that the module refuses in part is rolled back: what this pass changed is
 * undone, in reverse, and the module is left as it was.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "runfile.h"

/* One change made by this pass, and how to undo it. */
struct undo {
	enum { UNDO_QOS_DEL, UNDO_QOS_SET, UNDO_PORTAL_DEL, UNDO_PORTAL_SET, UNDO_PORTAL_ADD } op;
	char name[GPUPATH_NAME_LEN];
	struct gpupath_qos_conf qos;		/* UNDO_QOS_SET: the old settings */
	struct gpupath_portal *portal;		/* UNDO_PORTAL_SET, _ADD: the old portal */
};

struct pass {
	struct gpupath_ctl *ctl;
	const char *file;
	struct gpupath_portal *portals;	/* the module's, before this pass */
	size_t nportals;
	struct gpupath_qos *qos;
	size_t nqos;
	struct undo *undo;
	size_t nundo;
	unsigned int changes;
};

static int kerr(struct pass *p, unsigned int line, int r, const char *what, const char *name)
{
	const char *msg = gpupath_ctl_errmsg(p->ctl);
	char where[32] = "";

	if (line)
		snprintf(where, sizeof(where), "%u:", line);
	log_err("%s:%s %s %s: %s%s%s", p->file, where, what, name, strerror(-r),
		msg ? ": " : "", msg ? msg : "");
	return r;
}

static struct undo *push(struct pass *p, int op, const char *name)
{
	struct undo *u = realloc(p->undo, (p->nundo + 1) * sizeof(*u));

	if (!u)
		return NULL;
	p->undo = u;
	u = &p->undo[p->nundo++];
	memset(u, 0, sizeof(*u));
	u->op = op;
	snprintf(u->name, sizeof(u->name), "%s", name);
	return u;
}

/* ---- QoS classes ----------------------------------------------------------- */

static const struct gpupath_qos *qos_named(const struct pass *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nqos; i++)
		if (!strcmp(p->qos[i].name, name))
			return &p->qos[i];
	return NULL;
}

static void qos_conf_of(const struct gpupath_qos *q, struct gpupath_qos_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->set = GPUPATH_QOS_SET_SETTINGS;
	c->dscp = q->dscp;
	c->priority = q->priority;
	c->pfc = q->pfc;
	c->ets = q->ets;
}

/*
 * The module's class @want->name given the file's settings (added when it
 * has none), the change pushed for a rollback. Its settings on the host's
 * devices are the fabric's work (qos.c), at the next pass.
 */
static int set_module_qos(struct pass *p, const struct gpupath_conf_qos *want)
{
	const struct gpupath_qos *have = qos_named(p, want->name);
	const struct gpupath_qos_conf *c = &want->conf;
	struct undo *u;
	int r;

	if (have && have->dscp == c->dscp && have->priority == c->priority &&
	    have->pfc == c->pfc && have->ets == c->ets)
		return 0;
	u = push(p, have ? UNDO_QOS_SET : UNDO_QOS_DEL, want->name);
	if (!u)
		return -ENOMEM;
	if (have) {
		qos_conf_of(have, &u->qos);
		r = gpupath_ctl_qos_set(p->ctl, want->name, c);
	} else {
		r = gpupath_ctl_qos_add(p->ctl, want->name, c, NULL, 0);
	}
	if (r < 0) {
		p->nundo--;
		return kerr(p, want->line, r, "qos", want->name);
	}
	log_info("%s:%u: qos %s %s: dscp %u priority %u pfc %s ets %u%%", p->file, want->line,
		 want->name, have ? "updated" : "added", c->dscp, c->priority,
		 c->pfc ? "on" : "off", c->ets);
	p->changes++;
	return 0;
}

/* ---- portals --------------------------------------------------------------- */

static const struct gpupath_portal *portal_named(const struct pass *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nportals; i++)
		if (!strcmp(p->portals[i].name, name))
			return &p->portals[i];
	return NULL;
}

static bool rails_equal(const struct gpupath_portal *have, const struct gpupath_portal_conf *c)
{
	unsigned int i;

	if (have->nrails != c->nrails)
		return false;
	for (i = 0; i < c->nrails; i++)
		if (have->rail[i].id != c->rail[i].id ||
		    strcmp(have->rail[i].iface, c->rail[i].iface) ||
		    strcmp(have->rail[i].addr, c->rail[i].addr))
			return false;
	return true;
}

/* The target: the module refuses two portals with the same one. */
static bool target_equal(const struct gpupath_portal *have, const struct gpupath_portal_conf *c)
{
	uint32_t discover = c->set & GPUPATH_PORTAL_SET_DISCOVER ? c->discover :
			    GPUPATH_DISCOVER_ADDRESS;

	return have->transport == c->transport && have->discover == discover &&
	       !strcmp(have->traddr, c->traddr ? c->traddr : "") &&
	       (discover == GPUPATH_DISCOVER_MDNS || have->trsvcid == c->trsvcid) &&
	       have->discovery == !c->subsysnqn &&
	       (have->discovery || !strcmp(have->subsysnqn, c->subsysnqn));
}

/* What a portal is: changing it makes another portal (deleted and added). */
static bool same_target(const struct gpupath_portal *have, const struct gpupath_portal_conf *c)
{
	/* a portal's rails can be changed, not taken away */
	return target_equal(have, c) && (c->nrails || !have->nrails);
}

/* An authentication setting the file does not state is the default, "". */
static const char *auth_str(const char *s)
{
	return s ? s : "";
}

static bool auth_equal(const struct gpupath_portal *have, const struct gpupath_portal_conf *c)
{
	return !strcmp(have->host_nqn, auth_str(c->host_nqn)) &&
	       !strcmp(have->host_id, auth_str(c->host_id)) &&
	       !strcmp(have->secret_file, auth_str(c->secret_file)) &&
	       !strcmp(have->ctrl_secret_file, auth_str(c->ctrl_secret_file));
}

static bool settings_equal(const struct gpupath_portal *have,
			   const struct gpupath_portal_conf *c)
{
	return auth_equal(have, c) && !strcmp(have->qos, c->qos) &&
	       have->ctrl_loss_tmo == c->ctrl_loss_tmo &&
	       have->fast_io_fail_tmo == c->fast_io_fail_tmo &&
	       have->reconnect_delay == c->reconnect_delay &&
	       have->nr_io_queues == c->nr_io_queues && rails_equal(have, c);
}

/* A portal's every setting as a request, to put it back. */
static void portal_conf_of(const struct gpupath_portal *have, struct gpupath_portal_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->set = GPUPATH_PORTAL_SET_SETTINGS;
	c->name = have->name;
	c->transport = have->transport;
	c->traddr = have->traddr;
	c->subsysnqn = have->discovery ? NULL : have->subsysnqn;
	c->trsvcid = have->trsvcid;
	if (have->discover) {
		c->set |= GPUPATH_PORTAL_SET_DISCOVER;
		c->discover = have->discover;
		c->set &= ~GPUPATH_PORTAL_SET_TRSVCID;
		c->traddr = NULL;
	}
	c->qos = have->qos;
	c->ctrl_loss_tmo = have->ctrl_loss_tmo;
	c->fast_io_fail_tmo = have->fast_io_fail_tmo;
	c->reconnect_delay = have->reconnect_delay;
	c->nr_io_queues = have->nr_io_queues;
	/* (only what is set: a module without authentication takes no "") */
	c->host_nqn = have->host_nqn[0] ? have->host_nqn : NULL;
	c->host_id = have->host_id[0] ? have->host_id : NULL;
	c->secret_file = have->secret_file[0] ? have->secret_file : NULL;
	c->ctrl_secret_file = have->ctrl_secret_file[0] ? have->ctrl_secret_file : NULL;
	c->nrails = have->nrails;
	memcpy(c->rail, have->rail, sizeof(c->rail));
}

/* PORTAL_SET: @c's settings, without what names the target (add only). */
static int portal_set(struct gpupath_ctl *ctl, const char *name,
		      const struct gpupath_portal_conf *c)
{
	struct gpupath_portal_conf set = *c;
	struct gpupath_portal *have = malloc(sizeof(*have));
	int r;

	set.name = NULL;
	set.transport = 0;
	set.traddr = NULL;
	set.subsysnqn = NULL;
	set.set &= ~(GPUPATH_PORTAL_SET_TRSVCID | GPUPATH_PORTAL_SET_DISCOVER);
	/*
	 * What the portal has now and @c does not state is cleared ("" is
	 * sent only then: a module without authentication takes none).
	 */
	if (!have)
		return -ENOMEM;
	r = gpupath_ctl_portal_get(ctl, 0, name, have, sizeof(*have));
	if (!r && have->host_nqn[0] && !set.host_nqn)
		set.host_nqn = "";
	if (!r && have->host_id[0] && !set.host_id)
		set.host_id = "";
	if (!r && have->secret_file[0] && !set.secret_file)
		set.secret_file = "";
	if (!r && have->ctrl_secret_file[0] && !set.ctrl_secret_file)
		set.ctrl_secret_file = "";
	free(have);
	return gpupath_ctl_portal_set(ctl, 0, name, &set);
}

/* An undo step that puts @have back. */
static int push_portal(struct pass *p, int op, const struct gpupath_portal *have)
{
	struct undo *u = push(p, op, have->name);

	if (!u)
		return -ENOMEM;
	u->portal = malloc(sizeof(*u->portal));
	if (!u->portal) {
		p->nundo--;
		return -ENOMEM;
	}
	*u->portal = *have;
	return 0;
}

/* The module's portal @want->name given the file's settings, as set_module_qos(). */
static int set_module_portal(struct pass *p, const struct gpupath_conf_portal *want)
{
	const struct gpupath_portal *have = portal_named(p, want->name);
	const struct gpupath_portal_conf *c = &want->conf;
	int r;

	if (have && same_target(have, c)) {
		if (settings_equal(have, c))
			return 0;
		/* A set cannot take rails away: then the undo adds it back. */
		r = push_portal(p, !have->nrails && c->nrails ? UNDO_PORTAL_ADD : UNDO_PORTAL_SET,
				have);
		if (r < 0)
			return r;
		r = portal_set(p->ctl, want->name, c);
		if (r < 0) {
			free(p->undo[--p->nundo].portal);
			return kerr(p, want->line, r, "portal", want->name);
		}
		log_info("%s:%u: portal %s updated", p->file, want->line, want->name);
		p->changes++;
		return 0;
	}
	if (have) {
		/* Another target under the same name: the old portal goes. */
		r = push_portal(p, UNDO_PORTAL_ADD, have);
		if (r < 0)
			return r;
		r = gpupath_ctl_portal_del(p->ctl, 0, want->name);
		if (r < 0) {
			free(p->undo[--p->nundo].portal);
			return kerr(p, want->line, r, "portal", want->name);
		}
		log_info("%s:%u: portal %s names another target: replaced", p->file, want->line,
			 want->name);
	}
	if (!push(p, UNDO_PORTAL_DEL, want->name))
		return -ENOMEM;
	r = gpupath_ctl_portal_add(p->ctl, c, NULL, 0);
	if (r < 0) {
		p->nundo--;
		return kerr(p, want->line, r, "portal", want->name);
	}
	if (c->set & GPUPATH_PORTAL_SET_DISCOVER && c->discover == GPUPATH_DISCOVER_MDNS)
		log_info("%s:%u: portal %s added: %s, discovery by mDNS", p->file, want->line,
			 want->name, gpupath_transport_name(c->transport));
	else
		log_info("%s:%u: portal %s added: %s %s:%u %s", p->file, want->line, want->name,
			 gpupath_transport_name(c->transport), c->traddr, c->trsvcid,
			 c->subsysnqn ? c->subsysnqn : "(discovery)");
	p->changes++;
	return 0;
}

/* ---- undo ------------------------------------------------------------------ */

/* Undo this pass's changes, newest first; false if one could not be. */
static bool rollback(struct pass *p)
{
	struct gpupath_portal_conf pc;
	bool clean = true;
	struct undo *u;
	int r = 0;

	while (p->nundo) {
		u = &p->undo[--p->nundo];
		switch (u->op) {
		case UNDO_QOS_DEL:
			r = gpupath_ctl_qos_del(p->ctl, u->name);
			break;
		case UNDO_QOS_SET:
			r = gpupath_ctl_qos_set(p->ctl, u->name, &u->qos);
			break;
		case UNDO_PORTAL_DEL:
			r = gpupath_ctl_portal_del(p->ctl, 0, u->name);
			break;
		case UNDO_PORTAL_SET:
			portal_conf_of(u->portal, &pc);
			r = portal_set(p->ctl, u->name, &pc);
			break;
		case UNDO_PORTAL_ADD:
			/* Back as it was; the set (if any) is undone with it. */
			gpupath_ctl_portal_del(p->ctl, 0, u->name);
			portal_conf_of(u->portal, &pc);
			r = gpupath_ctl_portal_add(p->ctl, &pc, NULL, 0);
			break;
		}
		if (r < 0) {
			log_errno(r, "undoing the change to %s", u->name);
			clean = false;
		}
		free(u->portal);
		u->portal = NULL;
	}
	return clean;
}

static void pass_free(struct pass *p)
{
	size_t i;

	for (i = 0; i < p->nundo; i++)
		free(p->undo[i].portal);
	free(p->undo);
	free(p->portals);
	free(p->qos);
}

/* ---- what the file named ----------------------------------------------------- */

/*
 * The names @file gave last time: "portal NAME" and "qos NAME" lines after
 * a "file PATH" line. What another file named is not this one's to delete.
 */
static char *owned_read(const char *state, const char *file)
{
	FILE *f = fopen(state, "re");
	char *buf = NULL, head[600];
	size_t size = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &size, 0, f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	snprintf(head, sizeof(head), "file %s\n", file);
	if (buf && strncmp(buf, head, strlen(head))) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

static bool owned(const char *list, const char *kind, const char *name)
{
	char line[GPUPATH_NAME_LEN + 16];
	const char *s;

	if (!list)
		return false;
	snprintf(line, sizeof(line), "%s %s\n", kind, name);
	for (s = list; (s = strstr(s, line)); s++)
		if (s == list || s[-1] == '\n')
			return true;
	return false;
}

static int owned_write(const char *state, const char *file, const struct gpupath_conf *conf,
		       const char *kept)
{
	char tmp[512];
	FILE *f;
	size_t i;

	f = runfile_open(state, tmp, sizeof(tmp));
	if (!f)
		return -errno;
	fprintf(f, "file %s\n", file);
	for (i = 0; i < conf->nqos; i++)
		fprintf(f, "qos %s\n", conf->qos[i].name);
	for (i = 0; i < conf->nportals; i++)
		fprintf(f, "portal %s\n", conf->portals[i].name);
	fputs(kept, f);
	return runfile_commit(f, tmp, state);
}

static const struct gpupath_conf_portal *conf_portal(const struct gpupath_conf *conf,
						     const char *name)
{
	size_t i;

	for (i = 0; i < conf->nportals; i++)
		if (!strcmp(conf->portals[i].name, name))
			return &conf->portals[i];
	return NULL;
}

static bool in_conf(const struct gpupath_conf *conf, bool portal, const char *name)
{
	size_t i;

	if (portal)
		return conf_portal(conf, name);
	for (i = 0; i < conf->nqos; i++)
		if (!strcmp(conf->qos[i].name, name))
			return true;
	return false;
}

/*
 * Portals the file named before and no more, deleted before anything is
 * added (a renamed portal keeps its target): undone like the rest.
 */
static int drop_portals(struct pass *p, const struct gpupath_conf *conf, const char *list)
{
	size_t i;
	int r;

	for (i = 0; i < p->nportals; i++) {
		const struct gpupath_portal *have = &p->portals[i];

		if (in_conf(conf, true, have->name) || !owned(list, "portal", have->name))
			continue;
		r = push_portal(p, UNDO_PORTAL_ADD, have);
		if (r < 0)
			return r;
		r = gpupath_ctl_portal_del(p->ctl, 0, have->name);
		if (r < 0) {
			free(p->undo[--p->nundo].portal);
			return kerr(p, 0, r, "portal", have->name);
		}
		log_info("%s: portal %s is no longer named: deleted", p->file, have->name);
		p->changes++;
	}
	return 0;
}

/*
 * Classes the file named before and no more, once no portal of the file
 * names them. One still in use (by a portal made with the CLI) stays, and
 * stays the file's: *@kept lists it for the state file.
 */
static void drop_classes(struct pass *p, const struct gpupath_conf *conf, const char *list,
			 char *kept, size_t size)
{
	size_t i, len;
	int r;

	for (i = 0; i < p->nqos; i++) {
		const char *name = p->qos[i].name;

		if (in_conf(conf, false, name) || !owned(list, "qos", name))
			continue;
		r = gpupath_ctl_qos_del(p->ctl, name);
		if (r < 0) {
			kerr(p, 0, r, "qos", name);
			len = strlen(kept);
			snprintf(kept + len, size - len, "qos %s\n", name);
			continue;
		}
		log_info("%s: qos %s is no longer named: deleted", p->file, name);
		p->changes++;
	}
}

/*
 * What the module would refuse, found before anything changes: deleting a
 * portal tears its connections down, and undoing that cannot give back the
 * same controllers or ids. A portal's class must exist (in the file, or in
 * the module), and its target must not be that of a portal that stays.
 */
static int check_pass(struct pass *p, const struct gpupath_conf *conf, const char *list)
{
	const struct gpupath_conf_portal *want, *other;
	const struct gpupath_portal *have;
	size_t i, j, mine = 0;
	int r = 0;

	/*
	 * A file that names nothing, while objects an earlier file made are
	 * there, is more likely a file cut short (an editor saving, a tool
	 * writing it) than a wish to take the node's storage paths down.
	 */
	for (i = 0; i < p->nportals; i++)
		mine += owned(list, "portal", p->portals[i].name);
	for (i = 0; i < p->nqos; i++)
		mine += owned(list, "qos", p->qos[i].name);
	if (!conf->nportals && !conf->nqos && mine && !conf->remove_all) {
		log_err("%s: names no portal and no QoS class, and would remove the %zu an earlier "
			"version of it made; to remove them, say so: [daemon] remove-all = yes",
			p->file, mine);
		return -ECANCELED;
	}
	for (i = 0; i < conf->nportals; i++) {
		want = &conf->portals[i];
		if (want->conf.qos && want->conf.qos[0] && !in_conf(conf, false, want->conf.qos) &&
		    !qos_named(p, want->conf.qos)) {
			log_err("%s:%u: portal %s: qos %s: no QoS class with this name, in the file or the module",
				p->file, want->line, want->name, want->conf.qos);
			r = -ENOENT;
		}
		for (j = 0; j < p->nportals; j++) {
			have = &p->portals[j];
			if (!strcmp(have->name, want->name) || !target_equal(have, &want->conf))
				continue;
			/* Deleted by this pass, or given another target by it. */
			other = conf_portal(conf, have->name);
			if (other ? !same_target(have, &other->conf) :
			    owned(list, "portal", have->name))
				continue;
			log_err("%s:%u: portal %s: portal %s has this target already%s", p->file,
				want->line, want->name, have->name,
				other ? "" : " (not one of this file's)");
			r = -EEXIST;
		}
	}
	return r;
}

int config_apply(struct gpupath_ctl *ctl, const struct gpupath_conf *conf, const char *file,
		 const char *state)
{
	struct pass p = { .ctl = ctl, .file = file };
	char *list, *kept;
	size_t i;
	int r;

	r = gpupath_ctl_portal_list(ctl, &p.portals, sizeof(*p.portals), &p.nportals);
	if (r >= 0)
		r = gpupath_ctl_qos_list(ctl, &p.qos, sizeof(*p.qos), &p.nqos);
	if (r < 0) {
		log_errno(r, "%s: cannot read the module's portals and QoS classes", file);
		pass_free(&p);
		return r;
	}
	list = owned_read(state, file);
	kept = calloc(1, (p.nqos + 1) * (GPUPATH_NAME_LEN + 8));
	if (!kept) {
		free(list);
		pass_free(&p);
		return log_errno(-ENOMEM, "%s", file);
	}
	r = check_pass(&p, conf, list);
	if (r < 0) {
		log_err("%s: not applied; nothing was changed", file);
		free(list);
		free(kept);
		pass_free(&p);
		return r;
	}
	/* Dropped portals, then classes (portals name them), then portals. */
	r = drop_portals(&p, conf, list);
	for (i = 0; r >= 0 && i < conf->nqos; i++)
		r = set_module_qos(&p, &conf->qos[i]);
	for (i = 0; r >= 0 && i < conf->nportals; i++)
		r = set_module_portal(&p, &conf->portals[i]);
	if (r < 0) {
		if (p.nundo)
			log_warn("%s: undoing the %zu change%s made", file, p.nundo,
				 p.nundo == 1 ? "" : "s");
		if (rollback(&p))
			log_err("%s: not applied; the module's configuration is unchanged", file);
		else
			log_err("%s: not applied, and not all of it could be undone", file);
		free(list);
		free(kept);
		pass_free(&p);
		return r;
	}
	drop_classes(&p, conf, list, kept, (p.nqos + 1) * (GPUPATH_NAME_LEN + 8));
	free(list);
	r = owned_write(state, file, conf, kept);
	free(kept);
	if (r < 0)
		log_errno(r, "cannot write %s", state);
	log_info("%s: applied, %zu portal%s and %zu QoS class%s, %u change%s", file,
		 conf->nportals, conf->nportals == 1 ? "" : "s", conf->nqos,
		 conf->nqos == 1 ? "" : "es", p.changes, p.changes == 1 ? "" : "s");
	pass_free(&p);
	return 0;
}
