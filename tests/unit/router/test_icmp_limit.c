/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-destination ICMP error limit (app/router/control/icmp_limit.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "icmp_limit.h"

#define SEC 1000u /* clock units a second in these tests */

static struct icmp_limit lim;

static void
key_of(uint32_t n, uint8_t key[16])
{
	icmp_limit_key4(n, key);
}

static unsigned int
allowed(const uint8_t key[16], unsigned int tries, uint64_t now)
{
	unsigned int ok = 0;
	for (unsigned int i = 0; i < tries; i++)
		ok += icmp_limit_allow(&lim, key, now);
	return ok;
}

static void
test_burst_then_one_per_interval(void **state)
{
	(void)state;
	icmp_limit_init(&lim, SEC);
	uint8_t a[16], b[16];
	key_of(1, a);
	key_of(2, b);
	assert_int_equal(allowed(a, 20, 1), ICMP_LIMIT_BURST);
	/* Another destination has its own burst. */
	assert_int_equal(allowed(b, 20, 1), ICMP_LIMIT_BURST);
	/* Half an interval later: nothing; a whole one: one more. */
	assert_int_equal(allowed(a, 5, 1 + SEC / 2), 0);
	assert_int_equal(allowed(a, 5, 1 + SEC), 1);
	/* A long quiet spell refills the burst, no more. */
	assert_int_equal(allowed(a, 20, 1 + 100 * SEC), ICMP_LIMIT_BURST);
}

static void
test_families_apart(void **state)
{
	(void)state;
	icmp_limit_init(&lim, SEC);
	uint8_t v4[16], v6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	key_of(0x01020304, v4);
	assert_int_equal(allowed(v4, 10, 5), ICMP_LIMIT_BURST);
	assert_int_equal(allowed(v6, 10, 5), ICMP_LIMIT_BURST);
}

static void
test_many_sources(void **state)
{
	(void)state;
	icmp_limit_init(&lim, SEC);
	/* Far more destinations than slots: each new one still gets its
	 * burst (the least recently used entries are reused), and one that
	 * keeps sending stays limited when it is among the recent ones. */
	uint8_t k[16], hot[16];
	key_of(0xdeadbeef, hot);
	assert_int_equal(allowed(hot, 10, 1), ICMP_LIMIT_BURST);
	for (uint32_t n = 0; n < 4 * ICMP_LIMIT_SLOTS; n++) {
		key_of(n, k);
		assert_true(icmp_limit_allow(&lim, k, 2 + n / 1024));
		if (n % 256 == 0)
			assert_false(icmp_limit_allow(&lim, hot, 2 + n / 1024));
	}
}

static void
test_global_bucket(void **state)
{
	(void)state;
	/* icmp.c's global limit: icmp-burst 50 at icmp-rate 100 a "second". */
	struct icmp_bucket b = {0};
	unsigned int ok = 0;
	for (unsigned int i = 0; i < 200; i++)
		ok += icmp_bucket_take(&b, 1, SEC / 100, 50);
	assert_int_equal(ok, 50);
	ok = 0;
	for (uint64_t t = 2; t <= 1 + SEC; t++) /* one a tick for a second */
		ok += icmp_bucket_take(&b, t, SEC / 100, 50);
	assert_int_equal(ok, 100);
}

static void
test_off(void **state)
{
	(void)state;
	icmp_limit_init(&lim, 0);
	uint8_t a[16];
	key_of(7, a);
	assert_int_equal(allowed(a, 1000, 1), 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_one_per_interval),
		cmocka_unit_test(test_families_apart),
		cmocka_unit_test(test_many_sources),
		cmocka_unit_test(test_global_bucket),
		cmocka_unit_test(test_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
