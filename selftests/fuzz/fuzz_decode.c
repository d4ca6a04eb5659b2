// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for libgpupath's netlink decoders, the code between the
 * kernel's (or a forged) message and the CLI, the daemon and applications.
 *
 * The first byte of the input is a command number, the rest (P) attributes:
 *   - P inside one nest header with the right length, given to each
 *     gpupath_model_<object>() as the kernel's GPUPATH_A_<OBJECT> nest;
 *   - a generic-netlink message with that command and P as its attributes,
 *     and one with P inside the top-level nest of the command's object (as
 *     the kernel's notifications have it), given to gpupath_model_event().
 * Every buffer is allocated to its exact size, so that a read past the
 * message is one past the allocation.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "model.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)
/* A string member ends within its array. */
#define CHECK_STR(a) CHECK(strnlen(a, sizeof(a)) < sizeof(a))

static void check_info(const struct gpupath_info *info)
{
	CHECK_STR(info->version);
	CHECK_STR(info->kernel);
}

static void check_provider(const struct gpupath_provider *prov)
{
	unsigned int i;

	CHECK_STR(prov->pci_dev);
	CHECK_STR(prov->driver);
	CHECK(prov->npeers <= GPUPATH_PEERS_MAX);
	for (i = 0; i < prov->npeers; i++)
		CHECK_STR(prov->peers[i].pci_dev);
}

static void check_path(const struct gpupath_path *path)
{
	CHECK_STR(path->device);
	CHECK_STR(path->transport);
	CHECK_STR(path->controller);
	CHECK_STR(path->dma_dev);
}

static void check_volume(const struct gpupath_volume *vol)
{
	unsigned int i;

	CHECK_STR(vol->name);
	CHECK_STR(vol->wwid);
	CHECK(vol->npaths <= GPUPATH_VOLUME_PATHS_MAX);
	for (i = 0; i < vol->npaths; i++)
		check_path(&vol->path[i]);
}

static void check_portal(const struct gpupath_portal *p)
{
	unsigned int i;

	CHECK_STR(p->name);
	CHECK_STR(p->traddr);
	CHECK_STR(p->subsysnqn);
	CHECK_STR(p->qos);
	CHECK(p->nrails <= GPUPATH_PORTAL_RAILS_MAX);
	for (i = 0; i < p->nrails; i++) {
		CHECK_STR(p->rail[i].iface);
		CHECK_STR(p->rail[i].addr);
	}
	CHECK(p->nconns <= GPUPATH_PORTAL_CONNS_MAX);
	for (i = 0; i < p->nconns; i++) {
		CHECK_STR(p->conn[i].subsysnqn);
		CHECK_STR(p->conn[i].traddr);
		CHECK_STR(p->conn[i].controller);
	}
}

static void check_qos(const struct gpupath_qos *q)
{
	unsigned int i;

	CHECK_STR(q->name);
	CHECK(q->napplied <= GPUPATH_QOS_APPLIED_MAX);
	for (i = 0; i < q->napplied; i++) {
		CHECK_STR(q->applied[i].device);
		CHECK_STR(q->applied[i].setting);
	}
}

/* The top-level nest of each command's object; others get one by number. */
static const uint8_t cmd_nest[GPUPATH_CMD_MAX + 1] = {
	[GPUPATH_CMD_GET_INFO]		= GPUPATH_A_INFO,
	[GPUPATH_CMD_PROVIDER_GET]	= GPUPATH_A_PROVIDER,
	[GPUPATH_CMD_PROVIDER_NEW]	= GPUPATH_A_PROVIDER,
	[GPUPATH_CMD_PROVIDER_DEL]	= GPUPATH_A_PROVIDER,
	[GPUPATH_CMD_VOLUME_GET]	= GPUPATH_A_VOLUME,
	[GPUPATH_CMD_VOLUME_NEW]	= GPUPATH_A_VOLUME,
	[GPUPATH_CMD_VOLUME_DEL]	= GPUPATH_A_VOLUME,
	[GPUPATH_CMD_VOLUME_SET]	= GPUPATH_A_VOLUME,
	[GPUPATH_CMD_PATH_GET]		= GPUPATH_A_PATH,
	[GPUPATH_CMD_PATH_NEW]		= GPUPATH_A_PATH,
	[GPUPATH_CMD_PATH_DEL]		= GPUPATH_A_PATH,
	[GPUPATH_CMD_PATH_SET]		= GPUPATH_A_PATH,
	[GPUPATH_CMD_EVENT]		= GPUPATH_A_EVENT,
	[GPUPATH_CMD_PORTAL_GET]	= GPUPATH_A_PORTAL,
	[GPUPATH_CMD_PORTAL_NEW]	= GPUPATH_A_PORTAL,
	[GPUPATH_CMD_PORTAL_DEL]	= GPUPATH_A_PORTAL,
	[GPUPATH_CMD_PORTAL_SET]	= GPUPATH_A_PORTAL,
	[GPUPATH_CMD_QOS_GET]		= GPUPATH_A_QOS,
	[GPUPATH_CMD_QOS_NEW]		= GPUPATH_A_QOS,
	[GPUPATH_CMD_QOS_DEL]		= GPUPATH_A_QOS,
	[GPUPATH_CMD_QOS_SET]		= GPUPATH_A_QOS,
};

static int nest_of(uint8_t cmd)
{
	if (cmd <= GPUPATH_CMD_MAX && cmd_nest[cmd])
		return cmd_nest[cmd];
	return 1 + cmd % GPUPATH_A_MAX;
}

/* Each decoder on P as the contents of one nest. */
static void decode_nest(const uint8_t *p, size_t len)
{
	struct nlattr *nest = malloc(NLA_HDRLEN + len);
	struct gpupath_provider prov;
	struct gpupath_volume vol;
	struct gpupath_portal portal;
	struct gpupath_info info;
	struct gpupath_path path;
	struct gpupath_qos qos;

	CHECK(nest);
	nest->nla_len = NLA_HDRLEN + len;
	nest->nla_type = NLA_F_NESTED;
	memcpy((char *)nest + NLA_HDRLEN, p, len);
	if (!gpupath_model_info(nest, &info))
		check_info(&info);
	if (!gpupath_model_provider(nest, &prov))
		check_provider(&prov);
	if (!gpupath_model_volume(nest, &vol))
		check_volume(&vol);
	if (!gpupath_model_path(nest, &path))
		check_path(&path);
	if (!gpupath_model_portal(nest, &portal))
		check_portal(&portal);
	if (!gpupath_model_qos(nest, &qos))
		check_qos(&qos);
	free(nest);
}

/*
 * A notification with command @cmd and attributes @p; with @nest, @p inside
 * a top-level nest of that type.
 */
static void decode_event(uint8_t cmd, int nest, const uint8_t *p, size_t len)
{
	size_t hdr = NLMSG_HDRLEN + GENL_HDRLEN + (nest ? NLA_HDRLEN : 0);
	static struct gpupath_model_event ev;
	struct genlmsghdr *gnlh;
	struct nlmsghdr *nlh;
	struct nlattr *nla;

	nlh = calloc(1, hdr + len);
	CHECK(nlh);
	nlh->nlmsg_len = hdr + len;
	nlh->nlmsg_type = 0x42;
	gnlh = NLMSG_DATA(nlh);
	gnlh->cmd = cmd;
	gnlh->version = GPUPATH_GENL_VERSION;
	if (nest) {
		nla = (struct nlattr *)((char *)gnlh + GENL_HDRLEN);
		nla->nla_len = NLA_HDRLEN + len;
		nla->nla_type = NLA_F_NESTED | nest;
	}
	memcpy((char *)nlh + hdr, p, len);
	if (!gpupath_model_event(nlh, &ev)) {
		CHECK(ev.ev.type == GPUPATH_EVENT_NOTIFY && ev.ev.cmd == cmd && ev.ev.group);
		if (ev.has_info)
			check_info(&ev.info);
		if (ev.has_provider)
			check_provider(&ev.provider);
		if (ev.has_volume)
			check_volume(&ev.volume);
		if (ev.has_path)
			check_path(&ev.path);
		if (ev.has_portal)
			check_portal(&ev.portal);
		if (ev.has_qos)
			check_qos(&ev.qos);
	}
	free(nlh);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An attribute's length is 16 bits, headers included. */
	size_t max = UINT16_MAX - NLA_HDRLEN;

	if (!size)
		return 0;
	if (size - 1 > max)
		size = max + 1;
	decode_nest(data + 1, size - 1);
	decode_event(data[0], 0, data + 1, size - 1);
	decode_event(data[0], nest_of(data[0]), data + 1, size - 1);
	return 0;
}
