// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath-bench: throughput and latency of I/O between a block device (or a
 * regular file) and device memory, for each way gpupath can move it, side by
 * side from one run (these machines are noisy: only ratios within a run mean
 * much).
 *
 *   gpupath-bench -d DEVICE|FILE [-F SIZE] [-p PROVIDER] [-m direct,compat,host]
 *                 [-t THREADS] [-s IOSIZE] [-q BATCH] [-D SECONDS] [-S SPAN] [-r] [-w]
 *                 [-v] [-j]
 *
 * -F makes FILE (created when missing) at least SIZE bytes, written with
 * data (not holes, which the file system would zero with the CPU) and
 * synced; a file's span is its size.
 *
 * Modes: direct (device memory, DMA or nothing), compat (device memory,
 * always through pinned host memory and a copy), host (host memory: the
 * baseline). -q submits BATCH I/Os at a time (direct and host only).
 * -v lays the verification pattern over the span first (a write) and checks
 * every read against it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include "libgpupath.h"
#include "pattern.h"

enum mode { MODE_DIRECT, MODE_COMPAT, MODE_HOST, NR_MODES };
static const char *const mode_names[NR_MODES] = { "direct", "compat", "host" };

struct opts {
	const char *dev;
	uint32_t provider;
	bool modes[NR_MODES];
	unsigned int threads, batch;
	uint64_t iosize, span, dev_size, file_size;
	double seconds;
	bool random, write, verify, json;
};

struct worker {
	pthread_t tid;
	const struct opts *o;
	enum mode mode;
	unsigned int index;
	uint64_t ios, bytes, errors, mismatches;
	double *lat;		/* microseconds, one per I/O, up to cap */
	size_t nlat, cap;
	uint32_t reason;	/* why direct was refused */
	int err;
};

struct result {
	bool ran;
	double secs, cpu;
	uint64_t ios, bytes, errors, mismatches;
	double p50, p99;
	uint32_t reason;
	int err;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

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
		      struct gpupath_buf **buf, void **host)
{
	*host = NULL;
	if (w->mode != MODE_HOST)
		return gpupath_buf_alloc(dev, w->o->provider, size, buf);
	*host = aligned_alloc(4096, size);
	if (!*host)
		return -ENOMEM;
	return gpupath_buf_host(dev, *host, size, buf);
}

static bool check(const uint8_t *p, uint64_t len, uint64_t pos)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern_byte(1, pos + i))
			return false;
	return true;
}

static void record(struct worker *w, double t0)
{
	if (w->nlat < w->cap)
		w->lat[w->nlat++] = (now() - t0) * 1e6;
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

	while (now() < end) {
		off = next_offset(w, &seq, &seed);
		t0 = now();
		r = (o->write ? gpupath_write : gpupath_read)(buf, 0, fd, off, o->iosize, pol,
							       &res);
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

	while (now() < end) {
		for (i = 0; i < o->batch; i++)
			iov[i] = (struct gpupath_iov){ buf, i * o->iosize, fd,
				o->write ? GPUPATH_IO_WRITE : GPUPATH_IO_READ,
				next_offset(w, &seq, &seed), o->iosize, i };
		t0 = now();
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
		}
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct opts *o = w->o;
	uint64_t size = o->iosize * (o->batch ? o->batch : 1);
	struct gpupath_dev *dev;
	struct gpupath_buf *buf;
	void *host;
	int fd;

	w->err = gpupath_dev_open(&dev);
	if (w->err)
		return NULL;
	fd = open(o->dev, o->write ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		w->err = -errno;
		goto out_dev;
	}
	w->err = get_buffer(w, dev, size, &buf, &host);
	if (w->err)
		goto out_fd;
	if (o->write)
		memset(gpupath_buf_addr(buf), 0x5a, size);
	w->err = o->batch ? run_batch(w, dev, buf, fd, now() + o->seconds) :
			    run_sync(w, buf, fd, now() + o->seconds);
	gpupath_buf_free(buf);
	free(host);
out_fd:
	close(fd);
out_dev:
	gpupath_dev_close(dev);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void run_mode(const struct opts *o, enum mode m, struct result *res)
{
	struct worker *w = calloc(o->threads, sizeof(*w));
	double *all, t0, c0;
	size_t n = 0, i, cap = 1 << 20;

	c0 = cpu_seconds();
	t0 = now();
	for (i = 0; i < o->threads; i++) {
		w[i] = (struct worker){ .o = o, .mode = m, .index = i, .cap = cap };
		w[i].lat = malloc(cap * sizeof(double));
		pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
	}
	for (i = 0; i < o->threads; i++)
		pthread_join(w[i].tid, NULL);
	res->secs = now() - t0;
	res->cpu = cpu_seconds() - c0;
	res->ran = true;
	all = malloc(o->threads * cap * sizeof(double));
	for (i = 0; i < o->threads; i++) {
		res->ios += w[i].ios;
		res->bytes += w[i].bytes;
		res->errors += w[i].errors;
		res->mismatches += w[i].mismatches;
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
	uint64_t chunk = 1 << 20, off, i;
	struct gpupath_dev *dev;
	struct gpupath_buf *buf;
	uint8_t *mem;
	int fd, r;

	r = gpupath_dev_open(&dev);
	if (r)
		return r;
	fd = open(o->dev, O_WRONLY);
	mem = aligned_alloc(4096, chunk);
	if (fd < 0 || !mem || (r = gpupath_buf_host(dev, mem, chunk, &buf)) < 0)
		return fd < 0 ? -errno : r ? r : -ENOMEM;
	for (off = 0; off < o->span && r == 0; off += chunk) {
		for (i = 0; i < chunk; i++)
			mem[i] = pattern_byte(1, off + i);
		r = gpupath_write(buf, 0, fd, off, o->span - off < chunk ? o->span - off : chunk,
				  GPUPATH_POLICY_AUTO, NULL);
	}
	gpupath_buf_free(buf);
	free(mem);
	close(fd);
	gpupath_dev_close(dev);
	return r;
}

/* -F: the file at least @size bytes, of data, synced. */
static int make_file(const char *path, uint64_t size)
{
	uint64_t chunk = 1 << 20, off, i, n;
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
	for (off = st.st_size - st.st_size % chunk; off < size && r == 0; off += n) {
		n = size - off < chunk ? size - off : chunk;
		for (i = 0; i < n; i++)
			mem[i] = pattern_byte(1, off + i);
		if (pwrite(fd, mem, n, off) != (ssize_t)n)
			r = errno ? -errno : -EIO;
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	free(mem);
	close(fd);
	return r;
}

/* A block device's size, or a regular file's. */
static int target_size(const char *path, uint64_t *size)
{
	struct stat st;
	int fd, r = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode))
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

	printf("%s %s, %" PRIu64 " KiB I/Os, %u thread(s)%s, %.0f s per mode\n", o->dev,
	       o->write ? "write" : "read", o->iosize >> 10, o->threads,
	       o->random ? ", random" : ", sequential", o->seconds);
	printf("%-7s %9s %9s %9s %9s %11s %8s %8s\n", "mode", "GB/s", "IOPS", "p50 us",
	       "p99 us", "CPU s/GB", "GB/s:host", "p50:host");
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
		printf("%-7s %9.3f %9.0f %9.1f %9.1f %11.2f", mode_names[m], gbs,
		       r->ios / r->secs, r->p50, r->p99, r->bytes ? r->cpu / (r->bytes / 1e9) : 0);
		if (base->ran && !base->err && base->bytes && m != MODE_HOST)
			printf(" %8.2fx %7.2fx", gbs / (base->bytes / base->secs / 1e9),
			       base->p50 ? r->p50 / base->p50 : 0);
		if (r->errors || r->mismatches)
			printf("  errors %" PRIu64 " mismatches %" PRIu64, r->errors, r->mismatches);
		printf("\n");
	}
}

static void print_json(const struct opts *o, const struct result *res)
{
	enum mode m;
	const char *sep = "";

	printf("{\"device\":\"%s\",\"op\":\"%s\",\"io_size\":%" PRIu64 ",\"threads\":%u,"
	       "\"batch\":%u,\"random\":%s,\"modes\":{", o->dev, o->write ? "write" : "read",
	       o->iosize, o->threads, o->batch, o->random ? "true" : "false");
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
		       ",\"mismatches\":%" PRIu64 "}", r->bytes / r->secs / 1e9, r->ios / r->secs,
		       r->p50, r->p99, r->bytes ? r->cpu / (r->bytes / 1e9) : 0, r->ios, r->errors,
		       r->mismatches);
	}
	printf("}}\n");
}

static int usage(void)
{
	fprintf(stderr, "usage: gpupath-bench -d DEVICE|FILE [-F SIZE] [-p PROVIDER] "
		"[-m direct,compat,host] [-t THREADS] [-s IOSIZE] [-q BATCH] [-D SECONDS] "
		"[-S SPAN] [-r] [-w] [-v] [-j]\n");
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

	while ((c = getopt(argc, argv, "d:F:p:m:t:s:q:D:S:rwvj")) != -1) {
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
	enum mode m;
	int r;

	if (parse_args(argc, argv, &o))
		return usage();
	if (o.file_size && (r = make_file(o.dev, o.file_size)) < 0) {
		fprintf(stderr, "gpupath-bench: making %s: %s\n", o.dev, strerror(-r));
		return 1;
	}
	r = target_size(o.dev, &o.dev_size);
	if (r < 0) {
		fprintf(stderr, "gpupath-bench: %s: %s\n", o.dev, strerror(-r));
		return 1;
	}
	if (!o.span || o.span > o.dev_size)
		o.span = o.dev_size;
	o.span -= o.span % o.iosize;
	if (o.span < o.iosize * o.threads || ((o.modes[MODE_DIRECT] || o.modes[MODE_COMPAT]) &&
					      !o.provider)) {
		fprintf(stderr, "gpupath-bench: need a span of at least THREADS x IOSIZE, and -p "
			"PROVIDER for direct and compat\n");
		return 2;
	}
	if (o.verify && !o.write) {
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
