// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath-bench: throughput and latency of I/O between a block device (or a
 * regular file) and device memory, for each way gpupath can move it, side by
 * side from one run (these machines are noisy: only ratios within a run mean
 * much).
 *
 *   gpupath-bench -d DEVICE|FILE [-F SIZE] [-p PROVIDER] [-m direct,compat,host]
 *                 [-t THREADS] [-s IOSIZE] [-q BATCH] [-D SECONDS] [-n IOS] [-S SPAN]
 *                 [-o] [-I FILE] [-r] [-w] [-v] [-j]
 *
 * -F makes FILE (created when missing) at least SIZE bytes, written with
 * the verification pattern (data, not holes, which the file system would
 * zero with the CPU) and synced; a file's span is its size.
 *
 * What the module counted for the provider during each mode is printed
 * beside it: bytes it moved direct, and bytes it refused (which the library
 * then bounced, with a CPU copy). On a file, reads that fall on holes or
 * unwritten extents are counted apart: the file system zero-fills those with
 * the CPU, and the module counts them among the direct bytes. Each mode on a
 * file starts with the file's pages out of the page cache.
 *
 * Modes: direct (device memory, DMA or nothing), compat (device memory,
 * always through pinned host memory and a copy), host (host memory: the
 * baseline). Host buffers, like the compat path's bounce buffer, come from
 * huge pages with GPUPATH_HUGEPAGES=1 (libgpupath(3)). -q submits BATCH I/Os
 * at a time (direct and host only).
 * -v lays the verification pattern over the span first (a write) and checks
 * every read against it.
 *
 * -o moves the data with the kernel's own O_DIRECT (pread/pwrite on the
 * device opened O_DIRECT) into the same buffers, gpupath's mapping of device
 * memory for direct (Linux 6.2 and later pin it) and host memory for host,
 * with no gpupath call in the I/O: any program's way in.
 *
 * Each mode is measured from when every thread has its buffer until the
 * last one is done, setup and teardown left out. Besides the process's own
 * CPU time, the busy time of all CPUs together is counted over that window
 * (interrupts and softirqs included, wherever they ran), from /proc/stat's
 * clock ticks, or with -I from a file of each CPU's idle time in
 * microseconds (selftests/lab's cpubusy module, /proc/cpubusy). Where that
 * file also gives the I/O's own part (cpubusy's io_irq=: this process's
 * threads with interrupts taken out, and the storage device's interrupt
 * handlers), it is
 * reported as "io" beside busy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "libgpupath-admin.h"
#include "busy.h"
#include "pattern.h"

enum mode { MODE_DIRECT, MODE_COMPAT, MODE_HOST, NR_MODES };
static const char *const mode_names[NR_MODES] = { "direct", "compat", "host" };

struct opts {
	const char *dev;
	uint32_t provider;
	bool modes[NR_MODES];
	unsigned int threads, batch;
	uint64_t iosize, span, dev_size, file_size, count;
	double seconds;
	bool random, write, verify, json, is_file, odirect;
};

/* Where the busy time comes from, and what its figures are worth. */
static struct busy_src busy = { .file = NULL };

/* A file's holes (and unwritten extents) over the span, as SEEK_HOLE sees them. */
struct hole {
	uint64_t start, end;
};

static struct hole *holes;
static size_t nholes;

struct worker {
	pthread_t tid;
	const struct opts *o;
	pthread_barrier_t *sync;
	enum mode mode;
	unsigned int index;
	uint64_t ios, bytes, errors, mismatches, hole_bytes;
	double *lat;		/* microseconds, one per I/O, up to cap */
	size_t nlat, cap;
	uint32_t reason;	/* why direct was refused */
	int err;
};

struct result {
	bool ran, counted, busy_known, io_known;
	double secs, cpu, busy, io;
	uint64_t ios, bytes, errors, mismatches, hole_bytes;
	uint64_t mod_direct, mod_refused;	/* the provider's counters, this mode */
	double p50, p99;
	uint32_t reason;
	int err;
};

static uint64_t next_offset(struct worker *w, uint64_t *seq, unsigned int *seed)
{
	const struct opts *o = w->o;
	uint64_t slots = o->span / o->iosize;

	if (o->random)
		return ((uint64_t)rand_r(seed) * RAND_MAX + rand_r(seed)) % slots * o->iosize;
	/* Sequential: each thread walks its own share of the span. */
	*seq = (*seq + 1) % slots;
	return (*seq * o->threads + w->index) % slots * o->iosize;
}

static int get_buffer(struct worker *w, struct gpupath_dev *dev, uint64_t size,
		      struct gpupath_buf **buf)
{
	if (w->mode != MODE_HOST)
		return gpupath_buf_alloc(dev, w->o->provider, size, buf);
	return gpupath_buf_host_alloc(dev, size, buf);
}

static bool check(const uint8_t *p, uint64_t len, uint64_t pos)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern_byte(1, pos + i))
			return false;
	return true;
}

/* Bytes of [off, off + len) on holes: binary search of the sorted holes. */
static uint64_t hole_overlap(uint64_t off, uint64_t len)
{
	size_t lo = 0, hi = nholes, i;
	uint64_t n = 0, a, b;

	while (lo < hi) {
		i = (lo + hi) / 2;
		if (holes[i].end <= off)
			lo = i + 1;
		else
			hi = i;
	}
	for (i = lo; i < nholes && holes[i].start < off + len; i++) {
		a = holes[i].start > off ? holes[i].start : off;
		b = holes[i].end < off + len ? holes[i].end : off + len;
		n += b - a;
	}
	return n;
}

/* The holes of a regular file over [0, span), on a descriptor of our own. */
static int find_holes(const char *path, uint64_t span)
{
	struct hole *h;
	off_t data, hole = 0;
	struct stat st;
	int fd, r = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	while (S_ISREG(st.st_mode) && (uint64_t)hole < span) {
		hole = lseek(fd, hole, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole >= span)
			break;
		data = lseek(fd, hole, SEEK_DATA);
		if (data < 0 || (uint64_t)data > span)
			data = span;
		h = realloc(holes, (nholes + 1) * sizeof(*holes));
		if (!h) {
			r = -ENOMEM;
			break;
		}
		holes = h;
		holes[nholes++] = (struct hole){ hole, data };
		hole = data;
	}
	close(fd);
	return r;
}

static void record(struct worker *w, double t0)
{
	if (w->nlat < w->cap)
		w->lat[w->nlat++] = (bench_now() - t0) * 1e6;
}

/* One I/O at a time. */
static int run_sync(struct worker *w, struct gpupath_buf *buf, int fd, double end)
{
	const struct opts *o = w->o;
	enum gpupath_io_policy pol = w->mode == MODE_DIRECT ? GPUPATH_POLICY_DIRECT :
				     w->mode == MODE_COMPAT ? GPUPATH_POLICY_COMPAT :
				     GPUPATH_POLICY_AUTO;
	unsigned int seed = w->index + 1;
	uint64_t seq = 0, off;
	struct gpupath_result res;
	double t0;
	int r;

	while (bench_now() < end && (!o->count || w->ios + w->errors < o->count)) {
		off = next_offset(w, &seq, &seed);
		t0 = bench_now();
		if (o->odirect) {
			/* The kernel's O_DIRECT: a refusal (EFAULT, EREMOTEIO...) ends the mode. */
			if ((o->write ? pwrite(fd, gpupath_buf_addr(buf), o->iosize, off) :
			     pread(fd, gpupath_buf_addr(buf), o->iosize, off)) !=
			    (ssize_t)o->iosize)
				return errno ? -errno : -EIO;
			r = 0;
		} else {
			r = (o->write ? gpupath_write : gpupath_read)(buf, 0, fd, off, o->iosize,
								       pol, &res);
		}
		if (r == -EXDEV) {
			w->reason = res.reason;
			return r;
		}
		if (r < 0) {
			w->errors++;
			continue;
		}
		record(w, t0);
		w->ios++;
		w->bytes += o->iosize;
		if (!o->write)
			w->hole_bytes += hole_overlap(off, o->iosize);
		if (o->verify && !o->write && !check(gpupath_buf_addr(buf), o->iosize, off))
			w->mismatches++;
	}
	return 0;
}

/* BATCH I/Os at a time, each in its own slice of the buffer. */
static int run_batch(struct worker *w, struct gpupath_dev *dev, struct gpupath_buf *buf,
		     int fd, double end)
{
	const struct opts *o = w->o;
	struct gpupath_iov iov[GPUPATH_SUBMIT_MAX];
	struct gpupath_completion c[GPUPATH_SUBMIT_MAX];
	unsigned int seed = w->index + 1, i, got;
	uint64_t seq = 0;
	double t0;
	int r;

	while (bench_now() < end && (!o->count || w->ios + w->errors < o->count)) {
		for (i = 0; i < o->batch; i++)
			iov[i] = (struct gpupath_iov){ buf, i * o->iosize, fd,
				o->write ? GPUPATH_IO_WRITE : GPUPATH_IO_READ,
				next_offset(w, &seq, &seed), o->iosize, i };
		t0 = bench_now();
		r = gpupath_submit(dev, iov, o->batch);
		if (r != (int)o->batch)
			return r < 0 ? r : -EIO;
		for (got = 0; got < o->batch; got += r) {
			r = gpupath_reap(dev, c + got, o->batch - got, -1);
			if (r < 0)
				return r;
		}
		for (i = 0; i < o->batch; i++) {
			if (c[i].result == -EXDEV) {
				w->reason = c[i].reason;
				return -EXDEV;
			}
			if (c[i].result) {
				w->errors++;
				continue;
			}
			record(w, t0);
			w->ios++;
			w->bytes += o->iosize;
			if (!o->write)
				w->hole_bytes += hole_overlap(iov[i].dev_off, o->iosize);
		}
	}
	return 0;
}

/*
 * A worker's four meetings with the main thread (run_mode): set up; start;
 * done; measured, after which the buffers may go.
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct opts *o = w->o;
	uint64_t size = o->iosize * (o->batch ? o->batch : 1);
	struct gpupath_dev *dev = NULL;
	struct gpupath_buf *buf = NULL;
	int fd = -1, step;

	w->err = gpupath_dev_open(&dev);
	if (!w->err) {
		fd = open(o->dev, (o->write ? O_WRONLY : O_RDONLY) | (o->odirect ? O_DIRECT : 0));
		if (fd < 0)
			w->err = -errno;
	}
	if (!w->err)
		w->err = get_buffer(w, dev, size, &buf);
	if (!w->err && o->write)
		memset(gpupath_buf_addr(buf), 0x5a, size);
	for (step = 0; step < 4; step++) {
		pthread_barrier_wait(w->sync);
		if (step == 1 && !w->err)
			w->err = o->batch ? run_batch(w, dev, buf, fd, bench_now() + o->seconds) :
					    run_sync(w, buf, fd, bench_now() + o->seconds);
	}
	if (buf)
		gpupath_buf_free(buf);
	if (fd >= 0)
		close(fd);
	if (dev)
		gpupath_dev_close(dev);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The provider's direct and refused bytes so far; false if unknown. */
static bool provider_counts(const struct opts *o, uint64_t *direct, uint64_t *refused)
{
	struct gpupath_provider p;
	struct gpupath_ctl *ctl;
	unsigned int i;
	bool ok;

	if (!o->provider || gpupath_ctl_open(&ctl))
		return false;
	ok = !gpupath_ctl_provider_get(ctl, o->provider, &p, sizeof(p));
	gpupath_ctl_close(ctl);
	if (!ok)
		return false;
	*direct = p.direct_bytes;
	*refused = 0;
	for (i = 0; i < GPUPATH_REASONS_KNOWN; i++)
		*refused += p.refused_bytes[i];
	return true;
}

/*
 * A file's pages out of the page cache, so that every mode reads the device:
 * compat reads a file through the page cache, and would otherwise find what
 * an earlier mode (or the file's making) left there.
 */
static void drop_cached(const struct opts *o)
{
	int fd;

	if (!o->is_file)
		return;
	fd = open(o->dev, O_RDONLY);
	if (fd < 0)
		return;
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}

static void run_mode(const struct opts *o, enum mode m, struct result *res)
{
	struct worker *w = calloc(o->threads, sizeof(*w));
	uint64_t d0 = 0, r0 = 0, d1, r1;
	double *all, t0, c0, b0 = 0, b1 = 0, io0;
	size_t n = 0, i, cap = 1 << 20;
	pthread_barrier_t sync;
	bool counted, known;

	drop_cached(o);
	counted = provider_counts(o, &d0, &r0);
	pthread_barrier_init(&sync, NULL, o->threads + 1);
	for (i = 0; i < o->threads; i++) {
		w[i] = (struct worker){ .o = o, .sync = &sync, .mode = m, .index = i, .cap = cap };
		w[i].lat = malloc(cap * sizeof(double));
		pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
	}
	/* Every worker has its buffer: the window opens. */
	pthread_barrier_wait(&sync);
	known = busy_seconds(&busy, &b0);
	io0 = busy.io_known ? busy.io : -1;
	c0 = bench_cpu_seconds();
	t0 = bench_now();
	pthread_barrier_wait(&sync);
	/* Every worker is done: the window closes before any buffer goes. */
	pthread_barrier_wait(&sync);
	res->secs = bench_now() - t0;
	res->cpu = bench_cpu_seconds() - c0;
	res->busy_known = known && busy_seconds(&busy, &b1);
	res->busy = b1 - b0;
	res->io_known = res->busy_known && io0 >= 0 && busy.io_known;
	res->io = busy.io - io0;
	pthread_barrier_wait(&sync);
	for (i = 0; i < o->threads; i++)
		pthread_join(w[i].tid, NULL);
	pthread_barrier_destroy(&sync);
	res->ran = true;
	if (counted && provider_counts(o, &d1, &r1)) {
		res->counted = true;
		res->mod_direct = d1 - d0;
		res->mod_refused = r1 - r0;
	}
	all = malloc(o->threads * cap * sizeof(double));
	for (i = 0; i < o->threads; i++) {
		res->ios += w[i].ios;
		res->bytes += w[i].bytes;
		res->errors += w[i].errors;
		res->mismatches += w[i].mismatches;
		res->hole_bytes += w[i].hole_bytes;
		if (w[i].err && !res->err) {
			res->err = w[i].err;
			res->reason = w[i].reason;
		}
		memcpy(all + n, w[i].lat, w[i].nlat * sizeof(double));
		n += w[i].nlat;
		free(w[i].lat);
	}
	qsort(all, n, sizeof(double), cmp_double);
	res->p50 = n ? all[n / 2] : 0;
	res->p99 = n ? all[n * 99 / 100] : 0;
	free(all);
	free(w);
}

/* Lay the verification pattern over the span, through host memory. */
static int lay_pattern(const struct opts *o)
{
	uint64_t chunk = 1 << 20, off;
	struct gpupath_dev *dev;
	struct gpupath_buf *buf = NULL;
	uint8_t *mem;
	int fd, r;

	r = gpupath_dev_open(&dev);
	if (r)
		return r;
	fd = open(o->dev, O_WRONLY);
	if (fd < 0)
		r = -errno;
	else
		r = gpupath_buf_host_alloc(dev, chunk, &buf);
	for (off = 0; off < o->span && r == 0; off += chunk) {
		mem = gpupath_buf_addr(buf);
		pattern_fill(mem, chunk, 1, off);
		r = gpupath_write(buf, 0, fd, off, o->span - off < chunk ? o->span - off : chunk,
				  GPUPATH_POLICY_AUTO, NULL);
	}
	gpupath_buf_free(buf);
	if (fd >= 0)
		close(fd);
	gpupath_dev_close(dev);
	return r;
}

/*
 * -F: the file at least @size bytes, of data, synced; *@whole says whether
 * all of it is the pattern just written.
 */
static int make_file(const char *path, uint64_t size, bool *whole)
{
	uint64_t chunk = 1 << 20, off, n;
	struct stat st;
	uint8_t *mem;
	int fd, r = 0;

	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	mem = malloc(chunk);
	if (!mem) {
		close(fd);
		return -ENOMEM;
	}
	*whole = st.st_size < (off_t)chunk;
	for (off = st.st_size - st.st_size % chunk; off < size && r == 0; off += n) {
		n = size - off < chunk ? size - off : chunk;
		pattern_fill(mem, n, 1, off);
		if (pwrite(fd, mem, n, off) != (ssize_t)n)
			r = errno ? -errno : -EIO;
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	free(mem);
	close(fd);
	return r;
}

/* A block device's size, or a regular file's; *@is_file says which. */
static int target_size(const char *path, uint64_t *size, bool *is_file)
{
	struct stat st;
	int fd, r = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	*is_file = S_ISREG(st.st_mode);
	if (*is_file)
		*size = st.st_size;
	else if (ioctl(fd, BLKGETSIZE64, size) < 0)
		r = -errno;
	close(fd);
	return r;
}

static void print_text(const struct opts *o, const struct result *res)
{
	const struct result *base = &res[MODE_HOST];
	enum mode m;

	printf("%s %s%s, %" PRIu64 " KiB I/Os, %u thread(s)%s, %.0f s per mode\n", o->dev,
	       o->write ? "write" : "read", o->odirect ? " (O_DIRECT)" : "", o->iosize >> 10,
	       o->threads, o->random ? ", random" : ", sequential", o->seconds);
	printf("busy: all CPUs, from %s, resolution %.0f us\n", busy_name(&busy),
	       busy.resolution_ns / 1e3);
	printf("%-7s %9s %9s %9s %9s %11s %11s %8s %8s\n", "mode", "GB/s", "IOPS", "p50 us",
	       "p99 us", "CPU s/GB", "busy s/GB", "GB/s:host", "busy:host");
	for (m = 0; m < NR_MODES; m++) {
		const struct result *r = &res[m];
		double gbs = r->bytes / r->secs / 1e9;

		if (!r->ran)
			continue;
		if (r->err) {
			printf("%-7s unavailable: %s%s%s\n", mode_names[m], strerror(-r->err),
			       r->err == -EXDEV ? ": " : "",
			       r->err == -EXDEV ? gpupath_reason_text(r->reason) : "");
			continue;
		}
		printf("%-7s %9.3f %9.0f %9.1f %9.1f %11.3f", mode_names[m], gbs,
		       r->ios / r->secs, r->p50, r->p99, r->bytes ? r->cpu / (r->bytes / 1e9) : 0);
		if (r->busy_known && r->bytes)
			printf(" %11.4f", r->busy / (r->bytes / 1e9));
		else
			printf(" %11s", "-");
		if (base->ran && !base->err && base->bytes && m != MODE_HOST) {
			printf(" %8.2fx", gbs / (base->bytes / base->secs / 1e9));
			if (r->busy_known && base->busy_known && base->busy > 0 && r->bytes)
				printf(" %7.3fx", r->busy / r->bytes / (base->busy / base->bytes));
		}
		if (r->errors || r->mismatches)
			printf("  errors %" PRIu64 " mismatches %" PRIu64, r->errors, r->mismatches);
		printf("\n");
	}
	for (m = 0; m < NR_MODES; m++) {
		const struct result *r = &res[m];

		if (!r->ran || r->err || !r->io_known || !r->bytes)
			continue;
		printf("%-7s io (this process and the device's interrupts): %.4f s/GB",
		       mode_names[m], r->io / (r->bytes / 1e9));
		if (m != MODE_HOST && base->ran && !base->err && base->io_known && base->io > 0)
			printf(", %.3fx host", r->io / r->bytes / (base->io / base->bytes));
		printf("\n");
	}
	for (m = 0; m < NR_MODES; m++) {
		const struct result *r = &res[m];

		if (!r->ran || r->err || (!r->counted && !o->is_file) || m == MODE_HOST)
			continue;
		printf("%-7s", mode_names[m]);
		if (r->counted)
			printf(" module: %" PRIu64 " bytes direct, %" PRIu64 " refused%s",
			       r->mod_direct, r->mod_refused, o->is_file && !o->write ? ";" : "");
		if (o->is_file && !o->write)
			printf(" %" PRIu64 " of %" PRIu64 " bytes read from holes (zeroed by the CPU)",
			       r->hole_bytes, r->bytes);
		printf("\n");
	}
	if (res[MODE_DIRECT].ran && !res[MODE_DIRECT].err && res[MODE_COMPAT].ran &&
	    !res[MODE_COMPAT].err && res[MODE_COMPAT].bytes)
		printf("direct:compat throughput %.2fx\n",
		       (res[MODE_DIRECT].bytes / res[MODE_DIRECT].secs) /
		       (res[MODE_COMPAT].bytes / res[MODE_COMPAT].secs));
}

static void print_json(const struct opts *o, const struct result *res)
{
	enum mode m;
	const char *sep = "";

	printf("{\"device\":\"%s\",\"op\":\"%s\",\"io_size\":%" PRIu64 ",\"threads\":%u,"
	       "\"batch\":%u,\"random\":%s,\"odirect\":%s,\"busy_source\":\"%s\","
	       "\"busy_resolution_ns\":%.0f,\"modes\":{", o->dev, o->write ? "write" : "read",
	       o->iosize, o->threads, o->batch, o->random ? "true" : "false",
	       o->odirect ? "true" : "false", busy_name(&busy), busy.resolution_ns);
	for (m = 0; m < NR_MODES; m++) {
		const struct result *r = &res[m];

		if (!r->ran)
			continue;
		printf("%s\"%s\":{", sep, mode_names[m]);
		sep = ",";
		if (r->err) {
			printf("\"error\":%d,\"reason\":\"%s\"}", r->err, gpupath_reason_name(r->reason));
			continue;
		}
		printf("\"gbps\":%.6f,\"iops\":%.1f,\"p50_us\":%.1f,\"p99_us\":%.1f,"
		       "\"cpu_s_per_gb\":%.3f,\"ios\":%" PRIu64 ",\"errors\":%" PRIu64
		       ",\"mismatches\":%" PRIu64, r->bytes / r->secs / 1e9, r->ios / r->secs,
		       r->p50, r->p99, r->bytes ? r->cpu / (r->bytes / 1e9) : 0, r->ios, r->errors,
		       r->mismatches);
		printf(",\"bytes\":%" PRIu64 ",\"hole_bytes\":%" PRIu64 ",\"seconds\":%.6f",
		       r->bytes, r->hole_bytes, r->secs);
		if (r->busy_known)
			printf(",\"busy_ns\":%.0f,\"busy_s_per_gb\":%.6f", r->busy * 1e9,
			       r->bytes ? r->busy / (r->bytes / 1e9) : 0);
		if (r->io_known)
			printf(",\"io_ns\":%.0f,\"io_s_per_gb\":%.6f", r->io * 1e9,
			       r->bytes ? r->io / (r->bytes / 1e9) : 0);
		if (r->counted)
			printf(",\"module_direct_bytes\":%" PRIu64 ",\"module_refused_bytes\":%" PRIu64,
			       r->mod_direct, r->mod_refused);
		printf("}");
	}
	printf("}}\n");
}

static int usage(void)
{
	fprintf(stderr, "usage: gpupath-bench -d DEVICE|FILE [-F SIZE] [-p PROVIDER] "
		"[-m direct,compat,host] [-t THREADS] [-s IOSIZE] [-q BATCH] [-D SECONDS] "
		"[-n IOS] [-S SPAN] [-o] [-I FILE] [-r] [-w] [-v] [-j]\n");
	return 2;
}

static int parse_size(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': *v <<= 10; end++; break;
	case 'm': case 'M': *v <<= 20; end++; break;
	case 'g': case 'G': *v <<= 30; end++; break;
	}
	return *end ? -1 : 0;
}

static int parse_modes(char *s, struct opts *o)
{
	char *tok, *save = NULL;
	enum mode m;

	memset(o->modes, 0, sizeof(o->modes));
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (m = 0; m < NR_MODES && strcmp(tok, mode_names[m]); m++)
			;
		if (m == NR_MODES)
			return -1;
		o->modes[m] = true;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	uint64_t v;
	int c;

	while ((c = getopt(argc, argv, "d:F:p:m:t:s:q:D:n:S:I:orwvj")) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'F': if (parse_size(optarg, &o->file_size) || !o->file_size ||
			      o->file_size % 4096)
				  return -1;
			  break;
		case 'p': if (parse_size(optarg, &v) || !v || v > UINT32_MAX) return -1;
			  o->provider = v; break;
		case 'm': if (parse_modes(optarg, o)) return -1; break;
		case 't': if (parse_size(optarg, &v) || !v || v > 64) return -1;
			  o->threads = v; break;
		case 's': if (parse_size(optarg, &o->iosize) || !o->iosize || o->iosize % 4096)
				  return -1;
			  break;
		case 'q': if (parse_size(optarg, &v) || v > 256) return -1;
			  o->batch = v; break;
		case 'D': o->seconds = atof(optarg); if (o->seconds <= 0) return -1; break;
		case 'n': if (parse_size(optarg, &o->count) || !o->count) return -1; break;
		case 'I': busy.file = optarg; break;
		case 'o': o->odirect = true; break;
		case 'S': if (parse_size(optarg, &o->span)) return -1; break;
		case 'r': o->random = true; break;
		case 'w': o->write = true; break;
		case 'v': o->verify = true; break;
		case 'j': o->json = true; break;
		default: return -1;
		}
	}
	return o->dev && optind == argc ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct opts o = { .threads = 1, .iosize = 1 << 20, .seconds = 5,
			  .modes = { true, true, true } };
	struct result res[NR_MODES] = {};
	bool fresh = false;
	enum mode m;
	int r;

	if (parse_args(argc, argv, &o))
		return usage();
	if (o.file_size && (r = make_file(o.dev, o.file_size, &fresh)) < 0) {
		fprintf(stderr, "gpupath-bench: making %s: %s\n", o.dev, strerror(-r));
		return 1;
	}
	r = target_size(o.dev, &o.dev_size, &o.is_file);
	if (r < 0) {
		fprintf(stderr, "gpupath-bench: %s: %s\n", o.dev, strerror(-r));
		return 1;
	}
	if (!o.span || o.span > o.dev_size)
		o.span = o.dev_size;
	o.span -= o.span % o.iosize;
	if (o.odirect && (o.batch || o.modes[MODE_COMPAT])) {
		fprintf(stderr, "gpupath-bench: -o takes the direct and host modes "
			"(-m direct,host) and no -q\n");
		return 2;
	}
	if (busy.file) {
		double b;

		if (!busy_seconds(&busy, &b)) {
			fprintf(stderr, "gpupath-bench: -I %s: no idle times of the form "
				"\"now NS\" then \"cpuN IDLE_US IOWAIT_US\"\n", busy.file);
			return 2;
		}
	}
	if (o.span < o.iosize * o.threads || ((o.modes[MODE_DIRECT] || o.modes[MODE_COMPAT]) &&
					      !o.provider)) {
		fprintf(stderr, "gpupath-bench: need a span of at least THREADS x IOSIZE, and -p "
			"PROVIDER for direct and compat\n");
		return 2;
	}
	if (!o.write && (r = find_holes(o.dev, o.span)) < 0) {
		fprintf(stderr, "gpupath-bench: %s: %s\n", o.dev, strerror(-r));
		return 1;
	}
	/* A file -F wrote whole holds the pattern already. */
	if (o.verify && !o.write && !fresh) {
		r = lay_pattern(&o);
		if (r < 0) {
			fprintf(stderr, "gpupath-bench: laying the pattern: %s\n", strerror(-r));
			return 1;
		}
	}
	for (m = 0; m < NR_MODES; m++)
		if (o.modes[m] && !(o.batch && m == MODE_COMPAT))
			run_mode(&o, m, &res[m]);
	if (o.json)
		print_json(&o, res);
	else
		print_text(&o, res);
	for (m = 0; m < NR_MODES; m++)
		if (res[m].errors || res[m].mismatches || (res[m].err && res[m].err != -EXDEV))
			return 1;
	return 0;
}
