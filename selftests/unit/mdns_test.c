// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of gpupathd's reading of TP8009 mDNS records: a discovery
 * controller's TXT record gives its transport; a record of another
 * service, or of no known transport, is refused with its reason.
 */
#include <errno.h>

#include "harness.h"
#include "../../daemon/mdns.h"
#include "../../uapi/linux/gpupath_nl.h"

#define DISC "nqn=nqn.2014-08.org.nvmexpress.discovery"

static int check(const char *const *txt, size_t n, uint32_t *tr, char *why)
{
	why[0] = 0;
	return mdns_txt_check(txt, n, tr, why, 128);
}

TEST(a_discovery_controller_gives_its_transport)
{
	const char *tcp[] = { "p=tcp", DISC };
	const char *roce[] = { DISC, "P=RoCE", "other=1" };
	uint32_t tr = 0;
	char why[128];

	EXPECT_EQ(0, check(tcp, 2, &tr, why));
	EXPECT_EQ(GPUPATH_TRANSPORT_TCP, tr);
	EXPECT_EQ(0, check(roce, 3, &tr, why));
	EXPECT_EQ(GPUPATH_TRANSPORT_RDMA, tr);
}

TEST(other_services_are_refused_with_their_reason)
{
	const char *io[] = { "nqn=nqn.2026-11.io.gpupath:selftest", "p=tcp" };
	const char *none[] = { "p=tcp" };
	const char *fc[] = { DISC, "p=fc" };
	const char *nop[] = { DISC };
	uint32_t tr = 0;
	char why[128];

	EXPECT_EQ(-EINVAL, check(io, 2, &tr, why));
	EXPECT_STREQ("not a discovery controller (nqn=nqn.2026-11.io.gpupath:selftest)", why);
	EXPECT_EQ(-EINVAL, check(none, 1, &tr, why));
	EXPECT_STREQ("not a discovery controller (nqn=none)", why);
	EXPECT_EQ(-EINVAL, check(fc, 2, &tr, why));
	EXPECT_STREQ("unknown transport (p=fc; tcp or roce)", why);
	EXPECT_EQ(-EINVAL, check(nop, 1, &tr, why));
	EXPECT_STREQ("unknown transport (p=none; tcp or roce)", why);
	EXPECT_EQ(-EINVAL, check(NULL, 0, &tr, why));
}

TEST_HARNESS_MAIN
