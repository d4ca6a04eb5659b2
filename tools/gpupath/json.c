// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "internal.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->error = false;
}

static void put_string(FILE *f, const char *s)
{
	const unsigned char *p;
	size_t len;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		/* JSON is UTF-8: a byte that is none becomes the text \xNN. */
		len = gpupath_utf8_len((const char *)p, strnlen((const char *)p, 4));
		if (len > 1) {
			fwrite(p, 1, len, f);
			p += len - 1;
			continue;
		}
		if (!len) {
			fprintf(f, "\\\\x%02x", *p);
			continue;
		}
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Separator and key before a value at the current depth. */
static void begin_value(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		put_string(j->f, key);
		fputc(':', j->f);
	}
}

static void open_container(struct json *j, const char *key, char c)
{
	begin_value(j, key);
	fputc(c, j->f);
	if (j->depth + 1 >= JSON_MAX_DEPTH) {
		j->error = true;
		return;
	}
	j->first[++j->depth] = true;
}

static void close_container(struct json *j, char c)
{
	if (j->depth == 0) {
		j->error = true;
		return;
	}
	j->depth--;
	fputc(c, j->f);
}

void json_obj_open(struct json *j, const char *key)
{
	open_container(j, key, '{');
}

void json_obj_close(struct json *j)
{
	close_container(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	open_container(j, key, '[');
}

void json_arr_close(struct json *j)
{
	close_container(j, ']');
}

void json_str(struct json *j, const char *key, const char *val)
{
	begin_value(j, key);
	put_string(j->f, val);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	begin_value(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	begin_value(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	begin_value(j, key);
	fputs("null", j->f);
}

int json_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
	if (j->depth != 0)
		j->error = true;
	j->first[0] = true;
	return j->error ? -1 : 0;
}
