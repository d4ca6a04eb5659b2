// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cuda: I/O into and out of CUDA device memory.
 *
 * CUDA is not needed to build it: the CUDA driver API (libcuda.so.1, which
 * NVIDIA's driver installs) is opened at the first call, and without it no
 * pointer is CUDA memory (cuda-driver.h).
 *
 * Direct I/O pins the memory through the module (GPUPATH_IOC_REG_CUDA, the
 * NVIDIA peer-memory API), which takes NVIDIA's global lock twice per
 * registration. Registrations are therefore cached and reused while the
 * memory they pin is the same allocation: each entry remembers the CUDA
 * buffer ID of the allocation it was made for, and an address whose
 * allocation has another ID now (freed, and the address handed out again)
 * is never served by it. With persistent pages the driver keeps freed
 * memory for as long as it is pinned; a cache miss drops every entry whose
 * allocation is gone, and so does gpupath_cuda_* at the process's end (the
 * module lets go of what a closed descriptor held).
 *
 * The cache holds at most CACHE_SLOTS registrations of at most CACHE_BYTES
 * together (GPUPATH_CUDA_CACHE_MB overrides; 0 turns the cache off).
 *
 * Copies between host and device memory (I/O that does not go direct) run
 * on a stream of the library's own per context, created non-blocking, and
 * are waited for there: they are ordered with no stream of the program's,
 * as NVIDIA's cuFile I/O is not, so they may run while a program's stream
 * waits in a host function for that very I/O (the cuFile stream API). A
 * copy on the legacy default stream would wait for that stream for ever.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "cuda-driver.h"

#define GPU_PAGE	(64ULL << 10)	/* what the NVIDIA peer-memory API pins in */
#define CACHE_SLOTS	16
#define CACHE_BYTES	(1024ULL << 20)
/* An allocation up to this is registered whole, for the I/Os after. */
#define WHOLE_MAX	(256ULL << 20)

static struct {
	pthread_once_t once;
	bool ok;
	bool debug;
	gpcu_pointer_get_attributes_fn attrs;
	gpcu_ctx_push_fn push;
	gpcu_ctx_pop_fn pop;
	gpcu_memcpy_dtoh_fn dtoh;
	gpcu_memcpy_htod_fn htod;
	gpcu_device_get_fn device_get;
	gpcu_primary_ctx_retain_fn primary_retain;
	gpcu_memcpy_dtoh_async_fn dtoh_async;
	gpcu_memcpy_htod_async_fn htod_async;
	gpcu_stream_create_fn stream_create;
	gpcu_stream_sync_fn stream_sync;
	/* The library's copy streams, by context. */
	pthread_mutex_t stream_lock;
	struct {
		gpcu_context ctx;
		gpcu_stream stream;
	} streams[16];
	/* Primary contexts retained for memory of no context (memory pools), by device. */
	pthread_mutex_t primary_lock;
	gpcu_context primary[16];
} cu = { .once = PTHREAD_ONCE_INIT, .primary_lock = PTHREAD_MUTEX_INITIALIZER,
	  .stream_lock = PTHREAD_MUTEX_INITIALIZER };

/* One cached registration. */
struct reg {
	struct gpupath_dev *dev;
	struct gpupath_buf *buf;
	uintptr_t start, end;	/* the range pinned, whole GPU pages */
	uintptr_t probe;	/* an address inside the allocation */
	unsigned long long id;	/* its CUDA buffer ID */
	unsigned int users;
	uint64_t used;		/* when last taken, for eviction */
	bool cached;		/* in the table */
};

static struct {
	pthread_mutex_t lock;
	struct reg *slot[CACHE_SLOTS];
	uint64_t tick;
	uint64_t bytes, max_bytes;
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * A child of fork() shares the parent's /dev/gpupath: the pins are the
 * parent's, and the child forgets them (CUDA does not carry over a fork
 * either).
 */
static void cache_forget(void)
{
	memset(cache.slot, 0, sizeof(cache.slot));
	cache.bytes = 0;
	pthread_mutex_init(&cache.lock, NULL);
	memset(cu.streams, 0, sizeof(cu.streams));
	pthread_mutex_init(&cu.stream_lock, NULL);
}

static void cu_load(void)
{
	const char *env = getenv("GPUPATH_CUDA_CACHE_MB");
	void *lib = dlopen(GPCU_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	gpcu_init_fn init;

	cu.debug = getenv("GPUPATH_DEBUG") && *getenv("GPUPATH_DEBUG") == '1';
	cache.max_bytes = env ? strtoull(env, NULL, 10) << 20 : CACHE_BYTES;
	pthread_atfork(NULL, NULL, cache_forget);
	if (!lib)
		return;
	init = (gpcu_init_fn)dlsym(lib, "cuInit");
	cu.attrs = (gpcu_pointer_get_attributes_fn)dlsym(lib, "cuPointerGetAttributes");
	cu.push = (gpcu_ctx_push_fn)dlsym(lib, "cuCtxPushCurrent_v2");
	cu.pop = (gpcu_ctx_pop_fn)dlsym(lib, "cuCtxPopCurrent_v2");
	cu.dtoh = (gpcu_memcpy_dtoh_fn)dlsym(lib, "cuMemcpyDtoH_v2");
	cu.htod = (gpcu_memcpy_htod_fn)dlsym(lib, "cuMemcpyHtoD_v2");
	cu.device_get = (gpcu_device_get_fn)dlsym(lib, "cuDeviceGet");
	cu.primary_retain = (gpcu_primary_ctx_retain_fn)dlsym(lib, "cuDevicePrimaryCtxRetain");
	cu.dtoh_async = (gpcu_memcpy_dtoh_async_fn)dlsym(lib, "cuMemcpyDtoHAsync_v2");
	cu.htod_async = (gpcu_memcpy_htod_async_fn)dlsym(lib, "cuMemcpyHtoDAsync_v2");
	cu.stream_create = (gpcu_stream_create_fn)dlsym(lib, "cuStreamCreate");
	cu.stream_sync = (gpcu_stream_sync_fn)dlsym(lib, "cuStreamSynchronize");
	/* Kept loaded for the process's life, as CUDA's own runtime keeps it. */
	cu.ok = init && cu.attrs && cu.push && cu.pop && cu.dtoh && cu.htod && init(0) == 0;
}

static bool cu_ready(void)
{
	pthread_once(&cu.once, cu_load);
	return cu.ok;
}

/* What the driver knows of an address. */
struct dptr {
	gpcu_context ctx;	/* NULL for memory of a pool (cudaMallocAsync) */
	unsigned int type;
	unsigned long long id;
	int managed;
	int ordinal;
	gpcu_deviceptr base;
	size_t size;
};

/* Whether @p is in device memory (not managed), with its allocation into @d. */
static bool dptr_info(const void *p, struct dptr *d)
{
	unsigned int attrs[] = {
		GPCU_POINTER_ATTRIBUTE_CONTEXT, GPCU_POINTER_ATTRIBUTE_MEMORY_TYPE,
		GPCU_POINTER_ATTRIBUTE_BUFFER_ID, GPCU_POINTER_ATTRIBUTE_IS_MANAGED,
		GPCU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, GPCU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
		GPCU_POINTER_ATTRIBUTE_RANGE_SIZE,
	};
	void *data[] = { &d->ctx, &d->type, &d->id, &d->managed, &d->ordinal, &d->base,
			 &d->size };

	memset(d, 0, sizeof(*d));
	if (!cu_ready())
		return false;
	/* Not CUDA's: success, with every attribute zero. */
	if (cu.attrs(ARRAY_SIZE(attrs), attrs, data, (uintptr_t)p))
		return false;
	return d->type == GPCU_MEMORYTYPE_DEVICE && !d->managed &&
	       (uintptr_t)p - d->base < d->size;
}

/*
 * The context to copy in: the memory's own, or for memory of a pool, which
 * has none, its device's primary context (retained for the process's life).
 */
static gpcu_context copy_ctx(const struct dptr *d)
{
	gpcu_context ctx = d->ctx;
	gpcu_device dev;

	if (ctx || d->ordinal < 0 || d->ordinal >= (int)ARRAY_SIZE(cu.primary) ||
	    !cu.device_get || !cu.primary_retain)
		return ctx;
	pthread_mutex_lock(&cu.primary_lock);
	if (!cu.primary[d->ordinal] && !cu.device_get(&dev, d->ordinal) &&
	    cu.primary_retain(&ctx, dev) == GPCU_SUCCESS)
		cu.primary[d->ordinal] = ctx;
	ctx = cu.primary[d->ordinal];
	pthread_mutex_unlock(&cu.primary_lock);
	return ctx;
}

/*
 * The library's copy stream of the current context @ctx, created at its
 * first copy, and made anew with @renew (the driver said the old one is
 * gone: a context reset, or a context destroyed and its address handed
 * out again). NULL where the driver has no asynchronous copies or no
 * stream could be made (the copy is a synchronous one then).
 */
static gpcu_stream copy_stream(gpcu_context ctx, bool renew)
{
	gpcu_stream s = NULL;
	unsigned int i;

	if (!cu.dtoh_async || !cu.htod_async || !cu.stream_create || !cu.stream_sync)
		return NULL;
	pthread_mutex_lock(&cu.stream_lock);
	for (i = 0; i < ARRAY_SIZE(cu.streams) && cu.streams[i].ctx; i++)
		if (cu.streams[i].ctx == ctx)
			break;
	if (i < ARRAY_SIZE(cu.streams)) {
		if (renew)
			cu.streams[i].stream = NULL;
		if (!cu.streams[i].stream &&
		    cu.stream_create(&cu.streams[i].stream, GPCU_STREAM_NON_BLOCKING) == 0)
			cu.streams[i].ctx = ctx;
		s = cu.streams[i].stream;
	}
	pthread_mutex_unlock(&cu.stream_lock);
	return s;
}

/* A copy on the library's stream @s: CUDA's result. */
static gpcu_result stream_copy(gpcu_stream s, void *host, uintptr_t dev, uint64_t n,
			       bool to_host)
{
	gpcu_result r = to_host ? cu.dtoh_async(host, dev, n, s) : cu.htod_async(dev, host, n, s);

	return r ? r : cu.stream_sync(s);
}

/* @n bytes between @host and device memory @dev of context @ctx: 0 or -EIO. */
static int dev_copy(gpcu_context ctx, void *host, uintptr_t dev, uint64_t n, bool to_host)
{
	gpcu_context prev;
	gpcu_stream s;
	gpcu_result r;

	if (!ctx || cu.push(ctx))
		return -EIO;
	s = copy_stream(ctx, false);
	if (!s) {
		r = to_host ? cu.dtoh(host, dev, n) : cu.htod(dev, host, n);
	} else {
		r = stream_copy(s, host, dev, n, to_host);
		if (r == GPCU_ERROR_INVALID_HANDLE || r == GPCU_ERROR_CONTEXT_IS_DESTROYED) {
			s = copy_stream(ctx, true);
			r = s ? stream_copy(s, host, dev, n, to_host) : GPCU_ERROR_INVALID_HANDLE;
		}
	}
	cu.pop(&prev);
	return r ? -EIO : 0;
}

/* ---- the registration cache --------------------------------------------- */

static void reg_free(struct reg *g)
{
	gpupath_buf_free(g->buf);
	free(g);
}

/* Takes @g out of the table (cache.lock held); freed now if no I/O has it. */
static void reg_drop(unsigned int i)
{
	struct reg *g = cache.slot[i];

	cache.slot[i] = NULL;
	cache.bytes -= g->end - g->start;
	g->cached = false;
	if (!g->users)
		reg_free(g);
}

/* Whether the allocation @g was made for is still there (cache.lock held). */
static bool reg_live(const struct reg *g)
{
	struct dptr d;

	return dptr_info((void *)g->probe, &d) && d.id == g->id;
}

/* An entry of @dev's serving [@start, @end) of allocation @id, taken; or NULL. */
static struct reg *reg_lookup(struct gpupath_dev *dev, unsigned long long id, uintptr_t start,
			      uintptr_t end)
{
	struct reg *g;
	unsigned int i;

	pthread_mutex_lock(&cache.lock);
	for (i = 0; i < CACHE_SLOTS; i++) {
		g = cache.slot[i];
		if (g && g->dev == dev && g->id == id && g->start <= start && end <= g->end) {
			g->users++;
			g->used = ++cache.tick;
			pthread_mutex_unlock(&cache.lock);
			return g;
		}
	}
	/* A miss: let go of what freed allocations still pin. */
	for (i = 0; i < CACHE_SLOTS; i++)
		if (cache.slot[i] && !reg_live(cache.slot[i]))
			reg_drop(i);
	pthread_mutex_unlock(&cache.lock);
	return NULL;
}

/*
 * Drops every entry no I/O is using (after a registration ran out of room);
 * with @dev, every entry of @dev, which is being closed.
 */
static void cache_flush(struct gpupath_dev *dev)
{
	unsigned int i;

	pthread_mutex_lock(&cache.lock);
	for (i = 0; i < CACHE_SLOTS; i++)
		if (cache.slot[i] && (dev ? cache.slot[i]->dev == dev : !cache.slot[i]->users))
			reg_drop(i);
	pthread_mutex_unlock(&cache.lock);
}

/* Puts @g, taken, in the table if there is room, evicting the least used idle entry. */
static void reg_insert(struct reg *g)
{
	uint64_t size = g->end - g->start;
	unsigned int i, lru;

	pthread_mutex_lock(&cache.lock);
	while (size <= cache.max_bytes) {
		lru = CACHE_SLOTS;
		for (i = 0; i < CACHE_SLOTS; i++) {
			if (!cache.slot[i] && cache.bytes + size <= cache.max_bytes) {
				cache.slot[i] = g;
				cache.bytes += size;
				g->cached = true;
				g->used = ++cache.tick;
				pthread_mutex_unlock(&cache.lock);
				return;
			}
			if (cache.slot[i] && !cache.slot[i]->users &&
			    (lru == CACHE_SLOTS || cache.slot[i]->used < cache.slot[lru]->used))
				lru = i;
		}
		if (lru == CACHE_SLOTS)
			break;		/* all in use: this one goes uncached */
		reg_drop(lru);
	}
	pthread_mutex_unlock(&cache.lock);
}

/* Lets go of @g; whether it was in the table (taken out when @dead). */
static bool reg_put(struct reg *g, bool dead)
{
	bool cached;
	unsigned int i;

	pthread_mutex_lock(&cache.lock);
	g->users--;
	cached = g->cached;
	/* The driver took the memory back (ENODEV): of no use to anyone. */
	for (i = 0; dead && g->cached && i < CACHE_SLOTS; i++)
		if (cache.slot[i] == g)
			reg_drop(i);
	if (!g->users && !g->cached)
		reg_free(g);
	pthread_mutex_unlock(&cache.lock);
	return cached;
}

/* What a registration's error means for the I/O. */
static uint32_t reg_reason(int err)
{
	switch (err) {
	case -ENXIO:
		return GPUPATH_REASON_NO_GPU_REGION;
	case -ENODEV:
		return GPUPATH_REASON_NO_PEER_MEMORY;
	case -EPERM:
	case -EACCES:
		return GPUPATH_REASON_PIN_DENIED;
	case -EBUSY:
		return GPUPATH_REASON_PIN_BUSY;
	case -524:		/* the kernel's ENOTSUPP, NVIDIA's refusal */
	case -EOPNOTSUPP:
		return GPUPATH_REASON_PIN_UNSUPPORTED;
	case -ENOMEM:
	case -ENOSPC:
		return GPUPATH_REASON_PIN_NO_SPACE;
	default:
		return GPUPATH_REASON_PIN_FAILED;
	}
}

/*
 * A registration covering @len bytes at @p (allocation @d): from the cache,
 * or made now (the whole allocation when it is small enough). 0, or the
 * registration's -errno.
 */
static int reg_get(struct gpupath_dev *dev, const struct dptr *d, uintptr_t p, uint64_t len,
		   struct reg **gp)
{
	uintptr_t start = p & ~(GPU_PAGE - 1), end = (p + len + GPU_PAGE - 1) & ~(GPU_PAGE - 1);
	bool cached = cache.max_bytes > 0;
	struct reg *g;
	int r;

	if (cached) {
		*gp = reg_lookup(dev, d->id, start, end);
		if (*gp)
			return 0;
		if (d->size <= WHOLE_MAX) {
			start = d->base & ~(GPU_PAGE - 1);
			end = (d->base + d->size + GPU_PAGE - 1) & ~(GPU_PAGE - 1);
		}
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	r = gpupath_buf_cuda(dev, (void *)start, end - start, &g->buf);
	if ((r == -ENOMEM || r == -ENOSPC) && cached) {
		cache_flush(NULL);
		r = gpupath_buf_cuda(dev, (void *)start, end - start, &g->buf);
		/* No room for the whole allocation (a small BAR1): the I/O's pages alone. */
		if ((r == -ENOMEM || r == -ENOSPC) && (start < (p & ~(GPU_PAGE - 1)) ||
		    end > ((p + len + GPU_PAGE - 1) & ~(GPU_PAGE - 1)))) {
			start = p & ~(GPU_PAGE - 1);
			end = (p + len + GPU_PAGE - 1) & ~(GPU_PAGE - 1);
			r = gpupath_buf_cuda(dev, (void *)start, end - start, &g->buf);
		}
	}
	if (r < 0) {
		if (cu.debug)
			fprintf(stderr, "gpupath-cuda: pinning %#lx+%#lx: %s (%d)\n",
				(unsigned long)start, (unsigned long)(end - start), strerror(-r), -r);
		free(g);
		return r;
	}
	*g = (struct reg){ .dev = dev, .buf = g->buf, .start = start, .end = end, .probe = p,
			   .id = d->id, .users = 1 };
	if (cached) {
		gpupath_dev_atclose(dev, cache_flush);
		reg_insert(g);
	}
	*gp = g;
	return 0;
}

/* Directly, into pinned device memory: -EXDEV, with the reason, when it cannot be. */
static int direct(struct gpupath_dev *dev, uint32_t op, const struct dptr *d, uintptr_t p,
		  int fd, uint64_t dev_off, uint64_t len, struct gpupath_result *res)
{
	struct reg *g;
	int r, tries = 2;
	bool cached;

	while (tries--) {
		r = reg_get(dev, d, p, len, &g);
		if (r < 0) {
			res->reason = reg_reason(r);
			return -EXDEV;
		}
		r = (op == GPUPATH_IO_READ ? gpupath_read : gpupath_write)(g->buf, p - g->start,
			fd, dev_off, len, GPUPATH_POLICY_DIRECT, res);
		cached = reg_put(g, r == -ENODEV);
		/* A cached pin the driver took back: once more, pinned anew. */
		if (r != -ENODEV || !cached)
			break;
	}
	/* The driver took the memory back, or its region is gone: not direct now. */
	if (r == -ENODEV) {
		res->reason = GPUPATH_REASON_NO_PEER_MEMORY;
		r = -EXDEV;
	}
	return r;
}

struct cuda_copy {
	gpcu_context ctx;
	uintptr_t dptr;
};

static int copy_cuda(void *bounce, uint64_t off, uint64_t n, bool to_bounce, void *arg)
{
	struct cuda_copy *c = arg;

	return dev_copy(c->ctx, bounce, c->dptr + off, n, to_bounce);
}

static int cuda_io(struct gpupath_dev *dev, uint32_t op, const void *dptr, int fd,
		   uint64_t dev_off, uint64_t len, enum gpupath_io_policy policy,
		   struct gpupath_result *res)
{
	struct gpupath_result local;
	struct cuda_copy c;
	struct dptr d;
	int r;

	res = gpupath_result_start(res, &local);
	if (!dev || policy > GPUPATH_POLICY_COMPAT || !len || !dptr_info(dptr, &d) ||
	    len > d.size - ((uintptr_t)dptr - d.base))
		return -EINVAL;
	if (policy != GPUPATH_POLICY_COMPAT) {
		r = direct(dev, op, &d, (uintptr_t)dptr, fd, dev_off, len, res);
		/* Refused for not being in whole blocks (asked only then): bounced under auto. */
		if (r == -EINVAL && policy == GPUPATH_POLICY_AUTO &&
		    gpupath_unaligned(fd, op, (uintptr_t)dptr % GPU_PAGE, dev_off, len)) {
			res->reason = GPUPATH_REASON_UNALIGNED;
			r = -EXDEV;
		}
		if (r != -EXDEV || policy == GPUPATH_POLICY_DIRECT)
			return r;
	}
	c.ctx = copy_ctx(&d);
	c.dptr = (uintptr_t)dptr;
	r = gpupath_bounce(dev, op, fd, dev_off, len, copy_cuda, &c, &res->len);
	if (r == 0)
		res->mode = GPUPATH_MODE_BOUNCE;
	return r;
}

int gpupath_cuda_read(struct gpupath_dev *dev, void *dptr, int fd, uint64_t dev_off,
		      uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res)
{
	return cuda_io(dev, GPUPATH_IO_READ, dptr, fd, dev_off, len, policy, res);
}

int gpupath_cuda_write(struct gpupath_dev *dev, const void *dptr, int fd, uint64_t dev_off,
		       uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res)
{
	return cuda_io(dev, GPUPATH_IO_WRITE, dptr, fd, dev_off, len, policy, res);
}

int gpupath_cuda_is_device(const void *p)
{
	struct dptr d;

	return dptr_info(p, &d);
}

int gpupath_cuda_copy(void *dst, const void *src, uint64_t n, int to_device)
{
	const void *dp = to_device ? dst : src;
	struct dptr d;

	if (!dptr_info(dp, &d) || n > d.size - ((uintptr_t)dp - d.base))
		return -EINVAL;
	return dev_copy(copy_ctx(&d), to_device ? (void *)src : dst, (uintptr_t)dp, n, !to_device);
}
