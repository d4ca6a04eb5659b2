// SPDX-License-Identifier: GPL-2.0
/*
 * gp-nvdouble: CUDA buffers (GPUPATH_IOC_REG_CUDA) against nvfake, the test
 * double of the NVIDIA peer-memory API (selftests/vm/nvfake). Run in the VM
 * with nvfake bound to the ivshmem "GPU"; a CUDA address is nvfake's
 * va_base plus a BAR offset. The real NVIDIA driver is not tested here.
 *
 *   gp-nvdouble reg VA SIZE ERRNO
 *	register; expect ERRNO (0: success)
 *   gp-nvdouble alloc PROVIDER ERRNO
 *	GPUPATH_IOC_ALLOC of 1 MiB from PROVIDER; expect ERRNO
 *   gp-nvdouble read VA SIZE BLKDEV DEVOFF
 *	register, read SIZE bytes at DEVOFF into it (GPUPATH_IOC_IO), which
 *	must go direct; prints "provider=N"
 *   gp-nvdouble hold VA SIZE BLKDEV DEVOFF [ERRNO]
 *	register, print "held provider=N", wait for a line on stdin, then read
 *	as above into the buffer (expecting ERRNO, default 0) and exit
 *   gp-nvdouble exit-held VA SIZE ORDER
 *	open the files of ORDER in that order ("uvm", "client": nvfake's,
 *	"gpupath": /dev/gpupath), register through /dev/gpupath, print
 *	"registered", and exit with the buffer registered: the exiting
 *	process releases its files last opened first (task work runs in
 *	reverse)
 *   gp-nvdouble child-free VA SIZE
 *	register, then free the handle from a child process (the descriptor
 *	shared, another thread group); print "freed by pid N"
 *   gp-nvdouble revoke-bound VA SIZE BLKDEV DEVOFF MS
 *	register, start one read of SIZE into it, revoke while it is in
 *	flight: the revocation must return after about MS (the module's
 *	nvidia_revoke_ms) with the read still in flight; print "lift", wait
 *	for a line on stdin, then wait up to 60 s for the read to complete
 *   gp-nvdouble revoke VA SIZE BLKDEV DEVOFF
 *	register, start reads over the whole buffer in 256 KiB I/Os
 *	(GPUPATH_IOC_SUBMIT), revoke it through nvfake's debugfs while they
 *	are in flight, then check that every one had completed successfully
 *	when the revocation returned (reaped without waiting), and that I/O
 *	afterwards fails with ENODEV; retried up to 5 times while no I/O
 *	happened to be in flight at the revocation
 *   gp-nvdouble parked VA SIZE BLKDEV
 *	register, start one read of SIZE into it from BLKDEV, a volume whose
 *	paths are all down (the read waits for one), check after a second that
 *	it still waits, then revoke: the revocation must return within 5 s
 *	and the read be complete by then, failed; prints "revoked in N ms"
 *   gp-nvdouble race-release VA SIZE BLKDEV ROUNDS
 *	ROUNDS times: register, on odd rounds start a read, then free the
 *	handle and revoke the memory at the same moment from two threads
 *   gp-nvdouble race-reg VA1 VA2 SIZE
 *	two threads register at the same moment: both must succeed, with the
 *	same provider
 *
 * With NVD_FDS set ("uvm,client"), nvfake's files named there are opened
 * first, in that order, and held until the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/gpupath.h>

#include "expect.h"

#define FAKE_DIR	"/sys/kernel/debug/nvfake/"
#define REVOKE_KNOB	FAKE_DIR "revoke"
#define CHUNK		(256 * 1024)
#define MAX_IOS		256

static int blk_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

static int reg(int ctl, uint64_t va, uint64_t size, struct gpupath_cuda_reg *r)
{
	memset(r, 0, sizeof(*r));
	r->addr = va;
	r->size = size;
	return ioctl(ctl, GPUPATH_IOC_REG_CUDA, r);
}

/* Write @va to nvfake's revoke knob: returns once the callback has. */
static int fake_revoke(uint64_t va)
{
	char buf[32];
	int fd, n, ret;

	fd = open(REVOKE_KNOB, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%#" PRIx64, va);
	ret = write(fd, buf, n) == n ? 0 : -1;
	n = errno;
	close(fd);
	errno = n;
	return ret;
}

static struct gpupath_io read_io(uint64_t handle, int blk, uint64_t boff, uint64_t doff,
				 uint64_t len)
{
	struct gpupath_io io = {
		.handle = handle, .fd = blk, .op = GPUPATH_IO_READ,
		.buf_offset = boff, .dev_offset = doff, .len = len, .user_data = boff,
	};
	return io;
}

static int reap_now(int ctl, struct gpupath_completion *c, unsigned int max)
{
	struct gpupath_reap rp = { .completions = (uintptr_t)c, .max = max };

	if (ioctl(ctl, GPUPATH_IOC_REAP, &rp) < 0)
		return -1;
	return rp.count;
}

static int cmd_reg(char **av)
{
	struct gpupath_cuda_reg r;
	int ctl = dev_open_or_exit("gp-nvdouble");

	expect("REG_CUDA", reg(ctl, num(av[0]), num(av[1]), &r), (int)num(av[2]));
	close(ctl);
	return failures;
}

static int cmd_alloc(char **av)
{
	struct gpupath_alloc a = { .provider = num(av[0]), .size = 1 << 20 };
	int ctl = dev_open_or_exit("gp-nvdouble");

	expect("ALLOC from the provider", ioctl(ctl, GPUPATH_IOC_ALLOC, &a), (int)num(av[1]));
	close(ctl);
	return failures;
}

/* One read into a registered buffer, which must go direct. */
static void read_direct(int ctl, uint64_t handle, int blk, uint64_t doff, uint64_t len)
{
	struct gpupath_io io = read_io(handle, blk, 0, doff, len);
	int ret = ioctl(ctl, GPUPATH_IOC_IO, &io);

	expect("read into the CUDA buffer", ret, 0);
	if (!ret && io.mode != GPUPATH_MODE_DIRECT) {
		printf("FAIL the read was not direct (mode %u reason %u)\n", io.mode, io.reason);
		failures++;
	}
}

static int cmd_read(char **av, int hold, int want)
{
	int ctl = dev_open_or_exit("gp-nvdouble"), blk = blk_open(av[2]);
	struct gpupath_cuda_reg r;
	struct gpupath_io io;
	char line[16];

	if (reg(ctl, num(av[0]), num(av[1]), &r) < 0) {
		expect("REG_CUDA", -1, 0);
		return failures;
	}
	printf("%sprovider=%u\n", hold ? "held " : "", r.provider);
	fflush(stdout);
	if (hold && !fgets(line, sizeof(line), stdin))
		printf("stdin closed\n");
	if (!want) {
		read_direct(ctl, r.handle, blk, num(av[3]), num(av[1]));
		return failures;
	}
	io = read_io(r.handle, blk, 0, num(av[3]), num(av[1]));
	expect("read into the held buffer", ioctl(ctl, GPUPATH_IOC_IO, &io), want);
	return failures;
}

/* One of nvfake's files (uvm, client) or /dev/gpupath (gpupath), opened. */
static int open_named(const char *name, size_t len)
{
	char path[64];
	int fd;

	if (len == 7 && !strncmp(name, "gpupath", len))
		return dev_open_or_exit("gp-nvdouble");
	snprintf(path, sizeof(path), FAKE_DIR "%.*s", (int)len, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

/* Open the files of the comma list @order in turn; /dev/gpupath's descriptor, or -1. */
static int open_list(const char *order)
{
	const char *p = order;
	int fd, ctl = -1;
	size_t len;

	while (p && *p) {
		len = strcspn(p, ",");
		fd = open_named(p, len);
		if (len == 7 && !strncmp(p, "gpupath", len))
			ctl = fd;
		p += len + (p[len] == ',');
	}
	return ctl;
}

/* A process that ends with a buffer registered; its files close in order. */
static int cmd_exit_held(char **av)
{
	struct gpupath_cuda_reg r;
	int ctl = open_list(av[2]);

	if (ctl < 0) {
		fprintf(stderr, "gp-nvdouble: ORDER names no gpupath\n");
		return 2;
	}
	expect("register", reg(ctl, num(av[0]), num(av[1]), &r), 0);
	printf("registered\n");
	return failures;
}

/* The handle freed by another process than the one that registered it. */
static int cmd_child_free(char **av)
{
	int ctl = dev_open_or_exit("gp-nvdouble"), status;
	struct gpupath_cuda_reg r;
	pid_t pid;

	expect("register", reg(ctl, num(av[0]), num(av[1]), &r), 0);
	if (failures)
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid)
		_exit(ioctl(ctl, GPUPATH_IOC_FREE, &r.handle) ? 1 : 0);
	expect("the child's FREE", waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status) ? 0 : -1, 0);
	printf("freed by pid %d\n", (int)pid);
	close(ctl);
	return failures;
}

/*
 * One try of cmd_revoke(): -1 when no I/O was in flight at the revocation
 * (nothing shown), else 0 with the checks made.
 */
static int revoke_once(uint64_t va, uint64_t size, int blk, uint64_t doff)
{
	static struct gpupath_io ios[MAX_IOS];
	static struct gpupath_completion c[MAX_IOS];
	struct gpupath_submit sub = { .ios = (uintptr_t)ios };
	int ctl = dev_open_or_exit("gp-nvdouble"), started, before, after, i, bad = 0, ret;
	struct gpupath_cuda_reg r;
	struct gpupath_io io;

	if (reg(ctl, va, size, &r) < 0) {
		expect("REG_CUDA", -1, 0);
		return 0;
	}
	sub.count = size / CHUNK;
	for (i = 0; i < (int)sub.count; i++)
		ios[i] = read_io(r.handle, blk, (uint64_t)i * CHUNK, doff + (uint64_t)i * CHUNK,
				 CHUNK);
	started = ioctl(ctl, GPUPATH_IOC_SUBMIT, &sub);
	if (started != (int)sub.count) {
		printf("FAIL submit: %d of %u started (%s)\n", started, sub.count, strerror(errno));
		failures++;
		return 0;
	}
	before = reap_now(ctl, c, MAX_IOS);
	ret = fake_revoke(va);
	if (ret < 0 || before == started) {
		expect("revoke through nvfake", ret, 0);
		close(ctl);
		if (ret < 0)
			return 0;
		printf("note: all %d I/Os were done before the revocation; again\n", started);
		return -1;
	}
	after = reap_now(ctl, c + before, MAX_IOS - before);
	printf("%d I/Os of %d KiB started, %d in flight when revoking, %d reaped at once after\n",
	       started, CHUNK >> 10, started - before, after);
	for (i = 0; i < before + after; i++)
		bad += c[i].result != 0 || c[i].mode != GPUPATH_MODE_DIRECT;
	if (before + after != started || bad) {
		printf("FAIL revoke returned with %d I/Os not complete, %d failed\n",
		       started - before - after, bad);
		failures++;
	} else {
		printf("pass every I/O in flight was complete when the revocation returned\n");
	}
	io = read_io(r.handle, blk, 0, doff, CHUNK);
	expect("read after the revocation", ioctl(ctl, GPUPATH_IOC_IO, &io), ENODEV);
	sub.count = 1;
	expect("submit after the revocation", ioctl(ctl, GPUPATH_IOC_SUBMIT, &sub), ENODEV);
	expect("free the revoked buffer", ioctl(ctl, GPUPATH_IOC_FREE, &r.handle), 0);
	close(ctl);
	return 0;
}

static int cmd_revoke(char **av)
{
	uint64_t size = num(av[1]);
	int blk = blk_open(av[2]), i;

	if (size / CHUNK > MAX_IOS || size % CHUNK) {
		fprintf(stderr, "gp-nvdouble: SIZE: a multiple of 256 KiB up to 64 MiB\n");
		return 2;
	}
	for (i = 0; i < 5; i++)
		if (!revoke_once(num(av[0]), size, blk, num(av[3])))
			return failures;
	printf("FAIL no I/O was ever in flight at the revocation\n");
	return 1;
}

struct racer {
	pthread_barrier_t *go;
	uint64_t va;
	uint64_t size;
	int ctl;
	int ret;
	int err;
	struct gpupath_cuda_reg r;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Register @size bytes at @va and start one read of them from @blk at
 * @doff (expecting @what); the handle in @r. -1 when either failed.
 */
static int reg_read_one(int ctl, uint64_t va, uint64_t size, int blk, uint64_t doff,
			struct gpupath_cuda_reg *r, const char *what)
{
	struct gpupath_submit sub = { .count = 1 };
	struct gpupath_io io;

	expect("register", reg(ctl, va, size, r), 0);
	if (failures)
		return -1;
	io = read_io(r->handle, blk, 0, doff, size);
	sub.ios = (uintptr_t)&io;
	expect(what, ioctl(ctl, GPUPATH_IOC_SUBMIT, &sub) == 1 ? 0 : -1, 0);
	return failures ? -1 : 0;
}

/* A cudaFree of @va through nvfake, timed: its milliseconds, printed. */
static long revoke_timed(uint64_t va)
{
	long start = now_ms(), took;

	expect("revoke", fake_revoke(va), 0);
	took = now_ms() - start;
	printf("revoked in %ld ms\n", took);
	return took;
}

/* A cudaFree while a read of the memory waits in a volume for a path. */
static int cmd_parked(char **av)
{
	uint64_t va = num(av[0]), size = num(av[1]);
	int ctl = dev_open_or_exit("gp-nvdouble"), blk = blk_open(av[2]);
	struct gpupath_completion c;
	struct gpupath_cuda_reg r;

	if (reg_read_one(ctl, va, size, blk, 0, &r, "submit a read that waits for a path"))
		return 1;
	sleep(1);
	expect("the read still waits after a second", reap_now(ctl, &c, 1) == 0 ? 0 : -1, 0);
	expect("the revocation did not wait for a path", revoke_timed(va) < 5000 ? 0 : -1, 0);
	expect("the read is complete", reap_now(ctl, &c, 1) == 1 ? 0 : -1, 0);
	expect("the read failed", c.result < 0 ? 0 : -1, 0);
	close(ctl);
	return failures ? 1 : 0;
}

/*
 * A cudaFree while a read is on a path, slower than nvidia_revoke_ms: the
 * revocation returns at that bound, with the read still in flight.
 */
static int cmd_revoke_bound(char **av)
{
	uint64_t va = num(av[0]), size = num(av[1]);
	int ctl = dev_open_or_exit("gp-nvdouble"), blk = blk_open(av[2]), i, n = 0;
	long bound = num(av[4]), took;
	struct gpupath_completion c;
	struct gpupath_cuda_reg r;
	char line[16];

	if (reg_read_one(ctl, va, size, blk, num(av[3]), &r, "submit the read"))
		return 1;
	usleep(300000);
	expect("the read is in flight", reap_now(ctl, &c, 1) == 0 ? 0 : -1, 0);
	took = revoke_timed(va);
	expect("the revocation waited for the I/O on a path, up to the bound",
	       took >= bound - 50 && took < bound + 3000 ? 0 : -1, 0);
	expect("the read is still in flight", reap_now(ctl, &c, 1) == 0 ? 0 : -1, 0);
	printf("lift\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		printf("stdin closed\n");
	for (i = 0; i < 600 && !n; i++) {
		n = reap_now(ctl, &c, 1);
		if (!n)
			usleep(100000);
	}
	expect("the read completed", n == 1 ? 0 : -1, 0);
	printf("the read ended with %d\n", n == 1 ? (int)c.result : 1);
	close(ctl);
	return failures ? 1 : 0;
}

static void *revoke_thread(void *arg)
{
	struct racer *x = arg;

	pthread_barrier_wait(x->go);
	x->ret = fake_revoke(x->va);
	x->err = errno;
	return NULL;
}

static int cmd_race_release(char **av)
{
	uint64_t va = num(av[0]), size = num(av[1]), rounds = num(av[3]), n;
	int ctl = dev_open_or_exit("gp-nvdouble"), blk = blk_open(av[2]), revoked = 0, freed_first = 0;
	struct gpupath_completion c;
	struct pollfd pfd = { .fd = ctl, .events = POLLIN };
	struct gpupath_submit sub;
	struct gpupath_io io;
	pthread_barrier_t go;
	struct racer x;
	pthread_t t;

	pthread_barrier_init(&go, NULL, 2);
	for (n = 0; n < rounds; n++) {
		struct gpupath_cuda_reg r;

		if (reg(ctl, va, size, &r) < 0) {
			expect("REG_CUDA", -1, 0);
			break;
		}
		if (n & 1) {
			io = read_io(r.handle, blk, 0, 0, size);
			sub = (struct gpupath_submit){ .ios = (uintptr_t)&io, .count = 1 };
			if (ioctl(ctl, GPUPATH_IOC_SUBMIT, &sub) != 1)
				expect("submit a read", -1, 0);
		}
		x = (struct racer){ .go = &go, .va = va };
		pthread_create(&t, NULL, revoke_thread, &x);
		pthread_barrier_wait(&go);
		if (ioctl(ctl, GPUPATH_IOC_FREE, &r.handle) < 0)
			expect("free the handle", -1, 0);
		pthread_join(t, NULL);
		if (!x.ret)
			revoked++;
		else if (x.err == ENOENT)
			freed_first++;
		else
			expect("revoke", -1, 0);
		if (n & 1) {
			poll(&pfd, 1, 10000);
			if (reap_now(ctl, &c, 1) != 1)
				expect("the read completed", -1, 0);
		}
	}
	printf("%" PRIu64 " rounds: the revocation came first %d times, the release %d times\n",
	       n, revoked, freed_first);
	close(ctl);
	return failures;
}

static void *reg_thread(void *arg)
{
	struct racer *x = arg;

	pthread_barrier_wait(x->go);
	x->ret = reg(x->ctl, x->va, x->size, &x->r);
	x->err = errno;
	return NULL;
}

static int cmd_race_reg(char **av)
{
	struct racer x[2];
	pthread_barrier_t go;
	pthread_t t[2];
	int i;

	pthread_barrier_init(&go, NULL, 2);
	for (i = 0; i < 2; i++) {
		x[i] = (struct racer){ .go = &go, .va = num(av[i]), .size = num(av[2]),
				       .ctl = dev_open_or_exit("gp-nvdouble") };
		pthread_create(&t[i], NULL, reg_thread, &x[i]);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		errno = x[i].err;
		expect(i ? "second concurrent REG_CUDA" : "first concurrent REG_CUDA", x[i].ret, 0);
	}
	if (!x[0].ret && !x[1].ret && x[0].r.provider != x[1].r.provider) {
		printf("FAIL two providers for one GPU: %u and %u\n", x[0].r.provider,
		       x[1].r.provider);
		failures++;
	}
	printf("provider=%u\n", x[0].r.provider);
	return failures;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Held open until the end; ignored by exit-held, which has its own order. */
	if (getenv("NVD_FDS") && strcmp(cmd, "exit-held"))
		open_list(getenv("NVD_FDS"));
	if (!strcmp(cmd, "reg") && argc == 5)
		return cmd_reg(argv + 2);
	if (!strcmp(cmd, "alloc") && argc == 4)
		return cmd_alloc(argv + 2);
	if (!strcmp(cmd, "read") && argc == 6)
		return cmd_read(argv + 2, 0, 0);
	if (!strcmp(cmd, "hold") && (argc == 6 || argc == 7))
		return cmd_read(argv + 2, 1, argc == 7 ? (int)num(argv[6]) : 0);
	if (!strcmp(cmd, "exit-held") && argc == 5)
		return cmd_exit_held(argv + 2);
	if (!strcmp(cmd, "child-free") && argc == 4)
		return cmd_child_free(argv + 2);
	if (!strcmp(cmd, "revoke-bound") && argc == 7)
		return cmd_revoke_bound(argv + 2);
	if (!strcmp(cmd, "revoke") && argc == 6)
		return cmd_revoke(argv + 2);
	if (!strcmp(cmd, "parked") && argc == 5)
		return cmd_parked(argv + 2);
	if (!strcmp(cmd, "race-release") && argc == 6)
		return cmd_race_release(argv + 2);
	if (!strcmp(cmd, "race-reg") && argc == 5)
		return cmd_race_reg(argv + 2);
	fprintf(stderr, "usage: see the comment at the top of selftests/vm/nvdouble.c\n");
	return 2;
}
