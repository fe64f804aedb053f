/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the fib unit tests. */
#ifndef FIB_TEST_H
#define FIB_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
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

/* Add a route that must go in. */
static inline void
A(struct fib *f, const char *cidr, uint32_t nh, uint32_t metric, uint32_t table)
{
	struct fib_route r = R(cidr, nh, metric, table);
	assert_int_equal(fib_route_add(f, &r), 0);
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

/* Addresses as 128-bit keys for the model tests: left-aligned, so an
 * IPv4 address is the top 32 bits and one mask serves both families. */
typedef unsigned __int128 tkey_t;

static inline tkey_t
tk_mask(unsigned int len)
{
	return len == 0 ? 0 : ~(tkey_t)0 << (128 - len);
}

static inline struct fib_prefix
tk_prefix(uint8_t af, tkey_t k, unsigned int len)
{
	struct fib_prefix p = {.family = af, .len = (uint8_t)len};
	if (af == FIB_AF_INET) {
		p.addr.v4 = (uint32_t)(k >> 96);
	} else {
		for (int i = 0; i < 16; i++)
			p.addr.v6[i] = (uint8_t)(k >> (120 - 8 * i));
	}
	return p;
}

static inline tkey_t
tk_key(const struct fib_prefix *p)
{
	if (p->family == FIB_AF_INET)
		return (tkey_t)p->addr.v4 << 96;
	tkey_t k = 0;
	for (int i = 0; i < 16; i++)
		k = k << 8 | p->addr.v6[i];
	return k;
}

/* The model tests' random draws: rand_r on one seed per test program. */
static inline unsigned int *
tk_seed(void)
{
	static unsigned int seed;
	return &seed;
}

static inline uint32_t
tk_rnd(void)
{
	return (uint32_t)rand_r(tk_seed());
}

/* Seed the draws with s, shifted by 1000 x N when FIB_MODEL_SEED=N, for
 * soaks beyond make test's draws. @return the seed used, to print. */
static inline unsigned int
tk_srand(unsigned int s)
{
	const char *e = getenv("FIB_MODEL_SEED");
	*tk_seed() = s + (e ? (unsigned int)strtoul(e, NULL, 0) * 1000u : 0);
	return *tk_seed();
}

/* A key made of a few byte values, so that random keys share long
 * prefixes: IPv4 under three first octets, IPv6 under 2001::/16 and
 * 2002::/16. r: a random number source. */
static inline tkey_t
tk_random(uint8_t af, uint32_t (*r)(void))
{
	static const uint8_t v4first[] = {10, 11, 192};
	static const uint8_t bytes[] = {0, 1, 2, 3, 64, 128, 255};
	uint8_t b[16] = {0};
	if (af == FIB_AF_INET) {
		b[0] = v4first[r() % 3];
		for (int i = 1; i < 4; i++)
			b[i] = bytes[r() % sizeof(bytes)];
	} else {
		b[0] = 0x20;
		b[1] = (uint8_t)(1 + r() % 2);
		for (int i = 2; i < 16; i++)
			b[i] = bytes[r() % 4 == 0 ? r() % sizeof(bytes) : 0];
	}
	tkey_t k = 0;
	for (int i = 0; i < 16; i++)
		k = k << 8 | b[i];
	return k;
}

#endif
