// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath portal: the fabric targets gpupathd keeps connected.
 *
 *   gpupath portal [show [PORTAL]] [-j]
 *   gpupath portal add NAME transport rdma|tcp traddr ADDR [nqn NQN] [KEYWORD VALUE]...
 *   gpupath portal set PORTAL KEYWORD VALUE...
 *   gpupath portal del PORTAL
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_tmo_json(struct json *j, const char *key, uint32_t v)
{
	if (v == GPUPATH_TMO_FOREVER)
		json_null(j, key);
	else
		json_u64(j, key, v);
}

/* A string, or null when it is empty (the default). */
static void json_str_or_null(struct json *j, const char *key, const char *s)
{
	if (*s)
		json_str(j, key, s);
	else
		json_null(j, key);
}

static void print_portal_json(struct json *j, const struct gpupath_portal *p)
{
	unsigned int i;

	json_obj_open(j, NULL);
	json_u64(j, "id", p->id);
	json_str(j, "name", p->name);
	json_str(j, "transport", gpupath_transport_name(p->transport));
	json_str(j, "discover", gpupath_portal_discover_name(p->discover));
	if (p->discover == GPUPATH_DISCOVER_MDNS) {
		json_null(j, "traddr");
		json_null(j, "trsvcid");
	} else {
		json_str(j, "traddr", p->traddr);
		json_u64(j, "trsvcid", p->trsvcid);
	}
	if (p->discovery)
		json_null(j, "subsysnqn");
	else
		json_str(j, "subsysnqn", p->subsysnqn);
	if (p->qos[0])
		json_str(j, "qos", p->qos);
	else
		json_null(j, "qos");
	print_tmo_json(j, "ctrl_loss_tmo", p->ctrl_loss_tmo);
	print_tmo_json(j, "fast_io_fail_tmo", p->fast_io_fail_tmo);
	json_u64(j, "reconnect_delay", p->reconnect_delay);
	json_u64(j, "nr_io_queues", p->nr_io_queues);
	json_str_or_null(j, "host_nqn", p->host_nqn);
	json_str_or_null(j, "host_id", p->host_id);
	json_str_or_null(j, "dhchap_secret_file", p->secret_file);
	json_str_or_null(j, "dhchap_ctrl_secret_file", p->ctrl_secret_file);
	json_arr_open(j, "rails");
	for (i = 0; i < p->nrails; i++) {
		json_obj_open(j, NULL);
		json_u64(j, "id", p->rail[i].id);
		if (p->rail[i].iface[0])
			json_str(j, "iface", p->rail[i].iface);
		if (p->rail[i].addr[0])
			json_str(j, "addr", p->rail[i].addr);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "connections");
	for (i = 0; i < p->nconns; i++) {
		const struct gpupath_portal_conn *c = &p->conn[i];

		json_obj_open(j, NULL);
		json_u64(j, "rail", c->rail);
		json_str(j, "subsysnqn", c->subsysnqn);
		json_str(j, "traddr", c->traddr);
		json_u64(j, "trsvcid", c->trsvcid);
		json_str(j, "state", gpupath_conn_state_name(c->state));
		if (c->controller[0])
			json_str(j, "controller", c->controller);
		else
			json_null(j, "controller");
		json_u64(j, "attempts", c->attempts);
		if (c->error)
			json_str(j, "error", strerror(c->error));
		else
			json_null(j, "error");
		json_u64(j, "retry_ms", c->retry_ms);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

static void print_tmo_text(const char *label, uint32_t v, const char *never)
{
	if (v == GPUPATH_TMO_FOREVER)
		printf(" %s %s", label, never);
	else
		printf(" %s %u", label, v);
}

static void print_portal_text(const struct gpupath_portal *p)
{
	unsigned int i;

	if (p->discover == GPUPATH_DISCOVER_MDNS)
		printf("portal %u: %s %s discovery by mdns\n", p->id, p->name,
		       gpupath_transport_name(p->transport));
	else
		printf("portal %u: %s %s %s:%u %s\n", p->id, p->name,
		       gpupath_transport_name(p->transport), p->traddr, p->trsvcid,
		       p->discovery ? "discovery" : p->subsysnqn);
	printf("    qos %s", p->qos[0] ? p->qos : "none");
	print_tmo_text("ctrl-loss-tmo", p->ctrl_loss_tmo, "forever");
	print_tmo_text("fast-io-fail-tmo", p->fast_io_fail_tmo, "off");
	printf(" reconnect-delay %u nr-io-queues ", p->reconnect_delay);
	if (p->nr_io_queues)
		printf("%u\n", p->nr_io_queues);
	else
		printf("default\n");
	if (p->host_nqn[0] || p->host_id[0] || p->secret_file[0])
		printf("    host-nqn %s host-id %s authentication %s\n",
		       p->host_nqn[0] ? p->host_nqn : "system", p->host_id[0] ? p->host_id : "system",
		       p->ctrl_secret_file[0] ? "bidirectional" :
		       p->secret_file[0] ? "host" : "none");
	if (p->secret_file[0])
		printf("    dhchap-secret-file %s\n", p->secret_file);
	if (p->ctrl_secret_file[0])
		printf("    dhchap-ctrl-secret-file %s\n", p->ctrl_secret_file);
	for (i = 0; i < p->nrails; i++)
		printf("    rail %u:%s%s%s%s\n", p->rail[i].id, p->rail[i].iface[0] ? " " : "",
		       p->rail[i].iface, p->rail[i].addr[0] ? " from " : "", p->rail[i].addr);
	for (i = 0; i < p->nconns; i++) {
		const struct gpupath_portal_conn *c = &p->conn[i];

		printf("    connection rail %u %s:%u %s: %s", c->rail, c->traddr, c->trsvcid,
		       c->subsysnqn, gpupath_conn_state_name(c->state));
		if (c->controller[0])
			printf(" %s", c->controller);
		if (c->attempts)
			printf(", %u failed attempts", c->attempts);
		if (c->error)
			printf(", last: %s", strerror(c->error));
		if (c->state == GPUPATH_CONN_BACKOFF)
			printf(", next in %.1fs", c->retry_ms / 1e3);
		printf("\n");
	}
	if (!p->nconns)
		printf("    no connections reported (is gpupathd running?)\n");
}

static void print_portal(struct cli *cli, const void *obj)
{
	if (cli->json)
		print_portal_json(&cli->j, obj);
	else
		print_portal_text(obj);
}

/* Portals are named by id or name; ids are what the kernel takes. */
static int lookup_portal(struct cli *cli, const char *name, uint32_t *id)
{
	struct gpupath_portal *p = malloc(sizeof(*p));
	int r;

	if (!p)
		return cli_err(cli, -ENOMEM, "portal", NULL);
	r = gpupath_ctl_portal_get(cli->ctl, 0, name, p, sizeof(*p));
	if (r < 0) {
		free(p);
		return cli_err(cli, r, "portal", gpupath_ctl_errmsg(cli->ctl));
	}
	*id = p->id;
	free(p);
	return 0;
}

static int del_portal(struct gpupath_ctl *ctl, uint32_t id)
{
	return gpupath_ctl_portal_del(ctl, id, NULL);
}

const struct cli_kind cli_portals = {
	"portal", "portals", sizeof(struct gpupath_portal), print_portal, del_portal,
	lookup_portal,
};

/* ---- commands ------------------------------------------------------------ */

static int portal_show(struct cli *cli, int argc, char **argv)
{
	struct gpupath_portal *list, *p;
	uint32_t id;
	size_t n;
	int r;

	if (argc > 1)
		return 2;
	if (argc == 1) {
		r = cli_target(cli, &cli_portals, argv[0], &id);
		if (r)
			return r;
		p = malloc(sizeof(*p));
		if (!p)
			return cli_err(cli, -ENOMEM, "portal show", NULL);
		r = cli_print_reply(cli, gpupath_ctl_portal_get(cli->ctl, id, NULL, p, sizeof(*p)),
				    "portal show", &cli_portals, p);
		free(p);
		return r;
	}
	if (!cli_ctl(cli))
		return 1;
	r = gpupath_ctl_portal_list(cli->ctl, &list, sizeof(*list), &n);
	if (r < 0)
		return cli_err(cli, r, "portal dump", gpupath_ctl_errmsg(cli->ctl));
	cli_output_begin(cli);
	cli_print_array(cli, &cli_portals, list, n);
	free(list);
	return cli_output_end(cli, 0);
}

static int portal_add(struct cli *cli, int argc, char **argv)
{
	struct gpupath_portal_conf conf = { 0 };
	struct gpupath_portal *p;
	int r;

	if (argc < 1)
		return 2;
	conf.name = argv[0];
	if (cli_parse_objname("portal", conf.name) ||
	    cli_parse_kws(argc - 1, argv + 1, gpupath_portal_kws, GPUPATH_PORTAL_KWS, &conf,
			  &conf.set))
		return 2;
	if (!conf.transport ||
	    (!conf.traddr && !((conf.set & GPUPATH_PORTAL_SET_DISCOVER) &&
			       conf.discover == GPUPATH_DISCOVER_MDNS))) {
		fprintf(stderr,
			"gpupath: portal add: transport and traddr (or discover mdns) are needed\n");
		return 2;
	}
	if (!cli_ctl(cli))
		return 1;
	p = malloc(sizeof(*p));
	if (!p)
		return cli_err(cli, -ENOMEM, "portal add", NULL);
	r = cli_print_reply(cli, gpupath_ctl_portal_add(cli->ctl, &conf, p, sizeof(*p)),
			    "portal add", &cli_portals, p);
	free(p);
	return r;
}

static int portal_set(struct cli *cli, int argc, char **argv)
{
	struct gpupath_portal_conf conf = { 0 };
	uint32_t id;
	int r;

	r = cli_parse_set(cli, &cli_portals, argc, argv, gpupath_portal_kws,
			  GPUPATH_PORTAL_SET_KWS, &conf, &conf.set, &id);
	return r ? r : cli_done(cli, gpupath_ctl_portal_set(cli->ctl, id, NULL, &conf),
				"portal set");
}

static int portal_del(struct cli *cli, int argc, char **argv)
{
	return cli_del(cli, &cli_portals, argc, argv);
}

static const char portal_usage[] =
	"gpupath portal [show [PORTAL]] [-j]\n"
	"       gpupath portal add NAME transport rdma|tcp traddr ADDR [trsvcid PORT] [nqn NQN]\n"
	"                          [SETTING]...\n"
	"       gpupath portal add NAME transport rdma|tcp discover mdns rails ... [SETTING]...\n"
	"       gpupath portal set PORTAL SETTING...\n"
	"       gpupath portal del PORTAL\n"
	"PORT defaults to 4420. SETTING: rails RAIL:IFACE[@ADDR]|RAIL:@ADDR,...,\n"
	"         qos CLASS, ctrl-loss-tmo SECONDS|forever, fast-io-fail-tmo SECONDS|off,\n"
	"         reconnect-delay SECONDS, nr-io-queues N (0: the host's default),\n"
	"         host-nqn NQN, host-id UUID ('': the system's), dhchap-secret-file FILE,\n"
	"         dhchap-ctrl-secret-file FILE (DH-HMAC-CHAP: root-only files; '': none).\n"
	"PORTAL is a portal's id or name. Without nqn, ADDR is a discovery controller\n"
	"and gpupathd connects every subsystem its log page lists. With discover mdns,\n"
	"the discovery controllers are the _nvme-disc._tcp services (TP8009) announced\n"
	"on each rail's interface. Each rail connects once from its interface (and\n"
	"host address).";

int cmd_portal(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd subs[] = {
		{ "show", NULL, portal_show },
		{ "add", NULL, portal_add },
		{ "set", NULL, portal_set },
		{ "del", NULL, portal_del },
	};

	return cli_subcommand(cli, argc, argv, "portal", portal_usage, subs,
			      sizeof(subs) / sizeof(subs[0]));
}
