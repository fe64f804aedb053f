/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Policy rules. The writer keeps each family's custom rules in a sorted
 * array; every change compiles a new immutable rule_set for the readers,
 * publishes it with one release store and retires the old one through
 * the defer queue. With no custom rule the published set is NULL and the
 * datapath skips this layer: one pointer test per burst.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static struct fib_rule
main_rule(uint8_t af)
{
	return (struct fib_rule){.priority = FIB_RULE_PRIO_MAIN,
				 .family = af,
				 .action = FIB_RULE_TABLE,
				 .dscp = FIB_DSCP_ANY,
				 .iif = FIB_IIF_ANY,
				 .src = {.family = af},
				 .dst = {.family = af},
				 .table = FIB_TABLE_MAIN};
}

static int
compile(struct fib *fib, const struct fib_rule *in, struct rule_rt *out)
{
	memset(out, 0, sizeof(*out));
	out->src_mask = ~key_host_mask(in->src.len);
	out->src = addr_key(&in->src) & out->src_mask;
	out->dst_mask = ~key_host_mask(in->dst.len);
	out->dst = addr_key(&in->dst) & out->dst_mask;
	out->iif = in->iif;
	out->dscp = in->dscp;
	out->action = in->action;
	switch (in->action) {
	case FIB_RULE_TABLE:
		out->table = fib_table_get_or_create(fib, in->table ? in->table : FIB_TABLE_MAIN);
		return out->table ? 0 : -ENOMEM;
	case FIB_RULE_BLACKHOLE:
		out->result = fib->conf.type_nh[FIB_RT_BLACKHOLE];
		return 0;
	case FIB_RULE_UNREACHABLE:
		out->result = fib->conf.rule_unreachable_nh ? fib->conf.rule_unreachable_nh
							    : fib->conf.type_nh[FIB_RT_UNREACHABLE];
		return 0;
	default:
		out->result = fib->conf.type_nh[FIB_RT_PROHIBIT];
		return 0;
	}
}

/* The i-th of the n + 1 rules of a family in evaluation order: the custom
 * rules with the implicit main rule merged in before any custom rule of
 * its priority (it is the oldest). */
static const struct fib_rule *
ordered(const struct rule_list *l, const struct fib_rule *main, uint32_t i)
{
	uint32_t before = 0;
	while (before < l->n && l->r[before].priority < main->priority)
		before++;
	if (i < before)
		return &l->r[i];
	return i == before ? main : &l->r[i - 1];
}

/* Build and publish the readers' set for a family's current list. */
static int
publish(struct fib *fib, unsigned int f, uint8_t af)
{
	const struct rule_list *l = &fib->rule_list[f];
	struct fib_rule m = main_rule(af);
	struct rule_set *s = NULL;
	if (l->n > 0) {
		size_t sz = sizeof(*s) + sizeof(s->r[0]) * (l->n + 1);
		s = aligned_alloc(64, (sz + 63) & ~(size_t)63);
		if (s == NULL)
			return -ENOMEM;
		s->n = l->n + 1;
		for (uint32_t i = 0; i < s->n; i++) {
			int rc = compile(fib, ordered(l, &m, i), &s->r[i]);
			if (rc < 0) {
				free(s);
				return rc;
			}
		}
	}
	if (defer_reserve(&fib->defer, 1) < 0) {
		free(s);
		return -ENOMEM;
	}
	struct rule_set *old = fib->rules[f];
	/* Release: a reader that loads the pointer sees the compiled rules. */
	__atomic_store_n(&fib->rules[f], s, __ATOMIC_RELEASE);
	if (old != NULL)
		(void)defer_push(&fib->defer, free_set, old, 0);
	return 0;
}

static int
rule_valid(const struct fib_rule *r)
{
	unsigned int max = r->family == FIB_AF_INET ? 32 : 128;
	if (r->family != FIB_AF_INET && r->family != FIB_AF_INET6)
		return 0;
	if (r->src.len > max || r->dst.len > max || r->action > FIB_RULE_PROHIBIT)
		return 0;
	if ((r->src.len && r->src.family != r->family) ||
	    (r->dst.len && r->dst.family != r->family))
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
	return a->priority == b->priority && a->action == b->action && a->dscp == b->dscp &&
	       a->iif == b->iif && ta == tb && prefix_equal(&a->src, &b->src) &&
	       prefix_equal(&a->dst, &b->dst);
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
	struct fib_rule m = main_rule(family);
	for (uint32_t i = 0; i <= l->n; i++) {
		int rc = cb(ordered(l, &m, i), arg);
		if (rc)
			return rc;
	}
	return 0;
}

bool
fib_rules_active(const struct fib *fib, uint8_t family)
{
	return __atomic_load_n(&fib->rules[family_index(family)], __ATOMIC_RELAXED) != NULL;
}

/* The first rule matching the packet, from index i on; n when none. */
static uint32_t
next_match(const struct rule_set *s, uint32_t i, fib_key_t src, fib_key_t dst, uint16_t iif,
	   uint8_t dscp)
{
	for (; i < s->n; i++) {
		const struct rule_rt *r = &s->r[i];
		if ((src & r->src_mask) == r->src && (dst & r->dst_mask) == r->dst &&
		    (r->iif == FIB_IIF_ANY || r->iif == iif) &&
		    (r->dscp == FIB_DSCP_ANY || r->dscp == dscp))
			break;
	}
	return i;
}

/*
 * The rules of one family, for a packet whose main-table answer is
 * main_nh: the first matching rule decides, a table rule whose table has
 * no route falls through. IPv4 addresses come in src4 and dst4, IPv6 ones
 * in src6 and dst6 (NULL for IPv4). The keys are built only when a rule
 * set is there to match them.
 */
static inline uint32_t
rule_route(const struct fib *fib, uint32_t src4, uint32_t dst4, const uint8_t *src6,
	   const uint8_t *dst6, uint16_t iif, uint8_t dscp, uint32_t main_nh)
{
	/* Local delivery first, as Linux's rule 0 "lookup local". */
	if (main_nh == fib->local_nh)
		return main_nh;
	/* Acquire: the set's contents were written before its pointer. */
	const struct rule_set *s = __atomic_load_n(&fib->rules[dst6 != NULL], __ATOMIC_ACQUIRE);
	if (s == NULL)
		return main_nh;
	fib_key_t ks = dst6 ? key_from_v6(src6) : key_from_v4(src4);
	fib_key_t kd = dst6 ? key_from_v6(dst6) : key_from_v4(dst4);
	for (uint32_t i = next_match(s, 0, ks, kd, iif, dscp); i < s->n;
	     i = next_match(s, i + 1, ks, kd, iif, dscp)) {
		const struct rule_rt *r = &s->r[i];
		if (r->action != FIB_RULE_TABLE)
			return r->result;
		uint32_t nh = r->table == fib->main ? main_nh
			      : dst6 == NULL        ? fib_lookup4(r->table, dst4)
						    : fib_lookup6(r->table, dst6);
		if (nh != FIB_NH_NONE)
			return nh;
	}
	return FIB_NH_NONE;
}

uint32_t
fib_rule_route4(const struct fib *fib, uint32_t src, uint32_t dst, uint16_t iif, uint8_t dscp,
		uint32_t main_nh)
{
	return rule_route(fib, src, dst, NULL, NULL, iif, dscp, main_nh);
}

uint32_t
fib_rule_route6(const struct fib *fib, const uint8_t src[16], const uint8_t dst[16], uint16_t iif,
		uint8_t dscp, uint32_t main_nh)
{
	return rule_route(fib, 0, 0, src, dst, iif, dscp, main_nh);
}
