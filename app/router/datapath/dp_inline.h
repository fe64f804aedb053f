/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the per-family datapath stages (ipv4.c, ipv6.c). All
 * run on a worker: no lock, no atomic read-modify-write, no allocation,
 * no system call, no log.
 */
#ifndef ROUTER_DP_INLINE_H
#define ROUTER_DP_INLINE_H

#include <assert.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "datapath.h"

/* A 16-bit field in network order, as a number: one rotate (DPDK's
 * rte_be_to_cpu_16 on a variable goes through a register pair). */
static inline uint16_t
dp_be16(rte_be16_t v)
{
	static_assert(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN, "dp_be16 swaps");
	return __builtin_bswap16(v);
}

/* Whether a frame is addressed to the port's own MAC. Eight-byte loads
 * (the MAC and the two bytes after it, in the frame and in struct
 * rt_port), compared on the MAC's 48 bits: fewer instructions than
 * rte_is_same_ether_addr's byte-wise compare. */
static inline bool
dp_to_port_mac(const struct rt_port *p, const uint8_t *frame)
{
	uint64_t a, b;
	static_assert(offsetof(struct rt_port, mac) + 8 <= sizeof(struct rt_port),
		      "eight bytes readable at rt_port.mac");
	memcpy(&a, frame, 8);
	memcpy(&b, &p->mac, 8);
	return ((a ^ b) << 16) == 0;
}

/* Whether a family stage keeps a frame: long enough for its Ethernet
 * header, sent to the port's own address, of the stage's ethertype
 * (frame_kind's F_IPV4 or F_IPV6, in one branch). */
static inline bool
dp_frame_ours(const struct rt_port *p, const struct rte_mbuf *m, const uint8_t *frame,
	      rte_be16_t ethertype)
{
	uint16_t type;
	memcpy(&type, frame + offsetof(struct rte_ether_hdr, ether_type), sizeof(type));
	return (rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN) & dp_to_port_mac(p, frame) &
	       (type == ethertype);
}

/*
 * The usual frame of a family: sent to the port's own address (bytes
 * 0-5), of the family's ethertype (12-13), for IPv4 with a 20-byte header
 * (byte 14: version 4, IHL 5; IPv6's byte 14 holds traffic class bits, so
 * its version is tested apart), and long enough for the IP header. The
 * bytes are compared in one 16-byte compare against a template built once
 * a burst, in place of the per-field tests of dp_frame_ours and the
 * version test. Every other frame takes dp_frame_ours and the full
 * validation.
 */
struct dp_fast_frame {
	__m128i tmpl;
	unsigned int care;    /* the template's bytes that count, one bit each */
	unsigned int min_len; /* the frame holds the IP header */
};

/*
 * byte14 < 0: byte 14 does not count. The template is put together in a
 * register. Written byte by byte into a stack buffer and read back by one
 * 16-byte load, it could not be forwarded from the pending stores, so the
 * load waited until every store before it had reached the cache: after
 * an RX burst those are the driver's copies of the whole burst (memif
 * copies each frame into its mbuf).
 */
static inline struct dp_fast_frame
dp_fast_frame_of(const struct rt_port *p, uint16_t ethertype, int byte14, unsigned int ip_hdr_len)
{
	uint32_t mac_lo;
	uint16_t mac_hi;
	memcpy(&mac_lo, &p->mac.addr_bytes[0], sizeof(mac_lo));
	memcpy(&mac_hi, &p->mac.addr_bytes[4], sizeof(mac_hi));
	__m128i t = _mm_cvtsi64_si128((long long)((uint64_t)mac_hi << 32 | mac_lo));
	t = _mm_insert_epi16(t, rte_cpu_to_be_16(ethertype), 6); /* bytes 12-13 */
	unsigned int care = 0x303fu;                             /* bytes 0-5, 12 and 13 */
	if (byte14 >= 0) {
		t = _mm_insert_epi8(t, byte14, 14);
		care |= 1u << 14;
	}
	return (struct dp_fast_frame){
		.tmpl = t, .care = care, .min_len = RTE_ETHER_HDR_LEN + ip_hdr_len};
}

static inline bool
dp_frame_fast(const struct dp_fast_frame *t, const struct rte_mbuf *m, const uint8_t *frame)
{
	__m128i f = _mm_loadu_si128((const __m128i *)frame);
	unsigned int eq = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(f, t->tmpl));
	return ((~eq & t->care) == 0) & (rte_pktmbuf_data_len(m) >= t->min_len);
}

/* Whether a frame went to a link-layer group address (broadcast or
 * multicast: bit 0 of the first byte). Such frames are received, but a
 * router does not forward what they carry (Linux's ip_forward and
 * ip6_forward drop anything not sent to the host's own address). */
static inline bool
dp_l2_group(const uint8_t *frame)
{
	return (frame[0] & 1) != 0;
}

/* The ports at the start of a TCP or UDP header, as they are, for the
 * flow hash: one 32-bit load. (A short packet's missing bytes are read
 * from the mbuf's buffer: they only feed the hash.) */
static inline uint32_t
dp_l4_ports(const uint8_t *l4)
{
	uint32_t v;
	memcpy(&v, l4, sizeof(v));
	return v;
}

/* A packet's ports (host order) for the policy rules, in f: when its
 * protocol (f->proto) is TCP, UDP or SCTP and l4 holds l4_len >= 4 bytes
 * of that header (later: a later fragment, which has none), else 0. No
 * branch: the 4 bytes at l4 are read whatever they are (inside the mbuf's
 * buffer: the stage checked the header fits the frame) and kept or
 * cleared by a mask. */
static inline void
dp_rule_ports(struct fib_flow *f, const uint8_t *l4, uint32_t l4_len, bool later)
{
	uint32_t v = rte_be_to_cpu_32(dp_l4_ports(l4));
	bool ports =
		(f->proto == IPPROTO_TCP) | (f->proto == IPPROTO_UDP) | (f->proto == IPPROTO_SCTP);
	v &= -(uint32_t)(ports & !later & (l4_len >= 4));
	f->sport = (uint16_t)(v >> 16);
	f->dport = (uint16_t)v;
}

static inline void
dp_drop(struct rt_worker *w, struct rte_mbuf *m, enum rt_drop why)
{
	w->st.drop[why]++;
	w->st.drop_total++;
	w->st.port_drop[w->rx_port]++;
	rte_pktmbuf_free(m);
}

/* Hand a packet to the control core on its ingress port's ring of its
 * class; it never waits: a full ring drops, counted by class and port. */
static inline void
dp_punt(struct rt_worker *w, struct rte_mbuf *m, enum rt_punt why, uint32_t nh)
{
	static const uint8_t full[RT_EXC_CLASSES] = {RT_DROP_EXC_NEIGH_FULL, RT_DROP_EXC_PROTO_FULL,
						     RT_DROP_EXC_LOCAL_FULL, RT_DROP_EXC_DATA_FULL};
	enum rt_exc_class c = RT_EXC_DATA;
	if (why == RT_PUNT_ARP) {
		c = RT_EXC_NEIGH;
	} else if (why == RT_PUNT_LOCAL) {
		bool stranger;
		c = rt_exc_class_local(__atomic_load_n(w->peers, __ATOMIC_ACQUIRE),
				       rte_pktmbuf_mtod(m, const uint8_t *),
				       rte_pktmbuf_data_len(m), &stranger);
		w->st.port_proto_strangers[w->rx_port] += stranger;
	}
	*rt_meta(m) = (struct rt_meta){.nh = nh, .reason = (uint8_t)why}; /* own = 0 */
	m->port = w->rx_port; /* the control core answers on it */
	if (unlikely(rte_ring_sp_enqueue(w->exc[w->rx_port][c], m) != 0)) {
		w->st.port_exc_drop[w->rx_port][c]++;
		dp_drop(w, m, (enum rt_drop)full[c]);
		return;
	}
	w->st.punt[why]++;
	w->st.punt_total++;
}

/*
 * A burst's forwarded packets, handed to the TX buffers once, at the end
 * of the burst (dp_out_flush). Appending packets one at a time to a TX
 * buffer, and counting them one at a time, are load-add-store chains
 * through memory, a dependency from packet to packet. So the stages keep
 * the count in a local variable of their own (never in this struct,
 * whose address the inlined helpers pass around and which therefore
 * lives in memory) and hand it to dp_out_flush.
 */
struct dp_out {
	struct rte_mbuf *m[RT_BURST];
	uint16_t port[RT_BURST];
};

/* Write this core's prebuilt Ethernet header (a loaded header slot) in
 * front of the packet. The header is 14 bytes of a 16-byte register: one
 * 16-byte store, its last two bytes the packet's own (the first two of
 * the IP header). Going through memory instead (a 16-byte store, then
 * 8-byte loads at odd offsets) would stall store forwarding. */
static inline void
dp_l2_write(uint8_t *frame, __m128i hdr)
{
	__m128i *p = (__m128i *)frame;
	const __m128i ip_bytes = _mm_set_epi8(-1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	_mm_storeu_si128(p, _mm_blendv_epi8(hdr, _mm_loadu_si128(p), ip_bytes));
}

/* Write the header and stamp the nexthop as used; @return the egress
 * port, for the stage to queue the packet on. */
static inline int
dp_send(struct rt_worker *w, uint8_t *frame, __m128i hdr, uint16_t port, uint32_t nh)
{
	w->nh_used[nh] = (uint32_t)w->st.rounds; /* this worker's own array */
	dp_l2_write(frame, hdr);
	return port;
}

/* Send a port's TX buffer on the worker's queue: behind what the queue
 * refused before, if anything (txq.c). Usually nothing waits and the
 * queue takes the lot: one test of a word the worker holds in cache. */
static inline void
dp_tx_flush(struct rt_worker *w, uint16_t port)
{
	struct rte_eth_dev_tx_buffer *b = w->txb[port];
	unsigned int n = b->length, sent = 0;
	if (n == 0)
		return;
	b->length = 0;
	if (likely(!(w->backlogged >> port & 1)))
		sent = rte_eth_tx_burst(port, (uint16_t)w->id, b->pkts, (uint16_t)n);
	if (unlikely(sent < n))
		rt_txq_refused(w, port, b->pkts + sent, n - sent);
}

/* Append packets to a port's TX buffer, sending whenever it fills. */
static inline void
dp_tx_append(struct rt_worker *w, uint16_t port, struct rte_mbuf **m, unsigned int n)
{
	struct rte_eth_dev_tx_buffer *b = w->txb[port];
	while (n > 0) {
		unsigned int c = RTE_MIN(n, (unsigned int)(b->size - b->length));
		memcpy(&b->pkts[b->length], m, c * sizeof(*m));
		b->length = (uint16_t)(b->length + c);
		m += c;
		n -= c;
		if (b->length == b->size)
			dp_tx_flush(w, port);
	}
}

/* The end of a burst: its forwarded packets to their TX buffers, and the
 * counters. Usually the whole burst leaves by one port. */
static inline void
dp_out_flush(struct rt_worker *w, struct dp_out *out, unsigned int n)
{
	if (n == 0)
		return;
	w->st.fwd += n;
	uint16_t p0 = out->port[0];
	unsigned int same = 0;
	for (unsigned int i = 0; i < n; i++)
		same += out->port[i] == p0;
	if (likely(same == n)) {
		w->st.port_tx[p0] += n;
		dp_tx_append(w, p0, out->m, n);
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		w->st.port_tx[out->port[i]]++;
		dp_tx_append(w, out->port[i], &out->m[i], 1);
	}
}

/*
 * What the nexthop says about a packet. For a gateway or an on-link
 * destination (forward: the TTL and MTU checks come next, before any
 * neighbour resolution, as in Linux's ip_forward) return true; otherwise
 * punt or drop the packet as the nexthop's type says and return false.
 */
static inline bool
dp_forwardable(struct rt_worker *w, struct rte_mbuf *m, const struct nh_dp *d, uint32_t nh)
{
	if (likely(d->type == NH_T_GATEWAY || d->type == NH_T_CONNECTED))
		return true;
	switch (d->type) {
	case NH_T_LOCAL:
		dp_punt(w, m, RT_PUNT_LOCAL, nh);
		return false;
	case NH_T_BLACKHOLE:
		dp_drop(w, m, RT_DROP_BLACKHOLE);
		return false;
	case NH_T_UNREACHABLE:
		dp_punt(w, m, RT_PUNT_UNREACHABLE, nh);
		return false;
	case NH_T_PROHIBIT:
		dp_punt(w, m, RT_PUNT_PROHIBIT, nh);
		return false;
	default: /* no route (index 0), or an empty group */
		dp_punt(w, m, RT_PUNT_NO_ROUTE, 0);
		return false;
	}
}

/* The end of a packet that came in a link-layer group frame, once
 * routed: delivered locally if its destination is one of ours, else
 * dropped, without an ICMP error (Linux sends none about such packets
 * either). */
static inline void
dp_l2group_end(struct rt_worker *w, struct rte_mbuf *m, uint32_t nh)
{
	if (w->nh[nh].type == NH_T_LOCAL)
		dp_punt(w, m, RT_PUNT_LOCAL, nh);
	else
		dp_drop(w, m, RT_DROP_L2_GROUP);
}

/*
 * Why a forwarding nexthop's header is invalid, once its type, TTL and
 * MTU have passed: its port is down or without carrier (drop), or its
 * neighbour (the
 * gateway, or for an on-link prefix the destination itself) is not
 * resolved yet (punt: the control core resolves it and sends the packet).
 */
static inline void
dp_unsent(const struct rt_dp *dp, struct rt_worker *w, struct rte_mbuf *m, const struct nh_dp *d,
	  uint32_t nh)
{
	if (!rt_dp_port_up(dp, d->port))
		dp_drop(w, m, RT_DROP_PORT_DOWN);
	else if (!rt_dp_port_carrier(dp, d->port))
		dp_drop(w, m, RT_DROP_NO_CARRIER);
	else
		dp_punt(w, m, d->type == NH_T_CONNECTED ? RT_PUNT_CONNECTED : RT_PUNT_RESOLVE, nh);
}

/*
 * Whether a 20-byte IPv4 header's checksum verifies (RFC 1812 5.2.2 (4);
 * ipv4.c calls it for headers starting 0x45; tests/unit/router/
 * test_csum.c). It verifies when the one's complement sum of its 16-bit
 * words is 0xffff, that is when their plain
 * sum is a non-zero multiple of 0xffff (the end-around carry is the sum
 * modulo 0xffff). Since 2^16 is 1 modulo 0xffff, wider words stand for
 * the 16-bit ones (and byte order only multiplies the sum by 2^8, prime
 * to 0xffff): the header is read as two 64-bit words and a 32-bit one,
 * added with end-around carries. The sum is never 0, as the version
 * byte is not. Divisibility by the odd 0xffff is one multiply by its
 * inverse modulo 2^64 and a compare (Granlund and Montgomery); the
 * compiler's own x % 0xffff took a 128-bit multiply and four more steps.
 * ipv4.c's eight-at-a-time check uses the same two constants.
 */
#define DP_CSUM_INV 0xfffefffefffeffffull /* 0xffff's inverse modulo 2^64 */
#define DP_CSUM_MAX 0x1000100010001ull    /* (2^64 - 1) / 0xffff */
static inline bool
dp_csum_ok4(const struct rte_ipv4_hdr *ip)
{
	uint64_t x, b, c = 0;
	memcpy(&x, ip, 8);
	memcpy(&b, (const uint8_t *)ip + 8, 8);
	memcpy(&c, (const uint8_t *)ip + 16, 4);
	/* add, adc, adc: the end-around carries (2^64 is 1 modulo 0xffff
	 * too; the last adds no carry out, as x is then below 2^32). Written
	 * out because _addcarry_u64, which returns its sum through a
	 * pointer, left a dead store behind in GCC 12. */
	__asm__("add %1, %0\n\tadc %2, %0\n\tadc $0, %0" : "+r"(x) : "rm"(b), "rm"(c) : "cc");
	return x * DP_CSUM_INV <= DP_CSUM_MAX;
}

/* Decrement the TTL and update the checksum in place: the word holding
 * the TTL drops by 0x0100, so the checksum rises by 0x0100 with the
 * carry folded back (RFC 1624 eqn. 3 for this one change; the same sum
 * Linux's ip_decrease_ttl makes). Raw loads are network order, so on
 * this little-endian host 0x0100 is 0x0001. */
static inline void
dp_ttl_dec4(struct rte_ipv4_hdr *ip)
{
	uint32_t c = (uint32_t)ip->hdr_checksum + rte_cpu_to_be_16(0x0100);
	ip->hdr_checksum = (uint16_t)(c + (c >= 0xffff));
	ip->time_to_live--;
}

/*
 * The same as dp_ttl_dec4 in one 32-bit add over bytes 8-11 of the header
 * (TTL, protocol, checksum), for the fast path: on this little-endian host
 * -1 takes the TTL down (the caller saw it above 1: nothing borrows) and
 * +0x10000 adds 0x0100 to the big-endian checksum, whose carry out of its
 * first byte runs into its second byte, which is the end-around carry.
 * The result differs from Linux's only when the checksum's second byte is
 * 0xff (0xfeff and 0xffff), so those packets, one in 256, take
 * dp_ttl_dec4 (dp_ttl_fast4 says which).
 */
static inline bool
dp_ttl_fast4(const struct rte_ipv4_hdr *ip)
{
	return ip->time_to_live > 1 && ((const uint8_t *)&ip->hdr_checksum)[1] != 0xff;
}

static inline void
dp_ttl_dec4_fast(struct rte_ipv4_hdr *ip)
{
	static_assert(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN, "dp_ttl_dec4_fast adds little-endian");
	uint32_t w;
	memcpy(&w, &ip->time_to_live, 4);
	w += 0x10000 - 1;
	memcpy(&ip->time_to_live, &w, 4);
}

#endif
