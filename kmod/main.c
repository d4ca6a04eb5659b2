// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath: NVMe and NVMe-oF namespaces read straight into device memory.
 */
#include <linux/genetlink.h>
#include <linux/module.h>
#include <linux/utsname.h>
#include <net/genetlink.h>

#include "device.h"
#include "fault.h"
#include "feature.h"
#include "netlink.h"
#include "portal.h"
#include "provider.h"
#include "route.h"
#include "stack.h"
#include "tenant.h"
#include "version.h"
#include "volume.h"

static int __init gpupath_init(void)
{
	int ret;

	ret = gpupath_device_init();
	if (ret)
		return ret;

	ret = gpupath_provider_init();
	if (ret)
		goto err_device;

	ret = gpupath_volume_init();
	if (ret)
		goto err_provider;

	gpupath_fault_init();
	ret = gpupath_stack_init();
	if (ret)
		goto err_fault;
	/* Last: requests may come in from here on. */
	ret = gpupath_genl_init();
	if (ret)
		goto err_stack;

	pr_info("gpupath " GPUPATH_VERSION " loaded, P2PDMA %s\n",
		gpupath_feature_p2pdma_str(gpupath_feature_p2pdma_status()));
	if (GPUPATH_COMPAT_AFTER_TESTED)
		pr_warn("gpupath: Linux %s is newer than the last series gpupath is tested on (%s): built on request, untested\n",
			init_utsname()->release, GPUPATH_KERNEL_TESTED_TEXT);
	return 0;

err_stack:
	gpupath_stack_exit();
err_fault:
	gpupath_fault_uninit();
	gpupath_portal_uninit();
	gpupath_volume_uninit();
err_provider:
	gpupath_provider_uninit();
err_device:
	gpupath_device_uninit();
	return ret;
}

static void __exit gpupath_exit(void)
{
	/* First: no request comes in while the objects go. */
	gpupath_genl_uninit();
	gpupath_stack_exit();
	gpupath_fault_uninit();
	gpupath_portal_uninit();
	gpupath_volume_uninit();
	gpupath_provider_uninit();
	gpupath_device_uninit();
	/* Every request is freed: io_wq went with the device. */
	gpupath_tenant_exit();
	gpupath_route_exit();
}

module_init(gpupath_init);
module_exit(gpupath_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("NVMe and NVMe-oF straight into GPU memory with PCI P2PDMA");
MODULE_AUTHOR("The gpupath authors");
MODULE_VERSION(GPUPATH_VERSION);
MODULE_ALIAS_GENL_FAMILY(GPUPATH_GENL_NAME);
