/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FIB against a reference longest-prefix match on the real tables
 * (bench/data), with nested prefixes added, over millions of addresses:
 * after loading, after deleting a random half, after adding it back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fib_test.h"
#include "table.h"
#include "ref_lpm.h"
#include "../../../bench/xorshift.h"

#define RANDOM_ADDRS (1u << 20)
/* Bursts of 64, looked up whole and as two calls of 32 in turn: the
 * bulk lookups walk 64 lanes and less than 64 differently (lookup.c). */
#define BURST 64

static uint64_t rng = 88172645463325252ull;

static uint64_t
rnd(void)
{
	return xorshift64(&rng);
}

struct route_set {
	struct fib_prefix *p;
	uint32_t *nh;
	uint32_t n, cap;
};

static void
set_push(struct route_set *s, const struct fib_prefix *p, uint32_t nh)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->p = realloc(s->p, sizeof(*s->p) * s->cap);
		s->nh = realloc(s->nh, sizeof(*s->nh) * s->cap);
	}
	s->p[s->n] = *p;
	s->nh[s->n++] = nh;
}

static unsigned int
maxlen(uint8_t af)
{
	return af == FIB_AF_INET ? 32 : 128;
}

/* Set host bits (beyond len) to random values (ones if hi, zeros if lo). */
static struct fib_prefix
addr_in(const struct fib_prefix *p, int mode)
{
	struct fib_prefix a = *p;
	unsigned int ml = maxlen(p->family);
	a.len = (uint8_t)ml;
	for (unsigned int b = p->len; b < ml; b++) {
		unsigned int bit = mode == 0 ? 0 : mode == 1 ? 1 : (unsigned int)(rnd() & 1);
		if (p->family == FIB_AF_INET) {
			uint32_t m = 1u << (31 - b);
			a.addr.v4 = bit ? a.addr.v4 | m : a.addr.v4 & ~m;
		} else {
			uint8_t m = (uint8_t)(0x80 >> (b % 8));
			a.addr.v6[b / 8] = bit ? a.addr.v6[b / 8] | m : a.addr.v6[b / 8] & ~m;
		}
	}
	return a;
}

/* A random prefix of length len inside p (len >= p->len), or p's
 * covering prefix of length len (len < p->len). */
static struct fib_prefix
sub_prefix(const struct fib_prefix *p, unsigned int len)
{
	struct fib_prefix s = len > p->len ? addr_in(p, 2) : *p;
	s.len = (uint8_t)len;
	s = addr_in(&s, 0);
	s.len = (uint8_t)len;
	return s;
}

/* The real table, plus nested prefixes it lacks: a default route,
 * aggregates over some prefixes, more-specifics down to host routes. */
static void
build_routes(uint8_t af, const char *file, struct route_set *s)
{
	struct prefix_list pl;
	assert_int_equal(prefix_list_load(prefix_data_path(file), &pl), 0);
	struct fib_prefix def = {.family = af};
	set_push(s, &def, 1);
	for (uint32_t i = 0; i < pl.n; i++) {
		const struct fib_prefix *p = &pl.p[i];
		set_push(s, p, (uint32_t)(rnd() % 32000) + 2);
		if (i % 97 == 0 && p->len > 8) {
			struct fib_prefix agg =
				sub_prefix(p, p->len - 4 - (unsigned int)(rnd() % 4));
			set_push(s, &agg, (uint32_t)(rnd() % 32000) + 2);
		}
		/* IPv4 tables hold at most 32767 /24s with longer prefixes
		 * inside (16-bit entries, see docs/fib.md): the real table
		 * needs a few thousand, this adds about 11000 more. */
		if (i % (af == FIB_AF_INET ? 53 : 31) == 0) {
			unsigned int ml = maxlen(af);
			for (unsigned int d = 1; d <= 3 && p->len + d * 3 <= ml; d++) {
				struct fib_prefix m = sub_prefix(p, p->len + d * 3);
				set_push(s, &m, (uint32_t)(rnd() % 32000) + 2);
			}
			struct fib_prefix host = sub_prefix(p, ml);
			set_push(s, &host, (uint32_t)(rnd() % 32000) + 2);
		}
	}
	prefix_list_free(&pl);
}

struct checker {
	const struct fib *fib;
	const struct fib_table *t;
	const struct ref_lpm *ref;
	uint8_t af;
	struct fib_prefix addr[BURST];
	uint32_t n;
	uint64_t checked, mismatches;
	uint64_t by_path[2]; /* IPv4 bulk calls by summary, direct (lookup.c) */
	uint64_t flushes;
};

/* The bulk lookup of c's addresses, as one call or two. */
static void
bulk4(struct checker *c, const uint32_t *dst, uint32_t *got, bool split)
{
	uint32_t h = split ? c->n / 2 : c->n;
	for (uint32_t at = 0, k = h; k > 0; at += k, k = c->n - at) {
		if (k >= 32)
			c->by_path[fib_lookup4_bulk_direct()]++;
		fib_lookup4_bulk(c->t, dst + at, got + at, k);
	}
}

static void
bulk6(struct checker *c, const uint8_t *const *dst, uint32_t *got, bool split)
{
	uint32_t h = split ? c->n / 2 : c->n;
	for (uint32_t at = 0, k = h; k > 0; at += k, k = c->n - at)
		fib_lookup6_bulk(c->t, dst + at, got + at, k);
}

static void
flush(struct checker *c)
{
	uint32_t got[BURST];
	if (c->af == FIB_AF_INET) {
		uint32_t dst[BURST];
		for (uint32_t i = 0; i < c->n; i++)
			dst[i] = c->addr[i].addr.v4;
		bulk4(c, dst, got, c->flushes++ % 2);
		for (uint32_t i = 0; i < c->n; i++)
			if (fib_lookup4(c->t, dst[i]) != got[i])
				c->mismatches++;
	} else {
		const uint8_t *dst[BURST];
		for (uint32_t i = 0; i < c->n; i++)
			dst[i] = c->addr[i].addr.v6;
		bulk6(c, dst, got, c->flushes++ % 2);
		for (uint32_t i = 0; i < c->n; i++)
			if (fib_lookup6(c->t, dst[i]) != got[i])
				c->mismatches++;
	}
	for (uint32_t i = 0; i < c->n; i++) {
		uint32_t want = ref_lookup(c->ref, &c->addr[i]);
		if (got[i] != want) {
			if (c->mismatches < 5) {
				char b[64];
				if (c->af == FIB_AF_INET)
					snprintf(b, sizeof(b), "%08x", c->addr[i].addr.v4);
				else
					snprintf(b, sizeof(b),
						 "%02x%02x:%02x%02x:%02x%02x:%02x%02x::",
						 c->addr[i].addr.v6[0], c->addr[i].addr.v6[1],
						 c->addr[i].addr.v6[2], c->addr[i].addr.v6[3],
						 c->addr[i].addr.v6[4], c->addr[i].addr.v6[5],
						 c->addr[i].addr.v6[6], c->addr[i].addr.v6[7]);
				print_message("mismatch at %s: fib %u, reference %u\n", b, got[i],
					      want);
			}
			c->mismatches++;
		}
	}
	c->checked += c->n;
	c->n = 0;
}

static void
check(struct checker *c, const struct fib_prefix *a)
{
	c->addr[c->n++] = *a;
	if (c->n == BURST)
		flush(c);
}

static void
verify_isa(const struct fib *fib, uint32_t table, const struct ref_lpm *ref,
	   const struct route_set *s, uint8_t af, const char *phase)
{
	struct checker c = {.fib = fib, .t = fib_table_lookup(fib, table), .ref = ref, .af = af};
	for (uint32_t i = 0; i < RANDOM_ADDRS; i++) {
		struct fib_prefix a = {.family = af, .len = (uint8_t)maxlen(af)};
		if (i & 1) {
			/* Inside a random route: reaches the deep levels. */
			a = addr_in(&s->p[rnd() % s->n], 2);
		} else if (af == FIB_AF_INET) {
			a.addr.v4 = (uint32_t)rnd();
		} else {
			uint64_t h = rnd(), l = rnd();
			h = (h >> 3) | (1ull << 61); /* 2000::/3, where the table is */
			for (int k = 0; k < 8; k++) {
				a.addr.v6[k] = (uint8_t)(h >> (56 - 8 * k));
				a.addr.v6[8 + k] = (uint8_t)(l >> (56 - 8 * k));
			}
		}
		check(&c, &a);
	}
	for (uint32_t i = 0; i < s->n; i++) {
		struct fib_prefix first = addr_in(&s->p[i], 0), last = addr_in(&s->p[i], 1);
		check(&c, &first);
		check(&c, &last);
	}
	flush(&c);
	print_message("%s (%s lookups): %llu addresses checked, %llu mismatches\n", phase,
		      fib_isa_name(), (unsigned long long)c.checked,
		      (unsigned long long)c.mismatches);
	assert_true(c.checked >= RANDOM_ADDRS + 2ull * s->n);
	assert_int_equal(c.mismatches, 0);
	/* The random half-and-half mix keeps the summary walk; the routes'
	 * edges, in table order, dwell in mixed /16s and turn it direct:
	 * both ways are checked (the AVX-512 lookups have both). */
	if (af == FIB_AF_INET && fib_isa_avx512()) {
		print_message("%s: IPv4 bulk calls by the summary %llu, direct %llu\n", phase,
			      (unsigned long long)c.by_path[0], (unsigned long long)c.by_path[1]);
		assert_true(c.by_path[0] > 0 && c.by_path[1] > 0);
	}
}

/* Against the reference with each of the lookups' instruction sets the
 * processor has (lib/fib/isa.c): the build's own, and AVX-512. The
 * processor's best is what a program gets by default. */
static void
verify(const struct fib *fib, uint32_t table, const struct ref_lpm *ref, const struct route_set *s,
       uint8_t af, const char *phase)
{
	bool best = fib_isa_avx512();
	for (int avx512 = 0; avx512 < 2; avx512++)
		if (fib_isa_force(avx512) == 0)
			verify_isa(fib, table, ref, s, af, phase);
	assert_int_equal(fib_isa_force(best), 0);
}

static void
add_all(struct fib *fib, uint32_t table, struct ref_lpm *ref, const struct route_set *s,
	const uint8_t *skip, uint32_t *added)
{
	for (uint32_t i = 0; i < s->n; i++) {
		if (skip && !skip[i])
			continue;
		struct fib_route r = {.dst = s->p[i], .table = table, .nh = s->nh[i]};
		int rc = fib_route_add(fib, &r);
		if (rc == -EEXIST)
			continue; /* a synthetic prefix that the table has too */
		assert_int_equal(rc, 0);
		ref_set(ref, &s->p[i], s->nh[i]);
		(*added)++;
	}
	ref_commit(ref);
}

/* table: main, or another table, which starts small and grows to a
 * full-size first level on the way (docs/fib.md, "Tables"). */
static void
run(uint8_t af, const char *file, uint32_t table)
{
	struct route_set s = {0};
	build_routes(af, file, &s);
	struct fib_conf conf = test_conf();
	struct fib *fib = fib_create(&conf);
	assert_non_null(fib);
	struct ref_lpm *ref = ref_create(af);

	uint32_t added = 0;
	add_all(fib, table, ref, &s, NULL, &added);
	assert_int_equal(fib_route_count(fib, table, af), added);
	print_message("%s: %u routes loaded into table %u\n", file, added, table);
	verify(fib, table, ref, &s, af, "loaded");

	/* Delete a random half. Duplicated synthetic prefixes are deleted
	 * once; the second attempt must say ENOENT. */
	uint8_t *gone = calloc(s.n, 1);
	uint32_t deleted = 0;
	for (uint32_t i = 0; i < s.n; i++) {
		if (rnd() & 1)
			continue;
		struct fib_route r = {.dst = s.p[i], .table = table};
		int rc = fib_route_del(fib, &r, true);
		if (rc == -ENOENT)
			continue;
		assert_int_equal(rc, 0);
		gone[i] = 1;
		ref_set(ref, &s.p[i], 0);
		deleted++;
	}
	ref_commit(ref);
	assert_int_equal(fib_route_count(fib, table, af), added - deleted);
	verify(fib, table, ref, &s, af, "after deleting half");

	uint32_t readded = 0;
	add_all(fib, table, ref, &s, gone, &readded);
	assert_int_equal(readded, deleted);
	assert_int_equal(fib_route_count(fib, table, af), added);
	verify(fib, table, ref, &s, af, "after re-adding");

	struct fib_mem_stats st;
	assert_int_equal(fib_table_mem(fib, table, &st), 0);
	print_message("memory: tbl24 %llu MiB, groups v4 %u v6 %u (%llu MiB), rib %llu MiB\n",
		      (unsigned long long)(st.tbl24_bytes >> 20), st.groups4_used, st.groups6_used,
		      (unsigned long long)(st.groups_bytes >> 20),
		      (unsigned long long)(st.rib_bytes >> 20));

	free(gone);
	ref_free(ref);
	fib_free(fib);
	free(s.p);
	free(s.nh);
}

static void
test_ipv4_real_table(void **state)
{
	(void)state;
	run(FIB_AF_INET, "prefixes-v4.txt.gz", FIB_TABLE_MAIN);
}

static void
test_ipv6_real_table(void **state)
{
	(void)state;
	run(FIB_AF_INET6, "prefixes-v6.txt.gz", FIB_TABLE_MAIN);
}

/* The same in a table that starts small and grows while loading. */
static void
test_ipv4_real_table_grown(void **state)
{
	(void)state;
	run(FIB_AF_INET, "prefixes-v4.txt.gz", 100);
}

static void
test_ipv6_real_table_grown(void **state)
{
	(void)state;
	run(FIB_AF_INET6, "prefixes-v6.txt.gz", 100);
}

/* A program gets the processor's best without asking: AVX-512 where the
 * processor has x86-64-v4's instructions, whatever the build's target. */
static void
test_isa_default(void **state)
{
	(void)state;
	bool v4 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		  __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
		  __builtin_cpu_supports("avx512cd");
	print_message("processor with AVX-512: %s; lookups: %s\n", v4 ? "yes" : "no",
		      fib_isa_name());
	assert_int_equal(fib_isa_avx512(), v4);
	assert_string_equal(fib_isa_select(256), "base"); /* a limit below 512 */
	assert_string_equal(fib_isa_select(512), v4 ? "avx512" : "base");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isa_default),
		cmocka_unit_test(test_ipv4_real_table),
		cmocka_unit_test(test_ipv6_real_table),
		cmocka_unit_test(test_ipv4_real_table_grown),
		cmocka_unit_test(test_ipv6_real_table_grown),
	};
	return cmocka_run_group_tests_name("fib_reference", tests, NULL, NULL);
}
