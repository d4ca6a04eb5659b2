// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cufile: the cuFile API (cufile.h) on libgpupath.
 *
 * How each call maps onto gpupath:
 *  - The driver is /dev/gpupath, opened by cuFileDriverOpen() (or by the
 *    first registration or I/O) and reference-counted. Without the module
 *    every I/O goes the compat way, through the file system.
 *  - A file handle is a block device (namespace, gpupath volume) or a regular
 *    file (ext4 and XFS go direct; the module refuses the rest with its
 *    reason), I/O through the module either way. A second descriptor of the
 *    same file is opened for compat I/O: with O_DIRECT for block devices, so
 *    that no page cache stands between it and the module's bios; without it
 *    for files, so that any length and offset can be read.
 *  - Memory is gpupath device memory (found with gpupath_buf_lookup()), host
 *    memory (pinned by cuFileBufRegister() when the module is there) or CUDA
 *    device memory (through libgpupath-cuda, loaded when installed).
 *  - cuFileRead()/cuFileWrite() go through the module when the memory is a
 *    gpupath buffer and the I/O is in whole blocks: direct when the route
 *    and the file system allow, else bounced by libgpupath, with the
 *    module's reason. Everything else is compat: through a host buffer and
 *    the second descriptor, with the reason gpupath_cufile_last() gives.
 *  - As NVIDIA's library: "properties": {"allow_compat_mode": false} in the
 *    JSON file CUFILE_ENV_PATH_JSON names (default /etc/cufile.json) makes an
 *    I/O of device memory that cannot go direct fail with
 *    CU_FILE_IO_NOT_SUPPORTED instead of bouncing; CUFILE_FORCE_COMPAT_MODE
 *    =true sends every I/O the compat way.
 *  - Batches go to the module's batched I/O (GPUPATH_IOC_SUBMIT) where they
 *    can, and run at once the compat way where they cannot; completions are
 *    reaped by whichever thread waits, and handed to their batch.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "private.h"

/* The layouts of the cuFile API (LP64), which programs were built against. */
#define ABI(cond) _Static_assert(cond, #cond)
ABI(sizeof(CUfileError_t) == 8);
ABI(sizeof(CUfileDescr_t) == 24 && offsetof(CUfileDescr_t, fs_ops) == 16);
ABI(sizeof(CUfileDrvProps_t) == 56 && offsetof(CUfileDrvProps_t, fflags) == 32 &&
    offsetof(CUfileDrvProps_t, max_batch_io_size) == 48);
ABI(sizeof(CUfileIOParams_t) == 64 && offsetof(CUfileIOParams_t, u.batch.size) == 32 &&
    offsetof(CUfileIOParams_t, fh) == 40 && offsetof(CUfileIOParams_t, cookie) == 56);
ABI(sizeof(CUfileIOEvents_t) == 24 && offsetof(CUfileIOEvents_t, ret) == 16);
ABI(sizeof(CUfileFSOps_t) == 40 && sizeof(cufileRDMAInfo_t) == 16);
ABI(sizeof(CUfileStatsLevel1_t) == 512 && sizeof(CUfileStatsLevel2_t) == 1024);
ABI(sizeof(CUfilePerGpuStats_t) == 248 && sizeof(CUfileStatsLevel3_t) == 5000 &&
    offsetof(CUfileStatsLevel3_t, per_gpu_stats) == 1032);
ABI(sizeof(CUFileSizeTConfigParameter_t) == 4 && CUFILE_PARAM_PROPERTIES_BATCH_IO_TIMEOUT_MS == 11 &&
    CUFILE_PARAM_STREAM_MEMOPS_BYPASS == 11 && CUFILE_PARAM_LOG_DIR == 2);

struct drv drv = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.reap_lock = PTHREAD_MUTEX_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
	.queue_tail = &drv.queue,
	.poll_kb = POLL_KB_DEFAULT,
	.max_direct_kb = MAX_DIRECT_KB_DEFAULT,
	.max_cache_kb = MAX_CACHE_KB_DEFAULT,
	.max_pinned_kb = MAX_PINNED_KB_DEFAULT,
	.allow_compat = true,
	.rdma_write = true,
	.batch_size = BATCH_DEFAULT,
};

__thread struct gpupath_result last;

/* ---- errors ----------------------------------------------------------- */

/*
 * The texts NVIDIA's samples check (5007, 5011, 5018, 5022) are NVIDIA's
 * own, word for word; the others say the same in other words.
 */
static const struct {
	CUfileOpError err;
	const char *text;
} errors[] = {
	{ CU_FILE_SUCCESS, "success" },
	{ CU_FILE_DRIVER_NOT_INITIALIZED, "driver not initialized" },
	{ CU_FILE_DRIVER_INVALID_PROPS, "invalid driver property" },
	{ CU_FILE_DRIVER_UNSUPPORTED_LIMIT, "driver property out of range" },
	{ CU_FILE_DRIVER_VERSION_MISMATCH, "driver version mismatch" },
	{ CU_FILE_DRIVER_VERSION_READ_ERROR, "driver version cannot be read" },
	{ CU_FILE_DRIVER_CLOSING, "driver is closing" },
	{ CU_FILE_PLATFORM_NOT_SUPPORTED, "GPUDirect Storage not supported on current platform" },
	{ CU_FILE_IO_NOT_SUPPORTED, "I/O not supported on this file" },
	{ CU_FILE_DEVICE_NOT_SUPPORTED, "device not supported" },
	{ CU_FILE_NVFS_DRIVER_ERROR, "driver ioctl failed" },
	{ CU_FILE_CUDA_DRIVER_ERROR, "CUDA Driver API error" },
	{ CU_FILE_CUDA_POINTER_INVALID, "invalid device pointer" },
	{ CU_FILE_CUDA_MEMORY_TYPE_INVALID, "invalid memory type" },
	{ CU_FILE_CUDA_POINTER_RANGE_ERROR, "range beyond the allocation" },
	{ CU_FILE_CUDA_CONTEXT_MISMATCH, "CUDA context mismatch" },
	{ CU_FILE_INVALID_MAPPING_SIZE, "beyond the pinned size" },
	{ CU_FILE_INVALID_MAPPING_RANGE, "beyond the registered size" },
	{ CU_FILE_INVALID_FILE_TYPE, "unsupported file type" },
	{ CU_FILE_INVALID_FILE_OPEN_FLAG, "file open flags not supported" },
	{ CU_FILE_DIO_NOT_SET, "O_DIRECT not set" },
	{ CU_FILE_INVALID_VALUE, "invalid arguments" },
	{ CU_FILE_MEMORY_ALREADY_REGISTERED, "buffer already registered" },
	{ CU_FILE_MEMORY_NOT_REGISTERED, "buffer not registered" },
	{ CU_FILE_PERMISSION_DENIED, "permission denied" },
	{ CU_FILE_DRIVER_ALREADY_OPEN, "driver already open" },
	{ CU_FILE_HANDLE_NOT_REGISTERED, "file handle not registered" },
	{ CU_FILE_HANDLE_ALREADY_REGISTERED, "file descriptor already registered" },
	{ CU_FILE_DEVICE_NOT_FOUND, "device not found" },
	{ CU_FILE_INTERNAL_ERROR, "internal error" },
	{ CU_FILE_GETNEWFD_FAILED, "cannot open a new file descriptor" },
	{ CU_FILE_NVFS_SETUP_ERROR, "driver setup failed" },
	{ CU_FILE_IO_DISABLED, "I/O disabled on this file" },
	{ CU_FILE_BATCH_SUBMIT_FAILED, "batch submission failed" },
	{ CU_FILE_GPU_MEMORY_PINNING_FAILED, "device memory cannot be pinned" },
	{ CU_FILE_BATCH_FULL, "batch full" },
	{ CU_FILE_ASYNC_NOT_SUPPORTED, "stream (async) I/O not supported" },
	{ CU_FILE_INTERNAL_BATCH_SETUP_ERROR, "batch setup failed, try again" },
	{ CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR, "batch submission failed, try again" },
	{ CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR, "batch status failed, try again" },
	{ CU_FILE_INTERNAL_BATCH_CANCEL_ERROR, "batch cancel failed, try again" },
	{ CU_FILE_NOMEM_ERROR, "out of memory, try again" },
	{ CU_FILE_IO_ERROR, "I/O error" },
	{ CU_FILE_INTERNAL_BUF_REGISTER_ERROR, "buffer registration failed" },
	{ CU_FILE_HASH_OPR_ERROR, "hash operation failed" },
	{ CU_FILE_INVALID_CONTEXT_ERROR, "invalid context" },
	{ CU_FILE_NVFS_INTERNAL_DRIVER_ERROR, "driver internal error" },
	{ CU_FILE_BATCH_NOCOMPAT_ERROR, "compat mode off" },
	{ CU_FILE_IO_MAX_ERROR, "last error code" },
};

EXPORT const char *gpupath_cufile_strerror(CUfileOpError err)
{
	size_t i;

	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].err == err)
			return errors[i].text;
	return "unknown cufile error";
}

EXPORT const char *cuFileGetErrorString(CUfileError_t s)
{
	static __thread char text[96];

	if (s.err != CU_FILE_CUDA_DRIVER_ERROR)
		return gpupath_cufile_strerror(s.err);
	snprintf(text, sizeof(text), "%s (CUresult %d)", gpupath_cufile_strerror(s.err),
		 (int)s.cu_err);
	return text;
}

EXPORT void gpupath_cufile_last(struct gpupath_cufile_io *io)
{
	io->mode = last.mode;
	io->reason = last.reason;
	io->mode_name = gpupath_mode_name(last.mode);
	io->reason_name = gpupath_reason_name(last.reason);
}

/* ---- driver ----------------------------------------------------------- */

EXPORT struct gpupath_dev *gpupath_cufile_dev(void)
{
	struct gpupath_dev *dev;

	pthread_mutex_lock(&drv.lock);
	dev = drv.opens ? drv.dev : NULL;
	pthread_mutex_unlock(&drv.lock);
	return dev;
}

static void cuda_load(void)
{
	void *lib = dlopen("libgpupath-cuda.so.0", RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		return;
	drv.cuda_is_device = dlsym(lib, "gpupath_cuda_is_device");
	drv.cuda_copy = dlsym(lib, "gpupath_cuda_copy");
	drv.cuda_read = dlsym(lib, "gpupath_cuda_read");
	drv.cuda_write = dlsym(lib, "gpupath_cuda_write");
	if (!drv.cuda_is_device || !drv.cuda_copy || !drv.cuda_read || !drv.cuda_write) {
		drv.cuda_is_device = NULL;
		dlclose(lib);
		return;
	}
	drv.cuda_lib = lib;
}

/* Called with drv.lock held. */
static void driver_open_locked(void)
{
	if (drv.opens++)
		return;
	config_load();
	params_apply();
	if (gpupath_dev_open(&drv.dev) < 0)
		drv.dev = NULL;
	cuda_load();
}

/* Open it implicitly for calls that need it (the first registration, I/O). */
void ensure_open(void)
{
	pthread_mutex_lock(&drv.lock);
	if (!drv.opens)
		driver_open_locked();
	pthread_mutex_unlock(&drv.lock);
}

/*
 * An explicit open (cuFileDriverOpen, and cuFileDriverGetProperties before
 * one), drv.lock held: fails, opening nothing, where nothing can go direct
 * (no module) and compat mode is not allowed, as NVIDIA's fails without
 * nvidia-fs.
 */
static CUfileOpError driver_open_checked(void)
{
	driver_open_locked();
	if (drv.dev || drv.allow_compat || drv.force_compat)
		return CU_FILE_SUCCESS;
	if (!--drv.opens && drv.cuda_lib) {
		dlclose(drv.cuda_lib);
		drv.cuda_lib = NULL;
		drv.cuda_is_device = NULL;
	}
	return CU_FILE_DRIVER_NOT_INITIALIZED;
}

EXPORT CUfileError_t cuFileDriverOpen(void)
{
	CUfileOpError err;

	pthread_mutex_lock(&drv.lock);
	err = driver_open_checked();
	pthread_mutex_unlock(&drv.lock);
	return status(err);
}


EXPORT CUfileError_t cuFileDriverClose_v2(void)
{
	struct batch *b;
	struct mem *m;
	struct fh *f;

	pthread_mutex_lock(&drv.lock);
	if (!drv.opens) {
		pthread_mutex_unlock(&drv.lock);
		return status(CU_FILE_DRIVER_NOT_INITIALIZED);
	}
	/*
	 * The last close: what the workers have (stream operations, batch
	 * entries) finishes first, with the driver still open for it.
	 */
	while (drv.opens == 1 && (drv.queue || drv.worker_busy))
		pthread_cond_wait(&drv.done, &drv.lock);
	if (!drv.opens) {
		pthread_mutex_unlock(&drv.lock);
		return status(CU_FILE_DRIVER_NOT_INITIALIZED);
	}
	if (--drv.opens) {
		pthread_mutex_unlock(&drv.lock);
		return status(CU_FILE_SUCCESS);
	}
	while ((b = (struct batch *)drv.batches)) {
		drv.batches = b->link.next;
		pthread_mutex_unlock(&drv.lock);
		batch_cancel(b);
		batch_free(b);
		pthread_mutex_lock(&drv.lock);
	}
	while ((m = (struct mem *)drv.mems)) {
		drv.mems = m->link.next;
		if (m->own)
			gpupath_buf_free(m->buf);
		free(m);
	}
	while ((f = (struct fh *)drv.fhs)) {
		drv.fhs = f->link.next;
		fh_free_locked(f);
	}
	streams_forget();
	gpupath_dev_close(drv.dev);
	drv.dev = NULL;
	if (drv.cuda_lib) {
		dlclose(drv.cuda_lib);
		drv.cuda_lib = NULL;
		drv.cuda_is_device = NULL;
	}
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

EXPORT CUfileError_t cuFileDriverClose(void)
{
	return cuFileDriverClose_v2();
}

EXPORT long cuFileUseCount(void)
{
	long n;

	pthread_mutex_lock(&drv.lock);
	n = drv.opens;
	pthread_mutex_unlock(&drv.lock);
	return n;
}

static unsigned int bit(unsigned int b)
{
	return 1u << b;
}

static unsigned int kb_u32(size_t kb)
{
	return kb > UINT_MAX ? UINT_MAX : (unsigned int)kb;
}

EXPORT CUfileError_t cuFileDriverGetProperties(CUfileDrvProps_t *props)
{
	unsigned int major = 0, minor = 0;

	if (!props)
		return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	/* Before an open: opened now, as NVIDIA's library does (KvikIO asks first). */
	if (!drv.opens && driver_open_checked() != CU_FILE_SUCCESS) {
		pthread_mutex_unlock(&drv.lock);
		return status(CU_FILE_DRIVER_NOT_INITIALIZED);
	}
	memset(props, 0, sizeof(*props));
	/*
	 * The kernel side's version: gpupath's module, where it is loaded; 0.0
	 * without it, as NVIDIA's says in compat mode without nvidia-fs (which
	 * KvikIO reads as "GPUDirect Storage not available").
	 */
	if (drv.dev)
		sscanf(gpupath_tools_version(), "%u.%u", &major, &minor);
	props->nvfs.major_version = major;
	props->nvfs.minor_version = minor;
	props->nvfs.poll_thresh_size = drv.poll_kb;
	props->nvfs.max_direct_io_size = drv.max_direct_kb;
	/* Block devices: NVMe namespaces, local and over fabrics, through the module. */
	if (drv.dev)
		props->nvfs.dstatusflags = bit(CU_FILE_NVME_SUPPORTED) |
					   bit(CU_FILE_NVMEOF_SUPPORTED) |
					   bit(CU_FILE_NVME_P2P_SUPPORTED);
	props->nvfs.dcontrolflags = (drv.allow_compat ? bit(CU_FILE_ALLOW_COMPAT_MODE) : 0) |
				    (drv.poll ? bit(CU_FILE_USE_POLL_MODE) : 0);
	props->fflags = bit(CU_FILE_BATCH_IO_SUPPORTED) | bit(CU_FILE_STREAMS_SUPPORTED) |
			(drv.dev ? bit(CU_FILE_P2P_SUPPORTED) : 0);
	props->max_device_cache_size = kb_u32(drv.max_cache_kb);
	props->per_buffer_cache_size = CHUNK >> 10;
	props->max_device_pinned_mem_size = kb_u32(drv.max_pinned_kb);
	props->max_batch_io_size = drv.batch_size;
	props->max_batch_io_timeout_msecs = DEFAULT_TIMEOUT_MS;
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

/*
 * Sizes in KiB, in whole 4 KiB, up to @max; set by the program, so that
 * the configuration file does not override them (@api).
 */
static CUfileError_t set_kb(size_t *field, size_t kb, size_t max, unsigned int api)
{
	if (!kb || kb % 4 || kb > max)
		return status(CU_FILE_DRIVER_UNSUPPORTED_LIMIT);
	pthread_mutex_lock(&drv.lock);
	*field = kb;
	drv.api_set |= api;
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

EXPORT CUfileError_t cuFileDriverSetPollMode(bool poll, size_t poll_threshold_size)
{
	CUfileError_t s = set_kb(&drv.poll_kb, poll_threshold_size, SIZE_MAX, API_SET_POLL);

	if (s.err == CU_FILE_SUCCESS)
		drv.poll = poll;
	return s;
}

/* Compat I/O moves up to this much per pread()/pwrite(). */
EXPORT CUfileError_t cuFileDriverSetMaxDirectIOSize(size_t max_direct_io_size)
{
	return set_kb(&drv.max_direct_kb, max_direct_io_size, CHUNK_MAX >> 10, API_SET_DIRECT);
}

EXPORT CUfileError_t cuFileDriverSetMaxCacheSize(size_t max_cache_size)
{
	return set_kb(&drv.max_cache_kb, max_cache_size, SIZE_MAX, API_SET_CACHE);
}

EXPORT CUfileError_t cuFileDriverSetMaxPinnedMemSize(size_t max_pinned_size)
{
	return set_kb(&drv.max_pinned_kb, max_pinned_size, SIZE_MAX, API_SET_PINNED);
}

EXPORT CUfileError_t cuFileGetVersion(int *version)
{
	if (!version)
		return status(CU_FILE_INVALID_VALUE);
	*version = API_VERSION;
	return status(CU_FILE_SUCCESS);
}

