// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libgpupath's netlink decoding and names: messages are built
 * here the way the kernel builds them, then decoded.
 */
#include <errno.h>
#include <netlink/genl/genl.h>

#include "harness.h"
#include "model.h"

#define FAMILY 0x42

static struct nl_msg *new_msg_size(uint8_t cmd, size_t size)
{
	struct nl_msg *msg = nlmsg_alloc_size(size);

	genlmsg_put(msg, 0, 0, FAMILY, 0, 0, cmd, GPUPATH_GENL_VERSION);
	return msg;
}

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
	struct gpupath_model_event ev;

	put_full_info(msg);
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_EQ(GPUPATH_EVENT_NOTIFY, ev.ev.type);
	EXPECT_EQ(GPUPATH_CMD_GET_INFO, ev.ev.cmd);
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
	struct gpupath_model_event ev;

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
	struct gpupath_model_event ev;
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
	struct gpupath_model_event ev;
	uint16_t v = 1;

	nla_put(msg, GPUPATH_A_INFO_GENL_VERSION, sizeof(v), &v);
	nla_nest_end(msg, nest);
	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), &ev));
	nlmsg_free(msg);
}

TEST(event_without_objects)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_GET_INFO);
	struct gpupath_model_event ev;

	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_FALSE(ev.has_info);
	EXPECT_STREQ(GPUPATH_MCGRP_CONFIG, ev.ev.group);
	nlmsg_free(msg);
}

TEST(truncated_header_is_rejected)
{
	struct nl_msg *msg = nlmsg_alloc_simple(FAMILY, 0);
	struct gpupath_model_event ev;

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
	struct gpupath_model_event ev;
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
	EXPECT_STREQ(GPUPATH_MCGRP_CONFIG, ev.ev.group);
	nlmsg_free(msg);
}

/*
 * An object is copied out at the size of the caller's structure: nothing
 * past it is written (an older, shorter one), and what the library does not
 * have is zero (a newer, longer one).
 */
TEST(objects_copied_out_at_the_callers_size)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_PROVIDER_NEW);
	size_t small = offsetof(struct gpupath_provider, size), big = sizeof(struct gpupath_provider);
	struct gpupath_model_event ev;
	struct gpupath_provider *p;
	struct gpupath_info info;
	struct nlattr *prov;
	unsigned char *buf;
	size_t i;

	prov = nla_nest_start(msg, GPUPATH_A_PROVIDER);
	nla_put_u32(msg, GPUPATH_A_PROVIDER_ID, 7);
	nla_put_string(msg, GPUPATH_A_PROVIDER_PCI_DEV, "0000:03:00.0");
	nla_put_u64(msg, GPUPATH_A_PROVIDER_SIZE, 1 << 26);
	nla_nest_end(msg, prov);
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	buf = malloc(big + 64);
	ASSERT_NE(NULL, buf);
	p = (struct gpupath_provider *)buf;

	memset(buf, 0xa5, big + 64);
	ASSERT_EQ(0, gpupath_mon_event_provider(&ev.ev, p, small));
	EXPECT_EQ(7, p->id);
	EXPECT_STREQ("0000:03:00.0", p->pci_dev);
	for (i = small; i < big + 64 && buf[i] == 0xa5; i++)
		;
	EXPECT_EQ(big + 64, i);

	memset(buf, 0xa5, big + 64);
	ASSERT_EQ(0, gpupath_mon_event_provider(&ev.ev, p, big + 64));
	EXPECT_EQ(1 << 26, p->size);
	EXPECT_EQ(-1, p->bar);
	for (i = big; i < big + 64 && !buf[i]; i++)
		;
	EXPECT_EQ(big + 64, i);

	EXPECT_EQ(-ENOENT, gpupath_mon_event_info(&ev.ev, &info, sizeof(info)));
	free(buf);
	nlmsg_free(msg);
}

/* Every counter at once: arrays at the caller's size, the library's own when they agree. */
TEST(stats_arrays_at_the_callers_size)
{
	struct gpupath_stats *s = calloc(1, sizeof(*s));
	size_t small = offsetof(struct gpupath_qos, napplied), n;
	const struct gpupath_volume *vol;
	const struct gpupath_qos *q;
	int i;

	ASSERT_NE(NULL, s);
	s->qos = calloc(3, sizeof(*s->qos));
	ASSERT_NE(NULL, s->qos);
	s->nqos = 3;
	for (i = 0; i < 3; i++) {
		snprintf(s->qos[i].name, sizeof(s->qos[i].name), "class%d", i);
		s->qos[i].dscp = 10 + i;
		s->qos[i].napplied = 1;
	}
	ASSERT_EQ(0, gpupath_stats_qos(s, &q, small, &n));
	ASSERT_EQ(3, n);
	q = (const struct gpupath_qos *)((const char *)q + 2 * small);
	EXPECT_STREQ("class2", q->name);
	EXPECT_EQ(12, q->dscp);
	ASSERT_EQ(0, gpupath_stats_qos(s, &q, sizeof(*q), &n));
	EXPECT_EQ(s->qos, q);
	ASSERT_EQ(0, gpupath_stats_volumes(s, &vol, sizeof(*vol), &n));
	EXPECT_EQ(0, n);
	gpupath_stats_free(s);
}

TEST(provider_without_id_is_rejected)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_PROVIDER_NEW);
	struct nlattr *prov = nla_nest_start(msg, GPUPATH_A_PROVIDER);
	struct gpupath_model_event ev;

	nla_put_u32(msg, GPUPATH_A_PROVIDER_TYPE, GPUPATH_PROVIDER_P2PDMA);
	nla_nest_end(msg, prov);
	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), &ev));
	nlmsg_free(msg);
}

static void put_path(struct nl_msg *msg, int type, uint32_t id, const char *device)
{
	struct nlattr *path = nla_nest_start(msg, type), *st;

	nla_put_u32(msg, GPUPATH_A_PATH_ID, id);
	nla_put_u32(msg, GPUPATH_A_PATH_VOLUME, 1);
	nla_put_string(msg, GPUPATH_A_PATH_DEVICE, device);
	nla_put_u32(msg, GPUPATH_A_PATH_STATE, GPUPATH_PATH_DRAINING);
	nla_put_u32(msg, GPUPATH_A_PATH_HEALTH, GPUPATH_HEALTH_FAILED);
	nla_put_u32(msg, GPUPATH_A_PATH_WEIGHT, GPUPATH_WEIGHT_MAX);
	nla_put_u32(msg, GPUPATH_A_PATH_RAIL, 2);
	nla_put_string(msg, GPUPATH_A_PATH_TRANSPORT, "rdma");
	nla_put_string(msg, GPUPATH_A_PATH_CONTROLLER, "nvme1");
	nla_put_string(msg, GPUPATH_A_PATH_DMA_DEV, "0000:05:00.0");
	nla_put_u32(msg, GPUPATH_A_PATH_REASON, GPUPATH_REASON_VIRTUAL_DMA);
	st = nla_nest_start(msg, GPUPATH_A_PATH_STATS);
	nla_put_u64(msg, GPUPATH_A_PSTATS_IOS, 10);
	nla_put_u64(msg, GPUPATH_A_PSTATS_BYTES, 40960);
	nla_put_u64(msg, GPUPATH_A_PSTATS_ERRORS, 1);
	nla_put_u64(msg, GPUPATH_A_PSTATS_DIRECT_IOS, 9);
	nla_put_u64(msg, GPUPATH_A_PSTATS_INFLIGHT, 2);
	nla_put_u64(msg, GPUPATH_A_PSTATS_LATENCY_NS, 12345);
	nla_put_u64(msg, GPUPATH_A_PSTATS_MAX + 3, 7);	/* future: ignored */
	nla_nest_end(msg, st);
	nla_nest_end(msg, path);
}

static struct nlattr *start_volume(struct nl_msg *msg)
{
	struct nlattr *vol = nla_nest_start(msg, GPUPATH_A_VOLUME);

	nla_put_u32(msg, GPUPATH_A_VOLUME_ID, 1);
	nla_put_string(msg, GPUPATH_A_VOLUME_NAME, "gpupath0");
	return vol;
}

TEST(volume_with_paths_and_counters)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_VOLUME_NEW);
	struct nlattr *vol = start_volume(msg), *st;
	const struct gpupath_path *p;
	struct gpupath_model_event ev;

	nla_put_string(msg, GPUPATH_A_VOLUME_WWID, "eui.0011223344556677");
	nla_put_u32(msg, GPUPATH_A_VOLUME_POLICY, GPUPATH_POLICY_GPU_AFFINITY);
	nla_put_u32(msg, GPUPATH_A_VOLUME_FALLBACK, GPUPATH_POLICY_QUEUE_DEPTH);
	nla_put_u32(msg, GPUPATH_A_VOLUME_QUEUE_TIMEOUT, GPUPATH_QUEUE_FOREVER);
	nla_put_u64(msg, GPUPATH_A_VOLUME_SIZE, 1ULL << 40);
	nla_put_u32(msg, GPUPATH_A_VOLUME_BLOCK_SIZE, 4096);
	nla_put_u32(msg, GPUPATH_A_VOLUME_MODE, GPUPATH_VOLUME_NATIVE);
	nla_put_u32(msg, GPUPATH_A_VOLUME_OPEN, 3);
	nla_put_u32(msg, GPUPATH_A_VOLUME_PATHS, 2);
	nla_put_u32(msg, GPUPATH_A_VOLUME_USABLE, 1);
	put_path(msg, GPUPATH_A_VOLUME_PATH, 5, "nvme1n1");
	st = nla_nest_start(msg, GPUPATH_A_VOLUME_STATS);
	nla_put_u64(msg, GPUPATH_A_VSTATS_IOS, 100);
	nla_put_u64(msg, GPUPATH_A_VSTATS_BYTES, 409600);
	nla_put_u64(msg, GPUPATH_A_VSTATS_ERRORS, 1);
	nla_put_u64(msg, GPUPATH_A_VSTATS_RETRIES, 2);
	nla_put_u64(msg, GPUPATH_A_VSTATS_QUEUED, 3);
	nla_put_u64(msg, GPUPATH_A_VSTATS_REFUSED, 4);
	nla_put_u64(msg, GPUPATH_A_VSTATS_FAILOVERS, 5);
	nla_put_u64(msg, GPUPATH_A_VSTATS_FAILOVER_LAST_NS, 6000000);
	nla_put_u64(msg, GPUPATH_A_VSTATS_FAILOVER_MAX_NS, 7000000);
	nla_put_u64(msg, GPUPATH_A_VSTATS_INFLIGHT, 8);
	nla_nest_end(msg, st);
	put_path(msg, GPUPATH_A_VOLUME_PATH, 6, "nvme2n1");
	nla_put_u32(msg, GPUPATH_A_VOLUME_MAX + 4, 1);	/* future: ignored */
	nla_nest_end(msg, vol);

	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_STREQ(GPUPATH_MCGRP_CONFIG, ev.ev.group);
	EXPECT_FALSE(ev.has_path);
	ASSERT_TRUE(ev.has_volume);
	EXPECT_EQ(1, ev.volume.id);
	EXPECT_STREQ("gpupath0", ev.volume.name);
	EXPECT_STREQ("eui.0011223344556677", ev.volume.wwid);
	EXPECT_EQ(GPUPATH_POLICY_GPU_AFFINITY, ev.volume.policy);
	EXPECT_EQ(GPUPATH_POLICY_QUEUE_DEPTH, ev.volume.fallback);
	EXPECT_EQ(GPUPATH_QUEUE_FOREVER, ev.volume.queue_timeout);
	EXPECT_EQ(1ULL << 40, ev.volume.size);
	EXPECT_EQ(4096, ev.volume.block_size);
	EXPECT_EQ(GPUPATH_VOLUME_NATIVE, ev.volume.mode);
	EXPECT_EQ(3, ev.volume.open);
	EXPECT_EQ(2, ev.volume.paths);
	EXPECT_EQ(1, ev.volume.usable);
	EXPECT_EQ(100, ev.volume.stats.ios);
	EXPECT_EQ(409600, ev.volume.stats.bytes);
	EXPECT_EQ(1, ev.volume.stats.errors);
	EXPECT_EQ(2, ev.volume.stats.retries);
	EXPECT_EQ(3, ev.volume.stats.queued);
	EXPECT_EQ(4, ev.volume.stats.refused);
	EXPECT_EQ(5, ev.volume.stats.failovers);
	EXPECT_EQ(6000000, ev.volume.stats.failover_last_ns);
	EXPECT_EQ(7000000, ev.volume.stats.failover_max_ns);
	EXPECT_EQ(8, ev.volume.stats.inflight);
	ASSERT_EQ(2, ev.volume.npaths);
	p = &ev.volume.path[0];
	EXPECT_EQ(5, p->id);
	EXPECT_EQ(1, p->volume);
	EXPECT_STREQ("nvme1n1", p->device);
	EXPECT_EQ(GPUPATH_PATH_DRAINING, p->state);
	EXPECT_EQ(GPUPATH_HEALTH_FAILED, p->health);
	EXPECT_EQ(GPUPATH_WEIGHT_MAX, p->weight);
	EXPECT_EQ(2, p->rail);
	EXPECT_STREQ("rdma", p->transport);
	EXPECT_STREQ("nvme1", p->controller);
	EXPECT_STREQ("0000:05:00.0", p->dma_dev);
	EXPECT_EQ(GPUPATH_REASON_VIRTUAL_DMA, p->reason);
	EXPECT_EQ(10, p->stats.ios);
	EXPECT_EQ(40960, p->stats.bytes);
	EXPECT_EQ(1, p->stats.errors);
	EXPECT_EQ(9, p->stats.direct_ios);
	EXPECT_EQ(2, p->stats.inflight);
	EXPECT_EQ(12345, p->stats.latency_ns);
	EXPECT_EQ(6, ev.volume.path[1].id);
	EXPECT_STREQ("nvme2n1", ev.volume.path[1].device);
	nlmsg_free(msg);
}

TEST(volume_keeps_at_most_paths_max_paths)
{
	struct nl_msg *msg = nlmsg_alloc_size(1 << 16);
	struct nlattr *vol;
	struct gpupath_model_event ev;
	int i;

	genlmsg_put(msg, 0, 0, FAMILY, 0, 0, GPUPATH_CMD_VOLUME_GET, GPUPATH_GENL_VERSION);
	vol = start_volume(msg);
	nla_put_u32(msg, GPUPATH_A_VOLUME_PATHS, GPUPATH_VOLUME_PATHS_MAX + 2);
	for (i = 0; i < GPUPATH_VOLUME_PATHS_MAX + 2; i++)
		put_path(msg, GPUPATH_A_VOLUME_PATH, 10 + i, "nvme1n1");
	nla_nest_end(msg, vol);
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_EQ(GPUPATH_VOLUME_PATHS_MAX, ev.volume.npaths);
	EXPECT_EQ(GPUPATH_VOLUME_PATHS_MAX + 2, ev.volume.paths);
	EXPECT_EQ(10 + GPUPATH_VOLUME_PATHS_MAX - 1, ev.volume.path[GPUPATH_VOLUME_PATHS_MAX - 1].id);
	nlmsg_free(msg);
}

TEST(volume_without_paths_or_counters)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_VOLUME_DEL);
	struct nlattr *vol = start_volume(msg);
	struct gpupath_model_event ev;

	nla_nest_end(msg, vol);
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	ASSERT_TRUE(ev.has_volume);
	EXPECT_EQ(GPUPATH_CMD_VOLUME_DEL, ev.ev.cmd);
	EXPECT_EQ(0, ev.volume.npaths);
	EXPECT_EQ(0, ev.volume.stats.ios);
	EXPECT_STREQ("", ev.volume.wwid);
	nlmsg_free(msg);
}

TEST(path_notification)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_PATH_NEW);
	struct gpupath_model_event ev;

	put_path(msg, GPUPATH_A_PATH, 9, "nvme3n1");
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_STREQ(GPUPATH_MCGRP_CONFIG, ev.ev.group);
	EXPECT_FALSE(ev.has_volume);
	ASSERT_TRUE(ev.has_path);
	EXPECT_EQ(9, ev.path.id);
	EXPECT_STREQ("nvme3n1", ev.path.device);
	EXPECT_EQ(12345, ev.path.stats.latency_ns);
	nlmsg_free(msg);
}

TEST(objects_without_id_are_rejected)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_PATH_NEW);
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_PATH), *path;
	struct gpupath_model_event ev;

	nla_put_string(msg, GPUPATH_A_PATH_DEVICE, "nvme1n1");
	nla_nest_end(msg, nest);
	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), &ev));
	nlmsg_free(msg);

	msg = new_msg(GPUPATH_CMD_VOLUME_NEW);
	nest = nla_nest_start(msg, GPUPATH_A_VOLUME);
	nla_put_string(msg, GPUPATH_A_VOLUME_NAME, "gpupath0");
	nla_nest_end(msg, nest);
	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), &ev));
	nlmsg_free(msg);

	/* A path of a volume without its id spoils the volume. */
	msg = new_msg(GPUPATH_CMD_VOLUME_NEW);
	nest = start_volume(msg);
	path = nla_nest_start(msg, GPUPATH_A_VOLUME_PATH);
	nla_put_string(msg, GPUPATH_A_PATH_DEVICE, "nvme1n1");
	nla_nest_end(msg, path);
	nla_nest_end(msg, nest);
	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), &ev));
	nlmsg_free(msg);
}

TEST(short_counter_is_rejected)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_VOLUME_GET);
	struct nlattr *vol = start_volume(msg);
	struct nlattr *st = nla_nest_start(msg, GPUPATH_A_VOLUME_STATS);
	struct gpupath_model_event ev;

	nla_put_u32(msg, GPUPATH_A_VSTATS_IOS, 1);
	nla_nest_end(msg, st);
	nla_nest_end(msg, vol);
	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_FALSE(ev.has_volume);
	nlmsg_free(msg);
}

TEST(volume_event)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_EVENT);
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_EVENT);
	struct gpupath_model_event ev;

	nla_put_u32(msg, GPUPATH_A_EVENT_TYPE, GPUPATH_EVENT_FAILOVER);
	nla_put_u32(msg, GPUPATH_A_EVENT_VOLUME, 1);
	nla_put_u32(msg, GPUPATH_A_EVENT_PATH, 5);
	nla_put_u32(msg, GPUPATH_A_EVENT_ERROR, EIO);
	nla_put_u64(msg, GPUPATH_A_EVENT_NSEC, 2500000);
	nla_put_u64(msg, GPUPATH_A_EVENT_IOS, 3);
	nla_nest_end(msg, nest);
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), &ev));
	EXPECT_EQ(GPUPATH_CMD_EVENT, ev.ev.cmd);
	EXPECT_STREQ(GPUPATH_MCGRP_EVENTS, ev.ev.group);
	ASSERT_TRUE(ev.has_event);
	EXPECT_EQ(GPUPATH_EVENT_FAILOVER, ev.event.type);
	EXPECT_EQ(1, ev.event.volume);
	EXPECT_EQ(5, ev.event.path);
	EXPECT_EQ(EIO, ev.event.error);
	EXPECT_EQ(2500000, ev.event.nsec);
	EXPECT_EQ(3, ev.event.ios);
	EXPECT_FALSE(ev.has_volume);
	nlmsg_free(msg);
}

TEST(volume_event_without_type_is_rejected)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_EVENT);
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_EVENT);
	struct gpupath_model_event ev;

	nla_put_u32(msg, GPUPATH_A_EVENT_VOLUME, 1);
	nla_nest_end(msg, nest);
	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), &ev));
	nlmsg_free(msg);
}

TEST(volume_names)
{
	static const char *const policies[] = {
		"round-robin", "queue-depth", "service-time", "weighted", "gpu-affinity",
	};
	uint32_t v, i;

	ASSERT_EQ(GPUPATH_POLICY_MAX + 1, sizeof(policies) / sizeof(policies[0]));
	for (i = 0; i <= GPUPATH_POLICY_MAX; i++) {
		EXPECT_STREQ(policies[i], gpupath_policy_name(i));
		ASSERT_EQ(0, gpupath_policy_parse(policies[i], &v));
		EXPECT_EQ(i, v);
	}
	EXPECT_STREQ("unknown", gpupath_policy_name(GPUPATH_POLICY_MAX + 1));
	EXPECT_EQ(-EINVAL, gpupath_policy_parse("fastest", &v));
	EXPECT_EQ(-EINVAL, gpupath_policy_parse("unknown", &v));
	EXPECT_EQ(-EINVAL, gpupath_policy_parse("", &v));

	EXPECT_EQ(0, gpupath_path_state_parse("draining", &v));
	EXPECT_EQ(GPUPATH_PATH_DRAINING, v);
	EXPECT_EQ(0, gpupath_path_state_parse("up", &v));
	EXPECT_EQ(GPUPATH_PATH_UP, v);
	EXPECT_EQ(-EINVAL, gpupath_path_state_parse("UP", &v));
	EXPECT_STREQ("down", gpupath_path_state_name(GPUPATH_PATH_DOWN));
	EXPECT_STREQ("unknown", gpupath_path_state_name(GPUPATH_PATH_STATE_MAX + 1));

	EXPECT_STREQ("live", gpupath_path_health_name(GPUPATH_HEALTH_LIVE));
	EXPECT_STREQ("failed", gpupath_path_health_name(GPUPATH_HEALTH_FAILED));
	EXPECT_STREQ("gone", gpupath_path_health_name(GPUPATH_HEALTH_GONE));
	EXPECT_STREQ("unknown", gpupath_path_health_name(GPUPATH_HEALTH_GONE + 1));

	EXPECT_STREQ("managed", gpupath_volume_mode_name(GPUPATH_VOLUME_MANAGED));
	EXPECT_STREQ("native", gpupath_volume_mode_name(GPUPATH_VOLUME_NATIVE));
	EXPECT_STREQ("empty", gpupath_volume_mode_name(GPUPATH_VOLUME_EMPTY));
	EXPECT_STREQ("unknown", gpupath_volume_mode_name(GPUPATH_VOLUME_EMPTY + 1));

	EXPECT_STREQ("unknown", gpupath_event_name(0));
	EXPECT_STREQ("path-failed", gpupath_event_name(GPUPATH_EVENT_PATH_FAILED));
	EXPECT_STREQ("path-gone", gpupath_event_name(GPUPATH_EVENT_PATH_GONE));
	EXPECT_STREQ("failback", gpupath_event_name(GPUPATH_EVENT_FAILBACK));
	EXPECT_STREQ("failover", gpupath_event_name(GPUPATH_EVENT_FAILOVER));
	EXPECT_STREQ("no-path", gpupath_event_name(GPUPATH_EVENT_NO_PATH));
	EXPECT_STREQ("io-error", gpupath_event_name(GPUPATH_EVENT_IO_ERROR));
	EXPECT_STREQ("unknown", gpupath_event_name(GPUPATH_EVENT_IO_ERROR + 1));

	/* Every command has a name. */
	for (i = GPUPATH_CMD_GET_INFO; i <= GPUPATH_CMD_MAX; i++)
		EXPECT_NE(NULL, gpupath_cmd_name(i));
	EXPECT_STREQ("volume-set", gpupath_cmd_name(GPUPATH_CMD_VOLUME_SET));
	EXPECT_STREQ("path-new", gpupath_cmd_name(GPUPATH_CMD_PATH_NEW));
	EXPECT_STREQ("event", gpupath_cmd_name(GPUPATH_CMD_EVENT));
}

TEST(portal_with_rails_and_connections)
{
	struct nl_msg *msg = new_msg_size(GPUPATH_CMD_PORTAL_NEW, 65536);
	struct gpupath_model_event *ev = malloc(sizeof(*ev));
	struct nlattr *nest, *sub;
	int i;

	ASSERT_NE(NULL, ev);
	nest = nla_nest_start(msg, GPUPATH_A_PORTAL);
	nla_put_u32(msg, GPUPATH_A_PORTAL_ID, 4);
	nla_put_string(msg, GPUPATH_A_PORTAL_NAME, "rail1");
	nla_put_u32(msg, GPUPATH_A_PORTAL_TRANSPORT, GPUPATH_TRANSPORT_RDMA);
	nla_put_string(msg, GPUPATH_A_PORTAL_TRADDR, "10.0.0.1");
	nla_put_u32(msg, GPUPATH_A_PORTAL_TRSVCID, 4420);
	nla_put_flag(msg, GPUPATH_A_PORTAL_DISCOVERY);
	nla_put_u32(msg, GPUPATH_A_PORTAL_CTRL_LOSS_TMO, GPUPATH_TMO_FOREVER);
	for (i = 1; i <= 2; i++) {
		sub = nla_nest_start(msg, GPUPATH_A_PORTAL_RAIL);
		nla_put_u32(msg, GPUPATH_A_RAIL_ID, i);
		nla_put_string(msg, GPUPATH_A_RAIL_IFACE, i == 1 ? "eth1" : "eth2");
		nla_nest_end(msg, sub);
	}
	/* More connections than kept: the rest are dropped, not overrun. */
	for (i = 0; i < GPUPATH_PORTAL_CONNS_MAX + 3; i++) {
		sub = nla_nest_start(msg, GPUPATH_A_PORTAL_CONN);
		nla_put_u32(msg, GPUPATH_A_CONN_RAIL, 1 + i % 2);
		nla_put_string(msg, GPUPATH_A_CONN_SUBSYSNQN, "nqn.2026-11.io.example:a");
		nla_put_u32(msg, GPUPATH_A_CONN_STATE, GPUPATH_CONN_BACKOFF);
		nla_put_u32(msg, GPUPATH_A_CONN_ATTEMPTS, i);
		nla_nest_end(msg, sub);
	}
	nla_nest_end(msg, nest);
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), ev));
	EXPECT_STREQ(GPUPATH_MCGRP_CONFIG, ev->ev.group);
	ASSERT_TRUE(ev->has_portal);
	EXPECT_EQ(4, ev->portal.id);
	EXPECT_STREQ("rail1", ev->portal.name);
	EXPECT_STREQ("rdma", gpupath_transport_name(ev->portal.transport));
	EXPECT_TRUE(ev->portal.discovery);
	EXPECT_EQ(GPUPATH_TMO_FOREVER, ev->portal.ctrl_loss_tmo);
	ASSERT_EQ(2, ev->portal.nrails);
	EXPECT_STREQ("eth2", ev->portal.rail[1].iface);
	ASSERT_EQ(GPUPATH_PORTAL_CONNS_MAX, ev->portal.nconns);
	EXPECT_EQ(5, ev->portal.conn[5].attempts);
	EXPECT_STREQ("backoff", gpupath_conn_state_name(ev->portal.conn[5].state));
	EXPECT_STREQ("unknown", gpupath_conn_state_name(99));
	free(ev);
	nlmsg_free(msg);
}

TEST(portal_without_id_is_rejected)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_PORTAL_NEW);
	struct gpupath_model_event *ev = malloc(sizeof(*ev));
	struct nlattr *nest;

	ASSERT_NE(NULL, ev);
	nest = nla_nest_start(msg, GPUPATH_A_PORTAL);
	nla_put_string(msg, GPUPATH_A_PORTAL_NAME, "x");
	nla_nest_end(msg, nest);
	EXPECT_EQ(-EBADMSG, gpupath_model_event(nlmsg_hdr(msg), ev));
	free(ev);
	nlmsg_free(msg);
}

TEST(qos_with_applied_settings)
{
	struct nl_msg *msg = new_msg(GPUPATH_CMD_QOS_NEW);
	struct gpupath_model_event *ev = malloc(sizeof(*ev));
	struct nlattr *nest, *sub;

	ASSERT_NE(NULL, ev);
	nest = nla_nest_start(msg, GPUPATH_A_QOS);
	nla_put_string(msg, GPUPATH_A_QOS_NAME, "gold");
	nla_put_u32(msg, GPUPATH_A_QOS_DSCP, 26);
	nla_put_u32(msg, GPUPATH_A_QOS_PFC, 1);
	nla_put_u32(msg, GPUPATH_A_QOS_PORTALS, 2);
	sub = nla_nest_start(msg, GPUPATH_A_QOS_APPLIED);
	nla_put_string(msg, GPUPATH_A_APPLIED_DEVICE, "rxe1");
	nla_put_string(msg, GPUPATH_A_APPLIED_SETTING, "default_roce_tos");
	nla_put_u32(msg, GPUPATH_A_APPLIED_RESULT, GPUPATH_APPLIED_UNSUPPORTED);
	nla_put_u32(msg, GPUPATH_A_APPLIED_ERROR, ENOENT);
	nla_nest_end(msg, sub);
	nla_nest_end(msg, nest);
	ASSERT_EQ(0, gpupath_model_event(nlmsg_hdr(msg), ev));
	ASSERT_TRUE(ev->has_qos);
	EXPECT_STREQ("gold", ev->qos.name);
	EXPECT_EQ(26, ev->qos.dscp);
	EXPECT_EQ(1, ev->qos.pfc);
	EXPECT_EQ(2, ev->qos.portals);
	ASSERT_EQ(1, ev->qos.napplied);
	EXPECT_STREQ("rxe1", ev->qos.applied[0].device);
	EXPECT_STREQ("unsupported", gpupath_applied_name(ev->qos.applied[0].result));
	EXPECT_EQ(ENOENT, ev->qos.applied[0].error);
	free(ev);
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
