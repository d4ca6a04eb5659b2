// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cufile: the stream API (private.h says what is where).
 *
 * An operation on a stream runs in order with the stream's work as the
 * stream synchronized first, then the I/O, as KvikIO runs its own
 * asynchronous I/O in compat mode: the call returns when it is done, with
 * the bytes moved in *bytes_p (-1 for an I/O error, a cuFile error negated
 * for another). Work the program queues on the stream after the call
 * starts after it, and what the stream did before (a kernel writing the
 * size, say) is seen, as NVIDIA documents; the program's thread waits for
 * the I/O meanwhile. Registering a stream is optional: its flags say which
 * values are fixed, and PAGE_ALIGNED_INPUTS is checked.
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

/* cuStreamSynchronize from the CUDA driver, where there is one. */
static struct {
	pthread_once_t once;
	gpcu_stream_sync_fn sync;
} cu = { .once = PTHREAD_ONCE_INIT };

static void cu_load(void)
{
	void *lib = dlopen(GPCU_LIBRARY, RTLD_NOW | RTLD_LOCAL);

	if (lib)
		cu.sync = (gpcu_stream_sync_fn)dlsym(lib, "cuStreamSynchronize");
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
	/* A default stream of a process or thread that never used CUDA: nothing queued. */
	if ((r == GPCU_ERROR_NOT_INITIALIZED || r == GPCU_ERROR_INVALID_CONTEXT) &&
	    (!stream || (gpcu_stream)stream == GPCU_STREAM_LEGACY ||
	     (gpcu_stream)stream == GPCU_STREAM_PER_THREAD))
		r = GPCU_SUCCESS;
	if (r != GPCU_SUCCESS) {
		s.err = CU_FILE_CUDA_DRIVER_ERROR;
		s.cu_err = r;
	}
	return s;
}

static CUfileError_t stream_io(CUfileHandle_t fh, void *base, size_t *size_p, off_t *foff_p,
			       off_t *boff_p, ssize_t *bytes_p, CUstream stream, bool wr)
{
	struct reg_stream *rs;
	unsigned int flags = 0;
	CUfileError_t s;
	ssize_t r;

	if (!fh || !base || !size_p || !foff_p || !boff_p || !bytes_p)
		return status(CU_FILE_INVALID_VALUE);
	ensure_open();
	pthread_mutex_lock(&drv.lock);
	rs = stream_find_locked(stream);
	if (rs)
		flags = rs->flags;
	r = fh_find_locked(fh) ? 0 : -1;
	pthread_mutex_unlock(&drv.lock);
	if (r)
		return status(CU_FILE_HANDLE_NOT_REGISTERED);
	s = stream_sync(stream);
	if (s.err != CU_FILE_SUCCESS)
		return s;
	/* The stream has reached the operation: its values are read now. */
	if ((flags & CU_FILE_STREAM_PAGE_ALIGNED_INPUTS) &&
	    (*size_p | (size_t)*foff_p | (size_t)*boff_p) % 4096)
		return status(CU_FILE_INVALID_VALUE);
	r = do_io(fh, base, *size_p, *foff_p, *boff_p, wr);
	*bytes_p = r >= 0 || r <= -CUFILEOP_BASE_ERR ? r : -1;
	return status(CU_FILE_SUCCESS);
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
