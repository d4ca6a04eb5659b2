/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Asymmetric namespace access: each path's ANA state, read from its
 * controller's ANA log page and given to the module, whose policies then
 * use optimized paths first, non-optimized ones only when no optimized
 * path is usable, and never inaccessible or persistent-loss ones.
 *
 * The host's NVMe driver reads the ANA log page only for its own multipath
 * (nvme_core.multipath=Y) and sends no uevent for an ANA change otherwise:
 * gpupathd polls the controllers that report ANA, every ANA_POLL_MS, from
 * a thread of its own.
 */
#ifndef GPUPATHD_ANA_H
#define GPUPATHD_ANA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libgpupath-admin.h"

#define ANA_POLL_MS	500

struct ana;

/* The poller and its thread (0, or a negative errno); ana_free() stops it. */
int ana_new(struct ana **a);
void ana_free(struct ana *a);

/*
 * A poll now, in the poller's thread: every path of every volume whose
 * controller reports ANA gets its namespace's ANA state, group and
 * transition time, when they changed (paths whose link is down are left
 * as they are). Polls follow every ANA_POLL_MS while a path's controller
 * reports ANA.
 */
void ana_kick(struct ana *a);

/* The enum gpupath_ana_state of an NVMe ANA state (NVME_ANA_*). */
uint32_t ana_state_of(uint8_t nvme_state);

struct nvme_ana_log;
/*
 * The group and NVMe state of namespace @nsid in ANA log page @log of @len
 * bytes (as read with the namespaces listed); false when it does not list
 * it, or is cut short.
 */
bool ana_log_find(const struct nvme_ana_log *log, size_t len, uint32_t nsid, uint32_t *grp,
		  uint8_t *state);

#endif /* GPUPATHD_ANA_H */
