// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath provider: device memory that I/O can target.
 *
 *   gpupath provider [show [ID]] [-j]
 *   gpupath provider add PCI_DEV
 *   gpupath provider del ID
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_refused_json(struct json *j, const struct gpupath_provider *p)
{
	unsigned int r;

	json_obj_open(j, "refused");
	for (r = 1; r < GPUPATH_REASONS_KNOWN; r++) {
		if (!p->refused_ios[r])
			continue;
		json_obj_open(j, gpupath_reason_name(r));
		json_u64(j, "ios", p->refused_ios[r]);
		json_u64(j, "bytes", p->refused_bytes[r]);
		json_obj_close(j);
	}
	json_obj_close(j);
}

static void print_provider_json(struct json *j, const struct gpupath_provider *p)
{
	unsigned int i;

	json_obj_open(j, NULL);
	json_u64(j, "id", p->id);
	json_str(j, "type", gpupath_provider_type_name(p->type));
	json_str(j, "pci_dev", p->pci_dev);
	json_str(j, "driver", p->driver);
	json_bool(j, "owned", p->owned);
	if (p->bar >= 0)
		json_u64(j, "bar", p->bar);
	else
		json_null(j, "bar");
	json_arr_open(j, "peers");
	for (i = 0; i < p->npeers; i++) {
		json_obj_open(j, NULL);
		json_str(j, "pci_dev", p->peers[i].pci_dev);
		json_u64(j, "distance", p->peers[i].distance);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_u64(j, "size", p->size);
	json_u64(j, "allocated", p->allocated);
	json_u64(j, "available", p->available);
	json_obj_open(j, "stats");
	json_u64(j, "direct_ios", p->direct_ios);
	json_u64(j, "direct_bytes", p->direct_bytes);
	json_u64(j, "errors", p->errors);
	print_refused_json(j, p);
	json_obj_close(j);
	json_obj_close(j);
}

static void print_provider_text(const struct gpupath_provider *p)
{
	unsigned int r;

	printf("provider %u: %s %s (driver %s%s)\n", p->id, gpupath_provider_type_name(p->type),
	       p->pci_dev, p->driver[0] ? p->driver : "none", p->owned ? ", owned" : "");
	if (p->bar >= 0)
		printf("  BAR %d: ", p->bar);
	else
		printf("  ");
	printf("%" PRIu64 " KiB, %" PRIu64 " KiB allocated by gpupath, %" PRIu64
	       " KiB available\n", p->size >> 10, p->allocated >> 10, p->available >> 10);
	printf("  P2P peers:");
	for (r = 0; r < p->npeers; r++)
		printf(" %s (distance %u)", p->peers[r].pci_dev, p->peers[r].distance);
	printf("%s\n", p->npeers ? "" : " none");
	printf("  direct: %" PRIu64 " I/Os, %" PRIu64 " bytes, %" PRIu64 " errors\n",
	       p->direct_ios, p->direct_bytes, p->errors);
	for (r = 1; r < GPUPATH_REASONS_KNOWN; r++)
		if (p->refused_ios[r])
			printf("  refused (%s): %" PRIu64 " I/Os, %" PRIu64 " bytes\n",
			       gpupath_reason_name(r), p->refused_ios[r], p->refused_bytes[r]);
}

static void print_provider(struct cli *cli, const void *obj)
{
	if (cli->json)
		print_provider_json(&cli->j, obj);
	else
		print_provider_text(obj);
}

const struct cli_kind cli_providers = {
	"provider", "providers", sizeof(struct gpupath_provider), print_provider,
	gpupath_ctl_provider_del, NULL,
};

/* Print a list of providers: a JSON array member "providers", or text. */
int cli_print_providers(struct cli *cli, struct gpupath_ctl *ctl)
{
	struct gpupath_provider *list;
	size_t n;
	int r;

	r = gpupath_ctl_provider_list(ctl, &list, &n);
	if (r < 0)
		return cli_err(cli, r, "provider dump", gpupath_ctl_errmsg(ctl));
	cli_print_array(cli, &cli_providers, list, n);
	free(list);
	return 0;
}

/* Every provider: text, or one JSON object {"providers": [...]}. */
static int print_all(struct cli *cli)
{
	struct gpupath_ctl *ctl = cli_ctl(cli);

	if (!ctl)
		return 1;
	cli_output_begin(cli);
	return cli_output_end(cli, cli_print_providers(cli, ctl));
}

static int provider_show(struct cli *cli, int argc, char **argv)
{
	struct gpupath_provider p;
	uint32_t id;
	int r;

	if (argc > 1)
		return 2;
	if (argc == 0)
		return print_all(cli);
	r = cli_target(cli, &cli_providers, argv[0], &id);
	if (r)
		return r;
	return cli_print_reply(cli, gpupath_ctl_provider_get(cli->ctl, id, &p), "provider show",
			       &cli_providers, &p);
}

static int provider_add(struct cli *cli, int argc, char **argv)
{
	struct gpupath_provider p;

	if (argc != 1)
		return 2;
	if (!cli_ctl(cli))
		return 1;
	return cli_print_reply(cli, gpupath_ctl_provider_add(cli->ctl, argv[0], &p),
			       "provider add", &cli_providers, &p);
}

static int provider_del(struct cli *cli, int argc, char **argv)
{
	return cli_del(cli, &cli_providers, argc, argv);
}

static const char provider_usage[] =
	"gpupath provider [show [ID]] [-j] | add PCI_DEV | del ID";

int cmd_provider(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd subs[] = {
		{ "show", NULL, provider_show },
		{ "add", NULL, provider_add },
		{ "del", NULL, provider_del },
	};

	return cli_subcommand(cli, argc, argv, "provider", provider_usage, subs,
			      sizeof(subs) / sizeof(subs[0]));
}
