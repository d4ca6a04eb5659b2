// SPDX-License-Identifier: GPL-2.0
/*
 * Portals: the fabric targets the administrator wants connected, and the QoS
 * classes they name. The module keeps them, so that any number of CLIs and
 * a restarted daemon see one truth; gpupathd does the connecting and the
 * applying, and reports each connection and each setting back.
 */
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "portal.h"

#define DISCOVERY_NQN	"nqn.2014-08.org.nvmexpress.discovery"

static DEFINE_MUTEX(portals_lock);	/* portals, QoS classes, their ids, portal_gen */
static LIST_HEAD(portals);
static LIST_HEAD(qos_classes);
static u32 qos_next_id = 1;
static u32 portal_next_id = 1;
static u32 portal_gen = 1;

void gpupath_portal_lock(void)
{
	mutex_lock(&portals_lock);
}

void gpupath_portal_unlock(void)
{
	mutex_unlock(&portals_lock);
}

/* Changes with every portal added, changed or removed (dump consistency). */
u32 gpupath_portal_generation(void)
{
	return READ_ONCE(portal_gen);
}

static void changed_locked(void)
{
	WRITE_ONCE(portal_gen, portal_gen + 1 ? portal_gen + 1 : 1);
}

/**
 * gpupath_portal_find_locked() - a portal by id, name or both
 * @id: its id, or -1 for any
 * @name: its name, or NULL for any
 *
 * Return: the first portal that matches, or NULL.
 */
struct gpupath_portal *gpupath_portal_find_locked(s64 id, const char *name)
{
	struct gpupath_portal *portal;

	lockdep_assert_held(&portals_lock);
	list_for_each_entry(portal, &portals, node) {
		if (id >= 0 && portal->id != id)
			continue;
		if (name && strcmp(portal->name, name))
			continue;
		return portal;
	}
	return NULL;
}

/* The portal with the lowest id above @after, for dumps. */
struct gpupath_portal *gpupath_portal_next_locked(u32 after)
{
	struct gpupath_portal *portal;

	lockdep_assert_held(&portals_lock);
	list_for_each_entry(portal, &portals, node)	/* kept in id order */
		if (portal->id > after)
			return portal;
	return NULL;
}

/**
 * gpupath_portal_init() - a new portal's defaults
 * @portal: zeroed (kzalloc()), then given what the request says
 */
void gpupath_portal_init(struct gpupath_portal *portal)
{
	portal->discover = GPUPATH_DISCOVER_ADDRESS;
	portal->set.ctrl_loss_tmo = GPUPATH_TMO_FOREVER;
	portal->set.fast_io_fail_tmo = GPUPATH_TMO_OFF;
	portal->set.reconnect_delay = GPUPATH_RECONNECT_DELAY_DEFAULT;
}

/* Whether another portal already names the same target. */
static bool same_target_locked(const struct gpupath_portal *portal)
{
	struct gpupath_portal *p;

	list_for_each_entry(p, &portals, node)
		if (p != portal && p->transport == portal->transport &&
		    p->discover == portal->discover &&
		    p->trsvcid == portal->trsvcid && !strcmp(p->traddr, portal->traddr) &&
		    !strcmp(p->subsysnqn, portal->subsysnqn))
			return true;
	return false;
}

/**
 * gpupath_portal_add_locked() - add a new portal
 * @portal: from kzalloc() and gpupath_portal_init(), checked (its name is
 *	no other portal's); the list's once added
 *
 * A discovery portal's subsystem is "", whether it was given as that or
 * as the discovery NQN.
 *
 * Return: 0, or -EEXIST when another portal has the same target.
 */
int gpupath_portal_add_locked(struct gpupath_portal *portal)
{
	lockdep_assert_held(&portals_lock);
	if (!strcmp(portal->subsysnqn, DISCOVERY_NQN))
		portal->subsysnqn[0] = '\0';
	if (same_target_locked(portal))
		return -EEXIST;
	portal->id = portal_next_id++;
	list_add_tail(&portal->node, &portals);
	changed_locked();
	return 0;
}

/**
 * gpupath_portal_set_locked() - change a portal
 * @portal: the portal
 * @chg: its new settings, rails and connections (which it takes)
 */
void gpupath_portal_set_locked(struct gpupath_portal *portal,
			       const struct gpupath_portal_change *chg)
{
	lockdep_assert_held(&portals_lock);
	portal->set = chg->set;
	if (chg->new_rails) {
		memcpy(portal->rails, chg->rails, chg->nrails * sizeof(*chg->rails));
		portal->nrails = chg->nrails;
	}
	if (chg->new_conns) {
		kfree(portal->conns);
		portal->conns = chg->conns;
		portal->nconns = chg->nconns;
	}
	changed_locked();
}

/**
 * gpupath_portal_del_locked() - remove and free a portal
 * @portal: the portal
 */
void gpupath_portal_del_locked(struct gpupath_portal *portal)
{
	lockdep_assert_held(&portals_lock);
	list_del(&portal->node);
	changed_locked();
	kfree(portal->conns);
	kfree(portal);
}

/* ---- QoS classes ---------------------------------------------------- */

/**
 * gpupath_qos_find_locked() - the QoS class named @name
 * @name: its name
 *
 * Return: the class, or NULL.
 */
struct gpupath_qos *gpupath_qos_find_locked(const char *name)
{
	struct gpupath_qos *qos;

	lockdep_assert_held(&portals_lock);
	list_for_each_entry(qos, &qos_classes, node)
		if (!strcmp(qos->name, name))
			return qos;
	return NULL;
}

/* The class with the lowest id above @after, for dumps. */
struct gpupath_qos *gpupath_qos_next_locked(u32 after)
{
	struct gpupath_qos *qos;

	lockdep_assert_held(&portals_lock);
	list_for_each_entry(qos, &qos_classes, node)	/* kept in id order */
		if (qos->id > after)
			return qos;
	return NULL;
}

/* How many portals name @qos. */
u32 gpupath_qos_users_locked(const struct gpupath_qos *qos)
{
	struct gpupath_portal *portal;
	u32 n = 0;

	lockdep_assert_held(&portals_lock);
	list_for_each_entry(portal, &portals, node)
		n += !strcmp(portal->set.qos, qos->name);
	return n;
}

/**
 * gpupath_qos_set_locked() - change a QoS class
 * @qos: the class
 * @cfg: what changes (the report of what was applied it takes)
 */
void gpupath_qos_set_locked(struct gpupath_qos *qos, const struct gpupath_qos_config *cfg)
{
	lockdep_assert_held(&portals_lock);
	if (cfg->dscp >= 0)
		qos->dscp = cfg->dscp;
	if (cfg->priority >= 0)
		qos->priority = cfg->priority;
	if (cfg->pfc >= 0)
		qos->pfc = cfg->pfc;
	if (cfg->ets >= 0)
		qos->ets = cfg->ets;
	if (cfg->new_applied) {
		kfree(qos->applied);
		qos->applied = cfg->applied;
		qos->napplied = cfg->napplied;
	}
	changed_locked();
}

/**
 * gpupath_qos_add_locked() - a new QoS class
 * @name: its name, no other class's
 * @cfg: its settings (priority 3 unless given)
 * @qosp: the new class
 *
 * Return: 0 or -ENOMEM.
 */
int gpupath_qos_add_locked(const char *name, const struct gpupath_qos_config *cfg,
			   struct gpupath_qos **qosp)
{
	struct gpupath_qos *qos;

	lockdep_assert_held(&portals_lock);
	qos = kzalloc(sizeof(*qos), GFP_KERNEL);
	if (!qos)
		return -ENOMEM;
	strscpy(qos->name, name, sizeof(qos->name));
	qos->priority = 3;
	qos->id = qos_next_id++;
	list_add_tail(&qos->node, &qos_classes);
	gpupath_qos_set_locked(qos, cfg);
	*qosp = qos;
	return 0;
}

/**
 * gpupath_qos_del_locked() - remove a QoS class no portal names
 * @qos: the class
 *
 * Return: 0, or -EBUSY while a portal names it.
 */
int gpupath_qos_del_locked(struct gpupath_qos *qos)
{
	lockdep_assert_held(&portals_lock);
	if (gpupath_qos_users_locked(qos))
		return -EBUSY;
	list_del(&qos->node);
	changed_locked();
	kfree(qos->applied);
	kfree(qos);
	return 0;
}

/* Module unload: the portals and classes go with it. */
void gpupath_portal_uninit(void)
{
	struct gpupath_portal *portal, *tmp;
	struct gpupath_qos *qos, *qtmp;

	mutex_lock(&portals_lock);
	list_for_each_entry_safe(portal, tmp, &portals, node)
		gpupath_portal_del_locked(portal);
	list_for_each_entry_safe(qos, qtmp, &qos_classes, node)
		gpupath_qos_del_locked(qos);
	mutex_unlock(&portals_lock);
}
