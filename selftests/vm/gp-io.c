// SPDX-License-Identifier: GPL-2.0
/*
 * gp-io: one I/O through libgpupath between a block device and a buffer of
 * device memory (or host memory), checked against the test pattern.
 *
 *   gp-io [-p auto|direct|compat|odirect] [-o BUF_OFF] [-H] [-A] [-D] [-b N] [-Z FROM]
 *         read|write PROVIDER DEVICE DEV_OFF LEN SEED
 *
 * PROVIDER is a provider id, or "host". DEVICE is a block device or a
 * regular file (created by a write when missing). read: the device range is expected
 * to hold pattern SEED (positions = device offsets); it is read into the
 * buffer at BUF_OFF and compared there. write: the buffer is filled with
 * that pattern and written to the device. -H holds the buffer after the
 * I/O until standard input reaches its end. -b N splits the transfer into N
 * I/Os submitted as one batch and reaped through an eventfd; with policy
 * auto, those refused are bounced one by one. -Z FROM: a read expects zeros
 * (a hole) from device offset FROM on, instead of the pattern; -z: zeros
 * are taken anywhere (a file truncated and grown under the read).
 * -p odirect: no gpupath I/O at all, the program's own pread or pwrite on
 * DEVICE opened O_DIRECT, into or out of the buffer's mapping (the kernel's
 * user-space direct I/O on P2PDMA pages, from 6.2); it prints mode=odirect.
 * -A (with -p odirect, reads): the read is submitted with Linux AIO, then
 * the buffer is unmapped and freed and /dev/gpupath closed while it is in
 * flight; "submitted" is printed, and once standard input reaches its end
 * the completion is reaped and printed as "res=N" (exit 0 when N is LEN).
 * The pages must stay out of the device's pool until then. -D: DEVICE is
 * opened O_DIRECT (a write: read-write), as GDS programs open files.
 *
 * Prints one line: mode=M reason=R [ios=N] [bar=B bar_offset=O] [len=MOVED]
 * [error=E], len= only when fewer bytes moved than asked (a file's end).
 * Exit: 0 done and data right, 1 data wrong, 2 usage, 3 the I/O failed.
 * Device memory revoked under it (its provider removed) gets SIGBUS on the
 * next touch: that prints a line "error=..." and exits 3 as well.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <linux/aio_abi.h>
#include <unistd.h>

#include "libgpupath.h"
#include "pattern.h"

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || !*s || *end ? -1 : 0;
}

static int parse_policy(const char *s, enum gpupath_io_policy *p)
{
	if (!strcmp(s, "auto"))
		*p = GPUPATH_POLICY_AUTO;
	else if (!strcmp(s, "direct"))
		*p = GPUPATH_POLICY_DIRECT;
	else if (!strcmp(s, "compat"))
		*p = GPUPATH_POLICY_COMPAT;
	else
		return -1;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: gp-io [-p auto|direct|compat|odirect] [-o BUF_OFF] [-H] [-A] [-D] [-b N] "
		"[-Z FROM] "
		"read|write PROVIDER|host DEVICE DEV_OFF LEN SEED\n");
	return 2;
}

static int get_buf(struct gpupath_dev *dev, const char *prov, size_t size,
		   struct gpupath_buf **buf, void **host)
{
	uint64_t id;
	int r;

	*host = NULL;
	if (strcmp(prov, "host")) {
		if (parse_u64(prov, &id) || id > UINT32_MAX)
			return -EINVAL;
		return gpupath_buf_alloc(dev, id, size, buf);
	}
	r = gpupath_buf_host_alloc(dev, size, buf);
	if (r == 0)
		*host = gpupath_buf_addr(*buf);
	return r;
}

/*
 * Compare the buffer with the pattern, zeros from device offset @zero on;
 * the first difference is reported.
 */
static bool zeros_too;

static int verify(const volatile uint8_t *p, uint64_t len, uint64_t seed, uint64_t pos,
		  uint64_t zero)
{
	uint64_t i;
	uint8_t want;

	for (i = 0; i < len; i++) {
		want = pos + i >= zero ? 0 : pattern_byte(seed, pos + i);
		if (p[i] != want && !(zeros_too && !p[i])) {
			fprintf(stderr, "gp-io: mismatch at +%" PRIu64 ": 0x%02x, expected 0x%02x\n",
				i, p[i], want);
			return 1;
		}
	}
	return 0;
}

/*
 * The transfer as @n I/Os in one batch. All must end the same way; that way
 * goes into @res. Refused ones are bounced under policy auto.
 */
static int batch_io(struct gpupath_dev *dev, struct gpupath_buf *buf, bool rd, int fd,
		    uint64_t boff, uint64_t doff, uint64_t len, unsigned int n,
		    enum gpupath_io_policy policy, struct gpupath_result *res)
{
	struct gpupath_completion c[64];
	struct gpupath_iov iov[GPUPATH_SUBMIT_MAX];
	struct gpupath_result one;
	uint64_t chunk = len / n, evs;
	unsigned int i, got = 0;
	struct pollfd pfd;
	int efd, r, k;

	if (!n || n > GPUPATH_SUBMIT_MAX || len % n || chunk % 512)
		return -EINVAL;
	efd = eventfd(0, EFD_CLOEXEC);
	if (efd < 0 || gpupath_set_eventfd(dev, efd) < 0)
		return -errno;
	for (i = 0; i < n; i++)
		iov[i] = (struct gpupath_iov){ buf, boff + i * chunk, fd,
			rd ? GPUPATH_IO_READ : GPUPATH_IO_WRITE, doff + i * chunk, chunk, i };
	r = gpupath_submit(dev, iov, n);
	if (r != (int)n)
		return r < 0 ? r : -EIO;
	pfd = (struct pollfd){ .fd = efd, .events = POLLIN };
	while (got < n) {
		if (poll(&pfd, 1, 60000) != 1 || read(efd, &evs, sizeof(evs)) != sizeof(evs))
			return -ETIMEDOUT;
		while ((k = gpupath_reap(dev, c, 64, 0)) > 0) {
			for (i = 0; i < (unsigned int)k; i++, got++) {
				one = (struct gpupath_result){ c[i].mode, c[i].reason, c[i].len };
				r = c[i].result;
				/* Refused already: bounce without asking again. */
				if (r == -EXDEV && policy == GPUPATH_POLICY_AUTO) {
					r = (rd ? gpupath_read : gpupath_write)(buf,
						boff + c[i].user_data * chunk, fd,
						doff + c[i].user_data * chunk, chunk,
						GPUPATH_POLICY_COMPAT, &one);
					one.reason = c[i].reason;
				}
				if (r < 0) {
					*res = one;
					return r;
				}
				if (got && (one.mode != res->mode || one.reason != res->reason))
					return -EPROTO;
				*res = one;
			}
		}
		if (k < 0)
			return k;
	}
	close(efd);
	return 0;
}

/*
 * User-space direct I/O on the buffer's mapping, as any program does it:
 * until the end of the range or of the file. Returns 0 or -errno.
 */
static int odirect_io(bool rd, const char *path, uint8_t *p, uint64_t doff, uint64_t len,
		      uint64_t *moved)
{
	ssize_t n = 0;
	int fd, r = 0;

	*moved = 0;
	fd = open(path, (rd ? O_RDONLY : O_WRONLY) | O_DIRECT);
	if (fd < 0)
		return -errno;
	while (*moved < len) {
		n = rd ? pread(fd, p + *moved, len - *moved, doff + *moved) :
			 pwrite(fd, p + *moved, len - *moved, doff + *moved);
		if (n <= 0)
			break;
		*moved += n;
	}
	if (n < 0)
		r = -errno;
	close(fd);
	return r;
}

/*
 * -A: an O_DIRECT read into the buffer in flight while the buffer goes.
 * Raw AIO system calls: no library for three of them.
 */
static int read_outliving_buf(struct gpupath_dev *dev, struct gpupath_buf *buf,
			      const char *path, uint64_t doff, uint64_t len)
{
	struct iocb cb = { 0 }, *cbs[1] = { &cb };
	struct io_event ev;
	aio_context_t ctx = 0;
	struct timespec ts = { 60, 0 };
	int fd;

	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || syscall(SYS_io_setup, 1, &ctx) < 0) {
		printf("error=%s\n", strerror(errno));
		return 3;
	}
	cb.aio_fildes = fd;
	cb.aio_lio_opcode = IOCB_CMD_PREAD;
	cb.aio_buf = (uintptr_t)gpupath_buf_addr(buf);
	cb.aio_nbytes = len;
	cb.aio_offset = doff;
	if (syscall(SYS_io_submit, ctx, 1, cbs) != 1) {
		printf("error=%s\n", strerror(errno));
		return 3;
	}
	gpupath_buf_free(buf);
	gpupath_dev_close(dev);
	printf("submitted\n");
	fflush(stdout);
	while (getchar() != EOF)
		;
	if (syscall(SYS_io_getevents, ctx, 1, 1, &ev, &ts) != 1) {
		printf("error=no completion\n");
		return 3;
	}
	printf("res=%lld\n", (long long)ev.res);
	syscall(SYS_io_destroy, ctx);
	close(fd);
	return ev.res == (long long)len ? 0 : 3;
}

/* The buffer's device memory was revoked: a clean failure, said so. */
static void revoked(int sig __attribute__((unused)))
{
	static const char msg[] = "error=device memory revoked (SIGBUS)\n";

	/* Only async-signal-safe calls: the line above went out already. */
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

int main(int argc, char **argv)
{
	enum gpupath_io_policy policy = GPUPATH_POLICY_AUTO;
	uint64_t boff = 0, doff, len, seed, i, batch = 0, zero = UINT64_MAX;
	struct gpupath_result res = { 0 };
	struct gpupath_dev *dev;
	struct gpupath_buf *buf;
	bool rd, hold = false, odirect = false, outlive = false, dio = false;
	void *host = NULL;
	uint8_t *p;
	int c, fd, r, ret;

	while ((c = getopt(argc, argv, "p:o:Hb:Z:zAD")) != -1) {
		if (c == 'D') {
			dio = true;
			continue;
		}
		if (c == 'A') {
			outlive = true;
			continue;
		}
		if (c == 'H') {
			hold = true;
			continue;
		}
		if (c == 'z') {
			zeros_too = true;
			continue;
		}
		if (c == 'b' && !parse_u64(optarg, &batch))
			continue;
		if (c == 'p' && !strcmp(optarg, "odirect")) {
			odirect = true;
			continue;
		}
		if (c == 'p' && !parse_policy(optarg, &policy))
			continue;
		if (c == 'o' && !parse_u64(optarg, &boff))
			continue;
		if (c == 'Z' && !parse_u64(optarg, &zero))
			continue;
		return usage();
	}
	if (argc - optind != 6 || parse_u64(argv[optind + 3], &doff) ||
	    parse_u64(argv[optind + 4], &len) || parse_u64(argv[optind + 5], &seed))
		return usage();
	rd = !strcmp(argv[optind], "read");
	if (!rd && strcmp(argv[optind], "write"))
		return usage();

	/* -D: opened O_DIRECT, as GDS programs open files (read-write, for whole blocks). */
	fd = open(argv[optind + 2], (rd ? O_RDONLY : (dio ? O_RDWR : O_WRONLY) | O_CREAT) |
		  (dio ? O_DIRECT : 0), 0644);
	if (fd < 0) {
		fprintf(stderr, "gp-io: %s: %s\n", argv[optind + 2], strerror(errno));
		return 3;
	}
	r = gpupath_dev_open(&dev);
	if (r == 0)
		r = get_buf(dev, argv[optind + 1], (boff + len + 4095) & ~4095ULL, &buf, &host);
	if (r == -EDQUOT) {
		char why[512];

		gpupath_alloc_explain(strtoul(argv[optind + 1], NULL, 0),
				      (boff + len + 4095) & ~4095ULL, r, why, sizeof(why));
		printf("mode=none reason=none error=%s (%s)\n", strerror(-r), why);
		return 3;
	}
	if (r < 0) {
		printf("mode=none reason=none error=%s\n", strerror(-r));
		return 3;
	}
	if (outlive) {
		if (!odirect || !rd)
			return usage();
		return read_outliving_buf(dev, buf, argv[optind + 2], doff, len);
	}
	signal(SIGBUS, revoked);
	p = (uint8_t *)gpupath_buf_addr(buf) + boff;
	if (!rd)
		for (i = 0; i < len; i++)
			p[i] = pattern_byte(seed, doff + i);
	if (odirect)
		r = odirect_io(rd, argv[optind + 2], p, doff, len, &res.len);
	else if (batch)
		r = batch_io(dev, buf, rd, fd, boff, doff, len, batch, policy, &res);
	else
		r = rd ? gpupath_read(buf, boff, fd, doff, len, policy, &res) :
			 gpupath_write(buf, boff, fd, doff, len, policy, &res);
	if (odirect)
		printf("mode=odirect reason=none");
	else
		printf("mode=%s reason=%s", gpupath_mode_name(res.mode),
		       gpupath_reason_name(res.reason));
	if (batch)
		printf(" ios=%" PRIu64, batch);
	if (!host) {
		uint32_t bar;
		uint64_t off;

		gpupath_buf_location(buf, &bar, &off);
		printf(" bar=%u bar_offset=%" PRIu64, bar, off + boff);
	}
	if (r == 0 && !batch && res.len != len)
		printf(" len=%" PRIu64, res.len);
	if (r < 0)
		printf(" error=%s", strerror(-r));
	printf("\n");
	fflush(stdout);
	if (!batch && r == 0)
		len = res.len;
	ret = r < 0 ? 3 : rd ? verify(p, len, seed, doff, zero) : 0;
	while (hold && getchar() != EOF)
		;
	gpupath_buf_free(buf);
	gpupath_dev_close(dev);
	close(fd);
	return ret;
}
