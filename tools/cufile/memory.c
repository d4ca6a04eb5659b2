// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cufile: registered buffers (private.h says what is where).
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

/* ---- buffers ---------------------------------------------------------- */

struct mem *mem_find_locked(const void *base)
{
	struct link *l;

	for (l = drv.mems; l; l = l->next)
		if (((struct mem *)l)->base == base)
			return (struct mem *)l;
	return NULL;
}

bool is_cuda(const void *p)
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

static CUfileError_t buf_register(const void *base, size_t length, int flags)
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

static CUfileError_t buf_deregister(const void *base)
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

EXPORT CUfileError_t cuFileBufRegister(const void *base, size_t length, int flags)
{
	CUfileError_t s = buf_register(base, length, flags);

	STATS_OP(buf_register_ops, s.err == CU_FILE_SUCCESS);
	return s;
}

EXPORT CUfileError_t cuFileBufDeregister(const void *base)
{
	CUfileError_t s = buf_deregister(base);

	STATS_OP(buf_deregister_ops, s.err == CU_FILE_SUCCESS);
	return s;
}
