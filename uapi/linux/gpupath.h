/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * gpupath: NVMe and NVMe-oF namespaces read straight into device (GPU) memory.
 *
 * This header is the whole user/kernel ABI of gpupath.ko: a generic-netlink
 * family for control and observation, and ioctls on the misc device
 * /dev/gpupath for data.
 *
 * Generic netlink
 * ---------------
 * Family GPUPATH_GENL_NAME, version GPUPATH_GENL_VERSION. The version is 1 and
 * stays 1: the protocol grows only by appending commands, attributes, enum
 * values and flag bits at the end of their lists. Nothing is renumbered or
 * removed. User space must ignore attributes it does not know.
 *
 * Every request is validated strictly against a per-command policy: unknown
 * attributes, wrong types, out-of-range values and unknown flag bits are
 * rejected with an errno and an extended-ACK message naming the offending
 * attribute. Commands that change state need CAP_NET_ADMIN in the network
 * namespace's user namespace; those that change providers, volumes and paths
 * (which register P2P memory and claim NVMe namespaces exclusively) need
 * CAP_SYS_ADMIN as well. Reading needs no privilege.
 *
 * Messages carry one nest per object at the top level (GPUPATH_A_INFO, ...),
 * whose members are the object's attributes (GPUPATH_A_INFO_*). There are no
 * u8 or u16 attributes, no C structures inside attributes, and arrays are
 * repeated attributes.
 *
 * Multicast groups:
 *   GPUPATH_MCGRP_CONFIG  an object was added, changed or removed; each
 *                         notification repeats the attributes its GET reply
 *                         carries, with the command set to the object's
 *                         NEW/DEL command.
 *   GPUPATH_MCGRP_EVENTS  things that happened: path state changes,
 *                         failover and failback, I/O errors.
 *
 * Commands:
 *
 * GPUPATH_CMD_GET_INFO (do)
 *   Request: no attributes.
 *   Reply:   GPUPATH_A_INFO nest with
 *            GPUPATH_A_INFO_VERSION        string, module version "x.y.z"
 *            GPUPATH_A_INFO_GENL_VERSION   u32, GPUPATH_GENL_VERSION
 *            GPUPATH_A_INFO_FEATURES       u64, GPUPATH_FEATURE_* bits
 *            GPUPATH_A_INFO_P2PDMA_STATUS  u32, enum gpupath_p2pdma_status:
 *                                          why P2PDMA is or is not usable
 *            GPUPATH_A_INFO_KERNEL         string, release of the running
 *                                          kernel
 *            GPUPATH_A_INFO_IOCTL_VERSION  u32, GPUPATH_IOCTL_VERSION
 *
 * GPUPATH_CMD_PROVIDER_GET (do, dump), _NEW, _DEL: P2P memory providers,
 *   GPUPATH_A_PROVIDER nests (see enum gpupath_a_provider).
 *
 * GPUPATH_CMD_VOLUME_GET (do: GPUPATH_A_VOLUME_ID; dump: all)
 *   Reply: GPUPATH_A_VOLUME nest per volume, with its paths as
 *          GPUPATH_A_VOLUME_PATH nests (the attributes of PATH_GET).
 * GPUPATH_CMD_VOLUME_NEW (admin)
 *   Request: optional WWID (else taken from the first path), POLICY,
 *            FALLBACK, QUEUE_TIMEOUT. Reply: the new volume. Its block
 *            device /dev/<NAME> appears at once, with size 0 until the
 *            first path is added.
 * GPUPATH_CMD_VOLUME_SET (admin)
 *   Request: ID and any of POLICY, FALLBACK, QUEUE_TIMEOUT; applied live.
 * GPUPATH_CMD_VOLUME_DEL (admin)
 *   Request: ID. Refused with EBUSY while the block device is open; else
 *   its paths are drained and released and the block device goes away.
 *
 * GPUPATH_CMD_PATH_GET (do: GPUPATH_A_PATH_ID; dump: all, or those of
 *   GPUPATH_A_PATH_VOLUME)
 * GPUPATH_CMD_PATH_NEW (admin)
 *   Request: VOLUME, DEVICE (a block device path such as /dev/nvme1n1),
 *            optional STATE, WEIGHT, RAIL. The device is opened exclusively
 *            for the volume. Refused with a message when its wwid, size or
 *            logical block size differ from the volume's, when it is not
 *            an NVMe namespace, or when it already is a path.
 * GPUPATH_CMD_PATH_SET (admin)
 *   Request: ID and any of STATE, WEIGHT, RAIL, LINK. DOWN and DRAINING (and
 *   LINK DOWN) take the path out of selection at once; I/O already on it
 *   completes there.
 * GPUPATH_CMD_PATH_DEL (admin)
 *   Request: ID. New I/O stops going to the path, I/O on it completes (a
 *   path error there fails over), then the device is released. Removing
 *   the last path leaves the volume queueing (see QUEUE_TIMEOUT).
 *
 * GPUPATH_CMD_EVENT (multicast on GPUPATH_MCGRP_EVENTS only)
 *   A GPUPATH_A_EVENT nest: TYPE (enum gpupath_event), VOLUME, PATH, and
 *   per type ERROR, NSEC, IOS.
 *
 * GPUPATH_CMD_PORTAL_GET (do: GPUPATH_A_PORTAL_ID or _NAME; dump: all)
 *   A portal is a fabric target the administrator wants connected: the
 *   module keeps it, gpupathd connects it (once per rail) and reports the
 *   connections back in GPUPATH_A_PORTAL_CONN nests.
 * GPUPATH_CMD_PORTAL_NEW (admin)
 *   Request: NAME, TRANSPORT, TRADDR, optional TRSVCID (default 4420),
 *            SUBSYSNQN (absent: TRADDR is a discovery controller, and
 *            every subsystem its log page lists is connected), RAIL nests
 *            (the host interfaces to connect from; none: one connection,
 *            the kernel's choice), QOS, CTRL_LOSS_TMO, FAST_IO_FAIL_TMO,
 *            RECONNECT_DELAY, NR_IO_QUEUES. Reply: the new portal.
 * GPUPATH_CMD_PORTAL_SET (admin)
 *   Request: ID or NAME, and any of QOS, CTRL_LOSS_TMO, FAST_IO_FAIL_TMO,
 *   RECONNECT_DELAY, NR_IO_QUEUES (they apply to connections made from
 *   then on); or CONN nests, which replace the reported connections (the
 *   daemon's report; CONN_CLEAR with no CONN nest clears them).
 * GPUPATH_CMD_PORTAL_DEL (admin)
 *   Request: ID or NAME. The daemon disconnects what it connected for it.
 *
 * GPUPATH_CMD_QOS_GET (do: GPUPATH_A_QOS_NAME; dump: all)
 *   A QoS class: how a portal's traffic is marked (DSCP) and treated
 *   (priority, PFC, ETS share). Portals name it (GPUPATH_A_PORTAL_QOS);
 *   gpupathd applies it and reports each setting per device in
 *   GPUPATH_A_QOS_APPLIED nests.
 * GPUPATH_CMD_QOS_NEW (admin)
 *   Request: NAME, DSCP, optional PRIORITY (default 3), PFC (default 0),
 *   ETS (percent, default 0: none).
 * GPUPATH_CMD_QOS_SET (admin)
 *   Request: NAME and any of DSCP, PRIORITY, PFC, ETS; or APPLIED nests,
 *   which replace the report (APPLIED_CLEAR with none clears it).
 * GPUPATH_CMD_QOS_DEL (admin)
 *   Request: NAME. Refused with EBUSY while a portal names it.
 *
 * ioctls on /dev/gpupath
 * ----------------------
 * GPUPATH_IOC_VERSION  _IOR, struct gpupath_version: the same facts as
 *                      GET_INFO for programs that only use the device.
 * Structures only grow at the end; their size is part of the ioctl number.
 */
#ifndef _UAPI_LINUX_GPUPATH_H
#define _UAPI_LINUX_GPUPATH_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define GPUPATH_GENL_NAME		"gpupath"
#define GPUPATH_GENL_VERSION		1

#define GPUPATH_MCGRP_CONFIG		"config"
#define GPUPATH_MCGRP_EVENTS		"events"

/* Name of the control device under /dev. */
#define GPUPATH_DEVICE_NAME		"gpupath"

enum gpupath_cmd {
	GPUPATH_CMD_UNSPEC,
	GPUPATH_CMD_GET_INFO,
	GPUPATH_CMD_PROVIDER_GET,
	GPUPATH_CMD_PROVIDER_NEW,
	GPUPATH_CMD_PROVIDER_DEL,
	GPUPATH_CMD_VOLUME_GET,
	GPUPATH_CMD_VOLUME_NEW,
	GPUPATH_CMD_VOLUME_DEL,
	GPUPATH_CMD_VOLUME_SET,
	GPUPATH_CMD_PATH_GET,
	GPUPATH_CMD_PATH_NEW,
	GPUPATH_CMD_PATH_DEL,
	GPUPATH_CMD_PATH_SET,
	GPUPATH_CMD_EVENT,
	GPUPATH_CMD_PORTAL_GET,
	GPUPATH_CMD_PORTAL_NEW,
	GPUPATH_CMD_PORTAL_DEL,
	GPUPATH_CMD_PORTAL_SET,
	GPUPATH_CMD_QOS_GET,
	GPUPATH_CMD_QOS_NEW,
	GPUPATH_CMD_QOS_DEL,
	GPUPATH_CMD_QOS_SET,

	__GPUPATH_CMD_MAX,
	GPUPATH_CMD_MAX = __GPUPATH_CMD_MAX - 1
};

/* Top-level attributes: one nest per object. */
enum gpupath_a {
	GPUPATH_A_UNSPEC,
	GPUPATH_A_INFO,		/* nest, GPUPATH_A_INFO_* */
	GPUPATH_A_PROVIDER,	/* nest, GPUPATH_A_PROVIDER_* */
	GPUPATH_A_VOLUME,	/* nest, GPUPATH_A_VOLUME_* */
	GPUPATH_A_PATH,		/* nest, GPUPATH_A_PATH_* */
	GPUPATH_A_EVENT,	/* nest, GPUPATH_A_EVENT_* */
	GPUPATH_A_PORTAL,	/* nest, GPUPATH_A_PORTAL_* */
	GPUPATH_A_QOS,		/* nest, GPUPATH_A_QOS_* */

	__GPUPATH_A_MAX,
	GPUPATH_A_MAX = __GPUPATH_A_MAX - 1
};

enum gpupath_a_info {
	GPUPATH_A_INFO_UNSPEC,
	GPUPATH_A_INFO_PAD,		/* alignment padding of u64s */
	GPUPATH_A_INFO_VERSION,		/* string */
	GPUPATH_A_INFO_GENL_VERSION,	/* u32 */
	GPUPATH_A_INFO_FEATURES,	/* u64, GPUPATH_FEATURE_* */
	GPUPATH_A_INFO_P2PDMA_STATUS,	/* u32, enum gpupath_p2pdma_status */
	GPUPATH_A_INFO_KERNEL,		/* string */
	GPUPATH_A_INFO_IOCTL_VERSION,	/* u32 */

	__GPUPATH_A_INFO_MAX,
	GPUPATH_A_INFO_MAX = __GPUPATH_A_INFO_MAX - 1
};

enum gpupath_a_provider {
	GPUPATH_A_PROVIDER_UNSPEC,
	GPUPATH_A_PROVIDER_PAD,
	GPUPATH_A_PROVIDER_ID,		/* u32 */
	GPUPATH_A_PROVIDER_TYPE,	/* u32, enum gpupath_provider_type */
	GPUPATH_A_PROVIDER_PCI_DEV,	/* string, "DDDD:BB:DD.F" */
	GPUPATH_A_PROVIDER_DRIVER,	/* string, driver bound to the device */
	GPUPATH_A_PROVIDER_OWNED,	/* u32, 1: gpupath registered the BAR */
	GPUPATH_A_PROVIDER_SIZE,	/* u64, bytes of P2P memory */
	GPUPATH_A_PROVIDER_ALLOCATED,	/* u64, bytes gpupath has allocated */
	GPUPATH_A_PROVIDER_AVAILABLE,	/* u64, bytes free in the device's pool */
	GPUPATH_A_PROVIDER_STATS,	/* nest, GPUPATH_A_STATS_* */
	GPUPATH_A_PROVIDER_BAR,		/* u32, the BAR holding the memory */
	GPUPATH_A_PROVIDER_PEER,	/* nest, GPUPATH_A_PEER_*, repeated */

	__GPUPATH_A_PROVIDER_MAX,
	GPUPATH_A_PROVIDER_MAX = __GPUPATH_A_PROVIDER_MAX - 1
};

enum gpupath_a_volume {
	GPUPATH_A_VOLUME_UNSPEC,
	GPUPATH_A_VOLUME_PAD,
	GPUPATH_A_VOLUME_ID,		/* u32 */
	GPUPATH_A_VOLUME_NAME,		/* string, block device name "gpupathN" */
	GPUPATH_A_VOLUME_WWID,		/* string, the namespace's wwid */
	GPUPATH_A_VOLUME_POLICY,	/* u32, enum gpupath_policy */
	GPUPATH_A_VOLUME_FALLBACK,	/* u32, enum gpupath_policy: what
					 * gpu-affinity uses for host memory
					 * and between equally close paths;
					 * never gpu-affinity itself */
	GPUPATH_A_VOLUME_QUEUE_TIMEOUT,	/* u32, ms that I/O waits for a path
					 * when none is usable before it
					 * fails; GPUPATH_QUEUE_FOREVER, or 0
					 * to fail at once */
	GPUPATH_A_VOLUME_SIZE,		/* u64, bytes */
	GPUPATH_A_VOLUME_BLOCK_SIZE,	/* u32, logical block size */
	GPUPATH_A_VOLUME_MODE,		/* u32, enum gpupath_volume_mode */
	GPUPATH_A_VOLUME_OPEN,		/* u32, openers of the block device */
	GPUPATH_A_VOLUME_PATHS,		/* u32, paths */
	GPUPATH_A_VOLUME_USABLE,	/* u32, paths that take new I/O now */
	GPUPATH_A_VOLUME_STATS,		/* nest, GPUPATH_A_VSTATS_* */
	GPUPATH_A_VOLUME_PATH,		/* nest, GPUPATH_A_PATH_*, repeated */

	__GPUPATH_A_VOLUME_MAX,
	GPUPATH_A_VOLUME_MAX = __GPUPATH_A_VOLUME_MAX - 1
};

#define GPUPATH_QUEUE_FOREVER		0xffffffffU

/* Counters of one volume (bios as the volume received them). */
enum gpupath_a_vstats {
	GPUPATH_A_VSTATS_UNSPEC,
	GPUPATH_A_VSTATS_PAD,
	GPUPATH_A_VSTATS_IOS,		/* u64, completed */
	GPUPATH_A_VSTATS_BYTES,		/* u64 */
	GPUPATH_A_VSTATS_ERRORS,	/* u64, failed to the caller */
	GPUPATH_A_VSTATS_RETRIES,	/* u64, resubmissions after a path error */
	GPUPATH_A_VSTATS_QUEUED,	/* u64, I/Os that waited for a path */
	GPUPATH_A_VSTATS_REFUSED,	/* u64, device-memory I/Os no usable
					 * path could DMA (bounced) */
	GPUPATH_A_VSTATS_FAILOVERS,	/* u64, path failures recovered from */
	GPUPATH_A_VSTATS_FAILOVER_LAST_NS, /* u64, last: first path error to
					    * first retried I/O done */
	GPUPATH_A_VSTATS_FAILOVER_MAX_NS, /* u64 */
	GPUPATH_A_VSTATS_INFLIGHT,	/* u64, I/Os in the volume now */

	__GPUPATH_A_VSTATS_MAX,
	GPUPATH_A_VSTATS_MAX = __GPUPATH_A_VSTATS_MAX - 1
};

enum gpupath_a_path {
	GPUPATH_A_PATH_UNSPEC,
	GPUPATH_A_PATH_PAD,
	GPUPATH_A_PATH_ID,		/* u32, unique among all volumes */
	GPUPATH_A_PATH_VOLUME,		/* u32, volume id */
	GPUPATH_A_PATH_DEVICE,		/* string: request, a device node;
					 * reply, the disk name ("nvme1n1") */
	GPUPATH_A_PATH_STATE,		/* u32, enum gpupath_path_state */
	GPUPATH_A_PATH_HEALTH,		/* u32, enum gpupath_path_health */
	GPUPATH_A_PATH_WEIGHT,		/* u32, 1..GPUPATH_WEIGHT_MAX, for
					 * the weighted policy */
	GPUPATH_A_PATH_RAIL,		/* u32, the rail it belongs to */
	GPUPATH_A_PATH_TRANSPORT,	/* string: rdma, tcp, pcie, loop, fc,
					 * multipath (an nvme head device) */
	GPUPATH_A_PATH_CONTROLLER,	/* string, nvme controller ("nvme1") */
	GPUPATH_A_PATH_DMA_DEV,		/* string, PCI function that DMAs
					 * for it, when there is one */
	GPUPATH_A_PATH_REASON,		/* u32, enum gpupath_reason: why no
					 * device memory can go direct on it,
					 * whatever the provider; NONE when
					 * it depends on the provider */
	GPUPATH_A_PATH_STATS,		/* nest, GPUPATH_A_PSTATS_* */
	GPUPATH_A_PATH_LINK,		/* u32, enum gpupath_path_link */

	__GPUPATH_A_PATH_MAX,
	GPUPATH_A_PATH_MAX = __GPUPATH_A_PATH_MAX - 1
};

#define GPUPATH_WEIGHT_MAX		1000

/* Counters of one path (each resubmission counts where it went). */
enum gpupath_a_pstats {
	GPUPATH_A_PSTATS_UNSPEC,
	GPUPATH_A_PSTATS_PAD,
	GPUPATH_A_PSTATS_IOS,		/* u64, completed without error */
	GPUPATH_A_PSTATS_BYTES,		/* u64 */
	GPUPATH_A_PSTATS_ERRORS,	/* u64, failed here */
	GPUPATH_A_PSTATS_DIRECT_IOS,	/* u64, device-memory I/Os DMAed */
	GPUPATH_A_PSTATS_INFLIGHT,	/* u64, I/Os on the path now */
	GPUPATH_A_PSTATS_LATENCY_NS,	/* u64, service time, EWMA */

	__GPUPATH_A_PSTATS_MAX,
	GPUPATH_A_PSTATS_MAX = __GPUPATH_A_PSTATS_MAX - 1
};

enum gpupath_a_event {
	GPUPATH_A_EVENT_UNSPEC,
	GPUPATH_A_EVENT_PAD,
	GPUPATH_A_EVENT_TYPE,		/* u32, enum gpupath_event */
	GPUPATH_A_EVENT_VOLUME,		/* u32 */
	GPUPATH_A_EVENT_PATH,		/* u32, 0 when none applies */
	GPUPATH_A_EVENT_ERROR,		/* u32, errno (positive) */
	GPUPATH_A_EVENT_NSEC,		/* u64, FAILOVER: its duration */
	GPUPATH_A_EVENT_IOS,		/* u64, IO_ERROR: I/Os failed */

	__GPUPATH_A_EVENT_MAX,
	GPUPATH_A_EVENT_MAX = __GPUPATH_A_EVENT_MAX - 1
};

enum gpupath_a_portal {
	GPUPATH_A_PORTAL_UNSPEC,
	GPUPATH_A_PORTAL_PAD,
	GPUPATH_A_PORTAL_ID,		/* u32, picked by the kernel */
	GPUPATH_A_PORTAL_NAME,		/* string, 1..GPUPATH_NAME_LEN - 1 of
					 * [A-Za-z0-9._-], unique */
	GPUPATH_A_PORTAL_TRANSPORT,	/* u32, enum gpupath_transport */
	GPUPATH_A_PORTAL_TRADDR,	/* string, IPv4 or IPv6 address */
	GPUPATH_A_PORTAL_TRSVCID,	/* u32, port, 1..65535 */
	GPUPATH_A_PORTAL_SUBSYSNQN,	/* string, NVMe qualified name */
	GPUPATH_A_PORTAL_RAIL,		/* nest, GPUPATH_A_RAIL_*, repeated,
					 * at most GPUPATH_PORTAL_RAILS_MAX */
	GPUPATH_A_PORTAL_QOS,		/* string, a QoS class name */
	GPUPATH_A_PORTAL_CTRL_LOSS_TMO,	/* u32, seconds the host keeps
					 * reconnecting a lost controller;
					 * GPUPATH_TMO_FOREVER: never stop */
	GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO, /* u32, seconds before I/O fails
					 * during reconnects; GPUPATH_TMO_OFF */
	GPUPATH_A_PORTAL_RECONNECT_DELAY, /* u32, seconds between reconnects */
	GPUPATH_A_PORTAL_NR_IO_QUEUES,	/* u32, 0: the host's default */
	GPUPATH_A_PORTAL_CONN,		/* nest, GPUPATH_A_CONN_*, repeated,
					 * at most GPUPATH_PORTAL_CONNS_MAX */
	GPUPATH_A_PORTAL_CONN_CLEAR,	/* flag (request): no connections */
	GPUPATH_A_PORTAL_DISCOVERY,	/* flag (reply): a discovery portal */

	__GPUPATH_A_PORTAL_MAX,
	GPUPATH_A_PORTAL_MAX = __GPUPATH_A_PORTAL_MAX - 1
};

#define GPUPATH_NAME_LEN		32
#define GPUPATH_NQN_LEN			224	/* NVMe: 223 bytes and a NUL */
#define GPUPATH_ADDR_LEN		48
#define GPUPATH_PORTAL_RAILS_MAX	16
#define GPUPATH_PORTAL_CONNS_MAX	64
#define GPUPATH_TMO_FOREVER		0xffffffff
#define GPUPATH_TMO_OFF			0xffffffff
#define GPUPATH_TRSVCID_DEFAULT		4420
#define GPUPATH_RECONNECT_DELAY_DEFAULT	2	/* seconds, when a new portal has none */

/* One host interface a portal is connected from. */
enum gpupath_a_rail {
	GPUPATH_A_RAIL_UNSPEC,
	GPUPATH_A_RAIL_ID,		/* u32, the rail number (path RAIL) */
	GPUPATH_A_RAIL_IFACE,		/* string, network interface */
	GPUPATH_A_RAIL_ADDR,		/* string, host address (at least
					 * one of IFACE and ADDR) */

	__GPUPATH_A_RAIL_MAX,
	GPUPATH_A_RAIL_MAX = __GPUPATH_A_RAIL_MAX - 1
};

/* One connection of a portal, as the daemon reports it. */
enum gpupath_a_conn {
	GPUPATH_A_CONN_UNSPEC,
	GPUPATH_A_CONN_RAIL,		/* u32, rail number (0: no rail) */
	GPUPATH_A_CONN_SUBSYSNQN,	/* string */
	GPUPATH_A_CONN_TRADDR,		/* string, target address (it differs
					 * from the portal's for referrals) */
	GPUPATH_A_CONN_STATE,		/* u32, enum gpupath_conn_state */
	GPUPATH_A_CONN_CONTROLLER,	/* string, "nvme3" when connected */
	GPUPATH_A_CONN_ATTEMPTS,	/* u32, failed attempts in a row */
	GPUPATH_A_CONN_ERROR,		/* u32, errno of the last failure */
	GPUPATH_A_CONN_RETRY_MS,	/* u32, ms to the next attempt */
	GPUPATH_A_CONN_TRSVCID,		/* u32 */

	__GPUPATH_A_CONN_MAX,
	GPUPATH_A_CONN_MAX = __GPUPATH_A_CONN_MAX - 1
};

enum gpupath_a_qos {
	GPUPATH_A_QOS_UNSPEC,
	GPUPATH_A_QOS_NAME,		/* string, as a portal's name */
	GPUPATH_A_QOS_DSCP,		/* u32, 0..63: the IP DSCP of the
					 * traffic (tos = DSCP << 2) */
	GPUPATH_A_QOS_PRIORITY,		/* u32, 0..7: the 802.1p priority
					 * the DSCP maps to */
	GPUPATH_A_QOS_PFC,		/* u32, 0/1: PFC on that priority */
	GPUPATH_A_QOS_ETS,		/* u32, 0..100: ETS bandwidth share
					 * in percent, 0 for none */
	GPUPATH_A_QOS_APPLIED,		/* nest, GPUPATH_A_APPLIED_*, repeated,
					 * at most GPUPATH_QOS_APPLIED_MAX */
	GPUPATH_A_QOS_APPLIED_CLEAR,	/* flag (request): no report */
	GPUPATH_A_QOS_PORTALS,		/* u32 (reply): portals naming it */

	__GPUPATH_A_QOS_MAX,
	GPUPATH_A_QOS_MAX = __GPUPATH_A_QOS_MAX - 1
};

#define GPUPATH_QOS_APPLIED_MAX		64

/* One setting of a QoS class on one device, as the daemon found it. */
enum gpupath_a_applied {
	GPUPATH_A_APPLIED_UNSPEC,
	GPUPATH_A_APPLIED_DEVICE,	/* string: "nvme2", "rxe1", "eth1" */
	GPUPATH_A_APPLIED_SETTING,	/* string: "tos", "default_roce_tos",
					 * "dcb-app", "pfc", "ets" */
	GPUPATH_A_APPLIED_RESULT,	/* u32, enum gpupath_applied */
	GPUPATH_A_APPLIED_ERROR,	/* u32, errno when FAILED */
	GPUPATH_A_APPLIED_VALUE,	/* u32, the value read back */

	__GPUPATH_A_APPLIED_MAX,
	GPUPATH_A_APPLIED_MAX = __GPUPATH_A_APPLIED_MAX - 1
};

/**
 * enum gpupath_applied - what became of one QoS setting on one device
 * @GPUPATH_APPLIED_OK: set, and read back with the wanted value.
 * @GPUPATH_APPLIED_UNSUPPORTED: the device has no such setting.
 * @GPUPATH_APPLIED_FAILED: setting it failed, or it read back otherwise.
 */
enum gpupath_applied {
	GPUPATH_APPLIED_OK = 1,
	GPUPATH_APPLIED_UNSUPPORTED,
	GPUPATH_APPLIED_FAILED,

	__GPUPATH_APPLIED_MAX,
	GPUPATH_APPLIED_MAX = __GPUPATH_APPLIED_MAX - 1
};

/**
 * enum gpupath_transport - the fabric a portal is reached over
 * @GPUPATH_TRANSPORT_RDMA: NVMe over RDMA (RoCEv2, InfiniBand, iWARP).
 * @GPUPATH_TRANSPORT_TCP: NVMe over TCP.
 */
enum gpupath_transport {
	GPUPATH_TRANSPORT_RDMA = 1,
	GPUPATH_TRANSPORT_TCP,

	__GPUPATH_TRANSPORT_MAX,
	GPUPATH_TRANSPORT_MAX = __GPUPATH_TRANSPORT_MAX - 1
};

/**
 * enum gpupath_conn_state - a portal's connection
 * @GPUPATH_CONN_CONNECTING: an attempt is under way.
 * @GPUPATH_CONN_LIVE: connected, the controller is live.
 * @GPUPATH_CONN_RECONNECTING: connected, the host is reconnecting a lost
 *	controller.
 * @GPUPATH_CONN_BACKOFF: the last attempt failed; the next one is due
 *	in RETRY_MS.
 * @GPUPATH_CONN_ADOPTED: live, and was connected before the daemon (by
 *	hand, or by an earlier daemon).
 */
enum gpupath_conn_state {
	GPUPATH_CONN_CONNECTING = 1,
	GPUPATH_CONN_LIVE,
	GPUPATH_CONN_RECONNECTING,
	GPUPATH_CONN_BACKOFF,
	GPUPATH_CONN_ADOPTED,

	__GPUPATH_CONN_STATE_MAX,
	GPUPATH_CONN_STATE_MAX = __GPUPATH_CONN_STATE_MAX - 1
};

/**
 * enum gpupath_policy - how a volume picks the path of each I/O
 * @GPUPATH_POLICY_ROUND_ROBIN: usable paths in turn.
 * @GPUPATH_POLICY_QUEUE_DEPTH: the path with the fewest I/Os in flight.
 * @GPUPATH_POLICY_SERVICE_TIME: the least expected wait: I/Os in flight
 *	plus one, times the path's service time (an EWMA of its latency).
 * @GPUPATH_POLICY_WEIGHTED: in proportion to the paths' weights.
 * @GPUPATH_POLICY_GPU_AFFINITY: for device memory, the path whose DMA
 *	device is closest on PCIe to the memory's provider (as
 *	pci_p2pdma_distance() counts); host memory and ties go by the
 *	volume's fallback policy.
 *
 * Whatever the policy, device memory only goes to paths that can DMA it.
 */
enum gpupath_policy {
	GPUPATH_POLICY_ROUND_ROBIN,
	GPUPATH_POLICY_QUEUE_DEPTH,
	GPUPATH_POLICY_SERVICE_TIME,
	GPUPATH_POLICY_WEIGHTED,
	GPUPATH_POLICY_GPU_AFFINITY,

	__GPUPATH_POLICY_MAX,
	GPUPATH_POLICY_MAX = __GPUPATH_POLICY_MAX - 1
};

/**
 * enum gpupath_volume_mode - who does multipath
 * @GPUPATH_VOLUME_MANAGED: gpupath: the paths are per-controller namespace
 *	devices (nvme_core.multipath=N).
 * @GPUPATH_VOLUME_NATIVE: the kernel's nvme multipath: the path is an nvme
 *	head device.
 * @GPUPATH_VOLUME_EMPTY: no path yet.
 */
enum gpupath_volume_mode {
	GPUPATH_VOLUME_MANAGED,
	GPUPATH_VOLUME_NATIVE,
	GPUPATH_VOLUME_EMPTY,
};

/**
 * enum gpupath_path_state - what the administrator wants of a path
 * @GPUPATH_PATH_UP: used.
 * @GPUPATH_PATH_DOWN: not used.
 * @GPUPATH_PATH_DRAINING: not used for new I/O, on the way out.
 */
enum gpupath_path_state {
	GPUPATH_PATH_UP,
	GPUPATH_PATH_DOWN,
	GPUPATH_PATH_DRAINING,

	__GPUPATH_PATH_STATE_MAX,
	GPUPATH_PATH_STATE_MAX = __GPUPATH_PATH_STATE_MAX - 1
};

/**
 * enum gpupath_path_health - what I/O says of a path
 * @GPUPATH_HEALTH_LIVE: working.
 * @GPUPATH_HEALTH_FAILED: an I/O failed with a path error; out of
 *	selection until its controller is live again (checked every second).
 * @GPUPATH_HEALTH_GONE: its disk was deleted (controller removed); it only
 *	waits to be removed.
 */
enum gpupath_path_health {
	GPUPATH_HEALTH_LIVE,
	GPUPATH_HEALTH_FAILED,
	GPUPATH_HEALTH_GONE,
};

/**
 * enum gpupath_path_link - the host network link a path's connection uses
 * @GPUPATH_LINK_UNKNOWN: not known (PCIe paths, or nobody said).
 * @GPUPATH_LINK_UP: the link is up.
 * @GPUPATH_LINK_DOWN: the link is down: the path takes no new I/O, as with
 *	state DOWN, until the link is up again; I/O already on it completes or
 *	fails over. gpupathd sets it from rtnetlink the moment a rail's
 *	interface loses its carrier, before any I/O or keep-alive fails.
 */
enum gpupath_path_link {
	GPUPATH_LINK_UNKNOWN,
	GPUPATH_LINK_UP,
	GPUPATH_LINK_DOWN,

	__GPUPATH_LINK_MAX,
	GPUPATH_LINK_MAX = __GPUPATH_LINK_MAX - 1
};

/**
 * enum gpupath_event - GPUPATH_A_EVENT_TYPE
 * @GPUPATH_EVENT_PATH_FAILED: a path error took the path out (ERROR).
 * @GPUPATH_EVENT_PATH_GONE: the path's disk was deleted.
 * @GPUPATH_EVENT_FAILBACK: a failed path is live again and back in use.
 * @GPUPATH_EVENT_FAILOVER: I/O of a failed path completed on another one
 *	(NSEC: from the first path error to that completion).
 * @GPUPATH_EVENT_NO_PATH: no path is usable; I/O waits (QUEUE_TIMEOUT).
 * @GPUPATH_EVENT_IO_ERROR: I/O failed to the caller (ERROR, IOS).
 */
enum gpupath_event {
	GPUPATH_EVENT_PATH_FAILED = 1,
	GPUPATH_EVENT_PATH_GONE,
	GPUPATH_EVENT_FAILBACK,
	GPUPATH_EVENT_FAILOVER,
	GPUPATH_EVENT_NO_PATH,
	GPUPATH_EVENT_IO_ERROR,
};

/*
 * Counters of one provider. Each I/O is counted once: direct when the
 * device DMAed into or out of the provider's memory, refused when gpupath
 * declined it (the caller then bounces it through host memory) - by reason,
 * as repeated GPUPATH_A_STATS_REFUSED nests.
 */
enum gpupath_a_stats {
	GPUPATH_A_STATS_UNSPEC,
	GPUPATH_A_STATS_PAD,
	GPUPATH_A_STATS_DIRECT_IOS,	/* u64 */
	GPUPATH_A_STATS_DIRECT_BYTES,	/* u64 */
	GPUPATH_A_STATS_ERRORS,		/* u64, direct I/Os that failed */
	GPUPATH_A_STATS_REFUSED,	/* nest, GPUPATH_A_REFUSED_*, repeated */

	__GPUPATH_A_STATS_MAX,
	GPUPATH_A_STATS_MAX = __GPUPATH_A_STATS_MAX - 1
};

/*
 * A P2P peer of a provider: an NVMe controller or a network/RDMA function
 * that pci_p2pdma_distance() lets DMA into the provider's memory.
 */
enum gpupath_a_peer {
	GPUPATH_A_PEER_UNSPEC,
	GPUPATH_A_PEER_PCI_DEV,		/* string */
	GPUPATH_A_PEER_DISTANCE,	/* u32, as pci_p2pdma_distance() counts */

	__GPUPATH_A_PEER_MAX,
	GPUPATH_A_PEER_MAX = __GPUPATH_A_PEER_MAX - 1
};

enum gpupath_a_refused {
	GPUPATH_A_REFUSED_UNSPEC,
	GPUPATH_A_REFUSED_PAD,
	GPUPATH_A_REFUSED_REASON,	/* u32, enum gpupath_reason */
	GPUPATH_A_REFUSED_IOS,		/* u64 */
	GPUPATH_A_REFUSED_BYTES,	/* u64 */

	__GPUPATH_A_REFUSED_MAX,
	GPUPATH_A_REFUSED_MAX = __GPUPATH_A_REFUSED_MAX - 1
};

/**
 * enum gpupath_provider_type - where device memory comes from
 * @GPUPATH_PROVIDER_P2PDMA: a PCI BAR registered as P2PDMA memory, by the
 *	device's own driver (an NVMe CMB) or by gpupath's PCI stub driver
 *	bound through driver_override.
 * @GPUPATH_PROVIDER_NVIDIA: CUDA memory pinned with nvidia_p2p_get_pages().
 *	Its BAR maps every process's GPU memory: GPUPATH_IOC_ALLOC refuses it,
 *	its memory is reached only through GPUPATH_IOC_REG_CUDA.
 */
enum gpupath_provider_type {
	GPUPATH_PROVIDER_UNSPEC,
	GPUPATH_PROVIDER_P2PDMA,
	GPUPATH_PROVIDER_NVIDIA,

	__GPUPATH_PROVIDER_MAX,
	GPUPATH_PROVIDER_MAX = __GPUPATH_PROVIDER_MAX - 1
};

/**
 * enum gpupath_reason - why an I/O was or was not served directly
 * @GPUPATH_REASON_NONE: it was (mode direct), or the buffer is host memory.
 * @GPUPATH_REASON_P2PDMA_NOT_BUILT: the kernel has no CONFIG_PCI_P2PDMA.
 * @GPUPATH_REASON_NO_P2P_ROUTE: pci_p2pdma_distance() refuses the provider
 *	and the device's DMA engine (no common switch, host bridge not
 *	allowed, ACS redirect).
 * @GPUPATH_REASON_CPU_COPY: the transport moves data with the CPU
 *	(nvme-tcp copies from sockets): there is no DMA engine to aim at
 *	device memory, so a bounce costs nothing extra.
 * @GPUPATH_REASON_VIRTUAL_DMA: the RDMA device is a software device with no
 *	PCI DMA engine (soft-RoCE rxe, siw).
 * @GPUPATH_REASON_MULTIPATH_HEAD: an nvme native-multipath head device: the
 *	path used per I/O is chosen below gpupath, so direct DMA cannot be
 *	promised; use a gpupath volume or the per-path devices.
 * @GPUPATH_REASON_NO_DMA_DEVICE: no DMA device could be found for the block
 *	device (not NVMe, or an unknown transport).
 * @GPUPATH_REASON_NO_PEER_MEMORY: the memory is a CUDA allocation and no
 *	NVIDIA peer-memory provider serves it.
 * @GPUPATH_REASON_DMA_MAP_FAILED: the route check let the I/O go direct,
 *	but the controller's driver could not DMA-map the memory when the I/O
 *	was sent (nvme-pci ends such a bio with a target error); nothing was
 *	transferred by that bio. A real target error on a direct I/O reads
 *	the same, and recurs when the I/O is bounced.
 * @GPUPATH_REASON_NO_P2P_QUEUE: the block device's driver does not take
 *	P2P memory in its requests (its queue lacks the kernel's PCI P2PDMA
 *	capability: virtio-blk, SATA, SCSI, USB, or nvme-pci on DMA ops that
 *	cannot map P2P memory). nvme-rdma is the one exception gpupath makes:
 *	it maps P2P memory through the RDMA device.
 * @GPUPATH_REASON_UNKNOWN_MEMORY: the pages are device memory of no
 *	provider gpupath knows now (its provider was removed, or another driver
 *	owns it): no path can be checked against it.
 * @GPUPATH_REASON_FS_UNSUPPORTED: the file is on a file system other than
 *	ext4 or XFS (tmpfs, NFS, btrfs, FUSE, ext2/ext3 mounted as such...),
 *	whose direct I/O gpupath cannot vouch for.
 * @GPUPATH_REASON_FILE_DAX: the file is in DAX mode: the file system copies
 *	its data with the CPU, there is no device to DMA.
 * @GPUPATH_REASON_FILE_ENCRYPTED: the file is encrypted (fscrypt): its data
 *	is transformed on the way.
 * @GPUPATH_REASON_FILE_VERITY: the file has fs-verity: reads are verified
 *	by the CPU through the page cache.
 * @GPUPATH_REASON_FILE_INLINE_DATA: an ext4 file whose data sits inline in
 *	its inode: no data blocks to DMA.
 * @GPUPATH_REASON_FILE_DATA_JOURNAL: ext4 journals this file's data
 *	(data=journal, or chattr +j), so its I/O goes through the page cache.
 * @GPUPATH_REASON_FILE_BLOCK_MAPPED: a write to an ext4 file without
 *	extents (block-mapped, ext3 layout), which ext4 may finish through the
 *	page cache when it fills a hole.
 * @GPUPATH_REASON_FILE_REALTIME: an XFS realtime file: its data lives on
 *	the realtime device, not on the file system's block device.
 * @GPUPATH_REASON_STACKED_DEVICE: the file system's block device is a
 *	stacking or memory-backed driver gpupath cannot see through (device
 *	mapper, md, loop, zram).
 */
enum gpupath_reason {
	GPUPATH_REASON_NONE,
	GPUPATH_REASON_P2PDMA_NOT_BUILT,
	GPUPATH_REASON_NO_P2P_ROUTE,
	GPUPATH_REASON_CPU_COPY,
	GPUPATH_REASON_VIRTUAL_DMA,
	GPUPATH_REASON_MULTIPATH_HEAD,
	GPUPATH_REASON_NO_DMA_DEVICE,
	GPUPATH_REASON_NO_PEER_MEMORY,
	GPUPATH_REASON_DMA_MAP_FAILED,
	GPUPATH_REASON_NO_P2P_QUEUE,
	GPUPATH_REASON_UNKNOWN_MEMORY,
	GPUPATH_REASON_FS_UNSUPPORTED,
	GPUPATH_REASON_FILE_DAX,
	GPUPATH_REASON_FILE_ENCRYPTED,
	GPUPATH_REASON_FILE_VERITY,
	GPUPATH_REASON_FILE_INLINE_DATA,
	GPUPATH_REASON_FILE_DATA_JOURNAL,
	GPUPATH_REASON_FILE_BLOCK_MAPPED,
	GPUPATH_REASON_FILE_REALTIME,
	GPUPATH_REASON_STACKED_DEVICE,

	__GPUPATH_REASON_MAX,
	GPUPATH_REASON_MAX = __GPUPATH_REASON_MAX - 1
};

/**
 * enum gpupath_feature - what the loaded module can do
 * @GPUPATH_FEATURE_P2PDMA_BUILT: the module was built against a kernel with
 *	PCI peer-to-peer DMA (CONFIG_PCI_P2PDMA).
 * @GPUPATH_FEATURE_P2PDMA_USABLE: P2PDMA can be used now: built in, and the
 *	module's provider layer is ready. When clear,
 *	GPUPATH_A_INFO_P2PDMA_STATUS says why.
 * @GPUPATH_FEATURE_NVIDIA_P2P: the NVIDIA peer-memory API
 *	(nvidia_p2p_get_pages) is exported by a loaded NVIDIA driver.
 * @GPUPATH_FEATURE_FILE_IO: GPUPATH_IOC_IO and GPUPATH_IOC_SUBMIT take
 *	regular files on ext4 and XFS as well as block devices.
 * @GPUPATH_FEATURE_ALL: every bit defined so far.
 */
enum gpupath_feature {
	GPUPATH_FEATURE_P2PDMA_BUILT	= 1ULL << 0,
	GPUPATH_FEATURE_P2PDMA_USABLE	= 1ULL << 1,
	GPUPATH_FEATURE_NVIDIA_P2P	= 1ULL << 2,
	GPUPATH_FEATURE_FILE_IO		= 1ULL << 3,

	GPUPATH_FEATURE_ALL		= (1ULL << 4) - 1,
};

/**
 * enum gpupath_p2pdma_status - why P2PDMA is or is not usable
 * @GPUPATH_P2PDMA_OK: usable.
 * @GPUPATH_P2PDMA_NOT_BUILT: the kernel the module was built for has no
 *	CONFIG_PCI_P2PDMA (Debian's stock kernels, for one). Every I/O into
 *	device memory falls back to a bounce through host memory.
 */
enum gpupath_p2pdma_status {
	GPUPATH_P2PDMA_OK,
	GPUPATH_P2PDMA_NOT_BUILT,

	__GPUPATH_P2PDMA_MAX,
	GPUPATH_P2PDMA_MAX = __GPUPATH_P2PDMA_MAX - 1
};

/* Version of the ioctl interface; bumped when an ioctl is appended. */
#define GPUPATH_IOCTL_VERSION		1

/**
 * struct gpupath_version - reply of GPUPATH_IOC_VERSION
 * @major: module version, major
 * @minor: module version, minor
 * @patch: module version, patch
 * @genl_version: GPUPATH_GENL_VERSION
 * @ioctl_version: GPUPATH_IOCTL_VERSION
 * @p2pdma_status: enum gpupath_p2pdma_status
 * @features: GPUPATH_FEATURE_* bits
 */
struct gpupath_version {
	__u32 major;
	__u32 minor;
	__u32 patch;
	__u32 genl_version;
	__u32 ioctl_version;
	__u32 p2pdma_status;
	__u64 features;
};

/**
 * struct gpupath_alloc - GPUPATH_IOC_ALLOC: device memory from a provider
 * @provider: provider id (GPUPATH_A_PROVIDER_ID)
 * @flags: none defined, must be 0
 * @size: bytes, a multiple of the page size
 * @handle: out, the buffer's handle on this file descriptor
 * @mmap_offset: out, the offset to pass to mmap() of this file descriptor
 *	to map the memory
 * @bar_offset: out, where the memory starts in the provider's BAR
 * @bar: out, which BAR of the provider's PCI device holds it
 * @pad: must be 0
 *
 * Only a provider of type GPUPATH_PROVIDER_P2PDMA hands out memory; any
 * other provider (an NVIDIA GPU's BAR) fails with EOPNOTSUPP. Other errors:
 * ENOENT (no such provider), EINVAL (size, flags, pad), ENOMEM.
 */
struct gpupath_alloc {
	__u32 provider;
	__u32 flags;
	__u64 size;
	__u64 handle;
	__u64 mmap_offset;
	__u64 bar_offset;
	__u32 bar;
	__u32 pad;
};

/**
 * struct gpupath_host_reg - GPUPATH_IOC_REG_HOST: pin host memory
 * @addr: page-aligned start of the caller's memory
 * @size: bytes, a multiple of the page size
 * @flags: none defined, must be 0
 * @pad: must be 0
 * @handle: out, the buffer's handle on this file descriptor
 */
struct gpupath_host_reg {
	__u64 addr;
	__u64 size;
	__u32 flags;
	__u32 pad;
	__u64 handle;
};

/**
 * struct gpupath_cuda_reg - GPUPATH_IOC_REG_CUDA: pin CUDA device memory
 * @addr: CUDA device address, 64 KiB aligned
 * @size: bytes, a multiple of 64 KiB
 * @flags: none defined, must be 0
 * @provider: out, the provider of the GPU holding the memory
 * @handle: out, the buffer's handle on this file descriptor
 *
 * The memory is pinned through the NVIDIA driver's peer-memory API, and its
 * pages are those of a P2PDMA region over the GPU's BAR: the NVIDIA driver's,
 * or one the module registers (never published, never allocated from) on
 * the first registration on that GPU. Creating that region maps the whole
 * BAR, so it takes CAP_SYS_ADMIN; later registrations do not. Fails with
 * ENODEV when no NVIDIA driver exports that API or the GPU's driver is
 * unbound, EPERM when the region would have to be created by a caller
 * without CAP_SYS_ADMIN, EBUSY while the region goes away, EINVAL on bad
 * alignment, or the NVIDIA driver's error.
 *
 * If the memory is freed in CUDA while registered, the NVIDIA driver's
 * callback waits for the buffer's I/Os in flight before it returns; later
 * I/O on the buffer fails with ENODEV. Unbinding the GPU's driver waits
 * until every buffer over the region is freed (or revoked).
 */
struct gpupath_cuda_reg {
	__u64 addr;
	__u64 size;
	__u32 flags;
	__u32 provider;
	__u64 handle;
};

enum gpupath_io_op {
	GPUPATH_IO_READ = 1,	/* block device -> buffer */
	GPUPATH_IO_WRITE = 2,	/* buffer -> block device */
};

/* How an I/O was served (struct gpupath_io.mode). */
enum gpupath_io_mode {
	GPUPATH_MODE_NONE,	/* not served */
	GPUPATH_MODE_DIRECT,	/* the device DMAed to or from device memory */
	GPUPATH_MODE_HOST,	/* the buffer is host memory */
};

/**
 * struct gpupath_io - GPUPATH_IOC_IO: one read or write
 * @handle: buffer handle on this file descriptor
 * @buf_offset: offset into the buffer
 * @dev_offset: byte offset on the block device, or in the file
 * @len: bytes; the range must lie within the buffer. A block device: the
 *	offsets and the length are multiples of its logical block size, and
 *	the range lies within the device. A regular file: reads in multiples
 *	of the logical block size of the file system's device, writes in
 *	multiples of the file system's block size; at most 0x7ffff000 bytes.
 *	Out: GPUPATH_IOC_IO sets it to the bytes transferred, fewer than asked
 *	only when a file read reaches the end of the file (0 past it).
 * @fd: an open block device, or (GPUPATH_FEATURE_FILE_IO) a regular file on
 *	ext4 or XFS, which need not be opened with O_DIRECT; read needs it
 *	open for reading, write for writing
 * @op: enum gpupath_io_op
 * @flags: none defined, must be 0
 * @mode: out, enum gpupath_io_mode
 * @reason: out, enum gpupath_reason
 * @pad: must be 0
 * @user_data: GPUPATH_IOC_SUBMIT: returned in the I/O's completion
 *
 * Returns 0 when done. When device memory cannot be reached directly the
 * ioctl fails with EXDEV and fills @reason; nothing was transferred and the
 * caller may bounce through host memory. Files are read and written by the
 * file system's own direct I/O (it maps extents, reads holes as zeros,
 * keeps the page cache coherent); where it would touch the data with the
 * CPU instead, the I/O is refused the same way, with a file reason. Other
 * errors are the usual ones: EINVAL (alignment, range, flags, a file
 * opened with O_APPEND for a write), EBADF (fd not open for the direction,
 * or an O_PATH descriptor), EISDIR (a directory), ENOTBLK (neither a block
 * device nor a regular file), EROFS (a write on a read-only file system),
 * EPERM (a read-only block device, an immutable or append-only file),
 * ETXTBSY (active swap), EFBIG (a write past the file system's largest
 * file), ENOENT (no such handle), EIO.
 */
struct gpupath_io {
	__u64 handle;
	__u64 buf_offset;
	__u64 dev_offset;
	__u64 len;
	__s32 fd;
	__u32 op;
	__u32 flags;
	__u32 mode;
	__u32 reason;
	__u32 pad;
	__u64 user_data;
};

/**
 * struct gpupath_submit - GPUPATH_IOC_SUBMIT: start many I/Os at once
 * @ios: user pointer to @count struct gpupath_io
 * @count: how many, 1 to GPUPATH_SUBMIT_MAX
 * @flags: none defined, must be 0
 *
 * Returns how many I/Os were started, from the first; an I/O with bad input
 * stops the batch there (and fails the call if it is the first). Each
 * started I/O completes exactly once, with a struct gpupath_completion read
 * with GPUPATH_IOC_REAP; an I/O that cannot reach device memory directly
 * completes at once with -EXDEV and its reason. The file polls readable
 * while completions wait, and an eventfd set with GPUPATH_IOC_SET_EVENTFD is
 * signalled once per completion. Closing the file waits for its I/Os.
 */
struct gpupath_submit {
	__u64 ios;
	__u32 count;
	__u32 flags;
};

#define GPUPATH_SUBMIT_MAX	1024

/**
 * struct gpupath_completion - one finished I/O
 * @user_data: the I/O's user_data
 * @result: 0 or a negative errno
 * @mode: enum gpupath_io_mode
 * @reason: enum gpupath_reason
 * @pad: 0
 * @len: the I/O's length; when it succeeded, the bytes transferred, fewer
 *	only for a file read that reached the end of the file
 */
struct gpupath_completion {
	__u64 user_data;
	__s32 result;
	__u32 mode;
	__u32 reason;
	__u32 pad;
	__u64 len;
};

/**
 * struct gpupath_reap - GPUPATH_IOC_REAP: collect completions, never blocks
 * @completions: user pointer to room for @max struct gpupath_completion
 * @max: room, at least 1
 * @count: out, how many were written
 */
struct gpupath_reap {
	__u64 completions;
	__u32 max;
	__u32 count;
};

#define GPUPATH_IOC_MAGIC		0xB9
#define GPUPATH_IOC_VERSION		_IOR(GPUPATH_IOC_MAGIC, 0x00, struct gpupath_version)
#define GPUPATH_IOC_ALLOC		_IOWR(GPUPATH_IOC_MAGIC, 0x01, struct gpupath_alloc)
#define GPUPATH_IOC_REG_HOST		_IOWR(GPUPATH_IOC_MAGIC, 0x02, struct gpupath_host_reg)
/* Release a buffer by handle (__u64); its memory goes once unmapped and idle. */
#define GPUPATH_IOC_FREE		_IOW(GPUPATH_IOC_MAGIC, 0x03, __u64)
#define GPUPATH_IOC_IO			_IOWR(GPUPATH_IOC_MAGIC, 0x04, struct gpupath_io)
#define GPUPATH_IOC_SUBMIT		_IOW(GPUPATH_IOC_MAGIC, 0x05, struct gpupath_submit)
#define GPUPATH_IOC_REAP		_IOWR(GPUPATH_IOC_MAGIC, 0x06, struct gpupath_reap)
/* Signal this eventfd (__s32) once per completion; -1 stops it. */
#define GPUPATH_IOC_SET_EVENTFD		_IOW(GPUPATH_IOC_MAGIC, 0x07, __s32)
#define GPUPATH_IOC_REG_CUDA		_IOWR(GPUPATH_IOC_MAGIC, 0x08, struct gpupath_cuda_reg)

#endif /* _UAPI_LINUX_GPUPATH_H */
