/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer: objects and arrays nest, commas and escaping
 * are handled here.
 */
#ifndef GPUPATH_JSON_H
#define GPUPATH_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
	bool error;	/* nesting too deep or unbalanced */
};

void json_init(struct json *j, FILE *f);
/* @key is NULL inside arrays and at the top level. */
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, uint64_t val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* Ends a top-level value with a newline; returns -1 if the writer saw misuse. */
int json_end(struct json *j);

#endif /* GPUPATH_JSON_H */
