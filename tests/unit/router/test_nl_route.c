/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rtnetlink decoder of the kernel route mirror
 * (app/router/control/nl_route.c): routes and nexthop objects as the
 * kernel sends them, every truncation, malformed attributes, unknown
 * ones, and random and mutated messages, each in a heap buffer of exactly
 * its length (nlmsg_len) so that the address sanitizer catches a read
 * past it. FUZZ_SEED=N picks another seed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "nl_build.h"
#include "nl_route.h"
#include "../../../bench/xorshift.h"

/* The message in a buffer of exactly its length, nlmsg_len set to it. */
static struct nlmsghdr *
copy(const struct nl_build *m, size_t len)
{
	struct nlmsghdr *h = malloc(len < sizeof(*h) ? sizeof(*h) : len);
	assert_non_null(h);
	memcpy(h, m->b, len);
	h->nlmsg_len = (uint32_t)len;
	return h;
}

static void
route4(struct nl_build *m)
{
	struct rtmsg rt = {.rtm_family = AF_INET,
			   .rtm_dst_len = 24,
			   .rtm_table = RT_TABLE_MAIN,
			   .rtm_protocol = 12,
			   .rtm_type = RTN_UNICAST};
	nl_build_start(m, RTM_NEWROUTE, &rt, sizeof(rt));
	uint8_t dst[4] = {203, 0, 113, 0}, gw[4] = {192, 0, 2, 2};
	uint32_t oif = 7, prio = 32, table = 254;
	nl_build_attr(m, RTA_DST, dst, 4);
	nl_build_attr(m, RTA_GATEWAY, gw, 4);
	nl_build_attr(m, RTA_OIF, &oif, 4);
	nl_build_attr(m, RTA_PRIORITY, &prio, 4);
	nl_build_attr(m, RTA_TABLE, &table, 4);
}

/* An IPv6 route of n paths (ifindex 7 + i, gateway fe80::i+1, weight
 * 2i + 1 modulo 256), n up to 120. */
static void
route6_paths(struct nl_build *m, int n)
{
	struct rtmsg rt = {.rtm_family = AF_INET6,
			   .rtm_dst_len = 48,
			   .rtm_table = RT_TABLE_MAIN,
			   .rtm_protocol = 186,
			   .rtm_type = RTN_UNICAST};
	nl_build_start(m, RTM_NEWROUTE, &rt, sizeof(rt));
	uint8_t dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x99};
	nl_build_attr(m, RTA_DST, dst, 16);
	static uint8_t mp[120 * 28];
	size_t at = 0;
	for (int i = 0; i < n; i++) {
		struct rtnexthop nh = {.rtnh_len = sizeof(nh) + 20,
				       .rtnh_hops = (uint8_t)(i * 2),
				       .rtnh_ifindex = 7 + i};
		memcpy(mp + at, &nh, sizeof(nh));
		uint16_t alen = 20, type = RTA_GATEWAY;
		uint8_t gw[16] = {0xfe, 0x80, [15] = (uint8_t)(i + 1)};
		memcpy(mp + at + sizeof(nh), &alen, 2);
		memcpy(mp + at + sizeof(nh) + 2, &type, 2);
		memcpy(mp + at + sizeof(nh) + 4, gw, 16);
		at += sizeof(nh) + 20;
	}
	nl_build_attr(m, RTA_MULTIPATH, mp, at);
}

/* Routes and groups of as many paths as routerd's groups hold are read
 * whole; of more, the first kept and too_many set, not malformed (the
 * mirror skips them as no room). */
static void
test_many_paths(void **state)
{
	(void)state;
	struct nl_build m;
	struct nlr_route r;
	for (int n = NLR_PATHS_MAX - 1; n <= NLR_PATHS_MAX + 6; n++) {
		route6_paths(&m, n);
		struct nlmsghdr *h = copy(&m, m.len);
		assert_int_equal(nlr_route_parse(h, &r), 0);
		free(h);
		assert_int_equal(r.npaths, n <= NLR_PATHS_MAX ? n : NLR_PATHS_MAX);
		assert_int_equal(r.too_many, n > NLR_PATHS_MAX);
		assert_int_equal(r.path[NLR_PATHS_MAX - 2].ifindex, 7 + NLR_PATHS_MAX - 2);
	}
	struct nlr_nexthop nh;
	for (int n = NLR_PATHS_MAX; n <= NLR_PATHS_MAX + 1; n++) {
		struct nhmsg hdr = {.nh_family = AF_UNSPEC};
		nl_build_start(&m, RTM_NEWNEXTHOP, &hdr, sizeof(hdr));
		uint32_t id = 40;
		nl_build_attr(&m, NHA_ID, &id, 4);
		struct nexthop_grp g[NLR_PATHS_MAX + 1];
		for (int i = 0; i < n; i++)
			g[i] = (struct nexthop_grp){.id = (uint32_t)(100 + i)};
		nl_build_attr(&m, NHA_GROUP, g, sizeof(g[0]) * (size_t)n);
		struct nlmsghdr *h = copy(&m, m.len);
		assert_int_equal(nlr_nexthop_parse(h, &nh), 0);
		free(h);
		assert_int_equal(nh.ngroup, NLR_PATHS_MAX);
		assert_int_equal(nh.too_many, n > NLR_PATHS_MAX);
	}
}

static void
route6_multipath(struct nl_build *m)
{
	route6_paths(m, 2);
}

static void
nexthop_group(struct nl_build *m)
{
	struct nhmsg nh = {.nh_family = AF_UNSPEC};
	nl_build_start(m, RTM_NEWNEXTHOP, &nh, sizeof(nh));
	uint32_t id = 40;
	nl_build_attr(m, NHA_ID, &id, 4);
	struct nexthop_grp g[2] = {{.id = 11, .weight = 0}, {.id = 12, .weight = 2}};
	nl_build_attr(m, NHA_GROUP, g, sizeof(g));
	uint32_t op_flags = 0; /* NHA_OP_FLAGS, as kernels since 6.10 send it */
	nl_build_attr(m, 14, &op_flags, 4);
}

static void
test_valid(void **state)
{
	(void)state;
	struct nl_build m;
	struct nlr_route r;
	route4(&m);
	struct nlmsghdr *h = copy(&m, m.len);
	assert_int_equal(nlr_route_parse(h, &r), 0);
	free(h);
	assert_int_equal(r.family, AF_INET);
	assert_int_equal(r.dst_len, 24);
	assert_int_equal(r.dst[2], 113);
	assert_int_equal(r.table, 254);
	assert_int_equal(r.protocol, 12);
	assert_int_equal(r.priority, 32);
	assert_int_equal(r.npaths, 1);
	assert_int_equal(r.path[0].ifindex, 7);
	assert_int_equal(r.path[0].gw_family, AF_INET);
	assert_int_equal(r.path[0].gw[3], 2);
	assert_int_equal(r.unknown, 0);

	route6_multipath(&m);
	h = copy(&m, m.len);
	assert_int_equal(nlr_route_parse(h, &r), 0);
	free(h);
	assert_int_equal(r.npaths, 2);
	assert_int_equal(r.path[0].weight, 1);
	assert_int_equal(r.path[1].weight, 3);
	assert_int_equal(r.path[1].ifindex, 8);
	assert_int_equal(r.path[1].gw[15], 2);

	struct nlr_nexthop n;
	nexthop_group(&m);
	h = copy(&m, m.len);
	assert_int_equal(nlr_nexthop_parse(h, &n), 0);
	free(h);
	assert_int_equal(n.id, 40);
	assert_int_equal(n.ngroup, 2);
	assert_int_equal(n.group[1].id, 12);
	assert_int_equal(n.group[1].weight, 3);
	assert_int_equal(n.unknown, 0);
}

static void
test_unknown_and_malformed(void **state)
{
	(void)state;
	struct nl_build m;
	struct nlr_route r;
	route4(&m);
	uint32_t x = 5;
	nl_build_attr(&m, 200, &x, 4); /* unknown: counted, skipped */
	struct nlmsghdr *h = copy(&m, m.len);
	assert_int_equal(nlr_route_parse(h, &r), 0);
	assert_int_equal(r.unknown, 1);
	free(h);
	/* A known attribute of the wrong size. */
	route4(&m);
	uint8_t two[2] = {1, 2};
	nl_build_attr(&m, RTA_PRIORITY, two, 2);
	h = copy(&m, m.len);
	assert_int_equal(nlr_route_parse(h, &r), -EINVAL);
	free(h);
	/* A prefix longer than its family. */
	route4(&m);
	m.b[NLMSG_HDRLEN + 1] = 33;
	h = copy(&m, m.len);
	assert_int_equal(nlr_route_parse(h, &r), -EINVAL);
	free(h);
	/* An attribute running past the message. */
	route4(&m);
	uint16_t big = 200;
	memcpy(m.b + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct rtmsg)), &big, 2);
	h = copy(&m, m.len);
	assert_int_equal(nlr_route_parse(h, &r), -EINVAL);
	free(h);
	/* A group of a size that is no whole number of members. */
	struct nhmsg nh = {0};
	nl_build_start(&m, RTM_NEWNEXTHOP, &nh, sizeof(nh));
	uint32_t id = 3;
	nl_build_attr(&m, NHA_ID, &id, 4);
	uint8_t g[7] = {0};
	nl_build_attr(&m, NHA_GROUP, g, sizeof(g));
	h = copy(&m, m.len);
	struct nlr_nexthop n;
	assert_int_equal(nlr_nexthop_parse(h, &n), -EINVAL);
	free(h);
}

static void
test_truncated(void **state)
{
	(void)state;
	struct nl_build m;
	struct nlr_route r;
	struct nlr_nexthop n;
	route6_multipath(&m);
	for (size_t len = 0; len < m.len; len++) {
		struct nlmsghdr *h = copy(&m, len);
		nlr_route_parse(h, &r); /* either result; never a read past len */
		free(h);
	}
	nexthop_group(&m);
	for (size_t len = 0; len < m.len; len++) {
		struct nlmsghdr *h = copy(&m, len);
		nlr_nexthop_parse(h, &n);
		free(h);
	}
}

static void
test_fuzz(void **state)
{
	(void)state;
	const char *seed_env = getenv("FUZZ_SEED");
	uint64_t s = seed_env ? strtoull(seed_env, NULL, 0) | 1 : 0x2545f4914f6cdd1dull;
	unsigned int ok = 0;
	for (unsigned int i = 0; i < 100000; i++) {
		struct nl_build m;
		switch (i % 3) {
		case 0:
			route4(&m);
			break;
		case 1:
			route6_multipath(&m);
			break;
		default:
			nexthop_group(&m);
		}
		if (i % 7 == 0) { /* random bytes after the header */
			m.len = NLMSG_HDRLEN + xorshift64(&s) % (sizeof(m.b) - NLMSG_HDRLEN);
			for (size_t k = NLMSG_HDRLEN; k < m.len; k++)
				m.b[k] = (uint8_t)xorshift64(&s);
		} else {
			for (unsigned int k = xorshift64(&s) % 6; k > 0; k--)
				m.b[NLMSG_HDRLEN + xorshift64(&s) % (m.len - NLMSG_HDRLEN)] =
					(uint8_t)xorshift64(&s);
			if (xorshift64(&s) % 3 == 0)
				m.len = xorshift64(&s) % (m.len + 1);
		}
		struct nlmsghdr *h = copy(&m, m.len);
		struct nlr_route r;
		struct nlr_nexthop n;
		int rc = i % 3 == 2 ? nlr_nexthop_parse(h, &n) : nlr_route_parse(h, &r);
		if (rc == 0 && i % 3 != 2) {
			ok++;
			assert_true(r.npaths <= NLR_PATHS_MAX);
			assert_true(r.dst_len <= (r.family == AF_INET ? 32 : 128));
		}
		free(h);
	}
	print_message("fuzz: %u of 66667 route messages decoded\n", ok);
	assert_true(ok > 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_many_paths),
		cmocka_unit_test(test_unknown_and_malformed),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests_name("router_nl_route", tests, NULL, NULL);
}
