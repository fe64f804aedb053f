/* SPDX-License-Identifier: BSD-3-Clause */
/* Policy rules: selectors (addresses, input port, DSCP, protocol,
 * ports), actions, fall-through, local first, ordering. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>

#include "fib_test.h"

static struct fib_rule
rule_of(uint8_t af, uint32_t prio, const char *from, const char *to, uint8_t action, uint32_t table)
{
	struct fib_rule r = {.priority = prio,
			     .family = af,
			     .action = action,
			     .dscp = FIB_DSCP_ANY,
			     .iif = FIB_IIF_ANY,
			     .table = table,
			     .sport_hi = 0xffff,
			     .dport_hi = 0xffff};
	r.src.family = r.dst.family = af;
	if (from)
		r.src = P(from);
	if (to)
		r.dst = P(to);
	return r;
}

static struct fib_rule
rule4(uint32_t prio, const char *from, const char *to, uint8_t action, uint32_t table)
{
	return rule_of(FIB_AF_INET, prio, from, to, action, table);
}

static struct fib_rule
rule6(uint32_t prio, const char *from, const char *to, uint8_t action, uint32_t table)
{
	return rule_of(FIB_AF_INET6, prio, from, to, action, table);
}

static uint32_t
addr4(const char *a)
{
	char b[40];
	snprintf(b, sizeof(b), "%s/32", a);
	return P(b).addr.v4;
}

/* Route a packet alone (the one-packet call, routerctl route get's) and
 * as the datapath does, main looked up first, in the middle of a burst
 * whose other packets take other ways through the rules (the packet
 * itself, from another source, to another address, with another flow):
 * the burst's batching must not change its answer. */
static uint32_t
route4_flow(const struct fib *f, const char *src, const char *dst, const struct fib_flow *flow)
{
	uint32_t d = addr4(dst), s = addr4(src);
	const struct fib_table *m = fib_table_lookup(f, FIB_TABLE_MAIN);
	uint32_t nh = fib_lookup4(m, d);
	if (!fib_rules_active(f, FIB_AF_INET))
		return nh;
	uint32_t one = fib_rule_route4(f, s, d, flow, nh);
	uint32_t bs[5] = {s, addr4("10.9.9.9"), s, s, addr4("172.20.0.1")};
	uint32_t bd[5] = {d, d, addr4("198.51.100.1"), d, addr4("192.0.2.5")};
	struct fib_flow bf[5] = {*flow, *flow, *flow, {.iif = 3, .dscp = 46}, *flow};
	uint32_t bnh[5];
	fib_lookup4_bulk(m, bd, bnh, 5);
	fib_rule_route4_bulk(f, fib_rules_get(f, FIB_AF_INET), bs, bd, bf, bnh, 5);
	for (unsigned int k = 0; k < 5; k++)
		assert_int_equal(bnh[k],
				 fib_rule_route4(f, bs[k], bd[k], &bf[k], fib_lookup4(m, bd[k])));
	assert_int_equal(bnh[0], one);
	return one;
}

static uint32_t
route4(const struct fib *f, const char *src, const char *dst, uint16_t iif, uint8_t dscp)
{
	struct fib_flow flow = {.dscp = dscp, .iif = iif};
	return route4_flow(f, src, dst, &flow);
}

/* The same for a packet of protocol proto with ports sport, dport. */
static uint32_t
route4_l4(const struct fib *f, const char *dst, uint8_t proto, uint16_t sport, uint16_t dport)
{
	struct fib_flow flow = {.proto = proto, .sport = sport, .dport = dport};
	return route4_flow(f, "10.0.0.1", dst, &flow);
}

#define NH_RULE_UNREACHABLE 32765u

static int
setup(void **state)
{
	struct fib_conf c = test_conf();
	c.rule_unreachable_nh = NH_RULE_UNREACHABLE;
	struct fib *f = fib_create(&c);
	struct fib_route r = R("192.0.2.0/24", 10, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	r = R("198.51.100.0/24", 11, 0, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	r = R("192.0.2.1/32", 0, 0, 0);
	r.type = FIB_RT_LOCAL;
	assert_int_equal(fib_route_add(f, &r), 0);
	r = R("192.0.2.0/24", 50, 0, 100);
	assert_int_equal(fib_route_add(f, &r), 0);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	fib_free(*state);
	return 0;
}

static void
test_from_and_fall_through(void **state)
{
	struct fib *f = *state;
	assert_false(fib_rules_active(f, FIB_AF_INET));
	struct fib_rule r = rule4(100, "10.0.0.0/8", NULL, FIB_RULE_TABLE, 100);
	assert_int_equal(fib_rule_add(f, &r), 0);
	assert_true(fib_rules_active(f, FIB_AF_INET));
	assert_false(fib_rules_active(f, FIB_AF_INET6));
	assert_int_equal(fib_rule_add(f, &r), -EEXIST);

	assert_int_equal(route4(f, "10.1.1.1", "192.0.2.5", 0, 0), 50);
	assert_int_equal(route4(f, "11.1.1.1", "192.0.2.5", 0, 0), 10);
	/* Table 100 has no route: on to main. */
	assert_int_equal(route4(f, "10.1.1.1", "198.51.100.1", 0, 0), 11);
	/* Nowhere: no route. */
	assert_int_equal(route4(f, "10.1.1.1", "203.0.113.1", 0, 0), FIB_NH_NONE);
	/* The router's own address wins over any rule. */
	assert_int_equal(route4(f, "10.1.1.1", "192.0.2.1", 0, 0), NH_LOCAL);

	assert_int_equal(fib_rule_del(f, &r), 0);
	assert_int_equal(fib_rule_del(f, &r), -ENOENT);
	assert_false(fib_rules_active(f, FIB_AF_INET));
	assert_int_equal(route4(f, "10.1.1.1", "192.0.2.5", 0, 0), 10);
}

static void
test_actions_and_selectors(void **state)
{
	struct fib *f = *state;
	struct fib_rule bh = rule4(50, NULL, NULL, FIB_RULE_BLACKHOLE, 0);
	bh.iif = 3;
	struct fib_rule un = rule4(60, NULL, "198.51.100.0/24", FIB_RULE_UNREACHABLE, 0);
	un.dscp = 46;
	struct fib_rule pr = rule4(70, "172.16.0.0/12", NULL, FIB_RULE_PROHIBIT, 0);
	assert_int_equal(fib_rule_add(f, &pr), 0);
	assert_int_equal(fib_rule_add(f, &un), 0);
	assert_int_equal(fib_rule_add(f, &bh), 0);

	assert_int_equal(route4(f, "1.1.1.1", "192.0.2.5", 3, 0), NH_BLACKHOLE);
	assert_int_equal(route4(f, "1.1.1.1", "192.0.2.5", 2, 0), 10);
	/* A rule's unreachable is net unreachable, not a route's host one. */
	assert_int_equal(route4(f, "1.1.1.1", "198.51.100.9", 2, 46), NH_RULE_UNREACHABLE);
	assert_int_equal(route4(f, "1.1.1.1", "198.51.100.9", 2, 0), 11);
	assert_int_equal(route4(f, "172.20.0.1", "192.0.2.5", 2, 0), NH_PROHIBIT);
	assert_int_equal(route4(f, "172.32.0.1", "192.0.2.5", 2, 0), 10);
	/* iif lo: the router's own packets only; they match no port's rule,
	 * and a port's packets do not match it. */
	struct fib_rule lo = rule4(40, NULL, NULL, FIB_RULE_PROHIBIT, 0);
	lo.iif = FIB_IIF_LOCAL;
	assert_int_equal(fib_rule_add(f, &lo), 0);
	assert_int_equal(route4(f, "1.1.1.1", "192.0.2.5", FIB_IIF_LOCAL, 0), NH_PROHIBIT);
	assert_int_equal(route4(f, "1.1.1.1", "192.0.2.5", 2, 0), 10);
	assert_int_equal(route4(f, "1.1.1.1", "192.0.2.5", 3, 0), NH_BLACKHOLE);
	assert_int_equal(fib_rule_del(f, &lo), 0);
	assert_int_equal(route4(f, "1.1.1.1", "192.0.2.5", FIB_IIF_LOCAL, 0), 10);

	struct fib_rule bad = rule4(1, NULL, NULL, FIB_RULE_TABLE, 0);
	bad.dscp = 64;
	assert_int_equal(fib_rule_add(f, &bad), -EINVAL);
	bad = rule4(1, NULL, NULL, 9, 0);
	assert_int_equal(fib_rule_add(f, &bad), -EINVAL);
}

/* Selector edges: /32, /31, /1 and /0, on the first and last addresses
 * inside and the first outside; and a whole burst at once. */
static void
test_prefix_edges(void **state)
{
	struct fib *f = *state;
	struct fib_rule r = rule4(10, "10.0.0.1/32", NULL, FIB_RULE_BLACKHOLE, 0);
	assert_int_equal(fib_rule_add(f, &r), 0);
	r = rule4(20, NULL, "198.51.100.2/31", FIB_RULE_PROHIBIT, 0);
	assert_int_equal(fib_rule_add(f, &r), 0);
	r = rule4(30, "128.0.0.0/1", "198.51.100.0/24", FIB_RULE_UNREACHABLE, 0);
	assert_int_equal(fib_rule_add(f, &r), 0);
	assert_int_equal(route4(f, "10.0.0.1", "192.0.2.5", 0, 0), NH_BLACKHOLE);
	assert_int_equal(route4(f, "10.0.0.0", "192.0.2.5", 0, 0), 10);
	assert_int_equal(route4(f, "10.0.0.2", "192.0.2.5", 0, 0), 10);
	assert_int_equal(route4(f, "1.1.1.1", "198.51.100.2", 0, 0), NH_PROHIBIT);
	assert_int_equal(route4(f, "1.1.1.1", "198.51.100.3", 0, 0), NH_PROHIBIT);
	assert_int_equal(route4(f, "1.1.1.1", "198.51.100.1", 0, 0), 11);
	assert_int_equal(route4(f, "1.1.1.1", "198.51.100.4", 0, 0), 11);
	assert_int_equal(route4(f, "128.0.0.0", "198.51.100.9", 0, 0), NH_RULE_UNREACHABLE);
	assert_int_equal(route4(f, "255.255.255.255", "198.51.100.9", 0, 0), NH_RULE_UNREACHABLE);
	assert_int_equal(route4(f, "127.255.255.255", "198.51.100.9", 0, 0), 11);
	/* Local delivery comes before every rule. */
	assert_int_equal(route4(f, "10.0.0.1", "192.0.2.1", 0, 0), NH_LOCAL);

	/* A burst of 64 mixed packets: each as it would be alone. */
	static const char *const srcs[] = {"10.0.0.1", "10.0.0.2", "200.1.1.1", "1.1.1.1"};
	static const char *const dsts[] = {"192.0.2.5", "198.51.100.2", "198.51.100.9",
					   "192.0.2.1"};
	uint32_t s[64], d[64], nh[64];
	struct fib_flow flow[64] = {0};
	uint32_t main_t[64];
	for (unsigned int i = 0; i < 64; i++) {
		s[i] = addr4(srcs[i % 4]);
		d[i] = addr4(dsts[(i / 4) % 4]);
		nh[i] = main_t[i] = fib_lookup4(fib_table_lookup(f, FIB_TABLE_MAIN), d[i]);
	}
	fib_rule_route4_bulk(f, fib_rules_get(f, FIB_AF_INET), s, d, flow, nh, 64);
	for (unsigned int i = 0; i < 64; i++)
		assert_int_equal(nh[i], fib_rule_route4(f, s[i], d[i], &flow[i], main_t[i]));
}

struct order {
	char s[256];
	size_t n;
};

static int
order_cb(const struct fib_rule *r, void *arg)
{
	struct order *o = arg;
	o->n += snprintf(o->s + o->n, sizeof(o->s) - o->n, "%u:%u ", r->priority,
			 r->action == FIB_RULE_TABLE ? r->table : 1000u + r->action);
	return 0;
}

static void
test_order(void **state)
{
	struct fib *f = *state;
	struct fib_rule a = rule4(40000, NULL, NULL, FIB_RULE_TABLE, 100);
	struct fib_rule b = rule4(100, "10.0.0.0/8", NULL, FIB_RULE_TABLE, 100);
	struct fib_rule c = rule4(100, "11.0.0.0/8", NULL, FIB_RULE_BLACKHOLE, 0);
	assert_int_equal(fib_rule_add(f, &a), 0);
	assert_int_equal(fib_rule_add(f, &b), 0);
	assert_int_equal(fib_rule_add(f, &c), 0);
	struct order o = {0};
	assert_int_equal(fib_rule_walk(f, FIB_AF_INET, order_cb, &o), 0);
	assert_string_equal(o.s, "100:100 100:1001 32766:254 32767:253 40000:100 ");
	/* The rule after main is reached when main has no route. */
	assert_int_equal(route4(f, "1.1.1.1", "203.0.113.1", 0, 0), FIB_NH_NONE);
	struct fib_route r = R("203.0.113.0/24", 77, 0, 100);
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(route4(f, "1.1.1.1", "203.0.113.1", 0, 0), 77);
	o = (struct order){0};
	assert_int_equal(fib_rule_walk(f, FIB_AF_INET6, order_cb, &o), 0);
	assert_string_equal(o.s, "32766:254 ");
}

static void
test_ipv6(void **state)
{
	struct fib *f = *state;
	struct fib_route r = R("2001:db8::/32", 20, 1024, 0);
	assert_int_equal(fib_route_add(f, &r), 0);
	r = R("2001:db8::/32", 21, 1024, 200);
	assert_int_equal(fib_route_add(f, &r), 0);
	struct fib_rule rule = rule6(10, "fd00::/8", NULL, FIB_RULE_TABLE, 200);
	rule.ipproto = IPPROTO_UDP;
	assert_int_equal(fib_rule_add(f, &rule), 0);
	assert_true(fib_rules_active(f, FIB_AF_INET6));
	assert_false(fib_rule_set_ports(fib_rules_get(f, FIB_AF_INET6))); /* a protocol alone */
	struct fib_prefix in = P("fd00::1/128"), out = P("2001:db9::1/128"),
			  dst = P("2001:db8::5/128");
	uint32_t m = fib_lookup6(fib_table_lookup(f, 0), dst.addr.v6);
	assert_int_equal(m, 20);
	struct fib_flow udp = {.proto = IPPROTO_UDP, .sport = 5, .dport = 53},
			tcp = {.proto = IPPROTO_TCP};
	assert_int_equal(fib_rule_route6(f, in.addr.v6, dst.addr.v6, &udp, m), 21);
	assert_int_equal(fib_rule_route6(f, in.addr.v6, dst.addr.v6, &tcp, m), 20);
	assert_int_equal(fib_rule_route6(f, out.addr.v6, dst.addr.v6, &udp, m), 20);
	const uint8_t *srcs[2] = {in.addr.v6, out.addr.v6}, *dsts[2] = {dst.addr.v6, dst.addr.v6};
	struct fib_flow flows[2] = {udp, udp};
	uint32_t nh[2] = {m, m};
	fib_rule_route6_bulk(f, fib_rules_get(f, FIB_AF_INET6), srcs, dsts, flows, nh, 2);
	assert_int_equal(nh[0], 21);
	assert_int_equal(nh[1], 20);
	struct fib_rule mixed = rule;
	mixed.src = P("10.0.0.0/8");
	assert_int_equal(fib_rule_add(f, &mixed), -EINVAL);
}

/* Linux's default rules: 32766 main and, IPv4 only, 32767 default,
 * walked as rules, deleted and added back like any; no set while they
 * alone exist and table default has no route of the family. */
static void
test_default_rules(void **state)
{
	struct fib *f = *state;
	struct order o = {0};
	assert_int_equal(fib_rule_walk(f, FIB_AF_INET, order_cb, &o), 0);
	assert_string_equal(o.s, "32766:254 32767:253 ");
	assert_false(fib_rules_active(f, FIB_AF_INET));
	assert_false(fib_rules_active(f, FIB_AF_INET6));
	struct fib_rule dmain = rule4(FIB_RULE_PRIO_MAIN, NULL, NULL, FIB_RULE_TABLE, 0);
	struct fib_rule ddef =
		rule4(FIB_RULE_PRIO_DEFAULT, NULL, NULL, FIB_RULE_TABLE, FIB_TABLE_DEFAULT);
	assert_int_equal(fib_rule_add(f, &dmain), -EEXIST);
	assert_int_equal(fib_rule_add(f, &ddef), -EEXIST);
	/* Known as the defaults, as save needs them (table 0 is main). */
	assert_int_equal(fib_rule_default(&dmain), 0);
	assert_int_equal(fib_rule_default(&ddef), 1);
	struct fib_rule ddef6 =
		rule6(FIB_RULE_PRIO_DEFAULT, NULL, NULL, FIB_RULE_TABLE, FIB_TABLE_DEFAULT);
	assert_int_equal(fib_rule_default(&ddef6), -1); /* IPv6 has none */
	struct fib_rule late_main = rule4(40000, NULL, NULL, FIB_RULE_TABLE, FIB_TABLE_MAIN);
	assert_int_equal(fib_rule_default(&late_main), -1);
	/* Rules alone make no table default. */
	struct fib_rule other = rule4(10, "10.0.0.0/8", NULL, FIB_RULE_BLACKHOLE, 0);
	assert_int_equal(fib_rule_add(f, &other), 0);
	assert_int_equal(fib_rule_del(f, &other), 0);
	assert_null(fib_table_lookup(f, FIB_TABLE_DEFAULT));

	/* Table default answers after main, as in Linux. */
	A(f, "198.18.5.0/24", 5, 0, FIB_TABLE_DEFAULT);
	A(f, "198.18.0.0/16", 6, 0, 0);
	assert_true(fib_rules_active(f, FIB_AF_INET));
	assert_false(fib_rules_active(f, FIB_AF_INET6));
	assert_int_equal(route4(f, "1.1.1.1", "198.18.5.1", 0, 0), 6);
	assert_int_equal(D(f, "198.18.0.0/16", 0, 0, true), 0);
	assert_int_equal(route4(f, "1.1.1.1", "198.18.5.1", 0, 0), 5);
	assert_int_equal(route4(f, "1.1.1.1", "198.18.6.1", 0, 0), FIB_NH_NONE);
	/* IPv6 has no default rule: its routes there are not looked up. */
	A(f, "2001:db8::/32", 7, 1024, FIB_TABLE_DEFAULT);
	assert_false(fib_rules_active(f, FIB_AF_INET6));
	assert_int_equal(D(f, "2001:db8::/32", 1024, FIB_TABLE_DEFAULT, true), 0);

	/* Without main's rule only local delivery and the default table
	 * answer; with no rule at all, only local delivery. */
	A(f, "203.0.113.0/24", 8, 0, 0);
	assert_int_equal(fib_rule_del(f, &dmain), 0);
	assert_int_equal(fib_rule_del(f, &dmain), -ENOENT);
	assert_true(fib_rules_active(f, FIB_AF_INET));
	assert_int_equal(route4(f, "1.1.1.1", "203.0.113.1", 0, 0), FIB_NH_NONE);
	assert_int_equal(route4(f, "1.1.1.1", "198.18.5.1", 0, 0), 5);
	assert_int_equal(route4(f, "1.1.1.1", "192.0.2.1", 0, 0), NH_LOCAL);
	assert_int_equal(fib_rule_del(f, &ddef), 0);
	o = (struct order){0};
	assert_int_equal(fib_rule_walk(f, FIB_AF_INET, order_cb, &o), 0);
	assert_string_equal(o.s, "");
	assert_int_equal(route4(f, "1.1.1.1", "198.18.5.1", 0, 0), FIB_NH_NONE);
	assert_int_equal(route4(f, "1.1.1.1", "192.0.2.1", 0, 0), NH_LOCAL);

	/* Main moved behind a rule, as `ip rule add pref 40000 lookup main;
	 * ip rule del pref 32766` does. */
	struct fib_rule late = rule4(40000, NULL, NULL, FIB_RULE_TABLE, FIB_TABLE_MAIN);
	struct fib_rule hole = rule4(35000, NULL, "203.0.113.128/25", FIB_RULE_PROHIBIT, 0);
	assert_int_equal(fib_rule_add(f, &late), 0);
	assert_int_equal(fib_rule_add(f, &hole), 0);
	assert_int_equal(route4(f, "1.1.1.1", "203.0.113.1", 0, 0), 8);
	assert_int_equal(route4(f, "1.1.1.1", "203.0.113.200", 0, 0), NH_PROHIBIT);
	assert_int_equal(fib_rule_del(f, &late), 0);
	assert_int_equal(fib_rule_del(f, &hole), 0);

	/* The defaults back: no set again once table default is empty. */
	assert_int_equal(fib_rule_add(f, &ddef), 0);
	assert_int_equal(fib_rule_add(f, &dmain), 0);
	o = (struct order){0};
	assert_int_equal(fib_rule_walk(f, FIB_AF_INET, order_cb, &o), 0);
	assert_string_equal(o.s, "32766:254 32767:253 ");
	assert_true(fib_rules_active(f, FIB_AF_INET));
	assert_int_equal(route4(f, "1.1.1.1", "198.18.5.1", 0, 0), 5);
	assert_int_equal(D(f, "198.18.5.0/24", 0, FIB_TABLE_DEFAULT, true), 0);
	assert_false(fib_rules_active(f, FIB_AF_INET));

	/* IPv6's main rule, deleted: only local delivery is left. */
	struct fib_rule dmain6 = rule6(FIB_RULE_PRIO_MAIN, NULL, NULL, FIB_RULE_TABLE, 0);
	A(f, "2001:db8::/32", 9, 1024, 0);
	assert_int_equal(fib_rule_del(f, &dmain6), 0);
	struct fib_prefix d6 = P("2001:db8::5/128"), s6 = P("2001:db9::1/128");
	struct fib_flow fl = {0};
	uint32_t m6 = fib_lookup6(fib_table_lookup(f, 0), d6.addr.v6);
	assert_int_equal(m6, 9);
	assert_int_equal(fib_rule_route6(f, s6.addr.v6, d6.addr.v6, &fl, m6), FIB_NH_NONE);
	assert_int_equal(fib_rule_add(f, &dmain6), 0);
	assert_false(fib_rules_active(f, FIB_AF_INET6));
}

/* The table whose route answers (route get fibmatch's question), as
 * fib_rule_route4/6 route. */
static uint32_t
table4(const struct fib *f, const char *src, const char *dst)
{
	struct fib_flow flow = {0};
	uint32_t d = addr4(dst);
	return fib_rule_table4(f, addr4(src), d, &flow,
			       fib_lookup4(fib_table_lookup(f, FIB_TABLE_MAIN), d));
}

static void
test_table_of_answer(void **state)
{
	struct fib *f = *state;
	/* No rules: main, or none. */
	assert_int_equal(table4(f, "1.1.1.1", "198.51.100.1"), FIB_TABLE_MAIN);
	assert_int_equal(table4(f, "1.1.1.1", "203.0.113.1"), 0);
	/* Table default after main. */
	A(f, "203.0.113.0/24", 5, 0, FIB_TABLE_DEFAULT);
	assert_int_equal(table4(f, "1.1.1.1", "203.0.113.1"), FIB_TABLE_DEFAULT);
	assert_int_equal(table4(f, "1.1.1.1", "198.51.100.1"), FIB_TABLE_MAIN);
	/* A rule to table 100, falling through where 100 has no route; a
	 * blackhole rule's answer is no table's; local first. */
	struct fib_rule vrf = rule4(100, "10.0.0.0/8", NULL, FIB_RULE_TABLE, 100);
	struct fib_rule drop = rule4(200, "10.1.0.0/16", NULL, FIB_RULE_BLACKHOLE, 0);
	assert_int_equal(fib_rule_add(f, &vrf), 0);
	assert_int_equal(fib_rule_add(f, &drop), 0);
	assert_int_equal(table4(f, "10.1.1.1", "192.0.2.9"), 100);
	assert_int_equal(table4(f, "10.1.1.1", "198.51.100.1"), 0);
	assert_int_equal(route4(f, "10.1.1.1", "198.51.100.1", 0, 0), NH_BLACKHOLE);
	assert_int_equal(table4(f, "10.2.1.1", "198.51.100.1"), FIB_TABLE_MAIN);
	assert_int_equal(table4(f, "10.1.1.1", "192.0.2.1"), FIB_TABLE_MAIN);
	assert_int_equal(table4(f, "10.2.1.1", "203.0.113.1"), FIB_TABLE_DEFAULT);
	/* IPv6, through a rule. */
	A(f, "2001:db8::/32", 20, 1024, 0);
	A(f, "2001:db8::/32", 21, 1024, 200);
	struct fib_rule six = rule6(10, "fd00::/8", NULL, FIB_RULE_TABLE, 200);
	assert_int_equal(fib_rule_add(f, &six), 0);
	struct fib_prefix in = P("fd00::1/128"), out = P("2001:db9::1/128"),
			  dst = P("2001:db8::5/128");
	struct fib_flow flow = {0};
	uint32_t m = fib_lookup6(fib_table_lookup(f, 0), dst.addr.v6);
	assert_int_equal(fib_rule_table6(f, in.addr.v6, dst.addr.v6, &flow, m), 200);
	assert_int_equal(fib_rule_table6(f, out.addr.v6, dst.addr.v6, &flow, m), FIB_TABLE_MAIN);
}

/* Throw routes, as Linux's: a hole in their table. A rule looking the
 * table up goes on to the next rule there; main's throw, with no rule
 * left, is no route; a more-specific inside a hole answers as usual. */
static void
test_throw(void **state)
{
	struct fib *f = *state;
	A(f, "0.0.0.0/0", 60, 0, 100);
	struct fib_route r = R("203.0.113.0/24", 0, 0, 100);
	r.type = FIB_RT_THROW;
	assert_int_equal(fib_route_add(f, &r), 0);
	A(f, "203.0.113.128/25", 61, 0, 100);
	A(f, "203.0.0.0/16", 12, 0, 0);
	struct fib_rule all = rule4(100, NULL, NULL, FIB_RULE_TABLE, 100);
	assert_int_equal(fib_rule_add(f, &all), 0);

	assert_int_equal(L(f, 100, "203.0.113.5"), FIB_NH_NONE);
	assert_int_equal(L(f, 100, "203.0.113.200"), 61);
	assert_int_equal(L(f, 100, "203.0.114.1"), 60);
	/* Thrown: on to main's /16. */
	assert_int_equal(route4(f, "10.0.0.1", "203.0.113.5", 0, 0), 12);
	assert_int_equal(route4(f, "10.0.0.1", "203.0.113.200", 0, 0), 61);
	assert_int_equal(route4(f, "10.0.0.1", "203.0.114.1", 0, 0), 60);
	struct fib_route got;
	struct fib_prefix a = P("203.0.113.5/32");
	assert_int_equal(fib_route_match(f, 100, &a, &got), 0);
	assert_int_equal(got.type, FIB_RT_THROW);
	assert_int_equal(got.dst.len, 24);

	/* Main's throw under its /16, no rule after main: no route. With a
	 * rule after main, that rule's table answers. */
	r.table = 0;
	r.dst = P("203.0.113.0/25");
	assert_int_equal(fib_route_add(f, &r), 0);
	assert_int_equal(fib_rule_del(f, &all), 0);
	assert_int_equal(route4(f, "10.0.0.1", "203.0.113.5", 0, 0), FIB_NH_NONE);
	assert_int_equal(route4(f, "10.0.0.1", "203.0.113.200", 0, 0), 12);
	struct fib_rule after = rule4(40000, NULL, NULL, FIB_RULE_TABLE, 100);
	assert_int_equal(fib_rule_add(f, &after), 0);
	assert_int_equal(route4(f, "10.0.0.1", "203.0.113.5", 0, 0),
			 FIB_NH_NONE); /* 100 throws too */
	assert_int_equal(D(f, "203.0.113.0/24", 0, 100, true), 0);
	assert_int_equal(route4(f, "10.0.0.1", "203.0.113.5", 0, 0), 60);

	/* IPv6, the same hole. */
	A(f, "2001:db8::/32", 20, 1024, 0);
	A(f, "::/0", 22, 1024, 100);
	r = R("2001:db8:1::/48", 0, 1024, 100);
	r.type = FIB_RT_THROW;
	assert_int_equal(fib_route_add(f, &r), 0);
	struct fib_rule six = rule6(10, NULL, NULL, FIB_RULE_TABLE, 100);
	assert_int_equal(fib_rule_add(f, &six), 0);
	struct fib_prefix src = P("2001:db8:9::1/128"), in = P("2001:db8:1::5/128"),
			  out = P("2001:db8:2::5/128");
	const struct fib_table *m = fib_table_lookup(f, 0);
	struct fib_flow flow = {0};
	assert_int_equal(
		fib_rule_route6(f, src.addr.v6, in.addr.v6, &flow, fib_lookup6(m, in.addr.v6)), 20);
	assert_int_equal(
		fib_rule_route6(f, src.addr.v6, out.addr.v6, &flow, fib_lookup6(m, out.addr.v6)),
		22);
}

/* ipproto and port ranges, as `ip rule add ipproto tcp dport 22`: the
 * protocol must match, a port must lie in its range (both ends count),
 * and a packet without ports (0) matches only a range holding 0. */
static void
test_l4_selectors(void **state)
{
	struct fib *f = *state;
	struct fib_route r = R("198.51.100.0/24", 60, 0, 100);
	assert_int_equal(fib_route_add(f, &r), 0);
	struct fib_rule ssh = rule4(10, NULL, NULL, FIB_RULE_TABLE, 100);
	ssh.ipproto = IPPROTO_TCP;
	ssh.dport_lo = ssh.dport_hi = 22;
	struct fib_rule udp = rule4(20, NULL, NULL, FIB_RULE_BLACKHOLE, 0);
	udp.ipproto = IPPROTO_UDP;
	udp.sport_lo = 1000;
	udp.sport_hi = 2000;
	assert_int_equal(fib_rule_add(f, &ssh), 0);
	/* Ports are read from packets only while some rule has them. */
	assert_true(fib_rule_set_ports(fib_rules_get(f, FIB_AF_INET)));
	assert_int_equal(fib_rule_add(f, &udp), 0);
	const char *d = "198.51.100.7";
	assert_int_equal(route4_l4(f, d, IPPROTO_TCP, 40000, 22), 60);
	assert_int_equal(route4_l4(f, d, IPPROTO_TCP, 40000, 23), 11);
	assert_int_equal(route4_l4(f, d, IPPROTO_UDP, 40000, 22), 11); /* not TCP */
	assert_int_equal(route4_l4(f, d, IPPROTO_UDP, 1000, 53), NH_BLACKHOLE);
	assert_int_equal(route4_l4(f, d, IPPROTO_UDP, 1500, 53), NH_BLACKHOLE);
	assert_int_equal(route4_l4(f, d, IPPROTO_UDP, 2000, 53), NH_BLACKHOLE);
	assert_int_equal(route4_l4(f, d, IPPROTO_UDP, 999, 53), 11);
	assert_int_equal(route4_l4(f, d, IPPROTO_UDP, 2001, 53), 11);
	assert_int_equal(route4_l4(f, d, IPPROTO_ICMP, 0, 0), 11);
	/* The same selectors with "any" written 0-0 or 0-65535: one rule. */
	struct fib_rule again = ssh;
	again.sport_hi = 0;
	assert_int_equal(fib_rule_add(f, &again), -EEXIST);
	/* An empty range is refused; a different range is another rule. */
	struct fib_rule bad = ssh;
	bad.dport_lo = 30;
	bad.dport_hi = 29;
	assert_int_equal(fib_rule_add(f, &bad), -EINVAL);
	again.dport_hi = 23;
	assert_int_equal(fib_rule_add(f, &again), 0);
	assert_int_equal(route4_l4(f, d, IPPROTO_TCP, 40000, 23), 60);
	assert_int_equal(fib_rule_del(f, &ssh), 0);
	assert_int_equal(fib_rule_del(f, &again), 0);
	assert_int_equal(route4_l4(f, d, IPPROTO_TCP, 40000, 22), 11);
	assert_int_equal(fib_rule_del(f, &udp), 0);
	assert_null(fib_rules_get(f, FIB_AF_INET));
}

/* goto, as `ip rule add ... goto PRIO`: a match goes on at the first
 * rule of that priority, skipping those between; a goto whose target
 * does not exist is skipped, and follows the target as it comes and
 * goes; only forward jumps; a table without a route after the jump
 * falls through as usual. */
static struct fib_rule
goto4(uint32_t prio, const char *from, uint32_t target)
{
	struct fib_rule r = rule4(prio, from, NULL, FIB_RULE_GOTO, 0);
	r.target = target;
	return r;
}

static void
test_goto(void **state)
{
	struct fib *f = *state;
	struct fib_rule jump = goto4(100, "10.0.0.0/8", 300);
	struct fib_rule all_bh = rule4(200, NULL, NULL, FIB_RULE_BLACKHOLE, 0);
	struct fib_rule t100 = rule4(300, NULL, NULL, FIB_RULE_TABLE, 100);
	assert_int_equal(fib_rule_add(f, &jump), 0);
	assert_int_equal(fib_rule_add(f, &all_bh), 0);
	/* No rule 300 yet: the goto is skipped, 200 takes everything. */
	assert_int_equal(route4(f, "10.1.1.1", "192.0.2.5", 0, 0), NH_BLACKHOLE);
	assert_int_equal(fib_rule_add(f, &t100), 0);
	assert_int_equal(route4(f, "10.1.1.1", "192.0.2.5", 0, 0), 50); /* over 200, to 300 */
	assert_int_equal(route4(f, "11.1.1.1", "192.0.2.5", 0, 0), NH_BLACKHOLE);
	/* Table 100 has no route for it: on past 300, to main. */
	assert_int_equal(route4(f, "10.1.1.1", "198.51.100.1", 0, 0), 11);
	/* The target goes: skipped again. */
	assert_int_equal(fib_rule_del(f, &t100), 0);
	assert_int_equal(route4(f, "10.1.1.1", "192.0.2.5", 0, 0), NH_BLACKHOLE);
	/* To main's priority: main itself. */
	struct fib_rule to_main = goto4(150, "10.0.0.0/8", FIB_RULE_PRIO_MAIN);
	assert_int_equal(fib_rule_add(f, &to_main), 0);
	/* 100's target is gone, so 150 decides: main, over 200's blackhole. */
	assert_int_equal(route4(f, "10.1.1.1", "192.0.2.5", 0, 0), 10);
	assert_int_equal(route4(f, "11.1.1.1", "192.0.2.5", 0, 0), NH_BLACKHOLE);
	assert_int_equal(fib_rule_del(f, &jump), 0);
	/* Two gotos that differ only by target are two rules. */
	struct fib_rule other = to_main;
	other.target = 40000;
	assert_int_equal(fib_rule_add(f, &other), 0);
	assert_int_equal(fib_rule_add(f, &to_main), -EEXIST);
	assert_int_equal(fib_rule_del(f, &other), 0);
	/* Backward or in place: refused (a loop). */
	struct fib_rule back = goto4(300, NULL, 200);
	assert_int_equal(fib_rule_add(f, &back), -EINVAL);
	back.target = 300;
	assert_int_equal(fib_rule_add(f, &back), -EINVAL);
	/* Several in a row: 120 -> 130 -> 180 (table 100). */
	struct fib_rule g1 = goto4(120, "10.0.0.0/8", 130), g2 = goto4(130, NULL, 180),
			t = rule4(180, NULL, NULL, FIB_RULE_TABLE, 100);
	assert_int_equal(fib_rule_add(f, &g1), 0);
	assert_int_equal(fib_rule_add(f, &g2), 0);
	assert_int_equal(fib_rule_add(f, &t), 0);
	assert_int_equal(route4(f, "10.1.1.1", "192.0.2.5", 0, 0), 50);
	assert_int_equal(route4(f, "11.1.1.1", "192.0.2.5", 0, 0), 50); /* from 130 on */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_from_and_fall_through, setup, teardown),
		cmocka_unit_test_setup_teardown(test_actions_and_selectors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_l4_selectors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefix_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_of_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_goto, setup, teardown),
		cmocka_unit_test_setup_teardown(test_throw, setup, teardown),
	};
	return cmocka_run_group_tests_name("fib_rules", tests, NULL, NULL);
}
