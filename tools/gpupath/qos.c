// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath qos: QoS classes, which portals name and gpupathd applies.
 *
 *   gpupath qos [show [NAME]] [-j]
 *   gpupath qos add NAME dscp N [priority N] [pfc on|off] [ets PERCENT]
 *   gpupath qos set NAME [dscp N] [priority N] [pfc on|off] [ets PERCENT]
 *   gpupath qos del NAME
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_qos_json(struct json *j, const struct gpupath_qos *q)
{
	unsigned int i;

	json_obj_open(j, NULL);
	json_str(j, "name", q->name);
	json_u64(j, "dscp", q->dscp);
	json_u64(j, "tos", q->dscp << 2);
	json_u64(j, "priority", q->priority);
	json_bool(j, "pfc", q->pfc);
	json_u64(j, "ets", q->ets);
	json_u64(j, "portals", q->portals);
	json_arr_open(j, "applied");
	for (i = 0; i < q->napplied; i++) {
		const struct gpupath_qos_applied *a = &q->applied[i];

		json_obj_open(j, NULL);
		json_str(j, "device", a->device);
		json_str(j, "setting", a->setting);
		json_str(j, "result", gpupath_applied_name(a->result));
		if (a->error)
			json_str(j, "error", strerror(a->error));
		else
			json_null(j, "error");
		json_u64(j, "value", a->value);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

static void print_qos_text(const struct gpupath_qos *q)
{
	unsigned int i;

	printf("qos %s: dscp %u (tos 0x%02x) priority %u pfc %s ets %u%% portals %u\n", q->name,
	       q->dscp, q->dscp << 2, q->priority, q->pfc ? "on" : "off", q->ets, q->portals);
	for (i = 0; i < q->napplied; i++) {
		const struct gpupath_qos_applied *a = &q->applied[i];

		printf("    %s %s: %s", a->device, a->setting, gpupath_applied_name(a->result));
		if (a->result == GPUPATH_APPLIED_OK)
			printf(" (%u)", a->value);
		if (a->error)
			printf(": %s", strerror(a->error));
		printf("\n");
	}
}

static void print_qos(struct cli *cli, const void *obj)
{
	if (cli->json)
		print_qos_json(&cli->j, obj);
	else
		print_qos_text(obj);
}

const struct cli_kind cli_qos = {
	"qos", "qos", sizeof(struct gpupath_qos), print_qos, NULL, NULL,
};

/* ---- commands ------------------------------------------------------------ */

static int qos_show(struct cli *cli, int argc, char **argv)
{
	struct gpupath_qos *list, *q;
	size_t n;
	int r;

	if (argc > 1)
		return 2;
	if (!cli_ctl(cli))
		return 1;
	if (argc == 1) {
		q = malloc(sizeof(*q));
		if (!q)
			return cli_err(cli, -ENOMEM, "qos show", NULL);
		r = cli_print_reply(cli, gpupath_ctl_qos_get(cli->ctl, argv[0], q, sizeof(*q)),
				    "qos show", &cli_qos, q);
		free(q);
		return r;
	}
	r = gpupath_ctl_qos_list(cli->ctl, &list, sizeof(*list), &n);
	if (r < 0)
		return cli_err(cli, r, "qos dump", gpupath_ctl_errmsg(cli->ctl));
	cli_output_begin(cli);
	cli_print_array(cli, &cli_qos, list, n);
	free(list);
	return cli_output_end(cli, 0);
}

static int qos_add(struct cli *cli, int argc, char **argv)
{
	struct gpupath_qos_conf conf = { 0 };
	struct gpupath_qos *q;
	int r;

	if (argc < 1)
		return 2;
	if (cli_parse_objname("qos class", argv[0]) ||
	    cli_parse_kws(argc - 1, argv + 1, gpupath_qos_kws, GPUPATH_QOS_KWS, &conf, &conf.set))
		return 2;
	if (!(conf.set & GPUPATH_QOS_SET_DSCP)) {
		fprintf(stderr, "gpupath: qos add: a class needs a dscp\n");
		return 2;
	}
	if (!cli_ctl(cli))
		return 1;
	q = malloc(sizeof(*q));
	if (!q)
		return cli_err(cli, -ENOMEM, "qos add", NULL);
	r = cli_print_reply(cli, gpupath_ctl_qos_add(cli->ctl, argv[0], &conf, q, sizeof(*q)),
			    "qos add", &cli_qos, q);
	free(q);
	return r;
}

static int qos_set(struct cli *cli, int argc, char **argv)
{
	struct gpupath_qos_conf conf = { 0 };

	if (argc < 1)
		return 2;
	if (cli_parse_kws(argc - 1, argv + 1, gpupath_qos_kws, GPUPATH_QOS_KWS, &conf, &conf.set))
		return 2;
	if (!conf.set) {
		fprintf(stderr, "gpupath: qos set: nothing to set\n");
		return 2;
	}
	if (!cli_ctl(cli))
		return 1;
	return cli_done(cli, gpupath_ctl_qos_set(cli->ctl, argv[0], &conf), "qos set");
}

static int qos_del(struct cli *cli, int argc, char **argv)
{
	if (argc != 1)
		return 2;
	if (!cli_ctl(cli))
		return 1;
	return cli_done(cli, gpupath_ctl_qos_del(cli->ctl, argv[0]), "qos del");
}

static const char qos_usage[] =
	"gpupath qos [show [NAME]] [-j]\n"
	"       gpupath qos add NAME dscp N [priority N] [pfc on|off] [ets PERCENT]\n"
	"       gpupath qos set NAME [dscp N] [priority N] [pfc on|off] [ets PERCENT]\n"
	"       gpupath qos del NAME\n"
	"DSCP is 0 to 63 (the IP ToS byte is DSCP << 2), priority 0 to 7 (default 3),\n"
	"ETS a bandwidth share in percent (0: none). Portals name a class (portal\n"
	"add ... qos NAME); gpupathd applies it and reports each setting per device.";

int cmd_qos(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd subs[] = {
		{ "show", NULL, qos_show },
		{ "add", NULL, qos_add },
		{ "set", NULL, qos_set },
		{ "del", NULL, qos_del },
	};

	return cli_subcommand(cli, argc, argv, "qos", qos_usage, subs,
			      sizeof(subs) / sizeof(subs[0]));
}
