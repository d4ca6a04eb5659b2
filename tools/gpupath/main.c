// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath: configure and inspect gpupath over generic netlink.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct cli_cmd commands[] = {
	{ "show", "show the module, its features and what it serves", cmd_show },
	{ "provider", "device memory: show, add PCI_DEV, del ID", cmd_provider },
	{ "volume", "multipath volumes: show, add, set, del", cmd_volume },
	{ "path", "the paths of volumes: show, add VOL DEVICE, set, del", cmd_path },
	{ "portal", "fabric targets gpupathd keeps connected: show, add, set, del",
	  cmd_portal },
	{ "qos", "QoS classes (DSCP, priority, PFC, ETS) portals use: show, add, set, del",
	  cmd_qos },
	{ "topology", "the PCIe tree of GPUs, NICs and NVMe, and the rails it gives",
	  cmd_topology },
	{ "diagnose", "where the GPU waits: paths, rail alignment, P2P, QoS, a probe; the fix",
	  cmd_diagnose },
	{ "stats", "every counter: providers, volumes and paths, portals, QoS (-j, --prometheus)", cmd_stats },
	{ "monitor", "print notifications as they arrive", cmd_monitor },
	{ "run", "run a program with gpupath's cuFile library in place of NVIDIA's", cmd_run },
	{ "cufile", "which cuFile library processes have loaded: gpupath's or another", cmd_cufile },
	{ "version", "print the versions of the tools and the module", cmd_version },
};

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "Usage: gpupath [-j] COMMAND [ARGS...]\n\nCommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nOptions:\n  -j, --json  print JSON\n  -h, --help  this help\n");
}

int cli_err(struct cli *cli, int r, const char *what, const char *kmsg)
{
	(void)cli;
	if (kmsg)
		fprintf(stderr, "gpupath: %s: %s: %s\n", what, strerror(-r), kmsg);
	else
		fprintf(stderr, "gpupath: %s: %s\n", what, strerror(-r));
	return 1;
}

static int cli_ctl_open(struct cli *cli, struct gpupath_ctl **ctl)
{
	int r = gpupath_ctl_open(ctl);

	if (r == -ENOENT) {
		fprintf(stderr, "gpupath: the gpupath module is not loaded (try: modprobe gpupath)\n");
		return 1;
	}
	if (r < 0)
		return cli_err(cli, r, "generic netlink", NULL);
	return 0;
}

struct gpupath_ctl *cli_ctl(struct cli *cli)
{
	if (!cli->ctl && cli_ctl_open(cli, &cli->ctl))
		cli->ctl = NULL;
	return cli->ctl;
}

int cli_parse_common(struct cli *cli, int argc, char **argv, const char *usage_line)
{
	int idx = cli_parse_opts(cli, argc, argv, usage_line);

	if (idx >= 0 && idx != argc) {
		fprintf(stderr, "Usage: %s\n", usage_line);
		return -1;
	}
	return idx;
}

/* A command's own option (-j, -h and their long forms, -jh); false if unknown. */
static bool command_opt(struct cli *cli, const char *arg, const char *usage_line)
{
	const char *c;

	if (!strcmp(arg, "--json")) {
		cli->json = true;
		return true;
	}
	if (!strcmp(arg, "--help"))
		arg = "-h";
	if (arg[1] == '-' || !arg[1])
		return false;
	for (c = arg + 1; *c; c++)
		if (*c != 'j' && *c != 'h')
			return false;
	if (strchr(arg, 'h')) {
		printf("Usage: %s\n", usage_line);
		exit(0);
	}
	cli->json = true;
	return true;
}

int cli_parse_opts(struct cli *cli, int argc, char **argv, const char *usage_line)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i, n = 1;
	char *arg;

	if (argv != cli->argv0) {
		/*
		 * Commands take their options anywhere, and a word that is
		 * a negative number ("dscp -1") is an argument, for its own
		 * check to refuse: the options go to the front, in order,
		 * the arguments after them, as getopt would leave them.
		 */
		for (i = 1; i < argc; i++) {
			arg = argv[i];
			if (arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9'))
				continue;
			if (strcmp(arg, "--") && !command_opt(cli, arg, usage_line)) {
				fprintf(stderr, "gpupath: unknown option '%s'\nUsage: %s\n", arg,
					usage_line);
				return -1;
			}
			memmove(&argv[n + 1], &argv[n], (i - n) * sizeof(*argv));
			argv[n++] = arg;
			if (!strcmp(arg, "--"))	/* the rest are arguments */
				break;
		}
		return n;
	}
	/* The top level stops at the command. */
	optind = 0;	/* 0: a full re-initialisation of GNU getopt */
	while ((c = getopt_long(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			cli->json = true;
			break;
		case 'h':
			printf("Usage: %s\n", usage_line);
			exit(0);
		default:
			fprintf(stderr, "Usage: %s\n", usage_line);
			return -1;
		}
	}
	return optind;
}

int cli_subcommand(struct cli *cli, int argc, char **argv, const char *what,
		   const char *usage_line, const struct cli_cmd *subs, unsigned int n)
{
	const struct cli_cmd *sub = &subs[0];
	unsigned int i;
	int idx, r;

	idx = cli_parse_opts(cli, argc, argv, usage_line);
	if (idx < 0)
		return 2;
	if (idx < argc) {
		for (sub = NULL, i = 0; i < n && !sub; i++)
			if (!strcmp(argv[idx], subs[i].name))
				sub = &subs[i];
		if (!sub) {
			fprintf(stderr, "gpupath: unknown %s command '%s'\nUsage: %s\n", what,
				argv[idx], usage_line);
			return 2;
		}
		idx++;
	}
	r = sub->fn(cli, argc - idx, argv + idx);
	if (r == 2)
		fprintf(stderr, "Usage: %s\n", usage_line);
	return r;
}

void cli_print_array(struct cli *cli, const struct cli_kind *kind, const void *items, size_t n)
{
	size_t i;

	if (cli->json)
		json_arr_open(&cli->j, kind->key);
	for (i = 0; i < n; i++)
		kind->print(cli, (const char *)items + i * kind->size);
	if (cli->json)
		json_arr_close(&cli->j);
}

int cli_done(struct cli *cli, int r, const char *what)
{
	return r < 0 ? cli_err(cli, r, what, gpupath_ctl_errmsg(cli->ctl)) : 0;
}

int cli_print_reply(struct cli *cli, int r, const char *what, const struct cli_kind *kind,
		    const void *obj)
{
	if (r < 0)
		return cli_done(cli, r, what);
	kind->print(cli, obj);
	if (cli->json && json_end(&cli->j))
		return 1;
	return 0;
}

void cli_output_begin(struct cli *cli)
{
	if (cli->json)
		json_obj_open(&cli->j, NULL);
}

int cli_output_end(struct cli *cli, int r)
{
	if (cli->json) {
		json_obj_close(&cli->j);
		if (json_end(&cli->j))
			r = 1;
	}
	return r;
}

int main(int argc, char **argv)
{
	struct cli cli = { 0 };
	unsigned int i;
	int idx;

	json_init(&cli.j, stdout);
	cli.argv0 = argv;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
			 !strcmp(argv[1], "help"))) {
		usage(stdout);
		return 0;
	}
	idx = cli_parse_opts(&cli, argc, argv, "gpupath [-j] COMMAND [ARGS...]");
	if (idx < 0)
		return 2;
	if (idx >= argc) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[idx], commands[i].name)) {
			idx = commands[i].fn(&cli, argc - idx, argv + idx);
			gpupath_ctl_close(cli.ctl);
			return idx;
		}
	}
	fprintf(stderr, "gpupath: unknown command '%s' (see gpupath --help)\n", argv[idx]);
	return 2;
}
