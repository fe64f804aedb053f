/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Random route operations checked against a model: a plain list of routes.
 *
 * The reference test loads real tables whose prefixes rarely share a
 * /24 with more than a few others, in one metric, nothing down. Here the
 * prefixes come from a few addresses at many lengths, so that they nest,
 * cover and split each other all the time, with several metrics a
 * prefix, every route type, two tables (the second starting small),
 * nexthops going down and up, runs of sorted inserts (the RIB's insert
 * hint) and, in one configuration, so few groups that writes fail with
 * -ENOSPC. After every operation its return code and the answers around
 * its prefix are checked; every few hundred operations the whole state:
 * the walk, exact gets, route matches, and single and bulk lookups of
 * every burst size against the model's longest-prefix match.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fib_test.h"
#include "table.h"

#define NNH 12         /* unicast nexthops 1..NNH */
#define MAX_ROUTES 900 /* above it, deletes are preferred */
#define OPS 12000
#define FULL_EVERY 600
#define NADDR 512

struct mroute {
	uint32_t table; /* 0 or 100 (0 is main) */
	tkey_t key;     /* left-aligned: IPv4 in the top 32 bits */
	uint8_t len;
	uint32_t metric, nh;
	uint8_t type, origin;
};

struct model {
	uint8_t af;
	struct mroute r[4 * MAX_ROUTES];
	unsigned int n;
	bool down[NNH + 1];
	const struct fib_conf *conf;
};

/* IPv4 bursts of 32 or more by the path they took (lookup.c's path4):
 * 0 the /16 summary walk, 1 the direct passes. */
static unsigned long by_path[2];

static bool
covers(const struct mroute *r, tkey_t a)
{
	return ((a ^ r->key) & tk_mask(r->len)) == 0;
}

static unsigned int
max_len(uint8_t af)
{
	return af == FIB_AF_INET ? 32 : 128;
}

static unsigned int
random_len(uint8_t af)
{
	/* Around the lookup structures' level boundaries: IPv4 /16 (the
	 * summary) and /24, IPv6 /24 and every 8 bits after. */
	static const uint8_t l4[] = {0, 1, 8, 9, 15, 16, 17, 23, 24, 25, 28, 31, 32};
	static const uint8_t l6[] = {0,  3,  16, 23, 24, 25, 31, 32, 33,  40,
				     47, 48, 49, 56, 64, 65, 72, 96, 127, 128};
	return af == FIB_AF_INET ? l4[tk_rnd() % sizeof(l4)] : l6[tk_rnd() % sizeof(l6)];
}

static struct fib_route
to_route(const struct model *m, const struct mroute *r)
{
	return (struct fib_route){.dst = tk_prefix(m->af, r->key, r->len),
				  .table = r->table,
				  .metric = r->metric,
				  .nh = r->nh,
				  .type = r->type,
				  .origin = r->origin};
}

static bool
live(const struct model *m, const struct mroute *r)
{
	return r->type != FIB_RT_UNICAST || !m->down[r->nh];
}

static int
find(const struct model *m, uint32_t table, tkey_t k, unsigned int len, uint32_t metric)
{
	for (unsigned int i = 0; i < m->n; i++) {
		const struct mroute *r = &m->r[i];
		if (r->table == table && r->len == len && r->key == k && r->metric == metric)
			return (int)i;
	}
	return -1;
}

/* The prefix's preferred route (lowest metric), live ones only if
 * want_live. */
static const struct mroute *
preferred(const struct model *m, uint32_t table, tkey_t k, unsigned int len, bool want_live)
{
	const struct mroute *best = NULL;
	for (unsigned int i = 0; i < m->n; i++) {
		const struct mroute *r = &m->r[i];
		if (r->table == table && r->len == len && r->key == k &&
		    (!want_live || live(m, r)) && (best == NULL || r->metric < best->metric))
			best = r;
	}
	return best;
}

/* What lookups answer: the longest prefix covering a with a live route,
 * its live route of lowest metric. */
static const struct mroute *
model_match(const struct model *m, uint32_t table, tkey_t a)
{
	const struct mroute *best = NULL;
	for (unsigned int i = 0; i < m->n; i++) {
		const struct mroute *r = &m->r[i];
		if (r->table != table || !live(m, r) || !covers(r, a))
			continue;
		if (best == NULL || r->len > best->len ||
		    (r->len == best->len && r->metric < best->metric))
			best = r;
	}
	return best;
}

static uint32_t
value_of(const struct model *m, const struct mroute *r)
{
	if (r == NULL)
		return FIB_NH_NONE;
	switch (r->type) {
	case FIB_RT_UNICAST:
		return r->nh;
	case FIB_RT_THROW:
		return FIB_NH_NONE; /* a hole: no route there */
	case FIB_RT_BROADCAST:      /* 0 in the conf: local's */
		return m->conf->type_nh[FIB_RT_BROADCAST] ? m->conf->type_nh[FIB_RT_BROADCAST]
							  : m->conf->type_nh[FIB_RT_LOCAL];
	default:
		return m->conf->type_nh[r->type];
	}
}

static uint32_t
fib_value(const struct fib *f, const struct model *m, uint32_t table, tkey_t a)
{
	const struct fib_table *t = fib_table_lookup(f, table);
	if (t == NULL)
		return FIB_NH_NONE;
	if (m->af == FIB_AF_INET)
		return fib_lookup4(t, (uint32_t)(a >> 96));
	struct fib_prefix p = tk_prefix(m->af, a, 128);
	return fib_lookup6(t, p.addr.v6);
}

static void
check_one(const struct fib *f, const struct model *m, uint32_t table, tkey_t a, unsigned int op)
{
	uint32_t want = value_of(m, model_match(m, table, a)), got = fib_value(f, m, table, a);
	if (want != got) {
		struct fib_prefix p = tk_prefix(m->af, a, max_len(m->af));
		fail_msg("op %u table %u: lookup of %08x%08x... gave %u, want %u", op, table,
			 m->af == FIB_AF_INET ? p.addr.v4 : (uint32_t)(a >> 96),
			 (uint32_t)(a >> 64), got, want);
	}
}

/* A random address: inside a random route (at its edges a third of the
 * time), or a random key. */
static tkey_t
random_addr(const struct model *m)
{
	tkey_t a = tk_random(m->af, tk_rnd), host = 0;
	/* One draw a statement (here and in the other model tests): the
	 * order of calls inside one expression or initializer is the
	 * compiler's choice, and a seed must give the same draws in every
	 * build. */
	for (int k = 0; k < 4; k++)
		host = host << 32 | tk_rnd();
	if (m->n > 0 && tk_rnd() % 4 != 0) {
		const struct mroute *r = &m->r[tk_rnd() % m->n];
		switch (tk_rnd() % 6) {
		case 0:
			a = r->key;
			break;
		case 1:
			a = r->key | ~tk_mask(r->len);
			break;
		default:
			a = r->key | (host & ~tk_mask(r->len));
		}
	}
	if (m->af == FIB_AF_INET)
		a &= tk_mask(32);
	return a;
}

struct walk_acc {
	const struct model *m;
	uint32_t table;
	struct mroute got[4 * MAX_ROUTES];
	unsigned int n;
};

static int
walk_cb(const struct fib_route *r, void *arg)
{
	struct walk_acc *w = arg;
	assert_true(w->n < 4 * MAX_ROUTES);
	w->got[w->n++] = (struct mroute){.table = w->table,
					 .key = tk_key(&r->dst),
					 .len = r->dst.len,
					 .metric = r->metric,
					 .nh = r->nh,
					 .type = r->type,
					 .origin = r->origin};
	bool down = (r->flags & FIB_RF_DOWN) != 0;
	assert_int_equal(down, !live(w->m, &w->got[w->n - 1]));
	return 0;
}

static int
route_order(const void *x, const void *y)
{
	const struct mroute *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->metric < b->metric ? -1 : a->metric > b->metric;
}

static void
check_route(const struct model *m, const struct mroute *want, const struct fib_route *got)
{
	assert_int_equal(tk_key(&got->dst) == want->key, true);
	assert_int_equal(got->dst.len, want->len);
	assert_int_equal(got->metric, want->metric);
	assert_int_equal(got->type, want->type);
	assert_int_equal(got->origin, want->origin);
	if (want->type == FIB_RT_UNICAST)
		assert_int_equal(got->nh, want->nh);
	assert_int_equal((got->flags & FIB_RF_DOWN) != 0, !live(m, want));
}

static void
check_table(const struct fib *f, const struct model *m, uint32_t table, unsigned int op)
{
	/* The walk: every route, in prefix order. */
	static struct walk_acc w;
	w.m = m;
	w.table = table;
	w.n = 0;
	int rc = fib_route_walk(f, table, m->af, walk_cb, &w);
	static struct mroute want[4 * MAX_ROUTES];
	unsigned int nw = 0;
	for (unsigned int i = 0; i < m->n; i++)
		if (m->r[i].table == table)
			want[nw++] = m->r[i];
	if (rc == -ENOENT)
		assert_int_equal(nw, 0);
	else
		assert_int_equal(rc, 0);
	qsort(want, nw, sizeof(want[0]), route_order);
	if (w.n != nw)
		fail_msg("op %u table %u: walk gave %u routes, want %u", op, table, w.n, nw);
	for (unsigned int i = 0; i < nw; i++) {
		assert_true(w.got[i].key == want[i].key);
		assert_int_equal(w.got[i].len, want[i].len);
		assert_int_equal(w.got[i].metric, want[i].metric);
		assert_int_equal(w.got[i].type, want[i].type);
		if (want[i].type == FIB_RT_UNICAST)
			assert_int_equal(w.got[i].nh, want[i].nh);
	}
	assert_int_equal(fib_route_count(f, table, m->af), nw);

	/* Exact gets, by metric and of the preferred route. */
	for (unsigned int i = 0; i < nw; i++) {
		struct fib_route key = to_route(m, &want[i]), out;
		assert_int_equal(fib_route_get(f, &key, false, &out), 0);
		check_route(m, &want[i], &out);
		assert_int_equal(fib_route_get(f, &key, true, &out), 0);
		check_route(m, preferred(m, table, want[i].key, want[i].len, false), &out);
	}

	/* Lookups: single, bulk at every burst size the datapath and the
	 * tests use, and the RIB's match. */
	static tkey_t a[NADDR];
	static uint32_t v4[NADDR], nh[NADDR], expect[NADDR];
	static struct fib_prefix p6[NADDR];
	const uint8_t *ptr[NADDR];
	for (unsigned int i = 0; i < NADDR; i++) {
		a[i] = random_addr(m);
		expect[i] = value_of(m, model_match(m, table, a[i]));
		check_one(f, m, table, a[i], op);
		p6[i] = tk_prefix(m->af, a[i], max_len(m->af));
		v4[i] = p6[i].addr.v4;
		ptr[i] = p6[i].addr.v6;
	}
	const struct fib_table *t = fib_table_lookup(f, table);
	static const unsigned int bursts[] = {64, 32, 128, 33, 7, 1, 96};
	for (unsigned int b = 0; t != NULL && b < sizeof(bursts) / sizeof(bursts[0]); b++) {
		memset(nh, 0xff, sizeof(nh));
		for (unsigned int i = 0; i < NADDR; i += bursts[b]) {
			unsigned int k = NADDR - i < bursts[b] ? NADDR - i : bursts[b];
			if (m->af == FIB_AF_INET) {
				if (k >= 32)
					by_path[fib_lookup4_bulk_direct()]++;
				fib_lookup4_bulk(t, v4 + i, nh + i, k);
			} else
				fib_lookup6_bulk(t, ptr + i, nh + i, k);
		}
		for (unsigned int i = 0; i < NADDR; i++)
			if (nh[i] != expect[i])
				fail_msg("op %u table %u burst %u: lane %u gave %u, want %u", op,
					 table, bursts[b], i, nh[i], expect[i]);
	}
	for (unsigned int i = 0; i < NADDR / 4; i++) {
		const struct mroute *want_r = model_match(m, table, a[i]);
		struct fib_route out;
		rc = fib_route_match(f, table == 0 ? FIB_TABLE_MAIN : table, &p6[i], &out);
		if (want_r == NULL) {
			assert_int_equal(rc, -ENOENT);
			continue;
		}
		assert_int_equal(rc, 0);
		check_route(m, want_r, &out);
	}
	/* IPv4 traffic to the long prefixes alone, which lands in mixed
	 * /16s, in enough calls for a thread to take the direct passes. */
	unsigned int nlong = 0;
	for (unsigned int i = 0; i < m->n && m->af == FIB_AF_INET; i++)
		nlong += m->r[i].table == table && m->r[i].len > 16;
	for (unsigned int i = 0; t != NULL && nlong > 0 && i < NADDR; i++) {
		const struct mroute *r;
		do
			r = &m->r[tk_rnd() % m->n];
		while (r->table != table || r->len <= 16);
		a[i] = r->key | ((tkey_t)tk_rnd() << 96 & ~tk_mask(r->len) & tk_mask(32));
		v4[i] = (uint32_t)(a[i] >> 96);
		expect[i] = value_of(m, model_match(m, table, a[i]));
	}
	for (unsigned int round = 0; t != NULL && nlong > 0 && round < 4; round++) {
		unsigned int k = round % 2 ? 64 : 32;
		for (unsigned int i = 0; i < NADDR; i += k) {
			by_path[fib_lookup4_bulk_direct()]++;
			fib_lookup4_bulk(t, v4 + i, nh + i, k);
		}
		for (unsigned int i = 0; i < NADDR; i++)
			if (nh[i] != expect[i])
				fail_msg("op %u table %u long prefixes, burst %u: lane %u gave %u, "
					 "want %u",
					 op, table, k, i, nh[i], expect[i]);
	}
}

static void
remove_at(struct model *m, unsigned int i)
{
	m->r[i] = m->r[--m->n];
}

static struct mroute
random_route(const struct model *m)
{
	struct mroute r = {.table = tk_rnd() % 3 == 0 ? 100 : 0};
	r.len = (uint8_t)random_len(m->af);
	r.key = tk_random(m->af, tk_rnd) & tk_mask(r.len);
	static const uint32_t metrics[] = {0, 1, 5, 1024};
	r.metric = metrics[tk_rnd() % 4];
	r.type = tk_rnd() % 5 == 0 ? (uint8_t)(FIB_RT_LOCAL + tk_rnd() % (FIB_RT_COUNT - 1))
				   : FIB_RT_UNICAST;
	r.nh = r.type == FIB_RT_UNICAST ? 1 + tk_rnd() % NNH : 0;
	r.origin = (uint8_t)(tk_rnd() % 4);
	return r;
}

/* After a write: its code, and the answers at its prefix's edges. */
static void
check_write(const struct fib *f, const struct model *m, const struct mroute *r, int rc, int want,
	    unsigned int op)
{
	if (rc != want)
		fail_msg("op %u: returned %d, want %d (len %u metric %u)", op, rc, want, r->len,
			 r->metric);
	check_one(f, m, r->table, r->key, op);
	check_one(f, m, r->table, r->key | (~tk_mask(r->len) & tk_mask(max_len(m->af))), op);
	check_one(f, m, r->table, random_addr(m), op);
}

static bool model_down(void *ctx, uint32_t nh);

static int
shorter_first(const void *x, const void *y)
{
	const struct mroute *a = x, *b = y;
	return (a->len > b->len) - (a->len < b->len);
}

/* Table 100's form, small (a first level under 1 MiB) or grown, and
 * how often it changed. */
struct form {
	bool grown;
	unsigned int grew, shrank;
};

/* @return whether the form changed. */
static bool
track_form(const struct fib *f, struct form *s)
{
	struct fib_mem_stats st;
	if (fib_table_mem(f, 100, &st) != 0 || st.tbl24_bytes == 0)
		return false; /* no table, or no route in the family */
	bool now = st.tbl24_bytes >= (1u << 20), changed = now != s->grown;
	s->grew += now && !s->grown;
	s->shrank += !now && s->grown;
	s->grown = now;
	return changed;
}

static void
run(uint8_t af, struct fib_conf conf, bool flips, unsigned int s)
{
	static struct model m;
	memset(&m, 0, sizeof(m));
	m.af = af;
	m.conf = &conf;
	unsigned int used = tk_srand(s);
	if (flips) {
		conf.nh_down = model_down;
		conf.nh_down_ctx = &m;
	}
	conf.type_nh[FIB_RT_THROW] = NH_LOCAL; /* ignored: a throw route installs no route */
	struct fib *f = fib_create(&conf);
	assert_non_null(f);
	unsigned int nospc = 0, hinted = 0;
	struct form form = {0};

	for (unsigned int op = 0; op < OPS; op++) {
		unsigned int dice = tk_rnd() % 100;
		if (m.n > MAX_ROUTES && dice < 55)
			dice = 60; /* a delete */
		if (dice < 40 || (dice < 42 && m.n < 3 * MAX_ROUTES)) {
			/* Add, or with dice 40-41 a run of sorted inserts of
			 * one length under one prefix, as a table loads. */
			struct mroute r = random_route(&m);
			unsigned int run_len = dice < 40 ? 1 : 8 + tk_rnd() % 40;
			unsigned int step_len = r.len < 8 ? 8 : r.len;
			if (run_len > 1)
				hinted++;
			for (unsigned int k = 0; k < run_len; k++) {
				struct fib_route fr = to_route(&m, &r);
				int want = find(&m, r.table, r.key, r.len, r.metric) >= 0 ? -EEXIST
											  : 0;
				int rc = fib_route_add(f, &fr);
				if (rc == -ENOSPC && want == 0) {
					nospc++;
					want = -ENOSPC;
				}
				if (rc == 0)
					m.r[m.n++] = r;
				check_write(f, &m, &r, rc, want, op);
				if (step_len == 0 || r.len == 0)
					break;
				r.len = (uint8_t)step_len;
				r.key = (r.key & tk_mask(step_len)) +
					((tkey_t)1 << (128 - step_len));
				if (af == FIB_AF_INET)
					r.key &= tk_mask(32);
			}
		} else if (dice < 55) {
			/* Replace: half the time of an existing route. */
			struct mroute r = random_route(&m);
			if (m.n > 0 && tk_rnd() % 2) {
				const struct mroute *o = &m.r[tk_rnd() % m.n];
				r.table = o->table;
				r.key = o->key;
				r.len = o->len;
				r.metric = o->metric;
			}
			struct fib_route fr = to_route(&m, &r);
			int at = find(&m, r.table, r.key, r.len, r.metric);
			int rc = fib_route_replace(f, &fr);
			int want = 0;
			if (rc == -ENOSPC) {
				nospc++;
				want = -ENOSPC;
			} else if (rc == 0 && at >= 0) {
				m.r[at] = r;
			} else if (rc == 0) {
				m.r[m.n++] = r;
			}
			check_write(f, &m, &r, rc, want, op);
		} else if (dice < 80) {
			/* Delete by metric or the preferred route; mostly one
			 * that exists. */
			bool any = dice >= 70;
			struct mroute r = random_route(&m);
			if (m.n > 0 && tk_rnd() % 8 != 0)
				r = m.r[tk_rnd() % m.n];
			const struct mroute *p = preferred(&m, r.table, r.key, r.len, false);
			int at = any ? (p ? (int)(p - m.r) : -1)
				     : find(&m, r.table, r.key, r.len, r.metric);
			struct fib_route fr = to_route(&m, &r);
			int rc = fib_route_del(f, &fr, any);
			int want = at >= 0 ? 0 : -ENOENT;
			if (rc == -ENOSPC && want == 0) {
				nospc++;
				want = -ENOSPC;
			}
			if (rc == 0 && at >= 0)
				remove_at(&m, (unsigned int)at);
			check_write(f, &m, &r, rc, want, op);
		} else if (dice < 83 && flips) {
			/* A nexthop goes down or comes back. */
			unsigned int nh = 1 + tk_rnd() % NNH;
			m.down[nh] = !m.down[nh];
			assert_int_equal(fib_sync_down(f), 0);
		} else {
			/* Lookups only. */
			for (int k = 0; k < 4; k++) {
				uint32_t table = tk_rnd() % 2 ? 100 : 0;
				check_one(f, &m, table, random_addr(&m), op);
			}
		}
		if (op % FULL_EVERY == FULL_EVERY - 1) {
			check_table(f, &m, 0, op);
			check_table(f, &m, 100, op);
		}
		if (track_form(f, &form))
			check_table(f, &m, 100, op); /* the whole table in its new form */
	}
	check_table(f, &m, 0, OPS);
	check_table(f, &m, 100, OPS);
	print_message("IPv%c seed %u: %u routes at the end, %u sorted runs, %u writes refused "
		      "(-ENOSPC)\n",
		      af == FIB_AF_INET ? '4' : '6', used, m.n, hinted, nospc);
	if (conf.groups4 != 0)
		assert_true(nospc > 0); /* the tight configuration must reach its limit */

	/* Empty the tables, longest prefixes first, then check that nothing
	 * is left. With no group kept for deletes (the tight configuration:
	 * 40 / 64 is none), a delete can still be refused when it splits a
	 * merged group; it must then change nothing, and goes to the back of
	 * the queue behind deletes that free groups. */
	qsort(m.r, m.n, sizeof(m.r[0]), shorter_first);
	unsigned int refused = 0;
	while (m.n > 0) {
		struct mroute r = m.r[m.n - 1];
		struct fib_route fr = to_route(&m, &r);
		int rc = fib_route_del(f, &fr, false);
		if (rc == -ENOSPC && conf.groups4 != 0 && refused++ < m.n) {
			memmove(&m.r[1], &m.r[0], sizeof(m.r[0]) * (m.n - 1));
			m.r[0] = r;
		} else {
			assert_int_equal(rc, 0);
			m.n--;
			refused = 0;
		}
		check_one(f, &m, r.table, r.key, OPS);
		if (track_form(f, &form))
			check_table(f, &m, 100, OPS);
	}
	check_table(f, &m, 0, OPS + 1);
	check_table(f, &m, 100, OPS + 1);
	print_message("IPv%c seed %u: table 100 grew %u times and shrank back %u times\n",
		      af == FIB_AF_INET ? '4' : '6', used, form.grew, form.shrank);
	if (conf.small_table_groups >= 16)
		assert_true(form.grew > 0 && form.shrank > 0); /* the configuration for both */
	fib_free(f);
}

static bool
model_down(void *ctx, uint32_t nh)
{
	const struct model *m = ctx;
	return nh <= NNH && m->down[nh];
}

static void
test_default(void **state)
{
	(void)state;
	for (unsigned int s = 1; s <= 2; s++) {
		run(FIB_AF_INET, test_conf(), true, s);
		run(FIB_AF_INET6, test_conf(), true, s);
	}
	/* Where the tables route, lookups land in mixed /16s: both paths
	 * served bursts (where the build has both). */
	print_message("IPv4 bursts: %lu by the summary walk, %lu direct\n", by_path[0], by_path[1]);
	if (fib_isa_avx512())
		assert_true(by_path[0] > 0 && by_path[1] > 0);
}

/* Table 100 outgrows its small first level early, in mid-run. */
static void
test_small_tables_grow(void **state)
{
	(void)state;
	struct fib_conf c = test_conf();
	c.small_table_groups = 3;
	run(FIB_AF_INET, c, true, 3);
	run(FIB_AF_INET6, c, true, 3);
}

/* Table 100 grows past 24 groups and shrinks back to its small form
 * (at 6 groups, when the mixed /16s fit) again and again. */
static void
test_small_tables_shrink(void **state)
{
	(void)state;
	struct fib_conf c = test_conf();
	c.small_table_groups = 24;
	run(FIB_AF_INET, c, true, 5);
	run(FIB_AF_INET6, c, true, 5);
}

/* So few groups that writes are refused: each refusal must leave the
 * table exactly as it was (checked by everything after it). Nothing goes
 * down here: a refused fib_sync_down leaves routes down that the model
 * would count as up. */
static void
test_groups_run_out(void **state)
{
	(void)state;
	struct fib_conf c = test_conf();
	c.groups4 = 40;
	c.groups6 = 96;
	run(FIB_AF_INET, c, false, 4);
	run(FIB_AF_INET6, c, false, 4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_small_tables_grow),
		cmocka_unit_test(test_small_tables_shrink),
		cmocka_unit_test(test_groups_run_out),
	};
	return cmocka_run_group_tests_name("fib_model", tests, NULL, NULL);
}
