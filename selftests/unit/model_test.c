// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libgpupath's netlink decoding and names: messages are built
 * here the way the kernel builds them, then decoded.
 */
#include <netlink/genl/genl.h>

#include "kselftest_harness.h"
#include "model.h"

#define FAMILY 0x42

static struct nl_msg *new_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 0, 0, FAMILY, 0, 0, cmd, GPUPATH_GENL_VERSION);
	return msg;
}

static void put_full_info(struct nl_msg *msg)
{
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_INFO);

	nla_put_string(msg, GPUPATH_A_INFO_VERSION, "1.2.3");
	nla_put_u32(msg, GPUPATH_A_INFO_GENL_VERSION, 1);
	nla_put_u64(msg, GPUPATH_A_INFO_FEATURES, GPUPATH_FEATURE_P2PDMA_BUILT |
		    GPUPATH_FEATURE_P2PDMA_USABLE);
	nla_put_u32(msg, GPUPATH_A_INFO_P2PDMA_STATUS, GPUPATH_P2PDMA_OK);
	nla_put_string(msg, GPUPATH_A_INFO_KERNEL, "6.1.0-test");
	nla_put_u32(msg, GPUPATH_A_INFO_IOCTL_VERSION, 1);
	/* A future attribute: must be ignored. */
	nla_put_u32(msg, GPUPATH_A_INFO_MAX + 5, 99);
	nla_nest_end(msg, nest);
}

TEST(event_with_full_info)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_GET_INFO);
	struct gpupath_event ev;

	put_full_info(msg);
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_EQ(GPUPATH_EVENT_NOTIFY, ev.type);
	EXPECT_EQ(GPUPATH_CMD_GET_INFO, ev.cmd);
	ASSERT_TRUE(ev.has_info);
	EXPECT_EQ(0x3f, ev.info.has);
	EXPECT_STREQ("1.2.3", ev.info.version);
	EXPECT_STREQ("6.1.0-test", ev.info.kernel);
	EXPECT_EQ(1, ev.info.genl_version);
	EXPECT_EQ(1, ev.info.ioctl_version);
	EXPECT_EQ(GPUPATH_FEATURE_P2PDMA_BUILT | GPUPATH_FEATURE_P2PDMA_USABLE,
		  ev.info.features);
	EXPECT_EQ(GPUPATH_P2PDMA_OK, ev.info.p2pdma_status);
	nlmsg_free(msg);
}

TEST(missing_attributes_are_marked_absent)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_GET_INFO);
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_INFO);
	struct gpupath_event ev;

	nla_put_u32(msg, GPUPATH_A_INFO_P2PDMA_STATUS, GPUPATH_P2PDMA_NOT_BUILT);
	nla_nest_end(msg, nest);
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_EQ(GPUPATH_INFO_HAS_P2PDMA_STATUS, ev.info.has);
	EXPECT_EQ(GPUPATH_P2PDMA_NOT_BUILT, ev.info.p2pdma_status);
	EXPECT_STREQ("", ev.info.version);
	nlmsg_free(msg);
}

TEST(long_strings_are_truncated)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_GET_INFO);
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_INFO);
	struct gpupath_event ev;
	char big[200];

	memset(big, 'v', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	nla_put_string(msg, GPUPATH_A_INFO_VERSION, big);
	nla_nest_end(msg, nest);
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_EQ(sizeof(ev.info.version) - 1, strlen(ev.info.version));
	nlmsg_free(msg);
}

TEST(short_integer_is_rejected)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_GET_INFO);
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_INFO);
	struct gpupath_event ev;
	uint16_t v = 1;

	nla_put(msg, GPUPATH_A_INFO_GENL_VERSION, sizeof(v), &v);
	nla_nest_end(msg, nest);
	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), &ev));
	nlmsg_free(msg);
}

TEST(event_without_objects)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_GET_INFO);
	struct gpupath_event ev;

	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_FALSE(ev.has_info);
	EXPECT_STREQ(GPUPATH_MCGRP_CONFIG, ev.group);
	nlmsg_free(msg);
}

TEST(truncated_header_is_rejected)
{
	struct nl_msg *msg = nlmsg_alloc_simple(FAMILY, 0);
	struct gpupath_event ev;

	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), &ev));
	nlmsg_free(msg);
}

TEST(names)
{
	uint64_t bit;
	int named = 0;

	EXPECT_STREQ("p2pdma-built", gpupath_feature_name(GPUPATH_FEATURE_P2PDMA_BUILT));
	EXPECT_STREQ("p2pdma-usable", gpupath_feature_name(GPUPATH_FEATURE_P2PDMA_USABLE));
	EXPECT_STREQ("nvidia-p2p", gpupath_feature_name(GPUPATH_FEATURE_NVIDIA_P2P));
	EXPECT_EQ(NULL, gpupath_feature_name(3));
	/* Every defined bit has a name, no undefined one has. */
	for (bit = 1; bit; bit <<= 1) {
		if (gpupath_feature_name(bit)) {
			EXPECT_TRUE(bit & GPUPATH_FEATURE_ALL);
			named++;
		}
	}
	EXPECT_EQ(__builtin_popcountll(GPUPATH_FEATURE_ALL), named);
	EXPECT_STREQ("ok", gpupath_p2pdma_status_name(GPUPATH_P2PDMA_OK));
	EXPECT_STREQ("not-built", gpupath_p2pdma_status_name(GPUPATH_P2PDMA_NOT_BUILT));
	EXPECT_STREQ("unknown", gpupath_p2pdma_status_name(GPUPATH_P2PDMA_MAX + 1));
	EXPECT_NE(NULL, strstr(gpupath_p2pdma_status_text(GPUPATH_P2PDMA_NOT_BUILT),
			       "CONFIG_PCI_P2PDMA"));
	EXPECT_STREQ("get-info", gpupath_cmd_name(GPUPATH_CMD_GET_INFO));
	EXPECT_STREQ("provider-del", gpupath_cmd_name(GPUPATH_CMD_PROVIDER_DEL));
	EXPECT_STREQ("no-p2p-route", gpupath_reason_name(GPUPATH_REASON_NO_P2P_ROUTE));
	EXPECT_STREQ("unknown", gpupath_reason_name(GPUPATH_REASON_MAX + 1));
	EXPECT_STREQ("bounce", gpupath_mode_name(GPUPATH_MODE_BOUNCE));
	EXPECT_STREQ("p2pdma", gpupath_provider_type_name(GPUPATH_PROVIDER_P2PDMA));
	/* Every reason has a name and an explanation. */
	for (bit = 0; bit <= GPUPATH_REASON_MAX; bit++) {
		EXPECT_STRNE("unknown", gpupath_reason_name(bit));
		EXPECT_EQ(NULL, strstr(gpupath_reason_text(bit), "unknown"));
	}
	EXPECT_EQ(NULL, gpupath_cmd_name(GPUPATH_CMD_UNSPEC));
	EXPECT_EQ(NULL, gpupath_cmd_name(GPUPATH_CMD_MAX + 1));
}

TEST(provider_with_peers_and_counters)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_PROVIDER_NEW);
	struct nlattr *prov, *peer, *stats, *ref;
	struct gpupath_event ev;
	int i;

	prov = nla_nest_start(msg, GPUPATH_A_PROVIDER);
	nla_put_u32(msg, GPUPATH_A_PROVIDER_ID, 7);
	nla_put_u32(msg, GPUPATH_A_PROVIDER_TYPE, GPUPATH_PROVIDER_P2PDMA);
	nla_put_string(msg, GPUPATH_A_PROVIDER_PCI_DEV, "0000:03:00.0");
	nla_put_u32(msg, GPUPATH_A_PROVIDER_BAR, 2);
	nla_put_u64(msg, GPUPATH_A_PROVIDER_SIZE, 1 << 26);
	for (i = 0; i < GPUPATH_PEERS_MAX + 3; i++) {
		peer = nla_nest_start(msg, GPUPATH_A_PROVIDER_PEER);
		nla_put_string(msg, GPUPATH_A_PEER_PCI_DEV, i ? "0000:05:00.0" : "0000:04:00.0");
		nla_put_u32(msg, GPUPATH_A_PEER_DISTANCE, 4 + i);
		nla_nest_end(msg, peer);
	}
	stats = nla_nest_start(msg, GPUPATH_A_PROVIDER_STATS);
	nla_put_u64(msg, GPUPATH_A_STATS_DIRECT_BYTES, 12345);
	ref = nla_nest_start(msg, GPUPATH_A_STATS_REFUSED);
	nla_put_u32(msg, GPUPATH_A_REFUSED_REASON, GPUPATH_REASON_CPU_COPY);
	nla_put_u64(msg, GPUPATH_A_REFUSED_IOS, 3);
	nla_put_u64(msg, GPUPATH_A_REFUSED_BYTES, 4096);
	nla_nest_end(msg, ref);
	ref = nla_nest_start(msg, GPUPATH_A_STATS_REFUSED);
	nla_put_u32(msg, GPUPATH_A_REFUSED_REASON, GPUPATH_REASONS_KNOWN + 1);
	nla_put_u64(msg, GPUPATH_A_REFUSED_IOS, 9);
	nla_nest_end(msg, ref);
	nla_nest_end(msg, stats);
	nla_nest_end(msg, prov);

	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	ASSERT_TRUE(ev.has_provider);
	EXPECT_EQ(7, ev.provider.id);
	EXPECT_EQ(2, ev.provider.bar);
	EXPECT_STREQ("0000:03:00.0", ev.provider.pci_dev);
	EXPECT_EQ(GPUPATH_PEERS_MAX, ev.provider.npeers);
	EXPECT_STREQ("0000:04:00.0", ev.provider.peers[0].pci_dev);
	EXPECT_EQ(4, ev.provider.peers[0].distance);
	EXPECT_EQ(12345, ev.provider.direct_bytes);
	EXPECT_EQ(3, ev.provider.refused_ios[GPUPATH_REASON_CPU_COPY]);
	EXPECT_EQ(4096, ev.provider.refused_bytes[GPUPATH_REASON_CPU_COPY]);
	EXPECT_EQ(0, ev.provider.refused_ios[GPUPATH_REASON_NO_P2P_ROUTE]);
	EXPECT_STREQ(GPUPATH_MCGRP_CONFIG, ev.group);
	nlmsg_free(msg);
}

TEST(provider_without_id_is_rejected)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_PROVIDER_NEW);
	struct nlattr *prov = nla_nest_start(msg, GPUPATH_A_PROVIDER);
	struct gpupath_event ev;

	nla_put_u32(msg, GPUPATH_A_PROVIDER_TYPE, GPUPATH_PROVIDER_P2PDMA);
	nla_nest_end(msg, prov);
	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), &ev));
	nlmsg_free(msg);
}

TEST(features_format)
{
	char buf[64];

	gpupath_features_format(0, buf, sizeof(buf));
	EXPECT_STREQ("none", buf);
	gpupath_features_format(GPUPATH_FEATURE_P2PDMA_BUILT | GPUPATH_FEATURE_NVIDIA_P2P,
				buf, sizeof(buf));
	EXPECT_STREQ("p2pdma-built nvidia-p2p", buf);
	gpupath_features_format(GPUPATH_FEATURE_P2PDMA_USABLE | 1ULL << 40, buf, sizeof(buf));
	EXPECT_STREQ("p2pdma-usable bit40", buf);
	gpupath_features_format(GPUPATH_FEATURE_ALL, buf, 10);
	EXPECT_STREQ("p2pdma-bu", buf);
}

TEST_HARNESS_MAIN
