/* SPDX-License-Identifier: BSD-3-Clause */
/* Route semantics at the edges: /0, /32, /128, nesting, tables, metrics,
 * IPv4's /16 summary following its /16s, and routes whose nexthop is
 * down. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fib_test.h"
#include "table.h"

static int
setup(void **state)
{
	struct fib_conf c = test_conf();
	*state = fib_create(&c);
	return *state ? 0 : -1;
}

static int
teardown(void **state)
{
	fib_free(*state);
	return 0;
}

static void
test_default_and_host_routes(void **state)
{
	struct fib *f = *state;
	struct fib_route r;

	assert_int_equal(L(f, 0, "192.0.2.1"), FIB_NH_NONE);
	r = R("0.0.0.0/0", 7, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(L(f, 0, "0.0.0.0"), 7);
	assert_int_equal(L(f, 0, "255.255.255.255"), 7);
	r = R("255.255.255.255/32", 8, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(L(f, 0, "255.255.255.255"), 8);
	assert_int_equal(L(f, 0, "255.255.255.254"), 7);
	r = R("0.0.0.0/32", 9, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(L(f, 0, "0.0.0.0"), 9);
	assert_int_equal(L(f, 0, "0.0.0.1"), 7);
	assert_int_equal(D(f, "0.0.0.0/0", 0, 0, true), 0);
	assert_int_equal(L(f, 0, "0.0.0.1"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "0.0.0.0"), 9);
	assert_int_equal(L(f, 0, "255.255.255.255"), 8);

	r = R("::/0", 17, 1024, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	r = R("2001:db8::1/128", 18, 1024, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	r = R("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128", 19, 1024, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(L(f, 0, "2001:db8::1"), 18);
	assert_int_equal(L(f, 0, "2001:db8::2"), 17);
	assert_int_equal(L(f, 0, "2001:db8::"), 17);
	assert_int_equal(L(f, 0, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), 19);
	assert_int_equal(L(f, 0, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe"), 17);
	assert_int_equal(L(f, 0, "::"), 17);
	assert_int_equal(D(f, "::/0", 1024, 0, false), 0);
	assert_int_equal(L(f, 0, "::"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "2001:db8::1"), 18);
	assert_int_equal(fib_route_count(f, 0, FIB_AF_INET6), 2);
}

static void
test_nested_and_covering_delete(void **state)
{
	struct fib *f = *state;
	const char *chain[] = {"10.0.0.0/8",    "10.1.0.0/16",   "10.1.2.0/24",
			       "10.1.2.128/25", "10.1.2.192/28", "10.1.2.200/32"};
	for (unsigned int i = 0; i < 6; i++) {
		struct fib_route r = R(chain[i], 100 + i, 0, 0);
		assert_int_equal(fib_route_add(f, &r), 0);
	}
	assert_int_equal(L(f, 0, "10.2.0.0"), 100);
	assert_int_equal(L(f, 0, "10.1.3.0"), 101);
	assert_int_equal(L(f, 0, "10.1.2.1"), 102);
	assert_int_equal(L(f, 0, "10.1.2.129"), 103);
	assert_int_equal(L(f, 0, "10.1.2.193"), 104);
	assert_int_equal(L(f, 0, "10.1.2.200"), 105);
	assert_int_equal(L(f, 0, "10.1.2.201"), 104);
	assert_int_equal(L(f, 0, "10.1.2.208"), 103);

	/* Delete covering prefixes under their more-specifics. */
	assert_int_equal(D(f, "10.1.2.0/24", 0, 0, true), 0);
	assert_int_equal(L(f, 0, "10.1.2.1"), 101);
	assert_int_equal(L(f, 0, "10.1.2.129"), 103);
	assert_int_equal(L(f, 0, "10.1.2.200"), 105);
	assert_int_equal(D(f, "10.1.2.128/25", 0, 0, true), 0);
	assert_int_equal(L(f, 0, "10.1.2.129"), 101);
	assert_int_equal(L(f, 0, "10.1.2.193"), 104);
	assert_int_equal(D(f, "10.0.0.0/8", 0, 0, true), 0);
	assert_int_equal(L(f, 0, "10.2.0.0"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "10.1.2.200"), 105);
	/* Add the covering ones back: the more-specifics stay in front. */
	struct fib_route r = R("10.0.0.0/8", 200, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(L(f, 0, "10.1.2.200"), 105);
	assert_int_equal(L(f, 0, "10.1.2.1"), 101);
	assert_int_equal(L(f, 0, "10.9.9.9"), 200);

	/* The same in IPv6, across several trie levels. */
	const char *chain6[] = {"2001:db8::/32", "2001:db8:1::/48", "2001:db8:1:2::/64",
				"2001:db8:1:2::100/120", "2001:db8:1:2::1ff/128"};
	for (unsigned int i = 0; i < 5; i++) {
		r = R(chain6[i], 300 + i, 1024, 0);
		assert_int_equal(fib_route_add(f, &r), 0);
	}
	assert_int_equal(L(f, 0, "2001:db8:2::1"), 300);
	assert_int_equal(L(f, 0, "2001:db8:1:3::1"), 301);
	assert_int_equal(L(f, 0, "2001:db8:1:2::1"), 302);
	assert_int_equal(L(f, 0, "2001:db8:1:2::1fe"), 303);
	assert_int_equal(L(f, 0, "2001:db8:1:2::1ff"), 304);
	assert_int_equal(D(f, "2001:db8:1:2::/64", 1024, 0, false), 0);
	assert_int_equal(L(f, 0, "2001:db8:1:2::1"), 301);
	assert_int_equal(L(f, 0, "2001:db8:1:2::1ff"), 304);
	assert_int_equal(D(f, "2001:db8::/32", 1024, 0, false), 0);
	assert_int_equal(L(f, 0, "2001:db8:2::1"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "2001:db8:1:2::100"), 303);
}

static void
test_two_tables(void **state)
{
	struct fib *f = *state;
	struct fib_route a = R("198.51.100.0/24", 1, 0, 0), b = R("198.51.100.0/24", 2, 0, 100);
	assert_int_equal(fib_route_add(f, &a), 0);
	assert_null(fib_table_lookup(f, 100));
	assert_int_equal(fib_route_add(f, &b), 0);
	assert_non_null(fib_table_lookup(f, 100));
	/* The tables that exist, ascending; a short array gets the first. */
	uint32_t ids[2];
	assert_int_equal(fib_table_ids(f, ids, 2), 2);
	assert_int_equal(ids[0], 100);
	assert_int_equal(ids[1], FIB_TABLE_MAIN);
	assert_int_equal(fib_table_ids(f, ids, 1), 2);
	assert_int_equal(ids[0], 100);
	assert_int_equal(L(f, 0, "198.51.100.7"), 1);
	assert_int_equal(L(f, FIB_TABLE_MAIN, "198.51.100.7"), 1);
	assert_int_equal(L(f, 100, "198.51.100.7"), 2);
	assert_int_equal(fib_route_del(f, &b, false), 0);
	assert_int_equal(L(f, 100, "198.51.100.7"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "198.51.100.7"), 1);
	assert_int_equal(fib_route_del(f, &b, false), -ENOENT);
	assert_int_equal(D(f, "1.2.3.0/24", 0, 7, true), -ENOENT);
}

static struct fib_mem_stats
mem_of(const struct fib *f, uint32_t table)
{
	struct fib_mem_stats st;
	assert_int_equal(fib_table_mem(f, table, &st), 0);
	return st;
}

/* A family's last route gives its first level and groups back; the next
 * route takes a fresh first level and the table works as before. Main
 * (2^24-entry first levels) and another table (small: 2^16 entries and
 * one level of groups more) alike. */
static void
test_empty_family_returns_memory(void **state)
{
	struct fib *f = *state;
	static const struct {
		uint32_t table;
		uint64_t t4, t6;
		uint32_t g4, g6;
	} kinds[] = {
		{FIB_TABLE_MAIN, ((uint64_t)1 << 24) * 2 + ((uint64_t)1 << 16) * 2,
		 ((uint64_t)1 << 24) * 4, 1, 13},
		{100, ((uint64_t)1 << 16) * 2, ((uint64_t)1 << 16) * 4, 2, 14},
	};
	for (unsigned int k = 0; k < 2; k++) {
		uint32_t tb = kinds[k].table;
		for (int round = 0; round < 3; round++) {
			struct fib_route v4[] = {R("10.1.0.0/16", 1, 0, tb),
						 R("10.1.2.128/25", 2, 0, tb),
						 R("10.1.2.129/32", 3, 0, tb)};
			struct fib_route v6[] = {R("2001:db8::/32", 4, 0, tb),
						 R("2001:db8:0:1::/64", 5, 0, tb),
						 R("2001:db8:0:1::80/121", 6, 0, tb)};
			for (unsigned int i = 0; i < 3; i++)
				assert_int_equal(fib_route_add(f, &v4[i]), 0);
			struct fib_mem_stats st = mem_of(f, tb);
			assert_int_equal(st.tbl24_bytes, kinds[k].t4);
			assert_int_equal(st.groups4_used, kinds[k].g4);
			for (unsigned int i = 0; i < 3; i++)
				assert_int_equal(fib_route_add(f, &v6[i]), 0);
			st = mem_of(f, tb);
			assert_int_equal(st.tbl24_bytes, kinds[k].t4 + kinds[k].t6);
			assert_int_equal(st.groups6_used, kinds[k].g6);
			assert_int_equal(L(f, tb, "10.1.2.129"), 3);
			assert_int_equal(L(f, tb, "10.1.2.130"), 2);
			assert_int_equal(L(f, tb, "10.1.3.1"), 1);
			assert_int_equal(L(f, tb, "2001:db8:0:1::81"), 6);
			assert_int_equal(L(f, tb, "2001:db8:0:1::1"), 5);
			assert_int_equal(L(f, tb, "2001:db8:1::1"), 4);

			/* Emptying IPv4 leaves IPv6 alone, and the other way
			 * round. */
			for (unsigned int i = 0; i < 3; i++)
				assert_int_equal(fib_route_del(f, &v4[2 - i], false), 0);
			st = mem_of(f, tb);
			assert_int_equal(st.tbl24_bytes, kinds[k].t6);
			assert_int_equal(st.groups4_used, 0);
			assert_int_equal(L(f, tb, "10.1.2.129"), FIB_NH_NONE);
			assert_int_equal(L(f, tb, "2001:db8:0:1::81"), 6);
			for (unsigned int i = 0; i < 3; i++)
				assert_int_equal(fib_route_del(f, &v6[i], false), 0);
			st = mem_of(f, tb);
			assert_int_equal(st.tbl24_bytes, 0);
			assert_int_equal(st.groups6_used, 0);
			assert_int_equal(st.rib_bytes, 0);
			assert_int_equal(L(f, tb, "2001:db8:0:1::81"), FIB_NH_NONE);
			assert_int_equal(L(f, tb, "10.1.2.130"), FIB_NH_NONE);
		}
		/* A refused add into an empty family keeps no first level. */
		struct fib_route bad = R("10.9.0.0/16", FIB_NH_MAX + 1, 0, tb);
		assert_int_not_equal(fib_route_add(f, &bad), 0);
		assert_int_equal(mem_of(f, tb).tbl24_bytes, 0);
	}
}

/* A random prefix near a few bases, so that routes nest and share
 * groups at every depth; len 0 to 32 (IPv4) or 0 to 128. */
static struct fib_prefix
near_prefix(uint64_t *s, uint8_t af)
{
	static const char *const base4[] = {"10.1.2.3", "10.1.200.7", "192.0.2.77", "10.77.0.1"};
	static const char *const base6[] = {"2001:db8:0:1::81", "2001:db8:ff00::1",
					    "2001:db8:0:1:8000::9", "2a00:1::2"};
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	uint32_t r = (uint32_t)(*s >> 33);
	char buf[80];
	unsigned int max = af == FIB_AF_INET ? 32 : 128;
	/* A quarter of the lengths anywhere from 0, the rest in the longer
	 * half, where the group levels are. */
	unsigned int len = r % 4 == 0 ? (r >> 2) % (max + 1) : max - (r >> 2) % (max / 2);
	snprintf(buf, sizeof(buf), "%s/%u",
		 af == FIB_AF_INET ? base4[(r >> 12) % 4] : base6[(r >> 12) % 4],
		 af == FIB_AF_INET ? 32 : 128);
	struct fib_prefix p = P(buf);
	/* Flip one random bit of the base (gone again if it falls past
	 * len), then cut to len. */
	unsigned int bit = (r >> 16) % max;
	if (af == FIB_AF_INET)
		p.addr.v4 ^= 1u << (31 - bit);
	else
		p.addr.v6[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
	p.len = (uint8_t)len;
	if (af == FIB_AF_INET)
		p.addr.v4 &= len ? ~0u << (32 - len) : 0;
	else
		for (unsigned int b = len; b < 128; b++)
			p.addr.v6[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
	return p;
}

/* Every probe answers the same in tables a and b: the first address of
 * each prefix, its last, and the ones just outside. */
static void
same_answers(const struct fib *f, uint32_t a, uint32_t b, const struct fib_prefix *p,
	     unsigned int n)
{
	const struct fib_table *ta = fib_table_lookup(f, a), *tb = fib_table_lookup(f, b);
	for (unsigned int i = 0; i < n; i++) {
		for (int edge = 0; edge < 4; edge++) {
			struct fib_prefix q = p[i];
			if (q.family == FIB_AF_INET) {
				uint32_t span = q.len == 0 ? ~0u : q.len == 32 ? 0 : ~0u >> q.len;
				uint32_t x = q.addr.v4 + (edge & 1 ? span : 0) +
					     (edge & 2 ? (edge & 1 ? 1 : -1u) : 0);
				uint32_t na = fib_lookup4(ta, x), nb = fib_lookup4(tb, x), bulk;
				fib_lookup4_bulk(tb, &x, &bulk, 1);
				assert_int_equal(na, nb);
				assert_int_equal(nb, bulk);
			} else {
				uint8_t x[16];
				memcpy(x, q.addr.v6, 16);
				if (edge & 1)
					for (unsigned int bt = q.len; bt < 128; bt++)
						x[bt / 8] |= (uint8_t)(0x80 >> (bt % 8));
				if (edge & 2)
					x[15] ^= 1;
				const uint8_t *px = x;
				uint32_t na = fib_lookup6(ta, x), nb = fib_lookup6(tb, x), bulk;
				fib_lookup6_bulk(tb, &px, &bulk, 1);
				assert_int_equal(na, nb);
				assert_int_equal(nb, bulk);
			}
		}
	}
}

/* A small table answers as main does: while small (a limit it never
 * reaches), and across its growth into a full-size first level (limit 8
 * groups), after deletes, when deletes take it back to the small form
 * (IPv4, at 2 groups) and after emptying and filling again. */
static void
test_small_tables(void **state)
{
	(void)state;
	static const uint32_t limits[] = {1u << 20, 8};
	enum { N = 400 };
	static struct fib_prefix p[N];
	for (unsigned int l = 0; l < 2; l++) {
		struct fib_conf c = test_conf();
		c.small_table_groups = limits[l];
		struct fib *f = fib_create(&c);
		assert_non_null(f);
		for (int af = 0; af < 2; af++) {
			uint8_t fam = af ? FIB_AF_INET6 : FIB_AF_INET;
			uint64_t seed = 7 + (uint64_t)af;
			for (int round = 0; round < 2; round++) {
				bool promoted = false;
				unsigned int n = 0;
				for (unsigned int i = 0; i < N; i++) {
					struct fib_prefix q = near_prefix(&seed, fam);
					struct fib_route rm = {
						.dst = q, .table = FIB_TABLE_MAIN, .nh = 1 + i};
					struct fib_route rs = rm;
					rs.table = 100;
					int a = fib_route_add(f, &rm), b = fib_route_add(f, &rs);
					assert_int_equal(a, b);
					if (a == 0)
						p[n++] = q;
					struct fib_mem_stats st = mem_of(f, 100);
					bool now = st.tbl24_bytes > ((uint64_t)1 << 20);
					if ((now && !promoted) || i % 10 == 0)
						same_answers(f, FIB_TABLE_MAIN, 100, p, n);
					promoted = now;
				}
				assert_int_equal(promoted, l == 1);
				same_answers(f, FIB_TABLE_MAIN, 100, p, n);
				/* Every other one deleted, then the rest: the grown
				 * table takes the small form again on the way. */
				bool shrank = false;
				for (int pass = 0; pass < 2; pass++) {
					for (unsigned int i = (unsigned int)pass; i < n; i += 2) {
						struct fib_route rm = {.dst = p[i],
								       .table = FIB_TABLE_MAIN};
						struct fib_route rs = rm;
						rs.table = 100;
						assert_int_equal(fib_route_del(f, &rm, true), 0);
						assert_int_equal(fib_route_del(f, &rs, true), 0);
						uint64_t b = mem_of(f, 100).tbl24_bytes;
						bool now = b > ((uint64_t)1 << 20);
						if (promoted && !now && b > 0) {
							same_answers(f, FIB_TABLE_MAIN, 100, p, n);
							shrank = true;
						}
						promoted = now;
					}
					same_answers(f, FIB_TABLE_MAIN, 100, p, n);
				}
				/* IPv6's deep prefixes keep more than 2 groups
				 * to the end (fib_model sees IPv6 shrink). */
				if (fam == FIB_AF_INET)
					assert_int_equal(shrank, l == 1);
				assert_int_equal(mem_of(f, 100).tbl24_bytes, 0);
			}
		}
		fib_free(f);
	}
}

/* A shrink must find the mixed /16s of the whole space: three /24s
 * (IPv6: /24s too, one group each in the small form) in /16s low, high
 * and at the very top, each under a covering /8 (/16) of another
 * nexthop, so that reading a mixed /16 as uniform gives the cover's
 * answer. The table grows with 24 more /24s, which are then deleted
 * until it shrinks back. */
static void
test_shrink_whole_space(void **state)
{
	(void)state;
	static const char *const keep[2][6] = {{"10.0.0.0/8", "10.1.1.0/24", "150.0.0.0/8",
						"150.3.3.0/24", "250.0.0.0/8", "250.4.4.0/24"},
					       {"2001::/16", "2001:d00::/24", "9000::/16",
						"9000:300::/24", "fd00::/16", "fd00:400::/24"}};
	static const char *const probe[2][6] = {
		{"10.1.0.1", "10.1.1.1", "150.3.0.1", "150.3.3.1", "250.4.0.1", "250.4.4.1"},
		{"2001::1", "2001:d00::1", "9000::1", "9000:300::1", "fd00::1", "fd00:400::1"}};
	struct fib_conf c = test_conf();
	c.small_table_groups = 8;
	struct fib *f = fib_create(&c);
	assert_non_null(f);
	for (int af = 0; af < 2; af++) {
		for (unsigned int i = 0; i < 6; i++)
			A(f, keep[af][i], 10 + i, 0, 100);
		char extra[24][48];
		for (unsigned int i = 0; i < 24; i++) {
			if (af == 0)
				snprintf(extra[i], sizeof(extra[i]), "20.%u.0.0/24", i + 1);
			else
				snprintf(extra[i], sizeof(extra[i]), "%x:100::/24", 0x3000 + i);
			A(f, extra[i], 40 + i, 0, 100);
		}
		assert_true(mem_of(f, 100).tbl24_bytes > ((uint64_t)1 << 20));
		bool shrank = false;
		for (unsigned int i = 0; i < 24 && !shrank; i++) {
			assert_int_equal(D(f, extra[i], 0, 100, true), 0);
			shrank = mem_of(f, 100).tbl24_bytes <= ((uint64_t)1 << 20);
		}
		assert_true(shrank);
		for (unsigned int i = 0; i < 6; i++)
			assert_int_equal(L(f, 100, probe[af][i]), 10 + i);
		/* Empty again for the other family's run. */
		for (unsigned int i = 0; i < 24; i++)
			(void)D(f, extra[i], 0, 100, true);
		for (unsigned int i = 0; i < 6; i++)
			assert_int_equal(D(f, keep[af][i], 0, 100, true), 0);
	}
	fib_free(f);
}

static void
test_metrics_and_replace(void **state)
{
	struct fib *f = *state;
	struct fib_route r = R("203.0.113.0/24", 1, 20, 0);
	struct fib_route out;
	assert_int_equal(fib_route_add(f, &r), 0);
	/* An exact duplicate (table, prefix, metric) is refused... */
	r.nh = 2;
	assert_int_equal(fib_route_add(f, &r), -EEXIST);
	assert_int_equal(L(f, 0, "203.0.113.1"), 1);
	/* ...another metric coexists, and the lowest wins. */
	r = R("203.0.113.0/24", 3, 10, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(L(f, 0, "203.0.113.1"), 3);
	r = R("203.0.113.0/24", 4, 30, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(L(f, 0, "203.0.113.1"), 3);
	assert_int_equal(fib_route_count(f, 0, FIB_AF_INET), 3);
	/* Replace overwrites the route of that metric only. */
	r = R("203.0.113.0/24", 5, 20, 0);
	assert_int_equal(fib_route_replace(f, &r), 0);
	assert_int_equal(fib_route_get(f, &r, false, &out), 0);
	assert_int_equal(out.nh, 5);
	assert_int_equal(L(f, 0, "203.0.113.1"), 3);
	r = R("203.0.113.0/24", 6, 10, 0);
	r.type = FIB_RT_BLACKHOLE;
	assert_int_equal(fib_route_replace(f, &r), 0);
	assert_int_equal(L(f, 0, "203.0.113.1"), NH_BLACKHOLE);
	/* Replace creates what is absent. */
	r = R("203.0.113.128/25", 7, 0, 0);
	assert_int_equal(fib_route_replace(f, &r), 0);
	assert_int_equal(L(f, 0, "203.0.113.129"), 7);
	/* Delete by metric, then "any metric" takes the preferred one. */
	assert_int_equal(D(f, "203.0.113.0/24", 15, 0, false), -ENOENT);
	assert_int_equal(D(f, "203.0.113.0/24", 10, 0, false), 0);
	assert_int_equal(L(f, 0, "203.0.113.1"), 5);
	assert_int_equal(G(f, "203.0.113.0/24", 0, 0, true, &out), 0);
	assert_int_equal(out.metric, 20);
	assert_int_equal(D(f, "203.0.113.0/24", 0, 0, true), 0);
	assert_int_equal(L(f, 0, "203.0.113.1"), 4);
	assert_int_equal(D(f, "203.0.113.0/24", 0, 0, true), 0);
	assert_int_equal(L(f, 0, "203.0.113.1"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "203.0.113.129"), 7);
	assert_int_equal(D(f, "203.0.113.0/24", 0, 0, true), -ENOENT);
}

static void
test_types_and_match(void **state)
{
	struct fib *f = *state;
	/* Broadcast's nexthop was left 0 in test_conf: it is local's. */
	static const uint8_t types[] = {FIB_RT_LOCAL, FIB_RT_BLACKHOLE, FIB_RT_UNREACHABLE,
					FIB_RT_PROHIBIT, FIB_RT_BROADCAST};
	static const uint32_t want[] = {NH_LOCAL, NH_BLACKHOLE, NH_UNREACHABLE, NH_PROHIBIT,
					NH_LOCAL};
	char cidr[32], addr[32];
	for (unsigned int i = 0; i < 5; i++) {
		snprintf(cidr, sizeof(cidr), "172.16.%u.0/24", i);
		struct fib_route r = R(cidr, 0, 0, 0);
		r.type = types[i];
		assert_int_equal(fib_route_add(f, &r), 0);
		snprintf(addr, sizeof(addr), "172.16.%u.9", i);
		assert_int_equal(L(f, 0, addr), want[i]);
	}
	struct fib_route out;
	struct fib_prefix a = P("172.16.2.77/32");
	assert_int_equal(fib_route_match(f, 0, &a, &out), 0);
	assert_int_equal(out.type, FIB_RT_UNREACHABLE);
	assert_int_equal(out.dst.len, 24);
	assert_int_equal(out.dst.addr.v4, 0xac100200);
	a = P("172.17.0.1/32");
	assert_int_equal(fib_route_match(f, 0, &a, &out), -ENOENT);
	/* A broadcast address inside a connected-like prefix: the /32
	 * answers for it alone. */
	struct fib_route net = R("172.16.10.0/24", 5, 0, 0), bc = R("172.16.10.255/32", 0, 0, 0);
	bc.type = FIB_RT_BROADCAST;
	assert_int_equal(fib_route_add(f, &net), 0);
	assert_int_equal(fib_route_add(f, &bc), 0);
	assert_int_equal(L(f, 0, "172.16.10.255"), NH_LOCAL);
	assert_int_equal(L(f, 0, "172.16.10.254"), 5);
	a = P("172.16.10.255/32");
	assert_int_equal(fib_route_match(f, 0, &a, &out), 0);
	assert_int_equal(out.type, FIB_RT_BROADCAST);
	/* A throw route is a hole: no route, whatever covers it, and its
	 * more-specifics answer for themselves; a better metric of another
	 * type on its prefix fills the hole. */
	struct fib_route th = R("172.16.10.0/25", 0, 10, 0);
	th.type = FIB_RT_THROW;
	assert_int_equal(fib_route_add(f, &th), 0);
	A(f, "172.16.10.64/26", 6, 0, 0);
	assert_int_equal(L(f, 0, "172.16.10.1"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "172.16.10.127"), 6);
	assert_int_equal(L(f, 0, "172.16.10.128"), 5);
	a = P("172.16.10.1/32");
	assert_int_equal(fib_route_match(f, 0, &a, &out), 0);
	assert_int_equal(out.type, FIB_RT_THROW);
	A(f, "172.16.10.0/25", 7, 5, 0);
	assert_int_equal(L(f, 0, "172.16.10.1"), 7);
	assert_int_equal(D(f, "172.16.10.0/25", 5, 0, false), 0);
	assert_int_equal(L(f, 0, "172.16.10.1"), FIB_NH_NONE);
	assert_int_equal(D(f, "172.16.10.0/25", 10, 0, false), 0);
	assert_int_equal(L(f, 0, "172.16.10.1"), 5);
	th = R("2001:db8:77::/48", 0, 1024, 0);
	th.type = FIB_RT_THROW;
	A(f, "2001:db8::/32", 8, 1024, 0);
	assert_int_equal(fib_route_add(f, &th), 0);
	assert_int_equal(L(f, 0, "2001:db8:77::1"), FIB_NH_NONE);
	assert_int_equal(L(f, 0, "2001:db8:78::1"), 8);
}

static void
test_invalid(void **state)
{
	struct fib *f = *state;
	struct fib_route r = R("10.0.0.1/8", 1, 0, 0); /* host bits set */
	assert_int_equal(fib_route_add(f, &r), -EINVAL);
	r = R("10.0.0.0/8", 0, 0, 0); /* unicast without a nexthop */
	assert_int_equal(fib_route_add(f, &r), -EINVAL);
	r = R("10.0.0.0/8", FIB_NH_MAX + 1, 0, 0);
	assert_int_equal(fib_route_add(f, &r), -EINVAL);
	r = R("10.0.0.0/8", 1, 0, 0);
	r.dst.len = 33;
	assert_int_equal(fib_route_add(f, &r), -EINVAL);
	r = R("2001:db8::/32", 1, 0, 0);
	r.type = FIB_RT_COUNT;
	assert_int_equal(fib_route_add(f, &r), -EINVAL);
	r = R("2001:db9::/31", 1, 0, 0);
	assert_int_equal(fib_route_add(f, &r), -EINVAL);
	assert_int_equal(fib_route_count(f, 0, FIB_AF_INET), 0);
	assert_int_equal(fib_route_count(f, 0, FIB_AF_INET6), 0);

	struct fib_conf c = test_conf();
	c.type_nh[FIB_RT_PROHIBIT] = 0;
	errno = 0;
	assert_null(fib_create(&c));
	assert_int_equal(errno, EINVAL);
}

struct walk_acc {
	char out[1024];
	size_t len;
};

static int
walk_cb(const struct fib_route *r, void *arg)
{
	struct walk_acc *w = arg;
	w->len += snprintf(w->out + w->len, sizeof(w->out) - w->len, "%08x/%u:%u:%u ",
			   r->dst.addr.v4, r->dst.len, r->metric, r->nh);
	return 0;
}

static void
test_walk_order(void **state)
{
	struct fib *f = *state;
	const char *in[] = {"10.1.0.0/16", "10.0.0.0/8", "9.0.0.0/8",
			    "10.1.0.0/24", "0.0.0.0/0",  "10.128.0.0/9"};
	for (unsigned int i = 0; i < 6; i++) {
		struct fib_route r = R(in[i], i + 1, 5, 0);
		assert_int_equal(fib_route_add(f, &r), 0);
	}
	struct fib_route r = R("10.1.0.0/16", 9, 1, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	struct walk_acc w = {0};
	assert_int_equal(fib_route_walk(f, 0, FIB_AF_INET, walk_cb, &w), 0);
	assert_string_equal(w.out, "00000000/0:5:5 09000000/8:5:3 0a000000/8:5:2 "
				   "0a010000/16:1:9 0a010000/16:5:1 0a010000/24:5:4 "
				   "0a800000/9:5:6 ");
}

/* Looks up 64 addresses of a /16 (a.b.0.0 + i * 1021, spread over its
 * /24s) in one bulk call, the worker's burst, and checks each against
 * the single lookup and against `want` for the addresses in [lo, hi]
 * (host order), `other` elsewhere. */
static void
check_slash16(const struct fib *f, uint32_t net16, uint32_t lo, uint32_t hi, uint32_t want,
	      uint32_t other)
{
	const struct fib_table *t = fib_table_lookup(f, 0);
	uint32_t dst[64], nh[64];
	for (uint32_t i = 0; i < 64; i++)
		dst[i] = net16 | ((i * 1021u) & 0xffff);
	dst[0] = lo; /* the edges of the range too */
	dst[1] = hi;
	fib_lookup4_bulk(t, dst, nh, 64);
	for (uint32_t i = 0; i < 64; i++) {
		uint32_t expect = dst[i] >= lo && dst[i] <= hi ? want : other;
		if (nh[i] != expect || fib_lookup4(t, dst[i]) != expect)
			fail_msg("%08x: bulk %u single %u, want %u", dst[i], nh[i],
				 fib_lookup4(t, dst[i]), expect);
	}
}

/* Looks up `calls` bursts of n addresses, from next(), and checks every
 * answer against the single lookup. Returns the first call (1-based)
 * after which the thread's bursts go the way `direct` says, 0 if none. */
static unsigned int
bursts4(const struct fib_table *t, unsigned int calls, unsigned int n, bool direct,
	uint32_t (*next)(void))
{
	unsigned int first = 0;
	for (unsigned int c = 1; c <= calls; c++) {
		uint32_t dst[96], nh[96];
		assert_true(n <= 96);
		for (unsigned int i = 0; i < n; i++)
			dst[i] = next();
		fib_lookup4_bulk(t, dst, nh, n);
		for (unsigned int i = 0; i < n; i++)
			if (nh[i] != fib_lookup4(t, dst[i]))
				fail_msg("burst %u of %u, %08x: bulk %u single %u", c, n, dst[i],
					 nh[i], fib_lookup4(t, dst[i]));
		if (first == 0 && fib_lookup4_bulk_direct() == direct)
			first = c;
	}
	return first;
}

/* Inside 10/8, where every /16 holds longer prefixes (tk_rnd gives 31
 * random bits). */
static uint32_t
in_mixed(void)
{
	return 0x0a000000 | (tk_rnd() & 0xffffff);
}

/* Anywhere but 10/8: /16s that one route covers whole. */
static uint32_t
anywhere(void)
{
	uint32_t a = tk_rnd() << 1 ^ tk_rnd();
	return (a >> 24) == 10 ? a ^ 0x80000000 : a;
}

/* Full IPv4 bursts read the /16 summary first or skip it, as the
 * thread's traffic has lately favoured (lib/fib/lookup.c); both ways
 * must give the single lookup's answers, and the choice must follow
 * the traffic there and back. */
static void
test_bulk_paths(void **state)
{
	struct fib *f = *state;
	A(f, "0.0.0.0/0", 1, 0, 0);
	A(f, "10.0.0.0/8", 2, 0, 0);
	/* A /24 in every /16 of 10/8, a /28 in every eighth. */
	for (uint32_t i = 0; i < 256; i++) {
		char b[32];
		snprintf(b, sizeof(b), "10.%u.%u.0/24", i, (i * 37) & 0xff);
		A(f, b, 3 + i, 0, 0);
		if (i % 8 == 0) {
			snprintf(b, sizeof(b), "10.%u.%u.16/28", i, (i * 37) & 0xff);
			A(f, b, 300 + i, 0, 0);
		}
	}
	const struct fib_table *t = fib_table_lookup(f, 0);
	tk_srand(2463534242u);
	/* Sizes that take the 64- and 32-lane walks and the rest. */
	static const unsigned int sizes[] = {32, 64, 50, 96, 33};
	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned int n = sizes[k];
		unsigned int went = bursts4(t, 200, n, true, in_mixed);
		unsigned int back = bursts4(t, 200, n, false, anywhere);
		/* Sixteen dense walks in a row, then the probes: two of
		 * them, one every sixteenth call (the AVX-512 lookups). */
		if (fib_isa_avx512() && (went == 0 || went > 16 || back == 0 || back > 32))
			fail_msg("bursts of %u: direct after %u calls, back after %u", n, went,
				 back);
	}
	/* Lookups of the routes' own edges, as the walk is about to turn. */
	uint32_t edges[64], nh[64];
	for (uint32_t i = 0; i < 64; i++)
		edges[i] = 0x0a000000 | (i * 4) << 16 | ((i * 4 * 37) & 0xff) << 8 |
			   (i % 2 ? 0xff : 0x10);
	for (unsigned int c = 0; c < 40; c++) {
		fib_lookup4_bulk(t, edges, nh, 64);
		for (uint32_t i = 0; i < 64; i++)
			assert_int_equal(nh[i], fib_lookup4(t, edges[i]));
	}
	assert_int_equal(nh[0], 300);   /* 10.0.0.16/28 */
	assert_int_equal(nh[1], 3 + 4); /* 10.4.148.255 in 10.4.148.0/24 */
}

/* IPv4 keeps a summary per /16 (lib/fib/mbt.h): it must follow the /16
 * from uniform to mixed and back, by adds, deletes, replaces and routes
 * that say the same as their cover. */
static void
test_slash16_summary(void **state)
{
	struct fib *f = *state;
	const uint32_t n16 = 0x0a010000; /* 10.1.0.0/16 */
	struct fib_route r = R("10.0.0.0/8", 100, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	check_slash16(f, n16, n16, n16 | 0xffff, 100, 0);
	r = R("10.1.2.0/24", 101, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	check_slash16(f, n16, 0x0a010200, 0x0a0102ff, 101, 100);
	assert_int_equal(D(f, "10.1.2.0/24", 0, 0, true), 0);
	check_slash16(f, n16, n16, n16 | 0xffff, 100, 0);
	/* A more-specific that says what its cover says leaves it uniform. */
	r = R("10.1.0.0/17", 100, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	check_slash16(f, n16, n16, n16 | 0xffff, 100, 0);
	r = R("10.1.128.0/17", 102, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	check_slash16(f, n16, 0x0a018000, 0x0a01ffff, 102, 100);
	/* The cover changes: the /16 beside it follows, this one does not. */
	r = R("10.0.0.0/8", 103, 0, 0);
	assert_int_equal(fib_route_replace(f, &r), 0);
	check_slash16(f, 0x0a020000, 0x0a020000, 0x0a02ffff, 103, 0);
	check_slash16(f, n16, 0x0a018000, 0x0a01ffff, 102, 100);
	/* The /17s go: the /16 is one route's again. */
	r = R("10.1.0.0/16", 104, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(D(f, "10.1.0.0/17", 0, 0, true), 0);
	check_slash16(f, n16, 0x0a018000, 0x0a01ffff, 102, 104);
	assert_int_equal(D(f, "10.1.128.0/17", 0, 0, true), 0);
	check_slash16(f, n16, n16, n16 | 0xffff, 104, 0);
	/* Longer than /24: a group under the first level. */
	r = R("10.1.4.128/25", 105, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	check_slash16(f, n16, 0x0a010480, 0x0a0104ff, 105, 104);
	assert_int_equal(D(f, "10.1.0.0/16", 0, 0, true), 0);
	check_slash16(f, n16, 0x0a010480, 0x0a0104ff, 105, 103);
	assert_int_equal(D(f, "10.1.4.128/25", 0, 0, true), 0);
	check_slash16(f, n16, n16, n16 | 0xffff, 103, 0);
	/* A route over many /16s, all of them uniform but its edges. */
	r = R("10.0.0.0/9", 106, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	check_slash16(f, 0x0a7f0000, 0x0a7f0000, 0x0a7fffff, 106, 0);
	check_slash16(f, 0x0a800000, 0x0a800000, 0x0a80ffff, 103, 0);
}

/* Nexthops 1..15 a test marks down, for fib_conf.nh_down. */
static bool nh_is_down[16];

static bool
nh_down_cb(void *ctx, uint32_t nh)
{
	(void)ctx;
	return nh < 16 && nh_is_down[nh];
}

static void
set_down(struct fib *f, uint32_t nh, bool down)
{
	nh_is_down[nh] = down;
	assert_int_equal(fib_sync_down(f), 0);
}

/* The flags fib_route_get reports for (prefix, metric). */
/* The route fib_route_match gives an address. */
static int
M(const struct fib *f, const char *addr, struct fib_route *out)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s/32", addr);
	struct fib_prefix p = P(buf);
	return fib_route_match(f, 0, &p, out);
}

static uint8_t
flags_of(const struct fib *f, const char *cidr, uint32_t metric)
{
	struct fib_route out;
	assert_int_equal(G(f, cidr, metric, 0, false, &out), 0);
	return out.flags;
}

/* Routes whose nexthop is down: kept and reported, but lookups answer as
 * if they were deleted (the prefix's next route by metric, else the
 * covering prefix), and as before once the nexthop is up again. */
static void
test_down_nexthops(void **state)
{
	(void)state;
	struct fib_conf c = test_conf();
	c.nh_down = nh_down_cb;
	memset(nh_is_down, 0, sizeof(nh_is_down));
	struct fib *f = fib_create(&c);
	assert_non_null(f);
	const struct fib_route add[] = {
		R("0.0.0.0/0", 4, 0, 0),      R("10.0.0.0/8", 1, 10, 0),
		R("10.0.0.0/8", 2, 20, 0),    R("10.1.0.0/16", 3, 0, 0),
		R("::/0", 4, 0, 0),           R("2001:db8::/32", 1, 10, 0),
		R("2001:db8::/32", 2, 20, 0), R("2001:db8:1::/48", 3, 0, 0),
	};
	for (unsigned int i = 0; i < sizeof(add) / sizeof(add[0]); i++)
		assert_int_equal(fib_route_add(f, &add[i]), 0);
	assert_int_equal(L(f, 0, "10.2.0.1"), 1);
	assert_int_equal(L(f, 0, "2001:db8:2::1"), 1);

	/* The preferred route's nexthop down: the next metric answers. */
	set_down(f, 1, true);
	assert_int_equal(L(f, 0, "10.2.0.1"), 2);
	assert_int_equal(L(f, 0, "10.1.0.1"), 3);
	assert_int_equal(L(f, 0, "2001:db8:2::1"), 2);
	assert_int_equal(flags_of(f, "10.0.0.0/8", 10), FIB_RF_DOWN);
	assert_int_equal(flags_of(f, "10.0.0.0/8", 20), 0);
	struct fib_route m, any;
	assert_int_equal(M(f, "10.2.0.1", &m), 0);
	assert_int_equal(m.nh, 2);
	assert_int_equal(m.metric, 20);
	/* Exact get without a metric, and delete without one, take the
	 * lowest metric, down or not (as they name a route, not a lookup). */
	assert_int_equal(G(f, "10.0.0.0/8", 0, 0, true, &any), 0);
	assert_int_equal(any.metric, 10);
	assert_int_equal(fib_route_count(f, 0, FIB_AF_INET), 4);

	/* Both down: the covering default answers, the /16 inside still
	 * its own; then the /16 too. */
	set_down(f, 2, true);
	assert_int_equal(L(f, 0, "10.2.0.1"), 4);
	assert_int_equal(L(f, 0, "10.1.0.1"), 3);
	assert_int_equal(L(f, 0, "2001:db8:2::1"), 4);
	assert_int_equal(L(f, 0, "2001:db8:1::1"), 3);
	assert_int_equal(M(f, "10.2.0.1", &m), 0);
	assert_int_equal(m.dst.len, 0);
	set_down(f, 3, true);
	assert_int_equal(L(f, 0, "10.1.0.1"), 4);
	assert_int_equal(L(f, 0, "2001:db8:1::1"), 4);
	set_down(f, 4, true);
	assert_int_equal(L(f, 0, "10.1.0.1"), FIB_NH_NONE);
	assert_int_equal(M(f, "10.1.0.1", &m), -ENOENT);

	/* Up again, in another order: each answer comes back. */
	set_down(f, 2, false);
	assert_int_equal(L(f, 0, "10.2.0.1"), 2);
	assert_int_equal(L(f, 0, "10.1.0.1"), 2);
	set_down(f, 3, false);
	set_down(f, 4, false);
	set_down(f, 1, false);
	assert_int_equal(L(f, 0, "10.2.0.1"), 1);
	assert_int_equal(L(f, 0, "10.1.0.1"), 3);
	assert_int_equal(L(f, 0, "11.0.0.1"), 4);
	assert_int_equal(L(f, 0, "2001:db8:2::1"), 1);
	assert_int_equal(L(f, 0, "2001:db8:1::1"), 3);
	assert_int_equal(flags_of(f, "10.0.0.0/8", 10), 0);

	/* Added, or replaced, through a nexthop that is down: kept, not
	 * looked up; deleting it changes no answer. */
	nh_is_down[5] = true;
	struct fib_route r = R("192.0.2.0/24", 5, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(L(f, 0, "192.0.2.1"), 4);
	assert_int_equal(flags_of(f, "192.0.2.0/24", 0), FIB_RF_DOWN);
	r = R("10.1.0.0/16", 5, 0, 0);
	assert_int_equal(fib_route_replace(f, &r), 0);
	assert_int_equal(L(f, 0, "10.1.0.1"), 1);
	set_down(f, 5, false);
	assert_int_equal(L(f, 0, "192.0.2.1"), 5);
	assert_int_equal(L(f, 0, "10.1.0.1"), 5);
	nh_is_down[5] = true;
	assert_int_equal(fib_sync_down(f), 0);
	assert_int_equal(D(f, "192.0.2.0/24", 0, 0, false), 0);
	assert_int_equal(L(f, 0, "192.0.2.1"), 4);
	/* The live route of a prefix deleted while the other is down. */
	set_down(f, 2, true);
	assert_int_equal(D(f, "10.0.0.0/8", 10, 0, false), 0);
	assert_int_equal(L(f, 0, "10.2.0.1"), 4);
	set_down(f, 2, false);
	assert_int_equal(L(f, 0, "10.2.0.1"), 2);

	/* Replaced through a down nexthop just after it went in: the
	 * insert starts from the last node (lib/fib/rib.c), here the node
	 * itself, and must still find the covering route above it. */
	nh_is_down[6] = true;
	A(f, "10.2.7.0/24", 3, 0, 0);
	A(f, "10.2.7.128/25", 3, 0, 0);
	r = R("10.2.7.0/24", 6, 0, 0);
	assert_int_equal(fib_route_replace(f, &r), 0);
	assert_int_equal(L(f, 0, "10.2.7.1"), 2);
	assert_int_equal(L(f, 0, "10.2.7.129"), 3);
	A(f, "2001:db8:2:7::/64", 3, 0, 0);
	r = R("2001:db8:2:7::/64", 6, 0, 0);
	assert_int_equal(fib_route_replace(f, &r), 0);
	assert_int_equal(L(f, 0, "2001:db8:2:7::1"), 1);

	/* Other types are never asked: a blackhole through index 5. */
	r = (struct fib_route){.dst = P("198.51.100.0/24"), .type = FIB_RT_BLACKHOLE, .nh = 5};
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(L(f, 0, "198.51.100.1"), NH_BLACKHOLE);
	fib_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_default_and_host_routes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_and_covering_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_family_returns_memory, setup, teardown),
		cmocka_unit_test(test_small_tables),
		cmocka_unit_test(test_shrink_whole_space),
		cmocka_unit_test_setup_teardown(test_metrics_and_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_types_and_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slash16_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bulk_paths, setup, teardown),
		cmocka_unit_test(test_down_nexthops),
	};
	return cmocka_run_group_tests_name("fib_edge", tests, NULL, NULL);
}
