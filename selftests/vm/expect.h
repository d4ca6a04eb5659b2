/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks of the VM's C test programs: a call's outcome against the
 * errno wanted (0: success), one "pass" or "FAIL" line each.
 */
#ifndef GPUPATH_SELFTEST_EXPECT_H
#define GPUPATH_SELFTEST_EXPECT_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/gpupath.h>

static int failures;

/*
 * @ret is the call's return value, negative with errno set on failure. A
 * check of a condition passes 0 or -1 with @want 0: -1 fails it, whatever
 * errno holds.
 */
static void expect(const char *what, int ret, int want)
{
	int got = ret < 0 ? (ret == -1 && !errno ? -1 : errno) : 0;

	if (got == want) {
		printf("pass %s: %s\n", what, want ? strerror(want) : "ok");
		return;
	}
	printf("FAIL %s: got %s (%d), expected %s (%d)\n", what,
	       got > 0 ? strerror(got) : got ? "false" : "success", got,
	       want ? strerror(want) : "success", want);
	failures++;
}

/* /dev/gpupath, or exit 2 (not a failure of the checks: no module). */
static inline int dev_open_or_exit(const char *prog)
{
	int fd = open("/dev/" GPUPATH_DEVICE_NAME, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "%s: /dev/" GPUPATH_DEVICE_NAME ": %s\n", prog, strerror(errno));
		exit(2);
	}
	return fd;
}

#endif /* GPUPATH_SELFTEST_EXPECT_H */
