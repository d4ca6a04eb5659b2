// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath show: what the module reports.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../../kmod/compat/range.h"

/*
 * Whether the module's kernel (its release, as uname -r gives it) is of a
 * tested series, in the range gpupath builds for but untested, or after
 * the last tested series (built with GPUPATH_UNTESTED_KERNEL=1).
 */
const char *cli_kernel_status(const char *release)
{
	static const unsigned int tested[] = GPUPATH_KERNEL_TESTED;
	unsigned int major, minor, i, code;

	if (sscanf(release, "%u.%u", &major, &minor) != 2 || major > 255 || minor > 255)
		return "unknown";
	for (i = 0; i < sizeof(tested) / sizeof(tested[0]); i++)
		if (tested[i] == (major << 8 | minor))
			return "tested";
	code = major << 16 | minor << 8;
	if (code >= GPUPATH_KERNEL_REFUSED)
		return "after-tested";
	return code >= GPUPATH_KERNEL_FIRST ? "untested" : "unknown";
}

const char *cli_kernel_status_text(const char *status)
{
	if (!strcmp(status, "tested"))
		return "a tested series (tested: " GPUPATH_KERNEL_TESTED_TEXT ")";
	if (!strcmp(status, "untested"))
		return "supported, not a tested series (tested: " GPUPATH_KERNEL_TESTED_TEXT ")";
	if (!strcmp(status, "after-tested"))
		return "NEWER than the last tested series, built on request (tested: "
		       GPUPATH_KERNEL_TESTED_TEXT ")";
	return "not a release gpupath knows";
}

static void print_features_json(struct json *j, uint64_t features)
{
	uint64_t bit;

	json_arr_open(j, "features");
	for (bit = 1; bit && bit <= features; bit <<= 1)
		if ((features & bit) && gpupath_feature_name(bit))
			json_str(j, NULL, gpupath_feature_name(bit));
	json_arr_close(j);
}

static void print_info_json(struct json *j, const struct gpupath_info *info)
{
	bool usable = info->features & GPUPATH_FEATURE_P2PDMA_USABLE;

	json_obj_open(j, "module");
	json_str(j, "version", info->version);
	json_str(j, "kernel", info->kernel);
	json_str(j, "kernel_status", cli_kernel_status(info->kernel));
	json_u64(j, "genl_version", info->genl_version);
	json_u64(j, "ioctl_version", info->ioctl_version);
	print_features_json(j, info->features);
	json_obj_open(j, "p2pdma");
	json_bool(j, "built", info->features & GPUPATH_FEATURE_P2PDMA_BUILT);
	json_bool(j, "usable", usable);
	json_str(j, "status", gpupath_p2pdma_status_name(info->p2pdma_status));
	json_str(j, "reason", gpupath_p2pdma_status_text(info->p2pdma_status));
	json_obj_close(j);
	json_bool(j, "nvidia_p2p", info->features & GPUPATH_FEATURE_NVIDIA_P2P);
	json_obj_close(j);
}

static void print_info_text(const struct gpupath_info *info)
{
	bool usable = info->features & GPUPATH_FEATURE_P2PDMA_USABLE;
	char features[256];

	printf("module gpupath %s on %s (genl %" PRIu32 ", ioctl %" PRIu32 ")\n",
	       info->version, info->kernel, info->genl_version, info->ioctl_version);
	printf("  kernel: %s\n", cli_kernel_status_text(cli_kernel_status(info->kernel)));
	printf("  p2pdma: %s (%s)\n", usable ? "usable" : "unavailable",
	       gpupath_p2pdma_status_text(info->p2pdma_status));
	printf("  nvidia-p2p: %s\n",
	       info->features & GPUPATH_FEATURE_NVIDIA_P2P ? "present" : "absent");
	gpupath_features_format(info->features, features, sizeof(features));
	printf("  features: %s\n", features);
}

void cli_print_info(struct cli *cli, const struct gpupath_info *info)
{
	if (cli->json)
		print_info_json(&cli->j, info);
	else
		print_info_text(info);
}

int cmd_show(struct cli *cli, int argc, char **argv)
{
	struct gpupath_info info;
	struct gpupath_ctl *ctl;
	int r;

	if (cli_parse_common(cli, argc, argv, "gpupath show [-j]") != argc)
		return 2;
	ctl = cli_ctl(cli);
	if (!ctl)
		return 1;
	r = gpupath_ctl_get_info(ctl, &info, sizeof(info));
	if (r < 0)
		return cli_err(cli, r, "get-info", gpupath_ctl_errmsg(ctl));
	cli_output_begin(cli);
	cli_print_info(cli, &info);
	r = cli_print_providers(cli, ctl);
	/* A module without volumes has none. */
	if (cli_print_volumes(cli, ctl, true))
		r = 1;
	if (cli->json)
		json_str(&cli->j, "device", GPUPATH_DEV_PATH);
	return cli_output_end(cli, r);
}
