// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cufile: the stream API (private.h says what is where).
 *
 * An operation on a stream is a host function queued on it
 * (cuLaunchHostFunc): the call returns at once, and when the stream
 * reaches the operation its size, offsets and the buffer's bytes are what
 * the stream's earlier work left (a kernel writing the size, say), as
 * NVIDIA documents. The host function calls no CUDA, as CUDA requires: it
 * hands the I/O to the library's workers (batch.c) and waits, so that the
 * stream's later work starts after it; a worker reads the values then,
 * runs the I/O as cuFileRead or cuFileWrite would (copies to and from
 * device memory on libgpupath-cuda's own non-blocking streams, which wait
 * for no stream of the program's) and stores what it moved in *bytes_p
 * (-1 for an I/O error, a cuFile error negated for another).
 *
 * Where CUDA cannot queue host functions (no driver; a default stream of a
 * process that never used CUDA) the operation runs in the call, after the
 * stream's work so far. Registering a stream is optional: its flags say
 * which values are fixed, and PAGE_ALIGNED_INPUTS is checked on those at
 * the call and on the others when the stream reaches them.
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

#include "private.h"
#include "cuda-driver.h"

/* The CUDA driver's stream calls, where there is a driver. */
static struct {
	pthread_once_t once;
	gpcu_stream_sync_fn sync;
	gpcu_launch_host_func_fn launch;
} cu = { .once = PTHREAD_ONCE_INIT };

static void cu_load(void)
{
	void *lib = dlopen(GPCU_LIBRARY, RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		return;
	cu.sync = (gpcu_stream_sync_fn)dlsym(lib, "cuStreamSynchronize");
	cu.launch = (gpcu_launch_host_func_fn)dlsym(lib, "cuLaunchHostFunc");
}

/* A stream registered with cuFileStreamRegister. */
struct reg_stream {
	struct link link;
	CUstream stream;
	unsigned int flags;
};

#define STREAM_FLAGS	(CU_FILE_STREAM_FIXED_BUF_OFFSET | CU_FILE_STREAM_FIXED_FILE_OFFSET | \
			 CU_FILE_STREAM_FIXED_FILE_SIZE | CU_FILE_STREAM_PAGE_ALIGNED_INPUTS)

static struct reg_stream *stream_find_locked(CUstream stream)
{
	struct link *l;

	for (l = drv.streams; l; l = l->next)
		if (((struct reg_stream *)l)->stream == stream)
			return (struct reg_stream *)l;
	return NULL;
}

void streams_forget(void)
{
	struct link *l;

	while ((l = drv.streams)) {
		drv.streams = l->next;
		free(l);
	}
}

/* A default stream of a process or thread that never used CUDA: nothing queued on it. */
static bool no_cuda_yet(gpcu_result r, CUstream stream)
{
	return (r == GPCU_ERROR_NOT_INITIALIZED || r == GPCU_ERROR_INVALID_CONTEXT) &&
	       (!stream || (gpcu_stream)stream == GPCU_STREAM_LEGACY ||
		(gpcu_stream)stream == GPCU_STREAM_PER_THREAD);
}

/* Waits for the stream's work so far: CU_FILE_SUCCESS or CU_FILE_CUDA_DRIVER_ERROR. */
static CUfileError_t stream_sync(CUstream stream)
{
	CUfileError_t s = { CU_FILE_SUCCESS, 0 };
	gpcu_result r;

	pthread_once(&cu.once, cu_load);
	/* Without the CUDA driver there is no stream work to wait for, but for NULL's. */
	if (!cu.sync) {
		if (stream)
			s.err = CU_FILE_CUDA_DRIVER_ERROR;
		return s;
	}
	r = cu.sync((gpcu_stream)stream);
	if (r != GPCU_SUCCESS && !no_cuda_yet(r, stream)) {
		s.err = CU_FILE_CUDA_DRIVER_ERROR;
		s.cu_err = r;
	}
	return s;
}

/* Whether the values @flags says are fixed break the PAGE_ALIGNED_INPUTS promise. */
static bool misaligned(unsigned int flags, unsigned int fixed, const size_t *size_p,
		       const off_t *foff_p, const off_t *boff_p)
{
	if (!(flags & CU_FILE_STREAM_PAGE_ALIGNED_INPUTS))
		return false;
	return ((fixed & CU_FILE_STREAM_FIXED_FILE_SIZE) && *size_p % 4096) ||
	       ((fixed & CU_FILE_STREAM_FIXED_FILE_OFFSET) && *foff_p % 4096) ||
	       ((fixed & CU_FILE_STREAM_FIXED_BUF_OFFSET) && *boff_p % 4096);
}

/* An operation queued on a stream, from the call to its end. */
struct stream_op {
	struct job job;
	CUfileHandle_t fh;
	void *base;
	size_t *size_p;
	off_t *foff_p, *boff_p;
	ssize_t *bytes_p;
	unsigned int flags;
	bool wr;
	bool finished;		/* drv.lock */
};

/* The I/O, its values read now: into *bytes_p. */
static void op_run(struct job *j)
{
	struct stream_op *op = (struct stream_op *)j;
	ssize_t r;

	if (misaligned(op->flags, STREAM_FLAGS, op->size_p, op->foff_p, op->boff_p))
		r = -CU_FILE_INVALID_VALUE;
	else
		r = do_io(op->fh, op->base, *op->size_p, *op->foff_p, *op->boff_p, op->wr);
	*op->bytes_p = r >= 0 || r <= -CUFILEOP_BASE_ERR ? r : -1;
}

static void op_done(struct job *j)
{
	((struct stream_op *)j)->finished = true;
}

/*
 * The host function: the stream has reached the operation. No CUDA here;
 * the stream's later work waits until the worker is done.
 */
static void op_start(void *data)
{
	struct stream_op *op = data;

	pthread_mutex_lock(&drv.lock);
	if (!worker_queue(&op->job)) {
		/* No thread to be had; the I/O may need CUDA, which is not to be called here. */
		*op->bytes_p = -CU_FILE_INTERNAL_ERROR;
		op->finished = true;
	}
	while (!op->finished)
		pthread_cond_wait(&drv.done, &drv.lock);
	pthread_mutex_unlock(&drv.lock);
	free(op);
}

static CUfileError_t stream_io(CUfileHandle_t fh, void *base, size_t *size_p, off_t *foff_p,
			       off_t *boff_p, ssize_t *bytes_p, CUstream stream, bool wr)
{
	struct stream_op *op;
	struct reg_stream *rs;
	unsigned int flags = 0;
	CUfileError_t s;
	gpcu_result r;
	bool known;

	if (!fh || !base || !size_p || !foff_p || !boff_p || !bytes_p)
		return status(CU_FILE_INVALID_VALUE);
	ensure_open();
	pthread_once(&cu.once, cu_load);
	pthread_mutex_lock(&drv.lock);
	rs = stream_find_locked(stream);
	if (rs)
		flags = rs->flags;
	known = fh_find_locked(fh);
	pthread_mutex_unlock(&drv.lock);
	if (!known)
		return status(CU_FILE_HANDLE_NOT_REGISTERED);
	if (misaligned(flags, flags, size_p, foff_p, boff_p))
		return status(CU_FILE_INVALID_VALUE);
	op = calloc(1, sizeof(*op));
	if (!op)
		return status(CU_FILE_NOMEM_ERROR);
	*op = (struct stream_op){
		.job = { .run = op_run, .done = op_done },
		.fh = fh, .base = base, .size_p = size_p, .foff_p = foff_p, .boff_p = boff_p,
		.bytes_p = bytes_p, .flags = flags, .wr = wr,
	};
	r = cu.launch ? cu.launch((gpcu_stream)stream, op_start, op) : GPCU_ERROR_NOT_INITIALIZED;
	if (r == GPCU_SUCCESS)
		return status(CU_FILE_SUCCESS);
	if (cu.launch && !no_cuda_yet(r, stream)) {
		free(op);
		s = status(CU_FILE_CUDA_DRIVER_ERROR);
		s.cu_err = r;
		return s;
	}
	/* Nothing to queue on: after the stream's work so far, here. */
	s = stream_sync(stream);
	if (s.err == CU_FILE_SUCCESS)
		op_run(&op->job);
	free(op);
	return s;
}

EXPORT CUfileError_t cuFileReadAsync(CUfileHandle_t fh, void *base, size_t *size_p,
				     off_t *file_offset_p, off_t *buf_offset_p,
				     ssize_t *bytes_read_p, CUstream stream)
{
	return stream_io(fh, base, size_p, file_offset_p, buf_offset_p, bytes_read_p, stream,
			 false);
}

EXPORT CUfileError_t cuFileWriteAsync(CUfileHandle_t fh, void *base, size_t *size_p,
				      off_t *file_offset_p, off_t *buf_offset_p,
				      ssize_t *bytes_written_p, CUstream stream)
{
	return stream_io(fh, base, size_p, file_offset_p, buf_offset_p, bytes_written_p, stream,
			 true);
}

/* Registering synchronizes the stream, as NVIDIA's does; twice, or unknown flags: refused. */
EXPORT CUfileError_t cuFileStreamRegister(CUstream stream, unsigned flags)
{
	struct reg_stream *rs;
	CUfileError_t s;

	if (flags & ~STREAM_FLAGS)
		return status(CU_FILE_INVALID_VALUE);
	ensure_open();
	s = stream_sync(stream);
	if (s.err != CU_FILE_SUCCESS)
		return s;
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return status(CU_FILE_NOMEM_ERROR);
	rs->stream = stream;
	rs->flags = flags;
	pthread_mutex_lock(&drv.lock);
	if (stream_find_locked(stream)) {
		pthread_mutex_unlock(&drv.lock);
		free(rs);
		return status(CU_FILE_INVALID_VALUE);
	}
	link_add(&drv.streams, &rs->link);
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

EXPORT CUfileError_t cuFileStreamDeregister(CUstream stream)
{
	struct reg_stream *rs;
	struct link **l;

	pthread_mutex_lock(&drv.lock);
	rs = stream_find_locked(stream);
	/* Found and taken out under one lock: no other thread's registration instead. */
	for (l = &drv.streams; rs && *l != &rs->link; l = &(*l)->next)
		;
	if (rs)
		*l = rs->link.next;
	pthread_mutex_unlock(&drv.lock);
	if (!rs)
		return status(CU_FILE_INVALID_VALUE);
	free(rs);
	return stream_sync(stream);
}
