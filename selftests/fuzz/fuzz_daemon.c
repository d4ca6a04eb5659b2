// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for what gpupathd reads from the network and from other
 * users, before it acts on it or writes it out. The first byte picks:
 *   0: a namespace id (4 bytes), looked up in an ANA log page (the rest,
 *      in a buffer of its size);
 *   1: a discovery log record (the rest, padded with NULs to a record):
 *      what gpupathd takes must be what a connect can be given;
 *   2: a string (the rest, NUL-ended) written as text, for a log line and
 *      for JSON or Prometheus: UTF-8 out, no control character, nothing
 *      written past the buffer, cuts at whole characters.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libnvme.h>

#include "../../daemon/ana.h"
#include "../../daemon/disclog.h"
#include "internal.h"
#include "private.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

/* @s (@n bytes) is all UTF-8 and, when @plain, has no control character. */
static void check_text(const char *s, size_t n, bool plain)
{
	size_t i, len;

	for (i = 0; i < n; i += len) {
		len = gpupath_utf8_len(s + i, n - i);
		CHECK(len);
		CHECK(!plain || len > 1 || ((unsigned char)s[i] >= 0x20 && s[i] != 0x7f));
	}
}

static void ana(const uint8_t *data, size_t size)
{
	uint32_t nsid = 0, grp = 0;
	uint8_t *page, state = 0;

	if (size < 4)
		return;
	memcpy(&nsid, data, 4);
	page = malloc(size - 4 ? size - 4 : 1);
	CHECK(page);
	memcpy(page, data + 4, size - 4);
	/*
	 * An exact-size copy: a read past the page is one past the allocation
	 * (ASan), a descriptor read in place a misaligned access (UBSan).
	 */
	ana_log_find((struct nvme_ana_log *)page, size - 4, nsid, &grp, &state);
	free(page);
}

static void record(const uint8_t *data, size_t size)
{
	struct nvmf_disc_log_entry e;
	struct target t;
	char why[384];

	memset(&e, 0, sizeof(e));
	memcpy(&e, data, size < sizeof(e) ? size : sizeof(e));
	if (disc_record(&e, &t, why, sizeof(why))) {
		CHECK(gpupath_valid_nqn(t.nqn) && !strchr(t.nqn, ','));
		CHECK(gpupath_valid_addr(t.traddr) && !strchr(t.traddr, ','));
		CHECK(t.trsvcid >= 1 && t.trsvcid <= 65535);
	} else {
		CHECK(strnlen(why, sizeof(why)) < sizeof(why));
		check_text(why, strlen(why), true);
	}
}

static void text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), out[97], *buf = NULL;
	size_t n, len = 0;
	FILE *f;

	CHECK(s);
	memcpy(s, data, size);
	s[size] = 0;
	n = gpupath_escape(out, sizeof(out), s);
	CHECK(n == strlen(out) && n < sizeof(out));
	check_text(out, n, true);
	f = open_memstream(&buf, &len);
	CHECK(f);
	gpupath_fputs_text(f, s, "\\\"");
	fclose(f);
	check_text(buf, len, true);
	CHECK(!strchr(buf, '\n'));
	free(buf);
	/*
	 * A cut takes at most 3 bytes, from a lead byte on (what was no UTF-8
	 * before it stays, for the escape to show).
	 */
	n = strlen(s);
	gpupath_utf8_cut(s);
	len = strlen(s);
	CHECK(len <= n && n - len <= 3);
	CHECK(len == n || ((unsigned char)data[len] >= 0xc2 && (unsigned char)data[len] <= 0xf4));
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		ana(data + 1, size - 1);
		break;
	case 1:
		record(data + 1, size - 1);
		break;
	default:
		text(data + 1, size - 1);
	}
	return 0;
}
