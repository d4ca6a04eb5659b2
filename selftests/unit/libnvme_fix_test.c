// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of gpupathd's scandir() fix for libnvme (daemon/libnvme-fix.c):
 * a failed scandir() leaves the list NULL (libnvme 1.3 frees it), a good
 * one lists, a controllers-only scan leaves namespaces out, and the
 * executable's functions are the ones every library, libnvme included, is
 * bound to.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libnvme.h>

#include "../../daemon/libnvme-fix.h"
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

TEST(namespace_names)
{
	EXPECT_TRUE(libnvme_is_namespace("nvme0n1"));
	EXPECT_TRUE(libnvme_is_namespace("nvme12n345"));
	EXPECT_TRUE(libnvme_is_namespace("nvme0c1n2"));
	EXPECT_FALSE(libnvme_is_namespace("nvme0"));
	EXPECT_FALSE(libnvme_is_namespace("nvme-subsys0"));
	EXPECT_FALSE(libnvme_is_namespace("ng0n1"));
	EXPECT_FALSE(libnvme_is_namespace("nvme0n"));
	EXPECT_FALSE(libnvme_is_namespace("nvme0n1p1"));
	EXPECT_FALSE(libnvme_is_namespace("nvmen1"));
	EXPECT_FALSE(libnvme_is_namespace("nvme0c"));
	EXPECT_FALSE(libnvme_is_namespace("nvme0cn1"));
	EXPECT_FALSE(libnvme_is_namespace(""));
}

/* A controllers-only scan lists a controller's directory without namespaces. */
TEST(a_ctrls_only_scan_leaves_namespaces_out)
{
	static const char *const names[] = {
		"nvme0", "nvme0n1", "nvme0c0n2", "ng0n1", "nvme-subsys0", "state",
	};
	char dir[] = "/tmp/gpupath-scan.XXXXXX", path[64];
	struct dirent **list;
	int n, i, seen = 0;

	ASSERT_TRUE(mkdtemp(dir) != NULL);
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ASSERT_EQ(0, mkdir(path, 0700));
	}
	libnvme_scan_ctrls_only(true);
	n = scandir(dir, &list, NULL, alphasort);
	libnvme_scan_ctrls_only(false);
	ASSERT_EQ(6, n);	/* . and .. and the four that are no namespace */
	for (i = 0; i < n; i++) {
		seen |= libnvme_is_namespace(list[i]->d_name);
		free(list[i]);
	}
	free(list);
	EXPECT_EQ(0, seen);
	n = scandir(dir, &list, NULL, alphasort);
	EXPECT_EQ(8, n);	/* once off, everything */
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		rmdir(path);
	}
	rmdir(dir);
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
