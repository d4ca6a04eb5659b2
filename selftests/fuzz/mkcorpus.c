// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the seeds of the decode harness into the directory it is given:
 * one file per object, a command byte and then the attributes the kernel
 * puts into that object's nest (see fuzz_decode.c), plus one with
 * top-level nests.
 *
 *	make selftests/build/fuzz/mkcorpus
 *	selftests/build/fuzz/mkcorpus selftests/fuzz/corpus/decode
 */
#include <stdio.h>
#include <stdlib.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/gpupath.h>

static const char *dir;

static void save(const char *name, uint8_t cmd, struct nl_msg *msg)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputc(cmd, f) == EOF ||
	    fwrite(nlmsg_data(nlmsg_hdr(msg)), nlmsg_datalen(nlmsg_hdr(msg)), 1, f) != 1 ||
	    fclose(f)) {
		perror(path);
		exit(1);
	}
	nlmsg_free(msg);
}

static void put_info(struct nl_msg *msg)
{
	nla_put_string(msg, GPUPATH_A_INFO_VERSION, "1.2.3");
	nla_put_u32(msg, GPUPATH_A_INFO_GENL_VERSION, GPUPATH_GENL_VERSION);
	nla_put_u64(msg, GPUPATH_A_INFO_FEATURES, 3);
	nla_put_u32(msg, GPUPATH_A_INFO_P2PDMA_STATUS, 0);
	nla_put_string(msg, GPUPATH_A_INFO_KERNEL, "6.1.0-test");
	nla_put_u32(msg, GPUPATH_A_INFO_IOCTL_VERSION, 1);
	nla_put_u32(msg, GPUPATH_A_INFO_MAX + 1, 99);	/* a future one */
}

static void put_provider(struct nl_msg *msg)
{
	struct nlattr *stats, *nest;
	int i;

	nla_put_u32(msg, GPUPATH_A_PROVIDER_ID, 1);
	nla_put_u32(msg, GPUPATH_A_PROVIDER_TYPE, 1);
	nla_put_string(msg, GPUPATH_A_PROVIDER_PCI_DEV, "0000:03:00.0");
	nla_put_string(msg, GPUPATH_A_PROVIDER_DRIVER, "nvidia");
	nla_put_u32(msg, GPUPATH_A_PROVIDER_OWNED, 1);
	nla_put_u64(msg, GPUPATH_A_PROVIDER_SIZE, 1 << 30);
	nla_put_u64(msg, GPUPATH_A_PROVIDER_ALLOCATED, 1 << 20);
	nla_put_u64(msg, GPUPATH_A_PROVIDER_AVAILABLE, 1 << 29);
	nla_put_u32(msg, GPUPATH_A_PROVIDER_BAR, 1);
	stats = nla_nest_start(msg, GPUPATH_A_PROVIDER_STATS);
	nla_put_u64(msg, GPUPATH_A_STATS_DIRECT_IOS, 10);
	nla_put_u64(msg, GPUPATH_A_STATS_DIRECT_BYTES, 40960);
	nla_put_u64(msg, GPUPATH_A_STATS_ERRORS, 1);
	for (i = 1; i < 3; i++) {
		nest = nla_nest_start(msg, GPUPATH_A_STATS_REFUSED);
		nla_put_u32(msg, GPUPATH_A_REFUSED_REASON, i);
		nla_put_u64(msg, GPUPATH_A_REFUSED_IOS, i);
		nla_put_u64(msg, GPUPATH_A_REFUSED_BYTES, i * 4096);
		nla_nest_end(msg, nest);
	}
	nla_nest_end(msg, stats);
	nest = nla_nest_start(msg, GPUPATH_A_PROVIDER_PEER);
	nla_put_string(msg, GPUPATH_A_PEER_PCI_DEV, "0000:04:00.0");
	nla_put_u32(msg, GPUPATH_A_PEER_DISTANCE, 2);
	nla_nest_end(msg, nest);
}

static void put_path(struct nl_msg *msg, uint32_t id)
{
	struct nlattr *stats;

	nla_put_u32(msg, GPUPATH_A_PATH_ID, id);
	nla_put_u32(msg, GPUPATH_A_PATH_VOLUME, 1);
	nla_put_string(msg, GPUPATH_A_PATH_DEVICE, "nvme1n1");
	nla_put_u32(msg, GPUPATH_A_PATH_STATE, 0);
	nla_put_u32(msg, GPUPATH_A_PATH_HEALTH, 0);
	nla_put_u32(msg, GPUPATH_A_PATH_WEIGHT, 100);
	nla_put_u32(msg, GPUPATH_A_PATH_RAIL, 1);
	nla_put_u32(msg, GPUPATH_A_PATH_LINK, 1);
	nla_put_string(msg, GPUPATH_A_PATH_TRANSPORT, "rdma");
	nla_put_string(msg, GPUPATH_A_PATH_CONTROLLER, "nvme1");
	nla_put_string(msg, GPUPATH_A_PATH_DMA_DEV, "0000:05:00.0");
	nla_put_u32(msg, GPUPATH_A_PATH_REASON, 0);
	stats = nla_nest_start(msg, GPUPATH_A_PATH_STATS);
	nla_put_u64(msg, GPUPATH_A_PSTATS_IOS, 5);
	nla_put_u64(msg, GPUPATH_A_PSTATS_BYTES, 20480);
	nla_put_u64(msg, GPUPATH_A_PSTATS_LATENCY_NS, 12000);
	nla_nest_end(msg, stats);
}

static void put_path_1(struct nl_msg *msg)
{
	put_path(msg, 1);
}

static void put_volume(struct nl_msg *msg)
{
	struct nlattr *nest;
	uint32_t id;

	nla_put_u32(msg, GPUPATH_A_VOLUME_ID, 1);
	nla_put_string(msg, GPUPATH_A_VOLUME_NAME, "gpupath0");
	nla_put_string(msg, GPUPATH_A_VOLUME_WWID, "uuid.6f0e3a4c-0d1b-4e8a-9b7c-2d5f6e7a8b9c");
	nla_put_u32(msg, GPUPATH_A_VOLUME_POLICY, 1);
	nla_put_u32(msg, GPUPATH_A_VOLUME_FALLBACK, 0);
	nla_put_u32(msg, GPUPATH_A_VOLUME_QUEUE_TIMEOUT, 5000);
	nla_put_u64(msg, GPUPATH_A_VOLUME_SIZE, 1 << 30);
	nla_put_u32(msg, GPUPATH_A_VOLUME_BLOCK_SIZE, 512);
	nla_put_u32(msg, GPUPATH_A_VOLUME_PATHS, 2);
	nla_put_u32(msg, GPUPATH_A_VOLUME_USABLE, 2);
	nest = nla_nest_start(msg, GPUPATH_A_VOLUME_STATS);
	nla_put_u64(msg, GPUPATH_A_VSTATS_IOS, 7);
	nla_put_u64(msg, GPUPATH_A_VSTATS_FAILOVERS, 1);
	nla_nest_end(msg, nest);
	for (id = 1; id < 3; id++) {
		nest = nla_nest_start(msg, GPUPATH_A_VOLUME_PATH);
		put_path(msg, id);
		nla_nest_end(msg, nest);
	}
}

static void put_event(struct nl_msg *msg)
{
	nla_put_u32(msg, GPUPATH_A_EVENT_TYPE, 1);
	nla_put_u32(msg, GPUPATH_A_EVENT_VOLUME, 1);
	nla_put_u32(msg, GPUPATH_A_EVENT_PATH, 2);
	nla_put_u32(msg, GPUPATH_A_EVENT_ERROR, 5);
	nla_put_u64(msg, GPUPATH_A_EVENT_NSEC, 1500000);
	nla_put_u64(msg, GPUPATH_A_EVENT_IOS, 3);
}

static void put_portal(struct nl_msg *msg)
{
	struct nlattr *nest;
	uint32_t i;

	nla_put_u32(msg, GPUPATH_A_PORTAL_ID, 1);
	nla_put_string(msg, GPUPATH_A_PORTAL_NAME, "pool0");
	nla_put_u32(msg, GPUPATH_A_PORTAL_TRANSPORT, 0);
	nla_put_string(msg, GPUPATH_A_PORTAL_TRADDR, "192.168.10.2");
	nla_put_u32(msg, GPUPATH_A_PORTAL_TRSVCID, 4420);
	nla_put_string(msg, GPUPATH_A_PORTAL_SUBSYSNQN, "nqn.2026-11.io.example:pool0");
	nla_put_string(msg, GPUPATH_A_PORTAL_QOS, "roce");
	nla_put_u32(msg, GPUPATH_A_PORTAL_CTRL_LOSS_TMO, GPUPATH_TMO_FOREVER);
	nla_put_u32(msg, GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO, GPUPATH_TMO_OFF);
	nla_put_u32(msg, GPUPATH_A_PORTAL_RECONNECT_DELAY, 2);
	nla_put_u32(msg, GPUPATH_A_PORTAL_NR_IO_QUEUES, 0);
	nla_put_string(msg, GPUPATH_A_PORTAL_HOST_NQN,
		       "nqn.2014-08.org.nvmexpress:uuid:7a3c0e52-5b1d-4f3e-9a63-2b8f7d1c4e90");
	nla_put_string(msg, GPUPATH_A_PORTAL_DHCHAP_SECRET_FILE, "/etc/gpupath/keys/pool0");
	for (i = 1; i < 3; i++) {
		nest = nla_nest_start(msg, GPUPATH_A_PORTAL_RAIL);
		nla_put_u32(msg, GPUPATH_A_RAIL_ID, i);
		nla_put_string(msg, GPUPATH_A_RAIL_IFACE, i == 1 ? "eth1" : "eth2");
		nla_put_string(msg, GPUPATH_A_RAIL_ADDR, "192.168.10.1");
		nla_nest_end(msg, nest);
		nest = nla_nest_start(msg, GPUPATH_A_PORTAL_CONN);
		nla_put_u32(msg, GPUPATH_A_CONN_RAIL, i);
		nla_put_string(msg, GPUPATH_A_CONN_SUBSYSNQN, "nqn.2026-11.io.example:pool0");
		nla_put_string(msg, GPUPATH_A_CONN_TRADDR, "192.168.10.2");
		nla_put_u32(msg, GPUPATH_A_CONN_TRSVCID, 4420);
		nla_put_u32(msg, GPUPATH_A_CONN_STATE, 1);
		nla_put_string(msg, GPUPATH_A_CONN_CONTROLLER, "nvme3");
		nla_put_u32(msg, GPUPATH_A_CONN_ATTEMPTS, 0);
		nla_put_u32(msg, GPUPATH_A_CONN_ERROR, 0);
		nla_put_u32(msg, GPUPATH_A_CONN_RETRY_MS, 0);
		nla_nest_end(msg, nest);
	}
	nla_put_flag(msg, GPUPATH_A_PORTAL_DISCOVERY);
}

static void put_qos(struct nl_msg *msg)
{
	struct nlattr *nest;

	nla_put_string(msg, GPUPATH_A_QOS_NAME, "roce");
	nla_put_u32(msg, GPUPATH_A_QOS_DSCP, 26);
	nla_put_u32(msg, GPUPATH_A_QOS_PRIORITY, 3);
	nla_put_u32(msg, GPUPATH_A_QOS_PFC, 1);
	nla_put_u32(msg, GPUPATH_A_QOS_ETS, 50);
	nla_put_u32(msg, GPUPATH_A_QOS_PORTALS, 1);
	nest = nla_nest_start(msg, GPUPATH_A_QOS_APPLIED);
	nla_put_string(msg, GPUPATH_A_APPLIED_DEVICE, "rxe0");
	nla_put_string(msg, GPUPATH_A_APPLIED_SETTING, "default_roce_tos");
	nla_put_u32(msg, GPUPATH_A_APPLIED_RESULT, 0);
	nla_put_u32(msg, GPUPATH_A_APPLIED_ERROR, 0);
	nla_put_u32(msg, GPUPATH_A_APPLIED_VALUE, 104);
	nla_nest_end(msg, nest);
}

/* One object's attributes, as the contents of its nest. */
static void object(const char *name, uint8_t cmd, void (*put)(struct nl_msg *msg))
{
	struct nl_msg *msg = nlmsg_alloc();

	put(msg);
	save(name, cmd, msg);
}

int main(int argc, char **argv)
{
	struct nl_msg *msg;
	struct nlattr *nest;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	object("info", GPUPATH_CMD_GET_INFO, put_info);
	object("provider", GPUPATH_CMD_PROVIDER_NEW, put_provider);
	object("volume", GPUPATH_CMD_VOLUME_NEW, put_volume);
	object("path", GPUPATH_CMD_PATH_SET, put_path_1);
	object("event", GPUPATH_CMD_EVENT, put_event);
	object("portal", GPUPATH_CMD_PORTAL_NEW, put_portal);
	object("qos", GPUPATH_CMD_QOS_SET, put_qos);
	/* A message's attributes: two top-level nests. */
	msg = nlmsg_alloc();
	nest = nla_nest_start(msg, GPUPATH_A_QOS);
	put_qos(msg);
	nla_nest_end(msg, nest);
	nest = nla_nest_start(msg, GPUPATH_A_PATH);
	put_path(msg, 3);
	nla_nest_end(msg, nest);
	save("top", GPUPATH_CMD_UNSPEC, msg);
	return 0;
}
