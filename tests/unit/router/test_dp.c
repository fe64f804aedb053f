/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's stages (dp_burst) on crafted frames, through the harness
 * of tests/common: which frames take the fast frame test, how the IPv4
 * stage uses a NIC's checksum verdict, and IPv4 fragmentation (frag.c,
 * which the control core runs on the packets the stage punts). Needs EAL (no hugepages):
 * two net_null ports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "dp.h"
#include "dp_harness.h"
#include "dp_stages.h"
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
	udp_frame(m, FIB_AF_INET, &r.port[0].mac, (const struct rte_ether_addr *)gw_mac, src, dst,
		  1024);
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
	struct rt_worker *w = &r.worker[0];
	uint64_t fwd = w->st.fwd, bad = w->st.drop[RT_DROP_CHECKSUM];
	dp_burst(&r, w, 0, &m, 1);
	for (uint16_t p = 0; p < r.nb_ports; p++)
		rte_eth_tx_buffer_flush(p, 0, w->txb[p]);
	int forwarded = (int)(w->st.fwd - fwd), dropped = (int)(w->st.drop[RT_DROP_CHECKSUM] - bad);
	assert_int_equal(forwarded + dropped, 1);
	return forwarded;
}

static void
test_no_offload(void **state)
{
	(void)state;
	r.port[0].rx_ip_csum = false;
	assert_int_equal(run(frame(false, 0)), 1);
	assert_int_equal(run(frame(true, 0)), 0);
	/* Flags from a port that did not ask for the offload mean nothing. */
	assert_int_equal(run(frame(true, RTE_MBUF_F_RX_IP_CKSUM_GOOD)), 0);
}

static void
test_offload(void **state)
{
	(void)state;
	r.port[0].rx_ip_csum = true;
	/* Marked good: trusted, not summed again (the wrong sum shows it). */
	assert_int_equal(run(frame(true, RTE_MBUF_F_RX_IP_CKSUM_GOOD)), 1);
	assert_int_equal(run(frame(false, RTE_MBUF_F_RX_IP_CKSUM_GOOD)), 1);
	/* Marked bad, or not checked: summed in software, which decides. */
	assert_int_equal(run(frame(true, RTE_MBUF_F_RX_IP_CKSUM_BAD)), 0);
	assert_int_equal(run(frame(false, RTE_MBUF_F_RX_IP_CKSUM_BAD)), 1);
	assert_int_equal(run(frame(true, RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN)), 0);
	assert_int_equal(run(frame(false, RTE_MBUF_F_RX_IP_CKSUM_NONE)), 1);
	assert_int_equal(run(frame(true, RTE_MBUF_F_RX_IP_CKSUM_NONE)), 0);
	r.port[0].rx_ip_csum = false;
}

/* The fast frame test, built in a register (dp_fast_frame_of): every
 * byte it is meant to compare counts, in wire order, and no other. A
 * wrong template would still forward (the slow path decides the same),
 * only slower, so it is tested here directly. */
static void
test_fast_frame(void **state)
{
	(void)state;
	const struct rt_port *p = &r.port[0];
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

/* An IPv4 frame of 1,800 payload bytes (a counting pattern) with 12
 * bytes of options: a no-op, a loose source route (copied into every
 * fragment) and a record route (first fragment only). */
static struct rte_mbuf *
big_frame(uint16_t frag_field)
{
	static const uint8_t opt[12] = {1, 0x83, 7, 4, 10, 0, 0, 1, 7, 3, 4, 0};
	struct rte_mbuf *m = rte_pktmbuf_alloc(r.pool);
	assert_non_null(m);
	uint8_t *b = (uint8_t *)rte_pktmbuf_append(m, RTE_ETHER_HDR_LEN + 32 + 1800);
	assert_non_null(b);
	memset(b, 0, RTE_ETHER_HDR_LEN);
	b[12] = 0x08;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + RTE_ETHER_HDR_LEN);
	*ip = (struct rte_ipv4_hdr){.version_ihl = 0x48,
				    .total_length = rte_cpu_to_be_16(32 + 1800),
				    .packet_id = rte_cpu_to_be_16(77),
				    .fragment_offset = rte_cpu_to_be_16(frag_field),
				    .time_to_live = 64,
				    .next_proto_id = IPPROTO_UDP,
				    .src_addr = rte_cpu_to_be_32(0xc0000202),
				    .dst_addr = rte_cpu_to_be_32(0xc6120001)};
	memcpy(ip + 1, opt, sizeof(opt));
	for (int i = 0; i < 1800; i++)
		b[RTE_ETHER_HDR_LEN + 32 + i] = (uint8_t)(i * 7);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

static void
test_fragment4(void **state)
{
	(void)state;
	struct rte_mbuf *m = big_frame(0), *f[8];
	int n = rt_fragment4(&r, m, 576, f, 8);
	/* 544 payload bytes a fragment (576 less the header, to 8). */
	assert_int_equal(n, 4);
	const uint8_t *orig = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN + 32);
	unsigned int pos = 0;
	for (int i = 0; i < n; i++) {
		struct rte_ipv4_hdr *h =
			rte_pktmbuf_mtod_offset(f[i], struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
		unsigned int hl = (h->version_ihl & 0xf) * 4u,
			     tot = rte_be_to_cpu_16(h->total_length);
		uint16_t fo = rte_be_to_cpu_16(h->fragment_offset);
		assert_int_equal(rte_ipv4_cksum(h), 0);
		assert_true(tot <= 576);
		assert_int_equal(rte_pktmbuf_data_len(f[i]), RTE_ETHER_HDR_LEN + tot);
		assert_int_equal(h->packet_id, rte_cpu_to_be_16(77));
		assert_int_equal((fo & RTE_IPV4_HDR_OFFSET_MASK) * 8, pos);
		assert_int_equal((fo & RTE_IPV4_HDR_MF_FLAG) != 0, i < n - 1);
		if (i == 0) {
			assert_int_equal(hl, 32); /* every option */
		} else {
			static const uint8_t copied[8] = {0x83, 7, 4, 10, 0, 0, 1, 0};
			assert_int_equal(hl, 28); /* the source route alone, padded */
			assert_memory_equal(h + 1, copied, sizeof(copied));
		}
		assert_memory_equal((uint8_t *)h + hl, orig + pos, tot - hl);
		pos += tot - hl;
		rte_pktmbuf_free(f[i]);
	}
	assert_int_equal(pos, 1800);
	rte_pktmbuf_free(m);

	/* A fragment cut again keeps its place, and the more-fragments flag
	 * on its last piece. */
	m = big_frame(RTE_IPV4_HDR_MF_FLAG | 100);
	assert_int_equal(rt_fragment4(&r, m, 576, f, 8), 4);
	uint16_t fo = rte_be_to_cpu_16(
		rte_pktmbuf_mtod_offset(f[3], struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN)
			->fragment_offset);
	assert_int_equal(fo, RTE_IPV4_HDR_MF_FLAG | (100 + 204));
	for (int i = 0; i < 4; i++)
		rte_pktmbuf_free(f[i]);
	rte_pktmbuf_free(m);

	/* DF set: not cut; too few slots: nothing left allocated. */
	m = big_frame(RTE_IPV4_HDR_DF_FLAG);
	assert_int_equal(rt_fragment4(&r, m, 576, f, 8), -EINVAL);
	rte_pktmbuf_free(m);
	m = big_frame(0);
	unsigned int avail = rte_mempool_avail_count(r.pool);
	assert_int_equal(rt_fragment4(&r, m, 576, f, 2), -ENOBUFS);
	assert_int_equal(rte_mempool_avail_count(r.pool), avail);
	rte_pktmbuf_free(m);
}

int
main(int argc, char **argv)
{
	char *eal[] = {argv[0],
		       "-l",
		       "0",
		       "--no-huge",
		       "-m",
		       "256",
		       "--no-pci",
		       "--no-telemetry",
		       "--file-prefix=test_dp",
		       "--vdev=net_null0",
		       "--vdev=net_null1",
		       "--log-level=lib.eal:error"};
	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0)
		return 1;
	dp_harness_setup(&r, 64);
	struct fib_route rt = {.dst = {.family = FIB_AF_INET, .len = 15, .addr.v4 = 0xc6120000},
			       .nh = dp_harness_gateway(&r, FIB_AF_INET, 1, gw_mac)};
	if (fib_route_add(r.fib, &rt) < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_frame),
		cmocka_unit_test(test_fragment4),
		cmocka_unit_test(test_no_offload),
		cmocka_unit_test(test_offload),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
