// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of gpupathd's scandir() fix for libnvme (daemon/libnvme-fix.c):
 * a failed scandir() leaves the list NULL (libnvme 1.3 frees it), a good
 * one lists, and the executable's functions are the ones every library,
 * libnvme included, is bound to.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include <libnvme.h>

#include "harness.h"

TEST(a_failed_scandir_leaves_no_list)
{
	struct dirent **list = (struct dirent **)&list;	/* not NULL: stack garbage */
	struct dirent64 **list64 = (struct dirent64 **)&list64;

	errno = 0;
	EXPECT_EQ(-1, scandir("/nonexistent/gpupath", &list, NULL, alphasort));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_TRUE(list == NULL);
	EXPECT_EQ(-1, scandir64("/nonexistent/gpupath", &list64, NULL, alphasort64));
	EXPECT_TRUE(list64 == NULL);
	free(list);	/* what libnvme 1.3 does next: nothing now */
}

TEST(a_good_scandir_lists)
{
	struct dirent **list = NULL;
	int n, i;

	n = scandir("/", &list, NULL, alphasort);
	ASSERT_TRUE(n > 2);
	ASSERT_TRUE(list != NULL);
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

TEST(libraries_are_bound_to_the_fix)
{
	/* libnvme itself is linked in: its calls resolve like this lookup */
	EXPECT_TRUE(nvme_scan != NULL);
	EXPECT_TRUE(dlsym(RTLD_DEFAULT, "scandir") == (void *)scandir);
	EXPECT_TRUE(dlsym(RTLD_DEFAULT, "scandir64") == (void *)scandir64);
	EXPECT_TRUE(dlsym(RTLD_NEXT, "scandir64") != (void *)scandir64);
}

TEST_HARNESS_MAIN
