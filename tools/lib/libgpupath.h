/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libgpupath: the application interface of gpupath.
 *
 * The data device /dev/gpupath: device memory and pinned host memory as
 * buffers, reads and writes between them and block devices or files, alone
 * or in batches, each saying whether it went direct and why not. Opaque
 * handles; functions return 0 or a negative errno. Configuring gpupath (its
 * providers, volumes, paths, portals and QoS classes) is libgpupath-admin.h.
 *
 * The library exports only what this header and libgpupath-admin.h declare,
 * in version nodes (tools/lib/libgpupath.map): LIBGPUPATH_0, the interface
 * as first released, and LIBGPUPATH_0.2, which added functions and made the
 * structures the control plane fills size-tagged (libgpupath-admin.h says
 * how). A program keeps the versions it was linked with: one built against
 * the first release runs on this library unchanged. The structures of this
 * header (gpupath_result, gpupath_iov) keep their layout.
 */
#ifndef LIBGPUPATH_H
#define LIBGPUPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/gpupath.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

#define GPUPATH_DEV_PATH	"/dev/" GPUPATH_DEVICE_NAME

/* Version of these tools and this library. */
const char *gpupath_tools_version(void);

/* ---- data device ---------------------------------------------------- */

struct gpupath_dev;

int gpupath_dev_open(struct gpupath_dev **dev);
void gpupath_dev_close(struct gpupath_dev *dev);
int gpupath_dev_fd(const struct gpupath_dev *dev);
int gpupath_dev_version(struct gpupath_dev *dev, struct gpupath_version *ver);

/* ---- buffers and I/O ------------------------------------------------- */

struct gpupath_buf;

/* Device memory from provider @provider, mapped into this process. */
int gpupath_buf_alloc(struct gpupath_dev *dev, uint32_t provider, size_t size,
		      struct gpupath_buf **buf);
/*
 * Why gpupath_buf_alloc(@provider, @want) failed with @err, in words, into
 * @msg. For -EDQUOT it asks the module (netlink) which of the provider's
 * limits the caller's user or cgroup would pass, and what each holds:
 * "provider 1: user 1001 holds 48 MiB, its limit is 64 MiB". Returns 0, or
 * a negative errno when it could not ask (@msg then says less).
 */
int gpupath_alloc_explain(uint32_t provider, size_t want, int err, char *msg, size_t size);
/* Host memory at @addr (page-aligned), pinned for I/O. */
int gpupath_buf_host(struct gpupath_dev *dev, void *addr, size_t size,
		     struct gpupath_buf **buf);
/*
 * @size bytes (a multiple of the page size, else -EINVAL) of host memory
 * allocated here and pinned: page-aligned heap memory, or with
 * GPUPATH_HUGEPAGES=1 in the environment huge pages when the system has
 * some free (vm.nr_hugepages). The bounce buffer of the compat path is made
 * the same way. gpupath_buf_free() releases it.
 */
int gpupath_buf_host_alloc(struct gpupath_dev *dev, size_t size, struct gpupath_buf **buf);
void gpupath_buf_free(struct gpupath_buf *buf);
/* The buffer's memory in this process (device memory: an uncached mapping). */
void *gpupath_buf_addr(const struct gpupath_buf *buf);
size_t gpupath_buf_size(const struct gpupath_buf *buf);
uint64_t gpupath_buf_handle(const struct gpupath_buf *buf);
/*
 * The buffer of this process (device memory, or registered host memory)
 * whose mapping holds @addr, and @addr's offset in it; NULL if none does.
 * The buffer must not be freed while the answer is in use.
 */
struct gpupath_buf *gpupath_buf_lookup(const void *addr, uint64_t *off);
/* The data device the buffer was made on. */
struct gpupath_dev *gpupath_buf_dev(const struct gpupath_buf *buf);
/* Device memory: the BAR of the provider's device holding it, and where. */
int gpupath_buf_location(const struct gpupath_buf *buf, uint32_t *bar, uint64_t *offset);

/*
 * How an I/O may be served:
 *   AUTO    directly when the device can DMA into the buffer, else through
 *           host memory (the default);
 *   DIRECT  directly or not at all (-EXDEV, with the reason);
 *   COMPAT  always through host memory: read into pinned host memory, then
 *           copy into the buffer (write: the other way).
 */
enum gpupath_io_policy {
	GPUPATH_POLICY_AUTO,
	GPUPATH_POLICY_DIRECT,
	GPUPATH_POLICY_COMPAT,
};

/* Extends enum gpupath_io_mode: the library bounced it through host memory. */
#define GPUPATH_MODE_BOUNCE	100

/*
 * Extends enum gpupath_reason: reasons the libraries find before asking the
 * module, which never sends these.
 */
#define GPUPATH_REASON_NOT_BLOCK_DEVICE	100	/* a file, and a module that takes none */
#define GPUPATH_REASON_UNALIGNED	101	/* not in logical blocks of the device */
#define GPUPATH_REASON_NO_MODULE	102	/* /dev/gpupath cannot be opened */
/*
 * Why CUDA memory could not be pinned for a direct I/O (libgpupath-cuda),
 * from the registration's error; besides GPUPATH_REASON_NO_GPU_REGION
 * (ENXIO) and GPUPATH_REASON_NO_PEER_MEMORY (ENODEV).
 */
#define GPUPATH_REASON_PIN_DENIED	103	/* EPERM: creating the GPU's region needs root */
#define GPUPATH_REASON_PIN_BUSY		104	/* EBUSY: region going away, or BAR1 mapping */
#define GPUPATH_REASON_PIN_UNSUPPORTED	105	/* ENOTSUPP: memory NVIDIA will not pin */
#define GPUPATH_REASON_PIN_NO_SPACE	106	/* ENOMEM, ENOSPC: BAR1 or memory exhausted */
#define GPUPATH_REASON_PIN_FAILED	107	/* any other error of the registration */
/* What served an I/O, and why it was not direct when it was not. */
struct gpupath_result {
	uint32_t mode;		/* GPUPATH_MODE_DIRECT, _HOST or _BOUNCE */
	uint32_t reason;	/* enum gpupath_reason */
	uint64_t len;		/* bytes moved: the length, or fewer at a file's end */
};

/*
 * Read @len bytes at @dev_off of the block device or regular file open as
 * @fd into @buf at @buf_off (write: the other way). A file on ext4 or XFS
 * goes direct as a block device does; a read there stops at the end of the
 * file (@res->len). A file the module refuses is bounced through the file
 * system's page cache with pread()/pwrite(). @res may be NULL.
 */
int gpupath_read(struct gpupath_buf *buf, uint64_t buf_off, int fd, uint64_t dev_off,
		 uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res);
int gpupath_write(struct gpupath_buf *buf, uint64_t buf_off, int fd, uint64_t dev_off,
		  uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res);

/* ---- names ----------------------------------------------------------- */

/* Short name of one GPUPATH_FEATURE_* bit ("p2pdma-usable"), NULL if unknown. */
const char *gpupath_feature_name(uint64_t bit);
/*
 * Space-separated names of the bits set in @features ("bitN" for bits these
 * tools do not know), or "none"; truncated to fit @size.
 */
void gpupath_features_format(uint64_t features, char *buf, size_t size);
/* Short name of a P2PDMA status ("ok", "not-built"), "unknown" otherwise. */
const char *gpupath_p2pdma_status_name(uint32_t status);
/* One sentence explaining a P2PDMA status to a user. */
const char *gpupath_p2pdma_status_text(uint32_t status);
/* Short name of a gpupath_reason ("no-p2p-route"), "unknown" otherwise. */
const char *gpupath_reason_name(uint32_t reason);
/* One sentence explaining a gpupath_reason. */
const char *gpupath_reason_text(uint32_t reason);
/* Name of a provider type ("p2pdma"), "unknown" otherwise. */
const char *gpupath_provider_type_name(uint32_t type);
/* Name of an I/O mode ("direct", "host", "bounce"). */
const char *gpupath_mode_name(uint32_t mode);

/* ---- CUDA memory (libgpupath-cuda, built where CUDA is installed) ------ */

/*
 * CUDA device memory at @dptr (64 KiB aligned, a multiple of 64 KiB) as a
 * buffer, pinned through the NVIDIA driver's peer-memory API. -ENODEV when
 * no NVIDIA driver offers that API. Read and write it with gpupath_read()
 * and gpupath_write() (policy direct or auto: it has no host mapping to
 * bounce through; gpupath_cuda_read() does that).
 */
int gpupath_buf_cuda(struct gpupath_dev *dev, void *dptr, size_t size,
		     struct gpupath_buf **buf);

/*
 * libgpupath-cuda: CUDA device memory, through NVIDIA's libcuda.so.1,
 * opened at run time (no CUDA at build time).
 *
 * Read into (write from) CUDA device memory at @dptr: directly when the
 * NVIDIA peer-memory API pins it and the device can reach the GPU, else
 * through pinned host memory and a copy in @dptr's context (the reason
 * says why: GPUPATH_REASON_UNALIGNED, a reason of the module's, or why the
 * pin failed, GPUPATH_REASON_NO_GPU_REGION, _NO_PEER_MEMORY or _PIN_*).
 * Pins are cached per allocation (its CUDA buffer ID) and reused.
 * Policy DIRECT fails with -EXDEV instead of bouncing, and with -EINVAL
 * where not in logical blocks. -EINVAL if @dev is NULL, or @dptr is not
 * CUDA device memory, or @len goes past its allocation; -EIO if CUDA fails.
 */
int gpupath_cuda_read(struct gpupath_dev *dev, void *dptr, int fd, uint64_t dev_off,
		      uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res);
int gpupath_cuda_write(struct gpupath_dev *dev, const void *dptr, int fd, uint64_t dev_off,
		       uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res);

/* Whether @p is CUDA device memory. */
int gpupath_cuda_is_device(const void *p);
/*
 * @n bytes between host memory and CUDA device memory: 0, -EINVAL if the
 * device side is not CUDA device memory or @n goes past its allocation,
 * or -EIO.
 */
int gpupath_cuda_copy(void *dst, const void *src, uint64_t n, int to_device);

/* ---- batches ----------------------------------------------------------- */

/* One I/O of a batch. */
struct gpupath_iov {
	struct gpupath_buf *buf;
	uint64_t buf_off;
	int fd;
	uint32_t op;		/* GPUPATH_IO_READ or GPUPATH_IO_WRITE */
	uint64_t dev_off;
	uint64_t len;
	uint64_t user_data;	/* comes back in the completion */
};

/*
 * Start up to GPUPATH_SUBMIT_MAX I/Os; returns how many started (from the
 * first) or a negative errno. They go direct or complete with -EXDEV and a
 * reason; bounce those with gpupath_read()/gpupath_write() if you want.
 */
int gpupath_submit(struct gpupath_dev *dev, const struct gpupath_iov *iov, unsigned int n);
/*
 * Collect up to @max completions, waiting up to @timeout_ms (-1: forever,
 * 0: not at all) for the first. Returns how many, or a negative errno.
 */
int gpupath_reap(struct gpupath_dev *dev, struct gpupath_completion *c, unsigned int max,
		 int timeout_ms);
/* Signal eventfd @efd once per completion (-1: stop). */
int gpupath_set_eventfd(struct gpupath_dev *dev, int efd);
/*
 * Completions belong to the descriptor, which a child of fork() shares:
 * in a child these three return -EBADFD (it would take its parent's
 * completions); a child that batches opens its own gpupath_dev.
 */

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* LIBGPUPATH_H */
