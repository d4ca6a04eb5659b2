// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath provider: device memory that I/O can target.
 *
 *   gpupath provider [show [ID]] [-j]
 *   gpupath provider add PCI_DEV
 *   gpupath provider del ID
 *   gpupath provider set ID [user-limit SIZE] [cgroup-limit SIZE]
 *   gpupath provider set ID cgroup PATH cgroup-limit SIZE|default
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Refused I/Os and bytes by reason, as a JSON object "refused" (providers, cgroups). */
void cli_print_refused_json(struct json *j, const uint64_t *ios, const uint64_t *bytes)
{
	unsigned int r;

	json_obj_open(j, "refused");
	for (r = 1; r < GPUPATH_REASONS_KNOWN; r++) {
		if (!ios[r])
			continue;
		json_obj_open(j, gpupath_reason_name(r));
		json_u64(j, "ios", ios[r]);
		json_u64(j, "bytes", bytes[r]);
		json_obj_close(j);
	}
	json_obj_close(j);
}

static void print_usage_json(struct json *j, const struct gpupath_provider *p)
{
	unsigned int i;

	json_u64(j, "user_limit", p->user_limit);
	json_u64(j, "cgroup_limit", p->cgroup_limit);
	json_arr_open(j, "usage");
	for (i = 0; i < p->nusage && i < GPUPATH_USAGE_MAX; i++) {
		const struct gpupath_usage *u = &p->usage[i];

		json_obj_open(j, NULL);
		if (u->is_cgroup) {
			json_str(j, "cgroup", u->cgroup);
			json_u64(j, "cgroup_id", u->cgroup_id);
		} else {
			json_u64(j, "uid", u->uid);
		}
		json_u64(j, "bytes", u->bytes);
		json_u64(j, "buffers", u->buffers);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "cgroup_limits");
	for (i = 0; i < p->noverride && i < GPUPATH_USAGE_MAX; i++) {
		json_obj_open(j, NULL);
		json_str(j, "cgroup", p->override[i].cgroup);
		json_u64(j, "cgroup_id", p->override[i].cgroup_id);
		json_u64(j, "limit", p->override[i].limit);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void print_provider_json(struct json *j, const struct gpupath_provider *p)
{
	const char *mode;
	char domain[32];
	unsigned int i;

	json_obj_open(j, NULL);
	json_u64(j, "id", p->id);
	json_str(j, "type", gpupath_provider_type_name(p->type));
	json_str(j, "pci_dev", p->pci_dev);
	json_str(j, "driver", p->driver);
	json_bool(j, "owned", p->owned);
	mode = cli_iommu(p->pci_dev, domain, sizeof(domain));
	json_str(j, "iommu", mode);
	if (domain[0])
		json_str(j, "iommu_domain", domain);
	else
		json_null(j, "iommu_domain");
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
	print_usage_json(j, p);
	json_obj_open(j, "stats");
	json_u64(j, "direct_ios", p->direct_ios);
	json_u64(j, "direct_bytes", p->direct_bytes);
	json_u64(j, "errors", p->errors);
	cli_print_refused_json(j, p->refused_ios, p->refused_bytes);
	json_obj_close(j);
	json_obj_close(j);
}

/* "64 MiB", or bytes when not a whole number of KiB; "none" for 0. */
static const char *limit_text(uint64_t v, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	int u = -1;

	if (!v)
		return "none";
	while (u < 3 && !(v & 1023)) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%" PRIu64 " bytes", v);
	else
		snprintf(buf, size, "%" PRIu64 " %s", v, units[u]);
	return buf;
}

static void print_usage_text(const struct gpupath_provider *p)
{
	char a[32], b[32];
	unsigned int i;

	if (!p->user_limit && !p->cgroup_limit && !p->nusage && !p->noverride)
		return;
	printf("  limits: %s per user, %s per cgroup\n",
	       limit_text(p->user_limit, a, sizeof(a)), limit_text(p->cgroup_limit, b, sizeof(b)));
	for (i = 0; i < p->noverride && i < GPUPATH_USAGE_MAX; i++)
		printf("  limit of cgroup %s: %s\n", p->override[i].cgroup[0] ?
		       p->override[i].cgroup : "?", limit_text(p->override[i].limit, a, sizeof(a)));
	for (i = 0; i < p->nusage && i < GPUPATH_USAGE_MAX; i++) {
		const struct gpupath_usage *u = &p->usage[i];

		if (u->is_cgroup)
			printf("  cgroup %s:", u->cgroup[0] ? u->cgroup : "?");
		else
			printf("  user %u:", u->uid);
		printf(" %" PRIu64 " KiB in %u buffer%s\n", u->bytes >> 10, u->buffers,
		       u->buffers == 1 ? "" : "s");
	}
	if (p->nusage > GPUPATH_USAGE_MAX)
		printf("  (%u more holders)\n", p->nusage - GPUPATH_USAGE_MAX);
}

static void print_provider_text(const struct gpupath_provider *p)
{
	const char *mode;
	char domain[32];
	unsigned int r;

	printf("provider %u: %s %s (driver %s%s)\n", p->id, gpupath_provider_type_name(p->type),
	       p->pci_dev, p->driver[0] ? p->driver : "none", p->owned ? ", owned" : "");
	if (p->bar >= 0)
		printf("  BAR %d: ", p->bar);
	else
		printf("  ");
	printf("%" PRIu64 " KiB, %" PRIu64 " KiB allocated by gpupath, %" PRIu64
	       " KiB available\n", p->size >> 10, p->allocated >> 10, p->available >> 10);
	print_usage_text(p);
	mode = cli_iommu(p->pci_dev, domain, sizeof(domain));
	printf("  iommu: %s%s%s%s: %s\n", mode, domain[0] ? " (" : "", domain, domain[0] ? ")" : "",
	       cli_iommu_text(mode));
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

	r = gpupath_ctl_provider_list(ctl, &list, sizeof(*list), &n);
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
	return cli_print_reply(cli, gpupath_ctl_provider_get(cli->ctl, id, &p, sizeof(p)),
			       "provider show", &cli_providers, &p);
}

static int provider_add(struct cli *cli, int argc, char **argv)
{
	struct gpupath_provider p;

	if (argc != 1)
		return 2;
	if (!cli_ctl(cli))
		return 1;
	return cli_print_reply(cli, gpupath_ctl_provider_add(cli->ctl, argv[0], &p, sizeof(p)),
			       "provider add", &cli_providers, &p);
}

static int provider_del(struct cli *cli, int argc, char **argv)
{
	return cli_del(cli, &cli_providers, argc, argv);
}

/*
 * Limits on device memory: each keyword at most once, a size each; with
 * cgroup PATH, cgroup-limit is that cgroup's (or "default").
 */
static int provider_set(struct cli *cli, int argc, char **argv)
{
	static const char *const names[] = { "user-limit", "cgroup-limit", "cgroup" };
	int64_t lim[] = { -1, -1 };
	const char *cgroup = NULL;
	uint64_t v;
	char err[256];
	uint32_t id;
	int i, k, r;

	if (argc < 3 || !(argc % 2))
		return 2;
	for (i = 1; i < argc; i += 2) {
		for (k = 0; k < 3 && strcmp(argv[i], names[k]); k++)
			;
		if (k == 3) {
			fprintf(stderr, "gpupath: provider set: unknown keyword '%s' (user-limit, cgroup-limit, cgroup)\n",
				argv[i]);
			return 2;
		}
		if ((k < 2 && lim[k] != -1) || (k == 2 && cgroup)) {
			fprintf(stderr, "gpupath: provider set: %s given twice\n", names[k]);
			return 2;
		}
		if (k == 2) {
			if (cli_parse_str("cgroup", argv[i + 1], 4095))
				return 2;
			cgroup = argv[i + 1];
			continue;
		}
		if (k == 1 && !strcmp(argv[i + 1], "default")) {
			lim[k] = GPUPATH_LIMIT_DEFAULT;
			continue;
		}
		if (gpupath_parse_size(names[k], argv[i + 1], &v, err, sizeof(err))) {
			fprintf(stderr, "gpupath: %s\n", err);
			return 2;
		}
		if (v > INT64_MAX) {
			fprintf(stderr, "gpupath: %s: %s is too large\n", names[k], argv[i + 1]);
			return 2;
		}
		lim[k] = v;
	}
	if (lim[1] == GPUPATH_LIMIT_DEFAULT && !cgroup) {
		fprintf(stderr, "gpupath: provider set: cgroup-limit default needs cgroup PATH\n");
		return 2;
	}
	if (cgroup && lim[1] == -1) {
		fprintf(stderr, "gpupath: provider set: cgroup PATH needs cgroup-limit\n");
		return 2;
	}
	r = cli_target(cli, &cli_providers, argv[0], &id);
	if (r)
		return r;
	return cli_done(cli, gpupath_ctl_provider_set(cli->ctl, id, lim[0], lim[1], cgroup, NULL, 0),
			"provider set");
}

static const char provider_usage[] =
	"gpupath provider [show [ID]] [-j] | add PCI_DEV | del ID |\n"
	"       set ID [user-limit SIZE] [cgroup-limit SIZE]   (SIZE: 64M, 2G, none) |\n"
	"       set ID cgroup PATH cgroup-limit SIZE|default";

int cmd_provider(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd subs[] = {
		{ "show", NULL, provider_show },
		{ "add", NULL, provider_add },
		{ "del", NULL, provider_del },
		{ "set", NULL, provider_set },
	};

	return cli_subcommand(cli, argc, argv, "provider", provider_usage, subs,
			      sizeof(subs) / sizeof(subs[0]));
}
