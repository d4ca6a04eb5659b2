// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath stats: every counter the module keeps, per provider, volume,
 * path, portal connection and QoS setting.
 *
 *   gpupath stats [-j]            text, or one JSON object
 *   gpupath stats --prometheus    the Prometheus text exposition format, for
 *                                 node_exporter's textfile collector
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] = "gpupath stats [-j | --prometheus]";

int cmd_stats(struct cli *cli, int argc, char **argv)
{
	bool prom = cli_take_flag(&argc, argv, "--prometheus");
	struct gpupath_stats s;
	struct gpupath_ctl *ctl;
	const char *what;
	int r;

	if (cli_parse_common(cli, argc, argv, usage) != argc)
		return 2;
	if (prom && cli->json) {
		fprintf(stderr, "gpupath: stats: -j and --prometheus exclude each other\nUsage: %s\n",
			usage);
		return 2;
	}
	ctl = cli_ctl(cli);
	if (!ctl)
		return 1;
	r = gpupath_stats_get(ctl, &s, &what);
	if (r < 0)
		return cli_err(cli, r, what, gpupath_ctl_errmsg(ctl));
	if (prom) {
		r = gpupath_stats_prometheus(&s, stdout);
		gpupath_stats_free(&s);
		return r < 0 || fflush(stdout) ? 1 : 0;
	}
	cli_output_begin(cli);
	cli_print_array(cli, &cli_providers, s.prov, s.nprov);
	cli_print_array(cli, &cli_volumes, s.vol, s.nvol);
	cli_print_array(cli, &cli_portals, s.portal, s.nportal);
	cli_print_array(cli, &cli_qos, s.qos, s.nqos);
	gpupath_stats_free(&s);
	return cli_output_end(cli, 0);
}
