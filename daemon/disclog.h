/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records of a discovery log page, as they come from the network: each
 * value checked as the kernel's fabrics options must have it before it
 * goes near a connect.
 */
#ifndef GPUPATHD_DISCLOG_H
#define GPUPATHD_DISCLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libnvme.h>

#include "libgpupath-admin.h"

/* A subsystem to connect (from the portal itself, or its discovery log). */
struct target {
	char nqn[GPUPATH_NQN_LEN];
	char traddr[GPUPATH_ADDR_LEN];
	uint32_t trsvcid;
};

/*
 * Record @e into @t (zeroed first: targets are compared whole): a subsystem
 * NQN ("nqn.", printable ASCII, no ','), an IPv4 or IPv6 address and a port
 * from 1 to 65535, none cut short. False, with why in @why (its values
 * quoted as text): the record is to be left out. A ',' in a name or an
 * address would add options of its own to the connect.
 */
bool disc_record(const struct nvmf_disc_log_entry *e, struct target *t, char *why, size_t size);

#endif
