/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Readers against a churning writer, under rte_rcu_qsbr.
 *
 * The writer adds, replaces and deletes routes in a set of nested slots
 * (per family: one short prefix, 16 medium ones inside it, 16 long ones
 * inside each medium one) above a permanent default route. Every route
 * instance gets a fresh nexthop id and records the operation numbers
 * that created and removed it; a global sequence is odd while an
 * operation is in progress.
 *
 * A reader brackets each lookup with two reads of the sequence (s0, s1)
 * and checks that the answer is a route that (a) covers the address,
 * (b) was installed before s1 and not removed before s0, and (c) was not
 * hidden for the whole lookup by a longer route that was installed
 * before s0 and still present after the lookup. Any torn entry, freed
 * group or lost update shows up as a wrong answer.
 *
 * The rules runs route the reader's bursts as the datapath does (main,
 * then the rules layer) through a rule that sends every packet to table
 * 100, which holds the churned routes, while the writer also adds and
 * deletes a rule that matches nothing, and a route of table default
 * (whose first and last routes publish both families' sets again): each
 * change publishes a new rule set and retires the old one under the
 * reader. Table 100's default route answers every packet, so neither
 * changes an answer.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <rte_rcu_qsbr.h>

#include "fib_test.h"

/* The machine has two cores: one reader runs truly beside the writer. */
#define READERS 1
#define MAX_IDS (FIB_NH_MAX + 1)
#define ALIVE UINT32_MAX
#define NSLOTS (1 + 16 + 256)
#define RUN_NS 3000000000ull

struct slot {
	struct fib_prefix p;
	uint32_t cur; /* live instance id, 0 when empty; written by the writer */
};

static struct {
	uint8_t af;
	struct fib *fib;
	struct rte_rcu_qsbr *qsbr;
	struct slot slot[NSLOTS];
	unsigned int long_idx_end;
	uint32_t seq;           /* 2k+1 during operation k, 2k+2 after */
	uint32_t born[MAX_IDS]; /* operation that installed the id */
	uint32_t died[MAX_IDS]; /* operation that removed it, or ALIVE */
	uint32_t slot_of[MAX_IDS];
	/* Ids are recycled: an id goes back to use only once the reader has
	 * begun a burst after the operation that removed it ended, so no
	 * check in progress can confuse its old and new lives. */
	struct {
		uint32_t id;
		uint32_t until; /* reusable once every reader's s0 exceeds it */
	} free_ids[MAX_IDS];
	uint32_t free_head, free_count;
	uint32_t reader_s0[READERS]; /* s0 of the reader's current burst */
	volatile int stop;
	uint64_t lookups[READERS], errors[READERS];
	/* No permanent default, and only the slots of one long prefix's
	 * chain, in table 100, a small table allowed one group (IPv6: two):
	 * it empties often, giving its memory back (mbt_release), grows to
	 * a full-size first level whenever it needs more groups (the IPv4
	 * long slot, the IPv6 medium one: promote) and takes the small one
	 * again when only the short slot is left (demote), while the
	 * reader reads it. */
	bool emptying;
	bool rules;
	uint32_t table;
} g;

static uint64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Slot layout: 0 is the short prefix; 1 + m its medium children; 17 +
 * 16m + l the long children of medium m. Each long prefix sits alone in
 * its own last-level group, so adding one splits an entry and deleting
 * it merges the group back: the two updates readers are most exposed to.
 *   IPv4: 10.0.0.0/12; medium index at bits 16..19 (/20); long index at
 *         bits 20..23, then a /28 at offset 0 of that /24.
 *   IPv6: 2001:d000::/20; medium index at bits 40..43 (/44); long index
 *         at bits 104..107, then a /120 (12 levels deep).
 */
static void
make_slots(uint8_t af)
{
	unsigned int l0 = af == FIB_AF_INET ? 12 : 20, l1 = af == FIB_AF_INET ? 20 : 44,
		     l2 = af == FIB_AF_INET ? 28 : 120;
	g.long_idx_end = af == FIB_AF_INET ? 24 : 108;
	for (unsigned int i = 0; i < NSLOTS; i++) {
		unsigned int m = i == 0 ? 0 : i <= 16 ? i - 1 : (i - 17) / 16;
		unsigned int l = i <= 16 ? 0 : (i - 17) % 16;
		struct fib_prefix *p = &g.slot[i].p;
		memset(p, 0, sizeof(*p));
		p->family = af;
		p->len = (uint8_t)(i == 0 ? l0 : i <= 16 ? l1 : l2);
		if (af == FIB_AF_INET) {
			p->addr.v4 = 0x0a000000u;
			if (i >= 1)
				p->addr.v4 |= m << (32 - l1);
			if (i >= 17)
				p->addr.v4 |= l << (32 - g.long_idx_end);
		} else {
			p->addr.v6[0] = 0x20;
			p->addr.v6[1] = 0x01;
			p->addr.v6[2] = 0xd0;
			if (i >= 1)
				p->addr.v6[5] |= (uint8_t)(m << 4); /* bits 40..43 */
			if (i >= 17)
				p->addr.v6[13] |= (uint8_t)(l << 4); /* bits 104..107 */
		}
	}
}

static bool
covers(const struct fib_prefix *p, const struct fib_prefix *a)
{
	for (unsigned int b = 0; b < p->len; b++) {
		unsigned int x, y;
		if (p->family == FIB_AF_INET) {
			x = (p->addr.v4 >> (31 - b)) & 1;
			y = (a->addr.v4 >> (31 - b)) & 1;
		} else {
			x = (p->addr.v6[b / 8] >> (7 - b % 8)) & 1;
			y = (a->addr.v6[b / 8] >> (7 - b % 8)) & 1;
		}
		if (x != y)
			return false;
	}
	return true;
}

/* A random address in a random long slot's last-level group, half of
 * them inside the slot and half beside it. */
static struct fib_prefix
random_addr(unsigned int *seed)
{
	unsigned int s = g.emptying ? 17 : 17 + (unsigned int)rand_r(seed) % 256;
	struct fib_prefix a = g.slot[s].p;
	if (a.family == FIB_AF_INET) {
		a.addr.v4 |= (uint32_t)rand_r(seed) & 0xf;
		if (rand_r(seed) & 1)
			a.addr.v4 ^= 0x10; /* outside the long slot */
		a.len = 32;
	} else {
		a.addr.v6[15] = (uint8_t)rand_r(seed);
		if (rand_r(seed) & 1)
			a.addr.v6[14] ^= 0x10;
		a.len = 128;
	}
	return a;
}

/* Bits [end - 4, end) of an address. */
static unsigned int
nibble(const struct fib_prefix *a, unsigned int end)
{
	if (a->family == FIB_AF_INET)
		return (a->addr.v4 >> (32 - end)) & 0xf;
	unsigned int b = end - 4;
	return (a->addr.v6[b / 8] >> (4 - b % 8)) & 0xf;
}

/* The three slots that can cover an address. */
static void
candidates(const struct fib_prefix *a, unsigned int c[3])
{
	unsigned int m = nibble(a, g.slot[1].p.len), l = nibble(a, g.long_idx_end);
	c[0] = 0;
	c[1] = 1 + m;
	c[2] = 17 + 16 * m + l;
}

static bool
answer_ok(const struct fib_prefix *a, uint32_t nh, uint32_t s0, uint32_t s1,
	  const uint32_t cur_after[3])
{
	if (nh == 1 || (g.emptying && nh == FIB_NH_NONE))
		; /* the permanent default route, or none when there is none */
	else if (nh < 2 || nh >= MAX_IDS)
		return false;
	else {
		uint32_t born = __atomic_load_n(&g.born[nh], __ATOMIC_ACQUIRE);
		uint32_t died = __atomic_load_n(&g.died[nh], __ATOMIC_ACQUIRE);
		if (!covers(&g.slot[g.slot_of[nh]].p, a))
			return false;
		if (2 * born + 1 > s1)
			return false; /* installed after the lookup ended */
		if (died != ALIVE && 2 * died + 2 <= s0)
			return false; /* removed before the lookup began */
	}
	unsigned int ans_len = nh <= 1 ? 0 : g.slot[g.slot_of[nh]].p.len, cand[3];
	candidates(a, cand);
	for (unsigned int i = 0; i < 3; i++) {
		const struct slot *sl = &g.slot[cand[i]];
		if (sl->p.len <= ans_len || !covers(&sl->p, a))
			continue;
		uint32_t id = cur_after[i];
		if (id == 0)
			continue;
		uint32_t born = __atomic_load_n(&g.born[id], __ATOMIC_ACQUIRE);
		uint32_t died = __atomic_load_n(&g.died[id], __ATOMIC_ACQUIRE);
		/* Present from before s0 until after the lookup: it must win. */
		if (2 * born + 2 <= s0 && died == ALIVE)
			return false;
	}
	return true;
}

#define BURST 32

/* The emptying runs' reader also makes long calls (LONG_CALL addresses,
 * answers only range-checked), so that most of its time is spent inside
 * a call that holds the first level it loaded: a release that did not
 * wait for the reader would free it under such a call (checked: with the
 * first level freed at once instead of deferred when the table empties,
 * or the small level freed at once when it grows, every one of four
 * runs crashed). */
#define LONG_CALL 4096

struct long_call {
	uint32_t dst4[LONG_CALL], nh[LONG_CALL];
	const uint8_t *dst6[LONG_CALL];
	struct fib_prefix a[LONG_CALL];
};

static void
long_call(const struct fib_table *t, struct long_call *c, unsigned int id)
{
	if (g.af == FIB_AF_INET)
		fib_lookup4_bulk(t, c->dst4, c->nh, LONG_CALL);
	else
		fib_lookup6_bulk(t, c->dst6, c->nh, LONG_CALL);
	for (unsigned int i = 0; i < LONG_CALL; i++)
		if (c->nh[i] == 1 || c->nh[i] >= MAX_IDS)
			g.errors[id]++;
	g.lookups[id] += LONG_CALL;
}

/* The rules runs' reader: main answered nh for the burst's addresses
 * (dst4/dst6, sources 0, an empty flow); the rules layer routes them
 * on, through the set published now. */
static void
route_rules_burst(uint32_t *nh, const uint32_t *dst4, const uint8_t *const *dst6)
{
	static const uint8_t zero6[16];
	uint32_t src4[BURST] = {0};
	const uint8_t *src6[BURST];
	struct fib_flow flow[BURST];
	memset(flow, 0, sizeof(flow));
	for (unsigned int i = 0; i < BURST; i++)
		src6[i] = zero6;
	const struct fib_rule_set *set = fib_rules_get(g.fib, g.af);
	if (set == NULL)
		abort(); /* the rule to table 100 stays: a set is always published */
	if (g.af == FIB_AF_INET)
		fib_rule_route4_bulk(g.fib, set, src4, dst4, flow, nh, BURST);
	else
		fib_rule_route6_bulk(g.fib, set, src6, dst6, flow, nh, BURST);
}

static void *
reader(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg, seed = id * 7919 + 1;
	const struct fib_table *t = fib_table_lookup(g.fib, g.rules ? FIB_TABLE_MAIN : g.table);
	struct fib_prefix a[BURST];
	uint32_t dst4[BURST], nh[BURST], cur_after[BURST][3];
	const uint8_t *dst6[BURST];
	struct long_call *lc = NULL;
	if (g.emptying) {
		lc = malloc(sizeof(*lc));
		assert_non_null(lc);
		for (unsigned int i = 0; i < LONG_CALL; i++) {
			lc->a[i] = random_addr(&seed);
			lc->dst4[i] = lc->a[i].addr.v4;
			lc->dst6[i] = lc->a[i].addr.v6;
		}
	}
	rte_rcu_qsbr_thread_register(g.qsbr, id);
	rte_rcu_qsbr_thread_online(g.qsbr, id);
	while (!g.stop) {
		for (unsigned int i = 0; i < BURST; i++) {
			a[i] = random_addr(&seed);
			dst4[i] = a[i].addr.v4;
			dst6[i] = a[i].addr.v6;
		}
		uint32_t s0 = __atomic_load_n(&g.seq, __ATOMIC_ACQUIRE);
		__atomic_store_n(&g.reader_s0[id], s0, __ATOMIC_SEQ_CST);
		if (g.af == FIB_AF_INET)
			fib_lookup4_bulk(t, dst4, nh, BURST);
		else
			fib_lookup6_bulk(t, dst6, nh, BURST);
		if (g.rules)
			route_rules_burst(nh, dst4, dst6);
		/* Loads after the lookup stay after it (x86 keeps loads in
		 * order; the fence keeps the compiler from moving them). */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		for (unsigned int i = 0; i < BURST; i++) {
			unsigned int cand[3];
			candidates(&a[i], cand);
			for (unsigned int k = 0; k < 3; k++)
				cur_after[i][k] =
					__atomic_load_n(&g.slot[cand[k]].cur, __ATOMIC_ACQUIRE);
		}
		uint32_t s1 = __atomic_load_n(&g.seq, __ATOMIC_ACQUIRE);
		for (unsigned int i = 0; i < BURST; i++)
			if (!answer_ok(&a[i], nh[i], s0, s1, cur_after[i]))
				g.errors[id]++;
		g.lookups[id] += BURST;
		if (lc != NULL)
			long_call(t, lc, id);
		rte_rcu_qsbr_quiescent(g.qsbr, id);
	}
	rte_rcu_qsbr_thread_offline(g.qsbr, id);
	rte_rcu_qsbr_thread_unregister(g.qsbr, id);
	free(lc);
	return NULL;
}

/* Writer: an id whose quarantine is over, or 0. */
static uint32_t
id_get(void)
{
	if (g.free_count == 0)
		return 0;
	uint32_t id = g.free_ids[g.free_head].id, until = g.free_ids[g.free_head].until;
	for (unsigned int r = 0; r < READERS; r++)
		if (__atomic_load_n(&g.reader_s0[r], __ATOMIC_SEQ_CST) <= until && until != 0)
			return 0;
	g.free_head = (g.free_head + 1) % MAX_IDS;
	g.free_count--;
	return id;
}

/* Writer: id was removed by operation op (or never used: op ALIVE). */
static void
id_put(uint32_t id, uint32_t op)
{
	uint32_t tail = (g.free_head + g.free_count) % MAX_IDS;
	g.free_ids[tail].id = id;
	g.free_ids[tail].until = op == ALIVE ? 0 : 2 * op + 2;
	g.free_count++;
}

/* What a run's writer did: what its checks ask for (enough). */
struct counts {
	uint64_t ops, empties, growths, shrinks, sets;
};

/* Whether a run has done what its checks ask for: enough operations
 * (each growth fills a 32 or 64 MiB first level: fewer of them when
 * emptying), and the table emptied, grew and (with the short slot
 * alone) shrank back many times. */
static bool
enough(const struct counts *c)
{
	if (c->ops <= (g.emptying ? 200u : 1000u))
		return false;
	return !g.emptying || (c->empties > 20 && c->growths > 20 && c->shrinks > 20);
}

/* The rules runs' other changes: a rule that matches nothing (sources
 * are 0) and a route of table default come and go. */
struct side_churn {
	struct fib_rule other;
	struct fib_route dflt;
	bool other_on, dflt_on;
};

/* The fib with its qsbr and the routes and rule the run starts with:
 * every packet to table 100 in the rules runs. */
static void
setup(uint8_t af, bool emptying, bool rules, struct side_churn *side)
{
	memset(&g, 0, sizeof(g));
	g.af = af;
	g.emptying = emptying;
	g.rules = rules;
	make_slots(af);
	size_t sz = rte_rcu_qsbr_get_memsize(READERS);
	g.qsbr = aligned_alloc(RTE_CACHE_LINE_SIZE, (sz + 63) & ~(size_t)63);
	assert_non_null(g.qsbr);
	assert_int_equal(rte_rcu_qsbr_init(g.qsbr, READERS), 0);
	struct fib_conf conf = test_conf();
	conf.qsbr = g.qsbr;
	/* Small tables grow once they use more than one group: in IPv4
	 * (16-8-8) the /20 slot takes one, the /28 one more. IPv6 is allowed
	 * two: its /44 slot takes three (bits 16 to 40) and grows the table,
	 * and its /20 alone takes one, so that the full table shrinks back
	 * (one mixed /16, half of two) once only the /20 is left. */
	conf.small_table_groups = af == FIB_AF_INET6 ? 2 : 1;
	g.table = emptying || rules ? 100 : FIB_TABLE_MAIN;
	g.fib = fib_create(&conf);
	assert_non_null(g.fib);
	struct fib_route def = {.dst = {.family = af}, .nh = 1};
	struct fib_rule to100 = {.priority = 100,
				 .family = af,
				 .action = FIB_RULE_TABLE,
				 .table = 100,
				 .dscp = FIB_DSCP_ANY,
				 .iif = FIB_IIF_ANY,
				 .src = {.family = af},
				 .dst = {.family = af},
				 .sport_hi = 0xffff,
				 .dport_hi = 0xffff};
	memset(side, 0, sizeof(*side));
	side->other = to100;
	side->other.priority = 50;
	side->other.action = FIB_RULE_BLACKHOLE;
	side->other.src = P(af == FIB_AF_INET ? "198.18.0.0/15" : "2001:db8::/32");
	side->dflt = (struct fib_route){
		.dst = side->other.src, .table = FIB_TABLE_DEFAULT, .metric = 1, .nh = 2};
	if (!emptying)
		assert_int_equal(fib_route_add(g.fib, &def), 0);
	if (rules) {
		def.table = g.table;
		assert_int_equal(fib_route_add(g.fib, &def), 0);
		assert_int_equal(fib_rule_add(g.fib, &to100), 0);
	} else if (emptying) {
		/* The table the reader looks up must exist before it starts. */
		def.table = g.table;
		assert_int_equal(fib_route_add(g.fib, &def), 0);
		assert_int_equal(fib_route_del(g.fib, &def, true), 0);
	}
	for (uint32_t i = 2; i < MAX_IDS; i++)
		id_put(i, ALIVE);
}

/* Writer: operation op on slot s (what: 0 add or replace, 1 delete, 2
 * replace), bracketed by the sequence. False when it could not be done
 * (no id out of quarantine yet). */
static bool
write_op(unsigned int s, int what, uint32_t op, struct counts *c)
{
	struct slot *sl = &g.slot[s];
	uint32_t id = sl->cur == 0 || what != 1 ? id_get() : 0;
	if (id == 0 && sl->cur == 0)
		return false;
	struct fib_route r = {.dst = sl->p, .table = g.table, .nh = id};
	__atomic_store_n(&g.seq, 2 * op + 1, __ATOMIC_RELEASE);
	if (id != 0) {
		g.slot_of[id] = s;
		__atomic_store_n(&g.died[id], ALIVE, __ATOMIC_RELEASE);
		__atomic_store_n(&g.born[id], op, __ATOMIC_RELEASE);
		if (sl->cur) {
			__atomic_store_n(&g.died[sl->cur], op, __ATOMIC_RELEASE);
			id_put(sl->cur, op);
		}
		assert_int_equal(fib_route_replace(g.fib, &r), 0);
		__atomic_store_n(&sl->cur, id, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&g.died[sl->cur], op, __ATOMIC_RELEASE);
		id_put(sl->cur, op);
		assert_int_equal(fib_route_del(g.fib, &r, true), 0);
		__atomic_store_n(&sl->cur, 0, __ATOMIC_RELEASE);
		if (g.emptying && !g.slot[0].cur && !g.slot[1].cur && !g.slot[17].cur)
			c->empties++;
	}
	return true;
}

/* Writer, emptying runs: table 100's first level is gone when the
 * table is empty; count its growths past 1 MiB and shrinks below.
 * was: its bytes after the operation before. */
static void
check_memory(uint64_t *was, struct counts *c)
{
	struct fib_mem_stats st;
	assert_int_equal(fib_table_mem(g.fib, g.table, &st), 0);
	if (!g.slot[0].cur && !g.slot[1].cur && !g.slot[17].cur)
		assert_int_equal(st.tbl24_bytes, 0);
	c->growths += *was < (1u << 20) && st.tbl24_bytes >= (1u << 20);
	c->shrinks += *was >= (1u << 20) && st.tbl24_bytes > 0 && st.tbl24_bytes < (1u << 20);
	*was = st.tbl24_bytes;
}

/* Writer, rules runs: now and then the other rule or the route of table
 * default toggles, each publishing new rule sets. */
static void
churn_side(struct side_churn *side, unsigned int *seed, struct counts *c)
{
	if (rand_r(seed) % 4 == 0) {
		assert_int_equal(side->other_on ? fib_rule_del(g.fib, &side->other)
						: fib_rule_add(g.fib, &side->other),
				 0);
		side->other_on = !side->other_on;
		c->sets++;
	}
	if (rand_r(seed) % 8 == 0) {
		assert_int_equal(side->dflt_on ? fib_route_del(g.fib, &side->dflt, false)
					       : fib_route_add(g.fib, &side->dflt),
				 0);
		side->dflt_on = !side->dflt_on;
		c->sets += 2; /* both families' sets */
	}
}

static void
run(uint8_t af, bool emptying, bool rules)
{
	struct side_churn side;
	setup(af, emptying, rules, &side);
	pthread_t th[READERS];
	for (unsigned int i = 0; i < READERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, reader, (void *)(uintptr_t)i), 0);

	struct counts c = {0};
	uint32_t op = 0;
	unsigned int seed = 12345;
	/* The emptying runs' updates are slower (each growth fills a 32 or
	 * 64 MiB first level, each shrink reads it): longer runs. A slow or
	 * busy machine (the sanitizer build, a shared CI host) gets more
	 * time to reach the states enough() asks for, up to 4x. */
	uint64_t t0 = now_ns(), end = t0 + (emptying ? RUN_NS * 5 / 3 : RUN_NS);
	uint64_t cap = t0 + (end - t0) * 4;
	uint64_t was = 0; /* first-level bytes of table 100 after the last operation */
	static const unsigned int chain[] = {0, 1, 17}; /* the short, a medium, a long */
	for (uint64_t now = now_ns(); now < end || (now < cap && !enough(&c)); now = now_ns()) {
		unsigned int s =
			emptying ? chain[rand_r(&seed) % 3] : (unsigned int)rand_r(&seed) % NSLOTS;
		int what = rand_r(&seed) % 3;
		if (emptying && what == 2)
			what = 1; /* deletes twice as likely: empty about 6% of the time */
		if (!write_op(s, what, op, &c))
			continue;
		if (emptying)
			check_memory(&was, &c);
		if (rules)
			churn_side(&side, &seed, &c);
		__atomic_store_n(&g.seq, 2 * op + 2, __ATOMIC_RELEASE);
		op++;
		c.ops++;
		fib_reclaim(g.fib);
	}
	g.stop = 1;
	uint64_t lookups = 0, errors = 0;
	for (unsigned int i = 0; i < READERS; i++) {
		pthread_join(th[i], NULL);
		lookups += g.lookups[i];
		errors += g.errors[i];
	}
	print_message("%s: %llu updates (%llu emptied the table, %llu grew it, %llu shrank it, "
		      "%llu rule sets replaced), %llu checked lookups, %llu wrong answers\n",
		      af == FIB_AF_INET ? "IPv4" : "IPv6", (unsigned long long)c.ops,
		      (unsigned long long)c.empties, (unsigned long long)c.growths,
		      (unsigned long long)c.shrinks, (unsigned long long)c.sets,
		      (unsigned long long)lookups, (unsigned long long)errors);
	assert_true(enough(&c));
	assert_true(!rules || c.sets > 100);
	assert_true(lookups > 1000);
	assert_int_equal(errors, 0);
	fib_free(g.fib);
	free(g.qsbr);
}

static void
test_rcu_ipv4(void **state)
{
	(void)state;
	run(FIB_AF_INET, false, false);
}

static void
test_rcu_ipv6(void **state)
{
	(void)state;
	run(FIB_AF_INET6, false, false);
}

/* The same while the table empties and refills: readers meet first
 * levels being given back and taken again. */
static void
test_rcu_emptying_ipv4(void **state)
{
	(void)state;
	run(FIB_AF_INET, true, false);
}

static void
test_rcu_emptying_ipv6(void **state)
{
	(void)state;
	run(FIB_AF_INET6, true, false);
}

/* The same through the rules layer into table 100, rule sets replaced
 * under the reader. */
static void
test_rcu_rules_ipv4(void **state)
{
	(void)state;
	run(FIB_AF_INET, false, true);
}

static void
test_rcu_rules_ipv6(void **state)
{
	(void)state;
	run(FIB_AF_INET6, false, true);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rcu_ipv4),          cmocka_unit_test(test_rcu_ipv6),
		cmocka_unit_test(test_rcu_emptying_ipv4), cmocka_unit_test(test_rcu_emptying_ipv6),
		cmocka_unit_test(test_rcu_rules_ipv4),    cmocka_unit_test(test_rcu_rules_ipv6),
	};
	return cmocka_run_group_tests_name("fib_rcu", tests, NULL, NULL);
}
