/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datapath's IPv4 header checksum test (dp_csum_ok4: two 64-bit words
 * and a 32-bit one added with end-around carries, then a divisibility
 * test) against a plain one's-complement sum of the ten 16-bit words, on
 * the headers the datapath gives it (first byte 0x45).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <rte_ip.h>

#include "dp_inline.h"
#include "../../../bench/xorshift.h"

static uint32_t
ones_sum(const uint8_t *h)
{
	uint32_t s = 0;
	for (int i = 0; i < 20; i += 2)
		s += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static bool
reference_ok(const uint8_t *h)
{
	return ones_sum(h) == 0xffff;
}

/* Set the checksum field so that the header verifies. */
static void
fix_checksum(uint8_t *h)
{
	h[10] = h[11] = 0;
	uint16_t c = (uint16_t)~ones_sum(h);
	h[10] = (uint8_t)(c >> 8);
	h[11] = (uint8_t)c;
}

static void
test_random_headers(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned int good = 0, bad = 0;
	for (unsigned int n = 0; n < 2000000; n++) {
		uint8_t h[20];
		for (int i = 0; i < 20; i += 8) {
			uint64_t r = xorshift64(&seed);
			memcpy(h + i, &r, i + 8 <= 20 ? 8 : 20 - i);
		}
		h[0] = 0x45;
		if (n % 2)
			fix_checksum(h); /* half valid, half (mostly) not */
		bool ok = dp_csum_ok4((const struct rte_ipv4_hdr *)h);
		assert_int_equal(ok, reference_ok(h));
		ok ? good++ : bad++;
	}
	assert_true(good >= 1000000);
	assert_true(bad > 900000);
}

/* Sums at the carry edges: every other byte 0xff or 0x00, and every
 * value of the checksum field over a fixed header. */
static void
test_edges(void **state)
{
	(void)state;
	uint8_t h[20];
	memset(h, 0xff, sizeof(h));
	h[0] = 0x45;
	fix_checksum(h);
	assert_true(dp_csum_ok4((const struct rte_ipv4_hdr *)h));
	memset(h, 0, sizeof(h));
	h[0] = 0x45;
	assert_false(dp_csum_ok4((const struct rte_ipv4_hdr *)h));
	fix_checksum(h);
	assert_true(dp_csum_ok4((const struct rte_ipv4_hdr *)h));
	unsigned int valid = 0;
	memset(h, 0xff, sizeof(h));
	h[0] = 0x45;
	for (uint32_t c = 0; c <= 0xffff; c++) {
		h[10] = (uint8_t)(c >> 8);
		h[11] = (uint8_t)c;
		bool ok = dp_csum_ok4((const struct rte_ipv4_hdr *)h);
		assert_int_equal(ok, reference_ok(h));
		valid += ok;
	}
	/* 0x0000 and 0xffff are the same in one's complement: two values. */
	assert_true(valid >= 1 && valid <= 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_headers),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
