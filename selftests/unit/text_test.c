// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of text from outside on its way out: UTF-8 checked character
 * by character, control characters and bytes that are no UTF-8 written as
 * \xNN (log lines, configuration errors, the Prometheus exposition), cuts
 * at whole characters, NQNs as the fabrics options take them, rails with
 * none missing, and the records of a discovery log page gpupathd connects.
 */
#include <endian.h>
#include <stdlib.h>

#include "harness.h"
#include "../../tools/lib/internal.h"
#include "../../tools/lib/private.h"
#include "../../tools/lib/objects.h"
#include "../../daemon/disclog.h"

TEST(utf8_characters_are_told_from_other_bytes)
{
	EXPECT_EQ(1, gpupath_utf8_len("a", 1));
	EXPECT_EQ(2, gpupath_utf8_len("\xc3\xa9", 2));
	EXPECT_EQ(3, gpupath_utf8_len("\xe2\x82\xac", 3));
	EXPECT_EQ(4, gpupath_utf8_len("\xf0\x9f\x98\x80", 4));
	/* cut short, a stray continuation, overlong, a surrogate, past U+10FFFF */
	EXPECT_EQ(0, gpupath_utf8_len("\xe2\x82", 2));
	EXPECT_EQ(0, gpupath_utf8_len("\x80", 1));
	EXPECT_EQ(0, gpupath_utf8_len("\xc0\xaf", 2));
	EXPECT_EQ(0, gpupath_utf8_len("\xe0\x80\xaf", 3));
	EXPECT_EQ(0, gpupath_utf8_len("\xed\xa0\x80", 3));
	EXPECT_EQ(0, gpupath_utf8_len("\xf4\x90\x80\x80", 4));
	EXPECT_EQ(0, gpupath_utf8_len("\xff", 1));
	EXPECT_EQ(0, gpupath_utf8_len("\xe2\x28\xa1", 3));
}

TEST(a_cut_never_splits_a_character)
{
	char a[] = "ab\xc3", b[] = "ab\xe2\x82", c[] = "ab\xe2\x82\xac", d[] = "ab\xf0\x9f\x98",
	     e[] = "a\x80", f[] = "";

	gpupath_utf8_cut(a);
	gpupath_utf8_cut(b);
	gpupath_utf8_cut(c);
	gpupath_utf8_cut(d);
	gpupath_utf8_cut(e);
	gpupath_utf8_cut(f);
	EXPECT_STREQ("ab", a);
	EXPECT_STREQ("ab", b);
	EXPECT_STREQ("ab\xe2\x82\xac", c);
	EXPECT_STREQ("ab", d);
	/* no character to finish: left for the escape to show */
	EXPECT_STREQ("a\x80", e);
	EXPECT_STREQ("", f);
}

TEST(control_characters_and_other_bytes_become_text)
{
	char out[64];

	EXPECT_EQ(strlen("a\\x0ab\\x1b[31m\\xff\xc3\xa9\\x7f"),
		  gpupath_escape(out, sizeof(out), "a\nb\x1b[31m\xff\xc3\xa9\x7f"));
	EXPECT_STREQ("a\\x0ab\\x1b[31m\\xff\xc3\xa9\\x7f", out);
	/* too long: cut before the piece that does not fit, never inside it */
	gpupath_escape(out, 7, "abc\ndef");
	EXPECT_STREQ("abc", out);
	gpupath_escape(out, 6, "abcd\xc3\xa9");
	EXPECT_STREQ("abcd", out);
	gpupath_escape(out, 1, "abc");
	EXPECT_STREQ("", out);
}

/* What gpupath_fputs_text() writes of @s, with @special. */
static char *fputs_text(const char *s, const char *special)
{
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);

	gpupath_fputs_text(f, s, special);
	fclose(f);
	return data;
}

TEST(escaped_backslashes_for_json_and_prometheus)
{
	char *out = fputs_text("a\"b\\c\n\xff\xc3\xa9", "\\\"");

	EXPECT_STREQ("a\\\"b\\\\c\\\\x0a\\\\xff\xc3\xa9", out);
	free(out);
	out = fputs_text("a\"b\n", NULL);
	EXPECT_STREQ("a\"b\\x0a", out);
	free(out);
}

TEST(a_cgroup_name_of_any_bytes_keeps_the_exposition_utf8)
{
	struct gpupath_cgroup_stats cg = { .id = 7 };
	struct gpupath_stats s = { .cgroup = &cg, .ncgroup = 1 };
	char *data = NULL, *line;
	size_t len = 0, i, n;
	FILE *f = open_memstream(&data, &len);

	/* a user's subtree: a newline, a byte that is no UTF-8, a quote */
	snprintf(cg.path, sizeof(cg.path), "/user/x\n\xff\"y");
	cg.direct_ios = 3;
	ASSERT_EQ(0, gpupath_stats_prometheus(&s, f));
	fclose(f);
	line = strstr(data, "gpupath_cgroup_direct_ios_total{");
	ASSERT_TRUE(line != NULL);
	EXPECT_TRUE(!strncmp(line, "gpupath_cgroup_direct_ios_total{cgroup=\"/user/x\\\\x0a\\\\xff\\\"y\"} 3\n",
			     strlen("gpupath_cgroup_direct_ios_total{cgroup=\"/user/x\\\\x0a\\\\xff\\\"y\"} 3\n")));
	/* every byte of the whole exposition is UTF-8 */
	for (i = 0; i < len; i += n) {
		n = gpupath_utf8_len(data + i, len - i);
		if (!n)
			break;
	}
	EXPECT_EQ(len, i);
	free(data);
}

TEST(nqns_are_those_the_fabrics_options_take)
{
	char long_nqn[GPUPATH_NQN_LEN + 1];

	EXPECT_TRUE(gpupath_valid_nqn("nqn.2026-12.io.example:pool0"));
	EXPECT_TRUE(gpupath_valid_nqn("nqn.2014-08.org.nvmexpress:uuid:a0b1c2d3-0000-4000-8000-00000000"));
	EXPECT_FALSE(gpupath_valid_nqn("nqn.2026-12.io.example:a,host_traddr=10.9.9.9"));
	EXPECT_FALSE(gpupath_valid_nqn("nqn.2026-12.io.example:a b"));
	EXPECT_FALSE(gpupath_valid_nqn("nqn.2026-12.io.example:a\n"));
	EXPECT_FALSE(gpupath_valid_nqn("nqn.2026-12.io.example:\xc3\xa9"));
	EXPECT_FALSE(gpupath_valid_nqn("iqn.2026-12.io.example:a"));
	memset(long_nqn, 'a', sizeof(long_nqn) - 1);
	long_nqn[sizeof(long_nqn) - 1] = 0;
	memcpy(long_nqn, "nqn.", 4);
	EXPECT_FALSE(gpupath_valid_nqn(long_nqn));
	long_nqn[GPUPATH_NQN_LEN - 1] = 0;
	EXPECT_TRUE(gpupath_valid_nqn(long_nqn));
}

static char conf_msg[1024];

static void on_error(void *arg, unsigned int line, const char *msg)
{
	(void)arg;
	snprintf(conf_msg, sizeof(conf_msg), "%u: %s", line, msg);
}

TEST(a_comma_in_a_configured_nqn_is_refused_and_quoted_as_text)
{
	static const char text[] = "[portal a]\ntransport = tcp\ntraddr = 10.0.0.1\n"
				   "nqn = nqn.2026-12.io.x:a,fast_io_fail_tmo=0\x1b[2J\n";
	struct gpupath_conf *conf = NULL;

	EXPECT_EQ(1, gpupath_conf_parse(text, strlen(text), &conf, on_error, NULL));
	EXPECT_TRUE(strstr(conf_msg, "4: portal a: nqn 'nqn.2026-12.io.x:a,fast_io_fail_tmo=0\\x1b[2J'") ==
		    conf_msg);
	EXPECT_TRUE(strchr(conf_msg, '\x1b') == NULL);
	gpupath_conf_free(conf);
}

TEST(the_nqn_keywords_refuse_a_comma)
{
	struct gpupath_portal_conf c = { 0 };
	uint32_t set = 0;
	uint64_t seen = 0;
	char err[256];

	EXPECT_NE(0, gpupath_kw_set(gpupath_portal_kws, GPUPATH_PORTAL_KWS, &c, &set, &seen, "nqn",
				    "nqn.2026-12.io.x:a,b", err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "no ','") != NULL);
	seen = 0;
	EXPECT_NE(0, gpupath_kw_set(gpupath_portal_kws, GPUPATH_PORTAL_KWS, &c, &set, &seen,
				    "host-nqn", "nqn.2026-12.io.x:h,hostid=1", err, sizeof(err)));
	seen = 0;
	EXPECT_EQ(0, gpupath_kw_set(gpupath_portal_kws, GPUPATH_PORTAL_KWS, &c, &set, &seen, "nqn",
				    "nqn.2026-12.io.x:a", err, sizeof(err)));
	EXPECT_STREQ("nqn.2026-12.io.x:a", c.subsysnqn);
}

TEST(rails_with_an_empty_one_are_refused)
{
	static const char *const bad[] = { ",,,", ",", "1:eth0,", ",1:eth0", "1:eth0,,2:eth1" };
	struct gpupath_portal_conf c = { 0 };
	uint32_t set = 0;
	uint64_t seen = 0;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		seen = 0;
		EXPECT_NE(0, gpupath_kw_set(gpupath_portal_kws, GPUPATH_PORTAL_KWS, &c, &set, &seen,
					    "rails", bad[i], err, sizeof(err)));
		EXPECT_TRUE(strstr(err, "empty rail") != NULL);
	}
	seen = 0;
	EXPECT_EQ(0, gpupath_kw_set(gpupath_portal_kws, GPUPATH_PORTAL_KWS, &c, &set, &seen,
				    "rails", "1:eth0,2:@10.0.0.9", err, sizeof(err)));
	EXPECT_EQ(2, c.nrails);
	/* "" takes them all away */
	seen = 0;
	EXPECT_EQ(0, gpupath_kw_set(gpupath_portal_kws, GPUPATH_PORTAL_KWS, &c, &set, &seen,
				    "rails", "", err, sizeof(err)));
	EXPECT_EQ(0, c.nrails);
}

/* A discovery log record as a target would send it, each field padded. */
static void entry(struct nvmf_disc_log_entry *e, const char *nqn, const char *addr,
		  const char *svc)
{
	memset(e, ' ', sizeof(*e));
	e->trtype = NVMF_TRTYPE_TCP;
	e->subtype = NVME_NQN_NVME;
	memset(e->subnqn, 0, sizeof(e->subnqn));
	memcpy(e->subnqn, nqn, strnlen(nqn, sizeof(e->subnqn)));
	memcpy(e->traddr, addr, strnlen(addr, sizeof(e->traddr)));
	memcpy(e->trsvcid, svc, strnlen(svc, sizeof(e->trsvcid)));
}

TEST(a_discovery_record_is_taken_as_the_connect_needs_it)
{
	struct nvmf_disc_log_entry e;
	struct target t;
	char why[384];

	entry(&e, "nqn.2026-12.io.x:pool0", "10.0.0.2", "4420");
	ASSERT_TRUE(disc_record(&e, &t, why, sizeof(why)));
	EXPECT_STREQ("nqn.2026-12.io.x:pool0", t.nqn);
	EXPECT_STREQ("10.0.0.2", t.traddr);
	EXPECT_EQ(4420, t.trsvcid);
	entry(&e, "nqn.2026-12.io.x:pool0", "fd00::2", "4420");
	EXPECT_TRUE(disc_record(&e, &t, why, sizeof(why)));
	EXPECT_STREQ("fd00::2", t.traddr);
}

TEST(a_discovery_record_that_would_add_options_is_left_out)
{
	struct nvmf_disc_log_entry e;
	struct target t;
	char why[384];

	entry(&e, "nqn.2026-12.io.x:a,host_traddr=10.9.9.9,fast_io_fail_tmo=0", "10.0.0.2",
	      "4420");
	EXPECT_FALSE(disc_record(&e, &t, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "subsystem NQN 'nqn.2026-12.io.x:a,host_traddr=") == why);
	entry(&e, "nqn.2026-12.io.x:a", "10.0.0.2,host_iface=lo", "4420");
	EXPECT_FALSE(disc_record(&e, &t, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "address '10.0.0.2,host_iface=lo'") == why);
	/* a port with more after it, out of range, none */
	entry(&e, "nqn.2026-12.io.x:a", "10.0.0.2", "4420,nr_io_queues=1");
	EXPECT_FALSE(disc_record(&e, &t, why, sizeof(why)));
	entry(&e, "nqn.2026-12.io.x:a", "10.0.0.2", "65536");
	EXPECT_FALSE(disc_record(&e, &t, why, sizeof(why)));
	entry(&e, "nqn.2026-12.io.x:a", "10.0.0.2", "");
	EXPECT_FALSE(disc_record(&e, &t, why, sizeof(why)));
	/* a newline and an escape sequence are quoted as text */
	entry(&e, "nqn.2026-12.io.x:a\nwarning: forged\x1b[2J", "10.0.0.2", "4420");
	EXPECT_FALSE(disc_record(&e, &t, why, sizeof(why)));
	EXPECT_TRUE(strchr(why, '\n') == NULL && strchr(why, '\x1b') == NULL);
	EXPECT_TRUE(strstr(why, "a\\x0awarning: forged\\x1b[2J'") != NULL);
}

TEST(a_discovery_record_too_long_to_keep_is_left_out)
{
	struct nvmf_disc_log_entry e;
	struct target t;
	char nqn[257], why[384];

	/* 255 bytes of a valid name: longer than a connect takes (223) */
	memset(nqn, 'a', sizeof(nqn) - 1);
	nqn[255] = 0;
	memcpy(nqn, "nqn.", 4);
	entry(&e, nqn, "10.0.0.2", "4420");
	EXPECT_FALSE(disc_record(&e, &t, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "'...") != NULL);
	entry(&e, "nqn.2026-12.io.x:a", "1111:2222:3333:4444:5555:6666:7777:8888:9999:aaaa:bbbb",
	      "4420");
	EXPECT_FALSE(disc_record(&e, &t, why, sizeof(why)));
}

TEST_HARNESS_MAIN
