/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's stages (dp_burst) on crafted frames, through the harness
 * of tests/common: which frames take the fast frame test, and how the
 * IPv4 stage uses a NIC's checksum verdict. Needs EAL (no hugepages): two
 * net_null ports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "dp_inline.h"
#include "dp_harness.h"
#include "udp_frame.h"

static struct router r;
static const uint8_t gw_mac[6] = {0x02, 0, 0, 0, 0, 0x99};

/* An IPv4 UDP frame from a host on port 0 to 198.18.0.1 (routed via the
 * gateway on port 1), with the given RX checksum flags; a wrong header
 * checksum if bad_sum. */
static struct rte_mbuf *
frame(bool bad_sum, uint64_t rx_flags)
{
	static const uint8_t src[4] = {192, 0, 2, 2}, dst[4] = {198, 18, 0, 1};
	struct rte_mbuf *m = rte_pktmbuf_alloc(r.pool);
	assert_non_null(m);
	udp_frame(m, FIB_AF_INET, &r.dp.port[0].mac, (const struct rte_ether_addr *)gw_mac, src,
		  dst, 1024);
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	assert_int_equal(rte_ipv4_cksum(ip), 0); /* udp_frame summed it: the sum over it is 0 */
	if (bad_sum)
		ip->hdr_checksum ^= 0x0101;
	m->ol_flags = rx_flags;
	return m;
}

/* Run one frame through the stages on port 0; @return 1 if forwarded,
 * 0 if dropped for its checksum (anything else fails the test). */
static int
run(struct rte_mbuf *m)
{
	struct rt_worker *w = &r.dp.worker[0];
	uint64_t fwd = w->st.fwd, bad = w->st.drop[RT_DROP_CHECKSUM];
	dp_burst(&r.dp, w, 0, &m, 1);
	for (uint16_t p = 0; p < r.dp.nb_ports; p++)
		dp_tx_flush(w, p);
	int forwarded = (int)(w->st.fwd - fwd), dropped = (int)(w->st.drop[RT_DROP_CHECKSUM] - bad);
	assert_int_equal(forwarded + dropped, 1);
	return forwarded;
}

static void
test_no_offload(void **state)
{
	(void)state;
	r.dp.port[0].rx_ip_csum = false;
	assert_int_equal(run(frame(false, 0)), 1);
	assert_int_equal(run(frame(true, 0)), 0);
	/* Flags from a port that did not ask for the offload mean nothing. */
	assert_int_equal(run(frame(true, RTE_MBUF_F_RX_IP_CKSUM_GOOD)), 0);
}

static void
test_offload(void **state)
{
	(void)state;
	r.dp.port[0].rx_ip_csum = true;
	/* Marked good: trusted, not summed again (the wrong sum shows it). */
	assert_int_equal(run(frame(true, RTE_MBUF_F_RX_IP_CKSUM_GOOD)), 1);
	assert_int_equal(run(frame(false, RTE_MBUF_F_RX_IP_CKSUM_GOOD)), 1);
	/* Marked bad, or not checked: summed in software, which decides. */
	assert_int_equal(run(frame(true, RTE_MBUF_F_RX_IP_CKSUM_BAD)), 0);
	assert_int_equal(run(frame(false, RTE_MBUF_F_RX_IP_CKSUM_BAD)), 1);
	assert_int_equal(run(frame(true, RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN)), 0);
	assert_int_equal(run(frame(false, RTE_MBUF_F_RX_IP_CKSUM_NONE)), 1);
	assert_int_equal(run(frame(true, RTE_MBUF_F_RX_IP_CKSUM_NONE)), 0);
	r.dp.port[0].rx_ip_csum = false;
}

/* The fast frame test, built in a register (dp_fast_frame_of): every
 * byte it is meant to compare counts, in wire order, and no other. A
 * wrong template would still forward (the slow path decides the same),
 * only slower, so it is tested here directly. */
static void
test_fast_frame(void **state)
{
	(void)state;
	const struct rt_port *p = &r.dp.port[0];
	struct dp_fast_frame f4 = dp_fast_frame_of(p, RTE_ETHER_TYPE_IPV4, 0x45, 20);
	struct dp_fast_frame f6 = dp_fast_frame_of(p, RTE_ETHER_TYPE_IPV6, -1, 40);
	struct rte_mbuf *m = frame(false, 0);
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
	assert_true(dp_frame_fast(&f4, m, b));
	assert_false(dp_frame_fast(&f6, m, b)); /* IPv4's ethertype */
	for (int i = 0; i < 16; i++) {
		uint8_t was = b[i];
		b[i] ^= 0x10;
		bool counts = i < 6 || i == 12 || i == 13 || i == 14;
		assert_int_equal(dp_frame_fast(&f4, m, b), !counts);
		b[i] = was;
	}
	b[12] = 0x86, b[13] = 0xdd, b[14] = 0x6a; /* IPv6, any traffic class */
	assert_true(dp_frame_fast(&f6, m, b));
	m->data_len = 14 + 39; /* shorter than the IPv6 header */
	assert_false(dp_frame_fast(&f6, m, b));
	rte_pktmbuf_free(m);
}

/* An IPv4 frame to the routed 198.18.0.1 arriving on port with TTL 1:
 * one the worker hands to the control core (data class) for an ICMP
 * time exceeded. */
static struct rte_mbuf *
expiring(uint16_t port)
{
	static const uint8_t src[4] = {192, 0, 2, 2}, dst[4] = {198, 18, 0, 1};
	struct rte_mbuf *m = rte_pktmbuf_alloc(r.pool);
	assert_non_null(m);
	udp_frame(m, FIB_AF_INET, &r.dp.port[port].mac, (const struct rte_ether_addr *)gw_mac, src,
		  dst, 1024);
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	ip->time_to_live = 1;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

/* A flood that fills its port's exception ring costs that port alone:
 * another port's packet of the same class still goes to the control
 * core, and the drops are counted on the flooded port (docs/neigh.md). */
static void
test_exc_rings_by_port(void **state)
{
	(void)state;
	struct rt_worker *w = &r.dp.worker[0];
	unsigned int room = rte_ring_get_capacity(w->exc[0][RT_EXC_DATA]);
	uint64_t drop0 = w->st.port_exc_drop[0][RT_EXC_DATA];
	for (unsigned int i = 0; i < room + 100; i++) {
		struct rte_mbuf *m = expiring(0);
		dp_burst(&r.dp, w, 0, &m, 1);
	}
	assert_int_equal(rte_ring_count(w->exc[0][RT_EXC_DATA]), room);
	assert_int_equal(w->st.port_exc_drop[0][RT_EXC_DATA] - drop0, 100);
	struct rte_mbuf *m = expiring(1);
	dp_burst(&r.dp, w, 1, &m, 1);
	assert_int_equal(rte_ring_count(w->exc[1][RT_EXC_DATA]), 1);
	assert_int_equal(w->st.port_exc_drop[1][RT_EXC_DATA], 0);
	struct rte_mbuf *x[64];
	unsigned int n;
	for (uint16_t p = 0; p < 2; p++)
		while ((n = rte_ring_dequeue_burst(w->exc[p][RT_EXC_DATA], (void **)x, 64, NULL)) >
		       0)
			rte_pktmbuf_free_bulk(x, n);
}

/* A frame for rt_exc_class_hdr: Ethernet, then an IPv4 header (20
 * bytes) or an IPv6 one (40) with protocol proto, then the bytes given. */
static uint32_t
class_frame(uint8_t *f, bool v6, uint8_t proto, const uint8_t *rest, uint32_t n)
{
	memset(f, 0, 128);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	ip[0] = v6 ? 0x60 : 0x45;
	if (v6)
		ip[6] = proto;
	else
		ip[9] = proto;
	uint32_t at = RTE_ETHER_HDR_LEN + (v6 ? 40 : 20);
	if (n > 0) /* rest may be NULL then */
		memcpy(f + at, rest, n);
	return at + n;
}

/* Which exception ring a packet for the router takes (and which punt
 * bucket): the routing protocols' own, also behind IPv6 extension
 * headers; discovery only right after the fixed header; SYNs, fragments
 * and what is cut short with the rest. */
static void
test_exc_class(void **state)
{
	(void)state;
	uint8_t f[128];
	/* TCP from port 179 with ACK; with SYN alone */
	const uint8_t bgp[20] = {0, 179, 0x9c, 0x40, [13] = 0x10},
		      syn[20] = {0x9c, 0x40, 0, 179, [13] = 0x02};
	const uint8_t ns[24] = {135}, bfd[8] = {0xc0, 0, 0x0e, 0xc8}; /* to 3784 */
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, false, 6, bgp, 20)), RT_EXC_PROTO);
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, false, 6, syn, 20)), RT_EXC_LOCAL);
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, false, 17, bfd, 8)), RT_EXC_PROTO);
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, true, 89, NULL, 0)), RT_EXC_PROTO);
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, true, 58, ns, 24)), RT_EXC_NEIGH);
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, true, 6, bgp, 20)), RT_EXC_PROTO);
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, false, 89, NULL, 0)), RT_EXC_PROTO);
	uint32_t n = class_frame(f, false, 89, NULL, 0);
	f[RTE_ETHER_HDR_LEN + 6] = 0x20; /* a first fragment (MF) */
	assert_int_equal(rt_exc_class_hdr(f, n), RT_EXC_LOCAL);

	/* Behind a Hop-by-Hop header (8 bytes), then a Destination Options
	 * header (16): BGP's segment still its own; OSPF too */
	uint8_t x[64] = {60, 0, [8] = 6, 1};
	memcpy(x + 24, bgp, 20);
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, true, 0, x, 44)), RT_EXC_PROTO);
	x[8] = 89;
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, true, 0, x, 24)), RT_EXC_PROTO);
	/* a third header is too many; a Fragment header (44) ends the walk */
	x[8] = 60;
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, true, 0, x, 44)), RT_EXC_LOCAL);
	x[0] = 44;
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, true, 0, x, 44)), RT_EXC_LOCAL);
	/* neighbour solicitation behind a header: not discovery */
	uint8_t h[32] = {58, 0};
	memcpy(h + 8, ns, 24);
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, true, 0, h, 32)), RT_EXC_LOCAL);
	/* a header running past the frame, or cut before its length */
	uint8_t big[8] = {89, 200};
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, true, 0, big, 8)), RT_EXC_LOCAL);
	assert_int_equal(rt_exc_class_hdr(f, class_frame(f, true, 0, big, 1)), RT_EXC_LOCAL);
}

/* The routing protocols' class is a peer's alone: BGP's, BFD's and
 * OSPF's headers from a source in the peers' table take it; from any
 * other source (or with no table) the rest's, the stranger flagged.
 * Then a full table: each of its 512 peers found, and none of 200,000
 * other addresses. */
static void
test_exc_peers(void **state)
{
	(void)state;
	uint8_t f[128];
	const uint8_t bgp[20] = {0, 179, 0x9c, 0x40, [13] = 0x10};
	struct rt_peer_table *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	const uint8_t peer4[4] = {198, 51, 100, 7}, peer6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 7};
	rt_peer_table_add(t, FIB_AF_INET, peer4);
	rt_peer_table_add(t, FIB_AF_INET6, peer6);
	bool stranger;
	for (int v6 = 0; v6 < 2; v6++)
		for (int from_peer = 0; from_peer < 2; from_peer++) {
			uint32_t n = class_frame(f, v6, 6, bgp, 20);
			uint8_t *src = f + RTE_ETHER_HDR_LEN + (v6 ? 8 : 12);
			if (from_peer)
				memcpy(src, v6 ? peer6 : peer4, v6 ? 16 : 4);
			else
				src[v6 ? 15 : 3] = 8; /* the peer's neighbour */
			assert_int_equal(rt_exc_class_local(t, f, n, &stranger),
					 from_peer ? RT_EXC_PROTO : RT_EXC_LOCAL);
			assert_int_equal(stranger, !from_peer);
			assert_int_equal(rt_exc_class_local(NULL, f, n, &stranger), RT_EXC_LOCAL);
			assert_true(stranger);
		}
	/* Not a routing protocol's: no stranger, whoever sends it. */
	const uint8_t syn[20] = {0x9c, 0x40, 0, 179, [13] = 0x02};
	assert_int_equal(rt_exc_class_local(t, f, class_frame(f, false, 6, syn, 20), &stranger),
			 RT_EXC_LOCAL);
	assert_false(stranger);
	free(t);

	t = calloc(1, sizeof(*t));
	assert_non_null(t);
	uint64_t x = 88172645463325252ull;
	uint8_t a[RT_PEERS_MAX][16];
	for (int i = 0; i < RT_PEERS_MAX; i++) {
		memset(a[i], 0, 16);
		for (int k = 0; k < 16; k += 8) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(a[i] + k, &x, 8);
		}
		rt_peer_table_add(t, i % 2 ? FIB_AF_INET6 : FIB_AF_INET, a[i]);
	}
	assert_int_equal(t->n, RT_PEERS_MAX);
	for (int i = 0; i < RT_PEERS_MAX; i++)
		assert_true(rt_peer_known(t, i % 2 ? FIB_AF_INET6 : FIB_AF_INET, a[i]));
	for (int i = 0; i < 200000; i++) {
		uint8_t b[16];
		for (int k = 0; k < 16; k += 8) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(b + k, &x, 8);
		}
		assert_false(rt_peer_known(t, i % 2 ? FIB_AF_INET6 : FIB_AF_INET, b));
	}
	free(t);
}

/* The rings' sizes scale down so that all of them full hold at most
 * half the pool, and never below 64 a ring. */
static void
test_exc_ring_shift(void **state)
{
	(void)state;
	assert_int_equal(rt_exc_ring_shift(2, 1, 8191), 0); /* 1,280 a port */
	assert_int_equal(rt_exc_ring_shift(3, 1, 8191), 0);
	assert_int_equal(rt_exc_ring_shift(4, 1, 8191), 1);
	assert_int_equal(rt_exc_ring_shift(16, 8, 8191), 2); /* the floor: 64 a ring */
	assert_int_equal(rt_exc_ring_shift(16, 8, 1u << 20), 0);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (dp_harness_eal(argv[0], "test_dp", 2) < 0)
		return 1;
	dp_harness_setup(&r, 64);
	struct fib_route rt = {.dst = {.family = FIB_AF_INET, .len = 15, .addr.v4 = 0xc6120000},
			       .nh = dp_harness_gateway(&r, FIB_AF_INET, 1, gw_mac)};
	if (fib_route_add(r.fib, &rt) < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_frame),     cmocka_unit_test(test_no_offload),
		cmocka_unit_test(test_offload),        cmocka_unit_test(test_exc_rings_by_port),
		cmocka_unit_test(test_exc_ring_shift), cmocka_unit_test(test_exc_class),
		cmocka_unit_test(test_exc_peers),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
