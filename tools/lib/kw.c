// SPDX-License-Identifier: GPL-2.0
/*
 * Settings as "keyword value" pairs: what the CLI takes on its command line
 * and gpupath.conf in its sections, checked the same way for both, each
 * mistake explained in a message the caller prints with its own prefix (the
 * command, or the file and line).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "private.h"

static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * A whole unsigned number, decimal (leading zeros too: "077" is 77) or hex
 * with 0x; false if it is not. No octal: "dscp 077" must not quietly be 63.
 */
static bool to_number(const char *s, unsigned long long *v)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	char *end;

	if (!isxdigit((unsigned char)s[hex ? 2 : 0]) || (!hex && !isdigit((unsigned char)*s)))
		return false;
	errno = 0;
	*v = strtoull(s, &end, hex ? 16 : 10);
	return !errno && !*end;
}

int gpupath_parse_u32(const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *v,
		      char *err, size_t size)
{
	unsigned long long n;

	if (!to_number(s, &n))
		return fail(err, size, "%s: '%s' is not a number from %u to %u", what, s, min, max);
	if ((n < min || n > max) && s[0] == '0' && isdigit((unsigned char)s[1]))
		return fail(err, size, "%s must be %u to %u, not %s (decimal %llu: no octal)", what,
			    min, max, s, n);
	if (n < min || n > max)
		return fail(err, size, "%s must be %u to %u, not %s", what, min, max, s);
	*v = n;
	return 0;
}

int gpupath_parse_size(const char *what, const char *s, uint64_t *v, char *err, size_t size)
{
	static const char units[] = "KMGT";
	unsigned long long n;
	unsigned int shift = 0;
	const char *u;
	char *end;

	if (!strcmp(s, "none")) {
		*v = 0;
		return 0;
	}
	if (!isdigit((unsigned char)s[0]))
		goto bad;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return fail(err, size, "%s: %s is too large", what, s);
	if (*end) {
		u = strchr(units, toupper((unsigned char)*end));
		if (!u)
			goto bad;
		shift = 10 * (u - units + 1);
		end++;
		if (*end && strcasecmp(end, "iB") && strcasecmp(end, "B"))
			goto bad;
	}
	if (n > UINT64_MAX >> shift)
		return fail(err, size, "%s: %s is too large", what, s);
	*v = (uint64_t)n << shift;
	return 0;
bad:
	return fail(err, size,
		    "%s: '%s' is not a size (bytes, or with K, M, G or T: 64M, 2GiB; none or 0: no limit)",
		    what, s);
}

int gpupath_parse_id(const char *what, const char *s, uint32_t *id, char *err, size_t size)
{
	unsigned long long v;

	if (!to_number(s, &v) || !v || v > UINT32_MAX)
		return fail(err, size, "'%s' is not a %s id", s, what);
	*id = v;
	return 0;
}

int gpupath_parse_name(const char *what, const char *s, int (*parse)(const char *, uint32_t *),
		       const char *(*name)(uint32_t), uint32_t max, uint32_t *v, char *err,
		       size_t size)
{
	size_t len;
	uint32_t i;

	if (!parse(s, v))
		return 0;
	fail(err, size, "unknown %s '%s' (one of:", what, s);
	for (i = 0; i <= max; i++) {
		if (!strcmp(name(i), "unknown"))
			continue;	/* a hole in the numbering */
		len = strlen(err);
		snprintf(err + len, size - len, " %s", name(i));
	}
	len = strlen(err);
	snprintf(err + len, size - len, ")");
	return -EINVAL;
}

const struct gpupath_kw *gpupath_kw_find(const struct gpupath_kw *kws, unsigned int n,
					 const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(kws[i].name, name))
			return &kws[i];
	return NULL;
}

int gpupath_kw_set(const struct gpupath_kw *kws, unsigned int n, void *conf, uint32_t *set,
		   uint64_t *seen, const char *name, const char *val, char *err, size_t size)
{
	const struct gpupath_kw *kw = gpupath_kw_find(kws, n, name);
	unsigned int i;
	size_t len;

	if (!kw) {
		fail(err, size, "unknown keyword '%s' (one of:", name);
		for (i = 0; i < n; i++) {
			len = strlen(err);
			snprintf(err + len, size - len, " %s", kws[i].name);
		}
		len = strlen(err);
		snprintf(err + len, size - len, ")");
		return -ENOENT;
	}
	if (!val)
		return fail(err, size, "'%s' needs a value", kw->name);
	if (*seen & 1ULL << (kw - kws))
		return fail(err, size, "'%s' given twice", kw->name);
	*seen |= 1ULL << (kw - kws);	/* even when bad: reported once */
	if (kw->parse(kw, val, (char *)conf + kw->off, err, size))
		return -EINVAL;
	*set |= kw->bit;
	return 0;
}

/* ---- value kinds ----------------------------------------------------------- */

int gpupath_kw_u32(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		   size_t size)
{
	return gpupath_parse_u32(kw->name, val, kw->min, kw->max, dst, err, size);
}

/* A number, or the keyword's word for @special ("forever", "off"). */
static int kw_u32_or(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		     size_t size, const char *word, uint32_t special)
{
	char what[64];

	if (!strcmp(val, word)) {
		*(uint32_t *)dst = special;
		return 0;
	}
	snprintf(what, sizeof(what), "%s (or %s)", kw->name, word);
	return gpupath_parse_u32(what, val, kw->min, kw->max, dst, err, size);
}

bool gpupath_valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= GPUPATH_NAME_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

int gpupath_parse_objname(const char *what, const char *s, char *err, size_t size)
{
	if (gpupath_valid_name(s))
		return 0;
	return fail(err, size, "%s name '%.*s%s' (%zu characters): 1 to %d of letters, digits, "
		    "'.', '_' and '-'", what, 40, s, strlen(s) > 40 ? "..." : "", strlen(s),
		    GPUPATH_NAME_LEN - 1);
}

int gpupath_parse_str(const char *what, const char *s, size_t max, bool graphic, char *err,
		      size_t size)
{
	const char *c;

	if (!*s)
		return fail(err, size, "%s cannot be empty", what);
	if (strlen(s) > max)
		return fail(err, size, "%s '%.40s...' is %zu characters long, at most %zu", what, s,
			    strlen(s), max);
	for (c = s; graphic && *c; c++)
		if (*c <= ' ' || *c > '~')
			return fail(err, size, "%s: character %zu is %s (0x%02x): only printable "
				    "ASCII without spaces", what, (size_t)(c - s) + 1,
				    isspace((unsigned char)*c) ? "whitespace" : "not printable",
				    (unsigned char)*c);
	return 0;
}

/* A string of at most kw->max bytes (0: any length), printable when kw->min. */
static int kw_str(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		  size_t size)
{
	if (gpupath_parse_str(kw->name, val, kw->max ? kw->max : SIZE_MAX, kw->min, err, size))
		return -EINVAL;
	*(const char **)dst = val;
	return 0;
}

/* A string that may be empty ("qos ''" clears a portal's class). */
static int kw_str_any(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		      size_t size)
{
	(void)kw;
	(void)err;
	(void)size;
	*(const char **)dst = val;
	return 0;
}

static int kw_onoff(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		    size_t size)
{
	if (strcmp(val, "on") && strcmp(val, "off"))
		return fail(err, size, "%s is on or off, not '%s'", kw->name, val);
	*(uint32_t *)dst = !strcmp(val, "on");
	return 0;
}

/* ---- portals --------------------------------------------------------------- */

static int kw_transport(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
			size_t size)
{
	return gpupath_parse_name(kw->name, val, gpupath_transport_parse, gpupath_transport_name,
				  GPUPATH_TRANSPORT_MAX, dst, err, size);
}

static int kw_loss_tmo(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		       size_t size)
{
	return kw_u32_or(kw, val, dst, err, size, "forever", GPUPATH_TMO_FOREVER);
}

static int kw_fail_tmo(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		       size_t size)
{
	return kw_u32_or(kw, val, dst, err, size, "off", GPUPATH_TMO_OFF);
}

/* What the kernel takes as an interface name (dev_valid_name()). */
static bool valid_ifname(const char *s)
{
	if (!*s || strlen(s) >= 16 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s))
			return false;
	return true;
}

bool gpupath_valid_addr(const char *s)
{
	unsigned char addr[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, s, addr) == 1 || inet_pton(AF_INET6, s, addr) == 1;
}

bool gpupath_valid_nqn(const char *s)
{
	size_t n = strlen(s);

	if (strncmp(s, "nqn.", 4) || n >= GPUPATH_NQN_LEN)
		return false;
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e || *s == ',')
			return false;
	return true;
}

static int nqn_fail(const struct gpupath_kw *kw, const char *val, char *err, size_t size)
{
	char text[64];

	gpupath_escape(text, sizeof(text), val);
	return fail(err, size, "%s: '%s' is not an NVMe qualified name (nqn.<yyyy-mm>.<reversed "
		    "domain>:..., printable, no ',')", kw->name, text);
}

/* A subsystem's NQN. */
static int kw_nqn(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		  size_t size)
{
	if (gpupath_parse_str(kw->name, val, kw->max, true, err, size))
		return -EINVAL;
	if (!gpupath_valid_nqn(val))
		return nqn_fail(kw, val, err, size);
	*(const char **)dst = val;
	return 0;
}

/* "ID:[IFACE][@ADDR],..." into the conf's rails (dst is the conf). */
static int kw_rails(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		    size_t size)
{
	struct gpupath_portal_conf *conf = dst;
	char buf[512], *tok, *save, *colon, *at;
	struct gpupath_portal_rail *rail;
	unsigned int i;

	if (strlen(val) >= sizeof(buf))
		return fail(err, size, "%s: too long", kw->name);
	strcpy(buf, val);
	conf->nrails = 0;
	/* "": no rails; an empty one among others is a mistake (",,," is no "") */
	save = *buf ? buf : NULL;
	while ((tok = strsep(&save, ","))) {
		if (!*tok)
			return fail(err, size, "%s: '%s' has an empty rail", kw->name, val);
		if (conf->nrails == GPUPATH_PORTAL_RAILS_MAX)
			return fail(err, size, "%s: at most %d rails", kw->name,
				    GPUPATH_PORTAL_RAILS_MAX);
		rail = &conf->rail[conf->nrails++];
		memset(rail, 0, sizeof(*rail));
		colon = strchr(tok, ':');
		if (!colon || colon == tok || !colon[1])
			return fail(err, size, "%s: '%s' is not RAIL:IFACE[@ADDR] or RAIL:@ADDR",
				    kw->name, tok);
		*colon = 0;
		if (gpupath_parse_u32("rail", tok, 1, UINT32_MAX, &rail->id, err, size))
			return -EINVAL;
		for (i = 0; i + 1 < conf->nrails; i++)
			if (conf->rail[i].id == rail->id)
				return fail(err, size, "%s: rail %u is given twice", kw->name,
					    rail->id);
		at = strchr(colon + 1, '@');
		if (at) {
			*at = 0;
			if (strlen(at + 1) >= sizeof(rail->addr) || !gpupath_valid_addr(at + 1))
				return fail(err, size,
					    "%s: host address '%s' is not an IPv4 or IPv6 address",
					    kw->name, at + 1);
			strcpy(rail->addr, at + 1);
		}
		if (colon[1] && !valid_ifname(colon + 1))
			return fail(err, size, "%s: '%s' is not an interface name", kw->name,
				    colon + 1);
		strcpy(rail->iface, colon + 1);
	}
	return 0;
}

/* A host NQN, or "" for the system's. */
static int kw_host_nqn(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		       size_t size)
{
	if (*val && gpupath_parse_str(kw->name, val, kw->max, true, err, size))
		return -EINVAL;
	if (*val && !gpupath_valid_nqn(val))
		return nqn_fail(kw, val, err, size);
	*(const char **)dst = val;
	return 0;
}

/* A host ID, a UUID (8-4-4-4-12 hexadecimal digits), or "" for the system's. */
bool gpupath_valid_host_id(const char *s)
{
	size_t i;

	for (i = 0; i < 36; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' :
		    !isxdigit((unsigned char)s[i]))
			return false;
	return !s[36];
}

bool gpupath_uuid_nqn(const char *nqn)
{
	const char *u = strstr(nqn, ":uuid:");

	return u && gpupath_valid_host_id(u + 6);
}

static int kw_host_id(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		      size_t size)
{
	if (*val && !gpupath_valid_host_id(val))
		return fail(err, size, "%s: '%.40s' is not a UUID "
			    "(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", kw->name, val);
	*(const char **)dst = val;
	return 0;
}

/* The absolute path of a secret's file, or "" for none. */
static int kw_secret_file(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
			  size_t size)
{
	if (*val && *val != '/')
		return fail(err, size, "%s: '%.40s' is not an absolute path", kw->name, val);
	if (*val && gpupath_parse_str(kw->name, val, kw->max, true, err, size))
		return -EINVAL;
	*(const char **)dst = val;
	return 0;
}

static int kw_discover(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		       size_t size)
{
	return gpupath_parse_name(kw->name, val, gpupath_portal_discover_parse,
				  gpupath_portal_discover_name, GPUPATH_DISCOVER_MAX, dst, err, size);
}

#define PORTAL(m) offsetof(struct gpupath_portal_conf, m)

const struct gpupath_kw gpupath_portal_kws[GPUPATH_PORTAL_KWS] = {
	{ "rails", GPUPATH_PORTAL_SET_RAILS, 0, 0, 0, kw_rails },
	{ "qos", GPUPATH_PORTAL_SET_QOS, PORTAL(qos), 0, 0, kw_str_any },
	{ "ctrl-loss-tmo", GPUPATH_PORTAL_SET_CTRL_LOSS_TMO, PORTAL(ctrl_loss_tmo), 0,
	  GPUPATH_TMO_FOREVER - 1, kw_loss_tmo },
	{ "fast-io-fail-tmo", GPUPATH_PORTAL_SET_FAST_IO_FAIL_TMO, PORTAL(fast_io_fail_tmo), 0,
	  GPUPATH_TMO_OFF - 1, kw_fail_tmo },
	{ "reconnect-delay", GPUPATH_PORTAL_SET_RECONNECT_DELAY, PORTAL(reconnect_delay), 1,
	  3600, gpupath_kw_u32 },
	{ "nr-io-queues", GPUPATH_PORTAL_SET_NR_IO_QUEUES, PORTAL(nr_io_queues), 0, 1024,
	  gpupath_kw_u32 },
	{ "host-nqn", GPUPATH_PORTAL_SET_HOST_NQN, PORTAL(host_nqn), 0, GPUPATH_NQN_LEN - 1,
	  kw_host_nqn },
	{ "host-id", GPUPATH_PORTAL_SET_HOST_ID, PORTAL(host_id), 0, 0, kw_host_id },
	{ "dhchap-secret-file", GPUPATH_PORTAL_SET_SECRET, PORTAL(secret_file), 0,
	  GPUPATH_SECRET_PATH_LEN - 1, kw_secret_file },
	{ "dhchap-ctrl-secret-file", GPUPATH_PORTAL_SET_CTRL_SECRET, PORTAL(ctrl_secret_file), 0,
	  GPUPATH_SECRET_PATH_LEN - 1, kw_secret_file },
	/* add only: what names the target */
	{ "trsvcid", GPUPATH_PORTAL_SET_TRSVCID, PORTAL(trsvcid), 1, 65535, gpupath_kw_u32 },
	{ "transport", 0, PORTAL(transport), 0, 0, kw_transport },
	{ "traddr", 0, PORTAL(traddr), 1, GPUPATH_ADDR_LEN - 1, kw_str },
	{ "nqn", 0, PORTAL(subsysnqn), 1, GPUPATH_NQN_LEN - 1, kw_nqn },
	{ "discover", GPUPATH_PORTAL_SET_DISCOVER, PORTAL(discover), 0, 0, kw_discover },
};

/* ---- QoS classes ----------------------------------------------------------- */

#define QOS(m) offsetof(struct gpupath_qos_conf, m)

const struct gpupath_kw gpupath_qos_kws[GPUPATH_QOS_KWS] = {
	{ "dscp", GPUPATH_QOS_SET_DSCP, QOS(dscp), 0, 63, gpupath_kw_u32 },
	{ "priority", GPUPATH_QOS_SET_PRIORITY, QOS(priority), 0, 7, gpupath_kw_u32 },
	{ "pfc", GPUPATH_QOS_SET_PFC, QOS(pfc), 0, 0, kw_onoff },
	{ "ets", GPUPATH_QOS_SET_ETS, QOS(ets), 0, 100, gpupath_kw_u32 },
};

/* ---- volumes and paths ----------------------------------------------------- */

static int kw_policy(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		     size_t size)
{
	(void)kw;
	return gpupath_parse_name("policy", val, gpupath_policy_parse, gpupath_policy_name,
				  GPUPATH_POLICY_MAX, dst, err, size);
}

static int kw_fallback(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
		       size_t size)
{
	if (kw_policy(kw, val, dst, err, size))
		return -EINVAL;
	if (*(uint32_t *)dst == GPUPATH_POLICY_GPU_AFFINITY)
		return fail(err, size, "fallback: gpu-affinity cannot be its own fallback");
	return 0;
}

static int kw_queue_timeout(const struct gpupath_kw *kw, const char *val, void *dst,
			    char *err, size_t size)
{
	if (!strcmp(val, "forever")) {
		*(uint32_t *)dst = GPUPATH_QUEUE_FOREVER;
		return 0;
	}
	return gpupath_parse_u32("queue-timeout (ms, or forever)", val, kw->min, kw->max, dst,
				 err, size);
}

#define VOLUME(m) offsetof(struct gpupath_volume_conf, m)

const struct gpupath_kw gpupath_volume_kws[GPUPATH_VOLUME_KWS] = {
	/* add only */
	{ "wwid", 0, VOLUME(wwid), 1, GPUPATH_WWID_LEN - 1, kw_str },
	/* add and set */
	{ "policy", GPUPATH_VOLUME_SET_POLICY, VOLUME(policy), 0, 0, kw_policy },
	{ "fallback", GPUPATH_VOLUME_SET_FALLBACK, VOLUME(fallback), 0, 0, kw_fallback },
	{ "queue-timeout", GPUPATH_VOLUME_SET_QUEUE_TIMEOUT, VOLUME(queue_timeout), 0,
	  GPUPATH_QUEUE_FOREVER - 1, kw_queue_timeout },
};

static int kw_path_state(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
			 size_t size)
{
	return gpupath_parse_name(kw->name, val, gpupath_path_state_parse,
				  gpupath_path_state_name, GPUPATH_PATH_STATE_MAX, dst, err, size);
}

static int kw_path_link(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
			size_t size)
{
	return gpupath_parse_name(kw->name, val, gpupath_path_link_parse, gpupath_path_link_name,
				  GPUPATH_LINK_MAX, dst, err, size);
}

static int kw_ana_state(const struct gpupath_kw *kw, const char *val, void *dst, char *err,
			size_t size)
{
	return gpupath_parse_name(kw->name, val, gpupath_ana_state_parse, gpupath_ana_state_name,
				  GPUPATH_ANA_MAX, dst, err, size);
}

#define PATH(m) offsetof(struct gpupath_path_conf, m)

const struct gpupath_kw gpupath_path_kws[GPUPATH_PATH_KWS] = {
	{ "weight", GPUPATH_PATH_SET_WEIGHT, PATH(weight), 1, GPUPATH_WEIGHT_MAX,
	  gpupath_kw_u32 },
	{ "rail", GPUPATH_PATH_SET_RAIL, PATH(rail), 0, UINT32_MAX, gpupath_kw_u32 },
	{ "state", GPUPATH_PATH_SET_STATE, PATH(state), 0, 0, kw_path_state },
	{ "link", GPUPATH_PATH_SET_LINK, PATH(link), 0, 0, kw_path_link },
	{ "ana", GPUPATH_PATH_SET_ANA_STATE, PATH(ana_state), 0, 0, kw_ana_state },
	{ "ana-tt", GPUPATH_PATH_SET_ANA_TT, PATH(ana_tt), 0, 3600, gpupath_kw_u32 },
	{ "ana-group", GPUPATH_PATH_SET_ANA_GROUP, PATH(ana_group), 0, UINT32_MAX,
	  gpupath_kw_u32 },
};
