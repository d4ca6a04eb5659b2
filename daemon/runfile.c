// SPDX-License-Identifier: GPL-2.0
/* gpupathd's state files under /run (see runfile.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "runfile.h"

FILE *runfile_open(const char *path, char *tmp, size_t size)
{
	char dir[512], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return NULL;
	}
	snprintf(tmp, size, "%s.new", path);
	return fopen(tmp, "we");
}

int runfile_commit(FILE *f, const char *tmp, const char *path)
{
	if (fclose(f) || rename(tmp, path) < 0) {
		int r = -errno;

		remove(tmp);
		return r;
	}
	return 0;
}
