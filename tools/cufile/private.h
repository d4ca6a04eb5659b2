/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal to libgpupath-cufile, the cuFile API on libgpupath. Its files:
 *
 *   cufile.c   the driver: open and close, properties, the version, error
 *              strings, the lists of objects
 *   config.c   NVIDIA's configuration file (cufile.json)
 *   handle.c   file handles
 *   memory.c   buffers: gpupath device memory, host memory, CUDA memory
 *   io.c       cuFileRead and cuFileWrite: through the module, or compat
 *   batch.c    the batch API
 *   stream.c   the stream API
 *   params.c   the parameter and statistics API
 *
 * Only the API's functions (EXPORT) leave the library (libcufile.map).
 */
#ifndef GPUPATH_CUFILE_PRIVATE_H
#define GPUPATH_CUFILE_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libgpupath.h"
#include "internal.h"
#include "cufile.h"

#define EXPORT __attribute__((visibility("default")))

/* The cuFile API level implemented: 1.15 (streams, parameters, statistics). */
#define API_VERSION	1150
/* Entries per batch: io_batchsize, up to BATCH_MAX as NVIDIA's allows. */
#define BATCH_DEFAULT	128
#define BATCH_MAX	256
/* Compat I/O per pread()/pwrite(): max_direct_io_size_kb, up to CHUNK_MAX. */
#define CHUNK_MAX	(16u << 20)
#define CHUNK		(4u << 20)	/* the size of a bounce buffer, announced */
/* NVIDIA's defaults of the properties, in KiB. */
#define POLL_KB_DEFAULT		4
#define MAX_DIRECT_KB_DEFAULT	16384
#define MAX_CACHE_KB_DEFAULT	131072
#define MAX_PINNED_KB_DEFAULT	33554432
/* What the program set through cuFileDriverSet*, which the file does not override. */
#define API_SET_POLL	1u
#define API_SET_DIRECT	2u
#define API_SET_CACHE	4u
#define API_SET_PINNED	8u
#define API_SET_STATS	16u
#define DEFAULT_TIMEOUT_MS 1000

/* The lists of handles, buffers and batches: each object starts with a link. */
struct link {
	struct link *next;
};

struct fh {
	struct link link;
	int fd;			/* the caller's */
	/*
	 * fd is O_DIRECT: compat I/O goes through it in whole blocks. The
	 * caller's descriptor serves compat I/O as it is: its status flags
	 * (O_DSYNC) hold, the module keeps the page cache coherent with its
	 * direct I/O as the kernel's O_DIRECT does, and nothing is opened
	 * again, which may be impossible (no /proc; a descriptor handed over
	 * by a process that could open the file) and whose closing would drop
	 * the process's fcntl locks on the file.
	 */
	bool odirect;
	/*
	 * I/Os under way with it (drv.lock): a handle deregistered meanwhile
	 * leaves the list at once and is freed by the last of them.
	 */
	unsigned int users;
	bool gone;
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

/*
 * Work for the library's threads (batch.c): @run on a worker, no lock held,
 * then @done with drv.lock held; drv.done is signalled after.
 */
struct job {
	void (*run)(struct job *j);
	void (*done)(struct job *j);
	struct job *next;		/* in drv.queue */
};

struct slot {
	struct job job;		/* a batch entry run by a worker */
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
	uint64_t t0;		/* stats_clock() at the submission */
	ssize_t wret;		/* what a worker's run returned */
};

struct batch {
	struct link link;
	unsigned int max;
	struct slot *slots;
};

struct drv {
	pthread_mutex_t lock;		/* everything below but reaping */
	pthread_mutex_t reap_lock;	/* one reaper at a time */
	pthread_cond_t done;		/* a worker finished a job (drv.lock) */
	struct job *queue, **queue_tail;	/* jobs for the workers (drv.lock) */
	unsigned int workers, worker_busy;	/* started; running an entry */
	long opens;
	struct gpupath_dev *dev;	/* NULL: no module */
	struct link *fhs, *mems, *batches;
	size_t poll_kb, max_direct_kb, max_cache_kb, max_pinned_kb;
	bool poll;
	bool allow_compat;		/* allow_compat_mode */
	bool force_compat;		/* force_compat_mode, CUFILE_FORCE_COMPAT_MODE */
	bool rdma_write;		/* gds_rdma_write_support: device memory written direct */
	size_t batch_size;		/* io_batchsize: entries a batch may hold */
	unsigned int api_set;		/* API_SET_*: set by the program, over the file */
	struct link *streams;		/* registered with cuFileStreamRegister */
	size_t stats_level;		/* cuFileSetStatsLevel, profile.cufile_stats: 0 to 3 */
	void *cuda_lib;
	int (*cuda_is_device)(const void *p);
	int (*cuda_copy)(void *dst, const void *src, uint64_t n, int to_device);
	int (*cuda_read)(struct gpupath_dev *dev, void *dptr, int fd, uint64_t dev_off,
			 uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res);
	int (*cuda_write)(struct gpupath_dev *dev, const void *dptr, int fd, uint64_t dev_off,
			  uint64_t len, enum gpupath_io_policy policy,
			  struct gpupath_result *res);
};

/* The driver's state: cufile.c. */
extern struct drv drv;
/* What served the calling thread's last I/O. */
extern __thread struct gpupath_result last;



static inline CUfileError_t status(CUfileOpError err)
{
	CUfileError_t s = { .err = err };

	return s;
}

static inline void link_add(struct link **head, struct link *l)
{
	l->next = *head;
	*head = l;
}

/* @obj if it is in the list; drv.lock held. */
static inline void *link_find(struct link *head, const void *obj)
{
	for (; head; head = head->next)
		if (head == obj)
			return head;
	return NULL;
}

/* @obj taken out of the list, if it was in it (NULL otherwise). */
static inline void *link_take(struct link **head, const void *obj)
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

/* cufile.c */
/* Opens the driver for calls that need it (the first registration, I/O). */
void ensure_open(void);

/* config.c */
/* Reads NVIDIA's configuration file into drv, drv.lock held. */
void config_load(void);

/* handle.c */
/* The handle's state; drv.lock held. NULL if it is no handle. */
struct fh *fh_find_locked(CUfileHandle_t h);
/* The handle's state, held for an I/O until fh_put(); drv.lock held. NULL if none. */
struct fh *fh_get_locked(CUfileHandle_t h);
/* Lets go of a handle held; drv.lock held, or not (fh_put). */
void fh_put_locked(struct fh *f);
void fh_put(struct fh *f);
/* Frees a handle taken out of the list (now, or by its last user); drv.lock held. */
void fh_free_locked(struct fh *f);

/* memory.c */
/* The registered buffer starting at @base; drv.lock held. */
struct mem *mem_find_locked(const void *base);
/* Whether @p is CUDA device memory (libgpupath-cuda says). */
bool is_cuda(const void *p);

/* io.c */
/*
 * cuFileRead()/cuFileWrite(): bytes moved, -1 with errno, or a cuFile error
 * negated.
 */
ssize_t do_io(CUfileHandle_t h, const void *base, size_t size, off_t foff, off_t boff, bool wr);
/* Where the @size bytes at @boff of @base are: CU_FILE_SUCCESS or why not. */
CUfileOpError resolve(const void *base, off_t boff, size_t size, struct target *t);
/* One synchronous I/O: bytes moved, or a negative errno. */
ssize_t run_io(struct fh *f, const struct target *t, size_t size, off_t foff, bool wr);
/* Through the module: 0, a negative errno, or -CU_FILE_IO_NOT_SUPPORTED. */
int module_io(struct fh *f, const struct target *t, size_t size, off_t foff, bool wr);
/* Why the module cannot do this I/O; GPUPATH_REASON_NONE when it can. */
uint32_t module_refusal(const struct fh *f, const struct target *t, size_t size, off_t foff);
/* Through the module: nothing refuses it, and the memory is the module's to reach. */
bool via_module(const struct target *t, uint32_t refusal);
/* Clamp to the end of a block device; false when nothing is left. */
bool clamp(const struct fh *f, off_t foff, size_t *size);

/* stream.c */
/* Forgets the registered streams (the driver is closing), drv.lock held. */
void streams_forget(void);

/* params.c */
/* Takes the parameters set before the open (over the file's), drv.lock held. */
void params_apply(void);
/* Now, for stats_io(), while statistics run; 0 otherwise. */
uint64_t stats_clock(void);
/* Counts one call into the CUfileOpCounter_t at @counter of CUfileStatsLevel1_t. */
void stats_op(size_t counter, bool ok);
/* Counts an I/O of @size bytes that returned @r, started at @t0 (stats_clock()). */
void stats_io(bool wr, bool batch, ssize_t r, size_t size, uint64_t t0);
#define STATS_OP(field, ok) stats_op(offsetof(CUfileStatsLevel1_t, field), ok)

/* batch.c */
/* Queues @j for a worker, drv.lock held; false if no worker could be started. */
bool worker_queue(struct job *j);
/* Cancels what @b has in flight, and waits for it. */
void batch_cancel(struct batch *b);
void batch_free(struct batch *b);

#endif /* GPUPATH_CUFILE_PRIVATE_H */
