/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_PORTAL_H
#define _GPUPATH_PORTAL_H

#include <linux/if.h>
#include <linux/list.h>
#include <linux/gpupath.h>

/* A host interface the portal is connected from. */
struct gpupath_portal_rail {
	u32 id;
	char iface[IFNAMSIZ];
	char addr[GPUPATH_ADDR_LEN];
};

/* One connection as the daemon reports it (GPUPATH_A_CONN_*). */
struct gpupath_portal_conn {
	u32 rail;
	u32 state;
	u32 attempts;
	u32 error;
	u32 retry_ms;
	u32 trsvcid;
	char ctrl[GPUPATH_NAME_LEN];
	char traddr[GPUPATH_ADDR_LEN];
	char subsysnqn[GPUPATH_NQN_LEN];
};

/* What PORTAL_NEW and PORTAL_SET both set. */
struct gpupath_portal_settings {
	char qos[GPUPATH_NAME_LEN];
	u32 ctrl_loss_tmo;
	u32 fast_io_fail_tmo;
	u32 reconnect_delay;
	u32 nr_io_queues;
	char host_nqn[GPUPATH_NQN_LEN];
	char host_id[GPUPATH_HOST_ID_LEN];
	char secret_file[GPUPATH_SECRET_PATH_LEN];
	char ctrl_secret_file[GPUPATH_SECRET_PATH_LEN];
};

/**
 * struct gpupath_portal - a fabric target the administrator wants connected
 * @node: in the portal list, under the portal lock
 * @id: stable id, never reused while the module is loaded
 * @name: unique name
 * @transport: enum gpupath_transport
 * @traddr: the target's address
 * @trsvcid: the target's port
 * @subsysnqn: the subsystem, "" for a discovery portal
 * @discover: enum gpupath_portal_discover: where a discovery portal's
 *	discovery controllers are (@traddr and @trsvcid, or mDNS: none then)
 * @nrails: entries in @rails
 * @rails: host interfaces to connect from
 * @set: QoS class name ("" for none), ctrl_loss_tmo (seconds or
 *	GPUPATH_TMO_FOREVER), fast_io_fail_tmo (seconds or GPUPATH_TMO_OFF),
 *	reconnect_delay (seconds), nr_io_queues (0: the host's default),
 *	host_nqn and host_id ("": the system's), secret_file and
 *	ctrl_secret_file (DH-HMAC-CHAP secrets' files, "" for none)
 * @nconns: entries in @conns
 * @conns: the connections, as last reported
 *
 * The module only keeps portals: it is the daemon that connects them.
 */
struct gpupath_portal {
	struct list_head node;
	u32 id;
	char name[GPUPATH_NAME_LEN];
	u32 transport;
	char traddr[GPUPATH_ADDR_LEN];
	u32 trsvcid;
	char subsysnqn[GPUPATH_NQN_LEN];
	u32 discover;
	u32 nrails;
	struct gpupath_portal_rail rails[GPUPATH_PORTAL_RAILS_MAX];
	struct gpupath_portal_settings set;
	u32 nconns;
	struct gpupath_portal_conn *conns;
};

/* One setting of a QoS class on one device (GPUPATH_A_APPLIED_*). */
struct gpupath_qos_applied {
	char device[GPUPATH_NAME_LEN];
	char setting[GPUPATH_NAME_LEN];
	u32 result;
	u32 error;
	u32 value;
};

/**
 * struct gpupath_qos - a QoS class, named by portals
 * @node: in the class list, under the portal lock
 * @id: for dumps
 * @name: unique name
 * @dscp: 0..63
 * @priority: 0..7
 * @pfc: PFC on @priority
 * @ets: ETS share in percent, 0 for none
 * @napplied: entries in @applied
 * @applied: the daemon's report
 */
struct gpupath_qos {
	struct list_head node;
	u32 id;
	char name[GPUPATH_NAME_LEN];
	u32 dscp;
	u32 priority;
	u32 pfc;
	u32 ets;
	u32 napplied;
	struct gpupath_qos_applied *applied;
};

/**
 * struct gpupath_portal_change - what PORTAL_SET changes of a portal
 * @set: the settings, all of them (those not changed as they were)
 * @new_rails: @rails replace the portal's
 * @nrails: entries in @rails
 * @rails: host interfaces to connect from
 * @new_conns: @conns replace the portal's connections
 * @nconns: entries in @conns
 * @conns: the connections (kmalloc()ed, the portal's once given), or NULL
 */
struct gpupath_portal_change {
	struct gpupath_portal_settings set;
	bool new_rails;
	u32 nrails;
	struct gpupath_portal_rail rails[GPUPATH_PORTAL_RAILS_MAX];
	bool new_conns;
	u32 nconns;
	struct gpupath_portal_conn *conns;
};

/**
 * struct gpupath_qos_config - what QOS_NEW and QOS_SET give a QoS class
 * @dscp: 0..63, or -1 to leave it
 * @priority: 0..7, or -1
 * @pfc: 0 or 1, or -1
 * @ets: 0..100, or -1
 * @new_applied: @applied replaces the daemon's report
 * @napplied: entries in @applied
 * @applied: the report (kmalloc()ed, the class's once given), or NULL
 */
struct gpupath_qos_config {
	s64 dscp;
	s64 priority;
	s64 pfc;
	s64 ets;
	bool new_applied;
	u32 napplied;
	struct gpupath_qos_applied *applied;
};

void gpupath_portal_lock(void);
void gpupath_portal_unlock(void);
u32 gpupath_portal_generation(void);

struct gpupath_qos *gpupath_qos_find_locked(const char *name);
struct gpupath_qos *gpupath_qos_next_locked(u32 after);
u32 gpupath_qos_users_locked(const struct gpupath_qos *qos);
int gpupath_qos_add_locked(const char *name, const struct gpupath_qos_config *cfg,
			   struct gpupath_qos **qosp);
void gpupath_qos_set_locked(struct gpupath_qos *qos, const struct gpupath_qos_config *cfg);
int gpupath_qos_del_locked(struct gpupath_qos *qos);

struct gpupath_portal *gpupath_portal_find_locked(s64 id, const char *name);
struct gpupath_portal *gpupath_portal_next_locked(u32 after);
void gpupath_portal_init(struct gpupath_portal *portal);
int gpupath_portal_add_locked(struct gpupath_portal *portal);
void gpupath_portal_set_locked(struct gpupath_portal *portal,
			       const struct gpupath_portal_change *chg);
void gpupath_portal_del_locked(struct gpupath_portal *portal);
void gpupath_portal_uninit(void);

#endif /* _GPUPATH_PORTAL_H */
