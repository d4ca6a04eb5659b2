// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath stats: every counter the module keeps, per provider, volume,
 * path, portal connection, QoS setting and cgroup.
 *
 *   gpupath stats [-j]            text, or one JSON object
 *   gpupath stats --prometheus    the Prometheus text exposition format, for
 *                                 node_exporter's textfile collector
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] = "gpupath stats [-j | --prometheus]";

static void print_cgroup_json(struct json *j, const struct gpupath_cgroup_stats *c)
{
	json_obj_open(j, NULL);
	if (c->other) {
		json_bool(j, "other", true);
	} else {
		json_str(j, "cgroup", c->path);
		json_u64(j, "id", c->id);
	}
	json_u64(j, "direct_ios", c->direct_ios);
	json_u64(j, "direct_bytes", c->direct_bytes);
	json_u64(j, "errors", c->errors);
	json_u64(j, "host_ios", c->host_ios);
	json_u64(j, "host_bytes", c->host_bytes);
	cli_print_refused_json(j, c->refused_ios, c->refused_bytes);
	json_obj_close(j);
}

static void print_cgroup_text(const struct gpupath_cgroup_stats *c)
{
	unsigned int r;

	printf("cgroup %s: direct %" PRIu64 " I/Os, %" PRIu64 " bytes, %" PRIu64
	       " errors; host memory %" PRIu64 " I/Os, %" PRIu64 " bytes\n",
	       c->other ? "(others)" : c->path, c->direct_ios, c->direct_bytes, c->errors,
	       c->host_ios, c->host_bytes);
	for (r = 1; r < GPUPATH_REASONS_KNOWN; r++)
		if (c->refused_ios[r])
			printf("  refused (%s): %" PRIu64 " I/Os, %" PRIu64 " bytes\n",
			       gpupath_reason_name(r), c->refused_ios[r], c->refused_bytes[r]);
}

static void print_cgroup(struct cli *cli, const void *obj)
{
	if (cli->json)
		print_cgroup_json(&cli->j, obj);
	else
		print_cgroup_text(obj);
}

static const struct cli_kind cli_cgroups = {
	"cgroup", "cgroups", sizeof(struct gpupath_cgroup_stats), print_cgroup, NULL, NULL,
};

int cmd_stats(struct cli *cli, int argc, char **argv)
{
	bool prom = cli_take_flag(&argc, argv, "--prometheus");
	const struct gpupath_cgroup_stats *cgroups;
	const struct gpupath_provider *provs;
	const struct gpupath_volume *vols;
	const struct gpupath_portal *portals;
	const struct gpupath_qos *qos;
	size_t nprov, nvol, nportal, nqos, ncgroup;
	struct gpupath_stats *s;
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
		r = gpupath_stats_prometheus(s, stdout);
		gpupath_stats_free(s);
		return r < 0 || fflush(stdout) ? 1 : 0;
	}
	if (gpupath_stats_providers(s, &provs, sizeof(*provs), &nprov) ||
	    gpupath_stats_volumes(s, &vols, sizeof(*vols), &nvol) ||
	    gpupath_stats_portals(s, &portals, sizeof(*portals), &nportal) ||
	    gpupath_stats_qos(s, &qos, sizeof(*qos), &nqos) ||
	    gpupath_stats_cgroups(s, &cgroups, sizeof(*cgroups), &ncgroup)) {
		gpupath_stats_free(s);
		return cli_err(cli, -ENOMEM, "stats", NULL);
	}
	cli_output_begin(cli);
	cli_print_array(cli, &cli_providers, provs, nprov);
	cli_print_array(cli, &cli_volumes, vols, nvol);
	cli_print_array(cli, &cli_portals, portals, nportal);
	cli_print_array(cli, &cli_qos, qos, nqos);
	cli_print_array(cli, &cli_cgroups, cgroups, ncgroup);
	gpupath_stats_free(s);
	return cli_output_end(cli, 0);
}
