/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Random policy rules checked against a reference walk written from the
 * documented semantics (docs/fib.md, "Policy rules"), not from rules.c:
 *
 *  - a main-table answer of the local nexthop wins before any rule;
 *  - rules in priority order, equal priorities in the order added;
 *    Linux's default rules (32766 main, IPv4's 32767 default; their
 *    form, fib_rule_defaults', is checked by fib_rules) are there from
 *    the start, and are deleted and added back like any other;
 *  - while the defaults alone exist (and, for IPv4, table default has no
 *    route), there is no rule set: main's answer stands;
 *  - the first rule whose selectors all match decides: a table rule
 *    answers with its table's route, or when the table has none the walk
 *    goes on at the next rule; blackhole, unreachable and prohibit answer
 *    with their nexthops; a goto goes on at the first rule of its target
 *    priority, or at the next rule while no rule has that priority;
 *  - nothing matched: no route;
 *  - the table whose route answered is the one fib_rule_table4/6 name.
 *
 * Rules are drawn from small sets of priorities, prefixes, ports, DSCP,
 * protocols, input ports, actions and gotos, so that they overlap,
 * repeat (add must then say -EEXIST) and chain; routes in main, two other
 * tables and an empty one come and go between them. After every change,
 * random packets are routed one at a time and in a burst, and compared
 * with the reference.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fib_test.h"

#define NH_RULE_UNREACHABLE 32765u
#define MAX_RULES 48
#define OPS 3000
#define PACKETS 100 /* more than one of the bulk walk's chunks of 64 */

struct model {
	uint8_t af;
	struct fib_rule r[MAX_RULES]; /* the rules, defaults included, in evaluation order */
	unsigned int n;
};

static unsigned long changed, packets;       /* answers the rules changed, of all */
static unsigned long all_refused, all_gotos; /* duplicates refused, gotos added */
/* Operations after which there was no rule, no rule looking main up for
 * every packet, no rule set. */
static unsigned long states[3];

static unsigned int
max_len(uint8_t af)
{
	return af == FIB_AF_INET ? 32 : 128;
}

static struct fib_prefix
random_prefix(uint8_t af, unsigned int len)
{
	return tk_prefix(af, tk_random(af, tk_rnd) & tk_mask(len), len);
}

static const uint32_t prios[] = {1, 100, 100, 32765, 32766, 32767, 40000};

static struct fib_rule
random_rule(uint8_t af)
{
	/* Now and then a default rule, to add back what deletes took. */
	if (tk_rnd() % 10 == 0) {
		struct fib_rule d[2];
		unsigned int nd = fib_rule_defaults(af, d);
		return d[tk_rnd() % nd];
	}
	struct fib_rule r = {.priority = prios[tk_rnd() % 7],
			     .family = af,
			     .dscp = FIB_DSCP_ANY,
			     .iif = FIB_IIF_ANY,
			     .src = {.family = af},
			     .dst = {.family = af}};
	static const uint8_t lens4[] = {8, 16, 24, 32}, lens6[] = {16, 32, 48, 128};
	if (tk_rnd() % 3 == 0)
		r.src = random_prefix(af, af == FIB_AF_INET ? lens4[tk_rnd() % 4]
							    : lens6[tk_rnd() % 4]);
	if (tk_rnd() % 3 == 0)
		r.dst = random_prefix(af, af == FIB_AF_INET ? lens4[tk_rnd() % 4]
							    : lens6[tk_rnd() % 4]);
	if (tk_rnd() % 4 == 0)
		r.iif = (uint16_t)(tk_rnd() % 3);
	if (tk_rnd() % 4 == 0)
		r.dscp = (uint8_t)(tk_rnd() % 2 ? 10 : 46);
	if (tk_rnd() % 4 == 0)
		r.ipproto = tk_rnd() % 2 ? 6 : 17;
	static const uint16_t ranges[][2] = {{53, 53}, {80, 443}, {1024, 65535}, {0, 0}, {0, 80}};
	unsigned int k = tk_rnd() % 10;
	if (k < 5) {
		r.dport_lo = ranges[k][0];
		r.dport_hi = ranges[k][1];
	}
	k = tk_rnd() % 10;
	if (k < 5) {
		r.sport_lo = ranges[k][0];
		r.sport_hi = ranges[k][1];
	}
	k = tk_rnd() % 12;
	if (k < 6) {
		static const uint32_t tables[] = {0,   FIB_TABLE_MAIN,    100,
						  101, FIB_TABLE_DEFAULT, 102};
		r.action = FIB_RULE_TABLE;
		r.table = tables[k];
	} else if (k < 9) {
		r.action = FIB_RULE_GOTO;
		/* Forward: mostly to one of the priorities rules take, which
		 * may or may not be in use, else to one never used. */
		r.target = prios[tk_rnd() % 7];
		if (r.target <= r.priority)
			r.target = r.priority + 1 + tk_rnd() % 50;
	} else {
		r.action = (uint8_t)(FIB_RULE_BLACKHOLE + (k - 9));
	}
	return r;
}

/* The documented notion of the same rule: what ip rule del matches on. */
static bool
prefix_same(const struct fib_prefix *a, const struct fib_prefix *b)
{
	return a->len == b->len && ((tk_key(a) ^ tk_key(b)) & tk_mask(a->len)) == 0;
}

static uint16_t
hi_of(uint16_t lo, uint16_t hi)
{
	return lo == 0 && hi == 0 ? 0xffff : hi; /* 0-0: any port */
}

static uint32_t
table_of(const struct fib_rule *r)
{
	return r->table ? r->table : FIB_TABLE_MAIN;
}

static bool
same_rule(const struct fib_rule *a, const struct fib_rule *b)
{
	if (a->priority != b->priority || a->action != b->action || a->dscp != b->dscp ||
	    a->iif != b->iif || a->ipproto != b->ipproto || !prefix_same(&a->src, &b->src) ||
	    !prefix_same(&a->dst, &b->dst) || a->sport_lo != b->sport_lo ||
	    a->dport_lo != b->dport_lo ||
	    hi_of(a->sport_lo, a->sport_hi) != hi_of(b->sport_lo, b->sport_hi) ||
	    hi_of(a->dport_lo, a->dport_hi) != hi_of(b->dport_lo, b->dport_hi))
		return false;
	if (a->action == FIB_RULE_TABLE)
		return table_of(a) == table_of(b);
	return a->action != FIB_RULE_GOTO || a->target == b->target;
}

static bool
in_range(uint16_t v, uint16_t lo, uint16_t hi)
{
	return v >= lo && v <= hi_of(lo, hi);
}

struct pkt {
	tkey_t src, dst;
	struct fib_flow flow;
};

static bool
matches(const struct fib_rule *r, const struct pkt *p)
{
	return ((p->src ^ tk_key(&r->src)) & tk_mask(r->src.len)) == 0 &&
	       ((p->dst ^ tk_key(&r->dst)) & tk_mask(r->dst.len)) == 0 &&
	       (r->iif == FIB_IIF_ANY || r->iif == p->flow.iif) &&
	       (r->dscp == FIB_DSCP_ANY || r->dscp == p->flow.dscp) &&
	       (r->ipproto == 0 || r->ipproto == p->flow.proto) &&
	       in_range(p->flow.sport, r->sport_lo, r->sport_hi) &&
	       in_range(p->flow.dport, r->dport_lo, r->dport_hi);
}

static uint32_t
table_lookup(const struct fib *f, uint8_t af, uint32_t table, tkey_t dst)
{
	const struct fib_table *t = fib_table_lookup(f, table);
	if (t == NULL)
		return FIB_NH_NONE;
	struct fib_prefix p = tk_prefix(af, dst, max_len(af));
	return af == FIB_AF_INET ? fib_lookup4(t, p.addr.v4) : fib_lookup6(t, p.addr.v6);
}

/* The rules in evaluation order. */
static unsigned int
ordered(const struct model *m, struct fib_rule *out)
{
	memcpy(out, m->r, sizeof(m->r[0]) * m->n);
	return m->n;
}

/* Must the rules be walked (fib_rules_active)? Not while the defaults
 * alone exist, nor for IPv4 while table default is empty too. */
static bool
walked(const struct fib *f, const struct model *m)
{
	struct fib_rule d[2];
	unsigned int nd = fib_rule_defaults(m->af, d);
	bool pristine = m->n == nd;
	for (unsigned int i = 0; pristine && i < nd; i++)
		pristine = same_rule(&m->r[i], &d[i]);
	return !pristine ||
	       (m->af == FIB_AF_INET && fib_route_count(f, FIB_TABLE_DEFAULT, m->af) > 0);
}

static uint32_t
reference(const struct fib *f, const struct model *m, const struct pkt *p, uint32_t main_nh,
	  uint32_t *table)
{
	*table = 0; /* a rule's action, or nothing: no table's route */
	if (main_nh == NH_LOCAL) {
		*table = FIB_TABLE_MAIN;
		return main_nh;
	}
	struct fib_rule l[MAX_RULES + 1];
	unsigned int n = ordered(m, l);
	for (unsigned int i = 0; i < n;) {
		const struct fib_rule *r = &l[i];
		if (!matches(r, p)) {
			i++;
			continue;
		}
		switch (r->action) {
		case FIB_RULE_TABLE: {
			uint32_t nh = table_of(r) == FIB_TABLE_MAIN
					      ? main_nh
					      : table_lookup(f, m->af, table_of(r), p->dst);
			if (nh != FIB_NH_NONE) {
				*table = table_of(r);
				return nh;
			}
			i++;
			break;
		}
		case FIB_RULE_BLACKHOLE:
			return NH_BLACKHOLE;
		case FIB_RULE_UNREACHABLE:
			return NH_RULE_UNREACHABLE;
		case FIB_RULE_PROHIBIT:
			return NH_PROHIBIT;
		default: { /* goto */
			unsigned int j = i + 1;
			while (j < n && l[j].priority < r->target)
				j++;
			i = j < n && l[j].priority == r->target ? j : i + 1;
		}
		}
	}
	return FIB_NH_NONE;
}

static struct pkt
random_pkt(const struct model *m)
{
	static const uint16_t ports[] = {0, 53, 80, 443, 1024, 65535};
	/* Addresses sharing the top 8 to 24 bits (IPv4) or 32 to 96 (IPv6)
	 * with a random key, random below. */
	static const uint8_t split4[] = {8, 16, 24}, split6[] = {32, 48, 64, 96};
	tkey_t host[2];
	for (int k = 0; k < 2; k++) {
		unsigned int split =
			m->af == FIB_AF_INET ? split4[tk_rnd() % 3] : split6[tk_rnd() % 4];
		host[k] = 0;
		for (int w = 0; w < 4; w++) /* one draw a statement, in order */
			host[k] = host[k] << 32 | tk_rnd();
		host[k] &= tk_mask(max_len(m->af)) & ~tk_mask(split);
	}
	struct pkt p;
	p.src = (tk_random(m->af, tk_rnd) & ~host[0]) | host[0];
	p.dst = (tk_random(m->af, tk_rnd) & ~host[1]) | host[1];
	p.flow = (struct fib_flow){0};
	p.flow.dscp = (uint8_t)(tk_rnd() % 3 == 0 ? 46 : tk_rnd() % 2 ? 10 : 0);
	p.flow.proto = (uint8_t)(tk_rnd() % 3 == 0 ? 1 : tk_rnd() % 2 ? 6 : 17);
	p.flow.iif = (uint16_t)(tk_rnd() % 3);
	p.flow.sport = ports[tk_rnd() % 6];
	p.flow.dport = ports[tk_rnd() % 6];
	/* Exactly a rule's source or destination now and then. */
	if (m->n > 0 && tk_rnd() % 4 == 0)
		p.src = tk_key(&m->r[tk_rnd() % m->n].src);
	if (m->n > 0 && tk_rnd() % 4 == 0)
		p.dst = tk_key(&m->r[tk_rnd() % m->n].dst);
	return p;
}

static void
check_packets(const struct fib *f, const struct model *m, unsigned int op)
{
	struct pkt p[PACKETS];
	struct fib_prefix s[PACKETS], d[PACKETS];
	uint32_t s4[PACKETS], d4[PACKETS], nh[PACKETS];
	const uint8_t *s6[PACKETS], *d6[PACKETS];
	struct fib_flow flow[PACKETS];
	const struct fib_table *t = fib_table_lookup(f, FIB_TABLE_MAIN);
	packets += PACKETS;
	for (unsigned int i = 0; i < PACKETS; i++) {
		p[i] = random_pkt(m);
		s[i] = tk_prefix(m->af, p[i].src, max_len(m->af));
		d[i] = tk_prefix(m->af, p[i].dst, max_len(m->af));
		s4[i] = s[i].addr.v4;
		d4[i] = d[i].addr.v4;
		s6[i] = s[i].addr.v6;
		d6[i] = d[i].addr.v6;
		flow[i] = p[i].flow;
	}
	if (m->af == FIB_AF_INET)
		fib_lookup4_bulk(t, d4, nh, PACKETS);
	else
		fib_lookup6_bulk(t, d6, nh, PACKETS);
	uint32_t want[PACKETS], one[PACKETS];
	bool active = fib_rules_active(f, m->af);
	assert_int_equal(active, walked(f, m));
	for (unsigned int i = 0; i < PACKETS; i++) {
		uint32_t table, got;
		want[i] = reference(f, m, &p[i], nh[i], &table);
		changed += want[i] != nh[i];
		/* Which table answered (route get fibmatch's question). */
		got = m->af == FIB_AF_INET ? fib_rule_table4(f, s4[i], d4[i], &flow[i], nh[i])
					   : fib_rule_table6(f, s6[i], d6[i], &flow[i], nh[i]);
		if (got != table)
			fail_msg("op %u, %u rules: packet %u answered by table %u, want %u", op,
				 m->n, i, got, table);
		one[i] = !active                ? nh[i]
			 : m->af == FIB_AF_INET ? fib_rule_route4(f, s4[i], d4[i], &flow[i], nh[i])
						: fib_rule_route6(f, s6[i], d6[i], &flow[i], nh[i]);
	}
	const struct fib_rule_set *set = fib_rules_get(f, m->af);
	assert_true((set != NULL) == active);
	if (set != NULL && m->af == FIB_AF_INET)
		fib_rule_route4_bulk(f, set, s4, d4, flow, nh, PACKETS);
	else if (set != NULL)
		fib_rule_route6_bulk(f, set, s6, d6, flow, nh, PACKETS);
	for (unsigned int i = 0; i < PACKETS; i++)
		if (one[i] != want[i] || nh[i] != want[i])
			fail_msg("op %u, %u rules: packet %u routed to %u (one) and %u (burst), "
				 "want %u",
				 op, m->n, i, one[i], nh[i], want[i]);
}

struct walk_acc {
	const struct model *m;
	struct fib_rule l[MAX_RULES + 1];
	unsigned int n, at;
};

static int
walk_cb(const struct fib_rule *r, void *arg)
{
	struct walk_acc *w = arg;
	assert_true(w->at < w->n);
	assert_true(same_rule(r, &w->l[w->at]));
	w->at++;
	return 0;
}

static void
random_route(struct fib *f, uint8_t af, bool add)
{
	static const uint32_t tables[] = {FIB_TABLE_MAIN, FIB_TABLE_MAIN, 100, 101,
					  FIB_TABLE_DEFAULT};
	static const uint8_t lens4[] = {0, 8, 16, 24, 28, 32}, lens6[] = {0, 16, 32, 48, 64, 128};
	unsigned int len = af == FIB_AF_INET ? lens4[tk_rnd() % 6] : lens6[tk_rnd() % 6];
	struct fib_route r = {.dst = random_prefix(af, len)};
	r.table = tables[tk_rnd() % 5];
	unsigned int k = tk_rnd() % 10;
	r.type = k < 7   ? FIB_RT_UNICAST
		 : k < 8 ? FIB_RT_LOCAL
		 : k < 9 ? FIB_RT_UNREACHABLE
			 : FIB_RT_THROW;
	r.nh = r.type == FIB_RT_UNICAST ? 1 + tk_rnd() % 12 : 0;
	int rc = add ? fib_route_replace(f, &r) : fib_route_del(f, &r, true);
	assert_true(rc == 0 || (!add && rc == -ENOENT));
}

static void
run(uint8_t af, unsigned int s)
{
	struct fib_conf c = test_conf();
	c.rule_unreachable_nh = NH_RULE_UNREACHABLE;
	struct fib *f = fib_create(&c);
	assert_non_null(f);
	static struct model m;
	memset(&m, 0, sizeof(m));
	m.af = af;
	m.n = fib_rule_defaults(af, m.r);
	unsigned int used = tk_srand(s);
	for (int i = 0; i < 300; i++)
		random_route(f, af, true);
	unsigned int added = 0, refused = 0, gotos = 0;
	for (unsigned int op = 0; op < OPS; op++) {
		unsigned int dice = tk_rnd() % 100;
		/* Phases of 500 operations grow the rules and take them back
		 * down, through the defaults alone and no rule at all. */
		unsigned int adds = (op / 500) % 2 ? 15 : 45;
		if (dice < adds && m.n < MAX_RULES) {
			struct fib_rule r = random_rule(af);
			bool dup = false;
			for (unsigned int i = 0; i < m.n; i++)
				dup |= same_rule(&m.r[i], &r);
			int rc = fib_rule_add(f, &r);
			if (rc != (dup ? -EEXIST : 0))
				fail_msg("op %u: rule add gave %d, want %d", op, rc,
					 dup ? -EEXIST : 0);
			if (rc == 0) {
				/* After every rule of its priority or lower. */
				unsigned int at = m.n;
				while (at > 0 && m.r[at - 1].priority > r.priority)
					at--;
				memmove(&m.r[at + 1], &m.r[at], sizeof(m.r[0]) * (m.n - at));
				m.r[at] = r;
				m.n++;
				added++;
				gotos += r.action == FIB_RULE_GOTO;
			} else {
				refused++;
			}
		} else if (dice < 80) {
			/* Delete: mostly a rule that exists, found by an equal
			 * copy (the table given as 0 or 254 alike). */
			struct fib_rule r = random_rule(af);
			if (m.n > 0 && tk_rnd() % 5 != 0) {
				r = m.r[tk_rnd() % m.n];
				if (r.action == FIB_RULE_TABLE && table_of(&r) == FIB_TABLE_MAIN)
					r.table = tk_rnd() % 2 ? 0 : FIB_TABLE_MAIN;
			}
			int at = -1;
			for (unsigned int i = 0; i < m.n && at < 0; i++)
				if (same_rule(&m.r[i], &r))
					at = (int)i;
			int rc = fib_rule_del(f, &r);
			if (rc != (at >= 0 ? 0 : -ENOENT))
				fail_msg("op %u: rule del gave %d, want %d", op, rc,
					 at >= 0 ? 0 : -ENOENT);
			if (at >= 0) {
				memmove(&m.r[at], &m.r[at + 1], sizeof(m.r[0]) * (m.n - at - 1));
				m.n--;
			}
		} else {
			random_route(f, af, dice < 92);
		}
		check_packets(f, &m, op);
		bool has_main = false;
		for (unsigned int i = 0; i < m.n; i++) {
			struct fib_rule a[2];
			(void)fib_rule_defaults(af, a);
			a[0].priority = m.r[i].priority; /* main's rule, at any priority */
			has_main |= same_rule(&m.r[i], &a[0]);
		}
		states[0] += m.n == 0;
		states[1] += !has_main;
		states[2] += !walked(f, &m);
		if (op % 100 == 0) {
			static struct walk_acc w;
			w.m = &m;
			w.n = ordered(&m, w.l);
			w.at = 0;
			assert_int_equal(fib_rule_walk(f, af, walk_cb, &w), 0);
			assert_int_equal(w.at, w.n);
		}
	}
	print_message("IPv%c seed %u: %u rules added (%u gotos), %u refused as duplicates, %u "
		      "at the end\n",
		      af == FIB_AF_INET ? '4' : '6', used, added, gotos, refused, m.n);
	all_refused += refused;
	all_gotos += gotos;
	fib_free(f);
}

static void
test_random_rules(void **state)
{
	(void)state;
	for (unsigned int s = 1; s <= 3; s++) {
		run(FIB_AF_INET, s);
		run(FIB_AF_INET6, s);
	}
	/* The rules must decide often enough for the comparison to mean
	 * something. */
	print_message("%lu of %lu packets answered otherwise than by main\n", changed, packets);
	assert_true(changed > packets / 5);
	assert_true(all_refused > 0 && all_gotos > 0);
	print_message("operations after which there was no rule: %lu, no main rule for all: %lu, "
		      "no rule set: %lu\n",
		      states[0], states[1], states[2]);
	assert_true(states[0] > 0 && states[1] > 0 && states[2] > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_rules),
	};
	return cmocka_run_group_tests_name("fib_rules_model", tests, NULL, NULL);
}
