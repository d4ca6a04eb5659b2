/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device-mapper tables, told to the module. The kernel keeps a dm table to
 * itself, so the module cannot see through a dm disk by itself: gpupathd
 * reads each dm disk's live table with libdevmapper and says what its
 * targets do with the data (GPUPATH_CMD_STACK_SET), at start, when the
 * module comes and at each add or change uevent of a dm disk (a table is
 * swapped on resume, which sends a change uevent), and at every periodic
 * pass, for uevents lost. The module keeps each word as long as the socket
 * that said it is open: gpupathd says it on a socket it keeps while the
 * module is loaded, so that its words go when it stops.
 */
#ifndef GPUPATHD_DMSTACK_H
#define GPUPATHD_DMSTACK_H

#include <linux/gpupath.h>

#include "libgpupath-admin.h"

/* libdevmapper's messages into gpupathd's log; once, at start. */
void dmstack_init(void);

/* What a target of type @type does with the data of a bio (raid: by level). */
enum gpupath_stack_kind dmstack_target_kind(const char *type);

/*
 * Read dm disk @name's (dm-N) table and tell the module. 0, or a negative
 * errno (logged): -ENOENT where the disk has gone meanwhile.
 */
int dmstack_tell(struct gpupath_ctl *ctl, const char *name);

/* Every dm disk in /sys/block. */
void dmstack_tell_all(struct gpupath_ctl *ctl);

#endif /* GPUPATHD_DMSTACK_H */
