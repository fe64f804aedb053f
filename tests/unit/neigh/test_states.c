/* SPDX-License-Identifier: BSD-3-Clause */
/* The NUD state machine on a fake clock, key consistency, and a flood. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "neigh.h"

/* What the callbacks saw. */
static struct {
	unsigned int probes, ucast_probes;
	uint8_t probe_mac[6];
	unsigned int changed, changed_null;
	uint8_t changed_mac[6];
	unsigned int sent, failed, dropped;
	void *sent_pkts[NEIGH_QUEUE_MAX], *failed_pkts[NEIGH_QUEUE_MAX];
} seen;

static void
on_probe(void *ctx, const struct neigh_key *k, const uint8_t *mac)
{
	(void)ctx, (void)k;
	seen.probes++;
	if (mac) {
		seen.ucast_probes++;
		memcpy(seen.probe_mac, mac, 6);
	}
}

static void
on_changed(void *ctx, const struct neigh_key *k, const uint8_t *mac)
{
	(void)ctx, (void)k;
	seen.changed++;
	if (mac)
		memcpy(seen.changed_mac, mac, 6);
	else
		seen.changed_null++;
}

static void
on_send(void *ctx, const struct neigh_key *k, const uint8_t *mac, void **p, unsigned int n)
{
	(void)ctx, (void)k, (void)mac;
	memcpy(seen.sent_pkts, p, sizeof(void *) * n);
	seen.sent += n;
}

static void
on_failed(void *ctx, const struct neigh_key *k, void **p, unsigned int n)
{
	(void)ctx, (void)k;
	memcpy(seen.failed_pkts, p, sizeof(void *) * n);
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
static const uint8_t mac_b[6] = {0x02, 0, 0, 0, 0, 0xb};
static int pkt[8]; /* stand-ins for packets: their addresses */

static struct neigh_key
k4(uint8_t last)
{
	uint8_t a[4] = {192, 0, 2, last};
	return neigh_key(0, NEIGH_AF_INET, a);
}

static uint8_t
state_of(struct neigh_table *t, struct neigh_key k)
{
	struct neigh_info i;
	return neigh_get(t, &k, &i) == 0 ? i.state : NEIGH_NONE;
}

static int
setup(void **state)
{
	memset(&seen, 0, sizeof(seen));
	struct neigh_conf c = {.seed = 42};
	*state = neigh_create(&c, &ops, NULL);
	return *state ? 0 : -1;
}

static int
teardown(void **state)
{
	neigh_free(*state);
	return 0;
}

static void
test_incomplete_to_failed(void **state)
{
	struct neigh_table *t = *state;
	struct neigh_key k = k4(1);
	uint8_t mac[6];
	/* Four packets into a queue of three: the oldest is dropped. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(neigh_resolve(t, &k, NULL, &pkt[i], 0, mac), -EAGAIN);
	assert_int_equal(state_of(t, k), NEIGH_INCOMPLETE);
	assert_int_equal(seen.probes, 1); /* sent at once */
	assert_int_equal(seen.dropped, 1);
	struct neigh_stats st;
	neigh_get_stats(t, &st);
	assert_int_equal(st.queue_drops, 1);
	assert_int_equal(st.incomplete, 1);
	/* One multicast probe per retransmit time, three in all. */
	assert_int_equal(neigh_timer(t, 999), 1000);
	assert_int_equal(seen.probes, 1);
	neigh_timer(t, 1000);
	assert_int_equal(seen.probes, 2);
	neigh_timer(t, 2000);
	assert_int_equal(seen.probes, 3);
	assert_int_equal(seen.ucast_probes, 0);
	neigh_timer(t, 3000);
	assert_int_equal(state_of(t, k), NEIGH_FAILED);
	assert_int_equal(seen.probes, 3);
	/* The queue comes back for ICMP host unreachable, oldest first. */
	assert_int_equal(seen.failed, 3);
	assert_ptr_equal(seen.failed_pkts[0], &pkt[1]);
	assert_ptr_equal(seen.failed_pkts[2], &pkt[3]);
	neigh_get_stats(t, &st);
	assert_int_equal(st.failed, 1);
	assert_int_equal(st.incomplete, 0);
	/* A new packet restarts resolution. */
	assert_int_equal(neigh_resolve(t, &k, NULL, &pkt[5], 4000, mac), -EAGAIN);
	assert_int_equal(state_of(t, k), NEIGH_INCOMPLETE);
	assert_int_equal(seen.probes, 4);
}

static void
test_resolution_and_aging(void **state)
{
	struct neigh_table *t = *state;
	struct neigh_key k = k4(2);
	uint8_t mac[6];
	assert_int_equal(neigh_resolve(t, &k, NULL, &pkt[0], 0, mac), -EAGAIN);
	assert_int_equal(neigh_resolve(t, &k, NULL, &pkt[1], 10, mac), -EAGAIN);
	/* The reply: REACHABLE, nexthops told, queue sent in order. */
	assert_int_equal(neigh_confirm(t, &k, mac_a, NEIGH_F_SOLICITED | NEIGH_F_OVERRIDE, 100), 0);
	assert_int_equal(state_of(t, k), NEIGH_REACHABLE);
	assert_int_equal(seen.changed, 1);
	assert_memory_equal(seen.changed_mac, mac_a, 6);
	assert_int_equal(seen.sent, 2);
	assert_ptr_equal(seen.sent_pkts[0], &pkt[0]);
	assert_int_equal(neigh_resolve(t, &k, NULL, &pkt[2], 200, mac), 0);
	assert_memory_equal(mac, mac_a, 6);
	/* Reachable time is randomised in [15 s, 45 s). */
	struct neigh_info info;
	assert_int_equal(neigh_get(t, &k, &info), 0);
	assert_true(info.deadline >= 100 + 15000 && info.deadline < 100 + 45000);
	neigh_timer(t, info.deadline - 1);
	assert_int_equal(state_of(t, k), NEIGH_REACHABLE);
	/* Unused for longer than the probe delay: STALE, still usable. */
	neigh_timer(t, info.deadline);
	assert_int_equal(state_of(t, k), NEIGH_STALE);
	uint64_t now = info.deadline + 100;
	assert_int_equal(neigh_resolve(t, &k, NULL, NULL, now, mac), 0);
	assert_int_equal(state_of(t, k), NEIGH_DELAY); /* used: delay, then probe */
	neigh_timer(t, now + 4999);
	assert_int_equal(state_of(t, k), NEIGH_DELAY);
	neigh_timer(t, now + 5000);
	assert_int_equal(state_of(t, k), NEIGH_PROBE);
	assert_int_equal(seen.ucast_probes, 1);
	assert_memory_equal(seen.probe_mac, mac_a, 6);
	/* Confirmed while probing: REACHABLE again, no change told. */
	unsigned int changed = seen.changed;
	assert_int_equal(neigh_confirm(t, &k, mac_a, NEIGH_F_SOLICITED, now + 5500), 0);
	assert_int_equal(state_of(t, k), NEIGH_REACHABLE);
	assert_int_equal(seen.changed, changed);
	/* Used recently when reachable time ends: DELAY directly. */
	assert_int_equal(neigh_get(t, &k, &info), 0);
	neigh_touch(t, &k, info.deadline - 1000);
	neigh_timer(t, info.deadline);
	assert_int_equal(state_of(t, k), NEIGH_DELAY);
	/* Nobody answers the unicast probes: FAILED, nexthops told. */
	uint64_t d = info.deadline;
	neigh_timer(t, d + 5000);
	assert_int_equal(state_of(t, k), NEIGH_PROBE);
	neigh_timer(t, d + 6000);
	neigh_timer(t, d + 7000);
	assert_int_equal(seen.ucast_probes, 4);
	neigh_timer(t, d + 8000);
	assert_int_equal(state_of(t, k), NEIGH_FAILED);
	assert_int_equal(seen.changed_null, 1);
	/* Failed entries are collected after gc_stale_ms. */
	neigh_timer(t, d + 8000 + 59999);
	assert_int_equal(state_of(t, k), NEIGH_FAILED);
	neigh_timer(t, d + 8000 + 60000);
	assert_int_equal(state_of(t, k), NEIGH_NONE);
}

static void
test_learn_and_unsolicited(void **state)
{
	struct neigh_table *t = *state;
	struct neigh_key k = k4(3);
	/* Gratuitous ARP / unsolicited NA: never creates. */
	assert_int_equal(neigh_confirm(t, &k, mac_a, NEIGH_F_OVERRIDE, 0), -ENOENT);
	assert_int_equal(state_of(t, k), NEIGH_NONE);
	/* A request from it, to us: STALE with its MAC. */
	assert_int_equal(neigh_learn(t, &k, mac_a, 0), 0);
	assert_int_equal(state_of(t, k), NEIGH_STALE);
	assert_int_equal(seen.changed, 1);
	assert_int_equal(neigh_learn(t, &k, mac_a, 10), 0);
	assert_int_equal(seen.changed, 1); /* same MAC: nothing */
	/* Unsolicited with override and a new MAC: updated, STALE. */
	assert_int_equal(neigh_confirm(t, &k, mac_b, NEIGH_F_OVERRIDE, 20), 0);
	assert_int_equal(state_of(t, k), NEIGH_STALE);
	assert_memory_equal(seen.changed_mac, mac_b, 6);
	assert_int_equal(seen.changed, 2);
	/* Solicited: REACHABLE. Then a different MAC without override:
	 * ours stays, the entry becomes STALE. */
	assert_int_equal(neigh_confirm(t, &k, mac_b, NEIGH_F_SOLICITED, 30), 0);
	assert_int_equal(state_of(t, k), NEIGH_REACHABLE);
	assert_int_equal(neigh_confirm(t, &k, mac_a, NEIGH_F_SOLICITED, 40), 0);
	assert_int_equal(state_of(t, k), NEIGH_STALE);
	struct neigh_info info;
	neigh_get(t, &k, &info);
	assert_memory_equal(info.mac, mac_b, 6);
	/* STALE and unused for gc_stale_ms: collected, nexthops told. */
	neigh_timer(t, 40 + 60000);
	assert_int_equal(state_of(t, k), NEIGH_NONE);
	assert_int_equal(seen.changed_null, 1);
}

static void
test_more_transitions(void **state)
{
	struct neigh_table *t = *state;
	struct neigh_key k = k4(7);
	uint8_t mac[6];
	/* INCOMPLETE, then an unsolicited advertisement: STALE, queue sent. */
	assert_int_equal(neigh_resolve(t, &k, NULL, &pkt[0], 0, mac), -EAGAIN);
	assert_int_equal(neigh_confirm(t, &k, mac_a, NEIGH_F_OVERRIDE, 10), 0);
	assert_int_equal(state_of(t, k), NEIGH_STALE);
	assert_int_equal(seen.sent, 1);
	/* STALE, used: DELAY; confirmed during the delay: REACHABLE. */
	assert_int_equal(neigh_resolve(t, &k, NULL, NULL, 20, mac), 0);
	assert_int_equal(state_of(t, k), NEIGH_DELAY);
	assert_int_equal(neigh_confirm(t, &k, mac_a, NEIGH_F_SOLICITED, 30), 0);
	assert_int_equal(state_of(t, k), NEIGH_REACHABLE);
	/* REACHABLE, then a request from it with a new MAC: STALE, new MAC. */
	assert_int_equal(neigh_learn(t, &k, mac_b, 40), 0);
	assert_int_equal(state_of(t, k), NEIGH_STALE);
	assert_memory_equal(seen.changed_mac, mac_b, 6);
	/* A request from a neighbour we were resolving completes it. */
	struct neigh_key j = k4(8);
	assert_int_equal(neigh_resolve(t, &j, NULL, &pkt[1], 50, mac), -EAGAIN);
	assert_int_equal(neigh_learn(t, &j, mac_a, 60), 0);
	assert_int_equal(state_of(t, j), NEIGH_STALE);
	assert_int_equal(seen.sent, 2);
	/* An operator's delete tells the nexthops and drops the queue. */
	assert_int_equal(neigh_del(t, &j), 0);
	assert_int_equal(seen.changed_null, 1);
}

static void
test_permanent(void **state)
{
	struct neigh_table *t = *state;
	struct neigh_key k = k4(4), other = k4(5);
	assert_int_equal(neigh_add_permanent(t, &k, mac_a), 0);
	assert_int_equal(neigh_learn(t, &other, mac_b, 0), 0);
	assert_int_equal(neigh_confirm(t, &k, mac_b, NEIGH_F_SOLICITED | NEIGH_F_OVERRIDE, 0), 0);
	assert_int_equal(neigh_learn(t, &k, mac_b, 0), 0);
	neigh_timer(t, 10000000);
	struct neigh_info info;
	assert_int_equal(neigh_get(t, &k, &info), 0);
	assert_int_equal(info.state, NEIGH_PERMANENT);
	assert_memory_equal(info.mac, mac_a, 6);
	assert_int_equal(neigh_flush(t, 0), 0); /* `other` was collected already */
	assert_int_equal(state_of(t, k), NEIGH_PERMANENT);
	assert_int_equal(neigh_del(t, &k), 0);
	assert_int_equal(neigh_del(t, &k), -ENOENT);
}

static void
test_configurable_timers(void **state)
{
	(void)state;
	memset(&seen, 0, sizeof(seen));
	struct neigh_conf c = {.retrans_ms = 250, .mcast_probes = 5, .queue_len = 1};
	struct neigh_table *t = neigh_create(&c, &ops, NULL);
	struct neigh_key k = k4(6);
	uint8_t mac[6];
	assert_int_equal(neigh_resolve(t, &k, NULL, &pkt[0], 0, mac), -EAGAIN);
	assert_int_equal(neigh_resolve(t, &k, NULL, &pkt[1], 0, mac), -EAGAIN);
	assert_int_equal(seen.dropped, 1); /* queue of one */
	for (uint64_t now = 250; now <= 1000; now += 250)
		neigh_timer(t, now);
	assert_int_equal(seen.probes, 5);
	neigh_timer(t, 1250);
	assert_int_equal(state_of(t, k), NEIGH_FAILED);
	assert_int_equal(seen.failed, 1);
	c.queue_len = NEIGH_QUEUE_MAX + 1;
	assert_null(neigh_create(&c, &ops, NULL));
	neigh_free(t);
}

static void
test_key_consistency(void **state)
{
	struct neigh_table *t = *state;
	/* The same neighbour reached through different buffers, with
	 * garbage after the IPv4 address: one key, one entry. */
	uint8_t a[16], b[16];
	memset(a, 0xee, sizeof(a));
	memset(b, 0x11, sizeof(b));
	memcpy(a, (uint8_t[]){198, 51, 100, 7}, 4);
	memcpy(b, (uint8_t[]){198, 51, 100, 7}, 4);
	uint8_t mac[6];
	for (int i = 0; i < 1000; i++) {
		struct neigh_key k = neigh_key(3, NEIGH_AF_INET, i & 1 ? a : b);
		switch (i % 4) {
		case 0:
			neigh_resolve(t, &k, NULL, NULL, (uint64_t)i, mac);
			break;
		case 1:
			neigh_learn(t, &k, mac_a, (uint64_t)i);
			break;
		case 2:
			neigh_touch(t, &k, (uint64_t)i);
			break;
		default:
			neigh_confirm(t, &k, mac_a, NEIGH_F_SOLICITED, (uint64_t)i);
		}
	}
	struct neigh_stats st;
	neigh_get_stats(t, &st);
	assert_int_equal(st.entries, 1);
	/* Another port or family is another neighbour. */
	struct neigh_key p = neigh_key(4, NEIGH_AF_INET, a);
	neigh_learn(t, &p, mac_a, 0);
	uint8_t six[16] = {198, 51, 100, 7};
	struct neigh_key f = neigh_key(3, NEIGH_AF_INET6, six);
	neigh_learn(t, &f, mac_a, 0);
	neigh_get_stats(t, &st);
	assert_int_equal(st.entries, 3);
}

static void
test_flood(void **state)
{
	(void)state;
	memset(&seen, 0, sizeof(seen));
	struct neigh_conf c = {.max_entries = 1024, .seed = 7};
	struct neigh_table *t = neigh_create(&c, &ops, NULL);
	size_t mem = neigh_memory(t);
	/* 100 resolved neighbours first. */
	for (uint32_t i = 0; i < 100; i++) {
		uint8_t a[16] = {
			0x20, 0x01, 0x0d, 0xb8, [14] = (uint8_t)(i >> 8), [15] = (uint8_t)i};
		struct neigh_key k = neigh_key(0, NEIGH_AF_INET6, a);
		neigh_learn(t, &k, mac_a, 0);
		assert_int_equal(neigh_confirm(t, &k, mac_a, NEIGH_F_SOLICITED, 0), 0);
	}
	/* 100,000 distinct unresolved addresses, 10 per millisecond of
	 * fake time, timers running: 10 seconds. */
	uint8_t mac[6];
	uint64_t refused = 0, queued = 0;
	for (uint32_t i = 0; i < 100000; i++) {
		uint8_t a[4] = {10, (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i};
		struct neigh_key k = neigh_key(1, NEIGH_AF_INET, a);
		int rc = neigh_resolve(t, &k, NULL, &pkt[0], i / 10, mac);
		refused += rc == -ENOSPC;
		queued += rc == -EAGAIN;
		if (i % 10 == 0)
			neigh_timer(t, i / 10);
		struct neigh_stats st;
		neigh_get_stats(t, &st);
		assert_true(st.entries <= 1024);
		assert_true(st.incomplete <= 32); /* one source's share */
	}
	assert_int_equal(neigh_memory(t), mem);
	struct neigh_stats st;
	neigh_get_stats(t, &st);
	print_message("flood: %llu queued, %llu refused; %u entries, %llu failed, %llu evicted\n",
		      (unsigned long long)queued, (unsigned long long)refused, st.entries,
		      (unsigned long long)st.failed, (unsigned long long)st.evicted);
	/* One source: it replaces its own oldest, never refused. */
	assert_int_equal(refused, 0);
	assert_true(st.replaced > 0);
	/* Every queued packet came back or was dropped: nothing leaked
	 * (the rest are still queued in INCOMPLETE entries). */
	uint64_t still = 0;
	struct neigh_info info;
	for (uint32_t i = 0; i < 100; i++) {
		uint8_t a[16] = {
			0x20, 0x01, 0x0d, 0xb8, [14] = (uint8_t)(i >> 8), [15] = (uint8_t)i};
		struct neigh_key k = neigh_key(0, NEIGH_AF_INET6, a);
		assert_int_equal(neigh_get(t, &k, &info), 0);
		assert_int_equal(info.state, NEIGH_REACHABLE); /* untouched */
	}
	for (uint32_t i = 0; i < 100000; i++) {
		uint8_t a[4] = {10, (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i};
		struct neigh_key k = neigh_key(1, NEIGH_AF_INET, a);
		if (neigh_get(t, &k, &info) == 0)
			still += info.queued;
	}
	assert_int_equal(seen.failed + seen.dropped + still, queued);
	/* A legitimate new neighbour still resolves once the flood's
	 * incomplete entries have failed. */
	neigh_timer(t, 20000);
	uint8_t g[4] = {192, 0, 2, 200};
	struct neigh_key k = neigh_key(0, NEIGH_AF_INET, g);
	assert_int_equal(neigh_resolve(t, &k, NULL, NULL, 20000, mac), -EAGAIN);
	assert_int_equal(neigh_confirm(t, &k, mac_b, NEIGH_F_SOLICITED, 20001), 0);
	assert_int_equal(neigh_resolve(t, &k, NULL, NULL, 20002, mac), 0);
	assert_memory_equal(mac, mac_b, 6);
	neigh_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_incomplete_to_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolution_and_aging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_learn_and_unsolicited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_more_transitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_permanent, setup, teardown),
		cmocka_unit_test(test_configurable_timers),
		cmocka_unit_test_setup_teardown(test_key_consistency, setup, teardown),
		cmocka_unit_test(test_flood),
	};
	return cmocka_run_group_tests_name("neigh_states", tests, NULL, NULL);
}
