// SPDX-License-Identifier: GPL-2.0
/*
 * io-check: every bad input to the buffer and I/O ioctls of /dev/gpupath
 * gets its exact errno. Run in the VM:
 *
 *   io-check PROVIDER_ID BLOCKDEV
 *
 * BLOCKDEV must be at least 16 MiB; nothing is written to it (the caller
 * checks that its contents survive).
 *
 *   io-check host-file FILE BLOCKDEV ok|refused
 *
 * maps 1 MiB of FILE (created or truncated) shared and registers it as host
 * memory: that works (ok), then the first MiB of BLOCKDEV is read into it,
 * or it is refused with EOPNOTSUPP (refused: a file system that writes back
 * and evicts its pages behind a pin).
 *
 *   io-check file PROVIDER_ID DIR RODIR
 *
 * bad input of file I/O, in DIR on ext4 (files used there: f, imm, app,
 * del; f must exist) and RODIR, a read-only mount of it: each gets its exact errno, and a file
 * deleted while open can still be read. What the files hold afterwards is
 * the caller's to check.
 *
 *   io-check encrypt DIR
 *
 * makes DIR, an empty directory on a file system with encryption enabled
 * (ext4 -O encrypt), encrypted: a new key in the file system's keyring and
 * a v2 policy on DIR. Files then made in DIR are encrypted inodes.
 *
 *   io-check revoke PROVIDER_ID BLOCKDEV
 *
 * allocates 1 MiB of device memory, maps it, fills it, prints "ready" and
 * waits for a line on standard input, meanwhile the provider is removed.
 * Then touching the mapping gets SIGBUS, I/O on the handle ENODEV, a new
 * mapping of it ENODEV, and freeing it, unmapping and closing work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/fscrypt.h>
#include <linux/gpupath.h>

#include "expect.h"

static int ctl;

static int alloc(uint32_t prov, uint64_t size, uint32_t flags, struct gpupath_alloc *a)
{
	memset(a, 0, sizeof(*a));
	a->provider = prov;
	a->size = size;
	a->flags = flags;
	return ioctl(ctl, GPUPATH_IOC_ALLOC, a);
}

static int reg_host(void *addr, uint64_t size, uint64_t *handle)
{
	struct gpupath_host_reg r = { .addr = (uintptr_t)addr, .size = size };
	int ret = ioctl(ctl, GPUPATH_IOC_REG_HOST, &r);

	*handle = r.handle;
	return ret;
}

static int io(uint64_t handle, int fd, uint32_t op, uint64_t boff, uint64_t doff, uint64_t len)
{
	struct gpupath_io req = {
		.handle = handle, .fd = fd, .op = op, .buf_offset = boff,
		.dev_offset = doff, .len = len,
	};

	return ioctl(ctl, GPUPATH_IOC_IO, &req);
}

static void check_alloc(uint32_t prov)
{
	struct gpupath_alloc a;
	void *map;

	expect("alloc of 0 bytes", alloc(prov, 0, 0, &a), EINVAL);
	expect("alloc of an unaligned size", alloc(prov, 4097, 0, &a), EINVAL);
	expect("alloc with unknown flags", alloc(prov, 4096, 1, &a), EINVAL);
	expect("alloc from no provider", alloc(0, 4096, 0, &a), ENOENT);
	expect("alloc from an unknown provider", alloc(prov + 1000, 4096, 0, &a), ENOENT);
	expect("alloc of more than the BAR", alloc(prov, 1ULL << 40, 0, &a), ENOMEM);
	expect("alloc of 64 KiB", alloc(prov, 65536, 0, &a), 0);
	map = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE, ctl, a.mmap_offset);
	expect("mmap private (writes would miss the device)", map == MAP_FAILED ? -1 : 0, EINVAL);
	map = mmap(NULL, 65536, PROT_READ, MAP_PRIVATE, ctl, a.mmap_offset);
	expect("mmap private, read-only", map == MAP_FAILED ? -1 : 0, EINVAL);
	map = mmap(NULL, 65536 + 4096, PROT_READ, MAP_SHARED, ctl, a.mmap_offset);
	expect("mmap larger than the buffer", map == MAP_FAILED ? -1 : 0, EINVAL);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ctl, (a.handle + 7) << 12);
	expect("mmap of no buffer", map == MAP_FAILED ? -1 : 0, EINVAL);
	expect("free", ioctl(ctl, GPUPATH_IOC_FREE, &a.handle), 0);
	expect("free again", ioctl(ctl, GPUPATH_IOC_FREE, &a.handle), ENOENT);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ctl, a.mmap_offset);
	expect("mmap of a freed buffer", map == MAP_FAILED ? -1 : 0, EINVAL);
}

static void check_host(void)
{
	char *mem = aligned_alloc(4096, 8192);
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t h;

	expect("host: unaligned address", reg_host(mem + 1, 4096, &h), EINVAL);
	expect("host: unaligned size", reg_host(mem, 100, &h), EINVAL);
	expect("host: zero size", reg_host(mem, 0, &h), EINVAL);
	expect("host: unmapped memory", reg_host((void *)4096, 4096, &h), EFAULT);
	expect("host: read-only memory", reg_host(ro, 4096, &h), EFAULT);
	expect("host: wrapping range", reg_host((void *)-4096L, 8192, &h), EINVAL);
	/* Over kvmalloc's limit for its page array: refused, no warning. */
	expect("host: 1 TiB", reg_host(mem, 1ULL << 40, &h), ENOMEM);
	expect("host: 8 KiB", reg_host(mem, 8192, &h), 0);
	expect("host: free", ioctl(ctl, GPUPATH_IOC_FREE, &h), 0);
	munmap(ro, 4096);
	free(mem);
}

static void check_io(uint32_t prov, const char *blk)
{
	int rd = open(blk, O_RDONLY), wr = open(blk, O_WRONLY);
	int chr = open("/dev/null", O_RDWR), reg = open("/proc/self/status", O_RDONLY);
	struct gpupath_alloc a;
	struct gpupath_io req;
	uint64_t h;

	alloc(prov, 1 << 20, 0, &a);
	h = a.handle;
	expect("io: handle 0", io(0, rd, GPUPATH_IO_READ, 0, 0, 4096), ENOENT);
	expect("io: unknown handle", io(h + 100, rd, GPUPATH_IO_READ, 0, 0, 4096), ENOENT);
	expect("io: op 0", io(h, rd, 0, 0, 0, 4096), EINVAL);
	expect("io: op 3", io(h, rd, 3, 0, 0, 4096), EINVAL);
	memset(&req, 0, sizeof(req));
	req.handle = h;
	req.fd = rd;
	req.op = GPUPATH_IO_READ;
	req.len = 4096;
	req.flags = 1;
	expect("io: unknown flags", ioctl(ctl, GPUPATH_IOC_IO, &req), EINVAL);
	expect("io: zero length", io(h, rd, GPUPATH_IO_READ, 0, 0, 0), EINVAL);
	expect("io: unaligned device offset", io(h, rd, GPUPATH_IO_READ, 0, 1, 4096), EINVAL);
	expect("io: unaligned length", io(h, wr, GPUPATH_IO_WRITE, 0, 0, 100), EINVAL);
	expect("io: unaligned buffer offset", io(h, rd, GPUPATH_IO_READ, 3, 0, 4096), EINVAL);
	expect("io: past the buffer", io(h, rd, GPUPATH_IO_READ, 1 << 20, 0, 4096), EINVAL);
	expect("io: past the device", io(h, rd, GPUPATH_IO_READ, 0, 1ULL << 50, 4096), EINVAL);
	expect("io: device offset overflow",
	       io(h, wr, GPUPATH_IO_WRITE, 0, UINT64_MAX - 511, 4096), EINVAL);
	expect("io: length overflow", io(h, rd, GPUPATH_IO_READ, 4096, 0, UINT64_MAX - 4095),
	       EINVAL);
	expect("io: fd -1", io(h, -1, GPUPATH_IO_READ, 0, 0, 4096), EBADF);
	expect("io: character device", io(h, chr, GPUPATH_IO_READ, 0, 0, 4096), ENOTBLK);
	expect("io: a file on procfs", io(h, reg, GPUPATH_IO_READ, 0, 0, 4096), EXDEV);
	expect("io: write through a read-only fd", io(h, rd, GPUPATH_IO_WRITE, 0, 0, 4096), EBADF);
	expect("io: read through a write-only fd", io(h, wr, GPUPATH_IO_READ, 0, 0, 4096), EBADF);
	ioctl(ctl, GPUPATH_IOC_FREE, &h);
	expect("io: freed handle", io(h, rd, GPUPATH_IO_READ, 0, 0, 4096), ENOENT);
	expect("unknown ioctl", ioctl(ctl, _IO(GPUPATH_IOC_MAGIC, 0x7f)), ENOTTY);
	close(rd);
	close(wr);
	close(chr);
	close(reg);
}

/* Submit @n reads of 1 MiB from @blk into a fresh 16 MiB buffer on @fd. */
static int submit_reads(int fd, uint32_t prov, int blk, int n, uint64_t *handle)
{
	struct gpupath_io ios[16];
	struct gpupath_submit sub = { .ios = (uintptr_t)ios, .count = n };
	struct gpupath_alloc a = { .provider = prov, .size = 16 << 20 };
	int i;

	if (ioctl(fd, GPUPATH_IOC_ALLOC, &a) < 0)
		return -1;
	*handle = a.handle;
	memset(ios, 0, sizeof(ios));
	for (i = 0; i < n; i++) {
		ios[i].handle = a.handle;
		ios[i].fd = blk;
		ios[i].op = GPUPATH_IO_READ;
		ios[i].buf_offset = ios[i].dev_offset = (uint64_t)i << 20;
		ios[i].len = 1 << 20;
		ios[i].user_data = 100 + i;
	}
	return ioctl(fd, GPUPATH_IOC_SUBMIT, &sub);
}

/* Buffers freed and files closed while batch I/O is in flight. */
static void check_inflight(uint32_t prov, const char *blk)
{
	struct gpupath_completion c[16];
	struct gpupath_reap rp = { .completions = (uintptr_t)c, .max = 16 };
	struct gpupath_submit sub = { .count = 0 };
	int bfd = open(blk, O_RDONLY), fd2, got = 0, ok = 0, i;
	struct pollfd pfd = { .fd = ctl, .events = POLLIN };
	uint64_t h;

	expect("batch: 16 reads started", submit_reads(ctl, prov, bfd, 16, &h) == 16 ? 0 : -1, 0);
	expect("batch: buffer freed while its I/O runs", ioctl(ctl, GPUPATH_IOC_FREE, &h), 0);
	/* A completion that cannot be copied out stays to be reaped. */
	rp.completions = 16;
	expect("batch: reap into a bad pointer", poll(&pfd, 1, 30000) == 1 ?
	       ioctl(ctl, GPUPATH_IOC_REAP, &rp) : 0, EFAULT);
	rp.completions = (uintptr_t)c;
	while (got < 16 && poll(&pfd, 1, 30000) == 1) {
		if (ioctl(ctl, GPUPATH_IOC_REAP, &rp) < 0)
			break;
		for (i = 0; i < (int)rp.count; i++)
			ok += c[i].result == 0 && c[i].user_data >= 100 && c[i].user_data < 116 &&
			      c[i].len == 1 << 20;
		got += rp.count;
	}
	expect("batch: 16 completions, all good", got == 16 && ok == 16 ? 0 : -1, 0);
	rp.max = 16;
	expect("batch: nothing more to reap", ioctl(ctl, GPUPATH_IOC_REAP, &rp) == 0 &&
	       rp.count == 0 ? 0 : -1, 0);
	rp.max = 0;
	expect("batch: reap with no room", ioctl(ctl, GPUPATH_IOC_REAP, &rp), EINVAL);
	expect("batch: empty", ioctl(ctl, GPUPATH_IOC_SUBMIT, &sub), EINVAL);
	sub.count = GPUPATH_SUBMIT_MAX + 1;
	expect("batch: too many", ioctl(ctl, GPUPATH_IOC_SUBMIT, &sub), EINVAL);
	sub.count = 1;
	sub.ios = 16;
	expect("batch: bad pointer", ioctl(ctl, GPUPATH_IOC_SUBMIT, &sub), EFAULT);
	i = -1;
	expect("eventfd: not an eventfd", ({ int fd = bfd;
		ioctl(ctl, GPUPATH_IOC_SET_EVENTFD, &fd); }), EINVAL);
	expect("eventfd: off", ioctl(ctl, GPUPATH_IOC_SET_EVENTFD, &i), 0);
	fd2 = open("/dev/gpupath", O_RDWR);
	expect("batch: started on a second file", submit_reads(fd2, prov, bfd, 16, &h) == 16 ?
	       0 : -1, 0);
	expect("batch: that file closed while its I/O runs", close(fd2), 0);
	close(bfd);
}

/* Without an NVIDIA driver, CUDA registration says so; bad input first. */
static void check_cuda(void)
{
	struct gpupath_cuda_reg r = { .addr = 0x7f0000000000ULL, .size = 1 << 16 };

	r.addr += 4096;
	expect("cuda: unaligned address", ioctl(ctl, GPUPATH_IOC_REG_CUDA, &r), EINVAL);
	r.addr -= 4096;
	r.size = 4096;
	expect("cuda: unaligned size", ioctl(ctl, GPUPATH_IOC_REG_CUDA, &r), EINVAL);
	r.size = 1 << 16;
	r.flags = 1;
	expect("cuda: unknown flags", ioctl(ctl, GPUPATH_IOC_REG_CUDA, &r), EINVAL);
	r.flags = 0;
	expect("cuda: no NVIDIA peer-memory API", ioctl(ctl, GPUPATH_IOC_REG_CUDA, &r), ENODEV);
}

/* Host memory that is a shared mapping of @path. */
static int check_host_file(const char *path, const char *blk, int ok)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), bfd = open(blk, O_RDONLY);
	uint64_t h;
	char *mem;

	if (fd < 0 || bfd < 0 || ftruncate(fd, 1 << 20)) {
		perror(path);
		return 2;
	}
	mem = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(mem, 0xee, 1 << 20);
	if (!ok) {
		expect("host: a shared mapping of a file that is written back",
		       reg_host(mem, 1 << 20, &h), EOPNOTSUPP);
		return failures ? 1 : 0;
	}
	expect("host: a shared mapping of a shmem file", reg_host(mem, 1 << 20, &h), 0);
	expect("host: read into it", io(h, bfd, GPUPATH_IO_READ, 0, 0, 1 << 20), 0);
	expect("host: free it", ioctl(ctl, GPUPATH_IOC_FREE, &h), 0);
	expect("host: unmap it", munmap(mem, 1 << 20), 0);
	close(fd);
	close(bfd);
	return failures ? 1 : 0;
}

static sigjmp_buf on_sigbus;

static void sigbus(int sig __attribute__((unused)))
{
	siglongjmp(on_sigbus, 1);
}

/* Whether reading, or writing, @p gets SIGBUS. */
static int faults(volatile char *p, int write)
{
	struct sigaction sa = { .sa_handler = sigbus };

	sigaction(SIGBUS, &sa, NULL);
	if (sigsetjmp(on_sigbus, 1))
		return 1;
	if (write)
		*p = 1;
	else
		(void)*p;
	return 0;
}

/* Device memory whose provider is removed while it is mapped. */
static int check_revoke(uint32_t prov, const char *blk)
{
	int bfd = open(blk, O_RDONLY);
	struct gpupath_alloc a, b;
	char line[16], *p;
	void *q;

	if (bfd < 0 || alloc(prov, 1 << 20, 0, &a)) {
		perror("revoke: alloc");
		return 2;
	}
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, ctl, a.mmap_offset);
	if (p == MAP_FAILED) {
		perror("revoke: mmap");
		return 2;
	}
	memset(p, 0x5a, 1 << 20);
	expect("revoke: the mapping works", p[12345] == 0x5a && !faults(p + 4096, 1) ? 0 : -1, 0);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	expect("revoke: reading the mapping gets SIGBUS", faults(p, 0) ? 0 : -1, 0);
	expect("revoke: writing the mapping gets SIGBUS", faults(p + 8192, 1) ? 0 : -1, 0);
	expect("revoke: I/O on the handle", io(a.handle, bfd, GPUPATH_IO_READ, 0, 0, 4096),
	       ENODEV);
	q = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, ctl, a.mmap_offset);
	expect("revoke: a new mapping of it", q == MAP_FAILED ? -1 : 0, ENODEV);
	expect("revoke: alloc from the provider gone", alloc(prov, 4096, 0, &b), ENOENT);
	expect("revoke: free", ioctl(ctl, GPUPATH_IOC_FREE, &a.handle), 0);
	expect("revoke: unmap", munmap(p, 1 << 20), 0);
	expect("revoke: close", close(ctl), 0);
	close(bfd);
	return failures ? 1 : 0;
}

static int open_in(const char *dir, const char *name, int flags)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags | O_CLOEXEC, 0644);
}

static int check_file(uint32_t prov, const char *dir, const char *rodir)
{
	int d = open(dir, O_RDONLY | O_DIRECTORY), p = open_in(dir, "f", O_PATH);
	int rd = open_in(dir, "f", O_RDONLY), rw = open_in(dir, "f", O_RDWR);
	int ap = open_in(dir, "f", O_WRONLY | O_APPEND), ro = open_in(rodir, "f", O_RDONLY);
	int imm = open_in(dir, "imm", O_RDWR | O_CREAT), app = open_in(dir, "app", O_RDWR | O_CREAT);
	int immfl = FS_IMMUTABLE_FL, appfl = FS_APPEND_FL, none = 0;
	int del = open_in(dir, "del", O_RDWR | O_CREAT | O_TRUNC);
	struct gpupath_alloc a;
	struct gpupath_io req;
	char path[512];
	uint64_t h;

	if (d < 0 || p < 0 || rd < 0 || rw < 0 || ap < 0 || ro < 0 || imm < 0 || app < 0 ||
	    del < 0 || alloc(prov, 1 << 20, 0, &a) < 0 || ioctl(imm, FS_IOC_SETFLAGS, &immfl) ||
	    ioctl(app, FS_IOC_SETFLAGS, &appfl)) {
		perror("io-check file: setup");
		return 2;
	}
	h = a.handle;
	expect("file: a directory", io(h, d, GPUPATH_IO_READ, 0, 0, 4096), EISDIR);
	expect("file: an O_PATH descriptor", io(h, p, GPUPATH_IO_READ, 0, 0, 4096), EBADF);
	expect("file: a write through O_RDONLY", io(h, rd, GPUPATH_IO_WRITE, 0, 0, 4096), EBADF);
	expect("file: a write on a read-only mount", io(h, ro, GPUPATH_IO_WRITE, 0, 0, 4096),
	       EROFS);
	expect("file: a write to an O_APPEND descriptor", io(h, ap, GPUPATH_IO_WRITE, 0, 0, 4096),
	       EINVAL);
	expect("file: a negative offset", io(h, rd, GPUPATH_IO_READ, 0, 1ULL << 63, 4096), EINVAL);
	expect("file: a read at an unaligned offset", io(h, rd, GPUPATH_IO_READ, 0, 100, 512),
	       EINVAL);
	expect("file: a read of an unaligned length", io(h, rd, GPUPATH_IO_READ, 0, 0, 1000),
	       EINVAL);
	expect("file: a write of part of a block", io(h, rw, GPUPATH_IO_WRITE, 0, 512, 512),
	       EINVAL);
	expect("file: an unaligned buffer offset", io(h, rd, GPUPATH_IO_READ, 100, 0, 512),
	       EINVAL);
	expect("file: past the buffer", io(h, rd, GPUPATH_IO_READ, 0, 0, 2 << 20), EINVAL);
	expect("file: more than the largest I/O", io(h, rd, GPUPATH_IO_READ, 0, 0, 0x80000000ULL),
	       EINVAL);
	expect("file: a write past the largest file", io(h, rw, GPUPATH_IO_WRITE, 0, 1ULL << 50,
							   4096), EFBIG);
	/* Both opened for writing before chattr +i and +a. */
	expect("file: a write to an immutable file", io(h, imm, GPUPATH_IO_WRITE, 0, 0, 4096),
	       EPERM);
	expect("file: a write to an append-only file", io(h, app, GPUPATH_IO_WRITE, 0, 0, 4096),
	       EPERM);
	memset(&req, 0, sizeof(req));
	req = (struct gpupath_io){ .handle = h, .fd = rd, .op = GPUPATH_IO_READ,
				   .dev_offset = 1 << 30, .len = 4096 };
	expect("file: a read past the end", ioctl(ctl, GPUPATH_IOC_IO, &req), 0);
	expect("file: ... moved 0 bytes", req.len == 0 ? 0 : -1, 0);
	/* Deleted while open: still a file, written and read back. */
	snprintf(path, sizeof(path), "%s/del", dir);
	unlink(path);
	expect("file: a write to a deleted file", io(h, del, GPUPATH_IO_WRITE, 0, 0, 65536), 0);
	req = (struct gpupath_io){ .handle = h, .fd = del, .op = GPUPATH_IO_READ,
				   .buf_offset = 65536, .len = 1 << 19 };
	expect("file: a read of a deleted file", ioctl(ctl, GPUPATH_IOC_IO, &req), 0);
	expect("file: ... moved its 64 KiB", req.len == 65536 ? 0 : -1, 0);
	ioctl(ctl, GPUPATH_IOC_FREE, &h);
	ioctl(imm, FS_IOC_SETFLAGS, &none);
	ioctl(app, FS_IOC_SETFLAGS, &none);
	close(d);
	close(p);
	close(rd);
	close(rw);
	close(ap);
	close(ro);
	close(imm);
	close(app);
	close(del);
	return failures ? 1 : 0;
}

/* A v2 key (64 bytes of a fixed pattern: a test needs no secret) and policy. */
static int make_encrypted(const char *dir)
{
	struct {
		struct fscrypt_add_key_arg arg;
		__u8 raw[FSCRYPT_MAX_KEY_SIZE];
	} k = { .arg = { .key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER,
			 .raw_size = FSCRYPT_MAX_KEY_SIZE } };
	struct fscrypt_policy_v2 pol = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
		.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
		.flags = FSCRYPT_POLICY_FLAGS_PAD_32,
	};
	int fd, i, ret = 1;

	for (i = 0; i < FSCRYPT_MAX_KEY_SIZE; i++)
		k.raw[i] = (__u8)(i * 7 + 1);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		perror(dir);
		return 1;
	}
	if (ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, &k.arg)) {
		perror("FS_IOC_ADD_ENCRYPTION_KEY");
		goto out;
	}
	memcpy(pol.master_key_identifier, k.arg.key_spec.u.identifier,
	       FSCRYPT_KEY_IDENTIFIER_SIZE);
	if (ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &pol)) {
		perror("FS_IOC_SET_ENCRYPTION_POLICY");
		goto out;
	}
	printf("%s: encrypted\n", dir);
	ret = 0;
out:
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	ctl = open("/dev/gpupath", O_RDWR);
	if (ctl < 0) {
		perror("/dev/gpupath");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "host-file"))
		return check_host_file(argv[2], argv[3], !strcmp(argv[4], "ok"));
	if (argc == 5 && !strcmp(argv[1], "file"))
		return check_file(strtoul(argv[2], NULL, 0), argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "encrypt"))
		return make_encrypted(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "revoke"))
		return check_revoke(strtoul(argv[2], NULL, 0), argv[3]);
	if (argc != 3) {
		fprintf(stderr, "usage: io-check PROVIDER_ID BLOCKDEV\n"
			"       io-check host-file FILE BLOCKDEV ok|refused\n"
			"       io-check file PROVIDER_ID DIR RODIR\n"
			"       io-check encrypt DIR\n"
			"       io-check revoke PROVIDER_ID BLOCKDEV\n");
		return 2;
	}
	check_alloc(strtoul(argv[1], NULL, 0));
	check_host();
	check_io(strtoul(argv[1], NULL, 0), argv[2]);
	check_inflight(strtoul(argv[1], NULL, 0), argv[2]);
	check_cuda();
	close(ctl);
	return failures ? 1 : 0;
}
