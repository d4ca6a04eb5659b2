// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath path: the NVMe block devices a volume does its I/O through.
 *
 *   gpupath path [show [PATH | volume VOL]] [-j]
 *   gpupath path add VOL DEVICE [weight N] [rail N] [state up|down|draining]
 *   gpupath path set PATH [weight N] [rail N] [state up|down|draining]
 *                         [link up|down|unknown] [ana STATE] [ana-tt S] [ana-group N]
 *   gpupath path del PATH
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_path_json(struct json *j, const struct gpupath_path *p)
{
	const struct gpupath_path_stats *st = &p->stats;
	char domain[32];

	json_obj_open(j, NULL);
	json_u64(j, "id", p->id);
	json_u64(j, "volume", p->volume);
	json_str(j, "device", p->device);
	json_str(j, "state", gpupath_path_state_name(p->state));
	json_str(j, "health", gpupath_path_health_name(p->health));
	json_u64(j, "weight", p->weight);
	json_u64(j, "rail", p->rail);
	json_str(j, "link", gpupath_path_link_name(p->link));
	json_str(j, "ana", gpupath_ana_state_name(p->ana_state));
	json_u64(j, "ana_group", p->ana_group);
	json_u64(j, "ana_tt", p->ana_tt);
	json_str(j, "transport", p->transport);
	json_str(j, "controller", p->controller);
	if (p->dma_dev[0])
		json_str(j, "dma_dev", p->dma_dev);
	else
		json_null(j, "dma_dev");
	json_str(j, "iommu", p->dma_dev[0] ? cli_iommu(p->dma_dev, domain, sizeof(domain)) :
		 "unknown");
	json_str(j, "reason", gpupath_reason_name(p->reason));
	json_obj_open(j, "stats");
	json_u64(j, "ios", st->ios);
	json_u64(j, "bytes", st->bytes);
	json_u64(j, "errors", st->errors);
	json_u64(j, "direct_ios", st->direct_ios);
	json_u64(j, "inflight", st->inflight);
	json_u64(j, "latency_ns", st->latency_ns);
	json_obj_close(j);
	json_obj_close(j);
}

void cli_print_path_text(const struct gpupath_path *p, int indent)
{
	const struct gpupath_path_stats *st = &p->stats;
	char domain[32];
	const struct cli_counter c[] = {
		CLI_COUNT("ios", st->ios), CLI_COUNT("bytes", st->bytes),
		CLI_COUNT("errors", st->errors),
		CLI_COUNT("direct", st->direct_ios), CLI_COUNT("inflight", st->inflight),
		CLI_NS("latency", st->latency_ns),
	};

	printf("%*spath %u: %s volume %u state %s health %s weight %u rail %u%s\n", indent, "",
	       p->id, p->device, p->volume, gpupath_path_state_name(p->state),
	       gpupath_path_health_name(p->health), p->weight, p->rail,
	       p->link == GPUPATH_LINK_DOWN ? " link down" : "");
	printf("%*s    transport %s controller %s dma-dev %s", indent, "",
	       p->transport[0] ? p->transport : "unknown",
	       p->controller[0] ? p->controller : "none", p->dma_dev[0] ? p->dma_dev : "none");
	if (p->dma_dev[0])
		printf(" iommu %s", cli_iommu(p->dma_dev, domain, sizeof(domain)));
	if (p->reason != GPUPATH_REASON_NONE)
		printf(" no-direct %s", gpupath_reason_name(p->reason));
	if (p->ana_state != GPUPATH_ANA_UNKNOWN)
		printf(" ana %s group %u", gpupath_ana_state_name(p->ana_state), p->ana_group);
	printf("\n");
	cli_print_counters(indent + 4, c, sizeof(c) / sizeof(c[0]));
}

static void print_path(struct cli *cli, const void *obj)
{
	if (cli->json)
		print_path_json(&cli->j, obj);
	else
		cli_print_path_text(obj, 0);
}

const struct cli_kind cli_paths = {
	"path", "paths", sizeof(struct gpupath_path), print_path, gpupath_ctl_path_del, NULL,
};

/* The paths of volume @volume (0: all), as the whole output. */
static int print_paths(struct cli *cli, uint32_t volume)
{
	struct gpupath_path *list;
	size_t n;
	int r;

	r = gpupath_ctl_path_list(cli->ctl, volume, &list, sizeof(*list), &n);
	if (r < 0)
		return cli_err(cli, r, "path dump", gpupath_ctl_errmsg(cli->ctl));
	cli_output_begin(cli);
	cli_print_array(cli, &cli_paths, list, n);
	free(list);
	return cli_output_end(cli, 0);
}

/* ---- commands ------------------------------------------------------------ */

static int path_show(struct cli *cli, int argc, char **argv)
{
	struct gpupath_path p;
	uint32_t id;
	int r;

	if (argc == 0)
		return cli_ctl(cli) ? print_paths(cli, 0) : 1;
	if (argc > 2 || (argc == 2) != !strcmp(argv[0], "volume"))
		return 2;
	if (argc == 2) {
		r = cli_target(cli, &cli_volumes, argv[1], &id);
		return r ? r : print_paths(cli, id);
	}
	r = cli_target(cli, &cli_paths, argv[0], &id);
	if (r)
		return r;
	return cli_print_reply(cli, gpupath_ctl_path_get(cli->ctl, id, &p, sizeof(p)), "path show",
			       &cli_paths, &p);
}

static int path_add(struct cli *cli, int argc, char **argv)
{
	struct gpupath_path_conf conf = { 0 };
	struct gpupath_path p;
	uint32_t volume;
	int r;

	if (argc < 2)
		return 2;
	if (cli_parse_str("device", argv[1], PATH_MAX - 1) ||
	    cli_parse_kws(argc - 2, argv + 2, gpupath_path_kws, GPUPATH_PATH_KWS, &conf, &conf.set))
		return 2;
	r = cli_target(cli, &cli_volumes, argv[0], &volume);
	if (r)
		return r;
	return cli_print_reply(cli, gpupath_ctl_path_add(cli->ctl, volume, argv[1], &conf, &p,
							 sizeof(p)),
			       "path add", &cli_paths, &p);
}

static int path_set(struct cli *cli, int argc, char **argv)
{
	struct gpupath_path_conf conf = { 0 };
	uint32_t id;
	int r;

	r = cli_parse_set(cli, &cli_paths, argc, argv, gpupath_path_kws, GPUPATH_PATH_KWS, &conf,
			  &conf.set, &id);
	return r ? r : cli_done(cli, gpupath_ctl_path_set(cli->ctl, id, &conf), "path set");
}

static int path_del(struct cli *cli, int argc, char **argv)
{
	return cli_del(cli, &cli_paths, argc, argv);
}

#define STR(x) #x
#define XSTR(x) STR(x)

static const char path_usage[] =
	"gpupath path [show [PATH | volume VOL]] [-j]\n"
	"       gpupath path add VOL DEVICE [weight N] [rail N] [state STATE]\n"
	"       gpupath path set PATH [weight N] [rail N] [state STATE] [link LINK]\n"
	"                        [ana ANA] [ana-tt SECONDS] [ana-group N]\n"
	"       gpupath path del PATH\n"
	"VOL is a volume's id or name (gpupath0), PATH a path's id, DEVICE an NVMe\n"
	"namespace (/dev/nvme1n1). Weight is 1 to " XSTR(GPUPATH_WEIGHT_MAX)
	"; STATE is up, down or draining;\n"
	"LINK (what gpupathd sets from the rail's interface) is up, down or unknown.\n"
	"ANA (what gpupathd reads from the controller) is optimized, non-optimized,\n"
	"inaccessible, persistent-loss, change or unknown.";

int cmd_path(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd subs[] = {
		{ "show", NULL, path_show },
		{ "add", NULL, path_add },
		{ "set", NULL, path_set },
		{ "del", NULL, path_del },
	};

	return cli_subcommand(cli, argc, argv, "path", path_usage, subs,
			      sizeof(subs) / sizeof(subs[0]));
}
