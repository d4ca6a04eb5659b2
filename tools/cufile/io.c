// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cufile: cuFileRead and cuFileWrite (private.h says what is where).
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
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "private.h"

/* ---- I/O -------------------------------------------------------------- */

/* A pipe of the process's own, for cpu_readable() to copy bytes through. */
static struct {
	pthread_once_t once;
	int fd[2];
} probe = { .once = PTHREAD_ONCE_INIT, .fd = { -1, -1 } };

static void probe_open(void)
{
	if (pipe2(probe.fd, O_CLOEXEC | O_NONBLOCK) < 0)
		probe.fd[0] = probe.fd[1] = -1;
}

/*
 * Whether the first and last bytes of @n at @p are memory this process may
 * read: not device memory taken for host memory (a cudaMalloc pointer
 * where CUDA cannot be asked, PROT_NONE to the CPU), nor no memory at all.
 * The kernel copies both into a pipe in one write, which fails with EFAULT
 * if either cannot be read (the pipe keeps nothing then); this works wherever
 * the CPU could read them (also device mappings such as GDRCopy's) and
 * needs no permission a sandbox may deny (process_vm_readv would).
 */
static bool cpu_readable(const char *p, size_t n)
{
	struct iovec iov[2] = { { (void *)p, 1 }, { (void *)(p + n - 1), 1 } };
	ssize_t k, r;
	char c[2];

	pthread_once(&probe.once, probe_open);
	if (probe.fd[1] < 0)
		return true;		/* no pipe: nothing to tell by (not seen) */
	k = writev(probe.fd[1], iov, 2);
	/* (short when another thread took these bytes: the count evens out) */
	if (k > 0) {
		r = read(probe.fd[0], c, k);
		(void)r;
	}
	return k == 2 || (k < 0 && errno != EFAULT);
}

/*
 * Where @size bytes at @base + @boff are. A registered buffer is named by
 * its base and must hold the range; other memory is looked up.
 */
CUfileOpError resolve(const void *base, off_t boff, size_t size, struct target *t)
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
	/* Host memory is touched by the CPU: first make sure it can be, without a fault. */
	if (!t->cuda && size && !cpu_readable(t->addr, size))
		return CU_FILE_CUDA_POINTER_INVALID;
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

/* gpupath_fd_bounce()'s copy: bytes between the caller's memory and the bounce. */
static int move_piece(void *bounce, uint64_t off, uint64_t n, bool to_bounce, void *arg)
{
	return move(arg, off, bounce, n, to_bounce);
}

/*
 * The compat way: through host memory and the caller's descriptor, in
 * whole blocks where it is O_DIRECT (libgpupath's gpupath_fd_bounce). Returns the bytes moved or a negative errno.
 */
static ssize_t compat(struct fh *f, const struct target *t, size_t size, off_t foff, bool wr)
{
	size_t al = f->odirect ? f->lbs : 1;
	/* max_direct_io_size_kb at most (whole blocks), and no more than the I/O needs. */
	size_t chunk = (drv.max_direct_kb << 10) / al * al, need = (size + al - 1) / al * al;

	if (!chunk)
		chunk = al;
	if (need && need < chunk)
		chunk = need;
	return gpupath_fd_bounce(f->fd, wr ? GPUPATH_IO_WRITE : GPUPATH_IO_READ, foff, size,
				 al, chunk, move_piece, (void *)t);
}

/* How the module is to serve device memory: as the configuration says. */
static enum gpupath_io_policy io_policy(bool wr)
{
	/* gds_rdma_write_support false: device memory is written through host memory. */
	if (drv.force_compat || (wr && !drv.rdma_write))
		return GPUPATH_POLICY_COMPAT;
	return drv.allow_compat ? GPUPATH_POLICY_AUTO : GPUPATH_POLICY_DIRECT;
}

/* 0, a negative errno, or -CU_FILE_IO_NOT_SUPPORTED: not direct, no compat. */
int module_io(struct fh *f, const struct target *t, size_t size, off_t foff, bool wr)
{
	enum gpupath_io_policy policy = io_policy(wr);
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
uint32_t module_refusal(const struct fh *f, const struct target *t, size_t size,
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
bool via_module(const struct target *t, uint32_t refusal)
{
	return refusal == GPUPATH_REASON_NONE && (t->buf || t->cuda);
}

/* Clamp to the end of a block device; false when nothing is left. */
bool clamp(const struct fh *f, off_t foff, size_t *size)
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
/*
 * Through the module in pieces of max_direct_io_size_kb, as NVIDIA's library
 * issues them (the kernel takes under 2 GiB per I/O): the bytes moved, or
 * a negative errno when none were.
 */
static ssize_t module_chunks(struct fh *f, const struct target *t, size_t size, off_t foff,
			     bool wr)
{
	size_t chunk = drv.max_direct_kb << 10, done = 0, n;
	struct target c = *t;
	int r;

	while (done < size) {
		n = size - done < chunk ? size - done : chunk;
		c.off = t->off + done;
		c.addr = t->addr + done;
		r = module_io(f, &c, n, foff + done, wr);
		if (r < 0)
			return done ? (ssize_t)done : r;
		done += last.len;
		/* A file read may end at the end of the file. */
		if (last.len < n)
			break;
	}
	return done;
}

ssize_t run_io(struct fh *f, const struct target *t, size_t size, off_t foff, bool wr)
{
	uint32_t refusal = module_refusal(f, t, size, foff);
	ssize_t r;

	last.mode = GPUPATH_MODE_NONE;
	last.reason = GPUPATH_REASON_NONE;
	if (!clamp(f, foff, &size))
		return 0;
	if (via_module(t, refusal))
		return module_chunks(f, t, size, foff, wr);
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

ssize_t do_io(CUfileHandle_t h, const void *base, size_t size, off_t foff, off_t boff, bool wr)
{
	struct target t;
	CUfileOpError err;
	struct fh *f;
	uint64_t t0;
	ssize_t r;

	ensure_open();
	if (!h || !base || foff < 0 || boff < 0)
		return -CU_FILE_INVALID_VALUE;
	if (size > SSIZE_MAX)
		size = SSIZE_MAX;
	pthread_mutex_lock(&drv.lock);
	f = fh_get_locked(h);
	pthread_mutex_unlock(&drv.lock);
	if (!f)
		return -CU_FILE_HANDLE_NOT_REGISTERED;
	err = resolve(base, boff, size, &t);
	if (err != CU_FILE_SUCCESS) {
		fh_put(f);
		return -(ssize_t)err;
	}
	t0 = stats_clock();
	r = run_io(f, &t, size, foff, wr);
	fh_put(f);
	stats_io(wr, false, r, size, t0);
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
