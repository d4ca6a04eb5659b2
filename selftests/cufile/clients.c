// SPDX-License-Identifier: GPL-2.0
/*
 * gp-cufile-clients: the cuFile call sequences of real programs, written
 * from reading each one's source, against gpupath's libcufile.so.0, into
 * CUDA device memory (cu.h: NVIDIA's driver, or the project's double).
 * Each checks the bytes that arrive.
 *
 *   gp-cufile-clients CLIENT FILE SCRATCH
 *
 * FILE holds pattern SEED (gp-pattern gen SIZE 5) of at least 64 MiB;
 * SCRATCH is a file of 8 MiB that is written. Sizes and offsets are those
 * of the host's runs; GPCU_CLIENTS_UNIT=BYTES (a multiple of 64 KiB) scales
 * every one of them by BYTES / 1 MiB, for device memory as small as a
 * VM's BAR (64 units of FILE, 8 of SCRATCH then). CLIENT:
 *
 *   pytorch    GdsFile: no driver open; the handle on an O_DIRECT
 *              descriptor; reads and writes of whole tensors at
 *              64-byte-aligned offsets, unregistered and registered
 *              (an interior pointer of the allocation); a short read is
 *              an error to it
 *   kvikio     cuFileGetVersion first, properties before any open, the
 *              handle on the O_DIRECT descriptor, pread split in 4 MiB
 *              tasks, each the allocation's base with a large unaligned
 *              devPtr_offset
 *   nixl       NIXL's GDS plugin: open, 16 batches of 128 set up at once,
 *              host and device memory registered, requests of at most
 *              16 MiB from interior pointers, polled with min_nr = nr =
 *              the batch's size and no timeout, done batches polled again
 *   gdsmt      NIXL's GDS_MT plugin: threads with no CUDA context share one
 *              handle, one cuFileRead each
 *   dali       DALI: open twice through cuFileDriverClose_v2's presence,
 *              2 MiB chunks of one allocation registered each, a read loop
 *              that goes on after short reads
 *   sample001  NVIDIA's sample 001: a registered buffer written through an
 *              O_DIRECT handle
 *   sample010  NVIDIA's sample 010: the handle first (no driver open), two
 *              threads with a buffer each reading the same offsets; nothing
 *              let go of before the exit
 *   sample019  NVIDIA's sample 019: 16 handles on one file, every other
 *              one without O_DIRECT, one batch of 3000-byte writes side by
 *              side (no write in whole blocks), read back
 *   fork       a child of fork() while the parent's batch is on the
 *              workers (run it with GPCU_DOUBLE_COPY_MS=200): the child's
 *              own batch completes, and then the parent's
 *   batch-async  batches of device memory run in the background: nothing
 *              done when cuFileBatchIOSubmit returns (run it with the
 *              double's GPCU_DOUBLE_COPY_MS=200), all done by polling
 *   streams    NVIDIA's samples 031 to 034 (the NULL stream with its values
 *              on the stack; a non-blocking stream per read, some
 *              registered with every flag) and KvikIO's read_async; the
 *              refusals of bad flags and broken promises; the stream's
 *              order (a read behind held work, its values set after the
 *              call, the work after it) and a handle deregistered before
 *              the stream reaches its read
 *
 * Exit 0 when every check passed, 1 otherwise, 4 without a CUDA driver.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cufile.h"
#include "pattern.h"
#include "cu.h"

/* The unit of every size and offset: 1 MiB, or GPCU_CLIENTS_UNIT bytes. */
static size_t MiB = 1 << 20;
#define SEED	5

static int failures, checks;

static void check(const char *what, bool ok)
{
	printf("%s %s\n", ok ? "pass" : "FAIL", what);
	failures += !ok;
	checks++;
}

/* Whether @len bytes of device memory at @d are pattern SEED from @pos. */
static bool dev_is(const void *d, size_t len, uint64_t seed, uint64_t pos)
{
	uint8_t *h = malloc(len), *w = malloc(len);
	bool same = h && w && !cu.dtoh(h, (uintptr_t)d, len);

	if (same) {
		pattern_fill(w, len, seed, pos);
		same = !memcmp(h, w, len);
	}
	free(h);
	free(w);
	return same;
}

/* @len bytes of pattern @seed from @pos into device memory at @d. */
static void dev_fill(void *d, size_t len, uint64_t seed, uint64_t pos)
{
	uint8_t *h = malloc(len);

	pattern_fill(h, len, seed, pos);
	cu.htod((uintptr_t)d, h, len);
	free(h);
}

/* Whether @len bytes of @path at @off are pattern @seed from @pos. */
static bool file_is(const char *path, off_t off, size_t len, uint64_t seed, uint64_t pos)
{
	uint8_t *h = malloc(len), *w = malloc(len);
	int fd = open(path, O_RDONLY);
	bool same = h && w && fd >= 0 && pread(fd, h, len, off) == (ssize_t)len;

	if (same) {
		pattern_fill(w, len, seed, pos);
		same = !memcmp(h, w, len);
	}
	if (fd >= 0)
		close(fd);
	free(h);
	free(w);
	return same;
}

static int handle(const char *path, int flags, CUfileHandle_t *fh)
{
	CUfileDescr_t d;
	int fd = open(path, flags | O_CLOEXEC, 0664);

	memset(&d, 0, sizeof(d));	/* "It is important to set to zero!" */
	d.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
	d.handle.fd = fd;
	if (fd < 0 || cuFileHandleRegister(fh, &d).err != CU_FILE_SUCCESS) {
		printf("FAIL handle on %s\n", path);
		exit(1);
	}
	return fd;
}

static void pytorch(const char *file, const char *scratch)
{
	const size_t n = 3 * MiB + 200;	/* a tensor's bytes */
	uint8_t *d = cu_alloc(8 * MiB), *t = d + 4096;	/* a tensor: an interior pointer */
	CUfileHandle_t fh, wh;
	int fd, wfd;

	fd = handle(file, O_RDONLY | O_DIRECT, &fh);
	check("pytorch: load_storage at a 64-byte offset, unregistered",
	      cuFileRead(fh, t, n, 64 * 3, 0) == (ssize_t)n && dev_is(t, n, SEED, 192));
	check("pytorch: gds_register_buffer of an interior pointer",
	      cuFileBufRegister(t, n, 0).err == CU_FILE_SUCCESS);
	check("pytorch: load_storage into it at 1 MiB + 64",
	      cuFileRead(fh, t, n, MiB + 64, 0) == (ssize_t)n && dev_is(t, n, SEED, MiB + 64));
	check("pytorch: a tensor of 0 bytes reads 0", cuFileRead(fh, t, 0, 64, 0) == 0);
	check("pytorch: gds_deregister_buffer", cuFileBufDeregister(t).err == CU_FILE_SUCCESS);
	wfd = handle(scratch, O_RDWR | O_DIRECT, &wh);
	dev_fill(t, n, SEED + 1, 0);
	check("pytorch: save_storage at a 64-byte offset",
	      cuFileWrite(wh, t, n, 64 * 5, 0) == (ssize_t)n &&
	      file_is(scratch, 320, n, SEED + 1, 0));
	/* PyTorch's cudaMallocAsync allocator: memory of a pool, no context. */
	if (cu.alloc_async && !cu.alloc_async((gpcu_deviceptr *)&t, n, NULL)) {
		check("pytorch: load_storage into pool memory (cudaMallocAsync)",
		      cuFileRead(fh, t, n, 64 * 7, 0) == (ssize_t)n && dev_is(t, n, SEED, 448));
		cu.free((uintptr_t)t);
	}
	cuFileHandleDeregister(wh);
	cuFileHandleDeregister(fh);
	close(wfd);
	close(fd);
	cu.free((uintptr_t)d);
}

static void kvikio(const char *file)
{
	const size_t task = 4 * MiB, size = 18 * MiB + 12345, at = 777;	/* buf - alloc base */
	uint8_t *base = cu_alloc(size + at + 4096);
	CUfileDrvProps_t props;
	CUfileHandle_t fh;
	size_t done, len;
	int version = 0, fd;
	bool ok = true;

	check("kvikio: cuFileGetVersion first", cuFileGetVersion(&version).err == CU_FILE_SUCCESS &&
	      version >= 1070);
	check("kvikio: properties before any open",
	      cuFileDriverGetProperties(&props).err == CU_FILE_SUCCESS &&
	      props.max_batch_io_size > 0);
	fd = handle(file, O_RDONLY | O_DIRECT, &fh);
	/* pread: the allocation's base, devPtr_offset = the buffer's offset + k * task. */
	for (done = 0; done < size; done += len) {
		len = size - done < task ? size - done : task;
		ok &= cuFileRead(fh, base, len, 4096 + done, at + done) == (ssize_t)len;
	}
	check("kvikio: pread in 4 MiB tasks from the allocation's base",
	      ok && dev_is(base + at, size, SEED, 4096));
	cuFileHandleDeregister(fh);
	close(fd);
	cu.free((uintptr_t)base);
}

static void nixl(const char *file)
{
	enum { POOL = 16, LIMIT = 128 };
	const size_t req = MiB / 8, n = 2 * LIMIT + 10;	/* 266 requests of 128 KiB */
	CUfileBatchHandle_t pool[POOL];
	CUfileIOParams_t params[LIMIT];
	CUfileIOEvents_t ev[LIMIT];
	unsigned int i, b, nb = 0, got, done[POOL] = { 0 }, size[POOL] = { 0 };
	uint8_t *d = cu_alloc(n * req), *host;
	CUfileHandle_t fh;
	bool ok = true;
	int fd, polls;

	check("nixl: cuFileDriverOpen", cuFileDriverOpen().err == CU_FILE_SUCCESS);
	for (i = 0; i < POOL; i++)
		ok &= cuFileBatchIOSetUp(&pool[i], LIMIT).err == CU_FILE_SUCCESS;
	check("nixl: 16 batches of 128 set up", ok);
	if (posix_memalign((void **)&host, 4096, MiB))
		exit(1);
	check("nixl: DRAM registered (a failure would be a warning)",
	      cuFileBufRegister(host, MiB, 0).err == CU_FILE_SUCCESS);
	check("nixl: VRAM registered", cuFileBufRegister(d, n * req, 0).err == CU_FILE_SUCCESS);
	fd = handle(file, O_RDONLY, &fh);
	/* postXfer: chunks of 128 requests, each an interior pointer, devPtr_offset 0. */
	for (i = 0; i < n; i += LIMIT, nb++) {
		size[nb] = n - i < LIMIT ? n - i : LIMIT;
		for (b = 0; b < size[nb]; b++) {
			memset(&params[b], 0, sizeof(params[b]));
			params[b].mode = CUFILE_BATCH;
			params[b].fh = fh;
			params[b].u.batch.devPtr_base = d + (i + b) * req;
			params[b].u.batch.file_offset = (i + b) * req;
			params[b].u.batch.size = req;
			params[b].opcode = CUFILE_READ;
			params[b].cookie = &params[b];
		}
		ok &= cuFileBatchIOSubmit(pool[nb], size[nb], params, 0).err == CU_FILE_SUCCESS;
	}
	check("nixl: postXfer submits every chunk", ok);
	/* checkXfer: every batch polled in turn, done ones again, until all are. */
	for (polls = 0; polls < 100000; polls++) {
		bool all = true;

		for (b = 0; b < nb; b++) {
			got = size[b];
			if (cuFileBatchIOGetStatus(pool[b], size[b], &got, ev, NULL).err)
				ok = false;
			done[b] += got;
			all &= done[b] >= size[b];
		}
		if (all)
			break;
	}
	check("nixl: checkXfer polls to the end, done batches polled again return at once", ok &&
	      polls < 100000);
	check("nixl: the bytes", dev_is(d, n * req, SEED, 0));
	cuFileHandleDeregister(fh);
	close(fd);
	cuFileBufDeregister(d);
	cuFileBufDeregister(host);
	for (i = 0; i < POOL; i++)
		cuFileBatchIODestroy(pool[i]);
	check("nixl: cuFileDriverClose", cuFileDriverClose().err == CU_FILE_SUCCESS);
	free(host);
	cu.free((uintptr_t)d);
}

struct mt {
	CUfileHandle_t fh;
	uint8_t *d;
	off_t off;
	size_t len;
	ssize_t got;
};

static void *mt_read(void *arg)
{
	struct mt *m = arg;

	m->got = cuFileRead(m->fh, m->d, m->len, m->off, 0);	/* no CUDA context here */
	return NULL;
}

static void gdsmt(const char *file)
{
	enum { N = 8 };
	const size_t len = 3 * MiB + 4096;
	uint8_t *d = cu_alloc(N * len);
	pthread_t t[N];
	struct mt m[N];
	CUfileHandle_t fh;
	bool ok = true;
	int fd, i;

	check("gdsmt: cuFileDriverOpen", cuFileDriverOpen().err == CU_FILE_SUCCESS);
	check("gdsmt: VRAM registered", cuFileBufRegister(d, N * len, 0).err == CU_FILE_SUCCESS);
	fd = handle(file, O_RDONLY, &fh);
	for (i = 0; i < N; i++) {
		m[i] = (struct mt){ fh, d + i * len, (off_t)(i * len), len, 0 };
		pthread_create(&t[i], NULL, mt_read, &m[i]);
	}
	for (i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		ok &= m[i].got == (ssize_t)len;
	}
	check("gdsmt: 8 threads on one handle, each read whole", ok);
	check("gdsmt: the bytes", dev_is(d, N * len, SEED, 0));
	cuFileHandleDeregister(fh);
	close(fd);
	cuFileBufDeregister(d);
	check("gdsmt: cuFileDriverClose", cuFileDriverClose().err == CU_FILE_SUCCESS);
	cu.free((uintptr_t)d);
}

static void dali(const char *file)
{
	const size_t chunk = 2 * MiB, total = 10 * MiB + 1000;	/* a tail chunk */
	uint8_t *d = cu_alloc(6 * chunk);
	size_t i, done;
	CUfileHandle_t fh;
	bool ok = true;
	ssize_t r;
	int fd, tries;

	/* It opens the driver only where cuFileDriverClose_v2 is there. */
	check("dali: cuFileDriverClose_v2 is exported", dlsym(RTLD_DEFAULT, "cuFileDriverClose_v2"));
	check("dali: open, twice", cuFileDriverOpen().err == CU_FILE_SUCCESS &&
	      cuFileDriverOpen().err == CU_FILE_SUCCESS);
	for (i = 0; i < 6; i++)
		ok &= cuFileBufRegister(d + i * chunk, chunk, 0).err == CU_FILE_SUCCESS;
	check("dali: each 2 MiB chunk of one allocation registered", ok);
	fd = handle(file, O_RDONLY | O_DIRECT, &fh);
	/* Its read loop: chunk by chunk, going on after a short read; 0 mid-file would spin. */
	for (done = 0, tries = 0; done < total && tries < 1000; tries++) {
		i = done / chunk;
		r = cuFileRead(fh, d + i * chunk, (total - done < chunk ? total - done : chunk) -
			       done % chunk, 8192 + done, done % chunk);
		if (r <= 0)
			break;
		done += r;
	}
	check("dali: the loop reads to the end", done == total);
	check("dali: the bytes", dev_is(d, total, SEED, 8192));
	cuFileHandleDeregister(fh);
	close(fd);
	for (i = 0; i < 6; i++)
		cuFileBufDeregister(d + i * chunk);
	check("dali: close, twice", cuFileDriverClose_v2().err == CU_FILE_SUCCESS &&
	      cuFileDriverClose_v2().err == CU_FILE_SUCCESS && cuFileUseCount() == 0);
	cu.free((uintptr_t)d);
}

/* NVIDIA's sample 001: one write of a registered buffer through an O_DIRECT handle. */
static void sample001(const char *scratch)
{
	const size_t n = 128 * 1024;
	uint8_t *d;
	CUfileHandle_t fh;
	int fd;

	check("sample001: cuFileDriverOpen", cuFileDriverOpen().err == CU_FILE_SUCCESS);
	fd = handle(scratch, O_CREAT | O_RDWR | O_DIRECT, &fh);
	d = cu_alloc(n);
	dev_fill(d, n, SEED + 1, 0);
	check("sample001: cuFileBufRegister", cuFileBufRegister(d, n, 0).err == CU_FILE_SUCCESS);
	check("sample001: cuFileWrite of 128 KiB at 0",
	      cuFileWrite(fh, d, n, 0, 0) == (ssize_t)n && file_is(scratch, 0, n, SEED + 1, 0));
	check("sample001: deregistered", cuFileBufDeregister(d).err == CU_FILE_SUCCESS);
	cu.free((uintptr_t)d);
	cuFileHandleDeregister(fh);
	close(fd);
	check("sample001: cuFileDriverClose", cuFileDriverClose().err == CU_FILE_SUCCESS);
}

/* NVIDIA's sample 010: two threads, a buffer each, read one handle in turn. */
struct s010 {
	CUfileHandle_t fh;
	int reads;
	bool ok;
};

static void *s010_thread(void *arg)
{
	struct s010 *t = arg;
	uint8_t *d;
	int i;

	cu.set_current(cu.ctx);		/* cudaSetDevice() */
	d = cu_alloc(MiB);
	t->ok = cuFileBufRegister(d, MiB, 0).err == CU_FILE_SUCCESS;
	for (i = 0; i < t->reads && t->ok; i++)
		t->ok = cuFileRead(t->fh, d, MiB, i * MiB, 0) == (ssize_t)MiB &&
			dev_is(d, MiB, SEED, i * MiB);
	cuFileBufDeregister(d);
	cu.free((uintptr_t)d);
	return NULL;
}

static void sample010(const char *file)
{
	struct s010 t[2];
	CUfileHandle_t fh;
	pthread_t th[2];
	int i;

	/* No cuFileDriverOpen, and the handle is the process's first cuFile call. */
	handle(file, O_RDWR | O_DIRECT, &fh);
	for (i = 0; i < 2; i++) {
		t[i] = (struct s010){ fh, 32, false };
		pthread_create(&th[i], NULL, s010_thread, &t[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	check("sample010: two threads, 32 reads each of the same offsets, each checked",
	      t[0].ok && t[1].ok);
	/* Neither the handle nor the driver let go of: the process's exit does. */
}

/*
 * NVIDIA's sample 019: the same file opened 16 times, every other
 * descriptor without O_DIRECT (its "nondirect" run), a handle and a
 * 3000-byte allocation each, one batch writing them side by side at
 * 3000-byte offsets (neither in whole blocks), polled with min_nr = n.
 */
static void sample019(const char *scratch)
{
	enum { N = 16 };
	const size_t n = 3000;
	CUfileHandle_t fh[N];
	CUfileIOParams_t p[N];
	CUfileIOEvents_t ev[N];
	CUfileBatchHandle_t b;
	unsigned int nr, done = 0;
	uint8_t *d[N];
	int fd[N], i, polls;
	bool ok = true;

	check("sample019: cuFileDriverOpen", cuFileDriverOpen().err == CU_FILE_SUCCESS);
	for (i = 0; i < N; i++) {
		fd[i] = handle(scratch, O_CREAT | O_RDWR | (i % 2 ? 0 : O_DIRECT), &fh[i]);
		d[i] = cu_alloc(n);
		dev_fill(d[i], n, SEED + 20 + i, 0);
		ok &= cuFileBufRegister(d[i], n, 0).err == CU_FILE_SUCCESS;
		memset(&p[i], 0, sizeof(p[i]));
		p[i].mode = CUFILE_BATCH;
		p[i].fh = fh[i];
		p[i].u.batch.devPtr_base = d[i];
		p[i].u.batch.file_offset = i * n;
		p[i].u.batch.size = n;
		p[i].opcode = CUFILE_WRITE;
	}
	check("sample019: 16 handles on one file, a registered buffer each", ok);
	check("sample019: a batch of 16 writes submitted",
	      cuFileBatchIOSetUp(&b, N).err == CU_FILE_SUCCESS &&
	      cuFileBatchIOSubmit(b, N, p, 0).err == CU_FILE_SUCCESS);
	for (polls = 0; done < N && polls < 10000; polls++) {
		nr = N;
		if (cuFileBatchIOGetStatus(b, N, &nr, ev, NULL).err)
			break;
		for (i = 0; i < (int)nr; i++)
			ok &= ev[i].status == CUFILE_COMPLETE && ev[i].ret == n;
		done += nr;
	}
	check("sample019: all 16 complete, whole", ok && done == N);
	for (i = 0; i < N; i++)
		ok &= file_is(scratch, i * n, n, SEED + 20 + i, 0);
	check("sample019: each where it was written, its neighbours' bytes intact", ok);
	cu.htod((uintptr_t)d[0], (uint8_t[4]){ 0 }, 4);
	check("sample019: read back through a handle",
	      cuFileRead(fh[0], d[0], n, 7 * n, 0) == (ssize_t)n && dev_is(d[0], n, SEED + 27, 0));
	cuFileBatchIODestroy(b);
	for (i = 0; i < N; i++) {
		cuFileBufDeregister(d[i]);
		cu.free((uintptr_t)d[i]);
		cuFileHandleDeregister(fh[i]);
		close(fd[i]);
	}
	check("sample019: cuFileDriverClose", cuFileDriverClose().err == CU_FILE_SUCCESS);
}

/*
 * Batches of device memory that cannot go through the module's batched
 * I/O run in the background: cuFileBatchIOSubmit returns before the data
 * is there (the double's copies take GPCU_DOUBLE_COPY_MS, set by the
 * caller), and polling finds the entries done.
 */
static void batch_async(const char *file, const char *scratch)
{
	enum { N = 12 };	/* more than the library's 4 workers */
	const size_t len = 256 * 1024;
	uint8_t *d = cu_alloc(N * len);
	CUfileIOParams_t p[N];
	CUfileIOEvents_t ev[N];
	CUfileBatchHandle_t b;
	unsigned int nr, done = 0;
	struct timespec zero = { 0, 0 };
	CUfileHandle_t fh, other;
	int fd, ofd, i, polls;

	fd = handle(file, O_RDONLY, &fh);
	check("batch: set up", cuFileBatchIOSetUp(&b, N).err == CU_FILE_SUCCESS);
	for (i = 0; i < N; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		p[i].mode = CUFILE_BATCH;
		p[i].fh = fh;
		p[i].u.batch.devPtr_base = d + i * len;
		p[i].u.batch.file_offset = i * len;
		p[i].u.batch.size = len;
		p[i].opcode = CUFILE_READ;
	}
	check("batch: 12 reads into device memory submitted",
	      cuFileBatchIOSubmit(b, N, p, 0).err == CU_FILE_SUCCESS);
	nr = N;
	check("batch: none done when the submission returns (it did not run them)",
	      cuFileBatchIOGetStatus(b, 0, &nr, ev, &zero).err == CU_FILE_SUCCESS && nr == 0);
	/*
	 * The handle deregistered while they run, and another registered
	 * (in the memory the first one's state had, where malloc hands it out
	 * again): they finish on the file they were given.
	 */
	cuFileHandleDeregister(fh);
	ofd = handle(scratch, O_RDONLY, &other);
	for (polls = 0; done < N && polls < 1000; polls++) {
		nr = N - done;
		if (cuFileBatchIOGetStatus(b, 1, &nr, ev, NULL).err)
			break;
		for (i = 0; i < (int)nr; i++)
			done += ev[i].status == CUFILE_COMPLETE && ev[i].ret == len;
	}
	check("batch: all 12 completed, whole", done == N);
	check("batch: the bytes, though their handle was deregistered meanwhile",
	      dev_is(d, N * len, SEED, 0));
	cuFileBatchIODestroy(b);
	cuFileHandleDeregister(other);
	close(ofd);
	close(fd);
	cu.free((uintptr_t)d);
}

/* A batch of @n reads of @len from file offset @off on, into @d: submitted? */
static bool batch_reads(CUfileBatchHandle_t b, CUfileHandle_t fh, uint8_t *d, int n,
			size_t len, off_t off)
{
	CUfileIOParams_t p[16];
	int i;

	for (i = 0; i < n; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		p[i].mode = CUFILE_BATCH;
		p[i].fh = fh;
		p[i].u.batch.devPtr_base = d + i * len;
		p[i].u.batch.file_offset = off + i * len;
		p[i].u.batch.size = len;
		p[i].opcode = CUFILE_READ;
	}
	return cuFileBatchIOSubmit(b, n, p, 0).err == CU_FILE_SUCCESS;
}

/* Polls batch @b until @n entries are done whole (of @len), or 10 s. */
static bool batch_wait(CUfileBatchHandle_t b, int n, size_t len)
{
	struct timespec t = { 0, 10000000 };
	CUfileIOEvents_t ev[16];
	unsigned int nr;
	int done = 0, polls, i;

	for (polls = 0; done < n && polls < 1000; polls++) {
		nr = n - done;
		if (cuFileBatchIOGetStatus(b, 1, &nr, ev, &t).err)
			return false;
		for (i = 0; i < (int)nr; i++)
			done += ev[i].status == CUFILE_COMPLETE && ev[i].ret == len ? 1 : n;
	}
	return done == n;
}

/*
 * A child of fork() while the parent's batch runs on the library's workers
 * (GPCU_DOUBLE_COPY_MS=200): the child's own batch completes (the workers
 * are not the child's), and so does the parent's; neither takes the
 * other's completions or buffers.
 */
static void forked(const char *file)
{
	enum { N = 4 };
	const size_t len = MiB / 4;
	uint8_t *d = cu_alloc(2 * N * len);
	CUfileBatchHandle_t b, cb;
	CUfileHandle_t fh;
	int fd, status = -1;
	pid_t pid;

	fd = handle(file, O_RDONLY, &fh);
	check("fork: the parent's batch submitted",
	      cuFileBatchIOSetUp(&b, N).err == CU_FILE_SUCCESS && batch_reads(b, fh, d, N, len, 0));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		bool ok = cuFileBatchIOSetUp(&cb, N).err == CU_FILE_SUCCESS &&
			  batch_reads(cb, fh, d + N * len, N, len, N * len) &&
			  batch_wait(cb, N, len) && dev_is(d + N * len, N * len, SEED, N * len);

		cuFileBatchIODestroy(cb);
		cuFileBatchIODestroy(b);
		exit(ok ? 0 : 1);
	}
	check("fork: the child's own batch completed, its bytes right, and it exited",
	      pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status));
	check("fork: the parent's batch completed, its bytes right",
	      batch_wait(b, N, len) && dev_is(d, N * len, SEED, 0));
	cuFileBatchIODestroy(b);
	cuFileHandleDeregister(fh);
	close(fd);
	cu.free((uintptr_t)d);
}

/* A host function that holds its stream until the test opens the gate. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
} gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false };

static void gate_wait(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&gate.lock);
	while (!gate.open)
		pthread_cond_wait(&gate.cond, &gate.lock);
	pthread_mutex_unlock(&gate.lock);
}

static void gate_set(bool open)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = open;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

/* A host function queued after an operation: what its result was then. */
static ssize_t *seen_p, seen;

static void see(void *unused)
{
	(void)unused;
	seen = *seen_p;
}

/*
 * The stream's order: a read queued behind a held host function returns at
 * once with nothing done, its values set after the call are the ones read,
 * and the work queued after it sees it done. A handle deregistered before
 * the stream gets there: the operation's error, nothing else.
 */
static void stream_order(CUfileHandle_t fh, const char *file, uint8_t *d)
{
	const size_t len = MiB;
	size_t size = 0;
	off_t foff = 0, boff = 0;
	ssize_t got = -7777;
	CUfileHandle_t gone;
	gpcu_stream g;
	int fd;

	if (cu.stream_create(&g, 0)) {
		check("streams: a blocking stream", false);
		return;
	}
	gate_set(false);
	cu.launch_host_func(g, gate_wait, NULL);
	check("streams: a read behind held work: queued, not done, when the call returns",
	      cuFileReadAsync(fh, d, &size, &foff, &boff, &got, (CUstream)g).err ==
	      CU_FILE_SUCCESS && got == -7777 && cu.stream_query(g) == GPCU_ERROR_NOT_READY);
	seen_p = &got;
	seen = 0;
	cu.launch_host_func(g, see, NULL);
	/* Set after the call: read when the stream gets there. */
	size = len;
	foff = 5 * MiB;
	gate_set(true);
	check("streams: ... done once the stream got there, with the values set after the call",
	      !cu.stream_sync(g) && got == (ssize_t)len && dev_is(d, len, SEED, 5 * MiB));
	check("streams: ... and the stream's next work saw it done", seen == (ssize_t)len);

	fd = handle(file, O_RDONLY | O_DIRECT, &gone);
	gate_set(false);
	cu.launch_host_func(g, gate_wait, NULL);
	got = -7777;
	check("streams: a read queued on a handle ...",
	      cuFileReadAsync(gone, d, &size, &foff, &boff, &got, (CUstream)g).err ==
	      CU_FILE_SUCCESS);
	cuFileHandleDeregister(gone);
	close(fd);
	gate_set(true);
	check("streams: ... deregistered before the stream got there: that error",
	      !cu.stream_sync(g) && got == -(ssize_t)CU_FILE_HANDLE_NOT_REGISTERED);
	cu.stream_destroy(g);
}

/* NVIDIA's samples 031 to 034 and KvikIO's read_async: the stream API. */
static void streams(const char *file, const char *scratch)
{
	enum { N = 4 };
	const size_t len = MiB;
	uint8_t *d = cu_alloc(N * len);
	size_t size = len, sizes[N], *sz;
	off_t foff = 4096, boff = 0, foffs[N], boffs[N];
	ssize_t got = 0, gots[N];
	CUfileHandle_t fh, wh;
	gpcu_stream s[N];
	bool ok = true;
	int fd, wfd, i;

	fd = handle(file, O_RDONLY | O_DIRECT, &fh);
	/* 031: the NULL stream, unregistered, the values on the stack. */
	check("streams: 031: a read on the NULL stream",
	      cuFileReadAsync(fh, d, &size, &foff, &boff, &got, NULL).err == CU_FILE_SUCCESS &&
	      !cu.stream_sync(NULL) && got == (ssize_t)len && dev_is(d, len, SEED, 4096));
	wfd = handle(scratch, O_RDWR | O_DIRECT, &wh);
	foff = 8192;
	got = 0;
	check("streams: 031: the write back, on the NULL stream",
	      cuFileWriteAsync(wh, d, &size, &foff, &boff, &got, NULL).err == CU_FILE_SUCCESS &&
	      !cu.stream_sync(NULL) && got == (ssize_t)len &&
	      file_is(scratch, 8192, len, SEED, 4096));
	/* 033: a stream each, non-blocking; 034: registered with every flag (return ignored). */
	for (i = 0; i < N; i++) {
		ok &= !cu.stream_create(&s[i], GPCU_STREAM_NON_BLOCKING);
		if (i % 2)
			cuFileStreamRegister(s[i], 15);
		sizes[i] = len;
		foffs[i] = (off_t)(i * len);
		boffs[i] = (off_t)(i * len);
		gots[i] = 0;
		ok &= cuFileReadAsync(fh, d, &sizes[i], &foffs[i], &boffs[i], &gots[i],
				      (CUstream)s[i]).err == CU_FILE_SUCCESS;
	}
	for (i = 0; i < N; i++)
		ok &= !cu.stream_sync(s[i]) && gots[i] == (ssize_t)len;
	check("streams: 033/034: a read on each of 4 streams", ok && dev_is(d, N * len, SEED, 0));
	check("streams: registered twice: refused",
	      cuFileStreamRegister(s[1], 15).err == CU_FILE_INVALID_VALUE);
	check("streams: unknown flags: refused",
	      cuFileStreamRegister(s[0], 16).err == CU_FILE_INVALID_VALUE);
	size = 1000;
	check("streams: page-aligned inputs promised, and not kept: refused",
	      cuFileReadAsync(fh, d, &size, &foff, &boff, &got, (CUstream)s[1]).err ==
	      CU_FILE_INVALID_VALUE);
	check("streams: no size pointer: refused",
	      cuFileReadAsync(fh, d, NULL, &foff, &boff, &got, NULL).err == CU_FILE_INVALID_VALUE);
	for (i = 0; i < N; i++) {
		if (i % 2)
			ok &= cuFileStreamDeregister(s[i]).err == CU_FILE_SUCCESS;
		cu.stream_destroy(s[i]);
	}
	check("streams: deregistered", ok);
	/* KvikIO's read_async: its values malloc'd, read when the stream gets there. */
	sz = malloc(sizeof(*sz));
	*sz = len;
	foff = 3 * MiB + 512;
	got = 0;
	check("streams: kvikio read_async",
	      cuFileReadAsync(fh, d, sz, &foff, &boff, &got, NULL).err == CU_FILE_SUCCESS &&
	      !cu.stream_sync(NULL) && got == (ssize_t)len && dev_is(d, len, SEED, 3 * MiB + 512));
	free(sz);
	stream_order(fh, file, d);
	cuFileHandleDeregister(wh);
	cuFileHandleDeregister(fh);
	close(wfd);
	close(fd);
	cu.free((uintptr_t)d);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: gp-cufile-clients pytorch|kvikio|nixl|gdsmt|dali|sample001|"
			"sample010|sample019|"
			"streams|batch-async|fork FILE SCRATCH\n");
		return 2;
	}
	if (getenv("GPCU_CLIENTS_UNIT") && *getenv("GPCU_CLIENTS_UNIT")) {
		MiB = strtoull(getenv("GPCU_CLIENTS_UNIT"), NULL, 0);
		if (!MiB || MiB % (64 << 10) || MiB > (1 << 20)) {
			fprintf(stderr, "gp-cufile-clients: GPCU_CLIENTS_UNIT: a multiple of 64 KiB "
				"up to 1 MiB\n");
			return 2;
		}
	}
	cu_open();
	if (!strcmp(argv[1], "pytorch"))
		pytorch(argv[2], argv[3]);
	else if (!strcmp(argv[1], "kvikio"))
		kvikio(argv[2]);
	else if (!strcmp(argv[1], "nixl"))
		nixl(argv[2]);
	else if (!strcmp(argv[1], "gdsmt"))
		gdsmt(argv[2]);
	else if (!strcmp(argv[1], "dali"))
		dali(argv[2]);
	else if (!strcmp(argv[1], "sample001"))
		sample001(argv[3]);
	else if (!strcmp(argv[1], "sample010"))
		sample010(argv[2]);
	else if (!strcmp(argv[1], "sample019"))
		sample019(argv[3]);
	else if (!strcmp(argv[1], "streams"))
		streams(argv[2], argv[3]);
	else if (!strcmp(argv[1], "batch-async"))
		batch_async(argv[2], argv[3]);
	else if (!strcmp(argv[1], "fork"))
		forked(argv[2]);
	else
		return 2;
	printf("%s: %d of %d checks passed\n", argv[1], checks - failures, checks);
	return failures ? 1 : 0;
}
