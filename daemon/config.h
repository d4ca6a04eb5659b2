/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpupath.conf, applied to the module: its QoS classes and portals made to
 * exist as written, those it named before and names no more deleted.
 */
#ifndef GPUPATHD_CONFIG_H
#define GPUPATHD_CONFIG_H

#include "private.h"

#define CONFIG_STATE	"/run/gpupath/config-objects"

/*
 * Apply @conf (parsed from @file, without mistakes) through @ctl; @state
 * keeps the names it gave between passes and restarts. On a refusal by the
 * module, what this pass changed is undone and a negative errno returned:
 * every message names the file and line.
 */
int config_apply(struct gpupath_ctl *ctl, const struct gpupath_conf *conf, const char *file,
		 const char *state);

#endif /* GPUPATHD_CONFIG_H */
