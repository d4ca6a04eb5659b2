// SPDX-License-Identifier: GPL-2.0
/*
 * gp-cuda: libgpupath-cuda against a CUDA driver: NVIDIA's on a GPU
 * machine (make gpu-check), the project's double elsewhere (cu.h).
 *
 *   gp-cuda host
 *	without the module: device memory is told from host memory, copies
 *	move the right bytes, a copy past an allocation is refused, and the
 *	CPU cannot touch device memory
 *   gp-cuda check TARGET BASE SEED SCRATCH
 *	with the module: TARGET (a block device or a file) holds pattern SEED
 *	at BASE (gp-pattern), 2 MiB of it; SCRATCH is 64 KiB of TARGET that
 *	may be written. Direct reads land the right bytes; a second read into
 *	the same allocation reuses its registration; unaligned reads and
 *	writes bounce (reason unaligned) under auto and fail (EINVAL) under
 *	direct, and an unaligned write leaves the rest of its blocks as they
 *	were; a freed allocation's address handed out again is pinned anew;
 *	host memory and a length past the allocation are refused (EINVAL).
 *	Where nvfake's statistics are (/sys/kernel/debug/nvfake/stats), the
 *	pinning counts are checked too.
 *   gp-cuda read POLICY TARGET OFF LEN SEED [UID]
 *	one read of LEN bytes at OFF into a new allocation (as UID, once the
 *	driver and /dev/gpupath are open): prints its mode and reason, and
 *	checks the bytes when it succeeded. Exit 0, or 1.
 *   gp-cuda busy TARGET OFF LEN THREADS ACTION
 *	THREADS threads read LEN bytes at OFF directly, over and over, into
 *	their parts of one allocation; after a second (a line says how many
 *	are reading), ACTION: wait (until killed), free (cuMemFree under the
 *	I/O, then exit a second later) or exit (the process ends, closing
 *	/dev/gpupath, with I/O in flight). Exit 0 when every thread had read.
 *   gp-cuda bench TARGET OFF SPAN SIZE IOS
 *	read-only, for the lab's runs on a GPU node (selftests/lab/node.sh):
 *	IOS reads of SIZE bytes walking [OFF, OFF + SPAN) of TARGET into a
 *	cuMemAlloc allocation directly (policy direct), through a bounce
 *	(compat), and into host memory (a host buffer), each after one
 *	untimed read (the pin's registration). A JSON line per mode: bytes,
 *	seconds, GB/s, the busy seconds per GB of all CPUs ($GPUPATH_BUSY_FILE
 *	in /proc/cpubusy's form, or /proc/stat) and the process's, how the
 *	reads went (mode, reason, or the error that ended them), and whether
 *	the last read's bytes are the target's (against a read around the
 *	page cache). Exit 0 unless a mode that ran read wrong bytes.
 *
 * Exit 4 (skip) without a CUDA driver or device, 2 without the module.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libgpupath.h"
#include "busy.h"
#include "pattern.h"
#include "cu.h"

#define MiB		(1ULL << 20)
#define KiB		1024ULL
#define STATS		"/sys/kernel/debug/nvfake/stats"

static int failures, checks;

static void check(const char *what, bool ok)
{
	printf("%s %s\n", ok ? "pass" : "FAIL", what);
	failures += !ok;
	checks++;
}

/* The exit status, after a summary line. */
static int summary(void)
{
	if (failures)
		printf("FAIL: %d of %d checks\n", failures, checks);
	else
		printf("all %d checks passed\n", checks);
	return failures ? 1 : 0;
}

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

/* Whether the @len bytes at device address @d are pattern @seed from @pos. */
static bool dev_is_pattern(const void *d, uint64_t len, uint64_t seed, uint64_t pos)
{
	uint8_t *host = malloc(len), *want = malloc(len);
	bool same;

	if (!host || !want || cu.dtoh(host, (uintptr_t)d, len)) {
		free(host);
		free(want);
		return false;
	}
	pattern_fill(want, len, seed, pos);
	same = !memcmp(host, want, len);
	free(host);
	free(want);
	return same;
}

/* ---- host -------------------------------------------------------------- */

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* Whether reading a byte at @p faults. */
static bool cpu_faults(const volatile uint8_t *p)
{
	struct sigaction sa = { .sa_handler = on_fault }, old;
	bool faulted;

	sigaction(SIGSEGV, &sa, &old);
	if (sigsetjmp(fault_jmp, 1)) {
		faulted = true;
	} else {
		(void)*p;
		faulted = false;
	}
	sigaction(SIGSEGV, &old, NULL);
	return faulted;
}

static int cmd_host(void)
{
	const uint64_t len = MiB;
	uint8_t *host = malloc(len), *back = malloc(len);
	uint8_t *d = cu_alloc(len);
	int stack_byte = 0;

	check("a cuMemAlloc pointer is device memory", gpupath_cuda_is_device(d) == 1);
	check("its last byte too", gpupath_cuda_is_device(d + len - 1) == 1);
	check("heap memory is not", gpupath_cuda_is_device(host) == 0);
	check("stack memory is not", gpupath_cuda_is_device(&stack_byte) == 0);
	check("NULL is not", gpupath_cuda_is_device(NULL) == 0);
	check("the CPU cannot read device memory", cpu_faults(d));
	pattern_fill(host, len, 7, 0);
	check("host to device", gpupath_cuda_copy(d, host, len, 1) == 0);
	check("device to host",
	      gpupath_cuda_copy(back, d, len, 0) == 0 && !memcmp(host, back, len));
	check("the bytes are in the device's memory", dev_is_pattern(d, len, 7, 0));
	check("a copy past the allocation is refused",
	      gpupath_cuda_copy(back, d + 4096, len, 0) == -EINVAL);
	check("a host pointer as the device side is refused",
	      gpupath_cuda_copy(host, back, 16, 1) == -EINVAL);
	check("I/O without the module's device is refused",
	      gpupath_cuda_read(NULL, d, 0, 0, 4096, GPUPATH_POLICY_AUTO, NULL) == -EINVAL);
	cu.free((uintptr_t)d);
	check("a freed allocation is not device memory", gpupath_cuda_is_device(d) == 0);
	/* Memory of a pool (cudaMallocAsync): no context of its own. */
	if (cu.alloc_async && !cu.alloc_async((gpcu_deviceptr *)&d, len, NULL)) {
		check("pool memory is device memory", gpupath_cuda_is_device(d) == 1);
		check("pool memory: host to device and back",
		      gpupath_cuda_copy(d, host, len, 1) == 0 &&
		      gpupath_cuda_copy(back, d, len, 0) == 0 && !memcmp(host, back, len));
		cu.free((uintptr_t)d);
	}
	free(host);
	free(back);
	return summary();
}

/* ---- with the module ---------------------------------------------------- */

/* nvfake's pins so far (get_pages of both kinds), and releases; -1 without nvfake. */
static long long fake_stat(const char *key)
{
	char line[128], k[64];
	long long v, sum = -1;
	FILE *f = fopen(STATS, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", k, &v) == 2 && !strncmp(k, key, strlen(key)) &&
		    (k[strlen(key)] == '\0' || !strcmp(k + strlen(key), "_persistent")))
			sum = (sum < 0 ? 0 : sum) + v;
	fclose(f);
	return sum;
}

/* Whether nvfake hands out persistent pages. */
static bool persistent(void)
{
	FILE *f = fopen("/sys/module/nvfake/parameters/persistent", "r");
	int c = f ? fgetc(f) : 'N';

	if (f)
		fclose(f);
	return c == 'Y';
}

static void report(const char *what, int r, const struct gpupath_result *res)
{
	printf("# %s: %s, mode %s, reason %s, %llu bytes\n", what, r ? strerror(-r) : "ok",
	       gpupath_mode_name(res->mode), gpupath_reason_name(res->reason),
	       (unsigned long long)res->len);
}

/* The @len bytes at @off of @fd, read around the page cache: malloc'd, or NULL. */
static uint8_t *read_back(const char *path, uint64_t off, uint64_t len)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	void *p = NULL;

	if (fd < 0 || posix_memalign(&p, 4096, len) || pread(fd, p, len, off) != (ssize_t)len) {
		free(p);
		p = NULL;
	}
	if (fd >= 0)
		close(fd);
	return p;
}

static int cmd_check(char **av)
{
	const char *path = av[0];
	uint64_t base = num(av[1]), seed = num(av[2]), scratch = num(av[3]);
	const uint64_t len = 2 * MiB, ulen = 100000, wlen = 10000;
	struct gpupath_result res;
	struct gpupath_dev *dev;
	long long pins, puts;
	uint8_t *d, *d2, *before, *after, *want;
	int fd, r;

	r = gpupath_dev_open(&dev);
	if (r < 0) {
		printf("SKIP: /dev/gpupath: %s\n", strerror(-r));
		return 2;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("FAIL: %s: %s\n", path, strerror(errno));
		return 1;
	}

	/* Direct, then into the same allocation again: pinned once. */
	d = cu_alloc(len);
	r = gpupath_cuda_read(dev, d, fd, base, MiB, GPUPATH_POLICY_DIRECT, &res);
	report("direct read, 1 MiB", r, &res);
	check("a direct read into device memory", !r && res.mode == GPUPATH_MODE_DIRECT &&
	      res.len == MiB);
	check("its bytes are in device memory", dev_is_pattern(d, MiB, seed, base));
	pins = fake_stat("get");
	r = gpupath_cuda_read(dev, d + MiB, fd, base + MiB, MiB, GPUPATH_POLICY_DIRECT, &res);
	report("direct read, the next 1 MiB", r, &res);
	check("a second direct read into the allocation",
	      !r && res.mode == GPUPATH_MODE_DIRECT && dev_is_pattern(d + MiB, MiB, seed,
								      base + MiB));
	if (pins >= 0)
		check("the second read reused the first one's pin", fake_stat("get") == pins);

	/* Unaligned: bounced under auto, refused under direct. */
	r = gpupath_cuda_read(dev, d + 3, fd, base + 7, ulen, GPUPATH_POLICY_AUTO, &res);
	report("unaligned read, auto", r, &res);
	check("an unaligned read bounces", !r && res.mode == GPUPATH_MODE_BOUNCE &&
	      res.reason == GPUPATH_REASON_UNALIGNED && res.len == ulen);
	check("its bytes are in device memory", dev_is_pattern(d + 3, ulen, seed, base + 7));
	r = gpupath_cuda_read(dev, d + 3, fd, base + 7, ulen, GPUPATH_POLICY_DIRECT, &res);
	check("an unaligned read under direct fails with EINVAL", r == -EINVAL);

	/* An unaligned write: its bytes, and the rest of its blocks unchanged. */
	before = read_back(path, scratch, 64 * KiB);
	want = malloc(64 * KiB);
	r = before && want ? 0 : -ENOMEM;
	if (!r) {
		pattern_fill(want, 64 * KiB, seed + 1, 0);
		r = gpupath_cuda_copy(d, want, 64 * KiB, 1);
	}
	if (!r)
		r = gpupath_cuda_write(dev, d + 5, fd, scratch + 11, wlen, GPUPATH_POLICY_AUTO,
				       &res);
	report("unaligned write, auto", r, &res);
	check("an unaligned write bounces", !r && res.mode == GPUPATH_MODE_BOUNCE &&
	      res.reason == GPUPATH_REASON_UNALIGNED);
	after = read_back(path, scratch, 64 * KiB);
	check("its bytes reached the target", after && !memcmp(after + 11, want + 5, wlen));
	check("the rest of its blocks is unchanged", after && before &&
	      !memcmp(after, before, 11) &&
	      !memcmp(after + 11 + wlen, before + 11 + wlen, 64 * KiB - 11 - wlen));
	free(before);
	free(after);
	free(want);

	/* Freed, and the address handed out again: a new allocation, pinned anew. */
	pins = fake_stat("get");
	puts = fake_stat("put");
	cu.free((uintptr_t)d);
	d2 = cu_alloc(len);
	check("the freed address is handed out again (as cudaMalloc may)", d2 == d);
	r = gpupath_cuda_read(dev, d2, fd, base + 4096, MiB, GPUPATH_POLICY_DIRECT, &res);
	report("direct read into the new allocation", r, &res);
	check("a direct read into the new allocation", !r && res.mode == GPUPATH_MODE_DIRECT &&
	      dev_is_pattern(d2, MiB, seed, base + 4096));
	if (pins >= 0)
		check("the new allocation was pinned anew", fake_stat("get") == pins + 1);
	/* (pages with a free callback went back with the cudaFree, not a put) */
	if (pins >= 0 && persistent())
		check("the freed allocation's pin was given back", fake_stat("put") == puts + 1);

	/* What is not device memory, or goes past it. */
	want = malloc(4096);
	check("host memory is refused (EINVAL)",
	      gpupath_cuda_read(dev, want, fd, base, 4096, GPUPATH_POLICY_AUTO, &res) == -EINVAL);
	check("a read past the allocation is refused (EINVAL)",
	      gpupath_cuda_read(dev, d2 + MiB, fd, base, 2 * MiB, GPUPATH_POLICY_AUTO, &res) ==
	      -EINVAL);
	free(want);
	cu.free((uintptr_t)d2);
	gpupath_dev_close(dev);
	close(fd);
	if (pins >= 0)
		printf("# nvfake: %lld pins, %lld given back\n", fake_stat("get"), fake_stat("put"));
	return summary();
}

static int cmd_read(char **av, int ac)
{
	static const char *const names[] = { "auto", "direct", "compat" };
	uint64_t off = num(av[2]), len = num(av[3]), seed = num(av[4]);
	enum gpupath_io_policy policy = GPUPATH_POLICY_AUTO;
	struct gpupath_result res = { 0 };
	struct gpupath_dev *dev;
	unsigned int i;
	uint8_t *d;
	int fd, r;

	for (i = 0; i < 3 && strcmp(av[0], names[i]); i++)
		;
	if (i == 3) {
		fprintf(stderr, "gp-cuda: policy auto, direct or compat\n");
		return 1;
	}
	policy = (enum gpupath_io_policy)(GPUPATH_POLICY_AUTO + i);
	r = gpupath_dev_open(&dev);
	if (r < 0) {
		printf("SKIP: /dev/gpupath: %s\n", strerror(-r));
		return 2;
	}
	fd = open(av[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (ac > 5 && setresuid(num(av[5]), num(av[5]), num(av[5])))) {
		printf("FAIL: %s: %s\n", av[1], strerror(errno));
		return 1;
	}
	d = cu_alloc(len);
	r = gpupath_cuda_read(dev, d, fd, off, len, policy, &res);
	printf("err=%d mode=%s reason=%s\n", -r, gpupath_mode_name(res.mode),
	       gpupath_reason_name(res.reason));
	if (!r && !dev_is_pattern(d, len, seed, off)) {
		printf("FAIL: the bytes in device memory are not the pattern\n");
		return 1;
	}
	return r ? 1 : 0;
}

struct busy {
	struct gpupath_dev *dev;
	uint8_t *d;
	int fd;
	uint64_t base, len;
	unsigned long ios;
};

/* Direct reads into its part of the allocation until one fails. */
static void *busy_thread(void *arg)
{
	struct busy *b = arg;
	struct gpupath_result res;

	while (!gpupath_cuda_read(b->dev, b->d, b->fd, b->base, b->len, GPUPATH_POLICY_DIRECT,
				  &res))
		__atomic_add_fetch(&b->ios, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int cmd_busy(char **av)
{
	uint64_t base = num(av[1]), len = num(av[2]);
	unsigned int i, n = num(av[3]);
	const char *action = av[4];
	struct gpupath_dev *dev;
	struct busy b[16];
	pthread_t t;
	uint8_t *d;
	int fd, r;

	if (!n || n > 16 || (strcmp(action, "wait") && strcmp(action, "free") &&
			     strcmp(action, "exit"))) {
		fprintf(stderr, "gp-cuda: busy: 1 to 16 threads; wait, free or exit\n");
		return 2;
	}
	r = gpupath_dev_open(&dev);
	if (r < 0) {
		printf("SKIP: /dev/gpupath: %s\n", strerror(-r));
		return 2;
	}
	fd = open(av[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("FAIL: %s: %s\n", av[0], strerror(errno));
		return 1;
	}
	d = cu_alloc(n * len);
	for (i = 0; i < n; i++) {
		b[i] = (struct busy){ dev, d + i * len, fd, base, len, 0 };
		if (pthread_create(&t, NULL, busy_thread, &b[i])) {
			printf("FAIL: thread: %s\n", strerror(errno));
			return 1;
		}
	}
	sleep(1);
	for (r = 0, i = 0; i < n; i++)
		r += __atomic_load_n(&b[i].ios, __ATOMIC_RELAXED) > 0;
	printf("busy: %u threads, %d reading\n", n, r);
	fflush(stdout);
	if (!strcmp(action, "wait"))
		for (;;)
			pause();
	if (!strcmp(action, "free")) {
		/* cudaFree under running I/O: they fail from now on, or go on into held memory. */
		printf("free: %d\n", cu.free((uintptr_t)d));
		fflush(stdout);
		sleep(1);
	}
	/* The end of the process closes /dev/gpupath under the threads' I/O. */
	_exit(r == (int)n ? 0 : 1);
}

/* ---- bench -------------------------------------------------------------- */

struct bench {
	struct gpupath_dev *dev;
	const char *path;
	int fd;
	uint64_t off, span, size;
	unsigned long ios;
};

/* One read of mode @m (0 direct, 1 compat, 2 host) at @at. */
static int bench_read(const struct bench *b, int m, void *d, struct gpupath_buf *hb,
		      uint64_t at, struct gpupath_result *res)
{
	if (m == 2)
		return gpupath_read(hb, 0, b->fd, at, b->size, GPUPATH_POLICY_AUTO, res);
	return gpupath_cuda_read(b->dev, d, b->fd, at, b->size,
				 m ? GPUPATH_POLICY_COMPAT : GPUPATH_POLICY_DIRECT, res);
}

/* Mode @m's run and its JSON line; false when it read wrong bytes. */
static bool bench_mode(const struct bench *b, int m)
{
	static const char *const names[] = { "direct", "compat", "host" };
	struct busy_src src = { .file = getenv("GPUPATH_BUSY_FILE") };
	double t0, c0, b0 = 0, b1 = 0, secs, cpu;
	struct gpupath_result res = { 0 };
	uint64_t pos = 0, last = b->off, bytes = 0;
	struct gpupath_buf *hb = NULL;
	uint8_t *got = NULL, *want;
	bool known, landed, wrong = false;
	unsigned long i;
	void *d = NULL;
	int r;

	if (m == 2)
		r = gpupath_buf_host_alloc(b->dev, b->size, &hb);
	else
		r = (d = cu_alloc(b->size)) ? 0 : -ENOMEM;
	if (!r)
		r = bench_read(b, m, d, hb, b->off, &res);
	if (r) {
		printf("{\"mode\":\"%s\",\"error\":\"%s\",\"reason\":\"%s\"}\n", names[m],
		       strerror(-r), gpupath_reason_name(res.reason));
		goto out;
	}
	known = busy_seconds(&src, &b0);
	c0 = bench_cpu_seconds();
	t0 = bench_now();
	for (i = 0; i < b->ios && !r; i++) {
		last = b->off + pos;
		r = bench_read(b, m, d, hb, last, &res);
		pos = (pos + b->size) % (b->span - b->span % b->size);
		bytes += r ? 0 : b->size;
	}
	secs = bench_now() - t0;
	cpu = bench_cpu_seconds() - c0;
	known = known && busy_seconds(&src, &b1);
	want = read_back(b->path, last, b->size);
	if (m == 2) {
		landed = want && !memcmp(gpupath_buf_addr(hb), want, b->size);
	} else {
		got = malloc(b->size);
		landed = want && got && !cu.dtoh(got, (uintptr_t)d, b->size) &&
			 !memcmp(got, want, b->size);
	}
	printf("{\"mode\":\"%s\",\"got\":\"%s\",\"reason\":\"%s\",\"ios\":%lu,"
	       "\"bytes\":%llu,\"seconds\":%.6f,\"gbps\":%.6f,\"cpu_s_per_gb\":%.6f,",
	       names[m], gpupath_mode_name(res.mode), gpupath_reason_name(res.reason), i,
	       (unsigned long long)bytes, secs, secs > 0 ? bytes / secs / 1e9 : 0,
	       bytes ? cpu / (bytes / 1e9) : 0);
	if (known && bytes)
		printf("\"busy_s_per_gb\":%.6f,\"busy_resolution_ns\":%.0f,",
		       (b1 - b0) / (bytes / 1e9), src.resolution_ns);
	printf("\"landed\":%s%s%s%s}\n", landed ? "true" : "false", r ? ",\"error\":\"" : "",
	       r ? strerror(-r) : "", r ? "\"" : "");
	free(got);
	free(want);
	wrong = !landed;
out:
	if (hb)
		gpupath_buf_free(hb);
	if (d)
		cu.free((uintptr_t)d);
	return !wrong;
}

static int cmd_bench(char **av)
{
	struct bench b = { .path = av[0], .off = num(av[1]), .span = num(av[2]),
			   .size = num(av[3]), .ios = num(av[4]) };
	bool ok = true;
	int m, r;

	if (!b.size || b.size % 65536 || b.span < b.size || !b.ios) {
		fprintf(stderr, "gp-cuda bench: SIZE a multiple of 64 KiB, SPAN at least SIZE, "
			"IOS at least 1\n");
		return 2;
	}
	r = gpupath_dev_open(&b.dev);
	if (r < 0) {
		printf("SKIP: /dev/gpupath: %s\n", strerror(-r));
		return 2;
	}
	b.fd = open(b.path, O_RDONLY | O_CLOEXEC);
	if (b.fd < 0) {
		printf("FAIL: %s: %s\n", b.path, strerror(errno));
		return 1;
	}
	for (m = 0; m < 3; m++)
		ok = bench_mode(&b, m) && ok;
	close(b.fd);
	gpupath_dev_close(b.dev);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "host")) {
		cu_open();
		return cmd_host();
	}
	if (argc == 6 && !strcmp(argv[1], "check")) {
		cu_open();
		return cmd_check(argv + 2);
	}
	if ((argc == 7 || argc == 8) && !strcmp(argv[1], "read")) {
		cu_open();
		return cmd_read(argv + 2, argc - 2);
	}
	if (argc == 7 && !strcmp(argv[1], "busy")) {
		cu_open();
		return cmd_busy(argv + 2);
	}
	if (argc == 7 && !strcmp(argv[1], "bench")) {
		cu_open();
		return cmd_bench(argv + 2);
	}
	fprintf(stderr, "usage: gp-cuda host | check TARGET BASE SEED SCRATCH |\n"
		"       read POLICY TARGET OFF LEN SEED [UID] |\n"
		"       busy TARGET OFF LEN THREADS wait|free|exit |\n"
		"       bench TARGET OFF SPAN SIZE IOS\n");
	return 2;
}
