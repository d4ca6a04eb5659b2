/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CUDA driver API for the test programs, opened at run time as
 * libgpupath-cuda opens it: NVIDIA's libcuda.so.1 on a GPU machine, the
 * project's double (selftests/cuda/libcuda.c) elsewhere. cu_open() makes
 * the first device's primary context current, or exits 4 (skip).
 */
#ifndef GPUPATH_SELFTEST_CU_H
#define GPUPATH_SELFTEST_CU_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda-driver.h"

static struct {
	gpcu_mem_alloc_fn alloc;
	gpcu_mem_free_fn free;
	gpcu_memcpy_dtoh_fn dtoh;
	gpcu_memcpy_htod_fn htod;
	gpcu_driver_get_version_fn version;
	gpcu_stream_create_fn stream_create;
	gpcu_stream_destroy_fn stream_destroy;
	gpcu_stream_sync_fn stream_sync;
	gpcu_stream_query_fn stream_query;
	gpcu_launch_host_func_fn launch_host_func;
	gpcu_memcpy_dtoh_async_fn dtoh_async;
	gpcu_ctx_set_current_fn set_current;
	gpcu_mem_alloc_async_fn alloc_async;	/* optional */
	gpcu_context ctx;
} cu;

static inline void *cu_sym(void *lib, const char *name)
{
	void *f = dlsym(lib, name);

	if (!f) {
		printf("SKIP: %s has no %s\n", GPCU_LIBRARY, name);
		exit(4);
	}
	return f;
}

static inline void cu_open(void)
{
	void *lib = dlopen(GPCU_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	gpcu_primary_ctx_retain_fn retain;
	gpcu_ctx_set_current_fn set;
	gpcu_device_get_fn get;
	gpcu_init_fn init;
	gpcu_device dev;
	int r;

	if (!lib) {
		printf("SKIP: no CUDA driver (%s)\n", dlerror());
		exit(4);
	}
	init = (gpcu_init_fn)cu_sym(lib, "cuInit");
	get = (gpcu_device_get_fn)cu_sym(lib, "cuDeviceGet");
	retain = (gpcu_primary_ctx_retain_fn)cu_sym(lib, "cuDevicePrimaryCtxRetain");
	set = (gpcu_ctx_set_current_fn)cu_sym(lib, "cuCtxSetCurrent");
	cu.alloc = (gpcu_mem_alloc_fn)cu_sym(lib, "cuMemAlloc_v2");
	cu.free = (gpcu_mem_free_fn)cu_sym(lib, "cuMemFree_v2");
	cu.dtoh = (gpcu_memcpy_dtoh_fn)cu_sym(lib, "cuMemcpyDtoH_v2");
	cu.htod = (gpcu_memcpy_htod_fn)cu_sym(lib, "cuMemcpyHtoD_v2");
	cu.version = (gpcu_driver_get_version_fn)cu_sym(lib, "cuDriverGetVersion");
	cu.stream_create = (gpcu_stream_create_fn)cu_sym(lib, "cuStreamCreate");
	cu.stream_destroy = (gpcu_stream_destroy_fn)cu_sym(lib, "cuStreamDestroy_v2");
	cu.stream_sync = (gpcu_stream_sync_fn)cu_sym(lib, "cuStreamSynchronize");
	cu.stream_query = (gpcu_stream_query_fn)cu_sym(lib, "cuStreamQuery");
	cu.launch_host_func = (gpcu_launch_host_func_fn)cu_sym(lib, "cuLaunchHostFunc");
	cu.dtoh_async = (gpcu_memcpy_dtoh_async_fn)cu_sym(lib, "cuMemcpyDtoHAsync_v2");
	cu.alloc_async = (gpcu_mem_alloc_async_fn)dlsym(lib, "cuMemAllocAsync");
	cu.set_current = set;
	r = init(0);
	if (r) {
		printf("SKIP: no CUDA device (cuInit: %d)\n", r);
		exit(4);
	}
	r = get(&dev, 0);
	if (!r)
		r = retain(&cu.ctx, dev);
	if (!r)
		r = set(cu.ctx);
	if (r) {
		printf("FAIL: CUDA device 0's context: %d\n", r);
		exit(1);
	}
}

/* @n bytes of device memory, or exit 1. */
static inline void *cu_alloc(size_t n)
{
	gpcu_deviceptr p;
	int r = cu.alloc(&p, n);

	if (r) {
		printf("FAIL: cuMemAlloc(%zu): %d\n", n, r);
		exit(1);
	}
	return (void *)(uintptr_t)p;
}

#endif /* GPUPATH_SELFTEST_CU_H */
