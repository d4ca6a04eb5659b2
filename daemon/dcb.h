/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A QoS class's data-centre bridging on one host interface: dcbnl's IEEE
 * 802.1Qaz (DSCP -> priority, PFC, ETS) and vendor RoCE ECN knobs, each
 * written, read back and reported.
 */
#ifndef GPUPATHD_DCB_H
#define GPUPATHD_DCB_H

#include "libgpupath-admin.h"

struct ledger;
struct mark;

/*
 * Class @q on @ifname through dcbnl: the DSCP -> priority APP entry, PFC for
 * the priority, and its ETS share when it has one (the ETS table made from
 * @classes, every class used on the interface). The APP entry and PFC bit
 * are wanted in @l (recorded when written). Fills at most @room entries of
 * @a ("dcb-app-dscp", "pfc", "ets"); returns how many.
 */
unsigned int dcb_apply(const char *ifname, const struct gpupath_qos *q,
		       const struct gpupath_qos *const *classes, unsigned int nclasses,
		       struct ledger *l, struct gpupath_qos_applied *a, unsigned int room);

/*
 * RoCE ECN for @priority on @ifname, where the driver has the knobs in
 * sysfs (ecn/roce_np, ecn/roce_rp); "ecn" unsupported otherwise.
 */
unsigned int ecn_apply(const char *ifname, uint32_t priority, struct ledger *l,
		       struct gpupath_qos_applied *a, unsigned int room);

/*
 * Take back a setting gpupathd made (an APP entry, a PFC bit, an ECN knob):
 * 0, or a negative errno.
 */
int dcb_undo(const struct mark *m);

#endif /* GPUPATHD_DCB_H */
