// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cufile: the stream API (private.h says what is where).
 */
#define _GNU_SOURCE
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
