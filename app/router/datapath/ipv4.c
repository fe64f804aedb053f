/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 stage of the worker: check the frames and validate, look up
 * the burst, act on the nexthop. Called with a received burst, whose
 * frames other than IPv4 to this port it hands back (stages.h).
 */
#include <stddef.h>
#include <string.h>

#include <rte_ip.h>

#include "dp_inline.h"
#include "stages.h"
#include "x8.h"

/*
 * Addresses that need a closer look, by first octet, so that one table
 * load per address clears nearly every packet. As a source (RFC 1812
 * 5.3.7): 0/8, 127/8 and multicast are martian, and so is 255.255.255.255.
 * As a destination: 0/8 and 127/8 are martian, multicast is not routed
 * (link-local multicast, 224.0.0.0/24, is for the control core and its
 * control-plane ports), 255.255.255.255 is for us. Other class E
 * addresses are routed.
 */
#define A4_SRC 1 /* octet alone decides: a martian source */
#define A4_DST 2 /* octet alone decides: not forwarded as a destination */
#define A4_ALL 4 /* 255: only 255.255.255.255 is special */
static const uint8_t addr4_class[256] = {
	[0] = A4_SRC | A4_DST,
	[127] = A4_SRC | A4_DST,
	[224 ... 239] = A4_SRC | A4_DST,
	[255] = A4_ALL,
};

/* The slow side of the address check: drop or punt the packet and
 * return true, or return false for a packet to route. Reasons in the
 * order of RFC 1812: martian source, martian destination, then multicast
 * and limited broadcast destinations. */
static __rte_noinline bool
special4(struct rt_worker *w, struct rte_mbuf *m, uint32_t src, uint32_t dst)
{
	if ((addr4_class[src >> 24] & A4_SRC) || src == 0xffffffffu) {
		dp_drop(w, m, RT_DROP_MARTIAN_SRC);
		return true;
	}
	if ((dst >> 24) == 0 || (dst >> 24) == 127) {
		dp_drop(w, m, RT_DROP_MARTIAN_DST);
		return true;
	}
	if ((dst >> 8) == 0xe00000) { /* 224.0.0.0/24, link-local: OSPF, VRRP */
		dp_punt(w, m, RT_PUNT_LOCAL, 0);
		return true;
	}
	if ((dst >> 28) == 0xe) {
		dp_drop(w, m, RT_DROP_MULTICAST);
		return true;
	}
	if (dst == 0xffffffffu) {
		dp_punt(w, m, RT_PUNT_LOCAL, 0);
		return true;
	}
	return false;
}

/* RFC 1812 section 5.2.2, for any header: (1) the frame holds a minimal
 * IP header, (2) the version is 4, (3) the header length is at least 5
 * words and fits, (4) the checksum is right (options included, processed
 * or not: they are forwarded untouched). @return the header length, or 0
 * after dropping the packet. Option-less headers take validate4's inline
 * path instead. */
static __rte_noinline unsigned int
validate4_any(struct rt_worker *w, struct rte_mbuf *m, const struct rte_ipv4_hdr *ip)
{
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip)) {
		dp_drop(w, m, RT_DROP_TRUNCATED);
		return 0;
	}
	if ((ip->version_ihl >> 4) != 4) {
		dp_drop(w, m, RT_DROP_VERSION);
		return 0;
	}
	unsigned int ihl = (ip->version_ihl & 0xf) * 4u;
	if (ihl < sizeof(*ip) || ihl > (unsigned int)rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN) {
		dp_drop(w, m, RT_DROP_IHL);
		return 0;
	}
	if (rte_raw_cksum(ip, ihl) != 0xffff) {
		dp_drop(w, m, RT_DROP_CHECKSUM);
		return 0;
	}
	return ihl;
}

/* The last check of RFC 1812 section 5.2.2, (5): the total length covers
 * the header and fits the frame (which holds the header: one unsigned
 * compare tests both bounds); padding past it is trimmed. */
static inline struct rte_ipv4_hdr *
validate4_len(struct rt_worker *w, struct rte_mbuf *m, struct rte_ipv4_hdr *ip, unsigned int ihl,
	      uint32_t frame)
{
	uint16_t total = dp_be16(ip->total_length);
	if (unlikely((uint32_t)(total - ihl) > frame - ihl)) {
		dp_drop(w, m, RT_DROP_LENGTH);
		return NULL;
	}
	if (total < frame)
		rte_pktmbuf_trim(m, (uint16_t)(frame - total)); /* Ethernet padding */
	return ip;
}

/* Check one packet per RFC 1812 section 5.2.2; on success its IPv4 header
 * is returned and padding past the IP total length is trimmed. */
static inline struct rte_ipv4_hdr *
validate4(struct rt_worker *w, struct rte_mbuf *m, uint8_t *eth)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + RTE_ETHER_HDR_LEN);
	uint32_t frame = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN; /* >= 0: dp_burst */
	unsigned int ihl = sizeof(*ip);
	if (likely(ip->version_ihl == 0x45 && frame >= sizeof(*ip))) {
		if (unlikely(!dp_csum_ok4(ip))) {
			dp_drop(w, m, RT_DROP_CHECKSUM);
			return NULL;
		}
	} else if ((ihl = validate4_any(w, m, ip)) == 0) {
		return NULL;
	}
	return validate4_len(w, m, ip, ihl, frame);
}

/* validate4 for a frame dp_frame_fast passed: the checksum and the
 * length. A checksum the NIC found good is not summed again; one it found
 * bad, or did not check, is (so a NIC's verdict never drops a packet on
 * its own). */
static inline struct rte_ipv4_hdr *
validate4_fast(struct rt_worker *w, struct rte_mbuf *m, uint8_t *eth, bool hw_csum)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + RTE_ETHER_HDR_LEN);
	bool nic_good = hw_csum &&
			(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	if (unlikely(!nic_good && !dp_csum_ok4(ip))) {
		dp_drop(w, m, RT_DROP_CHECKSUM);
		return NULL;
	}
	/* Usually the packet fills the frame exactly, which also says that
	 * it covers its header (the frame holds 20 bytes of it): one compare.
	 * Padded frames (small packets on Ethernet) take the full test. */
	if (likely((uint32_t)dp_be16(ip->total_length) + RTE_ETHER_HDR_LEN ==
		   rte_pktmbuf_data_len(m)))
		return ip;
	return validate4_len(w, m, ip, sizeof(*ip), rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN);
}

#ifdef DP_X8

/*
 * Step 1 for eight packets at once, when each is the usual case:
 * dp_frame_fast's frame (the bytes of its template that count, room for
 * the header), a checksum that verifies, a total length that fills the
 * frame exactly (validate4_fast's common case) and no address that
 * special4 would look at. Then their mbufs, headers and destinations
 * are written to ok, ip and dst and true is returned; if any of the
 * eight is not, nothing is written and the caller takes them one by one
 * (so the checks here may be stricter than the scalar path's, never
 * looser: a NIC's checksum verdict, for one, is left to it).
 *
 * Five 8-byte gathers read bytes 0-33 of each frame and one the mbufs'
 * data_len, and the checks of the eight run as vector operations side
 * by side instead of eight scalar passes. Bytes 0-33 of a
 * frame are read whatever its length, as dp_frame_fast reads 16: they
 * lie inside the mbuf's data room (a received frame starts
 * RTE_PKTMBUF_HEADROOM into a buffer of at least 2 KiB), and a short
 * frame fails the length test.
 */
static inline bool
validate4_x8(const struct dp_fast_frame *fast, struct rte_mbuf *const *pkts, uint8_t *const *frames,
	     struct rte_mbuf **ok, struct rte_ipv4_hdr **ip, uint32_t *dst)
{
	static_assert(sizeof(void *) == 8, "lanes of 64-bit pointers");
	const __m512i f = _mm512_loadu_si512(frames);
	const __m512i mb = _mm512_loadu_si512(pkts);
	const __m512i lo32 = _mm512_set1_epi64(0xffffffff);
	const __m512i len = dp_data_len_x8(mb);
	__m512i w1;                     /* ethertype at 12, version and IHL at 14 */
	__m512i w2 = DP_GATHER8(f, 16); /* total length, id, fragment, TTL, protocol */
	__m512i w3 = DP_GATHER8(f, 24); /* checksum, source, half the destination */
	__m512i w4 = DP_GATHER8(f, 26); /* source, destination */

	/* The frame: the template's bytes that count (the port's MAC, 08 00,
	 * 45), as dp_frame_fast compares them. */
	__mmask8 good = dp_frame_fast_x8(fast, f, &w1);
	/* The total length (bytes 16-17, big-endian) fills the frame, and
	 * the frame holds the 20-byte header. */
	__m512i total = _mm512_or_si512(
		_mm512_and_si512(_mm512_srli_epi64(w2, 8), _mm512_set1_epi64(0xff)),
		_mm512_slli_epi64(_mm512_and_si512(w2, _mm512_set1_epi64(0xff)), 8));
	good = _mm512_mask_cmpeq_epi64_mask(
		good, _mm512_add_epi64(total, _mm512_set1_epi64(RTE_ETHER_HDR_LEN)), len);
	good = _mm512_mask_cmpge_epu64_mask(good, len, _mm512_set1_epi64(fast->min_len));
	/* The checksum, as dp_csum_ok4 checks it: the header's ten 16-bit
	 * words (bytes 14-33) summed as 32-bit halves, which stand for them
	 * modulo 0xffff, verify when the sum is a non-zero multiple of 0xffff
	 * (it is not zero: byte 14 is 0x45). */
	__m512i sum = _mm512_add_epi64(_mm512_srli_epi64(w1, 48), _mm512_srli_epi64(w4, 48));
	sum = _mm512_add_epi64(
		sum, _mm512_add_epi64(_mm512_and_si512(w2, lo32), _mm512_srli_epi64(w2, 32)));
	sum = _mm512_add_epi64(
		sum, _mm512_add_epi64(_mm512_and_si512(w3, lo32), _mm512_srli_epi64(w3, 32)));
	good = _mm512_mask_cmple_epu64_mask(
		good, _mm512_mullo_epi64(sum, _mm512_set1_epi64((long long)DP_CSUM_INV)),
		_mm512_set1_epi64((long long)DP_CSUM_MAX));
	/* The first octets of source (byte 26) and destination (byte 30):
	 * none of 0, 127, 224-239 and 255, which addr4_class marks. */
	__mmask64 odd = _mm512_cmpeq_epi8_mask(w4, _mm512_setzero_si512()) |
			_mm512_cmpeq_epi8_mask(w4, _mm512_set1_epi8(127)) |
			_mm512_cmpeq_epi8_mask(w4, _mm512_set1_epi8(-1)) |
			_mm512_cmpeq_epi8_mask(_mm512_and_si512(w4, _mm512_set1_epi8(-16)),
					       _mm512_set1_epi8(-32));
	good = _mm512_mask_testn_epi64_mask(good, _mm512_movm_epi8(odd),
					    _mm512_set1_epi64(0xff000000ffll));
	if (good != 0xff)
		return false;
	_mm512_storeu_si512(ok, mb);
	_mm512_storeu_si512(ip, _mm512_add_epi64(f, _mm512_set1_epi64(RTE_ETHER_HDR_LEN)));
	const __m256i swap = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
					     12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
	_mm256_storeu_si256(
		(__m256i *)dst,
		_mm256_shuffle_epi8(_mm512_cvtepi64_epi32(_mm512_srli_epi64(w4, 32)), swap));
	return true;
}
#endif

/* The flow hash of a packet under the table's policy; non-first
 * fragments carry no ports and hash on addresses. */
static inline uint32_t
flow_hash4(const struct rt_dp *dp, const struct rte_ipv4_hdr *ip)
{
	bool nonfirst = (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) != 0;
	uint32_t ports = 0;
	uint8_t proto = ip->next_proto_id;
	if (!nonfirst && (proto == IPPROTO_TCP || proto == IPPROTO_UDP))
		ports = dp_l4_ports((const uint8_t *)ip + (ip->version_ihl & 0xf) * 4);
	return rt_dp_flow_hash4(dp, ip->src_addr, ip->dst_addr, proto, ports, nonfirst);
}

/* The packets act4's tests do not clear, in the order of RFC 1812: the
 * nexthop's type, the TTL (5.3.1), the MTU (5.2.1), then why the header
 * is invalid (dp_unsent); and the one in 256 whose checksum the fast
 * TTL update would not write as Linux does. A group was already resolved
 * to its member. @return as act4. */
static __rte_noinline int
act4_slow(const struct rt_dp *dp, struct rt_worker *w, struct rte_mbuf *m, struct rte_ipv4_hdr *ip,
	  uint32_t nh)
{
	const struct nh_dp *d = &w->nh[nh];
	if (!dp_forwardable(w, m, d, nh))
		return -1;
	if (ip->time_to_live <= 1) {
		dp_punt(w, m, RT_PUNT_TTL, nh);
		return -1;
	}
	/* The frame ends where the IP packet does (validate4 trimmed it). */
	if (rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN > d->mtu) {
		if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG))
			dp_punt(w, m, RT_PUNT_TOO_BIG, nh);
		else
			dp_punt(w, m, RT_PUNT_FRAGMENT, nh); /* frag.c, on the control core */
		return -1;
	}
	__m128i hdr = nh_hdr_load(d->hdr4);
	if (!nh_hdr_valid(hdr)) {
		dp_unsent(dp, w, m, d, nh);
		return -1;
	}
	dp_ttl_dec4(ip);
	return dp_send(w, (uint8_t *)ip - RTE_ETHER_HDR_LEN, hdr, d->port, nh);
}

/*
 * Act on the lookup's answer. A valid header says the nexthop is a
 * gateway whose neighbour is resolved and whose port is up (lib/nexthop
 * withdraws it otherwise), so with the TTL and the MTU that is the whole
 * common case; everything else, in RFC order, is act4_slow's. A group
 * (never a valid header) first picks its member.
 * @return the egress port of a packet to send, or -1 (punted or dropped).
 */
static inline int
act4(const struct rt_dp *dp, struct rt_worker *w, struct rte_mbuf *m, struct rte_ipv4_hdr *ip,
     uint32_t nh)
{
	const struct nh_dp *d = &w->nh[nh];
	__m128i hdr = nh_hdr_load(d->hdr4);
	if (unlikely(!nh_hdr_valid(hdr))) {
		if (d->type != NH_T_GROUP)
			return act4_slow(dp, w, m, ip, nh);
		nh = nh_group_member(d, flow_hash4(dp, ip));
		d = &w->nh[nh];
		hdr = nh_hdr_load(d->hdr4);
		if (!nh_hdr_valid(hdr))
			return act4_slow(dp, w, m, ip, nh);
	}
	if (unlikely(!dp_ttl_fast4(ip) || rte_pktmbuf_data_len(m) > d->frame_max))
		return act4_slow(dp, w, m, ip, nh);
	dp_ttl_dec4_fast(ip);
	return dp_send(w, (uint8_t *)ip - RTE_ETHER_HDR_LEN, hdr, d->port, nh);
}

/* Both entry points, specialised by the constants l2group and hw_csum
 * (the port's NIC checks IPv4 checksums: a test per burst, not per
 * packet, for ports without): validate (and, for unclassified frames,
 * check the frame in the same pass), look up the burst, act on each
 * answer. One function of numbered steps, longer than the others on
 * purpose: the steps hand each other the burst's arrays, which stay on
 * this frame and in registers, and a reader follows a packet from top to
 * bottom without leaving it. */
static __rte_always_inline unsigned int
dp4_run(const struct rt_dp *dp, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	uint8_t **frames, unsigned int n, struct rte_mbuf **rest, uint8_t **rest_frames,
	bool l2group, bool hw_csum)
{
	const struct rt_port *p = &dp->port[port];
	struct rte_ipv4_hdr *ip[RT_BURST];
	struct rte_mbuf *ok[RT_BURST];
	uint32_t dst[RT_BURST], nh[RT_BURST];
	unsigned int k = 0, back = 0;

	/* Step 1: validate; keep the good ones and their destinations. */
	const struct dp_fast_frame fast =
		dp_fast_frame_of(p, RTE_ETHER_TYPE_IPV4, 0x45, sizeof(struct rte_ipv4_hdr));
	for (unsigned int i = 0; i < n; i++) {
#ifdef DP_X8
		/* Eight at a time where all eight are the usual case; a group
		 * that is not goes one by one. */
		if (!l2group && i % DP_X8 == 0 && i + DP_X8 <= n &&
		    likely(validate4_x8(&fast, pkts + i, frames + i, ok + k, ip + k, dst + k))) {
			k += DP_X8;
			i += DP_X8 - 1;
			continue;
		}
#endif
		struct rte_mbuf *m = pkts[i];
		uint8_t *eth = frames[i];
		struct rte_ipv4_hdr *h;
		if (!l2group && likely(dp_frame_fast(&fast, m, eth))) {
			h = validate4_fast(w, m, eth, hw_csum);
		} else if (l2group || dp_frame_ours(p, m, eth, RTE_BE16(RTE_ETHER_TYPE_IPV4))) {
			h = validate4(w, m, eth);
		} else {
			rest[back] = m; /* back <= i: entry i was read */
			rest_frames[back++] = eth;
			continue;
		}
		if (h == NULL)
			continue;
		uint32_t d = rte_be_to_cpu_32(h->dst_addr);
		uint8_t s0 = *(const uint8_t *)&h->src_addr; /* first octet */
		if (unlikely((addr4_class[s0] | addr4_class[d >> 24]) != 0) &&
		    special4(w, m, rte_be_to_cpu_32(h->src_addr), d))
			continue;
		ok[k] = m;
		ip[k] = h;
		dst[k++] = d;
	}
	if (k == 0)
		return back;
	/* Step 2: one lookup for the burst; the rules layer only when
	 * custom rules exist (one test per burst otherwise). */
	fib_lookup4_bulk(dp->main, dst, nh, k);
	const struct fib_rule_set *rules = fib_rules_get(dp->fib, FIB_AF_INET);
	if (unlikely(rules != NULL)) {
		uint32_t src[RT_BURST];
		struct fib_flow flow[RT_BURST];
		/* Ports are read only for a set that selects by them: finding
		 * the transport header is most of a flow's cost. The test in
		 * the loop is loop-invariant, and kept there: two loops instead
		 * made the register allocation of every path worse. */
		bool ports = fib_rule_set_ports(rules);
		for (unsigned int i = 0; i < k; i++) {
			const struct rte_ipv4_hdr *h = ip[i];
			src[i] = rte_be_to_cpu_32(h->src_addr);
			flow[i] = (struct fib_flow){.dscp = h->type_of_service >> 2,
						    .proto = h->next_proto_id,
						    .iif = port};
			if (ports) {
				unsigned int ihl = (h->version_ihl & 0xf) * 4u;
				bool later = (h->fragment_offset &
					      RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) != 0;
				dp_rule_ports(&flow[i], (const uint8_t *)h + ihl,
					      dp_be16(h->total_length) - ihl, later);
			}
		}
		fib_rule_route4_bulk(dp->fib, rules, src, dst, flow, nh, k);
	}
	if (l2group) {
		for (unsigned int i = 0; i < k; i++)
			dp_l2group_end(w, ok[i], nh[i]);
		return 0;
	}
	/* Step 3: act on each answer. */
	struct dp_out out;
	unsigned int sent = 0;
	for (unsigned int i = 0; i < k; i++) {
#ifdef DP_X8
		/* Eight at a time where all eight take act4's common case
		 * (x8.h); a group that does not goes one by one. */
		if (i % DP_X8 == 0 && i + DP_X8 <= k &&
		    likely(dp_act_x8(w, ok + i, (void *const *)(ip + i), nh + i, out.m + sent,
				     out.port + sent, false))) {
			sent += DP_X8;
			i += DP_X8 - 1;
			continue;
		}
#endif
		int q = act4(dp, w, ok[i], ip[i], nh[i]);
		if (q >= 0) {
			out.m[sent] = ok[i];
			out.port[sent++] = (uint16_t)q;
		}
	}
	dp_out_flush(w, &out, sent);
	return back;
}

/* The stage for ports whose NIC checks checksums: a function of its own,
 * so that the other copy's registers are allocated as if it were alone
 * (inlined side by side, each made the other's allocation worse). */
static __rte_noinline unsigned int
dp4_burst_hw_csum(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
		  struct rte_mbuf **pkts, uint8_t **frames, unsigned int n, struct rte_mbuf **rest,
		  uint8_t **rest_frames)
{
	return dp4_run(dp, w, port, pkts, frames, n, rest, rest_frames, false, true);
}

unsigned int
DP_ISA(dp4_burst)(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
		  struct rte_mbuf **pkts, uint8_t **frames, unsigned int n, struct rte_mbuf **rest,
		  uint8_t **rest_frames)
{
	if (dp->port[port].rx_ip_csum)
		return dp4_burst_hw_csum(dp, w, port, pkts, frames, n, rest, rest_frames);
	return dp4_run(dp, w, port, pkts, frames, n, rest, rest_frames, false, false);
}

void
DP_ISA(dp4_burst_l2group)(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
			  struct rte_mbuf **pkts, uint8_t **frames, unsigned int n)
{
	(void)dp4_run(dp, w, port, pkts, frames, n, NULL, NULL, true, false);
}
