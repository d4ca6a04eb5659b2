// SPDX-License-Identifier: GPL-2.0
/*
 * Arguments of the commands: numbers, ids, names and "keyword value" pairs,
 * each checked before anything is sent, with a message saying what is wrong.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"



/* Prints the message of a refusal (@r nonzero); -1, or 0. */
static int explained(int r, const char *err)
{
	if (!r)
		return 0;
	fprintf(stderr, "gpupath: %s\n", err);
	return -1;
}

int cli_parse_id(const char *what, const char *s, uint32_t *id)
{
	char err[256];

	return explained(gpupath_parse_id(what, s, id, err, sizeof(err)), err);
}

int cli_parse_objname(const char *what, const char *s)
{
	char err[256];

	return explained(gpupath_parse_objname(what, s, err, sizeof(err)), err);
}

int cli_parse_str(const char *what, const char *s, size_t max)
{
	char err[256];

	return explained(gpupath_parse_str(what, s, max, false, err, sizeof(err)), err);
}

int cli_target(struct cli *cli, const struct cli_kind *kind, const char *s, uint32_t *id)
{
	bool by_name = kind->lookup && !isdigit((unsigned char)*s);

	if (!by_name && cli_parse_id(kind->name, s, id))
		return 2;
	if (!cli_ctl(cli))
		return 1;
	return by_name ? kind->lookup(cli, s, id) : 0;
}

int cli_parse_set(struct cli *cli, const struct cli_kind *kind, int argc, char **argv,
		  const struct gpupath_kw *kws, unsigned int n, void *conf, uint32_t *set,
		  uint32_t *id)
{
	if (argc < 1)
		return 2;
	if (cli_parse_kws(argc - 1, argv + 1, kws, n, conf, set))
		return 2;
	if (!*set) {
		fprintf(stderr, "gpupath: %s set: nothing to set\n", kind->name);
		return 2;
	}
	return cli_target(cli, kind, argv[0], id);
}

int cli_del(struct cli *cli, const struct cli_kind *kind, int argc, char **argv)
{
	char what[32];
	uint32_t id;
	int r;

	if (argc != 1)
		return 2;
	r = cli_target(cli, kind, argv[0], &id);
	if (r)
		return r;
	snprintf(what, sizeof(what), "%s del", kind->name);
	return cli_done(cli, kind->del(cli->ctl, id), what);
}

int cli_parse_kws(int argc, char **argv, const struct gpupath_kw *kws, unsigned int n,
		  void *conf, uint32_t *set)
{
	uint64_t seen = 0;
	char err[512];
	int i;

	for (i = 0; i < argc; i += 2) {
		if (gpupath_kw_set(kws, n, conf, set, &seen, argv[i], i + 1 < argc ? argv[i + 1] : NULL,
				   err, sizeof(err))) {
			fprintf(stderr, "gpupath: %s\n", err);
			return -1;
		}
	}
	return 0;
}

bool cli_take_flag(int *argc, char **argv, const char *flag)
{
	bool found = false;
	int i, n = 1;

	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], flag))
			found = true;
		else
			argv[n++] = argv[i];
	}
	argv[n] = NULL;
	*argc = n;
	return found;
}
