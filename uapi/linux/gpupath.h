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
 * The family is defined once, in the YNL spec
 * Documentation/netlink/specs/gpupath.yaml: its commands, attribute sets
 * (each attribute's type and meaning), enums, flags and constants.
 * linux/gpupath_nl.h, included below, is generated from it
 * (tools/ynl/regen.sh); any YNL client reads the family with the spec
 * alone (tools/net/ynl/cli.py --spec gpupath.yaml --dump volume-get).
 *
 * Every command has a policy of its own, generated from the spec: its
 * request carries its object's nest alone, holding only the attributes that
 * command takes (the spec's <command>-request sets). Anything else, and
 * wrong types, out-of-range values and unknown flag bits, are refused with
 * EINVAL and an extended ACK that points at the attribute. Commands that change state need
 * CAP_NET_ADMIN in the initial user namespace (GENL_ADMIN_PERM); those that
 * change providers, volumes and paths (which register P2P memory and claim
 * NVMe namespaces exclusively) need CAP_SYS_ADMIN as well. Reading needs no
 * privilege.
 *
 * Messages carry one nest per object at the top level (GPUPATH_A_INFO, ...),
 * whose members are the object's attributes (GPUPATH_A_INFO_*). There are no
 * u8 or u16 attributes, no C structures inside attributes, and arrays are
 * repeated attributes. A reply, and each message of a dump, carries its
 * request's command, as YNL clients expect (earlier modules answered a GET
 * with the object's NEW command; clients should not depend on either).
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
 * Every NEW either replies with the new object, or returns an error and
 * leaves nothing behind (when the reply cannot be built, ENOMEM, the object
 * is removed again).
 *
 * GPUPATH_CMD_PROVIDER_GET (do: GPUPATH_A_PROVIDER_ID; dump: all), _NEW,
 *   _DEL: P2P memory providers, GPUPATH_A_PROVIDER nests (see enum
 *   gpupath_a_provider).
 * GPUPATH_CMD_PROVIDER_NEW (admin)
 *   Request: PCI_DEV, a device whose driver published P2PDMA memory (an
 *   NVMe CMB). Reply: the new provider.
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
 *            optional STATE, WEIGHT, RAIL, LINK, ANA_STATE, ANA_TT,
 *            ANA_GROUP. Reply: the new path.
 *            The device is opened exclusively
 *            for the volume. Refused with a message when its wwid, size or
 *            logical block size differ from the volume's, when it is not
 *            an NVMe namespace, or when it already is a path.
 * GPUPATH_CMD_PATH_SET (admin)
 *   Request: ID and any of STATE, WEIGHT, RAIL, LINK, ANA_STATE, ANA_TT,
 *   ANA_GROUP. DOWN and DRAINING (and LINK DOWN, ANA INACCESSIBLE,
 *   PERSISTENT_LOSS and CHANGE) take the path out of selection at once; I/O
 *   already on it completes there. Non-optimized paths are used only while
 *   no optimized one is usable (enum gpupath_ana_state).
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
 *            RECONNECT_DELAY, NR_IO_QUEUES, HOST_NQN, HOST_ID,
 *            DHCHAP_SECRET_FILE, DHCHAP_CTRL_SECRET_FILE. Reply: the new
 *            portal.
 *   Authentication: HOST_NQN and HOST_ID replace the system's
 *   (/etc/nvme/hostnqn, hostid) for this portal; the DHCHAP_*_FILE
 *   attributes name root-only files holding DH-HMAC-CHAP secrets
 *   (DHHC-1:..), which only the daemon reads: no secret crosses netlink.
 *   A controller secret needs a host secret (bidirectional).
 * GPUPATH_CMD_PORTAL_SET (admin)
 *   Request: ID or NAME, and any of QOS, CTRL_LOSS_TMO, FAST_IO_FAIL_TMO,
 *   RECONNECT_DELAY, NR_IO_QUEUES, HOST_NQN, HOST_ID (they apply to
 *   connections made from then on), DHCHAP_SECRET_FILE,
 *   DHCHAP_CTRL_SECRET_FILE (the daemon re-authenticates the live
 *   connections with the secrets they name); or CONN nests, which replace the reported connections (the
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
 * GPUPATH_CMD_ROUTE_GET (do)
 *   Request: GPUPATH_A_ROUTE with PROVIDER, TARGET (a block device node, a
 *   gpupath volume among them, or a regular file, which the caller must be
 *   able to open for reading; nothing else is opened) and optional OP
 *   (enum gpupath_io_op, default READ). Reply: REASON, the decision an I/O
 *   of that provider's memory would get (NONE: directly), DEVICE, and where
 *   they apply DMA_DEV, DISTANCE and FABRICS. Nothing moves.
 *
 * GPUPATH_CMD_STACK_SET (admin, CAP_SYS_ADMIN)
 *   Request: GPUPATH_A_STACK with MAJOR, MINOR and DISKSEQ of a
 *   device-mapper disk, KIND (enum gpupath_stack_kind: what its table's
 *   targets do with the data) and optional TARGETS (their types, for the
 *   log). The kernel keeps dm tables to itself; root's gpupathd reads them
 *   and says so for each dm disk, and again when one changes. A word holds
 *   as long as the socket that said it is open. EINVAL: not a device
 *   number, ENODEV: no dm disk has that number, ESTALE: DISKSEQ is not
 *   that disk's (it was removed and the number given again).
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
/* The family's names and numbers, generated from its YNL spec. */
#include <linux/gpupath_nl.h>

/* Name of the control device under /dev. */
#define GPUPATH_DEVICE_NAME		"gpupath"

/* GPUPATH_A_VOLUME_QUEUE_TIMEOUT: I/O waits for a path without end. */
#define GPUPATH_QUEUE_FOREVER		0xffffffffU
/* GPUPATH_A_PORTAL_CTRL_LOSS_TMO: never stop reconnecting. */
#define GPUPATH_TMO_FOREVER		0xffffffff
/* GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO: I/O does not fail early. */
#define GPUPATH_TMO_OFF			0xffffffff

/* Names of counts the generated header spells otherwise. */
#define GPUPATH_CONN_STATE_MAX		GPUPATH_CONN_ADOPTED
#define GPUPATH_PATH_STATE_MAX		GPUPATH_PATH_DRAINING
#define GPUPATH_FEATURE_ALL		((__u64)GPUPATH_FEATURE_MASK)

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
 *
 * The mapping (MAP_SHARED only) is write-combining, as a GPU's BAR is
 * mapped for the CPU: reads are uncached and slow, writes are gathered and
 * may reach the device out of order until a fence (a system call is one),
 * and unaligned accesses work; it is for setting data up and checking it,
 * not for atomics or bulk copies by the CPU. With GPUPATH_FEATURE_USER_DIRECT_IO
 * any program's direct I/O (O_DIRECT, io_uring, libaio) may use it as its
 * buffer, on block devices that take P2PDMA pages (nvme-pci namespaces,
 * gpupath volumes); a page pinned by such an I/O returns to the provider's
 * pool when the I/O drops it, even after GPUPATH_IOC_FREE. Without that
 * feature, direct I/O on the mapping fails with EFAULT.
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
 * @addr: page-aligned start of the caller's memory: anonymous, shmem or
 *	huge page (hugetlbfs) memory; a mapping of any other file gets
 *	-EOPNOTSUPP (a file system would write its pages back behind the pin)
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
 * pages are those of a P2PDMA region over the GPU's BAR: the NVIDIA driver's
 * (its UVM registers one where BAR1 is static and not write-combined), or,
 * only where the administrator set the module parameter nvidia_bar_region,
 * one the module registers (never published, never allocated from) on the
 * first registration on that GPU. Creating that region maps the whole BAR,
 * so it takes CAP_SYS_ADMIN; later registrations do not. Fails with ENODEV
 * when no NVIDIA driver exports that API or the GPU's driver is unbound,
 * ENXIO when the GPU's BAR has no P2PDMA region and nvidia_bar_region is
 * off, EPERM when the region would have to be created by a caller without
 * CAP_SYS_ADMIN, EBUSY while the region goes away, EINVAL on bad alignment,
 * or the NVIDIA driver's error.
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

/* enum gpupath_io_op (GPUPATH_IO_READ, _WRITE) is in linux/gpupath_nl.h. */

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
 *
 * A file holds at most GPUPATH_INFLIGHT_MAX I/Os started and not reaped
 * (GPUPATH_IOC_IO's among them); past that an I/O is not started and the
 * call fails with EAGAIN (or returns the count started before it): reap,
 * then submit again. The kernel memory of I/Os is charged to the caller's
 * memory cgroup.
 */
struct gpupath_submit {
	__u64 ios;
	__u32 count;
	__u32 flags;
};

#define GPUPATH_SUBMIT_MAX	1024
#define GPUPATH_INFLIGHT_MAX	4096

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
