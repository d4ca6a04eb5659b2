/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libgpupath-admin: configuring gpupath through the "gpupath" generic-netlink
 * family, decoded into the plain structures below: the module's description,
 * providers, volumes and their paths, portals, QoS classes, every counter at
 * once, notifications, and the PCIe topology that gives rails. The CLI and
 * gpupathd are built on it. Functions return 0 or a negative errno.
 */
#ifndef LIBGPUPATH_ADMIN_H
#define LIBGPUPATH_ADMIN_H

#include "libgpupath.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* ---- names ----------------------------------------------------------- */

/* Name of a GPUPATH_CMD_* ("get-info"), NULL if unknown. */
const char *gpupath_cmd_name(uint32_t cmd);
/* Name of a volume's path-selection policy ("round-robin"), "unknown" otherwise. */
const char *gpupath_policy_name(uint32_t policy);
/* The enum gpupath_policy named @name; -EINVAL if none is. */
int gpupath_policy_parse(const char *name, uint32_t *policy);
/* Name of a volume mode ("managed", "native", "empty"), "unknown" otherwise. */
const char *gpupath_volume_mode_name(uint32_t mode);
/* Name of a path state ("up", "down", "draining"), "unknown" otherwise. */
const char *gpupath_path_state_name(uint32_t state);
/* Name of a path's link state ("up"), and back. */
const char *gpupath_path_link_name(uint32_t link);
int gpupath_path_link_parse(const char *name, uint32_t *link);
/* Name of a portal's transport ("rdma", "tcp"), and back. */
const char *gpupath_transport_name(uint32_t transport);
int gpupath_transport_parse(const char *name, uint32_t *transport);
/* Name of a QoS setting's result ("applied"), "unknown" otherwise. */
const char *gpupath_applied_name(uint32_t result);
/* Name of a portal connection's state ("live"), "unknown" otherwise. */
const char *gpupath_conn_state_name(uint32_t state);
/* The enum gpupath_path_state named @name; -EINVAL if none is. */
int gpupath_path_state_parse(const char *name, uint32_t *state);
/* Name of a path's health ("live", "failed", "gone"), "unknown" otherwise. */
const char *gpupath_path_health_name(uint32_t health);
/* Name of an enum gpupath_event ("failover"), "unknown" otherwise. */
const char *gpupath_event_name(uint32_t type);

/* ---- control plane model ----------------------------------------------- */

/* Which members of struct gpupath_info the kernel sent. */
enum gpupath_info_has {
	GPUPATH_INFO_HAS_VERSION	= 1u << 0,
	GPUPATH_INFO_HAS_GENL_VERSION	= 1u << 1,
	GPUPATH_INFO_HAS_FEATURES	= 1u << 2,
	GPUPATH_INFO_HAS_P2PDMA_STATUS	= 1u << 3,
	GPUPATH_INFO_HAS_KERNEL		= 1u << 4,
	GPUPATH_INFO_HAS_IOCTL_VERSION	= 1u << 5,
};

struct gpupath_info {
	uint32_t has;			/* GPUPATH_INFO_HAS_* */
	char version[32];
	uint32_t genl_version;
	uint64_t features;		/* GPUPATH_FEATURE_* */
	uint32_t p2pdma_status;		/* enum gpupath_p2pdma_status */
	char kernel[65];
	uint32_t ioctl_version;
};

/* Per-reason counters are kept for reasons below this. */
#define GPUPATH_REASONS_KNOWN	32
/* P2P peers kept per provider (more are dropped). */
#define GPUPATH_PEERS_MAX	32

struct gpupath_peer {
	char pci_dev[16];
	uint32_t distance;
};

struct gpupath_provider {
	uint32_t id;
	uint32_t type;			/* enum gpupath_provider_type */
	char pci_dev[16];
	char driver[32];
	bool owned;
	int bar;			/* -1: not known */
	unsigned int npeers;
	struct gpupath_peer peers[GPUPATH_PEERS_MAX];
	uint64_t size;
	uint64_t allocated;
	uint64_t available;
	uint64_t direct_ios;
	uint64_t direct_bytes;
	uint64_t errors;
	uint64_t refused_ios[GPUPATH_REASONS_KNOWN];
	uint64_t refused_bytes[GPUPATH_REASONS_KNOWN];
};

/* Paths kept per volume (more are dropped; gpupath_volume.paths counts all). */
#define GPUPATH_VOLUME_PATHS_MAX	32

struct gpupath_path {
	uint32_t id;
	uint32_t volume;		/* its volume's id */
	char device[32];		/* disk name, "nvme1n1" */
	uint32_t state;			/* enum gpupath_path_state */
	uint32_t health;		/* enum gpupath_path_health */
	uint32_t weight;		/* 1..GPUPATH_WEIGHT_MAX */
	uint32_t rail;
	uint32_t link;			/* enum gpupath_path_link */
	char transport[16];		/* "rdma", "tcp", "pcie", ... */
	char controller[32];		/* "nvme1" */
	char dma_dev[16];		/* PCI function that DMAs for it, "" if none */
	uint32_t reason;		/* enum gpupath_reason */
	struct gpupath_path_stats {
		uint64_t ios;
		uint64_t bytes;
		uint64_t errors;
		uint64_t direct_ios;
		uint64_t inflight;
		uint64_t latency_ns;	/* service time, EWMA */
	} stats;
};

struct gpupath_volume {
	uint32_t id;
	char name[32];			/* block device name, "gpupath0" */
	char wwid[256];
	uint32_t policy;		/* enum gpupath_policy */
	uint32_t fallback;		/* enum gpupath_policy */
	uint32_t queue_timeout;		/* ms, or GPUPATH_QUEUE_FOREVER */
	uint64_t size;			/* bytes */
	uint32_t block_size;
	uint32_t mode;			/* enum gpupath_volume_mode */
	uint32_t open;			/* openers of the block device */
	uint32_t paths;			/* paths it has */
	uint32_t usable;		/* paths that take new I/O now */
	struct gpupath_volume_stats {
		uint64_t ios;
		uint64_t bytes;
		uint64_t errors;
		uint64_t retries;
		uint64_t queued;
		uint64_t refused;
		uint64_t failovers;
		uint64_t failover_last_ns;
		uint64_t failover_max_ns;
		uint64_t inflight;
	} stats;
	unsigned int npaths;		/* kept in path[] */
	struct gpupath_path path[GPUPATH_VOLUME_PATHS_MAX];
};

/* A GPUPATH_CMD_EVENT: something happened to a volume or one of its paths. */
struct gpupath_volume_event {
	uint32_t type;			/* enum gpupath_event */
	uint32_t volume;
	uint32_t path;			/* 0: none applies */
	uint32_t error;			/* errno (positive), 0: none */
	uint64_t nsec;			/* FAILOVER: its duration */
	uint64_t ios;			/* IO_ERROR: I/Os failed */
};

/* Which members of a volume request to send (the others keep their value). */
enum gpupath_volume_set {
	GPUPATH_VOLUME_SET_POLICY		= 1u << 0,
	GPUPATH_VOLUME_SET_FALLBACK		= 1u << 1,
	GPUPATH_VOLUME_SET_QUEUE_TIMEOUT	= 1u << 2,
};

struct gpupath_volume_conf {
	uint32_t set;			/* GPUPATH_VOLUME_SET_* */
	const char *wwid;		/* add only; NULL: the first path's */
	uint32_t policy;		/* enum gpupath_policy */
	uint32_t fallback;		/* enum gpupath_policy, not gpu-affinity */
	uint32_t queue_timeout;		/* ms, or GPUPATH_QUEUE_FOREVER */
};

/* Which members of a path request to send. */
enum gpupath_path_set {
	GPUPATH_PATH_SET_STATE		= 1u << 0,
	GPUPATH_PATH_SET_WEIGHT		= 1u << 1,
	GPUPATH_PATH_SET_RAIL		= 1u << 2,
	GPUPATH_PATH_SET_LINK		= 1u << 3,
};

struct gpupath_path_conf {
	uint32_t set;			/* GPUPATH_PATH_SET_* */
	uint32_t state;			/* enum gpupath_path_state */
	uint32_t weight;		/* 1..GPUPATH_WEIGHT_MAX */
	uint32_t rail;
	uint32_t link;			/* enum gpupath_path_link */
};

/* One host interface a portal is connected from. */
struct gpupath_portal_rail {
	uint32_t id;			/* rail number, from 1 */
	char iface[16];			/* network interface */
	char addr[48];			/* host address, "" for the interface's */
};

/* One connection of a portal, as the daemon reports it. */
struct gpupath_portal_conn {
	uint32_t rail;			/* 0: not bound to a rail */
	char subsysnqn[224];
	char traddr[48];
	uint32_t trsvcid;
	uint32_t state;			/* enum gpupath_conn_state */
	char controller[32];		/* "nvme3", "" when none */
	uint32_t attempts;		/* failed attempts in a row */
	uint32_t error;			/* errno of the last failure */
	uint32_t retry_ms;		/* to the next attempt */
};

struct gpupath_portal {
	uint32_t id;
	char name[GPUPATH_NAME_LEN];
	uint32_t transport;		/* enum gpupath_transport */
	char traddr[48];
	uint32_t trsvcid;
	char subsysnqn[224];		/* "" for a discovery portal */
	bool discovery;
	char qos[GPUPATH_NAME_LEN];	/* QoS class, "" for none */
	uint32_t ctrl_loss_tmo;		/* s, or GPUPATH_TMO_FOREVER */
	uint32_t fast_io_fail_tmo;	/* s, or GPUPATH_TMO_OFF */
	uint32_t reconnect_delay;	/* s */
	uint32_t nr_io_queues;		/* 0: the host's default */
	unsigned int nrails;
	struct gpupath_portal_rail rail[GPUPATH_PORTAL_RAILS_MAX];
	unsigned int nconns;
	struct gpupath_portal_conn conn[GPUPATH_PORTAL_CONNS_MAX];
};

/* Which members of a portal request to send. */
enum gpupath_portal_set {
	GPUPATH_PORTAL_SET_TRSVCID		= 1u << 0,
	GPUPATH_PORTAL_SET_QOS			= 1u << 1,
	GPUPATH_PORTAL_SET_CTRL_LOSS_TMO	= 1u << 2,
	GPUPATH_PORTAL_SET_FAST_IO_FAIL_TMO	= 1u << 3,
	GPUPATH_PORTAL_SET_RECONNECT_DELAY	= 1u << 4,
	GPUPATH_PORTAL_SET_NR_IO_QUEUES		= 1u << 5,
	GPUPATH_PORTAL_SET_RAILS		= 1u << 6,
	GPUPATH_PORTAL_SET_CONNS		= 1u << 7,	/* set only */
	/* every setting of a portal, what gpupath.conf states in full */
	GPUPATH_PORTAL_SET_SETTINGS		= (1u << 7) - 1,
};

struct gpupath_portal_conf {
	uint32_t set;			/* GPUPATH_PORTAL_SET_* */
	/* add only: */
	const char *name;
	uint32_t transport;		/* enum gpupath_transport */
	const char *traddr;
	const char *subsysnqn;		/* NULL: a discovery portal */
	/* add and set: */
	uint32_t trsvcid;
	const char *qos;
	uint32_t ctrl_loss_tmo;
	uint32_t fast_io_fail_tmo;
	uint32_t reconnect_delay;
	uint32_t nr_io_queues;
	unsigned int nrails;
	struct gpupath_portal_rail rail[GPUPATH_PORTAL_RAILS_MAX];
	unsigned int nconns;		/* 0 with SET_CONNS: clear them */
	const struct gpupath_portal_conn *conn;
};

/* One QoS setting on one device, as gpupathd found it. */
struct gpupath_qos_applied {
	char device[GPUPATH_NAME_LEN];	/* "nvme2", "rxe1", "eth1" */
	char setting[GPUPATH_NAME_LEN];	/* "tos", "default_roce_tos", ... */
	uint32_t result;		/* enum gpupath_applied */
	uint32_t error;			/* errno when FAILED */
	uint32_t value;			/* read back */
};

struct gpupath_qos {
	char name[GPUPATH_NAME_LEN];
	uint32_t dscp;			/* 0..63 */
	uint32_t priority;		/* 0..7 */
	uint32_t pfc;			/* 0/1 */
	uint32_t ets;			/* percent, 0: none */
	uint32_t portals;		/* portals naming it */
	unsigned int napplied;
	struct gpupath_qos_applied applied[GPUPATH_QOS_APPLIED_MAX];
};

enum gpupath_qos_set {
	GPUPATH_QOS_SET_DSCP		= 1u << 0,
	GPUPATH_QOS_SET_PRIORITY	= 1u << 1,
	GPUPATH_QOS_SET_PFC		= 1u << 2,
	GPUPATH_QOS_SET_ETS		= 1u << 3,
	GPUPATH_QOS_SET_APPLIED		= 1u << 4,	/* set only */
	/* every setting of a class, what gpupath.conf states in full */
	GPUPATH_QOS_SET_SETTINGS	= (1u << 4) - 1,
};

struct gpupath_qos_conf {
	uint32_t set;			/* GPUPATH_QOS_SET_* */
	uint32_t dscp;
	uint32_t priority;
	uint32_t pfc;
	uint32_t ets;
	unsigned int napplied;		/* 0 with SET_APPLIED: clear */
	const struct gpupath_qos_applied *applied;
};

/* ---- control plane ----------------------------------------------------- */

struct gpupath_ctl;

/*
 * Open a request socket and resolve the family. -ENOENT: the module is not
 * loaded (the family does not exist).
 *
 * Requests return 0 or a negative errno: the kernel's (nothing was changed)
 * or -ENOBUFS, which says the socket overran and the reply was lost: the
 * request may have been carried out, so read the state again.
 */
int gpupath_ctl_open(struct gpupath_ctl **ctl);
void gpupath_ctl_close(struct gpupath_ctl *ctl);

/*
 * The kernel's extended-ACK message of the last failed request on @ctl, or
 * NULL when it sent none.
 */
const char *gpupath_ctl_errmsg(const struct gpupath_ctl *ctl);

/*
 * Where in the last failed request the kernel's extended ACK points: the
 * byte offset, from the request's netlink header, of the attribute it
 * refused; -1 when it pointed at none.
 */
long gpupath_ctl_erroff(const struct gpupath_ctl *ctl);

int gpupath_ctl_get_info(struct gpupath_ctl *ctl, struct gpupath_info *info);

/*
 * Whether device memory of a provider would move directly to or from a
 * target, and if not why: the module's own decision for each I/O, asked
 * without I/O (GPUPATH_CMD_ROUTE_GET).
 */
struct gpupath_route {
	uint32_t reason;		/* enum gpupath_reason, NONE: directly */
	char device[32];		/* the block device the data is on */
	char dma_dev[16];		/* the PCI function that would DMA, or "" */
	int32_t distance;		/* pci_p2pdma_distance(), -1 when none */
	bool fabrics;			/* reached over a fabric */
};

/*
 * @target is a block device node (a gpupath volume among them) or a regular
 * file, which the caller must be able to open for reading; @op is
 * GPUPATH_IO_READ or GPUPATH_IO_WRITE. Returns 0, or a negative errno with
 * the kernel's message in gpupath_ctl_errmsg() (ENOENT: no such provider or
 * file, ENOTBLK: not a block device or regular file).
 */
int gpupath_ctl_route(struct gpupath_ctl *ctl, uint32_t provider, const char *target,
		      uint32_t op, struct gpupath_route *route);

/* All providers; *list is malloc'ed, free() it. */
int gpupath_ctl_provider_list(struct gpupath_ctl *ctl, struct gpupath_provider **list,
			      size_t *count);
int gpupath_ctl_provider_get(struct gpupath_ctl *ctl, uint32_t id,
			     struct gpupath_provider *prov);
/* Make a PCI device's published P2P memory a provider; @prov gets it. */
int gpupath_ctl_provider_add(struct gpupath_ctl *ctl, const char *pci_dev,
			     struct gpupath_provider *prov);
int gpupath_ctl_provider_del(struct gpupath_ctl *ctl, uint32_t id);

/*
 * Volumes (ids start at 1), each with its paths. *list is malloc'ed, free()
 * it. A conf may be NULL: nothing optional is sent.
 */
int gpupath_ctl_volume_list(struct gpupath_ctl *ctl, struct gpupath_volume **list,
			    size_t *count);
int gpupath_ctl_volume_get(struct gpupath_ctl *ctl, uint32_t id, struct gpupath_volume *vol);
/* A new volume, with its block device; @vol gets it. */
int gpupath_ctl_volume_add(struct gpupath_ctl *ctl, const struct gpupath_volume_conf *conf,
			   struct gpupath_volume *vol);
int gpupath_ctl_volume_set(struct gpupath_ctl *ctl, uint32_t id,
			   const struct gpupath_volume_conf *conf);
int gpupath_ctl_volume_del(struct gpupath_ctl *ctl, uint32_t id);

/* The paths of volume @volume, or of all volumes when it is 0. */
int gpupath_ctl_path_list(struct gpupath_ctl *ctl, uint32_t volume, struct gpupath_path **list,
			  size_t *count);
int gpupath_ctl_path_get(struct gpupath_ctl *ctl, uint32_t id, struct gpupath_path *path);
/* Block device @device (a node, "/dev/nvme1n1") as a path of @volume. */
int gpupath_ctl_path_add(struct gpupath_ctl *ctl, uint32_t volume, const char *device,
			 const struct gpupath_path_conf *conf, struct gpupath_path *path);
int gpupath_ctl_path_set(struct gpupath_ctl *ctl, uint32_t id,
			 const struct gpupath_path_conf *conf);
int gpupath_ctl_path_del(struct gpupath_ctl *ctl, uint32_t id);

/*
 * Portals, named by id, or by name when @id is 0. *list is malloc'ed, free()
 * it.
 */
int gpupath_ctl_portal_list(struct gpupath_ctl *ctl, struct gpupath_portal **list,
			    size_t *count);
int gpupath_ctl_portal_get(struct gpupath_ctl *ctl, uint32_t id, const char *name,
			   struct gpupath_portal *portal);
int gpupath_ctl_portal_add(struct gpupath_ctl *ctl, const struct gpupath_portal_conf *conf,
			   struct gpupath_portal *portal);
int gpupath_ctl_portal_set(struct gpupath_ctl *ctl, uint32_t id, const char *name,
			   const struct gpupath_portal_conf *conf);
int gpupath_ctl_portal_del(struct gpupath_ctl *ctl, uint32_t id, const char *name);

/* QoS classes, named by name. */
int gpupath_ctl_qos_list(struct gpupath_ctl *ctl, struct gpupath_qos **list, size_t *count);
int gpupath_ctl_qos_get(struct gpupath_ctl *ctl, const char *name, struct gpupath_qos *qos);
int gpupath_ctl_qos_add(struct gpupath_ctl *ctl, const char *name,
			const struct gpupath_qos_conf *conf, struct gpupath_qos *qos);
int gpupath_ctl_qos_set(struct gpupath_ctl *ctl, const char *name,
			const struct gpupath_qos_conf *conf);
int gpupath_ctl_qos_del(struct gpupath_ctl *ctl, const char *name);

/* ---- every counter at once ------------------------------------------------ */

/* Providers, volumes with their paths, portals and QoS classes, fetched together. */
struct gpupath_stats {
	struct gpupath_provider *prov;
	size_t nprov;
	struct gpupath_volume *vol;
	size_t nvol;
	struct gpupath_portal *portal;
	size_t nportal;
	struct gpupath_qos *qos;
	size_t nqos;
};

/* Fetch them; on failure *@what names the request that failed. */
int gpupath_stats_get(struct gpupath_ctl *ctl, struct gpupath_stats *s, const char **what);
void gpupath_stats_free(struct gpupath_stats *s);
/*
 * Them in the Prometheus text exposition format (version 0.0.4), with
 * conventional names and units: gpupath_provider_*, gpupath_volume_*,
 * gpupath_path_*, gpupath_portal_connection_*, gpupath_qos_setting_*.
 */
int gpupath_stats_prometheus(const struct gpupath_stats *s, FILE *f);

/* ---- PCIe topology ------------------------------------------------------ */

/*
 * How close two PCI functions are, nearest first, after the kernel's
 * pci_p2pdma_distance(): traffic between them goes through
 *   SWITCH       a bridge they share below the root port (a PCIe switch);
 *   ROOT_PORT    the root port they share (nothing shared below it);
 *   HOST_BRIDGE  the host bridge (root complex) they share;
 *   NUMA         the CPU interconnect, within one NUMA node;
 *   SYSTEM       the CPU interconnect across NUMA nodes (or NUMA unknown).
 */
enum gpupath_topo_rel {
	GPUPATH_TOPO_REL_SWITCH,
	GPUPATH_TOPO_REL_ROOT_PORT,
	GPUPATH_TOPO_REL_HOST_BRIDGE,
	GPUPATH_TOPO_REL_NUMA,
	GPUPATH_TOPO_REL_SYSTEM,
};

enum gpupath_topo_kind {
	GPUPATH_TOPO_GPU,	/* a GPU, or device memory gpupath serves */
	GPUPATH_TOPO_NIC,	/* a function with network interfaces */
	GPUPATH_TOPO_NVME,	/* an NVMe controller (class 0x010802) */
};

/* Bridges kept per function, from the root port down (more are dropped). */
#define GPUPATH_TOPO_BRIDGES_MAX	8
/* Names kept per function (more are dropped). */
#define GPUPATH_TOPO_NAMES_MAX		4
/* Closest NVMe functions kept per rail (more are dropped). */
#define GPUPATH_TOPO_NVME_MAX		8

/* A PCI function and where it sits. */
struct gpupath_topo_dev {
	uint32_t kind;			/* enum gpupath_topo_kind */
	char pci_dev[16];		/* "0000:03:00.0" */
	uint32_t vendor;
	uint32_t device;
	uint32_t pci_class;		/* 0x030200 */
	int numa_node;			/* -1: none */
	bool provider;			/* passed as a provider's device */
	char host_bridge[16];		/* "pci0000:00", "" if none */
	/* bridge[0] the root port, then switch ports: upstream, downstream... */
	unsigned int nbridges;
	char bridge[GPUPATH_TOPO_BRIDGES_MAX][16];
	/* NIC: its network interfaces; NVMe: its controllers ("nvme0"). */
	unsigned int nnames;
	char name[GPUPATH_TOPO_NAMES_MAX][GPUPATH_NAME_LEN];
	/* NIC: its RDMA devices ("mlx5_0", "rxe0"). */
	unsigned int nrdma;
	char rdma[GPUPATH_TOPO_NAMES_MAX][GPUPATH_NAME_LEN];
};

/* Rail i: the i-th GPU (by address) and what is closest to it. */
struct gpupath_topo_rail {
	const struct gpupath_topo_dev *gpu;
	const struct gpupath_topo_dev *nic;	/* NULL: no NIC at all */
	uint32_t nic_rel;			/* enum gpupath_topo_rel */
	unsigned int nnvme;			/* 0: no NVMe at all */
	const struct gpupath_topo_dev *nvme[GPUPATH_TOPO_NVME_MAX];
	uint32_t nvme_rel;			/* enum gpupath_topo_rel */
};

struct gpupath_topo {
	size_t ndevs;
	struct gpupath_topo_dev *dev;	/* GPUs, NICs, NVMe; each by address */
	size_t nrails;
	struct gpupath_topo_rail *rail;	/* one per GPU, in dev[] order */
};

/*
 * Read the topology from sysfs at @sysfs (NULL: $GPUPATH_SYSFS, or "/sys").
 * GPUs are the display and 3D controllers of NVIDIA, AMD and Intel, and the
 * functions in @providers (addresses, "0000:03:00.0": the devices gpupath
 * serves memory from; those not found are left out). The rail of a GPU has
 * the NIC closest to it (the lowest address among equals) and all the NVMe
 * functions closest to it. Returns -errno when sysfs cannot be read (no
 * bus/pci/devices). Free with gpupath_topo_free().
 */
int gpupath_topo_scan(const char *sysfs, const char *const *providers, size_t nproviders,
		      struct gpupath_topo **topo);
void gpupath_topo_free(struct gpupath_topo *topo);
/* How close @a and @b are: enum gpupath_topo_rel. */
uint32_t gpupath_topo_relation(const struct gpupath_topo_dev *a,
			       const struct gpupath_topo_dev *b);
/*
 * Name of an enum gpupath_topo_rel ("switch", "root-port", "host-bridge",
 * "numa", "system"), "unknown" otherwise.
 */
const char *gpupath_topo_rel_name(uint32_t rel);
/* Name of an enum gpupath_topo_kind ("gpu", "nic", "nvme"), "unknown" otherwise. */
const char *gpupath_topo_kind_name(uint32_t kind);

/* ---- notifications ----------------------------------------------------- */

enum gpupath_event_type {
	GPUPATH_EVENT_FAMILY_NEW,	/* the module was loaded */
	GPUPATH_EVENT_FAMILY_DEL,	/* the module was unloaded */
	GPUPATH_EVENT_NOTIFY,		/* a message on "config" or "events" */
};

/* (Not "struct gpupath_event": that tag is the uapi's enum gpupath_event.) */
struct gpupath_mon_event {
	enum gpupath_event_type type;
	const char *group;		/* NOTIFY: GPUPATH_MCGRP_* name */
	uint8_t cmd;			/* NOTIFY: GPUPATH_CMD_* */
	bool has_info;			/* NOTIFY: carried GPUPATH_A_INFO */
	struct gpupath_info info;
	bool has_provider;		/* NOTIFY: carried GPUPATH_A_PROVIDER */
	struct gpupath_provider provider;
	bool has_volume;		/* NOTIFY: carried GPUPATH_A_VOLUME */
	struct gpupath_volume volume;
	bool has_path;			/* NOTIFY: carried GPUPATH_A_PATH */
	struct gpupath_path path;
	bool has_event;			/* NOTIFY: carried GPUPATH_A_EVENT */
	struct gpupath_volume_event event;
	bool has_portal;		/* NOTIFY: carried GPUPATH_A_PORTAL */
	struct gpupath_portal portal;
	bool has_qos;			/* NOTIFY: carried GPUPATH_A_QOS */
	struct gpupath_qos qos;
};

struct gpupath_mon;

typedef void (*gpupath_event_fn)(const struct gpupath_mon_event *ev, void *arg);

/*
 * Subscribe to the family's multicast groups and to the generic-netlink
 * controller's notifications, so that a module loaded later (or reloaded) is
 * followed too. Works whether or not the module is loaded now; *loaded says
 * which.
 */
int gpupath_mon_open(struct gpupath_mon **mon, bool *loaded);
void gpupath_mon_close(struct gpupath_mon *mon);
/* A file descriptor to poll for input. */
int gpupath_mon_fd(const struct gpupath_mon *mon);
/*
 * Read what is pending without blocking and call @fn for each event.
 * Returns the number of events, or a negative errno; -ENOBUFS means
 * notifications were lost and the caller should read the state again.
 */
int gpupath_mon_dispatch(struct gpupath_mon *mon, gpupath_event_fn fn, void *arg);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* LIBGPUPATH_ADMIN_H */
