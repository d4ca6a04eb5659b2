/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A QoS class's data-centre bridging on one host interface: dcbnl's IEEE
 * 802.1Qaz (DSCP -> priority, PFC, ETS) and vendor RoCE ECN knobs, each
 * written, read back and reported.
 */
#ifndef GPUPATHD_DCB_H
#define GPUPATHD_DCB_H

#include <stdbool.h>

#include "libgpupath-admin.h"

struct ets_map;
struct ledger;
struct mark;

/*
 * Class @q on @ifname through dcbnl: the DSCP -> priority APP entry, PFC for
 * the priority, and its ETS share when it has one (gpupathd's part of the
 * ETS table, made from @classes, every class used on the interface, and
 * merged into the device's table). The APP entry, PFC bit and ETS table are
 * wanted in @l (recorded when written). Fills at most @room entries of @a
 * ("dcb-app-dscp", "pfc", "ets"); returns how many.
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
 * Take back a setting gpupathd made (an APP entry, a PFC bit, an ECN knob,
 * its part of an ETS table): 0, or a negative errno; -ESTALE: an ETS table
 * others changed since, left as it is (and logged).
 */
int dcb_undo(const struct mark *m);

/*
 * ETS tables, the part that needs no device (dcb_apply and dcb_undo use
 * them; unit-tested alone).
 *
 * ets_merge: gpupathd's part of the table for the classes with a share,
 * merged into @t, the table without it. Traffic classes whose algorithm
 * is not ETS (strict, credit-based, vendor) and those at or past @cap (the
 * device's ets_cap; 0: 8), with the priorities in them and their shares,
 * stay as they are. Each priority with a share gets an ETS traffic class
 * of its own with that share: the one it is in when no other priority
 * is, otherwise the lowest ETS traffic class no priority is in. The other
 * priorities stay where they are, and the ETS traffic classes not taken
 * share what is left, in proportion to what they had, so that the ETS
 * shares add up to 100%. @err[prio], for each priority with a share: 0
 * (placed: in @t->prio_tc[prio]), -EBUSY (its traffic class is not ETS:
 * left there) or -ENOSPC (no ETS traffic class to give it). Returns 0, or
 * -EINVAL (shares over 100%, one priority with two shares) with @t as it
 * was.
 */
int ets_merge(struct ets_map *t, unsigned int cap, const struct gpupath_qos *const *classes,
	      unsigned int n, int err[8]);

/*
 * The table without gpupathd's part, from what the ledger's mark @m holds
 * and the device's table @cur: what was there before gpupathd wrote, except
 * where @cur differs from what gpupathd wrote (someone else changed it
 * since: theirs stays).
 */
void ets_rebase(struct ets_map *base, const struct mark *m, const struct ets_map *cur);

/*
 * What dcb_apply writes on an interface whose table is @cur: the table
 * without gpupathd's part (*@base: ets_rebase of @l's mark, or @cur when
 * the ledger has none) and gpupathd's part merged into it (*@want:
 * ets_merge, whose @err and result it passes on).
 */
int ets_plan(const struct ledger *l, const char *ifname, const struct ets_map *cur,
	     unsigned int cap, const struct gpupath_qos *const *classes, unsigned int n,
	     struct ets_map *base, struct ets_map *want, int err[8]);

/*
 * What dcb_undo puts back for @m on an interface whose table is @cur:
 * 0 with *@back (@cur itself when nothing of gpupathd's is left), or
 * -ESTALE when others changed the table since and putting back the rest of
 * it would not make a valid table (@back as it is).
 */
int ets_restore(const struct mark *m, const struct ets_map *cur, struct ets_map *back);

/*
 * Whether @t is a table drivers take: priorities in traffic classes 0..7,
 * and the shares of the ETS traffic classes adding up to 100% (when there
 * is one).
 */
bool ets_valid(const struct ets_map *t);

#endif /* GPUPATHD_DCB_H */
