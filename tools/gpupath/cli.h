/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GPUPATH_CLI_H
#define GPUPATH_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"
#include "private.h"

struct cli {
	bool json;
	struct json j;
	char **argv0;	/* main()'s argv */
	struct gpupath_ctl *ctl;	/* cli_ctl()'s, closed by main() */
};

struct cli_cmd {
	const char *name;
	const char *help;
	int (*fn)(struct cli *cli, int argc, char **argv);
};

/* Report a failed call once: "gpupath: what: strerror[: kernel message]". */
int cli_err(struct cli *cli, int r, const char *what, const char *kmsg);
/*
 * The control socket, opened at the first call; NULL if it cannot be, after
 * explaining why (a missing module, say).
 */
struct gpupath_ctl *cli_ctl(struct cli *cli);
/*
 * Parse the options every command takes (-j, -h); returns the index of the
 * first argument that is not an option, or -1 after printing the usage.
 */
int cli_parse_opts(struct cli *cli, int argc, char **argv, const char *usage);
/* The same for commands without arguments: returns argc or -1. */
int cli_parse_common(struct cli *cli, int argc, char **argv, const char *usage);
/*
 * Run the subcommand argv[] names after the options (the first of @subs
 * when none is named) with the arguments after it. A subcommand returns 2
 * for a usage error, which prints @usage.
 */
int cli_subcommand(struct cli *cli, int argc, char **argv, const char *what,
		   const char *usage, const struct cli_cmd *subs, unsigned int n);

/* ---- arguments (args.c); each explains what is wrong and returns -1 ---- */

/* An object id (from 1); @what names the object ("path"). */
int cli_parse_id(const char *what, const char *s, uint32_t *id);
/* A portal's or QoS class's name (@what: "portal"); -1 after explaining. */
int cli_parse_objname(const char *what, const char *s);
/* A string of 1 to @max bytes; -1 after explaining. */
int cli_parse_str(const char *what, const char *s, size_t max);
/* Keywords and their values, all of them; -1 after explaining the first bad one. */
int cli_parse_kws(int argc, char **argv, const struct gpupath_kw *kws, unsigned int n,
		  void *conf, uint32_t *set);

/* A kind of object the CLI handles. */
struct cli_kind {
	const char *name;	/* "volume" */
	const char *key;	/* of its JSON arrays */
	size_t size;
	void (*print)(struct cli *cli, const void *obj);	/* text, or a JSON object */
	int (*del)(struct gpupath_ctl *ctl, uint32_t id);
	/* An object's id from its name; NULL: objects are named by id only. */
	int (*lookup)(struct cli *cli, const char *name, uint32_t *id);
};

void cli_print_refused_json(struct json *j, const uint64_t *ios, const uint64_t *bytes);

extern const struct cli_kind cli_providers, cli_volumes, cli_paths, cli_portals, cli_qos;

/*
 * The object a request is about, named by id (or name), with the control
 * socket open. Returns 0, 2 for a bad id or 1 (explained).
 */
int cli_target(struct cli *cli, const struct cli_kind *kind, const char *s, uint32_t *id);
/*
 * "set ID KEYWORD VALUE...": at least one keyword of @kws into @conf, then
 * the object's id as cli_target() gives it. Returns 0, 1 or 2.
 */
int cli_parse_set(struct cli *cli, const struct cli_kind *kind, int argc, char **argv,
		  const struct gpupath_kw *kws, unsigned int n, void *conf, uint32_t *set,
		  uint32_t *id);
/*
 * A command's long option without a value (@flag, "--prometheus") taken out
 * of argv[1..]; whether it was there. argv[0], the command, stays.
 */
bool cli_take_flag(int *argc, char **argv, const char *flag);
/* "del ID": the subcommand. */
int cli_del(struct cli *cli, const struct cli_kind *kind, int argc, char **argv);

/* ---- printing ------------------------------------------------------------ */

/* @n objects at @items: text, or a JSON array member @kind->key. */
void cli_print_array(struct cli *cli, const struct cli_kind *kind, const void *items, size_t n);
/* The outcome of a request about one object: the error, or the object. */
int cli_print_reply(struct cli *cli, int r, const char *what, const struct cli_kind *kind,
		    const void *obj);
/* The outcome of a request without a reply: the error (1), or 0. */
int cli_done(struct cli *cli, int r, const char *what);
/* Around a command's output: in JSON, one object; returns @r, or 1 on misuse. */
void cli_output_begin(struct cli *cli);
int cli_output_end(struct cli *cli, int r);

/* Print a module description, as text or JSON members of the open object. */
void cli_print_info(struct cli *cli, const struct gpupath_info *info);
/* Of a kernel release: "tested", "untested", "after-tested" or "unknown". */
const char *cli_kernel_status(const char *release);
const char *cli_kernel_status_text(const char *status);
/* Dump the providers: text, or a JSON array member "providers". */
int cli_print_providers(struct cli *cli, struct gpupath_ctl *ctl);
/*
 * Dump the volumes with their paths: text, or a JSON array member "volumes".
 * @optional: a module without volumes has none (no error).
 */
int cli_print_volumes(struct cli *cli, struct gpupath_ctl *ctl, bool optional);
/*
 * What the IOMMU does with PCI function @bdf's DMA: "off" (no IOMMU),
 * "passthrough", "translated", "blocked", "unmanaged" or "unknown"; the
 * kernel's domain type ("DMA-FQ", ...) in @domain, "" without one.
 */
const char *cli_iommu(const char *bdf, char *domain, size_t size);
/* What such a mode means for direct I/O, in a sentence. */
const char *cli_iommu_text(const char *mode);
/* A duration in ns, "12.3us". */
const char *cli_format_ns(uint64_t ns, char *buf, size_t size);

/* A counter for cli_print_counters(); @ns: a duration. */
struct cli_counter {
	const char *label;
	uint64_t value;
	bool ns;
};

#define CLI_COUNT(label, value)	{ label, value, false }
#define CLI_NS(label, value)	{ label, value, true }
#define CLI_COUNTERS_MAX	16

/* Counters as ip -s prints them: labels over values, right-aligned. */
void cli_print_counters(int indent, const struct cli_counter *c, unsigned int n);
/* A path as text, indented by @indent. */
void cli_print_path_text(const struct gpupath_path *p, int indent);

/* An NVIDIA GPU's P2PDMA state (nvgpu.c). */
struct nv_gpu {
	bool nvidia;		/* an NVIDIA GPU: the rest is read */
	char driver[32];	/* its driver, "" if none is bound */
	bool region;		/* its BAR has a P2PDMA region */
	bool params_read;	/* the NVIDIA driver's params were read */
	bool static_bar1;	/* RegistryDwords: RMForceStaticBar1 */
	bool wc_disabled;	/* RegistryDwords: RmForceDisableIomapWC */
	bool own_allowed;	/* gpupath's nvidia_bar_region is set */
};

/* 1 and *@g for an NVIDIA GPU, else 0. */
int nv_gpu_read(const struct gpupath_topo_dev *d, struct nv_gpu *g);
/* The fix for a GPU without a P2PDMA region (reason no-gpu-region). */
extern const char nv_gpu_region_fix[];
/* What to do for CUDA memory of @g to go direct; NULL: nothing. */
const char *nv_gpu_fix(const struct nv_gpu *g);
/* @g as the object "nvidia". */
void nv_gpu_json(struct json *j, const struct nv_gpu *g);

int cmd_version(struct cli *cli, int argc, char **argv);
int cmd_show(struct cli *cli, int argc, char **argv);
int cmd_monitor(struct cli *cli, int argc, char **argv);
int cmd_run(struct cli *cli, int argc, char **argv);
int cmd_cufile(struct cli *cli, int argc, char **argv);
int cmd_provider(struct cli *cli, int argc, char **argv);
int cmd_stats(struct cli *cli, int argc, char **argv);
int cmd_diagnose(struct cli *cli, int argc, char **argv);
int cmd_volume(struct cli *cli, int argc, char **argv);
int cmd_path(struct cli *cli, int argc, char **argv);
int cmd_portal(struct cli *cli, int argc, char **argv);
int cmd_qos(struct cli *cli, int argc, char **argv);
int cmd_topology(struct cli *cli, int argc, char **argv);

#endif /* GPUPATH_CLI_H */
