/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Policy rules, the writer's side: each family's rules, Linux's defaults
 * among them, in a sorted array; every change validates, compiles a new
 * immutable rule_set for the readers, publishes it with one release
 * store and retires the old one through the defer queue. While main's
 * answer is the rules' answer (the defaults alone, table default empty)
 * the published set is NULL and the datapath skips this layer: one
 * pointer test per burst. The readers' walks are rules_match.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include "fib_priv.h"
#include "table.h"

static void
free_set(void *ctx, uint32_t arg)
{
	(void)arg;
	free(ctx);
}

void
rules_fini(struct fib *fib)
{
	for (int f = 0; f < 2; f++) {
		free(fib->rule_list[f].r);
		fib->rule_list[f] = (struct rule_list){0};
		free(fib->rules[f]);
		fib->rules[f] = NULL;
	}
}

static fib_key_t
addr_key(const struct fib_prefix *p)
{
	return p->family == FIB_AF_INET ? key_from_v4(p->addr.v4) : key_from_v6(p->addr.v6);
}

/* A rule for every packet of the family, looking table up. */
static struct fib_rule
all_rule(uint8_t af, uint32_t priority, uint32_t table)
{
	return (struct fib_rule){.priority = priority,
				 .family = af,
				 .action = FIB_RULE_TABLE,
				 .dscp = FIB_DSCP_ANY,
				 .iif = FIB_IIF_ANY,
				 .src = {.family = af},
				 .dst = {.family = af},
				 .table = table,
				 .sport_hi = 0xffff,
				 .dport_hi = 0xffff};
}

uint32_t
fib_rule_defaults(uint8_t af, struct fib_rule out[2])
{
	out[0] = all_rule(af, FIB_RULE_PRIO_MAIN, FIB_TABLE_MAIN);
	out[1] = all_rule(af, FIB_RULE_PRIO_DEFAULT, FIB_TABLE_DEFAULT);
	return af == FIB_AF_INET ? 2 : 1;
}

_Static_assert(sizeof(struct rule_rt4) == 64, "an IPv4 rule is one line of its set");

/* Port ranges as stored: 0-0 is "any". */
static inline uint16_t
port_hi(uint16_t lo, uint16_t hi)
{
	return lo == 0 && hi == 0 ? 0xffff : hi;
}

static int
compile_act(struct fib *fib, const struct fib_rule *in, struct rule_act *out)
{
	memset(out, 0, sizeof(*out));
	struct fib_flow mask = {.dscp = in->dscp != FIB_DSCP_ANY ? 0xff : 0,
				.proto = in->ipproto ? 0xff : 0,
				.iif = in->iif != FIB_IIF_ANY ? 0xffff : 0};
	struct fib_flow val = {.dscp = in->dscp, .proto = in->ipproto, .iif = in->iif};
	out->meta_mask = rule_flow_word(&mask);
	out->meta = rule_flow_word(&val) & out->meta_mask;
	out->sport_lo = in->sport_lo;
	out->sport_span = (uint16_t)(port_hi(in->sport_lo, in->sport_hi) - in->sport_lo);
	out->dport_lo = in->dport_lo;
	out->dport_span = (uint16_t)(port_hi(in->dport_lo, in->dport_hi) - in->dport_lo);
	out->action = in->action;
	switch (in->action) {
	case FIB_RULE_TABLE:
		/* Table default is made by its first route only, so that the
		 * default rule costs nothing while it is not used: until then
		 * the rule is skipped, a goto to the next (publish()). */
		if (in->table == FIB_TABLE_DEFAULT) {
			out->table = fib_table_lookup(fib, FIB_TABLE_DEFAULT);
			if (out->table == NULL)
				out->action = FIB_RULE_GOTO;
			return 0;
		}
		out->table = fib_table_get_or_create(fib, in->table ? in->table : FIB_TABLE_MAIN);
		return out->table ? 0 : -ENOMEM;
	case FIB_RULE_BLACKHOLE:
		out->result = fib->conf.type_nh[FIB_RT_BLACKHOLE];
		return 0;
	case FIB_RULE_UNREACHABLE:
		out->result = fib->conf.rule_unreachable_nh ? fib->conf.rule_unreachable_nh
							    : fib->conf.type_nh[FIB_RT_UNREACHABLE];
		return 0;
	case FIB_RULE_GOTO:
		out->result = FIB_NH_NONE; /* publish() resolves next */
		return 0;
	default:
		out->result = fib->conf.type_nh[FIB_RT_PROHIBIT];
		return 0;
	}
}

static uint32_t
mask4(uint8_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

static void
compile4(const struct fib_rule *in, struct rule_rt4 *out)
{
	out->src_mask = mask4(in->src.len);
	out->src = in->src.addr.v4 & out->src_mask;
	out->dst_mask = mask4(in->dst.len);
	out->dst = in->dst.addr.v4 & out->dst_mask;
}

static void
compile6(const struct fib_rule *in, struct rule_rt6 *out)
{
	out->src_mask = ~key_host_mask(in->src.len);
	out->src = addr_key(&in->src) & out->src_mask;
	out->dst_mask = ~key_host_mask(in->dst.len);
	out->dst = addr_key(&in->dst) & out->dst_mask;
}

static bool rule_equal(const struct fib_rule *a, const struct fib_rule *b);

/* Are a family's rules its defaults, and nothing else? */
static bool
pristine(const struct rule_list *l, uint8_t af)
{
	struct fib_rule d[2];
	uint32_t nd = fib_rule_defaults(af, d);
	if (l->n != nd)
		return false;
	for (uint32_t i = 0; i < nd; i++)
		if (!rule_equal(&l->r[i], &d[i]))
			return false;
	return true;
}

int
fib_rule_default(const struct fib_rule *r)
{
	struct fib_rule d[2];
	if (r == NULL || (r->family != FIB_AF_INET && r->family != FIB_AF_INET6))
		return -1;
	uint32_t nd = fib_rule_defaults(r->family, d);
	for (uint32_t i = 0; i < nd; i++)
		if (rule_equal(r, &d[i]))
			return (int)i;
	return -1;
}

/* Does rule r look main up for every packet, as the default 32766? */
static bool
main_for_all(const struct fib_rule *r)
{
	struct fib_rule m = all_rule(r->family, r->priority, FIB_TABLE_MAIN);
	return rule_equal(r, &m);
}

/* Build and publish the readers' set for a family's current list. */
static int
publish(struct fib *fib, unsigned int f, uint8_t af)
{
	const struct rule_list *l = &fib->rule_list[f];
	struct fib_rule_set *s = NULL;
	/* The defaults need no set while table default is empty (IPv6's
	 * main rule alone never does): main's answer stands. */
	if (!pristine(l, af) ||
	    (af == FIB_AF_INET && fib_route_count(fib, FIB_TABLE_DEFAULT, af) > 0)) {
		/* The rules start on the line after the header; one more
		 * for the sentinel. */
		size_t each = af == FIB_AF_INET ? sizeof(struct rule_rt4) : sizeof(struct rule_rt6);
		size_t sz = 64 + each * (l->n + 1);
		s = aligned_alloc(64, (sz + 63) & ~(size_t)63);
		if (s == NULL)
			return -ENOMEM;
		memset(s, 0, sz);
		struct rule_rt4 *r4 = af == FIB_AF_INET ? (void *)((char *)s + 64) : NULL;
		struct rule_rt6 *r6 = af == FIB_AF_INET ? NULL : (void *)((char *)s + 64);
		*s = (struct fib_rule_set){.n = l->n, .main_at = l->n, .r4 = r4, .r6 = r6};
		for (uint32_t i = 0; i < s->n; i++) {
			const struct fib_rule *in = &l->r[i];
			if (s->main_at == s->n && main_for_all(in))
				s->main_at = i;
			s->ports |= in->sport_lo != 0 ||
				    port_hi(in->sport_lo, in->sport_hi) != 0xffff ||
				    in->dport_lo != 0 ||
				    port_hi(in->dport_lo, in->dport_hi) != 0xffff;
			struct rule_act *a = r4 ? &r4[i].a : &r6[i].a;
			int rc = compile_act(fib, in, a);
			if (rc < 0) {
				free(s);
				return rc;
			}
			if (r4)
				compile4(in, &r4[i]);
			else
				compile6(in, &r6[i]);
			/* Gotos: the first rule of the target priority, in
			 * order (the rules after i, since the target is above
			 * i's priority), or the next rule while there is none
			 * (and for a rule skipped: compile_act). Resolved again
			 * at every change, so a goto follows its target's
			 * coming and going. */
			a->next = i + 1;
			if (in->action != FIB_RULE_GOTO)
				continue;
			for (uint32_t j = i + 1; j < s->n; j++) {
				uint32_t prio = l->r[j].priority;
				if (prio >= in->target) {
					if (prio == in->target)
						a->next = j;
					break;
				}
			}
		}
		s->main_last = s->main_at < s->n;
		for (uint32_t j = s->main_at + 1; s->main_last && j < s->n; j++)
			s->main_last = (r4 ? r4[j].a.action : r6[j].a.action) == FIB_RULE_GOTO;
		/* The sentinel, where no rule matched (possible once main's
		 * is deleted): no route, as Linux's lookup that no rule
		 * answers. Read as a match's result, never compared. */
		struct rule_act *end = r4 ? &r4[s->n].a : &r6[s->n].a;
		end->action = FIB_RULE_UNREACHABLE;
		end->result = FIB_NH_NONE;
	}
	if (defer_reserve(&fib->defer, 1) < 0) {
		free(s);
		return -ENOMEM;
	}
	struct fib_rule_set *old = fib->rules[f];
	/* Release: a reader that loads the pointer sees the compiled rules. */
	__atomic_store_n(&fib->rules[f], s, __ATOMIC_RELEASE);
	if (old != NULL)
		(void)defer_push(&fib->defer, free_set, old, 0);
	return 0;
}

int
rules_default_table_changed(struct fib *fib)
{
	int rc = publish(fib, 0, FIB_AF_INET);
	return rc < 0 ? rc : publish(fib, 1, FIB_AF_INET6);
}

int
rules_init(struct fib *fib)
{
	for (unsigned int f = 0; f < 2; f++) {
		uint8_t af = f ? FIB_AF_INET6 : FIB_AF_INET;
		struct rule_list *l = &fib->rule_list[f];
		l->r = malloc(sizeof(l->r[0]) * 8);
		if (l->r == NULL)
			return -ENOMEM;
		l->cap = 8;
		l->n = fib_rule_defaults(af, l->r);
	}
	return 0;
}

static int
rule_valid(const struct fib_rule *r)
{
	unsigned int max = r->family == FIB_AF_INET ? 32 : 128;
	if (r->family != FIB_AF_INET && r->family != FIB_AF_INET6)
		return 0;
	if (r->src.len > max || r->dst.len > max || r->action > FIB_RULE_GOTO)
		return 0;
	if (r->action == FIB_RULE_GOTO && r->target <= r->priority)
		return 0; /* backward jumps could loop: Linux refuses them too */
	if ((r->src.len && r->src.family != r->family) ||
	    (r->dst.len && r->dst.family != r->family))
		return 0;
	if (port_hi(r->sport_lo, r->sport_hi) < r->sport_lo ||
	    port_hi(r->dport_lo, r->dport_hi) < r->dport_lo)
		return 0;
	return r->dscp < 64 || r->dscp == FIB_DSCP_ANY;
}

static bool
prefix_equal(const struct fib_prefix *a, const struct fib_prefix *b)
{
	if (a->len != b->len)
		return false;
	if (a->len == 0)
		return true;
	fib_key_t m = ~key_host_mask(a->len);
	return (addr_key(a) & m) == (addr_key(b) & m);
}

static bool
rule_equal(const struct fib_rule *a, const struct fib_rule *b)
{
	uint32_t ta = a->action == FIB_RULE_TABLE ? (a->table ? a->table : FIB_TABLE_MAIN) : 0;
	uint32_t tb = b->action == FIB_RULE_TABLE ? (b->table ? b->table : FIB_TABLE_MAIN) : 0;
	if (a->action == FIB_RULE_GOTO && b->action == FIB_RULE_GOTO && a->target != b->target)
		return false;
	return a->priority == b->priority && a->action == b->action && a->dscp == b->dscp &&
	       a->iif == b->iif && ta == tb && prefix_equal(&a->src, &b->src) &&
	       prefix_equal(&a->dst, &b->dst) && a->ipproto == b->ipproto &&
	       a->sport_lo == b->sport_lo && a->dport_lo == b->dport_lo &&
	       port_hi(a->sport_lo, a->sport_hi) == port_hi(b->sport_lo, b->sport_hi) &&
	       port_hi(a->dport_lo, a->dport_hi) == port_hi(b->dport_lo, b->dport_hi);
}

int
fib_rule_add(struct fib *fib, const struct fib_rule *rule)
{
	if (rule == NULL || !rule_valid(rule))
		return -EINVAL;
	unsigned int f = family_index(rule->family);
	struct rule_list *l = &fib->rule_list[f];
	uint32_t pos = 0;
	for (uint32_t i = 0; i < l->n; i++) {
		if (rule_equal(&l->r[i], rule))
			return -EEXIST;
		if (l->r[i].priority <= rule->priority)
			pos = i + 1;
	}
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 8;
		struct fib_rule *r = realloc(l->r, sizeof(*r) * cap);
		if (r == NULL)
			return -ENOMEM;
		l->r = r;
		l->cap = cap;
	}
	memmove(&l->r[pos + 1], &l->r[pos], sizeof(l->r[0]) * (l->n - pos));
	l->r[pos] = *rule;
	if (rule->action == FIB_RULE_TABLE && rule->table == 0)
		l->r[pos].table = FIB_TABLE_MAIN; /* walks name it as the defaults do */
	l->n++;
	int rc = publish(fib, f, rule->family);
	if (rc < 0) {
		l->n--;
		memmove(&l->r[pos], &l->r[pos + 1], sizeof(l->r[0]) * (l->n - pos));
	}
	return rc;
}

int
fib_rule_del(struct fib *fib, const struct fib_rule *rule)
{
	if (rule == NULL || !rule_valid(rule))
		return -EINVAL;
	unsigned int f = family_index(rule->family);
	struct rule_list *l = &fib->rule_list[f];
	for (uint32_t i = 0; i < l->n; i++) {
		if (!rule_equal(&l->r[i], rule))
			continue;
		struct fib_rule saved = l->r[i];
		memmove(&l->r[i], &l->r[i + 1], sizeof(l->r[0]) * (l->n - i - 1));
		l->n--;
		int rc = publish(fib, f, rule->family);
		if (rc < 0) {
			memmove(&l->r[i + 1], &l->r[i], sizeof(l->r[0]) * (l->n - i));
			l->r[i] = saved;
			l->n++;
		}
		return rc;
	}
	return -ENOENT;
}

int
fib_rule_walk(const struct fib *fib, uint8_t family, fib_rule_cb cb, void *arg)
{
	if (cb == NULL || (family != FIB_AF_INET && family != FIB_AF_INET6))
		return -EINVAL;
	const struct rule_list *l = &fib->rule_list[family_index(family)];
	for (uint32_t i = 0; i < l->n; i++) {
		int rc = cb(&l->r[i], arg);
		if (rc)
			return rc;
	}
	return 0;
}
