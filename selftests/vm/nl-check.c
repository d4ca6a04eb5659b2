// SPDX-License-Identifier: GPL-2.0
/*
 * nl-check: the kernel's side of the generic-netlink contract, run in the
 * VM with the module loaded. Each check sends a request and asserts on the
 * errno and the extended-ACK message that come back.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libgpupath-admin.h"
#include "model.h"

static int failures;

/* Where a request's first attribute, and the first one in its nest, start. */
#define TOP_OFF		(NLMSG_HDRLEN + GENL_HDRLEN)
#define NESTED_OFF	(TOP_OFF + NLA_HDRLEN)

/*
 * The errno, the message (containing @want_msg) and, unless @want_off is
 * -1, the attribute the extended ACK points at (its offset in the request).
 */
static void expect_at(const char *what, struct gpupath_ctl *ctl, int got, int want,
		      const char *want_msg, long want_off)
{
	const char *msg = gpupath_ctl_errmsg(ctl);
	long off = gpupath_ctl_erroff(ctl);
	bool ok = got == want && (!want_msg || (msg && strstr(msg, want_msg))) &&
		  (want_off < 0 || off == want_off);

	printf("%s %s: errno %d (%s), message \"%s\", attribute at %ld\n", ok ? "pass" : "FAIL",
	       what, got, strerror(-got), msg ? msg : "", off);
	if (!ok) {
		printf("     expected errno %d%s%s", want, want_msg ? ", message containing " : "",
		       want_msg ? want_msg : "");
		if (want_off >= 0)
			printf(", attribute at %ld", want_off);
		printf("\n");
		failures++;
	}
}

static void expect(const char *what, struct gpupath_ctl *ctl, int got, int want,
		   const char *want_msg)
{
	expect_at(what, ctl, got, want, want_msg, -1);
}

/* One u32 in nest @top: an attribute the command does not take, or a bad value. */
struct one_u32 {
	int top;
	int type;
	uint32_t value;
};

static int put_one_u32(struct nl_msg *msg, void *arg)
{
	const struct one_u32 *a = arg;
	struct nlattr *nest = nla_nest_start(msg, a->top);

	if (!nest || nla_put_u32(msg, a->type, a->value))
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

/* Close @nest, filled unless @failed: 0, or -ENOMEM when it could not be. */
static int end_nest(struct nl_msg *msg, struct nlattr *nest, bool failed)
{
	if (!nest || failed)
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

static int put_unknown(struct nl_msg *msg, void *arg)
{
	(void)arg;
	return nla_put_u32(msg, GPUPATH_A_MAX + 7, 1) ? -ENOMEM : 0;
}

static int put_info_u32(struct nl_msg *msg, void *arg)
{
	(void)arg;
	return nla_put_u32(msg, GPUPATH_A_INFO, 1) ? -ENOMEM : 0;
}

/* A volume with a wwid of "a b": the kernel refuses what the CLI refuses. */
static int put_bad_wwid(struct nl_msg *msg, void *arg)
{
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_VOLUME);

	(void)arg;
	return end_nest(msg, nest, !nest || nla_put_string(msg, GPUPATH_A_VOLUME_WWID, "a b"));
}

/* A portal, or a QoS class, named "b@d": the kernel checks names itself. */
static int put_bad_portal(struct nl_msg *msg, void *arg)
{
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_PORTAL);

	(void)arg;
	return end_nest(msg, nest, !nest || nla_put_string(msg, GPUPATH_A_PORTAL_NAME, "b@d") ||
			nla_put_u32(msg, GPUPATH_A_PORTAL_TRANSPORT, GPUPATH_TRANSPORT_TCP) ||
			nla_put_string(msg, GPUPATH_A_PORTAL_TRADDR, "10.99.0.1"));
}

static int put_bad_qos(struct nl_msg *msg, void *arg)
{
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_QOS);

	(void)arg;
	return end_nest(msg, nest, !nest || nla_put_string(msg, GPUPATH_A_QOS_NAME, "b@d") ||
			nla_put_u32(msg, GPUPATH_A_QOS_DSCP, 10));
}

/* A path whose device is 4000 bytes long: more than a page of request. */
static int put_long_device(struct nl_msg *msg, void *arg)
{
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_PATH);
	char dev[4001];

	(void)arg;
	memset(dev, 'x', sizeof(dev) - 1);
	memcpy(dev, "/dev/", 5);
	dev[sizeof(dev) - 1] = 0;
	return end_nest(msg, nest, !nest || nla_put_u32(msg, GPUPATH_A_PATH_VOLUME, 0x7fffffff) ||
			nla_put_string(msg, GPUPATH_A_PATH_DEVICE, dev));
}

int main(void)
{
	static const struct {
		const char *what;
		int cmd;
		struct one_u32 attr;
		const char *msg;
	} refused[] = {
		{ "volume-new with an id", GPUPATH_CMD_VOLUME_NEW,
		  { GPUPATH_A_VOLUME, GPUPATH_A_VOLUME_ID, 1 }, "Unsupported attribute" },
		{ "volume-set with a size", GPUPATH_CMD_VOLUME_SET,
		  { GPUPATH_A_VOLUME, GPUPATH_A_VOLUME_SIZE, 1 }, "Unknown attribute type" },
		{ "path-new with an id", GPUPATH_CMD_PATH_NEW,
		  { GPUPATH_A_PATH, GPUPATH_A_PATH_ID, 1 }, "Unsupported attribute" },
		{ "path-set with a volume", GPUPATH_CMD_PATH_SET,
		  { GPUPATH_A_PATH, GPUPATH_A_PATH_VOLUME, 1 }, "Unsupported attribute" },
		{ "provider-new with an id", GPUPATH_CMD_PROVIDER_NEW,
		  { GPUPATH_A_PROVIDER, GPUPATH_A_PROVIDER_ID, 1 }, "Unsupported attribute" },
		{ "portal-new with connections cleared", GPUPATH_CMD_PORTAL_NEW,
		  { GPUPATH_A_PORTAL, GPUPATH_A_PORTAL_CONN_CLEAR, 1 }, "Unsupported attribute" },
		{ "portal-set with a transport", GPUPATH_CMD_PORTAL_SET,
		  { GPUPATH_A_PORTAL, GPUPATH_A_PORTAL_TRANSPORT, 1 }, "Unsupported attribute" },
		{ "qos-set with a portal count", GPUPATH_CMD_QOS_SET,
		  { GPUPATH_A_QOS, GPUPATH_A_QOS_PORTALS, 1 }, "Unknown attribute type" },
		{ "qos-del with a dscp", GPUPATH_CMD_QOS_DEL,
		  { GPUPATH_A_QOS, GPUPATH_A_QOS_DSCP, 1 }, "Unknown attribute type" },
		{ "get-info with a member in its nest", GPUPATH_CMD_GET_INFO,
		  { GPUPATH_A_INFO, GPUPATH_A_INFO_GENL_VERSION, 1 }, "Unknown attribute type" },
	};
	struct gpupath_info info;
	struct gpupath_ctl *ctl;
	unsigned int i;
	int r;

	r = gpupath_ctl_open(&ctl);
	if (r < 0) {
		printf("FAIL open: %s\n", strerror(-r));
		return 1;
	}
	r = gpupath_ctl_get_info(ctl, &info, sizeof(info));
	expect("get-info", ctl, r, 0, NULL);
	if (!r && (info.genl_version != GPUPATH_GENL_VERSION ||
		   (info.features & ~(uint64_t)GPUPATH_FEATURE_ALL) ||
		   info.has != 0x3f)) {
		printf("FAIL get-info contents: genl %u features %#llx has %#x\n",
		       info.genl_version, (unsigned long long)info.features, info.has);
		failures++;
	}
	/*
	 * Each command's policy takes exactly its attributes: the others are
	 * refused, and the extended ACK points at them.
	 */
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		r = gpupath_ctl_request(ctl, refused[i].cmd, NLM_F_ACK, put_one_u32, NULL,
					(void *)&refused[i].attr);
		expect_at(refused[i].what, ctl, r, -EINVAL, refused[i].msg, NESTED_OFF);
	}
	/* A refusal by the object's code points at what the request gave. */
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_VOLUME_NEW, NLM_F_ACK, put_one_u32, NULL,
				&(struct one_u32){ GPUPATH_A_VOLUME, GPUPATH_A_VOLUME_FALLBACK,
						   GPUPATH_POLICY_GPU_AFFINITY });
	expect_at("volume-new with gpu-affinity as its fallback", ctl, r, -EINVAL,
		  "gpu-affinity cannot be its own fallback", TOP_OFF);
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_GET_INFO, NLM_F_ACK, put_info_u32, NULL, NULL);
	expect_at("get-info with a mistyped attribute", ctl, r, -EINVAL, "NLA_F_NESTED is missing",
		  TOP_OFF);
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_GET_INFO, NLM_F_ACK, put_unknown, NULL, NULL);
	expect_at("get-info with an unknown attribute", ctl, r, -EINVAL, "Unknown attribute type",
		  TOP_OFF);
	r = gpupath_ctl_request(ctl, __GPUPATH_CMD_MAX + 3, NLM_F_ACK, NULL, NULL, NULL);
	expect("unknown command", ctl, r, -EOPNOTSUPP, NULL);
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_UNSPEC, NLM_F_ACK, NULL, NULL, NULL);
	expect("command 0", ctl, r, -EOPNOTSUPP, NULL);
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_VOLUME_NEW, NLM_F_ACK, put_bad_wwid, NULL, NULL);
	expect_at("volume-new with a wwid that has a space", ctl, r, -EINVAL,
		  "printable ASCII, no spaces", NESTED_OFF);
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_PORTAL_NEW, NLM_F_ACK, put_bad_portal, NULL, NULL);
	expect_at("portal-new named b@d", ctl, r, -EINVAL, "a portal name is letters, digits",
		  NESTED_OFF);
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_QOS_NEW, NLM_F_ACK, put_bad_qos, NULL, NULL);
	expect_at("qos-new named b@d", ctl, r, -EINVAL, "a QoS class name is letters, digits",
		  NESTED_OFF);
	/* The library sizes the request: the kernel gets it, and answers. */
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_PATH_NEW, NLM_F_ACK, put_long_device, NULL,
				NULL);
	expect_at("path-new with a 4000-byte device path", ctl, r, -ENOENT,
		  "no volume with this id", NESTED_OFF);
	gpupath_ctl_close(ctl);
	return failures ? 1 : 0;
}
