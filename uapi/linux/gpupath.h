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

	__GPUPATH_CMD_MAX,
	GPUPATH_CMD_MAX = __GPUPATH_CMD_MAX - 1
};

/* Top-level attributes: one nest per object. */
enum gpupath_a {
	GPUPATH_A_UNSPEC,
	GPUPATH_A_INFO,		/* nest, GPUPATH_A_INFO_* */

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

#define GPUPATH_IOC_MAGIC		0xB9
#define GPUPATH_IOC_VERSION		_IOR(GPUPATH_IOC_MAGIC, 0x00, struct gpupath_version)

#endif /* _UAPI_LINUX_GPUPATH_H */
