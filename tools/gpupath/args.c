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

/* A whole unsigned number, decimal, 0x hex or 0 octal; false if it is not. */
static bool to_number(const char *s, unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

int cli_parse_u32(const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *v)
{
	unsigned long long n;

	if (!to_number(s, &n)) {
		fprintf(stderr, "gpupath: %s: '%s' is not a number\n", what, s);
		return -1;
	}
	if (n < min || n > max) {
		fprintf(stderr, "gpupath: %s must be %u to %u, not %s\n", what, min, max, s);
		return -1;
	}
	*v = n;
	return 0;
}

int cli_parse_id(const char *what, const char *s, uint32_t *id)
{
	unsigned long long v;

	if (!to_number(s, &v) || !v || v > UINT32_MAX) {
		fprintf(stderr, "gpupath: '%s' is not a %s id\n", s, what);
		return -1;
	}
	*id = v;
	return 0;
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
		  const struct cli_kw *kws, unsigned int n, void *conf, uint32_t *set,
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

int cli_parse_name(const char *what, const char *s, int (*parse)(const char *, uint32_t *),
		   const char *(*name)(uint32_t), uint32_t max, uint32_t *v)
{
	uint32_t i;

	if (!parse(s, v))
		return 0;
	fprintf(stderr, "gpupath: unknown %s '%s' (one of:", what, s);
	for (i = 0; i <= max; i++)
		fprintf(stderr, " %s", name(i));
	fprintf(stderr, ")\n");
	return -1;
}

static const struct cli_kw *find_kw(const struct cli_kw *kws, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(kws[i].name, name))
			return &kws[i];
	return NULL;
}

static void unknown_kw(const struct cli_kw *kws, unsigned int n, const char *name)
{
	unsigned int i;

	fprintf(stderr, "gpupath: unknown keyword '%s' (one of:", name);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %s", kws[i].name);
	fprintf(stderr, ")\n");
}

int cli_parse_kws(int argc, char **argv, const struct cli_kw *kws, unsigned int n, void *conf,
		  uint32_t *set)
{
	const struct cli_kw *kw;
	uint64_t seen = 0;
	int i;

	for (i = 0; i < argc; i += 2) {
		kw = find_kw(kws, n, argv[i]);
		if (!kw) {
			unknown_kw(kws, n, argv[i]);
			return -1;
		}
		if (i + 1 == argc) {
			fprintf(stderr, "gpupath: '%s' needs a value\n", kw->name);
			return -1;
		}
		if (seen & 1ULL << (kw - kws)) {
			fprintf(stderr, "gpupath: '%s' given twice\n", kw->name);
			return -1;
		}
		seen |= 1ULL << (kw - kws);
		if (kw->parse(kw->name, argv[i + 1], (char *)conf + kw->off))
			return -1;
		*set |= kw->bit;
	}
	return 0;
}
