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

#include "libgpupath.h"
#include "model.h"

static int failures;

static void expect(const char *what, int got, int want, const char *msg,
		   const char *want_msg)
{
	bool ok = got == want && (!want_msg || (msg && strstr(msg, want_msg)));

	printf("%s %s: errno %d (%s), message \"%s\"\n", ok ? "pass" : "FAIL", what,
	       got, strerror(-got), msg ? msg : "");
	if (!ok) {
		printf("     expected errno %d%s%s\n", want, want_msg ? ", message containing " : "",
		       want_msg ? want_msg : "");
		failures++;
	}
}

static int put_info_nest(struct nl_msg *msg, void *arg)
{
	struct nlattr *nest = nla_nest_start(msg, GPUPATH_A_INFO);

	(void)arg;
	/* libnl drops an empty nest, so give it a member. */
	if (!nest || nla_put_u32(msg, GPUPATH_A_INFO_GENL_VERSION, 1))
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

int main(void)
{
	struct gpupath_info info;
	struct gpupath_ctl *ctl;
	int r;

	r = gpupath_ctl_open(&ctl);
	if (r < 0) {
		printf("FAIL open: %s\n", strerror(-r));
		return 1;
	}
	r = gpupath_ctl_get_info(ctl, &info);
	expect("get-info", r, 0, gpupath_ctl_errmsg(ctl), NULL);
	if (!r && (info.genl_version != GPUPATH_GENL_VERSION ||
		   (info.features & ~(uint64_t)GPUPATH_FEATURE_ALL) ||
		   info.has != 0x3f)) {
		printf("FAIL get-info contents: genl %u features %#llx has %#x\n",
		       info.genl_version, (unsigned long long)info.features, info.has);
		failures++;
	}
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_GET_INFO, NLM_F_ACK, put_info_nest, NULL, NULL);
	/* Strict validation may refuse the nest flag before the policy's message. */
	expect("get-info with an attribute", r, -EINVAL, gpupath_ctl_errmsg(ctl), "");
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_GET_INFO, NLM_F_ACK, put_info_u32, NULL, NULL);
	expect("get-info with a mistyped attribute", r, -EINVAL, gpupath_ctl_errmsg(ctl),
	       "GET_INFO takes no attributes");
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_GET_INFO, NLM_F_ACK, put_unknown, NULL, NULL);
	expect("get-info with an unknown attribute", r, -EINVAL, gpupath_ctl_errmsg(ctl),
	       "Unknown attribute type");
	r = gpupath_ctl_request(ctl, __GPUPATH_CMD_MAX + 3, NLM_F_ACK, NULL, NULL, NULL);
	expect("unknown command", r, -EOPNOTSUPP, gpupath_ctl_errmsg(ctl), NULL);
	r = gpupath_ctl_request(ctl, GPUPATH_CMD_UNSPEC, NLM_F_ACK, NULL, NULL, NULL);
	expect("command 0", r, -EOPNOTSUPP, gpupath_ctl_errmsg(ctl), NULL);
	gpupath_ctl_close(ctl);
	return failures ? 1 : 0;
}
