/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fragmentation (frag.c: forwarded IPv4 packets, the router's own IPv4
 * and IPv6 ones) and reassembly of fragments addressed to the router
 * (reasm.c): sizes, offsets and flags of the pieces, the whole datagram
 * rebuilt from fragments in any order, duplicates, overlaps, limits and
 * expiry, and no mbuf left behind. Needs EAL (no hugepages) for the pool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_harness.h"
#include "reasm.h"
#include "ctl_priv.h"

static struct router r; /* rt_fragment4/6 use its pool alone */

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

/* Data byte i of the test datagrams. */
static uint8_t
pattern(uint32_t i)
{
	return (uint8_t)(i * 7 + i / 251);
}

static uint8_t *
new_frame(struct rte_mbuf **m, unsigned int len, uint16_t ethertype)
{
	*m = rte_pktmbuf_alloc(r.pool);
	assert_non_null(*m);
	uint8_t *b = (uint8_t *)rte_pktmbuf_append(*m, (uint16_t)len);
	assert_non_null(b);
	memset(b, 0, RTE_ETHER_HDR_LEN);
	b[12] = (uint8_t)(ethertype >> 8);
	b[13] = (uint8_t)ethertype;
	return b;
}

/* An IPv4 fragment from src to 192.0.2.1 with optlen bytes of options
 * (no-ops, then an end of list): len data bytes at off. */
static struct rte_mbuf *
frag4_from(uint32_t src, unsigned int optlen, uint16_t id, uint32_t off, uint32_t len, bool more)
{
	struct rte_mbuf *m;
	unsigned int hl = 20 + optlen;
	uint8_t *b = new_frame(&m, RTE_ETHER_HDR_LEN + hl + len, RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + RTE_ETHER_HDR_LEN);
	*ip = (struct rte_ipv4_hdr){
		.version_ihl = (uint8_t)(0x40 | hl / 4),
		.total_length = rte_cpu_to_be_16((uint16_t)(hl + len)),
		.packet_id = rte_cpu_to_be_16(id),
		.fragment_offset = rte_cpu_to_be_16((uint16_t)(off / 8 | (more ? 0x2000 : 0))),
		.time_to_live = 64,
		.next_proto_id = IPPROTO_ICMP,
		.src_addr = rte_cpu_to_be_32(src),
		.dst_addr = rte_cpu_to_be_32(0xc0000201)};
	memset(ip + 1, 1, optlen);
	if (optlen > 0)
		((uint8_t *)(ip + 1))[optlen - 1] = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	for (uint32_t i = 0; i < len; i++)
		b[RTE_ETHER_HDR_LEN + hl + i] = pattern(off + i);
	return m;
}

/* An IPv4 fragment from 192.0.2.2 to 192.0.2.1: len data bytes at off. */
static struct rte_mbuf *
frag4(uint16_t id, uint32_t off, uint32_t len, bool more)
{
	return frag4_from(0xc0000202, 0, id, off, len, more);
}

/* An IPv6 fragment from 2001:db8::2 to 2001:db8::1 (ICMPv6 inside):
 * len data bytes at off; with a Destination Options header before the
 * Fragment header if dstopt. */
static struct rte_mbuf *
frag6(uint32_t id, uint32_t off, uint32_t len, bool more, bool dstopt)
{
	struct rte_mbuf *m;
	unsigned int ext = dstopt ? 8 : 0;
	uint8_t *b = new_frame(&m, RTE_ETHER_HDR_LEN + 40 + ext + 8 + len, RTE_ETHER_TYPE_IPV6);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(b + RTE_ETHER_HDR_LEN);
	*ip = (struct rte_ipv6_hdr){.vtc_flow = rte_cpu_to_be_32(0x60000000),
				    .payload_len = rte_cpu_to_be_16((uint16_t)(ext + 8 + len)),
				    .proto = dstopt ? IPPROTO_DSTOPTS : IPPROTO_FRAGMENT,
				    .hop_limits = 64,
				    .src_addr = {0x20, 0x01, 0x0d, 0xb8, [15] = 2},
				    .dst_addr = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}};
	uint8_t *p = (uint8_t *)(ip + 1);
	if (dstopt) { /* next: Fragment; length 0 (8 bytes); a PadN option */
		static const uint8_t opt[8] = {IPPROTO_FRAGMENT, 0, 1, 4, 0, 0, 0, 0};
		memcpy(p, opt, 8);
		p += 8;
	}
	struct rte_ipv6_fragment_ext *fh = (struct rte_ipv6_fragment_ext *)p;
	fh->next_header = IPPROTO_ICMPV6;
	fh->reserved = 0;
	fh->frag_data = rte_cpu_to_be_16((uint16_t)(off | (more ? 1 : 0)));
	fh->id = rte_cpu_to_be_32(id);
	for (uint32_t i = 0; i < len; i++)
		p[8 + i] = pattern(off + i);
	return m;
}

/* m's bytes from off are the data pattern, len of them. */
static void
assert_data(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	assert_int_equal(rte_pktmbuf_pkt_len(m), off + len);
	for (uint32_t i = 0; i < len; i++) {
		uint8_t buf;
		const uint8_t *b = rte_pktmbuf_read(m, off + i, 1, &buf);
		if (*b != pattern(i))
			fail_msg("data byte %u is %u, not %u", i, *b, pattern(i));
	}
}

static uint64_t now = 1000000;

/* rt_reasm_in for a fragment that gets no parameter problem. */
static struct rte_mbuf *
reasm_in(struct rt_reasm *ra, struct rte_mbuf *m)
{
	uint16_t pointer;
	struct rte_mbuf *out = rt_reasm_in(ra, m, r.pool, now, &pointer);
	assert_int_equal(pointer, 0);
	return out;
}

/* Feed the n fragments in the order given; @return what the last gave
 * (the earlier ones must give nothing). */
static struct rte_mbuf *
feed(struct rt_reasm *ra, struct rte_mbuf **f, int n)
{
	struct rte_mbuf *out = NULL;
	for (int i = 0; i < n; i++) {
		assert_true(rt_reasm_is_fragment(f[i]));
		out = reasm_in(ra, f[i]);
		if (i < n - 1)
			assert_null(out);
	}
	return out;
}

/* 5,000 data bytes in four IPv4 fragments, given in reverse order; then
 * in order with a duplicate. */
static void
test_reasm4(void **state)
{
	(void)state;
	unsigned int avail = rte_mempool_avail_count(r.pool);
	struct rt_reasm *ra = rt_reasm_create(0, 1);
	assert_non_null(ra);
	struct rte_mbuf *f[5] = {frag4(9, 4440, 560, false), frag4(9, 2960, 1480, true),
				 frag4(9, 1480, 1480, true), frag4(9, 0, 1480, true)};
	struct rte_mbuf *m = feed(ra, f, 4);
	assert_non_null(m);
	assert_true(m->nb_segs > 1); /* 5,034 bytes: more than one mbuf */
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	assert_int_equal(rte_be_to_cpu_16(ip->total_length), 5020);
	assert_int_equal(ip->fragment_offset, 0);
	assert_int_equal(rte_ipv4_cksum(ip), 0);
	assert_int_equal(rte_be_to_cpu_16(ip->packet_id), 9);
	assert_data(m, RTE_ETHER_HDR_LEN + 20, 5000);
	rte_pktmbuf_free(m);

	f[0] = frag4(10, 0, 1480, true);
	f[1] = frag4(10, 1480, 1480, true);
	f[2] = frag4(10, 1480, 1480, true); /* the same again: ignored */
	f[3] = frag4(10, 2960, 1480, true);
	f[4] = frag4(10, 4440, 560, false);
	m = feed(ra, f, 5);
	assert_non_null(m);
	assert_data(m, RTE_ETHER_HDR_LEN + 20, 5000);
	rte_pktmbuf_free(m);

	/* An empty last fragment ends a datagram too. */
	f[0] = frag4(11, 0, 1480, true);
	f[1] = frag4(11, 1480, 0, false);
	m = feed(ra, f, 2);
	assert_non_null(m);
	assert_data(m, RTE_ETHER_HDR_LEN + 20, 1480);
	rte_pktmbuf_free(m);

	struct rt_reasm_stats st;
	rt_reasm_stats(ra, &st);
	assert_int_equal(st.reqds, 11);
	assert_int_equal(st.oks, 3);
	assert_int_equal(st.fails, 0);
	rt_reasm_destroy(ra);
	assert_int_equal(rte_mempool_avail_count(r.pool), avail);
}

/* IPv6, with a Destination Options header before the Fragment header:
 * the Fragment header goes, the options stay, the next header chain is
 * mended. Then an atomic fragment, a datagram of its own (RFC 6946). */
static void
test_reasm6(void **state)
{
	(void)state;
	unsigned int avail = rte_mempool_avail_count(r.pool);
	struct rt_reasm *ra = rt_reasm_create(0, 1);
	struct rte_mbuf *f[3] = {frag6(0x12345678, 2464, 536, false, true),
				 frag6(0x12345678, 0, 1232, true, true),
				 frag6(0x12345678, 1232, 1232, true, true)};
	struct rte_mbuf *m = feed(ra, f, 3);
	assert_non_null(m);
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(b + RTE_ETHER_HDR_LEN);
	assert_int_equal(ip->proto, IPPROTO_DSTOPTS);
	assert_int_equal(b[RTE_ETHER_HDR_LEN + 40], IPPROTO_ICMPV6); /* was: Fragment */
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 8 + 3000);
	assert_data(m, RTE_ETHER_HDR_LEN + 48, 3000);
	rte_pktmbuf_free(m);

	m = reasm_in(ra, frag6(7, 0, 100, false, false));
	assert_non_null(m);
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	assert_int_equal(ip->proto, IPPROTO_ICMPV6);
	assert_data(m, RTE_ETHER_HDR_LEN + 40, 100);
	rte_pktmbuf_free(m);
	rt_reasm_destroy(ra);
	assert_int_equal(rte_mempool_avail_count(r.pool), avail);
}

/* What is given up: an overlap discards the datagram (RFC 5722), a
 * datagram longer than 65,535 bytes is refused, data after the first
 * that is not a multiple of 8 is refused, and a datagram that does not
 * complete expires: a copy of its first fragment returned, with its
 * port, for the ICMP error. No mbuf is held meanwhile. */
static void
test_reasm_limits(void **state)
{
	(void)state;
	unsigned int avail = rte_mempool_avail_count(r.pool);
	struct rt_reasm *ra = rt_reasm_create(0, 1);
	struct rt_reasm_stats st;

	assert_null(reasm_in(ra, frag4(1, 0, 1480, true)));
	assert_null(reasm_in(ra, frag4(1, 1472, 1480, true))); /* overlaps */
	rt_reasm_stats(ra, &st);
	assert_int_equal(st.fails, 2); /* the datagram, and the fragment that broke it */
	assert_null(reasm_in(ra, frag4(1, 1480, 100, false)));
	assert_null(reasm_in(ra, frag4(2, 65528, 16, false))); /* too long */
	/* IPv6 answers those two with a parameter problem at the field
	 * (RFC 8200 4.5): the fragment is left for the error. */
	uint16_t pointer;
	struct rte_mbuf *bad = frag6(3, 0, 1001, true, false);
	assert_null(rt_reasm_in(ra, bad, r.pool, now, &pointer));
	assert_int_equal(pointer, 4); /* the payload length */
	rte_pktmbuf_free(bad);
	bad = frag6(4, 65528, 16, false, true);
	assert_null(rt_reasm_in(ra, bad, r.pool, now, &pointer));
	assert_int_equal(pointer, 40 + 8 + 2); /* the offset, after the options header */
	rte_pktmbuf_free(bad);
	rt_reasm_stats(ra, &st);
	assert_int_equal(st.fails, 5);
	/* id 1's last fragment is pending, without its first: it expires
	 * with nothing to quote. */
	assert_int_equal(rte_mempool_avail_count(r.pool), avail); /* nothing held */
	assert_null(rt_reasm_expire(ra, r.pool, now + RT_REASM_TIMEOUT4_MS));

	/* First fragments of both families, on ports 3 and 4: each expires
	 * at its family's timeout, oldest first, as its first fragment. */
	for (uint16_t id = 100; id < 110; id++) {
		struct rte_mbuf *m = frag4(id, 0, 1480, true);
		m->port = 3;
		assert_null(reasm_in(ra, m));
		m = frag6(id, 0, 1232, true, true);
		m->port = 4;
		assert_null(reasm_in(ra, m));
	}
	assert_int_equal(rte_mempool_avail_count(r.pool), avail);
	rt_reasm_stats(ra, &st);
	assert_int_equal(st.pending, 20);
	assert_int_equal(st.bytes, 10 * 2048 + 10 * 2048); /* 1 KiB chunks */
	assert_null(rt_reasm_expire(ra, r.pool, now + RT_REASM_TIMEOUT4_MS - 1));
	for (uint16_t id = 100; id < 110; id++) {
		struct rte_mbuf *first = rt_reasm_expire(ra, r.pool, now + RT_REASM_TIMEOUT4_MS);
		assert_non_null(first);
		assert_int_equal(first->port, 3);
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
			first, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
		assert_int_equal(rte_be_to_cpu_16(ip->fragment_offset), 0x2000); /* the first */
		assert_int_equal(rte_be_to_cpu_16(ip->packet_id), id);
		assert_int_equal(rte_ipv4_cksum(ip), 0);
		assert_data(first, RTE_ETHER_HDR_LEN + 20, 1280); /* what a quote needs */
		rte_pktmbuf_free(first);
	}
	assert_null(rt_reasm_expire(ra, r.pool, now + RT_REASM_TIMEOUT6_MS - 1));
	for (uint16_t id = 100; id < 110; id++) {
		struct rte_mbuf *first = rt_reasm_expire(ra, r.pool, now + RT_REASM_TIMEOUT6_MS);
		assert_non_null(first);
		assert_int_equal(first->port, 4);
		const uint8_t *b = rte_pktmbuf_mtod(first, const uint8_t *);
		/* As it came: the options header, the Fragment header (offset
		 * 0, more, its id), then data. */
		assert_int_equal(b[RTE_ETHER_HDR_LEN + 6], IPPROTO_DSTOPTS);
		assert_int_equal(b[RTE_ETHER_HDR_LEN + 40], IPPROTO_FRAGMENT);
		const struct rte_ipv6_fragment_ext *fh = (const void *)(b + RTE_ETHER_HDR_LEN + 48);
		assert_int_equal(fh->next_header, IPPROTO_ICMPV6);
		assert_int_equal(rte_be_to_cpu_16(fh->frag_data), 1);
		assert_int_equal(rte_be_to_cpu_32(fh->id), id);
		assert_data(first, RTE_ETHER_HDR_LEN + 56, 1232);
		rte_pktmbuf_free(first);
	}
	assert_null(rt_reasm_expire(ra, r.pool, now + RT_REASM_TIMEOUT6_MS));
	rt_reasm_stats(ra, &st);
	assert_int_equal(st.timeouts, 21);
	assert_int_equal(st.pending, 0);
	assert_int_equal(st.bytes, 0);
	rt_reasm_destroy(ra);
	assert_int_equal(rte_mempool_avail_count(r.pool), avail);
}

/* A train whose rebuilt datagram's length would wrap: a first fragment
 * with 4 bytes of options, the rest reaching offset 65,515 with 20-byte
 * headers (each fragment alone fits 65,535). Sent as an attacker sends
 * it (first fragment first), last first, and with the first in the
 * middle; also IPv6 with a Destination Options header before the
 * Fragment header in the first fragment only. Never reassembled; and
 * the same trains 8 bytes shorter are, with their exact length. */
static void
test_reasm_wrap(void **state)
{
	(void)state;
	unsigned int avail = rte_mempool_avail_count(r.pool);
	struct rt_reasm *ra = rt_reasm_create(0, 1);
	for (int shorter = 0; shorter < 2; shorter++) {
		/* The data ends at 65,515 (24 + 65,515 wraps to 3) or 65,507. */
		uint32_t last_off = shorter ? 65504 : 65512, last_len = 3;
		for (int order = 0; order < 3; order++) {
			uint16_t id = (uint16_t)(500 + shorter * 10 + order);
			struct rte_mbuf *f[48];
			int n = 0;
			f[n++] = frag4_from(0xc0000202, 4, id, 0, 1480, true);
			for (uint32_t off = 1480; off < last_off; off += 1480)
				f[n++] = frag4(id, off, RTE_MIN(1480u, last_off - off), true);
			f[n++] = frag4(id, last_off, last_len, false);
			if (order == 1) { /* reversed */
				for (int i = 0; i < n / 2; i++) {
					struct rte_mbuf *t = f[i];
					f[i] = f[n - 1 - i];
					f[n - 1 - i] = t;
				}
			} else if (order == 2) { /* the first in the middle */
				struct rte_mbuf *t = f[0];
				f[0] = f[n / 2];
				f[n / 2] = t;
			}
			struct rte_mbuf *out = NULL;
			for (int i = 0; i < n; i++) {
				assert_null(out);
				out = reasm_in(ra, f[i]);
			}
			if (!shorter) {
				assert_null(out);
				continue;
			}
			assert_non_null(out);
			const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
				out, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
			assert_int_equal(rte_be_to_cpu_16(ip->total_length), 24 + 65507);
			assert_int_equal(rte_pktmbuf_pkt_len(out), RTE_ETHER_HDR_LEN + 24 + 65507);
			rte_pktmbuf_free(out);
		}
	}
	/* IPv6: the payload length would be 8 (options) + 65,535. */
	struct rte_mbuf *f[64];
	int n = 0;
	f[n++] = frag6(9, 0, 1232, true, true);
	for (uint32_t off = 1232; off < 65528; off += 1232)
		f[n++] = frag6(9, off, RTE_MIN(1232u, 65528 - off), true, false);
	f[n++] = frag6(9, 65528, 7, false, false); /* 8 + 65,535 alone: fits */
	for (int i = n - 1; i >= 0; i--)
		assert_null(reasm_in(ra, f[i]));
	struct rt_reasm_stats st;
	rt_reasm_stats(ra, &st);
	assert_int_equal(st.oks, 3);
	/* A train given up before its last fragment (the fragment before it
	 * already ends past 65,535 - 24) leaves that one pending, alone, as
	 * Linux does: in the two orders where the first came early. */
	assert_int_equal(st.pending, 2);
	rt_reasm_destroy(ra);
	assert_int_equal(rte_mempool_avail_count(r.pool), avail);
}

/* Datagrams that never complete: 5,000 first fragments from as many
 * sources (a spoofed flood) keep the table at its bound and its memory
 * at most its budget, evicting the oldest; a datagram sent after them
 * is rebuilt. One source alone (a host) holds at most an eighth of the
 * datagrams and of the memory: its flood evicts its own, and a datagram
 * another host began before it is rebuilt. */
static void
test_reasm_flood(void **state)
{
	(void)state;
	unsigned int avail = rte_mempool_avail_count(r.pool);
	struct rt_reasm *ra = rt_reasm_create(0, 42);
	struct rt_reasm_stats st;
	for (uint32_t i = 0; i < 5000; i++)
		assert_null(
			reasm_in(ra, frag4_from(0x0a000000 + i, 0, (uint16_t)i, 0, 1480, true)));
	rt_reasm_stats(ra, &st);
	assert_int_equal(st.pending, RT_REASM_MAX);
	assert_int_equal(st.evicted, 5000 - RT_REASM_MAX);
	assert_int_equal(st.src_evicted, 0);
	assert_true(st.bytes <= RT_REASM_MEM_DEFAULT);
	struct rte_mbuf *f[3] = {frag4(7, 0, 1480, true), frag4(7, 1480, 1480, true),
				 frag4(7, 2960, 1480, false)};
	struct rte_mbuf *m = feed(ra, f, 3);
	assert_non_null(m);
	assert_data(m, RTE_ETHER_HDR_LEN + 20, 4440);
	rte_pktmbuf_free(m);
	/* Large ones: the memory, not the count, is the bound. */
	for (uint32_t i = 0; i < 300; i++)
		for (uint32_t off = 0; off < 16 * 1480; off += 1480)
			assert_null(
				reasm_in(ra, frag4_from(0x0b000000 + i, 0, 1, off, 1480, true)));
	rt_reasm_stats(ra, &st);
	assert_true(st.bytes <= RT_REASM_MEM_DEFAULT);
	assert_true(st.pending < 300);
	assert_int_equal(rte_mempool_avail_count(r.pool), avail);
	rt_reasm_destroy(ra);

	/* One source: host B begins a datagram, host A sends 1,000 that never
	 * complete, then 60 of 60 KiB; B's completes. */
	ra = rt_reasm_create(0, 43);
	assert_null(reasm_in(ra, frag4(8, 0, 1480, true)));
	for (uint32_t i = 0; i < 1000; i++)
		assert_null(reasm_in(ra, frag4_from(0x0c000001, 0, (uint16_t)i, 0, 8, true)));
	rt_reasm_stats(ra, &st);
	assert_int_equal(st.pending, 1 + RT_REASM_MAX / 8);
	assert_int_equal(st.src_evicted, 1000 - RT_REASM_MAX / 8);
	for (uint32_t i = 0; i < 60; i++)
		for (uint32_t off = 0; off < 41 * 1480; off += 1480)
			assert_null(reasm_in(ra, frag4_from(0x0c000001, 0, (uint16_t)(2000 + i),
							    off, 1480, true)));
	rt_reasm_stats(ra, &st);
	assert_true(st.bytes <= RT_REASM_MEM_DEFAULT / 8 + 2048);
	assert_int_equal(st.evicted, st.src_evicted); /* only its own */
	f[0] = frag4(8, 1480, 100, false);
	m = reasm_in(ra, f[0]);
	assert_non_null(m);
	assert_data(m, RTE_ETHER_HDR_LEN + 20, 1580);
	rte_pktmbuf_free(m);
	/* A 64 KiB datagram from the flooding source still fits its share. */
	int n = 0;
	struct rte_mbuf *big[45];
	for (uint32_t off = 0; off < 65000; off += 1480)
		big[n++] = frag4_from(0x0c000001, 0, 9999, off, RTE_MIN(1480u, 65000 - off),
				      off + 1480 < 65000);
	m = feed(ra, big, n);
	assert_non_null(m);
	assert_data(m, RTE_ETHER_HDR_LEN + 20, 65000);
	rte_pktmbuf_free(m);
	rt_reasm_destroy(ra);
	assert_int_equal(rte_mempool_avail_count(r.pool), avail);
}

/* The router's own packets larger than the MTU: a reassembled (chained)
 * 5,000-byte IPv4 datagram cut at 1500, an IPv6 one of 3,000 at 1280;
 * their fragments reassemble to the same bytes. */
static void
test_fragment_own(void **state)
{
	(void)state;
	unsigned int avail = rte_mempool_avail_count(r.pool);
	struct rt_reasm *ra = rt_reasm_create(0, 1);
	struct rte_mbuf *f[8], *out[8];
	f[0] = frag4(5, 0, 1480, true);
	f[1] = frag4(5, 1480, 1480, true);
	f[2] = frag4(5, 2960, 1480, true);
	f[3] = frag4(5, 4440, 560, false);
	struct rte_mbuf *m = feed(ra, f, 4);
	assert_non_null(m);
	int n = rt_fragment4(&r, m, 1500, out, 8);
	assert_int_equal(n, 4);
	for (int i = 0; i < n; i++) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
			out[i], const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
		assert_true(rte_be_to_cpu_16(ip->total_length) <= 1500);
		assert_int_equal(out[i]->nb_segs, 1);
	}
	rte_pktmbuf_free(m);
	m = feed(ra, out, n);
	assert_non_null(m);
	assert_data(m, RTE_ETHER_HDR_LEN + 20, 5000);
	rte_pktmbuf_free(m);

	f[0] = frag6(6, 0, 1504, true, false);
	f[1] = frag6(6, 1504, 1496, false, false);
	m = feed(ra, f, 2);
	assert_non_null(m);
	n = rt_fragment6(&r, m, 1280, 0xabcdef, out, 8);
	assert_int_equal(n, 3); /* 1232 + 1232 + 536 */
	for (int i = 0; i < n; i++) {
		const uint8_t *b = rte_pktmbuf_mtod(out[i], const uint8_t *);
		const struct rte_ipv6_hdr *ip =
			(const struct rte_ipv6_hdr *)(b + RTE_ETHER_HDR_LEN);
		const struct rte_ipv6_fragment_ext *fh = (const void *)(ip + 1);
		assert_int_equal(ip->proto, IPPROTO_FRAGMENT);
		assert_int_equal(fh->next_header, IPPROTO_ICMPV6);
		assert_int_equal(rte_be_to_cpu_32(fh->id), 0xabcdef);
		assert_int_equal(rte_be_to_cpu_16(fh->frag_data), (i * 1232) | (i < n - 1));
		assert_true(40 + rte_be_to_cpu_16(ip->payload_len) <= 1280);
	}
	rte_pktmbuf_free(m);
	m = feed(ra, out, n);
	assert_non_null(m);
	assert_data(m, RTE_ETHER_HDR_LEN + 40, 3000);
	/* Below the IPv6 minimum MTU: refused. */
	assert_int_equal(rt_fragment6(&r, m, 1279, 1, out, 8), -EINVAL);
	rte_pktmbuf_free(m);
	rt_reasm_destroy(ra);
	assert_int_equal(rte_mempool_avail_count(r.pool), avail);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (dp_harness_eal(argv[0], "test_frag", 0) < 0)
		return 1;
	r.pool = rte_pktmbuf_pool_create("frag", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					 (int)rte_socket_id());
	if (r.pool == NULL)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fragment4),    cmocka_unit_test(test_reasm4),
		cmocka_unit_test(test_reasm6),       cmocka_unit_test(test_reasm_limits),
		cmocka_unit_test(test_reasm_wrap),   cmocka_unit_test(test_reasm_flood),
		cmocka_unit_test(test_fragment_own),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_mempool_free(r.pool);
	rte_eal_cleanup();
	return rc;
}
