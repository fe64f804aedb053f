/* SPDX-License-Identifier: BSD-3-Clause */
/* The CLI's JSON writer (app/router/cli/json.c): commas, keys, nesting,
 * escaping, and a keyed value written by code that does not know it is a
 * member. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "json.h"

static void
expect(struct rt_buf *b, const char *want)
{
	assert_non_null(b->s);
	assert_string_equal(b->s, want);
	free(b->s);
	*b = (struct rt_buf){0};
}

static void
test_nesting(void **state)
{
	(void)state;
	struct rt_buf b = {0};
	struct json j;
	json_init(&j, &b);
	json_arr(&j, NULL);
	json_obj(&j, "ignored in an array");
	json_u64(&j, "id", 7);
	json_str(&j, "dev", "port1");
	json_arr(&j, "flags");
	json_str(&j, NULL, "dead");
	json_str(&j, NULL, "linkdown");
	json_end(&j);
	json_bool(&j, "up", false);
	json_end(&j);
	json_obj(&j, NULL);
	json_end(&j);
	json_arr(&j, NULL);
	json_end(&j);
	json_end(&j);
	expect(&b, "[{\"id\":7,\"dev\":\"port1\",\"flags\":[\"dead\",\"linkdown\"],\"up\":false},{}"
		   ",[]]\n");
	json_end(&j); /* nothing open: nothing written */
	assert_null(b.s);
}

static void
test_escaping(void **state)
{
	(void)state;
	struct rt_buf b = {0};
	struct json j;
	json_init(&j, &b);
	json_obj(&j, NULL);
	json_str(&j, "a\"b", "q\"uote\\back\nline\x01");
	json_strf(&j, "n", "%u-%s", 42u, "x");
	json_end(&j);
	expect(&b, "{\"a\\\"b\":\"q\\\"uote\\\\back\\u000aline\\u0001\",\"n\":\"42-x\"}\n");
}

static void
test_keyed(void **state)
{
	(void)state;
	struct rt_buf b = {0};
	struct json j;
	json_init(&j, &b);
	json_obj(&j, NULL);
	json_str(&j, "kind", "route");
	json_key(&j, "data");
	json_obj(&j, NULL); /* as a show function writes it */
	json_u64(&j, "metric", 0);
	json_end(&j);
	json_u64(&j, "after", 1);
	json_end(&j);
	expect(&b, "{\"kind\":\"route\",\"data\":{\"metric\":0},\"after\":1}\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_keyed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
