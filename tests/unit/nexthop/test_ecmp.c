/* SPDX-License-Identifier: BSD-3-Clause */
/* ECMP groups: weighted shares, flow stickiness, resilient changes. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nexthop.h"
#include "../../../bench/xorshift.h"

#define FLOWS 1000000u

struct flow {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint8_t proto;
};

static struct flow *flows;
static uint32_t *before, *after;

static int
setup_flows(void **state)
{
	(void)state;
	uint64_t s = 0x243f6a8885a308d3ull;
	flows = malloc(sizeof(*flows) * FLOWS);
	before = malloc(sizeof(*before) * FLOWS);
	after = malloc(sizeof(*after) * FLOWS);
	for (uint32_t i = 0; i < FLOWS; i++) {
		xorshift64(&s);
		flows[i] = (struct flow){.src = (uint32_t)s,
					 .dst = (uint32_t)(s >> 32),
					 .sport = (uint16_t)(s >> 7),
					 .dport = (uint16_t)(s >> 23),
					 .proto = (s >> 40) & 1 ? 6 : 17};
	}
	return 0;
}

static int
teardown_flows(void **state)
{
	(void)state;
	free(flows);
	free(before);
	free(after);
	return 0;
}

/* The fields as a packet's headers hold them (network order), which is
 * what the datapath hashes. */
static uint32_t
be32(uint32_t v)
{
	return __builtin_bswap32(v);
}

static uint32_t
ports_of(uint16_t sport, uint16_t dport)
{
	return (uint32_t)__builtin_bswap16(dport) << 16 | __builtin_bswap16(sport);
}

static uint32_t
hash_of(const struct flow *f)
{
	return nh_hash4(be32(f->src), be32(f->dst), f->proto, ports_of(f->sport, f->dport));
}

/* A table with n gateway nexthops at indices 1..n. */
static struct nh_table *
make(unsigned int n)
{
	struct nh_conf c = {.max_nexthops = 64, .nb_workers = 2};
	struct nh_table *t = nh_table_create(&c);
	for (unsigned int k = 0; k < n; k++) {
		struct nh_spec s = {.type = NH_T_GATEWAY,
				    .family = 2,
				    .port = 0,
				    .gw = {10, 0, 0, (uint8_t)(k + 1)},
				    .id = 100 + k};
		uint32_t idx;
		assert_int_equal(nh_add(t, &s, &idx), 0);
		assert_int_equal(idx, k + 1);
	}
	return t;
}

static void
route_all(const struct nh_table *t, uint32_t g, unsigned int worker, uint32_t *out)
{
	const struct nh_dp *d = &nh_worker_view(t, worker)[g];
	for (uint32_t i = 0; i < FLOWS; i++)
		out[i] = nh_group_member(d, hash_of(&flows[i]));
}

static void
check_shares(const uint32_t *m, const uint16_t *weight, unsigned int n)
{
	uint32_t count[8] = {0}, total = 0;
	for (uint32_t i = 0; i < FLOWS; i++) {
		assert_true(m[i] >= 1 && m[i] <= n);
		count[m[i] - 1]++;
	}
	for (unsigned int k = 0; k < n; k++)
		total += weight[k];
	for (unsigned int k = 0; k < n; k++) {
		double want = (double)FLOWS * weight[k] / total, got = count[k];
		print_message("member %u weight %u: %.2f%% of flows (want %.2f%%)\n", k + 1,
			      weight[k], 100.0 * got / FLOWS, 100.0 * want / FLOWS);
		assert_true(got > want * 0.95 && got < want * 1.05);
	}
}

static void
test_weighted_shares(void **state)
{
	(void)state;
	struct nh_table *t = make(4);
	static const uint16_t w[4] = {1, 2, 3, 4};
	struct nh_member m[4] = {{1, 1}, {2, 2}, {3, 3}, {4, 4}};
	uint32_t g;
	assert_int_equal(nh_group_set(t, 7, m, 4, &g), 0);
	route_all(t, g, 0, before);
	check_shares(before, w, 4);
	/* The same flow always gets the same member, on every worker. */
	route_all(t, g, 1, after);
	assert_memory_equal(before, after, sizeof(*before) * FLOWS);
	nh_table_free(t);
}

static void
test_resilient_remove_and_add(void **state)
{
	(void)state;
	struct nh_table *t = make(4);
	struct nh_member m[4] = {{1, 1}, {2, 1}, {3, 1}, {4, 1}};
	static const uint16_t eq[4] = {1, 1, 1, 1};
	uint32_t g;
	assert_int_equal(nh_group_set(t, 7, m, 4, &g), 0);
	route_all(t, g, 0, before);
	check_shares(before, eq, 4);

	/* Remove member 3 by deleting its nexthop: the group shrinks. */
	assert_int_equal(nh_del(t, 102), 0);
	route_all(t, g, 0, after);
	uint32_t moved = 0;
	for (uint32_t i = 0; i < FLOWS; i++) {
		assert_int_not_equal(after[i], 3);
		if (before[i] != 3)
			assert_int_equal(after[i], before[i]); /* nobody else moves */
		moved += after[i] != before[i];
	}
	print_message("removing 1 of 4 moved %.2f%% of flows\n", 100.0 * moved / FLOWS);
	assert_true(moved > FLOWS * 0.22 && moved < FLOWS * 0.28);
	struct nh_info info;
	assert_int_equal(nh_get(t, g, &info), 0);
	assert_int_equal(info.nb_members, 3);

	/* Add a member back: flows move only to it, about a quarter. */
	struct nh_spec s = {.type = NH_T_GATEWAY, .family = 2, .gw = {10, 0, 0, 9}, .id = 109};
	uint32_t n9;
	assert_int_equal(nh_add(t, &s, &n9), 0);
	struct nh_member m2[4] = {{1, 1}, {2, 1}, {4, 1}, {n9, 1}};
	memcpy(before, after, sizeof(*before) * FLOWS);
	assert_int_equal(nh_group_set(t, 7, m2, 4, &g), 0);
	route_all(t, g, 0, after);
	moved = 0;
	for (uint32_t i = 0; i < FLOWS; i++) {
		if (after[i] != before[i]) {
			assert_int_equal(after[i], n9);
			moved++;
		}
	}
	print_message("adding a 4th member moved %.2f%% of flows\n", 100.0 * moved / FLOWS);
	assert_true(moved > FLOWS * 0.22 && moved < FLOWS * 0.28);
	nh_table_free(t);
}

static void
test_l3_policy_and_errors(void **state)
{
	(void)state;
	struct nh_table *t = make(2);
	struct nh_member m[2] = {{1, 1}, {2, 1}};
	uint32_t g, idx;
	assert_int_equal(nh_group_set(t, 7, m, 2, &g), 0);
	const struct nh_dp *d = &nh_worker_view(t, 0)[g];
	assert_int_equal(d->type, NH_T_GROUP);
	/* L3: a host pair takes one path whatever its ports; under L4 its
	 * non-first fragments do too. L4 spreads the ports. */
	uint32_t first =
		nh_group_member(d, nh_flow_hash4(NH_HASH_L3, be32(0x0a000001), be32(0x0a000002), 17,
						 ports_of(1, 1), false));
	unsigned int l4_members[3] = {0};
	for (uint16_t p = 0; p < 100; p++) {
		assert_int_equal(nh_group_member(d, nh_flow_hash4(NH_HASH_L3, be32(0x0a000001),
								  be32(0x0a000002), 17,
								  ports_of(p, 53), false)),
				 first);
		assert_int_equal(nh_group_member(d, nh_flow_hash4(NH_HASH_L4, be32(0x0a000001),
								  be32(0x0a000002), 17,
								  ports_of(p, 53), true)),
				 first);
		l4_members[nh_group_member(d, nh_flow_hash4(NH_HASH_L4, be32(0x0a000001),
							    be32(0x0a000002), 17, ports_of(p, 53),
							    false))]++;
	}
	assert_true(l4_members[1] > 20 && l4_members[2] > 20);
	assert_int_equal(nh_hash_policy(t), NH_HASH_L4);
	/* Members must exist, be plain nexthops, appear once, weigh 1..255. */
	struct nh_member bad[2] = {{1, 1}, {1, 1}};
	assert_int_equal(nh_group_set(t, 8, bad, 2, &idx), -EINVAL);
	bad[1] = (struct nh_member){9, 1};
	assert_int_equal(nh_group_set(t, 8, bad, 2, &idx), -ENOENT);
	bad[1] = (struct nh_member){g, 1};
	assert_int_equal(nh_group_set(t, 8, bad, 2, &idx), -EINVAL);
	bad[1] = (struct nh_member){2, 0};
	assert_int_equal(nh_group_set(t, 8, bad, 2, &idx), -EINVAL);
	assert_int_equal(nh_group_set(t, 100, m, 2, &idx), -EEXIST); /* id of a nexthop */
	/* A member in use by a group is not deleted from under it silently:
	 * the group shrinks; the group itself goes with nh_del. */
	assert_int_equal(nh_del(t, 7), 0);
	assert_int_equal(nh_lookup_id(t, 7, &idx), -ENOENT);
	struct nh_info info;
	assert_int_equal(nh_get(t, 1, &info), 0);
	assert_int_equal(info.group_refs, 0);
	nh_table_free(t);
}

/* Equal shares for n flows whose hashes come from hash(i), within 5%. */
static void
check_spread(const struct nh_dp *d, uint32_t n, uint32_t (*hash)(uint32_t), const char *what)
{
	uint32_t count[5] = {0};
	for (uint32_t i = 0; i < n; i++)
		count[nh_group_member(d, hash(i))]++;
	for (unsigned int k = 1; k <= 4; k++) {
		print_message("%s: member %u %.2f%%\n", what, k, 100.0 * count[k] / n);
		assert_true(count[k] > n / 4 * 0.95 && count[k] < n / 4 * 1.05);
	}
}

static uint32_t
seq_sport(uint32_t i) /* one host pair, source ports counting up */
{
	return nh_hash4(be32(0x0a000001), be32(0xc6336402), 6, ports_of((uint16_t)(1024 + i), 443));
}

static uint32_t
seq_src4(uint32_t i) /* the hosts of a /16 to one server port */
{
	return nh_hash4(be32(0x0a000000 | i), be32(0xc6336402), 17, ports_of(5000, 53));
}

static uint32_t
seq_src6(uint32_t i) /* the hosts of a /64, numbered, to one server port */
{
	uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1}, dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 2};
	src[14] = (uint8_t)(i >> 8);
	src[15] = (uint8_t)i;
	dst[15] = 1;
	return nh_hash6(src, dst, 0, 6, ports_of(40000, 443));
}

static uint32_t
seq_sport6(uint32_t i)
{
	static const uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 7},
			     dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 1};
	return nh_hash6(src, dst, 0, 17, ports_of((uint16_t)(1024 + i), 53));
}

/* Real traffic is not random: counting ports and numbered hosts must
 * spread as evenly as random flows do. */
static void
test_structured_flows(void **state)
{
	(void)state;
	struct nh_table *t = make(4);
	struct nh_member m[4] = {{1, 1}, {2, 1}, {3, 1}, {4, 1}};
	uint32_t g;
	assert_int_equal(nh_group_set(t, 7, m, 4, &g), 0);
	const struct nh_dp *d = &nh_worker_view(t, 0)[g];
	check_spread(d, 60000, seq_sport, "IPv4 source ports");
	check_spread(d, 65536, seq_src4, "IPv4 sources in a /16");
	check_spread(d, 65536, seq_src6, "IPv6 sources in a /64");
	check_spread(d, 60000, seq_sport6, "IPv6 source ports");
	nh_table_free(t);
}

/* Members 1..4 each hold a quarter of the flows, within 3 points. */
static void
check_quarters(const uint32_t *member)
{
	uint32_t count[5] = {0};
	for (uint32_t i = 0; i < FLOWS; i++)
		count[member[i]]++;
	for (int k = 1; k <= 4; k++)
		assert_true(count[k] > FLOWS * 22 / 100 && count[k] < FLOWS * 28 / 100);
}

/* A port going down takes its members out of the groups' buckets: their
 * flows move to the live members and no other flow moves; back up, the
 * members get their shares again. */
static void
test_port_down_moves_flows(void **state)
{
	(void)state;
	struct nh_conf c = {.max_nexthops = 64, .nb_workers = 2};
	struct nh_table *t = nh_table_create(&c);
	static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
	assert_int_equal(nh_port_set(t, 0, mac, 1500), 0);
	assert_int_equal(nh_port_set(t, 1, mac, 1500), 0);
	for (unsigned int k = 0; k < 4; k++) { /* 1 and 2 on port 0, 3 and 4 on port 1 */
		struct nh_spec sp = {.type = NH_T_GATEWAY,
				     .family = 2,
				     .port = (uint16_t)(k / 2),
				     .gw = {10, 0, 0, (uint8_t)(k + 1)},
				     .id = 100 + k};
		uint32_t idx;
		assert_int_equal(nh_add(t, &sp, &idx), 0);
		assert_int_equal(idx, k + 1);
	}
	struct nh_member m[4] = {{1, 1}, {2, 1}, {3, 1}, {4, 1}};
	uint32_t g;
	assert_int_equal(nh_group_set(t, 7, m, 4, &g), 0);
	route_all(t, g, 1, before);
	assert_int_equal(nh_port_down(t, 1, true), 0);
	route_all(t, g, 1, after);
	uint32_t count[5] = {0};
	for (uint32_t i = 0; i < FLOWS; i++) {
		count[after[i]]++;
		if (before[i] <= 2)
			assert_int_equal(after[i], before[i]);
	}
	assert_int_equal(count[3] + count[4], 0);
	assert_true(count[1] > FLOWS * 45 / 100 && count[2] > FLOWS * 45 / 100);
	/* nh_down: the members on port 1, not the group (two are up). */
	assert_true(!nh_down(t, 1) && !nh_down(t, 2) && nh_down(t, 3) && nh_down(t, 4));
	assert_false(nh_down(t, g));
	/* Back up: a quarter each again. */
	assert_int_equal(nh_port_down(t, 1, false), 0);
	assert_false(nh_down(t, 3));
	route_all(t, g, 1, after);
	check_quarters(after);
	/* Every member down: shared over all of them (their drops say why);
	 * port 0 back: its two members take every flow. */
	assert_int_equal(nh_port_down(t, 0, true), 0);
	assert_int_equal(nh_port_down(t, 1, true), 0);
	route_all(t, g, 1, after);
	check_quarters(after);
	assert_true(nh_down(t, g)); /* every member: the group too */
	assert_int_equal(nh_port_down(t, 0, false), 0);
	route_all(t, g, 1, after);
	for (uint32_t i = 0; i < FLOWS; i++)
		assert_true(after[i] == 1 || after[i] == 2);
	assert_false(nh_down(t, g));
	assert_false(nh_down(t, 0) || nh_down(t, 63) || nh_down(t, 64)); /* not in use */
	nh_table_free(t);
}

static void
test_implicit_group_lifecycle(void **state)
{
	(void)state;
	struct nh_conf c = {.max_nexthops = 64, .nb_workers = 1};
	struct nh_table *t = nh_table_create(&c);
	uint32_t a, b, g;
	struct nh_spec sa = {.type = NH_T_GATEWAY, .family = 2, .gw = {10, 0, 0, 1}};
	struct nh_spec sb = {.type = NH_T_GATEWAY, .family = 2, .gw = {10, 0, 0, 2}};
	assert_int_equal(nh_add(t, &sa, &a), 0);
	assert_int_equal(nh_add(t, &sb, &b), 0);
	struct nh_member m[2] = {{a, 2}, {b, 1}};
	assert_int_equal(nh_group_add(t, m, 2, &g), 0);
	/* The route-building code drops its own references on the members:
	 * the group keeps them. */
	nh_unref(t, a);
	nh_unref(t, b);
	struct nh_info info;
	assert_int_equal(nh_get(t, a, &info), 0);
	assert_int_equal(info.group_refs, 1);
	assert_int_equal(nh_get(t, g, &info), 0);
	assert_int_equal(info.spec.id, 0);
	assert_int_equal(info.nb_members, 2);
	/* A second route's group of the same members is its own. */
	uint32_t g2;
	assert_int_equal(nh_group_add(t, m, 2, &g2), 0);
	assert_int_not_equal(g, g2);
	nh_unref(t, g2);
	assert_int_equal(nh_get(t, a, &info), 0);
	/* The last route goes: the group and its members with it. */
	nh_unref(t, g);
	assert_int_equal(nh_get(t, g, &info), -ENOENT);
	assert_int_equal(nh_get(t, a, &info), -ENOENT);
	assert_int_equal(nh_get(t, b, &info), -ENOENT);
	nh_table_free(t);
}

/* A route moved from one group to a new one (the kernel mirror, when a
 * daemon replaces a route's nexthop object): the new group starts from
 * the old one's buckets, so flows move as if the group had changed in
 * place; from a plain nexthop, as from a group of one. */
static void
test_group_like(void **state)
{
	(void)state;
	struct nh_table *t = make(3);
	struct nh_member m3[3] = {{1, 1}, {2, 1}, {3, 1}};
	uint32_t g3, g2, g12;
	assert_int_equal(nh_group_add(t, m3, 3, &g3), 0);
	route_all(t, g3, 0, before);
	assert_int_equal(nh_group_add_like(t, m3, 2, g3, &g2), 0); /* 3 leaves */
	route_all(t, g2, 0, after);
	uint32_t moved = 0;
	for (uint32_t i = 0; i < FLOWS; i++) {
		if (before[i] != 3)
			assert_int_equal(after[i], before[i]);
		moved += after[i] != before[i];
	}
	print_message("a group of 3 replaced by 2 of them moved %.2f%% of flows\n",
		      100.0 * moved / FLOWS);
	assert_true(moved > FLOWS * 0.30 && moved < FLOWS * 0.37);
	/* From nexthop 1 alone to 1 and 2: only flows that go to 2 move. */
	assert_int_equal(nh_group_add_like(t, m3, 2, 1, &g12), 0);
	route_all(t, g12, 0, after);
	moved = 0;
	for (uint32_t i = 0; i < FLOWS; i++)
		moved += after[i] != 1;
	print_message("nexthop 1 joined by 2 moved %.2f%% of flows\n", 100.0 * moved / FLOWS);
	assert_true(moved > FLOWS * 0.47 && moved < FLOWS * 0.53);
	/* Unknown like: a group of its own, as nh_group_add. */
	uint32_t g0;
	assert_int_equal(nh_group_add_like(t, m3, 3, 60, &g0), 0);
	route_all(t, g0, 0, after);
	assert_memory_equal(before, after, sizeof(*before) * FLOWS);
	nh_table_free(t);
}

/* A group's last member is not deleted from under it: the group would
 * have no path. Others shrink it; the group first, then the member. */
static void
test_last_member_kept(void **state)
{
	(void)state;
	struct nh_table *t = make(2);
	struct nh_member m[2] = {{1, 1}, {2, 1}};
	uint32_t g, idx;
	assert_int_equal(nh_group_set(t, 7, m, 2, &g), 0);
	assert_int_equal(nh_del(t, 100), 0);      /* 2 left... */
	assert_int_equal(nh_del(t, 101), -EBUSY); /* ...the last one stays */
	struct nh_info info;
	assert_int_equal(nh_get(t, g, &info), 0);
	assert_int_equal(info.nb_members, 1);
	route_all(t, g, 0, after);
	for (uint32_t i = 0; i < FLOWS; i++)
		assert_int_equal(after[i], 2);
	assert_int_equal(nh_del(t, 7), 0);
	assert_int_equal(nh_del(t, 101), 0);
	assert_int_equal(nh_lookup_id(t, 101, &idx), -ENOENT);
	nh_table_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weighted_shares),
		cmocka_unit_test(test_resilient_remove_and_add),
		cmocka_unit_test(test_last_member_kept),
		cmocka_unit_test(test_l3_policy_and_errors),
		cmocka_unit_test(test_structured_flows),
		cmocka_unit_test(test_implicit_group_lifecycle),
		cmocka_unit_test(test_group_like),
		cmocka_unit_test(test_port_down_moves_flows),
	};
	return cmocka_run_group_tests_name("nexthop_ecmp", tests, setup_flows, teardown_flows);
}
