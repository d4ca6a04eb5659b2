/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cufile.h - the cuFile API (NVIDIA GPUDirect Storage) as libgpupath-cufile
 * implements it on gpupath.
 *
 * Written from NVIDIA's public cuFile API reference; types, values and
 * layouts are those of that API, so that a program built against it runs
 * on this library (link with -lgpupath-cufile, or put the directory with
 * gpupath's libcufile.so.0 first in LD_LIBRARY_PATH). What differs, and how
 * each call maps onto gpupath, is in libgpupath-cufile(3); in short:
 *
 *  - Memory: gpupath device memory (gpupath_buf_alloc()), host memory, and
 *    CUDA device memory where libgpupath-cuda and CUDA are installed.
 *  - Files: a block device (an NVMe namespace, a gpupath volume) goes
 *    through the gpupath module, directly into device memory when the
 *    route allows; anything else, or I/O not in logical blocks, goes through
 *    the file system and a host bounce ("compat"), and says why
 *    (gpupath_cufile_last()).
 *  - Batches run on the module's batched I/O; a stream operation runs in
 *    order with its stream's work, the call returning when it is done.
 */
#ifndef GPUPATH_CUFILE_H
#define GPUPATH_CUFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#if defined(__has_include) && !defined(GPUPATH_CUFILE_NO_CUDA_H)
#if __has_include(<cuda.h>)
#include <cuda.h>
#define GPUPATH_CUFILE_CUDA_H 1
#endif
#endif
#ifndef GPUPATH_CUFILE_CUDA_H
/* Without CUDA's headers: the driver API's result (an enum) and stream. */
typedef int CUresult;
typedef struct CUstream_st *CUstream;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ------------------------------------------------------------- */

#define CUFILEOP_BASE_ERR 5000

typedef enum CUfileOpError {
	CU_FILE_SUCCESS = 0,
	CU_FILE_DRIVER_NOT_INITIALIZED = CUFILEOP_BASE_ERR + 1,
	CU_FILE_DRIVER_INVALID_PROPS = CUFILEOP_BASE_ERR + 2,
	CU_FILE_DRIVER_UNSUPPORTED_LIMIT = CUFILEOP_BASE_ERR + 3,
	CU_FILE_DRIVER_VERSION_MISMATCH = CUFILEOP_BASE_ERR + 4,
	CU_FILE_DRIVER_VERSION_READ_ERROR = CUFILEOP_BASE_ERR + 5,
	CU_FILE_DRIVER_CLOSING = CUFILEOP_BASE_ERR + 6,
	CU_FILE_PLATFORM_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 7,
	CU_FILE_IO_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 8,
	CU_FILE_DEVICE_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 9,
	CU_FILE_NVFS_DRIVER_ERROR = CUFILEOP_BASE_ERR + 10,
	CU_FILE_CUDA_DRIVER_ERROR = CUFILEOP_BASE_ERR + 11,
	CU_FILE_CUDA_POINTER_INVALID = CUFILEOP_BASE_ERR + 12,
	CU_FILE_CUDA_MEMORY_TYPE_INVALID = CUFILEOP_BASE_ERR + 13,
	CU_FILE_CUDA_POINTER_RANGE_ERROR = CUFILEOP_BASE_ERR + 14,
	CU_FILE_CUDA_CONTEXT_MISMATCH = CUFILEOP_BASE_ERR + 15,
	CU_FILE_INVALID_MAPPING_SIZE = CUFILEOP_BASE_ERR + 16,
	CU_FILE_INVALID_MAPPING_RANGE = CUFILEOP_BASE_ERR + 17,
	CU_FILE_INVALID_FILE_TYPE = CUFILEOP_BASE_ERR + 18,
	CU_FILE_INVALID_FILE_OPEN_FLAG = CUFILEOP_BASE_ERR + 19,
	CU_FILE_DIO_NOT_SET = CUFILEOP_BASE_ERR + 20,
	CU_FILE_INVALID_VALUE = CUFILEOP_BASE_ERR + 22,
	CU_FILE_MEMORY_ALREADY_REGISTERED = CUFILEOP_BASE_ERR + 23,
	CU_FILE_MEMORY_NOT_REGISTERED = CUFILEOP_BASE_ERR + 24,
	CU_FILE_PERMISSION_DENIED = CUFILEOP_BASE_ERR + 25,
	CU_FILE_DRIVER_ALREADY_OPEN = CUFILEOP_BASE_ERR + 26,
	CU_FILE_HANDLE_NOT_REGISTERED = CUFILEOP_BASE_ERR + 27,
	CU_FILE_HANDLE_ALREADY_REGISTERED = CUFILEOP_BASE_ERR + 28,
	CU_FILE_DEVICE_NOT_FOUND = CUFILEOP_BASE_ERR + 29,
	CU_FILE_INTERNAL_ERROR = CUFILEOP_BASE_ERR + 30,
	CU_FILE_GETNEWFD_FAILED = CUFILEOP_BASE_ERR + 31,
	CU_FILE_NVFS_SETUP_ERROR = CUFILEOP_BASE_ERR + 33,
	CU_FILE_IO_DISABLED = CUFILEOP_BASE_ERR + 34,
	CU_FILE_BATCH_SUBMIT_FAILED = CUFILEOP_BASE_ERR + 35,
	CU_FILE_GPU_MEMORY_PINNING_FAILED = CUFILEOP_BASE_ERR + 36,
	CU_FILE_BATCH_FULL = CUFILEOP_BASE_ERR + 37,
	CU_FILE_ASYNC_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 38,
	CU_FILE_INTERNAL_BATCH_SETUP_ERROR = CUFILEOP_BASE_ERR + 39,
	CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR = CUFILEOP_BASE_ERR + 40,
	CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR = CUFILEOP_BASE_ERR + 41,
	CU_FILE_INTERNAL_BATCH_CANCEL_ERROR = CUFILEOP_BASE_ERR + 42,
	CU_FILE_NOMEM_ERROR = CUFILEOP_BASE_ERR + 43,
	CU_FILE_IO_ERROR = CUFILEOP_BASE_ERR + 44,
	CU_FILE_INTERNAL_BUF_REGISTER_ERROR = CUFILEOP_BASE_ERR + 45,
	CU_FILE_HASH_OPR_ERROR = CUFILEOP_BASE_ERR + 46,
	CU_FILE_INVALID_CONTEXT_ERROR = CUFILEOP_BASE_ERR + 47,
	CU_FILE_NVFS_INTERNAL_DRIVER_ERROR = CUFILEOP_BASE_ERR + 48,
	CU_FILE_BATCH_NOCOMPAT_ERROR = CUFILEOP_BASE_ERR + 49,
	CU_FILE_IO_MAX_ERROR = CUFILEOP_BASE_ERR + 50,
} CUfileOpError;

/* Returned by value: err, and the CUDA driver's result when err says so. */
typedef struct CUfileError {
	CUfileOpError err;
	CUresult cu_err;
} CUfileError_t;

/* A cuFile error code, or a negative cuFileRead()/cuFileWrite() result. */
#define IS_CUFILE_ERR(err) (abs((int)(err)) > CUFILEOP_BASE_ERR)
#define IS_CUDA_ERR(status) ((status).err == CU_FILE_CUDA_DRIVER_ERROR)
#define CU_FILE_CUDA_ERR(status) ((status).cu_err)
#define CUFILE_ERRSTR(err) cufileop_status_error((CUfileOpError)abs((int)(err)))

/* A short text for a cuFile error code; "unknown cufile error" otherwise. */
const char *gpupath_cufile_strerror(CUfileOpError status);

static inline const char *cufileop_status_error(CUfileOpError status)
{
	return gpupath_cufile_strerror(status);
}

#ifndef __cplusplus
/*
 * The text of a status: its cuFile error, with the CUDA driver's result
 * when it is one. gpupath's, for C: not in NVIDIA's cufile.h, and NVIDIA's
 * C++ samples define function templates of this name themselves, which a
 * declaration here would take precedence over.
 */
const char *cuFileGetErrorString(CUfileError_t status);
#endif

/* ---- driver ------------------------------------------------------------- */

/* Bits (1 << value) of dstatusflags: what can be read. */
typedef enum CUfileDriverStatusFlags {
	CU_FILE_LUSTRE_SUPPORTED = 0,
	CU_FILE_WEKAFS_SUPPORTED = 1,
	CU_FILE_NFS_SUPPORTED = 2,
	CU_FILE_GPFS_SUPPORTED = 3,
	CU_FILE_NVME_SUPPORTED = 4,
	CU_FILE_NVMEOF_SUPPORTED = 5,
	CU_FILE_SCSI_SUPPORTED = 6,
	CU_FILE_SCALEFLUX_CSD_SUPPORTED = 7,
	CU_FILE_NVMESH_SUPPORTED = 8,
	CU_FILE_BEEGFS_SUPPORTED = 9,
	CU_FILE_NVME_P2P_SUPPORTED = 11,
	CU_FILE_SCATEFS_SUPPORTED = 12,
	CU_FILE_VIRTIOFS_SUPPORTED = 13,
	CU_FILE_MAX_TARGET_TYPES = 14,
} CUfileDriverStatusFlags_t;

/* Bits (1 << value) of dcontrolflags: modes in force. */
typedef enum CUfileDriverControlFlags {
	CU_FILE_USE_POLL_MODE = 0,
	CU_FILE_ALLOW_COMPAT_MODE = 1,
} CUfileDriverControlFlags_t;

/* Bits (1 << value) of fflags: what this library can do. */
typedef enum CUfileFeatureFlags {
	CU_FILE_DYN_ROUTING_SUPPORTED = 0,
	CU_FILE_BATCH_IO_SUPPORTED = 1,
	CU_FILE_STREAMS_SUPPORTED = 2,
	CU_FILE_PARALLEL_IO_SUPPORTED = 3,
	CU_FILE_P2P_SUPPORTED = 4,
} CUfileFeatureFlags_t;

/* Sizes in KiB. */
typedef struct CUfileDrvProps {
	struct {
		unsigned int major_version;
		unsigned int minor_version;
		size_t poll_thresh_size;
		size_t max_direct_io_size;
		unsigned int dstatusflags;
		unsigned int dcontrolflags;
	} nvfs;
	unsigned int fflags;
	unsigned int max_device_cache_size;
	unsigned int per_buffer_cache_size;
	unsigned int max_device_pinned_mem_size;
	unsigned int max_batch_io_size;
	unsigned int max_batch_io_timeout_msecs;
} CUfileDrvProps_t;

CUfileError_t cuFileDriverOpen(void);
CUfileError_t cuFileDriverClose(void);
CUfileError_t cuFileDriverClose_v2(void);
long cuFileUseCount(void);
CUfileError_t cuFileDriverGetProperties(CUfileDrvProps_t *props);
CUfileError_t cuFileDriverSetPollMode(bool poll, size_t poll_threshold_size);
CUfileError_t cuFileDriverSetMaxDirectIOSize(size_t max_direct_io_size);
CUfileError_t cuFileDriverSetMaxCacheSize(size_t max_cache_size);
CUfileError_t cuFileDriverSetMaxPinnedMemSize(size_t max_pinned_size);
/* 1000 * major + 10 * minor of the cuFile API implemented. */
CUfileError_t cuFileGetVersion(int *version);

/* ---- file handles ------------------------------------------------------- */

typedef enum CUfileFileHandleType {
	CU_FILE_HANDLE_TYPE_OPAQUE_FD = 1,
	CU_FILE_HANDLE_TYPE_OPAQUE_WIN32 = 2,
	CU_FILE_HANDLE_TYPE_USERSPACE_FS = 3,
} CUfileFileHandleType;

typedef struct sockaddr sockaddr_t;

typedef struct cufileRDMAInfo {
	int version;
	int desc_len;
	const char *desc_str;
} cufileRDMAInfo_t;

/* User-space file systems' operations (not supported by gpupath). */
typedef struct CUfileFSOps {
	const char *(*fs_type)(const void *handle);
	int (*getRDMADeviceList)(const void *handle, sockaddr_t **hostaddrs);
	int (*getRDMADevicePriority)(const void *handle, char *buf, size_t size, off_t off,
				     const sockaddr_t *hostaddr);
	ssize_t (*read)(const void *handle, char *buf, size_t size, off_t off,
			const cufileRDMAInfo_t *info);
	ssize_t (*write)(const void *handle, const char *buf, size_t size, off_t off,
			 const cufileRDMAInfo_t *info);
} CUfileFSOps_t;

typedef struct CUfileDescr_t {
	CUfileFileHandleType type;
	union {
		int fd;
		void *handle;
	} handle;
	const CUfileFSOps_t *fs_ops;
} CUfileDescr_t;

typedef void *CUfileHandle_t;

CUfileError_t cuFileHandleRegister(CUfileHandle_t *fh, CUfileDescr_t *descr);
void cuFileHandleDeregister(CUfileHandle_t fh);

/* ---- buffers and I/O ---------------------------------------------------- */

#define CU_FILE_RDMA_REGISTER 1
#define CU_FILE_RDMA_RELAXED_ORDERING (1 << 1)

CUfileError_t cuFileBufRegister(const void *bufPtr_base, size_t length, int flags);
CUfileError_t cuFileBufDeregister(const void *bufPtr_base);

/* Bytes moved; -1 with errno set; or -CUfileOpError. */
ssize_t cuFileRead(CUfileHandle_t fh, void *bufPtr_base, size_t size, off_t file_offset,
		   off_t bufPtr_offset);
ssize_t cuFileWrite(CUfileHandle_t fh, const void *bufPtr_base, size_t size, off_t file_offset,
		    off_t bufPtr_offset);

/* ---- batches ------------------------------------------------------------ */

typedef enum CUfileOpcode {
	CUFILE_READ = 0,
	CUFILE_WRITE = 1,
} CUfileOpcode_t;

typedef enum CUFILEStatus_enum {
	CUFILE_WAITING = 0x0001,
	CUFILE_PENDING = 0x0002,
	CUFILE_INVALID = 0x0004,
	CUFILE_CANCELED = 0x0008,
	CUFILE_COMPLETE = 0x0010,
	CUFILE_TIMEOUT = 0x0020,
	CUFILE_FAILED = 0x0040,
} CUfileStatus_t;

typedef enum cufileBatchMode {
	CUFILE_BATCH = 1,
} CUfileBatchMode_t;

typedef struct CUfileIOParams {
	CUfileBatchMode_t mode;
	union {
		struct {
			void *devPtr_base;
			off_t file_offset;
			off_t devPtr_offset;
			size_t size;
		} batch;
	} u;
	CUfileHandle_t fh;
	CUfileOpcode_t opcode;
	void *cookie;
} CUfileIOParams_t;

/* ret: bytes moved (COMPLETE), or a negative errno (FAILED), as a size_t. */
typedef struct CUfileIOEvents {
	void *cookie;
	CUfileStatus_t status;
	size_t ret;
} CUfileIOEvents_t;

typedef void *CUfileBatchHandle_t;

CUfileError_t cuFileBatchIOSetUp(CUfileBatchHandle_t *batch_idp, unsigned nr);
CUfileError_t cuFileBatchIOSubmit(CUfileBatchHandle_t batch_idp, unsigned nr,
				  CUfileIOParams_t *iocbp, unsigned int flags);
CUfileError_t cuFileBatchIOGetStatus(CUfileBatchHandle_t batch_idp, unsigned min_nr,
				     unsigned *nr, CUfileIOEvents_t *iocbp,
				     struct timespec *timeout);
CUfileError_t cuFileBatchIOCancel(CUfileBatchHandle_t batch_idp);
void cuFileBatchIODestroy(CUfileBatchHandle_t batch_idp);

/* ---- streams ---------------------------------------------------------- */

/* cuFileStreamRegister's flags: what is fixed when the operation is queued. */

#define CU_FILE_STREAM_FIXED_BUF_OFFSET 1
#define CU_FILE_STREAM_FIXED_FILE_OFFSET 2
#define CU_FILE_STREAM_FIXED_FILE_SIZE 4
#define CU_FILE_STREAM_PAGE_ALIGNED_INPUTS 8

CUfileError_t cuFileReadAsync(CUfileHandle_t fh, void *bufPtr_base, size_t *size_p,
			      off_t *file_offset_p, off_t *bufPtr_offset_p,
			      ssize_t *bytes_read_p, CUstream stream);
CUfileError_t cuFileWriteAsync(CUfileHandle_t fh, void *bufPtr_base, size_t *size_p,
			       off_t *file_offset_p, off_t *bufPtr_offset_p,
			       ssize_t *bytes_written_p, CUstream stream);
CUfileError_t cuFileStreamRegister(CUstream stream, unsigned flags);
CUfileError_t cuFileStreamDeregister(CUstream stream);

/* ---- parameters (cuFile 1.14) and statistics (1.15) ------------------------- */

/* The values of NVIDIA's configuration, by name. */
typedef enum CUFileSizeTConfigParameter_t {
	CUFILE_PARAM_PROFILE_STATS,
	CUFILE_PARAM_EXECUTION_MAX_IO_QUEUE_DEPTH,
	CUFILE_PARAM_EXECUTION_MAX_IO_THREADS,
	CUFILE_PARAM_EXECUTION_MIN_IO_THRESHOLD_SIZE_KB,
	CUFILE_PARAM_EXECUTION_MAX_REQUEST_PARALLELISM,
	CUFILE_PARAM_PROPERTIES_MAX_DIRECT_IO_SIZE_KB,
	CUFILE_PARAM_PROPERTIES_MAX_DEVICE_CACHE_SIZE_KB,
	CUFILE_PARAM_PROPERTIES_PER_BUFFER_CACHE_SIZE_KB,
	CUFILE_PARAM_PROPERTIES_MAX_DEVICE_PINNED_MEM_SIZE_KB,
	CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE,
	CUFILE_PARAM_POLLTHRESHOLD_SIZE_KB,
	CUFILE_PARAM_PROPERTIES_BATCH_IO_TIMEOUT_MS,
} CUFileSizeTConfigParameter_t;

typedef enum CUFileBoolConfigParameter_t {
	CUFILE_PARAM_PROPERTIES_USE_POLL_MODE,
	CUFILE_PARAM_PROPERTIES_ALLOW_COMPAT_MODE,
	CUFILE_PARAM_FORCE_COMPAT_MODE,
	CUFILE_PARAM_FS_MISC_API_CHECK_AGGRESSIVE,
	CUFILE_PARAM_EXECUTION_PARALLEL_IO,
	CUFILE_PARAM_PROFILE_NVTX,
	CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY,
	CUFILE_PARAM_USE_PCIP2PDMA,
	CUFILE_PARAM_PREFER_IO_URING,
	CUFILE_PARAM_FORCE_ODIRECT_MODE,
	CUFILE_PARAM_SKIP_TOPOLOGY_DETECTION,
	CUFILE_PARAM_STREAM_MEMOPS_BYPASS,
} CUFileBoolConfigParameter_t;

typedef enum CUFileStringConfigParameter_t {
	CUFILE_PARAM_LOGGING_LEVEL,
	CUFILE_PARAM_ENV_LOGFILE_PATH,
	CUFILE_PARAM_LOG_DIR,
} CUFileStringConfigParameter_t;

typedef enum CUFileArrayConfigParameter_t {
	CUFILE_PARAM_POSIX_POOL_SLAB_SIZE_KB,
	CUFILE_PARAM_POSIX_POOL_SLAB_COUNT,
} CUFileArrayConfigParameter_t;

/*
 * Set before cuFileDriverOpen (CU_FILE_DRIVER_ALREADY_OPEN after), taken at
 * the open over the configuration file; read back staged, or in use while
 * open. The values gpupath has no use for are kept and read back, and
 * named once on stderr when set.
 */
CUfileError_t cuFileGetParameterSizeT(CUFileSizeTConfigParameter_t param, size_t *value);
CUfileError_t cuFileGetParameterBool(CUFileBoolConfigParameter_t param, bool *value);
CUfileError_t cuFileGetParameterString(CUFileStringConfigParameter_t param, char *desc_str,
				       int len);
CUfileError_t cuFileSetParameterSizeT(CUFileSizeTConfigParameter_t param, size_t value);
CUfileError_t cuFileSetParameterBool(CUFileBoolConfigParameter_t param, bool value);
CUfileError_t cuFileSetParameterString(CUFileStringConfigParameter_t param, const char *desc_str);
CUfileError_t cuFileGetParameterMinMaxValue(CUFileSizeTConfigParameter_t param,
					    size_t *min_value, size_t *max_value);
CUfileError_t cuFileSetParameterPosixPoolSlabArray(const size_t *size_values,
						   const size_t *count_values, int len);
CUfileError_t cuFileGetParameterPosixPoolSlabArray(size_t *size_values, size_t *count_values,
						   int len);

#define CUFILE_GPU_UUID_LEN 16

typedef struct CUfileOpCounter {
	uint64_t ok;
	uint64_t err;
} CUfileOpCounter_t;

/* Statistics level 1: this process's cuFile calls (512 bytes, as cuFile 1.15's). */
typedef struct CUfileStatsLevel1 {
	CUfileOpCounter_t read_ops;
	CUfileOpCounter_t write_ops;
	CUfileOpCounter_t hdl_register_ops;
	CUfileOpCounter_t hdl_deregister_ops;
	CUfileOpCounter_t buf_register_ops;
	CUfileOpCounter_t buf_deregister_ops;
	uint64_t read_bytes;
	uint64_t write_bytes;
	uint64_t read_bw_bytes_per_sec;
	uint64_t write_bw_bytes_per_sec;
	uint64_t read_lat_avg_us;
	uint64_t write_lat_avg_us;
	uint64_t read_ops_per_sec;
	uint64_t write_ops_per_sec;
	uint64_t read_lat_sum_us;
	uint64_t write_lat_sum_us;
	CUfileOpCounter_t batch_submit_ops;
	CUfileOpCounter_t batch_complete_ops;
	CUfileOpCounter_t batch_setup_ops;
	CUfileOpCounter_t batch_cancel_ops;
	CUfileOpCounter_t batch_destroy_ops;
	CUfileOpCounter_t batch_enqueued_ops;
	CUfileOpCounter_t batch_posix_enqueued_ops;
	CUfileOpCounter_t batch_processed_ops;
	CUfileOpCounter_t batch_posix_processed_ops;
	CUfileOpCounter_t batch_nvfs_submit_ops;
	CUfileOpCounter_t batch_p2p_submit_ops;
	CUfileOpCounter_t batch_aio_submit_ops;
	CUfileOpCounter_t batch_iouring_submit_ops;
	CUfileOpCounter_t batch_mixed_io_submit_ops;
	CUfileOpCounter_t batch_total_submit_ops;
	uint64_t batch_read_bytes;
	uint64_t batch_write_bytes;
	uint64_t batch_read_bw_bytes;
	uint64_t batch_write_bw_bytes;
	uint64_t batch_submit_lat_avg_us;
	uint64_t batch_completion_lat_avg_us;
	uint64_t batch_submit_ops_per_sec;
	uint64_t batch_complete_ops_per_sec;
	uint64_t batch_submit_lat_sum_us;
	uint64_t batch_completion_lat_sum_us;
	uint64_t last_batch_read_bytes;
	uint64_t last_batch_write_bytes;
} CUfileStatsLevel1_t;

/* Level 2: level 1, and I/O sizes in KiB by power of two (bin k: up to 4 << k KiB). */
typedef struct CUfileStatsLevel2 {
	CUfileStatsLevel1_t basic;
	uint64_t read_size_kb_hist[32];
	uint64_t write_size_kb_hist[32];
} CUfileStatsLevel2_t;

typedef struct CUfilePerGpuStats {
	char uuid[CUFILE_GPU_UUID_LEN];
	uint64_t read_bytes;
	uint64_t read_bw_bytes_per_sec;
	uint64_t read_utilization;
	uint64_t read_duration_us;
	uint64_t n_total_reads;
	uint64_t n_p2p_reads;
	uint64_t n_nvfs_reads;
	uint64_t n_posix_reads;
	uint64_t n_unaligned_reads;
	uint64_t n_dr_reads;
	uint64_t n_sparse_regions;
	uint64_t n_inline_regions;
	uint64_t n_reads_err;
	uint64_t writes_bytes;
	uint64_t write_bw_bytes_per_sec;
	uint64_t write_utilization;
	uint64_t write_duration_us;
	uint64_t n_total_writes;
	uint64_t n_p2p_writes;
	uint64_t n_nvfs_writes;
	uint64_t n_posix_writes;
	uint64_t n_unaligned_writes;
	uint64_t n_dr_writes;
	uint64_t n_writes_err;
	uint64_t n_mmap;
	uint64_t n_mmap_ok;
	uint64_t n_mmap_err;
	uint64_t n_mmap_free;
	uint64_t reg_bytes;
} CUfilePerGpuStats_t;

/* Level 3: level 2, and per GPU (gpupath: per provider of device memory). */
typedef struct CUfileStatsLevel3 {
	CUfileStatsLevel2_t detailed;
	uint32_t num_gpus;
	CUfilePerGpuStats_t per_gpu_stats[16];
} CUfileStatsLevel3_t;

/* Levels 0 (off) to 3; counted between cuFileStatsStart and cuFileStatsStop. */
CUfileError_t cuFileSetStatsLevel(int level);
CUfileError_t cuFileGetStatsLevel(int *level);
CUfileError_t cuFileStatsStart(void);
CUfileError_t cuFileStatsStop(void);
CUfileError_t cuFileStatsReset(void);
CUfileError_t cuFileGetStatsL1(CUfileStatsLevel1_t *stats);
CUfileError_t cuFileGetStatsL2(CUfileStatsLevel2_t *stats);
CUfileError_t cuFileGetStatsL3(CUfileStatsLevel3_t *stats);
/* The BAR of GPU @gpuIndex (gpupath: its provider of device memory), in KiB. */
CUfileError_t cuFileGetBARSizeInKB(int gpuIndex, size_t *barSize);

/* ---- gpupath's additions ------------------------------------------------ */

/*
 * How the calling thread's last cuFileRead()/cuFileWrite() went: mode
 * (GPUPATH_MODE_DIRECT, _HOST or _BOUNCE of libgpupath.h) and, when not
 * direct, the reason (enum gpupath_reason, or GPUPATH_REASON_NOT_BLOCK_DEVICE,
 * _UNALIGNED, _NO_MODULE), with libgpupath's names for both.
 */
struct gpupath_cufile_io {
	uint32_t mode;
	uint32_t reason;
	const char *mode_name;
	const char *reason_name;
};
void gpupath_cufile_last(struct gpupath_cufile_io *io);

/*
 * The data device (/dev/gpupath) the library opened, while the driver is
 * open; NULL otherwise, or without the module. Device memory allocated on
 * it (gpupath_buf_alloc() of libgpupath.h) runs batches asynchronously in
 * the module; memory allocated on another descriptor is read or written
 * when the batch is submitted.
 */
struct gpupath_dev;
struct gpupath_dev *gpupath_cufile_dev(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUPATH_CUFILE_H */
