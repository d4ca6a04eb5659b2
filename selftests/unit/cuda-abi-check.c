// SPDX-License-Identifier: GPL-2.0
/*
 * cuda-abi-check: tools/lib/cuda-driver.h, gpupath's declaration of the
 * part of the CUDA driver API it calls, against NVIDIA's cuda.h. Built
 * where CUDA is installed; a difference fails the build, and the program
 * then prints what it compared.
 */
#include <stdio.h>
#include <cuda.h>

#include "cuda-driver.h"

#define SAME(ours, theirs)	_Static_assert((ours) == (theirs), #ours " != " #theirs)
#define SAME_TYPE(ours, theirs)	_Static_assert(__builtin_types_compatible_p(ours, theirs), \
					       #ours " is not " #theirs)

SAME(GPCU_SUCCESS, CUDA_SUCCESS);
SAME(GPCU_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE);
SAME(GPCU_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY);
SAME(GPCU_ERROR_NOT_INITIALIZED, CUDA_ERROR_NOT_INITIALIZED);
SAME(GPCU_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE);
SAME(GPCU_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_DEVICE);
SAME(GPCU_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_CONTEXT);
SAME(GPCU_ERROR_CONTEXT_IS_DESTROYED, CUDA_ERROR_CONTEXT_IS_DESTROYED);
SAME(GPCU_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_HANDLE);
SAME(GPCU_ERROR_NOT_READY, CUDA_ERROR_NOT_READY);
SAME(GPCU_ERROR_NOT_PERMITTED, CUDA_ERROR_NOT_PERMITTED);
SAME(GPCU_STREAM_LEGACY, CU_STREAM_LEGACY);
SAME(GPCU_STREAM_PER_THREAD, CU_STREAM_PER_THREAD);
SAME(GPCU_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING);
SAME(GPCU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_CONTEXT);
SAME(GPCU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
SAME(GPCU_POINTER_ATTRIBUTE_BUFFER_ID, CU_POINTER_ATTRIBUTE_BUFFER_ID);
SAME(GPCU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_IS_MANAGED);
SAME(GPCU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
SAME(GPCU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR);
SAME(GPCU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_RANGE_SIZE);
SAME(GPCU_MEMORYTYPE_HOST, CU_MEMORYTYPE_HOST);
SAME(GPCU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_DEVICE);
SAME(sizeof(gpcu_result), sizeof(CUresult));
SAME(sizeof(gpcu_device), sizeof(CUdevice));
SAME_TYPE(gpcu_deviceptr, CUdeviceptr);
SAME(sizeof(gpcu_context), sizeof(CUcontext));

/* The entry points: our function types against NVIDIA's prototypes. */
SAME_TYPE(gpcu_init_fn, __typeof__(&cuInit));
SAME_TYPE(gpcu_pointer_get_attributes_fn, __typeof__(&cuPointerGetAttributes));
SAME_TYPE(gpcu_memcpy_dtoh_fn, __typeof__(&cuMemcpyDtoH_v2));
SAME_TYPE(gpcu_memcpy_htod_fn, __typeof__(&cuMemcpyHtoD_v2));
SAME_TYPE(gpcu_device_get_count_fn, __typeof__(&cuDeviceGetCount));
SAME_TYPE(gpcu_mem_alloc_fn, __typeof__(&cuMemAlloc_v2));
SAME_TYPE(gpcu_mem_free_fn, __typeof__(&cuMemFree_v2));
SAME_TYPE(gpcu_driver_get_version_fn, __typeof__(&cuDriverGetVersion));
SAME_TYPE(gpcu_stream, CUstream);
SAME_TYPE(gpcu_mem_alloc_async_fn, __typeof__(&cuMemAllocAsync));
SAME_TYPE(gpcu_device_get_fn, __typeof__(&cuDeviceGet));
SAME_TYPE(gpcu_primary_ctx_retain_fn, __typeof__(&cuDevicePrimaryCtxRetain));
SAME_TYPE(gpcu_context, CUcontext);
SAME_TYPE(gpcu_ctx_push_fn, __typeof__(&cuCtxPushCurrent_v2));
SAME_TYPE(gpcu_ctx_pop_fn, __typeof__(&cuCtxPopCurrent_v2));
SAME_TYPE(gpcu_ctx_set_current_fn, __typeof__(&cuCtxSetCurrent));
SAME_TYPE(gpcu_stream_sync_fn, __typeof__(&cuStreamSynchronize));
SAME_TYPE(gpcu_stream_create_fn, __typeof__(&cuStreamCreate));
SAME_TYPE(gpcu_stream_destroy_fn, __typeof__(&cuStreamDestroy_v2));
SAME_TYPE(gpcu_memcpy_dtoh_async_fn, __typeof__(&cuMemcpyDtoHAsync_v2));
SAME_TYPE(gpcu_memcpy_htod_async_fn, __typeof__(&cuMemcpyHtoDAsync_v2));
SAME_TYPE(gpcu_host_fn, CUhostFn);
SAME_TYPE(gpcu_launch_host_func_fn, __typeof__(&cuLaunchHostFunc));
SAME_TYPE(gpcu_stream_query_fn, __typeof__(&cuStreamQuery));

int main(void)
{
	printf("cuda-driver.h matches cuda.h of CUDA %d.%d\n", CUDA_VERSION / 1000,
	       CUDA_VERSION % 1000 / 10);
	return 0;
}
