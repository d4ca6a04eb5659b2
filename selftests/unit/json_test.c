// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the CLI's JSON writer. */
#include <stdlib.h>

#include "harness.h"
#include "../../tools/gpupath/json.h"

struct buf {
	char *data;
	size_t len;
	FILE *f;
};

static struct json *open_buf(struct buf *b)
{
	static struct json j;

	b->f = open_memstream(&b->data, &b->len);
	json_init(&j, b->f);
	return &j;
}

static char *close_buf(struct buf *b)
{
	fclose(b->f);
	return b->data;
}

TEST(nested_objects_and_arrays)
{
	struct buf b;
	struct json *j = open_buf(&b);
	char *out;

	json_obj_open(j, NULL);
	json_str(j, "a", "x");
	json_u64(j, "n", 18446744073709551615ULL);
	json_arr_open(j, "l");
	json_str(j, NULL, "p");
	json_bool(j, NULL, true);
	json_null(j, NULL);
	json_arr_close(j);
	json_obj_open(j, "o");
	json_obj_close(j);
	json_obj_close(j);
	ASSERT_EQ(0, json_end(j));
	out = close_buf(&b);
	EXPECT_STREQ("{\"a\":\"x\",\"n\":18446744073709551615,\"l\":[\"p\",true,null],\"o\":{}}\n",
		     out);
	free(out);
}

TEST(strings_are_escaped)
{
	struct buf b;
	struct json *j = open_buf(&b);
	char *out;

	json_obj_open(j, NULL);
	json_str(j, "k\"ey", "q\"b\\n\nt\tc\x01\x1f\x7f\xc3\xa9");
	json_obj_close(j);
	json_end(j);
	out = close_buf(&b);
	EXPECT_STREQ("{\"k\\\"ey\":\"q\\\"b\\\\n\\nt\\tc\\u0001\\u001f\\u007f\xc3\xa9\"}\n", out);
	free(out);
}

TEST(bytes_that_are_no_utf8_become_text)
{
	struct buf b;
	struct json *j = open_buf(&b);
	char *out;

	/* a cgroup name cut inside a character, and a byte that is none */
	json_obj_open(j, NULL);
	json_str(j, "cgroup", "/u/\xff\xc3\xa9\xe2\x82");
	json_obj_close(j);
	json_end(j);
	out = close_buf(&b);
	EXPECT_STREQ("{\"cgroup\":\"/u/\\\\xff\xc3\xa9\\\\xe2\\\\x82\"}\n", out);
	free(out);
}

TEST(unbalanced_is_reported)
{
	struct buf b;
	struct json *j = open_buf(&b);

	json_obj_open(j, NULL);
	EXPECT_EQ(-1, json_end(j));
	json_init(j, b.f);
	json_obj_close(j);
	EXPECT_EQ(-1, json_end(j));
	free(close_buf(&b));
}

TEST(too_deep_is_reported)
{
	struct buf b;
	struct json *j = open_buf(&b);
	int i;

	for (i = 0; i < JSON_MAX_DEPTH + 2; i++)
		json_arr_open(j, NULL);
	EXPECT_TRUE(j->error);
	free(close_buf(&b));
}

TEST(top_level_values_in_sequence)
{
	struct buf b;
	struct json *j = open_buf(&b);
	char *out;

	json_obj_open(j, NULL);
	json_obj_close(j);
	json_end(j);
	json_obj_open(j, NULL);
	json_u64(j, "x", 1);
	json_obj_close(j);
	json_end(j);
	out = close_buf(&b);
	EXPECT_STREQ("{}\n{\"x\":1}\n", out);
	free(out);
}

TEST_HARNESS_MAIN
