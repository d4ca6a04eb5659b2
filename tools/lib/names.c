// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names of the protocol's numbers, shared by the CLI, the daemon and the
 * library's users.
 */
#include <stdio.h>

#include "libgpupath.h"
#include "../../kmod/version.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *gpupath_tools_version(void)
{
	return GPUPATH_VERSION;
}

static const char *const feature_names[] = {
	"p2pdma-built",
	"p2pdma-usable",
	"nvidia-p2p",
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
};

_Static_assert(__GPUPATH_REASON_MAX <= GPUPATH_REASONS_KNOWN,
	       "struct gpupath_provider has no room for every reason");

const char *gpupath_reason_name(uint32_t reason)
{
	if (reason >= ARRAY_SIZE(reasons))
		return "unknown";
	return reasons[reason].name;
}

const char *gpupath_reason_text(uint32_t reason)
{
	if (reason >= ARRAY_SIZE(reasons))
		return "unknown reason (newer module than these tools?)";
	return reasons[reason].text;
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
