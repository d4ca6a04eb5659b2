/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GPUPATH_CLI_H
#define GPUPATH_CLI_H

#include <stdbool.h>

#include "json.h"
#include "libgpupath.h"

struct cli {
	bool json;
	struct json j;
	char **argv0;	/* main()'s argv */
};

struct cli_cmd {
	const char *name;
	const char *help;
	int (*fn)(struct cli *cli, int argc, char **argv);
};

/* Report a failed call once: "gpupath: what: strerror[: kernel message]". */
int cli_err(struct cli *cli, int r, const char *what, const char *kmsg);
/* Open the control socket; explains a missing module. */
int cli_ctl_open(struct cli *cli, struct gpupath_ctl **ctl);
/*
 * Parse the options every command takes (-j, -h); returns the index of the
 * first argument that is not an option, or -1 after printing the usage.
 */
int cli_parse_opts(struct cli *cli, int argc, char **argv, const char *usage);
/* The same for commands without arguments: returns argc or -1. */
int cli_parse_common(struct cli *cli, int argc, char **argv, const char *usage);

/* Print a module description, as text or JSON members of the open object. */
void cli_print_info(struct cli *cli, const struct gpupath_info *info);
/* Print a provider, as text or a JSON object. */
void cli_print_provider(struct cli *cli, const struct gpupath_provider *p);
/* Dump the providers: text, or a JSON array member "providers". */
int cli_print_providers(struct cli *cli, struct gpupath_ctl *ctl);

int cmd_version(struct cli *cli, int argc, char **argv);
int cmd_show(struct cli *cli, int argc, char **argv);
int cmd_monitor(struct cli *cli, int argc, char **argv);
int cmd_provider(struct cli *cli, int argc, char **argv);
int cmd_stats(struct cli *cli, int argc, char **argv);

#endif /* GPUPATH_CLI_H */
