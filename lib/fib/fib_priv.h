/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FIB_PRIV_H
#define FIB_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "defer.h"
#include "fib.h"
#include "key.h"

struct fib_table;

/* Tables by id, sorted; replaced whole (copy, publish, defer) on change. */
struct table_set {
	uint32_t n;
	struct {
		uint32_t id;
		struct fib_table *t;
	} e[];
};

/* A rule's selectors other than addresses, and its action. A packet's
 * struct fib_flow, read as one 64-bit word, is compared under a mask
 * (zero where a selector is "any") for the input port, DSCP and
 * protocol, and its ports against ranges (lo and hi - lo: "any" is 0 and
 * 65535), so that a rule matches when every term below is zero: one
 * branch a rule. */
struct rule_act {
	const struct fib_table *table; /* FIB_RULE_TABLE */
	uint64_t meta, meta_mask;
	uint32_t result; /* other actions: the type's nexthop (none for goto) */
	uint16_t sport_lo, sport_span, dport_lo, dport_span;
	uint32_t next; /* FIB_RULE_GOTO: the rule to go on at (the next while unresolved) */
	uint8_t action;
};

/* An IPv4 rule as readers evaluate it: 32-bit selectors, 64 bytes, one
 * line of the 64-byte aligned set (the 128-bit keys of IPv6 rules made
 * IPv4 rules twice as large). */
struct rule_rt4 {
	uint32_t src, src_mask, dst, dst_mask;
	struct rule_act a;
};

/* An IPv6 rule: 64 bytes of selectors, one line, then the action. */
struct rule_rt6 {
	fib_key_t src, src_mask;
	fib_key_t dst, dst_mask;
	struct rule_act a;
};

/* A packet's flow as one word, as rule_act matches it. */
_Static_assert(sizeof(struct fib_flow) == 8, "struct fib_flow is read as one word");
static inline uint64_t
rule_flow_word(const struct fib_flow *f)
{
	uint64_t w;
	memcpy(&w, f, sizeof(w));
	return w;
}

/* The rules of one family in evaluation order, in the one block that
 * holds this header: r4 for an IPv4 set, r6 for an IPv6 one, each with
 * n + 1 entries, the last a sentinel that answers "no route" (where no
 * rule matched). Immutable once published. */
struct fib_rule_set {
	uint32_t n;
	/* The first rule that looks main up for every packet (the default
	 * 32766, unless deleted), n if none: a packet that passes the rules
	 * before it takes main's answer, which it comes with. */
	uint32_t main_at;
	bool ports; /* some rule selects by port: only then are ports compared */
	/* No rule after main_at can answer (only gotos, and the default rule
	 * while its table does not exist): main's "no route" is final. */
	bool main_last;
	const struct rule_rt4 *r4;
	const struct rule_rt6 *r6;
};

struct rule_list {
	struct fib_rule *r; /* all rules, the defaults included, by priority, then age */
	uint32_t n, cap;
};

struct fib {
	/* Read by readers: written only when tables or rules change. */
	struct table_set *tables;
	struct fib_rule_set *rules[2]; /* [0] IPv4, [1] IPv6; NULL: main's answer stands */
	struct fib_table *main;
	uint32_t local_nh;
	/* Writer only. */
	_Alignas(64) struct fib_conf conf;
	struct defer defer;
	struct rule_list rule_list[2];
};

/* Writer: the table with this id, created if absent; NULL if out of memory. */
struct fib_table *fib_table_get_or_create(struct fib *fib, uint32_t id);
/* Writer: each family's default rules (Linux's, less local's). @return 0
 * or -ENOMEM. */
int rules_init(struct fib *fib);
/* Writer: free the rules. */
void rules_fini(struct fib *fib);
/* Writer: table default's routes of a family went from none to some or
 * back, or the table was made: publish both families' sets again (the
 * default rule is skipped while the table does not exist, and IPv4's
 * defaults need no set while it is empty). @return 0 or -ENOMEM. */
int rules_default_table_changed(struct fib *fib);

static inline unsigned int
family_index(uint8_t af)
{
	return af == FIB_AF_INET6;
}

#endif
