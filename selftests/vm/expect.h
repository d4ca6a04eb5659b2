/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks of the VM's C test programs: a call's outcome against the
 * errno wanted (0: success), one "pass" or "FAIL" line each.
 */
#ifndef GPUPATH_SELFTEST_EXPECT_H
#define GPUPATH_SELFTEST_EXPECT_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int failures;

/* @ret is the call's return value, negative with errno set on failure. */
static void expect(const char *what, int ret, int want)
{
	int got = ret < 0 ? errno : 0;

	if (got == want) {
		printf("pass %s: %s\n", what, want ? strerror(want) : "ok");
		return;
	}
	printf("FAIL %s: got %s (%d), expected %s (%d)\n", what, got ? strerror(got) : "success",
	       got, want ? strerror(want) : "success", want);
	failures++;
}

#endif /* GPUPATH_SELFTEST_EXPECT_H */
