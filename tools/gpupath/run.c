// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath run [--] PROGRAM [ARGS...]: PROGRAM with gpupath's cuFile library
 * in place of NVIDIA's. The library (LIBDIR/gpupath/libcufile.so.0, whose
 * soname is libcufile.so.0) goes first in LD_PRELOAD: the dynamic linker
 * then gives it for every libcufile.so.0 the program needs, whether linked
 * (PyTorch, whose DT_RPATH points at NVIDIA's copy) or opened by soname
 * (KvikIO, DALI). A program with cuFile linked in statically cannot be
 * redirected. GPUPATH_CUFILE names another copy of the library.
 *
 * gpupath cufile PID...: which cuFile library each process has loaded,
 * from /proc/PID/maps: gpupath's (it loads libgpupath.so.0 too), another
 * (NVIDIA's), or none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef GPUPATH_LIBDIR
#define GPUPATH_LIBDIR "/usr/local/lib"
#endif

static const char run_usage[] = "gpupath run [--] PROGRAM [ARGS...]";

int cmd_run(struct cli *cli, int argc, char **argv)
{
	const char *lib = getenv("GPUPATH_CUFILE"), *pre = getenv("LD_PRELOAD");
	char path[PATH_MAX], *preload;
	int i = 1;

	(void)cli;
	if (i < argc && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
		printf("Usage: %s\n", run_usage);
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc) {
		fprintf(stderr, "Usage: %s\n", run_usage);
		return 2;
	}
	if (!lib || !*lib)
		lib = GPUPATH_LIBDIR "/gpupath/libcufile.so.0";
	/* The dynamic linker wants it whole and absolute, and ignores what it cannot load. */
	if (!realpath(lib, path)) {
		fprintf(stderr, "gpupath: run: %s: %s (install gpupath's libraries, or set "
			"GPUPATH_CUFILE)\n", lib, strerror(errno));
		return 1;
	}
	if (strpbrk(path, " :")) {
		fprintf(stderr, "gpupath: run: %s: LD_PRELOAD cannot hold a path with ' ' or ':'\n",
			path);
		return 1;
	}
	if (asprintf(&preload, "%s%s%s", path, pre && *pre ? ":" : "", pre ? pre : "") < 0 ||
	    setenv("LD_PRELOAD", preload, 1) < 0) {
		fprintf(stderr, "gpupath: run: %s\n", strerror(errno));
		return 1;
	}
	free(preload);
	execvp(argv[i], argv + i);
	fprintf(stderr, "gpupath: run: %s: %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

/* What one process has loaded: the cuFile library's path and whether it is gpupath's. */
static int cufile_of(const char *pid, char *lib, size_t size, bool *ours)
{
	char maps[64], line[PATH_MAX + 128], *p;
	bool gpupath = false;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%s/maps", pid);
	f = fopen(maps, "r");
	if (!f)
		return -errno;
	lib[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (strstr(p, "/libgpupath.so."))
			gpupath = true;
		if (!lib[0] && (strstr(p, "/libcufile.so") || strstr(p, "/libgpupath-cufile.so")))
			snprintf(lib, size, "%s", p);
	}
	fclose(f);
	*ours = lib[0] && gpupath;
	return 0;
}

int cmd_cufile(struct cli *cli, int argc, char **argv)
{
	static const char usage_line[] = "gpupath cufile [-j] PID...";
	int i = cli_parse_opts(cli, argc, argv, usage_line), r, ret = 0;
	char lib[PATH_MAX];
	char *end;
	bool ours = false;

	if (i < 0)
		return 2;
	if (i >= argc) {
		fprintf(stderr, "Usage: %s\n", usage_line);
		return 2;
	}
	if (cli->json)
		json_arr_open(&cli->j, NULL);
	for (; i < argc; i++) {
		if (strtol(argv[i], &end, 10) <= 0 || *end) {
			fprintf(stderr, "gpupath: cufile: %s: not a process ID\n", argv[i]);
			ret = 1;
			continue;
		}
		r = cufile_of(argv[i], lib, sizeof(lib), &ours);
		if (r < 0) {
			cli_err(cli, r, argv[i], NULL);
			ret = 1;
			continue;
		}
		if (cli->json) {
			json_obj_open(&cli->j, NULL);
			json_u64(&cli->j, "pid", strtoul(argv[i], NULL, 10));
			if (lib[0])
				json_str(&cli->j, "library", lib);
			else
				json_null(&cli->j, "library");
			json_str(&cli->j, "cufile", !lib[0] ? "none" : ours ? "gpupath" : "other");
			json_obj_close(&cli->j);
		} else if (!lib[0]) {
			printf("%s: no cuFile library loaded\n", argv[i]);
		} else {
			printf("%s: %s (%s)\n", argv[i], lib,
			       ours ? "gpupath's" : "not gpupath's: NVIDIA's or another");
		}
	}
	if (cli->json) {
		json_arr_close(&cli->j);
		if (json_end(&cli->j))
			return 1;
	}
	return ret;
}
