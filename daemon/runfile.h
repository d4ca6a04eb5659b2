/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpupathd's state files under /run: written whole to PATH.new, then
 * renamed over PATH, so that a reader (or a daemon killed mid-write) sees
 * the old file or the new one.
 */
#ifndef GPUPATHD_RUNFILE_H
#define GPUPATHD_RUNFILE_H

#include <stdio.h>

/*
 * Open @path's temporary file for writing (its directory made if need be),
 * its name into @tmp; NULL with errno set on failure.
 */
FILE *runfile_open(const char *path, char *tmp, size_t size);

/* Close @f and rename @tmp over @path: 0, or a negative errno. */
int runfile_commit(FILE *f, const char *tmp, const char *path);

#endif /* GPUPATHD_RUNFILE_H */
