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
#include "names-gen.h"

/* The build passes kmod/version.h's version: one number for module and tools. */
#ifndef GPUPATH_TOOLS_VERSION
#error "GPUPATH_TOOLS_VERSION is not defined: build with the top-level Makefile"
#endif

const char *gpupath_tools_version(void)
{
	return GPUPATH_TOOLS_VERSION;
}

/* The spec's tables of names indexed by value, with holes. */
#define NAMES(t) gpupath_names_##t, ARRAY_SIZE(gpupath_names_##t)

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

const char *gpupath_feature_name(uint64_t bit)
{
	unsigned int i;

	for (i = 0; i < GPUPATH_NAMES_FEATURE_N; i++)
		if (bit == 1ULL << i)
			return gpupath_names_feature[i];
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

/* What the tools say of each value, beside the spec's names of them. */
static const char *const p2pdma_status_texts[GPUPATH_NAMES_P2PDMA_STATUS_N] = {
	[GPUPATH_P2PDMA_OK] = "PCI peer-to-peer DMA is usable",
	[GPUPATH_P2PDMA_NOT_BUILT] =
		"this kernel has no PCI P2PDMA (CONFIG_PCI_P2PDMA is off): I/O into device memory bounces through host memory",
};

const char *gpupath_p2pdma_status_name(uint32_t status)
{
	if (status >= GPUPATH_NAMES_P2PDMA_STATUS_N)
		return "unknown";
	return gpupath_names_p2pdma_status[status];
}

const char *gpupath_p2pdma_status_text(uint32_t status)
{
	if (status >= GPUPATH_NAMES_P2PDMA_STATUS_N)
		return "unknown status (newer module than these tools?)";
	return p2pdma_status_texts[status];
}

const char *gpupath_cmd_name(uint32_t cmd)
{
	/* (0, the spec's "unspec", is no command) */
	if (!cmd || cmd >= GPUPATH_NAMES_CMD_N)
		return NULL;
	return gpupath_names_cmd[cmd];
}

static const char *const reason_texts[GPUPATH_NAMES_REASON_N] = {
	[GPUPATH_REASON_NONE] = "served directly",
	[GPUPATH_REASON_P2PDMA_NOT_BUILT] = "this kernel has no PCI P2PDMA (CONFIG_PCI_P2PDMA)",
	[GPUPATH_REASON_NO_P2P_ROUTE] =
		"no P2P route between the device's DMA engine and the memory (no common PCIe switch, host bridge not allowed, or ACS redirect)",
	[GPUPATH_REASON_CPU_COPY] =
		"the transport copies with the CPU (nvme-tcp): there is no DMA to aim",
	[GPUPATH_REASON_VIRTUAL_DMA] = "the RDMA device has no PCI DMA engine (soft-RoCE)",
	[GPUPATH_REASON_MULTIPATH_HEAD] =
		"an nvme native-multipath head: the path is chosen per I/O below gpupath; use the per-path devices or a gpupath volume",
	[GPUPATH_REASON_NO_DMA_DEVICE] = "no DMA device found for this block device",
	[GPUPATH_REASON_NO_PEER_MEMORY] =
		"CUDA memory, and no NVIDIA peer-memory provider serves it",
	[GPUPATH_REASON_DMA_MAP_FAILED] =
		"the controller's driver could not DMA-map the memory when the I/O was sent",
	[GPUPATH_REASON_NO_P2P_QUEUE] =
		"the block device's driver does not take P2P memory (its queue lacks PCI P2PDMA support)",
	[GPUPATH_REASON_UNKNOWN_MEMORY] =
		"device memory of no provider gpupath knows (removed, or another driver's)",
	[GPUPATH_REASON_FS_UNSUPPORTED] =
		"the file is not on ext4 or XFS (tmpfs, NFS, btrfs, FUSE, ...): its file system's direct I/O is not one gpupath vouches for",
	[GPUPATH_REASON_FILE_DAX] =
		"the file is in DAX mode: the file system copies its data with the CPU",
	[GPUPATH_REASON_FILE_ENCRYPTED] =
		"the file is encrypted (fscrypt): its data is transformed on the way",
	[GPUPATH_REASON_FILE_VERITY] =
		"the file has fs-verity: the CPU verifies its data through the page cache",
	[GPUPATH_REASON_FILE_INLINE_DATA] =
		"the file's data is inline in its ext4 inode: no data blocks to DMA",
	[GPUPATH_REASON_FILE_DATA_JOURNAL] =
		"ext4 journals the file's data (data=journal or chattr +j): its I/O goes through the page cache",
	[GPUPATH_REASON_FILE_BLOCK_MAPPED] =
		"a write to an ext4 file without extents, which ext4 may finish through the page cache",
	[GPUPATH_REASON_FILE_REALTIME] = "an XFS realtime file: its data is on the realtime device",
	[GPUPATH_REASON_STACKED_DEVICE] =
		"the block device is a stacking or memory-backed driver gpupath cannot see through (device mapper, loop, zram, md other than RAID0/1/10 and linear)",
	[GPUPATH_REASON_FILE_MAPPED] =
		"a write to a file mapped shared and writable, which the file system may finish through the page cache",
	[GPUPATH_REASON_STACKED_TRANSFORM] =
		"the block device computes over the data with the CPU on its way to the devices below (md RAID4/5/6 parity, dm-crypt, dm-integrity)",
	[GPUPATH_REASON_NO_GPU_REGION] =
		"CUDA memory of a GPU whose BAR has no P2PDMA region (the NVIDIA driver registers one with static BAR1 not write-combined)",
	[GPUPATH_REASON_IOMMU_BUS_ADDR] =
		"the DMA engine's IOMMU translates, and P2P into this memory would go by PCI bus address, past it: that lands only where a PCIe switch routes it to its peer",
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

	if (reason < GPUPATH_NAMES_REASON_N)
		return text ? reason_texts[reason] : gpupath_names_reason[reason];
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
	/* (0, the spec's "unspec", is no type) */
	return type ? table_name(NAMES(provider_type), type) : "unknown";
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

const char *gpupath_policy_name(uint32_t policy)
{
	return table_name(NAMES(policy), policy);
}

int gpupath_policy_parse(const char *name, uint32_t *policy)
{
	return table_parse(NAMES(policy), name, policy);
}

const char *gpupath_volume_mode_name(uint32_t mode)
{
	return table_name(NAMES(volume_mode), mode);
}

const char *gpupath_path_state_name(uint32_t state)
{
	return table_name(NAMES(path_state), state);
}

int gpupath_path_state_parse(const char *name, uint32_t *state)
{
	return table_parse(NAMES(path_state), name, state);
}

const char *gpupath_path_link_name(uint32_t link)
{
	return table_name(NAMES(path_link), link);
}

int gpupath_path_link_parse(const char *name, uint32_t *link)
{
	return table_parse(NAMES(path_link), name, link);
}

const char *gpupath_ana_state_name(uint32_t ana)
{
	return table_name(NAMES(ana_state), ana);
}

int gpupath_ana_state_parse(const char *name, uint32_t *ana)
{
	return table_parse(NAMES(ana_state), name, ana);
}

const char *gpupath_portal_discover_name(uint32_t discover)
{
	return table_name(NAMES(portal_discover), discover);
}

int gpupath_portal_discover_parse(const char *name, uint32_t *discover)
{
	return table_parse(NAMES(portal_discover), name,
			   discover);
}

const char *gpupath_transport_name(uint32_t transport)
{
	return table_name(NAMES(transport), transport);
}

int gpupath_transport_parse(const char *name, uint32_t *transport)
{
	return table_parse(NAMES(transport), name, transport);
}

const char *gpupath_applied_name(uint32_t result)
{
	/* (the spec's "ok" has always read "applied" in listings and metrics) */
	if (result == GPUPATH_APPLIED_OK)
		return "applied";
	return table_name(NAMES(applied), result);
}

const char *gpupath_conn_state_name(uint32_t state)
{
	return table_name(NAMES(conn_state), state);
}

const char *gpupath_path_health_name(uint32_t health)
{
	return table_name(NAMES(path_health), health);
}

const char *gpupath_event_name(uint32_t type)
{
	return table_name(NAMES(event), type);
}
