// SPDX-License-Identifier: GPL-2.0
/*
 * QoS on the host (fabric-internal.h): each class the module holds is
 * applied to what its portals use. Connections are made with the class's
 * ToS (connect.c); on every rail's interface DCB is set (dcb.c) and, for
 * RDMA, the vendor ECN knobs and rdma_cm's default RoCE ToS of its RDMA
 * device. What was set is reported in the class's applied settings, and
 * kept in a ledger with what was there before, so that what no class
 * wants any more is taken back exactly, by this daemon or after it
 * (gpupathd --release-qos).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dcb.h"
#include "fabric-internal.h"
#include "log.h"

#define QOS_LEDGER		"/run/gpupath/qos-ledger"

void qos_load(struct fabric *f)
{
	int r = ledger_load(&f->ledger, QOS_LEDGER);

	if (r < 0)
		log_errno(r, "reading %s: what gpupathd set before is forgotten", QOS_LEDGER);
}

bool qos_read(struct fabric *f, struct gpupath_ctl *ctl)
{
	int r;

	free(f->qos);
	f->qos = NULL;
	f->nqos = 0;
	r = gpupath_ctl_qos_list(ctl, &f->qos, sizeof(*f->qos), &f->nqos);
	if (r < 0)
		log_errno(r, "reading QoS classes");
	return r >= 0;
}

int portal_tos(const struct fabric *f, const struct gpupath_portal *p)
{
	size_t i;

	for (i = 0; p->qos[0] && i < f->nqos; i++)
		if (!strcmp(f->qos[i].name, p->qos))
			return f->qos[i].dscp << 2;
	return -1;
}

/* The RDMA device whose port 1 sits on netdev @iface, into @ibdev. */
static bool ibdev_of(const char *iface, char *ibdev, size_t size)
{
	char path[320], ndev[IF_NAMESIZE + 2];
	struct dirent *de;
	bool found = false;
	FILE *fp;
	DIR *dir;

	dir = opendir("/sys/class/infiniband");
	if (!dir)
		return false;
	while (!found && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0",
			 de->d_name);
		fp = fopen(path, "re");
		if (!fp)
			continue;
		if (fgets(ndev, sizeof(ndev), fp) && !strcmp(strtok(ndev, "\n") ?: "", iface)) {
			cpy(ibdev, size, de->d_name);
			found = true;
		}
		fclose(fp);
	}
	closedir(dir);
	return found;
}

/*
 * rdma_cm's default ToS for RoCE connections on @ibdev port 1 (the
 * rdma_cm configfs), set to @tos and read back into @a.
 */
static void set_roce_tos(const char *ibdev, int tos, struct ledger *l,
			 struct gpupath_qos_applied *a)
{
	char dir[200], file[260], buf[16];
	int fd, before = -1;
	ssize_t n;

	cpy(a->device, sizeof(a->device), ibdev);
	cpy(a->setting, sizeof(a->setting), "default_roce_tos");
	snprintf(dir, sizeof(dir), "/sys/kernel/config/rdma_cm/%s", ibdev);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		a->result = errno == ENOENT ? GPUPATH_APPLIED_UNSUPPORTED : GPUPATH_APPLIED_FAILED;
		a->error = errno;
		return;
	}
	snprintf(file, sizeof(file), "%s/ports/1/default_roce_tos", dir);
	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		before = atoi(buf);
	}
	snprintf(buf, sizeof(buf), "%d", tos);
	if (fd < 0 || before < 0 || lseek(fd, 0, SEEK_SET) < 0 ||
	    (before != tos && write(fd, buf, strlen(buf)) < 0) || lseek(fd, 0, SEEK_SET) < 0 ||
	    (n = read(fd, buf, sizeof(buf) - 1)) <= 0) {
		a->result = GPUPATH_APPLIED_FAILED;
		a->error = errno ? errno : EIO;
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	buf[n] = 0;
	a->value = strtoul(buf, NULL, 10);
	a->result = (int)a->value == tos ? GPUPATH_APPLIED_OK : GPUPATH_APPLIED_FAILED;
	a->error = a->result == GPUPATH_APPLIED_OK ? 0 : EIO;
	if (a->result == GPUPATH_APPLIED_OK)
		ledger_want(l, ibdev, MARK_ROCE_TOS, 0, before, before != tos);
}

/* Put rdma_cm's default RoCE ToS of @ibdev port 1 back to @tos. */
static int reset_roce_tos(const char *ibdev, int tos)
{
	char file[260], buf[16];
	int fd, r = 0;

	snprintf(file, sizeof(file), "/sys/kernel/config/rdma_cm/%s/ports/1/default_roce_tos",
		 ibdev);
	snprintf(buf, sizeof(buf), "%d", tos);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, strlen(buf)) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	return r;
}

/* Take back @m, one setting gpupathd made (dcb_undo's results). */
static int qos_undo(const struct mark *m)
{
	return m->kind == MARK_ROCE_TOS ? reset_roce_tos(m->device, m->before) : dcb_undo(m);
}

/*
 * What the classes set and no class wants now (a class changed or deleted,
 * a portal that no longer names it): taken back, exactly that.
 */
static void converge_qos(struct fabric *f, size_t marks)
{
	struct mark *undo;
	size_t n, i;
	int r;

	if (ledger_unwanted(&f->ledger, &undo, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		const struct mark *m = &undo[i];

		r = qos_undo(m);
		if (!ledger_undo_done(r)) {
			log_errno(r, "QoS: taking back %s %s %u (tried again next pass)", m->device,
				  ledger_kind_name(m->kind), m->key);
			ledger_put_back(&f->ledger, m);
			continue;
		}
		log_info("QoS: %s %s %u %s", m->device, ledger_kind_name(m->kind), m->key,
			 r == -ESTALE ? "left as others changed it" :
			 r < 0 ? "taken back (the device is gone)" : "taken back");
	}
	free(undo);
	if (!n && f->ledger.n == marks)
		return;
	r = ledger_save(&f->ledger, QOS_LEDGER);
	if (r < 0)
		log_errno(r, "writing %s", QOS_LEDGER);
}

/* @m in words: "eth1: pfc on priority 3". */
static void mark_text(char *buf, size_t size, const struct mark *m)
{
	const char *kind = ledger_kind_name(m->kind);

	switch (m->kind) {
	case MARK_APP_DSCP:
		snprintf(buf, size, "%s: %s %u -> priority %u", m->device, kind, m->key >> 8,
			 m->key & 7);
		break;
	case MARK_PFC:
		snprintf(buf, size, "%s: %s on priority %u", m->device, kind, m->key);
		break;
	case MARK_ECN_NP:
	case MARK_ECN_RP:
		snprintf(buf, size, "%s: %s on priority %u (%d before)", m->device, kind, m->key,
			 m->before);
		break;
	case MARK_ROCE_TOS:
		snprintf(buf, size, "%s: %s of port 1 (%d before)", m->device, kind, m->before);
		break;
	default:
		snprintf(buf, size, "%s: %s (gpupathd's shares)", m->device, kind);
		break;
	}
}

/* One line of gpupathd --release-qos for @m, taken back or not (@r). */
static void release_report(const struct mark *m, int r, void *arg)
{
	char what[128];

	(void)arg;
	mark_text(what, sizeof(what), m);
	if (ledger_undo_done(r))
		printf("%s: %s\n", what, r == -ESTALE ? "left as others changed it since" :
		       r < 0 ? "taken back (the device is gone)" : "taken back");
	else
		printf("%s: NOT taken back: %s\n", what, strerror(-r));
}

int fabric_release_qos(void)
{
	struct ledger l;
	pid_t holder = 0;
	char what[128];
	size_t i;
	int r;

	r = ledger_release(QOS_LEDGER, qos_undo, release_report, NULL, &holder);
	if (r == -EBUSY) {
		fprintf(stderr, "gpupathd: gpupathd (pid %d) runs and would set the QoS settings "
			"again: nothing is taken back; stop it first\n", (int)holder);
		r = ledger_load(&l, QOS_LEDGER);
		for (i = 0; !r && i < l.n; i++) {
			mark_text(what, sizeof(what), &l.m[i]);
			printf("%s: NOT taken back: gpupathd runs\n", what);
		}
		r = r ? r : (int)l.n;
		ledger_free(&l);
		if (r <= 0)
			return -EBUSY;
	} else if (r < 0) {
		fprintf(stderr, "gpupathd: taking back what %s holds: %s\n", QOS_LEDGER,
			strerror(-r));
		return r;
	}
	if (r)
		printf("QoS settings gpupathd made and not taken back are in %s "
		       "(\"KIND DEVICE KEY BEFORE\" a line)\n", QOS_LEDGER);
	else
		printf("no QoS setting of gpupathd's is left on the host's devices\n");
	return r;
}

int fabric_lock(pid_t *holder)
{
	return ledger_lock(QOS_LEDGER, true, holder);
}

static bool applied_equal(const struct gpupath_qos *q, const struct gpupath_qos_applied *a,
			  unsigned int n)
{
	unsigned int i;

	if (q->napplied != n)
		return false;
	for (i = 0; i < n; i++)
		if (strcmp(q->applied[i].device, a[i].device) ||
		    strcmp(q->applied[i].setting, a[i].setting) ||
		    q->applied[i].result != a[i].result || q->applied[i].error != a[i].error ||
		    q->applied[i].value != a[i].value)
			return false;
	return true;
}

/* The classes whose portals connect from @iface (at most @max). */
static unsigned int classes_on(const struct fabric *f, const char *iface,
			       const struct gpupath_portal *portals, size_t nportals,
			       const struct gpupath_qos **out, unsigned int max)
{
	char name[IF_NAMESIZE];
	unsigned int n = 0, r;
	size_t c, j;

	for (c = 0; c < f->nqos && n < max; c++) {
		bool used = false;

		for (j = 0; j < nportals && !used; j++) {
			if (strcmp(portals[j].qos, f->qos[c].name))
				continue;
			for (r = 0; r < portals[j].nrails && !used; r++)
				used = rail_iface(f, &portals[j].rail[r], name, sizeof(name)) &&
				       !strcmp(name, iface);
		}
		if (used)
			out[n++] = &f->qos[c];
	}
	return n;
}

/* Whether @device already has entries among the first @n of @a. */
static bool reported(const struct gpupath_qos_applied *a, unsigned int n, const char *device)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (!strcmp(a[k].device, device))
			return true;
	return false;
}

/*
 * Apply class @q to the host's devices its portals use (DCB, ECN, the RoCE
 * ToS), and report each setting, with the ToS of its connections.
 */
static void qos_apply_host(struct fabric *f, struct gpupath_ctl *ctl, struct gpupath_qos *q,
			   const struct gpupath_portal *portals, size_t nportals)
{
	struct gpupath_qos_conf conf = { .set = GPUPATH_QOS_SET_APPLIED };
	struct gpupath_qos_applied *a;
	char ibdev[64];
	unsigned int n = 0, k;
	size_t i, j;
	int r;

	a = calloc(GPUPATH_QOS_APPLIED_MAX, sizeof(*a));
	if (!a)
		return;
	/* The connections made with the class's ToS (the host driver took it). */
	for (i = 0; i < f->nconns && n < GPUPATH_QOS_APPLIED_MAX; i++) {
		const struct conn *c = &f->conns[i];

		for (j = 0; j < nportals; j++)
			if (portals[j].id == c->portal && !strcmp(portals[j].qos, q->name))
				break;
		if (j == nportals || !c->seen || !c->rep.controller[0] || c->tos < 0)
			continue;
		cpy(a[n].device, sizeof(a[n].device), c->rep.controller);
		cpy(a[n].setting, sizeof(a[n].setting), "tos");
		a[n].value = c->tos;
		a[n].result = c->tos == (int)q->dscp << 2 ? GPUPATH_APPLIED_OK :
			      GPUPATH_APPLIED_FAILED;	/* connected before a change */
		n++;
	}
	/*
	 * On every rail's interface (once, however many portals use it): DCB
	 * and, for RDMA, the vendor ECN knobs and rdma_cm's default ToS on its
	 * RDMA device.
	 */
	for (j = 0; j < nportals; j++) {
		const struct gpupath_portal *p = &portals[j];
		bool rdma = p->transport == GPUPATH_TRANSPORT_RDMA;

		if (strcmp(p->qos, q->name))
			continue;
		for (i = 0; i < p->nrails && n < GPUPATH_QOS_APPLIED_MAX; i++) {
			const struct gpupath_qos *classes[GPUPATH_QOS_APPLIED_MAX];
			char iface[IF_NAMESIZE];
			unsigned int nc;

			if (!rail_iface(f, &p->rail[i], iface, sizeof(iface)) || reported(a, n, iface))
				continue;	/* one interface, several portals */
			nc = classes_on(f, iface, portals, nportals, classes,
					GPUPATH_QOS_APPLIED_MAX);
			n += dcb_apply(iface, q, classes, nc, &f->ledger, a + n,
				       GPUPATH_QOS_APPLIED_MAX - n);
			if (!rdma)
				continue;
			n += ecn_apply(iface, q->priority, &f->ledger, a + n,
				       GPUPATH_QOS_APPLIED_MAX - n);
			if (!ibdev_of(iface, ibdev, sizeof(ibdev)) || reported(a, n, ibdev) ||
			    n == GPUPATH_QOS_APPLIED_MAX)
				continue;
			set_roce_tos(ibdev, q->dscp << 2, &f->ledger, &a[n++]);
		}
	}
	if (!applied_equal(q, a, n)) {
		conf.napplied = n;
		conf.applied = a;
		r = gpupath_ctl_qos_set(ctl, q->name, &conf);
		if (r < 0)
			log_errno(r, "QoS class %s: reporting", q->name);
		for (k = 0; k < n; k++)
			log_info("QoS class %s: %s %s %s (%u)%s%s", q->name, a[k].device,
				 a[k].setting, gpupath_applied_name(a[k].result), a[k].value,
				 a[k].error ? ": " : "", a[k].error ? strerror(a[k].error) : "");
	}
	free(a);
}

void qos_pass(struct fabric *f, struct gpupath_ctl *ctl, const struct gpupath_portal *portals,
	      size_t n, bool classes_read)
{
	size_t i, marks;

	ledger_begin(&f->ledger);
	marks = f->ledger.n;
	for (i = 0; i < f->nqos; i++)
		qos_apply_host(f, ctl, &f->qos[i], portals, n);
	if (classes_read)
		converge_qos(f, marks);
}
