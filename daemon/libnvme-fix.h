/* SPDX-License-Identifier: GPL-2.0 */
/* libnvme-fix.c: gpupathd's scandir() for libnvme's scans. */
#ifndef GPUPATHD_LIBNVME_FIX_H
#define GPUPATHD_LIBNVME_FIX_H

#include <stdbool.h>

/* Whether this thread's next scans leave namespaces out. */
void libnvme_scan_ctrls_only(bool on);
/* Whether @name is a namespace's ("nvme0n1") or a path's ("nvme0c1n2"). */
bool libnvme_is_namespace(const char *name);

#endif /* GPUPATHD_LIBNVME_FIX_H */
