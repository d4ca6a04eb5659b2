// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for gpupath.conf: any bytes into gpupath_conf_parse(),
 * then every invariant of what it returns checked. Whatever the text, each
 * mistake comes with a message and a line of the input, names are valid
 * strings of the module's length, and the confs' strings point into the
 * parser's copy of the text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

struct input {
	unsigned int lines;	/* of the text, the last one unterminated or empty */
	int errors;		/* reported */
};

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

static void on_error(void *arg, unsigned int line, const char *msg)
{
	struct input *in = arg;

	CHECK(msg);
	CHECK(strnlen(msg, 4096) < 4096);
	CHECK(line >= 1 && line <= in->lines);
	in->errors++;
}

/* A NUL-terminated name of 1 to GPUPATH_NAME_LEN - 1 characters. */
static void check_name(const char *name)
{
	size_t n = strnlen(name, GPUPATH_NAME_LEN);

	CHECK(n > 0 && n < GPUPATH_NAME_LEN);
}

/* NULL, a literal "" of the parser's, or a string inside the text. */
static void check_text_str(const struct gpupath_conf *c, size_t len, const char *s)
{
	if (!s || !*s)
		return;
	CHECK(s >= c->text && s < c->text + len);
	CHECK(strnlen(s, c->text + len - s + 1) <= (size_t)(c->text + len - s));
}

static void check_portal(const struct gpupath_conf *c, size_t len,
			 const struct gpupath_conf_portal *p)
{
	const struct gpupath_portal_conf *pc = &p->conf;
	unsigned int i;

	check_name(p->name);
	CHECK(pc->name == p->name);
	check_text_str(c, len, pc->traddr);
	check_text_str(c, len, pc->subsysnqn);
	check_text_str(c, len, pc->qos);
	CHECK(pc->nrails <= GPUPATH_PORTAL_RAILS_MAX);
	for (i = 0; i < pc->nrails; i++) {
		CHECK(strnlen(pc->rail[i].iface, sizeof(pc->rail[i].iface)) <
		      sizeof(pc->rail[i].iface));
		CHECK(strnlen(pc->rail[i].addr, sizeof(pc->rail[i].addr)) <
		      sizeof(pc->rail[i].addr));
	}
}

/* A file without mistakes: what the module is sent is what it takes. */
static void check_clean(const struct gpupath_conf *c)
{
	const struct gpupath_portal_conf *pc;
	const struct gpupath_qos_conf *qc;
	unsigned int i;
	size_t n;

	for (n = 0; n < c->nportals; n++) {
		pc = &c->portals[n].conf;
		CHECK(pc->transport <= GPUPATH_TRANSPORT_MAX);
		CHECK(pc->traddr && gpupath_valid_addr(pc->traddr));
		CHECK(!pc->subsysnqn || (!strncmp(pc->subsysnqn, "nqn.", 4) &&
					 strlen(pc->subsysnqn) < GPUPATH_NQN_LEN));
		CHECK(pc->qos && strlen(pc->qos) < GPUPATH_NAME_LEN);
		CHECK(pc->trsvcid >= 1 && pc->trsvcid <= 65535);
		for (i = 0; i < pc->nrails; i++)
			CHECK(pc->rail[i].id && (*pc->rail[i].iface || *pc->rail[i].addr));
	}
	for (n = 0; n < c->nqos; n++) {
		qc = &c->qos[n].conf;
		CHECK(qc->dscp <= 63 && qc->priority <= 7 && qc->pfc <= 1 && qc->ets <= 100);
	}
}

static void check_conf(const struct gpupath_conf *c, size_t len)
{
	size_t i, j;

	CHECK(c->text && c->text[len] == 0);
	CHECK(c->interval <= GPUPATH_CONF_INTERVAL_MAX);
	CHECK(!c->nportals || c->portals);
	CHECK(!c->nqos || c->qos);
	for (i = 0; i < c->nportals; i++) {
		check_portal(c, len, &c->portals[i]);
		for (j = 0; j < i; j++)
			CHECK(strcmp(c->portals[i].name, c->portals[j].name));
	}
	for (i = 0; i < c->nqos; i++) {
		check_name(c->qos[i].name);
		for (j = 0; j < i; j++)
			CHECK(strcmp(c->qos[i].name, c->qos[j].name));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { .lines = 1 };
	struct gpupath_conf *conf;
	size_t i;
	int r;

	for (i = 0; i < size; i++)
		in.lines += data[i] == '\n';
	r = gpupath_conf_parse((const char *)data, size, &conf, on_error, &in);
	if (r < 0) {
		CHECK(r == -ENOMEM && !conf);
		return 0;
	}
	CHECK(conf && r == in.errors);
	check_conf(conf, size);
	if (!r)
		check_clean(conf);
	gpupath_conf_free(conf);
	return 0;
}
