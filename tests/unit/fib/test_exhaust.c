/* SPDX-License-Identifier: BSD-3-Clause */
/* Running out of second-level groups: the call fails with -ENOSPC and the
 * table is exactly as it was, in the RIB and in the lookup structure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_rcu_qsbr.h>

#include "fib_test.h"

static uint32_t
groups_used(const struct fib *f, uint8_t af)
{
	struct fib_mem_stats st;
	assert_int_equal(fib_table_mem(f, 0, &st), 0);
	return af == FIB_AF_INET ? st.groups4_used : st.groups6_used;
}

static int
add(struct fib *f, const char *cidr, uint32_t nh)
{
	struct fib_route r = R(cidr, nh, 0, 0);
	return fib_route_add(f, &r);
}

static void
test_ipv4_add_and_replace(void **state)
{
	(void)state;
	struct fib_conf c = test_conf();
	c.groups4 = 3;
	struct fib *f = fib_create(&c);
	assert_int_equal(add(f, "10.0.0.0/25", 1), 0);
	assert_int_equal(add(f, "10.0.1.0/25", 2), 0);
	assert_int_equal(add(f, "10.0.2.0/25", 3), 0);
	assert_int_equal(add(f, "10.0.4.0/24", 5), 0);
	assert_int_equal(groups_used(f, FIB_AF_INET), 3);

	/* A fourth /24 with a more-specific needs a fourth group. */
	assert_int_equal(add(f, "10.0.3.0/25", 4), -ENOSPC);
	assert_int_equal(fib_route_count(f, 0, FIB_AF_INET), 4);
	assert_int_equal(groups_used(f, FIB_AF_INET), 3);
	assert_int_equal(L(f, 0, "10.0.3.1"), FIB_NH_NONE);
	struct fib_route out;
	assert_int_equal(G(f, "10.0.3.0/25", 0, 0, true, &out), -ENOENT);

	/* Replace that would need a group keeps the old answer. */
	struct fib_route r = R("10.0.4.0/25", 6, 0, 0);
	assert_int_equal(fib_route_replace(f, &r), -ENOSPC);
	assert_int_equal(L(f, 0, "10.0.4.1"), 5);
	assert_int_equal(L(f, 0, "10.0.4.129"), 5);
	assert_int_equal(G(f, "10.0.4.0/25", 0, 0, true, &out), -ENOENT);

	/* More-specifics inside existing groups still fit. */
	assert_int_equal(add(f, "10.0.0.128/26", 7), 0);
	assert_int_equal(L(f, 0, "10.0.0.129"), 7);
	/* Prefixes of /24 and shorter need no group at all. */
	assert_int_equal(add(f, "11.0.0.0/8", 8), 0);
	assert_int_equal(L(f, 0, "11.1.2.3"), 8);

	/* Freeing a group makes room. */
	assert_int_equal(D(f, "10.0.2.0/25", 0, 0, true), 0);
	assert_int_equal(groups_used(f, FIB_AF_INET), 2);
	assert_int_equal(add(f, "10.0.3.0/25", 4), 0);
	assert_int_equal(L(f, 0, "10.0.3.1"), 4);
	fib_free(f);
}

static void
test_ipv4_delete_needing_a_group(void **state)
{
	(void)state;
	struct fib_conf c = test_conf();
	c.groups4 = 1;
	struct fib *f = fib_create(&c);
	/* The /26 has the /16's nexthop: its group merges away. */
	assert_int_equal(add(f, "10.1.0.0/16", 9), 0);
	assert_int_equal(add(f, "10.1.2.64/26", 9), 0);
	assert_int_equal(add(f, "10.2.0.0/25", 3), 0);
	assert_int_equal(groups_used(f, FIB_AF_INET), 1);
	/* Deleting the /16 must split 10.1.2.0/24 again: no group left. */
	assert_int_equal(D(f, "10.1.0.0/16", 0, 0, true), -ENOSPC);
	assert_int_equal(fib_route_count(f, 0, FIB_AF_INET), 3);
	assert_int_equal(L(f, 0, "10.1.2.1"), 9);
	assert_int_equal(L(f, 0, "10.1.2.65"), 9);
	assert_int_equal(L(f, 0, "10.1.9.9"), 9);
	assert_int_equal(D(f, "10.2.0.0/25", 0, 0, true), 0);
	assert_int_equal(D(f, "10.1.0.0/16", 0, 0, true), 0);
	assert_int_equal(L(f, 0, "10.1.2.1"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "10.1.2.65"), 9);
	fib_free(f);
}

static void
test_ipv4_delete_reserve(void **state)
{
	(void)state;
	struct fib_conf c = test_conf();
	c.groups4 = 128; /* 128 / 64: two groups kept for deletes */
	struct fib *f = fib_create(&c);
	/* The /26 has the /16's nexthop: its group merges away, and deleting
	 * the /16 will need one again. */
	assert_int_equal(add(f, "10.1.0.0/16", 9), 0);
	assert_int_equal(add(f, "10.1.2.64/26", 9), 0);
	assert_int_equal(groups_used(f, FIB_AF_INET), 0);
	/* Adds take every group but the reserve. */
	unsigned int added = 0;
	char cidr[32];
	for (;;) {
		snprintf(cidr, sizeof(cidr), "20.0.%u.0/25", added);
		int rc = add(f, cidr, 3);
		if (rc == -ENOSPC)
			break;
		assert_int_equal(rc, 0);
		added++;
	}
	assert_int_equal(added, 126);
	assert_int_equal(groups_used(f, FIB_AF_INET), 126);
	/* The delete still goes through, with a reserved group. */
	assert_int_equal(D(f, "10.1.0.0/16", 0, 0, true), 0);
	assert_int_equal(groups_used(f, FIB_AF_INET), 127);
	assert_int_equal(L(f, 0, "10.1.2.65"), 9);
	assert_int_equal(L(f, 0, "10.1.2.1"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "10.1.9.9"), FIB_NH_NONE);
	/* Adds still find the pool full. */
	assert_int_equal(add(f, "30.0.0.0/25", 4), -ENOSPC);
	fib_free(f);
}

static void
test_ipv6_deep(void **state)
{
	(void)state;
	struct fib_conf c = test_conf();
	c.groups6 = 20;
	struct fib *f = fib_create(&c);
	/* A /128 needs a group on each of the 13 levels below the first. */
	assert_int_equal(add(f, "2001:db8::1/128", 1), 0);
	assert_int_equal(groups_used(f, FIB_AF_INET6), 13);
	/* This one shares the first two levels: 12 more, 7 left. */
	assert_int_equal(add(f, "2001:db9::1/128", 2), -ENOSPC);
	assert_int_equal(groups_used(f, FIB_AF_INET6), 13);
	assert_int_equal(L(f, 0, "2001:db9::1"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "2001:db8::1"), 1);
	assert_int_equal(fib_route_count(f, 0, FIB_AF_INET6), 1);
	/* Shorter prefixes on the existing path fit. */
	assert_int_equal(add(f, "2001:db8::/64", 3), 0);
	assert_int_equal(L(f, 0, "2001:db8::2"), 3);
	assert_int_equal(L(f, 0, "2001:db8::1"), 1);
	assert_int_equal(D(f, "2001:db8::1/128", 0, 0, true), 0);
	assert_int_equal(add(f, "2001:db9::1/128", 2), 0);
	assert_int_equal(L(f, 0, "2001:db9::1"), 2);
	fib_free(f);
}

/* The first route of a family refused for want of groups: the family
 * keeps nothing it took for it, neither a first level nor RIB chunks. */
static void
test_refused_first_route(void **state)
{
	(void)state;
	struct fib_conf c = test_conf();
	c.groups6 = 8; /* a /128 needs 13 */
	struct fib *f = fib_create(&c);
	assert_int_equal(add(f, "2001:db8::1/128", 1), -ENOSPC);
	struct fib_mem_stats st;
	assert_int_equal(fib_table_mem(f, 0, &st), 0);
	assert_int_equal(st.tbl24_bytes, 0);
	assert_int_equal(st.groups6_used, 0);
	assert_int_equal(st.rib_bytes, 0);
	assert_int_equal(fib_route_count(f, 0, FIB_AF_INET6), 0);
	/* A route that fits still goes in. */
	assert_int_equal(add(f, "2001:db8::/48", 2), 0);
	assert_int_equal(L(f, 0, "2001:db8::1"), 2);
	fib_free(f);
}

static void
test_grace_period(void **state)
{
	(void)state;
	/* With a reader registered, freed groups come back only after it
	 * reports a quiescent state. */
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	struct rte_rcu_qsbr *q = aligned_alloc(64, (sz + 63) & ~(size_t)63);
	assert_int_equal(rte_rcu_qsbr_init(q, 1), 0);
	assert_int_equal(rte_rcu_qsbr_thread_register(q, 0), 0);
	rte_rcu_qsbr_thread_online(q, 0);
	struct fib_conf c = test_conf();
	c.qsbr = q;
	c.groups4 = 1;
	struct fib *f = fib_create(&c);
	assert_int_equal(add(f, "10.0.0.0/25", 1), 0);
	assert_int_equal(D(f, "10.0.0.0/25", 0, 0, true), 0);
	assert_int_equal(groups_used(f, FIB_AF_INET), 1); /* awaiting grace */
	assert_int_equal(add(f, "10.0.1.0/25", 2), -ENOSPC);
	rte_rcu_qsbr_quiescent(q, 0);
	assert_int_equal(add(f, "10.0.1.0/25", 2), 0);
	assert_int_equal(L(f, 0, "10.0.1.1"), 2);
	assert_int_equal(L(f, 0, "10.0.0.1"), FIB_NH_NONE);
	rte_rcu_qsbr_thread_offline(q, 0);
	fib_free(f);
	free(q);
}

static bool nh9_down;

static bool
nh9_down_cb(void *ctx, uint32_t nh)
{
	(void)ctx;
	return nh == 9 && nh9_down;
}

/* A route whose nexthop comes up again but finds no group left stays
 * down, with nothing else changed, and is installed by a later sync once
 * a group is free again. */
static void
test_ipv4_sync_down(void **state)
{
	(void)state;
	struct fib_conf c = test_conf();
	c.groups4 = 3;
	c.nh_down = nh9_down_cb;
	nh9_down = true;
	struct fib *f = fib_create(&c);
	assert_int_equal(add(f, "10.0.0.0/25", 1), 0);
	assert_int_equal(add(f, "10.0.1.0/25", 2), 0);
	assert_int_equal(add(f, "10.0.2.0/25", 3), 0);
	assert_int_equal(add(f, "10.0.3.0/24", 5), 0);
	assert_int_equal(add(f, "10.0.3.0/25", 9), 0); /* down: needs no group */
	assert_int_equal(groups_used(f, FIB_AF_INET), 3);
	assert_int_equal(L(f, 0, "10.0.3.1"), 5);

	nh9_down = false;
	assert_int_equal(fib_sync_down(f), -ENOSPC);
	assert_int_equal(L(f, 0, "10.0.3.1"), 5);
	assert_int_equal(L(f, 0, "10.0.3.129"), 5);
	assert_int_equal(groups_used(f, FIB_AF_INET), 3);
	struct fib_route out;
	assert_int_equal(G(f, "10.0.3.0/25", 0, 0, false, &out), 0);
	assert_int_equal(out.flags, FIB_RF_DOWN);

	/* A group freed: the next sync installs it. */
	struct fib_route d = R("10.0.2.0/25", 0, 0, 0);
	assert_int_equal(fib_route_del(f, &d, false), 0);
	fib_reclaim(f);
	assert_int_equal(fib_sync_down(f), 0);
	assert_int_equal(L(f, 0, "10.0.3.1"), 9);
	assert_int_equal(L(f, 0, "10.0.3.129"), 5);
	assert_int_equal(G(f, "10.0.3.0/25", 0, 0, false, &out), 0);
	assert_int_equal(out.flags, 0);
	fib_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_add_and_replace),
		cmocka_unit_test(test_ipv4_delete_needing_a_group),
		cmocka_unit_test(test_ipv4_delete_reserve),
		cmocka_unit_test(test_ipv6_deep),
		cmocka_unit_test(test_refused_first_route),
		cmocka_unit_test(test_grace_period),
		cmocka_unit_test(test_ipv4_sync_down),
	};
	return cmocka_run_group_tests_name("fib_exhaust", tests, NULL, NULL);
}
