// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The data device /dev/gpupath: buffers, and I/O with the policies of
 * libgpupath.h (direct, or bounced through pinned host memory).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>

#include "libgpupath.h"
#include "internal.h"

/* Size of the host buffer that compat I/O bounces through. */
#define BOUNCE_SIZE	(4u << 20)

struct gpupath_dev {
	int fd;
	/*
	 * The process that opened it. The module's completions of batched I/O
	 * are the descriptor's: a child of fork() that shares it neither
	 * submits nor reaps there (it would take its parent's completions).
	 */
	pid_t pid;
	pthread_mutex_t bounce_lock;	/* bounce and its use */
	struct gpupath_buf *bounce;
	gpupath_close_fn atclose;	/* libgpupath-cuda's, to drop its buffers */
};

struct gpupath_buf {
	struct gpupath_dev *dev;
	/*
	 * The process that made it. A child of fork() shares the descriptor,
	 * and with it the module's buffers of both: what the child frees of
	 * its parent's (its copy of a buffer, the library closing at its
	 * exit) must not go under the parent, so only the maker frees in the
	 * module.
	 */
	pid_t pid;
	uint64_t handle;
	void *addr;
	size_t size;
	bool device;		/* device memory, mapped from /dev/gpupath */
	uint32_t bar;		/* device memory: where it is */
	uint64_t bar_offset;
	bool own;		/* addr was allocated here */
	size_t mapped;		/* ... from huge pages: the length mapped */
	struct gpupath_buf *next;	/* in bufs, while it has an address */
};

/*
 * The process's compat writes: those of part of a block one at a time
 * (each may read what it rewrites, and give a file its end back), the
 * others side by side but never during one of those.
 */
static pthread_rwlock_t fd_rmw_lock = PTHREAD_RWLOCK_INITIALIZER;

/* Every buffer of this process that has an address, for gpupath_buf_lookup(). */
static pthread_mutex_t bufs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gpupath_buf *bufs;

static void bufs_add(struct gpupath_buf *buf)
{
	pthread_mutex_lock(&bufs_lock);
	buf->next = bufs;
	bufs = buf;
	pthread_mutex_unlock(&bufs_lock);
}

static void bufs_del(struct gpupath_buf *buf)
{
	struct gpupath_buf **p;

	pthread_mutex_lock(&bufs_lock);
	for (p = &bufs; *p; p = &(*p)->next) {
		if (*p == buf) {
			*p = buf->next;
			break;
		}
	}
	pthread_mutex_unlock(&bufs_lock);
}

struct gpupath_buf *gpupath_buf_lookup(const void *addr, uint64_t *off)
{
	uintptr_t a = (uintptr_t)addr;
	struct gpupath_buf *buf;

	pthread_mutex_lock(&bufs_lock);
	for (buf = bufs; buf; buf = buf->next) {
		uintptr_t base = (uintptr_t)buf->addr;

		if (a >= base && a - base < buf->size) {
			*off = a - base;
			break;
		}
	}
	pthread_mutex_unlock(&bufs_lock);
	return buf;
}

/*
 * A child of fork() has one thread: the process-wide locks another thread
 * of the parent held at the fork would never be let go of.
 */
static void fork_child(void)
{
	pthread_mutex_init(&bufs_lock, NULL);
	pthread_rwlock_init(&fd_rmw_lock, NULL);
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_setup(void)
{
	pthread_atfork(NULL, NULL, fork_child);
}

int gpupath_dev_open(struct gpupath_dev **devp)
{
	struct gpupath_dev *dev;

	pthread_once(&fork_once, fork_setup);

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->fd = open(GPUPATH_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		int r = -errno;

		free(dev);
		return r;
	}
	dev->pid = getpid();
	pthread_mutex_init(&dev->bounce_lock, NULL);
	*devp = dev;
	return 0;
}

void gpupath_dev_close(struct gpupath_dev *dev)
{
	if (!dev)
		return;
	if (dev->atclose)
		dev->atclose(dev);
	gpupath_buf_free(dev->bounce);
	pthread_mutex_destroy(&dev->bounce_lock);
	close(dev->fd);
	free(dev);
}

void gpupath_dev_atclose(struct gpupath_dev *dev, gpupath_close_fn fn)
{
	dev->atclose = fn;
}

int gpupath_dev_fd(const struct gpupath_dev *dev)
{
	return dev->fd;
}

int gpupath_dev_version(struct gpupath_dev *dev, struct gpupath_version *ver)
{
	if (ioctl(dev->fd, GPUPATH_IOC_VERSION, ver) < 0)
		return -errno;
	return 0;
}

/* ---- buffers ------------------------------------------------------------ */

static int new_buf(struct gpupath_dev *dev, size_t size, struct gpupath_buf **bufp)
{
	*bufp = calloc(1, sizeof(**bufp));
	if (!*bufp)
		return -ENOMEM;
	(*bufp)->dev = dev;
	(*bufp)->pid = getpid();
	(*bufp)->size = size;
	return 0;
}

int gpupath_buf_alloc(struct gpupath_dev *dev, uint32_t provider, size_t size,
		      struct gpupath_buf **bufp)
{
	struct gpupath_alloc req = { .provider = provider, .size = size };
	struct gpupath_buf *buf;
	int r;

	r = new_buf(dev, size, &buf);
	if (r < 0)
		return r;
	if (ioctl(dev->fd, GPUPATH_IOC_ALLOC, &req) < 0) {
		r = -errno;
		goto err_free;
	}
	buf->handle = req.handle;
	buf->device = true;
	buf->bar = req.bar;
	buf->bar_offset = req.bar_offset;
	buf->addr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
			 req.mmap_offset);
	if (buf->addr == MAP_FAILED) {
		r = -errno;
		ioctl(dev->fd, GPUPATH_IOC_FREE, &req.handle);
		goto err_free;
	}
	bufs_add(buf);
	*bufp = buf;
	return 0;

err_free:
	free(buf);
	return r;
}

/* Register memory with @cmd; the kernel writes the handle into *@handle. */
static int reg(struct gpupath_dev *dev, unsigned long cmd, void *req, const __u64 *handle,
	       size_t size, struct gpupath_buf **bufp)
{
	struct gpupath_buf *buf;
	int r;

	r = new_buf(dev, size, &buf);
	if (r < 0)
		return r;
	if (ioctl(dev->fd, cmd, req) < 0) {
		r = -errno;
		free(buf);
		return r;
	}
	buf->handle = *handle;
	*bufp = buf;
	return 0;
}

int gpupath_buf_host(struct gpupath_dev *dev, void *addr, size_t size,
		     struct gpupath_buf **bufp)
{
	struct gpupath_host_reg req = { .addr = (uintptr_t)addr, .size = size };
	int r;

	r = reg(dev, GPUPATH_IOC_REG_HOST, &req, &req.handle, size, bufp);
	if (r == 0) {
		(*bufp)->addr = addr;
		bufs_add(*bufp);
	}
	return r;
}

int gpupath_buf_cuda(struct gpupath_dev *dev, void *dptr, size_t size,
		     struct gpupath_buf **bufp)
{
	struct gpupath_cuda_reg req = { .addr = (uintptr_t)dptr, .size = size };

	return reg(dev, GPUPATH_IOC_REG_CUDA, &req, &req.handle, size, bufp);
}

/* Host memory from host_mem_get(): @mapped bytes of huge pages, or heap. */
static void host_mem_put(void *mem, size_t mapped)
{
	if (mapped)
		munmap(mem, mapped);
	else
		free(mem);
}

void gpupath_buf_free(struct gpupath_buf *buf)
{
	if (!buf)
		return;
	if (buf->addr)
		bufs_del(buf);
	if (buf->device)
		munmap(buf->addr, buf->size);
	if (buf->pid == getpid())
		ioctl(buf->dev->fd, GPUPATH_IOC_FREE, &buf->handle);
	if (buf->own)
		host_mem_put(buf->addr, buf->mapped);
	free(buf);
}

static size_t hugepage_size;

/*
 * With GPUPATH_HUGEPAGES=1 in the environment, the system's default huge
 * page size (/proc/meminfo); else, or if it has none, 0: no huge pages. The
 * pool is the administrator's, reserved for whatever they chose: taken only
 * when asked.
 */
static void hugepage_size_read(void)
{
	const char *env = getenv("GPUPATH_HUGEPAGES");
	char line[128];
	size_t kb;
	FILE *f;

	if (!env || strcmp(env, "1"))
		return;
	f = fopen("/proc/meminfo", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %zu kB", &kb) == 1) {
			hugepage_size = kb << 10;
			break;
		}
	fclose(f);
}

/*
 * Host memory of @size bytes (a multiple of the page size), page-aligned:
 * from the huge page pool when asked to (GPUPATH_HUGEPAGES=1) and it has
 * pages free, else from the heap. A huge page is physically contiguous, so
 * an I/O into it takes few segments, and one pin per page. Shared, so a
 * fork copies nothing (private pinned pages would be copied for the
 * child). Returns the length mapped from huge pages in *@mapped, 0 for
 * heap memory.
 */
static void *host_mem_get(size_t size, size_t *mapped)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	size_t len;
	void *p;

	*mapped = 0;
	pthread_once(&once, hugepage_size_read);
	if (hugepage_size && size <= SIZE_MAX - hugepage_size) {
		len = (size + hugepage_size - 1) / hugepage_size * hugepage_size;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p != MAP_FAILED) {
			*mapped = len;
			return p;
		}
	}
	return aligned_alloc(4096, size);
}

int gpupath_buf_host_alloc(struct gpupath_dev *dev, size_t size, struct gpupath_buf **bufp)
{
	size_t mapped;
	void *mem;
	int r;

	/* As the module checks it: no pool page taken for a bad size. */
	if (!size || size % (size_t)sysconf(_SC_PAGESIZE))
		return -EINVAL;
	mem = host_mem_get(size, &mapped);
	if (!mem)
		return -ENOMEM;
	r = gpupath_buf_host(dev, mem, size, bufp);
	if (r < 0) {
		host_mem_put(mem, mapped);
		return r;
	}
	(*bufp)->own = true;
	(*bufp)->mapped = mapped;
	return 0;
}

void *gpupath_buf_addr(const struct gpupath_buf *buf)
{
	return buf->addr;
}

size_t gpupath_buf_size(const struct gpupath_buf *buf)
{
	return buf->size;
}

uint64_t gpupath_buf_handle(const struct gpupath_buf *buf)
{
	return buf->handle;
}

struct gpupath_dev *gpupath_buf_dev(const struct gpupath_buf *buf)
{
	return buf->dev;
}

int gpupath_buf_location(const struct gpupath_buf *buf, uint32_t *bar, uint64_t *offset)
{
	if (!buf->device)
		return -EINVAL;
	*bar = buf->bar;
	*offset = buf->bar_offset;
	return 0;
}

/* ---- I/O ---------------------------------------------------------------- */

static int io_once(struct gpupath_buf *buf, uint32_t op, uint64_t buf_off, int fd,
		   uint64_t dev_off, uint64_t len, struct gpupath_result *res)
{
	struct gpupath_io io = {
		.handle = buf->handle, .buf_offset = buf_off, .dev_offset = dev_off,
		.len = len, .fd = fd, .op = op,
	};
	int r = ioctl(buf->dev->fd, GPUPATH_IOC_IO, &io) < 0 ? -errno : 0;

	res->mode = io.mode;
	res->reason = io.reason;
	res->len = r ? 0 : io.len;
	return r;
}

static bool regular_file(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* @n bytes at @off: the bytes moved (fewer only where a read met the end), or -errno. */
static int64_t fd_full(int fd, char *p, uint64_t n, uint64_t off, bool wr)
{
	uint64_t done = 0;
	ssize_t k;

	while (done < n) {
		k = wr ? pwrite(fd, p + done, n - done, off + done) :
			 pread(fd, p + done, n - done, off + done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0) {
			if (wr)
				return -EIO;
			break;
		}
		done += k;
	}
	return done;
}


/*
 * One piece: @n bytes at @pos, @head bytes into whole blocks of @al read
 * around them (a read; a write that does not cover its blocks), then for
 * a write the blocks written back, and a file they grew given its end
 * back. The bytes moved (fewer where a read met the end), or -errno.
 */
static int64_t fd_piece(int fd, uint32_t op, bool file, uint64_t blk, char *tmp, uint64_t pos,
			uint64_t head, uint64_t n, unsigned int al, uint64_t done,
			gpupath_copy_fn copy, void *arg)
{
	uint64_t a0 = pos - head, span = (head + n + al - 1) / al * al;
	bool wr = op == GPUPATH_IO_WRITE, rmw = wr && (head || span != n);
	/*
	 * A write of part of a block (@blk) waits for the rewrites of whole
	 * blocks, whether it reads its block around it here (O_DIRECT) or the
	 * page cache does: another descriptor of the file, O_DIRECT, may be
	 * rewriting that block for its other bytes.
	 */
	bool serial = rmw || (wr && (pos | n) % blk);
	int64_t got = span;
	struct stat st;
	int r = 0;

	if (serial)
		pthread_rwlock_wrlock(&fd_rmw_lock);
	else if (wr)
		pthread_rwlock_rdlock(&fd_rmw_lock);
	if (!wr || rmw) {
		got = fd_full(fd, tmp, span, a0, false);
		if (got >= 0 && (uint64_t)got < span)
			memset(tmp + got, 0, span - got);	/* past the end */
	}
	if (got < 0)
		r = (int)got;
	/* A read: what there is, up to the end of the file. */
	else if (!wr && (uint64_t)got < head + n)
		n = (uint64_t)got > head ? got - head : 0;
	if (r == 0 && n)
		r = copy(tmp + head, done, n, wr, arg);
	if (r == 0 && wr && file && al > 1 && fstat(fd, &st) < 0)
		r = -errno;
	if (r == 0 && wr) {
		got = fd_full(fd, tmp, span, a0, true);
		r = got < 0 ? (int)got : 0;
	}
	/* Whole blocks wrote past the end of the file: its end is the write's. */
	if (r == 0 && wr && file && al > 1 && a0 + span > (uint64_t)st.st_size &&
	    a0 + span > pos + n &&
	    ftruncate(fd, (uint64_t)st.st_size > pos + n ? (off_t)st.st_size : (off_t)(pos + n)))
		r = -errno;
	if (wr)
		pthread_rwlock_unlock(&fd_rmw_lock);
	return r < 0 ? r : (int64_t)n;
}

int64_t gpupath_fd_bounce(int fd, uint32_t op, uint64_t off, uint64_t len, unsigned int al,
			  uint64_t chunk, gpupath_copy_fn copy, void *arg)
{
	uint64_t done = 0, head, n, blk = 4096;	/* the largest logical block of a device */
	struct stat st;
	bool file;
	int64_t k = 0;
	char *tmp;

	if (!al || chunk % al || !chunk)
		return -EINVAL;
	pthread_once(&fork_once, fork_setup);
	file = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	/* A file's partial-block writes: in its own blocks, where they are larger. */
	if (file && (uint64_t)st.st_blksize > blk)
		blk = st.st_blksize;
	if (posix_memalign((void **)&tmp, 4096, chunk + al))
		return -ENOMEM;
	while (done < len) {
		head = (off + done) % al;
		n = len - done < chunk - head ? len - done : chunk - head;
		k = fd_piece(fd, op, file, blk, tmp, off + done, head, n, al, done, copy, arg);
		if (k < 0)
			break;
		done += k;
		/* A read reached the end of the file. */
		if ((uint64_t)k < n)
			break;
	}
	free(tmp);
	return done ? (int64_t)done : k;
}

static int bounce_get(struct gpupath_dev *dev, struct gpupath_buf **bp)
{
	int r = 0;

	/*
	 * A child of fork() has a copy of its parent's bounce buffer; the
	 * module's I/O goes to the parent's pages. It makes its own.
	 */
	if (dev->bounce && dev->bounce->pid != getpid()) {
		gpupath_buf_free(dev->bounce);
		dev->bounce = NULL;
	}
	if (!dev->bounce)
		r = gpupath_buf_host_alloc(dev, BOUNCE_SIZE, &dev->bounce);
	*bp = dev->bounce;
	return r;
}

int gpupath_io_align(int fd, uint32_t op)
{
	static const char *const queue[] = { "queue", "../queue" };	/* disk, partition */
	char dir[64], val[16];
	struct stat st;
	unsigned int i;
	int lbs = 512;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKSSZGET, &lbs) < 0 ? -errno : lbs;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	/* A file: the logical blocks of its file system's device, as the module checks. */
	for (i = 0; i < ARRAY_SIZE(queue); i++) {
		snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/%s", major(st.st_dev),
			 minor(st.st_dev), queue[i]);
		if (gpupath_sysfs_read(dir, "logical_block_size", val, sizeof(val)) == 0) {
			lbs = atoi(val);
			if (lbs < 512 || (lbs & (lbs - 1)))
				lbs = 512;
			break;
		}
	}
	/* A write: whole blocks of the file system too. */
	if (op == GPUPATH_IO_WRITE && st.st_blksize > lbs && !(st.st_blksize & (st.st_blksize - 1)))
		lbs = st.st_blksize;
	return lbs;
}

bool gpupath_unaligned(int fd, uint32_t op, uint64_t buf_off, uint64_t dev_off, uint64_t len)
{
	int al = gpupath_io_align(fd, op);

	return al > 0 && (buf_off | dev_off | len) % al;
}

/*
 * One chunk of a bounce through the module: @n bytes at @dev_off, which
 * sit @head bytes into the @span bytes of whole logical blocks read (and
 * for a write, written back) around them.
 */
static int bounce_blocks(struct gpupath_buf *b, uint32_t op, int fd, uint64_t dev_off,
			 uint64_t head, uint64_t n, uint64_t span, uint64_t done,
			 gpupath_copy_fn copy, void *arg)
{
	struct gpupath_result res;
	int r = 0;

	/* Read around a partial block before writing it. */
	if (op == GPUPATH_IO_READ || head || span != n)
		r = io_once(b, GPUPATH_IO_READ, 0, fd, dev_off - head, span, &res);
	if (r == 0)
		r = copy((char *)b->addr + head, done, n, op == GPUPATH_IO_WRITE, arg);
	if (r == 0 && op == GPUPATH_IO_WRITE)
		r = io_once(b, GPUPATH_IO_WRITE, 0, fd, dev_off - head, span, &res);
	return r;
}

/*
 * Through pinned host memory, in chunks: the compat path. @copy moves each
 * chunk between the bounce buffer and the caller's memory at @off: before
 * the device I/O for writes (to_bounce), after it for reads.
 */
int gpupath_bounce(struct gpupath_dev *dev, uint32_t op, int fd, uint64_t dev_off,
		   uint64_t len, gpupath_copy_fn copy, void *arg, uint64_t *moved)
{
	struct gpupath_buf *b;
	uint64_t done = 0, n, head, span;
	int al, flags;
	int64_t k;
	int r;

	/* A file through the file system: in whole blocks where it was opened O_DIRECT. */
	if (regular_file(fd)) {
		flags = fcntl(fd, F_GETFL);
		al = flags >= 0 && (flags & O_DIRECT) ? gpupath_io_align(fd, op) : 1;
		if (al <= 0)
			return al < 0 ? al : -EINVAL;
		k = gpupath_fd_bounce(fd, op, dev_off, len, al,
				      (uint64_t)al > BOUNCE_SIZE ? (uint64_t)al : BOUNCE_SIZE / al * al,
				      copy, arg);
		if (moved)
			*moved = k < 0 ? 0 : k;
		return k < 0 ? (int)k : 0;
	}
	al = gpupath_io_align(fd, op);
	if (al <= 0 || BOUNCE_SIZE % al)
		return al < 0 ? al : -EINVAL;
	pthread_mutex_lock(&dev->bounce_lock);
	r = bounce_get(dev, &b);
	while (r == 0 && done < len) {
		/* Whole blocks around the bytes asked for, in one bounce buffer. */
		head = (dev_off + done) % al;
		n = len - done < BOUNCE_SIZE - head ? len - done : BOUNCE_SIZE - head;
		span = (head + n + al - 1) / al * al;
		r = bounce_blocks(b, op, fd, dev_off + done, head, n, span, done, copy, arg);
		if (r == 0)
			done += n;
	}
	pthread_mutex_unlock(&dev->bounce_lock);
	if (moved)
		*moved = done;
	return r;
}

struct map_copy {
	char *user;
};

static int copy_mapped(void *bounce, uint64_t off, uint64_t n, bool to_bounce, void *arg)
{
	struct map_copy *m = arg;

	if (to_bounce)
		memcpy(bounce, m->user + off, n);
	else
		memcpy(m->user + off, bounce, n);
	return 0;
}

static int bounce_io(struct gpupath_buf *buf, uint32_t op, uint64_t buf_off, int fd,
		     uint64_t dev_off, uint64_t len, uint64_t *moved)
{
	struct map_copy m = { (char *)buf->addr + buf_off };

	return gpupath_bounce(buf->dev, op, fd, dev_off, len, copy_mapped, &m, moved);
}

static int do_io(struct gpupath_buf *buf, uint32_t op, uint64_t buf_off, int fd,
		 uint64_t dev_off, uint64_t len, enum gpupath_io_policy policy,
		 struct gpupath_result *res)
{
	struct gpupath_result local;
	int r;

	res = gpupath_result_start(res, &local);
	if (policy > GPUPATH_POLICY_COMPAT)
		return -EINVAL;
	if (policy != GPUPATH_POLICY_COMPAT || !buf->device) {
		r = io_once(buf, op, buf_off, fd, dev_off, len, res);
		/* A module from before files: through the page cache. */
		if (r == -ENOTBLK && regular_file(fd)) {
			res->reason = GPUPATH_REASON_NOT_BLOCK_DEVICE;
			r = -EXDEV;
		}
		/* Refused for not being in whole blocks (asked only then): bounced under auto. */
		if (r == -EINVAL && policy == GPUPATH_POLICY_AUTO && buf->addr &&
		    gpupath_unaligned(fd, op, buf_off, dev_off, len)) {
			res->reason = GPUPATH_REASON_UNALIGNED;
			r = -EXDEV;
		}
		if (r != -EXDEV || policy == GPUPATH_POLICY_DIRECT)
			return r;
	}
	/* A CUDA buffer has no mapping here to bounce through. */
	if (!buf->addr)
		return -EXDEV;
	/* Check what the kernel would check, before copying anything. */
	if (buf_off > buf->size || len > buf->size - buf_off)
		return -EINVAL;
	r = bounce_io(buf, op, buf_off, fd, dev_off, len, &res->len);
	if (r == 0)
		res->mode = GPUPATH_MODE_BOUNCE;
	return r;
}

int gpupath_read(struct gpupath_buf *buf, uint64_t buf_off, int fd, uint64_t dev_off,
		 uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res)
{
	return do_io(buf, GPUPATH_IO_READ, buf_off, fd, dev_off, len, policy, res);
}

int gpupath_write(struct gpupath_buf *buf, uint64_t buf_off, int fd, uint64_t dev_off,
		  uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res)
{
	return do_io(buf, GPUPATH_IO_WRITE, buf_off, fd, dev_off, len, policy, res);
}

/* ---- batches ------------------------------------------------------------ */

int gpupath_submit(struct gpupath_dev *dev, const struct gpupath_iov *iov, unsigned int n)
{
	struct gpupath_submit sub = { .count = n };
	struct gpupath_io *ios;
	unsigned int i;
	int r;

	if (!n || n > GPUPATH_SUBMIT_MAX)
		return -EINVAL;
	if (dev->pid != getpid())
		return -EBADFD;
	ios = calloc(n, sizeof(*ios));
	if (!ios)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ios[i].handle = iov[i].buf->handle;
		ios[i].buf_offset = iov[i].buf_off;
		ios[i].dev_offset = iov[i].dev_off;
		ios[i].len = iov[i].len;
		ios[i].fd = iov[i].fd;
		ios[i].op = iov[i].op;
		ios[i].user_data = iov[i].user_data;
	}
	sub.ios = (uintptr_t)ios;
	r = ioctl(dev->fd, GPUPATH_IOC_SUBMIT, &sub);
	r = r < 0 ? -errno : r;
	free(ios);
	return r;
}

int gpupath_reap(struct gpupath_dev *dev, struct gpupath_completion *c, unsigned int max,
		 int timeout_ms)
{
	struct gpupath_reap rp = { .completions = (uintptr_t)c, .max = max };
	struct pollfd pfd = { .fd = dev->fd, .events = POLLIN };

	if (dev->pid != getpid())
		return -EBADFD;
	if (timeout_ms && poll(&pfd, 1, timeout_ms) < 0)
		return -errno;
	if (ioctl(dev->fd, GPUPATH_IOC_REAP, &rp) < 0)
		return -errno;
	return rp.count;
}

int gpupath_set_eventfd(struct gpupath_dev *dev, int efd)
{
	int32_t fd = efd;

	if (dev->pid != getpid())
		return -EBADFD;
	return ioctl(dev->fd, GPUPATH_IOC_SET_EVENTFD, &fd) < 0 ? -errno : 0;
}
