// SPDX-License-Identifier: GPL-2.0
/*
 * The module's own fault injection, for tests, in debugfs when the kernel
 * has CONFIG_FAULT_INJECTION_DEBUG_FS:
 *
 *   /sys/kernel/debug/gpupath/fail_p2p_route/
 *	probability, interval, times, space, verbose, task-filter, ... as
 *	every fault_attr (Documentation/fault-injection/fault-injection.rst)
 *
 * fail_p2p_route: when it fires, the P2P route check answers "reachable"
 * for a DMA engine that pci_p2pdma_distance() refuses, so device memory is
 * sent to a controller that cannot reach it and the controller's driver
 * fails to DMA-map it at I/O time. That is the one failure of the data path
 * that the kernel's generic injection (failslab, fail_page_alloc,
 * fail_make_request) cannot reach: the mapping is done by the NVMe driver.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>

#include "fault.h"

static DECLARE_FAULT_ATTR(fail_p2p_route);
static struct dentry *fault_dir;

/**
 * gpupath_fault_init() - the knobs in debugfs (none when debugfs fails)
 */
void gpupath_fault_init(void)
{
	fault_dir = debugfs_create_dir("gpupath", NULL);
	fault_create_debugfs_attr("fail_p2p_route", fault_dir, &fail_p2p_route);
}

/**
 * gpupath_fault_uninit() - the knobs gone
 */
void gpupath_fault_uninit(void)
{
	debugfs_remove_recursive(fault_dir);
	fault_dir = NULL;
}

/**
 * gpupath_fault_p2p_route() - whether to let a refused P2P route through
 *
 * Return: true when fail_p2p_route fires.
 */
bool gpupath_fault_p2p_route(void)
{
	return should_fail(&fail_p2p_route, 1);
}
