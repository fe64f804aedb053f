/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The resolution budget under floods (per port, per source, request
 * rates), the eviction order, and the timer wheel with clocks that do not
 * start at 0 and timers longer than the wheel. Fake clock throughout.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "neigh.h"

static struct {
	uint64_t requests, dropped, failed, sent;
	struct neigh_key last; /* the last key a request was sent for */
} seen;

static void
on_probe(void *ctx, const struct neigh_key *k, const uint8_t *mac)
{
	(void)ctx;
	if (mac == NULL) {
		seen.requests++;
		seen.last = *k;
	}
}

static void
on_changed(void *ctx, const struct neigh_key *k, const uint8_t *mac)
{
	(void)ctx, (void)k, (void)mac;
}

static void
on_send(void *ctx, const struct neigh_key *k, const uint8_t *mac, void **p, unsigned int n)
{
	(void)ctx, (void)k, (void)mac, (void)p;
	seen.sent += n;
}

static void
on_failed(void *ctx, const struct neigh_key *k, void **p, unsigned int n)
{
	(void)ctx, (void)k, (void)p;
	seen.failed += n;
}

static void
on_drop(void *ctx, void *p)
{
	(void)ctx, (void)p;
	seen.dropped++;
}

static const struct neigh_ops ops = {on_probe, on_changed, on_send, on_failed, on_drop};
static const uint8_t mac_a[6] = {0x02, 0, 0, 0, 0, 0xa};
static int pkt;

static struct neigh_key
k4(uint16_t port, uint32_t host)
{
	uint8_t a[4] = {10, (uint8_t)(host >> 16), (uint8_t)(host >> 8), (uint8_t)host};
	return neigh_key(port, NEIGH_AF_INET, a);
}

static uint8_t
state_of(struct neigh_table *t, struct neigh_key k)
{
	struct neigh_info i;
	return neigh_get(t, &k, &i) == 0 ? i.state : NEIGH_NONE;
}

/* One source on port 1 sprays 100,000 addresses for 10 s (10 a
 * millisecond). Meanwhile another source on port 1 asks for a new
 * neighbour every 100 ms, and a neighbour on port 0 is flushed and asked
 * for again every 500 ms: each is asked for at once and resolves, and
 * the flood holds no more than its source's share. */
static void
test_flood_spoils_only_its_source(void **state)
{
	(void)state;
	memset(&seen, 0, sizeof(seen));
	struct neigh_conf c = {.seed = 3};
	struct neigh_table *t = neigh_create(&c, &ops, NULL);
	size_t mem = neigh_memory(t);
	const uint8_t attacker[4] = {198, 51, 100, 66}, victim[4] = {198, 51, 100, 7};
	const uint8_t other[4] = {203, 0, 113, 9};
	uint8_t mac[6];
	unsigned int same_port_ok = 0, other_port_ok = 0;
	for (uint32_t i = 0; i < 100000; i++) {
		uint64_t now = i / 10;
		struct neigh_key k = k4(1, i);
		int rc = neigh_resolve(t, &k, attacker, &pkt, now, mac);
		assert_int_equal(rc, -EAGAIN);
		if (i % 10 == 0)
			neigh_timer(t, now);
		if (i % 1000 == 500) { /* every 100 ms: a new host on port 1 */
			struct neigh_key n = k4(1, 0x800000 + i);
			uint64_t before = seen.requests;
			assert_int_equal(neigh_resolve(t, &n, victim, &pkt, now, mac), -EAGAIN);
			assert_int_equal(seen.requests, before + 1);
			assert_memory_equal(&seen.last, &n, sizeof(n));
			assert_int_equal(neigh_confirm(t, &n, mac_a, NEIGH_F_SOLICITED, now), 0);
			same_port_ok += state_of(t, n) == NEIGH_REACHABLE;
		}
		if (i % 5000 == 2500) { /* every 500 ms: port 0's neighbour again */
			struct neigh_key g = k4(0, 1);
			neigh_flush(t, 0);
			assert_int_equal(neigh_resolve(t, &g, other, &pkt, now, mac), -EAGAIN);
			assert_int_equal(neigh_confirm(t, &g, mac_a, NEIGH_F_SOLICITED, now), 0);
			other_port_ok += state_of(t, g) == NEIGH_REACHABLE;
		}
		struct neigh_port_stats ps;
		assert_int_equal(neigh_get_port_stats(t, 1, &ps), 0);
		assert_true(ps.incomplete <= 32 + 1); /* the attacker's share, the victim's one */
	}
	assert_int_equal(same_port_ok, 100);
	assert_int_equal(other_port_ok, 20);
	assert_int_equal(neigh_memory(t), mem);
	struct neigh_port_stats ps;
	struct neigh_stats st;
	neigh_get_port_stats(t, 1, &ps);
	neigh_get_stats(t, &st);
	print_message("flood: port 1 sent %llu requests, %llu rate-limited, %llu replaced\n",
		      (unsigned long long)ps.requests, (unsigned long long)ps.rate_limited,
		      (unsigned long long)ps.replaced);
	/* The attacker's requests: its burst, then its rate for 10 s. */
	assert_true(ps.requests <= 32 + 100 * 10 + 1 + 100);
	assert_true(ps.replaced >= 100000 - 32 - 1000);
	assert_int_equal(ps.refused, 0);
	assert_int_equal(st.table_full, 0);
	neigh_free(t);
}

/* Every packet from a new source (a spoofed flood): the port's budget
 * binds, the port's oldest resolution is replaced, other ports resolve
 * untouched, and the requests on the link stay within the port's rate. */
static void
test_spoofed_sources(void **state)
{
	(void)state;
	memset(&seen, 0, sizeof(seen));
	struct neigh_conf c = {.seed = 5};
	struct neigh_table *t = neigh_create(&c, &ops, NULL);
	uint8_t mac[6];
	for (uint32_t i = 0; i < 50000; i++) {
		uint64_t now = 1000000 + i / 10;
		uint8_t src[4] = {100, (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i};
		struct neigh_key k = k4(2, i);
		assert_int_equal(neigh_resolve(t, &k, src, &pkt, now, mac), -EAGAIN);
		if (i % 10 == 0)
			neigh_timer(t, now);
		struct neigh_port_stats ps;
		neigh_get_port_stats(t, 2, &ps);
		assert_true(ps.incomplete <= 256);
	}
	struct neigh_port_stats ps;
	neigh_get_port_stats(t, 2, &ps);
	assert_true(ps.replaced > 0);
	assert_true(ps.requests <= 256 + 1000 * 5 + 1);
	struct neigh_stats st;
	neigh_get_stats(t, &st);
	assert_true(st.sources <= 256);
	/* Port 3 is another link: its budget is whole. */
	struct neigh_key g = k4(3, 1);
	uint64_t before = seen.requests;
	assert_int_equal(neigh_resolve(t, &g, NULL, &pkt, 1005000, mac), -EAGAIN);
	assert_int_equal(seen.requests, before + 1);
	neigh_free(t);
}

/* A source asking for more than its share at once: its first 32 go out
 * (its burst), the rest replace its own oldest and wait for tokens. */
static void
test_source_rate(void **state)
{
	(void)state;
	memset(&seen, 0, sizeof(seen));
	struct neigh_conf c = {.seed = 9};
	struct neigh_table *t = neigh_create(&c, &ops, NULL);
	uint8_t mac[6];
	const uint8_t src[4] = {192, 0, 2, 1};
	for (uint32_t i = 0; i < 1000; i++) {
		struct neigh_key k = k4(0, i);
		assert_int_equal(neigh_resolve(t, &k, src, &pkt, 5000, mac), -EAGAIN);
	}
	struct neigh_port_stats ps;
	neigh_get_port_stats(t, 0, &ps);
	assert_int_equal(ps.requests, 32);
	assert_int_equal(ps.rate_limited, 1000 - 32);
	assert_int_equal(ps.replaced, 1000 - 32);
	assert_int_equal(ps.incomplete, 32);
	assert_int_equal(seen.dropped, 1000 - 32); /* the replaced ones' packets */
	/* A second later its bucket is full again (its burst): the 32 left
	 * (all rate-limited so far) are asked for at their retransmission. */
	neigh_timer(t, 6000);
	neigh_get_port_stats(t, 0, &ps);
	assert_int_equal(ps.requests, 32 + 32);
	neigh_free(t);
}

/* A full table gives up its oldest FAILED entry first, then its oldest
 * STALE one; never a REACHABLE one. */
static void
test_eviction_order(void **state)
{
	(void)state;
	memset(&seen, 0, sizeof(seen));
	struct neigh_conf c = {.max_entries = 16, .seed = 11};
	struct neigh_table *t = neigh_create(&c, &ops, NULL);
	uint8_t mac[6];
	for (uint32_t i = 0; i < 8; i++) { /* 8 STALE, learned at 0..7 */
		struct neigh_key k = k4(0, i);
		assert_int_equal(neigh_learn(t, &k, mac_a, i), 0);
	}
	for (uint32_t i = 8; i < 12; i++) { /* 4 REACHABLE */
		struct neigh_key k = k4(0, i);
		neigh_learn(t, &k, mac_a, i);
		neigh_confirm(t, &k, mac_a, NEIGH_F_SOLICITED, i);
	}
	for (uint32_t i = 12; i < 16; i++) { /* 4 that fail at 3012..3015 */
		struct neigh_key k = k4(1, i);
		assert_int_equal(neigh_resolve(t, &k, NULL, NULL, i, mac), -EAGAIN);
	}
	neigh_timer(t, 3100);
	assert_int_equal(state_of(t, k4(1, 12)), NEIGH_FAILED);
	/* Four new ones take the FAILED entries, oldest first... */
	for (uint32_t i = 0; i < 4; i++) {
		struct neigh_key k = k4(0, 100 + i);
		assert_int_equal(neigh_learn(t, &k, mac_a, 3200), 0);
		assert_int_equal(state_of(t, k4(1, 12 + i)), NEIGH_NONE);
		assert_int_equal(state_of(t, k4(0, 0)), NEIGH_STALE);
	}
	/* ...then the STALE ones, oldest first. */
	struct neigh_key k = k4(0, 200);
	assert_int_equal(neigh_learn(t, &k, mac_a, 3300), 0);
	assert_int_equal(state_of(t, k4(0, 0)), NEIGH_NONE);
	assert_int_equal(state_of(t, k4(0, 1)), NEIGH_STALE);
	for (uint32_t i = 8; i < 12; i++)
		assert_int_equal(state_of(t, k4(0, i)), NEIGH_REACHABLE);
	struct neigh_stats st;
	neigh_get_stats(t, &st);
	assert_int_equal(st.evicted, 5);
	neigh_free(t);
}

/* A clock far from 0, and a collection time beyond the wheel: timers run
 * at their times all the same. */
static void
test_wheel_clock(void **state)
{
	(void)state;
	memset(&seen, 0, sizeof(seen));
	struct neigh_conf c = {.gc_stale_ms = 3600000, .seed = 13};
	struct neigh_table *t = neigh_create(&c, &ops, NULL);
	const uint64_t t0 = 1000000000000ull;
	uint8_t mac[6];
	struct neigh_key k = k4(0, 1), s = k4(0, 2);
	assert_int_equal(neigh_resolve(t, &k, NULL, &pkt, t0, mac), -EAGAIN);
	assert_int_equal(neigh_timer(t, t0), t0 + 1000);
	assert_int_equal(neigh_learn(t, &s, mac_a, t0), 0);
	neigh_timer(t, t0 + 2999);
	assert_int_equal(state_of(t, k), NEIGH_INCOMPLETE);
	assert_int_equal(seen.requests, 3);
	neigh_timer(t, t0 + 3000);
	assert_int_equal(state_of(t, k), NEIGH_FAILED);
	assert_int_equal(seen.failed, 1);
	/* An hour of STALE, in steps of a minute. */
	for (uint64_t m = 1; m < 60; m++)
		neigh_timer(t, t0 + m * 60000);
	assert_int_equal(state_of(t, s), NEIGH_STALE);
	neigh_timer(t, t0 + 3600000 - 1);
	assert_int_equal(state_of(t, s), NEIGH_STALE);
	neigh_timer(t, t0 + 3600000);
	assert_int_equal(state_of(t, s), NEIGH_NONE);
	assert_int_equal(state_of(t, k), NEIGH_FAILED);
	neigh_timer(t, t0 + 3603000); /* an hour after it failed */
	assert_int_equal(state_of(t, k), NEIGH_NONE);
	assert_int_equal(neigh_timer(t, t0 + 4000000), 0);
	neigh_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flood_spoils_only_its_source),
		cmocka_unit_test(test_spoofed_sources),
		cmocka_unit_test(test_source_rate),
		cmocka_unit_test(test_eviction_order),
		cmocka_unit_test(test_wheel_clock),
	};
	return cmocka_run_group_tests_name("neigh_budget", tests, NULL, NULL);
}
