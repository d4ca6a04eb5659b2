/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The part of the CUDA driver API (libcuda.so.1, shipped with NVIDIA's
 * driver) that gpupath calls, declared here so that nothing of gpupath
 * needs CUDA to build: the library is opened at run time, as KvikIO and
 * PyTorch open it. Names carry a gpcu_/GPCU_ prefix in place of NVIDIA's
 * cu/CU; the values and types are NVIDIA's ABI, unchanged since CUDA 7
 * (the *_v2 entry points since 4.0), and selftests/unit/cuda-abi-check.c
 * compares them with cuda.h where CUDA is installed.
 *
 * Also the interface of the project's test double of that library
 * (selftests/cuda/libcuda.c).
 */
#ifndef GPUPATH_CUDA_DRIVER_H
#define GPUPATH_CUDA_DRIVER_H

#include <stddef.h>

/* The soname the driver installs, and the one the test double has. */
#define GPCU_LIBRARY			"libcuda.so.1"

typedef unsigned int gpcu_result;		/* CUresult: an enum, unsigned int in the ABI */
typedef unsigned long long gpcu_deviceptr;	/* CUdeviceptr (_v2) */
typedef int gpcu_device;			/* CUdevice */
typedef struct CUctx_st *gpcu_context;	/* CUcontext (NVIDIA's struct name) */
/* CUstream: NVIDIA's struct name, as cufile.h declares it too. */
typedef struct CUstream_st *gpcu_stream;

/* CUresult values gpupath tells apart. */
#define GPCU_SUCCESS			0
#define GPCU_ERROR_INVALID_VALUE	1
#define GPCU_ERROR_OUT_OF_MEMORY	2
#define GPCU_ERROR_NOT_INITIALIZED	3
#define GPCU_ERROR_NO_DEVICE		100
#define GPCU_ERROR_INVALID_DEVICE	101
#define GPCU_ERROR_INVALID_CONTEXT	201
#define GPCU_ERROR_CONTEXT_IS_DESTROYED	709
#define GPCU_ERROR_INVALID_HANDLE	400
#define GPCU_ERROR_NOT_READY		600
#define GPCU_ERROR_NOT_PERMITTED	800

/* Special CUstream handles, and cuStreamCreate's flag */
#define GPCU_STREAM_LEGACY		((gpcu_stream)0x1)
#define GPCU_STREAM_PER_THREAD		((gpcu_stream)0x2)
#define GPCU_STREAM_NON_BLOCKING	0x1

/* CUpointer_attribute */
#define GPCU_POINTER_ATTRIBUTE_CONTEXT		1
#define GPCU_POINTER_ATTRIBUTE_MEMORY_TYPE	2
#define GPCU_POINTER_ATTRIBUTE_BUFFER_ID	7
#define GPCU_POINTER_ATTRIBUTE_IS_MANAGED	8
#define GPCU_POINTER_ATTRIBUTE_DEVICE_ORDINAL	9
#define GPCU_POINTER_ATTRIBUTE_RANGE_START_ADDR	11
#define GPCU_POINTER_ATTRIBUTE_RANGE_SIZE	12

/* CUmemorytype */
#define GPCU_MEMORYTYPE_HOST		1
#define GPCU_MEMORYTYPE_DEVICE		2

/* The entry points, by the name each has in libcuda.so.1. */
typedef gpcu_result (*gpcu_init_fn)(unsigned int flags);			/* cuInit */
typedef gpcu_result (*gpcu_pointer_get_attributes_fn)(unsigned int n, unsigned int *attrs,
						      void **data, gpcu_deviceptr ptr);
										/* cuPointerGetAttributes */
typedef gpcu_result (*gpcu_ctx_push_fn)(gpcu_context ctx);		/* cuCtxPushCurrent_v2 */
typedef gpcu_result (*gpcu_ctx_pop_fn)(gpcu_context *ctx);		/* cuCtxPopCurrent_v2 */
typedef gpcu_result (*gpcu_memcpy_dtoh_fn)(void *dst, gpcu_deviceptr src, size_t n);
										/* cuMemcpyDtoH_v2 */
typedef gpcu_result (*gpcu_memcpy_htod_fn)(gpcu_deviceptr dst, const void *src, size_t n);
										/* cuMemcpyHtoD_v2 */
typedef gpcu_result (*gpcu_stream_sync_fn)(gpcu_stream stream);		/* cuStreamSynchronize */
typedef gpcu_result (*gpcu_stream_create_fn)(gpcu_stream *stream, unsigned int flags);
										/* cuStreamCreate */
typedef gpcu_result (*gpcu_stream_destroy_fn)(gpcu_stream stream);	/* cuStreamDestroy_v2 */
typedef gpcu_result (*gpcu_memcpy_dtoh_async_fn)(void *dst, gpcu_deviceptr src, size_t n,
						 gpcu_stream stream);	/* cuMemcpyDtoHAsync_v2 */
typedef gpcu_result (*gpcu_memcpy_htod_async_fn)(gpcu_deviceptr dst, const void *src, size_t n,
						 gpcu_stream stream);	/* cuMemcpyHtoDAsync_v2 */
typedef void (*gpcu_host_fn)(void *data);				/* CUhostFn */
typedef gpcu_result (*gpcu_launch_host_func_fn)(gpcu_stream stream, gpcu_host_fn fn,
						void *data);		/* cuLaunchHostFunc */
typedef gpcu_result (*gpcu_stream_query_fn)(gpcu_stream stream);		/* cuStreamQuery */
/* For programs that allocate (the checks): */
typedef gpcu_result (*gpcu_device_get_fn)(gpcu_device *dev, int ordinal);	/* cuDeviceGet */
typedef gpcu_result (*gpcu_device_get_count_fn)(int *n);		/* cuDeviceGetCount */
typedef gpcu_result (*gpcu_primary_ctx_retain_fn)(gpcu_context *ctx, gpcu_device dev);
										/* cuDevicePrimaryCtxRetain */
typedef gpcu_result (*gpcu_ctx_set_current_fn)(gpcu_context ctx);	/* cuCtxSetCurrent */
typedef gpcu_result (*gpcu_mem_alloc_fn)(gpcu_deviceptr *p, size_t n);	/* cuMemAlloc_v2 */
typedef gpcu_result (*gpcu_mem_free_fn)(gpcu_deviceptr p);		/* cuMemFree_v2 */
typedef gpcu_result (*gpcu_driver_get_version_fn)(int *version);	/* cuDriverGetVersion */
typedef gpcu_result (*gpcu_mem_alloc_async_fn)(gpcu_deviceptr *p, size_t n, gpcu_stream stream);
										/* cuMemAllocAsync */

#endif /* GPUPATH_CUDA_DRIVER_H */
