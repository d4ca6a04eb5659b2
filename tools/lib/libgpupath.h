/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libgpupath: the user library of gpupath.
 *
 * Two halves, both with opaque handles and functions that return 0 or a
 * negative errno:
 *   gpupath_dev_*  the data device /dev/gpupath (ioctls);
 *   gpupath_ctl_*  the control plane, the "gpupath" generic-netlink family,
 *                  decoded into the plain structures below.
 */
#ifndef LIBGPUPATH_H
#define LIBGPUPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/gpupath.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUPATH_DEV_PATH	"/dev/" GPUPATH_DEVICE_NAME

/* Version of these tools and this library. */
const char *gpupath_tools_version(void);

/* ---- data device ---------------------------------------------------- */

struct gpupath_dev;

int gpupath_dev_open(struct gpupath_dev **dev);
void gpupath_dev_close(struct gpupath_dev *dev);
int gpupath_dev_fd(const struct gpupath_dev *dev);
int gpupath_dev_version(struct gpupath_dev *dev, struct gpupath_version *ver);

/* ---- buffers and I/O ------------------------------------------------- */

struct gpupath_buf;

/* Device memory from provider @provider, mapped into this process. */
int gpupath_buf_alloc(struct gpupath_dev *dev, uint32_t provider, size_t size,
		      struct gpupath_buf **buf);
/* Host memory at @addr (page-aligned), pinned for I/O. */
int gpupath_buf_host(struct gpupath_dev *dev, void *addr, size_t size,
		     struct gpupath_buf **buf);
void gpupath_buf_free(struct gpupath_buf *buf);
/* The buffer's memory in this process (device memory: an uncached mapping). */
void *gpupath_buf_addr(const struct gpupath_buf *buf);
size_t gpupath_buf_size(const struct gpupath_buf *buf);
uint64_t gpupath_buf_handle(const struct gpupath_buf *buf);
/*
 * The buffer of this process (device memory, or registered host memory)
 * whose mapping holds @addr, and @addr's offset in it; NULL if none does.
 * The buffer must not be freed while the answer is in use.
 */
struct gpupath_buf *gpupath_buf_lookup(const void *addr, uint64_t *off);
/* The data device the buffer was made on. */
struct gpupath_dev *gpupath_buf_dev(const struct gpupath_buf *buf);
/* Device memory: the BAR of the provider's device holding it, and where. */
int gpupath_buf_location(const struct gpupath_buf *buf, uint32_t *bar, uint64_t *offset);

/*
 * How an I/O may be served:
 *   AUTO    directly when the device can DMA into the buffer, else through
 *           host memory (the default);
 *   DIRECT  directly or not at all (-EXDEV, with the reason);
 *   COMPAT  always through host memory: read into pinned host memory, then
 *           copy into the buffer (write: the other way).
 */
enum gpupath_io_policy {
	GPUPATH_POLICY_AUTO,
	GPUPATH_POLICY_DIRECT,
	GPUPATH_POLICY_COMPAT,
};

/* Extends enum gpupath_io_mode: the library bounced it through host memory. */
#define GPUPATH_MODE_BOUNCE	100

/*
 * Extends enum gpupath_reason: reasons the libraries find before asking the
 * module, which never sends these.
 */
#define GPUPATH_REASON_NOT_BLOCK_DEVICE	100	/* a file, and a module that takes none */
#define GPUPATH_REASON_UNALIGNED	101	/* not in logical blocks of the device */
#define GPUPATH_REASON_NO_MODULE	102	/* /dev/gpupath cannot be opened */
/* What served an I/O, and why it was not direct when it was not. */
struct gpupath_result {
	uint32_t mode;		/* GPUPATH_MODE_DIRECT, _HOST or _BOUNCE */
	uint32_t reason;	/* enum gpupath_reason */
	uint64_t len;		/* bytes moved: the length, or fewer at a file's end */
};

/*
 * Read @len bytes at @dev_off of the block device or regular file open as
 * @fd into @buf at @buf_off (write: the other way). A file on ext4 or XFS
 * goes direct as a block device does; a read there stops at the end of the
 * file (@res->len). A file the module refuses is bounced through the file
 * system's page cache with pread()/pwrite(). @res may be NULL.
 */
int gpupath_read(struct gpupath_buf *buf, uint64_t buf_off, int fd, uint64_t dev_off,
		 uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res);
int gpupath_write(struct gpupath_buf *buf, uint64_t buf_off, int fd, uint64_t dev_off,
		  uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res);

/* ---- names ----------------------------------------------------------- */

/* Short name of one GPUPATH_FEATURE_* bit ("p2pdma-usable"), NULL if unknown. */
const char *gpupath_feature_name(uint64_t bit);
/*
 * Space-separated names of the bits set in @features ("bitN" for bits these
 * tools do not know), or "none"; truncated to fit @size.
 */
void gpupath_features_format(uint64_t features, char *buf, size_t size);
/* Short name of a P2PDMA status ("ok", "not-built"), "unknown" otherwise. */
const char *gpupath_p2pdma_status_name(uint32_t status);
/* One sentence explaining a P2PDMA status to a user. */
const char *gpupath_p2pdma_status_text(uint32_t status);
/* Name of a GPUPATH_CMD_* ("get-info"), NULL if unknown. */
const char *gpupath_cmd_name(uint32_t cmd);
/* Short name of a gpupath_reason ("no-p2p-route"), "unknown" otherwise. */
const char *gpupath_reason_name(uint32_t reason);
/* One sentence explaining a gpupath_reason. */
const char *gpupath_reason_text(uint32_t reason);
/* Name of a provider type ("p2pdma"), "unknown" otherwise. */
const char *gpupath_provider_type_name(uint32_t type);
/* Name of an I/O mode ("direct", "host", "bounce"). */
const char *gpupath_mode_name(uint32_t mode);
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

int gpupath_ctl_get_info(struct gpupath_ctl *ctl, struct gpupath_info *info);

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

/* ---- settings ----------------------------------------------------------- */

/*
 * Settings as "keyword value" pairs, spelled the same on the gpupath command
 * line and in gpupath.conf. A parser that refuses a value writes why into
 * @err (no prefix, no newline) and returns a negative errno.
 */
struct gpupath_kw {
	const char *name;
	uint32_t bit;		/* set in *set when given (0: none) */
	size_t off;		/* of the value in the configuration */
	uint32_t min, max;	/* for numbers */
	int (*parse)(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		     size_t size);
};

/* A number (decimal, 0x hex or 0 octal) from @min to @max; @what names it. */
int gpupath_parse_u32(const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *v,
		      char *err, size_t size);
/* An object id (from 1); @what names the object ("path"). */
int gpupath_parse_id(const char *what, const char *s, uint32_t *id, char *err, size_t size);
/* A name among those @name gives to 0..@max, into its number. */
int gpupath_parse_name(const char *what, const char *s, int (*parse)(const char *, uint32_t *),
		       const char *(*name)(uint32_t), uint32_t max, uint32_t *v, char *err,
		       size_t size);
/* An IPv4 or IPv6 address, as the module takes it. */
bool gpupath_valid_addr(const char *s);
/* A number from kw->min to kw->max. */
int gpupath_kw_u32(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		   size_t size);
const struct gpupath_kw *gpupath_kw_find(const struct gpupath_kw *kws, unsigned int n,
					 const char *name);
/*
 * Keyword @name with value @val (NULL: none was given) into @conf, its bit
 * into *@set; *@seen (zero it first) catches a keyword given twice.
 * -ENOENT for an unknown keyword, -EINVAL for a bad value or repetition.
 */
int gpupath_kw_set(const struct gpupath_kw *kws, unsigned int n, void *conf, uint32_t *set,
		   uint64_t *seen, const char *name, const char *val, char *err, size_t size);

/* struct gpupath_portal_conf: the keywords set takes, then trsvcid, transport, traddr, nqn. */
#define GPUPATH_PORTAL_KWS	10
#define GPUPATH_PORTAL_SET_KWS	6
extern const struct gpupath_kw gpupath_portal_kws[GPUPATH_PORTAL_KWS];
/* struct gpupath_qos_conf */
#define GPUPATH_QOS_KWS		4
extern const struct gpupath_kw gpupath_qos_kws[GPUPATH_QOS_KWS];
/* struct gpupath_volume_conf: wwid (add only), then those set takes. */
#define GPUPATH_VOLUME_KWS	4
extern const struct gpupath_kw gpupath_volume_kws[GPUPATH_VOLUME_KWS];
/* struct gpupath_path_conf */
#define GPUPATH_PATH_KWS	4
extern const struct gpupath_kw gpupath_path_kws[GPUPATH_PATH_KWS];

/* ---- gpupath.conf -------------------------------------------------------- */

#define GPUPATH_CONF_FILE		"/etc/gpupath/gpupath.conf"
#define GPUPATH_CONF_INTERVAL_MAX	3600

struct gpupath_conf_portal {
	unsigned int line;		/* of its [portal NAME] */
	char name[GPUPATH_NAME_LEN];
	uint32_t given;			/* GPUPATH_PORTAL_SET_* the file named */
	struct gpupath_portal_conf conf;	/* every setting, defaults filled in */
};

struct gpupath_conf_qos {
	unsigned int line;		/* of its [qos NAME] */
	char name[GPUPATH_NAME_LEN];
	uint32_t given;			/* GPUPATH_QOS_SET_* the file named */
	struct gpupath_qos_conf conf;	/* every setting, defaults filled in */
};

struct gpupath_conf {
	unsigned int interval;		/* [daemon] interval; 0: not given */
	size_t nportals, nqos;
	struct gpupath_conf_portal *portals;
	struct gpupath_conf_qos *qos;
	char *text;			/* the file; the confs' strings point into it */
};

/* One mistake: its line (from 1) and what is wrong. */
typedef void (*gpupath_conf_err_fn)(void *arg, unsigned int line, const char *msg);

/*
 * Parse @len bytes of gpupath.conf text, calling @fn for every mistake.
 * Returns the number of mistakes (*conf is set, and is only to be applied
 * when there are none), or a negative errno (-ENOMEM).
 */
int gpupath_conf_parse(const char *text, size_t len, struct gpupath_conf **conf,
		       gpupath_conf_err_fn fn, void *arg);
/* The same from a file; a negative errno when it cannot be read. */
int gpupath_conf_load(const char *path, struct gpupath_conf **conf, gpupath_conf_err_fn fn,
		      void *arg);
void gpupath_conf_free(struct gpupath_conf *conf);

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

/* ---- CUDA memory (libgpupath-cuda, built where CUDA is installed) ------ */

/*
 * CUDA device memory at @dptr (64 KiB aligned, a multiple of 64 KiB) as a
 * buffer, pinned through the NVIDIA driver's peer-memory API. -ENODEV when
 * no NVIDIA driver offers that API. Read and write it with gpupath_read()
 * and gpupath_write() (policy direct or auto: it has no host mapping to
 * bounce through; gpupath_cuda_read() does that).
 */
int gpupath_buf_cuda(struct gpupath_dev *dev, void *dptr, size_t size,
		     struct gpupath_buf **buf);

/*
 * Read into (write from) CUDA device memory at @dptr: directly when the
 * NVIDIA peer-memory API pins it and the device can reach the GPU, else
 * through pinned host memory and cudaMemcpy (the reason says why; with no
 * NVIDIA peer memory, GPUPATH_REASON_NO_PEER_MEMORY). Policy DIRECT fails
 * with -EXDEV instead of bouncing. -EINVAL if @dptr is not CUDA device
 * memory, -EIO if CUDA fails.
 */
int gpupath_cuda_read(struct gpupath_dev *dev, void *dptr, int fd, uint64_t dev_off,
		      uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res);
int gpupath_cuda_write(struct gpupath_dev *dev, const void *dptr, int fd, uint64_t dev_off,
		       uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res);

/* Whether @p is CUDA device memory. */
int gpupath_cuda_is_device(const void *p);
/* @n bytes between host memory and CUDA device memory: 0, or -EIO. */
int gpupath_cuda_copy(void *dst, const void *src, uint64_t n, int to_device);

/* ---- batches ----------------------------------------------------------- */

/* One I/O of a batch. */
struct gpupath_iov {
	struct gpupath_buf *buf;
	uint64_t buf_off;
	int fd;
	uint32_t op;		/* GPUPATH_IO_READ or GPUPATH_IO_WRITE */
	uint64_t dev_off;
	uint64_t len;
	uint64_t user_data;	/* comes back in the completion */
};

/*
 * Start up to GPUPATH_SUBMIT_MAX I/Os; returns how many started (from the
 * first) or a negative errno. They go direct or complete with -EXDEV and a
 * reason; bounce those with gpupath_read()/gpupath_write() if you want.
 */
int gpupath_submit(struct gpupath_dev *dev, const struct gpupath_iov *iov, unsigned int n);
/*
 * Collect up to @max completions, waiting up to @timeout_ms (-1: forever,
 * 0: not at all) for the first. Returns how many, or a negative errno.
 */
int gpupath_reap(struct gpupath_dev *dev, struct gpupath_completion *c, unsigned int max,
		 int timeout_ms);
/* Signal eventfd @efd once per completion (-1: stop). */
int gpupath_set_eventfd(struct gpupath_dev *dev, int efd);

#ifdef __cplusplus
}
#endif

#endif /* LIBGPUPATH_H */
