// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names of the protocol's numbers, shared by the CLI, the daemon and the
 * library's users.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libgpupath-admin.h"
#include "internal.h"


/* The build passes kmod/version.h's version: one number for module and tools. */
#ifndef GPUPATH_TOOLS_VERSION
#error "GPUPATH_TOOLS_VERSION is not defined: build with the top-level Makefile"
#endif

const char *gpupath_tools_version(void)
{
	return GPUPATH_TOOLS_VERSION;
}

static const char *const feature_names[] = {
	"p2pdma-built",
	"p2pdma-usable",
	"nvidia-p2p",
	"file-io",
	"user-direct-io",
	"path-removal",
	"path-ana",
	"portal-auth",
};

const char *gpupath_feature_name(uint64_t bit)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(feature_names); i++)
		if (bit == 1ULL << i)
			return feature_names[i];
	return NULL;
}

void gpupath_features_format(uint64_t features, char *buf, size_t size)
{
	const char *sep = "";
	size_t len = 0;
	unsigned int i;

	if (!size)
		return;
	buf[0] = '\0';
	for (i = 0; i < 64 && len < size; i++) {
		uint64_t bit = 1ULL << i;
		const char *name = gpupath_feature_name(bit);

		if (!(features & bit))
			continue;
		if (name)
			len += snprintf(buf + len, size - len, "%s%s", sep, name);
		else
			len += snprintf(buf + len, size - len, "%sbit%u", sep, i);
		sep = " ";
	}
	if (!features)
		snprintf(buf, size, "none");
}

static const struct {
	const char *name;
	const char *text;
} p2pdma_status[] = {
	[GPUPATH_P2PDMA_OK] = {
		"ok", "PCI peer-to-peer DMA is usable",
	},
	[GPUPATH_P2PDMA_NOT_BUILT] = {
		"not-built",
		"this kernel has no PCI P2PDMA (CONFIG_PCI_P2PDMA is off): I/O into device memory bounces through host memory",
	},
};

const char *gpupath_p2pdma_status_name(uint32_t status)
{
	if (status >= ARRAY_SIZE(p2pdma_status))
		return "unknown";
	return p2pdma_status[status].name;
}

const char *gpupath_p2pdma_status_text(uint32_t status)
{
	if (status >= ARRAY_SIZE(p2pdma_status))
		return "unknown status (newer module than these tools?)";
	return p2pdma_status[status].text;
}

static const char *const cmd_names[] = {
	[GPUPATH_CMD_GET_INFO] = "get-info",
	[GPUPATH_CMD_PROVIDER_GET] = "provider-get",
	[GPUPATH_CMD_PROVIDER_NEW] = "provider-new",
	[GPUPATH_CMD_PROVIDER_DEL] = "provider-del",
	[GPUPATH_CMD_VOLUME_GET] = "volume-get",
	[GPUPATH_CMD_VOLUME_NEW] = "volume-new",
	[GPUPATH_CMD_VOLUME_DEL] = "volume-del",
	[GPUPATH_CMD_VOLUME_SET] = "volume-set",
	[GPUPATH_CMD_PATH_GET] = "path-get",
	[GPUPATH_CMD_PATH_NEW] = "path-new",
	[GPUPATH_CMD_PATH_DEL] = "path-del",
	[GPUPATH_CMD_PATH_SET] = "path-set",
	[GPUPATH_CMD_EVENT] = "event",
	[GPUPATH_CMD_PORTAL_GET] = "portal-get",
	[GPUPATH_CMD_PORTAL_NEW] = "portal-new",
	[GPUPATH_CMD_PORTAL_DEL] = "portal-del",
	[GPUPATH_CMD_PORTAL_SET] = "portal-set",
	[GPUPATH_CMD_QOS_GET] = "qos-get",
	[GPUPATH_CMD_QOS_NEW] = "qos-new",
	[GPUPATH_CMD_QOS_DEL] = "qos-del",
	[GPUPATH_CMD_QOS_SET] = "qos-set",
	[GPUPATH_CMD_ROUTE_GET] = "route-get",
	[GPUPATH_CMD_PROVIDER_SET] = "provider-set",
	[GPUPATH_CMD_CGROUP_GET] = "cgroup-get",
	[GPUPATH_CMD_STACK_SET] = "stack-set",
};

const char *gpupath_cmd_name(uint32_t cmd)
{
	if (cmd >= ARRAY_SIZE(cmd_names))
		return NULL;
	return cmd_names[cmd];
}

static const struct {
	const char *name;
	const char *text;
} reasons[] = {
	[GPUPATH_REASON_NONE] = { "none", "served directly" },
	[GPUPATH_REASON_P2PDMA_NOT_BUILT] = {
		"p2pdma-not-built", "this kernel has no PCI P2PDMA (CONFIG_PCI_P2PDMA)",
	},
	[GPUPATH_REASON_NO_P2P_ROUTE] = {
		"no-p2p-route",
		"no P2P route between the device's DMA engine and the memory (no common PCIe switch, host bridge not allowed, or ACS redirect)",
	},
	[GPUPATH_REASON_CPU_COPY] = {
		"cpu-copy", "the transport copies with the CPU (nvme-tcp): there is no DMA to aim",
	},
	[GPUPATH_REASON_VIRTUAL_DMA] = {
		"virtual-dma", "the RDMA device has no PCI DMA engine (soft-RoCE)",
	},
	[GPUPATH_REASON_MULTIPATH_HEAD] = {
		"multipath-head",
		"an nvme native-multipath head: the path is chosen per I/O below gpupath; use the per-path devices or a gpupath volume",
	},
	[GPUPATH_REASON_NO_DMA_DEVICE] = {
		"no-dma-device", "no DMA device found for this block device",
	},
	[GPUPATH_REASON_NO_PEER_MEMORY] = {
		"no-peer-memory", "CUDA memory, and no NVIDIA peer-memory provider serves it",
	},
	[GPUPATH_REASON_DMA_MAP_FAILED] = {
		"dma-map-failed",
		"the controller's driver could not DMA-map the memory when the I/O was sent",
	},
	[GPUPATH_REASON_NO_P2P_QUEUE] = {
		"no-p2p-queue",
		"the block device's driver does not take P2P memory (its queue lacks PCI P2PDMA support)",
	},
	[GPUPATH_REASON_UNKNOWN_MEMORY] = {
		"unknown-memory", "device memory of no provider gpupath knows (removed, or another driver's)",
	},
	[GPUPATH_REASON_FS_UNSUPPORTED] = {
		"fs-unsupported",
		"the file is not on ext4 or XFS (tmpfs, NFS, btrfs, FUSE, ...): its file system's direct I/O is not one gpupath vouches for",
	},
	[GPUPATH_REASON_FILE_DAX] = {
		"file-dax", "the file is in DAX mode: the file system copies its data with the CPU",
	},
	[GPUPATH_REASON_FILE_ENCRYPTED] = {
		"file-encrypted", "the file is encrypted (fscrypt): its data is transformed on the way",
	},
	[GPUPATH_REASON_FILE_VERITY] = {
		"file-verity", "the file has fs-verity: the CPU verifies its data through the page cache",
	},
	[GPUPATH_REASON_FILE_INLINE_DATA] = {
		"file-inline-data", "the file's data is inline in its ext4 inode: no data blocks to DMA",
	},
	[GPUPATH_REASON_FILE_DATA_JOURNAL] = {
		"file-data-journal",
		"ext4 journals the file's data (data=journal or chattr +j): its I/O goes through the page cache",
	},
	[GPUPATH_REASON_FILE_BLOCK_MAPPED] = {
		"file-block-mapped",
		"a write to an ext4 file without extents, which ext4 may finish through the page cache",
	},
	[GPUPATH_REASON_FILE_REALTIME] = {
		"file-realtime", "an XFS realtime file: its data is on the realtime device",
	},
	[GPUPATH_REASON_STACKED_DEVICE] = {
		"stacked-device",
		"the block device is a stacking or memory-backed driver gpupath cannot see through (device mapper, loop, zram, md other than RAID0/1/10 and linear)",
	},
	[GPUPATH_REASON_FILE_MAPPED] = {
		"file-mapped",
		"a write to a file mapped shared and writable, which the file system may finish through the page cache",
	},
	[GPUPATH_REASON_STACKED_TRANSFORM] = {
		"stacked-transform",
		"the block device computes over the data with the CPU on its way to the devices below (md RAID4/5/6 parity, dm-crypt, dm-integrity)",
	},
	[GPUPATH_REASON_NO_GPU_REGION] = {
		"no-gpu-region",
		"CUDA memory of a GPU whose BAR has no P2PDMA region (the NVIDIA driver registers one with static BAR1 not write-combined)",
	},
	[GPUPATH_REASON_IOMMU_BUS_ADDR] = {
		"iommu-bus-addr",
		"the DMA engine's IOMMU translates, and P2P into this memory would go by PCI bus address, past it: that lands only where a PCIe switch routes it to its peer",
	},
};

_Static_assert(__GPUPATH_REASON_MAX <= GPUPATH_REASONS_KNOWN,
	       "struct gpupath_provider has no room for every reason");

static const struct {
	const char *name;
	const char *text;
} lib_reasons[] = {
	[GPUPATH_REASON_NOT_BLOCK_DEVICE - GPUPATH_REASON_NOT_BLOCK_DEVICE] = {
		"not-block-device",
		"a file, not a block device: gpupath reads namespaces and its volumes, files go through the file system and host memory",
	},
	[GPUPATH_REASON_UNALIGNED - GPUPATH_REASON_NOT_BLOCK_DEVICE] = {
		"unaligned", "offsets or length not in logical blocks of the device",
	},
	[GPUPATH_REASON_NO_MODULE - GPUPATH_REASON_NOT_BLOCK_DEVICE] = {
		"no-module", "the gpupath module is not loaded (" GPUPATH_DEV_PATH " cannot be opened)",
	},
	[GPUPATH_REASON_PIN_DENIED - GPUPATH_REASON_NOT_BLOCK_DEVICE] = {
		"pin-denied",
		"the GPU's P2PDMA region would have to be created by this registration, which needs CAP_SYS_ADMIN (EPERM)",
	},
	[GPUPATH_REASON_PIN_BUSY - GPUPATH_REASON_NOT_BLOCK_DEVICE] = {
		"pin-busy",
		"the GPU's P2PDMA region is going away, or the memory type of its BAR conflicts with a mapping the driver made (EBUSY)",
	},
	[GPUPATH_REASON_PIN_UNSUPPORTED - GPUPATH_REASON_NOT_BLOCK_DEVICE] = {
		"pin-unsupported",
		"NVIDIA's driver will not pin this memory for peers (ENOTSUPP): managed or VMM memory without RDMA support, or a driver mode that forbids it",
	},
	[GPUPATH_REASON_PIN_NO_SPACE - GPUPATH_REASON_NOT_BLOCK_DEVICE] = {
		"pin-no-space",
		"no room to pin the memory: the GPU's BAR1 is full, or memory ran out (ENOMEM)",
	},
	[GPUPATH_REASON_PIN_FAILED - GPUPATH_REASON_NOT_BLOCK_DEVICE] = {
		"pin-failed",
		"pinning the memory for peers failed (set GPUPATH_DEBUG=1 for the error)",
	},
};

static const char *reason_str(uint32_t reason, bool text)
{
	uint32_t lib = reason - GPUPATH_REASON_NOT_BLOCK_DEVICE;

	if (reason < ARRAY_SIZE(reasons))
		return text ? reasons[reason].text : reasons[reason].name;
	if (reason >= GPUPATH_REASON_NOT_BLOCK_DEVICE && lib < ARRAY_SIZE(lib_reasons))
		return text ? lib_reasons[lib].text : lib_reasons[lib].name;
	return text ? "unknown reason (newer module than these tools?)" : "unknown";
}

const char *gpupath_reason_name(uint32_t reason)
{
	return reason_str(reason, false);
}

const char *gpupath_reason_text(uint32_t reason)
{
	return reason_str(reason, true);
}

const char *gpupath_provider_type_name(uint32_t type)
{
	switch (type) {
	case GPUPATH_PROVIDER_P2PDMA:
		return "p2pdma";
	case GPUPATH_PROVIDER_NVIDIA:
		return "nvidia";
	default:
		return "unknown";
	}
}

const char *gpupath_mode_name(uint32_t mode)
{
	switch (mode) {
	case GPUPATH_MODE_DIRECT:
		return "direct";
	case GPUPATH_MODE_HOST:
		return "host";
	case GPUPATH_MODE_BOUNCE:
		return "bounce";
	default:
		return "none";
	}
}

/* Tables of names indexed by value, with holes. */
static const char *table_name(const char *const *names, size_t n, uint32_t v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

static int table_parse(const char *const *names, size_t n, const char *name, uint32_t *v)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(names[i], name)) {
			*v = i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const policy_names[] = {
	[GPUPATH_POLICY_ROUND_ROBIN] = "round-robin",
	[GPUPATH_POLICY_QUEUE_DEPTH] = "queue-depth",
	[GPUPATH_POLICY_SERVICE_TIME] = "service-time",
	[GPUPATH_POLICY_WEIGHTED] = "weighted",
	[GPUPATH_POLICY_GPU_AFFINITY] = "gpu-affinity",
};

const char *gpupath_policy_name(uint32_t policy)
{
	return table_name(policy_names, ARRAY_SIZE(policy_names), policy);
}

int gpupath_policy_parse(const char *name, uint32_t *policy)
{
	return table_parse(policy_names, ARRAY_SIZE(policy_names), name, policy);
}

static const char *const volume_mode_names[] = {
	[GPUPATH_VOLUME_MANAGED] = "managed",
	[GPUPATH_VOLUME_NATIVE] = "native",
	[GPUPATH_VOLUME_EMPTY] = "empty",
};

const char *gpupath_volume_mode_name(uint32_t mode)
{
	return table_name(volume_mode_names, ARRAY_SIZE(volume_mode_names), mode);
}

static const char *const path_state_names[] = {
	[GPUPATH_PATH_UP] = "up",
	[GPUPATH_PATH_DOWN] = "down",
	[GPUPATH_PATH_DRAINING] = "draining",
};

const char *gpupath_path_state_name(uint32_t state)
{
	return table_name(path_state_names, ARRAY_SIZE(path_state_names), state);
}

int gpupath_path_state_parse(const char *name, uint32_t *state)
{
	return table_parse(path_state_names, ARRAY_SIZE(path_state_names), name, state);
}

static const char *const path_link_names[] = {
	[GPUPATH_LINK_UNKNOWN] = "unknown",
	[GPUPATH_LINK_UP] = "up",
	[GPUPATH_LINK_DOWN] = "down",
};

const char *gpupath_path_link_name(uint32_t link)
{
	return table_name(path_link_names, ARRAY_SIZE(path_link_names), link);
}

int gpupath_path_link_parse(const char *name, uint32_t *link)
{
	return table_parse(path_link_names, ARRAY_SIZE(path_link_names), name, link);
}

static const char *const ana_state_names[] = {
	[GPUPATH_ANA_UNKNOWN] = "unknown",
	[GPUPATH_ANA_OPTIMIZED] = "optimized",
	[GPUPATH_ANA_NON_OPTIMIZED] = "non-optimized",
	[GPUPATH_ANA_INACCESSIBLE] = "inaccessible",
	[GPUPATH_ANA_PERSISTENT_LOSS] = "persistent-loss",
	[GPUPATH_ANA_CHANGE] = "change",
};

const char *gpupath_ana_state_name(uint32_t ana)
{
	return table_name(ana_state_names, ARRAY_SIZE(ana_state_names), ana);
}

int gpupath_ana_state_parse(const char *name, uint32_t *ana)
{
	return table_parse(ana_state_names, ARRAY_SIZE(ana_state_names), name, ana);
}

static const char *const portal_discover_names[] = {
	[GPUPATH_DISCOVER_ADDRESS] = "address",
	[GPUPATH_DISCOVER_MDNS] = "mdns",
};

const char *gpupath_portal_discover_name(uint32_t discover)
{
	return table_name(portal_discover_names, ARRAY_SIZE(portal_discover_names), discover);
}

int gpupath_portal_discover_parse(const char *name, uint32_t *discover)
{
	return table_parse(portal_discover_names, ARRAY_SIZE(portal_discover_names), name,
			   discover);
}

static const char *const transport_names[] = {
	[GPUPATH_TRANSPORT_RDMA] = "rdma",
	[GPUPATH_TRANSPORT_TCP] = "tcp",
};

const char *gpupath_transport_name(uint32_t transport)
{
	return table_name(transport_names, ARRAY_SIZE(transport_names), transport);
}

int gpupath_transport_parse(const char *name, uint32_t *transport)
{
	return table_parse(transport_names, ARRAY_SIZE(transport_names), name, transport);
}

static const char *const applied_names[] = {
	[GPUPATH_APPLIED_OK] = "applied",
	[GPUPATH_APPLIED_UNSUPPORTED] = "unsupported",
	[GPUPATH_APPLIED_FAILED] = "failed",
};

const char *gpupath_applied_name(uint32_t result)
{
	return table_name(applied_names, ARRAY_SIZE(applied_names), result);
}

static const char *const conn_state_names[] = {
	[GPUPATH_CONN_CONNECTING] = "connecting",
	[GPUPATH_CONN_LIVE] = "live",
	[GPUPATH_CONN_RECONNECTING] = "reconnecting",
	[GPUPATH_CONN_BACKOFF] = "backoff",
	[GPUPATH_CONN_ADOPTED] = "adopted",
};

const char *gpupath_conn_state_name(uint32_t state)
{
	return table_name(conn_state_names, ARRAY_SIZE(conn_state_names), state);
}

static const char *const path_health_names[] = {
	[GPUPATH_HEALTH_LIVE] = "live",
	[GPUPATH_HEALTH_FAILED] = "failed",
	[GPUPATH_HEALTH_GONE] = "gone",
};

const char *gpupath_path_health_name(uint32_t health)
{
	return table_name(path_health_names, ARRAY_SIZE(path_health_names), health);
}

static const char *const event_names[] = {
	[GPUPATH_EVENT_PATH_FAILED] = "path-failed",
	[GPUPATH_EVENT_PATH_GONE] = "path-gone",
	[GPUPATH_EVENT_FAILBACK] = "failback",
	[GPUPATH_EVENT_FAILOVER] = "failover",
	[GPUPATH_EVENT_NO_PATH] = "no-path",
	[GPUPATH_EVENT_IO_ERROR] = "io-error",
};

const char *gpupath_event_name(uint32_t type)
{
	return table_name(event_names, ARRAY_SIZE(event_names), type);
}
