// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath volume: multipath block devices over NVMe paths.
 *
 *   gpupath volume [show [VOL]] [-j]
 *   gpupath volume add [wwid W] [policy P] [fallback P] [queue-timeout MS|forever]
 *   gpupath volume set VOL [policy P] [fallback P] [queue-timeout MS|forever]
 *   gpupath volume del VOL
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *cli_format_ns(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.2fms", ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", ns / 1e9);
	return buf;
}

void cli_print_counters(int indent, const struct cli_counter *c, unsigned int n)
{
	char val[CLI_COUNTERS_MAX][24];
	int width[CLI_COUNTERS_MAX];
	unsigned int i;

	for (i = 0; i < n && i < CLI_COUNTERS_MAX; i++) {
		if (c[i].ns)
			cli_format_ns(c[i].value, val[i], sizeof(val[i]));
		else
			snprintf(val[i], sizeof(val[i]), "%" PRIu64, c[i].value);
		width[i] = strlen(val[i]) > strlen(c[i].label) ? strlen(val[i]) : strlen(c[i].label);
	}
	n = i;
	printf("%*s", indent, "");
	for (i = 0; i < n; i++)
		printf("%s%*s", i ? " " : "", width[i], c[i].label);
	printf("\n%*s", indent, "");
	for (i = 0; i < n; i++)
		printf("%s%*s", i ? " " : "", width[i], val[i]);
	printf("\n");
}

static void print_queue_timeout_json(struct json *j, uint32_t ms)
{
	if (ms == GPUPATH_QUEUE_FOREVER)
		json_null(j, "queue_timeout");
	else
		json_u64(j, "queue_timeout", ms);
}

static void print_volume_json(struct cli *cli, const struct gpupath_volume *v)
{
	const struct gpupath_volume_stats *st = &v->stats;
	struct json *j = &cli->j;
	unsigned int i;

	json_obj_open(j, NULL);
	json_u64(j, "id", v->id);
	json_str(j, "name", v->name);
	json_str(j, "wwid", v->wwid);
	json_str(j, "policy", gpupath_policy_name(v->policy));
	json_str(j, "fallback", gpupath_policy_name(v->fallback));
	print_queue_timeout_json(j, v->queue_timeout);
	json_u64(j, "size", v->size);
	json_u64(j, "block_size", v->block_size);
	json_str(j, "mode", gpupath_volume_mode_name(v->mode));
	json_u64(j, "open", v->open);
	json_u64(j, "paths", v->paths);
	json_u64(j, "usable", v->usable);
	json_obj_open(j, "stats");
	json_u64(j, "ios", st->ios);
	json_u64(j, "bytes", st->bytes);
	json_u64(j, "errors", st->errors);
	json_u64(j, "retries", st->retries);
	json_u64(j, "queued", st->queued);
	json_u64(j, "refused", st->refused);
	json_u64(j, "failovers", st->failovers);
	json_u64(j, "failover_last_ns", st->failover_last_ns);
	json_u64(j, "failover_max_ns", st->failover_max_ns);
	json_u64(j, "inflight", st->inflight);
	json_obj_close(j);
	/* "paths" is their number. */
	json_arr_open(j, "path_list");
	for (i = 0; i < v->npaths; i++)
		cli_paths.print(cli, &v->path[i]);
	json_arr_close(j);
	json_obj_close(j);
}

static void print_volume_text(const struct gpupath_volume *v)
{
	const struct gpupath_volume_stats *st = &v->stats;
	const struct cli_counter io[] = {
		CLI_COUNT("ios", st->ios), CLI_COUNT("bytes", st->bytes),
		CLI_COUNT("errors", st->errors),
		CLI_COUNT("retries", st->retries), CLI_COUNT("queued", st->queued),
		CLI_COUNT("refused", st->refused), CLI_COUNT("inflight", st->inflight),
	};
	const struct cli_counter failover[] = {
		CLI_COUNT("failovers", st->failovers),
		CLI_NS("last-failover", st->failover_last_ns),
		CLI_NS("max-failover", st->failover_max_ns),
	};
	unsigned int i;

	printf("volume %u: %s wwid %s size %" PRIu64 " block-size %u mode %s open %u\n", v->id,
	       v->name, v->wwid[0] ? v->wwid : "none", v->size, v->block_size,
	       gpupath_volume_mode_name(v->mode), v->open);
	printf("    policy %s fallback %s queue-timeout ", gpupath_policy_name(v->policy),
	       gpupath_policy_name(v->fallback));
	if (v->queue_timeout == GPUPATH_QUEUE_FOREVER)
		printf("forever");
	else
		printf("%u", v->queue_timeout);
	printf(" paths %u usable %u\n", v->paths, v->usable);
	cli_print_counters(4, io, sizeof(io) / sizeof(io[0]));
	cli_print_counters(4, failover, sizeof(failover) / sizeof(failover[0]));
	for (i = 0; i < v->npaths; i++)
		cli_print_path_text(&v->path[i], 4);
	if (v->paths > v->npaths)
		printf("    (%u more paths not shown)\n", v->paths - v->npaths);
}

static void print_volume(struct cli *cli, const void *obj)
{
	if (cli->json)
		print_volume_json(cli, obj);
	else
		print_volume_text(obj);
}

/* A volume's id from its name ("gpupath0"). */
static int lookup_volume(struct cli *cli, const char *name, uint32_t *id)
{
	struct gpupath_volume *list;
	size_t n, i;
	int r;

	r = gpupath_ctl_volume_list(cli->ctl, &list, sizeof(*list), &n);
	if (r < 0)
		return cli_err(cli, r, "volume dump", gpupath_ctl_errmsg(cli->ctl));
	r = 1;
	for (i = 0; i < n && r; i++) {
		if (!strcmp(list[i].name, name)) {
			*id = list[i].id;
			r = 0;
		}
	}
	free(list);
	if (r)
		fprintf(stderr, "gpupath: no volume '%s'\n", name);
	return r;
}

const struct cli_kind cli_volumes = {
	"volume", "volumes", sizeof(struct gpupath_volume), print_volume, gpupath_ctl_volume_del,
	lookup_volume,
};

int cli_print_volumes(struct cli *cli, struct gpupath_ctl *ctl, bool optional)
{
	struct gpupath_volume *list;
	size_t n;
	int r;

	r = gpupath_ctl_volume_list(ctl, &list, sizeof(*list), &n);
	if (r == -EOPNOTSUPP && optional)
		return 0;
	if (r < 0)
		return cli_err(cli, r, "volume dump", gpupath_ctl_errmsg(ctl));
	cli_print_array(cli, &cli_volumes, list, n);
	free(list);
	return 0;
}

/* ---- commands ------------------------------------------------------------ */

static int volume_show(struct cli *cli, int argc, char **argv)
{
	struct gpupath_volume v;
	uint32_t id;
	int r;

	if (argc > 1)
		return 2;
	if (argc == 0) {
		if (!cli_ctl(cli))
			return 1;
		cli_output_begin(cli);
		return cli_output_end(cli, cli_print_volumes(cli, cli->ctl, false));
	}
	r = cli_target(cli, &cli_volumes, argv[0], &id);
	if (r)
		return r;
	return cli_print_reply(cli, gpupath_ctl_volume_get(cli->ctl, id, &v, sizeof(v)),
			       "volume show", &cli_volumes, &v);
}

static int volume_add(struct cli *cli, int argc, char **argv)
{
	struct gpupath_volume_conf conf = { 0 };
	struct gpupath_volume v;

	if (cli_parse_kws(argc, argv, gpupath_volume_kws, GPUPATH_VOLUME_KWS, &conf, &conf.set))
		return 2;
	if (!cli_ctl(cli))
		return 1;
	return cli_print_reply(cli, gpupath_ctl_volume_add(cli->ctl, &conf, &v, sizeof(v)),
			       "volume add", &cli_volumes, &v);
}

static int volume_set(struct cli *cli, int argc, char **argv)
{
	struct gpupath_volume_conf conf = { 0 };
	uint32_t id;
	int r;

	r = cli_parse_set(cli, &cli_volumes, argc, argv, gpupath_volume_kws + 1,
			  GPUPATH_VOLUME_KWS - 1, &conf, &conf.set, &id);
	return r ? r : cli_done(cli, gpupath_ctl_volume_set(cli->ctl, id, &conf), "volume set");
}

static int volume_del(struct cli *cli, int argc, char **argv)
{
	return cli_del(cli, &cli_volumes, argc, argv);
}

static const char volume_usage[] =
	"gpupath volume [show [VOL]] [-j]\n"
	"       gpupath volume add [wwid WWID] [policy POLICY] [fallback POLICY]\n"
	"                          [queue-timeout MS|forever]\n"
	"       gpupath volume set VOL [policy POLICY] [fallback POLICY] [queue-timeout MS|forever]\n"
	"       gpupath volume del VOL\n"
	"VOL is a volume's id or name (gpupath0). POLICY is one of round-robin, queue-depth,\n"
	"service-time, weighted, gpu-affinity (fallback: not gpu-affinity).";

int cmd_volume(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd subs[] = {
		{ "show", NULL, volume_show },
		{ "add", NULL, volume_add },
		{ "set", NULL, volume_set },
		{ "del", NULL, volume_del },
	};

	return cli_subcommand(cli, argc, argv, "volume", volume_usage, subs,
			      sizeof(subs) / sizeof(subs[0]));
}
