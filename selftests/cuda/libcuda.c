// SPDX-License-Identifier: GPL-2.0
/*
 * A test double of the CUDA driver API (libcuda.so.1), for the tests only:
 * the calls gpupath's libraries and checks make, behaving as NVIDIA's
 * driver documents them where gpupath's side depends on it. It is NOT
 * CUDA: there is one device, its primary context, and "device memory"
 * that the program cannot touch.
 *
 * Device memory is a window the double reserves PROT_NONE in the program
 * (a CPU access faults, as a cudaMalloc pointer's does on x86); the double
 * moves bytes through a mapping of its own. Where that memory is:
 *
 *   default                   anonymous shared memory, GPCU_DOUBLE_SIZE
 *                             bytes (256 MiB)
 *   GPCU_DOUBLE_BAR=FILE      the bytes of FILE (a PCI BAR's resource file)
 *   GPCU_DOUBLE_VA=ADDR       from offset GPCU_DOUBLE_OFFSET, at device
 *   GPCU_DOUBLE_OFFSET=OFF    address ADDR + OFF: the VM's ivshmem "GPU",
 *                             where nvfake maps CUDA address va_base + X to
 *                             the BAR's byte X
 *   GPCU_DOUBLE_COPY_MS=MS    each copy takes MS milliseconds
 *   GPCU_DOUBLE_REVOKE=FILE   cuMemFree writes each GPU page of the
 *                             allocation to FILE (nvfake's revoke knob): the
 *                             driver's side of a cudaFree
 *
 * What it models:
 *  - cuInit first, or CUDA_ERROR_NOT_INITIALIZED; GPCU_DOUBLE_DEVICES=0:
 *    cuInit fails with CUDA_ERROR_NO_DEVICE.
 *  - Allocation, copies and memset need a current context (thread-local,
 *    push/pop/set), or CUDA_ERROR_INVALID_CONTEXT.
 *  - cuMemAlloc: 256-byte aligned, 2 MiB aligned from 2 MiB, first fit: a
 *    freed address is handed out again, with a new buffer ID.
 *    cuMemAllocAsync: the same, from the device's pool, whose pointers have
 *    no context (CU_POINTER_ATTRIBUTE_CONTEXT NULL), as stream-ordered
 *    memory has none.
 *  - cuPointerGetAttributes: zeroes and CUDA_SUCCESS for memory not CUDA's;
 *    cuPointerGetAttribute: CUDA_ERROR_INVALID_VALUE for it.
 *  - A copy or memset must lie in one allocation (CUDA_ERROR_INVALID_VALUE).
 *  - Streams run host functions (cuLaunchHostFunc) in order on a thread
 *    of their own, with the legacy default stream's ordering against the
 *    blocking streams; copies and memsets are ordered as CUDA orders them
 *    for pageable memory (below). An unknown stream is
 *    CUDA_ERROR_INVALID_HANDLE; a call from a host function,
 *    CUDA_ERROR_NOT_PERMITTED.
 * Counters for the checks: gpcu_double_stats().
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cuda-driver.h"

#define EXPORT		__attribute__((visibility("default")))
#define MAX_ALLOCS	4096
#define STACK_DEPTH	16
#define GPU_PAGE	(64ULL << 10)
#define BIG		(2ULL << 20)

struct alloc {
	uint64_t base, size;
	unsigned long long id;
	bool pool;		/* cuMemAllocAsync's: of the device's pool, no context */
};

/* The primary context: only its address matters. */
static struct CUctx_st {
	int device;
} primary;

static struct {
	pthread_mutex_t lock;
	bool init;
	char *mem;		/* the double's own mapping of device memory */
	uint64_t va, size;	/* device addresses [va, va + size) */
	const char *revoke;
	struct alloc a[MAX_ALLOCS];	/* sorted by base */
	unsigned int n;
	unsigned long long next_id;
	unsigned long long copies, bytes;
	unsigned int copy_ms;
} dbl = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_id = 1 };

static __thread gpcu_context stack[STACK_DEPTH];

static bool stream_known(gpcu_stream s);
static gpcu_result copy_on(gpcu_stream s, void *dst, const void *src, size_t n, const char *what);
static __thread int depth;
static __thread bool in_host_fn;	/* this thread runs a host function */

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

/* Maps device memory: 0, or CUDA_ERROR_NO_DEVICE. */
static int mem_setup(void)
{
	const char *bar = getenv("GPCU_DOUBLE_BAR");
	uint64_t off = env_u64("GPCU_DOUBLE_OFFSET", 0);
	void *want, *got;
	int fd;

	dbl.size = env_u64("GPCU_DOUBLE_SIZE", 256ULL << 20);
	dbl.revoke = getenv("GPCU_DOUBLE_REVOKE");
	dbl.copy_ms = env_u64("GPCU_DOUBLE_COPY_MS", 0);
	if (bar)
		fd = open(bar, O_RDWR | O_CLOEXEC);
	else
		fd = memfd_create("gpcu-double", MFD_CLOEXEC);
	if (fd < 0 || (!bar && ftruncate(fd, dbl.size) < 0))
		goto fail;
	dbl.mem = mmap(NULL, dbl.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, bar ? off : 0);
	close(fd);
	if (dbl.mem == MAP_FAILED)
		goto fail_mem;
	/* The program's view: reserved, and no access. */
	want = getenv("GPCU_DOUBLE_VA") ? (void *)(env_u64("GPCU_DOUBLE_VA", 0) + off) : NULL;
	got = mmap(want, dbl.size + (want ? 0 : BIG), PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (want ? MAP_FIXED_NOREPLACE : 0),
		   -1, 0);
	if (got == MAP_FAILED || (want && got != want))
		goto fail_mem;
	dbl.va = want ? (uint64_t)(uintptr_t)want : ((uintptr_t)got + BIG - 1) & ~(BIG - 1);
	return GPCU_SUCCESS;

fail_mem:
	dbl.mem = NULL;
fail:
	fprintf(stderr, "libcuda double: no device memory: %m\n");
	return GPCU_ERROR_NO_DEVICE;
}

EXPORT gpcu_result cuInit(unsigned int flags)
{
	gpcu_result r = GPCU_SUCCESS;

	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (flags)
		return GPCU_ERROR_INVALID_VALUE;
	if (getenv("GPCU_DOUBLE_DEVICES") && !env_u64("GPCU_DOUBLE_DEVICES", 1))
		return GPCU_ERROR_NO_DEVICE;
	pthread_mutex_lock(&dbl.lock);
	if (!dbl.init) {
		r = mem_setup();
		dbl.init = r == GPCU_SUCCESS;
	}
	pthread_mutex_unlock(&dbl.lock);
	return r;
}

EXPORT gpcu_result cuDriverGetVersion(int *v)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!v)
		return GPCU_ERROR_INVALID_VALUE;
	*v = 13000;
	return GPCU_SUCCESS;
}

EXPORT gpcu_result cuDeviceGetCount(int *n)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (!n)
		return GPCU_ERROR_INVALID_VALUE;
	*n = 1;
	return GPCU_SUCCESS;
}

EXPORT gpcu_result cuDeviceGet(gpcu_device *d, int ordinal)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (!d)
		return GPCU_ERROR_INVALID_VALUE;
	if (ordinal)
		return GPCU_ERROR_INVALID_DEVICE;
	*d = 0;
	return GPCU_SUCCESS;
}

EXPORT gpcu_result cuDevicePrimaryCtxRetain(gpcu_context *ctx, gpcu_device d)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (d)
		return GPCU_ERROR_INVALID_DEVICE;
	*ctx = &primary;
	return GPCU_SUCCESS;
}

EXPORT gpcu_result cuDevicePrimaryCtxRelease_v2(gpcu_device d)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	return d ? GPCU_ERROR_INVALID_DEVICE : GPCU_SUCCESS;
}

EXPORT gpcu_result cuCtxSetCurrent(gpcu_context ctx)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (ctx && ctx != &primary)
		return GPCU_ERROR_INVALID_CONTEXT;
	if (!depth && ctx)
		depth = 1;
	if (depth)
		stack[depth - 1] = ctx;
	if (!ctx && depth == 1)
		depth = 0;
	return GPCU_SUCCESS;
}

EXPORT gpcu_result cuCtxGetCurrent(gpcu_context *ctx)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	*ctx = depth ? stack[depth - 1] : NULL;
	return GPCU_SUCCESS;
}

EXPORT gpcu_result cuCtxPushCurrent_v2(gpcu_context ctx)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (ctx != &primary || depth == STACK_DEPTH)
		return GPCU_ERROR_INVALID_CONTEXT;
	stack[depth++] = ctx;
	return GPCU_SUCCESS;
}

EXPORT gpcu_result cuCtxPopCurrent_v2(gpcu_context *ctx)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (!depth)
		return GPCU_ERROR_INVALID_CONTEXT;
	depth--;
	if (ctx)
		*ctx = stack[depth];
	return GPCU_SUCCESS;
}

static bool current(void)
{
	return depth && stack[depth - 1];
}

/* The allocation holding [p, p + n), or NULL (dbl.lock held). */
static struct alloc *find(uint64_t p, uint64_t n)
{
	unsigned int i;

	for (i = 0; i < dbl.n; i++)
		if (p >= dbl.a[i].base && p - dbl.a[i].base < dbl.a[i].size)
			return n <= dbl.a[i].size - (p - dbl.a[i].base) ? &dbl.a[i] : NULL;
	return NULL;
}

static gpcu_result mem_alloc(gpcu_deviceptr *p, size_t n, bool pool);

EXPORT gpcu_result cuMemAlloc_v2(gpcu_deviceptr *p, size_t n)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	return mem_alloc(p, n, false);
}

/* Memory of the device's pool: its pointers have no context (CONTEXT is NULL). */
EXPORT gpcu_result cuMemAllocAsync(gpcu_deviceptr *p, size_t n, gpcu_stream s)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (dbl.init && !stream_known(s))
		return GPCU_ERROR_INVALID_HANDLE;
	return mem_alloc(p, n, true);
}

static gpcu_result mem_alloc(gpcu_deviceptr *p, size_t n, bool pool)
{
	uint64_t align = n >= BIG ? BIG : 256, at, size = (n + 255) & ~255ULL;
	unsigned int i;

	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (!current())
		return GPCU_ERROR_INVALID_CONTEXT;
	if (!p || !n)
		return GPCU_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&dbl.lock);
	/* First fit: the gap before allocation i. */
	at = dbl.va;
	for (i = 0; i <= dbl.n; i++) {
		uint64_t end = i < dbl.n ? dbl.a[i].base : dbl.va + dbl.size;

		at = (at + align - 1) & ~(align - 1);
		if (at <= end && end - at >= size)
			break;
		if (i < dbl.n)
			at = dbl.a[i].base + dbl.a[i].size;
	}
	if (i > dbl.n || dbl.n == MAX_ALLOCS) {
		pthread_mutex_unlock(&dbl.lock);
		return GPCU_ERROR_OUT_OF_MEMORY;
	}
	memmove(&dbl.a[i + 1], &dbl.a[i], (dbl.n - i) * sizeof(dbl.a[0]));
	dbl.a[i] = (struct alloc){ at, size, dbl.next_id++, pool };
	dbl.n++;
	pthread_mutex_unlock(&dbl.lock);
	*p = at;
	return GPCU_SUCCESS;
}

/* The driver's side of a cudaFree, where a peer-memory double listens. */
static void driver_free(uint64_t base, uint64_t size)
{
	uint64_t p;
	char s[32];
	int fd;

	if (!dbl.revoke)
		return;
	for (p = base & ~(GPU_PAGE - 1); p < base + size; p += GPU_PAGE) {
		fd = open(dbl.revoke, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		/* -ENOENT: nothing pinned starts there. */
		if (write(fd, s, snprintf(s, sizeof(s), "%#llx\n", (unsigned long long)p)) < 0)
			(void)0;
		close(fd);
	}
}

EXPORT gpcu_result cuMemFree_v2(gpcu_deviceptr p)
{
	struct alloc a;
	unsigned int i;

	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (!current())
		return GPCU_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&dbl.lock);
	for (i = 0; i < dbl.n && dbl.a[i].base != p; i++)
		;
	if (i == dbl.n) {
		pthread_mutex_unlock(&dbl.lock);
		return GPCU_ERROR_INVALID_VALUE;
	}
	a = dbl.a[i];
	memmove(&dbl.a[i], &dbl.a[i + 1], (dbl.n - i - 1) * sizeof(dbl.a[0]));
	dbl.n--;
	pthread_mutex_unlock(&dbl.lock);
	driver_free(a.base, a.size);
	return GPCU_SUCCESS;
}

/*
 * @n bytes at device address @d, through the double's mapping, into @at:
 * CUDA_SUCCESS, or why not (no init, no current context, not one
 * allocation's bytes).
 */
static gpcu_result dev_bytes(uint64_t d, uint64_t n, char **at)
{
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (!current())
		return GPCU_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&dbl.lock);
	*at = find(d, n) ? dbl.mem + (d - dbl.va) : NULL;
	if (*at) {
		dbl.copies++;
		dbl.bytes += n;
	}
	pthread_mutex_unlock(&dbl.lock);
	/* GPCU_DOUBLE_COPY_MS: each copy takes that long, as a busy GPU's may. */
	if (*at && dbl.copy_ms)
		usleep(dbl.copy_ms * 1000);
	return *at ? GPCU_SUCCESS : GPCU_ERROR_INVALID_VALUE;
}

/* A copy from device memory on stream @s (what names the call). */
static gpcu_result dtoh(void *dst, gpcu_deviceptr src, size_t n, gpcu_stream s, const char *what)
{
	char *at;
	gpcu_result r;

	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	r = dst ? dev_bytes(src, n, &at) : GPCU_ERROR_INVALID_VALUE;
	return r ? r : copy_on(s, dst, at, n, what);
}

/* A copy into device memory on stream @s. */
static gpcu_result htod(gpcu_deviceptr dst, const void *src, size_t n, gpcu_stream s,
			const char *what)
{
	char *at;
	gpcu_result r;

	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	r = src ? dev_bytes(dst, n, &at) : GPCU_ERROR_INVALID_VALUE;
	return r ? r : copy_on(s, at, src, n, what);
}

EXPORT gpcu_result cuMemcpyDtoH_v2(void *dst, gpcu_deviceptr src, size_t n)
{
	return dtoh(dst, src, n, NULL, "cuMemcpyDtoH_v2");
}

EXPORT gpcu_result cuMemcpyDtoHAsync_v2(void *dst, gpcu_deviceptr src, size_t n, gpcu_stream s)
{
	return dtoh(dst, src, n, s, "cuMemcpyDtoHAsync_v2");
}

EXPORT gpcu_result cuMemcpyHtoD_v2(gpcu_deviceptr dst, const void *src, size_t n)
{
	return htod(dst, src, n, NULL, "cuMemcpyHtoD_v2");
}

EXPORT gpcu_result cuMemcpyHtoDAsync_v2(gpcu_deviceptr dst, const void *src, size_t n,
					gpcu_stream s)
{
	return htod(dst, src, n, s, "cuMemcpyHtoDAsync_v2");
}

EXPORT gpcu_result cuMemsetD8_v2(gpcu_deviceptr dst, unsigned char v, size_t n)
{
	char *at;
	gpcu_result r;

	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	r = dev_bytes(dst, n, &at);
	if (r == GPCU_SUCCESS)
		r = copy_on(NULL, at, NULL, 0, "cuMemsetD8_v2");
	if (r == GPCU_SUCCESS)
		memset(at, v, n);
	return r;
}

/*
 * Streams. Work queued on a stream (host functions) runs on the stream's
 * own thread, in order. The legacy default stream (NULL, CU_STREAM_LEGACY)
 * orders with every blocking stream (cuStreamCreate without
 * CU_STREAM_NON_BLOCKING, and the per-thread default stream): its work
 * starts once theirs queued before is done, and theirs once its own queued
 * before is. Synchronous copies and memsets are the legacy stream's work,
 * done by the calling thread. The asynchronous copies are of pageable
 * memory (the double has no other), which CUDA runs as a synchronous copy
 * after the stream's work queued before. A host function that calls the
 * double gets CUDA_ERROR_NOT_PERMITTED. A call that would wait for ever (a
 * host function waiting on the caller: a deadlock in CUDA too) aborts the
 * program after GPCU_DOUBLE_DEADLOCK_S (20) seconds, naming the call.
 */
struct work {
	gpcu_host_fn fn;
	void *data;
	unsigned long long seq;
	struct work *next;
};

struct CUstream_st {
	unsigned int flags;
	bool legacy;
	struct CUstream_st *next;	/* in streams */
	struct work *head, **tail;	/* head: running or next; leaves when done */
	bool thread;			/* its thread is started */
	bool destroyed;			/* its thread frees it once its work is done */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* work queued or done */
	unsigned long long seq;		/* of the last work queued */
	struct CUstream_st *list;	/* created streams and per-thread ones */
	struct CUstream_st legacy;
} sq = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.legacy = { .legacy = true, .tail = &sq.legacy.head },
};

static __thread struct CUstream_st *per_thread;

/* The stream @s names, or NULL for none known (sq.lock held). */
static struct CUstream_st *stream_get(gpcu_stream s)
{
	struct CUstream_st *t;

	if (!s || s == GPCU_STREAM_LEGACY)
		return &sq.legacy;
	if (s == GPCU_STREAM_PER_THREAD) {
		if (!per_thread) {
			per_thread = calloc(1, sizeof(*per_thread));
			if (!per_thread)
				return NULL;
			per_thread->tail = &per_thread->head;
			per_thread->next = sq.list;
			sq.list = per_thread;
		}
		return per_thread;
	}
	for (t = sq.list; t && (t != s || t->destroyed); t = t->next)
		;
	return t;
}

static bool stream_known(gpcu_stream s)
{
	bool known;

	pthread_mutex_lock(&sq.lock);
	known = stream_get(s);
	pthread_mutex_unlock(&sq.lock);
	return known;
}

/* Whether @t has work queued before @seq not yet done (sq.lock held). */
static bool behind(const struct CUstream_st *t, unsigned long long seq)
{
	return t->head && t->head->seq < seq;
}

/*
 * Whether work of stream @t queued as @seq waits for another stream's
 * (sq.lock held): the legacy stream's for a blocking stream, the blocking
 * streams' for the legacy one.
 */
static bool gated(const struct CUstream_st *t, unsigned long long seq)
{
	const struct CUstream_st *o;

	if (t->flags & GPCU_STREAM_NON_BLOCKING)
		return false;
	if (!t->legacy)
		return behind(&sq.legacy, seq);
	for (o = sq.list; o; o = o->next)
		if (!(o->flags & GPCU_STREAM_NON_BLOCKING) && behind(o, seq))
			return true;
	return false;
}

/*
 * Waits until stream @t's work queued so far is done (sq.lock held): what
 * cuStreamSynchronize waits for. With @op, what an operation queued on @t
 * now would wait for besides (the legacy stream's work for a blocking
 * stream, the blocking streams' for the legacy one): a copy of pageable
 * memory. @what names the call if it waits for ever.
 */
static void wait_stream(struct CUstream_st *t, bool op, const char *what)
{
	unsigned long long seq = ++sq.seq;
	struct timespec end;

	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += env_u64("GPCU_DOUBLE_DEADLOCK_S", 20);
	while (behind(t, seq) || (op && gated(t, seq)))
		if (pthread_cond_timedwait(&sq.cond, &sq.lock, &end)) {
			fprintf(stderr, "libcuda double: %s waits for ever on stream work "
				"queued before it (a host function waiting on this thread?)\n",
				what);
			abort();
		}
}

static void *stream_thread(void *arg)
{
	struct CUstream_st *t = arg, **l;
	struct work *w;

	in_host_fn = true;
	pthread_mutex_lock(&sq.lock);
	for (;;) {
		while (!t->head || gated(t, t->head->seq))
			pthread_cond_wait(&sq.cond, &sq.lock);
		w = t->head;
		if (!w->fn)		/* the stream is destroyed */
			break;
		pthread_mutex_unlock(&sq.lock);
		w->fn(w->data);
		pthread_mutex_lock(&sq.lock);
		t->head = w->next;
		if (!t->head)
			t->tail = &t->head;
		free(w);
		pthread_cond_broadcast(&sq.cond);
	}
	/* Destroyed, its work done: out of the list, and gone. */
	for (l = &sq.list; *l != t; l = &(*l)->next)
		;
	*l = t->next;
	pthread_cond_broadcast(&sq.cond);
	pthread_mutex_unlock(&sq.lock);
	free(w);
	free(t);
	return NULL;
}

/* Queues @fn(@data) on @t (sq.lock held): CUDA_SUCCESS or why not. */
static gpcu_result stream_queue(struct CUstream_st *t, gpcu_host_fn fn, void *data)
{
	struct work *w = calloc(1, sizeof(*w));
	pthread_t th;

	if (!w)
		return GPCU_ERROR_OUT_OF_MEMORY;
	if (!t->thread) {
		if (pthread_create(&th, NULL, stream_thread, t)) {
			free(w);
			return GPCU_ERROR_OUT_OF_MEMORY;
		}
		pthread_detach(th);
		t->thread = true;
	}
	w->fn = fn;
	w->data = data;
	w->seq = ++sq.seq;
	*t->tail = w;
	t->tail = &w->next;
	pthread_cond_broadcast(&sq.cond);
	return GPCU_SUCCESS;
}

/*
 * What every stream call checks first: not from a host function, cuInit
 * done and, where @ctx, a current context. CUDA_SUCCESS or the error.
 */
static gpcu_result stream_call(bool ctx)
{
	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	return ctx && !current() ? GPCU_ERROR_INVALID_CONTEXT : GPCU_SUCCESS;
}

EXPORT gpcu_result cuStreamCreate(gpcu_stream *s, unsigned int flags)
{
	gpcu_result r = stream_call(true);

	if (r)
		return r;
	if (!s || flags & ~GPCU_STREAM_NON_BLOCKING)
		return GPCU_ERROR_INVALID_VALUE;
	*s = calloc(1, sizeof(**s));
	if (!*s)
		return GPCU_ERROR_OUT_OF_MEMORY;
	(*s)->flags = flags;
	(*s)->tail = &(*s)->head;
	pthread_mutex_lock(&sq.lock);
	(*s)->next = sq.list;
	sq.list = *s;
	pthread_mutex_unlock(&sq.lock);
	return GPCU_SUCCESS;
}

/*
 * As CUDA's: returns at once; the stream's work queued so far still runs,
 * and then the stream is gone (its handle is refused from the call on).
 */
EXPORT gpcu_result cuStreamDestroy_v2(gpcu_stream s)
{
	gpcu_result r = stream_call(false);
	struct CUstream_st **t;
	struct work *end;

	if (r)
		return r;
	pthread_mutex_lock(&sq.lock);
	for (t = &sq.list; *t && (*t != s || s == per_thread || s->destroyed); t = &(*t)->next)
		;
	if (!*t) {
		pthread_mutex_unlock(&sq.lock);
		return GPCU_ERROR_INVALID_HANDLE;
	}
	s->destroyed = true;
	if (!s->thread) {
		*t = s->next;
		free(s);
	} else {
		/* Its thread ends at an entry with no function, and frees the stream. */
		end = calloc(1, sizeof(*end));
		if (!end)
			abort();
		end->seq = ++sq.seq;
		*s->tail = end;
		s->tail = &end->next;
		pthread_cond_broadcast(&sq.cond);
	}
	pthread_mutex_unlock(&sq.lock);
	return GPCU_SUCCESS;
}

EXPORT gpcu_result cuStreamSynchronize(gpcu_stream s)
{
	gpcu_result r = stream_call(true);
	struct CUstream_st *t;

	if (r)
		return r;
	pthread_mutex_lock(&sq.lock);
	t = stream_get(s);
	if (t)
		wait_stream(t, false, "cuStreamSynchronize");
	pthread_mutex_unlock(&sq.lock);
	return t ? GPCU_SUCCESS : GPCU_ERROR_INVALID_HANDLE;
}

EXPORT gpcu_result cuStreamQuery(gpcu_stream s)
{
	gpcu_result r = stream_call(false);
	struct CUstream_st *t;

	if (r)
		return r;
	pthread_mutex_lock(&sq.lock);
	t = stream_get(s);
	r = !t ? GPCU_ERROR_INVALID_HANDLE : t->head ? GPCU_ERROR_NOT_READY : GPCU_SUCCESS;
	pthread_mutex_unlock(&sq.lock);
	return r;
}

EXPORT gpcu_result cuLaunchHostFunc(gpcu_stream s, gpcu_host_fn fn, void *data)
{
	gpcu_result r = stream_call(true);
	struct CUstream_st *t;

	if (r)
		return r;
	if (!fn)
		return GPCU_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sq.lock);
	t = stream_get(s);
	r = t ? stream_queue(t, fn, data) : GPCU_ERROR_INVALID_HANDLE;
	pthread_mutex_unlock(&sq.lock);
	return r;
}

/* A copy of pageable memory on stream @s: after the stream's work queued before. */
static gpcu_result copy_on(gpcu_stream s, void *dst, const void *src, size_t n, const char *what)
{
	struct CUstream_st *t;

	pthread_mutex_lock(&sq.lock);
	t = stream_get(s);
	if (t)
		wait_stream(t, true, what);
	pthread_mutex_unlock(&sq.lock);
	if (!t)
		return GPCU_ERROR_INVALID_HANDLE;
	if (n)
		memcpy(dst, src, n);
	return GPCU_SUCCESS;
}



/* One attribute of @p into @data: 0, 1 (not CUDA memory) or -1 (unknown attribute). */
static int attribute(unsigned int attr, void *data, uint64_t p)
{
	struct alloc *a = find(p, 1);

	switch (attr) {
	case GPCU_POINTER_ATTRIBUTE_CONTEXT:
		*(gpcu_context *)data = a && !a->pool ? &primary : NULL;
		break;
	case GPCU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(unsigned int *)data = a ? GPCU_MEMORYTYPE_DEVICE : 0;
		break;
	case GPCU_POINTER_ATTRIBUTE_BUFFER_ID:
		*(unsigned long long *)data = a ? a->id : 0;
		break;
	case GPCU_POINTER_ATTRIBUTE_IS_MANAGED:
		*(int *)data = 0;
		break;
	case GPCU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)data = a ? 0 : -2;
		break;
	case GPCU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		*(gpcu_deviceptr *)data = a ? a->base : 0;
		break;
	case GPCU_POINTER_ATTRIBUTE_RANGE_SIZE:
		*(size_t *)data = a ? a->size : 0;
		break;
	default:
		return -1;
	}
	return a ? 0 : 1;
}

EXPORT gpcu_result cuPointerGetAttributes(unsigned int n, unsigned int *attrs, void **data,
					  gpcu_deviceptr p)
{
	gpcu_result r = GPCU_SUCCESS;
	unsigned int i;

	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (!n || !attrs || !data)
		return GPCU_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&dbl.lock);
	for (i = 0; i < n && r == GPCU_SUCCESS; i++)
		if (!data[i] || attribute(attrs[i], data[i], p) < 0)
			r = GPCU_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&dbl.lock);
	return r;
}

EXPORT gpcu_result cuPointerGetAttribute(void *data, unsigned int attr, gpcu_deviceptr p)
{
	int r;

	if (in_host_fn)
		return GPCU_ERROR_NOT_PERMITTED;
	if (!dbl.init)
		return GPCU_ERROR_NOT_INITIALIZED;
	if (!data)
		return GPCU_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&dbl.lock);
	r = attribute(attr, data, p);
	pthread_mutex_unlock(&dbl.lock);
	return r ? GPCU_ERROR_INVALID_VALUE : GPCU_SUCCESS;
}

/* Not CUDA's: what the checks read. */
EXPORT void gpcu_double_stats(unsigned long long *copies, unsigned long long *bytes,
			      unsigned int *allocs)
{
	pthread_mutex_lock(&dbl.lock);
	*copies = dbl.copies;
	*bytes = dbl.bytes;
	*allocs = dbl.n;
	pthread_mutex_unlock(&dbl.lock);
}
