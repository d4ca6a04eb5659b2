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

#include "libgpupath.h"
#include "cufile.h"

#define EXPORT __attribute__((visibility("default")))

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

/* The cuFile API level implemented: 1.7 (host memory, batches). */
#define API_VERSION	1070
#define BATCH_MAX	128
#define CHUNK		(4u << 20)
#define DEFAULT_TIMEOUT_MS 1000

/* The lists of handles, buffers and batches: each object starts with a link. */
struct link {
	struct link *next;
};

struct fh {
	struct link link;
	int fd;			/* the caller's */
	int cfd;		/* for compat I/O */
	bool bdev;
	uint64_t size;		/* block device: bytes */
	unsigned int lbs;	/* direct I/O's unit: a block device's logical block, a file system's block */
};

struct mem {
	struct link link;
	const char *base;
	size_t len;
	struct gpupath_buf *buf;	/* NULL: no module, or CUDA memory */
	uint64_t off;			/* of base in buf */
	bool own;			/* buf registered here */
	bool cuda;
};

/* Where the bytes of one I/O are. */
struct target {
	struct gpupath_buf *buf;	/* a gpupath buffer, or NULL */
	uint64_t off;			/* in buf */
	char *addr;			/* CPU address (host, or device memory's mapping) */
	bool cuda;			/* addr is CUDA device memory */
};

struct slot {
	struct batch *b;
	CUfileIOParams_t p;
	struct fh *fh;
	struct target t;
	size_t len;
	CUfileStatus_t status;
	ssize_t ret;
	bool busy;		/* submitted, not yet reported */
	bool inflight;		/* not yet done: in the module, or run by its submitter */
	bool canceled;
};

struct batch {
	struct link link;
	unsigned int max;
	struct slot *slots;
};

static struct {
	pthread_mutex_t lock;		/* everything below but reaping */
	pthread_mutex_t reap_lock;	/* one reaper at a time */
	long opens;
	struct gpupath_dev *dev;	/* NULL: no module */
	struct link *fhs, *mems, *batches;
	size_t poll_kb, max_direct_kb, max_cache_kb, max_pinned_kb;
	bool poll;
	bool allow_compat;		/* allow_compat_mode */
	bool force_compat;		/* CUFILE_FORCE_COMPAT_MODE */
	void *cuda_lib;
	int (*cuda_is_device)(const void *p);
	int (*cuda_copy)(void *dst, const void *src, uint64_t n, int to_device);
	int (*cuda_read)(struct gpupath_dev *dev, void *dptr, int fd, uint64_t dev_off,
			 uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res);
	int (*cuda_write)(struct gpupath_dev *dev, const void *dptr, int fd, uint64_t dev_off,
			  uint64_t len, enum gpupath_io_policy policy,
			  struct gpupath_result *res);
} drv = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.reap_lock = PTHREAD_MUTEX_INITIALIZER,
	.poll_kb = 4,
	.max_direct_kb = 16384,
	.max_cache_kb = 131072,
	.max_pinned_kb = 33554432,
	.allow_compat = true,
};

static __thread struct gpupath_result last;

static CUfileError_t status(CUfileOpError err)
{
	CUfileError_t s = { .err = err };

	return s;
}

static void link_add(struct link **head, struct link *l)
{
	l->next = *head;
	*head = l;
}

/* @obj if it is in the list; drv.lock held. */
static void *link_find(struct link *head, const void *obj)
{
	for (; head; head = head->next)
		if (head == obj)
			return head;
	return NULL;
}

/* @obj taken out of the list, if it was in it (NULL otherwise). */
static void *link_take(struct link **head, const void *obj)
{
	void *found = NULL;

	pthread_mutex_lock(&drv.lock);
	for (; *head; head = &(*head)->next) {
		if (*head == obj) {
			*head = ((struct link *)obj)->next;
			found = (void *)obj;
			break;
		}
	}
	pthread_mutex_unlock(&drv.lock);
	return found;
}

/* ---- errors ----------------------------------------------------------- */

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
	{ CU_FILE_PLATFORM_NOT_SUPPORTED, "platform not supported" },
	{ CU_FILE_IO_NOT_SUPPORTED, "I/O not supported on this file" },
	{ CU_FILE_DEVICE_NOT_SUPPORTED, "device not supported" },
	{ CU_FILE_NVFS_DRIVER_ERROR, "driver ioctl failed" },
	{ CU_FILE_CUDA_DRIVER_ERROR, "CUDA driver error" },
	{ CU_FILE_CUDA_POINTER_INVALID, "invalid device pointer" },
	{ CU_FILE_CUDA_MEMORY_TYPE_INVALID, "invalid memory type" },
	{ CU_FILE_CUDA_POINTER_RANGE_ERROR, "range beyond the allocation" },
	{ CU_FILE_CUDA_CONTEXT_MISMATCH, "CUDA context mismatch" },
	{ CU_FILE_INVALID_MAPPING_SIZE, "beyond the pinned size" },
	{ CU_FILE_INVALID_MAPPING_RANGE, "beyond the registered size" },
	{ CU_FILE_INVALID_FILE_TYPE, "file type not supported" },
	{ CU_FILE_INVALID_FILE_OPEN_FLAG, "file open flags not supported" },
	{ CU_FILE_DIO_NOT_SET, "O_DIRECT not set" },
	{ CU_FILE_INVALID_VALUE, "invalid argument" },
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

/*
 * NVIDIA's configuration, where it concerns gpupath: properties.
 * allow_compat_mode in the JSON file (json-c takes its // comments), and the
 * environment. A file named and unreadable, or not JSON, is said once.
 */
static void config_load(void)
{
	const char *env = getenv("CUFILE_ENV_PATH_JSON"), *force;
	const char *path = env && *env ? env : "/etc/cufile.json";
	struct json_object *root, *props, *v;

	drv.allow_compat = true;
	root = access(path, F_OK) == 0 || env ? json_object_from_file(path) : NULL;
	if (!root && env && *env)
		fprintf(stderr, "libgpupath-cufile: %s: %s; allow_compat_mode stays true\n", path,
			json_util_get_last_err() ?: "cannot read it");
	if (root && json_object_object_get_ex(root, "properties", &props) &&
	    json_object_object_get_ex(props, "allow_compat_mode", &v)) {
		if (json_object_is_type(v, json_type_boolean))
			drv.allow_compat = json_object_get_boolean(v);
		else
			fprintf(stderr, "libgpupath-cufile: %s: allow_compat_mode is not true or "
				"false; it stays true\n", path);
	}
	json_object_put(root);
	force = getenv("CUFILE_FORCE_COMPAT_MODE");
	drv.force_compat = force && (!strcasecmp(force, "true") || !strcmp(force, "1"));
}

/* Called with drv.lock held. */
static void driver_open_locked(void)
{
	if (drv.opens++)
		return;
	config_load();
	if (gpupath_dev_open(&drv.dev) < 0)
		drv.dev = NULL;
	cuda_load();
}

/* Open it implicitly for calls that need it (the first registration, I/O). */
static void ensure_open(void)
{
	pthread_mutex_lock(&drv.lock);
	if (!drv.opens)
		driver_open_locked();
	pthread_mutex_unlock(&drv.lock);
}

EXPORT CUfileError_t cuFileDriverOpen(void)
{
	pthread_mutex_lock(&drv.lock);
	driver_open_locked();
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

static void batch_cancel(struct batch *b);
static void batch_free(struct batch *b);

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
		close(f->cfd);
		free(f);
	}
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
	if (!drv.opens) {
		pthread_mutex_unlock(&drv.lock);
		return status(CU_FILE_DRIVER_NOT_INITIALIZED);
	}
	memset(props, 0, sizeof(*props));
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
	props->fflags = bit(CU_FILE_BATCH_IO_SUPPORTED) | (drv.dev ? bit(CU_FILE_P2P_SUPPORTED) : 0);
	props->max_device_cache_size = kb_u32(drv.max_cache_kb);
	props->per_buffer_cache_size = CHUNK >> 10;
	props->max_device_pinned_mem_size = kb_u32(drv.max_pinned_kb);
	props->max_batch_io_size = BATCH_MAX;
	props->max_batch_io_timeout_msecs = DEFAULT_TIMEOUT_MS;
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

/* Sizes in KiB, in whole 4 KiB. */
static CUfileError_t set_kb(size_t *field, size_t kb)
{
	if (!kb || kb % 4)
		return status(CU_FILE_DRIVER_UNSUPPORTED_LIMIT);
	pthread_mutex_lock(&drv.lock);
	*field = kb;
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

EXPORT CUfileError_t cuFileDriverSetPollMode(bool poll, size_t poll_threshold_size)
{
	CUfileError_t s = set_kb(&drv.poll_kb, poll_threshold_size);

	if (s.err == CU_FILE_SUCCESS)
		drv.poll = poll;
	return s;
}

EXPORT CUfileError_t cuFileDriverSetMaxDirectIOSize(size_t max_direct_io_size)
{
	return set_kb(&drv.max_direct_kb, max_direct_io_size);
}

EXPORT CUfileError_t cuFileDriverSetMaxCacheSize(size_t max_cache_size)
{
	return set_kb(&drv.max_cache_kb, max_cache_size);
}

EXPORT CUfileError_t cuFileDriverSetMaxPinnedMemSize(size_t max_pinned_size)
{
	return set_kb(&drv.max_pinned_kb, max_pinned_size);
}

EXPORT CUfileError_t cuFileGetVersion(int *version)
{
	if (!version)
		return status(CU_FILE_INVALID_VALUE);
	*version = API_VERSION;
	return status(CU_FILE_SUCCESS);
}

/* ---- file handles ----------------------------------------------------- */

static struct fh *fh_find_locked(CUfileHandle_t h)
{
	return link_find(drv.fhs, h);
}

/* The same file again, for compat I/O. */
static int reopen(int fd, int flags, bool bdev)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, (flags & O_ACCMODE) | O_CLOEXEC | (bdev ? O_DIRECT : 0));
}

EXPORT CUfileError_t cuFileHandleRegister(CUfileHandle_t *fhp, CUfileDescr_t *descr)
{
	struct stat st;
	struct fh *f;
	int flags;

	if (!fhp || !descr)
		return status(CU_FILE_INVALID_VALUE);
	if (descr->type == CU_FILE_HANDLE_TYPE_USERSPACE_FS)
		return status(CU_FILE_IO_NOT_SUPPORTED);
	if (descr->type != CU_FILE_HANDLE_TYPE_OPAQUE_FD)
		return status(CU_FILE_INVALID_VALUE);
	flags = fcntl(descr->handle.fd, F_GETFL);
	if (flags < 0 || fstat(descr->handle.fd, &st) < 0 || (flags & O_PATH))
		return status(CU_FILE_INVALID_VALUE);
	if (flags & (O_APPEND | O_NONBLOCK | O_NOATIME))
		return status(CU_FILE_INVALID_FILE_OPEN_FLAG);
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))
		return status(CU_FILE_INVALID_FILE_TYPE);
	ensure_open();
	f = calloc(1, sizeof(*f));
	if (!f)
		return status(CU_FILE_NOMEM_ERROR);
	f->fd = descr->handle.fd;
	f->bdev = S_ISBLK(st.st_mode);
	if (f->bdev && (ioctl(f->fd, BLKGETSIZE64, &f->size) < 0 ||
			ioctl(f->fd, BLKSSZGET, &f->lbs) < 0 || !f->lbs)) {
		free(f);
		return status(CU_FILE_INVALID_FILE_TYPE);
	}
	/* A file: whole blocks of its file system (its writes need them). */
	if (!f->bdev)
		f->lbs = st.st_blksize > 0 ? st.st_blksize : 4096;
	pthread_mutex_lock(&drv.lock);
	for (struct link *l = drv.fhs; l; l = l->next) {
		if (((struct fh *)l)->fd == f->fd) {
			pthread_mutex_unlock(&drv.lock);
			free(f);
			return status(CU_FILE_HANDLE_ALREADY_REGISTERED);
		}
	}
	f->cfd = reopen(f->fd, flags, f->bdev);
	if (f->cfd < 0) {
		pthread_mutex_unlock(&drv.lock);
		free(f);
		return status(errno == EACCES || errno == EPERM ? CU_FILE_PERMISSION_DENIED :
			      CU_FILE_GETNEWFD_FAILED);
	}
	link_add(&drv.fhs, &f->link);
	pthread_mutex_unlock(&drv.lock);
	*fhp = f;
	return status(CU_FILE_SUCCESS);
}

EXPORT void cuFileHandleDeregister(CUfileHandle_t h)
{
	struct fh *f = link_take(&drv.fhs, h);

	if (f) {
		close(f->cfd);
		free(f);
	}
}

/* ---- buffers ---------------------------------------------------------- */

static struct mem *mem_find_locked(const void *base)
{
	struct link *l;

	for (l = drv.mems; l; l = l->next)
		if (((struct mem *)l)->base == base)
			return (struct mem *)l;
	return NULL;
}

static bool is_cuda(const void *p)
{
	return drv.cuda_is_device && drv.cuda_is_device(p);
}

/* Host memory pinned through the module, whole pages; drv.lock held. */
static CUfileOpError pin_host(struct mem *m)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)m->base & ~(uintptr_t)(page - 1);
	uintptr_t end = ((uintptr_t)m->base + m->len + page - 1) & ~(uintptr_t)(page - 1);
	int r;

	r = gpupath_buf_host(drv.dev, (void *)start, end - start, &m->buf);
	if (r == -ENOMEM)
		return CU_FILE_NOMEM_ERROR;
	if (r < 0)
		return CU_FILE_INVALID_VALUE;
	m->off = (uintptr_t)m->base - start;
	m->own = true;
	return CU_FILE_SUCCESS;
}

EXPORT CUfileError_t cuFileBufRegister(const void *base, size_t length, int flags)
{
	CUfileOpError err = CU_FILE_SUCCESS;
	struct gpupath_buf *buf;
	struct mem *m;
	uint64_t off;

	if (!base || !length || (flags & ~(CU_FILE_RDMA_REGISTER | CU_FILE_RDMA_RELAXED_ORDERING)))
		return status(CU_FILE_INVALID_VALUE);
	ensure_open();
	m = calloc(1, sizeof(*m));
	if (!m)
		return status(CU_FILE_NOMEM_ERROR);
	m->base = base;
	m->len = length;
	pthread_mutex_lock(&drv.lock);
	if (mem_find_locked(base)) {
		err = CU_FILE_MEMORY_ALREADY_REGISTERED;
	} else if ((buf = gpupath_buf_lookup(base, &off))) {
		/* gpupath memory: the range must be inside it. */
		if (length > gpupath_buf_size(buf) - off)
			err = CU_FILE_CUDA_POINTER_RANGE_ERROR;
		m->buf = buf;
		m->off = off;
	} else if (is_cuda(base)) {
		/* Pinned per I/O by libgpupath-cuda. */
		m->cuda = true;
	} else if (drv.dev) {
		err = pin_host(m);
	}
	if (err == CU_FILE_SUCCESS)
		link_add(&drv.mems, &m->link);
	pthread_mutex_unlock(&drv.lock);
	if (err != CU_FILE_SUCCESS)
		free(m);
	return status(err);
}

EXPORT CUfileError_t cuFileBufDeregister(const void *base)
{
	struct mem *m;

	if (!base)
		return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	m = mem_find_locked(base);
	pthread_mutex_unlock(&drv.lock);
	m = m ? link_take(&drv.mems, m) : NULL;
	if (!m)
		return status(CU_FILE_MEMORY_NOT_REGISTERED);
	if (m->own)
		gpupath_buf_free(m->buf);
	free(m);
	return status(CU_FILE_SUCCESS);
}

/* ---- I/O -------------------------------------------------------------- */

/*
 * Where @size bytes at @base + @boff are. A registered buffer is named by
 * its base and must hold the range; other memory is looked up.
 */
static CUfileOpError resolve(const void *base, off_t boff, size_t size, struct target *t)
{
	struct gpupath_buf *buf;
	struct mem *m;
	uint64_t off;

	memset(t, 0, sizeof(*t));
	if (!base || boff < 0)
		return CU_FILE_INVALID_VALUE;
	t->addr = (char *)base + boff;
	pthread_mutex_lock(&drv.lock);
	m = mem_find_locked(base);
	if (m) {
		pthread_mutex_unlock(&drv.lock);
		if ((size_t)boff > m->len || size > m->len - boff)
			return CU_FILE_INVALID_MAPPING_RANGE;
		t->buf = m->buf;
		t->off = m->off + boff;
		t->cuda = m->cuda;
		return CU_FILE_SUCCESS;
	}
	pthread_mutex_unlock(&drv.lock);
	buf = gpupath_buf_lookup(base, &off);
	if (buf) {
		if ((uint64_t)boff > gpupath_buf_size(buf) - off ||
		    size > gpupath_buf_size(buf) - off - boff)
			return CU_FILE_CUDA_POINTER_RANGE_ERROR;
		t->buf = buf;
		t->off = off + boff;
		return CU_FILE_SUCCESS;
	}
	t->cuda = is_cuda(t->addr);
	return CU_FILE_SUCCESS;
}

/* Bytes between the caller's memory and a host buffer. */
static int move(const struct target *t, uint64_t at, char *host, size_t n, bool to_host)
{
	if (t->cuda)
		return to_host ? drv.cuda_copy(host, t->addr + at, n, 0) :
				 drv.cuda_copy(t->addr + at, host, n, 1);
	if (to_host)
		memcpy(host, t->addr + at, n);
	else
		memcpy(t->addr + at, host, n);
	return 0;
}

static int full(int fd, char *p, size_t n, off_t off, bool wr)
{
	while (n) {
		ssize_t r = wr ? pwrite(fd, p, n, off) : pread(fd, p, n, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return wr ? -EIO : 0;
		p += r;
		n -= r;
		off += r;
	}
	return 0;
}

/*
 * The compat way: through a host buffer and the handle's second descriptor.
 * Block devices (O_DIRECT) in whole logical blocks, reading around a partial
 * one before writing it. Returns the bytes moved or a negative errno.
 */
static ssize_t compat(struct fh *f, const struct target *t, size_t size, off_t foff, bool wr)
{
	size_t al = f->bdev ? f->lbs : 1, done = 0;
	ssize_t ret = 0;
	char *tmp;

	if (posix_memalign((void **)&tmp, 4096, CHUNK + 2 * al))
		return -ENOMEM;
	while (done < size) {
		off_t pos = foff + done;
		off_t a0 = pos - pos % al;
		size_t head = pos - a0;
		size_t n = size - done < CHUNK ? size - done : CHUNK;
		size_t alen = (head + n + al - 1) / al * al;
		int r = 0;

		if (!f->bdev && !wr) {
			ssize_t got = pread(f->cfd, tmp, n, pos);

			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0) {
				ret = -errno;
				break;
			}
			if (got && (r = move(t, done, tmp, got, false)) < 0) {
				ret = r;
				break;
			}
			done += got;
			if ((size_t)got < n)
				break;	/* end of file */
			continue;
		}
		if (!wr || head || (head + n) % al)
			r = full(f->cfd, tmp, alen, a0, false);
		if (r == 0)
			r = move(t, done, tmp + head, n, wr);
		if (r == 0 && wr)
			r = full(f->cfd, tmp, f->bdev ? alen : n, f->bdev ? a0 : pos, true);
		if (r < 0) {
			ret = r;
			break;
		}
		done += n;
	}
	free(tmp);
	return done ? (ssize_t)done : ret;
}

/* How the module is to serve device memory: as the configuration says. */
static enum gpupath_io_policy io_policy(void)
{
	if (drv.force_compat)
		return GPUPATH_POLICY_COMPAT;
	return drv.allow_compat ? GPUPATH_POLICY_AUTO : GPUPATH_POLICY_DIRECT;
}

/* 0, a negative errno, or -CU_FILE_IO_NOT_SUPPORTED: not direct, no compat. */
static int module_io(struct fh *f, const struct target *t, size_t size, off_t foff, bool wr)
{
	enum gpupath_io_policy policy = io_policy();
	int r;

	if (t->cuda && wr)
		r = drv.cuda_write(drv.dev, t->addr, f->fd, foff, size, policy, &last);
	else if (t->cuda)
		r = drv.cuda_read(drv.dev, t->addr, f->fd, foff, size, policy, &last);
	else
		r = (wr ? gpupath_write : gpupath_read)(t->buf, t->off, f->fd, foff, size, policy,
							&last);
	return r == -EXDEV && policy == GPUPATH_POLICY_DIRECT ? -CU_FILE_IO_NOT_SUPPORTED : r;
}

/* Why the module cannot do this I/O; GPUPATH_REASON_NONE when it can. */
static uint32_t module_refusal(const struct fh *f, const struct target *t, size_t size,
			       off_t foff)
{
	if (!drv.dev)
		return GPUPATH_REASON_NO_MODULE;
	if (!t->buf && !t->cuda)
		return GPUPATH_REASON_NONE;	/* host memory not registered: host I/O */
	if ((size | foff | (t->cuda ? 0 : t->off)) % f->lbs)
		return GPUPATH_REASON_UNALIGNED;
	return GPUPATH_REASON_NONE;
}

/* Through the module: nothing refuses it, and the memory is the module's to reach. */
static bool via_module(const struct target *t, uint32_t refusal)
{
	return refusal == GPUPATH_REASON_NONE && (t->buf || t->cuda);
}

/* Clamp to the end of a block device; false when nothing is left. */
static bool clamp(const struct fh *f, off_t foff, size_t *size)
{
	if (!f->bdev)
		return *size > 0;
	if ((uint64_t)foff >= f->size)
		return false;
	if (*size > f->size - foff)
		*size = f->size - foff;
	return *size > 0;
}

/* One synchronous I/O: bytes moved, or a negative errno. */
static ssize_t run_io(struct fh *f, const struct target *t, size_t size, off_t foff, bool wr)
{
	uint32_t refusal = module_refusal(f, t, size, foff);
	ssize_t r;

	last.mode = GPUPATH_MODE_NONE;
	last.reason = GPUPATH_REASON_NONE;
	if (!clamp(f, foff, &size))
		return 0;
	if (via_module(t, refusal)) {
		r = module_io(f, t, size, foff, wr);
		/* A file read may end at the end of the file. */
		return r < 0 ? r : (ssize_t)last.len;
	}
	if (t->cuda && !drv.cuda_copy)
		return -EOPNOTSUPP;
	/* Device memory that cannot go direct, and compat mode not allowed. */
	if ((t->buf || t->cuda) && !drv.allow_compat && !drv.force_compat) {
		last.reason = refusal;
		return -CU_FILE_IO_NOT_SUPPORTED;
	}
	r = compat(f, t, size, foff, wr);
	if (r >= 0) {
		last.mode = t->buf || t->cuda ? GPUPATH_MODE_BOUNCE : GPUPATH_MODE_HOST;
		last.reason = refusal;
	}
	return r;
}

static ssize_t do_io(CUfileHandle_t h, const void *base, size_t size, off_t foff, off_t boff,
		     bool wr)
{
	struct target t;
	CUfileOpError err;
	struct fh *f;
	ssize_t r;

	ensure_open();
	if (!h || !base || foff < 0 || boff < 0)
		return -CU_FILE_INVALID_VALUE;
	if (size > SSIZE_MAX)
		size = SSIZE_MAX;
	pthread_mutex_lock(&drv.lock);
	f = fh_find_locked(h);
	pthread_mutex_unlock(&drv.lock);
	if (!f)
		return -CU_FILE_HANDLE_NOT_REGISTERED;
	err = resolve(base, boff, size, &t);
	if (err != CU_FILE_SUCCESS)
		return -(ssize_t)err;
	r = run_io(f, &t, size, foff, wr);
	/* cuFile's own errors are returned negated, errnos through errno. */
	if (r <= -CUFILEOP_BASE_ERR)
		return r;
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

EXPORT ssize_t cuFileRead(CUfileHandle_t fh, void *base, size_t size, off_t file_offset,
			  off_t buf_offset)
{
	return do_io(fh, base, size, file_offset, buf_offset, false);
}

EXPORT ssize_t cuFileWrite(CUfileHandle_t fh, const void *base, size_t size, off_t file_offset,
			   off_t buf_offset)
{
	return do_io(fh, base, size, file_offset, buf_offset, true);
}

/* ---- batches ---------------------------------------------------------- */

static struct batch *batch_find_locked(CUfileBatchHandle_t h)
{
	return link_find(drv.batches, h);
}

EXPORT CUfileError_t cuFileBatchIOSetUp(CUfileBatchHandle_t *bp, unsigned nr)
{
	struct batch *b;
	unsigned int i;

	if (!bp || !nr || nr > BATCH_MAX)
		return status(CU_FILE_INVALID_VALUE);
	ensure_open();
	b = calloc(1, sizeof(*b));
	if (b)
		b->slots = calloc(nr, sizeof(*b->slots));
	if (!b || !b->slots) {
		free(b);
		return status(CU_FILE_NOMEM_ERROR);
	}
	b->max = nr;
	for (i = 0; i < nr; i++)
		b->slots[i].b = b;
	pthread_mutex_lock(&drv.lock);
	link_add(&drv.batches, &b->link);
	pthread_mutex_unlock(&drv.lock);
	*bp = b;
	return status(CU_FILE_SUCCESS);
}

static void slot_done(struct slot *s, ssize_t ret)
{
	s->inflight = false;
	if (s->canceled) {
		s->status = CUFILE_CANCELED;
		s->ret = 0;
	} else {
		s->status = ret < 0 ? CUFILE_FAILED : CUFILE_COMPLETE;
		s->ret = ret;
	}
}

/* A synchronous I/O for a slot (compat, or what the module did not take). */
static ssize_t slot_run(struct slot *s)
{
	return run_io(s->fh, &s->t, s->len, s->p.u.batch.file_offset, s->p.opcode == CUFILE_WRITE);
}

EXPORT CUfileError_t cuFileBatchIOSubmit(CUfileBatchHandle_t h, unsigned nr,
					 CUfileIOParams_t *io, unsigned int flags)
{
	struct slot *slots[BATCH_MAX], *sync[BATCH_MAX];
	struct gpupath_iov iov[BATCH_MAX];
	struct target t[BATCH_MAX];
	size_t len[BATCH_MAX];
	unsigned int i, j, n = 0, k = 0, nsync = 0;
	CUfileOpError err = CU_FILE_SUCCESS, rerr = CU_FILE_SUCCESS;
	struct batch *b;
	int started = 0;

	if (!io || !nr || nr > BATCH_MAX || flags)
		return status(CU_FILE_INVALID_VALUE);
	/* Where each entry's memory is: resolve() takes drv.lock itself. */
	for (i = 0; i < nr && rerr == CU_FILE_SUCCESS; i++) {
		len[i] = io[i].u.batch.size > SSIZE_MAX ? SSIZE_MAX : io[i].u.batch.size;
		rerr = resolve(io[i].u.batch.devPtr_base, io[i].u.batch.devPtr_offset, len[i],
			       &t[i]);
	}

	/*
	 * Slots are found free and filled in one hold of the lock: a slot that
	 * is free when the lock is let go may be taken by another thread
	 * submitting to this batch, and one thread's entry would overwrite
	 * the other's.
	 */
	pthread_mutex_lock(&drv.lock);
	b = batch_find_locked(h);
	if (!b || nr > b->max) {
		pthread_mutex_unlock(&drv.lock);
		return status(CU_FILE_INVALID_VALUE);
	}
	/* Every entry checked, and a slot found for each, before any starts. */
	for (i = 0, j = 0; i < nr && err == CU_FILE_SUCCESS; i++) {
		CUfileIOParams_t *p = &io[i];

		if (p->mode != CUFILE_BATCH ||
		    (p->opcode != CUFILE_READ && p->opcode != CUFILE_WRITE) ||
		    p->u.batch.file_offset < 0 || !fh_find_locked(p->fh)) {
			err = CU_FILE_INVALID_VALUE;
			break;
		}
		while (j < b->max && b->slots[j].busy)
			j++;
		if (j == b->max) {
			err = CU_FILE_BATCH_FULL;
			break;
		}
		slots[n++] = &b->slots[j++];
	}
	if (err == CU_FILE_SUCCESS)
		err = rerr;
	if (err != CU_FILE_SUCCESS) {
		pthread_mutex_unlock(&drv.lock);
		return status(err);
	}
	for (i = 0; i < n; i++) {
		struct slot *s = slots[i];
		bool wr = io[i].opcode == CUFILE_WRITE;

		s->p = io[i];
		s->fh = fh_find_locked(io[i].fh);
		s->t = t[i];
		s->len = len[i];
		s->busy = true;
		/*
		 * Not done until slot_done(), whoever runs it: the module, or
		 * this thread below, outside the lock. Until then status does
		 * not report it as it stands (pending), nor frees its slot.
		 */
		s->inflight = true;
		s->canceled = false;
		s->status = CUFILE_PENDING;
		s->ret = 0;
		/* Asynchronous only on the library's own descriptor: see gpupath_cufile_dev(). */
		if (s->fh && clamp(s->fh, io[i].u.batch.file_offset, &s->len) && s->t.buf &&
		    gpupath_buf_dev(s->t.buf) == drv.dev &&
		    via_module(&s->t,
			       module_refusal(s->fh, &s->t, s->len, io[i].u.batch.file_offset))) {
			iov[k] = (struct gpupath_iov){
				.buf = s->t.buf, .buf_off = s->t.off, .fd = s->fh->fd,
				.op = wr ? GPUPATH_IO_WRITE : GPUPATH_IO_READ,
				.dev_off = io[i].u.batch.file_offset, .len = s->len,
				.user_data = (uintptr_t)s,
			};
			k++;
		} else {
			sync[nsync++] = s;
		}
	}
	pthread_mutex_unlock(&drv.lock);
	if (k) {
		started = gpupath_submit(drv.dev, iov, k);
		if (started < 0)
			started = 0;
		/* What the module did not take runs here, at once. */
		for (i = started; i < k; i++)
			sync[nsync++] = (struct slot *)(uintptr_t)iov[i].user_data;
	}
	for (i = 0; i < nsync; i++) {
		ssize_t r = sync[i]->fh ? slot_run(sync[i]) : -EBADF;

		pthread_mutex_lock(&drv.lock);
		slot_done(sync[i], r);
		pthread_mutex_unlock(&drv.lock);
	}
	return status(CU_FILE_SUCCESS);
}

/* Completions from the module, each handed to its slot; waits up to @ms. */
static void reap(int ms)
{
	struct gpupath_completion c[32];
	int n, i;

	pthread_mutex_lock(&drv.reap_lock);
	n = drv.dev ? gpupath_reap(drv.dev, c, 32, ms) : 0;
	pthread_mutex_unlock(&drv.reap_lock);
	for (i = 0; i < n; i++) {
		struct slot *s = (struct slot *)(uintptr_t)c[i].user_data;
		ssize_t r = c[i].result;
		/* Bytes moved: fewer at the end of a file. */
		size_t moved = c[i].len;

		/* Refused direct: bounced here, as cuFileRead() would. */
		if (r == -EXDEV && !s->canceled) {
			r = module_io(s->fh, &s->t, s->len, s->p.u.batch.file_offset,
				      s->p.opcode == CUFILE_WRITE);
			moved = last.len;
		}
		pthread_mutex_lock(&drv.lock);
		slot_done(s, r < 0 ? r : (ssize_t)moved);
		pthread_mutex_unlock(&drv.lock);
	}
	if (n <= 0 && ms > 0 && !drv.dev)
		usleep(1000);
}

static long ms_left(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (end->tv_sec - now.tv_sec) * 1000 + (end->tv_nsec - now.tv_nsec) / 1000000;
}

EXPORT CUfileError_t cuFileBatchIOGetStatus(CUfileBatchHandle_t h, unsigned min_nr, unsigned *nr,
					    CUfileIOEvents_t *ev, struct timespec *timeout)
{
	struct timespec end;
	unsigned int got = 0, i;
	struct batch *b;

	if (!nr || !ev || min_nr > *nr || (timeout && (timeout->tv_sec < 0 ||
	    timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000)))
		return status(CU_FILE_INVALID_VALUE);
	if (timeout) {
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += timeout->tv_sec + (end.tv_nsec + timeout->tv_nsec) / 1000000000;
		end.tv_nsec = (end.tv_nsec + timeout->tv_nsec) % 1000000000;
	}
	for (;;) {
		bool inflight = false;
		long left;

		pthread_mutex_lock(&drv.lock);
		b = batch_find_locked(h);
		if (!b) {
			pthread_mutex_unlock(&drv.lock);
			return status(CU_FILE_INVALID_VALUE);
		}
		for (i = 0; i < b->max && got < *nr; i++) {
			struct slot *s = &b->slots[i];

			if (!s->busy || s->inflight) {
				inflight |= s->inflight;
				continue;
			}
			ev[got].cookie = s->p.cookie;
			ev[got].status = s->status;
			ev[got].ret = (size_t)s->ret;
			s->busy = false;
			got++;
		}
		for (; i < b->max; i++)
			inflight |= b->slots[i].inflight;
		pthread_mutex_unlock(&drv.lock);
		if (got >= min_nr || got == *nr || !inflight)
			break;
		left = timeout ? ms_left(&end) : 50;
		if (left <= 0)
			break;
		reap(left < 50 ? (int)left : 50);
	}
	*nr = got;
	return status(CU_FILE_SUCCESS);
}

/*
 * Cancel: what is in flight ends as canceled, once the module (or the thread
 * that runs it) is done with it.
 */
static void batch_cancel(struct batch *b)
{
	unsigned int i;
	bool inflight;

	pthread_mutex_lock(&drv.lock);
	for (i = 0; i < b->max; i++)
		if (b->slots[i].inflight)
			b->slots[i].canceled = true;
	pthread_mutex_unlock(&drv.lock);
	do {
		inflight = false;
		pthread_mutex_lock(&drv.lock);
		for (i = 0; i < b->max; i++)
			inflight |= b->slots[i].inflight;
		pthread_mutex_unlock(&drv.lock);
		if (inflight)
			reap(50);
	} while (inflight);
}

static void batch_free(struct batch *b)
{
	free(b->slots);
	free(b);
}

EXPORT CUfileError_t cuFileBatchIOCancel(CUfileBatchHandle_t h)
{
	struct batch *b;

	pthread_mutex_lock(&drv.lock);
	b = batch_find_locked(h);
	pthread_mutex_unlock(&drv.lock);
	if (!b)
		return status(CU_FILE_INVALID_VALUE);
	batch_cancel(b);
	return status(CU_FILE_SUCCESS);
}

EXPORT void cuFileBatchIODestroy(CUfileBatchHandle_t h)
{
	struct batch *b = link_take(&drv.batches, h);

	if (!b)
		return;
	batch_cancel(b);
	batch_free(b);
}

/* ---- streams: not provided ---------------------------------------------- */

EXPORT CUfileError_t cuFileReadAsync(CUfileHandle_t fh, void *base, size_t *size_p,
				     off_t *file_offset_p, off_t *buf_offset_p,
				     ssize_t *bytes_read_p, CUstream stream)
{
	(void)fh, (void)base, (void)size_p, (void)file_offset_p, (void)buf_offset_p;
	(void)bytes_read_p, (void)stream;
	return status(CU_FILE_ASYNC_NOT_SUPPORTED);
}

EXPORT CUfileError_t cuFileWriteAsync(CUfileHandle_t fh, void *base, size_t *size_p,
				      off_t *file_offset_p, off_t *buf_offset_p,
				      ssize_t *bytes_written_p, CUstream stream)
{
	(void)fh, (void)base, (void)size_p, (void)file_offset_p, (void)buf_offset_p;
	(void)bytes_written_p, (void)stream;
	return status(CU_FILE_ASYNC_NOT_SUPPORTED);
}

EXPORT CUfileError_t cuFileStreamRegister(CUstream stream, unsigned flags)
{
	(void)stream, (void)flags;
	return status(CU_FILE_ASYNC_NOT_SUPPORTED);
}

EXPORT CUfileError_t cuFileStreamDeregister(CUstream stream)
{
	(void)stream;
	return status(CU_FILE_ASYNC_NOT_SUPPORTED);
}
