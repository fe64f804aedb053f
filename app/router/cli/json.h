/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CLI's JSON writer: what `-j` prints, compact (no spaces, as `ip -j`
 * prints it), into an rt_buf. The writer places the commas, quotes and
 * escapes keys and strings, and closes what was opened; a caller says
 * only what the values are. Members of an object take a key, elements
 * of an array and the top-level value take NULL. A value at the top
 * level ends with a newline when it closes.
 */
#ifndef ROUTER_CLI_JSON_H
#define ROUTER_CLI_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

#define JSON_DEPTH_MAX 31

struct json {
	struct rt_buf *b;
	uint32_t has_member; /* bit d: the container at depth d has a member */
	uint32_t is_array;   /* bit d: the container at depth d is an array */
	uint8_t depth;       /* open containers */
	bool keyed;          /* json_key wrote the next value's key */
};

void json_init(struct json *j, struct rt_buf *b);
/* Open an object or an array; json_end closes the innermost. */
void json_obj(struct json *j, const char *key);
void json_arr(struct json *j, const char *key);
void json_end(struct json *j);
/* The key of the next value, for a value written by code that does not
 * know it is a member (an object shown by a show function). */
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *key, const char *v);
void json_strf(struct json *j, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void json_u64(struct json *j, const char *key, uint64_t v);
void json_bool(struct json *j, const char *key, bool v);

#endif
