// SPDX-License-Identifier: GPL-2.0
/*
 * gp-cufile: a program written against the cuFile API only (cufile.h), run
 * on libgpupath-cufile. It is linked against gpupath's libcufile.so.0, as a
 * program built for NVIDIA's libcufile would be.
 *
 *   gp-cufile [-b BASE] [-o MEMOFF] PROVIDER|host FILE SEED
 *   gp-cufile -1 LEN PROVIDER FILE SEED
 *
 * The second form is one cuFileRead() of LEN bytes at 0 of FILE into
 * registered device memory: it prints "io one mode=M reason=R ret=N" and
 * exits 0 when all LEN bytes arrived right, 1 when they did not, 3 when the
 * read failed (ret: -1 with errno, or minus a CUfileOpError).
 *
 * FILE (a block device, or a regular file) holds pattern SEED, positions
 * being its offsets, over 4 MiB at BASE (default 0) and over its last 4 KiB;
 * FILE's 1 MiB at BASE + 6 MiB is overwritten with pattern SEED + 1. The
 * memory is 2 MiB, MEMOFF bytes into an allocation of gpupath device memory
 * from PROVIDER (allocated with libgpupath, as cudaMalloc() would be on a
 * GPU: the one call outside the cuFile API), or host memory.
 *
 * Checks reads (aligned and not, registered and not, at the end of FILE),
 * a write, a batch with its cookies and a cancel, and the error codes of
 * bad calls; every read is checked byte for byte in the memory. Prints one
 * "pass"/"FAIL" line per check, the I/O modes as "io NAME mode=M reason=R",
 * and "mem bar=B bar_offset=O" for device memory, so that the bytes can be
 * checked in the BAR from outside. Exit: 0 all passed, 1 a check failed,
 * 2 usage or setup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <unistd.h>

#include "cufile.h"
#include "libgpupath.h"
#include "pattern.h"

#define MiB (1ull << 20)
#define KiB (1ull << 10)
#define MEM (2 * MiB)

static unsigned long long base;

static int failures;

static void check(const char *what, int ok, const char *fmt, long long got)
{
	if (ok) {
		printf("pass %s\n", what);
		return;
	}
	printf("FAIL %s: ", what);
	printf(fmt, got);
	printf("\n");
	failures++;
}

/* A cuFile status against the code wanted. */
static void want(const char *what, CUfileError_t s, CUfileOpError err)
{
	if (s.err == err) {
		printf("pass %s: %s\n", what, cuFileGetErrorString(s));
		return;
	}
	printf("FAIL %s: got %d (%s), expected %d (%s)\n", what, s.err, cuFileGetErrorString(s),
	       err, CUFILE_ERRSTR(err));
	failures++;
}

/* Bytes of pattern @seed at @pos in @p? */
static int same(const unsigned char *p, size_t n, unsigned long long seed, unsigned long long pos)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != pattern_byte(seed, pos + i))
			return 0;
	return 1;
}

static void io_mode(const char *what)
{
	struct gpupath_cufile_io io;

	gpupath_cufile_last(&io);
	printf("io %s mode=%s reason=%s\n", what, io.mode_name, io.reason_name);
}

static void read_check(const char *what, CUfileHandle_t fh, unsigned char *mem, size_t size,
		       off_t foff, off_t moff, unsigned long long seed, ssize_t expect)
{
	ssize_t r = cuFileRead(fh, mem, size, foff, moff);
	char name[96];

	snprintf(name, sizeof(name), "%s: cuFileRead returns %zd", what, expect);
	check(name, r == expect, "returned %lld", r);
	if (r > 0) {
		snprintf(name, sizeof(name), "%s: the bytes in memory", what);
		check(name, same(mem + moff, r, seed, foff), "%lld bytes differ somewhere", r);
	}
	io_mode(what);
}

/* Whether another process sees this one's write lock on byte 0 of @file. */
static int lock_seen(const char *file)
{
	pid_t parent = getpid(), pid = fork();
	int status;

	if (pid == 0) {
		struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1 };
		int fd = open(file, O_RDWR);

		_exit(fd >= 0 && !fcntl(fd, F_GETLK, &l) && l.l_type == F_WRLCK &&
		      l.l_pid == parent ? 0 : 1);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

/*
 * A handle's registration, compat I/O through it and its deregistration
 * leave the process's fcntl locks on the file alone (closing any
 * descriptor of the file would drop them).
 */
static void locks_kept(int fd, const char *file)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1 };
	CUfileDescr_t d = { .type = CU_FILE_HANDLE_TYPE_OPAQUE_FD };
	static unsigned char buf[3000];
	CUfileHandle_t fh;
	ssize_t got = -1;
	int twin = dup(fd);

	d.handle.fd = twin;
	if (fcntl(fd, F_SETLK, &l) || twin < 0 ||
	    cuFileHandleRegister(&fh, &d).err != CU_FILE_SUCCESS) {
		check("a write lock, and a handle on a second descriptor of the file", 0, "%lld",
		      errno);
		return;
	}
	got = cuFileRead(fh, buf, sizeof(buf), 777, 0);
	cuFileHandleDeregister(fh);
	check("a handle's compat I/O and deregistration keep the process's fcntl lock",
	      got == sizeof(buf) && lock_seen(file), "read %lld", got);
	close(twin);
}

static void handles(int fd, const char *file)
{
	CUfileDescr_t d = { .type = CU_FILE_HANDLE_TYPE_OPAQUE_FD };
	CUfileHandle_t fh;
	int other;

	d.handle.fd = fd;
	want("the same descriptor twice", cuFileHandleRegister(&fh, &d),
	     CU_FILE_HANDLE_ALREADY_REGISTERED);
	d.type = CU_FILE_HANDLE_TYPE_USERSPACE_FS;
	want("a user-space file system", cuFileHandleRegister(&fh, &d), CU_FILE_IO_NOT_SUPPORTED);
	d.type = 7;
	want("an unknown handle type", cuFileHandleRegister(&fh, &d), CU_FILE_INVALID_VALUE);
	d.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
	d.handle.fd = -1;
	want("a closed descriptor", cuFileHandleRegister(&fh, &d), CU_FILE_INVALID_VALUE);
	want("no descriptor", cuFileHandleRegister(&fh, NULL), CU_FILE_INVALID_VALUE);
	other = open("/dev/null", O_RDWR);
	d.handle.fd = other;
	want("a character device", cuFileHandleRegister(&fh, &d), CU_FILE_INVALID_FILE_TYPE);
	close(other);
	other = open(file, O_RDWR | O_APPEND);
	d.handle.fd = other;
	want("O_APPEND", cuFileHandleRegister(&fh, &d), CU_FILE_INVALID_FILE_OPEN_FLAG);
	close(other);
	locks_kept(fd, file);
}

static void batch(CUfileHandle_t fh, unsigned char *mem, unsigned long long seed)
{
	CUfileIOParams_t io[9];
	CUfileIOEvents_t ev[8];
	struct timespec t = { .tv_sec = 20 };
	CUfileBatchHandle_t b;
	unsigned int n, i, seen = 0, ok = 0;
	off_t moff = 0;

	want("a batch of 0", cuFileBatchIOSetUp(&b, 0), CU_FILE_INVALID_VALUE);
	want("a batch of 129", cuFileBatchIOSetUp(&b, 129), CU_FILE_INVALID_VALUE);
	want("a batch of 8", cuFileBatchIOSetUp(&b, 8), CU_FILE_SUCCESS);
	memset(mem + moff, 0, MiB);
	for (i = 0; i < 9; i++) {
		io[i] = (CUfileIOParams_t){
			.mode = CUFILE_BATCH, .fh = fh, .opcode = CUFILE_READ,
			.cookie = (void *)(unsigned long)(i + 1),
		};
		io[i].u.batch.devPtr_base = mem;
		io[i].u.batch.devPtr_offset = moff + i * 128 * KiB;
		io[i].u.batch.file_offset = base + i * 128 * KiB;
		io[i].u.batch.size = 128 * KiB;
	}
	want("9 entries in a batch of 8", cuFileBatchIOSubmit(b, 9, io, 0), CU_FILE_INVALID_VALUE);
	io[3].opcode = 9;
	want("a bad opcode", cuFileBatchIOSubmit(b, 8, io, 0), CU_FILE_INVALID_VALUE);
	io[3].opcode = CUFILE_READ;
	want("flags", cuFileBatchIOSubmit(b, 8, io, 1), CU_FILE_INVALID_VALUE);
	want("an unknown batch", cuFileBatchIOSubmit((void *)io, 8, io, 0), CU_FILE_INVALID_VALUE);
	n = 8;
	want("nothing was started by the refused submissions",
	     cuFileBatchIOGetStatus(b, 0, &n, ev, &(struct timespec){ 0 }), CU_FILE_SUCCESS);
	check("no completion after refused submissions", n == 0, "%lld completions", n);
	check("memory untouched by refused submissions", mem[moff] == 0 &&
	      mem[moff + MiB - 1] == 0, "%lld", 0);

	want("8 reads submitted", cuFileBatchIOSubmit(b, 8, io, 0), CU_FILE_SUCCESS);
	want("a ninth while they are in the batch", cuFileBatchIOSubmit(b, 1, &io[8], 0),
	     CU_FILE_BATCH_FULL);
	n = 4;
	want("min_nr above nr", cuFileBatchIOGetStatus(b, 5, &n, ev, &t), CU_FILE_INVALID_VALUE);
	while (seen < 8) {
		n = 8 - seen;
		want("status", cuFileBatchIOGetStatus(b, 1, &n, ev, &t), CU_FILE_SUCCESS);
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			unsigned long c = (unsigned long)ev[i].cookie;

			if (c >= 1 && c <= 8 && ev[i].status == CUFILE_COMPLETE &&
			    ev[i].ret == 128 * KiB)
				ok |= 1u << (c - 1);
		}
		seen += n;
	}
	check("8 completions, each cookie once, complete, 128 KiB", seen == 8 && ok == 0xff,
	      "mask of good cookies %llx", ok);
	check("the batch's bytes in memory", same(mem + moff, MiB, seed, base),
	      "%lld: differ", 0);

	/* Cancelled: each ends canceled or complete, and is reported once. */
	want("4 more submitted", cuFileBatchIOSubmit(b, 4, io, 0), CU_FILE_SUCCESS);
	want("cancel", cuFileBatchIOCancel(b), CU_FILE_SUCCESS);
	n = 8;
	want("status after cancel", cuFileBatchIOGetStatus(b, 0, &n, ev, &t), CU_FILE_SUCCESS);
	for (i = 0, ok = 0; i < n; i++)
		ok += ev[i].status == CUFILE_CANCELED || ev[i].status == CUFILE_COMPLETE;
	check("4 reported after cancel, canceled or complete", n == 4 && ok == 4,
	      "%lld reported", n);
	cuFileBatchIODestroy(b);
	n = 8;
	want("a destroyed batch", cuFileBatchIOGetStatus(b, 0, &n, ev, &t), CU_FILE_INVALID_VALUE);
}

static int one_read(const char *prov, const char *file, unsigned long long seed, size_t len)
{
	CUfileDescr_t d = { .type = CU_FILE_HANDLE_TYPE_OPAQUE_FD };
	struct gpupath_buf *buf;
	struct gpupath_cufile_io io;
	CUfileHandle_t fh;
	unsigned char *mem;
	ssize_t r;
	int fd;

	if (cuFileDriverOpen().err != CU_FILE_SUCCESS || !gpupath_cufile_dev() ||
	    gpupath_buf_alloc(gpupath_cufile_dev(), strtoul(prov, NULL, 0), len, &buf))
		return 2;
	mem = gpupath_buf_addr(buf);
	fd = open(file, O_RDONLY);
	d.handle.fd = fd;
	if (fd < 0 || cuFileHandleRegister(&fh, &d).err != CU_FILE_SUCCESS ||
	    cuFileBufRegister(mem, len, 0).err != CU_FILE_SUCCESS)
		return 2;
	r = cuFileRead(fh, mem, len, 0, 0);
	gpupath_cufile_last(&io);
	printf("io one mode=%s reason=%s ret=%zd%s%s\n", io.mode_name, io.reason_name, r,
	       r == -1 ? " errno=" : "", r == -1 ? strerror(errno) : "");
	cuFileBufDeregister(mem);
	cuFileHandleDeregister(fh);
	close(fd);
	cuFileDriverClose_v2();
	if (r < 0)
		return 3;
	return (size_t)r == len && same(mem, len, seed, 0) ? 0 : 1;
}

static int params(const char *file, unsigned long long bar_kb)
{
	size_t v, lo, hi, sizes[2] = { 8, 2048 }, counts[2] = { 16, 4 }, gs[3], gc[3];
	CUfileDescr_t d = { .type = CU_FILE_HANDLE_TYPE_OPAQUE_FD };
	CUfileStatsLevel3_t l3;
	CUfileStatsLevel2_t l2;
	CUfileStatsLevel1_t l1;
	CUfileDrvProps_t props;
	unsigned long long hist = 0;
	CUfileHandle_t fh;
	char str[16];
	int version, i;
	bool b;
	char *mem;

	want("version", cuFileGetVersion(&version), CU_FILE_SUCCESS);
	check("version 1.15: the parameter and statistics API", version == 1150, "%lld", version);
	/* Staged before the open. */
	want("set io_batchsize 64", cuFileSetParameterSizeT(CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE, 64),
	     CU_FILE_SUCCESS);
	want("get it staged", cuFileGetParameterSizeT(CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE, &v),
	     CU_FILE_SUCCESS);
	check("... 64", v == 64, "%lld", v);
	want("set io_batchsize 0", cuFileSetParameterSizeT(CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE, 0),
	     CU_FILE_INVALID_VALUE);
	want("set an unknown parameter", cuFileSetParameterSizeT(99, 1), CU_FILE_INVALID_VALUE);
	want("its range", cuFileGetParameterMinMaxValue(CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE, &lo,
							  &hi), CU_FILE_SUCCESS);
	check("... 1 to 256", lo == 1 && hi == 256, "%lld", hi);
	want("set max_io_threads 8 (no use in gpupath)",
	     cuFileSetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, 8), CU_FILE_SUCCESS);
	want("set use_poll_mode", cuFileSetParameterBool(CUFILE_PARAM_PROPERTIES_USE_POLL_MODE, true),
	     CU_FILE_SUCCESS);
	want("set logging.level", cuFileSetParameterString(CUFILE_PARAM_LOGGING_LEVEL, "INFO"),
	     CU_FILE_SUCCESS);
	want("set an empty string", cuFileSetParameterString(CUFILE_PARAM_LOG_DIR, ""),
	     CU_FILE_INVALID_VALUE);
	want("get it into too little room", cuFileGetParameterString(CUFILE_PARAM_LOGGING_LEVEL, str, 4),
	     CU_FILE_INVALID_VALUE);
	want("set 2 slabs", cuFileSetParameterPosixPoolSlabArray(sizes, counts, 2), CU_FILE_SUCCESS);
	want("get 3 slabs", cuFileGetParameterPosixPoolSlabArray(gs, gc, 3), CU_FILE_INVALID_VALUE);
	want("statistics start before the open", cuFileStatsStart(), CU_FILE_DRIVER_NOT_INITIALIZED);
	/* Taken at the open. */
	want("driver open", cuFileDriverOpen(), CU_FILE_SUCCESS);
	want("properties", cuFileDriverGetProperties(&props), CU_FILE_SUCCESS);
	check("the staged io_batchsize in use", props.max_batch_io_size == 64, "%lld",
	      props.max_batch_io_size);
	check("the staged poll mode in use", props.nvfs.dcontrolflags & (1u << CU_FILE_USE_POLL_MODE),
	      "%llx", props.nvfs.dcontrolflags);
	want("set while open", cuFileSetParameterSizeT(CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE, 32),
	     CU_FILE_DRIVER_ALREADY_OPEN);
	want("get max_io_threads", cuFileGetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, &v),
	     CU_FILE_SUCCESS);
	check("... kept: 8", v == 8, "%lld", v);
	want("get allow_compat_mode", cuFileGetParameterBool(CUFILE_PARAM_PROPERTIES_ALLOW_COMPAT_MODE,
							      &b), CU_FILE_SUCCESS);
	check("... true", b, "%lld", b);
	want("get logging.level", cuFileGetParameterString(CUFILE_PARAM_LOGGING_LEVEL, str,
							   sizeof(str)), CU_FILE_SUCCESS);
	check("... INFO", !strcmp(str, "INFO"), "%lld", 0);
	want("get 2 slabs", cuFileGetParameterPosixPoolSlabArray(gs, gc, 2), CU_FILE_SUCCESS);
	check("... as set", gs[1] == 2048 && gc[1] == 4, "%lld", gs[1]);
	/* Statistics of this process's calls. */
	want("start at level 0", cuFileStatsStart(), CU_FILE_INVALID_VALUE);
	want("level 4", cuFileSetStatsLevel(4), CU_FILE_INVALID_VALUE);
	want("level 2", cuFileSetStatsLevel(2), CU_FILE_SUCCESS);
	want("start", cuFileStatsStart(), CU_FILE_SUCCESS);
	d.handle.fd = open(file, O_RDONLY);
	if (d.handle.fd < 0 || posix_memalign((void **)&mem, 4096, MiB))
		return 2;
	want("handle", cuFileHandleRegister(&fh, &d), CU_FILE_SUCCESS);
	for (i = 0; i < 3; i++)
		check("read 1 MiB", cuFileRead(fh, mem, MiB, i * MiB, 0) == (ssize_t)MiB, "%lld", i);
	check("a read into no memory: an error", cuFileRead(fh, NULL, MiB, 0, 0) < 0, "%lld", 0);
	want("level 1", cuFileGetStatsL1(&l1), CU_FILE_SUCCESS);
	check("3 reads, 3 MiB, 1 handle", l1.read_ops.ok == 3 && l1.read_ops.err == 0 &&
	      l1.read_bytes == 3 * MiB && l1.hdl_register_ops.ok == 1, "%lld", l1.read_ops.ok);
	want("level 2", cuFileGetStatsL2(&l2), CU_FILE_SUCCESS);
	for (i = 0; i < 32; i++)
		hist += l2.read_size_kb_hist[i];
	check("3 reads in the histogram, in the 1 MiB bin", hist == 3 && l2.read_size_kb_hist[8] == 3,
	      "%lld", hist);
	want("level 3 at level 2", cuFileGetStatsL3(&l3), CU_FILE_INVALID_VALUE);
	want("stop", cuFileStatsStop(), CU_FILE_SUCCESS);
	check("a read while stopped", cuFileRead(fh, mem, MiB, 0, 0) == (ssize_t)MiB, "%lld", 0);
	want("level 1 again", cuFileGetStatsL1(&l1), CU_FILE_SUCCESS);
	check("... not counted", l1.read_ops.ok == 3, "%lld", l1.read_ops.ok);
	want("level 3", cuFileSetStatsLevel(3), CU_FILE_SUCCESS);
	want("statistics of level 3", cuFileGetStatsL3(&l3), CU_FILE_SUCCESS);
	check("... the counters of level 1 in it", l3.detailed.basic.read_ops.ok == 3, "%lld",
	      l3.detailed.basic.read_ops.ok);
	want("reset", cuFileStatsReset(), CU_FILE_SUCCESS);
	want("level 1 after the reset", cuFileGetStatsL1(&l1), CU_FILE_SUCCESS);
	check("... zero", l1.read_ops.ok == 0 && l1.read_bytes == 0, "%lld", l1.read_ops.ok);
	want("the BAR of GPU 0", cuFileGetBARSizeInKB(0, &v), CU_FILE_SUCCESS);
	check("... in KiB", v == bar_kb, "%lld", v);
	want("the BAR of GPU 99", cuFileGetBARSizeInKB(99, &v),
	     bar_kb ? CU_FILE_INVALID_VALUE : CU_FILE_SUCCESS);
	cuFileHandleDeregister(fh);
	close(d.handle.fd);
	free(mem);
	want("driver close", cuFileDriverClose(), CU_FILE_SUCCESS);
	want("the BAR once closed", cuFileGetBARSizeInKB(0, &v), CU_FILE_DRIVER_NOT_INITIALIZED);
	printf("%s: %d failed\n", failures ? "FAIL" : "pass", failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long long seed, size, memoff = 0;
	struct gpupath_buf *buf = NULL;
	CUfileHandle_t fh;
	CUfileDescr_t d = { .type = CU_FILE_HANDLE_TYPE_OPAQUE_FD };
	CUfileDrvProps_t props;
	unsigned char *mem, *check_buf;
	struct stat st;
	int fd, version = 0, bdev, opt;
	size_t i;

	/*
	 * gp-cufile nocompat: with "allow_compat_mode": false, the driver opens
	 * only where the module is (exit 0 either way, 1 if not as expected).
	 */
	if (argc == 2 && !strcmp(argv[1], "nocompat")) {
		bool module = access(GPUPATH_DEV_PATH, F_OK) == 0;
		CUfileOpError want_err = module ? CU_FILE_SUCCESS : CU_FILE_DRIVER_NOT_INITIALIZED;

		want("driver open, compat mode off", cuFileDriverOpen(), want_err);
		want("properties, compat mode off", cuFileDriverGetProperties(&props), want_err);
		check("use count", cuFileUseCount() == (module ? 1 : 0), "%lld", cuFileUseCount());
		return failures ? 1 : 0;
	}
	/*
	 * gp-cufile config [DIRECT_KB]: the properties the configuration file
	 * gave, after cuFileDriverSetMaxDirectIOSize(DIRECT_KB) before the
	 * open when given; and that a batch takes io_batchsize entries, no more.
	 */
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "config")) {
		CUfileBatchHandle_t b;

		if (argc == 3)
			want("max direct I/O size before the open",
			     cuFileDriverSetMaxDirectIOSize(strtoull(argv[2], NULL, 0)),
			     CU_FILE_SUCCESS);
		want("driver open", cuFileDriverOpen(), CU_FILE_SUCCESS);
		want("properties", cuFileDriverGetProperties(&props), CU_FILE_SUCCESS);
		printf("batch=%u direct_kb=%zu poll=%u poll_kb=%zu compat=%u\n",
		       props.max_batch_io_size, props.nvfs.max_direct_io_size,
		       props.nvfs.dcontrolflags & (1u << CU_FILE_USE_POLL_MODE) ? 1 : 0,
		       props.nvfs.poll_thresh_size,
		       props.nvfs.dcontrolflags & (1u << CU_FILE_ALLOW_COMPAT_MODE) ? 1 : 0);
		want("a batch of io_batchsize entries", cuFileBatchIOSetUp(&b, props.max_batch_io_size),
		     CU_FILE_SUCCESS);
		cuFileBatchIODestroy(b);
		want("a batch of one more", cuFileBatchIOSetUp(&b, props.max_batch_io_size + 1),
		     CU_FILE_INVALID_VALUE);
		cuFileDriverClose();
		return failures ? 1 : 0;
	}
	/*
	 * gp-cufile params FILE [BAR_KB]: the parameter and statistics API
	 * (cuFile 1.14 and 1.15) around reads of FILE into host memory; BAR_KB:
	 * the first provider's BAR (0: no module).
	 */
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "params"))
		return params(argv[2], argc == 4 ? strtoull(argv[3], NULL, 0) : 0);
	if (argc == 6 && !strcmp(argv[1], "-1"))
		return one_read(argv[3], argv[4], strtoull(argv[5], NULL, 0),
				strtoull(argv[2], NULL, 0));
	while ((opt = getopt(argc, argv, "b:o:")) != -1) {
		if (opt == 'b')
			base = strtoull(optarg, NULL, 0);
		else if (opt == 'o')
			memoff = strtoull(optarg, NULL, 0);
		else
			return 2;
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: gp-cufile [-b BASE] [-o MEMOFF] PROVIDER|host FILE SEED\n");
		return 2;
	}
	argv += optind - 1;
	seed = strtoull(argv[3], NULL, 0);
	want("version", cuFileGetVersion(&version), CU_FILE_SUCCESS);
	check("version is 1.x", version >= 1000 && version < 2000, "%lld", version);
	/* Before an open: it opens the driver, as NVIDIA's does (KvikIO asks first). */
	want("properties before the driver is open", cuFileDriverGetProperties(&props),
	     CU_FILE_SUCCESS);
	check("... opened it", cuFileUseCount() == 1, "%lld", cuFileUseCount());
	/* The kernel side's version: the module's, 0.0 without one (no GPUDirect Storage). */
	check("... and says the kernel side's version",
	      strcmp(argv[1], "host") ? props.nvfs.major_version + props.nvfs.minor_version > 0 :
	      props.nvfs.major_version + props.nvfs.minor_version == 0, "%lld",
	      props.nvfs.major_version * 1000ULL + props.nvfs.minor_version);
	want("close what the properties opened", cuFileDriverClose(), CU_FILE_SUCCESS);
	want("driver open", cuFileDriverOpen(), CU_FILE_SUCCESS);
	check("use count 1", cuFileUseCount() == 1, "%lld", cuFileUseCount());
	want("properties", cuFileDriverGetProperties(&props), CU_FILE_SUCCESS);
	check("batches of up to 128", props.max_batch_io_size == 128 &&
	      (props.fflags & (1u << CU_FILE_BATCH_IO_SUPPORTED)), "%lld", props.max_batch_io_size);
	check("the stream API announced", props.fflags & (1u << CU_FILE_STREAMS_SUPPORTED),
	      "fflags %llx", props.fflags);
	want("properties into NULL", cuFileDriverGetProperties(NULL), CU_FILE_INVALID_VALUE);
	want("a max direct I/O size of 3 KiB", cuFileDriverSetMaxDirectIOSize(3),
	     CU_FILE_DRIVER_UNSUPPORTED_LIMIT);

	if (strcmp(argv[1], "host")) {
		uint32_t bar;
		uint64_t off;

		/* The stand-in for cudaMalloc(): gpupath device memory. */
		if (!gpupath_cufile_dev() ||
		    gpupath_buf_alloc(gpupath_cufile_dev(), strtoul(argv[1], NULL, 0), memoff + MEM,
				      &buf) ||
		    gpupath_buf_location(buf, &bar, &off)) {
			fprintf(stderr, "gp-cufile: no device memory from provider %s\n", argv[1]);
			return 2;
		}
		check("NVMe announced with the module",
		      props.nvfs.dstatusflags & (1u << CU_FILE_NVME_SUPPORTED), "%llx",
		      props.nvfs.dstatusflags);
		mem = (unsigned char *)gpupath_buf_addr(buf) + memoff;
		printf("mem bar=%u bar_offset=%llu\n", bar, (unsigned long long)(off + memoff));
	} else if (posix_memalign((void **)&mem, 4096, MEM)) {
		return 2;
	}
	memset(mem, 0, MEM);

	/* GPCUFILE_ODIRECT=1: a file opened O_DIRECT too, as GDS programs open them. */
	fd = open(argv[2], O_RDWR | (getenv("GPCUFILE_ODIRECT") ? O_DIRECT : 0));
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[2]);
		return 2;
	}
	bdev = S_ISBLK(st.st_mode);
	if (bdev) {
		close(fd);
		fd = open(argv[2], O_RDWR | O_DIRECT);
		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size))
			return 2;
	} else {
		size = st.st_size;
	}
	d.handle.fd = fd;
	want("handle", cuFileHandleRegister(&fh, &d), CU_FILE_SUCCESS);
	handles(fd, argv[2]);

	/*
	 * Memory: 1-2 MiB the registered read, 0-1 MiB the batch, last of all:
	 * what is checked from outside. Before the batch, 0-1 MiB serves the
	 * other reads and holds what is written.
	 */
	read_check("unregistered, 1 MiB at BASE", fh, mem, MiB, base, 0, seed, MiB);
	want("register", cuFileBufRegister(mem, MEM, 0), CU_FILE_SUCCESS);
	want("register again", cuFileBufRegister(mem, MEM, 0), CU_FILE_MEMORY_ALREADY_REGISTERED);
	want("register NULL", cuFileBufRegister(NULL, MEM, 0), CU_FILE_INVALID_VALUE);
	want("register with unknown flags", cuFileBufRegister(mem + MiB, MiB, 0x100),
	     CU_FILE_INVALID_VALUE);
	want("deregister what is not registered", cuFileBufDeregister(mem + 4096),
	     CU_FILE_MEMORY_NOT_REGISTERED);
	read_check("registered, 1 MiB at BASE + 2 MiB", fh, mem, MiB, base + 2 * MiB, MiB, seed,
		   MiB);
	read_check("at the end: 1 MiB at size - 4 KiB", fh, mem, MiB, size - 4096, 0, seed, 4096);
	read_check("past the end", fh, mem, MiB, size, 0, seed, 0);
	read_check("unaligned, 1000 bytes at BASE + 513", fh, mem, 1000, base + 513, 3, seed, 1000);

	{
		ssize_t r;

		r = cuFileRead(fh, mem, MEM + 4096, base, 0);
		check("beyond the registered buffer: -CU_FILE_INVALID_MAPPING_RANGE",
		      r == -CU_FILE_INVALID_MAPPING_RANGE, "returned %lld", r);
		check("IS_CUFILE_ERR of it", IS_CUFILE_ERR(r), "%lld", r);
		check("CUFILE_ERRSTR of it", !strcmp(CUFILE_ERRSTR(r), "beyond the registered size"),
		      "%lld", 0);
		r = cuFileRead(NULL, mem, MiB, 0, 0);
		check("no handle: -CU_FILE_INVALID_VALUE", r == -CU_FILE_INVALID_VALUE, "%lld", r);
		r = cuFileRead(fh, mem, MiB, -4096, 0);
		check("a negative offset: -CU_FILE_INVALID_VALUE", r == -CU_FILE_INVALID_VALUE,
		      "%lld", r);
	}

	/* A write of pattern SEED + 1 at BASE + 6 MiB, read back through host memory. */
	for (i = 0; i < MiB; i++)
		mem[i] = pattern_byte(seed + 1, base + 6 * MiB + i);
	check("write 1 MiB at BASE + 6 MiB",
	      cuFileWrite(fh, mem, MiB, base + 6 * MiB, 0) == (ssize_t)MiB, "%lld", 0);
	io_mode("write");
	if (posix_memalign((void **)&check_buf, 4096, MiB))
		return 2;
	check("written bytes read back through host memory",
	      cuFileRead(fh, check_buf, MiB, base + 6 * MiB, 0) == (ssize_t)MiB &&
	      same(check_buf, MiB, seed + 1, base + 6 * MiB), "%lld", 0);
	io_mode("read into host memory");
	free(check_buf);

	batch(fh, mem, seed);

	{
		/* The batch's bytes again (what the host checks), through the stream API. */
		size_t sz = MiB;
		off_t fo = base, bo = 0;
		ssize_t got = 0;

		want("async read on the NULL stream", cuFileReadAsync(fh, mem, &sz, &fo, &bo, &got,
								      NULL), CU_FILE_SUCCESS);
		check("... read it all", got == (ssize_t)MiB && same(mem, MiB, seed, base), "%lld",
		      (long long)got);
	}
	{
		/*
		 * A child of fork() that lets go of the buffer and closes the
		 * driver (a worker process's exit) frees nothing of the
		 * parent's: its read into the buffer still lands.
		 */
		struct gpupath_cufile_io before, after;
		int status = -1;
		ssize_t r;
		pid_t pid;

		r = cuFileRead(fh, mem, MiB, base, 0);
		gpupath_cufile_last(&before);
		fflush(stdout);		/* (the child's exit flushes what it inherited) */
		pid = fork();

		if (pid == 0) {
			cuFileBufDeregister(mem);
			cuFileHandleDeregister(fh);
			gpupath_buf_free(buf);
			cuFileDriverClose();
			exit(0);
		}
		memset(mem, 0, MiB);
		r = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
		    cuFileRead(fh, mem, MiB, base, 0) : -1;
		gpupath_cufile_last(&after);
		io_mode("after a child of fork() let go");
		check("a child of fork() let go of the buffer and the driver: the parent's read "
		      "into it lands as before the fork", r == (ssize_t)MiB &&
		      same(mem, MiB, seed, base) && !strcmp(before.mode_name, after.mode_name),
		      "%lld", r);
	}
	{
		/* Memory the CPU cannot touch, as a cudaMalloc pointer no library can classify. */
		void *none = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		check("a read into memory the CPU cannot touch: refused, no fault",
		      none != MAP_FAILED && cuFileRead(fh, none, 4096, 0, 0) ==
		      -CU_FILE_CUDA_POINTER_INVALID, "%lld", 0);
		check("a write from it: refused", cuFileWrite(fh, none, 4096, 0, 0) ==
		      -CU_FILE_CUDA_POINTER_INVALID, "%lld", 0);
		munmap(none, 8192);
	}
	check("error text", !strcmp(cuFileGetErrorString((CUfileError_t){ CU_FILE_INVALID_VALUE, 0 }),
				    "invalid arguments"), "%lld", 0);
	/* The texts NVIDIA's samples compare with. */
	check("NVIDIA's error texts",
	      !strcmp(CUFILE_ERRSTR(5007), "GPUDirect Storage not supported on current platform") &&
	      !strcmp(CUFILE_ERRSTR(5011), "CUDA Driver API error") &&
	      !strcmp(CUFILE_ERRSTR(-5018), "unsupported file type") &&
	      !strcmp(CUFILE_ERRSTR(5022), "invalid arguments"), "%lld", 0);
	check("unknown error text", !strcmp(CUFILE_ERRSTR(4999), "unknown cufile error"), "%lld", 0);

	want("deregister", cuFileBufDeregister(mem), CU_FILE_SUCCESS);
	cuFileHandleDeregister(fh);
	check("a deregistered handle: -CU_FILE_HANDLE_NOT_REGISTERED",
	      cuFileRead(fh, mem, MiB, 0, 0) == -CU_FILE_HANDLE_NOT_REGISTERED, "%lld", 0);
	close(fd);
	gpupath_buf_free(buf);
	want("driver close", cuFileDriverClose(), CU_FILE_SUCCESS);
	check("use count 0", cuFileUseCount() == 0, "%lld", cuFileUseCount());
	want("driver close again", cuFileDriverClose(), CU_FILE_DRIVER_NOT_INITIALIZED);
	printf("%s: %d failed\n", failures ? "FAIL" : "pass", failures);
	return failures ? 1 : 0;
}
