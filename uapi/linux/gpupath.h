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
 * namespace's user namespace; reading needs no privilege.
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

	__GPUPATH_CMD_MAX,
	GPUPATH_CMD_MAX = __GPUPATH_CMD_MAX - 1
};

/* Top-level attributes: one nest per object. */
enum gpupath_a {
	GPUPATH_A_UNSPEC,
	GPUPATH_A_INFO,		/* nest, GPUPATH_A_INFO_* */
	GPUPATH_A_PROVIDER,	/* nest, GPUPATH_A_PROVIDER_* */

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
 * @GPUPATH_FEATURE_ALL: every bit defined so far.
 */
enum gpupath_feature {
	GPUPATH_FEATURE_P2PDMA_BUILT	= 1ULL << 0,
	GPUPATH_FEATURE_P2PDMA_USABLE	= 1ULL << 1,
	GPUPATH_FEATURE_NVIDIA_P2P	= 1ULL << 2,

	GPUPATH_FEATURE_ALL		= (1ULL << 3) - 1,
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
 * pages are those of a P2PDMA region over the GPU's BAR. Fails with ENODEV
 * when no NVIDIA driver exports that API, EINVAL on bad alignment, or the
 * NVIDIA driver's error. If the memory is freed in CUDA while registered,
 * later I/O on the buffer fails with ENODEV.
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
 * @dev_offset: byte offset on the block device
 * @len: bytes; offsets and length must be multiples of the device's
 *	logical block size, and the range must lie within buffer and device
 * @fd: an open block device; read needs it open for reading, write for
 *	writing
 * @op: enum gpupath_io_op
 * @flags: none defined, must be 0
 * @mode: out, enum gpupath_io_mode
 * @reason: out, enum gpupath_reason
 * @pad: must be 0
 * @user_data: GPUPATH_IOC_SUBMIT: returned in the I/O's completion
 *
 * Returns 0 when done. When device memory cannot be reached directly the
 * ioctl fails with EXDEV and fills @reason; nothing was transferred and the
 * caller may bounce through host memory. Other errors are the usual ones:
 * EINVAL (alignment, range, flags), EBADF (fd not open for the direction),
 * ENOTBLK (fd not a block device), ENOENT (no such handle), EIO.
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
 * @len: bytes the I/O covered
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
