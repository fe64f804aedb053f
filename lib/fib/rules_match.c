/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Policy rules, the readers' side: the walks that find a packet's first
 * matching rule in a published rule_set (rules.c compiles them) and the
 * answer of the table it names. Readers hold nothing across a quiescent
 * state: a set is loaded once a burst (acquire) and read while it lasts;
 * the writer frees a replaced one only after every reader has passed a
 * quiescent state. No lock, no write to shared memory.
 *
 * Compiled twice (isa.h): the burst walks for the build's target and for
 * AVX-512, the rest once.
 */
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#define RULES_X16 16 /* packets match4_x16 compares with a rule at once */
#endif
/* Packets of a burst whose first matches match4_x16 finds at once (a
 * multiple of its 32-packet step, and of bits in its result). */
#define RULE_CHUNK 64

#include "fib_priv.h"
#include "isa.h"
#include "table.h"

/* What the readers of one family's rules keep in registers for a burst:
 * loaded once, after the acquire load of the set. */
struct rule_walk {
	const struct rule_rt4 *r4;
	const struct rule_rt6 *r6;
	uint32_t n, main_at;
	uint32_t local_nh;
	bool ports, main_last;
	const struct fib_table *main;
};

#ifndef FIB_ISA_AVX512
bool
fib_rules_active(const struct fib *fib, uint8_t family)
{
	return __atomic_load_n(&fib->rules[family_index(family)], __ATOMIC_RELAXED) != NULL;
}

const struct fib_rule_set *
fib_rules_get(const struct fib *fib, uint8_t family)
{
	/* Acquire: the set's contents were written before its pointer. */
	return __atomic_load_n(&fib->rules[family_index(family)], __ATOMIC_ACQUIRE);
}

bool
fib_rule_set_ports(const struct fib_rule_set *rules)
{
	return rules->ports;
}
#endif

static inline void
walk_from(const struct fib *fib, const struct fib_rule_set *s, struct rule_walk *w)
{
	*w = (struct rule_walk){.r4 = s->r4,
				.r6 = s->r6,
				.n = s->n,
				.main_at = s->main_at,
				.local_nh = fib->local_nh,
				.ports = s->ports,
				.main_last = s->main_last,
				.main = fib->main};
}

/* @return false while the family has no set: main's answer stands. */
static inline bool
walk_start(const struct fib *fib, uint8_t af, struct rule_walk *w)
{
	const struct fib_rule_set *s = fib_rules_get(fib, af);
	if (s == NULL)
		return false;
	walk_from(fib, s, w);
	return true;
}

/* A packet's selectors other than addresses, as the walk compares
 * them. */
struct rule_pkt {
	uint64_t meta;
	uint16_t sport, dport;
};

static inline struct rule_pkt
rule_pkt(const struct fib_flow *f)
{
	return (struct rule_pkt){rule_flow_word(f), f->sport, f->dport};
}

/* Nonzero when a rule's selectors other than addresses reject p. The
 * port ranges are compared only when some rule of the set has one
 * (ports: a constant in each specialised loop): a packet of a set
 * without them saves four operations a rule. */
static inline uint64_t
act_miss(const struct rule_act *a, const struct rule_pkt *p, bool ports)
{
	uint64_t miss = (p->meta & a->meta_mask) ^ a->meta;
	if (ports)
		miss |= (uint64_t)((uint16_t)(p->sport - a->sport_lo) > a->sport_span) |
			(uint64_t)((uint16_t)(p->dport - a->dport_lo) > a->dport_span);
	return miss;
}

/* The first rule in [i, end) whose selectors all match (one branch a
 * rule), or end. */
static inline uint32_t
match4(const struct rule_walk *w, uint32_t i, uint32_t end, uint32_t src, uint32_t dst,
       const struct rule_pkt *p, bool ports)
{
	for (; i < end; i++) {
		const struct rule_rt4 *r = &w->r4[i];
		if ((((src & r->src_mask) ^ r->src) | ((dst & r->dst_mask) ^ r->dst) |
		     act_miss(&r->a, p, ports)) == 0)
			break;
	}
	return i;
}

static inline uint32_t
match6(const struct rule_walk *w, uint32_t i, uint32_t end, fib_key_t src, fib_key_t dst,
       const struct rule_pkt *p, bool ports)
{
	for (; i < end; i++) {
		const struct rule_rt6 *r = &w->r6[i];
		if ((src & r->src_mask) == r->src && (dst & r->dst_mask) == r->dst &&
		    act_miss(&r->a, p, ports) == 0)
			break;
	}
	return i;
}

#ifdef RULES_X16
/*
 * match4(w, 0, main_at, ...) for each of n packets, 32 a step: each rule
 * is compared with 32 packets at once (their sources, destinations and
 * flow words in vector registers, a rule's fields broadcast once for
 * all 32), so that a rule costs well under an instruction a packet
 * instead of eight, and the step stops at the first rule after which
 * no packet is left undecided. A rule's compares do not wait for the
 * previous rule's: only the "still open" masks chain from rule to rule.
 * @return the packets (n at most 64, bit i for packet i) that a rule
 * before main_at matched: first[i] holds that rule, the others match
 * main_at, which their caller knows without reading first[] (read right
 * after the vector stores, it could wait for them). One piece on purpose:
 * its loop keeps the 32 packets' fields and masks in vector registers
 * from rule to rule, which calls between its parts would spill.
 */
static inline uint64_t
match4_x16(const struct rule_walk *w, const uint32_t *src, const uint32_t *dst,
	   const struct fib_flow *flow, uint32_t *first, unsigned int n, bool ports)
{
	enum { G = 2 }; /* groups of 16 packets a step */
	const __m512i low16 = _mm512_set1_epi64(0xffff);
	uint64_t decided = 0;
	for (unsigned int i = 0; i < n; i += G * RULES_X16) {
		__m512i s[G], d[G], f[2 * G], at[G];
		__mmask16 live[G], open[G];
		__mmask16 any = 0;
		for (int g = 0; g < G; g++) {
			unsigned int o = i + g * RULES_X16;
			unsigned int left = n > o ? n - o : 0;
			live[g] = left >= RULES_X16 ? 0xffff : (__mmask16)((1u << left) - 1);
			at[g] = _mm512_set1_epi32((int)w->main_at);
			open[g] = live[g];
			any |= live[g];
			if (left == 0) { /* no pointer past the burst, even unread */
				s[g] = d[g] = f[2 * g] = f[2 * g + 1] = _mm512_setzero_si512();
				continue;
			}
			s[g] = _mm512_maskz_loadu_epi32(live[g], src + o);
			d[g] = _mm512_maskz_loadu_epi32(live[g], dst + o);
			f[2 * g] = _mm512_maskz_loadu_epi64((__mmask8)live[g], flow + o);
			f[2 * g + 1] = _mm512_maskz_loadu_epi64((__mmask8)(live[g] >> 8),
								left > 8 ? flow + o + 8 : flow + o);
		}
		for (uint32_t r = 0; r < w->main_at && any != 0; r++) {
			const struct rule_rt4 *ru = &w->r4[r];
			const __m512i sm = _mm512_set1_epi32((int)ru->src_mask),
				      sv = _mm512_set1_epi32((int)ru->src),
				      dm = _mm512_set1_epi32((int)ru->dst_mask),
				      dv = _mm512_set1_epi32((int)ru->dst),
				      mm = _mm512_set1_epi64((long long)ru->a.meta_mask),
				      mv = _mm512_set1_epi64((long long)ru->a.meta),
				      rv = _mm512_set1_epi32((int)r);
			any = 0;
			for (int g = 0; g < G; g++) {
				__mmask16 hit =
					_mm512_cmpeq_epi32_mask(_mm512_and_si512(s[g], sm), sv) &
					_mm512_cmpeq_epi32_mask(_mm512_and_si512(d[g], dm), dv);
				__mmask8 h[2];
				for (int k = 0; k < 2; k++) {
					__m512i fk = f[2 * g + k];
					h[k] = _mm512_cmpeq_epi64_mask(_mm512_and_si512(fk, mm),
								       mv);
					if (ports) {
						/* (port - lo) & 0xffff <= span, as
						 * act_miss's 16-bit wrap: sport at
						 * bits 32-47, dport at 48-63. */
						__m512i sp = _mm512_and_si512(
							_mm512_sub_epi64(
								_mm512_srli_epi64(fk, 32),
								_mm512_set1_epi64(ru->a.sport_lo)),
							low16);
						__m512i dp = _mm512_and_si512(
							_mm512_sub_epi64(
								_mm512_srli_epi64(fk, 48),
								_mm512_set1_epi64(ru->a.dport_lo)),
							low16);
						h[k] = _mm512_mask_cmple_epu64_mask(
							h[k], sp,
							_mm512_set1_epi64(ru->a.sport_span));
						h[k] = _mm512_mask_cmple_epu64_mask(
							h[k], dp,
							_mm512_set1_epi64(ru->a.dport_span));
					}
				}
				hit &= (__mmask16)(h[0] | (h[1] << 8)) & open[g];
				at[g] = _mm512_mask_mov_epi32(at[g], hit, rv);
				open[g] &= (__mmask16)~hit;
				any |= open[g];
			}
		}
		for (int g = 0; g < G; g++) {
			__mmask16 hit = live[g] & (__mmask16)~open[g];
			/* Unmasked: a masked store could not forward to
			 * the loads that read it back at once. */
			if (hit != 0)
				_mm512_storeu_si512(first + i + g * RULES_X16, at[g]);
			decided |= (uint64_t)hit << (i + g * RULES_X16);
		}
	}
	return decided;
}
#endif

/* A matching rule's answer, when it needs no table lookup: its type's
 * nexthop, or main_nh for the main table (looked up already) when that
 * has a route. Otherwise FIB_NH_NONE: the caller walks on (rules_on). */
static inline uint32_t
quick_answer(const struct rule_walk *w, const struct rule_act *a, uint32_t main_nh)
{
	if (a->action != FIB_RULE_TABLE)
		return a->result;
	return a->table == w->main ? main_nh : FIB_NH_NONE;
}

/*
 * The rest of the walk from matching rule i (n: none matched), with
 * the lookups of other tables and the fall-through of a table without a
 * route. Out of line: the usual packet stops at its first match, and a
 * call inside the per-packet loop would have it save and restore its
 * registers around every packet. dst6 is NULL for IPv4. which, if not
 * NULL, gets the table whose route answered (NULL: a rule's action, or
 * no answer).
 */
static __rte_noinline uint32_t
rules_on(const struct rule_walk *w, uint32_t i, uint32_t src4, uint32_t dst4, const uint8_t *dst6,
	 fib_key_t ks, fib_key_t kd, const struct rule_pkt *p, uint32_t main_nh,
	 const struct fib_table **which)
{
	while (i < w->n) {
		const struct rule_act *a = dst6 ? &w->r6[i].a : &w->r4[i].a;
		uint32_t nh = quick_answer(w, a, main_nh);
		if (nh == FIB_NH_NONE && a->action == FIB_RULE_TABLE && a->table != w->main)
			nh = dst6 ? fib_lookup6(a->table, dst6) : fib_lookup4(a->table, dst4);
		if (nh != FIB_NH_NONE) {
			if (which != NULL)
				*which = a->action == FIB_RULE_TABLE ? a->table : NULL;
			return nh;
		}
		uint32_t from = a->action == FIB_RULE_GOTO ? a->next : i + 1;
		i = dst6 ? match6(w, from, w->n, ks, kd, p, w->ports)
			 : match4(w, from, w->n, src4, dst4, p, w->ports);
	}
	return FIB_NH_NONE;
}

/* The rest of packet i's walk from the first rule in [from, n) that
 * matches it, main_nh its main-table answer: the family's selectors
 * made for rules_on (which, as rules_on's). Out of the burst's loops'
 * way, as rules_on. */
static __rte_noinline uint32_t
walk_on(const struct rule_walk *w, uint32_t from, const uint32_t *src4, const uint32_t *dst4,
	const uint8_t *const *src6, const uint8_t *const *dst6, const struct fib_flow *flow,
	uint32_t i, uint32_t main_nh, const struct fib_table **which)
{
	struct rule_pkt p = rule_pkt(&flow[i]);
	if (dst6) {
		fib_key_t ks = key_from_v6(src6[i]), kd = key_from_v6(dst6[i]);
		uint32_t r = match6(w, from, w->n, ks, kd, &p, w->ports);
		return rules_on(w, r, 0, 0, dst6[i], ks, kd, &p, main_nh, which);
	}
	uint32_t r = match4(w, from, w->n, src4[i], dst4[i], &p, w->ports);
	return rules_on(w, r, src4[i], dst4[i], NULL, 0, 0, &p, main_nh, which);
}

/* Packets of a burst whose first matching rule looks up a table other
 * than main (a VRF's "iif port2 lookup 100"): pkt[k] the packet, rule[k]
 * that rule; looked up whenever RULE_PENDING_MAX are waiting, and at the
 * end of the burst. */
#define RULE_PENDING_MAX 64

struct rule_pending {
	uint32_t n;
	uint32_t pkt[RULE_PENDING_MAX];
	uint32_t rule[RULE_PENDING_MAX];
};

/* The pending packets, looked up in bulk table by table, as main was:
 * one at a time, each lookup's misses would wait behind the rule walks
 * of the packets before it instead of overlapping. A packet its table
 * has no route for walks on from the next rule. */
static __rte_noinline void
route_pending(const struct rule_walk *w, struct rule_pending *q, const uint32_t *src4,
	      const uint32_t *dst4, const uint8_t *const *src6, const uint8_t *const *dst6,
	      const struct fib_flow *flow, uint32_t *nh)
{
	uint32_t d4[RULE_PENDING_MAX], out[RULE_PENDING_MAX], from[RULE_PENDING_MAX];
	uint32_t at[RULE_PENDING_MAX];
	const uint8_t *d6[RULE_PENDING_MAX];
	while (q->n > 0) {
		const struct fib_table *t =
			dst6 ? w->r6[q->rule[0]].a.table : w->r4[q->rule[0]].a.table;
		uint32_t k = 0, left = 0;
		for (uint32_t j = 0; j < q->n; j++) {
			const struct rule_act *a =
				dst6 ? &w->r6[q->rule[j]].a : &w->r4[q->rule[j]].a;
			if (a->table != t) {
				q->pkt[left] = q->pkt[j];
				q->rule[left++] = q->rule[j];
				continue;
			}
			uint32_t i = q->pkt[j];
			at[k] = i;
			if (dst6)
				d6[k] = dst6[i];
			else
				d4[k] = dst4[i];
			from[k++] = q->rule[j];
		}
		if (dst6)
			fib_lookup6_bulk(t, d6, out, k);
		else
			fib_lookup4_bulk(t, d4, out, k);
		for (uint32_t j = 0; j < k; j++) {
			uint32_t i = at[j];
			nh[i] = likely(out[j] != FIB_NH_NONE)
					? out[j]
					: walk_on(w, from[j] + 1, src4, dst4, src6, dst6, flow, i,
						  nh[i], NULL);
		}
		q->n = left;
	}
}

/*
 * A burst's packets through the rules of one family, nh[i] holding
 * packet i's main-table answer. Local delivery comes first, as Linux's
 * rule 0 "lookup local"; then the first matching rule decides (main's,
 * which matches every packet, is not compared), and a table rule whose
 * table has no route falls through to the next. A packet whose first
 * matching rule looks up another table waits for route_pending, which
 * looks those up in bulk. Ports are compared or not (a constant at each
 * datapath call, so each is a loop of its own).
 */
static __rte_always_inline void
route_bulk(const struct rule_walk *w, const uint32_t *src4, const uint32_t *dst4,
	   const uint8_t *const *src6, const uint8_t *const *dst6, const struct fib_flow *flow,
	   uint32_t *nh, unsigned int n, bool ports)
{
	struct rule_pending q;
	q.n = 0; /* only n: an initializer would clear the arrays each call */
	/* IPv6 in one pass: only IPv4 finds first matches a chunk at once. */
	const unsigned int chunk = dst6 ? n : RULE_CHUNK;
	for (unsigned int c = 0; c < n; c += chunk) {
		unsigned int end = RTE_MIN(n, c + chunk);
#ifdef RULES_X16
		/* IPv4's first matches, for the chunk at once. */
		uint32_t first[RULE_CHUNK];
		uint64_t decided =
			dst6 ? 0
			     : match4_x16(w, src4 + c, dst4 + c, flow + c, first, end - c, ports);
#endif
		for (unsigned int i = c; i < end; i++) {
			if (nh[i] == w->local_nh)
				continue;
			uint32_t r;
			if (dst6) {
				/* IPv6 by match6: a vector form's gathers of
				 * the addresses cost more than its compares
				 * saved (docs/performance-log.md). */
				struct rule_pkt p = rule_pkt(&flow[i]);
				r = match6(w, 0, w->main_at, key_from_v6(src6[i]),
					   key_from_v6(dst6[i]), &p, ports);
			} else {
#ifdef RULES_X16
				r = (decided >> (i - c)) & 1 ? first[i - c] : w->main_at;
#else
				struct rule_pkt p = rule_pkt(&flow[i]);
				r = match4(w, 0, w->main_at, src4[i], dst4[i], &p, ports);
#endif
			}
			const struct rule_act *a = dst6 ? &w->r6[r].a : &w->r4[r].a;
			uint32_t v = quick_answer(w, a, nh[i]);
			if (likely(v != FIB_NH_NONE)) {
				nh[i] = v;
			} else if (a->action == FIB_RULE_TABLE && a->table != w->main) {
				if (q.n == RULE_PENDING_MAX)
					route_pending(w, &q, src4, dst4, src6, dst6, flow, nh);
				q.pkt[q.n] = i;
				q.rule[q.n++] = r;
			} else if (r != w->main_at || !w->main_last) {
				/* Main without a route, or a goto: rule r
				 * matched. (Main's no route, with no rule
				 * after it that could answer, stands as it
				 * is: no walk for it.) */
				nh[i] = walk_on(w, r, src4, dst4, src6, dst6, flow, i, nh[i], NULL);
			}
		}
	}
	if (q.n > 0)
		route_pending(w, &q, src4, dst4, src6, dst6, flow, nh);
}

#ifndef FIB_ISA_AVX512
uint32_t
fib_rule_route4(const struct fib *fib, uint32_t src, uint32_t dst, const struct fib_flow *flow,
		uint32_t main_nh)
{
	struct rule_walk w;
	if (walk_start(fib, FIB_AF_INET, &w))
		route_bulk(&w, &src, &dst, NULL, NULL, flow, &main_nh, 1, w.ports);
	return main_nh;
}

uint32_t
fib_rule_route6(const struct fib *fib, const uint8_t src[16], const uint8_t dst[16],
		const struct fib_flow *flow, uint32_t main_nh)
{
	struct rule_walk w;
	if (walk_start(fib, FIB_AF_INET6, &w))
		route_bulk(&w, NULL, NULL, &src, &dst, flow, &main_nh, 1, w.ports);
	return main_nh;
}

/* Which table answered a packet, walked one rule at a time as rules_on
 * walks on (the control path's question, never the datapath's). */
static uint32_t
table_of_answer(const struct fib *fib, uint8_t af, uint32_t src4, uint32_t dst4,
		const uint8_t *src6, const uint8_t *dst6, const struct fib_flow *flow,
		uint32_t main_nh)
{
	struct rule_walk w;
	if (!walk_start(fib, af, &w))
		return main_nh != FIB_NH_NONE ? FIB_TABLE_MAIN : 0;
	if (main_nh == w.local_nh)
		return FIB_TABLE_MAIN; /* local first: main holds local routes */
	const struct fib_table *t = NULL;
	if (dst6 != NULL) /* the family is whether dst6 is given, as for walk_on */
		(void)walk_on(&w, 0, NULL, NULL, &src6, &dst6, flow, 0, main_nh, &t);
	else
		(void)walk_on(&w, 0, &src4, &dst4, NULL, NULL, flow, 0, main_nh, &t);
	return t != NULL ? t->id : 0;
}

uint32_t
fib_rule_table4(const struct fib *fib, uint32_t src, uint32_t dst, const struct fib_flow *flow,
		uint32_t main_nh)
{
	return table_of_answer(fib, FIB_AF_INET, src, dst, NULL, NULL, flow, main_nh);
}

uint32_t
fib_rule_table6(const struct fib *fib, const uint8_t src[16], const uint8_t dst[16],
		const struct fib_flow *flow, uint32_t main_nh)
{
	return table_of_answer(fib, FIB_AF_INET6, 0, 0, src, dst, flow, main_nh);
}
#endif

void
FIB_ISA(fib_rule_route4_bulk)(const struct fib *fib, const struct fib_rule_set *rules,
			      const uint32_t *src, const uint32_t *dst, const struct fib_flow *flow,
			      uint32_t *nh, unsigned int n)
{
	struct rule_walk w;
	walk_from(fib, rules, &w);
	if (w.ports)
		route_bulk(&w, src, dst, NULL, NULL, flow, nh, n, true);
	else
		route_bulk(&w, src, dst, NULL, NULL, flow, nh, n, false);
}

void
FIB_ISA(fib_rule_route6_bulk)(const struct fib *fib, const struct fib_rule_set *rules,
			      const uint8_t *const *src, const uint8_t *const *dst,
			      const struct fib_flow *flow, uint32_t *nh, unsigned int n)
{
	struct rule_walk w;
	walk_from(fib, rules, &w);
	if (w.ports)
		route_bulk(&w, NULL, NULL, src, dst, flow, nh, n, true);
	else
		route_bulk(&w, NULL, NULL, src, dst, flow, nh, n, false);
}
