// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath version: the tools' version and the loaded module's.
 */
#include <errno.h>
#include <stdio.h>

#include "cli.h"

int cmd_version(struct cli *cli, int argc, char **argv)
{
	struct gpupath_version ver;
	struct gpupath_dev *dev;
	int r;

	if (cli_parse_common(cli, argc, argv, "gpupath version [-j]") != argc)
		return 2;
	r = gpupath_dev_open(&dev);
	if (r == 0) {
		r = gpupath_dev_version(dev, &ver);
		gpupath_dev_close(dev);
	}
	if (r < 0 && r != -ENOENT)
		return cli_err(cli, r, GPUPATH_DEV_PATH, NULL);
	if (cli->json) {
		json_obj_open(&cli->j, NULL);
		json_str(&cli->j, "tools", gpupath_tools_version());
		if (r < 0) {
			json_null(&cli->j, "module");
		} else {
			json_obj_open(&cli->j, "module");
			json_u64(&cli->j, "major", ver.major);
			json_u64(&cli->j, "minor", ver.minor);
			json_u64(&cli->j, "patch", ver.patch);
			json_u64(&cli->j, "genl_version", ver.genl_version);
			json_u64(&cli->j, "ioctl_version", ver.ioctl_version);
			json_obj_close(&cli->j);
		}
		json_obj_close(&cli->j);
		return json_end(&cli->j) ? 1 : 0;
	}
	printf("gpupath tools %s\n", gpupath_tools_version());
	if (r < 0)
		printf("module not loaded\n");
	else
		printf("module %u.%u.%u (genl %u, ioctl %u)\n", ver.major, ver.minor,
		       ver.patch, ver.genl_version, ver.ioctl_version);
	return 0;
}
