/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to the project's own programs (the CLI, gpupathd, their tests):
 * settings as keywords, spelled the same on the command line and in
 * gpupath.conf, and the gpupath.conf parser. Built into libgpupath-private.a,
 * which is not installed; none of it is part of libgpupath's interface.
 */
#ifndef GPUPATH_PRIVATE_H
#define GPUPATH_PRIVATE_H

#include "libgpupath-admin.h"

/* ---- settings ----------------------------------------------------------- */

/*
 * Settings as "keyword value" pairs, spelled the same on the gpupath command
 * line and in gpupath.conf. A parser that refuses a value writes why into
 * @err (no prefix, no newline) and returns a negative errno.
 */
struct gpupath_kw {
	const char *name;
	uint32_t bit;		/* set in *set when given (0: none) */
	size_t off;		/* of the value in the configuration */
	uint32_t min, max;	/* for numbers */
	int (*parse)(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		     size_t size);
};

/* A number (decimal, or hex with 0x; no octal) from @min to @max; @what names it. */
int gpupath_parse_u32(const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *v,
		      char *err, size_t size);
/*
 * A size in bytes: decimal, with K, M, G or T (binary; "KiB" and "K" alike,
 * case ignored), or "none" for 0. Refused: negative, fractional, too large.
 */
int gpupath_parse_size(const char *what, const char *s, uint64_t *v, char *err, size_t size);
/* An object id (from 1); @what names the object ("path"). */
int gpupath_parse_id(const char *what, const char *s, uint32_t *id, char *err, size_t size);
/* A name among those @name gives to 0..@max, into its number. */
int gpupath_parse_name(const char *what, const char *s, int (*parse)(const char *, uint32_t *),
		       const char *(*name)(uint32_t), uint32_t max, uint32_t *v, char *err,
		       size_t size);
/* A portal's or QoS class's name, as the module takes it. */
bool gpupath_valid_name(const char *s);
/* The same, explained: @what ("portal") and the rule. */
int gpupath_parse_objname(const char *what, const char *s, char *err, size_t size);
/*
 * A string of 1 to @max bytes; with @graphic, printable ASCII without
 * spaces (a WWID, an NQN). @what names it.
 */
int gpupath_parse_str(const char *what, const char *s, size_t max, bool graphic, char *err,
		      size_t size);
/* An IPv4 or IPv6 address, as the module takes it. */
bool gpupath_valid_addr(const char *s);
/*
 * An NVMe qualified name as the module and the kernel's fabrics options take
 * it: "nqn.", printable ASCII, no ',' (which would start another option).
 */
bool gpupath_valid_nqn(const char *s);
/* A host ID: a UUID (8-4-4-4-12 hexadecimal digits). */
bool gpupath_valid_host_id(const char *s);
/* An NQN of the form "...:uuid:<UUID>", whose host ID the kernel derives. */
bool gpupath_uuid_nqn(const char *nqn);
/* A number from kw->min to kw->max. */
int gpupath_kw_u32(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		   size_t size);
const struct gpupath_kw *gpupath_kw_find(const struct gpupath_kw *kws, unsigned int n,
					 const char *name);
/*
 * Keyword @name with value @val (NULL: none was given) into @conf, its bit
 * into *@set; *@seen (zero it first) catches a keyword given twice.
 * -ENOENT for an unknown keyword, -EINVAL for a bad value or repetition.
 */
int gpupath_kw_set(const struct gpupath_kw *kws, unsigned int n, void *conf, uint32_t *set,
		   uint64_t *seen, const char *name, const char *val, char *err, size_t size);

/* struct gpupath_portal_conf: the keywords set takes, then trsvcid, transport, traddr, nqn. */
#define GPUPATH_PORTAL_KWS	15
#define GPUPATH_PORTAL_SET_KWS	10
extern const struct gpupath_kw gpupath_portal_kws[GPUPATH_PORTAL_KWS];
/* struct gpupath_qos_conf */
#define GPUPATH_QOS_KWS		4
extern const struct gpupath_kw gpupath_qos_kws[GPUPATH_QOS_KWS];
/* struct gpupath_volume_conf: wwid (add only), then those set takes. */
#define GPUPATH_VOLUME_KWS	4
extern const struct gpupath_kw gpupath_volume_kws[GPUPATH_VOLUME_KWS];
/* struct gpupath_path_conf */
#define GPUPATH_PATH_KWS	7
extern const struct gpupath_kw gpupath_path_kws[GPUPATH_PATH_KWS];

/* ---- gpupath.conf -------------------------------------------------------- */

#define GPUPATH_CONF_FILE		"/etc/gpupath/gpupath.conf"
#define GPUPATH_CONF_INTERVAL_MAX	3600

struct gpupath_conf_portal {
	unsigned int line;		/* of its [portal NAME] */
	char name[GPUPATH_NAME_LEN];
	uint32_t given;			/* GPUPATH_PORTAL_SET_* the file named */
	struct gpupath_portal_conf conf;	/* every setting, defaults filled in */
};

struct gpupath_conf_qos {
	unsigned int line;		/* of its [qos NAME] */
	char name[GPUPATH_NAME_LEN];
	uint32_t given;			/* GPUPATH_QOS_SET_* the file named */
	struct gpupath_qos_conf conf;	/* every setting, defaults filled in */
};

struct gpupath_conf {
	unsigned int interval;		/* [daemon] interval; 0: not given */
	/*
	 * [daemon] remove-all = yes: a file that names no portal and no QoS
	 * class may remove all an earlier file made (else it is refused).
	 */
	bool remove_all;
	size_t nportals, nqos;
	struct gpupath_conf_portal *portals;
	struct gpupath_conf_qos *qos;
	char *text;			/* the file; the confs' strings point into it */
};

/* One mistake: its line (from 1) and what is wrong. */
typedef void (*gpupath_conf_err_fn)(void *arg, unsigned int line, const char *msg);

/*
 * Parse @len bytes of gpupath.conf text, calling @fn for every mistake.
 * Returns the number of mistakes (*conf is set, and is only to be applied
 * when there are none), or a negative errno (-ENOMEM).
 */
int gpupath_conf_parse(const char *text, size_t len, struct gpupath_conf **conf,
		       gpupath_conf_err_fn fn, void *arg);
/*
 * The same from a file; a negative errno when it cannot be read: -EISDIR (a
 * directory), -EINVAL (not a regular file), -EFBIG (too large), or open()'s.
 */
int gpupath_conf_load(const char *path, struct gpupath_conf **conf, gpupath_conf_err_fn fn,
		      void *arg);
/* What gpupath_conf_load()'s error @r means, for "cannot read PATH: ...". */
const char *gpupath_conf_strerror(int r);
void gpupath_conf_free(struct gpupath_conf *conf);

#endif /* GPUPATH_PRIVATE_H */
