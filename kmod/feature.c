// SPDX-License-Identifier: GPL-2.0
/*
 * What the loaded module can do on this kernel, as reported by GET_INFO and
 * GPUPATH_IOC_VERSION.
 */
#include <linux/module.h>

#include "feature.h"
#include "nvidia.h"

/**
 * gpupath_feature_p2pdma_status() - whether P2PDMA can be used, and if not why
 *
 * Return: %GPUPATH_P2PDMA_OK or the reason P2PDMA is unusable.
 */
enum gpupath_p2pdma_status gpupath_feature_p2pdma_status(void)
{
	if (!IS_ENABLED(CONFIG_PCI_P2PDMA))
		return GPUPATH_P2PDMA_NOT_BUILT;
	return GPUPATH_P2PDMA_OK;
}

/**
 * gpupath_feature_p2pdma_str() - name of a P2PDMA status for log messages
 * @status: the status
 *
 * Return: a static string.
 */
const char *gpupath_feature_p2pdma_str(enum gpupath_p2pdma_status status)
{
	switch (status) {
	case GPUPATH_P2PDMA_OK:
		return "usable";
	case GPUPATH_P2PDMA_NOT_BUILT:
		return "not in this kernel (CONFIG_PCI_P2PDMA is off)";
	default:
		return "unknown";
	}
}

/**
 * gpupath_feature_mask() - the GPUPATH_FEATURE_* bits that hold right now
 *
 * Return: a mask within %GPUPATH_FEATURE_ALL.
 */
u64 gpupath_feature_mask(void)
{
	u64 mask = GPUPATH_FEATURE_FILE_IO | GPUPATH_FEATURE_PATH_ANA |
		   GPUPATH_FEATURE_PORTAL_AUTH;

	if (IS_ENABLED(CONFIG_PCI_P2PDMA))
		mask |= GPUPATH_FEATURE_P2PDMA_BUILT;
	if (gpupath_feature_p2pdma_status() == GPUPATH_P2PDMA_OK)
		mask |= GPUPATH_FEATURE_P2PDMA_USABLE;
	if (gpupath_nvidia_present())
		mask |= GPUPATH_FEATURE_NVIDIA_P2P;
	if (IS_ENABLED(CONFIG_PCI_P2PDMA) && GPUPATH_COMPAT_P2P_USER_DIO)
		mask |= GPUPATH_FEATURE_USER_DIRECT_IO;
	if (GPUPATH_COMPAT_BDEV_DEAD)
		mask |= GPUPATH_FEATURE_PATH_REMOVAL;
	return mask;
}
