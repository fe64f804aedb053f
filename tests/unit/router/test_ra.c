/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Router advertisement timing (app/router/control/ra.c, RFC 4861 6.2.4-6.2.6)
 * on a made-up clock: rt_ra_timer is driven in 10 ms steps through hours
 * of advertisements in a few milliseconds, and every one the router
 * sends is caught on its way to the worker (rt_ctl_tx, stubbed here).
 * Integration 12 checks the advertisements' contents against a Linux
 * host; this checks the spacing no test of seconds could cover: the
 * first at once, the next three at most 16 s apart, then 198 to 600 s
 * apart, never two within 3 s, solicitations answered within 0.5 s
 * (or 3 s after the last), a change restarting the close ones, and a
 * last one with lifetime 0 when they are turned off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_memcpy.h>

#include "dp_harness.h"
#include "ctl_priv.h"

#define STEP_MS 10
#define MAX_SENT 4096

static struct router r;
static struct {
	uint64_t at;       /* the made-up clock when it was sent */
	uint16_t lifetime; /* router lifetime, seconds */
} sent[MAX_SENT];
static unsigned int nb_sent;
static uint64_t clock_ms; /* what rt_ra_timer was last told */

/* The router's frames to the worker: here, advertisements to count. */
void
rt_ctl_tx(struct router *rt, uint16_t port, struct rte_mbuf *m)
{
	(void)rt;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(port, 0);
	assert_true(rte_pktmbuf_data_len(m) >= 14 + 40 + 16);
	assert_int_equal(f[14 + 40], NEIGH_ND_RA);
	assert_true(nb_sent < MAX_SENT);
	sent[nb_sent].at = clock_ms;
	sent[nb_sent++].lifetime = (uint16_t)(f[14 + 40 + 6] << 8 | f[14 + 40 + 7]);
	rte_pktmbuf_free(m);
}

/* Drive the timer from `from` to `to` (made-up milliseconds). */
static void
run_clock(uint64_t from, uint64_t to)
{
	for (clock_ms = from; clock_ms <= to; clock_ms += STEP_MS)
		rt_ra_timer(&r, clock_ms);
	clock_ms = to;
}

/* A router solicitation from :: to all routers, as a host sends before
 * it has an address (no link-layer option: none is allowed from ::). */
static struct rte_mbuf *
solicitation(void)
{
	uint8_t f[14 + 40 + 8] = {0x33, 0x33, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 0x42, 0x86, 0xdd};
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + 14);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(8);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255;
	ip->dst_addr[0] = 0xff, ip->dst_addr[1] = 0x02, ip->dst_addr[15] = 2;
	uint8_t *icmp = f + 14 + 40;
	icmp[0] = NEIGH_ND_RS;
	uint16_t c = rte_ipv6_udptcp_cksum(ip, icmp);
	memcpy(icmp + 2, &c, 2);
	struct rte_mbuf *m = rte_pktmbuf_alloc(r.pool);
	assert_non_null(m);
	char *d = rte_pktmbuf_append(m, sizeof(f));
	assert_non_null(d);
	rte_memcpy(d, f, sizeof(f));
	return m;
}

static void
test_schedule(void **state)
{
	(void)state;
	nb_sent = 0;
	/* rt_ra_set reads the real clock; the made-up one starts there. */
	uint64_t t0 = rt_now_ms();
	rt_ra_set(&r, 0, true);
	run_clock(t0, t0 + 3 * 3600 * 1000);
	assert_true(nb_sent > 4);
	assert_true(sent[0].at - t0 <= STEP_MS); /* the first at once */
	for (unsigned int i = 1; i < nb_sent; i++) {
		uint64_t gap = sent[i].at - sent[i - 1].at;
		assert_int_equal(sent[i].lifetime, 1800);
		assert_true(gap >= 3000); /* MIN_DELAY_BETWEEN_RAS */
		if (i <= 3)
			assert_true(gap <= 16000); /* the initial ones */
		else
			assert_true(gap >= 198000 && gap <= 600000 + STEP_MS);
	}
	/* Three hours at a mean of 399 s: about 27 more. */
	print_message("%u advertisements in 3 h\n", nb_sent);
	assert_true(nb_sent >= 3 + 10800 / 600 && nb_sent <= 4 + 10800 / 198);
}

static void
test_solicitations(void **state)
{
	(void)state;
	/* Long after the last one: answered within 0.5 s. The made-up
	 * clock must not run ahead of the real one, which rt_ra_rs_in
	 * reads: start it again from now. */
	for (unsigned int k = 0; k < 20; k++) {
		uint64_t t = rt_now_ms();
		r.ra[0].last_ms = t - 10000;
		r.ra[0].next_ms = t + 100000;
		nb_sent = 0;
		rt_ra_rs_in(&r, solicitation(), 0);
		run_clock(t, t + 2000);
		assert_int_equal(nb_sent, 1);
		assert_true(sent[0].at - t <= 500 + 2 * STEP_MS);
	}
	/* Just after one: not within 3 s of it, and several solicitations
	 * get one answer. */
	uint64_t t = rt_now_ms();
	r.ra[0].last_ms = t - 1000;
	r.ra[0].next_ms = t + 100000;
	nb_sent = 0;
	for (unsigned int k = 0; k < 5; k++)
		rt_ra_rs_in(&r, solicitation(), 0);
	run_clock(t, t + 5000);
	assert_int_equal(nb_sent, 1);
	assert_true(sent[0].at >= t - 1000 + 3000 && sent[0].at <= t - 1000 + 3000 + STEP_MS);
	assert_true(r.ctr[RT_CTR_RS_RECEIVED] >= 25);
}

static void
test_change_and_off(void **state)
{
	(void)state;
	/* Settled into the long intervals, then something advertised
	 * changes: at once (3 s after the last at least), then close ones
	 * again. */
	uint64_t t = rt_now_ms();
	r.ra[0].initial_left = 0;
	r.ra[0].last_ms = t - 50000;
	r.ra[0].next_ms = t + 500000;
	rt_ra_changed(&r, 0);
	nb_sent = 0;
	run_clock(t, t + 60000);
	assert_true(nb_sent >= 4);
	assert_true(sent[0].at - t <= STEP_MS);
	for (unsigned int i = 1; i < 4; i++)
		assert_true(sent[i].at - sent[i - 1].at >= 3000 &&
			    sent[i].at - sent[i - 1].at <= 16000);
	/* Off: one last advertisement, lifetime 0, and no more. */
	nb_sent = 0;
	rt_ra_set(&r, 0, false);
	assert_int_equal(nb_sent, 1);
	assert_int_equal(sent[0].lifetime, 0);
	run_clock(t + 60000, t + 3600 * 1000);
	assert_int_equal(nb_sent, 1);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (dp_harness_eal(argv[0], "test_ra", 2) < 0)
		return 1;
	dp_harness_setup(&r, 64);
	/* Advertisements come from the port's link-local address. */
	struct fib_prefix ll = {.family = FIB_AF_INET6, .len = 64};
	ll.addr.v6[0] = 0xfe, ll.addr.v6[1] = 0x80, ll.addr.v6[15] = 1;
	r.addr[0] = (struct rt_addr){.port = 0, .p = ll};
	r.nb_addrs = 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_solicitations),
		cmocka_unit_test(test_change_and_off),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
