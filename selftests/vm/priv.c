// SPDX-License-Identifier: GPL-2.0
/*
 * gp-priv: what an unprivileged user can and cannot do with /dev/gpupath.
 * Run in the VM:
 *
 *   gp-priv as UID CMD [ARG]...      run CMD as UID (and GID UID), no groups,
 *                                    no capabilities
 *   gp-priv check PROVIDER_ID BLOCKDEV
 *   gp-priv flood FILE
 *   gp-priv copyout PROVIDER_ID
 *
 * check, as whoever runs it (the test runs it as a user), each with its
 * exact errno:
 *  - device memory allocated on one open file is not reachable from another
 *    file, in this process or a child that opens its own (mmap and I/O by
 *    the other's offsets and handles fail), while a child that inherited
 *    the file (sharing on purpose) maps it and sees the bytes;
 *  - host memory: the caller's own pins, memory it does not have mapped
 *    does not (EFAULT), read-only memory cannot be a read's target (EFAULT),
 *    a kernel address is out of range (EINVAL);
 *  - I/O goes through block-device descriptors opened the right way: a read
 *    on BLOCKDEV opened read-only works, a write on it fails (EBADF), a
 *    file on procfs is refused (EXDEV: not ext4 or XFS), a descriptor of another process's
 *    table is not reachable (EBADF).
 * BLOCKDEV must be readable by the caller; nothing is written to it.
 *
 * flood: batches of reads of FILE (on a file system gpupath refuses, such
 * as tmpfs: each I/O completes at once) submitted and never reaped, until
 * the module refuses more; prints "started N" and "kernel_kib K", the
 * growth of the kernel's slab and page-table memory meanwhile. Then every
 * completion is reaped (each must be there, refused with EXDEV) and one
 * more batch must start. Exit 0 when the module stopped it with EAGAIN at
 * GPUPATH_INFLIGHT_MAX.
 *
 * copyout: ALLOC and REG_HOST whose argument is read-only memory (read in,
 * the answer cannot be written back: EFAULT) must leave no buffer behind:
 * the same allocation right after succeeds under a user limit of its size
 * (the test sets 1 MiB), and the locked memory count is back where it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/gpupath.h>

#include "expect.h"

#define MiB (1024 * 1024)

static int io(int ctl, uint64_t handle, int fd, uint32_t op, uint64_t len)
{
	struct gpupath_io req = { .handle = handle, .fd = fd, .op = op, .len = len };

	return ioctl(ctl, GPUPATH_IOC_IO, &req);
}

/* Device memory stays with its file unless the file is shared. */
static void device_memory(uint32_t prov, int blk)
{
	struct gpupath_alloc a = { .provider = prov, .size = MiB };
	int ctl = dev_open_or_exit("gp-priv"), other = dev_open_or_exit("gp-priv"), st;
	unsigned char *p, *q;
	pid_t pid;

	if (ioctl(ctl, GPUPATH_IOC_ALLOC, &a) < 0) {
		expect("alloc 1 MiB of device memory", -1, 0);
		return;
	}
	expect("alloc 1 MiB of device memory", 0, 0);
	p = mmap(NULL, MiB, PROT_READ | PROT_WRITE, MAP_SHARED, ctl, a.mmap_offset);
	expect("mmap it through its own file", p == MAP_FAILED ? -1 : 0, 0);
	if (p != MAP_FAILED) {
		memset(p, 0x6b, MiB);
		expect("unmap a part of it (a mapping of device memory goes whole)",
		       munmap(p, 4096), EINVAL);
	}
	q = mmap(NULL, MiB, PROT_READ, MAP_SHARED, other, a.mmap_offset);
	expect("mmap it through another open file", q == MAP_FAILED ? -1 : 0, EINVAL);
	expect("I/O into it through another open file", io(other, a.handle, blk, 1, 4096), ENOENT);
	expect("free it through another open file", ioctl(other, GPUPATH_IOC_FREE, &a.handle),
	       ENOENT);

	pid = fork();
	if (pid == 0) {
		/* A child with a file of its own: nothing of the parent's. */
		int mine = dev_open_or_exit("gp-priv"), bad = 0;

		q = mmap(NULL, MiB, PROT_READ, MAP_SHARED, mine, a.mmap_offset);
		bad |= q != MAP_FAILED || errno != EINVAL;
		bad |= io(mine, a.handle, blk, 1, 4096) == 0 || errno != ENOENT;
		/* The inherited file: shared on purpose, the parent's bytes. */
		q = mmap(NULL, MiB, PROT_READ, MAP_SHARED, ctl, a.mmap_offset);
		bad |= q == MAP_FAILED || q[0] != 0x6b || q[MiB - 1] != 0x6b;
		_exit(bad);
	}
	expect("a child's own file reaches none of it; the inherited one shares it",
	       waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1, 0);
	if (p != MAP_FAILED)
		munmap(p, MiB);
	close(other);
	close(ctl);
}

/* Host memory: only the caller's own, mapped and writable for a read. */
static void host_memory(int blk)
{
	struct gpupath_host_reg r = { .size = MiB };
	int ctl = dev_open_or_exit("gp-priv"), file;
	void *mem, *ro, *hole;

	mem = mmap(NULL, MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, MiB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hole = mmap(NULL, MiB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || ro == MAP_FAILED || hole == MAP_FAILED) {
		perror("gp-priv: mmap");
		exit(2);
	}
	munmap(hole, MiB);	/* now nobody's */
	r.addr = (uintptr_t)hole;
	expect("register memory not mapped", ioctl(ctl, GPUPATH_IOC_REG_HOST, &r), EFAULT);
	r.addr = (uintptr_t)ro;
	expect("register read-only memory (a read's target)",
	       ioctl(ctl, GPUPATH_IOC_REG_HOST, &r), EFAULT);
	r.addr = 0xffff888000000000ULL;
	expect("register a kernel address (beyond user space)",
	       ioctl(ctl, GPUPATH_IOC_REG_HOST, &r), EINVAL);
	r.addr = (uintptr_t)mem;
	expect("register its own memory", ioctl(ctl, GPUPATH_IOC_REG_HOST, &r), 0);

	expect("read from the block device opened read-only", io(ctl, r.handle, blk, 1, MiB), 0);
	expect("write to the block device opened read-only", io(ctl, r.handle, blk, 2, MiB),
	       EBADF);
	file = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	expect("read from a procfs file", io(ctl, r.handle, file, 1, 4096), EXDEV);
	close(file);
	/* A number that is an open block device in another process only. */
	expect("a descriptor this process does not have", io(ctl, r.handle, 900, 1, 4096),
	       EBADF);
	close(ctl);
}

/* Slab plus page tables, in KiB, from /proc/meminfo. */
static long kernel_kib(void)
{
	char line[128];
	long v, sum = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld", &v) == 1 || sscanf(line, "PageTables: %ld", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

static int flood(const char *path)
{
	static struct gpupath_io ios[GPUPATH_SUBMIT_MAX];
	static struct gpupath_completion c[GPUPATH_SUBMIT_MAX];
	struct gpupath_host_reg r = { .size = 4096 };
	struct gpupath_submit sub = { .ios = (uintptr_t)ios, .count = GPUPATH_SUBMIT_MAX };
	struct gpupath_reap rp = { .completions = (uintptr_t)c, .max = GPUPATH_SUBMIT_MAX };
	int ctl = dev_open_or_exit("gp-priv"), file, n, i;
	long before = kernel_kib(), started = 0, reaped = 0, refused = 0;
	void *mem;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	file = open(path, O_RDONLY | O_CLOEXEC);
	if (mem == MAP_FAILED || file < 0) {
		perror("gp-priv flood");
		return 2;
	}
	r.addr = (uintptr_t)mem;
	expect("register 4 KiB of host memory", ioctl(ctl, GPUPATH_IOC_REG_HOST, &r), 0);
	for (i = 0; i < GPUPATH_SUBMIT_MAX; i++)
		ios[i] = (struct gpupath_io){ .handle = r.handle, .fd = file,
					      .op = GPUPATH_IO_READ, .len = 4096, .user_data = i };
	/* Ten times the cap, at most: a module without one would go on. */
	while (started < 10 * GPUPATH_INFLIGHT_MAX) {
		n = ioctl(ctl, GPUPATH_IOC_SUBMIT, &sub);
		if (n <= 0)
			break;
		started += n;
	}
	printf("started %ld\n", started);
	printf("kernel_kib %ld\n", kernel_kib() - before);
	expect("the batch past the cap", n, EAGAIN);
	if (started != GPUPATH_INFLIGHT_MAX) {
		printf("FAIL started %ld I/Os without reaping, expected %d\n", started,
		       GPUPATH_INFLIGHT_MAX);
		failures++;
	}
	while (ioctl(ctl, GPUPATH_IOC_REAP, &rp) == 0 && rp.count) {
		for (i = 0; i < (int)rp.count; i++)
			refused += c[i].result == -EXDEV;
		reaped += rp.count;
	}
	if (reaped != started || refused != started) {
		printf("FAIL reaped %ld (%ld refused) of %ld\n", reaped, refused, started);
		failures++;
	}
	expect("a batch once reaped", ioctl(ctl, GPUPATH_IOC_SUBMIT, &sub) == GPUPATH_SUBMIT_MAX ?
	       0 : -1, 0);
	close(file);
	close(ctl);
	return failures ? 1 : 0;
}

/* /proc/self/status's VmLck, in KiB. */
static long locked_kib(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static int copyout(uint32_t prov)
{
	long page = sysconf(_SC_PAGESIZE), before;
	struct gpupath_alloc a = { .provider = prov, .size = MiB };
	struct gpupath_host_reg *hr;
	struct gpupath_alloc *ra;
	int ctl = dev_open_or_exit("gp-priv");
	void *ro, *mem;

	ro = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mem = mmap(NULL, MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED || mem == MAP_FAILED) {
		perror("gp-priv copyout: mmap");
		return 2;
	}
	ra = ro;
	*ra = a;
	mprotect(ro, page, PROT_READ);
	expect("alloc whose answer cannot be written back", ioctl(ctl, GPUPATH_IOC_ALLOC, ra),
	       EFAULT);
	expect("alloc the same again (nothing was left held)", ioctl(ctl, GPUPATH_IOC_ALLOC, &a), 0);

	before = locked_kib();
	mprotect(ro, page, PROT_READ | PROT_WRITE);
	hr = ro;
	*hr = (struct gpupath_host_reg){ .addr = (uintptr_t)mem, .size = MiB };
	mprotect(ro, page, PROT_READ);
	expect("register host memory whose answer cannot be written back",
	       ioctl(ctl, GPUPATH_IOC_REG_HOST, hr), EFAULT);
	if (locked_kib() != before) {
		printf("FAIL locked memory %ld KiB after the failed registration, %ld before\n",
		       locked_kib(), before);
		failures++;
	} else {
		printf("pass locked memory back to %ld KiB\n", before);
	}
	close(ctl);
	return failures ? 1 : 0;
}

static int drop_to(const char *s, char **argv)
{
	char *end;
	long uid = strtol(s, &end, 10);

	if (*end || uid <= 0) {
		fprintf(stderr, "gp-priv: '%s' is not a user id above 0\n", s);
		return 2;
	}
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("gp-priv: dropping privileges");
		return 2;
	}
	if (!setuid(0)) {
		fprintf(stderr, "gp-priv: privileges not dropped\n");
		return 2;
	}
	execvp(argv[0], argv);
	perror("gp-priv: exec");
	return 2;
}

int main(int argc, char **argv)
{
	char *end;
	long prov;
	int blk;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && !strcmp(argv[1], "as"))
		return drop_to(argv[2], argv + 3);
	if (argc == 3 && !strcmp(argv[1], "flood"))
		return flood(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "copyout"))
		return copyout(strtoul(argv[2], NULL, 10));
	if (argc != 4 || strcmp(argv[1], "check")) {
		fprintf(stderr, "Usage: gp-priv as UID CMD [ARG]...\n"
			"       gp-priv check PROVIDER_ID BLOCKDEV\n"
			"       gp-priv flood FILE\n"
			"       gp-priv copyout PROVIDER_ID\n");
		return 2;
	}
	prov = strtol(argv[2], &end, 10);
	if (*end || prov <= 0) {
		fprintf(stderr, "gp-priv: '%s' is not a provider id\n", argv[2]);
		return 2;
	}
	blk = open(argv[3], O_RDONLY | O_CLOEXEC);
	if (blk < 0) {
		perror(argv[3]);
		return 2;
	}
	printf("uid %d euid %d\n", getuid(), geteuid());
	device_memory(prov, blk);
	host_memory(blk);
	return failures ? 1 : 0;
}
