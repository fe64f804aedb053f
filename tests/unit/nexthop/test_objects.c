/* SPDX-License-Identifier: BSD-3-Clause */
/* Nexthop objects: sharing, ids, references, special kinds, headers. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "nexthop.h"

static const uint8_t port0_mac[6] = {0x02, 0, 0, 0, 0, 0x10};
static const uint8_t gw_mac[6] = {0x02, 0, 0, 0, 0, 0x99};

static struct nh_spec
via4(uint32_t id, uint16_t port, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct nh_spec s = {.id = id, .type = NH_T_GATEWAY, .family = 2, .port = port};
	s.gw[0] = a;
	s.gw[1] = b;
	s.gw[2] = c;
	s.gw[3] = d;
	return s;
}

static int
setup(void **state)
{
	struct nh_conf c = {.max_nexthops = 64, .nb_workers = 2};
	struct nh_table *t = nh_table_create(&c);
	if (t == NULL || nh_port_set(t, 0, port0_mac, 1500) != 0)
		return -1;
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	nh_table_free(*state);
	return 0;
}

static void
test_implicit_sharing(void **state)
{
	struct nh_table *t = *state;
	struct nh_spec s = via4(0, 0, 192, 0, 2, 1);
	uint32_t a, b, c;
	assert_int_equal(nh_add(t, &s, &a), 0);
	assert_int_equal(nh_add(t, &s, &b), 0);
	assert_int_equal(a, b); /* same gateway and port: one object */
	struct nh_spec other = via4(0, 1, 192, 0, 2, 1);
	assert_int_equal(nh_add(t, &other, &c), 0);
	assert_int_not_equal(a, c); /* another port: another object */
	struct nh_info info;
	assert_int_equal(nh_get(t, a, &info), 0);
	assert_int_equal(info.route_refs, 2);
	nh_unref(t, a);
	assert_int_equal(nh_get(t, a, &info), 0);
	nh_unref(t, a);
	assert_int_equal(nh_get(t, a, &info), -ENOENT); /* last reference gone */
	/* The released index is not handed out again at once when readers
	 * exist; with none (qsbr NULL) it is. */
	uint32_t d;
	assert_int_equal(nh_add(t, &s, &d), 0);
	assert_int_equal(d, a);
}

static void
test_explicit_ids(void **state)
{
	struct nh_table *t = *state;
	struct nh_spec s = via4(10, 0, 192, 0, 2, 1);
	uint32_t a, b, idx;
	assert_int_equal(nh_add(t, &s, &a), 0);
	assert_int_equal(nh_add(t, &s, &b), -EEXIST);
	assert_int_equal(nh_lookup_id(t, 10, &idx), 0);
	assert_int_equal(idx, a);
	/* An explicit nexthop is not shared with implicit ones. */
	struct nh_spec imp = via4(0, 0, 192, 0, 2, 1);
	assert_int_equal(nh_add(t, &imp, &b), 0);
	assert_int_not_equal(a, b);
	/* Referenced by a route: refused; then deleted. */
	nh_ref(t, a);
	assert_int_equal(nh_del(t, 10), -EBUSY);
	nh_unref(t, a);
	struct nh_info info;
	assert_int_equal(nh_get(t, a, &info), 0); /* explicit: stays at 0 refs */
	assert_int_equal(nh_del(t, 10), 0);
	assert_int_equal(nh_del(t, 10), -ENOENT);
	assert_int_equal(nh_lookup_id(t, 10, &idx), -ENOENT);
}

static void
test_special_kinds(void **state)
{
	struct nh_table *t = *state;
	uint32_t bh, bh2, local;
	struct nh_spec s = {.type = NH_T_BLACKHOLE};
	assert_int_equal(nh_add(t, &s, &bh), 0);
	assert_int_equal(nh_add(t, &s, &bh2), 0);
	assert_int_equal(bh, bh2);
	s.type = NH_T_LOCAL;
	assert_int_equal(nh_add(t, &s, &local), 0);
	assert_int_not_equal(bh, local);
	const struct nh_dp *v = nh_worker_view(t, 1);
	assert_int_equal(v[bh].type, NH_T_BLACKHOLE);
	assert_int_equal(v[local].type, NH_T_LOCAL);
	assert_false(nh_hdr_valid(nh_hdr_load(v[bh].hdr4)));
	s.type = NH_T_GROUP;
	assert_int_equal(nh_add(t, &s, &bh), -EINVAL);
	struct nh_spec bad = via4(0, 0, 1, 2, 3, 4);
	bad.family = 7;
	assert_int_equal(nh_add(t, &bad, &bh), -EINVAL);
}

static void
test_headers_follow_neighbour(void **state)
{
	struct nh_table *t = *state;
	struct nh_spec s = via4(0, 0, 192, 0, 2, 1);
	uint32_t a;
	assert_int_equal(nh_add(t, &s, &a), 0);
	for (unsigned int w = 0; w < 2; w++) {
		const struct nh_dp *d = &nh_worker_view(t, w)[a];
		assert_int_equal(d->type, NH_T_GATEWAY);
		assert_int_equal(d->port, 0);
		assert_int_equal(d->mtu, 1500);
		assert_int_equal(d->frame_max, 1514);
		assert_false(nh_hdr_valid(nh_hdr_load(d->hdr4)));
	}
	/* Another gateway's resolution changes nothing here. */
	uint8_t other[16] = {192, 0, 2, 2};
	assert_int_equal(nh_neigh_update(t, 0, 2, other, gw_mac), 0);
	assert_int_equal(nh_neigh_update(t, 0, 2, s.gw, gw_mac), 1);
	assert_int_equal(nh_neigh_update(t, 0, 2, s.gw, gw_mac), 0); /* no change */
	for (unsigned int w = 0; w < 2; w++) {
		const struct nh_dp *d = &nh_worker_view(t, w)[a];
		uint8_t h[16];
		_mm_storeu_si128((__m128i *)h, nh_hdr_load(d->hdr4));
		assert_true(nh_hdr_valid(nh_hdr_load(d->hdr4)));
		assert_memory_equal(h, gw_mac, 6);
		assert_memory_equal(h + 6, port0_mac, 6);
		assert_int_equal(h[12], 0x08);
		assert_int_equal(h[13], 0x00);
		_mm_storeu_si128((__m128i *)h, nh_hdr_load(d->hdr6));
		assert_int_equal(h[12], 0x86);
		assert_int_equal(h[13], 0xdd);
	}
	/* A new port MAC is republished. */
	const uint8_t newmac[6] = {0x02, 0, 0, 0, 0, 0x20};
	assert_int_equal(nh_port_set(t, 0, newmac, 9000), 0);
	uint8_t h[16];
	_mm_storeu_si128((__m128i *)h, nh_hdr_load(nh_worker_view(t, 0)[a].hdr4));
	assert_memory_equal(h + 6, newmac, 6);
	assert_int_equal(nh_worker_view(t, 0)[a].mtu, 9000);
	assert_int_equal(nh_worker_view(t, 0)[a].frame_max, 9014);
	/* The port goes down: invalid on every worker, in both families,
	 * though the neighbour stays resolved; up again: valid again. An MTU
	 * change while down keeps it down. */
	assert_int_equal(nh_port_down(t, 0, true), 0);
	assert_int_equal(nh_port_set(t, 0, newmac, 1500), 0);
	for (unsigned int w = 0; w < 2; w++) {
		assert_false(nh_hdr_valid(nh_hdr_load(nh_worker_view(t, w)[a].hdr4)));
		assert_false(nh_hdr_valid(nh_hdr_load(nh_worker_view(t, w)[a].hdr6)));
	}
	struct nh_info down_info;
	assert_int_equal(nh_get(t, a, &down_info), 0);
	assert_true(down_info.resolved);
	assert_int_equal(nh_port_down(t, 0, false), 0);
	for (unsigned int w = 0; w < 2; w++) {
		assert_true(nh_hdr_valid(nh_hdr_load(nh_worker_view(t, w)[a].hdr4)));
		assert_true(nh_hdr_valid(nh_hdr_load(nh_worker_view(t, w)[a].hdr6)));
	}
	assert_int_equal(nh_port_down(t, 7, true), -EINVAL); /* never set */
	/* The neighbour fails: headers invalid, workers must punt. */
	assert_int_equal(nh_neigh_update(t, 0, 2, s.gw, NULL), 1);
	assert_false(nh_hdr_valid(nh_hdr_load(nh_worker_view(t, 1)[a].hdr6)));
	struct nh_info info;
	assert_int_equal(nh_get(t, a, &info), 0);
	assert_false(info.resolved);
}

static void
test_exhaustion(void **state)
{
	(void)state;
	struct nh_conf c = {.max_nexthops = 3, .nb_workers = 1};
	struct nh_table *t = nh_table_create(&c);
	uint32_t i;
	for (uint8_t k = 1; k <= 3; k++) {
		struct nh_spec s = via4(0, 0, 10, 0, 0, k);
		assert_int_equal(nh_add(t, &s, &i), 0);
		assert_int_equal(i, k);
	}
	struct nh_spec s = via4(0, 0, 10, 0, 0, 4);
	assert_int_equal(nh_add(t, &s, &i), -ENOSPC);
	c.max_nexthops = NH_INDEX_MAX + 1;
	assert_null(nh_table_create(&c));
	nh_table_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_implicit_sharing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_explicit_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_special_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_headers_follow_neighbour, setup, teardown),
		cmocka_unit_test(test_exhaustion),
	};
	return cmocka_run_group_tests_name("nexthop_objects", tests, NULL, NULL);
}
