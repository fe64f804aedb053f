/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Header publication under concurrent readers: the control core
 * republishes one nexthop's headers a million times (the neighbour's MAC
 * changes, or it fails) while a reader loads them as the datapath does.
 * Every header read must be one that was published whole: the MAC's six
 * bytes belong together, and an invalid header has no MAC.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "nexthop.h"

#define UPDATES 1000000u

static const uint8_t port_mac[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};

struct reader {
	const struct nh_dp *line;
	volatile int *stop;
	uint64_t reads, torn, valid_seen, invalid_seen;
};

/* The MAC for version v: bytes 3..5 are the complement of bytes 0..2. */
static void
mac_of(uint32_t v, uint8_t mac[6])
{
	mac[0] = (uint8_t)v;
	mac[1] = (uint8_t)(v >> 8);
	mac[2] = (uint8_t)(v >> 16);
	mac[3] = (uint8_t)~mac[0];
	mac[4] = (uint8_t)~mac[1];
	mac[5] = (uint8_t)~mac[2];
}

static bool
whole(const uint8_t *h, uint16_t ethertype)
{
	if (memcmp(h + 6, port_mac, 6) != 0 || h[12] != ethertype >> 8 ||
	    h[13] != (ethertype & 0xff))
		return false;
	if (!(h[14] & NH_HDR_VALID)) {
		static const uint8_t zero[6];
		return memcmp(h, zero, 6) == 0;
	}
	return (h[3] ^ h[0]) == 0xff && (h[4] ^ h[1]) == 0xff && (h[5] ^ h[2]) == 0xff;
}

static void *
read_loop(void *arg)
{
	struct reader *r = arg;
	uint8_t h[16];
	while (!*r->stop) {
		_mm_storeu_si128((__m128i *)h, nh_hdr_load(r->line->hdr4));
		r->torn += !whole(h, 0x0800);
		if (h[14] & NH_HDR_VALID)
			r->valid_seen++;
		else
			r->invalid_seen++;
		_mm_storeu_si128((__m128i *)h, nh_hdr_load(r->line->hdr6));
		r->torn += !whole(h, 0x86dd);
		r->reads += 2;
	}
	return NULL;
}

static void
test_republish_under_readers(void **state)
{
	(void)state;
	struct nh_conf c = {.max_nexthops = 8, .nb_workers = 1};
	struct nh_table *t = nh_table_create(&c);
	assert_int_equal(nh_port_set(t, 0, port_mac, 1500), 0);
	struct nh_spec s = {.type = NH_T_GATEWAY, .family = 2, .gw = {10, 0, 0, 1}};
	uint32_t idx;
	assert_int_equal(nh_add(t, &s, &idx), 0);

	volatile int stop = 0;
	struct reader r = {.line = &nh_worker_view(t, 0)[idx], .stop = &stop};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, read_loop, &r), 0);
	uint8_t mac[6];
	unsigned int changed = 0;
	for (uint32_t v = 1; v <= UPDATES; v++) {
		mac_of(v, mac);
		/* One update in 16 is a failure, so invalid headers alternate
		 * with valid ones too. */
		changed += nh_neigh_update(t, 0, 2, s.gw, v % 16 ? mac : NULL);
	}
	stop = 1;
	pthread_join(th, NULL);
	print_message("%u publications, %llu reads (%llu valid, %llu invalid), %llu torn\n",
		      changed, (unsigned long long)r.reads, (unsigned long long)r.valid_seen,
		      (unsigned long long)r.invalid_seen, (unsigned long long)r.torn);
	assert_true(changed >= UPDATES - 1);
	assert_true(r.reads > 1000);
	assert_int_equal(r.torn, 0);
	nh_table_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_republish_under_readers),
	};
	return cmocka_run_group_tests_name("nexthop_publish", tests, NULL, NULL);
}
