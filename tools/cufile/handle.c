// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cufile: file handles (private.h says what is where).
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

/* ---- file handles ----------------------------------------------------- */

struct fh *fh_find_locked(CUfileHandle_t h)
{
	return link_find(drv.fhs, h);
}

struct fh *fh_get_locked(CUfileHandle_t h)
{
	struct fh *f = fh_find_locked(h);

	if (f)
		f->users++;
	return f;
}

void fh_put_locked(struct fh *f)
{
	if (!--f->users && f->gone)
		free(f);
}

void fh_put(struct fh *f)
{
	pthread_mutex_lock(&drv.lock);
	fh_put_locked(f);
	pthread_mutex_unlock(&drv.lock);
}

void fh_free_locked(struct fh *f)
{
	f->gone = true;
	if (!f->users)
		free(f);
}

static CUfileError_t handle_register(CUfileHandle_t *fhp, CUfileDescr_t *descr)
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
	f->odirect = flags & O_DIRECT;
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
	link_add(&drv.fhs, &f->link);
	pthread_mutex_unlock(&drv.lock);
	*fhp = f;
	return status(CU_FILE_SUCCESS);
}

EXPORT void cuFileHandleDeregister(CUfileHandle_t h)
{
	struct fh *f = link_take(&drv.fhs, h);

	STATS_OP(hdl_deregister_ops, f);
	if (f) {
		pthread_mutex_lock(&drv.lock);
		fh_free_locked(f);
		pthread_mutex_unlock(&drv.lock);
	}
}

EXPORT CUfileError_t cuFileHandleRegister(CUfileHandle_t *fhp, CUfileDescr_t *descr)
{
	CUfileError_t s = handle_register(fhp, descr);

	STATS_OP(hdl_register_ops, s.err == CU_FILE_SUCCESS);
	return s;
}
