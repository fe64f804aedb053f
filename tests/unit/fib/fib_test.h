/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the fib unit tests. */
#ifndef FIB_TEST_H
#define FIB_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fib.h"
#include "prefix_file.h"

/* Nexthop indices the tests reserve for the special route types. */
#define NH_LOCAL 32761u
#define NH_BLACKHOLE 32762u
#define NH_UNREACHABLE 32763u
#define NH_PROHIBIT 32764u

static inline struct fib_conf
test_conf(void)
{
	struct fib_conf c = {0};
	c.type_nh[FIB_RT_LOCAL] = NH_LOCAL;
	c.type_nh[FIB_RT_BLACKHOLE] = NH_BLACKHOLE;
	c.type_nh[FIB_RT_UNREACHABLE] = NH_UNREACHABLE;
	c.type_nh[FIB_RT_PROHIBIT] = NH_PROHIBIT;
	return c;
}

static inline struct fib_prefix
P(const char *s) {
	struct fib_prefix p;
	assert_int_equal(prefix_parse(s, &p), 0);
	return p;
}

static inline struct fib_route
R(const char *cidr, uint32_t nh, uint32_t metric, uint32_t table) {
	struct fib_route r = {.dst = P(cidr), .table = table, .metric = metric, .nh = nh};
	return r;
}

static inline int
D(struct fib *f, const char *cidr, uint32_t metric, uint32_t table, bool any_metric)
{
	struct fib_route r = R(cidr, 0, metric, table);
	return fib_route_del(f, &r, any_metric);
}

static inline int
G(const struct fib *f, const char *cidr, uint32_t metric, uint32_t table, bool any_metric,
  struct fib_route *out)
{
	struct fib_route r = R(cidr, 0, metric, table);
	return fib_route_get(f, &r, any_metric, out);
}

/* Lookup of one address ("a.b.c.d" or IPv6) through the fast path. */
static inline uint32_t
L(const struct fib *fib, uint32_t table, const char *addr)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s/%d", addr, strchr(addr, ':') ? 128 : 32);
	struct fib_prefix p = P(buf);
	const struct fib_table *t = fib_table_lookup(fib, table);
	if (t == NULL)
		return FIB_NH_NONE;
	if (p.family == FIB_AF_INET) {
		uint32_t single = fib_lookup4(t, p.addr.v4), bulk;
		fib_lookup4_bulk(t, &p.addr.v4, &bulk, 1);
		assert_int_equal(single, bulk);
		return single;
	}
	const uint8_t *a = p.addr.v6;
	uint32_t single = fib_lookup6(t, a), bulk;
	fib_lookup6_bulk(t, &a, &bulk, 1);
	assert_int_equal(single, bulk);
	return single;
}

#endif
