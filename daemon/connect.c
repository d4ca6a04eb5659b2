// SPDX-License-Identifier: GPL-2.0
/*
 * Controllers and the wanted connections (fabric-internal.h).
 *
 * A controller that already matches a wanted connection is used as it is,
 * whoever made it, so a restarted daemon never connects twice. What is
 * missing is connected when due, in a child process (child.c); a failed
 * attempt backs off exponentially, capped, and is retried for ever, every
 * attempt logged and reported in the portal's connections.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "fabric-internal.h"
#include "internal.h"
#include "log.h"
#include "private.h"
#include "secret.h"

#define BACKOFF_MAX_MS		60000
#define DISCOVERY_KATO		30	/* keep-alive of persistent discovery controllers */

/* What a connect child found. */
struct connect_result {
	int error;			/* errno, 0: connected */
	char ctrl[32];			/* the controller made */
};

static const char *transport_of(const struct gpupath_portal *p)
{
	return gpupath_transport_name(p->transport);
}

/*
 * Where a rail connects from: the interface and the host address. nvme-tcp
 * binds to an interface (host_iface); nvme-rdma only to an address
 * (host_traddr), so there the interface's address stands for it.
 */
struct host_end {
	const char *iface;		/* NULL: not bound */
	const char *addr;		/* NULL: not bound */
	char buf[INET6_ADDRSTRLEN];
};

static void host_end(const struct fabric *f, const struct gpupath_portal *p,
		     const struct gpupath_portal_rail *rail, const char *traddr,
		     struct host_end *he)
{
	he->iface = NULL;
	he->addr = rail->addr[0] ? rail->addr : NULL;	/* may be the only binding */
	if (!rail->iface[0])
		return;
	if (p->transport == GPUPATH_TRANSPORT_TCP) {
		he->iface = rail->iface;
	} else if (!he->addr) {
		iface_addr(f, rail->iface, traddr, he->buf, sizeof(he->buf));
		if (he->buf[0])
			he->addr = he->buf;
	}
}

/*
 * Whether @c connects from @rail: by what it really uses, whoever connected
 * it (the daemon, or by hand with any address of the rail's interface): its
 * host_iface, its host_traddr, or the source address of its connection
 * (nvme-tcp's src_addr). A controller bound to none of them (nvme-cli's
 * autoconnect may make those over RDMA) goes where the kernel routes its
 * target: to the rail whose interface's subnet holds the target address.
 */
static bool on_rail(const struct fabric *f, nvme_ctrl_t c,
		    const struct gpupath_portal_rail *rail)
{
	const char *used[2] = { nvme_ctrl_get_host_traddr(c) };
	char src[INET6_ADDRSTRLEN], iface[IF_NAMESIZE];
	const char *hif = nvme_ctrl_get_host_iface(c);
	bool bound = hif && hif[0];
	unsigned int i;

	gpupath_addr_field(nvme_ctrl_get_address(c), "src_addr", src, sizeof(src));
	used[1] = src;
	if (!rail->iface[0] && !rail->addr[0])
		return true;
	if (!rail->addr[0] && same(hif, rail->iface))
		return true;
	for (i = 0; i < 2; i++) {
		if (!used[i] || !used[i][0])
			continue;
		bound = true;
		if (rail->addr[0] ? !strcmp(used[i], rail->addr) :
		    ifaddr_find(f, rail->iface, used[i], AF_UNSPEC, NULL, 0, NULL, 0))
			return true;
	}
	return !bound && nvme_ctrl_get_traddr(c) && rail_iface(f, rail, iface, sizeof(iface)) &&
	       iface_subnet_has(f, iface, nvme_ctrl_get_traddr(c));
}

/*
 * The host @p's connections present: the portal's own NQN and ID (an ID
 * named by an NQN of the nvmexpress uuid form when it gives none), or the
 * system's (/etc/nvme/hostnqn, hostid).
 */
static nvme_host_t host_of(nvme_root_t r, const struct gpupath_portal *p)
{
	const char *id = p->host_id[0] ? p->host_id : NULL, *u;

	if (!p->host_nqn[0] && !id)
		return nvme_default_host(r);
	if (!p->host_nqn[0]) {
		nvme_host_t h = nvme_default_host(r);

		return h ? nvme_lookup_host(r, nvme_host_get_hostnqn(h), id) : NULL;
	}
	u = strstr(p->host_nqn, ":uuid:");
	if (!id && u)
		id = u + 6;
	return nvme_lookup_host(r, p->host_nqn, id);
}

nvme_ctrl_t find_ctrl(const struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
		      const struct gpupath_portal_rail *rail, const struct target *t)
{
	nvme_host_t want = host_of(r, p), h;
	char svc[8];
	nvme_subsystem_t s;
	nvme_ctrl_t c;

	snprintf(svc, sizeof(svc), "%u", t->trsvcid);
	nvme_for_each_host(r, h) {
		/* another host NQN is another host's association */
		if (want && !same(nvme_host_get_hostnqn(h), nvme_host_get_hostnqn(want)))
			continue;
		nvme_for_each_subsystem(h, s) {
			nvme_subsystem_for_each_ctrl(s, c) {
				/* (no name: one deleted while the scan read it) */
				if (nvme_ctrl_get_name(c) &&
				    same(nvme_ctrl_get_transport(c), transport_of(p)) &&
				    same(nvme_ctrl_get_traddr(c), t->traddr) &&
				    same(nvme_ctrl_get_trsvcid(c), svc) &&
				    same(nvme_ctrl_get_subsysnqn(c), t->nqn) &&
				    on_rail(f, c, rail))
					return c;
			}
		}
	}
	return NULL;
}

/*
 * libnvme reports its own codes (ENVME_CONNECT_*, past the errno range) and
 * logs the system error behind them: an errno for the module's report.
 */
static int os_errno(int err)
{
	if (err <= 0)
		return EIO;
	if (err < ENVME_CONNECT_RESOLVE)
		return err;
	switch (err) {
	case ENVME_CONNECT_RESOLVE:
		return EADDRNOTAVAIL;
	case ENVME_CONNECT_ADDRFAM:
		return EAFNOSUPPORT;
	case ENVME_CONNECT_OPEN:
		return ENODEV;
	case ENVME_CONNECT_WRITE:
	case ENVME_CONNECT_READ:
		return ECOMM;
	case ENVME_CONNECT_ALREADY:
	case ENVME_CONNECT_ADDRINUSE:
		return EADDRINUSE;
	case ENVME_CONNECT_NODEV:
		return ENODEV;
	case ENVME_CONNECT_OPNOTSUPP:
		return EOPNOTSUPP;
	case ENVME_CONNECT_CONNREFUSED:
		return ECONNREFUSED;
	default:
		return EINVAL;
	}
}

static void fabrics_config(const struct gpupath_portal *p, const struct host_end *he, int tos,
			   struct nvme_fabrics_config *cfg)
{
	nvmf_default_config(cfg);
	if (tos >= 0)
		cfg->tos = tos;
	cfg->host_iface = (char *)he->iface;
	cfg->host_traddr = (char *)he->addr;
	cfg->ctrl_loss_tmo = p->ctrl_loss_tmo == GPUPATH_TMO_FOREVER ? -1 :
			     (int)p->ctrl_loss_tmo;
	cfg->fast_io_fail_tmo = p->fast_io_fail_tmo == GPUPATH_TMO_OFF ? -1 :
				(int)p->fast_io_fail_tmo;
	cfg->reconnect_delay = p->reconnect_delay;
	if (p->nr_io_queues)
		cfg->nr_io_queues = p->nr_io_queues;
}

/* Whose secret: the host's (0) or the controller's (1). */
static const char *const secret_role[2] = { "host", "controller" };

/*
 * The file of @p's secret @i (secret_role), "" when there is none: a
 * discovery controller (@disc) authenticates the host only.
 */
static const char *secret_file(const struct gpupath_portal *p, unsigned int i, bool disc)
{
	return i ? (disc ? "" : p->ctrl_secret_file) : p->secret_file;
}

/*
 * Read portal @p's DH-HMAC-CHAP secrets (those secret_file() gives) into
 * @c, or only check them when @c is NULL. Returns 0, or a negative errno
 * after saying what is wrong with which file. libnvme prefers a secret of the host
 * object (which its scan takes from any live controller of the same host
 * NQN) to the controller's: it is cleared, so that the portal's own is
 * used, or none.
 */
static int set_secrets(nvme_host_t h, nvme_ctrl_t c, const struct gpupath_portal *p,
		       bool disc)
{
	char key[SECRET_LEN], why[160];
	const char *file;
	unsigned int i;
	int err;

	if (h)
		nvme_host_set_dhchap_key(h, NULL);
	for (i = 0; i < 2; i++) {
		file = secret_file(p, i, disc);
		if (!file[0])
			continue;
		err = secret_read(file, key, why, sizeof(why));
		if (err) {
			log_warn("portal %s: %s secret %s: %s", p->name, secret_role[i], file, why);
			return err;
		}
		if (c && i)
			nvme_ctrl_set_dhchap_key(c, key);
		else if (c)
			nvme_ctrl_set_dhchap_host_key(c, key);
		secret_wipe(key);
	}
	return 0;
}

nvme_ctrl_t connect_ctrl(const struct fabric *f, nvme_root_t r, const struct gpupath_portal *p,
			 const struct gpupath_portal_rail *rail, const struct target *t, int tos)
{
	bool disc = !strcmp(t->nqn, NVME_DISC_SUBSYS_NAME);
	struct nvme_fabrics_config cfg;
	nvme_host_t h = host_of(r, p);
	struct host_end he;
	char svc[8];
	nvme_ctrl_t c;
	int err;

	if (!h) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(svc, sizeof(svc), "%u", t->trsvcid);
	host_end(f, p, rail, t->traddr, &he);
	if (rail->iface[0] && !he.iface && !he.addr) {
		log_warn("portal %s rail %u: %s has no address to connect from", p->name,
			 rail->id, rail->iface);
		errno = EADDRNOTAVAIL;
		return NULL;
	}
	c = nvme_create_ctrl(r, t->nqn, transport_of(p), t->traddr, he.addr, he.iface, svc);
	if (!c)
		return NULL;
	fabrics_config(p, &he, tos, &cfg);
	if (disc) {
		/* Kept: its keep-alive tells the host when the target goes. */
		cfg.keep_alive_tmo = DISCOVERY_KATO;
		nvme_ctrl_set_persistent(c, true);
	}
	err = set_secrets(h, c, p, disc);
	if (err) {
		nvme_free_ctrl(c);
		errno = -err;
		return NULL;
	}
	if (nvmf_add_ctrl(h, c, &cfg) < 0) {
		err = os_errno(errno);
		/* The kernel refused the authentication, or the target did. */
		if (p->secret_file[0] && (err == ECONNREFUSED || err == ECOMM || err == EKEYREJECTED ||
					  err == EACCES || err == EPERM || err == EIO)) {
			log_warn("portal %s: %s at %s:%s refused host %s: authentication failed "
				 "(check its DH-HMAC-CHAP secrets and the target's)", p->name, t->nqn,
				 t->traddr, svc, nvme_host_get_hostnqn(h));
			err = EKEYREJECTED;
		}
		nvme_free_ctrl(c);
		errno = err;
		return NULL;
	}
	return c;
}

nvme_ctrl_t ctrl_named(nvme_root_t r, const char *name)
{
	nvme_subsystem_t s;
	nvme_host_t h;
	nvme_ctrl_t c;

	nvme_for_each_host(r, h)
		nvme_for_each_subsystem(h, s)
			nvme_subsystem_for_each_ctrl(s, c)
				if (same(nvme_ctrl_get_name(c), name))
					return c;
	return NULL;
}

void disconnect_named(struct fabric *f, nvme_root_t r, const char *name, const char *nqn,
		      const char *why)
{
	nvme_ctrl_t c = name[0] ? ctrl_named(r, name) : NULL;

	if (!c || !same(nvme_ctrl_get_subsysnqn(c), nqn))
		return;
	log_info("%s: disconnecting %s", why, name);
	f->changes++;
	if (nvme_disconnect_ctrl(c) < 0)
		log_errno(-errno, "disconnecting %s", name);
}

static bool conn_key(const struct gpupath_portal_conn *a, const struct gpupath_portal_conn *b)
{
	return a->rail == b->rail && a->trsvcid == b->trsvcid &&
	       !strcmp(a->subsysnqn, b->subsysnqn) && !strcmp(a->traddr, b->traddr);
}

/* The connect under way for @portal's connection @key, if there is one. */
static struct connect_job *job_of(struct fabric *f, uint32_t portal,
				  const struct gpupath_portal_conn *key)
{
	size_t i;

	for (i = 0; i < f->njobs; i++)
		if (f->jobs[i].portal == portal && conn_key(&f->jobs[i].key, key))
			return &f->jobs[i];
	return NULL;
}

/*
 * Start connecting @c (of @p, from @rail, to @t) in a child process, which
 * writes its connect_result and wakes the loop (fabric_fd()) when it is
 * done. Returns 0, or a negative errno when no child could be started.
 */
static int connect_start(struct fabric *f, nvme_root_t r, struct conn *c,
			 const struct gpupath_portal *p, const struct gpupath_portal_rail *rail,
			 const struct target *t, int tos)
{
	struct connect_job *j = &f->jobs[f->njobs];
	struct connect_result res = { 0 };
	nvme_ctrl_t ctrl;
	pid_t pid;
	int fd = -1, err;

	/* A secret file that will not do fails here, with its reason, at once. */
	err = set_secrets(NULL, NULL, p, false);
	if (err)
		return err;
	pid = child_start(f, &fd);
	if (pid < 0)
		return pid;
	if (!pid) {
		ctrl = connect_ctrl(f, r, p, rail, t, tos);
		if (ctrl)
			cpy(res.ctrl, sizeof(res.ctrl), nvme_ctrl_get_name(ctrl));
		else
			res.error = errno ? errno : EIO;
		child_end(f, fd, &res, sizeof(res));
	}
	j->pid = pid;
	j->fd = fd;
	j->portal = p->id;
	j->key = c->rep;
	j->tos = tos;
	f->njobs++;
	return 0;
}

struct conn *conn_get(struct fabric *f, const struct gpupath_portal *p,
		      const struct gpupath_portal_conn *key)
{
	struct conn *c, *tmp;
	unsigned int i;

	for (i = 0; i < f->nconns; i++)
		if (f->conns[i].portal == p->id && conn_key(&f->conns[i].rep, key))
			return &f->conns[i];
	tmp = realloc(f->conns, (f->nconns + 1) * sizeof(*f->conns));
	if (!tmp)
		return NULL;
	f->conns = tmp;
	c = &f->conns[f->nconns++];
	memset(c, 0, sizeof(*c));
	c->portal = p->id;
	c->rep = *key;
	c->tos = -1;
	/* Connected by an earlier gpupathd: the module's record says so. */
	for (i = 0; i < p->nconns; i++)
		if (conn_key(&p->conn[i], key) && p->conn[i].state != GPUPATH_CONN_ADOPTED)
			c->ours = p->conn[i].controller[0] != 0;
	return c;
}

static void connected(struct conn *c, const char *ctrl, uint32_t state)
{
	cpy(c->rep.controller, sizeof(c->rep.controller), ctrl);
	c->rep.state = state;
	c->rep.attempts = 0;
	c->rep.error = 0;
	c->rep.retry_ms = 0;
}

/*
 * A controller of @p (of a subsystem, never a discovery controller) takes
 * the secrets its files hold now: one that changed is written to the
 * controller, and the kernel authenticates the live controller again with
 * it (a rotation, with I/O going on), or reconnects with it.
 */
static void rotate_secrets(struct conn *cn, nvme_ctrl_t ctrl, const struct gpupath_portal *p)
{
	static const char *const attr[2] = { "dhchap_secret", "dhchap_ctrl_secret" };
	const char *dir = nvme_ctrl_get_sysfs_dir(ctrl), *file;
	char key[SECRET_LEN], why[160];
	unsigned int i;
	int r;

	for (i = 0; dir && i < 2; i++) {
		file = secret_file(p, i, false);
		if (!file[0])
			continue;
		r = secret_read(file, key, why, sizeof(why));
		if (r) {
			if (cn->auth_said != r)
				log_warn("portal %s: %s keeps its %s secret: %s: %s", p->name,
					 nvme_ctrl_get_name(ctrl), secret_role[i], file, why);
			cn->auth_said = r;
			return;
		}
		r = secret_sysfs_update(dir, attr[i], key);
		secret_wipe(key);
		if (r == 1)
			log_info("portal %s: %s authenticates again with the %s secret of %s",
				 p->name, nvme_ctrl_get_name(ctrl), secret_role[i], file);
		else if (r < 0 && cn->auth_said != r)
			log_warn("portal %s: %s takes no new %s secret (%s)%s", p->name,
				 nvme_ctrl_get_name(ctrl), secret_role[i], strerror(-r),
				 r == -EINVAL ? ": connected without one, it gets it when it is "
				 "connected anew" : "");
		cn->auth_said = r < 0 ? r : 0;
		if (r < 0)
			return;
	}
}

/* @c's attempt failed with @err: the next one backs off further. */
static void conn_failed(struct conn *c, const struct gpupath_portal *p, int err, bool *pending)
{
	uint64_t delay;

	c->rep.error = err ? err : EIO;
	c->rep.attempts++;
	c->rep.controller[0] = 0;
	delay = (uint64_t)p->reconnect_delay * 1000;
	delay <<= c->rep.attempts < 8 ? c->rep.attempts - 1 : 7;
	if (delay > BACKOFF_MAX_MS)
		delay = BACKOFF_MAX_MS;
	c->next_ms = now_ms() + delay;
	c->rep.state = GPUPATH_CONN_BACKOFF;
	c->rep.retry_ms = delay;
	*pending = true;
	log_warn("portal %s rail %u: connecting %s %s:%u failed (attempt %u): %s; next in %.1fs",
		 p->name, c->rep.rail, c->rep.subsysnqn, c->rep.traddr, c->rep.trsvcid,
		 c->rep.attempts, strerror(c->rep.error), delay / 1e3);
}

void conn_pass(struct fabric *f, struct conn *c, nvme_root_t r, const struct gpupath_portal *p,
	       const struct gpupath_portal_rail *rail, const struct target *t, int tos,
	       bool *pending)
{
	const char *state;
	nvme_ctrl_t ctrl;
	int err;

	/* Its controller may show already: it is taken once the child is done. */
	if (job_of(f, p->id, &c->rep)) {
		c->rep.state = GPUPATH_CONN_CONNECTING;
		return;
	}
	ctrl = find_ctrl(f, r, p, rail, t);
	if (ctrl) {
		state = nvme_ctrl_get_state(ctrl);
		if (state && !strcmp(state, "live")) {
			if (c->rep.state != GPUPATH_CONN_LIVE && c->rep.state != GPUPATH_CONN_ADOPTED)
				log_info("portal %s rail %u: %s %s live (%s)", p->name, rail->id,
					 t->nqn, c->ours ? "is" : "adopted,",
					 nvme_ctrl_get_name(ctrl));
			connected(c, nvme_ctrl_get_name(ctrl), c->ours ? GPUPATH_CONN_LIVE : GPUPATH_CONN_ADOPTED);
		} else {
			/* The host reconnects it (ctrl_loss_tmo): leave it be. */
			if (c->rep.state != GPUPATH_CONN_RECONNECTING)
				log_info("portal %s rail %u: %s is %s, the host reconnects it",
					 p->name, rail->id, nvme_ctrl_get_name(ctrl),
					 state ? state : "unknown");
			connected(c, nvme_ctrl_get_name(ctrl), GPUPATH_CONN_RECONNECTING);
		}
		/* Live or reconnecting, it takes the secrets the files hold now. */
		if (p->secret_file[0])
			rotate_secrets(c, ctrl, p);
		return;
	}
	if (c->iface[0] && !iface_running(f, c->iface)) {
		/*
		 * No carrier: an attempt could only time out, holding up every
		 * other connection. The link's return brings a pass.
		 */
		if (c->rep.error != ENETDOWN)
			log_info("portal %s rail %u: %s waits for %s's link", p->name, rail->id,
				 t->nqn, c->iface);
		c->rep.state = GPUPATH_CONN_BACKOFF;
		c->rep.error = ENETDOWN;
		c->rep.retry_ms = 0;
		c->rep.controller[0] = 0;
		return;
	}
	if (now_ms() < c->next_ms || f->njobs == CONNECTS_MAX) {
		*pending = true;
		return;
	}
	log_info("portal %s rail %u: connecting %s %s:%u%s%s (attempt %u)", p->name, rail->id,
		 t->nqn, t->traddr, t->trsvcid, rail->iface[0] ? " from " : "", rail->iface,
		 c->rep.attempts + 1);
	err = connect_start(f, r, c, p, rail, t, tos);
	if (err) {
		conn_failed(c, p, -err, pending);
		return;
	}
	c->rep.state = GPUPATH_CONN_CONNECTING;
	c->rep.controller[0] = 0;
}

void connects_reap(struct fabric *f, const struct gpupath_portal *portals, size_t n,
		   struct gpupath_portal_conn *unwanted, size_t *nunwanted, bool *pending)
{
	struct connect_result res;
	struct connect_job *j;
	struct conn *c;
	size_t i, k, m;
	ssize_t len;

	for (i = 0; i < f->njobs;) {
		j = &f->jobs[i];
		len = read(j->fd, &res, sizeof(res));
		if (len < 0 && errno == EAGAIN) {
			i++;
			continue;
		}
		if (len != sizeof(res)) {
			memset(&res, 0, sizeof(res));
			res.error = EIO;	/* the child died */
		}
		close(j->fd);
		while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
			;
		for (k = 0; k < n && portals[k].id != j->portal; k++)
			;
		c = NULL;
		for (m = 0; k < n && m < f->nconns; m++)
			if (f->conns[m].portal == j->portal && conn_key(&f->conns[m].rep, &j->key))
				c = &f->conns[m];
		if (!c) {
			if (!res.error) {
				unwanted[*nunwanted] = j->key;
				cpy(unwanted[(*nunwanted)++].controller,
				    sizeof(unwanted->controller), res.ctrl);
			}
		} else if (res.error) {
			conn_failed(c, &portals[k], res.error, pending);
		} else {
			c->ours = true;
			c->tos = j->tos;
			connected(c, res.ctrl, GPUPATH_CONN_LIVE);
			f->changes++;
			log_info("portal %s rail %u: connected %s as %s", portals[k].name,
				 c->rep.rail, c->rep.subsysnqn, res.ctrl);
		}
		f->jobs[i] = f->jobs[--f->njobs];
	}
}

static bool conn_equal(const struct gpupath_portal_conn *a, const struct gpupath_portal_conn *b)
{
	return conn_key(a, b) && a->state == b->state && a->attempts == b->attempts &&
	       a->error == b->error && a->retry_ms == b->retry_ms &&
	       !strcmp(a->controller, b->controller);
}

void conns_report(struct fabric *f, struct gpupath_ctl *ctl, const struct gpupath_portal *p)
{
	struct gpupath_portal_conf conf = { .set = GPUPATH_PORTAL_SET_CONNS };
	struct gpupath_portal_conn *reps;
	bool changed;
	size_t i;
	int r;

	reps = calloc(GPUPATH_PORTAL_CONNS_MAX, sizeof(*reps));
	if (!reps)
		return;
	for (i = 0; i < f->nconns; i++) {
		if (f->conns[i].portal != p->id || !f->conns[i].seen)
			continue;
		if (conf.nconns < GPUPATH_PORTAL_CONNS_MAX)
			reps[conf.nconns] = f->conns[i].rep;
		conf.nconns++;
	}
	if (conf.nconns > GPUPATH_PORTAL_CONNS_MAX) {
		/* made and kept all the same; only the report is short (said once) */
		if (p->nconns < GPUPATH_PORTAL_CONNS_MAX)
			log_warn("portal %s: %u connections, only the first %u shown (use a portal per rail)",
				 p->name, conf.nconns, GPUPATH_PORTAL_CONNS_MAX);
		conf.nconns = GPUPATH_PORTAL_CONNS_MAX;
	}
	changed = conf.nconns != p->nconns;
	for (i = 0; !changed && i < conf.nconns; i++)
		changed = !conn_equal(&reps[i], &p->conn[i]);
	conf.conn = reps;
	if (changed) {
		r = gpupath_ctl_portal_set(ctl, p->id, NULL, &conf);
		if (r < 0)
			log_errno(r, "portal %s: reporting connections", p->name);
	}
	free(reps);
}
