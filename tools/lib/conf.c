// SPDX-License-Identifier: GPL-2.0
/*
 * gpupath.conf: the portals and QoS classes gpupathd keeps in place, and
 * its own settings. INI-like, with the CLI's keywords:
 *
 *	# a comment
 *	[daemon]
 *	interval = 30
 *
 *	[qos roce]
 *	dscp = 26
 *
 *	[portal fabric-a]
 *	transport = rdma
 *	traddr = 192.168.10.2
 *	nqn = nqn.2026-11.io.example:pool0
 *	rails = 1:eth1,2:eth2
 *	qos = roce
 *
 * The parser reads it all and reports every mistake with its line; callers
 * apply nothing from a file with mistakes.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "private.h"

#define CONF_SIZE_MAX	(1u << 20)	/* a config file is not 1 MiB (gpupath_conf_strerror) */
#define DISCOVERY_NQN	"nqn.2014-08.org.nvmexpress.discovery"

enum section { NONE, DAEMON, QOS, PORTAL, SKIP };

struct parser {
	struct gpupath_conf *conf;
	gpupath_conf_err_fn fn;
	void *arg;
	unsigned int line;
	int errors;
	enum section section;
	unsigned int section_line;
	uint64_t seen;		/* keywords of this section */
	bool daemon_seen;
};

static void error(struct parser *p, unsigned int line, const char *fmt, ...)
{
	char msg[640], text[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->errors++;
	/* The file's bytes are quoted as text: no escape reaches a terminal. */
	gpupath_utf8_cut(msg);
	gpupath_escape(text, sizeof(text), msg);
	if (p->fn)
		p->fn(p->arg, line, text);
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = 0;
	return s;
}

static void *grow(void *array, size_t n, size_t size)
{
	/* One more element, zeroed; the arrays are small. */
	char *a = realloc(array, (n + 1) * size);

	if (a)
		memset(a + n * size, 0, size);
	return a;
}

/* ---- sections -------------------------------------------------------------- */

/* Whether the section has keyword @name, good or bad (a bad one was reported). */
static bool has(const struct parser *p, const struct gpupath_kw *kws, unsigned int n,
		const char *name)
{
	return p->seen & 1ULL << (gpupath_kw_find(kws, n, name) - kws);
}

/*
 * What the module refuses of a portal as a whole, refused here with its line,
 * so that a file that passes --check-config is one the module takes.
 */
static void portal_whole(struct parser *p, const struct gpupath_conf_portal *cp)
{
	const struct gpupath_portal_conf *pc = &cp->conf;

	if (pc->host_nqn && *pc->host_nqn && (!pc->host_id || !*pc->host_id) &&
	    !gpupath_uuid_nqn(pc->host_nqn))
		error(p, p->section_line, "portal %s: a host NQN of its own needs a host ID of its "
		      "own (host-id), unless it ends in :uuid:<UUID>", cp->name);
	if (pc->ctrl_secret_file && *pc->ctrl_secret_file &&
	    (!pc->secret_file || !*pc->secret_file))
		error(p, p->section_line, "portal %s: a controller secret needs a host secret "
		      "(dhchap-secret-file)", cp->name);
	if (pc->discover == GPUPATH_DISCOVER_MDNS && !pc->nrails)
		error(p, p->section_line, "portal %s: discover = mdns needs rails: the interfaces "
		      "to browse", cp->name);
}

/* The same target (the module keeps one portal per target): *a and *b. */
static bool same_target(const struct gpupath_portal_conf *a, const struct gpupath_portal_conf *b)
{
	const char *na = a->subsysnqn ? a->subsysnqn : "", *nb = b->subsysnqn ? b->subsysnqn : "";

	return a->transport == b->transport && a->discover == b->discover &&
	       (a->discover == GPUPATH_DISCOVER_MDNS ||
		(a->trsvcid == b->trsvcid && a->traddr && b->traddr &&
		 !strcmp(a->traddr, b->traddr) && !strcmp(na, nb)));
}

/* The section that ends: what it must have. */
static void section_end(struct parser *p)
{
	struct gpupath_conf *c = p->conf;
	const char *name;

	if (p->section == PORTAL) {
		name = c->portals[c->nportals - 1].name;
		if (!has(p, gpupath_portal_kws, GPUPATH_PORTAL_KWS, "transport"))
			error(p, p->section_line, "portal %s: no transport (rdma or tcp)", name);
		if (c->portals[c->nportals - 1].conf.discover != GPUPATH_DISCOVER_MDNS) {
			if (!has(p, gpupath_portal_kws, GPUPATH_PORTAL_KWS, "traddr"))
				error(p, p->section_line, "portal %s: no traddr (or discover = mdns)",
				      name);
		} else if (has(p, gpupath_portal_kws, GPUPATH_PORTAL_KWS, "traddr") ||
			   has(p, gpupath_portal_kws, GPUPATH_PORTAL_KWS, "trsvcid") ||
			   has(p, gpupath_portal_kws, GPUPATH_PORTAL_KWS, "nqn")) {
			error(p, p->section_line,
			      "portal %s: discover = mdns finds the address: no traddr, trsvcid or nqn",
			      name);
		}
		portal_whole(p, &c->portals[c->nportals - 1]);
	} else if (p->section == QOS) {
		name = c->qos[c->nqos - 1].name;
		if (!has(p, gpupath_qos_kws, GPUPATH_QOS_KWS, "dscp"))
			error(p, p->section_line, "qos %s: no dscp", name);
	}
}

static bool name_taken(const struct gpupath_conf *c, enum section kind, const char *name)
{
	size_t i;

	for (i = 0; kind == PORTAL && i < c->nportals; i++)
		if (!strcmp(c->portals[i].name, name))
			return true;
	for (i = 0; kind == QOS && i < c->nqos; i++)
		if (!strcmp(c->qos[i].name, name))
			return true;
	return false;
}

/* (conf.name is set once the array stops moving, at the end of the parse.) */
static void portal_defaults(struct gpupath_portal_conf *pc)
{
	pc->set = GPUPATH_PORTAL_SET_SETTINGS;
	pc->trsvcid = GPUPATH_TRSVCID_DEFAULT;
	pc->qos = "";
	pc->ctrl_loss_tmo = GPUPATH_TMO_FOREVER;
	pc->fast_io_fail_tmo = GPUPATH_TMO_OFF;
	pc->reconnect_delay = GPUPATH_RECONNECT_DELAY_DEFAULT;
}

/* "[daemon]", "[qos NAME]", "[portal NAME]"; @s is what is inside the brackets. */
static int section_start(struct parser *p, char *s)
{
	struct gpupath_conf *c = p->conf;
	char *kind = trim(s), *name, msg[256];
	enum section section;
	void *a;

	name = kind + strcspn(kind, " \t");
	if (*name)
		*name++ = 0;
	name = trim(name);
	p->section = SKIP;	/* until it is known to be good */
	p->section_line = p->line;
	p->seen = 0;
	if (!strcmp(kind, "daemon")) {
		if (*name)
			error(p, p->line, "[daemon] takes no name");
		else if (p->daemon_seen)
			error(p, p->line, "[daemon] given twice");
		else
			p->section = DAEMON;
		p->daemon_seen = true;
		return 0;
	}
	if (!strcmp(kind, "qos")) {
		section = QOS;
	} else if (!strcmp(kind, "portal")) {
		section = PORTAL;
	} else {
		error(p, p->line, "unknown section [%s] (one of: daemon, qos NAME, portal NAME)",
		      kind);
		return 0;
	}
	if (!*name) {
		error(p, p->line, "[%s] needs a name: [%s NAME]", kind, kind);
		return 0;
	}
	if (gpupath_parse_objname(kind, name, msg, sizeof(msg))) {
		error(p, p->line, "%s", msg);
		return 0;
	}
	if (name_taken(c, section, name)) {
		error(p, p->line, "%s %s is defined twice", kind, name);
		return 0;
	}
	if (section == PORTAL) {
		a = grow(c->portals, c->nportals, sizeof(*c->portals));
		if (!a)
			return -ENOMEM;
		c->portals = a;
		c->portals[c->nportals].line = p->line;
		strcpy(c->portals[c->nportals].name, name);
		portal_defaults(&c->portals[c->nportals].conf);
		c->nportals++;
	} else {
		a = grow(c->qos, c->nqos, sizeof(*c->qos));
		if (!a)
			return -ENOMEM;
		c->qos = a;
		c->qos[c->nqos].line = p->line;
		strcpy(c->qos[c->nqos].name, name);
		c->qos[c->nqos].conf.set = GPUPATH_QOS_SET_SETTINGS;
		c->nqos++;
	}
	p->section = section;
	return 0;
}

/* ---- settings -------------------------------------------------------------- */

/* Checks the module would make, made here so that the line is known. */
static bool portal_value_ok(struct parser *p, const char *name, const char *key,
			    const char *val)
{
	if (!strcmp(key, "traddr") && !gpupath_valid_addr(val)) {
		error(p, p->line, "portal %s: traddr '%s' is not an IPv4 or IPv6 address", name,
		      val);
		return false;
	}
	if (!strcmp(key, "nqn") && !gpupath_valid_nqn(val)) {
		error(p, p->line, "portal %s: nqn '%s' is not an NVMe qualified name "
		      "(nqn.<date>.<domain>:..., printable, no ',')", name, val);
		return false;
	}
	if (!strcmp(key, "qos") && *val && !gpupath_valid_name(val)) {
		error(p, p->line, "portal %s: qos '%s' is not a class name", name, val);
		return false;
	}
	return true;
}

static void daemon_setting(struct parser *p, const char *key, const char *val)
{
	uint64_t bit = !strcmp(key, "interval") ? 1 : !strcmp(key, "remove-all") ? 2 : 0;
	char err[256];

	if (!bit) {
		error(p, p->line, "[daemon]: unknown keyword '%s' (one of: interval remove-all)", key);
		return;
	}
	if (p->seen & bit) {
		error(p, p->line, "[daemon]: '%s' given twice", key);
		return;
	}
	p->seen |= bit;
	if (bit == 2) {
		if (!strcmp(val, "yes") || !strcmp(val, "no"))
			p->conf->remove_all = !strcmp(val, "yes");
		else
			error(p, p->line, "[daemon]: remove-all is yes or no, not '%s'", val);
		return;
	}
	if (gpupath_parse_u32("interval", val, 1, GPUPATH_CONF_INTERVAL_MAX,
			      &p->conf->interval, err, sizeof(err)))
		error(p, p->line, "[daemon]: %s", err);
}

static void setting(struct parser *p, char *s)
{
	struct gpupath_conf *c = p->conf;
	char *eq = strchr(s, '='), *key, *val, err[512];
	const char *what, *name;
	int r;

	if (!eq) {
		error(p, p->line, "expected KEYWORD = VALUE, or [SECTION]");
		return;
	}
	*eq = 0;
	key = trim(s);
	val = trim(eq + 1);
	if (!*key) {
		error(p, p->line, "a keyword is missing before '='");
		return;
	}
	if (p->section == NONE) {
		error(p, p->line, "'%s' is outside any section ([daemon], [qos NAME], [portal NAME])",
		      key);
		return;
	}
	if (p->section == SKIP)
		return;	/* the section's header was reported */
	if (p->section == DAEMON) {
		daemon_setting(p, key, val);
		return;
	}
	if (p->section == PORTAL) {
		struct gpupath_conf_portal *portal = &c->portals[c->nportals - 1];

		what = "portal";
		name = portal->name;
		if (*val && !portal_value_ok(p, name, key, val)) {
			/* reported: the keyword counts as given */
			p->seen |= 1ULL << (gpupath_kw_find(gpupath_portal_kws,
							    GPUPATH_PORTAL_KWS, key) -
					    gpupath_portal_kws);
			return;
		}
		r = gpupath_kw_set(gpupath_portal_kws, GPUPATH_PORTAL_KWS, &portal->conf,
				   &portal->given, &p->seen, key, val, err, sizeof(err));
		/* The discovery NQN is the same as none: a discovery controller. */
		if (!r && !strcmp(key, "nqn") && !strcmp(val, DISCOVERY_NQN))
			portal->conf.subsysnqn = NULL;
	} else {
		struct gpupath_conf_qos *q = &c->qos[c->nqos - 1];

		what = "qos";
		name = q->name;
		r = gpupath_kw_set(gpupath_qos_kws, GPUPATH_QOS_KWS, &q->conf, &q->given, &p->seen,
				   key, val, err, sizeof(err));
	}
	if (r)
		error(p, p->line, "%s %s: %s", what, name, err);
}

/* ---- the file ---------------------------------------------------------------- */

int gpupath_conf_parse(const char *text, size_t len, struct gpupath_conf **confp,
		       gpupath_conf_err_fn fn, void *arg)
{
	struct parser p = { .fn = fn, .arg = arg };
	struct gpupath_conf *c;
	char *line, *next, *s, *end, *eol;
	size_t i, j;
	int r = 0;

	*confp = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	p.conf = c;
	c->text = malloc(len + 1);
	if (!c->text) {
		free(c);
		return -ENOMEM;
	}
	memcpy(c->text, text, len);
	c->text[len] = 0;
	end = c->text + len;
	for (line = c->text; line < end && r >= 0; line = next) {
		next = memchr(line, '\n', end - line);
		eol = next ? next : end;
		if (next)
			*next++ = 0;
		else
			next = end;
		p.line++;
		if (strlen(line) != (size_t)(eol - line)) {
			error(&p, p.line, "a NUL byte in the line");
			continue;
		}
		s = trim(line);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			if (s[strlen(s) - 1] != ']') {
				error(&p, p.line, "a section header ends with ']'");
				section_end(&p);
				p.section = SKIP;
				continue;
			}
			s[strlen(s) - 1] = 0;
			section_end(&p);
			r = section_start(&p, s + 1);
			continue;
		}
		setting(&p, s);
	}
	if (r >= 0)
		section_end(&p);
	if (r < 0) {
		gpupath_conf_free(c);
		return r;
	}
	for (i = 0; i < c->nportals; i++)
		c->portals[i].conf.name = c->portals[i].name;
	for (i = 0; i < c->nportals; i++)
		for (j = 0; j < i; j++)
			if (same_target(&c->portals[i].conf, &c->portals[j].conf))
				error(&p, c->portals[i].line, "portal %s: portal %s (line %u) has "
				      "this target%s", c->portals[i].name, c->portals[j].name,
				      c->portals[j].line,
				      c->portals[i].conf.discover == GPUPATH_DISCOVER_MDNS ?
				      " (one portal discovers a transport by mDNS)" : "");
	*confp = c;
	return p.errors;
}

int gpupath_conf_load(const char *path, struct gpupath_conf **conf, gpupath_conf_err_fn fn,
		      void *arg)
{
	struct stat st;
	char *buf;
	ssize_t n;
	size_t len = 0;
	int fd, r;

	*conf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);	/* a FIFO must not block */
	if (fd < 0)
		return -errno;
	r = fstat(fd, &st) < 0 ? -errno : S_ISDIR(st.st_mode) ? -EISDIR :
	    !S_ISREG(st.st_mode) ? -EINVAL : st.st_size > CONF_SIZE_MAX ? -EFBIG : 0;
	if (r) {
		close(fd);
		return r;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < (size_t)st.st_size) {
		n = read(fd, buf + len, st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	r = len == (size_t)st.st_size ? 0 : -EIO;
	close(fd);
	if (!r)
		r = gpupath_conf_parse(buf, len, conf, fn, arg);
	free(buf);
	return r;
}

const char *gpupath_conf_strerror(int r)
{
	switch (r) {
	case -EISDIR:
		return "it is a directory, not a file";
	case -EINVAL:
		return "it is not a regular file (a FIFO, a device or a socket)";
	case -EFBIG:
		return "it is larger than 1 MiB";
	default:
		return strerror(-r);
	}
}

void gpupath_conf_free(struct gpupath_conf *conf)
{
	if (!conf)
		return;
	free(conf->portals);
	free(conf->qos);
	free(conf->text);
	free(conf);
}
