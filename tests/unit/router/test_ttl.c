/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datapath's TTL decrement: the fast 32-bit update must write exactly
 * what Linux's ip_decrease_ttl (dp_ttl_dec4) writes wherever dp_ttl_fast4
 * lets it run, and every update must leave a valid header valid.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <rte_ip.h>

#include "dp_inline.h"
#include "../../../bench/xorshift.h"

static void
test_fast_matches_linux(void **state)
{
	(void)state;
	static const uint8_t ttls[] = {2, 3, 64, 128, 255};
	unsigned int fast = 0, slow = 0;
	for (unsigned int t = 0; t < sizeof(ttls); t++) {
		for (uint32_t c = 0; c <= 0xffff; c++) {
			struct rte_ipv4_hdr a = {.version_ihl = 0x45,
						 .time_to_live = ttls[t],
						 .next_proto_id = IPPROTO_UDP,
						 .hdr_checksum = rte_cpu_to_be_16((uint16_t)c)};
			struct rte_ipv4_hdr b = a;
			dp_ttl_dec4(&a);
			if (!dp_ttl_fast4(&b)) {
				slow++;
				continue;
			}
			fast++;
			dp_ttl_dec4_fast(&b);
			assert_memory_equal(&a, &b, sizeof(a));
		}
	}
	/* One checksum in 256 is left to dp_ttl_dec4. */
	assert_int_equal(slow, sizeof(ttls) * 256);
	assert_int_equal(fast, sizeof(ttls) * (65536 - 256));
}

static void
test_headers_stay_valid(void **state)
{
	(void)state;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (unsigned int i = 0; i < 1000000; i++) {
		xorshift64(&s);
		struct rte_ipv4_hdr h = {.version_ihl = 0x45,
					 .total_length =
						 rte_cpu_to_be_16((uint16_t)(20 + (s & 1023))),
					 .packet_id = (uint16_t)(s >> 10),
					 .time_to_live = (uint8_t)(2 + (s >> 26) % 254),
					 .next_proto_id = (uint8_t)(s >> 34),
					 .src_addr = (uint32_t)(s >> 3),
					 .dst_addr = (uint32_t)(s >> 29)};
		h.hdr_checksum = rte_ipv4_cksum(&h);
		uint8_t ttl = h.time_to_live;
		if (dp_ttl_fast4(&h))
			dp_ttl_dec4_fast(&h);
		else
			dp_ttl_dec4(&h);
		assert_int_equal(h.time_to_live, ttl - 1);
		assert_int_equal(rte_raw_cksum(&h, sizeof(h)), 0xffff);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_matches_linux),
		cmocka_unit_test(test_headers_stay_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
