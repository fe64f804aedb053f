/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>

#include "json.h"

void
json_init(struct json *j, struct rt_buf *b)
{
	*j = (struct json){.b = b};
}

/* A string, quoted and escaped (RFC 8259 section 7). */
static void
put_string(struct json *j, const char *s)
{
	rt_buf_printf(j->b, "\"");
	for (const char *run = s;; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch != 0 && ch != '"' && ch != '\\' && ch >= 0x20)
			continue;
		rt_buf_printf(j->b, "%.*s", (int)(s - run), run);
		if (ch == 0)
			break;
		if (ch == '"' || ch == '\\')
			rt_buf_printf(j->b, "\\%c", ch);
		else
			rt_buf_printf(j->b, "\\u%04x", ch);
		run = s + 1;
	}
	rt_buf_printf(j->b, "\"");
}

/* What comes before a value: a comma after a sibling, and its key. */
static void
before(struct json *j, const char *key)
{
	if (j->keyed) {
		j->keyed = false;
		return;
	}
	uint32_t bit = 1u << j->depth;
	if (j->depth > 0 && (j->has_member & bit))
		rt_buf_printf(j->b, ",");
	j->has_member |= bit;
	if (key != NULL && j->depth > 0 && !(j->is_array & bit)) {
		put_string(j, key);
		rt_buf_printf(j->b, ":");
	}
}

void
json_key(struct json *j, const char *key)
{
	before(j, key);
	j->keyed = true;
}

static void
open_container(struct json *j, const char *key, bool array)
{
	before(j, key);
	if (j->depth == JSON_DEPTH_MAX)
		return; /* deeper than any command nests: a bug, kept harmless */
	j->depth++;
	uint32_t bit = 1u << j->depth;
	j->has_member &= ~bit;
	j->is_array = array ? j->is_array | bit : j->is_array & ~bit;
	rt_buf_printf(j->b, array ? "[" : "{");
}

void
json_obj(struct json *j, const char *key)
{
	open_container(j, key, false);
}

void
json_arr(struct json *j, const char *key)
{
	open_container(j, key, true);
}

void
json_end(struct json *j)
{
	if (j->depth == 0)
		return;
	rt_buf_printf(j->b, (j->is_array >> j->depth & 1) ? "]" : "}");
	if (--j->depth == 0)
		rt_buf_printf(j->b, "\n");
}

void
json_str(struct json *j, const char *key, const char *v)
{
	before(j, key);
	put_string(j, v);
}

void
json_strf(struct json *j, const char *key, const char *fmt, ...)
{
	char s[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	json_str(j, key, s);
}

void
json_u64(struct json *j, const char *key, uint64_t v)
{
	before(j, key);
	rt_buf_printf(j->b, "%llu", (unsigned long long)v);
}

void
json_bool(struct json *j, const char *key, bool v)
{
	before(j, key);
	rt_buf_printf(j->b, v ? "true" : "false");
}
