// SPDX-License-Identifier: GPL-2.0
/*
 * gp-pattern: write and check position-dependent test patterns in files,
 * block devices and PCI BARs (sysfs resourceN files, which only mmap).
 *
 *   gp-pattern gen LEN SEED                 pattern bytes to stdout
 *   gp-pattern fill PATH OFFSET LEN SEED    write the pattern at OFFSET
 *   gp-pattern check PATH OFFSET LEN SEED [POS]
 *                                           compare; exit 1 on a mismatch
 *
 * Byte i of a pattern depends on SEED and on its position POS + i (POS is
 * OFFSET unless given), so data that lands at the wrong place does not
 * match. POS lets a check find, at OFFSET of a BAR, data whose pattern was
 * laid down at POS of a block device. PATH is mapped with mmap(), which works
 * for regular files, BAR resource files and block devices alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pattern.h"

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || !*s || *end) {
		fprintf(stderr, "gp-pattern: '%s' is not a number\n", s);
		return -1;
	}
	return 0;
}

static int gen(uint64_t len, uint64_t seed)
{
	uint8_t buf[65536];
	uint64_t pos = 0;

	while (pos < len) {
		size_t n = len - pos < sizeof(buf) ? len - pos : sizeof(buf);
		size_t i;

		for (i = 0; i < n; i++)
			buf[i] = pattern_byte(seed, pos + i);
		if (fwrite(buf, 1, n, stdout) != n)
			return 1;
		pos += n;
	}
	return fflush(stdout) ? 1 : 0;
}

static int map_run(const char *path, uint64_t off, uint64_t len, uint64_t seed,
		   uint64_t pos, int fill)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t base = off & ~(uint64_t)(page - 1), i;
	volatile uint8_t *p;
	void *map;
	int fd;

	fd = open(path, fill ? O_RDWR | O_SYNC : O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "gp-pattern: %s: %s\n", path, strerror(errno));
		return 2;
	}
	map = mmap(NULL, len + off - base, fill ? PROT_READ | PROT_WRITE : PROT_READ,
		   MAP_SHARED, fd, base);
	close(fd);
	if (map == MAP_FAILED) {
		fprintf(stderr, "gp-pattern: mmap %s: %s\n", path, strerror(errno));
		return 2;
	}
	p = (volatile uint8_t *)map + (off - base);
	for (i = 0; i < len; i++) {
		uint8_t want = pattern_byte(seed, pos + i);

		if (fill) {
			p[i] = want;
		} else if (p[i] != want) {
			fprintf(stderr, "gp-pattern: %s: mismatch at offset %" PRIu64
				": 0x%02x, expected 0x%02x\n", path, off + i, p[i], want);
			munmap(map, len + off - base);
			return 1;
		}
	}
	if (fill)
		msync(map, len + off - base, MS_SYNC);
	munmap(map, len + off - base);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t off, len, seed, pos = 0;

	if (argc == 4 && !strcmp(argv[1], "gen")) {
		if (parse_u64(argv[2], &len) || parse_u64(argv[3], &seed))
			return 2;
		return gen(len, seed);
	}
	if ((argc == 6 || argc == 7) && (!strcmp(argv[1], "fill") || !strcmp(argv[1], "check"))) {
		if (parse_u64(argv[3], &off) || parse_u64(argv[4], &len) ||
		    parse_u64(argv[5], &seed) || (argc == 7 && parse_u64(argv[6], &pos)))
			return 2;
		if (!len) {
			fprintf(stderr, "gp-pattern: length must be positive\n");
			return 2;
		}
		return map_run(argv[2], off, len, seed, argc == 7 ? pos : off,
			       !strcmp(argv[1], "fill"));
	}
	fprintf(stderr, "usage: gp-pattern gen LEN SEED\n"
		"       gp-pattern fill|check PATH OFFSET LEN SEED [POS]\n");
	return 2;
}
