// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath monitor: print notifications as they arrive, with the printers
 * that gpupath show uses.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct monitor {
	struct cli *cli;
	long seen;
};

static void print_loaded(struct cli *cli)
{
	struct gpupath_info info;
	struct gpupath_ctl *ctl;
	int r;

	r = gpupath_ctl_open(&ctl);
	if (r == 0) {
		r = gpupath_ctl_get_info(ctl, &info, sizeof(info));
		gpupath_ctl_close(ctl);
	}
	if (cli->json) {
		json_obj_open(&cli->j, NULL);
		json_str(&cli->j, "event", "module-loaded");
		if (r == 0)
			cli_print_info(cli, &info);
		json_obj_close(&cli->j);
		json_end(&cli->j);
		return;
	}
	printf("module loaded\n");
	if (r == 0)
		cli_print_info(cli, &info);
}

/* What happened to a volume (GPUPATH_CMD_EVENT). */
static void print_volume_event(struct cli *cli, const struct gpupath_volume_event *e)
{
	const char *name = gpupath_event_name(e->type);
	struct json *j = &cli->j;
	char ns[32];

	if (cli->json) {
		json_obj_open(j, "volume_event");
		if (strcmp(name, "unknown"))
			json_str(j, "type", name);
		else
			json_u64(j, "type", e->type);
		json_u64(j, "volume", e->volume);
		json_u64(j, "path", e->path);
		json_u64(j, "error", e->error);
		json_u64(j, "nsec", e->nsec);
		json_u64(j, "ios", e->ios);
		json_obj_close(j);
		return;
	}
	printf("  %s volume %u", name, e->volume);
	if (e->path)
		printf(" path %u", e->path);
	if (e->nsec)
		printf(" in %s", cli_format_ns(e->nsec, ns, sizeof(ns)));
	if (e->ios)
		printf(" ios %" PRIu64, e->ios);
	if (e->error)
		printf(" error %u (%s)", e->error, strerror(e->error));
	printf("\n");
}

/* The objects a notification carries, each copied out in turn. */
static void print_objects(const struct gpupath_mon_event *ev, struct cli *cli)
{
	union {
		struct gpupath_info info;
		struct gpupath_provider provider;
		struct gpupath_volume volume;
		struct gpupath_path path;
		struct gpupath_volume_event event;
		struct gpupath_portal portal;
		struct gpupath_qos qos;
	} o;

	if (!gpupath_mon_event_info(ev, &o.info, sizeof(o.info)))
		cli_print_info(cli, &o.info);
	if (!gpupath_mon_event_provider(ev, &o.provider, sizeof(o.provider)))
		cli_print_array(cli, &cli_providers, &o.provider, 1);
	if (!gpupath_mon_event_volume(ev, &o.volume, sizeof(o.volume)))
		cli_print_array(cli, &cli_volumes, &o.volume, 1);
	if (!gpupath_mon_event_path(ev, &o.path, sizeof(o.path)))
		cli_print_array(cli, &cli_paths, &o.path, 1);
	if (!gpupath_mon_event_volume_event(ev, &o.event, sizeof(o.event)))
		print_volume_event(cli, &o.event);
	if (!gpupath_mon_event_portal(ev, &o.portal, sizeof(o.portal)))
		cli_print_array(cli, &cli_portals, &o.portal, 1);
	if (!gpupath_mon_event_qos(ev, &o.qos, sizeof(o.qos)))
		cli_print_array(cli, &cli_qos, &o.qos, 1);
}

static void print_event(const struct gpupath_mon_event *ev, struct cli *cli)
{
	const char *cmd = gpupath_cmd_name(ev->cmd);

	if (cli->json) {
		json_obj_open(&cli->j, NULL);
		json_str(&cli->j, "event", "notify");
		json_str(&cli->j, "group", ev->group ? ev->group : "");
		if (cmd)
			json_str(&cli->j, "cmd", cmd);
		else
			json_u64(&cli->j, "cmd", ev->cmd);
		print_objects(ev, cli);
		json_obj_close(&cli->j);
		json_end(&cli->j);
		return;
	}
	printf("[%s] %s\n", ev->group ? ev->group : "?", cmd ? cmd : "unknown command");
	print_objects(ev, cli);
}

static void on_event(const struct gpupath_mon_event *ev, void *arg)
{
	struct monitor *m = arg;
	struct cli *cli = m->cli;

	m->seen++;
	switch (ev->type) {
	case GPUPATH_EVENT_FAMILY_NEW:
		print_loaded(cli);
		break;
	case GPUPATH_EVENT_FAMILY_DEL:
		if (cli->json) {
			json_obj_open(&cli->j, NULL);
			json_str(&cli->j, "event", "module-unloaded");
			json_obj_close(&cli->j);
			json_end(&cli->j);
		} else {
			printf("module unloaded\n");
		}
		break;
	case GPUPATH_EVENT_NOTIFY:
		print_event(ev, cli);
		break;
	}
	fflush(stdout);
}

static const char monitor_usage[] = "gpupath monitor [-j] [-c|--count N]";

static int parse_args(struct cli *cli, int argc, char **argv, long *count)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	optind = 0;	/* 0: a full re-initialisation of GNU getopt */
	while ((c = getopt_long(argc, argv, "jc:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			cli->json = true;
			break;
		case 'c':
			errno = 0;
			*count = strtol(optarg, &end, 10);
			if (errno || *end || *count <= 0) {
				fprintf(stderr, "gpupath: --count needs a positive number, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'h':
			printf("Usage: %s\n", monitor_usage);
			exit(0);
		default:
			fprintf(stderr, "Usage: %s\n", monitor_usage);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "Usage: %s\n", monitor_usage);
		return -1;
	}
	return 0;
}

int cmd_monitor(struct cli *cli, int argc, char **argv)
{
	struct monitor m = { .cli = cli };
	struct gpupath_mon *mon;
	struct pollfd pfd;
	long count = 0;
	bool loaded;
	int r;

	if (parse_args(cli, argc, argv, &count) < 0)
		return 2;
	r = gpupath_mon_open(&mon, &loaded);
	if (r < 0)
		return cli_err(cli, r, "subscribe", NULL);
	fprintf(stderr, "gpupath: monitoring (module %s)\n", loaded ? "loaded" : "not loaded");
	pfd.fd = gpupath_mon_fd(mon);
	pfd.events = POLLIN;
	while (!count || m.seen < count) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			r = cli_err(cli, -errno, "poll", NULL);
			break;
		}
		r = gpupath_mon_dispatch(mon, on_event, &m);
		if (r < 0) {
			r = cli_err(cli, r, "receive", NULL);
			break;
		}
		r = 0;
	}
	gpupath_mon_close(mon);
	return r;
}
